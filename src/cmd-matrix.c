/* SPDX-License-Identifier: GPL-2.0-or-later */
/* anonremap matrix: every merge case of matrix.c, each a generated scenario
 * run on this kernel, as one table. */
#include "anonremap.h"
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct matrix_args {
	struct proc_opts po;
	unsigned mask[MX_AXES]; /* chosen values of each axis; 0: all */
	enum out_format format;
	const char *output, *emit;
};

static const struct argp_option matrix_options[] = {
	{ "op", 'p', "LIST", 0, "operations: move, relocate, must_relocate, dontunmap, mprotect, mmap, uffd_move", 0 },
	{ "target", 'T', "LIST", 0, "the moved or changed VMA: unfaulted, faulted, partly, thp, forked, file (a private memfd mapping), ksm (KSM-merged pages; needs ksmd running)", 0 },
	{ "prev", 'P', "LIST", 0, "the neighbour before it: none, unfaulted, faulted, shared, prot, file", 0 },
	{ "next", 'N', "LIST", 0, "the neighbour after it (as --prev)", 0 },
	{ "placement", 'l', "LIST", 0, "placed (born where it lands: page offset linear) or unplaced", 0 },
	{ "format", 'f', "FORMAT", 0, "text (default) or json", 0 },
	{ "output", 'o', "FILE", 0, "also write the JSON matrix to FILE", 0 },
	{ "emit", 'e', "DIR", 0, "write each case's scenario to DIR/ID.json and run nothing", 0 },
	{ 0 }
};

static void axis_option(struct argp_state *state, int axis, char *arg, unsigned *mask)
{
	char opt[32];

	snprintf(opt, sizeof(opt), "--%s", matrix_axis_names[axis]);
	*mask |= name_list_option(state, opt, arg, matrix_axis_values[axis], -1, 0, NULL);
}

static error_t matrix_parse(int key, char *arg, struct argp_state *state)
{
	struct matrix_args *a = state->input;
	static const char keys[MX_AXES] = { 'p', 'T', 'P', 'N', 'l' };

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &a->po;
		return 0;
	case 'f':
		return format_option(state, arg, &a->format, false);
	case 'o':
		a->output = output_file_arg(state, "--output", arg);
		return 0;
	case 'e':
		a->emit = arg;
		return 0;
	case ARGP_KEY_ARG:
		argp_error(state, "no arguments: the cases are chosen with options");
		return 0;
	default:
		for (int i = 0; i < MX_AXES; i++)
			if (key == keys[i]) {
				axis_option(state, i, arg, &a->mask[i]);
				return 0;
			}
		return ARGP_ERR_UNKNOWN;
	}
}

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* The next case in the axes' order (op slowest), or false after the last. */
static bool next_case(struct matrix_case *c)
{
	for (int a = MX_AXES - 1; a >= 0; a--) {
		if (matrix_axis_values[a][++c->v[a]])
			return true;
		c->v[a] = 0;
	}
	return false;
}

static bool chosen(const struct matrix_args *a, const struct matrix_case *c)
{
	for (int i = 0; i < MX_AXES; i++)
		if (a->mask[i] && !(a->mask[i] & (1u << c->v[i])))
			return false;
	return matrix_case_valid(c);
}

static int emit(const struct matrix_args *a, const struct matrix_case *c, cJSON *sc)
{
	char id[128], path[PATH_MAX];
	struct err err;

	matrix_case_id(c, id, sizeof(id));
	snprintf(path, sizeof(path), "%s/%s.json", a->emit, id);
	if (out_to_file(sc, OUT_JSON, path, &err)) {
		fprintf(stderr, "anonremap: matrix: %s\n", err.msg);
		return -1;
	}
	return 0;
}

static cJSON *run_case(const struct matrix_args *a, const struct matrix_case *c, cJSON *sc, int op_step)
{
	struct scenario *s;
	struct err err;
	int st;

	if (scenario_from_json("<matrix>", sc, &a->po.lo, &s, &err)) {
		/* a generated scenario the loader refuses is anonremap's bug */
		cJSON *cell = cJSON_CreateObject();
		char id[128];
		matrix_case_id(c, id, sizeof(id));
		cJSON_AddStringToObject(cell, "id", id);
		cJSON_AddStringToObject(cell, "status", "error");
		cJSON_AddStringToObject(cell, "reason", err.msg);
		return cell;
	}
	cJSON *res = run_scenario(s, &a->po.ro, &st);
	cJSON *cell = matrix_outcome(c, res, op_step);
	cJSON_Delete(res);
	scenario_free(s);
	return cell;
}

static void text(const cJSON *doc, FILE *fp)
{
	const cJSON *m = cJSON_GetObjectItem(doc, "matrix"), *c;

	fprintf(fp, "merge matrix on Linux %s: %d cases\n",
		cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "kernel"), "release")),
		cJSON_GetArraySize(cJSON_GetObjectItem(m, "cases")));
	fprintf(fp, "%-13s %-9s %-9s %-9s %-8s  %-6s %-8s %s\n", "op", "target", "prev", "next", "placed", "merged",
		"errno", "vmas");
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(m, "cases")) {
		const char *st = cJSON_GetStringValue(cJSON_GetObjectItem(c, "status"));
		fprintf(fp, "%-13s %-9s %-9s %-9s %-8s  ", cJSON_GetStringValue(cJSON_GetObjectItem(c, "op")),
			cJSON_GetStringValue(cJSON_GetObjectItem(c, "target")),
			cJSON_GetStringValue(cJSON_GetObjectItem(c, "prev")),
			cJSON_GetStringValue(cJSON_GetObjectItem(c, "next")),
			cJSON_GetStringValue(cJSON_GetObjectItem(c, "placement")));
		if (strcmp(st, "ran")) {
			fprintf(fp, "%s: %s\n", st, esc_text(cJSON_GetStringValue(cJSON_GetObjectItem(c, "reason"))));
			continue;
		}
		const char *e = cJSON_GetStringValue(cJSON_GetObjectItem(c, "errno"));
		fprintf(fp, "%-6s %-8s %d\n", cJSON_GetStringValue(cJSON_GetObjectItem(c, "merged")), e ? e : "-",
			(int)cJSON_GetNumberValue(cJSON_GetObjectItem(c, "vmas")));
	}
	const cJSON *s = cJSON_GetObjectItem(m, "summary");
	fprintf(fp, "%d ran (merged: %d both, %d prev, %d next, %d none; %d calls failed), %d unsupported, %d errors\n",
		(int)cJSON_GetNumberValue(cJSON_GetObjectItem(s, "ran")),
		(int)cJSON_GetNumberValue(cJSON_GetObjectItem(s, "both")),
		(int)cJSON_GetNumberValue(cJSON_GetObjectItem(s, "prev")),
		(int)cJSON_GetNumberValue(cJSON_GetObjectItem(s, "next")),
		(int)cJSON_GetNumberValue(cJSON_GetObjectItem(s, "none")),
		(int)cJSON_GetNumberValue(cJSON_GetObjectItem(s, "failed")),
		(int)cJSON_GetNumberValue(cJSON_GetObjectItem(s, "unsupported")),
		(int)cJSON_GetNumberValue(cJSON_GetObjectItem(s, "error")));
	esc_release();
}

static void summarize(cJSON *m)
{
	static const char *const keys[] = { "ran", "unsupported", "error", "both", "prev", "next", "none", "failed" };
	double n[8] = { 0 };
	const cJSON *c;

	cJSON_ArrayForEach(c, cJSON_GetObjectItem(m, "cases")) {
		const char *st = cJSON_GetStringValue(cJSON_GetObjectItem(c, "status"));
		n[!strcmp(st, "ran") ? 0 : !strcmp(st, "unsupported") ? 1 : 2]++;
		const char *mg = cJSON_GetStringValue(cJSON_GetObjectItem(c, "merged"));
		for (int k = 3; mg && k < 7; k++)
			n[k] += !strcmp(mg, keys[k]);
		n[7] += cJSON_GetStringValue(cJSON_GetObjectItem(c, "errno")) != NULL;
	}
	cJSON *s = cJSON_AddObjectToObject(m, "summary");
	for (int k = 0; k < 8; k++)
		cJSON_AddNumberToObject(s, keys[k], n[k]);
}

int cmd_matrix(int argc, char **argv)
{
	static const char doc[] =
		"Run every merge case (operation x target x prev x next x placement), each a generated "
		"scenario, and print what this kernel did: which neighbours the result merged with, the "
		"errno, the VMAs of the window.\vEach LIST is comma-separated; an axis not given takes all "
		"its values. 'anonremap diff A B' of two matrix results shows the cells that changed. "
		"Exit status: 0 every case ran or was unsupported, 2 usage, 3 a case could not be run.";
	static const struct argp_child children[] = { { &proc_argp, 0, NULL, 1 }, { 0 } };
	struct argp argp = { matrix_options, matrix_parse, NULL, doc, children, NULL, NULL };
	struct matrix_args a = { .format = OUT_TEXT };
	int rc = EXIT_PASS;

	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return EXIT_USAGE;
	if (a.emit && mkdir(a.emit, 0777) && errno != EEXIST) {
		fprintf(stderr, "anonremap: matrix: %s: %s\n", a.emit, strerror(errno));
		return EXIT_ERROR;
	}
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	cJSON *out = cJSON_CreateObject();
	cJSON_AddNumberToObject(out, "anonremap", FORMAT_VERSION);
	cJSON_AddStringToObject(out, "version", PACKAGE_VERSION);
	cJSON_AddItemToObject(out, "kernel", kinfo_json(true));
	/* a result document with no scenarios of its own, so that diff, show
	 * and the result checks read it as they read any result */
	cJSON_AddArrayToObject(out, "scenarios");
	cJSON *m = cJSON_AddObjectToObject(out, "matrix");
	cJSON *axes = cJSON_AddObjectToObject(m, "axes");
	for (int i = 0; i < MX_AXES; i++) {
		cJSON *l = cJSON_AddArrayToObject(axes, matrix_axis_names[i]);
		for (int v = 0; matrix_axis_values[i][v]; v++)
			if (!a.mask[i] || a.mask[i] & (1u << v))
				cJSON_AddItemToArray(l, cJSON_CreateString(matrix_axis_values[i][v]));
	}
	cJSON *cases = cJSON_AddArrayToObject(m, "cases");
	struct matrix_case c = { { 0 } };
	int n = 0;
	do {
		if (!chosen(&a, &c))
			continue;
		int op_step;
		cJSON *sc = matrix_scenario(&c, &op_step);
		n++;
		if (a.emit) {
			if (emit(&a, &c, sc))
				rc = EXIT_ERROR;
			cJSON_Delete(sc);
			continue;
		}
		cJSON *cell = run_case(&a, &c, sc, op_step); /* takes sc */
		if (!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(cell, "status")), "error"))
			rc = EXIT_ERROR;
		cJSON_AddItemToArray(cases, cell);
	} while (!interrupted && next_case(&c));
	if (a.emit) {
		if (!rc)
			fprintf(stderr, "anonremap: matrix: %d scenarios in %s\n", n, a.emit);
		cJSON_Delete(out);
		return rc;
	}
	summarize(m);
	if (interrupted) {
		cJSON_AddTrueToObject(out, "interrupted");
		rc = EXIT_ERROR;
	}
	if (a.output && emit_result(out, OUT_JSON, a.output))
		rc = EXIT_ERROR;
	if (a.format == OUT_JSON) {
		if (out_json(out, stdout) || fflush(stdout))
			rc = EXIT_ERROR;
	} else {
		text(out, stdout);
	}
	cJSON_Delete(out);
	return rc;
}
