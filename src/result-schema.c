/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The shape of a result file, checked once in result_load() before show,
 * diff, replay or the comparison engine touch it: every field those readers
 * use has the type they expect, so they may take a string as a string and a
 * count as a count. A result comes from anywhere (a mail, an edit, another
 * version), so a wrong type is a usage error naming the field by its JSON
 * path, not a crash later. Fields the readers never look at are not checked:
 * a newer writer may add any. */
#include "anonremap.h"
#include <limits.h>
#include <math.h>
#include <string.h>

enum {
	T_NULL = 1 << 0,
	T_BOOL = 1 << 1,
	T_NUM = 1 << 2,
	T_STR = 1 << 3,
	T_ARR = 1 << 4,
	T_OBJ = 1 << 5,
	/* a number used as a count or an index: an integer 0..INT_MAX (the
	 * readers print them with %.0f and compare them as step numbers) */
	T_COUNT = 1 << 6,
	/* a VMA's pages: a whole number a double holds exactly (an ASan
	 * shadow VMA alone is more than 2^31 pages) */
	T_PAGES = 1 << 7,
};

struct chk {
	const char *file;
	char path[768];
	struct err *err;
	bool bad;
};

static const char *type_name(const cJSON *v)
{
	if (cJSON_IsNull(v))
		return "null";
	if (cJSON_IsBool(v))
		return "a boolean";
	if (cJSON_IsNumber(v))
		return "a number";
	if (cJSON_IsString(v))
		return "a string";
	if (cJSON_IsArray(v))
		return "an array";
	return "an object";
}

static bool is_count(const cJSON *v)
{
	return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= INT_MAX &&
	       floor(v->valuedouble) == v->valuedouble;
}

static bool is_pages(const cJSON *v)
{
	return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= 9007199254740992.0 &&
	       floor(v->valuedouble) == v->valuedouble;
}

static bool has_type(const cJSON *v, unsigned types)
{
	return ((types & T_NULL) && cJSON_IsNull(v)) || ((types & T_BOOL) && cJSON_IsBool(v)) ||
	       ((types & T_NUM) && cJSON_IsNumber(v)) || ((types & T_STR) && cJSON_IsString(v)) ||
	       ((types & T_ARR) && cJSON_IsArray(v)) || ((types & T_OBJ) && cJSON_IsObject(v)) ||
	       ((types & T_COUNT) && is_count(v)) || ((types & T_PAGES) && is_pages(v));
}

/* "a string or null": the wording of the error message */
static void expected(char *buf, size_t len, unsigned types)
{
	static const struct {
		unsigned t;
		const char *name;
	} names[] = { { T_OBJ, "an object" },	{ T_ARR, "an array" },	 { T_STR, "a string" },
		      { T_COUNT, "an integer from 0 to 2147483647" },
		      { T_PAGES, "an integer from 0 to 2^53" }, { T_NUM, "a number" },
		      { T_BOOL, "a boolean" },	{ T_NULL, "null" } };
	size_t n = 0;
	buf[0] = 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (types & names[i].t)
			n++;
	for (size_t i = 0, k = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(types & names[i].t))
			continue;
		k++;
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", k == 1 ? "" : k == n ? " or " : ", ",
			 names[i].name);
	}
}

/* The path grows by one key or index; the caller puts back the old end. */
static size_t push_key(struct chk *c, const char *k)
{
	size_t old = strlen(c->path), n = old;
	if (n + 2 < sizeof(c->path))
		c->path[n++] = '.';
	/* keys come from the file: nothing unprintable goes into the message */
	for (; *k && n + 1 < sizeof(c->path); k++)
		c->path[n++] = (*k >= 0x20 && *k < 0x7f) ? *k : '?';
	c->path[n] = 0;
	return old;
}

static size_t push_index(struct chk *c, int i)
{
	size_t old = strlen(c->path);
	snprintf(c->path + old, sizeof(c->path) - old, "[%d]", i);
	return old;
}

static void pop(struct chk *c, size_t old)
{
	c->path[old] = 0;
}

static bool check(struct chk *c, const cJSON *v, unsigned types)
{
	char want[160];
	if (c->bad)
		return false;
	if (has_type(v, types))
		return true;
	expected(want, sizeof(want), types);
	c->bad = true;
	if ((types & (T_COUNT | T_PAGES)) && cJSON_IsNumber(v))
		err_set(c->err, "%s: %s: expected %s, got %g", c->file, *c->path ? c->path : ".", want, v->valuedouble);
	else
		err_set(c->err, "%s: %s: expected %s, got %s", c->file, *c->path ? c->path : ".", want,
			type_name(v));
	return false;
}

/* Field k of object o, when present, has one of the types: every member
 * named k in any case, since readers look keys up both with
 * cJSON_GetObjectItem (case-insensitive) and its case-sensitive twin, and a
 * duplicate key is found first by one and not the other. A required field
 * that is absent is an error. Returns the (first) member, or NULL. */
static cJSON *field(struct chk *c, const cJSON *o, const char *k, unsigned types, bool required)
{
	cJSON *v, *first = NULL;
	if (c->bad || !o)
		return NULL;
	cJSON_ArrayForEach(v, o) {
		if (!v->string || strcasecmp(v->string, k))
			continue;
		size_t old = push_key(c, k);
		bool ok = check(c, v, types);
		pop(c, old);
		if (!ok)
			return NULL;
		if (!first)
			first = v;
	}
	if (!first && required) {
		size_t old = push_key(c, k);
		c->bad = true;
		err_set(c->err, "%s: %s: missing: not a whole result (truncated?)", c->file, c->path);
		pop(c, old);
	}
	return first;
}

/* Field k is an array (or absent); each element is checked by each(). */
static void array_of(struct chk *c, const cJSON *o, const char *k, bool required, void (*each)(struct chk *, cJSON *))
{
	cJSON *a = field(c, o, k, T_ARR, required), *v;
	int i = 0;
	if (!a)
		return;
	size_t old = push_key(c, k);
	cJSON_ArrayForEach(v, a) {
		size_t o2 = push_index(c, i++);
		each(c, v);
		pop(c, o2);
		if (c->bad)
			break;
	}
	pop(c, old);
}

static void a_string(struct chk *c, cJSON *v)
{
	check(c, v, T_STR);
}

static void step_signal(struct chk *c, cJSON *s)
{
	field(c, s, "name", T_STR, false);
	field(c, s, "rel", T_STR, false);
	field(c, s, "addr", T_STR, false);
}

static void a_step(struct chk *c, cJSON *s)
{
	cJSON *args, *a;
	if (!check(c, s, T_OBJ))
		return;
	field(c, s, "index", T_COUNT, false);
	field(c, s, "op", T_STR, false);
	/* ret is an address (a string) or a number; ret_rel the address as the
	 * text writer prints it, carveout-relative */
	field(c, s, "ret", T_NUM | T_STR | T_NULL, false);
	field(c, s, "ret_rel", T_STR, false);
	field(c, s, "errno", T_STR | T_NULL, false);
	field(c, s, "duration_ns", T_NUM, false);
	field(c, s, "getpid_ns", T_NUM | T_NULL, false);
	field(c, s, "status", T_STR, false);
	field(c, s, "failure", T_STR, false);
	field(c, s, "error", T_STR, false);
	field(c, s, "pid", T_NUM | T_NULL, false);
	cJSON *sig = field(c, s, "signal", T_OBJ | T_NULL, false);
	if (cJSON_IsObject(sig)) {
		size_t old = push_key(c, "signal");
		step_signal(c, sig);
		pop(c, old);
	}
	args = field(c, s, "args", T_OBJ, false);
	if (!args)
		return;
	size_t old = push_key(c, "args");
	/* ADDR_rel is printed in place of ADDR: a string, whatever ADDR is */
	cJSON_ArrayForEach(a, args) {
		size_t kl = strlen(a->string);
		if (kl >= 4 && !strcasecmp(a->string + kl - 4, "_rel")) {
			size_t o2 = push_key(c, a->string);
			check(c, a, T_STR);
			pop(c, o2);
		}
	}
	pop(c, old);
}

static void region(struct chk *c, cJSON *v)
{
	cJSON *r = field(c, v, "region", T_STR | T_ARR | T_NULL, false), *it;
	int i = 0;
	if (!cJSON_IsArray(r))
		return;
	size_t old = push_key(c, "region");
	/* a list after a merge: the names of two regions or more */
	if (cJSON_GetArraySize(r) < 1) {
		c->bad = true;
		err_set(c->err, "%s: %s: expected the names of the merged regions, got an empty array", c->file,
			c->path);
	}
	cJSON_ArrayForEach(it, r) {
		size_t o2 = push_index(c, i++);
		bool ok = check(c, it, T_STR);
		pop(c, o2);
		if (!ok)
			break;
	}
	pop(c, old);
}

static void a_vma(struct chk *c, cJSON *v)
{
	if (!check(c, v, T_OBJ))
		return;
	field(c, v, "rel", T_STR, false);
	field(c, v, "start", T_STR, false);
	field(c, v, "end", T_STR, false);
	field(c, v, "perms", T_STR, false);
	/* null where pagemap could not be read ([vsyscall]: EFAULT), with
	 * pages_state_error saying why */
	field(c, v, "pages_state", T_STR | T_NULL, false);
	field(c, v, "name", T_STR, false);
	field(c, v, "pages", T_PAGES, false);
	region(c, v);
}

static void a_non_merge(struct chk *c, cJSON *v)
{
	if (!check(c, v, T_OBJ))
		return;
	field(c, v, "at", T_STR, false);
	field(c, v, "why", T_STR, false);
}

static void a_dump(struct chk *c, cJSON *d)
{
	if (!check(c, d, T_OBJ))
		return;
	field(c, d, "after_step", T_COUNT, false);
	field(c, d, "label", T_STR, false);
	field(c, d, "vma_count", T_COUNT, false);
	field(c, d, "pid", T_NUM | T_NULL, false);
	array_of(c, d, "vmas", false, a_vma);
	array_of(c, d, "non_merges", false, a_non_merge);
	cJSON *x = field(c, d, "xray", T_OBJ | T_NULL, false);
	if (cJSON_IsObject(x)) {
		size_t old = push_key(c, "xray");
		field(c, x, "available", T_BOOL, false);
		field(c, x, "why", T_STR, false);
		pop(c, old);
	}
}

static void an_expectation(struct chk *c, cJSON *e)
{
	if (!check(c, e, T_OBJ))
		return;
	field(c, e, "step", T_COUNT, false);
	field(c, e, "check", T_STR, false);
	field(c, e, "ok", T_BOOL, false);
	field(c, e, "expected", T_STR, false);
	field(c, e, "waited_ms", T_COUNT, false);
	/* found: any JSON; compared whole, printed only when a string */
}

static void a_scenario(struct chk *c, cJSON *sc)
{
	if (!check(c, sc, T_OBJ))
		return;
	field(c, sc, "name", T_STR, true);
	field(c, sc, "status", T_STR, true);
	field(c, sc, "reason", T_STR, false);
	field(c, sc, "file", T_STR, false);
	/* replay validates it as a scenario, as run does a file */
	field(c, sc, "scenario", T_OBJ, true);
	cJSON *co = field(c, sc, "carveout", T_OBJ | T_NULL, false);
	if (cJSON_IsObject(co)) {
		size_t old = push_key(c, "carveout");
		field(c, co, "pages", T_COUNT, false);
		field(c, co, "guard_pages", T_COUNT, false);
		pop(c, old);
	}
	array_of(c, sc, "steps", true, a_step);
	array_of(c, sc, "dumps", false, a_dump);
	array_of(c, sc, "expectations", false, an_expectation);
}

/* A cell of anonremap matrix: what diff reads of it. */
static void a_cell(struct chk *c, cJSON *v)
{
	if (!check(c, v, T_OBJ))
		return;
	field(c, v, "id", T_STR, true);
	field(c, v, "status", T_STR, true);
	for (int a = 0; a < MX_AXES; a++)
		field(c, v, matrix_axis_names[a], T_STR, false);
	field(c, v, "merged", T_STR, false);
	field(c, v, "errno", T_STR | T_NULL, false);
	field(c, v, "vmas", T_COUNT, false);
	field(c, v, "reason", T_STR, false);
	array_of(c, v, "layout", false, a_string);
	array_of(c, v, "why", false, a_string);
}

int result_check(const char *file, const cJSON *doc, struct err *err)
{
	struct chk c = { .file = file, .err = err };

	if (!check(&c, doc, T_OBJ))
		return -1;
	field(&c, doc, "version", T_STR, false);
	field(&c, doc, "summary_text", T_STR, false);
	field(&c, doc, "date", T_STR, false);
	array_of(&c, doc, "command_line", false, a_string);
	field(&c, doc, "settings", T_OBJ, false);
	cJSON *k = field(&c, doc, "kernel", T_OBJ, false);
	if (k) {
		size_t old = push_key(&c, "kernel");
		field(&c, k, "release", T_STR, false);
		field(&c, k, "features", T_OBJ, false);
		pop(&c, old);
	}
	cJSON *s = field(&c, doc, "summary", T_OBJ, false);
	if (s) {
		static const char *const counts[] = { "pass", "fail", "skip", "error" };
		size_t old = push_key(&c, "summary");
		for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
			field(&c, s, counts[i], T_COUNT, false);
		pop(&c, old);
	}
	array_of(&c, doc, "scenarios", true, a_scenario);
	cJSON *m = field(&c, doc, "matrix", T_OBJ, false);
	if (m) {
		size_t old = push_key(&c, "matrix");
		array_of(&c, m, "cases", true, a_cell);
		pop(&c, old);
	}
	return c.bad ? -1 : 0;
}
