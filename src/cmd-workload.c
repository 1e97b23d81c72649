/* SPDX-License-Identifier: GPL-2.0-or-later */
/* anonremap workload art-gc: ART's GC cycle, N times, in each strategy (one
 * generated scenario each, workload-art.c), run on this kernel in one
 * process, as one table of cycles and the ratios between strategies. */
#include "anonremap.h"
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct workload_args {
	struct proc_opts po;
	struct wl_params p;
	unsigned strategies; /* bit per strategy; 0: all */
	enum out_format format;
	const char *output, *emit, *plot, *name;
};

static const struct argp_option workload_options[] = {
	{ "cycles", 'n', "N", 0, "GC cycles (default 5)", 0 },
	{ "heap", 'H', "SIZE", 0, "the moving space: a whole number of PMDs, at least 2 (default 4pmd)", 0 },
	{ "live", 'L', "FRACTION", 0, "the live fraction of the used part, 0 to 1 (default 0.5)", 0 },
	{ "chunks", 'c', "N", 0, "objects in the used part, 1 to 64 (default 16)", 0 },
	{ "strategy", 's', "LIST", 0, "art, no-workaround, relocate, uffd-move (default: all)", 0 },
	{ "format", 'f', "FORMAT", 0, "text (default) or json", 0 },
	{ "output", 'o', "FILE", 0, "also write the JSON document to FILE", 0 },
	{ "emit", 'e', "DIR", 0, "write each strategy's scenario to DIR/NAME.json and run nothing", 0 },
	{ "plot", 'p', "FILE", 0, "also write a gnuplot script with the cycles' data to FILE", 0 },
	{ 0 }
};

static long whole(struct argp_state *state, const char *what, const char *arg, long lo, long hi)
{
	char *end;
	errno = 0;
	long v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < lo || v > hi)
		argp_error(state, "--%s: '%s' is not a whole number from %ld to %ld", what, arg, lo, hi);
	return v;
}

static error_t workload_parse(int key, char *arg, struct argp_state *state)
{
	struct workload_args *a = state->input;
	struct err err;
	uint64_t bytes;
	char *end;

	switch (key) {
	case 'n':
		a->p.cycles = (int)whole(state, "cycles", arg, 1, 1000);
		return 0;
	case 'c':
		a->p.chunks = (int)whole(state, "chunks", arg, 1, WL_MAX_CHUNKS);
		return 0;
	case 'H':
		if (size_parse(arg, &bytes, &err))
			argp_error(state, "--heap: %s", err.msg);
		if (bytes % kinfo.pmd_size || bytes < 2 * kinfo.pmd_size || bytes > 512 * kinfo.pmd_size)
			argp_error(state, "--heap: '%s' is not a whole number of PMDs from 2 to 512", arg);
		a->p.heap_pages = (long)(bytes / kinfo.page_size);
		return 0;
	case 'L':
		errno = 0;
		a->p.live = strtod(arg, &end);
		if (errno || end == arg || *end || !(a->p.live >= 0 && a->p.live <= 1))
			argp_error(state, "--live: '%s' is not a fraction from 0 to 1", arg);
		return 0;
	case 's':
		a->strategies |= name_list_option(state, "--strategy", arg, wl_strategy_names, WL_NSTRATEGIES, 0, NULL);
		return 0;
	case 'f':
		return format_option(state, arg, &a->format, false);
	case 'o':
		a->output = output_file_arg(state, "--output", arg);
		return 0;
	case 'e':
		a->emit = arg;
		return 0;
	case 'p':
		a->plot = output_file_arg(state, "--plot", arg);
		return 0;
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &a->po;
		return 0;
	case ARGP_KEY_ARG:
		if (a->name)
			argp_error(state, "one workload only");
		if (strcmp(arg, "art-gc"))
			argp_error(state, "'%s' is no workload: art-gc is the one there is", arg);
		a->name = arg;
		return 0;
	case ARGP_KEY_END:
		if (!a->name)
			argp_error(state, "a workload is needed: art-gc");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* One strategy's scenario run: its cycles, totals, and how it ended. It
 * takes sc, as scenario_from_json does. */
static cJSON *run_strategy(const struct workload_args *a, int s, cJSON *sc, int *rc)
{
	cJSON *o = cJSON_CreateObject();
	struct scenario *scen;
	struct err err;
	int st;

	cJSON_AddStringToObject(o, "name", wl_strategy_names[s]);
	cJSON_AddStringToObject(o, "description", wl_strategy_describe(s));
	if (scenario_from_json("<art-gc>", sc, &a->po.lo, &scen, &err)) {
		/* a generated scenario the loader refuses is anonremap's bug */
		cJSON_AddStringToObject(o, "status", "error");
		cJSON_AddStringToObject(o, "reason", err.msg);
		*rc = EXIT_ERROR;
		return o;
	}
	cJSON *res = run_scenario(scen, &a->po.ro, &st);
	scenario_free(scen);
	const cJSON *r0 = res; /* the scenario's own result */
	const char *status = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r0, "status"));
	const char *reason = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r0, "reason"));
	if (reason && !*reason)
		reason = NULL;
	/* a strategy the kernel lacks (the series, UFFDIO_MOVE) is a skip with
	 * the probe's reason, errno included */
	bool skipped = status && !strcmp(status, "skip");
	cJSON_AddStringToObject(o, "status", skipped ? "unsupported" : status && !strcmp(status, "pass") ? "ran" : "stopped");
	if (reason)
		cJSON_AddStringToObject(o, "reason", reason);
	if (!skipped && status && strcmp(status, "pass") && strcmp(status, "fail"))
		*rc = EXIT_ERROR; /* died, hung or could not start */
	if (!skipped) {
		long C = (a->p.heap_pages - (long)(kinfo.pmd_size / kinfo.page_size)) / a->p.chunks;
		cJSON *cycles = wl_art_cycles(r0, C);
		cJSON *t = cJSON_CreateObject();
		static const char *const sum[] = { "pause_ns", "compact_ns", "end_ns", "failed_calls", "verified_pages",
						   "verify_ns" };
		double total = 0, maxv = 0;
		for (size_t k = 0; k < sizeof(sum) / sizeof(sum[0]); k++) {
			double v = 0;
			const cJSON *c;
			cJSON_ArrayForEach(c, cycles)
				if (!isnan(num(c, sum[k])))
					v += num(c, sum[k]);
			cJSON_AddNumberToObject(t, sum[k], v);
			if (k < 3)
				total += v;
		}
		const cJSON *c;
		cJSON_ArrayForEach(c, cycles)
			if (num(c, "heap_vmas") > maxv)
				maxv = num(c, "heap_vmas");
		cJSON_AddNumberToObject(t, "time_ns", total);
		cJSON_AddNumberToObject(t, "max_heap_vmas", maxv);
		cJSON_AddItemToObject(o, "totals", t);
		cJSON_AddItemToObject(o, "cycles", cycles);
	}
	cJSON_Delete(res);
	return o;
}

static bool ran_all(const cJSON *s)
{
	const char *st = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "status"));
	return st && !strcmp(st, "ran");
}

/* Each strategy's time over the first one's that ran (art, unless left
 * out). One that stopped early has no ratio: its cycles are not all there. */
static void ratios(cJSON *strats)
{
	const cJSON *base = NULL, *s;
	cJSON_ArrayForEach(s, strats)
		if (!base && ran_all(s))
			base = s;
	if (!base)
		return;
	const cJSON *bt = cJSON_GetObjectItemCaseSensitive(base, "totals");
	cJSON_ArrayForEach(s, strats) {
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(s, "totals");
		if (!t || !ran_all(s))
			continue;
		cJSON *r = cJSON_AddObjectToObject((cJSON *)s, "ratio");
		cJSON_AddStringToObject(r, "to", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(base, "name")));
		static const char *const k[] = { "time_ns", "pause_ns", "compact_ns", "end_ns" };
		for (int i = 0; i < 4; i++) {
			double b = num(bt, k[i]), v = num(t, k[i]);
			if (b > 0)
				cJSON_AddNumberToObject(r, k[i], (double)(long long)(v / b * 1000 + 0.5) / 1000);
			else
				cJSON_AddNullToObject(r, k[i]);
		}
	}
}

static void print_num(FILE *fp, const cJSON *o, const char *k, int w, double scale)
{
	double v = num(o, k);
	if (isnan(v))
		fprintf(fp, " %*s", w, "-");
	else
		fprintf(fp, " %*.0f", w, v / scale);
}

/* A cycle's row of the text table: its label is as wide as the column. */
static const struct {
	const char *label, *key;
	int width;
	bool slab; /* from the cycle's slab_delta */
	double scale;
} columns[] = {
	{ "cycle", "cycle", 5, false, 1 },
	{ "heap_vmas", "heap_vmas", 9, false, 1 },
	{ "from_vmas", "fromspace_vmas", 9, false, 1 },
	{ "d_vma", "vm_area_struct", 5, true, 1 },
	{ "d_anon_vma", "anon_vma", 10, true, 1 },
	{ "d_avc", "anon_vma_chain", 5, true, 1 },
	{ "failed", "failed_calls", 6, false, 1 },
	{ "verified", "verified_pages", 8, false, 1 },
	{ "pause_us", "pause_ns", 8, false, 1000 },
	{ "compact_us", "compact_ns", 10, false, 1000 },
	{ "end_us", "end_ns", 6, false, 1000 },
	{ "verify_us", "verify_ns", 9, false, 1000 },
};

static void text(const cJSON *doc, FILE *fp)
{
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(doc, "workload");
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(w, "params"), *s, *c;
	fprintf(fp, "art-gc: %.0f cycles, heap %.0f pages, %.0f chunks of %.0f pages, live %g\n",
		num(p, "cycles"), num(p, "heap_pages"), num(p, "chunks"), num(p, "chunk_pages"), num(p, "live"));
	cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(w, "strategies")) {
		const char *st = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "status"));
		const char *why = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "reason"));
		fprintf(fp, "\n%s (%s): %s%s", esc_text(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "name"))),
			cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "description")), st, why ? ": " : "");
		fprintf(fp, "%s\n", why ? esc_text(why) : "");
		if (!cJSON_GetObjectItemCaseSensitive(s, "cycles"))
			continue;
		fputc(' ', fp);
		for (size_t i = 0; i < sizeof(columns) / sizeof(columns[0]); i++)
			fprintf(fp, " %*s", columns[i].width, columns[i].label);
		fputc('\n', fp);
		cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(s, "cycles")) {
			const cJSON *sl = cJSON_GetObjectItemCaseSensitive(c, "slab_delta");
			fputc(' ', fp);
			for (size_t i = 0; i < sizeof(columns) / sizeof(columns[0]); i++)
				print_num(fp, columns[i].slab ? sl : c, columns[i].key, columns[i].width, columns[i].scale);
			fputc('\n', fp);
			const cJSON *f;
			cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(c, "failures"))
				fprintf(fp, "        failed: %s\n", esc_text(cJSON_GetStringValue(f)));
		}
		const cJSON *r = cJSON_GetObjectItemCaseSensitive(s, "ratio");
		if (r)
			fprintf(fp, "  time over %s's: %.3f (pause %.3f, compact %.3f, end %.3f)\n",
				cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "to")), num(r, "time_ns"),
				num(r, "pause_ns"), num(r, "compact_ns"), num(r, "end_ns"));
	}
}

/* A gnuplot script, its data inline: compaction time and heap VMAs a cycle,
 * one line a strategy that ran. 'gnuplot FILE' writes FILE.png. */
static int write_plot(const cJSON *doc, const char *path)
{
	FILE *fp = fopen(path, "w");
	if (!fp)
		return -1;
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(doc, "workload"), *s, *c;
	fprintf(fp, "# anonremap workload art-gc: run 'gnuplot %s'\n", path);
	int n = 0;
	cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(w, "strategies")) {
		if (!cJSON_GetObjectItemCaseSensitive(s, "cycles"))
			continue;
		fprintf(fp, "$s%d << EOD\n# cycle compact_us heap_vmas\n", n++);
		cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(s, "cycles"))
			fprintf(fp, "%.0f %.3f %.0f\n", num(c, "cycle"), num(c, "compact_ns") / 1000, num(c, "heap_vmas"));
		fprintf(fp, "EOD\n");
	}
	fprintf(fp, "set terminal png size 900,600\nset output '%s.png'\nset multiplot layout 2,1\n"
		    "set xlabel 'cycle'\nset ylabel 'compaction (us)'\n", path);
	for (int pass = 0; pass < 2; pass++) {
		if (pass)
			fprintf(fp, "set ylabel 'VMAs in the heap'\n");
		fprintf(fp, "plot ");
		int i = 0;
		cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(w, "strategies")) {
			if (!cJSON_GetObjectItemCaseSensitive(s, "cycles"))
				continue;
			fprintf(fp, "%s$s%d using 1:%d with linespoints title '%s'", i ? ", " : "", i, pass ? 3 : 2,
				cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "name")));
			i++;
		}
		fprintf(fp, i ? "\n" : "0 notitle\n");
	}
	fprintf(fp, "unset multiplot\n");
	return fclose(fp);
}

int cmd_workload(int argc, char **argv)
{
	static const char doc[] =
		"Run a workload: art-gc, Android ART's concurrent mark-compact GC cycle (as scenarios/art_gc_cycle* "
		"replay one) repeated over a heap, in four strategies: art (ART's workaround, UFFDIO_COPY), "
		"no-workaround, relocate (no workaround, MREMAP_RELOCATE_ANON on the move) and uffd-move (UFFDIO_MOVE "
		"instead of copy). Each strategy is one generated scenario; a cycle's row gives the VMAs of the heap "
		"and the from-space after it, the system-wide slab deltas of vm_area_struct, anon_vma and "
		"anon_vma_chain over it, the calls that failed, the pages verified and each phase's time.\v"
		"Times are ratios to the first strategy run, measured in one run: under an emulated clock (QEMU's "
		"TCG) only ratios mean anything. A strategy this kernel lacks is reported unsupported, with the "
		"probe's reason. Exit status: 0 every strategy ran, stopped at a failed call, or was unsupported, "
		"2 usage, 3 a strategy's scenario process died or hung.";
	static const struct argp_child children[] = { { &proc_argp, 0, NULL, 1 }, { 0 } };
	struct argp argp = { workload_options, workload_parse, "art-gc", doc, children, NULL, NULL };
	struct workload_args a = { .format = OUT_TEXT, .p = { .cycles = 5, .live = 0.5, .chunks = 16 } };
	int rc = EXIT_PASS;

	a.p.heap_pages = (long)(4 * kinfo.pmd_size / kinfo.page_size);
	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return EXIT_USAGE;
	long pmd = (long)(kinfo.pmd_size / kinfo.page_size), C = (a.p.heap_pages - pmd) / a.p.chunks;
	if (C < 1) {
		fprintf(stderr, "anonremap: workload: --chunks %d: more chunks than the used part's %ld pages\n",
			a.p.chunks, a.p.heap_pages - pmd);
		return EXIT_USAGE;
	}
	/* the longest cycle: every chunk live, copied and verified */
	long steps = 4L + a.p.chunks + 3 + (long)(a.p.cycles) * (10L + 2 * a.p.chunks);
	if (steps > MAX_STEPS) {
		fprintf(stderr, "anonremap: workload: %d cycles of %d chunks take up to %ld steps, more than a scenario's %d\n",
			a.p.cycles, a.p.chunks, steps, MAX_STEPS);
		return EXIT_USAGE;
	}
	if (a.emit && mkdir(a.emit, 0777) && errno != EEXIST) {
		fprintf(stderr, "anonremap: workload: %s: %s\n", a.emit, strerror(errno));
		return EXIT_ERROR;
	}

	cJSON *out = cJSON_CreateObject();
	cJSON_AddNumberToObject(out, "anonremap", FORMAT_VERSION);
	cJSON_AddStringToObject(out, "version", PACKAGE_VERSION);
	cJSON_AddItemToObject(out, "kernel", kinfo_json(true));
	cJSON *w = cJSON_AddObjectToObject(out, "workload");
	cJSON_AddStringToObject(w, "name", "art-gc");
	cJSON *p = cJSON_AddObjectToObject(w, "params");
	cJSON_AddNumberToObject(p, "cycles", a.p.cycles);
	cJSON_AddNumberToObject(p, "heap_pages", (double)a.p.heap_pages);
	/* registered and compacted: the heap less its unused PMD; the chunks
	 * fill it but for the remainder of the division */
	cJSON_AddNumberToObject(p, "used_pages", (double)(a.p.heap_pages - pmd));
	cJSON_AddNumberToObject(p, "chunks", a.p.chunks);
	cJSON_AddNumberToObject(p, "chunk_pages", (double)C);
	cJSON_AddNumberToObject(p, "live", a.p.live);
	cJSON *strats = cJSON_AddArrayToObject(w, "strategies");
	for (int s = 0; s < WL_NSTRATEGIES; s++) {
		if (a.strategies && !(a.strategies & (1u << s)))
			continue;
		cJSON *sc = wl_art_scenario(&a.p, s);
		if (a.emit) {
			char path[PATH_MAX];
			struct err err;
			snprintf(path, sizeof(path), "%s/%s.json", a.emit,
				 cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sc, "name")));
			if (out_to_file(sc, OUT_JSON, path, &err)) {
				fprintf(stderr, "anonremap: workload: %s\n", err.msg);
				rc = EXIT_ERROR;
			}
			cJSON_Delete(sc);
		} else {
			cJSON_AddItemToArray(strats, run_strategy(&a, s, sc, &rc)); /* takes sc */
		}
	}
	if (a.emit) {
		cJSON_Delete(out);
		return rc;
	}
	ratios(strats);
	if (a.output && emit_result(out, OUT_JSON, a.output))
		rc = EXIT_ERROR;
	if (a.plot && write_plot(out, a.plot)) {
		fprintf(stderr, "anonremap: workload: --plot %s: %s\n", a.plot, strerror(errno));
		rc = EXIT_ERROR;
	}
	if (a.format == OUT_JSON) {
		if (out_json(out, stdout) || fflush(stdout))
			rc = EXIT_ERROR;
	} else {
		text(out, stdout);
	}
	cJSON_Delete(out);
	return rc;
}
