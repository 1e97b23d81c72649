/* SPDX-License-Identifier: GPL-2.0-or-later */
/* op userfaultfd: register or unregister a range with the scenario process's
 * one userfaultfd. No handler thread runs: touching a missing page of a
 * registered range blocks until the timeout, as it would in any process. */
#include "anonremap.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int uffd_prepare(struct run *r, struct step *st, struct call *c, cJSON *args, struct err *err)
{
	if (run_range(r, st, &c->a[0], &c->a[1], true, 0, err))
		return -1;
	c->a[2] = st->f[FLD_ACTION].set && !strcmp(st->f[FLD_ACTION].s, "unregister");
	c->a[3] = st->f[FLD_MODE].set ? st->f[FLD_MODE].u : UFFDIO_REGISTER_MODE_MISSING;
	run_addr_json(r, args, "addr", c->a[0]);
	cJSON_AddNumberToObject(args, "len", (double)c->a[1]);
	cJSON_AddStringToObject(args, "action", c->a[2] ? "unregister" : "register");
	if (!c->a[2])
		cJSON_AddItemToObject(args, "mode", xlat_json(&xlat_uffd_mode, c->a[3]));
	return 0;
}

/* Made on first use, in the scenario process, and kept for its lifetime. */
static int uffd = -1;

static void uffd_exec(const struct call *c, struct reply *rep)
{
	uint64_t t0 = now_ns();

	rep->ret = -1;
	if (uffd < 0) {
		int fd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
		if (fd < 0 && errno == EINVAL)
			fd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
		struct uffdio_api api = { .api = UFFD_API };
		if (fd < 0 || ioctl(fd, UFFDIO_API, &api)) {
			rep->err = errno;
			if (fd >= 0)
				close(fd);
			rep->ns = now_ns() - t0;
			return;
		}
		uffd = fd;
	}
	struct uffdio_range range = { .start = c->a[0], .len = c->a[1] };
	if (c->a[2]) {
		rep->ret = ioctl(uffd, UFFDIO_UNREGISTER, &range);
	} else {
		struct uffdio_register reg = { .range = range, .mode = c->a[3] };
		rep->ret = ioctl(uffd, UFFDIO_REGISTER, &reg);
	}
	rep->err = rep->ret ? errno : 0;
	rep->ns = now_ns() - t0;
}

static const struct op_field uffd_fields[] = {
	{ FLD_AT, false, NULL }, { FLD_REGION, false, NULL }, { FLD_LEN, false, NULL },
	{ FLD_ACTION, false, NULL }, { FLD_MODE, false, &xlat_uffd_mode },
	{ FLD__COUNT, false, NULL },
};

const struct op_entry op_userfaultfd = {
	.name = "userfaultfd",
	.summary = "register or unregister a range with a userfaultfd",
	.fields = uffd_fields,
	.first_word = "region",
	.syscall = true,
	.prepare = uffd_prepare,
	.exec = uffd_exec,
};
