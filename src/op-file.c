/* SPDX-License-Identifier: GPL-2.0-or-later */
/* op file: a memfd or an unlinked temporary file the scenario process keeps
 * open under a name, for any number of later mmaps of the same file (the
 * same inode is what lets two file mappings merge). */
#include "anonremap.h"
#include "compat.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* By region-name index: a fork inherits the descriptors with the table. */
static int file_fds[MAX_REGIONS];
static bool file_open[MAX_REGIONS];

int file_fd(int idx)
{
	return idx >= 0 && idx < MAX_REGIONS && file_open[idx] ? file_fds[idx] : -1;
}

/* A memfd named name (so dumps and non-merge reasons tell two apart), or an
 * O_TMPFILE in $TMPDIR; size bytes long. Scenario process: no allocation. */
int file_make(bool memfd, const char *name, uint64_t size)
{
	int fd;

	if (memfd) {
		fd = memfd_create(name, MFD_CLOEXEC);
	} else {
		const char *dir = getenv("TMPDIR");
		fd = open(dir && *dir ? dir : "/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	}
	if (fd < 0)
		return -1;
	if (ftruncate(fd, size) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

static int file_check(struct scenario *sc, struct step *st, struct err *err)
{
	int idx = names_find(&sc->names, st->f[FLD_NAME].s);
	if (sc->is_file[idx])
		return err_set(err, "name: file '%s' is already made", st->f[FLD_NAME].s);
	sc->is_file[idx] = true;
	return 0;
}

static int file_prepare(struct run *r, struct step *st, struct call *c, cJSON *args, struct err *err)
{
	(void)err;
	c->a[0] = names_find(&r->sc->names, st->f[FLD_NAME].s);
	c->a[1] = !strcmp(st->f[FLD_KIND].s, "memfd");
	c->a[2] = st->f[FLD_SIZE].u;
	/* the name's string: the scenario process is a fork of anonremap made
	 * after the scenario was loaded, so it is at this address there too */
	c->a[3] = (uintptr_t)r->sc->names.name[c->a[0]];
	cJSON_AddStringToObject(args, "name", st->f[FLD_NAME].s);
	cJSON_AddStringToObject(args, "kind", st->f[FLD_KIND].s);
	cJSON_AddNumberToObject(args, "size", (double)c->a[2]);
	return 0;
}

static void file_exec(const struct call *c, struct reply *rep)
{
	uint64_t t0 = now_ns();
	int fd = file_make(c->a[1], (const char *)(uintptr_t)c->a[3], c->a[2]);

	rep->ns = now_ns() - t0;
	rep->err = fd < 0 ? errno : 0;
	rep->ret = fd < 0 ? -1 : 0;
	if (fd >= 0) {
		file_fds[c->a[0]] = fd;
		file_open[c->a[0]] = true;
	}
}

static const struct op_field file_fields[] = {
	{ FLD_NAME, true, NULL }, { FLD_KIND, true, NULL }, { FLD_SIZE, true, NULL },
	{ FLD__COUNT, false, NULL },
};

const struct op_entry op_file = {
	.name = "file",
	.summary = "make a memfd or temporary file, named, for later mmaps",
	.fields = file_fields,
	.first_word = "name",
	.syscall = true,
	.check = file_check,
	.prepare = file_prepare,
	.exec = file_exec,
};
