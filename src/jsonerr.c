/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Where and why a JSON text is malformed. cJSON only says where it gave up,
 * often a character late; this scanner re-reads a text cJSON rejected and
 * names the first offending character, as a person would point at it. It
 * also finds duplicate keys in a text cJSON accepted: cJSON keeps both and
 * its lookups return the first, where jq and most readers take the last, so
 * a document with one means different things to different readers. It
 * builds nothing: cJSON stays the only JSON parser. */
#include "anonremap.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

struct key {
	const char *k; /* the key's text, decoded if it had escapes */
	size_t len, pos;
	char *owned;
};

struct scan {
	const char *s;
	size_t len, pos;
	const char *why;
	size_t open_pos; /* the innermost unclosed bracket, for end-of-input errors */
	bool dups;       /* look for duplicate keys */
	size_t dup_first; /* where the first of a duplicate pair is */
};

static void ws(struct scan *c)
{
	while (c->pos < c->len && isspace((unsigned char)c->s[c->pos]))
		c->pos++;
}

static int fail(struct scan *c, const char *why)
{
	c->why = why;
	return -1;
}

static int value(struct scan *c, int depth);

static int string(struct scan *c)
{
	c->pos++; /* the opening quote */
	while (c->pos < c->len) {
		unsigned char ch = c->s[c->pos];
		if (ch == '"') {
			c->pos++;
			return 0;
		}
		if (ch < 0x20)
			return fail(c, "control character in a string (escape it)");
		if (ch == '\\') {
			c->pos++;
			if (c->pos >= c->len)
				break;
			if (c->s[c->pos] == 'u') {
				for (int k = 1; k <= 4; k++)
					if (c->pos + k >= c->len || !isxdigit((unsigned char)c->s[c->pos + k])) {
						c->pos += k;
						return fail(c, "\\u needs four hex digits");
					}
				c->pos += 4;
			} else if (!strchr("\"\\/bfnrt", c->s[c->pos])) {
				return fail(c, "unknown escape in a string");
			}
		}
		c->pos++;
	}
	return fail(c, "unterminated string");
}

static int number(struct scan *c)
{
	size_t p = c->pos;
	if (c->s[p] == '-')
		p++;
	if (p >= c->len || !isdigit((unsigned char)c->s[p])) {
		c->pos = p;
		return fail(c, "a number needs digits");
	}
	if (c->s[p] == '0' && p + 1 < c->len && isdigit((unsigned char)c->s[p + 1])) {
		c->pos = p;
		return fail(c, "a number cannot start with 0 (write hex as a string: \"0x18\")");
	}
	while (p < c->len && isdigit((unsigned char)c->s[p]))
		p++;
	if (p < c->len && c->s[p] == '.') {
		p++;
		while (p < c->len && isdigit((unsigned char)c->s[p]))
			p++;
	}
	if (p < c->len && (c->s[p] == 'e' || c->s[p] == 'E')) {
		p++;
		if (p < c->len && (c->s[p] == '+' || c->s[p] == '-'))
			p++;
		while (p < c->len && isdigit((unsigned char)c->s[p]))
			p++;
	}
	c->pos = p;
	return 0;
}

/* The keys of one object, for the duplicate check. */
struct keys {
	struct key *v;
	size_t n, cap;
};

static void keys_free(struct keys *ks)
{
	for (size_t i = 0; i < ks->n; i++)
		free(ks->v[i].owned);
	free(ks->v);
	*ks = (struct keys){ 0 };
}

static int fail_keys(struct scan *c, struct keys *ks, const char *why)
{
	keys_free(ks);
	return fail(c, why);
}

static unsigned hex4(const char *p)
{
	unsigned v = 0;
	for (int k = 0; k < 4; k++)
		v = v << 4 | (unsigned)(isdigit((unsigned char)p[k]) ? p[k] - '0' : (tolower((unsigned char)p[k]) - 'a' + 10));
	return v;
}

static char *put_utf8(char *q, unsigned cp)
{
	if (cp < 0x80) {
		*q++ = (char)cp;
	} else if (cp < 0x800) {
		*q++ = (char)(0xc0 | cp >> 6);
		*q++ = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		*q++ = (char)(0xe0 | cp >> 12);
		*q++ = (char)(0x80 | ((cp >> 6) & 0x3f));
		*q++ = (char)(0x80 | (cp & 0x3f));
	} else {
		*q++ = (char)(0xf0 | cp >> 18);
		*q++ = (char)(0x80 | ((cp >> 12) & 0x3f));
		*q++ = (char)(0x80 | ((cp >> 6) & 0x3f));
		*q++ = (char)(0x80 | (cp & 0x3f));
	}
	return q;
}

/* The key string at pos (already scanned: well formed), as readers see it:
 * "\u006fp" is "op". Keys without escapes point into the text. */
static void key_add(struct scan *c, struct keys *ks, size_t pos)
{
	const char *b = c->s + pos + 1, *e = c->s + c->pos - 1;
	struct key k = { b, (size_t)(e - b), pos, NULL };

	if (memchr(b, '\\', k.len)) {
		char *q = k.owned = xmalloc(k.len + 1);
		for (const char *p = b; p < e; p++) {
			if (*p != '\\') {
				*q++ = *p;
				continue;
			}
			p++;
			const char *map = strchr("\"\"\\\\//b\bf\fn\nr\rt\t", *p);
			if (*p != 'u') {
				*q++ = map ? map[1] : *p;
				continue;
			}
			unsigned cp = hex4(p + 1);
			p += 4;
			if (cp >= 0xd800 && cp < 0xdc00 && p + 6 < e && p[1] == '\\' && p[2] == 'u') {
				unsigned lo = hex4(p + 3);
				if (lo >= 0xdc00 && lo < 0xe000) {
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
					p += 6;
				}
			}
			q = put_utf8(q, cp);
		}
		k.k = k.owned;
		k.len = (size_t)(q - k.owned);
	}
	if (ks->n == ks->cap) {
		ks->cap = ks->cap ? ks->cap * 2 : 8;
		ks->v = realloc(ks->v, ks->cap * sizeof(*ks->v));
		if (!ks->v)
			abort();
	}
	ks->v[ks->n++] = k;
}

static int key_cmp(const void *a, const void *b)
{
	const struct key *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int d = memcmp(x->k, y->k, n);
	if (d || x->len != y->len)
		return d ? d : x->len < y->len ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static const char dup_why[] = "duplicate key";

/* An object's keys, sorted: equal neighbours are a duplicate, reported at
 * the later one. */
static int keys_unique(struct scan *c, struct keys *ks)
{
	if (ks->n > 1)
		qsort(ks->v, ks->n, sizeof(*ks->v), key_cmp);
	for (size_t i = 1; i < ks->n; i++) {
		if (ks->v[i].len == ks->v[i - 1].len && !memcmp(ks->v[i].k, ks->v[i - 1].k, ks->v[i].len)) {
			c->pos = ks->v[i].pos;
			c->dup_first = ks->v[i - 1].pos;
			return fail_keys(c, ks, dup_why);
		}
	}
	keys_free(ks);
	return 0;
}

static int container(struct scan *c, int depth, char close)
{
	size_t open = c->pos, saved = c->open_pos;
	struct keys ks = { 0 };
	c->open_pos = open;
	c->pos++;
	ws(c);
	if (c->pos < c->len && c->s[c->pos] == close) {
		c->pos++;
		c->open_pos = saved;
		return 0;
	}
	for (;;) {
		ws(c);
		if (c->pos >= c->len)
			return fail_keys(c, &ks, NULL);
		if (close == '}') {
			if (c->s[c->pos] != '"')
				return fail_keys(c, &ks, c->s[c->pos] == '}' ? "trailing comma before '}'" :
					    "expected a key in double quotes");
			size_t kpos = c->pos;
			if (string(c))
				return fail_keys(c, &ks, c->why);
			if (c->dups)
				key_add(c, &ks, kpos);
			ws(c);
			if (c->pos >= c->len)
				return fail_keys(c, &ks, NULL);
			if (c->s[c->pos] != ':')
				return fail_keys(c, &ks, "expected ':' after the key");
			c->pos++;
			ws(c);
		}
		if (c->pos < c->len && c->s[c->pos] == ']' && close == ']')
			return fail(c, "trailing comma before ']'");
		if (value(c, depth + 1))
			return fail_keys(c, &ks, c->why);
		ws(c);
		if (c->pos >= c->len)
			return fail_keys(c, &ks, NULL);
		if (c->s[c->pos] == close) {
			c->pos++;
			c->open_pos = saved;
			return keys_unique(c, &ks);
		}
		if (c->s[c->pos] != ',')
			return fail_keys(c, &ks, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
		c->pos++;
	}
}

static int value(struct scan *c, int depth)
{
	ws(c);
	if (c->pos >= c->len)
		return fail(c, NULL);
	if (depth > CJSON_NESTING_LIMIT)
		return fail(c, "nested too deeply");
	char ch = c->s[c->pos];
	if (ch == '{')
		return container(c, depth, '}');
	if (ch == '[')
		return container(c, depth, ']');
	if (ch == '"')
		return string(c);
	if (ch == '-' || isdigit((unsigned char)ch))
		return number(c);
	static const char *const words[] = { "true", "false", "null" };
	for (int i = 0; i < 3; i++) {
		size_t n = strlen(words[i]);
		if (c->len - c->pos >= n && !strncmp(c->s + c->pos, words[i], n)) {
			c->pos += n;
			return 0;
		}
	}
	if (ch == '\'')
		return fail(c, "strings take double quotes");
	return fail(c, "expected a value");
}

/* Offset and reason of the first error; why NULL means the input ended
 * early, and *open is where the unclosed bracket began. 0 when no error. */
int json_locate_error(const char *s, size_t len, size_t *off, const char **why, size_t *open)
{
	struct scan c = { s, len, 0, NULL, 0, false, 0 };
	int rc = value(&c, 0);
	if (!rc) {
		ws(&c);
		if (c.pos < c.len) {
			c.why = "data after the end of the document";
			rc = -1;
		}
	}
	*off = c.pos;
	*why = c.why;
	*open = c.open_pos;
	return rc;
}

/* The first duplicate key of an object in a valid JSON text: 0 when there is
 * none, else *off is the later key and *first the earlier one. */
int json_find_duplicate(const char *s, size_t len, size_t *off, size_t *first)
{
	struct scan c = { s, len, 0, NULL, 0, true, 0 };
	/* only a duplicate counts: the scanner is stricter than cJSON elsewhere */
	if (!value(&c, 0) || c.why != dup_why)
		return 0;
	*off = c.pos;
	*first = c.dup_first;
	return -1;
}
