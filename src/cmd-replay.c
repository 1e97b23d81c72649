/* SPDX-License-Identifier: GPL-2.0-or-later */
/* anonremap replay RESULT.json: run the embedded scenarios again on this
 * kernel and say, step by step and dump by dump, what differs. */
#include "anonremap.h"
#include <argp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct replay_args {
	const char *file;
	enum out_format format;
	struct proc_opts po;
	struct compare_opts co;
};

static const struct argp_option replay_options[] = {
	{ "format", 'f', "FORMAT", 0, "text (default) or json", 0 },
	{ "timing", 'T', "FRACTION", OPTION_ARG_OPTIONAL, "also compare duration_ns, within FRACTION (default 0.5)", 0 },
	{ 0 }
};

static error_t replay_parse(int key, char *arg, struct argp_state *state)
{
	struct replay_args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &a->po;
		return 0;
	case 'f':
		return format_option(state, arg, &a->format, false);
	case 'T':
		return timing_option(state, arg, &a->co);
	case ARGP_KEY_ARG:
	case ARGP_KEY_END:
		return result_file_arg(state, key, arg, &a->file);
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

void print_diffs(FILE *fp, cJSON *diffs, const char *la, const char *lb)
{
	cJSON *d;
	/* the values come from a result file: escaped (escape.c) */
	cJSON_ArrayForEach(d, diffs) {
		fprintf(fp, "  %s: %s: %s %s, %s %s\n", esc_text(cJSON_GetStringValue(cJSON_GetObjectItem(d, "where"))),
			esc_text(cJSON_GetStringValue(cJSON_GetObjectItem(d, "field"))), la,
			esc_text(cJSON_GetStringValue(cJSON_GetObjectItem(d, "a"))), lb,
			esc_text(cJSON_GetStringValue(cJSON_GetObjectItem(d, "b"))));
		esc_release();
	}
}

int cmd_replay(int argc, char **argv)
{
	static const char replay_doc[] =
		"Run the scenarios embedded in a result (or report) file again on this kernel and "
		"compare, with carveout-relative addresses: each step's return, errno, status and "
		"signal, each dump's VMAs (bounds, perms, page state), each expectation's outcome.\v"
		"Exit status: 0 the same, 1 different, 2 the file is not a valid result, 3 a replayed "
		"scenario could not run.";
	static const struct argp_child children[] = { { &proc_argp, 0, NULL, 1 }, { 0 } };
	struct argp argp = { replay_options, replay_parse, "RESULT.json", replay_doc, children, NULL, NULL };
	struct replay_args a = { .format = OUT_TEXT };
	struct err err;
	cJSON *old, *sc;
	int rc = EXIT_PASS;

	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return EXIT_USAGE;
	if (result_load(a.file, &old, &err)) {
		fprintf(stderr, "anonremap: %s\n", err.msg);
		return EXIT_USAGE;
	}
	/* validate every embedded scenario before running any */
	int n = cJSON_GetArraySize(cJSON_GetObjectItem(old, "scenarios")), i = 0;
	struct scenario **scs = xcalloc(n ? n : 1, sizeof(*scs));
	cJSON_ArrayForEach(sc, cJSON_GetObjectItem(old, "scenarios")) {
		char where[512];
		snprintf(where, sizeof(where), "%s: %s", a.file, cJSON_GetStringValue(cJSON_GetObjectItem(sc, "name")));
		if (scenario_from_json(where, cJSON_Duplicate(cJSON_GetObjectItem(sc, "scenario"), 1), &a.po.lo, &scs[i], &err)) {
			fprintf(stderr, "anonremap: %s\n", err.msg);
			rc = EXIT_USAGE;
		}
		i++;
	}
	cJSON *now = result_new(true);
	cJSON *out = cJSON_CreateObject(), *outs = cJSON_AddArrayToObject(out, "scenarios");
	cJSON *feat = compare_features(old, now);
	cJSON_AddItemToObject(out, "kernel", feat);
	for (i = 0; rc != EXIT_USAGE && i < n; i++) {
		int st;
		cJSON *res = run_scenario(scs[i], &a.po.ro, &st);
		cJSON *rec = cJSON_GetArrayItem(cJSON_GetObjectItem(old, "scenarios"), i);
		cJSON *diffs = compare_scenarios(rec, res, &a.co);
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", cJSON_GetStringValue(cJSON_GetObjectItem(rec, "name")));
		cJSON_AddBoolToObject(o, "same", cJSON_GetArraySize(diffs) == 0);
		cJSON_AddItemToObject(o, "differences", diffs);
		cJSON_AddItemToArray(outs, o);
		if (cJSON_GetArraySize(diffs) && rc == EXIT_PASS)
			rc = EXIT_FAIL;
		if (st == EXIT_ERROR)
			rc = EXIT_ERROR; /* the replay itself died or hung: say so over "different" */
		cJSON_AddItemToArray(cJSON_GetObjectItem(now, "scenarios"), res);
	}
	if (rc != EXIT_USAGE) {
		cJSON_AddBoolToObject(out, "same", rc == EXIT_PASS);
		if (a.format == OUT_JSON) {
			out_json(out, stdout);
		} else {
			cJSON *k = cJSON_GetObjectItem(old, "kernel");
			printf("replay of %s: recorded on Linux %s, replayed on Linux %s\n", a.file,
			       cJSON_GetStringValue(cJSON_GetObjectItem(k, "release")), kinfo.release);
			if (cJSON_GetArraySize(feat)) {
				printf("the kernels differ:\n");
				print_diffs(stdout, feat, "recorded", "now");
			}
			cJSON_ArrayForEach(sc, outs) {
				if (ferror(stdout)) /* the reader is gone: SIGPIPE is ignored */
					break;
				bool same = cJSON_IsTrue(cJSON_GetObjectItem(sc, "same"));
				printf("%s: %s\n", esc_text(cJSON_GetStringValue(cJSON_GetObjectItem(sc, "name"))),
				       same ? "same" : "DIFFERENT");
				esc_release();
				print_diffs(stdout, cJSON_GetObjectItem(sc, "differences"), "recorded", "now");
			}
		}
		if (fflush(stdout) || ferror(stdout))
			rc = EXIT_ERROR;
	}
	cJSON_Delete(out);
	cJSON_Delete(now);
	cJSON_Delete(old);
	for (i = 0; i < n; i++)
		scenario_free(scs[i]);
	free(scs);
	return rc;
}
