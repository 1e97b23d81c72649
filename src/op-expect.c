/* SPDX-License-Identifier: GPL-2.0-or-later */
/* op expect: one assertion about the VMA state; the checks live in expect.c. */
#include "anonremap.h"
#include <stdlib.h>
#include <string.h>

/* perms as maps prints them; pages in pages_state's letters, one a page. */
static int check_letters(struct step *st, struct err *err)
{
	const char *p = st->f[FLD_PERMS].s, *g = st->f[FLD_PAGES].s;

	if (st->f[FLD_PERMS].set &&
	    (strlen(p) != 4 || !strchr("r-", p[0]) || !strchr("w-", p[1]) || !strchr("x-", p[2]) || !strchr("ps", p[3])))
		return err_set(err, "perms: expected four letters as maps prints them, such as \"r--p\" or \"rw-s\"");
	if (st->f[FLD_PAGES].set) {
		char *want = pages_pattern(g, err);
		if (!want)
			return -1;
		free(want);
	}
	const char *gs = st->f[FLD_GUARD_SCAN].s;
	if (st->f[FLD_GUARD_SCAN].set && (!*gs || strspn(gs, "g.") != strlen(gs)))
		return err_set(err, "guard_scan: expected g (a guard region) or . (none), one a page");
	if (st->f[FLD_GUARD_SCAN].set && strlen(gs) > 4096)
		return err_set(err, "guard_scan: more than 4096 pages");
	return 0;
}

/* Exactly one shape: the key that names the check, and the keys it needs. */
static int expect_check(struct scenario *sc, struct step *st, struct err *err)
{
	static const struct {
		enum field_id key;
		enum field_id need[2];
		enum field_id allow[3];
	} shapes[] = {
		{ FLD_VMA, { FLD_START, FLD_END }, { FLD__COUNT, FLD__COUNT, FLD__COUNT } },
		{ FLD_SAME_VMA, { FLD__COUNT, FLD__COUNT }, { FLD__COUNT, FLD__COUNT, FLD__COUNT } },
		{ FLD_DIFFERENT_VMA, { FLD__COUNT, FLD__COUNT }, { FLD__COUNT, FLD__COUNT, FLD__COUNT } },
		{ FLD_VMA_COUNT, { FLD__COUNT, FLD__COUNT }, { FLD_FROM, FLD_TO, FLD__COUNT } },
		{ FLD_MAPPED, { FLD_AT, FLD__COUNT }, { FLD__COUNT, FLD__COUNT, FLD__COUNT } },
		{ FLD_FAULTED, { FLD_AT, FLD__COUNT }, { FLD_LEN, FLD__COUNT, FLD__COUNT } },
		{ FLD_SOFT_DIRTY, { FLD_AT, FLD__COUNT }, { FLD_LEN, FLD__COUNT, FLD__COUNT } },
		{ FLD_THP, { FLD_AT, FLD__COUNT }, { FLD_LEN, FLD__COUNT, FLD__COUNT } },
		{ FLD_KSM, { FLD_AT, FLD__COUNT }, { FLD_LEN, FLD__COUNT, FLD__COUNT } },
		{ FLD_ANON_HUGE_PAGES, { FLD_VMA, FLD__COUNT }, { FLD__COUNT, FLD__COUNT, FLD__COUNT } },
		{ FLD_PGOFF_LINEAR, { FLD_VMA, FLD__COUNT }, { FLD__COUNT, FLD__COUNT, FLD__COUNT } },
		{ FLD_FOLIOS_LINEAR, { FLD_VMA, FLD__COUNT }, { FLD__COUNT, FLD__COUNT, FLD__COUNT } },
		{ FLD_SAME_ANON_VMA, { FLD__COUNT, FLD__COUNT }, { FLD__COUNT, FLD__COUNT, FLD__COUNT } },
		{ FLD_DIFFERENT_ANON_VMA, { FLD__COUNT, FLD__COUNT }, { FLD__COUNT, FLD__COUNT, FLD__COUNT } },
		{ FLD_PERMS, { FLD_AT, FLD__COUNT }, { FLD__COUNT, FLD__COUNT, FLD__COUNT } },
		{ FLD_VM_FLAGS, { FLD_AT, FLD__COUNT }, { FLD__COUNT, FLD__COUNT, FLD__COUNT } },
		{ FLD_PAGES, { FLD_AT, FLD__COUNT }, { FLD__COUNT, FLD__COUNT, FLD__COUNT } },
		{ FLD_GUARD_SCAN, { FLD_AT, FLD__COUNT }, { FLD__COUNT, FLD__COUNT, FLD__COUNT } },
	};
	int found = -1;

	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		if (!st->f[shapes[i].key].set)
			continue;
		/* vma names the check alone, or is the address of anon_huge_pages */
		if (shapes[i].key == FLD_VMA && (st->f[FLD_ANON_HUGE_PAGES].set || st->f[FLD_PGOFF_LINEAR].set ||
						  st->f[FLD_FOLIOS_LINEAR].set))
			continue;
		if (found >= 0)
			return err_set(err, "%s: one check per expect step (also has '%s')",
				       field_defs[shapes[i].key].key, field_defs[shapes[found].key].key);
		found = i;
	}
	if (found < 0)
		return err_set(err, "expect: no check (vma, same_vma, different_vma, vma_count, mapped, faulted, thp, ksm, anon_huge_pages, pgoff_linear, folios_linear, same_anon_vma, different_anon_vma, perms, vm_flags, pages or guard_scan)");
	for (int f = 0; f < FLD__COUNT; f++) {
		if (!st->f[f].set || f == (int)shapes[found].key || f == FLD_COMMENT || f == FLD_IN ||
		    f == FLD_WITHIN_MS)
			continue;
		bool ok = false;
		for (int k = 0; k < 2; k++)
			ok |= shapes[found].need[k] == (enum field_id)f;
		for (int k = 0; k < 3; k++)
			ok |= shapes[found].allow[k] == (enum field_id)f;
		if (!ok)
			return err_set(err, "%s: not part of a '%s' check", field_defs[f].key,
				       field_defs[shapes[found].key].key);
	}
	for (int k = 0; k < 2; k++) {
		enum field_id n = shapes[found].need[k];
		if (n != FLD__COUNT && !st->f[n].set)
			return err_set(err, "%s: required by a '%s' check", field_defs[n].key,
				       field_defs[shapes[found].key].key);
	}
	if (st->f[FLD_WITHIN_MS].set && (st->f[FLD_WITHIN_MS].i < 1 || st->f[FLD_WITHIN_MS].i > 60000))
		return err_set(err, "within_ms: expected 1 to 60000 milliseconds, got %lld",
			       (long long)st->f[FLD_WITHIN_MS].i);
	return check_letters(st, err);
}

static int expect_after(struct run *r, struct step *st, const struct call *c,
			const struct reply *rep, cJSON *sres)
{
	struct err err;
	cJSON *e = cJSON_CreateObject();
	int rc = expect_eval(r, st, e, &err);

	if (rc < 0) {
		cJSON_Delete(e);
		cJSON_AddStringToObject(sres, "error", err.msg);
		return -1;
	}
	cJSON_AddItemToArray(r->expects, e);
	return rc; /* 1: failed */
}

static const struct op_field expect_fields[] = {
	{ FLD_VMA, false, NULL }, { FLD_START, false, NULL }, { FLD_END, false, NULL },
	{ FLD_SAME_VMA, false, NULL }, { FLD_DIFFERENT_VMA, false, NULL },
	{ FLD_VMA_COUNT, false, NULL }, { FLD_FROM, false, NULL }, { FLD_TO, false, NULL },
	{ FLD_MAPPED, false, NULL }, { FLD_AT, false, NULL }, { FLD_FAULTED, false, NULL },
	{ FLD_LEN, false, NULL }, { FLD_THP, false, NULL }, { FLD_ANON_HUGE_PAGES, false, NULL },
	{ FLD_PGOFF_LINEAR, false, NULL }, { FLD_FOLIOS_LINEAR, false, NULL },
	{ FLD_SAME_ANON_VMA, false, NULL }, { FLD_DIFFERENT_ANON_VMA, false, NULL },
	{ FLD_PERMS, false, NULL }, { FLD_VM_FLAGS, false, NULL }, { FLD_PAGES, false, NULL },
	{ FLD_GUARD_SCAN, false, NULL }, { FLD_SOFT_DIRTY, false, NULL }, { FLD_KSM, false, NULL },
	{ FLD_WITHIN_MS, false, NULL }, { FLD__COUNT, false, NULL },
};

const struct op_entry op_expect = {
	.name = "expect",
	.summary = "assert VMA bounds, merges, counts, presence, faults, THP or KSM",
	.fields = expect_fields,
	.check = expect_check,
	.after = expect_after,
};
