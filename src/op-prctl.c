/* SPDX-License-Identifier: GPL-2.0-or-later */
/* op prctl: per-process settings that change merging (THP disable, KSM merge). */
#include "anonremap.h"
#include "compat.h"
#include <errno.h>

static int prctl_prepare(struct run *r, struct step *st, struct call *c, cJSON *args, struct err *err)
{
	c->a[0] = st->f[FLD_OPTION].u;
	c->a[1] = st->f[FLD_VALUE].set ? (uint64_t)st->f[FLD_VALUE].i : 0;
	cJSON_AddItemToObject(args, "option", xlat_json(&xlat_prctl, c->a[0]));
	cJSON_AddNumberToObject(args, "value", (double)(int64_t)c->a[1]);
	return 0;
}

static void prctl_exec(const struct call *c, struct reply *rep)
{
	uint64_t t0 = now_ns();
	rep->ret = prctl((int)c->a[0], (unsigned long)c->a[1], 0UL, 0UL, 0UL);
	rep->ns = now_ns() - t0;
	rep->err = rep->ret == -1 ? errno : 0;
}

static const struct op_field prctl_fields[] = {
	{ FLD_OPTION, true, &xlat_prctl }, { FLD_VALUE, false, NULL },
	{ FLD__COUNT, false, NULL },
};

const struct op_entry op_prctl = {
	.name = "prctl",
	.summary = "prctl(option, value): thp_disable, memory_merge, or a number",
	.fields = prctl_fields,
	.first_word = "option",
	.syscall = true,
	.prepare = prctl_prepare,
	.exec = prctl_exec,
};
