/* SPDX-License-Identifier: GPL-2.0-or-later */
/* op uprobe: a file the scenario process makes (an unlinked O_TMPFILE) with a
 * perf uprobe on it, as merge.c's handle_uprobe_upon_merged_vma sets up; mmap
 * with "file": "uprobe" then maps that same file. */
#include "anonremap.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int probe_fd = -1;

/* The uprobe op's file, for mmap's "file": "uprobe" (-1 before the op ran). */
int uprobe_file_fd(void)
{
	return probe_fd;
}

static int uprobe_prepare(struct run *r, struct step *st, struct call *c, cJSON *args, struct err *err)
{
	c->a[0] = st->f[FLD_LEN].set ? st->f[FLD_LEN].u : kinfo.page_size;
	c->a[1] = st->f[FLD_OFFSET].set ? st->f[FLD_OFFSET].u : 0;
	cJSON_AddNumberToObject(args, "len", (double)c->a[0]);
	cJSON_AddNumberToObject(args, "offset", (double)c->a[1]);
	return 0;
}

static void uprobe_exec(const struct call *c, struct reply *rep)
{
	char type[32], path[64];
	uint64_t t0 = now_ns();

	rep->ret = -1;
	if (read_small_file("/sys/bus/event_source/devices/uprobe/type", type, sizeof(type))) {
		rep->err = ENOENT;
		return;
	}
	if (probe_fd < 0) {
		const char *dir = getenv("TMPDIR");
		probe_fd = open(dir && *dir ? dir : "/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0700);
		if (probe_fd < 0) {
			rep->err = errno;
			return;
		}
	}
	if (ftruncate(probe_fd, c->a[0])) {
		rep->err = errno;
		return;
	}
	/* the unlinked file still has a path: its descriptor's magic link */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", probe_fd);
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = strtoul(type, NULL, 10);
	attr.config1 = (uint64_t)(uintptr_t)path;
	attr.config2 = c->a[1];
	long fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	rep->ns = now_ns() - t0;
	rep->err = fd < 0 ? errno : 0;
	rep->ret = fd < 0 ? -1 : 0; /* the event stays open for the process's life */
}

static const struct op_field uprobe_fields[] = {
	{ FLD_LEN, false, NULL }, { FLD_OFFSET, false, NULL },
	{ FLD__COUNT, false, NULL },
};

const struct op_entry op_uprobe = {
	.name = "uprobe",
	.summary = "make the probe file, with a perf uprobe at offset",
	.fields = uprobe_fields,
	.syscall = true,
	.prepare = uprobe_prepare,
	.exec = uprobe_exec,
};
