/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The stress minimizer: delta debugging over the operations of a failing
 * round. A candidate runs in a fresh scenario process through the same
 * round code, with the model recomputing every expectation, and is kept only
 * when the same invariant breaks again (same kind, same op). Then lengths
 * and offsets shrink, and finally the passing checks are dropped from the
 * concrete scenario, each removal confirmed with run_scenario(). */
#include "stress.h"
#include <stdlib.h>
#include <string.h>

#define MAX_RUNS 400         /* candidate rounds */
#define MAX_SECONDS 180.0

struct ctx {
	const struct stress_cfg *cfg;
	const struct stress_viol *want;
	struct stress_op *ops;
	int n, runs;
	double t0;
	char status[16];     /* the last step's status when the scenario is replayed */
};

static bool budget(struct ctx *c)
{
	return c->runs < MAX_RUNS && run_now() - c->t0 < MAX_SECONDS && !run_interrupted;
}

/* Run ops; true when the same invariant breaks. *at: the op it broke after. */
static bool test(struct ctx *c, const struct stress_op *ops, int n, int *at, struct stress_round *keep)
{
	struct stress_stats st = { 0 };
	struct stress_round rd;

	c->runs++;
	stress_round_run(c->cfg, NULL, ops, n, &st, &rd);
	stress_cov_free(&st);
	bool same = rd.status == ROUND_VIOLATION && !strcmp(rd.v.kind, c->want->kind) && !strcmp(rd.v.op, c->want->op);
	*at = rd.v.op_index;
	if (same && keep)
		*keep = rd;
	else
		stress_round_free(&rd);
	return same;
}

/* Keep a candidate that fails the same way, cut after the op it failed at. */
static bool try_cand(struct ctx *c, const struct stress_op *cand, int n)
{
	int at;

	if (n < 1 || !budget(c) || !test(c, cand, n, &at, NULL))
		return false;
	if (at < 0 || at >= n)
		at = n - 1;
	memmove(c->ops, cand, (at + 1) * sizeof(*cand));
	c->n = at + 1;
	return true;
}

static void ddmin(struct ctx *c)
{
	struct stress_op *cand = xcalloc(c->n + 1, sizeof(*cand));
	int g = 2;

	while (c->n >= 2 && budget(c)) {
		int n = c->n, chunk = (n + g - 1) / g;
		bool progress = false;
		for (int i = 0; i < g && !progress; i++) {
			int s = i * chunk, e = s + chunk < n ? s + chunk : n;
			if (s >= e || e - s == n)
				continue;
			memcpy(cand, c->ops + s, (e - s) * sizeof(*cand));
			if (try_cand(c, cand, e - s)) {
				g = 2;
				progress = true;
			}
		}
		for (int i = 0; i < g && !progress; i++) {
			int s = i * chunk, e = s + chunk < n ? s + chunk : n, k = 0;
			if (s >= e)
				continue;
			for (int j = 0; j < n; j++)
				if (j < s || j >= e)
					cand[k++] = c->ops[j];
			if (try_cand(c, cand, k)) {
				g = g > 2 ? g - 1 : 2;
				progress = true;
			}
		}
		if (!progress) {
			if (g >= n)
				break;
			g = g * 2 < n ? g * 2 : n;
		}
	}
	free(cand);
}

/* Smaller ranges, for each operation in turn: one page, the first half, the
 * second half, the last page (a move keeps its pages' places). True when
 * anything shrank. */
static bool shrink(struct ctx *c)
{
	struct stress_op *cand = xcalloc(c->n + 1, sizeof(*cand));
	bool any = false;

	for (int pass = 0; pass < 4; pass++) {
		bool changed = false;
		for (int i = c->n - 1; i >= 0 && budget(c); i--) {
			struct stress_op o = c->ops[i], tries[6];
			int nt = 0, h = o.n / 2;
			if (o.kind == SOP_FORK)
				continue;
			if (o.kind != SOP_MREMAP) {
				if (o.n > 1) {
					tries[nt] = o, tries[nt++].n = 1;
					tries[nt] = o, tries[nt].a = o.a + o.n - 1, tries[nt++].n = 1;
				}
				if (o.n > 2) {
					tries[nt] = o, tries[nt++].n = o.n - h;
					tries[nt] = o, tries[nt].a = o.a + h, tries[nt++].n = o.n - h;
				}
			} else if (o.n == o.new_n) {
				if (o.n > 1) {
					tries[nt] = o, tries[nt].n = tries[nt].new_n = 1, nt++;
					tries[nt] = o, tries[nt].a = o.a + o.n - 1, tries[nt].t = o.t >= 0 ? o.t + o.n - 1 : -1;
					tries[nt].n = tries[nt].new_n = 1, nt++;
				}
				if (o.n > 2) {
					tries[nt] = o, tries[nt].n = tries[nt].new_n = o.n - h, nt++;
					tries[nt] = o, tries[nt].a = o.a + h, tries[nt].t = o.t >= 0 ? o.t + h : -1;
					tries[nt].n = tries[nt].new_n = o.n - h, nt++;
				}
			} else if (o.new_n > o.n) {
				if (o.new_n > o.n + 1)
					tries[nt] = o, tries[nt++].new_n = o.n + 1;
				if (o.n > 1)
					tries[nt] = o, tries[nt].new_n = o.new_n - o.n + 1, tries[nt++].n = 1;
			} else {
				if (o.new_n > 1)
					tries[nt] = o, tries[nt++].new_n = 1;
				if (o.n > o.new_n + 1)
					tries[nt] = o, tries[nt++].n = o.new_n + 1;
			}
			for (int k = 0; k < nt; k++) {
				memcpy(cand, c->ops, c->n * sizeof(*cand));
				cand[i] = tries[k];
				if (try_cand(c, cand, c->n)) {
					changed = any = true;
					break;
				}
			}
			if (i >= c->n)
				i = c->n;
		}
		if (!changed)
			break;
	}
	/* offsets: the whole sequence moved down to the carveout's start */
	int lo = c->cfg->pages, P = (int)(kinfo.pmd_size / kinfo.page_size);
	for (int i = 0; i < c->n; i++) {
		if (c->ops[i].kind == SOP_FORK)
			continue;
		if (c->ops[i].a < lo)
			lo = c->ops[i].a;
		if (c->ops[i].t >= 0 && c->ops[i].t < lo)
			lo = c->ops[i].t;
	}
	if (c->cfg->thp)
		lo -= lo % P;
	if (lo > 0 && lo < c->cfg->pages && budget(c)) {
		memcpy(cand, c->ops, c->n * sizeof(*cand));
		for (int i = 0; i < c->n; i++) {
			cand[i].a -= lo;
			if (cand[i].t >= 0)
				cand[i].t -= lo;
		}
		any |= try_cand(c, cand, c->n);
	}
	free(cand);
	return any;
}

/* The last step of a failing sequence made to fail on replay: a call that
 * broke the syscall invariant loses may_fail, and gets the errno the model
 * expected when it succeeded instead. */
void stress_fix_final(cJSON *steps, const struct stress_viol *v)
{
	cJSON *last = cJSON_GetArrayItem(steps, cJSON_GetArraySize(steps) - 1);
	char want[32];

	if (!last || strcmp(v->kind, "syscall"))
		return;
	cJSON_DeleteItemFromObject(last, "may_fail");
	cJSON_DeleteItemFromObject(last, "errno");
	if (v->expected[0] == 'E' && !strncmp(v->found, "success", 7)) {
		size_t k = strcspn(v->expected, " ");
		snprintf(want, sizeof(want), "%.*s", (int)(k < sizeof(want) ? k : sizeof(want) - 1), v->expected);
		cJSON_AddStringToObject(last, "errno", want);
	} else if (v->expected[0] == 'E') {
		/* another errno than the one expected: keep expecting that one */
		size_t k = strcspn(v->expected, " ");
		snprintf(want, sizeof(want), "%.*s", (int)(k < sizeof(want) ? k : sizeof(want) - 1), v->expected);
		cJSON_AddStringToObject(last, "errno", want);
	}
}

/* Run steps as a scenario file would run (run_scenario, a fresh process).
 * Returns the scenario's status; *fail_index: the first step not ok, or -1. */
const char *stress_replay(const struct stress_cfg *cfg, cJSON *steps, int *fail_index)
{
	static char status[16];
	struct load_opts lo = { 0 };
	struct scenario *sc;
	struct err err;
	int st;
	cJSON *doc = stress_scenario_doc(cfg, "stress-replay", NULL, cJSON_Duplicate(steps, 1));

	*fail_index = -1;
	if (scenario_from_json("stress", doc, &lo, &sc, &err)) {
		cJSON_Delete(doc);
		return "invalid";
	}
	cJSON *res = run_scenario(sc, &cfg->ro, &st), *s;
	cJSON_ArrayForEach(s, cJSON_GetObjectItem(res, "steps")) {
		cJSON *ss = cJSON_GetObjectItem(s, "status");
		if (cJSON_IsString(ss) && strcmp(ss->valuestring, "ok")) {
			*fail_index = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(s, "index"));
			snprintf(status, sizeof(status), "%s", ss->valuestring);
			break;
		}
	}
	const char *r = cJSON_GetStringValue(cJSON_GetObjectItem(res, "status"));
	if (*fail_index < 0)
		snprintf(status, sizeof(status), "%s", r ? r : "?");
	cJSON_Delete(res);
	scenario_free(sc);
	return status;
}

/* Fails at its last step, the same way. */
static bool fails_last(struct ctx *c, cJSON *steps)
{
	int idx;
	c->runs++;
	const char *s = stress_replay(c->cfg, steps, &idx);
	return idx == cJSON_GetArraySize(steps) - 1 && !strcmp(s, c->status);
}

void stress_minimize(const struct stress_cfg *cfg, const struct stress_round *rd, struct stress_min *out)
{
	struct stress_cfg mc = *cfg;
	struct ctx c = { .cfg = &mc, .want = &rd->v, .t0 = run_now() };
	struct stress_round fin;
	int at;

	memset(out, 0, sizeof(*out));
	mc.trace = NULL;
	c.n = rd->v.op_index + 1 < rd->nops ? rd->v.op_index + 1 : rd->nops;
	c.ops = xcalloc(c.n + 1, sizeof(*c.ops));
	memcpy(c.ops, rd->ops, c.n * sizeof(*c.ops));
	if (!test(&c, c.ops, c.n, &at, NULL)) {
		snprintf(out->note, sizeof(out->note),
			 "the failure did not come back in a fresh scenario process: no minimized scenario");
		free(c.ops);
		out->rounds = c.runs;
		return;
	}
	out->reproduced = true;
	ddmin(&c);
	for (int k = 0; k < 3 && shrink(&c); k++)
		ddmin(&c);
	if (!test(&c, c.ops, c.n, &at, &fin)) {
		snprintf(out->note, sizeof(out->note), "the minimized sequence stopped failing on its last run");
		free(c.ops);
		out->rounds = c.runs;
		return;
	}
	cJSON *steps = cJSON_Duplicate(fin.steps, 1);
	stress_fix_final(steps, &fin.v);
	int idx;
	const char *s0 = stress_replay(&mc, steps, &idx);
	c.runs++;
	bool last = idx == cJSON_GetArraySize(steps) - 1;
	snprintf(c.status, sizeof(c.status), "%s", s0);
	if (!last)
		snprintf(out->note, sizeof(out->note), "replayed as a scenario, the minimized sequence %s at step %d, not at its last",
			 s0, idx);
	/* drop the checks that passed, from the end, while it still fails last */
	for (int j = cJSON_GetArraySize(steps) - 2; last && j >= 0 && budget(&c); j--) {
		cJSON *s = cJSON_GetArrayItem(steps, j);
		const char *op = cJSON_GetStringValue(cJSON_GetObjectItem(s, "op"));
		if (!op || (strcmp(op, "verify") && strcmp(op, "expect")))
			continue;
		cJSON *cand = cJSON_Duplicate(steps, 1);
		cJSON_DeleteItemFromArray(cand, j);
		if (fails_last(&c, cand)) {
			cJSON_Delete(steps);
			steps = cand;
		} else {
			cJSON_Delete(cand);
		}
	}
	out->steps = steps;
	out->nops = c.n;
	out->rounds = c.runs;
	if (!budget(&c) && !run_interrupted)
		snprintf(out->note, sizeof(out->note), "stopped at the budget (%d runs or %.0f s): may not be minimal",
			 MAX_RUNS, MAX_SECONDS);
	stress_round_free(&fin);
	free(c.ops);
}
