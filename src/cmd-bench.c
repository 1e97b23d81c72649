/* SPDX-License-Identifier: GPL-2.0-or-later */
/* anonremap bench: time mremap(MAYMOVE|FIXED[|RELOCATE_ANON...]) of anonymous
 * or shmem memory over sizes, populated fractions, placements (mremap_test's
 * among them), backings, THP advice and flag variants. Each call is timed
 * alone, in the process that makes it; setup, population and verification
 * stay outside the timed region. */
#include "anonremap.h"
#include "compat.h"
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_POINTS 32

/* Where the source and the destination of a move go. pte, pmd and pud are
 * mremap_test.c's placements; relative and misaligned measure the kernel's
 * handling of a move that starts inside a PMD. */
enum { ALIGN_PTE, ALIGN_PMD, ALIGN_PUD, ALIGN_RELATIVE, ALIGN_MISALIGNED, ALIGN_N };
static const char *const align_names[] = { "pte", "pmd", "pud", "relative", "misaligned" };
enum { BACK_ANON, BACK_SHMEM, BACK_N };
static const char *const backing_names[] = { "anon", "shmem" };
static const int backing_flags[] = { MAP_PRIVATE | MAP_ANONYMOUS, MAP_SHARED | MAP_ANONYMOUS };
enum { THP_NO, THP_HUGE, THP_NONE, THP_N };
static const char *const thp_names[] = { "nohugepage", "hugepage", "none" };
/* uffd_move is no mremap: UFFDIO_MOVE of the same pages into a registered
 * destination, the mainline way to move anonymous pages (issue 20's third
 * column). Not in the default set. */
enum { V_PLAIN, V_RELOCATE, V_MUST_RELOCATE, V_UFFD_MOVE, NV };
static const char *const variant_names[NV] = { "plain", "relocate_anon", "must_relocate_anon", "uffd_move" };
static const uint64_t variant_flags[NV] = { 0, MREMAP_RELOCATE_ANON, MREMAP_MUST_RELOCATE_ANON, 0 };

struct bench_args {
	uint64_t sizes[MAX_POINTS];
	int nsizes;
	int populate[MAX_POINTS]; /* percent */
	int npopulate;
	int aligns[ALIGN_N], naligns;
	int backings[BACK_N], nbackings;
	int thps[THP_N], nthps;
	int variants[NV], nvariants;
	int repeat;
	enum out_format format;
	const char *output, *plot;
	bool preset_mremap_test;
	bool fork_each;
};

static const struct argp_option bench_options[] = {
	{ "sizes", 's', "LIST", 0, "sizes to move (default 4k,64k,2m,32m,256m,1g)", 0 },
	{ "populate", 'p', "LIST", 0, "populated percentages (default 0,10,50,100)", 0 },
	{ "align", 'A', "LIST", 0, "placement of source and destination: pte, pmd, pud (mremap_test's), "
	  "relative, misaligned (default pte,pmd)", 0 },
	{ "backing", 'B', "LIST", 0, "anon (MAP_PRIVATE), shmem (MAP_SHARED|MAP_ANONYMOUS) (default anon; "
	  "the preset: shmem)", 0 },
	{ "thp", 'H', "LIST", 0, "hugepage, nohugepage, none (no advice) (default hugepage,nohugepage; "
	  "the preset: none)", 0 },
	{ "variants", 'V', "LIST", 0, "plain, relocate_anon, must_relocate_anon, uffd_move (UFFDIO_MOVE of the "
	  "same pages; anon only) (default: the three mremap ones)", 0 },
	{ "repeat", 'r', "N", 0, "measurements per point and variant (default 7)", 0 },
	{ "preset", 'P', "NAME", 0, "mremap_test: its three 1 GiB cases, placed and backed as it does "
	  "(fully populated; -A, -B, -H still apply)", 0 },
	{ "fork-each", 'F', NULL, 0, "a fresh process for each move (default: one process makes them all, "
	  "in turn, as mremap_test does)", 0 },
	{ "quick", 'q', NULL, 0, "a small matrix: 4k,2m,32m; 0,100 %; pte,pmd; nohugepage", 0 },
	{ "format", 'f', "FORMAT", 0, "text (default) or json", 0 },
	{ "output", 'o', "FILE", 0, "write the result to FILE (atomically)", 0 },
	{ "plot", 'G', "FILE", 0, "draw time against size with gnuplot (FILE.svg or FILE.png)", 0 },
	{ 0 }
};

static int split(char *arg, char **tok, int max)
{
	int n = 0;
	char *save = NULL;
	for (char *t = strtok_r(arg, ",", &save); t && n < max; t = strtok_r(NULL, ",", &save))
		tok[n++] = t;
	return n;
}

static int find(const char *const *names, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}

static error_t bench_parse(int key, char *arg, struct argp_state *state)
{
	struct bench_args *a = state->input;
	char *tok[MAX_POINTS];
	struct err err;
	int n;

	switch (key) {
	case 's':
		n = split(arg, tok, MAX_POINTS);
		for (a->nsizes = 0; a->nsizes < n; a->nsizes++)
			if (size_parse(tok[a->nsizes], &a->sizes[a->nsizes], &err) || !a->sizes[a->nsizes] ||
			    a->sizes[a->nsizes] % kinfo.page_size || a->sizes[a->nsizes] > (64ull << 30))
				argp_error(state, "--sizes: '%s' is not a page multiple up to 64g", tok[a->nsizes]);
		return 0;
	case 'p':
		n = split(arg, tok, MAX_POINTS);
		for (a->npopulate = 0; a->npopulate < n; a->npopulate++) {
			char *end;
			long v = strtol(tok[a->npopulate], &end, 10);
			if (*end || v < 0 || v > 100)
				argp_error(state, "--populate: '%s' is not a percentage", tok[a->npopulate]);
			a->populate[a->npopulate] = v;
		}
		return 0;
	case 'A':
		n = split(arg, tok, ALIGN_N);
		for (a->naligns = 0; a->naligns < n; a->naligns++)
			if ((a->aligns[a->naligns] = find(align_names, ALIGN_N, tok[a->naligns])) < 0)
				argp_error(state, "--align: '%s' is not pte, pmd, pud, relative or misaligned",
					   tok[a->naligns]);
		return 0;
	case 'B':
		n = split(arg, tok, BACK_N);
		for (a->nbackings = 0; a->nbackings < n; a->nbackings++)
			if ((a->backings[a->nbackings] = find(backing_names, BACK_N, tok[a->nbackings])) < 0)
				argp_error(state, "--backing: '%s' is not anon or shmem", tok[a->nbackings]);
		return 0;
	case 'H':
		n = split(arg, tok, THP_N);
		for (a->nthps = 0; a->nthps < n; a->nthps++)
			if ((a->thps[a->nthps] = find(thp_names, THP_N, tok[a->nthps])) < 0)
				argp_error(state, "--thp: '%s' is not hugepage, nohugepage or none", tok[a->nthps]);
		return 0;
	case 'V':
		n = split(arg, tok, NV);
		for (a->nvariants = 0; a->nvariants < n; a->nvariants++)
			if ((a->variants[a->nvariants] = find(variant_names, NV, tok[a->nvariants])) < 0)
				argp_error(state,
					   "--variants: '%s' is not plain, relocate_anon, must_relocate_anon or uffd_move",
					   tok[a->nvariants]);
		return 0;
	case 'r':
		a->repeat = atoi(arg);
		if (a->repeat < 1 || a->repeat > 10000)
			argp_error(state, "--repeat: '%s' is not 1..10000", arg);
		return 0;
	case 'P':
		if (strcmp(arg, "mremap_test"))
			argp_error(state, "--preset: only mremap_test");
		a->preset_mremap_test = true;
		return 0;
	case 'F':
		a->fork_each = true;
		return 0;
	case 'q':
		a->nsizes = 3;
		a->sizes[0] = 4096, a->sizes[1] = 2 << 20, a->sizes[2] = 32 << 20;
		a->npopulate = 2;
		a->populate[0] = 0, a->populate[1] = 100;
		a->naligns = 2;
		a->aligns[0] = ALIGN_PTE, a->aligns[1] = ALIGN_PMD;
		a->nthps = 1;
		a->thps[0] = THP_NO;
		return 0;
	case 'f':
		if (parse_format(arg, &a->format) || a->format == OUT_KTAP)
			argp_error(state, "--format: '%s' is not text or json", arg);
		return 0;
	case 'o':
		a->output = output_file_arg(state, "--output", arg);
		return 0;
	case 'G':
		a->plot = arg;
		return 0;
	case ARGP_KEY_ARG:
		argp_error(state, "bench takes no arguments");
		return EINVAL;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

/* A populated page holds its index and a check word, so a move that loses or
 * misplaces a page is caught. Pages are spread evenly over the range. */
static bool populated(uint64_t i, int pct)
{
	return pct > 0 && (i * pct) / 100 != ((i + 1) * pct) / 100 ? true : pct == 100;
}

static uint64_t word(uint64_t i)
{
	return i * 0x9e3779b97f4a7c15ull ^ 0x5bd1e995;
}

struct sample {
	int64_t ns;  /* -1: the kernel refused (errno in err) */
	int err;
	bool bad;    /* data mismatch after the move */
	uint64_t src, dst; /* where the move was from and to */
};

/* Where a fresh, fixed mapping of len bytes may go: a MAP_FIXED_NOREPLACE
 * mapping of it succeeds (and is undone), as mremap_test's
 * is_remap_region_valid() asks. Only EEXIST says no, as there. */
static bool region_free(uint64_t at, uint64_t len)
{
	void *p = mmap((void *)at, len, PROT_READ | PROT_WRITE, MAP_FIXED_NOREPLACE | MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return errno != EEXIST;
	munmap(p, len);
	return p == (void *)at; /* a kernel before 4.17 took the address as a hint */
}

static uint64_t mmap_min_addr(void)
{
	char buf[32];
	uint64_t v = 0;
	if (!read_small_file("/proc/sys/vm/mmap_min_addr", buf, sizeof(buf)))
		v = strtoull(buf, NULL, 10);
	return v > kinfo.page_size ? v : kinfo.page_size;
}

/* The source of a move: mapped at *src. 0 on success, else an errno.
 *
 * pte, pmd, pud: mremap_test.c's placement for an alignment A (a page, a
 * PMD, a PUD): the lowest address at or above mmap_min_addr that is a
 * multiple of A but not of 2 A (the selftest refuses coincidental higher
 * alignment) where a fixed mapping fits, as get_source_mapping() finds it.
 *
 * relative, misaligned: one page past a PMD boundary of a kernel-chosen
 * free range, with room after it for the destination. */
static int place_source(uint64_t size, int align, int backing, uint64_t *src)
{
	int flags = backing_flags[backing] | MAP_FIXED_NOREPLACE;
	if (align <= ALIGN_PUD) {
		uint64_t A = align == ALIGN_PUD ? kinfo.pud_size : align == ALIGN_PMD ? kinfo.pmd_size : kinfo.page_size;
		uint64_t min = mmap_min_addr();
		for (uint64_t at = A;; at += A) {
			if (at + size < at || at > (1ull << 47))
				return ENOMEM;
			if (at < min || !(at & A))
				continue;
			void *p = mmap((void *)at, size, PROT_READ | PROT_WRITE, flags, -1, 0);
			if (p == (void *)at) {
				*src = at;
				return 0;
			}
			if (p != MAP_FAILED)
				munmap(p, size);
			else if (errno != EEXIST && errno != EPERM)
				return errno;
		}
	}
	uint64_t pmd = kinfo.pmd_size, room = 2 * ((size + 2 * pmd) & ~(pmd - 1)) + pmd;
	char *res = mmap(NULL, room, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (res == MAP_FAILED)
		return errno;
	munmap(res, room); /* found free: nothing else maps in this process */
	*src = (((uintptr_t)res + pmd - 1) & ~(pmd - 1)) + kinfo.page_size;
	if (mmap((void *)*src, size, PROT_READ | PROT_WRITE, flags, -1, 0) != (void *)*src)
		return errno ? errno : EEXIST;
	return 0;
}

/* The destination, left free for the move's MREMAP_FIXED, found after the
 * source is populated, as remap_region() does; its probe mapping (made and
 * undone) is part of what the selftest's timing follows, and leaving it out
 * makes a PUD move here three times slower.
 *
 * pte, pmd, pud: A past the source's end, rounded down to A, made not a
 * multiple of 2 A, then moved up by A until it is free. With mmap_min_addr
 * 4096 a 1 GiB source at "pte" lands one page past a PMD boundary and its
 * destination three pages past one: their offsets within a PMD differ, so
 * every PTE moves alone.
 *
 * relative: one page past the next PMD boundary but one after the source's
 * end (the same offset: after the first partial PMD whole page tables move,
 * and with nothing mapped below either the kernel may realign the move down
 * to the boundary); misaligned: three pages past it (offsets that differ). */
static int place_dest(uint64_t src, uint64_t size, int align, uint64_t *dst)
{
	uint64_t A = align == ALIGN_PUD ? kinfo.pud_size : align == ALIGN_PMD ? kinfo.pmd_size : kinfo.page_size;
	uint64_t at;
	if (align <= ALIGN_PUD) {
		at = (src + size + A) & ~(A - 1);
		if (!(at & A))
			at |= A;
	} else {
		uint64_t pmd = kinfo.pmd_size;
		A = pmd;
		at = ((src + size + 2 * pmd) & ~(pmd - 1)) + (align == ALIGN_RELATIVE ? 1 : 3) * kinfo.page_size;
	}
	while (!region_free(at, size))
		if ((at += A) > (1ull << 47))
			return ENOMEM;
	*dst = at;
	return 0;
}

/* What the worker is asked to move */
struct request {
	uint64_t size;
	int pct, align, backing, thp, variant;
};

/* For uffd_move: the destination mapped (private anonymous, read-write, as
 * the source) and registered for missing faults on a new userfaultfd with
 * UFFD_FEATURE_MOVE, all outside the timed region. The userfaultfd, or -1
 * with *err: EINVAL where the kernel has no UFFDIO_MOVE (before 6.8). */
static int uffd_dest(uint64_t dst, uint64_t len, int *err)
{
	if (mmap((void *)dst, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) !=
	    (void *)dst) {
		*err = errno ? errno : EEXIST;
		return -1;
	}
	int uffd = (int)syscall(__NR_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);
	struct uffdio_api api = { .api = UFFD_API, .features = UFFD_FEATURE_MOVE };
	struct uffdio_register reg = { .range = { .start = dst, .len = len }, .mode = UFFDIO_REGISTER_MODE_MISSING };
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api) || ioctl(uffd, UFFDIO_REGISTER, &reg)) {
		*err = errno ? errno : EIO;
		if (uffd >= 0)
			close(uffd);
		munmap((void *)dst, len);
		return -1;
	}
	return uffd;
}

/* One move: place, populate, find the destination, time the call, verify,
 * and unmap what is left, as mremap_test's remap_region() cleans up after
 * each case so that no earlier move's mappings slow the next. */
static void move_once(const struct request *q, struct sample *s)
{
	uint64_t src = 0, dst = 0, n = q->size / kinfo.page_size;
	*s = (struct sample){ .ns = -1 };
	s->err = place_source(q->size, q->align, q->backing, &src);
	if (s->err)
		return;
	s->src = src;
	if (q->thp != THP_NONE)
		madvise((void *)src, q->size, q->thp == THP_HUGE ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	for (uint64_t i = 0; i < n; i++)
		if (populated(i, q->pct))
			*(uint64_t *)(src + i * kinfo.page_size) = word(i);
	s->err = place_dest(src, q->size, q->align, &dst);
	if (s->err) {
		munmap((void *)src, q->size);
		return;
	}
	s->dst = dst;
	uint64_t t0, t1;
	long r;
	if (q->variant == V_UFFD_MOVE) {
		int uffd = uffd_dest(dst, q->size, &s->err);
		if (uffd < 0) {
			munmap((void *)src, q->size);
			return;
		}
		struct uffdio_move mv = { .dst = dst, .src = src, .len = q->size,
					  .mode = UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES };
		t0 = now_ns();
		r = ioctl(uffd, UFFDIO_MOVE, &mv);
		t1 = now_ns();
		int e = errno;
		close(uffd);
		munmap((void *)src, q->size); /* what UFFDIO_MOVE left of it */
		if (r == 0 && mv.move != (int64_t)q->size) /* moved part: not the move asked for */
			r = -1, e = mv.move < 0 ? (int)-mv.move : EAGAIN;
		if (r == -1) {
			s->err = e ? e : EIO;
			munmap((void *)dst, q->size);
			return;
		}
	} else {
		t0 = now_ns();
		r = syscall(__NR_mremap, src, q->size, q->size, MREMAP_MAYMOVE | MREMAP_FIXED | variant_flags[q->variant],
			    dst);
		t1 = now_ns();
		if (r == -1) {
			s->err = errno ? errno : EIO;
			munmap((void *)src, q->size);
			return;
		}
	}
	s->ns = t1 - t0;
	for (uint64_t i = 0; i < n && !s->bad; i++)
		s->bad = *(uint64_t *)(dst + i * kinfo.page_size) != (populated(i, q->pct) ? word(i) : 0);
	munmap((void *)dst, q->size);
}

/* The first mremap a freshly forked process makes costs more than the
 * same call later (about 6 us more for a 1 GiB PUD move here, half its
 * time), and that is no move's own cost: mremap_test's perf cases come
 * after its other cases in one process. So a measuring process starts with
 * one untimed move of a page. */
static void warm_up(void)
{
	uint64_t pg = kinfo.page_size;
	char *a = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED)
		return;
	a[0] = 1;
	syscall(__NR_mremap, a, pg, pg, MREMAP_MAYMOVE | MREMAP_FIXED, a + pg);
	munmap(a, 2 * pg);
}

/* The measuring process. Every move of a run is made in one process, one
 * after another, as mremap_test makes its cases; --fork-each gives each
 * move a fresh process instead (warmed up alike). */
struct worker {
	pid_t pid;
	int req, rep; /* our ends of its two pipes */
};

static void worker_stop(struct worker *w)
{
	if (w->pid <= 0)
		return;
	close(w->req);
	close(w->rep);
	while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
		;
	w->pid = 0;
}

static int worker_start(struct worker *w)
{
	int q[2], r[2];
	if (pipe(q))
		return errno;
	if (pipe(r)) {
		int e = errno;
		close(q[0]), close(q[1]);
		return e;
	}
	pid_t pid = fork();
	if (pid == 0) {
		struct request rq;
		struct sample s;
		close(q[1]), close(r[0]);
		warm_up();
		while (read_full(q[0], &rq, sizeof(rq)) == 1) {
			move_once(&rq, &s);
			if (write_full(r[1], &s, sizeof(s)))
				break;
		}
		_exit(0);
	}
	close(q[0]), close(r[1]);
	if (pid < 0) {
		int e = errno;
		close(q[1]), close(r[0]);
		return e;
	}
	*w = (struct worker){ .pid = pid, .req = q[1], .rep = r[0] };
	return 0;
}

static void measure(struct worker *w, bool fresh, const struct request *q, struct sample *out)
{
	*out = (struct sample){ .ns = -1, .err = EIO };
	if (fresh)
		worker_stop(w);
	if (w->pid <= 0 && (out->err = worker_start(w)))
		return;
	out->err = EIO;
	if (write_full(w->req, q, sizeof(*q)) || read_full(w->rep, out, sizeof(*out)) != 1) {
		/* it died: the next move gets a new one */
		*out = (struct sample){ .ns = -1, .err = EIO };
		worker_stop(w);
	}
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static double pct_of(int64_t *v, int n, double q)
{
	/* nearest rank on sorted values */
	int k = (int)ceil(q * n) - 1;
	return v[k < 0 ? 0 : k >= n ? n - 1 : k];
}

/* A plotted line: a variant, populated fraction, placement, backing and THP */
static void point_key(const cJSON *p, char *buf, size_t len)
{
	snprintf(buf, len, "%s %.0f%% %s %s %s", cJSON_GetStringValue(cJSON_GetObjectItem(p, "variant")),
		 cJSON_GetNumberValue(cJSON_GetObjectItem(p, "populate")),
		 cJSON_GetStringValue(cJSON_GetObjectItem(p, "align")),
		 cJSON_GetStringValue(cJSON_GetObjectItem(p, "backing")),
		 cJSON_GetStringValue(cJSON_GetObjectItem(p, "thp")));
}

static void plot(cJSON *points, const char *file)
{
	const char *ext = strrchr(file, '.');
	bool png = ext && !strcmp(ext, ".png");
	FILE *g;

	if (system("command -v gnuplot >/dev/null 2>&1")) {
		fprintf(stderr, "anonremap: --plot needs gnuplot (Debian package gnuplot-nox); no plot written\n");
		return;
	}
	g = popen("gnuplot", "w");
	if (!g)
		return;
	fprintf(g, "set terminal %s size 1000,700\nset output '", png ? "pngcairo" : "svg");
	for (const char *c = file; *c; c++) /* a gnuplot single-quoted string doubles its quotes */
		fputs(*c == '\'' ? "''" : (char[]){ *c, 0 }, g);
	fprintf(g, "'\nset logscale xy\nset xlabel 'size (bytes)'\n"
		   "set ylabel 'median mremap time (ns)'\nset key outside right\nset grid\n");
	/* one line a variant and populated fraction (first alignment and THP setting) */
	cJSON *p, *keys = cJSON_CreateArray();
	cJSON_ArrayForEach(p, points) {
		char k[128];
		point_key(p, k, sizeof(k));
		bool seen = false;
		cJSON *x;
		cJSON_ArrayForEach(x, keys)
			seen |= !strcmp(x->valuestring, k);
		if (!seen && cJSON_IsNumber(cJSON_GetObjectItem(p, "median_ns")))
			cJSON_AddItemToArray(keys, cJSON_CreateString(k));
	}
	fputs("plot ", g);
	int i = 0;
	cJSON *k;
	cJSON_ArrayForEach(k, keys)
		fprintf(g, "%s'-' using 1:2 with linespoints title '%s'", i++ ? ", " : "", k->valuestring);
	fputc('\n', g);
	cJSON_ArrayForEach(k, keys) {
		cJSON_ArrayForEach(p, points) {
			char kk[128];
			point_key(p, kk, sizeof(kk));
			if (!strcmp(kk, k->valuestring))
				fprintf(g, "%.0f %.0f\n", cJSON_GetNumberValue(cJSON_GetObjectItem(p, "size")),
					cJSON_GetNumberValue(cJSON_GetObjectItem(p, "median_ns")));
		}
		fputs("e\n", g);
	}
	cJSON_Delete(keys);
	pclose(g);
}

static void text(cJSON *doc, FILE *fp)
{
	cJSON *p;
	fprintf(fp, "mremap(MAYMOVE|FIXED[|flag]) (or UFFDIO_MOVE) on Linux %s, %.0f repetitions a point\n", kinfo.release,
		cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "bench"), "repeat")));
	fprintf(fp, "%10s %4s %-10s %-5s %10s %-19s %10s %10s %10s %10s %8s\n", "size", "pop%", "placement", "back",
		"thp", "variant", "min ns", "median ns", "p90 ns", "max ns", "x plain");
	cJSON_ArrayForEach(p, cJSON_GetObjectItem(doc, "points")) {
		fprintf(fp, "%10.0f %4.0f %-10s %-5s %10s %-19s ", cJSON_GetNumberValue(cJSON_GetObjectItem(p, "size")),
			cJSON_GetNumberValue(cJSON_GetObjectItem(p, "populate")),
			cJSON_GetStringValue(cJSON_GetObjectItem(p, "align")),
			cJSON_GetStringValue(cJSON_GetObjectItem(p, "backing")),
			cJSON_GetStringValue(cJSON_GetObjectItem(p, "thp")),
			cJSON_GetStringValue(cJSON_GetObjectItem(p, "variant")));
		if (!cJSON_IsTrue(cJSON_GetObjectItem(p, "supported"))) {
			fprintf(fp, "unsupported: %s\n", cJSON_GetStringValue(cJSON_GetObjectItem(p, "errno")));
			continue;
		}
		fprintf(fp, "%10.0f %10.0f %10.0f %10.0f", cJSON_GetNumberValue(cJSON_GetObjectItem(p, "min_ns")),
			cJSON_GetNumberValue(cJSON_GetObjectItem(p, "median_ns")),
			cJSON_GetNumberValue(cJSON_GetObjectItem(p, "p90_ns")),
			cJSON_GetNumberValue(cJSON_GetObjectItem(p, "max_ns")));
		cJSON *r = cJSON_GetObjectItem(p, "ratio_to_plain");
		if (cJSON_IsNumber(r))
			fprintf(fp, " %8.2f", r->valuedouble);
		fputc('\n', fp);
	}
}

int cmd_bench(int argc, char **argv)
{
	static const char bench_doc[] =
		"Time mremap(MREMAP_MAYMOVE|MREMAP_FIXED[|RELOCATE_ANON|MUST_RELOCATE_ANON]) of "
		"anonymous memory over a matrix of sizes, populated fractions, placements, backings, "
		"THP advice and flag variants.\vEach call is timed alone with CLOCK_MONOTONIC in the "
		"process that makes it, one forked process making every move in turn after one untimed "
		"move of a page (--fork-each: a fresh one each); population and verification are outside the timed region, and "
		"a data mismatch after a move is an error (exit 3), not a number. Variants are "
		"interleaved A B C A B C so drift falls on all alike; the ratio to plain is the median "
		"of the pair-by-pair ratios. A variant the kernel refuses (EINVAL without the relocate "
		"series) is reported unsupported. --plot needs gnuplot (optional).\n\n"
		"Placements (-A): pte, pmd and pud place the source and destination as "
		"mremap_test.c does for that alignment A: the source at the lowest free address "
		"at or above vm.mmap_min_addr that is a multiple of A but not of 2A, the "
		"destination at the first free such address past A beyond its end. For pte their "
		"offsets within a PMD differ, so every PTE is moved alone. relative puts both one "
		"page past a PMD boundary (the kernel moves whole page tables and may realign the "
		"move); misaligned puts the source one page and the destination three pages past "
		"one (it cannot). --preset mremap_test is its three 1 GiB cases: pte, pmd, pud, "
		"shmem, no THP advice, every page written.";
	struct argp argp = { bench_options, bench_parse, NULL, bench_doc, NULL, NULL, NULL };
	struct bench_args a = { .repeat = 7, .format = OUT_TEXT };
	int rc = EXIT_PASS;

	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return EXIT_USAGE;
	/* mremap_test's perf_test_cases: 1 GiB, every byte written (-t 1024),
	 * MAP_SHARED | MAP_ANONYMOUS, no advice, a plain move */
	if (a.preset_mremap_test) {
		a.nsizes = 1, a.sizes[0] = 1ull << 30;
		a.npopulate = 1, a.populate[0] = 100;
		if (!a.naligns)
			a.naligns = 3, a.aligns[0] = ALIGN_PTE, a.aligns[1] = ALIGN_PMD, a.aligns[2] = ALIGN_PUD;
		if (!a.nbackings)
			a.nbackings = 1, a.backings[0] = BACK_SHMEM;
		if (!a.nthps)
			a.nthps = 1, a.thps[0] = THP_NONE;
		if (!a.nvariants)
			a.nvariants = 1, a.variants[0] = 0;
	}
	if (!a.nsizes) {
		static const uint64_t d[] = { 4096, 65536, 2 << 20, 32 << 20, 256 << 20, 1ull << 30 };
		a.nsizes = 6;
		memcpy(a.sizes, d, sizeof(d));
	}
	if (!a.npopulate) {
		static const int d[] = { 0, 10, 50, 100 };
		a.npopulate = 4;
		memcpy(a.populate, d, sizeof(d));
	}
	if (!a.naligns)
		a.naligns = 2, a.aligns[0] = ALIGN_PTE, a.aligns[1] = ALIGN_PMD;
	if (!a.nbackings)
		a.nbackings = 1, a.backings[0] = BACK_ANON;
	if (!a.nthps)
		a.nthps = 2, a.thps[0] = THP_NO, a.thps[1] = THP_HUGE;
	if (!a.nvariants)
		a.nvariants = 3, a.variants[0] = 0, a.variants[1] = 1, a.variants[2] = 2;
	/* the ratio needs plain: it is measured even when not asked, reported only when asked */

	cJSON *doc = cJSON_CreateObject();
	cJSON_AddNumberToObject(doc, "anonremap", FORMAT_VERSION);
	cJSON_AddStringToObject(doc, "version", PACKAGE_VERSION);
	cJSON_AddItemToObject(doc, "kernel", kinfo_json(true));
	cJSON *b = cJSON_AddObjectToObject(doc, "bench");
	cJSON_AddNumberToObject(b, "repeat", a.repeat);
	cJSON_AddStringToObject(b, "clock", "CLOCK_MONOTONIC around the mremap system call (uffd_move: the UFFDIO_MOVE ioctl) alone");
	cJSON_AddStringToObject(b, "process", a.fork_each ? "fork_each" : "one");
	cJSON *points = cJSON_AddArrayToObject(doc, "points");
	bool unsupported[NV] = { false };
	int64_t *t = xcalloc((size_t)a.repeat * NV, sizeof(int64_t));
	struct worker w = { 0 };

	for (int si = 0; si < a.nsizes && !run_interrupted; si++)
	for (int pi = 0; pi < a.npopulate; pi++)
	for (int ai = 0; ai < a.naligns; ai++)
	for (int bi = 0; bi < a.nbackings; bi++)
	for (int hi = 0; hi < a.nthps; hi++) {
		int errs[NV] = { EINVAL, EINVAL, EINVAL, EINVAL };
		uint64_t where[NV][2] = { { 0 } }; /* a variant's first successful move */
		int n = 0;
		for (int k = 0; k < a.repeat * NV; k++)
			t[k] = -1; /* not measured: a skipped or refused variant */
		/* A B C, A B C ...: plain first in every round, for the pairwise ratio */
		for (int r = 0; r < a.repeat; r++, n++)
			for (int v = 0; v < NV; v++) {
				bool asked = false;
				for (int k = 0; k < a.nvariants; k++)
					asked |= a.variants[k] == v;
				if ((!asked && v) || unsupported[v])
					continue;
				if (v == V_UFFD_MOVE && a.backings[bi] != BACK_ANON) {
					/* UFFDIO_MOVE moves private anonymous pages only */
					errs[v] = EOPNOTSUPP;
					continue;
				}
				struct sample s;
				struct request q;
				/* it goes down a pipe whole: no uninitialised padding (valgrind) */
				memset(&q, 0, sizeof(q));
				q = (struct request){ a.sizes[si], a.populate[pi], a.aligns[ai], a.backings[bi],
						      a.thps[hi], v };
				measure(&w, a.fork_each, &q, &s);
				if (s.bad) {
					fprintf(stderr, "anonremap: bench: data differs after %s move of %" PRIu64 " bytes\n",
						variant_names[v], a.sizes[si]);
					rc = EXIT_ERROR;
					s.ns = -1; /* not a number to report */
					s.err = EIO;
				}
				if (s.ns < 0) {
					errs[v] = s.err;
					if (s.err == EINVAL && v)
						unsupported[v] = true;
					t[v * a.repeat + r] = -1;
				} else {
					t[v * a.repeat + r] = s.ns;
					if (!where[v][0])
						where[v][0] = s.src, where[v][1] = s.dst;
				}
			}
		for (int v = 0; v < NV; v++) {
			bool asked = false;
			for (int k = 0; k < a.nvariants; k++)
				asked |= a.variants[k] == v;
			if (!asked)
				continue;
			cJSON *p = cJSON_CreateObject();
			cJSON_AddNumberToObject(p, "size", (double)a.sizes[si]);
			cJSON_AddNumberToObject(p, "populate", a.populate[pi]);
			cJSON_AddStringToObject(p, "align", align_names[a.aligns[ai]]);
			cJSON_AddStringToObject(p, "backing", backing_names[a.backings[bi]]);
			cJSON_AddStringToObject(p, "thp", thp_names[a.thps[hi]]);
			cJSON_AddStringToObject(p, "variant", variant_names[v]);
			int64_t *tv = &t[v * a.repeat], sorted[10000], ratios[10000];
			int ok = 0, nr = 0;
			for (int r = 0; r < n; r++) {
				if (tv[r] < 0)
					continue;
				sorted[ok++] = tv[r];
				if (v && t[r] > 0) /* pair by pair with plain, x1000 to keep integers */
					ratios[nr++] = tv[r] * 1000 / t[r];
			}
			cJSON_AddBoolToObject(p, "supported", ok > 0);
			if (where[v][0]) {
				char h[32];
				hex_format(where[v][0], h, sizeof(h));
				cJSON_AddStringToObject(p, "source", h);
				hex_format(where[v][1], h, sizeof(h));
				cJSON_AddStringToObject(p, "destination", h);
			}
			if (!ok) {
				cJSON_AddStringToObject(p, "errno", errno_name(errs[v] ? errs[v] : EINVAL));
			} else {
				qsort(sorted, ok, sizeof(int64_t), cmp_i64);
				cJSON_AddNumberToObject(p, "n", ok);
				cJSON_AddNumberToObject(p, "min_ns", (double)sorted[0]);
				cJSON_AddNumberToObject(p, "median_ns", pct_of(sorted, ok, 0.5));
				cJSON_AddNumberToObject(p, "p90_ns", pct_of(sorted, ok, 0.9));
				cJSON_AddNumberToObject(p, "max_ns", (double)sorted[ok - 1]);
				if (nr) {
					qsort(ratios, nr, sizeof(int64_t), cmp_i64);
					cJSON_AddNumberToObject(p, "ratio_to_plain", pct_of(ratios, nr, 0.5) / 1000.0);
				}
			}
			cJSON_AddItemToArray(points, p);
		}
	}
	worker_stop(&w);
	free(t);
	if (a.plot)
		plot(points, a.plot);
	struct err err;
	if (a.output) {
		if (out_to_file(doc, OUT_JSON, a.output, &err)) {
			fprintf(stderr, "anonremap: %s\n", err.msg);
			rc = EXIT_ERROR;
		}
	}
	if (a.format == OUT_JSON && !a.output)
		out_json(doc, stdout);
	else if (a.format == OUT_TEXT)
		text(doc, stdout);
	if (fflush(stdout))
		rc = EXIT_ERROR;
	cJSON_Delete(doc);
	return rc;
}
