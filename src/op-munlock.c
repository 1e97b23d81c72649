/* SPDX-License-Identifier: GPL-2.0-or-later */
/* op munlock: unlock a range or a region (undoes mlock and mlock2 alike);
 * a raw system call, as op-mlock.c says why. */
#include "anonremap.h"
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

static int munlock_prepare(struct run *r, struct step *st, struct call *c, cJSON *args, struct err *err)
{
	if (run_range(r, st, &c->a[0], &c->a[1], true, 0, err))
		return -1;
	run_addr_json(r, args, "addr", c->a[0]);
	cJSON_AddNumberToObject(args, "len", (double)c->a[1]);
	return 0;
}

static void munlock_exec(const struct call *c, struct reply *rep)
{
	uint64_t t0 = now_ns();
	rep->ret = syscall(__NR_munlock, c->a[0], c->a[1]);
	rep->ns = now_ns() - t0;
	rep->err = rep->ret ? errno : 0;
}

static const struct op_field munlock_fields[] = {
	{ FLD_AT, false, NULL }, { FLD_REGION, false, NULL }, { FLD_LEN, false, NULL },
	{ FLD__COUNT, false, NULL },
};

const struct op_entry op_munlock = {
	.name = "munlock",
	.summary = "unlock a range",
	.fields = munlock_fields,
	.first_word = "region",
	.syscall = true,
	.prepare = munlock_prepare,
	.exec = munlock_exec,
};
