/* SPDX-License-Identifier: GPL-2.0-or-later */
/* anonremap bench: time mremap(MAYMOVE|FIXED[|RELOCATE_ANON...]) of anonymous
 * memory over sizes, populated fractions, alignments, THP advice and flag
 * variants. Each call is timed alone, in the process that makes it; setup,
 * population and verification stay outside the timed region. */
#include "anonremap.h"
#include "compat.h"
#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_POINTS 32

enum { ALIGN_PTE, ALIGN_PMD, ALIGN_PUD };
static const char *const align_names[] = { "pte", "pmd", "pud" };
static const char *const variant_names[] = { "plain", "relocate_anon", "must_relocate_anon" };
static const uint64_t variant_flags[] = { 0, MREMAP_RELOCATE_ANON, MREMAP_MUST_RELOCATE_ANON };

struct bench_args {
	uint64_t sizes[MAX_POINTS];
	int nsizes;
	int populate[MAX_POINTS]; /* percent */
	int npopulate;
	int aligns[3], naligns;
	int thps[2], nthps; /* 1 hugepage, 0 nohugepage */
	int variants[3], nvariants;
	int repeat;
	enum out_format format;
	const char *output, *plot;
	bool preset_mremap_test;
};

static const struct argp_option bench_options[] = {
	{ "sizes", 's', "LIST", 0, "sizes to move (default 4k,64k,2m,32m,256m,1g)", 0 },
	{ "populate", 'p', "LIST", 0, "populated percentages (default 0,10,50,100)", 0 },
	{ "align", 'A', "LIST", 0, "source and destination alignment: pte, pmd, pud (default pte,pmd)", 0 },
	{ "thp", 'H', "LIST", 0, "hugepage, nohugepage (default both)", 0 },
	{ "variants", 'V', "LIST", 0, "plain, relocate_anon, must_relocate_anon (default all)", 0 },
	{ "repeat", 'r', "N", 0, "measurements per point and variant (default 7)", 0 },
	{ "preset", 'P', "NAME", 0, "mremap_test: its three 1 GiB cases (PTE, PMD, PUD aligned, fully populated)", 0 },
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
		n = split(arg, tok, 3);
		for (a->naligns = 0; a->naligns < n; a->naligns++)
			if ((a->aligns[a->naligns] = find(align_names, 3, tok[a->naligns])) < 0)
				argp_error(state, "--align: '%s' is not pte, pmd or pud", tok[a->naligns]);
		return 0;
	case 'H':
		n = split(arg, tok, 2);
		for (a->nthps = 0; a->nthps < n; a->nthps++) {
			if (strcmp(tok[a->nthps], "hugepage") && strcmp(tok[a->nthps], "nohugepage"))
				argp_error(state, "--thp: '%s' is not hugepage or nohugepage", tok[a->nthps]);
			a->thps[a->nthps] = !strcmp(tok[a->nthps], "hugepage");
		}
		return 0;
	case 'V':
		n = split(arg, tok, 3);
		for (a->nvariants = 0; a->nvariants < n; a->nvariants++)
			if ((a->variants[a->nvariants] = find(variant_names, 3, tok[a->nvariants])) < 0)
				argp_error(state, "--variants: '%s' is not plain, relocate_anon or must_relocate_anon",
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
	case 'q':
		a->nsizes = 3;
		a->sizes[0] = 4096, a->sizes[1] = 2 << 20, a->sizes[2] = 32 << 20;
		a->npopulate = 2;
		a->populate[0] = 0, a->populate[1] = 100;
		a->naligns = 2;
		a->aligns[0] = ALIGN_PTE, a->aligns[1] = ALIGN_PMD;
		a->nthps = 1;
		a->thps[0] = 0;
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
};

/* One move, in a fresh process so each measurement starts from the same
 * state and no earlier move's page tables linger. */
static void measure(uint64_t size, int pct, int align, int thp, int variant, struct sample *out)
{
	int p[2];
	if (pipe(p)) {
		out->ns = -1;
		out->err = errno;
		return;
	}
	pid_t pid = fork();
	if (pid == 0) {
		struct sample s = { .ns = -1 };
		uint64_t a = align == ALIGN_PUD ? kinfo.pud_size : align == ALIGN_PMD ? kinfo.pmd_size : kinfo.page_size;
		uint64_t big = a == kinfo.pud_size ? a * 2 : kinfo.pud_size; /* the next alignment up */
		uint64_t span = size + big;
		uint64_t total = 2 * span + 2 * big;
		char *res = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (res == MAP_FAILED)
			goto send;
		/* aligned to a, but not to the next alignment up: as mremap_test places them */
		uint64_t base = ((uintptr_t)res + big - 1) & ~(big - 1);
		uint64_t src = base + (a == kinfo.page_size ? a : a == big ? 0 : a);
		uint64_t dst = base + ((span + big - 1) & ~(big - 1)) + (a == kinfo.page_size ? a : a == big ? 0 : a);
		if (mmap((void *)src, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
		    MAP_FAILED)
			goto send;
		madvise((void *)src, size, thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
		uint64_t n = size / kinfo.page_size;
		for (uint64_t i = 0; i < n; i++)
			if (populated(i, pct))
				*(uint64_t *)(src + i * kinfo.page_size) = word(i);
		uint64_t t0 = now_ns();
		long r = syscall(__NR_mremap, src, size, size, MREMAP_MAYMOVE | MREMAP_FIXED | variant_flags[variant], dst);
		uint64_t t1 = now_ns();
		if (r == -1) {
			s.err = errno;
			goto send;
		}
		s.ns = t1 - t0;
		for (uint64_t i = 0; i < n && !s.bad; i++)
			s.bad = *(uint64_t *)(dst + i * kinfo.page_size) != (populated(i, pct) ? word(i) : 0);
send:
		if (s.ns < 0 && !s.err)
			s.err = errno;
		write_full(p[1], &s, sizeof(s));
		_exit(0);
	}
	close(p[1]);
	out->ns = -1;
	out->err = EIO;
	if (pid > 0 && read_full(p[0], out, sizeof(*out)) <= 0) {
		out->ns = -1;
		out->err = EIO;
	}
	close(p[0]);
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
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
		char k[96];
		snprintf(k, sizeof(k), "%s %.0f%% %s %s", cJSON_GetStringValue(cJSON_GetObjectItem(p, "variant")),
			 cJSON_GetNumberValue(cJSON_GetObjectItem(p, "populate")),
			 cJSON_GetStringValue(cJSON_GetObjectItem(p, "align")),
			 cJSON_GetStringValue(cJSON_GetObjectItem(p, "thp")));
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
			char kk[96];
			snprintf(kk, sizeof(kk), "%s %.0f%% %s %s", cJSON_GetStringValue(cJSON_GetObjectItem(p, "variant")),
				 cJSON_GetNumberValue(cJSON_GetObjectItem(p, "populate")),
				 cJSON_GetStringValue(cJSON_GetObjectItem(p, "align")),
				 cJSON_GetStringValue(cJSON_GetObjectItem(p, "thp")));
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
	fprintf(fp, "mremap(MAYMOVE|FIXED[|flag]) on Linux %s, %.0f repetitions a point\n", kinfo.release,
		cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "bench"), "repeat")));
	fprintf(fp, "%10s %4s %4s %10s %-19s %10s %10s %10s %10s %8s\n", "size", "pop%", "algn", "thp", "variant",
		"min ns", "median ns", "p90 ns", "max ns", "x plain");
	cJSON_ArrayForEach(p, cJSON_GetObjectItem(doc, "points")) {
		fprintf(fp, "%10.0f %4.0f %4s %10s %-19s ", cJSON_GetNumberValue(cJSON_GetObjectItem(p, "size")),
			cJSON_GetNumberValue(cJSON_GetObjectItem(p, "populate")),
			cJSON_GetStringValue(cJSON_GetObjectItem(p, "align")),
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
		"anonymous memory over a matrix of sizes, populated fractions, alignments, THP "
		"advice and flag variants.\vEach call is timed alone with CLOCK_MONOTONIC in a fresh "
		"process that makes it; population and verification are outside the timed region, and "
		"a data mismatch after a move is an error (exit 3), not a number. Variants are "
		"interleaved A B C A B C so drift falls on all alike; the ratio to plain is the median "
		"of the pair-by-pair ratios. A variant the kernel refuses (EINVAL without the relocate "
		"series) is reported unsupported. --plot needs gnuplot (optional).";
	struct argp argp = { bench_options, bench_parse, NULL, bench_doc, NULL, NULL, NULL };
	struct bench_args a = { .repeat = 7, .format = OUT_TEXT };
	int rc = EXIT_PASS;

	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return EXIT_USAGE;
	if (a.preset_mremap_test) {
		a.nsizes = 1, a.sizes[0] = 1ull << 30;
		a.npopulate = 1, a.populate[0] = 100;
		a.naligns = 3, a.aligns[0] = ALIGN_PTE, a.aligns[1] = ALIGN_PMD, a.aligns[2] = ALIGN_PUD;
		if (!a.nthps)
			a.nthps = 1, a.thps[0] = 0;
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
	if (!a.nthps)
		a.nthps = 2, a.thps[0] = 0, a.thps[1] = 1;
	if (!a.nvariants)
		a.nvariants = 3, a.variants[0] = 0, a.variants[1] = 1, a.variants[2] = 2;
	/* the ratio needs plain: it is measured even when not asked, reported only when asked */

	cJSON *doc = cJSON_CreateObject();
	cJSON_AddNumberToObject(doc, "anonremap", FORMAT_VERSION);
	cJSON_AddStringToObject(doc, "version", PACKAGE_VERSION);
	cJSON_AddItemToObject(doc, "kernel", kinfo_json(true));
	cJSON *b = cJSON_AddObjectToObject(doc, "bench");
	cJSON_AddNumberToObject(b, "repeat", a.repeat);
	cJSON_AddStringToObject(b, "clock", "CLOCK_MONOTONIC around the mremap system call alone");
	cJSON *points = cJSON_AddArrayToObject(doc, "points");
	bool unsupported[3] = { false };
	int64_t *t = xcalloc((size_t)a.repeat * 3, sizeof(int64_t));

	for (int si = 0; si < a.nsizes && !run_interrupted; si++)
	for (int pi = 0; pi < a.npopulate; pi++)
	for (int ai = 0; ai < a.naligns; ai++)
	for (int hi = 0; hi < a.nthps; hi++) {
		int errs[3] = { EINVAL, EINVAL, EINVAL };
		int n = 0;
		for (int k = 0; k < a.repeat * 3; k++)
			t[k] = -1; /* not measured: a skipped or refused variant */
		/* A B C, A B C ...: plain first in every round, for the pairwise ratio */
		for (int r = 0; r < a.repeat; r++, n++)
			for (int v = 0; v < 3; v++) {
				bool asked = false;
				for (int k = 0; k < a.nvariants; k++)
					asked |= a.variants[k] == v;
				if ((!asked && v) || unsupported[v])
					continue;
				struct sample s;
				measure(a.sizes[si], a.populate[pi], a.aligns[ai], a.thps[hi], v, &s);
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
				}
			}
		for (int v = 0; v < 3; v++) {
			bool asked = false;
			for (int k = 0; k < a.nvariants; k++)
				asked |= a.variants[k] == v;
			if (!asked)
				continue;
			cJSON *p = cJSON_CreateObject();
			cJSON_AddNumberToObject(p, "size", (double)a.sizes[si]);
			cJSON_AddNumberToObject(p, "populate", a.populate[pi]);
			cJSON_AddStringToObject(p, "align", align_names[a.aligns[ai]]);
			cJSON_AddStringToObject(p, "thp", a.thps[hi] ? "hugepage" : "nohugepage");
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
