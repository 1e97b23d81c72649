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
 *   floor [--inspect] [ROUNDS]
 *          run the six tests ROUNDS times; print the wall time. With
 *          --inspect, read at each of the scenarios' dump steps what a dump
 *          reads (below), raw, unparsed: a floor for anonremap with its dumps
 *   floor --mremap N [--pause US] [--inspect] [--fork [--pollute KB]]
 *          time the final move of mremap_unfaulted_to_faulted N times
 *          (CLOCK_MONOTONIC around the syscall alone); print the median in
 *          ns. Right before the timed call, --pause sleeps US microseconds
 *          (as the scenario process waits while a dump is taken) and
 *          --inspect reads what a dump reads, in this process. --fork
 *          makes each sample in a child, as the selftest harness runs each
 *          test, and --pollute has the parent write KB of its memory before
 *          each fork, as anonremap works between scenario processes
 *
 * What a dump reads: /proc/self/maps (the process's VMA count), smaps up to
 * the end of the reserved area, PROCMAP_QUERY for each VMA there, pagemap
 * of the reserved area, smaps_rollup and status (the process's totals),
 * vmstat and slabinfo (the system's counters).
 */
#include "config.h"
#include "compat.h"
#include <fcntl.h>
#include <stdbool.h>
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

static int inspecting; /* --inspect */

static void read_all(const char *path)
{
	static char buf[1 << 16];
	int fd = open(path, O_RDONLY);

	while (fd >= 0 && read(fd, buf, sizeof(buf)) > 0)
		;
	if (fd >= 0)
		close(fd);
}

/* What a dump of the carveout reads, raw (see the top of the file). */
static void inspect(char *carveout, int pm, long ps)
{
	static char buf[1 << 16];
	uintptr_t lo = (uintptr_t)carveout - GUARD_PAGES * ps, hi = (uintptr_t)carveout + (30 + GUARD_PAGES) * ps;
	ssize_t n;

	read_all("/proc/self/maps");
	/* smaps up to the first VMA at or past the end of the reserved area */
	int fd = open("/proc/self/smaps", O_RDONLY);
	for (bool past = false; fd >= 0 && !past && (n = read(fd, buf, sizeof(buf) - 1)) > 0;) {
		buf[n] = 0;
		for (char *l = buf; l && *l && !past; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
			char *e;
			unsigned long long start = strtoull(l, &e, 16);
			past = *e == '-' && start >= hi;
		}
	}
	if (fd >= 0)
		close(fd);
	for (uintptr_t a = lo; a < hi;) {
		struct procmap_query q = { .size = sizeof(q), .query_addr = a, .query_flags = PROCMAP_QUERY_COVERING_OR_NEXT_VMA };
		if (ioctl(pm, PROCMAP_QUERY, &q) || q.vma_start >= hi)
			break;
		a = q.vma_end;
	}
	static uint64_t pmap[30 + 2 * GUARD_PAGES];
	fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd >= 0) {
		if (pread(fd, pmap, sizeof(pmap), lo / ps * 8) < 0)
			pmap[0] = 0;
		close(fd);
	}
	read_all("/proc/self/smaps_rollup");
	read_all("/proc/self/status");
	read_all("/proc/vmstat");
	read_all("/proc/slabinfo");
}

#define DUMP() do { if (inspecting) inspect(carveout, pm, ps); } while (0)

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
	DUMP();
	ptr2 = sys_mremap(ptr2, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr2 + 1000 * ps));
	CHECK(ptr2 != MAP_FAILED);
	*(volatile char *)(ptr) = 'x';
	DUMP();
	ptr2 = sys_mremap(ptr2, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr + 5 * ps));
	CHECK(ptr2 != MAP_FAILED);
	DUMP();
	CHECK(vma_is(pm, (ptr), (ptr), (ptr + 10 * ps)));
	DUMP();
	return 0;
}

static int mremap_unfaulted_behind_faulted(char *carveout, int pm, long ps)
{
	char *ptr, *ptr2;

	ptr = mmap((carveout + 6 * ps), 5 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	CHECK(ptr != MAP_FAILED);
	ptr2 = mmap((carveout + 14 * ps), 5 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	CHECK(ptr2 != MAP_FAILED);
	DUMP();
	ptr2 = sys_mremap(ptr2, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr2 + 1000 * ps));
	CHECK(ptr2 != MAP_FAILED);
	*(volatile char *)(ptr) = 'x';
	DUMP();
	ptr2 = sys_mremap(ptr2, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (carveout + 1 * ps));
	CHECK(ptr2 != MAP_FAILED);
	DUMP();
	CHECK(vma_is(pm, (ptr2), (ptr2), (ptr2 + 10 * ps)));
	DUMP();
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
	DUMP();
	ptr3 = sys_mremap(ptr3, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr3 + 2000 * ps));
	CHECK(ptr3 != MAP_FAILED);
	ptr2 = sys_mremap(ptr2, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr2 + 1000 * ps));
	CHECK(ptr2 != MAP_FAILED);
	*(volatile char *)(ptr) = 'x';
	*(volatile char *)(ptr3) = 'x';
	DUMP();
	ptr3 = sys_mremap(ptr3, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr + 10 * ps));
	CHECK(ptr3 != MAP_FAILED);
	DUMP();
	ptr2 = sys_mremap(ptr2, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr + 5 * ps));
	CHECK(ptr2 != MAP_FAILED);
	DUMP();
	CHECK(vma_is(pm, (ptr), (ptr), (ptr + 10 * ps)));
	CHECK(vma_is(pm, (ptr3), (ptr3), (ptr3 + 5 * ps)));
	DUMP();
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
	DUMP();
	ptr3 = sys_mremap(ptr3, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr3 + 2000 * ps));
	CHECK(ptr3 != MAP_FAILED);
	ptr2 = sys_mremap(ptr2, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr2 + 1000 * ps));
	CHECK(ptr2 != MAP_FAILED);
	*(volatile char *)(ptr) = 'x';
	DUMP();
	ptr3 = sys_mremap(ptr3, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr + 10 * ps));
	CHECK(ptr3 != MAP_FAILED);
	DUMP();
	ptr2 = sys_mremap(ptr2, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr + 5 * ps));
	CHECK(ptr2 != MAP_FAILED);
	DUMP();
	CHECK(vma_is(pm, (ptr), (ptr), (ptr + 15 * ps)));
	DUMP();
	return 0;
}

static int mremap_unfaulted_between_correctly_placed_faulted(char *carveout, int pm, long ps)
{
	char *ptr, *ptr2;

	ptr = mmap((carveout + 1 * ps), 15 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	CHECK(ptr != MAP_FAILED);
	DUMP();
	*(volatile char *)(ptr) = 'x';
	DUMP();
	CHECK(munmap(ptr + 5 * ps, 5 * ps) == 0);
	DUMP();
	ptr2 = mmap((carveout + 20 * ps), 5 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	CHECK(ptr2 != MAP_FAILED);
	DUMP();
	ptr2 = sys_mremap(ptr2, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr + 5 * ps));
	CHECK(ptr2 != MAP_FAILED);
	DUMP();
	CHECK(vma_is(pm, (ptr), (ptr), (ptr + 15 * ps)));
	DUMP();
	return 0;
}

static int mremap_correct_placed_faulted(char *carveout, int pm, long ps)
{
	char *ptr, *ptr2, *ptr3;

	ptr = mmap((carveout + 1 * ps), 15 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	CHECK(ptr != MAP_FAILED);
	DUMP();
	*(volatile char *)(ptr) = 'x';
	DUMP();
	ptr3 = sys_mremap((ptr + 10 * ps), 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr + 2010 * ps));
	CHECK(ptr3 != MAP_FAILED);
	ptr2 = sys_mremap((ptr + 5 * ps), 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr + 1005 * ps));
	CHECK(ptr2 != MAP_FAILED);
	DUMP();
	ptr2 = sys_mremap(ptr2, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr + 5 * ps));
	CHECK(ptr2 != MAP_FAILED);
	DUMP();
	CHECK(vma_is(pm, (ptr), (ptr), (ptr + 10 * ps)));
	ptr = sys_mremap(ptr, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr + 1000 * ps));
	CHECK(ptr != MAP_FAILED);
	DUMP();
	ptr = sys_mremap(ptr, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (carveout + 1 * ps));
	CHECK(ptr != MAP_FAILED);
	DUMP();
	CHECK(vma_is(pm, (ptr), (ptr), (ptr + 10 * ps)));
	ptr = sys_mremap(ptr, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr + 1000 * ps));
	CHECK(ptr != MAP_FAILED);
	DUMP();
	ptr3 = sys_mremap(ptr3, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr2 + 5 * ps));
	CHECK(ptr3 != MAP_FAILED);
	DUMP();
	CHECK(vma_is(pm, (ptr2), (ptr2), (ptr2 + 10 * ps)));
	ptr = sys_mremap(ptr, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (carveout + 1 * ps));
	CHECK(ptr != MAP_FAILED);
	DUMP();
	CHECK(vma_is(pm, (ptr), (ptr), (ptr + 15 * ps)));
	ptr2 = sys_mremap(ptr2, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr2 + 1000 * ps));
	CHECK(ptr2 != MAP_FAILED);
	DUMP();
	ptr2 = sys_mremap(ptr2, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr + 5 * ps));
	CHECK(ptr2 != MAP_FAILED);
	DUMP();
	CHECK(vma_is(pm, (ptr), (ptr), (ptr + 15 * ps)));
	ptr3 = sys_mremap(ptr3, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr3 + 1000 * ps));
	CHECK(ptr3 != MAP_FAILED);
	DUMP();
	ptr3 = sys_mremap(ptr3, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, (ptr + 10 * ps));
	CHECK(ptr3 != MAP_FAILED);
	DUMP();
	CHECK(vma_is(pm, (ptr), (ptr), (ptr + 15 * ps)));
	DUMP();
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

struct mremap_opts {
	int pause_us;    /* sleep this long before the timed call */
	bool inspect;    /* read what a dump reads before the timed call */
	bool fork;       /* each sample in a process of its own */
	long pollute_kb; /* --fork: the parent writes this much memory between samples */
};

/* One sample of mremap_unfaulted_to_faulted's final move, in ns (0: failed). */
static uint64_t mremap_sample(const struct mremap_opts *o, int pm, long ps)
{
	char *c = reserve(ps);
	char *ptr = mmap(c + ps, 5 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	char *ptr2 = mmap(c + 7 * ps, 5 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	ptr2 = sys_mremap(ptr2, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, ptr2 + 1000 * ps);
	ptr[0] = 'x';
	if (o->pause_us > 0)
		usleep(o->pause_us);
	if (o->inspect)
		inspect(c, pm, ps);
	uint64_t t0 = now();
	char *r = sys_mremap(ptr2, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, ptr + 5 * ps);
	uint64_t t = now() - t0;
	unreserve(c, ps);
	return r == MAP_FAILED ? 0 : t;
}

/* The sample in a child, as the kselftest harness runs each test; the
 * parent writes pollute_kb of its own memory first, as anonremap works
 * between scenario processes (building results), which cools the caches. */
static uint64_t mremap_sample_forked(const struct mremap_opts *o, int pm, long ps)
{
	static volatile char *junk;
	uint64_t t = 0;
	int p[2];

	if (o->pollute_kb > 0) {
		if (!junk)
			junk = malloc(o->pollute_kb << 10);
		for (long k = 0; junk && k < o->pollute_kb << 10; k += 64)
			junk[k]++;
	}
	if (pipe(p))
		return 0;
	pid_t pid = fork();
	if (pid == 0) {
		t = mremap_sample(o, pm, ps);
		_exit(write(p[1], &t, sizeof(t)) == sizeof(t) ? 0 : 1);
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &t, sizeof(t)) != sizeof(t))
		t = 0;
	close(p[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return t;
}

static int time_mremap(int n, const struct mremap_opts *o)
{
	long ps = sysconf(_SC_PAGESIZE);
	uint64_t *t = calloc(n, sizeof(*t));
	int pm = open("/proc/self/maps", O_RDONLY);

	if (!t || pm < 0)
		return 2;
	for (int i = 0; i < n; i++) {
		t[i] = o->fork ? mremap_sample_forked(o, pm, ps) : mremap_sample(o, pm, ps);
		if (!t[i])
			return 1;
	}
	qsort(t, n, sizeof(*t), cmp);
	printf("%llu\n", (unsigned long long)t[n / 2]);
	free(t);
	close(pm);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: floor [--inspect] [ROUNDS]\n"
			"       floor --mremap N [--pause US] [--inspect] [--fork [--pollute KB]]\n");
	return 2;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "--mremap")) {
		struct mremap_opts o = { 0 };
		int n = atoi(argv[2]);
		for (int k = 3; k < argc; k++) {
			if (!strcmp(argv[k], "--pause") && k + 1 < argc)
				o.pause_us = atoi(argv[++k]);
			else if (!strcmp(argv[k], "--inspect"))
				o.inspect = true;
			else if (!strcmp(argv[k], "--fork"))
				o.fork = true;
			else if (!strcmp(argv[k], "--pollute") && k + 1 < argc)
				o.pollute_kb = atol(argv[++k]);
			else
				return usage();
		}
		if (n < 1 || (o.pollute_kb && !o.fork))
			return usage();
		return time_mremap(n, &o);
	}
	int k = 1;
	if (argc > k && !strcmp(argv[k], "--inspect"))
		inspecting = 1, k++;
	if (argc > k + 1)
		return usage();
	char *end = NULL;
	long rounds = argc > k ? strtol(argv[k], &end, 10) : 1;
	int bad = 0;
	if ((end && *end) || rounds < 1)
		return usage();
	uint64_t t0 = now();
	for (long r = 0; r < rounds; r++)
		for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
			bad += run_one(tests[i]) != 0;
	printf("%ld rounds of %zu tests%s: %.3f ms, %d failed\n", rounds, sizeof(tests) / sizeof(tests[0]),
	       inspecting ? ", inspected" : "", (now() - t0) / 1e6, bad);
	return bad != 0;
}
