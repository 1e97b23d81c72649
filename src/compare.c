/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Compare two results of the same scenario, by carveout-relative addresses:
 * steps' returns and errnos, dumps' VMAs, expectations' outcomes. One engine
 * for replay and diff; what the kernel picks (pids, addresses it chose) is
 * compared as such (ret_text), or two runs of a fork would always differ. */
#include "anonremap.h"
#include <errno.h>
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

/* What the addresses of one scenario result are measured against. The
 * reservation, in pages from the carveout: the carveout and the PROT_NONE
 * filler either side of it, which the scenario fixes. Outside it, where
 * ASLR moves everything from run to run, the addresses the kernel chose for
 * the scenario's calls (an mmap without an address, an mremap free to
 * move), each an anchor for the pages it placed: what the scenario does
 * inside a placed region keeps its place relative to that region's start.
 * Two placed regions need not keep theirs relative to each other: where a
 * second one fits depends on the holes ASLR left (guard-regions'
 * mremap_expand places ptr above the carveout and ptr_new, twice as long,
 * below it in one run and above it in another). */
#define MAX_ANCHORS 64

struct anchor {
	long long pg, pages;
};

struct side {
	bool known, placed;
	long long lo, hi;
	struct anchor anchor[MAX_ANCHORS]; /* anchor[0], the first, is the fallback */
	int nanchors;
};

/* "carveout+12p" or "carveout-3p" at s: its pages into *pg, the characters
 * it takes, or 0. */
static size_t carveout_rel(const char *s, long long *pg)
{
	char *end;

	if (strncmp(s, "carveout", 8) || (s[8] != '+' && s[8] != '-') || s[9] < '0' || s[9] > '9')
		return 0;
	errno = 0;
	*pg = strtoll(s + 8, &end, 10);
	if (errno || *end != 'p')
		return 0;
	return (size_t)(end + 1 - s);
}

static bool in_reservation(long long pg, const struct side *sd)
{
	return !sd->known || (pg >= sd->lo && pg < sd->hi);
}

/* The recorder's page size, from its carveout (bytes over pages), or 0. */
static double page_size_of(cJSON *co, cJSON *pages)
{
	const char *a = s_(co, "start"), *b = s_(co, "end");
	if (!a || !b || !cJSON_IsNumber(pages) || pages->valuedouble < 1)
		return 0;
	unsigned long long x = strtoull(a, NULL, 16), y = strtoull(b, NULL, 16);
	return y > x ? (double)(y - x) / pages->valuedouble : 0;
}

static struct side side_of(cJSON *sc)
{
	cJSON *co = cJSON_GetObjectItemCaseSensitive(sc, "carveout");
	cJSON *pages = cJSON_GetObjectItemCaseSensitive(co, "pages");
	cJSON *guard = cJSON_GetObjectItemCaseSensitive(co, "guard_pages"), *st;
	struct side sd = { 0 };

	/* result_check made both counts 0..INT_MAX where present */
	if (cJSON_IsNumber(pages)) {
		long long g = cJSON_IsNumber(guard) ? (long long)guard->valuedouble : 0;
		sd.known = true;
		sd.lo = -g;
		sd.hi = (long long)pages->valuedouble + g;
	}
	double ps = page_size_of(co, pages);
	cJSON_ArrayForEach(st, cJSON_GetObjectItemCaseSensitive(sc, "steps")) {
		const char *ret = s_(st, "ret_rel");
		long long pg;
		if (sd.nanchors == MAX_ANCHORS)
			break;
		if (!kernel_chose(st) || !ret || carveout_rel(ret, &pg) != strlen(ret) || in_reservation(pg, &sd))
			continue;
		cJSON *args = cJSON_GetObjectItemCaseSensitive(st, "args");
		cJSON *len = cJSON_GetObjectItemCaseSensitive(args, "len");
		if (!len)
			len = cJSON_GetObjectItemCaseSensitive(args, "new_size");
		double n = ps > 0 && cJSON_IsNumber(len) ? len->valuedouble / ps : 0;
		sd.anchor[sd.nanchors++] = (struct anchor){ pg, n >= 0 && n < 1e15 ? (long long)n : 0 };
		sd.placed = true;
	}
	return sd;
}

/* The anchor an address outside the reservation is written from: the last
 * placed region that holds it, else the first (anchor 0). */
static int anchor_of(long long pg, const struct side *sd)
{
	for (int k = sd->nanchors - 1; k > 0; k--)
		if (pg >= sd->anchor[k].pg && pg - sd->anchor[k].pg < sd->anchor[k].pages)
			return k;
	return 0;
}

/* s with every carveout-relative address outside the reservation written
 * from its anchor: "placed+4p" from the first region the kernel placed,
 * "placed2+0p" from the third. The same text for two runs that did the same.
 * Inside the reservation, and where the kernel chose nothing, as it is. The
 * caller frees it. */
static char *stable(const char *s, const struct side *sd)
{
	if (!sd->placed)
		return xstrdup(s);
	size_t len = strlen(s), o = 0;
	/* the longest rewrite, "placed63-9223372036854775808p", of the shortest
	 * token, "carveout+0p": less than three times as long */
	char *out = xmalloc(3 * len + 32);

	for (size_t i = 0; i < len;) {
		long long pg, d;
		size_t n = carveout_rel(s + i, &pg);
		int k = n ? anchor_of(pg, sd) : 0;
		if (n && !in_reservation(pg, sd) && !__builtin_sub_overflow(pg, sd->anchor[k].pg, &d)) {
			if (k)
				o += (size_t)sprintf(out + o, "placed%d%+lldp", k, d);
			else
				o += (size_t)sprintf(out + o, "placed%+lldp", d);
			i += n;
		} else if (n) {
			memcpy(out + o, s + i, n);
			o += n;
			i += n;
		} else {
			out[o++] = s[i++];
		}
	}
	out[o] = 0;
	return out;
}

/* The return as two runs of one scenario on one kernel agree on it: a fork's
 * child pid is "a pid" (the kernel numbers processes; a failure stays -1),
 * and an address the kernel chose (mmap without a fixed address, an mremap
 * free to move) is taken relative to where the call asked for it: there
 * ("at addr", "at old_address": in place) or elsewhere, whose carveout offset
 * depends only on what else the process has mapped. Other returns as they
 * are, an address outside the reservation written from the first the kernel
 * chose (stable). Pids elsewhere (each step's and dump's pid) are not compared at all. */
static char *ret_text(cJSON *st, const struct side *sd)
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
	if (cJSON_IsString(ret))
		return stable(ret->valuestring, sd);
	return text_of(ret);
}

static void compare_steps(cJSON *diffs, cJSON *a, const struct side *ra, cJSON *b, const struct side *rb,
			  const struct compare_opts *o)
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
		char *rx = ret_text(x, ra), *ry = ret_text(y, rb);
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

static bool vma_reserved(cJSON *v, const struct side *sd)
{
	const char *rel = s_(v, "rel");
	long long pg;
	return rel && carveout_rel(rel, &pg) && in_reservation(pg, sd);
}

static bool vma_has_region(cJSON *v)
{
	cJSON *region = cJSON_GetObjectItemCaseSensitive(v, "region");
	return cJSON_IsString(region) || cJSON_IsArray(region);
}

/* A VMA as two runs of one scenario agree on it. Inside the reservation:
 * its bounds from the carveout ("carveout+1p..carveout+11p rw-p"), and the
 * state of its pages when with_state. A region the kernel placed outside
 * it is the scenario's too, its bounds taken from the first address the
 * kernel chose ("placed+0p..placed+3p rw-p"). The rest outside (a dump of
 * scope all) is anonremap's own process, its image, libraries, heap and
 * stack, whose place, size and page cache depend on anonremap's work and
 * not on the scenario: what it maps and its perms
 * ("/usr/lib/x86_64-linux-gnu/libc.so.6 r-xp", "anonymous rw-p"). */
static void vma_key(cJSON *v, const struct side *sd, char *buf, size_t len, bool with_state)
{
	const char *rel = s_(v, "rel"), *start = s_(v, "start"), *perms = s_(v, "perms");
	const char *state = with_state ? s_(v, "pages_state") : NULL, *name = s_(v, "name");
	int n;

	if (vma_reserved(v, sd)) {
		n = snprintf(buf, len, "%s", rel);
	} else if (rel && vma_has_region(v)) {
		char *st = stable(rel, sd);
		n = snprintf(buf, len, "%s", st);
		free(st);
	} else if (rel || start) {
		n = snprintf(buf, len, "%s", name && *name ? name : "anonymous");
		state = NULL;
	} else {
		n = snprintf(buf, len, "?");
	}
	if (n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - n, " %s%s%s", perms ? perms : "", state ? " " : "", state ? state : "");
}

/* The VMAs of a dump that are the scenario's, as vma_key tells them. */
static int scenario_vmas(cJSON *vmas, const struct side *sd)
{
	cJSON *v;
	int n = 0;
	cJSON_ArrayForEach(v, vmas)
		n += vma_reserved(v, sd) || vma_has_region(v);
	return n;
}

static bool has_vma(cJSON *vmas, const struct side *r, const char *key, bool with_state)
{
	cJSON *v;
	char k[512];
	cJSON_ArrayForEach(v, vmas) {
		vma_key(v, r, k, sizeof(k), with_state);
		if (!strcmp(k, key))
			return true;
	}
	return false;
}

static void compare_dumps(cJSON *diffs, cJSON *a, const struct side *ra, cJSON *b,
			  const struct side *rb)
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
		const char *scx = s_(x, "scope"), *scy = s_(y, "scope");
		if ((scx && !strcmp(scx, "all")) || (scy && !strcmp(scy, "all"))) {
			/* anonremap's own VMAs come and go with its allocations */
			char cx[24], cy[24];
			snprintf(cx, sizeof(cx), "%d", scenario_vmas(cJSON_GetObjectItem(x, "vmas"), ra));
			snprintf(cy, sizeof(cy), "%d", scenario_vmas(cJSON_GetObjectItem(y, "vmas"), rb));
			add_s(diffs, where, "vma_count of the scenario's", cx, cy);
		} else {
			add(diffs, where, "vma_count", cJSON_GetObjectItem(x, "vma_count"),
			    cJSON_GetObjectItem(y, "vma_count"));
		}
		cJSON *vx = cJSON_GetObjectItem(x, "vmas"), *vy = cJSON_GetObjectItem(y, "vmas"), *v;
		/* a VMA whose bounds and perms match on both sides differs, if at all, in its pages */
		cJSON_ArrayForEach(v, vx) {
			vma_key(v, ra, key, sizeof(key), false);
			if (!has_vma(vy, rb, key, false)) {
				add_s(diffs, where, "vma", key, "absent");
				continue;
			}
			vma_key(v, ra, key, sizeof(key), true);
			if (!has_vma(vy, rb, key, true)) {
				cJSON *w;
				char k2[512], kb[512];
				vma_key(v, ra, k2, sizeof(k2), false);
				cJSON_ArrayForEach(w, vy) {
					vma_key(w, rb, kb, sizeof(kb), false);
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
			vma_key(v, rb, key, sizeof(key), false);
			if (!has_vma(vx, ra, key, false))
				add_s(diffs, where, "vma", "absent", key);
		}
	}
}

static void compare_expects(cJSON *diffs, cJSON *a, const struct side *ra, cJSON *b, const struct side *rb)
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
		cJSON *fx = cJSON_GetObjectItem(x, "found"), *fy = cJSON_GetObjectItem(match, "found");
		if (cJSON_IsString(fx) && cJSON_IsString(fy)) {
			char *tx = stable(fx->valuestring, ra), *ty = stable(fy->valuestring, rb);
			add_s(diffs, where, "found", tx, ty);
			free(tx);
			free(ty);
		} else if (!cJSON_Compare(fx, fy, 1)) {
			add(diffs, where, "found", fx, fy);
		}
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
	struct side ra = side_of(a), rb = side_of(b);

	compare_steps(diffs, cJSON_GetObjectItem(a, "steps"), &ra, cJSON_GetObjectItem(b, "steps"), &rb, o);
	compare_dumps(diffs, cJSON_GetObjectItem(a, "dumps"), &ra, cJSON_GetObjectItem(b, "dumps"), &rb);
	compare_expects(diffs, cJSON_GetObjectItem(a, "expectations"), &ra, cJSON_GetObjectItem(b, "expectations"),
			&rb);
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
