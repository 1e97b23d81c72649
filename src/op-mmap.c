/* SPDX-License-Identifier: GPL-2.0-or-later */
/* op mmap: map anonymous memory, or a file the scenario process makes itself. */
#include "anonremap.h"
#include "compat.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* a[4] of the call: the kind of file, or FILE_NAMED + a file op's name index */
enum { FILE_NONE, FILE_MEMFD, FILE_TMPFILE, FILE_UPROBE, FILE_NAMED };

static int file_kind(const struct scenario *sc, const char *s)
{
	if (!strcmp(s, "memfd"))
		return FILE_MEMFD;
	if (!strcmp(s, "tmpfile"))
		return FILE_TMPFILE;
	if (!strcmp(s, "uprobe"))
		return FILE_UPROBE;
	int idx = names_find(&sc->names, s);
	return idx >= 0 && sc->is_file[idx] ? FILE_NAMED + idx : -1;
}

/* A file op's file by name, made before; and a file mapping says how it
 * shares: the old default (MAP_SHARED) was easy to miss in a merge test. */
static int mmap_check(struct scenario *sc, struct step *st, struct err *err)
{
	if (!st->f[FLD_FILE].set)
		return 0;
	if (file_kind(sc, st->f[FLD_FILE].s) < 0)
		return err_set(err, "file: '%s' is not memfd, tmpfile, uprobe or the name of an earlier file step",
			       st->f[FLD_FILE].s);
	if (!st->f[FLD_FLAGS].set || !(st->f[FLD_FLAGS].u & (MAP_SHARED | MAP_PRIVATE)))
		return err_set(err, "flags: an mmap of a file must say shared or private");
	return 0;
}

static int mmap_prepare(struct run *r, struct step *st, struct call *c, cJSON *args, struct err *err)
{
	uint64_t addr = 0, len, prot = PROT_READ | PROT_WRITE, flags, off = 0;
	int file = FILE_NONE;

	if (st->f[FLD_AT].set && run_resolve(r, st, FLD_AT, &addr, err))
		return -1;
	len = st->f[FLD_LEN].u;
	if (st->f[FLD_AT].set && run_check_range(r, st, FLD_AT, addr, len, err))
		return -1;
	if (st->f[FLD_PROT].set)
		prot = st->f[FLD_PROT].u;
	if (st->f[FLD_FILE].set)
		file = file_kind(r->sc, st->f[FLD_FILE].s);
	if (st->f[FLD_OFFSET].set)
		off = st->f[FLD_OFFSET].u;
	if (st->f[FLD_FLAGS].set)
		flags = st->f[FLD_FLAGS].u;
	else
		flags = (file ? MAP_SHARED : MAP_PRIVATE | MAP_ANONYMOUS) |
			(st->f[FLD_AT].set ? MAP_FIXED : 0);
	c->a[0] = addr;
	c->a[1] = len;
	c->a[2] = prot;
	c->a[3] = flags;
	c->a[4] = file;
	c->a[5] = off;
	run_addr_json(r, args, "addr", addr);
	cJSON_AddNumberToObject(args, "len", (double)len);
	cJSON_AddItemToObject(args, "prot", xlat_json(&xlat_mmap_prot, prot));
	cJSON_AddItemToObject(args, "flags", xlat_json(&xlat_mmap_flags, flags));
	if (file)
		cJSON_AddStringToObject(args, "file", st->f[FLD_FILE].s);
	cJSON_AddNumberToObject(args, "offset", (double)off);
	return 0;
}

static void mmap_exec(const struct call *c, struct reply *rep)
{
	int fd = -1;

	if (c->a[4] == FILE_UPROBE) {
		/* the file as the uprobe op left it: its size is the scenario's */
		fd = uprobe_file_fd() >= 0 ? dup(uprobe_file_fd()) : -1;
		if (fd < 0) {
			rep->ret = -1;
			rep->err = uprobe_file_fd() < 0 ? EBADF : errno;
			return;
		}
	} else if (c->a[4] >= FILE_NAMED) {
		/* the file op's file, as it is: mapped as often as a scenario likes */
		fd = file_fd(c->a[4] - FILE_NAMED) >= 0 ? dup(file_fd(c->a[4] - FILE_NAMED)) : -1;
		if (fd < 0) {
			rep->ret = -1;
			rep->err = file_fd(c->a[4] - FILE_NAMED) < 0 ? EBADF : errno;
			return;
		}
	} else if (c->a[4] != FILE_NONE) {
		/* the file exists only inside the scenario process: a scenario names no path */
		fd = file_make(c->a[4] == FILE_MEMFD, "anonremap", c->a[5] + c->a[1]);
		if (fd < 0) {
			rep->ret = -1;
			rep->err = errno;
			return;
		}
	}
	uint64_t t0 = now_ns();
	void *p = mmap((void *)c->a[0], c->a[1], c->a[2], c->a[3], fd, c->a[5]);
	rep->ns = now_ns() - t0;
	rep->err = p == MAP_FAILED ? errno : 0;
	rep->ret = p == MAP_FAILED ? -1 : (int64_t)(uintptr_t)p;
	if (fd >= 0)
		close(fd);
}

static int mmap_after(struct run *r, struct step *st, const struct call *c,
		      const struct reply *rep, cJSON *sres)
{
	if (rep->ret != -1 && st->f[FLD_NAME].set) {
		struct binding *b = &r->cur->bind[names_find(&r->sc->names, st->f[FLD_NAME].s)];
		b->set = true;
		b->addr = rep->ret;
		b->len = c->a[1];
	}
	return 0;
}

static bool mmap_fixed_ret(const struct call *c, int64_t *ret)
{
	*ret = (int64_t)c->a[0];
	return c->a[3] & (MAP_FIXED | MAP_FIXED_NOREPLACE);
}

static const struct op_field mmap_fields[] = {
	{ FLD_NAME, false, NULL }, { FLD_AT, false, NULL }, { FLD_LEN, true, NULL },
	{ FLD_PROT, false, &xlat_mmap_prot }, { FLD_FLAGS, false, &xlat_mmap_flags },
	{ FLD_FILE, false, NULL }, { FLD_OFFSET, false, NULL },
	{ FLD__COUNT, false, NULL },
};

const struct op_entry op_mmap = {
	.name = "mmap",
	.summary = "map memory (at implies MAP_FIXED unless flags are given)",
	.fields = mmap_fields,
	.first_word = "name",
	.syscall = true,
	.ret_addr = true,
	.check = mmap_check,
	.prepare = mmap_prepare,
	.exec = mmap_exec,
	.after = mmap_after,
	.fixed_ret = mmap_fixed_ret,
};
