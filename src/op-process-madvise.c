/* SPDX-License-Identifier: GPL-2.0-or-later */
/* op process_madvise: one advice over up to VEC_MAX ranges in one call, as
 * guard-regions.c's process_madvise test gives it (PIDFD_SELF, a raw
 * system call: Debian 12's glibc has no wrapper). Each range is held to the
 * reserved area as any other step's is. */
#include "anonremap.h"
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef __NR_process_madvise
#define __NR_process_madvise 440
#endif
#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif
#ifndef PIDFD_SELF
#define PIDFD_SELF (-10000) /* PIDFD_SELF_THREAD, Linux 6.15 */
#endif

static int process_madvise_prepare(struct run *r, struct step *st, struct call *c, cJSON *args, struct err *err)
{
	const struct fval *fv = &st->f[FLD_VEC];
	cJSON *vec = cJSON_AddArrayToObject(args, "vec");

	c->nvec = (int)fv->i;
	for (int k = 0; k < c->nvec; k++) {
		struct step one = *st; /* the k-th range as if it were the only one */
		one.f[FLD_VEC].e = &fv->e[2 * k];
		if (run_resolve(r, &one, FLD_VEC, &c->vec[2 * k], err))
			return -1;
		c->vec[2 * k + 1] = fv->e[2 * k + 1].t[0].num;
		if (run_check_range(r, &one, FLD_VEC, c->vec[2 * k], c->vec[2 * k + 1], err))
			return -1;
		cJSON *o = cJSON_CreateObject();
		run_addr_json(r, o, "addr", c->vec[2 * k]);
		cJSON_AddNumberToObject(o, "len", (double)c->vec[2 * k + 1]);
		cJSON_AddItemToArray(vec, o);
	}
	c->a[0] = st->f[FLD_ADVICE].u;
	c->a[1] = st->f[FLD_PIDFD].set && !strcmp(st->f[FLD_PIDFD].s, "open");
	cJSON_AddItemToObject(args, "advice", xlat_json(&xlat_madvise, c->a[0]));
	cJSON_AddStringToObject(args, "pidfd", c->a[1] ? "open" : "self");
	return 0;
}

static void process_madvise_exec(const struct call *c, struct reply *rep)
{
	struct iovec iov[VEC_MAX];
	int pidfd = PIDFD_SELF;

	for (int k = 0; k < c->nvec; k++) {
		iov[k].iov_base = (void *)c->vec[2 * k];
		iov[k].iov_len = c->vec[2 * k + 1];
	}
	if (c->a[1] && (pidfd = syscall(__NR_pidfd_open, getpid(), 0)) < 0) {
		rep->ret = -1;
		rep->err = errno;
		return;
	}
	uint64_t t0 = now_ns();
	rep->ret = syscall(__NR_process_madvise, pidfd, iov, (size_t)c->nvec, (int)c->a[0], 0u);
	rep->ns = now_ns() - t0;
	rep->err = rep->ret < 0 ? errno : 0;
	if (c->a[1])
		close(pidfd);
}

static const struct op_field process_madvise_fields[] = {
	{ FLD_VEC, true, NULL }, { FLD_ADVICE, true, &xlat_madvise }, { FLD_PIDFD, false, NULL },
	{ FLD__COUNT, false, NULL },
};

const struct op_entry op_process_madvise = {
	.name = "process_madvise",
	.summary = "one advice over several ranges in one call",
	.fields = process_madvise_fields,
	.first_word = NULL,
	.syscall = true,
	.prepare = process_madvise_prepare,
	.exec = process_madvise_exec,
};
