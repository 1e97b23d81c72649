/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Compare two results of the same scenario, by carveout-relative addresses:
 * steps' returns and errnos, dumps' VMAs, expectations' outcomes. One engine
 * for replay and diff; what the kernel picks (pids, addresses it chose) is
 * compared as such (ret_text), or two runs of a fork would always differ. */
#include "anonremap.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *s_(cJSON *o, const char *k)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A value as short text: strings as they are, numbers, null, JSON otherwise. */
static char *text_of(cJSON *v)
{
	char buf[64];
	if (!v || cJSON_IsNull(v))
		return xstrdup("null");
	if (cJSON_IsString(v))
		return xstrdup(v->valuestring);
	if (cJSON_IsNumber(v)) {
		snprintf(buf, sizeof(buf), "%.0f", v->valuedouble);
		return xstrdup(buf);
	}
	if (cJSON_IsBool(v))
		return xstrdup(cJSON_IsTrue(v) ? "true" : "false");
	char *p = cJSON_PrintUnformatted(v);
	return p ? p : xstrdup("?");
}

static void add(cJSON *diffs, const char *where, const char *field, cJSON *a, cJSON *b)
{
	char *ta = text_of(a), *tb = text_of(b);
	if (strcmp(ta, tb)) {
		cJSON *d = cJSON_CreateObject();
		cJSON_AddStringToObject(d, "where", where);
		cJSON_AddStringToObject(d, "field", field);
		cJSON_AddStringToObject(d, "a", ta);
		cJSON_AddStringToObject(d, "b", tb);
		cJSON_AddItemToArray(diffs, d);
	}
	free(ta);
	free(tb);
}

static void add_s(cJSON *diffs, const char *where, const char *field, const char *a, const char *b)
{
	cJSON *ja = a ? cJSON_CreateString(a) : cJSON_CreateNull(), *jb = b ? cJSON_CreateString(b) : cJSON_CreateNull();
	add(diffs, where, field, ja, jb);
	cJSON_Delete(ja);
	cJSON_Delete(jb);
}

/* The return as the result shows it, carveout-relative where it is an address. */
static cJSON *ret_of(cJSON *st)
{
	cJSON *rel = cJSON_GetObjectItemCaseSensitive(st, "ret_rel");
	return rel ? rel : cJSON_GetObjectItemCaseSensitive(st, "ret");
}

static bool has_flag(cJSON *args, const char *flag)
{
	cJSON *f;
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(args, "flags"))
		if (cJSON_IsString(f) && !strcmp(f->valuestring, flag))
			return true;
	return false;
}

/* Where the call asked for its address: the key of the argument whose _rel
 * the return is compared with, or NULL when the scenario fixed the address
 * (MAP_FIXED, MREMAP_FIXED, or an mremap that may not move: the ops'
 * fixed_ret) and the return is the scenario's own. */
static const char *kernel_chose(cJSON *st)
{
	const char *op = s_(st, "op");
	cJSON *args = cJSON_GetObjectItemCaseSensitive(st, "args");

	if (!op || !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(args, "flags")))
		return NULL; /* flags as a number: not as this version records them */
	if (!strcmp(op, "mmap") && !has_flag(args, "MAP_FIXED") && !has_flag(args, "MAP_FIXED_NOREPLACE"))
		return "addr";
	if (!strcmp(op, "mremap") && has_flag(args, "MREMAP_MAYMOVE") && !has_flag(args, "MREMAP_FIXED"))
		return "old_address";
	return NULL;
}

/* The return as two runs of one scenario on one kernel agree on it: a fork's
 * child pid is "a pid" (the kernel numbers processes; a failure stays -1),
 * and an address the kernel chose (mmap without a fixed address, an mremap
 * free to move) is taken relative to where the call asked for it: there
 * ("at addr", "at old_address": in place) or elsewhere, whose carveout offset
 * depends only on what else the process has mapped. Other returns as they
 * are. Pids elsewhere (each step's and dump's pid) are not compared at all. */
static char *ret_text(cJSON *st)
{
	cJSON *ret = ret_of(st);
	const char *op = s_(st, "op"), *asked = kernel_chose(st);
	char buf[96];

	if (op && !strcmp(op, "fork") && cJSON_IsNumber(ret) && ret->valuedouble > 0)
		return xstrdup("a child pid");
	if (asked && cJSON_IsString(ret)) {
		char key[32];
		snprintf(key, sizeof(key), "%s_rel", asked);
		const char *want = s_(cJSON_GetObjectItemCaseSensitive(st, "args"), key);
		if (want && !strcmp(want, ret->valuestring))
			snprintf(buf, sizeof(buf), "at %s (as asked)", asked);
		else
			snprintf(buf, sizeof(buf), "not at %s: where the kernel chose", asked);
		return xstrdup(buf);
	}
	return text_of(ret);
}

static void compare_steps(cJSON *diffs, cJSON *a, cJSON *b, const struct compare_opts *o)
{
	int na = cJSON_GetArraySize(a), nb = cJSON_GetArraySize(b);
	char where[96];

	for (int i = 0; i < (na > nb ? na : nb); i++) {
		cJSON *x = cJSON_GetArrayItem(a, i), *y = cJSON_GetArrayItem(b, i);
		const char *op = s_(x ? x : y, "op");
		snprintf(where, sizeof(where), "step %d (%s)", i, op ? op : "?");
		if (!x || !y) {
			add_s(diffs, where, "ran", x ? "yes" : "no", y ? "yes" : "no");
			continue;
		}
		add(diffs, where, "op", cJSON_GetObjectItem(x, "op"), cJSON_GetObjectItem(y, "op"));
		char *rx = ret_text(x), *ry = ret_text(y);
		add_s(diffs, where, "ret", rx, ry);
		free(rx);
		free(ry);
		add(diffs, where, "errno", cJSON_GetObjectItem(x, "errno"), cJSON_GetObjectItem(y, "errno"));
		add(diffs, where, "status", cJSON_GetObjectItem(x, "status"), cJSON_GetObjectItem(y, "status"));
		cJSON *sx = cJSON_GetObjectItem(x, "signal"), *sy = cJSON_GetObjectItem(y, "signal");
		add(diffs, where, "signal", cJSON_GetObjectItem(sx, "name"), cJSON_GetObjectItem(sy, "name"));
		if (o->timing) {
			double tx = cJSON_GetNumberValue(cJSON_GetObjectItem(x, "duration_ns"));
			double ty = cJSON_GetNumberValue(cJSON_GetObjectItem(y, "duration_ns"));
			if (!isnan(tx) && !isnan(ty) && fabs(ty - tx) > o->tolerance * (tx > ty ? tx : ty))
				add(diffs, where, "duration_ns", cJSON_GetObjectItem(x, "duration_ns"),
				    cJSON_GetObjectItem(y, "duration_ns"));
		}
	}
}

/* "carveout+1p..carveout+11p rw-p x........." */
static void vma_key(cJSON *v, char *buf, size_t len, bool with_state)
{
	const char *rel = s_(v, "rel"), *start = s_(v, "start");
	snprintf(buf, len, "%s %s%s%s", rel ? rel : start ? start : "?", s_(v, "perms") ? s_(v, "perms") : "",
		 with_state ? " " : "", with_state && s_(v, "pages_state") ? s_(v, "pages_state") : "");
}

static bool has_vma(cJSON *vmas, const char *key, bool with_state)
{
	cJSON *v;
	char k[512];
	cJSON_ArrayForEach(v, vmas) {
		vma_key(v, k, sizeof(k), with_state);
		if (!strcmp(k, key))
			return true;
	}
	return false;
}

static void compare_dumps(cJSON *diffs, cJSON *a, cJSON *b)
{
	int na = cJSON_GetArraySize(a), nb = cJSON_GetArraySize(b);
	char where[128], key[512];

	for (int i = 0; i < (na > nb ? na : nb); i++) {
		cJSON *x = cJSON_GetArrayItem(a, i), *y = cJSON_GetArrayItem(b, i);
		cJSON *d = x ? x : y;
		snprintf(where, sizeof(where), "dump %d (after step %.0f%s%s)", i,
			 cJSON_GetNumberValue(cJSON_GetObjectItem(d, "after_step")),
			 s_(d, "label") && *s_(d, "label") ? ", " : "", s_(d, "label") ? s_(d, "label") : "");
		if (!x || !y) {
			add_s(diffs, where, "taken", x ? "yes" : "no", y ? "yes" : "no");
			continue;
		}
		add(diffs, where, "vma_count", cJSON_GetObjectItem(x, "vma_count"), cJSON_GetObjectItem(y, "vma_count"));
		cJSON *vx = cJSON_GetObjectItem(x, "vmas"), *vy = cJSON_GetObjectItem(y, "vmas"), *v;
		/* a VMA whose bounds and perms match on both sides differs, if at all, in its pages */
		cJSON_ArrayForEach(v, vx) {
			vma_key(v, key, sizeof(key), false);
			if (!has_vma(vy, key, false)) {
				add_s(diffs, where, "vma", key, "absent");
				continue;
			}
			vma_key(v, key, sizeof(key), true);
			if (!has_vma(vy, key, true)) {
				cJSON *w;
				char k2[512], kb[512];
				vma_key(v, k2, sizeof(k2), false);
				cJSON_ArrayForEach(w, vy) {
					vma_key(w, kb, sizeof(kb), false);
					if (!strcmp(kb, k2)) {
						char f[600];
						snprintf(f, sizeof(f), "pages_state of %s", k2);
						add(diffs, where, f, cJSON_GetObjectItem(v, "pages_state"),
						    cJSON_GetObjectItem(w, "pages_state"));
					}
				}
			}
		}
		cJSON_ArrayForEach(v, vy) {
			vma_key(v, key, sizeof(key), false);
			if (!has_vma(vx, key, false))
				add_s(diffs, where, "vma", "absent", key);
		}
	}
}

static void compare_expects(cJSON *diffs, cJSON *a, cJSON *b)
{
	cJSON *x, *y;
	char where[96];

	cJSON_ArrayForEach(x, a) {
		double step = cJSON_GetNumberValue(cJSON_GetObjectItem(x, "step"));
		snprintf(where, sizeof(where), "expectation at step %.0f (%s)", step, s_(x, "check") ? s_(x, "check") : "?");
		cJSON *match = NULL;
		cJSON_ArrayForEach(y, b)
			if (cJSON_GetNumberValue(cJSON_GetObjectItem(y, "step")) == step)
				match = y;
		if (!match) {
			add_s(diffs, where, "evaluated", "yes", "no");
			continue;
		}
		add(diffs, where, "ok", cJSON_GetObjectItem(x, "ok"), cJSON_GetObjectItem(match, "ok"));
		if (!cJSON_Compare(cJSON_GetObjectItem(x, "found"), cJSON_GetObjectItem(match, "found"), 1))
			add(diffs, where, "found", cJSON_GetObjectItem(x, "found"), cJSON_GetObjectItem(match, "found"));
	}
	cJSON_ArrayForEach(y, b) {
		double step = cJSON_GetNumberValue(cJSON_GetObjectItem(y, "step"));
		bool found = false;
		cJSON_ArrayForEach(x, a)
			found |= cJSON_GetNumberValue(cJSON_GetObjectItem(x, "step")) == step;
		if (!found) {
			snprintf(where, sizeof(where), "expectation at step %.0f (%s)", step,
				 s_(y, "check") ? s_(y, "check") : "?");
			add_s(diffs, where, "evaluated", "no", "yes");
		}
	}
}

/* Every difference between scenario results a and b, as {where, field, a, b}. */
cJSON *compare_scenarios(cJSON *a, cJSON *b, const struct compare_opts *o)
{
	cJSON *diffs = cJSON_CreateArray();

	add(diffs, "scenario", "status", cJSON_GetObjectItem(a, "status"), cJSON_GetObjectItem(b, "status"));
	compare_steps(diffs, cJSON_GetObjectItem(a, "steps"), cJSON_GetObjectItem(b, "steps"), o);
	compare_dumps(diffs, cJSON_GetObjectItem(a, "dumps"), cJSON_GetObjectItem(b, "dumps"));
	compare_expects(diffs, cJSON_GetObjectItem(a, "expectations"), cJSON_GetObjectItem(b, "expectations"));
	return diffs;
}

/* Kernel features that differ between two result documents. */
cJSON *compare_features(cJSON *a, cJSON *b)
{
	cJSON *diffs = cJSON_CreateArray(), *f;
	cJSON *fa = cJSON_GetObjectItem(cJSON_GetObjectItem(a, "kernel"), "features");
	cJSON *fb = cJSON_GetObjectItem(cJSON_GetObjectItem(b, "kernel"), "features");

	cJSON_ArrayForEach(f, fa)
		add(diffs, "kernel features", f->string, f, cJSON_GetObjectItem(fb, f->string));
	cJSON_ArrayForEach(f, fb)
		if (!cJSON_GetObjectItem(fa, f->string))
			add(diffs, "kernel features", f->string, NULL, f);
	add(diffs, "kernel", "release", cJSON_GetObjectItem(cJSON_GetObjectItem(a, "kernel"), "release"),
	    cJSON_GetObjectItem(cJSON_GetObjectItem(b, "kernel"), "release"));
	return diffs;
}

/* A result document from a buffer: JSON, format version 1, with scenarios,
 * and the shape result_check() wants. The one check of a result: result_load
 * and the fuzz harness (tests/fuzz/fuzz_result.c) both come here. */
int result_parse_buf(const char *name, const char *buf, size_t len, cJSON **out, struct err *err)
{
	*out = NULL;
	if (json_parse_located(name, buf, len, out, err))
		return -1;
	cJSON *v = cJSON_GetObjectItem(*out, "anonremap"), *scs = cJSON_GetObjectItem(*out, "scenarios");
	const char *why = NULL;
	if (!cJSON_IsObject(*out))
		why = "not a JSON object";
	else if (!cJSON_IsNumber(v))
		why = "no \"anonremap\" format version: not an anonremap result";
	else if (v->valuedouble != FORMAT_VERSION)
		why = "unsupported format version";
	else if (!cJSON_IsArray(scs))
		why = "no \"scenarios\" list: not a result (a scenario file?)";
	if (why)
		err_set(err, "%s: %s", name, why);
	if (why || result_check(name, *out, err)) {
		cJSON_Delete(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

/* A result document from a file (or - for stdin). */
int result_load(const char *path, cJSON **out, struct err *err)
{
	char *buf;
	size_t len;
	struct err e2;
	FILE *fp = strcmp(path, "-") ? fopen(path, "re") : stdin;

	*out = NULL;
	if (!fp)
		return err_set(err, "%s: cannot open: %m", path);
	buf = read_fd_all(fileno(fp), 1u << 30, &len, &e2);
	if (fp != stdin)
		fclose(fp);
	if (!buf)
		return err_set(err, "%s: cannot read: %s", path, e2.msg);
	int rc = result_parse_buf(path, buf, len, out, err);
	free(buf);
	return rc;
}
