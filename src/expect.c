/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The checks of an expect step, each answered with expected and found in words. */
#include "anonremap.h"
#include "compat.h"
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KPF_KSM 21
#define KPF_THP 22

static void rel(struct run *r, uint64_t a, char *buf, size_t len)
{
	rel_format(a, r->base, buf, len);
}

static void span(struct run *r, const struct vma *v, char *buf, size_t len)
{
	char a[64], b[64];
	rel(r, v->start, a, sizeof(a));
	rel(r, v->end, b, sizeof(b));
	snprintf(buf, len, "%s..%s", a, b);
}

/* Resolve the nth address of a field (FT_ADDR2 has two). */
static int addr_of(struct run *r, struct step *st, enum field_id id, int nth, uint64_t *out, struct err *err)
{
	struct step tmp;

	if (nth == 0)
		return run_resolve(r, st, id, out, err);
	memcpy(&tmp, st, sizeof(tmp));
	tmp.f[id].e = &st->f[id].e[1];
	return run_resolve(r, &tmp, id, out, err);
}

static int find(struct run *r, uint64_t a, struct vma *v, struct err *err)
{
	int rc = vma_find(&r->cur->vs, a, false, v);
	if (rc < 0)
		return err_set(err, "PROCMAP_QUERY of %d: %s", (int)r->cur->pid, strerror(-rc));
	return rc;
}

static int check_vma(struct run *r, struct step *st, char *exp, char *fnd, size_t len, struct err *err)
{
	uint64_t a, s, e;
	struct vma v;
	char ra[64], rs[64], re[64], sp[160];

	if (addr_of(r, st, FLD_VMA, 0, &a, err) || addr_of(r, st, FLD_START, 0, &s, err) ||
	    addr_of(r, st, FLD_END, 0, &e, err))
		return -1;
	rel(r, a, ra, sizeof(ra));
	rel(r, s, rs, sizeof(rs));
	rel(r, e, re, sizeof(re));
	snprintf(exp, len, "VMA containing %s spans %s..%s", ra, rs, re);
	int rc = find(r, a, &v, err);
	if (rc < 0)
		return -1;
	if (!rc) {
		snprintf(fnd, len, "no VMA contains %s", ra);
		return 1;
	}
	span(r, &v, sp, sizeof(sp));
	snprintf(fnd, len, "VMA containing %s spans %s", ra, sp);
	bool ok = v.start == s && v.end == e;
	vma_clear(&v);
	return !ok;
}

static int check_same(struct run *r, struct step *st, bool want_same, char *exp, char *fnd, size_t len,
		      struct err *err)
{
	enum field_id id = want_same ? FLD_SAME_VMA : FLD_DIFFERENT_VMA;
	uint64_t a, b;
	struct vma va;
	char ra[64], rb[64], sp[160];

	if (addr_of(r, st, id, 0, &a, err) || addr_of(r, st, id, 1, &b, err))
		return -1;
	rel(r, a, ra, sizeof(ra));
	rel(r, b, rb, sizeof(rb));
	snprintf(exp, len, "%s and %s %s", ra, rb, want_same ? "in one VMA" : "in different VMAs");
	int rc = find(r, a, &va, err);
	if (rc < 0)
		return -1;
	if (!rc) {
		snprintf(fnd, len, "no VMA contains %s", ra);
		return want_same;
	}
	bool same = b >= va.start && b < va.end;
	span(r, &va, sp, sizeof(sp));
	if (same)
		snprintf(fnd, len, "one VMA %s holds both", sp);
	else
		snprintf(fnd, len, "VMA containing %s spans %s, without %s", ra, sp, rb);
	vma_clear(&va);
	return same != want_same;
}

static int check_count(struct run *r, struct step *st, char *exp, char *fnd, size_t len, struct err *err)
{
	uint64_t from = r->base, to = r->base + r->size;
	char rf[64], rt[64];
	struct vma *v;
	size_t n;

	if (st->f[FLD_FROM].set && addr_of(r, st, FLD_FROM, 0, &from, err))
		return -1;
	if (st->f[FLD_TO].set && addr_of(r, st, FLD_TO, 0, &to, err))
		return -1;
	rel(r, from, rf, sizeof(rf));
	rel(r, to, rt, sizeof(rt));
	snprintf(exp, len, "%lld VMAs intersect %s..%s", (long long)st->f[FLD_VMA_COUNT].i, rf, rt);
	int rc = vma_list(&r->cur->vs, from, to, &v, &n);
	if (rc)
		return err_set(err, "listing VMAs: %s", strerror(-rc));
	vma_free_list(v, n);
	snprintf(fnd, len, "%zu VMAs intersect %s..%s", n, rf, rt);
	return (long long)n != st->f[FLD_VMA_COUNT].i;
}

static int check_mapped(struct run *r, struct step *st, char *exp, char *fnd, size_t len, struct err *err)
{
	uint64_t a;
	struct vma v;
	char ra[64], sp[160];
	bool want = st->f[FLD_MAPPED].u;

	if (addr_of(r, st, FLD_AT, 0, &a, err))
		return -1;
	rel(r, a, ra, sizeof(ra));
	snprintf(exp, len, "%s %s", ra, want ? "mapped" : "not mapped");
	int rc = find(r, a, &v, err);
	if (rc < 0)
		return -1;
	if (rc) {
		span(r, &v, sp, sizeof(sp));
		snprintf(fnd, len, "%s mapped by %s (%s)", ra, sp, v.perms);
		vma_clear(&v);
	} else {
		snprintf(fnd, len, "%s not mapped", ra);
	}
	return rc != want;
}

/* faulted: pagemap's present bit; thp and ksm: kpageflags' THP or KSM bit
 * (root only); soft_dirty: pagemap's soft-dirty bit (madv_populate.c's
 * range_is_softdirty). */
enum page_bit { PB_PRESENT, PB_THP, PB_SOFT_DIRTY, PB_KSM };
static int check_pages(struct run *r, struct step *st, enum page_bit what_bit, char *exp, char *fnd, size_t len,
		       struct err *err)
{
	uint64_t a, l = st->f[FLD_LEN].set ? st->f[FLD_LEN].u : kinfo.page_size;
	char ra[64];
	bool kpf = what_bit == PB_THP || what_bit == PB_KSM;
	static const enum field_id key[] = { [PB_PRESENT] = FLD_FAULTED, [PB_THP] = FLD_THP,
					     [PB_SOFT_DIRTY] = FLD_SOFT_DIRTY, [PB_KSM] = FLD_KSM };
	bool want = st->f[key[what_bit]].u;

	if (addr_of(r, st, FLD_AT, 0, &a, err))
		return -1;
	uint64_t first = a / kinfo.page_size, last = (a + l + kinfo.page_size - 1) / kinfo.page_size;
	uint64_t n = last - first, yes = 0;
	if (n > (1ull << 24))
		return err_set(err, "len: more than 2^24 pages to check");
	uint64_t *pm = malloc(n * sizeof(uint64_t) + 1);
	if (!pm)
		return err_set(err, "out of memory");
	int rc = pagemap_read(r->cur->pid, first * kinfo.page_size, n, pm);
	pagemap_close();
	if (rc) {
		free(pm);
		return err_set(err, "/proc/%d/pagemap: %s", (int)r->cur->pid, strerror(-rc));
	}
	for (uint64_t i = 0; i < n; i++) {
		if (!kpf) {
			yes += !!(pm[i] & (what_bit == PB_SOFT_DIRTY ? PM_SOFT_DIRTY : PM_PRESENT));
			continue;
		}
		uint64_t kf;
		if (!(pm[i] & PM_PRESENT))
			continue;
		if (!(pm[i] & PM_PFN_MASK) || kpageflags_read(pm[i] & PM_PFN_MASK, &kf)) {
			free(pm);
			return err_set(err, "%s: /proc/kpageflags or pagemap PFNs are not readable (needs root)",
				       field_defs[key[what_bit]].key);
		}
		yes += !!(kf & (1ull << (what_bit == PB_KSM ? KPF_KSM : KPF_THP)));
	}
	free(pm);
	rel(r, a, ra, sizeof(ra));
	static const char *const words[] = { [PB_PRESENT] = "present", [PB_THP] = "in transparent huge pages",
					     [PB_SOFT_DIRTY] = "soft-dirty", [PB_KSM] = "KSM-merged" };
	const char *what = words[what_bit];
	snprintf(exp, len, "%s pages of %s +%" PRIu64 "p %s", want ? "all" : "no", ra, n, what);
	snprintf(fnd, len, "%" PRIu64 " of %" PRIu64 " pages %s", yes, n, what);
	return want ? yes != n : yes != 0;
}

/* anon_huge_pages: smaps' AnonHugePages of one VMA, i.e. its PMD-mapped THPs. */
static int check_huge(struct run *r, struct step *st, char *exp, char *fnd, size_t len, struct err *err)
{
	uint64_t a;
	struct vma v;
	char ra[64], sp[160];

	if (addr_of(r, st, FLD_VMA, 0, &a, err))
		return -1;
	rel(r, a, ra, sizeof(ra));
	snprintf(exp, len, "VMA containing %s has %lld pages in PMD-mapped huge pages", ra,
		 (long long)st->f[FLD_ANON_HUGE_PAGES].i);
	int rc = find(r, a, &v, err);
	if (rc < 0)
		return -1;
	if (!rc) {
		snprintf(fnd, len, "no VMA contains %s", ra);
		return 1;
	}
	struct smaps_table *sm = smaps_load(r->cur->pid, v.end, err);
	if (!sm) {
		vma_clear(&v);
		return -1;
	}
	const struct smaps_entry *e = smaps_find(sm, v.start);
	long long pages = e ? (long long)(e->anon_huge / (kinfo.page_size / 1024)) : -1;
	span(r, &v, sp, sizeof(sp));
	snprintf(fnd, len, "VMA %s has %lld pages in PMD-mapped huge pages", sp, pages);
	smaps_free(sm);
	vma_clear(&v);
	return pages != st->f[FLD_ANON_HUGE_PAGES].i;
}

/* The x-ray checks: what /proc cannot show, from the optional module. */
static int xray_of(struct run *r, uint64_t a, bool folios, struct xray_vma **x, size_t *n,
		   const struct xray_vma **v, struct err *err)
{
	char why[200];
	struct vma vm;
	uint64_t lo = a, hi = a + 1;
	/* the whole VMA, so a folio check covers every folio of it */
	if (vma_find(&r->cur->vs, a, false, &vm) > 0) {
		lo = vm.start;
		hi = vm.end;
		vma_clear(&vm);
	}
	if (xray_read(r->cur->pid, lo, hi, folios, x, n, why, sizeof(why)) < 0)
		return err_set(err, "x-ray unavailable: %s (scenarios with x-ray checks should require xray)", why);
	*v = xray_find(*x, *n, a);
	return 0;
}

static int check_xray(struct run *r, struct step *st, enum field_id id, char *exp, char *fnd, size_t len,
		      struct err *err)
{
	struct xray_vma *x = NULL;
	size_t n = 0;
	const struct xray_vma *v;
	uint64_t a;
	char ra[64];
	bool want = st->f[id].u;

	if (addr_of(r, st, FLD_VMA, 0, &a, err) || xray_of(r, a, id == FLD_FOLIOS_LINEAR, &x, &n, &v, err))
		return -1;
	rel(r, a, ra, sizeof(ra));
	if (id == FLD_PGOFF_LINEAR)
		snprintf(exp, len, "VMA containing %s has vm_pgoff %s its start in pages", ra, want ? "==" : "!=");
	else
		snprintf(exp, len, "VMA containing %s has folios %s", ra,
			 want ? "all linear, in its anon_vma" : "not all linear");
	int rc;
	if (!v) {
		snprintf(fnd, len, "no VMA contains %s", ra);
		rc = 1;
	} else if (id == FLD_PGOFF_LINEAR) {
		bool got = xray_pgoff_linear(v);
		snprintf(fnd, len, "vm_pgoff 0x%" PRIx64 ", start in pages 0x%" PRIx64, v->pgoff, v->start / v->page_size);
		rc = got != want;
	} else {
		bool got = xray_folios_linear(v);
		size_t bad = 0;
		for (size_t i = 0; i < v->nfolios; i++)
			bad += !xray_folio_linear(v, &v->folios[i]);
		snprintf(fnd, len, "%zu of %zu folio runs not linear", bad, v->nfolios);
		rc = got != want;
	}
	xray_free(x, n);
	return rc;
}

static int check_anon_vma(struct run *r, struct step *st, bool want_same, char *exp, char *fnd, size_t len,
			  struct err *err)
{
	enum field_id id = want_same ? FLD_SAME_ANON_VMA : FLD_DIFFERENT_ANON_VMA;
	struct xray_vma *xa = NULL, *xb = NULL;
	size_t na = 0, nb = 0;
	const struct xray_vma *va, *vb;
	uint64_t a, b;
	char ra[64], rb[64];

	if (addr_of(r, st, id, 0, &a, err) || addr_of(r, st, id, 1, &b, err))
		return -1;
	if (xray_of(r, a, false, &xa, &na, &va, err))
		return -1;
	if (xray_of(r, b, false, &xb, &nb, &vb, err)) {
		xray_free(xa, na);
		return -1;
	}
	rel(r, a, ra, sizeof(ra));
	rel(r, b, rb, sizeof(rb));
	snprintf(exp, len, "the VMAs at %s and %s have %s anon_vma", ra, rb, want_same ? "the same" : "different");
	bool same = va && vb && va->has_anon_vma && vb->has_anon_vma && va->anon_vma == vb->anon_vma;
	snprintf(fnd, len, "anon_vma %s%" PRIx64 " and %s%" PRIx64, va && va->has_anon_vma ? "" : "none/",
		 va ? va->anon_vma : 0, vb && vb->has_anon_vma ? "" : "none/", vb ? vb->anon_vma : 0);
	xray_free(xa, na);
	xray_free(xb, nb);
	return same != want_same;
}

/* perms and vm_flags: what maps and smaps say of the VMA containing at. */
static int check_vma_props(struct run *r, struct step *st, enum field_id id, char *exp, char *fnd, size_t len,
			   struct err *err)
{
	uint64_t a;
	struct vma v;
	char ra[64], sp[160];
	const char *want = st->f[id].s;

	if (addr_of(r, st, FLD_AT, 0, &a, err))
		return -1;
	rel(r, a, ra, sizeof(ra));
	if (id == FLD_PERMS)
		snprintf(exp, len, "VMA containing %s has permissions %s", ra, want);
	else
		snprintf(exp, len, "VMA containing %s has VmFlags %s", ra, want);
	int rc = find(r, a, &v, err);
	if (rc < 0)
		return -1;
	if (!rc) {
		snprintf(fnd, len, "no VMA contains %s", ra);
		return 1;
	}
	span(r, &v, sp, sizeof(sp));
	if (id == FLD_PERMS) {
		snprintf(fnd, len, "VMA %s has permissions %s", sp, v.perms);
		rc = strcmp(v.perms, want) != 0;
		vma_clear(&v);
		return rc;
	}
	struct smaps_table *sm = smaps_load(r->cur->pid, v.end, err);
	if (!sm) {
		vma_clear(&v);
		return -1;
	}
	const struct smaps_entry *e = smaps_find(sm, v.start);
	rc = 0;
	if (!e) {
		snprintf(fnd, len, "no smaps entry for VMA %s", sp);
		rc = 1;
	} else {
		/* smaps ends the line with a space: not part of what is found */
		int fl = (int)strlen(e->vm_flags);
		while (fl && e->vm_flags[fl - 1] == ' ')
			fl--;
		snprintf(fnd, len, "VMA %s has VmFlags %.*s", sp, fl, e->vm_flags);
		/* want is "+gu -nr"; VmFlags is "rd wr mr mw me ac gu" */
		for (const char *w = want; *w; w += w[3] ? 4 : 3) {
			bool has = false;
			for (const char *f = e->vm_flags; *f; f++)
				if (f[0] == w[1] && f[1] == w[2] && (f == e->vm_flags || f[-1] == ' ') &&
				    (!f[2] || f[2] == ' '))
					has = true;
			rc |= has != (w[0] == '+');
		}
	}
	smaps_free(sm);
	vma_clear(&v);
	return rc;
}

/* A pages pattern, one letter a page, with runs written as dumps write
 * them (x{512}); malloc'd, or NULL with err set. Letters are pages_state's,
 * '?' any page and 'P' a populated one (present or swapped: madv_populate.c's
 * pagemap_is_populated()). */
char *pages_pattern(const char *s, struct err *err)
{
	size_t n = 0, cap = 64;
	char *out = xmalloc(cap);

	for (const char *c = s; *c;) {
		if (!strchr(".xswgHP?", *c)) {
			free(out);
			err_set(err, "pages: '%c' at offset %zu is not a pages_state letter (. x s w g H), P or ?", *c,
				(size_t)(c - s));
			return NULL;
		}
		unsigned long long k = 1;
		const char *l = c++;
		if (*c == '{') {
			char *end;
			errno = 0;
			k = isdigit((unsigned char)c[1]) ? strtoull(c + 1, &end, 10) : 0;
			if (!k || errno || *end != '}' || k > PAGES_MAX) {
				free(out);
				err_set(err, "pages: run at offset %zu is not %c{N} with N from 1 to %u", (size_t)(l - s), *l,
					PAGES_MAX);
				return NULL;
			}
			c = end + 1;
		}
		if (n + k > PAGES_MAX) {
			free(out);
			err_set(err, "pages: more than %u pages", PAGES_MAX);
			return NULL;
		}
		while (n + k + 1 > cap)
			out = xreallocarray(out, cap *= 2, 1);
		memset(out + n, *l, k);
		n += k;
	}
	out[n] = 0;
	if (!n) {
		free(out);
		err_set(err, "pages: no pages");
		return NULL;
	}
	return out;
}

/* pages: the letters of pages_state from at, one a page, '?' any, 'P'
 * present or swapped. */
static int check_page_letters(struct run *r, struct step *st, char *exp, char *fnd, size_t len, struct err *err)
{
	char *want = pages_pattern(st->f[FLD_PAGES].s, err);
	if (!want)
		return -1;
	uint64_t a, n = strlen(want), ps = kinfo.page_size;
	char ra[64];
	int e = 0;

	if (addr_of(r, st, FLD_AT, 0, &a, err)) {
		free(want);
		return -1;
	}
	rel(r, a, ra, sizeof(ra));
	a &= ~(ps - 1);
	snprintf(exp, len, "pages from %s: %s", ra, st->f[FLD_PAGES].s);
	char *got = pages_letters(r->cur->pid, a, a + n * ps, &e);
	pagemap_close();
	if (!got) {
		free(want);
		return err_set(err, "/proc/%d/pagemap: %s", (int)r->cur->pid, strerror(e));
	}
	int rc = 0;
	for (uint64_t i = 0; i < n; i++)
		rc |= want[i] == 'P' ? !strchr("xsHw", got[i]) : want[i] != '?' && want[i] != got[i];
	char *runs = pages_runs(got);
	snprintf(fnd, len, "pages from %s: %s", ra, runs);
	free(runs);
	free(got);
	free(want);
	return rc;
}

/* guard_scan: guard-regions.c's PAGEMAP_SCAN (category_anyof_mask =
 * return_mask = PAGE_IS_GUARD) over the pages from at, one letter a page.
 * Holds when the ioctl returns one region for each run of g, each with
 * categories PAGE_IS_GUARD, and walk_end is the end of the range. */
static int check_guard_scan(struct run *r, struct step *st, char *exp, char *fnd, size_t len, struct err *err)
{
	const char *want = st->f[FLD_GUARD_SCAN].s;
	uint64_t a, n = strlen(want), ps = kinfo.page_size, walk_end = 0;
	char ra[64], rw[64];
	int runs = 0;

	if (addr_of(r, st, FLD_AT, 0, &a, err))
		return -1;
	rel(r, a, ra, sizeof(ra));
	a &= ~(ps - 1);
	for (uint64_t i = 0; i < n; i++)
		runs += want[i] == 'g' && (i == 0 || want[i - 1] != 'g');
	rel(r, a + n * ps, rw, sizeof(rw));
	snprintf(exp, len, "PAGEMAP_SCAN from %s: %d guard regions %s, walk_end %s", ra, runs, want, rw);
	struct page_region *reg = xcalloc(n, sizeof(*reg));
	int k = pagemap_scan_guard(r->cur->pid, a, a + n * ps, reg, n, &walk_end);
	pagemap_close();
	if (k < 0) {
		free(reg);
		return err_set(err, "PAGEMAP_SCAN of /proc/%d/pagemap: %s%s", (int)r->cur->pid, strerror(-k),
			       k == -EINVAL ? " (a kernel without PAGE_IS_GUARD refuses it)" : "");
	}
	char *got = xmalloc(n + 1);
	memset(got, '.', n);
	got[n] = 0;
	int rc = k != runs || walk_end != a + n * ps;
	for (int i = 0; i < k; i++) {
		rc |= reg[i].categories != PAGE_IS_GUARD;
		for (uint64_t p = reg[i].start; p < reg[i].end && p >= a && p < a + n * ps; p += ps)
			got[(p - a) / ps] = 'g';
	}
	rc |= strcmp(got, want) != 0;
	rel(r, walk_end, rw, sizeof(rw));
	int o = snprintf(fnd, len, "PAGEMAP_SCAN from %s: %d guard regions %s, walk_end %s", ra, k, got, rw);
	for (int i = 0; i < k && o > 0 && (size_t)o < len; i++)
		if (reg[i].categories != PAGE_IS_GUARD)
			o += snprintf(fnd + o, len - o, "; region %d categories 0x%llx", i,
				      (unsigned long long)reg[i].categories);
	free(got);
	free(reg);
	return rc;
}

/* One look at the state: 0 holds, 1 does not, -1 could not be read. */
static int check_once(struct run *r, struct step *st, const char **checkp, char *exp, char *fnd, size_t len,
		      struct err *err)
{
	const char *check;
	int rc;

	if (st->f[FLD_PGOFF_LINEAR].set || st->f[FLD_FOLIOS_LINEAR].set) {
		enum field_id id = st->f[FLD_PGOFF_LINEAR].set ? FLD_PGOFF_LINEAR : FLD_FOLIOS_LINEAR;
		check = field_defs[id].key;
		rc = check_xray(r, st, id, exp, fnd, len, err);
	} else if (st->f[FLD_SAME_ANON_VMA].set || st->f[FLD_DIFFERENT_ANON_VMA].set) {
		bool same = st->f[FLD_SAME_ANON_VMA].set;
		check = same ? "same_anon_vma" : "different_anon_vma";
		rc = check_anon_vma(r, st, same, exp, fnd, len, err);
	} else if (st->f[FLD_ANON_HUGE_PAGES].set) {
		check = "anon_huge_pages";
		rc = check_huge(r, st, exp, fnd, len, err);
	} else if (st->f[FLD_PERMS].set || st->f[FLD_VM_FLAGS].set) {
		enum field_id id = st->f[FLD_PERMS].set ? FLD_PERMS : FLD_VM_FLAGS;
		check = field_defs[id].key;
		rc = check_vma_props(r, st, id, exp, fnd, len, err);
	} else if (st->f[FLD_PAGES].set) {
		check = "pages";
		rc = check_page_letters(r, st, exp, fnd, len, err);
	} else if (st->f[FLD_GUARD_SCAN].set) {
		check = "guard_scan";
		rc = check_guard_scan(r, st, exp, fnd, len, err);
	} else if (st->f[FLD_VMA].set) {
		check = "vma";
		rc = check_vma(r, st, exp, fnd, len, err);
	} else if (st->f[FLD_SAME_VMA].set) {
		check = "same_vma";
		rc = check_same(r, st, true, exp, fnd, len, err);
	} else if (st->f[FLD_DIFFERENT_VMA].set) {
		check = "different_vma";
		rc = check_same(r, st, false, exp, fnd, len, err);
	} else if (st->f[FLD_VMA_COUNT].set) {
		check = "vma_count";
		rc = check_count(r, st, exp, fnd, len, err);
	} else if (st->f[FLD_MAPPED].set) {
		check = "mapped";
		rc = check_mapped(r, st, exp, fnd, len, err);
	} else if (st->f[FLD_FAULTED].set) {
		check = "faulted";
		rc = check_pages(r, st, PB_PRESENT, exp, fnd, len, err);
	} else if (st->f[FLD_SOFT_DIRTY].set) {
		check = "soft_dirty";
		rc = check_pages(r, st, PB_SOFT_DIRTY, exp, fnd, len, err);
	} else if (st->f[FLD_KSM].set) {
		check = "ksm";
		rc = check_pages(r, st, PB_KSM, exp, fnd, len, err);
	} else {
		check = "thp";
		rc = check_pages(r, st, PB_THP, exp, fnd, len, err);
	}
	*checkp = check;
	return rc;
}

/* With within_ms, a check that does not hold yet is looked at again every
 * 10 ms until it does or the time is up: what ksmd or khugepaged do happens
 * in the background, and the result says how long it took. */
int expect_eval(struct run *r, struct step *st, cJSON *out, struct err *err)
{
	char exp[400], fnd[400];
	const char *check;
	bool retry = st->f[FLD_WITHIN_MS].set;
	uint64_t t0 = now_ns(), limit = retry ? (uint64_t)st->f[FLD_WITHIN_MS].i * 1000000 : 0;
	int rc;

	while ((rc = check_once(r, st, &check, exp, fnd, sizeof(exp), err)) == 1 && now_ns() - t0 < limit)
		nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000 * 1000 }, NULL);
	if (rc < 0)
		return -1;
	cJSON_AddNumberToObject(out, "step", st->index);
	cJSON_AddStringToObject(out, "check", check);
	cJSON_AddBoolToObject(out, "ok", rc == 0);
	cJSON_AddStringToObject(out, "expected", exp);
	cJSON_AddStringToObject(out, "found", fnd);
	if (retry)
		cJSON_AddNumberToObject(out, "waited_ms", (double)((now_ns() - t0) / 1000000));
	return rc;
}
