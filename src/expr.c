/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Sizes ("5p", "2pmd", "0x5000") and address expressions ("ptr+5p", "carveout-1p"). */
#include "anonremap.h"
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>
#include <strings.h>

/* The unit words; they cannot be region names. */
static const char *const unit_words[] = { "p", "k", "m", "g", "pmd", "pud", NULL };

static uint64_t unit_bytes(const char *u, size_t n)
{
	if (n == 1 && tolower((unsigned char)*u) == 'p')
		return kinfo.page_size;
	if (n == 1 && tolower((unsigned char)*u) == 'k')
		return 1ull << 10;
	if (n == 1 && tolower((unsigned char)*u) == 'm')
		return 1ull << 20;
	if (n == 1 && tolower((unsigned char)*u) == 'g')
		return 1ull << 30;
	if (n == 3 && !strncasecmp(u, "pmd", 3))
		return kinfo.pmd_size;
	if (n == 3 && !strncasecmp(u, "pud", 3))
		return kinfo.pud_size;
	return 0;
}

bool name_valid(const char *name)
{
	size_t n = strlen(name);

	if (!n || n >= MAX_NAME || !(isalpha((unsigned char)name[0]) || name[0] == '_'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '_')
			return false;
	for (int i = 0; unit_words[i]; i++)
		if (!strcasecmp(name, unit_words[i]))
			return false;
	return strcmp(name, "carveout") && strcmp(name, "guard");
}

int names_find(const struct names *nm, const char *name)
{
	for (int i = 0; i < nm->n; i++)
		if (!strcmp(nm->name[i], name))
			return i;
	return -1;
}

int names_intern(struct names *nm, const char *name)
{
	int i = names_find(nm, name);

	if (i >= 0)
		return i;
	if (nm->n >= MAX_REGIONS)
		return -1;
	nm->name[nm->n] = xstrdup(name);
	return nm->n++;
}

/* A number with an optional unit: "5", "0x5000", "5p", "2pmd", "pmd". */
static int parse_quantity(const char **pp, uint64_t *out, struct err *err, const char *whole)
{
	const char *p = *pp;
	uint64_t v = 1;
	bool have_num = false;

	if (isdigit((unsigned char)*p)) {
		int base = 10;
		if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
			base = 16;
			p += 2;
			if (!isxdigit((unsigned char)*p))
				return err_set(err, "'%s': '0x' without hex digits", whole);
		}
		v = 0;
		while (base == 16 ? isxdigit((unsigned char)*p) : isdigit((unsigned char)*p)) {
			int d = isdigit((unsigned char)*p) ? *p - '0' : tolower((unsigned char)*p) - 'a' + 10;
			if (v > (UINT64_MAX - d) / base)
				return err_set(err, "'%s': number too large", whole);
			v = v * base + d;
			p++;
		}
		have_num = true;
	}
	const char *u = p;
	while (isalpha((unsigned char)*p))
		p++;
	if (p > u) {
		/* "p1" or "pmd_x" is a name, not a unit */
		if (!have_num && (isalnum((unsigned char)*p) || *p == '_'))
			return -2;
		uint64_t ub = unit_bytes(u, p - u);
		if (!ub)
			return -2; /* not a unit: maybe a symbol */
		if (v && ub > UINT64_MAX / v)
			return err_set(err, "'%s': size overflows 64 bits", whole);
		v *= ub;
	} else if (!have_num) {
		return -2;
	}
	*pp = p;
	*out = v;
	return 0;
}

int expr_parse(const char *s, struct names *nm, struct expr *e, struct err *err)
{
	const char *p = s;
	bool neg = false;

	memset(e, 0, sizeof(*e));
	while (isspace((unsigned char)*p))
		p++;
	if (!*p)
		return err_set(err, "empty expression");
	if (*p == '-') {
		neg = true;
		p++;
	} else if (*p == '+') {
		p++;
	}
	for (;;) {
		while (isspace((unsigned char)*p))
			p++;
		if (e->n >= MAX_TERMS)
			return err_set(err, "'%s': more than %d terms", s, MAX_TERMS);
		struct term *t = &e->t[e->n];
		t->neg = neg;
		const char *start = p;
		int rc = parse_quantity(&p, &t->num, err, s);
		if (rc == -1)
			return -1;
		if (rc == -2) {
			p = start;
			if (isdigit((unsigned char)*p)) {
				const char *u = p;
				while (isalnum((unsigned char)*u))
					u++;
				return err_set(err, "'%s': '%.*s' is not a size (units: p k m g pmd pud)", s, (int)(u - p), p);
			}
			if (!(isalpha((unsigned char)*p) || *p == '_'))
				return err_set(err, "'%s': unexpected '%c' at offset %d", s,
					       *p ? *p : '?', (int)(p - s));
			while (isalnum((unsigned char)*p) || *p == '_')
				p++;
			char sym[MAX_NAME];
			if ((size_t)(p - start) >= sizeof(sym))
				return err_set(err, "'%s': name too long", s);
			memcpy(sym, start, p - start);
			sym[p - start] = 0;
			if (!nm)
				return err_set(err, "'%s': a size cannot name '%s'", s, sym);
			if (!strcmp(sym, "carveout")) {
				t->kind = TERM_CARVEOUT;
			} else {
				if (!name_valid(sym))
					return err_set(err, "'%s': '%s' is not a region name", s, sym);
				t->kind = TERM_REGION;
				t->region = names_intern(nm, sym);
				if (t->region < 0)
					return err_set(err, "more than %d region names", MAX_REGIONS);
			}
			if (neg)
				return err_set(err, "'%s': a region or carveout cannot be subtracted", s);
		} else {
			t->kind = TERM_NUM;
		}
		e->n++;
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		if (*p != '+' && *p != '-')
			return err_set(err, "'%s': unexpected '%c' at offset %d", s, *p, (int)(p - s));
		neg = *p == '-';
		p++;
	}
	int syms = 0;
	for (int i = 0; i < e->n; i++)
		syms += e->t[i].kind != TERM_NUM;
	if (syms > 1)
		return err_set(err, "'%s': an address has one base (carveout or a region), not %d", s, syms);
	__int128 c;
	if (!expr_const(e, &c))
		return err_set(err, "'%s': arithmetic overflows 64 bits", s);
	if (!syms && c < 0)
		return err_set(err, "'%s': negative value", s);
	return 0;
}

bool expr_const(const struct expr *e, __int128 *out)
{
	__int128 sum = 0;
	const __int128 lim = (__int128)UINT64_MAX;

	for (int i = 0; i < e->n; i++) {
		if (e->t[i].kind != TERM_NUM)
			continue;
		sum += e->t[i].neg ? -(__int128)e->t[i].num : (__int128)e->t[i].num;
		if (sum > lim || sum < -lim)
			return false;
	}
	*out = sum;
	return true;
}

int size_parse(const char *s, uint64_t *out, struct err *err)
{
	struct expr e;
	__int128 c;

	if (expr_parse(s, NULL, &e, err))
		return -1;
	expr_const(&e, &c);
	*out = (uint64_t)c;
	return 0;
}

/* By hand: a dump of 65,000 VMAs formats 130,000 addresses. */
void hex_format(uint64_t v, char *buf, size_t len)
{
	char tmp[20], *q = tmp + sizeof(tmp);

	*--q = 0;
	do
		*--q = "0123456789abcdef"[v & 15];
	while (v >>= 4);
	*--q = 'x';
	*--q = '0';
	if (len) {
		size_t n = (size_t)(tmp + sizeof(tmp) - q);
		if (n > len) {
			n = len;
			q[n - 1] = 0; /* cut, as snprintf would */
		}
		memcpy(buf, q, n);
	}
}

/* "carveout+7p", "carveout-3p", "carveout+1p+0x400": itself an expression. */
/* Farther than this from the carveout, an address is not the scenario's
 * layout but 0, the kernel's own placement or the other end of the address
 * space: "carveout-34204203109p" says less than 0x0. */
#define REL_FAR (1ull << 40)

void rel_format(uint64_t addr, uint64_t base, char *buf, size_t len)
{
	bool neg = addr < base;
	uint64_t d = neg ? base - addr : addr - base;
	uint64_t pages = d / kinfo.page_size, rest = d % kinfo.page_size;

	if (d >= REL_FAR) {
		snprintf(buf, len, "0x%" PRIx64, addr);
	} else if (!d) {
		snprintf(buf, len, "carveout");
	} else if (neg && rest) {
		snprintf(buf, len, "carveout-0x%" PRIx64, d);
	} else if (!rest) {
		snprintf(buf, len, "carveout%c%" PRIu64 "p", neg ? '-' : '+', pages);
	} else if (!pages) {
		snprintf(buf, len, "carveout+0x%" PRIx64, rest);
	} else {
		snprintf(buf, len, "carveout+%" PRIu64 "p+0x%" PRIx64, pages, rest);
	}
}
