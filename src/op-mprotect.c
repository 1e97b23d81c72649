/* SPDX-License-Identifier: GPL-2.0-or-later */
/* op mprotect: change the protection of a range or a region. */
#include "anonremap.h"
#include <errno.h>
#include <sys/mman.h>

static int mprotect_prepare(struct run *r, struct step *st, struct call *c, cJSON *args, struct err *err)
{
	if (run_range(r, st, &c->a[0], &c->a[1], true, 0, err))
		return -1;
	c->a[2] = st->f[FLD_PROT].u;
	run_addr_json(r, args, "addr", c->a[0]);
	cJSON_AddNumberToObject(args, "len", (double)c->a[1]);
	cJSON_AddItemToObject(args, "prot", xlat_json(&xlat_mmap_prot, c->a[2]));
	return 0;
}

static void mprotect_exec(const struct call *c, struct reply *rep)
{
	uint64_t t0 = now_ns();
	rep->ret = mprotect((void *)c->a[0], c->a[1], c->a[2]);
	rep->ns = now_ns() - t0;
	rep->err = rep->ret ? errno : 0;
}

static const struct op_field mprotect_fields[] = {
	{ FLD_AT, false, NULL }, { FLD_REGION, false, NULL }, { FLD_LEN, false, NULL },
	{ FLD_PROT, true, &xlat_mmap_prot },
	{ FLD__COUNT, false, NULL },
};

const struct op_entry op_mprotect = {
	.name = "mprotect",
	.summary = "change protection of a range",
	.fields = mprotect_fields,
	.first_word = "region",
	.syscall = true,
	.prepare = mprotect_prepare,
	.exec = mprotect_exec,
};
