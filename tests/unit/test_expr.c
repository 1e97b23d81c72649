/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests: size_parse, expr_parse, name_valid, rel_format (src/expr.c). */
#include "anonremap.h"
#include "unit.h"
#include <stdlib.h>

static uint64_t P, PMD, PUD;

/* size_parse that must succeed; returns the value (or a poison on failure). */
static uint64_t sz(const char *s)
{
	struct err err = { "" };
	uint64_t v = 0xdeadbeefdeadbeefull;

	if (size_parse(s, &v, &err)) {
		printf("# size_parse(\"%s\") failed: %s\n", s, err.msg);
		return 0xdeadbeefdeadbeefull;
	}
	return v;
}

/* size_parse that must fail with a message. */
static int sz_err(const char *s)
{
	struct err err = { "" };
	uint64_t v = 0;
	int rc = size_parse(s, &v, &err);

	if (rc && !err.msg[0])
		printf("# size_parse(\"%s\") failed without a message\n", s);
	return rc != 0 && err.msg[0];
}

static void free_names(struct names *nm)
{
	for (int i = 0; i < nm->n; i++)
		free(nm->name[i]);
	nm->n = 0;
}

static void test_kinfo(void)
{
	CHECK(P >= 4096 && (P & (P - 1)) == 0);
	CHECK(PMD > P && (PMD & (PMD - 1)) == 0);
	CHECK(PUD > PMD && (PUD & (PUD - 1)) == 0);
	if (P == 4096) { /* this machine: x86-64 */
		CHECK_EQ_U64(PMD, 2ull << 20);
		CHECK_EQ_U64(PUD, 1ull << 30);
	}
}

static void test_size_units(void)
{
	CHECK_EQ_U64(sz("0"), 0);
	CHECK_EQ_U64(sz("4096"), 4096);
	CHECK_EQ_U64(sz("1p"), P);
	CHECK_EQ_U64(sz("p"), P);
	CHECK_EQ_U64(sz("5p"), 5 * P);
	CHECK_EQ_U64(sz("5P"), 5 * P);
	CHECK_EQ_U64(sz("0p"), 0);
	CHECK_EQ_U64(sz("1k"), 1024);
	CHECK_EQ_U64(sz("4k"), 4096);
	CHECK_EQ_U64(sz("3K"), 3072);
	CHECK_EQ_U64(sz("1m"), 1ull << 20);
	CHECK_EQ_U64(sz("2M"), 2ull << 20);
	CHECK_EQ_U64(sz("1g"), 1ull << 30);
	CHECK_EQ_U64(sz("3g"), 3ull << 30);
	CHECK_EQ_U64(sz("pmd"), PMD);
	CHECK_EQ_U64(sz("1pmd"), PMD);
	CHECK_EQ_U64(sz("2pmd"), 2 * PMD);
	CHECK_EQ_U64(sz("2PMD"), 2 * PMD);
	CHECK_EQ_U64(sz("pud"), PUD);
	CHECK_EQ_U64(sz("3pud"), 3 * PUD);
	CHECK_EQ_U64(sz("  7p  "), 7 * P);
	CHECK_EQ_U64(sz("+7p"), 7 * P);
}

static void test_size_hex_dec(void)
{
	CHECK_EQ_U64(sz("0x5000"), 0x5000);
	CHECK_EQ_U64(sz("0X5000"), 0x5000);
	CHECK_EQ_U64(sz("0xabcDEF"), 0xabcdef);
	CHECK_EQ_U64(sz("0x2p"), 2 * P);
	CHECK_EQ_U64(sz("12345"), 12345);
	CHECK_EQ_U64(sz("007"), 7);
	CHECK_EQ_U64(sz("18446744073709551615"), UINT64_MAX);
	CHECK_EQ_U64(sz("0xffffffffffffffff"), UINT64_MAX);
	CHECK_EQ_U64(sz("0x0000000000000000000001"), 1);
	/* 16777216g is 2^54: large, but it fits */
	CHECK_EQ_U64(sz("16777216g"), 1ull << 54);
	CHECK_EQ_U64(sz("15g+1073741823"), (16ull << 30) - 1);
}

static void test_size_sums(void)
{
	CHECK_EQ_U64(sz("1p+1p"), 2 * P);
	CHECK_EQ_U64(sz("2pmd-1p"), 2 * PMD - P);
	CHECK_EQ_U64(sz("2pmd - 1p + 0x10"), 2 * PMD - P + 0x10);
	CHECK_EQ_U64(sz("1p-1p"), 0);
	CHECK_EQ_U64(sz("1g+1m+1k+1"), (1ull << 30) + (1ull << 20) + 1024 + 1);
	CHECK_EQ_U64(sz("-1p+2p"), P);
	/* the sum may pass below zero on the way, if it ends >= 0 */
	CHECK_EQ_U64(sz("1p-2p+1p"), 0);
	/* MAX_TERMS terms are fine, one more is not */
	CHECK_EQ_U64(sz("1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1"), MAX_TERMS);
	CHECK(sz_err("1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1"));
}

static void test_size_errors(void)
{
	CHECK(sz_err(""));
	CHECK(sz_err("   "));
	CHECK(sz_err("5q"));
	CHECK(sz_err("q"));
	CHECK(sz_err("0x"));
	CHECK(sz_err("0xg"));
	CHECK(sz_err("5p x"));
	CHECK(sz_err("5p)"));
	CHECK(sz_err("5p+"));
	CHECK(sz_err("5p-"));
	CHECK(sz_err("5 p"));
	CHECK(sz_err("5pp"));
	CHECK(sz_err("5pages"));
	CHECK(sz_err("1.5p"));
	CHECK(sz_err("5p*2"));
	CHECK(sz_err("+"));
	CHECK(sz_err("--1"));
	CHECK(sz_err("99999999999999999999"));
	CHECK(sz_err("18446744073709551616"));
	CHECK(sz_err("0x10000000000000000"));
	CHECK(sz_err("0xffffffffffffffff+1"));
	CHECK(sz_err("18446744073709551615+1"));
	CHECK(sz_err("17179869184g"));  /* 2^34 g = 2^64 */
	CHECK(sz_err("0x8000000000000000+0x8000000000000000"));
	CHECK(sz_err("0x8000000000000000p"));
	CHECK(sz_err("1p-2p"));      /* a negative size */
	CHECK(sz_err("-1"));
	CHECK(sz_err("0-1"));
	/* sizes name no symbol */
	CHECK(sz_err("carveout"));
	CHECK(sz_err("ptr"));
	CHECK(sz_err("ptr+1p"));
	CHECK(sz_err("1p+ptr"));
	CHECK(sz_err("guard"));
}

static void test_names_valid(void)
{
	CHECK(name_valid("ptr"));
	CHECK(name_valid("ptr2"));
	CHECK(name_valid("_x"));
	CHECK(name_valid("A_b_9"));
	CHECK(name_valid("carveout2"));
	CHECK(name_valid("pmds"));
	CHECK(!name_valid(""));
	CHECK(!name_valid("2ptr"));
	CHECK(!name_valid("a-b"));
	CHECK(!name_valid("a b"));
	CHECK(!name_valid("a+b"));
	/* reserved words */
	CHECK(!name_valid("carveout"));
	CHECK(!name_valid("guard"));
	CHECK(!name_valid("p"));
	CHECK(!name_valid("P"));
	CHECK(!name_valid("k"));
	CHECK(!name_valid("m"));
	CHECK(!name_valid("g"));
	CHECK(!name_valid("pmd"));
	CHECK(!name_valid("PMD"));
	CHECK(!name_valid("pud"));
	/* length: below MAX_NAME */
	char n[MAX_NAME + 1];
	memset(n, 'a', sizeof(n));
	n[MAX_NAME - 1] = 0;
	CHECK(name_valid(n));
	n[MAX_NAME - 1] = 'a';
	n[MAX_NAME] = 0;
	CHECK(!name_valid(n));
}

static void test_names_intern(void)
{
	struct names nm = { 0 };

	CHECK(names_intern(&nm, "a") == 0);
	CHECK(names_intern(&nm, "b") == 1);
	CHECK(names_intern(&nm, "a") == 0);
	CHECK(nm.n == 2);
	CHECK(names_find(&nm, "b") == 1);
	CHECK(names_find(&nm, "c") == -1);
	CHECK(names_find(&nm, "A") == -1);
	free_names(&nm);
	char buf[16];
	for (int i = 0; i < MAX_REGIONS; i++) {
		snprintf(buf, sizeof(buf), "r%d", i);
		if (names_intern(&nm, buf) != i)
			break;
	}
	CHECK(nm.n == MAX_REGIONS);
	CHECK(names_intern(&nm, "one_more") == -1);
	CHECK(names_intern(&nm, "r7") == 7);
	free_names(&nm);
}

static void test_expr_ok(void)
{
	struct names nm = { 0 };
	struct expr e;
	struct err err = { "" };
	__int128 c;

	CHECK(expr_parse("carveout", &nm, &e, &err) == 0);
	CHECK(e.n == 1 && e.t[0].kind == TERM_CARVEOUT && !e.t[0].neg);
	CHECK(nm.n == 0);

	CHECK(expr_parse("carveout+2pmd-1p", &nm, &e, &err) == 0);
	CHECK(e.n == 3);
	CHECK(e.t[0].kind == TERM_CARVEOUT);
	CHECK(e.t[1].kind == TERM_NUM && !e.t[1].neg);
	CHECK_EQ_U64(e.t[1].num, 2 * PMD);
	CHECK(e.t[2].kind == TERM_NUM && e.t[2].neg);
	CHECK_EQ_U64(e.t[2].num, P);
	CHECK(expr_const(&e, &c));
	CHECK_EQ_U64((uint64_t)c, 2 * PMD - P);

	/* an address may lie below its base */
	CHECK(expr_parse("carveout-3p", &nm, &e, &err) == 0);
	CHECK(expr_const(&e, &c) && c == -(__int128)(3 * P));
	CHECK(expr_parse("1p+carveout", &nm, &e, &err) == 0);
	CHECK(e.n == 2 && e.t[1].kind == TERM_CARVEOUT);
	CHECK(expr_parse(" carveout  +  0x10 ", &nm, &e, &err) == 0);
	CHECK(expr_const(&e, &c) && c == 0x10);
	/* a leading minus on a number, then a base */
	CHECK(expr_parse("-1p+carveout", &nm, &e, &err) == 0);
	CHECK(expr_const(&e, &c) && c == -(__int128)P);

	/* regions are interned in order, and found again */
	CHECK(expr_parse("ptr", &nm, &e, &err) == 0);
	CHECK(e.n == 1 && e.t[0].kind == TERM_REGION && e.t[0].region == 0);
	CHECK(expr_parse("ptr2+5p", &nm, &e, &err) == 0);
	CHECK(e.t[0].kind == TERM_REGION && e.t[0].region == 1);
	CHECK(expr_parse("ptr+1", &nm, &e, &err) == 0);
	CHECK(e.t[0].region == 0);
	CHECK(nm.n == 2);
	CHECK_STR(nm.name[0], "ptr");
	CHECK_STR(nm.name[1], "ptr2");
	/* names that start like a unit are names */
	CHECK(expr_parse("pmds+1p", &nm, &e, &err) == 0);
	CHECK(e.t[0].kind == TERM_REGION);
	CHECK(expr_parse("guard_page", &nm, &e, &err) == 0);
	CHECK(e.t[0].kind == TERM_REGION);
	CHECK(expr_parse("carveout1", &nm, &e, &err) == 0);
	CHECK(e.t[0].kind == TERM_REGION);
	CHECK(nm.n == 5);
	/* a pure number is an expression too */
	CHECK(expr_parse("0x1000", &nm, &e, &err) == 0);
	CHECK(e.n == 1 && e.t[0].kind == TERM_NUM && e.t[0].num == 0x1000);
	/* a base plus a number near the limits */
	CHECK(expr_parse("carveout+0xffffffffffffffff", &nm, &e, &err) == 0);
	CHECK(expr_parse("carveout-0xffffffffffffffff", &nm, &e, &err) == 0);
	free_names(&nm);
}

/* expr_parse that must fail with a message. */
static int ex_err(const char *s, struct names *nm)
{
	struct expr e;
	struct err err = { "" };
	int rc = expr_parse(s, nm, &e, &err);

	return rc != 0 && err.msg[0];
}

static void test_expr_errors(void)
{
	struct names nm = { 0 };

	CHECK(ex_err("", &nm));
	CHECK(ex_err(" ", &nm));
	CHECK(ex_err("ptr+ptr2", &nm));
	CHECK(ex_err("carveout+ptr", &nm));
	CHECK(ex_err("carveout+carveout", &nm));
	CHECK(ex_err("-ptr", &nm));
	CHECK(ex_err("1p-ptr", &nm));
	CHECK(ex_err("-carveout", &nm));
	CHECK(ex_err("carveout-carveout", &nm));
	CHECK(ex_err("guard", &nm));
	CHECK(ex_err("carveout+guard", &nm));
	CHECK(ex_err("carveout+5q", &nm));
	CHECK(ex_err("carveout+0x", &nm));
	CHECK(ex_err("carveout+", &nm));
	CHECK(ex_err("carveout 1p", &nm));
	CHECK(ex_err("carveout+1p)", &nm));
	CHECK(ex_err("carveout+99999999999999999999", &nm));
	CHECK(ex_err("carveout+0xffffffffffffffff+1", &nm));
	CHECK(ex_err("carveout-0xffffffffffffffff-1", &nm));
	CHECK(ex_err("ptr-ptr", &nm));
	CHECK(ex_err("1p-2p", &nm));  /* no base: still a negative value */
	char longname[MAX_NAME + 8];
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	CHECK(ex_err(longname, &nm));
	free_names(&nm);
}

static void test_expr_unit_like_names(void)
{
	struct names nm = { 0 };
	struct expr e;
	struct err err = { "" };
	static const char *const names[] = { "p1", "k2", "m_x", "g0", "pmd2", "pud_a" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		CHECK(name_valid(names[i]));
		int rc = expr_parse(names[i], &nm, &e, &err);
		CHECK(rc == 0 && e.n == 1 && e.t[0].kind == TERM_REGION);
		if (rc)
			printf("#   expr_parse(\"%s\"): %s\n", names[i], err.msg);
	}
	free_names(&nm);
}

static void rel(uint64_t addr, uint64_t base, const char *want)
{
	char buf[96];
	struct names nm = { 0 };
	struct expr e;
	struct err err = { "" };
	__int128 c;

	rel_format(addr, base, buf, sizeof(buf));
	if (want)
		CHECK_STR(buf, want);
	/* the output is itself an expression with the same offset */
	int rc = expr_parse(buf, &nm, &e, &err);
	CHECK(rc == 0);
	if (rc) {
		printf("#   expr_parse(\"%s\"): %s\n", buf, err.msg);
		return;
	}
	CHECK(nm.n == 0);
	CHECK(expr_const(&e, &c));
	if (strncmp(buf, "carveout", 8)) {
		/* 1 TiB or more away: absolute, the address itself */
		__int128 d = (__int128)addr - (__int128)base;
		CHECK(d >= (__int128)1 << 40 || d <= -((__int128)1 << 40));
		CHECK(c == (__int128)addr);
		return;
	}
	CHECK(e.t[0].kind == TERM_CARVEOUT);
	CHECK(c == (__int128)addr - (__int128)base);
}

static void test_rel_format(void)
{
	const uint64_t b = 0x7f0000000000ull;
	char want[96];

	rel(b, b, "carveout");
	rel(b + 7 * P, b, "carveout+7p");
	rel(b - 3 * P, b, "carveout-3p");
	rel(b + P + 0x400, b, "carveout+1p+0x400");
	rel(b + 0x10, b, "carveout+0x10");
	rel(b + 1, b, "carveout+0x1");
	rel(b - 0x10, b, "carveout-0x10");
	snprintf(want, sizeof(want), "carveout-0x%" PRIx64, P + 0x400);
	rel(b - P - 0x400, b, want);
	snprintf(want, sizeof(want), "carveout+%" PRIu64 "p", PMD / P);
	rel(b + PMD, b, want);
	/* up to 1 TiB away relative; from there absolute (0, the other end) */
	snprintf(want, sizeof(want), "carveout-%" PRIu64 "p", (uint64_t)(((1ull << 40) - P) / P));
	rel(b - ((1ull << 40) - P), b, want);
	rel(b - (1ull << 40), b, "0x7e0000000000");
	rel(0, b, "0x0");
	/* the extremes */
	rel(UINT64_MAX, 0, "0xffffffffffffffff");
	rel(0, UINT64_MAX, NULL);
	rel(UINT64_MAX - P + 1, 0, NULL);
	rel(0, UINT64_MAX - P + 1, NULL);
	/* a small buffer is cut, not overrun */
	char small[9];
	memset(small, 'X', sizeof(small));
	rel_format(b + 7 * P, b, small, 5);
	CHECK_STR(small, "carv");
	CHECK(small[5] == 'X');
}

static void test_hex_format(void)
{
	char buf[32];

	hex_format(0, buf, sizeof(buf));
	CHECK_STR(buf, "0x0");
	hex_format(0x7f00abcd, buf, sizeof(buf));
	CHECK_STR(buf, "0x7f00abcd");
	hex_format(UINT64_MAX, buf, sizeof(buf));
	CHECK_STR(buf, "0xffffffffffffffff");
	CHECK_EQ_U64(sz(buf), UINT64_MAX);
	/* a short buffer is cut and terminated, as snprintf does */
	char small[6];
	hex_format(0x7f00abcd, small, sizeof(small));
	CHECK_STR(small, "0x7f0");
	hex_format(0xabc, small, sizeof(small));
	CHECK_STR(small, "0xabc");
}

int main(void)
{
	kinfo_init();
	P = kinfo.page_size;
	PMD = kinfo.pmd_size;
	PUD = kinfo.pud_size;
	RUN(test_kinfo);
	RUN(test_size_units);
	RUN(test_size_hex_dec);
	RUN(test_size_sums);
	RUN(test_size_errors);
	RUN(test_names_valid);
	RUN(test_names_intern);
	RUN(test_expr_ok);
	RUN(test_expr_errors);
	RUN(test_expr_unit_like_names);
	RUN(test_rel_format);
	RUN(test_hex_format);
	return unit_done();
}
