/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Strings from a scenario or a result file, made safe to print as text or
 * KTAP: they may come from someone else, and a newline in a name would
 * forge a KTAP line, an escape sequence would drive the reader's terminal.
 * Control characters (C0, DEL, C1) and bytes that are not UTF-8 are shown
 * as \n, \t or \xHH; KTAP test names also lose '#', which starts a
 * directive there. Valid UTF-8 text passes unchanged. */
#include "anonremap.h"
#include <stdlib.h>
#include <string.h>

/* The length of the valid UTF-8 sequence at s that is printable (not a C1
 * control), or 0. */
static size_t utf8_ok(const unsigned char *s)
{
	size_t n;
	uint32_t cp;

	if (s[0] < 0x80)
		return s[0] >= 0x20 && s[0] != 0x7f;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong, surrogates, beyond U+10FFFF, C1 controls */
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp <= 0x9f))
		return 0;
	return n;
}

static bool needs(const char *s, bool ktap)
{
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = (ktap && *p == '#') ? 0 : utf8_ok(p);
		if (!n)
			return true;
		p += n;
	}
	return false;
}

static char *escaped(const char *s, bool ktap)
{
	char *out = xmalloc(strlen(s) * 4 + 1), *q = out;
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = (ktap && *p == '#') ? 0 : utf8_ok(p);
		if (n) {
			memcpy(q, p, n);
			q += n, p += n;
			continue;
		}
		if (*p == '\n')
			q += sprintf(q, "\\n");
		else if (*p == '\t')
			q += sprintf(q, "\\t");
		else
			q += sprintf(q, "\\x%02x", *p);
		p++;
	}
	*q = 0;
	return out;
}

/* The escaped copies handed out since the last esc_release(): a writer
 * releases them when it has printed its part. */
static char **held;
static size_t nheld, cap;

static const char *esc(const char *s, bool ktap)
{
	if (!s || !needs(s, ktap))
		return s;
	if (nheld == cap) {
		cap = cap ? cap * 2 : 16;
		char **n = realloc(held, cap * sizeof(*held));
		if (!n)
			return "?"; /* out of memory: print nothing of it */
		held = n;
	}
	return held[nheld++] = escaped(s, ktap);
}

const char *esc_text(const char *s)
{
	return esc(s, false);
}

const char *esc_ktap_name(const char *s)
{
	return esc(s, true);
}

void esc_release(void)
{
	while (nheld)
		free(held[--nheld]);
	free(held);
	held = NULL;
	cap = 0;
}
