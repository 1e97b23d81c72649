/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Load and validate a scenario: every error names file, step, op and field. */
#include "anonremap.h"
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <inttypes.h>

static void line_col(const char *buf, size_t off, int *line, int *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off; i++) {
		if (buf[i] == '\n') {
			(*line)++;
			*col = 1;
		} else if (((unsigned char)buf[i] & 0xc0) != 0x80) {
			(*col)++;
		}
	}
}

/* Offset of the first byte that is not valid UTF-8, or -1. */
static long utf8_invalid(const unsigned char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		unsigned c = s[i];
		int n;
		uint32_t cp;
		if (c < 0x80) {
			i++;
			continue;
		} else if ((c & 0xe0) == 0xc0) {
			n = 1;
			cp = c & 0x1f;
		} else if ((c & 0xf0) == 0xe0) {
			n = 2;
			cp = c & 0x0f;
		} else if ((c & 0xf8) == 0xf0) {
			n = 3;
			cp = c & 0x07;
		} else {
			return i;
		}
		for (int k = 1; k <= n; k++) {
			if (i + k >= len || (s[i + k] & 0xc0) != 0x80)
				return i;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
		    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return i;
		i += n + 1;
	}
	return -1;
}

int json_parse_located(const char *file, const char *buf, size_t len, cJSON **out, struct err *err)
{
	const char *end = NULL;
	int line, col;
	long bad;

	if (memchr(buf, 0, len)) {
		line_col(buf, (const char *)memchr(buf, 0, len) - buf, &line, &col);
		return err_set(err, "%s:%d:%d: NUL byte in the file", file, line, col);
	}
	bad = utf8_invalid((const unsigned char *)buf, len);
	if (bad >= 0) {
		line_col(buf, bad, &line, &col);
		return err_set(err, "%s:%d:%d: invalid UTF-8 (byte 0x%02x)", file, line, col,
			       (unsigned char)buf[bad]);
	}
	*out = cJSON_ParseWithLengthOpts(buf, len, &end, false);
	if (!*out) {
		/* cJSON says where it gave up; the scanner says where the mistake is */
		size_t off, open;
		const char *why;
		if (json_locate_error(buf, len, &off, &why, &open)) {
			/* fuzz (tests/fuzz/crashes/scenario): an empty or blank text has no
			 * open bracket to name; buf[open] was read past an empty buffer */
			if (!why && (open >= len || (buf[open] != '{' && buf[open] != '['))) {
				line_col(buf, len, &line, &col);
				return err_set(err, "%s:%d:%d: invalid JSON: the file is empty or blank", file, line, col);
			}
			if (!why) {
				int ol, oc;
				line_col(buf, open, &ol, &oc);
				line_col(buf, len, &line, &col);
				return err_set(err, "%s:%d:%d: invalid JSON: unexpected end of input (the '%c' at %d:%d is not closed)",
					       file, line, col, buf[open], ol, oc);
			}
			line_col(buf, off, &line, &col);
			return err_set(err, "%s:%d:%d: invalid JSON: %s", file, line, col, why);
		}
		off = end ? (size_t)(end - buf) : 0;
		if (off > len)
			off = len;
		line_col(buf, off, &line, &col);
		return err_set(err, "%s:%d:%d: invalid JSON (%s)", file, line, col,
			       len && off >= len ? "unexpected end of input" : "cJSON refused it here");
	}
	size_t off = end - buf;
	while (off < len && isspace((unsigned char)buf[off]))
		off++;
	if (off < len) {
		cJSON_Delete(*out);
		*out = NULL;
		line_col(buf, off, &line, &col);
		return err_set(err, "%s:%d:%d: invalid JSON: data after the end of the object", file, line, col);
	}
	size_t first;
	if (json_find_duplicate(buf, len, &off, &first)) {
		cJSON_Delete(*out);
		*out = NULL;
		int fl, fc;
		line_col(buf, off, &line, &col);
		line_col(buf, first, &fl, &fc);
		/* the key as written, to its closing quote (the scanner passed it) */
		size_t kl = 1;
		while (off + kl < len && buf[off + kl] != '"')
			kl += buf[off + kl] == '\\' ? 2 : 1;
		char key[72];
		snprintf(key, sizeof(key), "%.*s%s", (int)(kl < 64 ? kl + 1 : 64), buf + off, kl < 64 ? "" : "...");
		err_set(err, "%s:%d:%d: invalid JSON: duplicate key %s (the first is at %d:%d)", file, line, col,
			esc_text(key), fl, fc);
		esc_release();
		return -1;
	}
	return 0;
}

/* A JSON number that is an exact integer in [lo, hi]. */
static int json_int(const cJSON *v, double lo, double hi, int64_t *out)
{
	double d = v->valuedouble;

	if (!cJSON_IsNumber(v) || !isfinite(d) || d != floor(d) || d < lo || d > hi)
		return -1;
	*out = (int64_t)d;
	return 0;
}

#define MAX_EXACT 9007199254740992.0 /* 2^53: doubles are exact up to here */

/* Numbers given as strings: decimal or hex, with a sign for FT_INT. */
static int str_number(const char *s, uint64_t *out)
{
	char *end;

	if (!*s || !(isdigit((unsigned char)*s)))
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

static bool prot_letters(const char *s, uint64_t *out)
{
	uint64_t p = 0;

	if (!strcasecmp(s, "none")) {
		*out = 0;
		return true;
	}
	for (const char *c = s; *c; c++) {
		if (*c == 'r')
			p |= 1; /* PROT_READ */
		else if (*c == 'w')
			p |= 2; /* PROT_WRITE */
		else if (*c == 'x')
			p |= 4; /* PROT_EXEC */
		else
			return false;
	}
	*out = p;
	return *s != 0;
}

static int one_name(const struct xlat_table *t, const char *s, uint64_t *out, struct err *err)
{
	if (!str_number(s, out))
		return 0;
	if (!xlat_lookup(t, s, out))
		return 0;
	const char *near = xlat_nearest(t, s);
	if (near)
		return err_set(err, "unknown %s '%s' (did you mean '%s'?)", t->kind, s, near);
	return err_set(err, "unknown %s '%s'", t->kind, s);
}

static int parse_mask(const struct xlat_table *t, const cJSON *v, uint64_t *out, struct err *err)
{
	int64_t i;

	*out = 0;
	if (cJSON_IsNumber(v)) {
		if (json_int(v, 0, MAX_EXACT, &i))
			return err_set(err, "not a non-negative integer below 2^53 (write larger values as a \"0x...\" string)");
		*out = i;
		return 0;
	}
	if (cJSON_IsString(v)) {
		if (t == &xlat_mmap_prot && prot_letters(v->valuestring, out))
			return 0;
		char *copy = xstrdup(v->valuestring), *save = NULL;
		int rc = 0;
		bool any = false;
		for (char *tok = strtok_r(copy, "|,", &save); tok; tok = strtok_r(NULL, "|,", &save)) {
			while (isspace((unsigned char)*tok))
				tok++;
			char *e = tok + strlen(tok);
			while (e > tok && isspace((unsigned char)e[-1]))
				*--e = 0;
			uint64_t bit;
			if ((rc = one_name(t, tok, &bit, err)))
				break;
			*out |= bit;
			any = true;
		}
		free(copy);
		if (!rc && !any)
			return err_set(err, "empty %s list", t->kind);
		return rc;
	}
	if (cJSON_IsArray(v)) {
		const cJSON *it;
		cJSON_ArrayForEach(it, v) {
			uint64_t bit;
			if (cJSON_IsNumber(it)) {
				if (json_int(it, 0, MAX_EXACT, &i))
					return err_set(err, "list item is not a non-negative integer");
				bit = i;
			} else if (!cJSON_IsString(it)) {
				return err_set(err, "list items must be names or numbers");
			} else if (one_name(t, it->valuestring, &bit, err)) {
				return -1;
			}
			*out |= bit;
		}
		return 0;
	}
	return err_set(err, "expected a list of %s names, a name or a number", t->kind);
}

int scenario_parse_mask(const struct xlat_table *t, const cJSON *v, uint64_t *out, struct err *err)
{
	return parse_mask(t, v, out, err);
}

/* A value as wide as the kernel's argument reads it: a wider one would run
 * as another value (0x100000064 as an int advice is MADV_HWPOISON). */
static int fits_kernel(const struct xlat_table *t, uint64_t v, struct err *err)
{
	if (t->max && v > t->max)
		return err_set(err, "%#" PRIx64 " does not fit the kernel's %s argument (at most %#" PRIx64 ")",
			       v, t->kind, t->max);
	return 0;
}

static int parse_value(const struct xlat_table *t, const cJSON *v, uint64_t *out, struct err *err)
{
	int64_t i;

	if (cJSON_IsNumber(v)) {
		if (json_int(v, 0, MAX_EXACT, &i))
			return err_set(err, "not a non-negative integer");
		*out = i;
		return 0;
	}
	if (cJSON_IsString(v))
		return one_name(t, v->valuestring, out, err);
	return err_set(err, "expected a %s name or a number", t->kind);
}

static int parse_size_json(const cJSON *v, uint64_t *out, struct err *err)
{
	int64_t i;

	if (cJSON_IsNumber(v)) {
		if (v->valuedouble < 0)
			return err_set(err, "negative size");
		if (json_int(v, 0, MAX_EXACT, &i))
			return err_set(err, "not an integer below 2^53 (write larger sizes as strings: \"2g\")");
		*out = i;
		return 0;
	}
	if (!cJSON_IsString(v))
		return err_set(err, "expected a size (\"5p\", \"2m\", \"0x5000\" or a number)");
	return size_parse(v->valuestring, out, err);
}

/* FNV-1a: a string pattern seed stands for the same number everywhere. */
static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h & ((1ull << 53) - 1);
}

static int parse_field(struct scenario *sc, const struct op_entry *op, enum field_id id,
		       const cJSON *v, struct fval *fv, struct err *err)
{
	const struct field_def *fd = &field_defs[id];
	const struct op_field *of = op_field(op, id);
	int64_t i;
	int n;

	fv->set = true;
	/* fork's name is a process's, not a region's */
	if (fd->type == FT_PROC || (id == FLD_NAME && !strcmp(op->name, "fork"))) {
		if (!cJSON_IsString(v) || !name_valid(v->valuestring))
			return err_set(err, "expected a process name (letters, digits, '_')");
		fv->s = xstrdup(v->valuestring);
		return 0;
	}
	switch (fd->type) {
	case FT_ADDR:
		if (id == FLD_RET && cJSON_IsNumber(v)) { /* a number: the call's plain return value */
			if (json_int(v, 0, MAX_EXACT, &i))
				return err_set(err, "expected a non-negative integer or an address expression");
			fv->e = xcalloc(1, sizeof(struct expr));
			fv->e->n = 1;
			fv->e->t[0].kind = TERM_NUM;
			fv->e->t[0].num = (uint64_t)i;
			return 0;
		}
		if (!cJSON_IsString(v))
			return err_set(err, "expected an address expression string (\"carveout+1p\", \"ptr+5p\")");
		fv->e = xcalloc(1, sizeof(struct expr));
		return expr_parse(v->valuestring, &sc->names, fv->e, err);
	case FT_ADDR2:
		if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2 ||
		    !cJSON_IsString(cJSON_GetArrayItem(v, 0)) || !cJSON_IsString(cJSON_GetArrayItem(v, 1)))
			return err_set(err, "expected two address expressions: [\"ptr\", \"ptr2\"]");
		fv->e = xcalloc(2, sizeof(struct expr));
		for (int k = 0; k < 2; k++)
			if (expr_parse(cJSON_GetArrayItem(v, k)->valuestring, &sc->names, &fv->e[k], err))
				return -1;
		return 0;
	case FT_RANGES: {
		/* [["ptr", "1p"], ["ptr+9p", "1p"]]: an address and a length each */
		int k = cJSON_IsArray(v) ? cJSON_GetArraySize(v) : 0;
		if (k < 1 || k > VEC_MAX)
			return err_set(err, "expected 1 to %d ranges, each [address, length]: [[\"ptr\", \"1p\"]]", VEC_MAX);
		fv->e = xcalloc(2 * (size_t)k, sizeof(struct expr));
		fv->i = k;
		for (int q = 0; q < k; q++) {
			const cJSON *r = cJSON_GetArrayItem(v, q);
			if (!cJSON_IsArray(r) || cJSON_GetArraySize(r) != 2 || !cJSON_IsString(cJSON_GetArrayItem(r, 0)))
				return err_set(err, "range %d: expected [address, length]", q);
			if (expr_parse(cJSON_GetArrayItem(r, 0)->valuestring, &sc->names, &fv->e[2 * q], err))
				return -1;
			uint64_t len;
			struct err e2;
			if (parse_size_json(cJSON_GetArrayItem(r, 1), &len, &e2))
				return err_set(err, "range %d: length: %s", q, e2.msg);
			fv->e[2 * q + 1].n = 1;
			fv->e[2 * q + 1].t[0].kind = TERM_NUM;
			fv->e[2 * q + 1].t[0].num = len;
		}
		return 0;
	}
	case FT_SIZE:
		return parse_size_json(v, &fv->u, err);
	case FT_MASK:
		return parse_mask(of->xlat, v, &fv->u, err) || fits_kernel(of->xlat, fv->u, err) ? -1 : 0;
	case FT_VALUE:
		return parse_value(of->xlat, v, &fv->u, err) || fits_kernel(of->xlat, fv->u, err) ? -1 : 0;
	case FT_NEWNAME:
	case FT_REGION:
		if (!cJSON_IsString(v) || !name_valid(v->valuestring))
			return err_set(err, "expected a region name (letters, digits, '_'; not carveout, guard or a unit)");
		fv->s = xstrdup(v->valuestring);
		if (names_intern(&sc->names, fv->s) < 0)
			return err_set(err, "more than %d region names", MAX_REGIONS);
		return 0;
	case FT_BOOL:
		if (!cJSON_IsBool(v))
			return err_set(err, "expected true or false");
		fv->u = cJSON_IsTrue(v);
		return 0;
	case FT_INT:
		if (cJSON_IsString(v)) {
			const char *s = v->valuestring;
			bool neg = *s == '-';
			uint64_t u;
			if (str_number(s + neg, &u) || u > INT64_MAX)
				return err_set(err, "expected an integer");
			fv->i = neg ? -(int64_t)u : (int64_t)u;
			return 0;
		}
		if (json_int(v, -MAX_EXACT, MAX_EXACT, &i))
			return err_set(err, "expected an integer");
		fv->i = i;
		return 0;
	case FT_ERRNO:
		if (cJSON_IsString(v) && !strcmp(v->valuestring, "any")) {
			fv->u = 0; /* must fail, whatever the errno */
			return 0;
		}
		if (cJSON_IsNumber(v)) {
			if (json_int(v, 1, 4095, &i))
				return err_set(err, "expected an errno name or a number from 1 to 4095");
			fv->u = i;
			return 0;
		}
		if (!cJSON_IsString(v) || errno_lookup(v->valuestring, &n))
			return err_set(err, "unknown errno '%s'", cJSON_IsString(v) ? v->valuestring : "?");
		fv->u = n;
		return 0;
	case FT_SIGNAL:
		if (cJSON_IsNumber(v)) {
			if (json_int(v, 1, 64, &i))
				return err_set(err, "expected a signal name or number");
			fv->u = i;
			return 0;
		}
		if (!cJSON_IsString(v) || signal_lookup(v->valuestring, &n))
			return err_set(err, "unknown signal '%s'", cJSON_IsString(v) ? v->valuestring : "?");
		fv->u = n;
		return 0;
	case FT_STR:
		if (!cJSON_IsString(v))
			return err_set(err, "expected a string");
		fv->s = xstrdup(v->valuestring);
		return 0;
	case FT_ENUM:
		if (cJSON_IsString(v))
			for (int k = 0; fd->choices[k]; k++)
				if (!strcmp(fd->choices[k], v->valuestring)) {
					fv->s = xstrdup(v->valuestring);
					return 0;
				}
		{
			char all[128] = "";
			for (int k = 0; fd->choices[k]; k++)
				snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s%s", k ? ", " : "",
					 fd->choices[k]);
			return err_set(err, "expected one of: %s", all);
		}
	case FT_PROC:
		break; /* above */
	case FT_BYTE:
		if (cJSON_IsString(v) && strlen(v->valuestring) == 1) {
			fv->u = (unsigned char)v->valuestring[0];
			return 0;
		}
		if (!cJSON_IsNumber(v) || json_int(v, 0, 255, &i))
			return err_set(err, "expected one character (\"x\") or a number from 0 to 255");
		fv->u = i;
		return 0;
	case FT_VMFLAGS: {
		/* kept as "+gu -nr": the two-letter mnemonics smaps prints */
		char buf[256] = "";
		const cJSON *k;
		if (!cJSON_IsObject(v) || !cJSON_GetArraySize(v))
			return err_set(err, "expected {\"has\": [\"gu\"], \"lacks\": [\"nr\"]}");
		cJSON_ArrayForEach(k, v) {
			bool has = !strcmp(k->string, "has");
			if (!has && strcmp(k->string, "lacks"))
				return err_set(err, "'%s': expected has or lacks", k->string);
			if (!cJSON_IsArray(k))
				return err_set(err, "%s: expected a list of VmFlags mnemonics", k->string);
			const cJSON *m;
			cJSON_ArrayForEach(m, k) {
				const char *t = cJSON_GetStringValue(m);
				if (!t || strlen(t) != 2 || t[0] < 'a' || t[0] > 'z' || t[1] < 'a' || t[1] > 'z')
					return err_set(err, "%s: expected two-letter VmFlags mnemonics such as \"gu\"",
						       k->string);
				if (strlen(buf) + 5 > sizeof(buf))
					return err_set(err, "%s: too many mnemonics", k->string);
				snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%c%s", *buf ? " " : "",
					 has ? '+' : '-', t);
			}
		}
		fv->s = xstrdup(buf);
		return 0;
	}
	case FT_PATTERN:
		if (cJSON_IsNumber(v)) {
			if (json_int(v, 0, MAX_EXACT, &i))
				return err_set(err, "expected a non-negative integer seed, a string, or \"zero\"");
			fv->u = i;
			return 0;
		}
		if (!cJSON_IsString(v) || !*v->valuestring)
			return err_set(err, "expected a non-negative integer seed, a string, or \"zero\"");
		fv->s = xstrdup(v->valuestring);
		if (!strcmp(fv->s, "zero") && op != op_find("verify"))
			return err_set(err, "\"zero\" is a verify pattern");
		fv->u = hash_str(fv->s);
		return 0;
	}
	return err_set(err, "internal: field type");
}

/* Where each region sits, relative to the carveout, as far as can be told
 * before running: kernel-chosen places are unknown and not range-checked. */
struct sim {
	struct procs procs;
	bool bound[MAX_PROCS][MAX_REGIONS]; /* per process: a fork copies its parent's */
	bool known[MAX_REGIONS];
	__int128 rel[MAX_REGIONS];
	uint64_t len[MAX_REGIONS];
};

/* The carveout-relative value of an expression: 1 known, 0 unknown, -1 absolute. */
static int sim_eval(const struct sim *s, const struct expr *e, __int128 *out)
{
	__int128 c;
	expr_const(e, &c);
	for (int i = 0; i < e->n; i++) {
		if (e->t[i].kind == TERM_CARVEOUT) {
			*out = c;
			return 1;
		}
		if (e->t[i].kind == TERM_REGION) {
			if (!s->known[e->t[i].region])
				return 0;
			*out = s->rel[e->t[i].region] + c;
			return 1;
		}
	}
	*out = c;
	return -1;
}

static int check_range(const struct scenario *sc, const struct load_opts *o, const struct sim *s,
		       const struct expr *e, uint64_t len, const char *what, struct err *err)
{
	__int128 rel;
	int k = sim_eval(s, e, &rel);
	__int128 lo = -(__int128)sc->guard, hi = (__int128)sc->size + sc->guard;

	if (o->allow_outside || sc->allow_outside || k == 0)
		return 0;
	if (k < 0)
		return err_set(err, "%s: an absolute address is outside the reserved area (use --allow-outside)", what);
	if (rel < lo || rel + len > hi)
		return err_set(err, "%s: range leaves the reserved area (carveout and guards: carveout-%llup..carveout+%llup); use --allow-outside",
			       what, (unsigned long long)(sc->guard / kinfo.page_size),
			       (unsigned long long)((sc->size + sc->guard) / kinfo.page_size));
	return 0;
}

/* Region ri is not bound in process in: say so, naming a process it is bound in. */
static int unbound(const struct scenario *sc, const struct sim *s, int in, int ri, enum field_id f,
		   struct err *err)
{
	for (int p = 0; p < s->procs.n; p++)
		if (s->bound[p][ri])
			return err_set(err, "%s: region '%s' is bound in process '%s', not in '%s'", field_defs[f].key,
				       sc->names.name[ri], s->procs.name[p], s->procs.name[in]);
	return err_set(err, "%s: region '%s' is not bound by an earlier mmap or mremap", field_defs[f].key,
		       sc->names.name[ri]);
}

static int check_refs(const struct scenario *sc, const struct sim *s, int in, const struct step *st,
		      struct err *err)
{
	for (int f = 0; f < FLD__COUNT; f++) {
		const struct fval *fv = &st->f[f];
		if (!fv->set)
			continue;
		if (field_defs[f].type == FT_REGION && !s->bound[in][names_find(&sc->names, fv->s)])
			return unbound(sc, s, in, names_find(&sc->names, fv->s), f, err);
		int ne = field_defs[f].type == FT_ADDR ? 1 : field_defs[f].type == FT_ADDR2 ? 2
			 : field_defs[f].type == FT_RANGES ? 2 * (int)fv->i : 0;
		for (int k = 0; k < ne; k++)
			for (int t = 0; t < fv->e[k].n; t++)
				if (fv->e[k].t[t].kind == TERM_REGION && !s->bound[in][fv->e[k].t[t].region])
					return unbound(sc, s, in, fv->e[k].t[t].region, f, err);
	}
	return 0;
}

/* Type-independent rules, and the simulated placement of regions. */
static int check_step(struct scenario *sc, const struct load_opts *o, struct sim *s,
		      struct step *st, struct err *err)
{
	const struct op_entry *op = st->op;
	struct fval *f = st->f;

	/* the process the step goes to, as a run will pick it */
	int in = procs_resolve(&s->procs, f[FLD_IN].set ? f[FLD_IN].s : NULL, err);
	if (in < 0)
		return -1;
	if (check_refs(sc, s, in, st, err))
		return -1;
	if (op->check && op->check(sc, st, err))
		return -1;
	if (f[FLD_ERRNO].set && f[FLD_MAY_FAIL].set)
		return err_set(err, "errno: cannot be combined with may_fail");
	if (f[FLD_RET].set && (f[FLD_ERRNO].set || f[FLD_SIGNAL].set))
		return err_set(err, "ret: a call that must %s returns nothing to compare",
			       f[FLD_ERRNO].set ? "fail" : "raise a signal");
	if (f[FLD_FILL].set && f[FLD_PATTERN].set)
		return err_set(err, "fill: give either 'fill' or 'pattern'");
	if (f[FLD_FILL].set && f[FLD_ACCESS].set && !strcmp(f[FLD_ACCESS].s, "read"))
		return err_set(err, "fill: writes the range, so it cannot go with access=read");
	bool ranged = op_has_field(op, FLD_REGION) && op_has_field(op, FLD_AT) &&
		      !(op->rangeless && op->rangeless(st));
	if (ranged) {
		if (f[FLD_AT].set == f[FLD_REGION].set)
			return err_set(err, "%s: give either 'at' or 'region'", f[FLD_AT].set ? "at" : "region");
		bool need_len = op_has_field(op, FLD_LEN) && strcmp(op->name, "fault") && strcmp(op->name, "verify");
		if (f[FLD_AT].set && need_len && !f[FLD_LEN].set)
			return err_set(err, "len: required with 'at'");
		if (f[FLD_AT].set && op_has_field(op, FLD_OLD_LEN) && !f[FLD_OLD_LEN].set)
			return err_set(err, "old_len: required with 'at'");
	}
	if (!strcmp(op->name, "mmap") && !f[FLD_LEN].u && !f[FLD_ERRNO].set && !(f[FLD_MAY_FAIL].set && f[FLD_MAY_FAIL].u))
		return err_set(err, "len: zero (the kernel refuses it: say errno EINVAL to test that)");
	if (f[FLD_PATTERN].set && f[FLD_ACCESS].set && !strcmp(f[FLD_ACCESS].s, "read"))
		return err_set(err, "pattern: writes the range, so it cannot go with access=read");
	if (trust_check(st, o->allow_dangerous, err))
		return -1;
	if (!strcmp(op->name, "fork")) {
		char nm[MAX_NAME];
		if (procs_fork_name(&s->procs, f[FLD_NAME].set ? f[FLD_NAME].s : NULL, nm, err))
			return -1;
		if (!f[FLD_ERRNO].set) { /* a fork that must fail makes no process */
			int k = procs_add(&s->procs, in, nm);
			memcpy(s->bound[k], s->bound[in], sizeof(s->bound[k]));
		}
		sc->forks++;
	}
	if (!strcmp(op->name, "exit")) {
		if (procs_may_exit(&s->procs, in, err))
			return -1;
		s->procs.alive[in] = false;
	}

	/* placement */
	uint64_t len = f[FLD_LEN].set ? f[FLD_LEN].u : kinfo.page_size;
	const struct expr *where = f[FLD_AT].set ? f[FLD_AT].e : NULL;
	struct expr tmp;
	if (f[FLD_REGION].set) {
		int ri = names_find(&sc->names, f[FLD_REGION].s);
		memset(&tmp, 0, sizeof(tmp));
		tmp.n = 1;
		tmp.t[0].kind = TERM_REGION;
		tmp.t[0].region = ri;
		where = &tmp;
		if (!f[FLD_LEN].set && strcmp(op->name, "fault"))
			len = s->len[ri];
	}
	if (!strcmp(op->name, "mremap") && f[FLD_OLD_LEN].set)
		len = f[FLD_OLD_LEN].u;
	bool sys = op->exec != NULL && strcmp(op->name, "fork") && strcmp(op->name, "prctl") &&
		   strcmp(op->name, "pause");
	if (sys && where && check_range(sc, o, s, where, len, f[FLD_AT].set ? "at" : "region", err))
		return -1;
	for (int k = 0; f[FLD_VEC].set && k < (int)f[FLD_VEC].i; k++) /* process_madvise's ranges */
		if (check_range(sc, o, s, &f[FLD_VEC].e[2 * k], f[FLD_VEC].e[2 * k + 1].t[0].num, "vec", err))
			return -1;

	bool may = f[FLD_MAY_FAIL].set && f[FLD_MAY_FAIL].u;
	bool fails = f[FLD_ERRNO].set;
	if (!strcmp(op->name, "mmap") && f[FLD_NAME].set) {
		int ri = names_find(&sc->names, f[FLD_NAME].s);
		if (!fails) {
			__int128 rel = 0;
			int k = where ? sim_eval(s, where, &rel) : 0;
			/* MAP_FIXED or MAP_FIXED_NOREPLACE: the region is where 'at' says */
			bool fixed = !f[FLD_FLAGS].set || (f[FLD_FLAGS].u & (0x10 | 0x100000));
			s->bound[in][ri] = true;
			s->known[ri] = k > 0 && fixed && !may;
			s->rel[ri] = rel;
			s->len[ri] = len;
		}
	}
	if (!strcmp(op->name, "mremap")) {
		uint64_t new_len = f[FLD_NEW_LEN].set ? f[FLD_NEW_LEN].u : len;
		if (f[FLD_TO].set && check_range(sc, o, s, f[FLD_TO].e, new_len, "to", err))
			return -1;
		const char *nm = f[FLD_NAME].set ? f[FLD_NAME].s : f[FLD_REGION].set ? f[FLD_REGION].s : NULL;
		if (nm && !fails) {
			int ri = names_find(&sc->names, nm);
			__int128 rel = 0;
			bool fixed = f[FLD_FLAGS].u & 2; /* MREMAP_FIXED */
			int k = 0;
			if (fixed && f[FLD_TO].set)
				k = sim_eval(s, f[FLD_TO].e, &rel);
			else if (!(f[FLD_FLAGS].u & 1)) /* stays in place without MAYMOVE */
				k = sim_eval(s, where, &rel);
			s->bound[in][ri] = true;
			s->known[ri] = k > 0 && !may;
			s->rel[ri] = rel;
			s->len[ri] = new_len;
		}
	}
	return 0;
}

static int parse_step(struct scenario *sc, const char *file, const cJSON *js, int idx,
		      struct step *st, struct err *err)
{
	struct err e2;
	const cJSON *opv = cJSON_GetObjectItemCaseSensitive(js, "op");

	st->index = idx;
	st->json = js;
	if (!cJSON_IsObject(js))
		return err_set(err, "%s: step %d: expected an object", file, idx);
	if (!cJSON_IsString(opv))
		return err_set(err, "%s: step %d: op: missing (a string: mmap, mremap, ...)", file, idx);
	st->op = op_find(opv->valuestring);
	if (!st->op) {
		char why[400];
		op_unknown(opv->valuestring, why, sizeof(why));
		return err_set(err, "%s: step %d: op: %s", file, idx, why);
	}
	const cJSON *kv;
	cJSON_ArrayForEach(kv, js) {
		if (!strcmp(kv->string, "op"))
			continue;
		int id = field_find(kv->string);
		if (id < 0 || !op_has_field(st->op, id)) {
			const char *near = field_nearest(st->op, kv->string);
			return err_set(err, "%s: step %d (%s): %s: unknown field for %s%s%s%s", file, idx,
				       st->op->name, kv->string, st->op->name, near ? " (did you mean '" : "",
				       near ? near : "", near ? "'?)" : "");
		}
		if (st->f[id].set)
			return err_set(err, "%s: step %d (%s): %s: given twice", file, idx, st->op->name, kv->string);
		if (parse_field(sc, st->op, id, kv, &st->f[id], &e2))
			return err_set(err, "%s: step %d (%s): %s: %s", file, idx, st->op->name, kv->string, e2.msg);
	}
	for (const struct op_field *of = st->op->fields; of->id != FLD__COUNT; of++)
		if (of->required && !st->f[of->id].set)
			return err_set(err, "%s: step %d (%s): %s: required", file, idx, st->op->name,
				       field_defs[of->id].key);
	return 0;
}

/* "FILE: step N (op): field: msg" becomes "FILE:LINE: op: field: msg" for the text form. */
static void relocate_error(struct err *err, const char *file, int idx, int line)
{
	char prefix[300], m[sizeof(err->msg)];
	snprintf(prefix, sizeof(prefix), "%s: step %d", file, idx);
	size_t pl = strlen(prefix);
	if (strncmp(err->msg, prefix, pl))
		return;
	const char *rest = err->msg + pl;
	if (*rest == ' ' && rest[1] == '(') {
		const char *close = strchr(rest, ')');
		snprintf(m, sizeof(m), "%.*s%s", (int)(close - rest - 2), rest + 2, close + 1);
	} else {
		snprintf(m, sizeof(m), "%s", rest[0] == ':' ? rest + 2 : rest);
	}
	err_set(err, "%s:%d: %s", file, line, m);
}

static int parse_carveout(struct scenario *sc, const char *file, const cJSON *c,
			  const struct load_opts *o, struct err *err)
{
	struct err e2;
	const cJSON *kv;

	sc->size = DEFAULT_PAGES * kinfo.page_size;
	sc->align = kinfo.page_size;
	sc->guard = DEFAULT_GUARD;
	sc->fill = true;
	if (c && !cJSON_IsObject(c))
		return err_set(err, "%s: carveout: expected an object", file);
	cJSON_ArrayForEach(kv, c) {
		if (!strcmp(kv->string, "size") || !strcmp(kv->string, "guard")) {
			uint64_t v;
			if (parse_size_json(kv, &v, &e2))
				return err_set(err, "%s: carveout: %s: %s", file, kv->string, e2.msg);
			if (!v || v % kinfo.page_size || v > (1ull << 46))
				return err_set(err, "%s: carveout: %s: must be a non-zero multiple of the page size, at most 64 TiB",
					       file, kv->string);
			*(kv->string[0] == 's' ? &sc->size : &sc->guard) = v;
		} else if (!strcmp(kv->string, "align")) {
			uint64_t v = 0;
			if (cJSON_IsString(kv) && !strcmp(kv->valuestring, "page"))
				v = kinfo.page_size;
			else if (parse_size_json(kv, &v, &e2))
				return err_set(err, "%s: carveout: align: %s", file, e2.msg);
			if (!v || (v & (v - 1)) || v < kinfo.page_size || v > (1ull << 40))
				return err_set(err, "%s: carveout: align: must be a power of two from a page to 1 TiB", file);
			sc->align = v;
		} else if (!strcmp(kv->string, "fill")) {
			if (!cJSON_IsBool(kv))
				return err_set(err, "%s: carveout: fill: expected true or false", file);
			sc->fill = cJSON_IsTrue(kv);
		} else {
			return err_set(err, "%s: carveout: %s: unknown field (size, align, guard, fill)", file, kv->string);
		}
	}
	if (o->guard)
		sc->guard = o->guard;
	return 0;
}

int scenario_from_json(const char *file, cJSON *json, const struct load_opts *o,
		       struct scenario **out, struct err *err)
{
	struct scenario *sc = xcalloc(1, sizeof(*sc));
	const cJSON *kv, *steps = NULL, *carve = NULL;
	struct sim *sim = NULL;

	sc->file = xstrdup(file);
	sc->json = json;
	*out = NULL;
	if (!cJSON_IsObject(json)) {
		err_set(err, "%s: expected a JSON object", file);
		goto fail;
	}
	cJSON_ArrayForEach(kv, json) {
		const char *k = kv->string;
		if (cJSON_GetObjectItemCaseSensitive(json, k) != kv) {
			err_set(err, "%s: %s: given twice", file, k);
			goto fail;
		}
		if (!strcmp(k, "anonremap")) {
			if (!cJSON_IsNumber(kv) || kv->valuedouble != FORMAT_VERSION) {
				err_set(err, "%s: anonremap: format version must be %d", file, FORMAT_VERSION);
				goto fail;
			}
		} else if (!strcmp(k, "name") || !strcmp(k, "description") || !strcmp(k, "source") ||
			   !strcmp(k, "variant")) {
			if (!cJSON_IsString(kv)) {
				err_set(err, "%s: %s: expected a string", file, k);
				goto fail;
			}
		} else if (!strcmp(k, "requires") || !strcmp(k, "tags")) {
			const cJSON *it;
			if (!cJSON_IsArray(kv)) {
				err_set(err, "%s: %s: expected a list of strings", file, k);
				goto fail;
			}
			cJSON_ArrayForEach(it, kv) {
				if (!cJSON_IsString(it)) {
					err_set(err, "%s: %s: expected a list of strings", file, k);
					goto fail;
				}
				if (k[0] == 'r') {
					int fi = feature_find(it->valuestring);
					if (fi < 0) {
						err_set(err, "%s: requires: unknown feature '%s'", file, it->valuestring);
						goto fail;
					}
					sc->requires |= 1u << fi;
				}
			}
		} else if (!strcmp(k, "carveout")) {
			carve = kv;
		} else if (!strcmp(k, "allow_outside")) {
			if (!cJSON_IsBool(kv)) {
				err_set(err, "%s: allow_outside: expected true or false", file);
				goto fail;
			}
			sc->allow_outside = cJSON_IsTrue(kv);
		} else if (!strcmp(k, "steps")) {
			steps = kv;
		} else {
			err_set(err, "%s: %s: unknown field (anonremap, name, description, source, requires, tags, carveout, allow_outside, params, variants, steps)",
				file, k);
			goto fail;
		}
	}
	if (!cJSON_GetObjectItemCaseSensitive(json, "anonremap")) {
		err_set(err, "%s: anonremap: missing (the format version, 1)", file);
		goto fail;
	}
	if (!cJSON_IsArray(steps)) {
		err_set(err, "%s: steps: missing (a list of steps)", file);
		goto fail;
	}
	if (parse_carveout(sc, file, carve, o, err))
		goto fail;
	const cJSON *nm = cJSON_GetObjectItemCaseSensitive(json, "name");
	if (nm) {
		sc->name = xstrdup(nm->valuestring);
	} else {
		const char *b = strrchr(file, '/');
		sc->name = xstrdup(b ? b + 1 : file);
		char *dot = strrchr(sc->name, '.');
		if (dot && dot != sc->name)
			*dot = 0;
	}
	int n = cJSON_GetArraySize(steps);
	if (n > MAX_STEPS) {
		err_set(err, "%s: steps: %d steps, more than the limit of %d", file, n, MAX_STEPS);
		goto fail;
	}
	sc->steps = xcalloc(n, sizeof(struct step));
	sc->cap = n;
	sim = xcalloc(1, sizeof(*sim));
	procs_init(&sim->procs);
	const cJSON *js;
	cJSON_ArrayForEach(js, steps) {
		struct step *st = &sc->steps[sc->nsteps];
		struct err e2;
		if (parse_step(sc, file, js, sc->nsteps, st, err)) {
			if (o->lines)
				relocate_error(err, file, sc->nsteps, o->lines[sc->nsteps]);
			goto fail;
		}
		st->line = o->lines ? o->lines[sc->nsteps] : 0;
		sc->nsteps++;
		if (check_step(sc, o, sim, st, &e2)) {
			if (o->lines)
				err_set(err, "%s:%d: %s: %s", file, st->line, st->op->name, e2.msg);
			else
				err_set(err, "%s: step %d (%s): %s", file, st->index, st->op->name, e2.msg);
			goto fail;
		}
	}
	if (o->keep_sim)
		sc->sim = sim;
	else
		free(sim);
	*out = sc;
	return 0;
fail:
	free(sim);
	sc->json = NULL; /* the caller still owns it */
	scenario_free(sc);
	return -1;
}

/* One more step for a scenario loaded with keep_sim, checked as
 * scenario_from_json checks each, against the placement it simulated so
 * far: the shell's line costs the line, not the session. The step (a
 * detached item) becomes the last of sc->json's steps; on an error it is
 * deleted and the scenario is as it was, names and simulation included. */
int scenario_append_step(struct scenario *sc, cJSON *js, const struct load_opts *o, struct err *err)
{
	int idx = sc->nsteps, nnames = sc->names.n, forks = sc->forks;
	bool is_file[MAX_REGIONS];
	struct sim *snap;
	struct err e2;

	if (!sc->sim)
		return err_set(err, "%s: the scenario was not loaded to take more steps", sc->file);
	if (idx >= MAX_STEPS) {
		cJSON_Delete(js);
		return err_set(err, "%s: more than %d steps", sc->file, MAX_STEPS);
	}
	if (idx == sc->cap) {
		sc->cap = sc->cap ? 2 * sc->cap : 16;
		sc->steps = xreallocarray(sc->steps, (size_t)sc->cap, sizeof(*sc->steps));
		memset(sc->steps + idx, 0, (size_t)(sc->cap - idx) * sizeof(*sc->steps));
	}
	snap = xmalloc(sizeof(*snap));
	memcpy(snap, sc->sim, sizeof(*snap));
	memcpy(is_file, sc->is_file, sizeof(is_file));
	struct step *st = &sc->steps[idx];
	cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(sc->json, "steps"), js);
	int rc = parse_step(sc, sc->file, js, idx, st, err);
	if (rc && o->lines)
		relocate_error(err, sc->file, idx, o->lines[idx]);
	if (!rc) {
		st->line = o->lines ? o->lines[idx] : 0;
		rc = check_step(sc, o, sc->sim, st, &e2);
		if (rc && o->lines)
			err_set(err, "%s:%d: %s: %s", sc->file, st->line, st->op->name, e2.msg);
		else if (rc)
			err_set(err, "%s: step %d (%s): %s", sc->file, idx, st->op->name, e2.msg);
	}
	if (rc) {
		for (int f = 0; f < FLD__COUNT; f++) {
			free(st->f[f].s);
			free(st->f[f].e);
		}
		memset(st, 0, sizeof(*st));
		for (int i = nnames; i < sc->names.n; i++)
			free(sc->names.name[i]);
		sc->names.n = nnames;
		memcpy(sc->sim, snap, sizeof(*snap));
		memcpy(sc->is_file, is_file, sizeof(is_file));
		sc->forks = forks;
		cJSON_Delete(cJSON_DetachItemViaPointer(cJSON_GetObjectItemCaseSensitive(sc->json, "steps"), js));
	} else {
		sc->nsteps++;
	}
	free(snap);
	return rc ? -1 : 0;
}

void scenario_free(struct scenario *sc)
{
	if (!sc)
		return;
	/* cap, not nsteps: a step that failed to parse may hold values too */
	for (int i = 0; i < sc->cap; i++)
		for (int f = 0; f < FLD__COUNT; f++) {
			free(sc->steps[i].f[f].s);
			free(sc->steps[i].f[f].e);
		}
	for (int i = 0; i < sc->names.n; i++)
		free(sc->names.name[i]);
	cJSON_Delete(sc->json);
	free(sc->sim);
	free(sc->steps);
	free(sc->file);
	free(sc->name);
	free(sc);
}

/* Read a scenario file ("-" is stdin) that must be a regular file or a pipe. */
static char *read_scenario_file(const char *path, size_t *len, struct err *err)
{
	struct err e2;
	struct stat stb;
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) : 0;

	if (fd < 0) {
		err_set(err, "%s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &stb) < 0 || S_ISDIR(stb.st_mode) || (fd && !S_ISREG(stb.st_mode))) {
		if (fd)
			close(fd);
		err_set(err, "%s: not a regular file%s", path, S_ISDIR(stb.st_mode) ? " (a directory)" :
			S_ISFIFO(stb.st_mode) ? " (a FIFO: use '-' for a pipe on stdin)" : "");
		return NULL;
	}
	if (fd) {
		int fl = fcntl(fd, F_GETFL);
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	}
	char *buf = read_fd_all(fd, MAX_FILE_SIZE, len, &e2);
	if (fd)
		close(fd);
	if (!buf)
		err_set(err, "%s: cannot read: %s", path, e2.msg);
	return buf;
}

/* A scenario argument: a path or a bundled name, with an optional [variant].
 * Every variant of the file becomes one scenario; all or nothing. */
int scenario_load(const char *arg, const struct load_opts *o, struct scenario ***out, int *n, struct err *err)
{
	char *base = xstrdup(arg), *want = NULL;
	size_t len, bl = strlen(base);
	struct stat stb;
	cJSON *json, **docs;
	int nd, rc = -1;

	*out = NULL;
	*n = 0;
	/* "name[variant]", unless a file of that very name exists */
	if (bl > 2 && base[bl - 1] == ']' && strchr(base, '[') && stat(base, &stb)) {
		want = strrchr(base, '[');
		*want++ = 0;
		want[strlen(want) - 1] = 0;
	}
	char *path = scenario_find(base);
	char *buf = read_scenario_file(path, &len, err);
	if (!buf)
		goto out;
	/* A file whose content is not a JSON object is the text form. */
	size_t k = 0;
	while (k < len && isspace((unsigned char)buf[k]))
		k++;
	if (k == len || (buf[k] != '{' && buf[k] != '[')) {
		*out = xcalloc(1, sizeof(struct scenario *));
		if (want)
			err_set(err, "%s: the text form has no variants (asked for [%s])", path, want);
		else if (memchr(buf, 0, len))
			err_set(err, "%s: NUL byte in the file", path);
		else if (utf8_invalid((const unsigned char *)buf, len) >= 0)
			err_set(err, "%s: invalid UTF-8", path);
		else if (!textform_parse_buf(path, buf, o, &(*out)[0], err))
			*n = rc = 1;
		goto out;
	}
	if (json_parse_located(path, buf, len, &json, err))
		goto out;
	rc = variants_expand(path, json, want, &docs, &nd, err);
	cJSON_Delete(json);
	if (rc)
		goto out;
	if (!nd) { /* not an object: let the validator say so */
		docs = xcalloc(1, sizeof(cJSON *));
		docs[0] = cJSON_CreateArray();
		nd = 1;
	}
	*out = xcalloc(nd, sizeof(struct scenario *));
	rc = 0;
	for (int i = 0; i < nd; i++) {
		if (!rc && scenario_from_json(path, docs[i], o, &(*out)[*n], err)) {
			rc = -1;
			cJSON_Delete(docs[i]);
		} else if (!rc) {
			(*n)++;
		} else {
			cJSON_Delete(docs[i]);
		}
	}
	free(docs);
	if (!rc)
		rc = *n;
out:
	if (rc < 0) {
		for (int i = 0; i < *n; i++)
			scenario_free((*out)[i]);
		free(*out);
		*out = NULL;
		*n = 0;
	}
	free(buf);
	free(path);
	free(base);
	return rc < 0 ? -1 : 0;
}

/* Bundled scenarios: $ANONREMAP_SCENARIO_DIR, next to the binary, or installed. */
const char *scenario_dir(void)
{
	static char dir[PATH_MAX];
	const char *env = getenv("ANONREMAP_SCENARIO_DIR");
	struct stat stb;

	if (env && *env)
		return env;
	ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 32);
	if (n > 0) {
		dir[n] = 0;
		char *slash = strrchr(dir, '/');
		if (slash) {
			/* the build tree, then an installed tree wherever it was put (DESTDIR) */
			strcpy(slash, "/scenarios");
			if (!stat(dir, &stb) && S_ISDIR(stb.st_mode))
				return dir;
			strcpy(slash, "/../share/" PACKAGE_TARNAME "/scenarios");
			if (!stat(dir, &stb) && S_ISDIR(stb.st_mode))
				return dir;
		}
	}
	return SCENARIODIR;
}

/* A path, or a bundled scenario's name ("mremap_unfaulted_to_faulted"). */
char *scenario_find(const char *arg)
{
	char path[PATH_MAX];
	struct stat stb;

	if (!strcmp(arg, "-") || strchr(arg, '/') || !stat(arg, &stb))
		return xstrdup(arg);
	snprintf(path, sizeof(path), "%s/%s.json", scenario_dir(), arg);
	if (!stat(path, &stb))
		return xstrdup(path);
	return xstrdup(arg);
}

bool scenario_has_tag(const struct scenario *sc, const char *tag)
{
	const cJSON *it;
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(sc->json, "tags"))
		if (cJSON_IsString(it) && !strcmp(it->valuestring, tag))
			return true;
	return false;
}
