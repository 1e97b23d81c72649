/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The stress generator: random but valid operations on the carveout, drawn
 * from its own splitmix64 stream (so a seed gives the same operations on any
 * libc), shaped by the model so most calls are meant to succeed. Every
 * operation becomes one scenario step. */
#include "stress.h"
#include "compat.h"
#include <errno.h>
#include <string.h>

const char *const stress_kind_names[SOP__COUNT] = { "mmap", "munmap", "mprotect", "madvise", "mremap", "fault", "fork" };
const char *const stress_adv_names[ADV__COUNT] = { "dontneed", "pageout", "cold", "hugepage", "nohugepage", "collapse" };
const char *const stress_mmapk_names[MMK__COUNT] = { "FIXED", "FIXED_NOREPLACE", "FIXED|POPULATE", "FIXED|NORESERVE" };

uint64_t stress_rand(struct stress_prng *p)
{
	uint64_t z = (p->s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

int stress_below(struct stress_prng *p, int n)
{
	return n <= 1 ? 0 : (int)(stress_rand(p) % (uint64_t)n);
}

#define R(n) stress_below(&g->prng, (n))
#define PCT(x) (R(100) < (x))

static int pmd_pages(void)
{
	return (int)(kinfo.pmd_size / kinfo.page_size);
}

/* Mostly short ranges: merges and splits happen at the edges. */
static int pick_len(struct stress_gen *g, int max)
{
	int r = R(100), cap = r < 45 ? 8 : r < 75 ? 32 : r < 92 ? 128 : max;
	if (max < 1)
		return 0;
	return 1 + R(cap < max ? cap : max);
}

/* A mapped page, tried a few times at random. */
static int mapped_page(struct stress_gen *g, const struct stress_model *m)
{
	for (int k = 0; k < 16; k++) {
		int p = R(m->n);
		if (m->pg[p].mapped)
			return p;
	}
	return -1;
}

/* The run of pages of p's VMA identity. */
static void vid_run(const struct stress_model *m, int p, int *lo, int *hi)
{
	*lo = *hi = p;
	while (*lo > 0 && m->pg[*lo - 1].mapped && m->pg[*lo - 1].vid == m->pg[p].vid)
		(*lo)--;
	while (*hi < m->n && m->pg[*hi].mapped && m->pg[*hi].vid == m->pg[p].vid)
		(*hi)++;
}

/* A range: mostly inside one VMA run (whole, or from its start), else anywhere. */
static bool pick_range(struct stress_gen *g, const struct stress_model *m, int inside_pct, int *a, int *n)
{
	int P = pmd_pages();

	if (g->cfg->thp && m->n >= P && PCT(25)) {
		*a = P * R(m->n / P);
		*n = P;
		return true;
	}
	int p = PCT(inside_pct) ? mapped_page(g, m) : -1;
	if (p >= 0) {
		int lo, hi;
		vid_run(m, p, &lo, &hi);
		*a = PCT(50) ? lo : lo + R(hi - lo);
		*n = PCT(30) ? hi - *a : pick_len(g, hi - *a);
		return *n > 0;
	}
	*n = pick_len(g, m->n);
	*a = R(m->n - *n + 1);
	return true;
}

/* A target for len pages that does not overlap [a, a+n): next to a mapped
 * run (where merges happen), PMD-aligned, or anywhere. */
static bool pick_target(struct stress_gen *g, const struct stress_model *m, int a, int n, int len, int *t)
{
	int P = pmd_pages();

	for (int k = 0; k < 12; k++) {
		int r = R(100), c;
		if (r < 40 && (c = mapped_page(g, m)) >= 0) {
			int lo, hi;
			vid_run(m, c, &lo, &hi);
			c = PCT(50) ? hi : lo - len;
		} else if (r < 60 && g->cfg->thp && m->n >= P) {
			c = P * R(m->n / P) + (PCT(70) ? 0 : R(P));
		} else {
			c = R(m->n - len + 1);
		}
		if (c >= 0 && c + len <= m->n && (c + len <= a || c >= a + n)) {
			*t = c;
			return true;
		}
	}
	return false;
}

static unsigned reloc_bits(struct stress_gen *g, int pct)
{
	if (!PCT(pct))
		return 0;
	int r = R(100);
	return r < 40 ? MREMAP_RELOCATE_ANON : r < 80 ? MREMAP_MUST_RELOCATE_ANON :
	       MREMAP_RELOCATE_ANON | MREMAP_MUST_RELOCATE_ANON;
}

static bool gen_mremap(struct stress_gen *g, const struct stress_model *m, struct stress_op *op)
{
	int r = R(100), lo, hi, p;

	op->t = -1;
	if (r < 45) { /* move: one VMA, part of one, or from one run on over several */
		if (!pick_range(g, m, 85, &op->a, &op->n))
			return false;
		if (PCT(20) && (p = mapped_page(g, m)) >= 0) {
			vid_run(m, p, &lo, &hi);
			op->a = lo;
			op->n = hi - lo + 1 + R(64);
			if (op->a + op->n > m->n)
				op->n = m->n - op->a;
		}
		op->new_n = op->n;
		op->flags = MREMAP_MAYMOVE | MREMAP_FIXED | (PCT(25) ? MREMAP_DONTUNMAP : 0) | reloc_bits(g, 30);
		return pick_target(g, m, op->a, op->n, op->n, &op->t);
	}
	if (r < 62) { /* a resizing move */
		if (!pick_range(g, m, 90, &op->a, &op->n))
			return false;
		if (PCT(55))
			op->new_n = op->n + 1 + R(g->cfg->thp && PCT(30) ? pmd_pages() : 16);
		else if (op->n > 1)
			op->new_n = 1 + R(op->n - 1);
		else
			op->new_n = 2;
		op->flags = MREMAP_MAYMOVE | MREMAP_FIXED | reloc_bits(g, 20);
		return pick_target(g, m, op->a, op->n, op->new_n, &op->t);
	}
	if (r < 88) { /* in place: grow into a hole, shrink, or stay */
		if ((p = mapped_page(g, m)) < 0)
			return false;
		vid_run(m, p, &lo, &hi);
		op->a = PCT(50) ? lo : lo + R(hi - lo);
		int q = R(3);
		if (q == 0) {
			int room = 0;
			while (hi + room < m->n && !m->pg[hi + room].mapped)
				room++;
			op->n = hi - op->a;
			op->new_n = op->n + 1 + R(room ? room + (PCT(10) ? 2 : 0) : 4);
			if (op->a + op->new_n > m->n)
				op->new_n = m->n - op->a;
		} else {
			op->n = pick_len(g, hi - op->a);
			op->new_n = q == 1 && op->n > 1 ? 1 + R(op->n - 1) : op->n;
		}
		op->flags = (PCT(50) ? MREMAP_MAYMOVE : 0) | reloc_bits(g, 8);
		return op->new_n >= 1;
	}
	if (r < 95) { /* invalid flag combinations: EINVAL whatever the layout */
		if (!pick_range(g, m, 80, &op->a, &op->n))
			return false;
		op->new_n = op->n;
		switch (R(4)) {
		case 0:
			op->flags = MREMAP_FIXED;
			break;
		case 1:
			op->flags = MREMAP_FIXED | MREMAP_DONTUNMAP;
			break;
		case 2:
			op->flags = MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP;
			op->new_n = op->n + 1;
			break;
		default:
			op->flags = MREMAP_MAYMOVE | MREMAP_FIXED | 0x20;
			break;
		}
		return pick_target(g, m, op->a, op->n, op->new_n, &op->t);
	}
	/* any combination of the five flags; the model sorts out what it means */
	if (!pick_range(g, m, 80, &op->a, &op->n))
		return false;
	op->flags = stress_rand(&g->prng) & 31;
	op->new_n = PCT(60) ? op->n : 1 + R(op->n + 8);
	if (op->flags & (MREMAP_FIXED | MREMAP_DONTUNMAP))
		return pick_target(g, m, op->a, op->n, op->new_n, &op->t);
	return true;
}

static bool gen_fault(struct stress_gen *g, const struct stress_model *m, struct stress_op *op)
{
	int P = pmd_pages();

	op->access = PCT(10);
	int need = op->access ? PROT_READ : PROT_READ | PROT_WRITE;
	op->seed = 1 + (uint32_t)(stress_rand(&g->prng) % 0x7ffffffe);
	if (g->cfg->thp && m->n >= P && PCT(15)) {
		/* the first page of a huge-page-sized block: the fault may allocate a THP */
		op->a = P * R(m->n / P);
		op->n = PCT(30) ? P : 1 + R(8);
		return stress_all(m, op->a, op->n, need);
	}
	for (int k = 0; k < 8; k++) {
		int p = R(m->n), lo = p, hi = p;
		if (!stress_all(m, p, 1, need))
			continue;
		while (lo > 0 && stress_all(m, lo - 1, 1, need))
			lo--;
		while (hi < m->n && stress_all(m, hi, 1, need))
			hi++;
		op->a = PCT(40) ? lo : lo + R(hi - lo);
		op->n = 1 + R(hi - op->a < 16 ? hi - op->a : 16);
		return true;
	}
	return false;
}

static int pick_advice(struct stress_gen *g)
{
	int w[ADV__COUNT] = { 4, 3, 2, 2, 1, 1 }, total = 0;

	if (g->cfg->reclaim)
		w[ADV_PAGEOUT] += 8, w[ADV_COLD] += 3;
	if (g->cfg->thp)
		w[ADV_HUGEPAGE] += 3, w[ADV_COLLAPSE] += 3;
	for (int i = 0; i < ADV__COUNT; i++) {
		bool thp_adv = i == ADV_HUGEPAGE || i == ADV_NOHUGEPAGE || i == ADV_COLLAPSE;
		if (!(g->cfg->advice & (1u << i)) || (thp_adv && !g->cfg->thp_ok))
			w[i] = 0;
		total += w[i];
	}
	if (!total)
		return -1;
	int r = R(total);
	for (int i = 0; i < ADV__COUNT; i++)
		if ((r -= w[i]) < 0)
			return i;
	return -1;
}

static bool gen_one(struct stress_gen *g, const struct stress_model *m, struct stress_op *op)
{
	static const int base[SOP__COUNT] = { 8, 5, 7, 12, 34, 22, 2 };
	int w[SOP__COUNT], total = 0;

	for (int i = 0; i < SOP__COUNT; i++) {
		w[i] = g->cfg->ops & (1u << i) ? base[i] : 0;
		if (i == SOP_MADVISE && g->cfg->reclaim && w[i])
			w[i] += 10;
		if (i == SOP_FORK && m->forks >= g->cfg->max_forks)
			w[i] = 0;
		total += w[i];
	}
	if (!total)
		return false;
	int r = R(total), k = 0;
	while ((r -= w[k]) >= 0)
		k++;
	memset(op, 0, sizeof(*op));
	op->kind = k;
	op->t = -1;
	switch (k) {
	case SOP_MMAP: {
		int rr = R(100);
		op->prot = rr < 70 ? PROT_READ | PROT_WRITE : rr < 85 ? PROT_READ : PROT_NONE;
		rr = R(100);
		op->flags = rr < 80 ? MMK_FIXED : rr < 88 ? MMK_NOREPLACE : rr < 95 ? MMK_POPULATE : MMK_NORESERVE;
		return pick_range(g, m, 30, &op->a, &op->n);
	}
	case SOP_MUNMAP:
		return pick_range(g, m, 60, &op->a, &op->n);
	case SOP_MPROTECT: {
		int rr = R(100);
		op->prot = rr < 50 ? PROT_READ | PROT_WRITE : rr < 80 ? PROT_READ : PROT_NONE;
		return pick_range(g, m, 75, &op->a, &op->n);
	}
	case SOP_MADVISE:
		op->advice = pick_advice(g);
		if (op->advice < 0)
			return false;
		if ((op->advice == ADV_HUGEPAGE || op->advice == ADV_NOHUGEPAGE || op->advice == ADV_COLLAPSE) &&
		    m->n >= pmd_pages() && PCT(70)) {
			/* a huge-page-sized block: where collapse and THP faults can happen */
			op->n = pmd_pages();
			op->a = op->n * R(m->n / op->n);
			return true;
		}
		if (op->advice == ADV_PAGEOUT && g->cfg->reclaim && PCT(50)) {
			/* reclaim: pageout of random ranges, holes and all */
			op->n = pick_len(g, m->n);
			op->a = R(m->n - op->n + 1);
			return true;
		}
		return pick_range(g, m, 85, &op->a, &op->n);
	case SOP_MREMAP:
		if (!gen_mremap(g, m, op))
			return false;
		/* only the flags --flags allows (an unknown bit only when all are) */
		if ((op->flags & 31) & ~g->cfg->mflags)
			return false;
		return !(op->flags & ~31u) || g->cfg->mflags == 31;
	case SOP_FAULT:
		return gen_fault(g, m, op);
	case SOP_FORK:
		return true;
	}
	return false;
}

/* The next operation the model does not call unsafe; false when none could be made. */
bool stress_gen_next(struct stress_gen *g, const struct stress_model *m, struct stress_op *op)
{
	struct stress_pred p;

	for (int k = 0; k < 256; k++) {
		if (!gen_one(g, m, op))
			continue;
		stress_predict(m, op, &p);
		if (p.kind != PRED_UNSAFE)
			return true;
	}
	return false;
}

void stress_pages_str(int p, char *buf, size_t len)
{
	if (p < 0)
		snprintf(buf, len, "carveout-%dp", -p);
	else if (p == 0)
		snprintf(buf, len, "carveout");
	else
		snprintf(buf, len, "carveout+%dp", p);
}

static void add_at(cJSON *s, const char *key, int p)
{
	char b[48];
	stress_pages_str(p, b, sizeof(b));
	cJSON_AddStringToObject(s, key, b);
}

static const char *prot_str(int prot)
{
	return prot == (PROT_READ | PROT_WRITE) ? "rw" : prot == PROT_READ ? "r" : "none";
}

static cJSON *mremap_flags_json(unsigned f)
{
	cJSON *a = cJSON_CreateArray();
	static const struct {
		unsigned bit;
		const char *name;
	} names[] = {
		{ MREMAP_MAYMOVE, "MAYMOVE" }, { MREMAP_FIXED, "FIXED" }, { MREMAP_DONTUNMAP, "DONTUNMAP" },
		{ MREMAP_RELOCATE_ANON, "RELOCATE_ANON" }, { MREMAP_MUST_RELOCATE_ANON, "MUST_RELOCATE_ANON" },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (f & names[i].bit)
			cJSON_AddItemToArray(a, cJSON_CreateString(names[i].name));
	if (f & ~31u)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(f & ~31u));
	return a;
}

/* The scenario step of an operation, with what the model expects of it. */
cJSON *stress_op_json(const struct stress_op *op, const struct stress_pred *p)
{
	cJSON *s = cJSON_CreateObject();

	cJSON_AddStringToObject(s, "op", stress_kind_names[op->kind]);
	if (op->kind != SOP_FORK && op->kind != SOP_MREMAP) {
		add_at(s, "at", op->a);
		gen_pages(s, "len", op->n);
	}
	switch (op->kind) {
	case SOP_MMAP:
		cJSON_AddStringToObject(s, "prot", prot_str(op->prot));
		if (op->flags != MMK_FIXED) {
			cJSON *f = cJSON_AddArrayToObject(s, "flags");
			cJSON_AddItemToArray(f, cJSON_CreateString("PRIVATE"));
			cJSON_AddItemToArray(f, cJSON_CreateString("ANONYMOUS"));
			cJSON_AddItemToArray(f, cJSON_CreateString(op->flags == MMK_NOREPLACE ? "FIXED_NOREPLACE" : "FIXED"));
			if (op->flags == MMK_POPULATE)
				cJSON_AddItemToArray(f, cJSON_CreateString("POPULATE"));
			if (op->flags == MMK_NORESERVE)
				cJSON_AddItemToArray(f, cJSON_CreateString("NORESERVE"));
		}
		break;
	case SOP_MPROTECT:
		cJSON_AddStringToObject(s, "prot", prot_str(op->prot));
		break;
	case SOP_MADVISE:
		cJSON_AddStringToObject(s, "advice", stress_adv_names[op->advice]);
		break;
	case SOP_MREMAP:
		add_at(s, "at", op->a);
		gen_pages(s, "old_len", op->n);
		gen_pages(s, "new_len", op->new_n);
		if (op->flags)
			cJSON_AddItemToObject(s, "flags", mremap_flags_json(op->flags));
		if (op->t >= 0)
			add_at(s, "to", op->t);
		break;
	case SOP_FAULT:
		if (op->access)
			cJSON_AddStringToObject(s, "access", "read");
		else
			cJSON_AddNumberToObject(s, "pattern", op->seed);
		break;
	default:
		break;
	}
	if (p->kind == PRED_ERRNO && !p->soft)
		cJSON_AddStringToObject(s, "errno", errno_name(p->err));
	else if (p->kind == PRED_ERRNO || p->kind == PRED_MAYFAIL)
		cJSON_AddTrueToObject(s, "may_fail");
	return s;
}

/* The (op, flags) pair an operation covers. */
void stress_op_key(const struct stress_op *op, char *buf, size_t len)
{
	const char *k = stress_kind_names[op->kind];

	switch (op->kind) {
	case SOP_MMAP:
		snprintf(buf, len, "%s %s %s", k, stress_mmapk_names[op->flags], prot_str(op->prot));
		return;
	case SOP_MPROTECT:
		snprintf(buf, len, "%s %s", k, prot_str(op->prot));
		return;
	case SOP_MADVISE:
		snprintf(buf, len, "%s %s", k, stress_adv_names[op->advice]);
		return;
	case SOP_FAULT:
		snprintf(buf, len, "%s %s", k, op->access ? "read" : "write");
		return;
	case SOP_MREMAP: {
		char f[128] = "";
		cJSON *a = mremap_flags_json(op->flags), *it;
		cJSON_ArrayForEach(it, a) {
			size_t o = strlen(f);
			if (cJSON_IsString(it))
				snprintf(f + o, sizeof(f) - o, "%s%s", o ? "|" : "", it->valuestring);
			else
				snprintf(f + o, sizeof(f) - o, "%s0x%x", o ? "|" : "", (unsigned)it->valuedouble);
		}
		cJSON_Delete(a);
		snprintf(buf, len, "%s %s", k, op->flags ? f : "0");
		return;
	}
	default:
		snprintf(buf, len, "%s", k);
		return;
	}
}
