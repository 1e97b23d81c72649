/* SPDX-License-Identifier: GPL-2.0-or-later */
/* op madvise: give advice on a range or a region (any number passes through). */
#include "anonremap.h"
#include <errno.h>
#include <sys/mman.h>

static int madvise_prepare(struct run *r, struct step *st, struct call *c, cJSON *args, struct err *err)
{
	if (run_range(r, st, &c->a[0], &c->a[1], true, 0, err))
		return -1;
	c->a[2] = st->f[FLD_ADVICE].u;
	run_addr_json(r, args, "addr", c->a[0]);
	cJSON_AddNumberToObject(args, "len", (double)c->a[1]);
	cJSON_AddItemToObject(args, "advice", xlat_json(&xlat_madvise, c->a[2]));
	return 0;
}

static void madvise_exec(const struct call *c, struct reply *rep)
{
	uint64_t t0 = now_ns();
	rep->ret = madvise((void *)c->a[0], c->a[1], (int)c->a[2]);
	rep->ns = now_ns() - t0;
	rep->err = rep->ret ? errno : 0;
}

static const struct op_field madvise_fields[] = {
	{ FLD_AT, false, NULL }, { FLD_REGION, false, NULL }, { FLD_LEN, false, NULL },
	{ FLD_ADVICE, true, &xlat_madvise },
	{ FLD__COUNT, false, NULL },
};

const struct op_entry op_madvise = {
	.name = "madvise",
	.summary = "madvise a range: hugepage, dontneed, pageout, collapse, ...",
	.fields = madvise_fields,
	.first_word = "region",
	.syscall = true,
	.prepare = madvise_prepare,
	.exec = madvise_exec,
};
