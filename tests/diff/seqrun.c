/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The other side of tests/bats/diff.bats: the raw system calls of a
 * sequence, made the way a selftest makes them, with none of anonremap's
 * code in between. It reserves its carveout with the flags of the
 * carveout of tools/testing/selftests/mm/merge.c, the size and guards of
 * anonremap's default carveout, trimmed the same way, so that anonremap
 * and this program differ only if anonremap falsifies something.
 *
 * Input, one op a line, offsets and lengths in pages from the carveout:
 *   mmap OFF LEN PROT          MAP_PRIVATE|MAP_ANONYMOUS|MAP_FIXED
 *   munmap OFF LEN
 *   mprotect OFF LEN PROT
 *   fault OFF LEN r|w          one byte a page, from the first page
 *   mremap OFF LEN NEWOFF NEWLEN FLAGS   (FLAGS a number; NEWOFF used with
 *                              MREMAP_FIXED only)
 * PROT is none, r, rw or rwx.
 * Output: "step I ret=R errno=E signal=S page=P" a line (R 0 or -1; S the
 * signal a fault raised, P the page of the carveout it hit, or -), then
 * "vma REL PERMS" for each VMA that meets the reserved area, REL written
 * as anonremap writes it (carveout-16384p..carveout+1p). */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* anonremap's defaults: DEFAULT_PAGES and DEFAULT_GUARD in src/anonremap.h */
#define CARVE_PAGES 1024
#define GUARD_BYTES (64ul << 20)

static sigjmp_buf jb;
static void *volatile fault_addr;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	fault_addr = si->si_addr;
	siglongjmp(jb, sig);
}

/* One byte a page from at, as anonremap's fault step and the selftests'
 * ptr[i * page_size] = 'x' touch them: 0, or the signal the first page
 * that could not be touched raised. */
static int touch(char *at, long len, long ps, int write)
{
	volatile long j;
	int sig = sigsetjmp(jb, 1);

	if (sig)
		return sig;
	for (j = 0; j < len; j++) {
		volatile char *c = at + j * ps;
		if (write)
			*c = 'x';
		else
			(void)*c;
	}
	return 0;
}

static int prot_of(const char *s)
{
	if (!strcmp(s, "none"))
		return PROT_NONE;
	if (!strcmp(s, "r"))
		return PROT_READ;
	if (!strcmp(s, "rw"))
		return PROT_READ | PROT_WRITE;
	if (!strcmp(s, "rwx"))
		return PROT_READ | PROT_WRITE | PROT_EXEC;
	fprintf(stderr, "seqrun: unknown prot '%s'\n", s);
	exit(2);
}

static void rel(char *buf, size_t n, long off, long ps)
{
	long p = off / ps;
	if (!p)
		snprintf(buf, n, "carveout");
	else
		snprintf(buf, n, "carveout%c%ldp", p < 0 ? '-' : '+', labs(p));
}

/* The VMAs meeting [lo, hi), read after the last call: the program maps
 * nothing of its own meanwhile (stdio's buffers exist before the carveout). */
static void dump(uintptr_t base, uintptr_t lo, uintptr_t hi, long ps)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512], a[64], b[64];
	static char out[1 << 16];
	size_t used = 0;

	if (!f) {
		perror("seqrun: /proc/self/maps");
		exit(1);
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long s, e;
		char perms[8];
		if (sscanf(line, "%lx-%lx %7s", &s, &e, perms) != 3 || e <= lo || s >= hi)
			continue;
		rel(a, sizeof(a), (long)(s - base), ps);
		rel(b, sizeof(b), (long)(e - base), ps);
		used += snprintf(out + used, sizeof(out) - used, "vma %s..%s %s\n", a, b, perms);
	}
	fclose(f);
	fputs(out, stdout);
}

int main(void)
{
	long ps = sysconf(_SC_PAGESIZE);
	static char lines[256][128];
	int n = 0;

	/* Read everything first: nothing may be allocated once the carveout exists. */
	while (n < 256 && fgets(lines[n], sizeof(lines[n]), stdin))
		n++;
	static char obuf[1 << 16];
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));

	struct sigaction sa;
	static char altstack[65536];
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
	sigaltstack(&ss, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);

	/* merge.c's carveout: mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	 * guard, carveout, guard and one page of alignment slack, as src/child.c */
	size_t size = CARVE_PAGES * ps, total = 2 * GUARD_BYTES + size + ps;
	char *p = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("seqrun: mmap carveout");
		return 1;
	}
	uintptr_t base = ((uintptr_t)p + GUARD_BYTES + ps - 1) & ~(uintptr_t)(ps - 1);
	uintptr_t lo = base - GUARD_BYTES, hi = base + size + GUARD_BYTES;
	if (lo > (uintptr_t)p)
		munmap(p, lo - (uintptr_t)p);
	if ((uintptr_t)p + total > hi)
		munmap((void *)hi, (uintptr_t)p + total - hi);

	for (int i = 0; i < n; i++) {
		char op[16], a4[16] = "";
		long off = 0, len = 0, y = 0, flags = 0;
		int k = sscanf(lines[i], "%15s %ld %ld %15s %ld %ld", op, &off, &len, a4, &y, &flags);
		if (k < 3) {
			fprintf(stderr, "seqrun: line %d: expected OP OFF LEN ...\n", i + 1);
			return 2;
		}
		char *at = (char *)base + off * ps;
		long ret = 0;
		int err = 0, sig = 0;
		long page = 0;
		errno = 0;
		if (!strcmp(op, "mmap") && k >= 4) {
			void *r = mmap(at, len * ps, prot_of(a4), MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
			ret = r == MAP_FAILED ? -1 : 0;
		} else if (!strcmp(op, "munmap")) {
			ret = munmap(at, len * ps);
		} else if (!strcmp(op, "mprotect") && k >= 4) {
			ret = mprotect(at, len * ps, prot_of(a4));
		} else if (!strcmp(op, "fault") && k >= 4) {
			sig = touch(at, len, ps, a4[0] == 'w');
			if (sig) {
				ret = -1;
				page = ((long)((uintptr_t)fault_addr - base)) / ps;
			}
		} else if (!strcmp(op, "mremap") && k == 6) {
			long newoff = strtol(a4, NULL, 10);
			void *r = mremap(at, len * ps, y * ps, (int)flags, (char *)base + newoff * ps);
			ret = r == MAP_FAILED ? -1 : 0;
		} else {
			fprintf(stderr, "seqrun: line %d: unknown op '%s'\n", i + 1, op);
			return 2;
		}
		if (ret == -1 && !sig)
			err = errno;
		if (sig)
			printf("step %d ret=-1 errno=0 signal=%d page=%ld\n", i, sig, page);
		else
			printf("step %d ret=%ld errno=%d signal=0 page=-\n", i, ret, err);
	}
	dump(base, lo, hi, ps);
	return 0;
}
