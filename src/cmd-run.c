/* SPDX-License-Identifier: GPL-2.0-or-later */
/* anonremap run: validate every scenario, then run each in its own process. */
#include "anonremap.h"
#include <argp.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

struct run_args {
	struct proc_opts po;
	enum out_format format;
	const char *output;
	const char *report;
	char **files;
	int nfiles;
	char **steps;     /* -e */
	int nsteps;
	int repeat;
	char **xtags;     /* -x */
	int nxtags;
};

static const struct argp_option run_options[] = {
	{ "format", 'f', "FORMAT", 0, "json (default), text or ktap", 0 },
	{ "output", 'o', "FILE", 0, "write the result to FILE (atomically) instead of stdout", 0 },
	{ "keep-going", 'k', NULL, 0, "go on after a failed step or expectation", 0 },
	{ "all-vmas", 'a', NULL, 0, "dump the whole address space, not only the carveout", 0 },
	{ "execute", 'e', "STEP", 0, "a step in the text form (repeatable)", 0 },
	{ "repeat", 'n', "N", 0, "run the scenarios N times (earlier rounds are tallied in earlier_rounds)", 0 },
	{ "exclude-tag", 'x', "TAG", 0, "do not run scenarios tagged TAG (repeatable; e.g. slow, perf)", 0 },
	{ "report", 'R', "FILE", 0, "also write a report: the result with a text summary on top, for a mail", 0 },
	{ 0 }
};

int parse_format(const char *arg, enum out_format *f)
{
	if (!strcmp(arg, "json"))
		*f = OUT_JSON;
	else if (!strcmp(arg, "text"))
		*f = OUT_TEXT;
	else if (!strcmp(arg, "ktap"))
		*f = OUT_KTAP;
	else
		return -1;
	return 0;
}

static error_t run_parse(int key, char *arg, struct argp_state *state)
{
	struct run_args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &a->po;
		return 0;
	case 'f':
		return format_option(state, arg, &a->format, true);
	case 'o':
		a->output = output_file_arg(state, "--output", arg);
		return 0;
	case 'k':
		a->po.ro.keep_going = true;
		return 0;
	case 'a':
		a->po.ro.all_vmas = true;
		return 0;
	case 'R':
		a->report = output_file_arg(state, "--report", arg);
		return 0;
	case 'n':
		a->repeat = atoi(arg);
		if (a->repeat < 1 || a->repeat > 1000000)
			argp_error(state, "--repeat: '%s' is not 1..1000000", arg);
		return 0;
	case 'x':
		a->xtags = realloc(a->xtags, (a->nxtags + 1) * sizeof(char *));
		a->xtags[a->nxtags++] = arg;
		return 0;
	case 'e':
		a->steps = realloc(a->steps, (a->nsteps + 1) * sizeof(char *));
		a->steps[a->nsteps++] = arg;
		return 0;
	case ARGP_KEY_ARGS:
		a->files = state->argv + state->next;
		a->nfiles = state->argc - state->next;
		return 0;
	case ARGP_KEY_END:
		if (!a->nfiles && !a->nsteps)
			argp_error(state, "no scenario given");
		if (a->nfiles && a->nsteps)
			argp_error(state, "give scenario files or -e steps, not both");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static void on_signal(int sig)
{
	run_interrupted = 1;
}

/* The result document: kernel block, scenario results, summary. Without
 * features, the kernel block has no probed features: for outputs that
 * never show them. */
cJSON *result_new(bool features)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddNumberToObject(doc, "anonremap", FORMAT_VERSION);
	cJSON_AddStringToObject(doc, "version", PACKAGE_VERSION);
	cJSON_AddItemToObject(doc, "kernel", kinfo_json(features));
	cJSON_AddArrayToObject(doc, "scenarios");
	return doc;
}

/* 3 wins over 1, 1 over 0; skips count as passes unless all were skipped. */
int result_finish(cJSON *doc)
{
	int pass = 0, fail = 0, skip = 0, error = 0;
	cJSON *sc;

	cJSON_ArrayForEach(sc, cJSON_GetObjectItem(doc, "scenarios")) {
		const char *s = cJSON_GetObjectItem(sc, "status")->valuestring;
		pass += !strcmp(s, "pass");
		fail += !strcmp(s, "fail");
		skip += !strcmp(s, "skip");
		error += !strcmp(s, "error");
	}
	cJSON *sum = cJSON_AddObjectToObject(doc, "summary");
	cJSON_AddNumberToObject(sum, "pass", pass);
	cJSON_AddNumberToObject(sum, "fail", fail);
	cJSON_AddNumberToObject(sum, "skip", skip);
	cJSON_AddNumberToObject(sum, "error", error);
	if (error)
		return EXIT_ERROR;
	if (fail)
		return EXIT_FAIL;
	if (skip && !pass)
		return EXIT_SKIP;
	return EXIT_PASS;
}

int emit_result(cJSON *doc, enum out_format f, const char *output)
{
	struct err err;

	if (output) {
		if (out_to_file(doc, f, output, &err)) {
			fprintf(stderr, "anonremap: cannot write the result: %s\n", err.msg);
			return -1;
		}
		return 0;
	}
	if (out_write(doc, f, stdout)) {
		fprintf(stderr, "anonremap: cannot write the result to stdout: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* The ops and their fields, from the op table itself, after the options. */
char *ops_help(int key, const char *text, void *input)
{
	if (key != ARGP_KEY_HELP_EXTRA)
		return (char *)text;
	size_t cap = 8192, len = 0;
	char *out = xmalloc(cap);
	len += snprintf(out + len, cap - len, "%s\n\nOps (text form: OP [FIRST] key=value...):\n", text ? text : "");
	for (int i = 0; op_table[i]; i++) {
		const struct op_entry *op = op_table[i];
		len += snprintf(out + len, cap - len, "  %-11s %s\n             fields:%s", op->name, op->summary,
				op->fields[0].id == FLD__COUNT && !op->syscall ? " (none)" : "");
		/* lines under argp's right margin, so it does not rewrap them */
		int col = 20;
		for (int f = 0; f < FLD__COUNT && len < cap - 64; f++) {
			if (!op_has_field(op, f) || f == FLD_COMMENT)
				continue;
			int w = strlen(field_defs[f].key) + 1;
			if (col + w > 76) {
				len += snprintf(out + len, cap - len, "\n                    ");
				col = 20;
			}
			len += snprintf(out + len, cap - len, " %s", field_defs[f].key);
			col += w;
		}
		len += snprintf(out + len, cap - len, "\n");
	}
	return out;
}

int cmd_run(int argc, char **argv)
{
	static const char run_doc[] =
		"Run scenarios: each in its own scenario process, with the result as JSON "
		"(default), text or KTAP.\vA SCENARIO is a file, '-' for stdin, or the name of "
		"a bundled scenario (see 'anonremap list'). Every scenario is validated before "
		"any runs: one invalid file means nothing runs (exit 2). Exit status: 0 pass, "
		"1 an expectation failed, 2 invalid input, 3 a scenario process died, hung or "
		"an internal error, 4 every scenario was skipped.";
	static const struct argp_child children[] = { { &proc_argp, 0, NULL, 1 }, { 0 } };
	struct argp argp = { run_options, run_parse, "SCENARIO...\n-e STEP [-e STEP]...", run_doc, children, ops_help, NULL };
	struct run_args a = { .repeat = 1 };
	struct err err;
	int bad = 0;

	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return EXIT_USAGE;
	int n = 0;
	struct scenario **scs = NULL;
	if (a.nsteps) {
		scs = xcalloc(1, sizeof(*scs));
		if (textform_from_args(a.steps, a.nsteps, &a.po.lo, &scs[0], &err)) {
			fprintf(stderr, "anonremap: %s\n", err.msg);
			bad = 1;
		} else {
			n = 1;
		}
	} else {
		/* every file is loaded and validated before anything runs */
		for (int i = 0; i < a.nfiles; i++) {
			struct scenario **one;
			int k;
			if (scenario_load(a.files[i], &a.po.lo, &one, &k, &err)) {
				fprintf(stderr, "anonremap: %s\n", err.msg);
				bad++;
				continue;
			}
			scs = realloc(scs, (n + k) * sizeof(*scs));
			memcpy(scs + n, one, k * sizeof(*scs));
			n += k;
			free(one);
		}
	}
	free(a.steps);
	/* drop what -x excludes, after validation: an excluded file must still be valid */
	int kept = 0;
	for (int i = 0; i < n; i++) {
		bool drop = false;
		for (int t = 0; t < a.nxtags && !drop; t++)
			drop = scenario_has_tag(scs[i], a.xtags[t]);
		if (drop)
			scenario_free(scs[i]);
		else
			scs[kept++] = scs[i];
	}
	n = kept;
	free(a.xtags);
	if (bad) {
		for (int i = 0; i < n; i++)
			scenario_free(scs[i]);
		free(scs);
		return EXIT_USAGE;
	}

	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	/* The text and KTAP outputs show neither the probed features nor the
	 * report's settings and kernel config: JSON and -R do. */
	bool full = a.format == OUT_JSON || a.report;
	/* KTAP, to stdout or to -o's file, shows no dump: with no -R report
	 * (the JSON result) nothing reads one, so dump steps read nothing */
	a.po.ro.verdicts_only = a.format == OUT_KTAP && !a.report;
	cJSON *doc = result_new(full);
	cJSON *arr = cJSON_GetObjectItem(doc, "scenarios");
	/* --repeat: earlier rounds are tallied, then dropped, so a long run's
	 * memory stays flat; the result holds the last round */
	cJSON *rounds = a.repeat > 1 ? cJSON_CreateArray() : NULL;
	for (int k = 0; k < (a.repeat > 1 ? a.repeat : 1) && !run_interrupted; k++) {
		if (k) {
			cJSON *prev = cJSON_CreateObject(), *sc;
			int c[4] = { 0 };
			cJSON_ArrayForEach(sc, arr) {
				const char *s = cJSON_GetStringValue(cJSON_GetObjectItem(sc, "status"));
				c[!strcmp(s, "pass") ? 0 : !strcmp(s, "fail") ? 1 : !strcmp(s, "skip") ? 2 : 3]++;
			}
			cJSON_AddNumberToObject(prev, "pass", c[0]);
			cJSON_AddNumberToObject(prev, "fail", c[1]);
			cJSON_AddNumberToObject(prev, "skip", c[2]);
			cJSON_AddNumberToObject(prev, "error", c[3]);
			cJSON_AddItemToArray(rounds, prev);
			while (arr->child)
				cJSON_Delete(cJSON_DetachItemViaPointer(arr, arr->child));
		}
		for (int i = 0; i < n && !run_interrupted; i++) {
			int st;
			cJSON_AddItemToArray(arr, run_scenario(scs[i], &a.po.ro, &st));
		}
	}
	if (rounds)
		cJSON_AddItemToObject(doc, "earlier_rounds", rounds);
	int rc = result_finish(doc);
	/* a round that failed earlier fails the run, even if the last passed */
	cJSON *er;
	cJSON_ArrayForEach(er, rounds) {
		if (cJSON_GetNumberValue(cJSON_GetObjectItem(er, "error")) > 0)
			rc = EXIT_ERROR;
		else if (cJSON_GetNumberValue(cJSON_GetObjectItem(er, "fail")) > 0 && rc != EXIT_ERROR)
			rc = EXIT_FAIL;
	}
	if (run_interrupted) {
		cJSON_AddTrueToObject(doc, "interrupted");
		rc = EXIT_ERROR;
	}
	if (full)
		report_enrich(doc, argc, argv);
	if (emit_result(doc, a.format, a.output))
		rc = EXIT_ERROR;
	if (a.report) {
		/* one file: the summary first, then the whole result */
		char *sum = report_summary(doc);
		cJSON *rep = cJSON_CreateObject(), *it;
		cJSON_AddStringToObject(rep, "summary_text", sum);
		free(sum);
		while ((it = doc->child)) {
			cJSON_DetachItemViaPointer(doc, it);
			cJSON_AddItemToObject(rep, it->string, it);
		}
		cJSON_Delete(doc);
		doc = rep;
		if (out_to_file(doc, OUT_JSON, a.report, &err)) {
			fprintf(stderr, "anonremap: cannot write the report: %s\n", err.msg);
			rc = EXIT_ERROR;
		}
	}
	cJSON_Delete(doc);
	for (int i = 0; i < n; i++)
		scenario_free(scs[i]);
	free(scs);
	return rc;
}
