/* SPDX-License-Identifier: GPL-2.0-or-later */
/* op mseal: seal a range against changes (Linux 6.10). */
#include "anonremap.h"
#include "compat.h"
#include <errno.h>
#include <unistd.h>

static int mseal_prepare(struct run *r, struct step *st, struct call *c, cJSON *args, struct err *err)
{
	if (run_range(r, st, &c->a[0], &c->a[1], true, 0, err))
		return -1;
	run_addr_json(r, args, "addr", c->a[0]);
	cJSON_AddNumberToObject(args, "len", (double)c->a[1]);
	return 0;
}

static void mseal_exec(const struct call *c, struct reply *rep)
{
#ifdef __NR_mseal
	uint64_t t0 = now_ns();
	rep->ret = syscall(__NR_mseal, c->a[0], c->a[1], 0UL);
	rep->ns = now_ns() - t0;
	rep->err = rep->ret ? errno : 0;
#else
	rep->ret = -1;
	rep->err = ENOSYS;
#endif
}

static const struct op_field mseal_fields[] = {
	{ FLD_AT, false, NULL }, { FLD_REGION, false, NULL }, { FLD_LEN, false, NULL },
	{ FLD__COUNT, false, NULL },
};

const struct op_entry op_mseal = {
	.name = "mseal",
	.summary = "seal a range",
	.fields = mseal_fields,
	.first_word = "region",
	.syscall = true,
	.prepare = mseal_prepare,
	.exec = mseal_exec,
};
