/* SPDX-License-Identifier: GPL-2.0-or-later */
/* op fault: touch every page of a range, by write (default) or read,
 * optionally filling each page with a seeded pattern that verify checks. */
#include "anonremap.h"

static int fault_prepare(struct run *r, struct step *st, struct call *c, cJSON *args, struct err *err)
{
	if (run_range(r, st, &c->a[0], &c->a[1], false, kinfo.page_size, err))
		return -1;
	if (st->f[FLD_LEN].set)
		c->a[1] = st->f[FLD_LEN].u;
	else
		c->a[1] = kinfo.page_size; /* the selftests' ptr[0] = 'x' */
	c->access = st->f[FLD_ACCESS].set && st->f[FLD_ACCESS].s[0] == 'r';
	c->has_pattern = st->f[FLD_PATTERN].set;
	c->seed = st->f[FLD_PATTERN].u;
	run_addr_json(r, args, "addr", c->a[0]);
	cJSON_AddNumberToObject(args, "len", (double)c->a[1]);
	cJSON_AddStringToObject(args, "access", c->access ? "read" : "write");
	if (c->has_pattern)
		cJSON_AddNumberToObject(args, "pattern", (double)c->seed);
	c->fill = st->f[FLD_FILL].set ? 1 + (int)st->f[FLD_FILL].u : 0;
	if (c->fill)
		cJSON_AddNumberToObject(args, "fill", c->fill - 1);
	c->each_page = st->f[FLD_EACH_PAGE].set && st->f[FLD_EACH_PAGE].u;
	if (c->each_page)
		cJSON_AddTrueToObject(args, "each_page");
	return 0;
}

static const struct op_field fault_fields[] = {
	{ FLD_AT, false, NULL }, { FLD_REGION, false, NULL }, { FLD_LEN, false, NULL },
	{ FLD_ACCESS, false, NULL }, { FLD_PATTERN, false, NULL }, { FLD_FILL, false, NULL },
	{ FLD_EACH_PAGE, false, NULL },
	{ FLD__COUNT, false, NULL },
};

const struct op_entry op_fault = {
	.name = "fault",
	.summary = "touch pages (len defaults to one page)",
	.fields = fault_fields,
	.first_word = "region",
	.syscall = true,
	.prepare = fault_prepare,
	.exec = child_touch,
};
