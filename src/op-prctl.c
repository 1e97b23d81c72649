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
	/* the rest only where given: most options want them 0, some check it */
	static const enum field_id rest[] = { FLD_ARG3, FLD_ARG4, FLD_ARG5 };
	for (int i = 0; i < 3; i++) {
		c->a[2 + i] = st->f[rest[i]].set ? (uint64_t)st->f[rest[i]].i : 0;
		if (st->f[rest[i]].set)
			cJSON_AddNumberToObject(args, field_defs[rest[i]].key, (double)(int64_t)c->a[2 + i]);
	}
	return 0;
}

static void prctl_exec(const struct call *c, struct reply *rep)
{
	uint64_t t0 = now_ns();
	rep->ret = prctl((int)c->a[0], (unsigned long)c->a[1], (unsigned long)c->a[2], (unsigned long)c->a[3],
			 (unsigned long)c->a[4]);
	rep->ns = now_ns() - t0;
	rep->err = rep->ret == -1 ? errno : 0;
}

static const struct op_field prctl_fields[] = {
	{ FLD_OPTION, true, &xlat_prctl }, { FLD_VALUE, false, NULL }, { FLD_ARG3, false, NULL },
	{ FLD_ARG4, false, NULL },	   { FLD_ARG5, false, NULL },  { FLD__COUNT, false, NULL },
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
