/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A tiny unit test helper: checks count failures, each test function is one
 * TAP line, and unit_done() prints the plan and gives main's exit status.
 *
 *   static void test_x(void) { CHECK(1 + 1 == 2); CHECK_STR(s, "a"); }
 *   int main(void) { RUN(test_x); return unit_done(); }
 *
 * SKIP(why, check) runs a check that fails because of a known bug in src: its
 * failure is printed but not counted, and its test's TAP line gets
 * "# SKIP why". If the check passes, a note says the bug looks fixed. */
#ifndef UNIT_H
#define UNIT_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int unit_tests, unit_failed_tests, unit_checks, unit_fails, unit_cur_fails;
static int unit_in_skip, unit_skip_fails;
static const char *unit_skip_why;

static inline void unit_fail_at(const char *file, int line)
{
	if (unit_in_skip) {
		unit_skip_fails++;
		printf("# %s:%d: known bug (%s):\n", file, line, unit_skip_why);
		return;
	}
	unit_fails++;
	unit_cur_fails++;
	printf("# %s:%d: FAILED:\n", file, line);
}

#define CHECK(c) do { \
	unit_checks++; \
	if (!(c)) { \
		unit_fail_at(__FILE__, __LINE__); \
		printf("#   %s\n", #c); \
	} \
} while (0)

#define CHECK_EQ_U64(a, b) do { \
	uint64_t unit_a_ = (uint64_t)(a), unit_b_ = (uint64_t)(b); \
	unit_checks++; \
	if (unit_a_ != unit_b_) { \
		unit_fail_at(__FILE__, __LINE__); \
		printf("#   %s == %s\n#   got 0x%" PRIx64 " (%" PRIu64 "), want 0x%" PRIx64 " (%" PRIu64 ")\n", \
		       #a, #b, unit_a_, unit_a_, unit_b_, unit_b_); \
	} \
} while (0)

#define CHECK_STR(a, b) do { \
	const char *unit_a_ = (a), *unit_b_ = (b); \
	unit_checks++; \
	if (!unit_a_ || !unit_b_ ? unit_a_ != unit_b_ : strcmp(unit_a_, unit_b_) != 0) { \
		unit_fail_at(__FILE__, __LINE__); \
		printf("#   %s == %s\n#   got  \"%s\"\n#   want \"%s\"\n", #a, #b, \
		       unit_a_ ? unit_a_ : "(null)", unit_b_ ? unit_b_ : "(null)"); \
	} \
} while (0)

#define SKIP(why, check) do { \
	int unit_before_ = unit_skip_fails; \
	unit_in_skip = 1; \
	unit_skip_why = (why); \
	check; \
	unit_in_skip = 0; \
	if (unit_skip_fails == unit_before_) \
		printf("# %s:%d: SKIP check passed: bug fixed? (%s)\n", __FILE__, __LINE__, (why)); \
} while (0)

static inline void unit_run(void (*fn)(void), const char *name)
{
	int skips = unit_skip_fails;

	unit_cur_fails = 0;
	unit_skip_why = NULL;
	fn();
	unit_tests++;
	if (unit_cur_fails) {
		unit_failed_tests++;
		printf("not ok %d - %s\n", unit_tests, name);
	} else if (unit_skip_fails != skips) {
		printf("ok %d - %s # SKIP known bug: %s\n", unit_tests, name, unit_skip_why);
	} else {
		printf("ok %d - %s\n", unit_tests, name);
	}
	fflush(stdout);
}
#define RUN(fn) unit_run(fn, #fn)

static inline int unit_done(void)
{
	printf("1..%d\n# %d checks, %d failed in %d tests, %d known-bug failures skipped\n",
	       unit_tests, unit_checks, unit_fails, unit_failed_tests, unit_skip_fails);
	return unit_fails ? 1 : 0;
}

#endif
