/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The merge matrix's cases (anonremap matrix): the axes, one generated
 * scenario a case, and the outcome read back from its result. The kernel
 * decides every cell; this file only builds the layouts and reads dumps. */
#include "anonremap.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const matrix_axis_names[MX_AXES] = { "op", "target", "prev", "next", "placement" };

static const char *const ops[] = { "move", "relocate", "must_relocate", "dontunmap", "mprotect", "mmap", "uffd_move", NULL };
static const char *const targets[] = { "unfaulted", "faulted", "partly", "thp", "forked", "file", "ksm", NULL };
static const char *const neighbours[] = { "none", "unfaulted", "faulted", "shared", "prot", "file", NULL };
static const char *const placements[] = { "placed", "unplaced", NULL };

const char *const *const matrix_axis_values[MX_AXES] = { ops, targets, neighbours, neighbours, placements };

/* The layout, in units u (2 pages; 2 MiB for a THP target): prev at 4u,
 * the destination at 5u, next at 6u, the parked target at 10u. */
enum { U_PREV = 4, U_DST = 5, U_NEXT = 6, U_PARK = 10, U_SIZE = 16 };

enum { OP_MOVE, OP_RELOCATE, OP_MUST, OP_DONTUNMAP, OP_MPROTECT, OP_MMAP, OP_UFFD_MOVE };
enum { T_UNFAULTED, T_FAULTED, T_PARTLY, T_THP, T_FORKED, T_FILE, T_KSM };
enum { N_NONE, N_UNFAULTED, N_FAULTED, N_SHARED, N_PROT, N_FILE };

static bool is_move(int op)
{
	return op <= OP_DONTUNMAP;
}

/* Cases that cannot be built: a neighbour shares the target's anon_vma only
 * when both were one VMA, which then sits where it was born (placed); an
 * mmap makes the target, so its state and placement are its own; the
 * UFFDIO_MOVE destination is a new mapping, placed by making it. */
bool matrix_case_valid(const struct matrix_case *c)
{
	bool shared = c->v[MX_PREV] == N_SHARED || c->v[MX_NEXT] == N_SHARED;
	int op = c->v[MX_OP];

	if (op == OP_MMAP)
		return c->v[MX_TARGET] == T_UNFAULTED && c->v[MX_PLACEMENT] == 0 && !shared;
	if (op == OP_UFFD_MOVE)
		return c->v[MX_PLACEMENT] == 0 && !shared;
	return !(shared && c->v[MX_PLACEMENT] == 1);
}

void matrix_case_id(const struct matrix_case *c, char *buf, size_t len)
{
	snprintf(buf, len, "matrix_%s_%s_prev_%s_next_%s_%s", ops[c->v[MX_OP]], targets[c->v[MX_TARGET]],
		 neighbours[c->v[MX_PREV]], neighbours[c->v[MX_NEXT]], placements[c->v[MX_PLACEMENT]]);
}

struct gen {
	cJSON *steps;
	long u; /* pages a unit */
};

/* key: "carveout+Np" for a place in units */
static void add_at(const struct gen *g, cJSON *s, const char *key, long units)
{
	gen_at(s, key, "carveout", units * g->u);
}

static cJSON *step(struct gen *g, const char *op)
{
	cJSON *s = cJSON_CreateObject();
	cJSON_AddStringToObject(s, "op", op);
	cJSON_AddItemToArray(g->steps, s);
	return s;
}

/* A file target: a private, CoW-faulted mapping of the memfd f at the file
 * offset of where it is mapped, so that the file offsets of the target at
 * its destination and of its (un)faulted neighbours, mappings of f too, run
 * on. What is left to differ is the anonymous side: the anon_vma and, from
 * Linux 7.3, the anonymous page offset of where the target was faulted. */
static void file_of(struct gen *g, cJSON *s, long units)
{
	const char *f[] = { "PRIVATE", "FIXED", NULL };
	gen_flags(s, f);
	cJSON_AddStringToObject(s, "file", "f");
	gen_pages(s, "offset", units * g->u);
}

static cJSON *mmap_at(struct gen *g, const char *name, long units, long len_units, const char *prot)
{
	cJSON *s = step(g, "mmap");
	if (name)
		cJSON_AddStringToObject(s, "name", name);
	add_at(g, s, "at", units);
	gen_pages(s, "len", len_units * g->u);
	cJSON_AddStringToObject(s, "prot", prot);
	return s;
}

static cJSON *fault_at(struct gen *g, long units, long pages)
{
	cJSON *s = step(g, "fault");
	add_at(g, s, "at", units);
	gen_pages(s, "len", pages);
	return s;
}

static cJSON *range_step(struct gen *g, const char *op, long units)
{
	cJSON *s = step(g, op);
	add_at(g, s, "at", units);
	gen_pages(s, "len", g->u);
	return s;
}

static cJSON *mremap_step(struct gen *g, long from, long to, const char *extra)
{
	cJSON *s = step(g, "mremap");
	add_at(g, s, "at", from);
	gen_pages(s, "old_len", g->u);
	add_at(g, s, "to", to);
	const char *f[] = { "MAYMOVE", "FIXED", extra, NULL };
	gen_flags(s, f);
	return s;
}

/* The target's pages as its state says: none, the first page, or all. A
 * KSM target's pages are all one byte, so that ksmd merges them into one
 * KSM page; the operation waits until kpageflags says it has (ksmd scans
 * in the background: 30 s leaves room for a guest under TCG). */
static void fault_target(struct gen *g, int target, long units)
{
	if (target == T_PARTLY) {
		fault_at(g, units, 1);
	} else if (target == T_KSM) {
		cJSON_AddNumberToObject(fault_at(g, units, g->u), "fill", 'k');
		cJSON *s = step(g, "expect");
		add_at(g, s, "at", units);
		gen_pages(s, "len", g->u);
		cJSON_AddTrueToObject(s, "ksm");
		cJSON_AddNumberToObject(s, "within_ms", 30000);
	} else if (target != T_UNFAULTED) {
		fault_at(g, units, g->u);
	}
}

/* A THP target carries VM_HUGEPAGE from its MADV_HUGEPAGE: its neighbours
 * get the advice too, or every THP cell would only say that vm_flags differ. */
static void hugepage(struct gen *g, long units, long len_units)
{
	cJSON *s = step(g, "madvise");
	add_at(g, s, "at", units);
	gen_pages(s, "len", len_units * g->u);
	cJSON_AddStringToObject(s, "advice", "hugepage");
}

static void neighbour(struct gen *g, int kind, const char *name, long units, bool thp, bool file_target)
{
	cJSON *s;

	if (kind == N_NONE || kind == N_SHARED) /* shared is made with the target */
		return;
	s = mmap_at(g, name, units, 1, kind == N_PROT ? "r" : "rw");
	if (file_target && (kind == N_UNFAULTED || kind == N_FAULTED))
		file_of(g, s, units);
	if (kind == N_FILE) {
		const char *f[] = { "PRIVATE", "FIXED", NULL };
		gen_flags(s, f);
		cJSON_AddStringToObject(s, "file", "memfd");
	}
	if (thp)
		hugepage(g, units, 1);
	if (kind == N_FAULTED)
		fault_at(g, units, 1);
}

static const char *const box_name[] = { "(none)", "unfaulted", "faulted", "shared av", "prot r", "file" };

cJSON *matrix_scenario(const struct matrix_case *c, int *op_step)
{
	int op = c->v[MX_OP], target = c->v[MX_TARGET], prev = c->v[MX_PREV], next = c->v[MX_NEXT];
	bool placed = c->v[MX_PLACEMENT] == 0;
	struct gen g = { .steps = cJSON_CreateArray(), .u = target == T_THP ? 512 : 2 };
	char id[128];
	cJSON *sc = cJSON_CreateObject(), *s;

	matrix_case_id(c, id, sizeof(id));
	cJSON_AddNumberToObject(sc, "anonremap", FORMAT_VERSION);
	cJSON_AddStringToObject(sc, "name", id);
	char desc[512];
	snprintf(desc, sizeof(desc),
		 "Merge matrix cell: %s of a %s target between prev %s and next %s, %s.\n\n"
		 "|%-11s|%-11s|%-11s|\n    prev      target       next",
		 ops[op], targets[target], neighbours[prev], neighbours[next],
		 op == OP_MMAP || op == OP_UFFD_MOVE ? "a new destination" : placed ? "born where it lands (pgoff placed)"
										   : "born elsewhere (pgoff not placed)",
		 box_name[prev], targets[target], box_name[next]);
	cJSON_AddStringToObject(sc, "description", desc);
	cJSON_AddStringToObject(sc, "source", "anonremap matrix (issue 20): generated");
	cJSON *req = cJSON_AddArrayToObject(sc, "requires");
	if (op == OP_RELOCATE || op == OP_MUST)
		cJSON_AddItemToArray(req, cJSON_CreateString("mremap_relocate_anon"));
	if (op == OP_DONTUNMAP)
		cJSON_AddItemToArray(req, cJSON_CreateString("mremap_dontunmap"));
	if (op == OP_UFFD_MOVE)
		cJSON_AddItemToArray(req, cJSON_CreateString("userfaultfd_move"));
	if (target == T_THP)
		cJSON_AddItemToArray(req, cJSON_CreateString("thp"));
	if (target == T_KSM) {
		cJSON_AddItemToArray(req, cJSON_CreateString("ksm"));
		cJSON_AddItemToArray(req, cJSON_CreateString("ksm_running"));
		cJSON_AddItemToArray(req, cJSON_CreateString("root"));
	}
	cJSON *co = cJSON_AddObjectToObject(sc, "carveout");
	gen_pages(co, "size", U_SIZE * g.u);
	if (target == T_THP)
		cJSON_AddStringToObject(co, "align", "pmd");

	/* PR_SET_MEMORY_MERGE makes every VMA of the process VM_MERGEABLE, the
	 * neighbours made after it too: else each would differ from a KSM
	 * target in that flag alone, as MADV_MERGEABLE of the target would. */
	if (target == T_KSM) {
		s = step(&g, "prctl");
		cJSON_AddStringToObject(s, "option", "memory_merge");
		cJSON_AddNumberToObject(s, "value", 1);
	}
	/* The target first, alone (or with the neighbours it shares an
	 * anon_vma with), so that no other neighbour merges with it and takes
	 * its anon_vma before the operation under test. */
	if (op != OP_MMAP) {
		long born = op == OP_UFFD_MOVE || !placed ? U_PARK : U_DST;
		long lo = prev == N_SHARED ? U_PREV : born, hi = next == N_SHARED ? U_NEXT + 1 : born + 1;
		if (target == T_FILE) {
			s = step(&g, "file");
			cJSON_AddStringToObject(s, "name", "f");
			cJSON_AddStringToObject(s, "kind", "memfd");
			gen_pages(s, "size", U_SIZE * g.u);
		}
		s = mmap_at(&g, "t", lo, hi - lo, "rw");
		if (target == T_FILE) /* the file offset of where it lands when placed */
			file_of(&g, s, prev == N_SHARED ? U_PREV : U_DST);
		if (target == T_THP)
			hugepage(&g, lo, hi - lo);
		if (prev == N_SHARED)
			fault_at(&g, U_PREV, 1);
		if (next == N_SHARED)
			fault_at(&g, U_NEXT, 1);
		fault_target(&g, target, born);
		if (target == T_FORKED)
			step(&g, "fork"); /* what follows runs in the child */
		if (is_move(op) && placed)
			mremap_step(&g, U_DST, U_PARK, NULL);
		if (op == OP_MPROTECT) {
			s = range_step(&g, "mprotect", born);
			cJSON_AddStringToObject(s, "prot", "r");
			if (!placed)
				mremap_step(&g, U_PARK, U_DST, NULL);
		}
	}
	if (prev != N_SHARED)
		neighbour(&g, prev, "prev", U_PREV, target == T_THP, target == T_FILE);
	if (next != N_SHARED)
		neighbour(&g, next, "next", U_NEXT, target == T_THP, target == T_FILE);
	s = step(&g, "dump");
	cJSON_AddStringToObject(s, "label", "before");

	static const char *const extra[] = { [OP_MOVE] = NULL, [OP_RELOCATE] = "RELOCATE_ANON",
					     [OP_MUST] = "MUST_RELOCATE_ANON", [OP_DONTUNMAP] = "DONTUNMAP" };
	if (is_move(op)) {
		s = mremap_step(&g, U_PARK, U_DST, extra[op]);
	} else if (op == OP_MPROTECT) {
		s = range_step(&g, "mprotect", U_DST);
		cJSON_AddStringToObject(s, "prot", "rw");
	} else if (op == OP_MMAP) {
		s = mmap_at(&g, "t", U_DST, 1, "rw");
	} else {
		/* made here, in the process that moves: a userfaultfd inherited
		 * across the fork would still work on the parent's mm */
		s = step(&g, "userfaultfd");
		cJSON_AddStringToObject(s, "action", "api");
		cJSON_AddItemToObject(s, "features", cJSON_CreateStringArray((const char *[]){ "move" }, 1));
		mmap_at(&g, "dst", U_DST, 1, "rw");
		if (target == T_THP)
			hugepage(&g, U_DST, 1);
		s = range_step(&g, "userfaultfd", U_DST);
		cJSON_AddStringToObject(s, "action", "register");
		s = range_step(&g, "userfaultfd", U_DST);
		cJSON_AddStringToObject(s, "action", "move");
		add_at(&g, s, "from", U_PARK);
	}
	/* the call under test may fail: its errno is the cell's answer */
	cJSON_AddTrueToObject(s, "may_fail");
	*op_step = cJSON_GetArraySize(g.steps) - 1;
	if (op == OP_UFFD_MOVE) {
		s = range_step(&g, "userfaultfd", U_DST);
		cJSON_AddStringToObject(s, "action", "unregister");
	}
	s = step(&g, "dump");
	cJSON_AddStringToObject(s, "label", "final");
	cJSON_AddItemToObject(sc, "steps", g.steps);
	return sc;
}

static bool hex_field(const cJSON *o, const char *key, uint64_t *out)
{
	const char *s = cJSON_GetStringValue(cJSON_GetObjectItem(o, key));
	char *end;

	if (!s)
		return false;
	*out = strtoull(s, &end, 16);
	return *end == 0 && end != s;
}

/* The cell from the scenario's result: which neighbours the destination's
 * VMA reaches in the final dump, the errno of the call, the VMAs of the
 * window prev..next, and the dump's own reasons for the boundaries left. */
cJSON *matrix_outcome(const struct matrix_case *c, const cJSON *res, int op_step)
{
	cJSON *cell = cJSON_CreateObject();
	char id[128];
	const char *status = cJSON_GetStringValue(cJSON_GetObjectItem(res, "status"));

	matrix_case_id(c, id, sizeof(id));
	cJSON_AddStringToObject(cell, "id", id);
	for (int a = 0; a < MX_AXES; a++)
		cJSON_AddStringToObject(cell, matrix_axis_names[a], matrix_axis_values[a][c->v[a]]);
	const char *reason = cJSON_GetStringValue(cJSON_GetObjectItem(res, "reason"));
	if (!status || !strcmp(status, "skip") || !strcmp(status, "error") || !strcmp(status, "fail")) {
		/* a skip is a kernel without the feature; fail or error is a
		 * step other than the call under test going wrong */
		cJSON_AddStringToObject(cell, "status",
					status && !strcmp(status, "skip") ? "unsupported" : "error");
		cJSON_AddStringToObject(cell, "reason", reason ? reason : "no status");
		return cell;
	}
	const cJSON *st = cJSON_GetArrayItem(cJSON_GetObjectItem(res, "steps"), op_step);
	const cJSON *dumps = cJSON_GetObjectItem(res, "dumps");
	const cJSON *fin = cJSON_GetArrayItem(dumps, cJSON_GetArraySize(dumps) - 1);
	uint64_t base;
	if (!st || !fin || !hex_field(cJSON_GetObjectItem(res, "carveout"), "start", &base)) {
		cJSON_AddStringToObject(cell, "status", "error");
		cJSON_AddStringToObject(cell, "reason", "the result has no call or no final dump");
		return cell;
	}
	cJSON_AddStringToObject(cell, "status", "ran");
	const char *e = cJSON_GetStringValue(cJSON_GetObjectItem(st, "errno"));
	if (e)
		cJSON_AddStringToObject(cell, "errno", e);
	else
		cJSON_AddNullToObject(cell, "errno");
	uint64_t u = (c->v[MX_TARGET] == T_THP ? 512 : 2) * kinfo.page_size;
	uint64_t lo = base + U_PREV * u, dst = base + U_DST * u, hi = base + (U_NEXT + 1) * u;
	bool mprev = false, mnext = false;
	long count = 0;
	cJSON *layout = cJSON_CreateArray(), *v;
	cJSON_ArrayForEach(v, cJSON_GetObjectItem(fin, "vmas")) {
		uint64_t s, en;
		if (!hex_field(v, "start", &s) || !hex_field(v, "end", &en) || en <= lo || s >= hi)
			continue;
		count++;
		const char *rel = cJSON_GetStringValue(cJSON_GetObjectItem(v, "rel"));
		const char *perms = cJSON_GetStringValue(cJSON_GetObjectItem(v, "perms"));
		char line[160];
		snprintf(line, sizeof(line), "%s %s", rel ? rel : "?", perms ? perms : "?");
		cJSON_AddItemToArray(layout, cJSON_CreateString(line));
		if (s <= dst && dst < en) {
			mprev = c->v[MX_PREV] != N_NONE && s <= lo;
			mnext = c->v[MX_NEXT] != N_NONE && en >= hi;
		}
	}
	cJSON_AddStringToObject(cell, "merged", mprev && mnext ? "both" : mprev ? "prev" : mnext ? "next" : "none");
	cJSON_AddNumberToObject(cell, "vmas", (double)count);
	cJSON_AddItemToObject(cell, "layout", layout);
	cJSON *why = cJSON_AddArrayToObject(cell, "why");
	cJSON_ArrayForEach(v, cJSON_GetObjectItem(fin, "non_merges")) {
		const char *w = cJSON_GetStringValue(cJSON_GetObjectItem(v, "why"));
		const char *a = cJSON_GetStringValue(cJSON_GetObjectItem(v, "at"));
		if (w) {
			char line[400];
			snprintf(line, sizeof(line), "%s: %s", a ? a : "?", w);
			cJSON_AddItemToArray(why, cJSON_CreateString(line));
		}
	}
	return cell;
}

static const char *str(const cJSON *o, const char *k)
{
	const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
	return s ? s : "";
}

/* The answer of a cell, as one line: "merged prev, 2 VMAs", "EINVAL, ...",
 * "unsupported: requires FEATURE", "error: reason". An unsupported cell is
 * answered by the requirement it lacks, not the whole reason: the reason
 * names the kernel release ("... returned EINVAL on 6.1.0-41-amd64"), and
 * two kernels that both lack the feature answer the same. */
static void answer(const cJSON *cell, char *buf, size_t len)
{
	if (!cell) {
		snprintf(buf, len, "(no such case)");
		return;
	}
	const char *r = str(cell, "reason"), *colon = strchr(r, ':');
	if (!strcmp(str(cell, "status"), "unsupported") && !strncmp(r, "requires ", 9) && colon) {
		snprintf(buf, len, "unsupported: %.*s", (int)(colon - r), r);
		return;
	}
	if (strcmp(str(cell, "status"), "ran")) {
		snprintf(buf, len, "%s: %s", str(cell, "status"), str(cell, "reason"));
		return;
	}
	const char *e = str(cell, "errno");
	/* result_check made a present count a whole number in int's range; an
	 * absent one (an edited file) is not a number to convert */
	const cJSON *nv = cJSON_GetObjectItemCaseSensitive(cell, "vmas");
	char vmas[16] = "?";
	if (cJSON_IsNumber(nv))
		snprintf(vmas, sizeof(vmas), "%d", (int)nv->valuedouble);
	snprintf(buf, len, "merged %s, %s VMAs%s%s", str(cell, "merged"), vmas, *e ? ", " : "", e);
}

static int by_id(const void *x, const void *y)
{
	return strcmp(str(*(const cJSON *const *)x, "id"), str(*(const cJSON *const *)y, "id"));
}

static const cJSON **sorted_cells(const cJSON *doc, size_t *n)
{
	const cJSON *cases = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "matrix"), "cases");
	const cJSON **v = xcalloc((size_t)cJSON_GetArraySize(cases) + 1, sizeof(*v)), *c;

	*n = 0;
	cJSON_ArrayForEach(c, cases)
		v[(*n)++] = c;
	qsort(v, *n, sizeof(*v), by_id);
	return v;
}

/* The cells of two matrix results (checked by result_check) that differ,
 * paired by id: [{id, a, b}], a and b each the cell's answer as a line.
 * Sorted by id and walked side by side: a result made elsewhere may hold
 * any number of cells. */
cJSON *matrix_compare(const cJSON *A, const cJSON *B)
{
	size_t na, nb, i = 0, j = 0;
	const cJSON **va = sorted_cells(A, &na), **vb = sorted_cells(B, &nb);
	cJSON *out = cJSON_CreateArray();
	char la[400], lb[400];

	while (i < na || j < nb) {
		int k = i == na ? 1 : j == nb ? -1 : by_id(&va[i], &vb[j]);
		const cJSON *x = k <= 0 ? va[i++] : NULL, *y = k >= 0 ? vb[j++] : NULL;
		answer(x, la, sizeof(la));
		answer(y, lb, sizeof(lb));
		if (!strcmp(la, lb))
			continue;
		cJSON *d = cJSON_CreateObject();
		cJSON_AddStringToObject(d, "id", str(x ? x : y, "id"));
		cJSON_AddStringToObject(d, "a", la);
		cJSON_AddStringToObject(d, "b", lb);
		cJSON_AddItemToArray(out, d);
	}
	free(va);
	free(vb);
	return out;
}
