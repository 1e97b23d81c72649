/* SPDX-License-Identifier: GPL-2.0-or-later */
/* op mlockall: lock every mapping of the scenario process (MCL_CURRENT),
 * every later one (MCL_FUTURE), on fault only (MCL_ONFAULT). It acts on
 * the process the step runs in only, carveout and guards included (their
 * PROT_NONE pages are not populated); RLIMIT_MEMLOCK is left as it is, as
 * op-mlock.c says. A raw system call: a sanitizer's libc interceptors make
 * mlockall return 0 without calling the kernel. */
#include "anonremap.h"
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

static int mlockall_prepare(struct run *r, struct step *st, struct call *c, cJSON *args, struct err *err)
{
	(void)r, (void)err;
	c->a[0] = st->f[FLD_FLAGS].u;
	cJSON_AddItemToObject(args, "flags", xlat_json(&xlat_mlockall_flags, c->a[0]));
	return 0;
}

static void mlockall_exec(const struct call *c, struct reply *rep)
{
	uint64_t t0 = now_ns();
	rep->ret = syscall(__NR_mlockall, (int)c->a[0]);
	rep->ns = now_ns() - t0;
	rep->err = rep->ret ? errno : 0;
}

static const struct op_field mlockall_fields[] = {
	{ FLD_FLAGS, true, &xlat_mlockall_flags },
	{ FLD__COUNT, false, NULL },
};

const struct op_entry op_mlockall = {
	.name = "mlockall",
	.summary = "lock the whole process: flags current, future, onfault",
	.fields = mlockall_fields,
	.first_word = "flags",
	.syscall = true,
	.prepare = mlockall_prepare,
	.exec = mlockall_exec,
};
