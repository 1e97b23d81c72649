/* SPDX-License-Identifier: GPL-2.0-or-later */
/* op clear_soft_dirty: the soft-dirty bits of every page of the process
 * cleared, as the selftests' clear_softdirty() clears them: "4" written to
 * /proc/self/clear_refs, in the process the step is in. */
#include "anonremap.h"
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

static int clear_soft_dirty_prepare(struct run *r, struct step *st, struct call *c, cJSON *args, struct err *err)
{
	(void)r, (void)st, (void)c, (void)err;
	cJSON_AddStringToObject(args, "clear_refs", "4");
	return 0;
}

static void clear_soft_dirty_exec(const struct call *c, struct reply *rep)
{
	(void)c;
	uint64_t t0 = now_ns();
	int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
	rep->ret = fd < 0 ? -1 : write(fd, "4\n", 2) == 2 ? 0 : -1;
	rep->err = rep->ret ? errno : 0;
	if (fd >= 0)
		close(fd);
	rep->ns = now_ns() - t0;
}

static const struct op_field clear_soft_dirty_fields[] = {
	{ FLD__COUNT, false, NULL },
};

const struct op_entry op_clear_soft_dirty = {
	.name = "clear_soft_dirty",
	.summary = "clear the soft-dirty bits (clear_refs: 4)",
	.fields = clear_soft_dirty_fields,
	.syscall = true,
	.prepare = clear_soft_dirty_prepare,
	.exec = clear_soft_dirty_exec,
};
