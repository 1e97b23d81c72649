/* SPDX-License-Identifier: GPL-2.0-or-later */
/* op mlock: lock a range or a region; with flags it is mlock2, so that
 * "flags": 0 still tries mlock2 (a kernel without it answers ENOSYS).
 * RLIMIT_MEMLOCK is left as it is: a limit that refuses shows as the
 * kernel's errno (ENOMEM, EPERM), never as a limit anonremap changed.
 * The calls are raw system calls: a sanitizer's libc interceptors make
 * mlock and munlock return 0 without calling the kernel. */
#include "anonremap.h"
#include <errno.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static int mlock_prepare(struct run *r, struct step *st, struct call *c, cJSON *args, struct err *err)
{
	if (run_range(r, st, &c->a[0], &c->a[1], true, 0, err))
		return -1;
	c->a[2] = st->f[FLD_FLAGS].set;
	c->a[3] = st->f[FLD_FLAGS].u;
	run_addr_json(r, args, "addr", c->a[0]);
	cJSON_AddNumberToObject(args, "len", (double)c->a[1]);
	if (c->a[2])
		cJSON_AddItemToObject(args, "flags", xlat_json(&xlat_mlock_flags, c->a[3]));
	return 0;
}

static void mlock_exec(const struct call *c, struct reply *rep)
{
	uint64_t t0 = now_ns();
	if (c->a[2])
		rep->ret = syscall(__NR_mlock2, c->a[0], c->a[1], (unsigned int)c->a[3]);
	else
		rep->ret = syscall(__NR_mlock, c->a[0], c->a[1]);
	rep->ns = now_ns() - t0;
	rep->err = rep->ret ? errno : 0;
}

static const struct op_field mlock_fields[] = {
	{ FLD_AT, false, NULL }, { FLD_REGION, false, NULL }, { FLD_LEN, false, NULL },
	{ FLD_FLAGS, false, &xlat_mlock_flags },
	{ FLD__COUNT, false, NULL },
};

const struct op_entry op_mlock = {
	.name = "mlock",
	.summary = "lock a range in memory (mlock2 when flags are given: onfault)",
	.fields = mlock_fields,
	.first_word = "region",
	.syscall = true,
	.prepare = mlock_prepare,
	.exec = mlock_exec,
};
