// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The floor for anonremap's overhead: the seed library's six merge tests
 * (seed 006, merge.c) made directly, the way a selftest makes them: a fork
 * per test, a 30-page PROT_NONE carveout, raw mremap, PROCMAP_QUERY checks.
 * The test bodies were generated once from the scenarios/ JSON files and are kept
 * here as plain C. The carveout has the scenario process's layout: a 64 MiB
 * PROT_NONE guard on each side, reserved with it in one MAP_NORESERVE
 * mapping, so the moves to ptr+1000p land in reserved space as anonremap's
 * do (merge.c's bare 30 pages leave them in unreserved space, where the
 * kernel has other work to do: the timed call differs).
 *
 *   floor [ROUNDS]         run the six tests ROUNDS times; print the wall time
 *   floor --mremap N       time the final move of mremap_unfaulted_to_faulted
 *                          N times (CLOCK_MONOTONIC around the syscall alone);
 *                          print the median in ns
 */
#include "config.h"
#include "compat.h"
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: %s\n", __func__, __LINE__, #c); return 1; } } while (0)

static char *sys_mremap(void *old, unsigned long old_len, unsigned long new_len, int flags, void *new_addr)
{
	return (char *)syscall(__NR_mremap, old, old_len, new_len, flags, new_addr);
}

static int vma_is(int pm, char *addr, char *start, char *end)
{
	struct procmap_query q = { .size = sizeof(q), .query_addr = (uintptr_t)addr };
	if (ioctl(pm, PROCMAP_QUERY, &q))
		return 0;
	return q.vma_start == (uintptr_t)start && q.vma_end == (uintptr_t)end;
}

#define GUARD_PAGES 16384 /* anonremap's default guard: 64 MiB of 4 KiB pages */

/* guard, 30-page carveout, guard: one reservation; the carveout's address */
static char *reserve(long ps)
{
	char *g = mmap(NULL, (30 + 2 * GUARD_PAGES) * ps, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		       -1, 0);
	return g == MAP_FAILED ? MAP_FAILED : g + GUARD_PAGES * ps;
}

static void unreserve(char *c, long ps)
{
	munmap(c - GUARD_PAGES * ps, (30 + 2 * GUARD_PAGES) * ps);
}

static uint64_t now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int mremap_unfaulted_to_faulted(char *carveout, int pm, long ps)
{
	char *ptr, *ptr2;

	ptr = mmap((carveout + 1 * ps), 5 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	CHECK(ptr != MAP_FAILED);
	ptr2 = mmap((carveout + 7 * ps), 5 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	CHECK(ptr2 != MAP_FAILED);
	ptr2 = sys_mremap(ptr2, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr2 + 1000 * ps));
	CHECK(ptr2 != MAP_FAILED);
	*(volatile char *)(ptr) = 'x';
	ptr2 = sys_mremap(ptr2, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr + 5 * ps));
	CHECK(ptr2 != MAP_FAILED);
	CHECK(vma_is(pm, (ptr), (ptr), (ptr + 10 * ps)));
	return 0;
}

static int mremap_unfaulted_behind_faulted(char *carveout, int pm, long ps)
{
	char *ptr, *ptr2;

	ptr = mmap((carveout + 6 * ps), 5 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	CHECK(ptr != MAP_FAILED);
	ptr2 = mmap((carveout + 14 * ps), 5 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	CHECK(ptr2 != MAP_FAILED);
	ptr2 = sys_mremap(ptr2, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr2 + 1000 * ps));
	CHECK(ptr2 != MAP_FAILED);
	*(volatile char *)(ptr) = 'x';
	ptr2 = sys_mremap(ptr2, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (carveout + 1 * ps));
	CHECK(ptr2 != MAP_FAILED);
	CHECK(vma_is(pm, (ptr2), (ptr2), (ptr2 + 10 * ps)));
	return 0;
}

static int mremap_unfaulted_between_faulted(char *carveout, int pm, long ps)
{
	char *ptr, *ptr2, *ptr3;

	ptr = mmap((carveout + 1 * ps), 5 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	CHECK(ptr != MAP_FAILED);
	ptr2 = mmap((carveout + 7 * ps), 5 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	CHECK(ptr2 != MAP_FAILED);
	ptr3 = mmap((carveout + 14 * ps), 5 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	CHECK(ptr3 != MAP_FAILED);
	ptr3 = sys_mremap(ptr3, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr3 + 2000 * ps));
	CHECK(ptr3 != MAP_FAILED);
	ptr2 = sys_mremap(ptr2, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr2 + 1000 * ps));
	CHECK(ptr2 != MAP_FAILED);
	*(volatile char *)(ptr) = 'x';
	*(volatile char *)(ptr3) = 'x';
	ptr3 = sys_mremap(ptr3, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr + 10 * ps));
	CHECK(ptr3 != MAP_FAILED);
	ptr2 = sys_mremap(ptr2, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr + 5 * ps));
	CHECK(ptr2 != MAP_FAILED);
	CHECK(vma_is(pm, (ptr), (ptr), (ptr + 10 * ps)));
	CHECK(vma_is(pm, (ptr3), (ptr3), (ptr3 + 5 * ps)));
	return 0;
}

static int mremap_unfaulted_between_faulted_unfaulted(char *carveout, int pm, long ps)
{
	char *ptr, *ptr2, *ptr3;

	ptr = mmap((carveout + 1 * ps), 5 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	CHECK(ptr != MAP_FAILED);
	ptr2 = mmap((carveout + 7 * ps), 5 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	CHECK(ptr2 != MAP_FAILED);
	ptr3 = mmap((carveout + 14 * ps), 5 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	CHECK(ptr3 != MAP_FAILED);
	ptr3 = sys_mremap(ptr3, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr3 + 2000 * ps));
	CHECK(ptr3 != MAP_FAILED);
	ptr2 = sys_mremap(ptr2, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr2 + 1000 * ps));
	CHECK(ptr2 != MAP_FAILED);
	*(volatile char *)(ptr) = 'x';
	ptr3 = sys_mremap(ptr3, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr + 10 * ps));
	CHECK(ptr3 != MAP_FAILED);
	ptr2 = sys_mremap(ptr2, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr + 5 * ps));
	CHECK(ptr2 != MAP_FAILED);
	CHECK(vma_is(pm, (ptr), (ptr), (ptr + 15 * ps)));
	return 0;
}

static int mremap_unfaulted_between_correctly_placed_faulted(char *carveout, int pm, long ps)
{
	char *ptr, *ptr2;

	ptr = mmap((carveout + 1 * ps), 15 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	CHECK(ptr != MAP_FAILED);
	*(volatile char *)(ptr) = 'x';
	ptr2 = mmap((carveout + 20 * ps), 5 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	CHECK(ptr2 != MAP_FAILED);
	ptr2 = sys_mremap(ptr2, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr + 5 * ps));
	CHECK(ptr2 != MAP_FAILED);
	CHECK(vma_is(pm, (ptr), (ptr), (ptr + 15 * ps)));
	return 0;
}

static int mremap_correct_placed_faulted(char *carveout, int pm, long ps)
{
	char *ptr, *ptr2, *ptr3;

	ptr = mmap((carveout + 1 * ps), 15 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	CHECK(ptr != MAP_FAILED);
	*(volatile char *)(ptr) = 'x';
	ptr3 = sys_mremap((ptr + 10 * ps), 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr + 2010 * ps));
	CHECK(ptr3 != MAP_FAILED);
	ptr2 = sys_mremap((ptr + 5 * ps), 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr + 1005 * ps));
	CHECK(ptr2 != MAP_FAILED);
	ptr2 = sys_mremap(ptr2, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr + 5 * ps));
	CHECK(ptr2 != MAP_FAILED);
	CHECK(vma_is(pm, (ptr), (ptr), (ptr + 10 * ps)));
	ptr = sys_mremap(ptr, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr + 1000 * ps));
	CHECK(ptr != MAP_FAILED);
	ptr = sys_mremap(ptr, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (carveout + 1 * ps));
	CHECK(ptr != MAP_FAILED);
	CHECK(vma_is(pm, (ptr), (ptr), (ptr + 10 * ps)));
	ptr = sys_mremap(ptr, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr + 1000 * ps));
	CHECK(ptr != MAP_FAILED);
	ptr3 = sys_mremap(ptr3, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr2 + 5 * ps));
	CHECK(ptr3 != MAP_FAILED);
	CHECK(vma_is(pm, (ptr2), (ptr2), (ptr2 + 10 * ps)));
	ptr = sys_mremap(ptr, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (carveout + 1 * ps));
	CHECK(ptr != MAP_FAILED);
	CHECK(vma_is(pm, (ptr), (ptr), (ptr + 15 * ps)));
	ptr2 = sys_mremap(ptr2, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr2 + 1000 * ps));
	CHECK(ptr2 != MAP_FAILED);
	ptr2 = sys_mremap(ptr2, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr + 5 * ps));
	CHECK(ptr2 != MAP_FAILED);
	CHECK(vma_is(pm, (ptr), (ptr), (ptr + 15 * ps)));
	ptr3 = sys_mremap(ptr3, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr3 + 1000 * ps));
	CHECK(ptr3 != MAP_FAILED);
	ptr3 = sys_mremap(ptr3, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr + 10 * ps));
	CHECK(ptr3 != MAP_FAILED);
	CHECK(vma_is(pm, (ptr), (ptr), (ptr + 15 * ps)));
	return 0;
}

static int (*const tests[])(char *, int, long) = {
	mremap_unfaulted_to_faulted, mremap_unfaulted_behind_faulted, mremap_unfaulted_between_faulted,
	mremap_unfaulted_between_faulted_unfaulted, mremap_unfaulted_between_correctly_placed_faulted,
	mremap_correct_placed_faulted,
};

/* As the kselftest harness does: each test in its own child. */
static int run_one(int (*t)(char *, int, long))
{
	pid_t pid = fork();
	if (pid == 0) {
		long ps = sysconf(_SC_PAGESIZE);
		char *c = reserve(ps);
		int pm = open("/proc/self/maps", O_RDONLY);
		_exit(c == MAP_FAILED || pm < 0 ? 2 : t(c, pm, ps));
	}
	int st;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 3;
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int time_mremap(int n)
{
	long ps = sysconf(_SC_PAGESIZE);
	uint64_t *t = calloc(n, sizeof(*t));
	for (int i = 0; i < n; i++) {
		char *c = reserve(ps);
		char *ptr = mmap(c + ps, 5 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		char *ptr2 = mmap(c + 7 * ps, 5 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		ptr2 = sys_mremap(ptr2, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, ptr2 + 1000 * ps);
		ptr[0] = 'x';
		uint64_t t0 = now();
		char *r = sys_mremap(ptr2, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, ptr + 5 * ps);
		t[i] = now() - t0;
		if (r == MAP_FAILED)
			return 1;
		unreserve(c, ps);
	}
	qsort(t, n, sizeof(*t), cmp);
	printf("%llu\n", (unsigned long long)t[n / 2]);
	free(t);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--mremap"))
		return time_mremap(atoi(argv[2]));
	int rounds = argc > 1 ? atoi(argv[1]) : 1, bad = 0;
	uint64_t t0 = now();
	for (int r = 0; r < rounds; r++)
		for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
			bad += run_one(tests[i]) != 0;
	printf("%d rounds of %zu tests: %.3f ms, %d failed\n", rounds, sizeof(tests) / sizeof(tests[0]),
	       (now() - t0) / 1e6, bad);
	return bad != 0;
}
