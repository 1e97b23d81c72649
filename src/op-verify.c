/* SPDX-License-Identifier: GPL-2.0-or-later */
/* op verify: check that pages still hold what fault wrote, or read as zero. */
#include "anonremap.h"
#include <string.h>

static int verify_prepare(struct run *r, struct step *st, struct call *c, cJSON *args, struct err *err)
{
	if (run_range(r, st, &c->a[0], &c->a[1], false, kinfo.page_size, err))
		return -1;
	if (st->f[FLD_LEN].set)
		c->a[1] = st->f[FLD_LEN].u;
	else if (!st->f[FLD_REGION].set)
		c->a[1] = kinfo.page_size;
	c->has_pattern = 1;
	c->access = 2 + (st->f[FLD_PATTERN].s && !strcmp(st->f[FLD_PATTERN].s, "zero"));
	c->seed = st->f[FLD_PATTERN].u;
	c->fill = st->f[FLD_FILL].set ? 1 + (int)st->f[FLD_FILL].u : 0;
	c->each_page = st->f[FLD_EACH_PAGE].set && st->f[FLD_EACH_PAGE].u;
	run_addr_json(r, args, "addr", c->a[0]);
	cJSON_AddNumberToObject(args, "len", (double)c->a[1]);
	if (c->each_page)
		cJSON_AddTrueToObject(args, "each_page");
	if (c->fill)
		cJSON_AddNumberToObject(args, "fill", c->fill - 1);
	else if (c->access == 3)
		cJSON_AddStringToObject(args, "pattern", "zero");
	else
		cJSON_AddNumberToObject(args, "pattern", (double)c->seed);
	return 0;
}

static int verify_after(struct run *r, struct step *st, const struct call *c,
			const struct reply *rep, cJSON *sres)
{
	char rel[64];

	if (rep->extra) {
		char why[160];
		rel_format(c->a[0] + rep->extra - 1, r->base, rel, sizeof(rel));
		cJSON_AddStringToObject(sres, "mismatch", rel);
		/* the reason names the first byte that differs, not only that one does */
		if (c->fill)
			snprintf(why, sizeof(why), "page contents differ from the fill byte 0x%02x: first at %s", c->fill - 1, rel);
		else
			snprintf(why, sizeof(why), "page contents differ from the pattern: first at %s", rel);
		if (sres && cJSON_GetObjectItem(sres, "failure"))
			cJSON_ReplaceItemInObject(sres, "failure", cJSON_CreateString(why));
	}
	return 0;
}

/* What the pages should hold: a pattern or a fill byte, one of them. */
static int verify_check(struct scenario *sc, struct step *st, struct err *err)
{
	(void)sc;
	if (!st->f[FLD_PATTERN].set && !st->f[FLD_FILL].set)
		return err_set(err, "pattern: required (or fill)");
	return 0;
}

static const struct op_field verify_fields[] = {
	{ FLD_AT, false, NULL }, { FLD_REGION, false, NULL }, { FLD_LEN, false, NULL },
	{ FLD_PATTERN, false, NULL }, { FLD_FILL, false, NULL }, { FLD_EACH_PAGE, false, NULL },
	{ FLD__COUNT, false, NULL },
};

const struct op_entry op_verify = {
	.name = "verify",
	.summary = "check page contents against a fault pattern, or zero",
	.fields = verify_fields,
	.first_word = "region",
	.syscall = true,
	.check = verify_check,
	.prepare = verify_prepare,
	.exec = child_touch,
	.after = verify_after,
};
