/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Where and why a JSON text is malformed. cJSON only says where it gave up,
 * often a character late; this scanner re-reads a text cJSON rejected and
 * names the first offending character, as a person would point at it. It
 * builds nothing: cJSON stays the only JSON parser. */
#include "anonremap.h"
#include <ctype.h>
#include <string.h>

struct scan {
	const char *s;
	size_t len, pos;
	const char *why;
	size_t open_pos; /* the innermost unclosed bracket, for end-of-input errors */
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

static int container(struct scan *c, int depth, char close)
{
	size_t open = c->pos, saved = c->open_pos;
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
			return fail(c, NULL);
		if (close == '}') {
			if (c->s[c->pos] != '"')
				return fail(c, c->s[c->pos] == '}' ? "trailing comma before '}'" :
					    "expected a key in double quotes");
			if (string(c))
				return -1;
			ws(c);
			if (c->pos >= c->len)
				return fail(c, NULL);
			if (c->s[c->pos] != ':')
				return fail(c, "expected ':' after the key");
			c->pos++;
			ws(c);
		}
		if (c->pos < c->len && c->s[c->pos] == ']' && close == ']')
			return fail(c, "trailing comma before ']'");
		if (value(c, depth + 1))
			return -1;
		ws(c);
		if (c->pos >= c->len)
			return fail(c, NULL);
		if (c->s[c->pos] == close) {
			c->pos++;
			c->open_pos = saved;
			return 0;
		}
		if (c->s[c->pos] != ',')
			return fail(c, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
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
	struct scan c = { s, len, 0, NULL, 0 };
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
