/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The art-gc workload: N cycles of Android ART's concurrent mark-compact GC
 * (AOSP runtime/gc/collector/mark_compact.cc, as scenarios/art_* replay one
 * cycle) over a heap of a given size and live fraction, written as one
 * scenario a strategy, and what a run of it says cycle by cycle. The kernel
 * does all the work: this file writes steps and reads results, nothing else.
 *
 * The heap is H pages at carveout+1pmd: the used part, U = H - 1 PMD, in
 * WL_CHUNKS chunks ("objects"), and one unused PMD above it where mutators
 * allocate during the concurrent phase and where ART's workaround writes
 * its byte. The from-space, PROT_NONE, H pages, starts one PMD above the heap.
 * Each cycle:
 *   pause    mremap(heap, MAYMOVE|FIXED|DONTUNMAP, fromspace) (+RELOCATE_ANON);
 *            the workaround's write at heap+U; UFFDIO_REGISTER (missing) of
 *            the used part; MADV_DONTNEED of it
 *   compact  each live chunk copied (UFFDIO_COPY or UFFDIO_MOVE) from the
 *            from-space to the next free place at the heap's bottom; a
 *            mutator's read of the first free chunk takes SIGBUS; the free
 *            rest is UFFDIO_ZEROPAGEd; a mutator allocates a chunk's worth
 *            in the unused part; each chunk is verified
 *   end      UFFDIO_UNREGISTER; MADV_DONTNEED of the from-space; a dump
 * Which chunks are live in a cycle is spread evenly (a chunk is live where
 * the running count of live/chunks steps up) and rotates by one a cycle, so
 * compaction moves data. */
#include "anonremap.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

const char *const wl_strategy_names[WL_NSTRATEGIES] = { "art", "no-workaround", "relocate", "uffd-move" };

static const char *const wl_strategy_doc[WL_NSTRATEGIES] = {
	"ART's own: the workaround's write before UFFDIO_REGISTER, UFFDIO_COPY",
	"without the workaround",
	"without the workaround, MREMAP_RELOCATE_ANON on the move",
	"the workaround, UFFDIO_MOVE instead of UFFDIO_COPY",
};

const char *wl_strategy_describe(int s)
{
	return s >= 0 && s < WL_NSTRATEGIES ? wl_strategy_doc[s] : NULL;
}

struct wgen {
	cJSON *steps;
	int cur_phase; /* what the next step is marked with */
	int cycle;
};

static const char *const phase_name[] = { "setup", "pause", "compact", "end" };

static cJSON *wstep(struct wgen *g, const char *op)
{
	cJSON *s = cJSON_CreateObject();
	char c[64];
	cJSON_AddStringToObject(s, "op", op);
	/* the comment carries the cycle and phase: the reader of the result
	 * finds them in the scenario's own steps */
	snprintf(c, sizeof(c), "art-gc cycle %d %s", g->cycle, phase_name[g->cur_phase]);
	cJSON_AddStringToObject(s, "comment", c);
	cJSON_AddItemToArray(g->steps, s);
	return s;
}

static bool chunk_live(const struct wl_params *p, int cycle, int i)
{
	int k = (i + cycle) % p->chunks;
	return (int)((k + 1) * p->live) > (int)(k * p->live); /* both >= 0: truncation is floor */
}

cJSON *wl_art_scenario(const struct wl_params *p, int strategy)
{
	long pmd = (long)(kinfo.pmd_size / kinfo.page_size), H = p->heap_pages, U = H - pmd;
	long C = U / p->chunks;
	bool workaround = strategy == WL_ART || strategy == WL_UFFD_MOVE;
	const char *fill_op = strategy == WL_UFFD_MOVE ? "move" : "copy";
	char label[WL_MAX_CHUNKS][24], next[WL_MAX_CHUNKS][24], b[64];
	struct wgen g = { .steps = cJSON_CreateArray() };
	cJSON *sc = cJSON_CreateObject(), *s;

	cJSON_AddNumberToObject(sc, "anonremap", FORMAT_VERSION);
	snprintf(b, sizeof(b), "art_gc_workload_%s", wl_strategy_names[strategy]);
	for (char *q = b; *q; q++)
		if (*q == '-')
			*q = '_';
	cJSON_AddStringToObject(sc, "name", b);
	char d[512];
	snprintf(d, sizeof(d),
		 "anonremap workload art-gc, strategy %s (%s): %d cycles over a heap of %ld pages, %d chunks of %ld "
		 "pages in the used part, live fraction %g.",
		 wl_strategy_names[strategy], wl_strategy_doc[strategy], p->cycles, H, p->chunks, C, p->live);
	cJSON_AddStringToObject(sc, "description", d);
	cJSON_AddStringToObject(sc, "source", "AOSP art, runtime/gc/collector/mark_compact.cc, as scenarios/art_gc_cycle*");
	cJSON *req = cJSON_AddArrayToObject(sc, "requires");
	cJSON_AddItemToArray(req, cJSON_CreateString("userfaultfd"));
	cJSON_AddItemToArray(req, cJSON_CreateString("mremap_dontunmap"));
	if (strategy == WL_RELOCATE)
		cJSON_AddItemToArray(req, cJSON_CreateString("mremap_relocate_anon"));
	if (strategy == WL_UFFD_MOVE)
		cJSON_AddItemToArray(req, cJSON_CreateString("userfaultfd_move"));
	cJSON *co = cJSON_AddObjectToObject(sc, "carveout");
	gen_pages(co, "size", 2 * H + 3 * pmd);
	cJSON_AddStringToObject(co, "align", "pmd");
	cJSON_AddFalseToObject(co, "fill");
	cJSON_AddItemToObject(sc, "steps", g.steps);

	s = wstep(&g, "userfaultfd");
	cJSON_AddStringToObject(s, "action", "api");
	cJSON *feat = cJSON_AddArrayToObject(s, "features");
	cJSON_AddItemToArray(feat, cJSON_CreateString("sigbus"));
	if (strategy == WL_UFFD_MOVE)
		cJSON_AddItemToArray(feat, cJSON_CreateString("move"));
	s = wstep(&g, "mmap");
	cJSON_AddStringToObject(s, "name", "heap");
	gen_at(s, "at", "carveout", pmd);
	gen_pages(s, "len", H);
	cJSON_AddStringToObject(s, "prot", "rw");
	s = wstep(&g, "mmap");
	cJSON_AddStringToObject(s, "name", "fromspace");
	gen_at(s, "at", "carveout", H + 2 * pmd);
	gen_pages(s, "len", H);
	cJSON_AddStringToObject(s, "prot", "none");
	for (int i = 0; i < p->chunks; i++) {
		snprintf(label[i], sizeof(label[i]), "o%d", i);
		s = wstep(&g, "fault");
		gen_at(s, "at", "heap", i * C);
		gen_pages(s, "len", C);
		cJSON_AddStringToObject(s, "pattern", label[i]);
	}
	s = wstep(&g, "dump");
	cJSON_AddStringToObject(s, "label", "cycle 0");

	for (int c = 1; c <= p->cycles; c++) {
		g.cycle = c;
		g.cur_phase = 1;
		s = wstep(&g, "mremap");
		cJSON_AddStringToObject(s, "at", "heap");
		gen_pages(s, "old_len", H);
		cJSON_AddStringToObject(s, "to", "fromspace");
		static const char *const mv[] = { "MAYMOVE", "FIXED", "DONTUNMAP", NULL };
		static const char *const mv_rel[] = { "MAYMOVE", "FIXED", "DONTUNMAP", "RELOCATE_ANON", NULL };
		gen_flags(s, strategy == WL_RELOCATE ? mv_rel : mv);
		cJSON_AddStringToObject(s, "name", "fromspace");
		cJSON_AddTrueToObject(s, "may_fail");
		if (workaround) { /* KernelPreparation(): one byte at the PMD boundary after the used part */
			s = wstep(&g, "fault");
			gen_at(s, "at", "heap", U);
			gen_pages(s, "len", 1);
			cJSON_AddStringToObject(s, "access", "write");
		}
		s = wstep(&g, "userfaultfd");
		cJSON_AddStringToObject(s, "action", "register");
		cJSON_AddStringToObject(s, "at", "heap");
		gen_pages(s, "len", U);
		cJSON_AddStringToObject(s, "mode", "missing");
		cJSON_AddTrueToObject(s, "may_fail");
		s = wstep(&g, "madvise");
		cJSON_AddStringToObject(s, "at", "heap");
		gen_pages(s, "len", U);
		cJSON_AddStringToObject(s, "advice", "dontneed");

		g.cur_phase = 2;
		int nlive = 0;
		for (int i = 0; i < p->chunks; i++) {
			if (!chunk_live(p, c, i))
				continue;
			s = wstep(&g, "userfaultfd");
			cJSON_AddStringToObject(s, "action", fill_op);
			gen_at(s, "at", "heap", nlive * C);
			gen_pages(s, "len", C);
			gen_at(s, "from", "fromspace", i * C);
			cJSON_AddTrueToObject(s, "may_fail");
			snprintf(next[nlive++], sizeof(next[0]), "%s", label[i]);
		}
		if (nlive < p->chunks) {
			s = wstep(&g, "fault"); /* a mutator touches a page not yet mapped */
			gen_at(s, "at", "heap", nlive * C);
			cJSON_AddStringToObject(s, "access", "read");
			cJSON_AddStringToObject(s, "signal", "SIGBUS");
			s = wstep(&g, "userfaultfd");
			cJSON_AddStringToObject(s, "action", "zeropage");
			gen_at(s, "at", "heap", nlive * C);
			gen_pages(s, "len", (p->chunks - nlive) * C);
			cJSON_AddTrueToObject(s, "may_fail");
		}
		s = wstep(&g, "fault"); /* mutators allocate above the used part */
		gen_at(s, "at", "heap", U);
		gen_pages(s, "len", C < pmd ? C : pmd);
		snprintf(b, sizeof(b), "c%dnew", c);
		cJSON_AddStringToObject(s, "pattern", b);
		for (int j = 0; j < p->chunks; j++) {
			if (j >= nlive)
				snprintf(next[j], sizeof(next[j]), "zero");
			s = wstep(&g, "verify");
			gen_at(s, "at", "heap", j * C);
			gen_pages(s, "len", C);
			cJSON_AddStringToObject(s, "pattern", next[j]);
		}
		memcpy(label, next, sizeof(label));

		g.cur_phase = 3;
		s = wstep(&g, "userfaultfd");
		cJSON_AddStringToObject(s, "action", "unregister");
		cJSON_AddStringToObject(s, "at", "heap");
		gen_pages(s, "len", U);
		cJSON_AddTrueToObject(s, "may_fail");
		s = wstep(&g, "madvise");
		cJSON_AddStringToObject(s, "at", "fromspace");
		gen_pages(s, "len", H);
		cJSON_AddStringToObject(s, "advice", "dontneed");
		s = wstep(&g, "dump");
		snprintf(b, sizeof(b), "cycle %d", c);
		cJSON_AddStringToObject(s, "label", b);
	}
	return sc;
}

/* ---- reading a run of it ---- */

static bool has_region(const cJSON *v, const char *name)
{
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(v, "region"), *e;
	if (cJSON_IsString(r))
		return !strcmp(r->valuestring, name);
	cJSON_ArrayForEach(e, r)
		if (cJSON_IsString(e) && !strcmp(e->valuestring, name))
			return true;
	return false;
}

static int count_region(const cJSON *dump, const char *name)
{
	const cJSON *v;
	int n = 0;
	cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(dump, "vmas"))
		n += has_region(v, name);
	return n;
}

static double slab_of(const cJSON *dump, const char *cache)
{
	const cJSON *kc = cJSON_GetObjectItemCaseSensitive(dump, "kernel_counters");
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(kc, "slab_active_objs"),
							  cache);
	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *const slab_caches[] = { "vm_area_struct", "anon_vma", "anon_vma_chain" };

/* "art-gc cycle 3 compact": the cycle and phase, or false. */
static bool step_mark(const cJSON *scen_step, int *cycle, int *phase)
{
	const char *c = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(scen_step, "comment"));
	char ph[16];
	if (!c || sscanf(c, "art-gc cycle %d %15s", cycle, ph) != 2)
		return false;
	for (int i = 0; i < 4; i++)
		if (!strcmp(ph, phase_name[i])) {
			*phase = i;
			return true;
		}
	return false;
}

cJSON *wl_art_cycles(const cJSON *res, long chunk_pages)
{
	const cJSON *steps = cJSON_GetObjectItemCaseSensitive(res, "steps");
	/* the result holds the scenario it ran, with each step's mark */
	const cJSON *ssteps = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(res, "scenario"), "steps");
	const cJSON *dumps = cJSON_GetObjectItemCaseSensitive(res, "dumps");
	int nd = cJSON_GetArraySize(dumps);
	cJSON *cycles = cJSON_CreateArray();

	int n = cJSON_GetArraySize(steps), last = nd - 1, cyc, ph;
	/* every cycle that ran a step, dumped or not: a run that stopped
	 * mid-cycle still shows that cycle's failure */
	for (int i = 0; i < n; i++)
		if (step_mark(cJSON_GetArrayItem(ssteps, i), &cyc, &ph) && cyc > last)
			last = cyc;
	for (int c = 1; c <= last; c++) {
		const cJSON *d = c < nd ? cJSON_GetArrayItem(dumps, c) : NULL, *prev = cJSON_GetArrayItem(dumps, c - 1);
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "cycle", c);
		if (!d) {
			cJSON_AddNullToObject(o, "heap_vmas");
			cJSON_AddNullToObject(o, "fromspace_vmas");
			cJSON_AddNullToObject(o, "slab_delta");
			cJSON_AddItemToArray(cycles, o);
			continue;
		}
		cJSON_AddNumberToObject(o, "heap_vmas", count_region(d, "heap"));
		cJSON_AddNumberToObject(o, "fromspace_vmas", count_region(d, "fromspace"));
		cJSON *sl = cJSON_AddObjectToObject(o, "slab_delta");
		for (size_t k = 0; k < sizeof(slab_caches) / sizeof(slab_caches[0]); k++) {
			double a = slab_of(d, slab_caches[k]), b = slab_of(prev, slab_caches[k]);
			if (isnan(a) || isnan(b))
				cJSON_AddNullToObject(sl, slab_caches[k]);
			else
				cJSON_AddNumberToObject(sl, slab_caches[k], a - b);
		}
		cJSON_AddItemToArray(cycles, o);
	}
	/* per step: failed calls, verified pages, phase times */
	for (int i = 0; i < n; i++) {
		const cJSON *st = cJSON_GetArrayItem(steps, i);
		if (!step_mark(cJSON_GetArrayItem(ssteps, i), &cyc, &ph) || cyc < 1)
			continue;
		cJSON *o = cJSON_GetArrayItem(cycles, cyc - 1);
		const char *op = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(st, "op"));
		const char *status = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(st, "status"));
		bool failed = cJSON_IsString(cJSON_GetObjectItemCaseSensitive(st, "errno")) ||
			      (status && strcmp(status, "ok"));
		const char *keys[] = { "failed_calls", "verified_pages", "pause_ns", "compact_ns", "end_ns", "verify_ns" };
		for (int k = 0; k < 6; k++)
			if (!cJSON_GetObjectItemCaseSensitive(o, keys[k]))
				cJSON_AddNumberToObject(o, keys[k], 0);
		if (failed) {
			cJSON *f = cJSON_GetObjectItemCaseSensitive(o, "failed_calls");
			cJSON_SetNumberValue(f, f->valuedouble + 1);
			cJSON *fl = cJSON_GetObjectItemCaseSensitive(o, "failures");
			if (!fl)
				fl = cJSON_AddArrayToObject(o, "failures");
			char why[96];
			const char *e = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(st, "errno"));
			snprintf(why, sizeof(why), "step %d (%s): %s", i, op ? op : "?", e ? e : status ? status : "?");
			cJSON_AddItemToArray(fl, cJSON_CreateString(why));
		} else if (op && !strcmp(op, "verify")) {
			cJSON *f = cJSON_GetObjectItemCaseSensitive(o, "verified_pages");
			cJSON_SetNumberValue(f, f->valuedouble + (double)chunk_pages);
		}
		const cJSON *dur = cJSON_GetObjectItemCaseSensitive(st, "duration_ns");
		if (cJSON_IsNumber(dur) && ph >= 1) {
			/* checking the data is the workload's, not the GC's: its time apart */
			bool verify = op && !strcmp(op, "verify");
			cJSON *f = cJSON_GetObjectItemCaseSensitive(o, verify ? "verify_ns" : keys[1 + ph]);
			cJSON_SetNumberValue(f, f->valuedouble + dur->valuedouble);
		}
	}
	return cycles;
}
