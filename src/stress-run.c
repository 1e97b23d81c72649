/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One stress round: a fresh scenario process, operations from the generator
 * (or replayed by the minimizer), each validated as a scenario step and run
 * by run_step(), then the invariants: the syscall's answer, the kernel's
 * mappings against the model, PROCMAP_QUERY against /proc/PID/maps, and the
 * page contents, read back with verify steps. */
#include "stress.h"
#include "compat.h"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct stress_cov {
	int n, cap;
	struct {
		char key[96];
		long n, failed;
	} *e;
};

void stress_cov_add(struct stress_stats *st, const char *key, bool failed)
{
	if (!st->cov)
		st->cov = xcalloc(1, sizeof(*st->cov));
	struct stress_cov *c = st->cov;
	for (int i = 0; i < c->n; i++)
		if (!strcmp(c->e[i].key, key)) {
			c->e[i].n++;
			c->e[i].failed += failed;
			return;
		}
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 64;
		void *ne = realloc(c->e, c->cap * sizeof(*c->e));
		if (!ne)
			return;
		c->e = ne;
	}
	snprintf(c->e[c->n].key, sizeof(c->e[c->n].key), "%s", key);
	c->e[c->n].n = 1;
	c->e[c->n].failed = failed;
	c->n++;
}

static int cov_cmp(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

int stress_cov_count(const struct stress_stats *st)
{
	return st->cov ? st->cov->n : 0;
}

cJSON *stress_cov_json(const struct stress_stats *st)
{
	cJSON *o = cJSON_CreateObject();
	if (!st->cov)
		return o;
	qsort(st->cov->e, st->cov->n, sizeof(*st->cov->e), cov_cmp);
	for (int i = 0; i < st->cov->n; i++) {
		cJSON *e = cJSON_AddObjectToObject(o, st->cov->e[i].key);
		cJSON_AddNumberToObject(e, "n", st->cov->e[i].n);
		cJSON_AddNumberToObject(e, "failed", st->cov->e[i].failed);
	}
	return o;
}

void stress_cov_free(struct stress_stats *st)
{
	if (st->cov)
		free(st->cov->e);
	free(st->cov);
	st->cov = NULL;
}

cJSON *stress_scenario_doc(const struct stress_cfg *cfg, const char *name, const char *desc, cJSON *steps)
{
	cJSON *d = cJSON_CreateObject();
	char b[64];

	cJSON_AddNumberToObject(d, "anonremap", FORMAT_VERSION);
	cJSON_AddStringToObject(d, "name", name);
	if (desc)
		cJSON_AddStringToObject(d, "description", desc);
	snprintf(b, sizeof(b), "anonremap stress --seed %" PRIu64, cfg->seed);
	cJSON_AddStringToObject(d, "source", b);
	if (cfg->xray) { /* invariant 4's checks read the x-ray */
		cJSON *rq = cJSON_AddArrayToObject(d, "requires");
		cJSON_AddItemToArray(rq, cJSON_CreateString("xray"));
	}
	cJSON *c = cJSON_AddObjectToObject(d, "carveout");
	snprintf(b, sizeof(b), "%dp", cfg->pages);
	cJSON_AddStringToObject(c, "size", b);
	if (cfg->thp)
		cJSON_AddStringToObject(c, "align", "pmd");
	cJSON_AddItemToObject(d, "steps", steps ? steps : cJSON_CreateArray());
	return d;
}

void stress_round_free(struct stress_round *rd)
{
	cJSON_Delete(rd->steps);
	free(rd->ops);
	memset(rd, 0, sizeof(*rd));
}

struct eng {
	const struct stress_cfg *cfg;
	struct stress_stats *st;
	struct stress_round *rd;
	struct stress_model m;
	struct run *r;
	cJSON *base;                 /* the scenario document without steps */
	struct scenario *sc0, *sc;   /* the run's first scenario, the current one */
	uint8_t *kmapped, *kprot;
	int op_index;
	bool violated;
	char last_status[16];        /* of the last step run */
};

static const char *sget(cJSON *o, const char *k)
{
	cJSON *v = cJSON_GetObjectItem(o, k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void viol(struct eng *e, const char *kind, const char *op, const char *fmt_exp, const char *fnd)
{
	struct stress_viol *v = &e->rd->v;
	snprintf(v->kind, sizeof(v->kind), "%s", kind);
	snprintf(v->op, sizeof(v->op), "%s", op);
	v->op_index = e->op_index;
	v->step_index = cJSON_GetArraySize(e->rd->steps) - 1;
	snprintf(v->expected, sizeof(v->expected), "%s", fmt_exp);
	snprintf(v->found, sizeof(v->found), "%s", fnd);
	snprintf(v->status, sizeof(v->status), "%s", e->last_status);
	e->rd->status = ROUND_VIOLATION;
	e->violated = true;
}

/* Validate one step as a scenario of its own (the same carveout, so the same
 * range checks) and run it in the live scenario process. 0 ok, 1 the step
 * failed, -1 the process is gone, -2 the step did not validate. */
static int exec_step(struct eng *e, cJSON *step, cJSON **out)
{
	struct load_opts lo = { 0 };
	struct scenario *nsc;
	struct err err;
	cJSON *doc = cJSON_Duplicate(e->base, 1);

	*out = NULL;
	cJSON_AddItemToArray(cJSON_GetObjectItem(doc, "steps"), cJSON_Duplicate(step, 1));
	if (scenario_from_json("stress", doc, &lo, &nsc, &err)) {
		cJSON_Delete(doc);
		char *s = cJSON_PrintUnformatted(step);
		snprintf(e->rd->error, sizeof(e->rd->error), "internal: a generated step does not validate: %s: %s",
			 err.msg, s);
		free(s);
		return -2;
	}
	e->r->sc = nsc;
	if (e->sc != e->sc0)
		scenario_free(e->sc);
	e->sc = nsc;
	int idx = cJSON_GetArraySize(e->rd->steps);
	cJSON_AddItemToArray(e->rd->steps, cJSON_Duplicate(step, 1));
	if (e->cfg->trace) {
		char *s = cJSON_PrintUnformatted(step);
		fprintf(e->cfg->trace, "%s\n", s);
		free(s);
	}
	e->r->deadline = run_now() + e->cfg->ro.timeout;
	cJSON *sres = NULL;
	int rc = run_step(e->r, 0, &sres);
	snprintf(e->last_status, sizeof(e->last_status), "%s", "died");
	if (sres) {
		cJSON_DetachItemViaPointer(e->r->steps, sres);
		cJSON_ReplaceItemInObject(sres, "index", cJSON_CreateNumber(idx));
		if (sget(sres, "status"))
			snprintf(e->last_status, sizeof(e->last_status), "%s", sget(sres, "status"));
	}
	*out = sres;
	e->st->steps++;
	return rc;
}

/* The last expectation run_step recorded, taken out of the run's result. */
static cJSON *pop_expect(struct eng *e)
{
	int n = cJSON_GetArraySize(e->r->expects);
	return n ? cJSON_DetachItemFromArray(e->r->expects, n - 1) : NULL;
}

static void rel(struct eng *e, uint64_t addr, char *buf, size_t len)
{
	rel_format(addr, e->r->base, buf, len);
}

/* The kernel's view of the carveout, page by page: mapped, and r/w. */
static int kernel_pages(struct eng *e, struct vma **list, size_t *nl)
{
	uint64_t ps = kinfo.page_size, lo = e->r->base, hi = lo + (uint64_t)e->m.n * ps;
	int rc = vma_list(&e->r->cur->vs, lo, hi, list, nl);
	if (rc < 0) {
		snprintf(e->rd->error, sizeof(e->rd->error), "cannot list the VMAs of %d: %s", (int)e->r->cur->pid,
			 strerror(-rc));
		return -1;
	}
	memset(e->kmapped, 0, e->m.n);
	memset(e->kprot, 0, e->m.n);
	for (size_t i = 0; i < *nl; i++) {
		const struct vma *v = &(*list)[i];
		uint64_t s = v->start < lo ? lo : v->start, en = v->end > hi ? hi : v->end;
		for (uint64_t a = s; a < en; a += ps) {
			int p = (a - lo) / ps;
			e->kmapped[p] = 1;
			e->kprot[p] = (v->perms[0] == 'r' ? PROT_READ : 0) | (v->perms[1] == 'w' ? PROT_WRITE : 0);
		}
	}
	return 0;
}

/* Run a synthesized final check; it is expected to fail. */
static void final_check(struct eng *e, cJSON *step)
{
	cJSON *sres = NULL;
	int rc = exec_step(e, step, &sres);
	cJSON *ex = pop_expect(e);
	if (rc == 0)
		snprintf(e->rd->v.detail, sizeof(e->rd->v.detail),
			 "the final check passed when run: the state changed between the two looks");
	e->rd->v.step_index = cJSON_GetArraySize(e->rd->steps) - 1;
	snprintf(e->rd->v.status, sizeof(e->rd->v.status), "%s", e->last_status);
	cJSON_Delete(ex);
	cJSON_Delete(sres);
}

static void perm_str(int prot, char *b)
{
	b[0] = prot & PROT_READ ? 'r' : '-';
	b[1] = prot & PROT_WRITE ? 'w' : '-';
	b[2] = 0;
}

/* Invariant: the pages the kernel maps, and their protection, are the model's. */
static int check_mappings(struct eng *e)
{
	char at[64], ex[640], fd[640], pe[4], pk[4];

	for (int p = 0; p < e->m.n; p++) {
		const struct stress_page *pg = &e->m.pg[p];
		stress_pages_str(p, at, sizeof(at));
		if (pg->mapped != e->kmapped[p]) {
			snprintf(ex, sizeof(ex), "%s is %s", at, pg->mapped ? "mapped" : "not mapped");
			snprintf(fd, sizeof(fd), "%s is %s", at, e->kmapped[p] ? "mapped" : "not mapped (no VMA contains it)");
			viol(e, "mapped", "expect", ex, fd);
			cJSON *s = cJSON_CreateObject();
			cJSON_AddStringToObject(s, "op", "expect");
			cJSON_AddBoolToObject(s, "mapped", pg->mapped);
			cJSON_AddStringToObject(s, "at", at);
			final_check(e, s);
			cJSON_Delete(s);
			return 1;
		}
		if (pg->mapped && pg->prot != e->kprot[p]) {
			perm_str(pg->prot, pe);
			perm_str(e->kprot[p], pk);
			snprintf(ex, sizeof(ex), "%s is %s", at, pe);
			snprintf(fd, sizeof(fd), "%s is %s", at, pk);
			viol(e, "prot", "fault", ex, fd);
			/* a touch that must fault, or must not */
			cJSON *s = cJSON_CreateObject();
			cJSON_AddStringToObject(s, "op", "fault");
			cJSON_AddStringToObject(s, "at", at);
			bool rd = (pg->prot & PROT_READ) != (e->kprot[p] & PROT_READ);
			if (rd)
				cJSON_AddStringToObject(s, "access", "read");
			if (!((rd ? pg->prot & PROT_READ : pg->prot & PROT_WRITE)))
				cJSON_AddStringToObject(s, "signal", "SIGSEGV");
			final_check(e, s);
			cJSON_Delete(s);
			return 1;
		}
	}
	return 0;
}

static bool vma_in(const struct vma *v, uint64_t lo, uint64_t hi)
{
	return v->start < hi && v->end > lo;
}

/* Invariant: PROCMAP_QUERY and /proc/PID/maps agree on the carveout's VMAs. */
static int check_vma_sources(struct eng *e, struct vma *q, size_t nq)
{
	uint64_t lo = e->r->base, hi = lo + (uint64_t)e->m.n * kinfo.page_size;
	struct vma *mp = NULL;
	size_t nm = 0, i = 0, j = 0;
	char a[64], b[64], ex[640], fd[640];

	if (!e->r->cur->vs.query)
		return 0;
	int rc = maps_parse_fd(e->r->cur->vs.fd, &mp, &nm);
	if (rc < 0) {
		snprintf(e->rd->error, sizeof(e->rd->error), "cannot parse /proc/%d/maps: %s", (int)e->r->cur->pid,
			 strerror(-rc));
		return -1;
	}
	for (;;) {
		while (i < nq && !vma_in(&q[i], lo, hi))
			i++;
		while (j < nm && !vma_in(&mp[j], lo, hi))
			j++;
		if (i >= nq && j >= nm)
			break;
		const struct vma *x = i < nq ? &q[i] : NULL, *y = j < nm ? &mp[j] : NULL;
		if (x && y && x->start == y->start && x->end == y->end && !strcmp(x->perms, y->perms)) {
			i++, j++;
			continue;
		}
		cJSON *s = cJSON_CreateObject();
		cJSON_AddStringToObject(s, "op", "expect");
		if (y) {
			rel(e, y->start, a, sizeof(a));
			rel(e, y->end, b, sizeof(b));
			snprintf(ex, sizeof(ex), "/proc/%d/maps: VMA %s..%s %s", (int)e->r->cur->pid, a, b, y->perms);
			uint64_t in = y->start < lo ? lo : y->start;
			char ai[64];
			rel(e, in, ai, sizeof(ai));
			cJSON_AddStringToObject(s, "vma", ai);
			cJSON_AddStringToObject(s, "start", a);
			cJSON_AddStringToObject(s, "end", b);
		} else {
			snprintf(ex, sizeof(ex), "/proc/%d/maps: no more VMAs in the carveout", (int)e->r->cur->pid);
		}
		if (x) {
			rel(e, x->start, a, sizeof(a));
			rel(e, x->end, b, sizeof(b));
			snprintf(fd, sizeof(fd), "PROCMAP_QUERY: VMA %s..%s %s", a, b, x->perms);
			if (!y) {
				uint64_t in = x->start < lo ? lo : x->start;
				rel(e, in, a, sizeof(a));
				cJSON_AddFalseToObject(s, "mapped");
				cJSON_AddStringToObject(s, "at", a);
			}
		} else {
			snprintf(fd, sizeof(fd), "PROCMAP_QUERY: no more VMAs in the carveout");
		}
		viol(e, "vma", "expect", ex, fd);
		final_check(e, s);
		cJSON_Delete(s);
		vma_free_list(mp, nm);
		return 1;
	}
	vma_free_list(mp, nm);
	return 0;
}

/* The 8 bytes at addr in the scenario process, read through /proc/PID/mem. */
static bool peek(struct eng *e, uint64_t addr, uint64_t *w)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)e->r->cur->pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	bool ok = pread(fd, w, 8, (off_t)addr) == 8;
	close(fd);
	return ok;
}

/* One verify step over [p, q): pattern (seed, from page s) or zero. */
static int verify(struct eng *e, int p, int q, bool zero, uint32_t seed)
{
	char at[64], ex[640], fd[640], sa[64], mm[64];
	cJSON *st = cJSON_CreateObject(), *sres = NULL;

	stress_pages_str(p, at, sizeof(at));
	cJSON_AddStringToObject(st, "op", "verify");
	cJSON_AddStringToObject(st, "at", at);
	snprintf(sa, sizeof(sa), "%dp", q - p);
	cJSON_AddStringToObject(st, "len", sa);
	if (zero)
		cJSON_AddStringToObject(st, "pattern", "zero");
	else
		cJSON_AddNumberToObject(st, "pattern", seed);
	int rc = exec_step(e, st, &sres);
	cJSON_Delete(st);
	e->st->checks++;
	if (rc < 0) {
		cJSON_Delete(sres);
		return rc;
	}
	e->st->verified_pages += q - p;
	if (rc == 0) {
		cJSON_Delete(sres);
		return 0;
	}
	stress_pages_str(q, sa, sizeof(sa));
	if (zero)
		snprintf(ex, sizeof(ex), "%s..%s read as zero", at, sa);
	else
		snprintf(ex, sizeof(ex), "%s..%s hold pattern %u written from there", at, sa, seed);
	if (cJSON_IsObject(cJSON_GetObjectItem(sres, "signal"))) {
		snprintf(fd, sizeof(fd), "%s at %s", sget(cJSON_GetObjectItem(sres, "signal"), "name"),
			 sget(cJSON_GetObjectItem(sres, "signal"), "rel"));
		viol(e, "signal", "verify", ex, fd);
	} else {
		/* the first differing byte, and the word around it as it is now */
		uint64_t off = 0, w = 0;
		const char *mis = sget(sres, "mismatch");
		uint64_t base = e->r->base + (uint64_t)p * kinfo.page_size;
		snprintf(mm, sizeof(mm), "%s", mis ? mis : "?");
		uint64_t len = (uint64_t)(q - p) * kinfo.page_size;
		for (off = 0; off < len; off += 8) {
			uint64_t want = zero ? 0 : stress_pattern_word(seed, off / 8);
			if (!peek(e, base + off, &w))
				break;
			if (w != want) {
				char r2[64];
				rel(e, base + off, r2, sizeof(r2));
				snprintf(fd, sizeof(fd), "first difference at %s: word 0x%016" PRIx64 ", expected 0x%016" PRIx64 "%s",
					 r2, w, want, w == 0 ? " (zero)" : "");
				break;
			}
		}
		if (off >= len)
			snprintf(fd, sizeof(fd), "verify found a difference at %s", mm);
		viol(e, "data", "verify", ex, fd);
	}
	cJSON_Delete(sres);
	return 1;
}

/* Invariant: every readable page holds what the model says. All pages, or
 * only those changed since the last check. */
static int check_data(struct eng *e, bool full)
{
	struct stress_model *m = &e->m;
	int rc = 0;

	for (int p = 0; p < m->n && !rc;) {
		const struct stress_page *g = &m->pg[p];
		if (!g->mapped || !(g->prot & PROT_READ)) {
			p++;
			continue;
		}
		int q = p + 1;
		bool dirty = m->dirty[p];
		if (g->zero && !full && !dirty) {
			p++;
			continue;
		}
		if (g->zero) {
			while (q < m->n && m->pg[q].mapped && (m->pg[q].prot & PROT_READ) && m->pg[q].zero &&
			       (full || m->dirty[q]))
				q++;
			if (full || dirty)
				rc = verify(e, p, q, true, 0);
			p = q;
			continue;
		}
		if (g->start != p) { /* the page its range started at was overwritten */
			if (full)
				e->st->orphan_pages++;
			p++;
			continue;
		}
		while (q < m->n && m->pg[q].mapped && (m->pg[q].prot & PROT_READ) && !m->pg[q].zero &&
		       m->pg[q].seed == g->seed && m->pg[q].start == g->start) {
			dirty |= m->dirty[q];
			q++;
		}
		if (full || dirty)
			rc = verify(e, p, q, false, g->seed);
		p = q;
	}
	if (!rc)
		memset(m->dirty, 0, m->n);
	return rc;
}

static int check_all(struct eng *e, bool full)
{
	struct vma *list = NULL;
	size_t nl = 0;

	if (kernel_pages(e, &list, &nl))
		return -1;
	int rc = check_mappings(e);
	if (!rc)
		rc = check_vma_sources(e, list, nl);
	vma_free_list(list, nl);
	if (!rc)
		rc = check_data(e, full);
	return rc;
}

/* Invariant 4 (x-ray): after a successful move to a fixed address with
 * MREMAP_MUST_RELOCATE_ANON (or MREMAP_RELOCATE_ANON, or any move with the
 * test switch --xray-all-moves), the destination VMA's folios are linear at
 * their new place: folio->index == address / page size and folio->mapping the
 * VMA's anon_vma, which is what the series promises. Two outcomes are not
 * violations, because the series' cover letter says so: MREMAP_RELOCATE_ANON
 * without MUST falls back to a plain move when relocation is not feasible;
 * and no relocation is attempted when an ordinary merge succeeds (the
 * destination VMA then extends past the moved range and keeps a non-linear
 * vm_pgoff). */
enum stress_reloc stress_relocate_verdict(const struct xray_vma *v, uint64_t to, uint64_t end, unsigned flags)
{
	bool must = flags & MREMAP_MUST_RELOCATE_ANON, reloc = must || (flags & MREMAP_RELOCATE_ANON);

	if (v && xray_folios_linear(v))
		return RELOC_LINEAR;
	if (v && reloc && !must)
		return RELOC_FALLBACK;
	if (v && reloc && (v->start < to || v->end > end) && !xray_pgoff_linear(v))
		return RELOC_MERGED;
	return RELOC_BROKEN;
}

/* Invariant 4 on the move op just made: 0 holds, 1 broke, -1 error. */
static int check_relocated(struct eng *e, const struct stress_op *op)
{
	uint64_t ps = kinfo.page_size, a = e->r->base + (uint64_t)op->t * ps, end = a + (uint64_t)op->new_n * ps;
	uint64_t lo = a, hi = a + ps;
	bool must = op->flags & MREMAP_MUST_RELOCATE_ANON, reloc = must || (op->flags & MREMAP_RELOCATE_ANON);
	struct xray_vma *x = NULL;
	size_t n = 0;
	struct vma vm;
	char why[256], at[64], ex[640], fd[640];

	if (vma_find(&e->r->cur->vs, a, false, &vm) > 0) {
		lo = vm.start;
		hi = vm.end;
		vma_clear(&vm);
	}
	if (xray_read(e->r->cur->pid, lo, hi, true, &x, &n, why, sizeof(why)) < 0) {
		snprintf(e->rd->error, sizeof(e->rd->error), "cannot read the x-ray of %d after a move: %s", (int)e->r->cur->pid, why);
		return -1;
	}
	const struct xray_vma *v = xray_find(x, n, a);
	e->st->xray_checks++;
	int rc = 0;
	enum stress_reloc verdict = stress_relocate_verdict(v, a, end, op->flags);
	if (verdict == RELOC_FALLBACK) {
		e->st->xray_fallbacks++;
	} else if (verdict == RELOC_MERGED) {
		e->st->xray_merged++;
	} else if (verdict == RELOC_BROKEN) {
		stress_pages_str(op->t, at, sizeof(at));
		snprintf(ex, sizeof(ex),
			 "the VMA containing %s has every folio linear at its new place (index == address / page size, "
			 "in the VMA's anon_vma) after %s",
			 at, must ? "a successful MREMAP_MUST_RELOCATE_ANON move" : reloc ? "a MREMAP_RELOCATE_ANON move" :
			 "a move (test switch --xray-all-moves)");
		if (!v) {
			snprintf(fd, sizeof(fd), "no VMA contains %s", at);
		} else {
			size_t bad = 0;
			for (size_t i = 0; i < v->nfolios; i++)
				bad += !xray_folio_linear(v, &v->folios[i]);
			snprintf(fd, sizeof(fd), "%zu of %zu folio runs not linear; vm_pgoff 0x%" PRIx64 ", start in pages 0x%" PRIx64,
				 bad, v->nfolios, v->pgoff, v->start / ps);
		}
		viol(e, "xray", "mremap", ex, fd);
		cJSON *s = cJSON_CreateObject();
		cJSON_AddStringToObject(s, "op", "expect");
		cJSON_AddStringToObject(s, "vma", at);
		cJSON_AddTrueToObject(s, "folios_linear");
		final_check(e, s);
		cJSON_Delete(s);
		rc = 1;
	}
	xray_free(x, n);
	return rc;
}

static bool stop_now(const struct stress_cfg *cfg, const struct stress_stats *st)
{
	if (run_interrupted)
		return true;
	if (cfg->max_ops && st->ops >= cfg->max_ops)
		return true;
	return cfg->max_time > 0 && run_now() - cfg->t0 >= cfg->max_time;
}

static void push_op(struct stress_round *rd, const struct stress_op *op)
{
	if (rd->nops == rd->cap) {
		rd->cap = rd->cap ? rd->cap * 2 : 64;
		struct stress_op *n = realloc(rd->ops, rd->cap * sizeof(*n));
		if (!n)
			abort();
		rd->ops = n;
	}
	rd->ops[rd->nops++] = *op;
}

/* Judge the call's answer against the model's expectation. */
static void check_answer(struct eng *e, const struct stress_op *op, const struct stress_pred *p, cJSON *sres,
			 bool failed, int err)
{
	char ex[640], fd[640], set[256], doc[256];
	const char *name = stress_kind_names[op->kind];
	uint64_t documented = stress_documented(op, e->m.relocate);

	if (op->kind == SOP_FAULT || (p->kind == PRED_OK && !failed))
		return;
	if (p->kind == PRED_ERRNO && failed && err == p->err)
		return;
	if (p->kind == PRED_MAYFAIL && (!failed || (p->allowed & ERRBIT(err) && documented & ERRBIT(err))))
		return;
	if (p->kind == PRED_OK)
		snprintf(ex, sizeof(ex), "success (%s)", p->why);
	else if (p->kind == PRED_ERRNO)
		snprintf(ex, sizeof(ex), "%s (%s)", errno_name(p->err), p->why);
	else {
		stress_errnos_format(p->allowed, set, sizeof(set));
		snprintf(ex, sizeof(ex), "success or %s (%s)", set, p->why);
	}
	stress_errnos_format(documented, doc, sizeof(doc));
	if (failed)
		snprintf(fd, sizeof(fd), "%s (%s for %s: %s)", errno_name(err),
			 err < 64 && documented & ERRBIT(err) ? "documented" : "not documented", name, doc);
	else
		snprintf(fd, sizeof(fd), "success, returned %s", sget(sres, "ret_rel") ? sget(sres, "ret_rel") : "0");
	viol(e, "syscall", name, ex, fd);
}

int stress_round_run(const struct stress_cfg *cfg, struct stress_gen *gen, const struct stress_op *replay,
		     int nreplay, struct stress_stats *st, struct stress_round *out)
{
	struct eng e = { .cfg = cfg, .st = st, .rd = out };
	struct load_opts lo = { 0 };
	struct err err;
	cJSON *res = NULL;
	char name[64];

	memset(out, 0, sizeof(*out));
	out->steps = cJSON_CreateArray();
	stress_model_init(&e.m, cfg->pages, cfg->multi_move, cfg->relocate, cfg->break_model);
	e.kmapped = xcalloc(cfg->pages, 1);
	e.kprot = xcalloc(cfg->pages, 1);
	snprintf(name, sizeof(name), "stress-%" PRIu64, cfg->seed);
	e.base = stress_scenario_doc(cfg, name, NULL, NULL);
	if (scenario_from_json("stress", cJSON_Duplicate(e.base, 1), &lo, &e.sc0, &err)) {
		snprintf(out->error, sizeof(out->error), "internal: %s", err.msg);
		out->status = ROUND_ERROR;
		goto done;
	}
	e.sc = e.sc0;
	e.r = run_begin(e.sc0, &cfg->ro, &res);
	if (!e.r) {
		snprintf(out->error, sizeof(out->error), "cannot start a scenario process: %s",
			 sget(res, "reason") ? sget(res, "reason") : "?");
		out->status = ROUND_ERROR;
		goto done;
	}
	if (cfg->cgroup[0]) {
		char path[600], pid[32];
		snprintf(path, sizeof(path), "%s/cgroup.procs", cfg->cgroup);
		int fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd >= 0) {
			int n = snprintf(pid, sizeof(pid), "%d", (int)e.r->cur->pid);
			if (write(fd, pid, n) != n)
				fprintf(stderr, "anonremap: stress: cannot move %d into %s: %s\n", (int)e.r->cur->pid, cfg->cgroup,
					strerror(errno));
			close(fd);
		}
	}
	st->rounds++;
	int checked_at = -1;
	for (int i = 0;; i++) {
		struct stress_op op;
		struct stress_pred p;
		if (gen) {
			if (out->nops >= cfg->round_ops || stop_now(cfg, st) ||
			    cJSON_GetArraySize(out->steps) > MAX_STEPS - cfg->pages - 16)
				break;
			if (!stress_gen_next(gen, &e.m, &op))
				break;
		} else {
			if (i >= nreplay || run_interrupted)
				break;
			op = replay[i];
		}
		stress_predict(&e.m, &op, &p);
		if (p.kind == PRED_UNSAFE) {
			out->status = ROUND_UNRESOLVED;
			break;
		}
		e.op_index = out->nops;
		push_op(out, &op);
		cJSON *step = stress_op_json(&op, &p), *sres = NULL;
		int rc = exec_step(&e, step, &sres);
		cJSON_Delete(step);
		if (rc == -2) {
			out->status = ROUND_ERROR;
			cJSON_Delete(sres);
			break;
		}
		if (rc < 0) {
			if (run_interrupted) {
			} else if (!e.r->wr) { /* the step did not prepare: our bug */
				snprintf(out->error, sizeof(out->error), "internal: %s", e.r->reason ? e.r->reason : "?");
				out->status = ROUND_ERROR;
			} else {
				viol(&e, "died", stress_kind_names[op.kind], "the scenario process answers", e.r->why);
			}
			cJSON_Delete(sres);
			break;
		}
		const char *en = sget(sres, "errno");
		int errn = 0;
		bool failed = cJSON_GetObjectItem(sres, "ret") && cJSON_IsNumber(cJSON_GetObjectItem(sres, "ret")) &&
			      cJSON_GetObjectItem(sres, "ret")->valuedouble == -1;
		if (en)
			errno_lookup(en, &errn);
		st->ops++;
		st->failed_calls += failed;
		if (op.kind == SOP_FORK && !failed)
			st->forks++;
		if (op.kind == SOP_MADVISE && op.advice == ADV_PAGEOUT)
			st->pageouts++;
		char key[96];
		stress_op_key(&op, key, sizeof(key));
		stress_cov_add(st, key, failed);
		cJSON *sig = cJSON_GetObjectItem(sres, "signal");
		if (cJSON_IsObject(sig)) {
			char ex[640], fd[640];
			snprintf(ex, sizeof(ex), "no signal (%s: the model says every page is %s)", stress_kind_names[op.kind],
				 op.access ? "readable" : "writable");
			snprintf(fd, sizeof(fd), "%s at %s", sget(sig, "name"), sget(sig, "rel"));
			viol(&e, "signal", stress_kind_names[op.kind], ex, fd);
			cJSON_Delete(sres);
			break;
		}
		check_answer(&e, &op, &p, sres, failed, errn);
		cJSON_Delete(sres);
		if (e.violated)
			break;
		if (!failed && op.kind == SOP_MREMAP && (op.flags & MREMAP_FIXED) && op.n == op.new_n &&
		    !stress_single_vma(&e.m, op.a, op.n))
			st->multi_moves++;
		stress_apply(&e.m, &op, failed);
		if (failed && p.resync) {
			struct vma *list = NULL;
			size_t nl = 0;
			if (kernel_pages(&e, &list, &nl)) {
				out->status = ROUND_ERROR;
				break;
			}
			vma_free_list(list, nl);
			stress_resync(&e.m, &op, e.kmapped);
		}
		bool full = (out->nops % cfg->check_every) == 0;
		rc = check_all(&e, full);
		if (full)
			checked_at = out->nops;
		if (rc < 0 && !e.violated) {
			if (run_interrupted)
				break;
			if (e.r->wr) {
				viol(&e, "died", "verify", "the scenario process answers", e.r->why);
			} else {
				if (!out->error[0])
					snprintf(out->error, sizeof(out->error), "%s", e.r->reason ? e.r->reason : "?");
				out->status = ROUND_ERROR;
			}
			break;
		}
		if (rc)
			break;
		if (cfg->xray && !failed && op.kind == SOP_MREMAP && (op.flags & MREMAP_FIXED) && op.t >= 0 &&
		    (cfg->xray_all_moves || (op.flags & (MREMAP_RELOCATE_ANON | MREMAP_MUST_RELOCATE_ANON)))) {
			rc = check_relocated(&e, &op);
			if (rc < 0) {
				out->status = ROUND_ERROR;
				break;
			}
			if (rc)
				break;
		}
	}
	/* the whole carveout once more at the end of a round */
	if (!e.violated && out->status == ROUND_DONE && out->nops && checked_at != out->nops && !run_interrupted) {
		e.op_index = out->nops - 1;
		int rc = check_all(&e, true);
		if (rc < 0 && !e.violated)
			out->status = ROUND_ERROR;
	}
	run_end(e.r);
done:
	cJSON_Delete(res);
	if (e.sc != e.sc0)
		scenario_free(e.sc);
	scenario_free(e.sc0);
	cJSON_Delete(e.base);
	stress_model_free(&e.m);
	free(e.kmapped);
	free(e.kprot);
	return out->status;
}
