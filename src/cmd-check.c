/* SPDX-License-Identifier: GPL-2.0-or-later */
/* anonremap check: parse and validate scenarios, run nothing. */
#include "anonremap.h"
#include <argp.h>
#include <stdlib.h>

struct check_args {
	char **files;
	int nfiles;
	struct load_opts lo;
	bool print_json;
};

static const struct argp_option check_options[] = {
	{ "allow-outside", 'O', NULL, 0, "allow steps whose range leaves the reserved area", 0 },
	{ "allow-dangerous", 'D', NULL, 0, "allow calls that reach beyond the scenario's processes (see anonremap(1), TRUST)", 0 },
	{ "print-json", 'j', NULL, 0, "print each scenario as JSON (converts the text form)", 0 },
	{ 0 }
};

static error_t check_parse(int key, char *arg, struct argp_state *state)
{
	struct check_args *a = state->input;

	switch (key) {
	case 'O':
		a->lo.allow_outside = true;
		return 0;
	case 'D':
		a->lo.allow_dangerous = true;
		return 0;
	case 'j':
		a->print_json = true;
		return 0;
	case ARGP_KEY_ARGS:
		a->files = state->argv + state->next;
		a->nfiles = state->argc - state->next;
		return 0;
	case ARGP_KEY_END:
		if (!a->nfiles)
			argp_error(state, "no scenario given");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

int cmd_check(int argc, char **argv)
{
	static const char check_doc[] = "Parse and validate scenario files; run nothing.\v"
				  "Prints 'FILE: ok: NAME (N steps)' for each valid scenario (one line a variant) and an error naming file, "
				  "line and column (JSON syntax) or step, op and field (scenario errors) "
				  "for each invalid one. Exit status: 0 all valid, 2 otherwise.";
	struct argp argp = { check_options, check_parse, "SCENARIO...", check_doc, NULL, NULL, NULL };
	struct check_args a = { 0 };
	struct err err;
	int bad = 0;

	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return EXIT_USAGE;
	for (int i = 0; i < a.nfiles; i++) {
		struct scenario **scs;
		int n;
		if (scenario_load(a.files[i], &a.lo, &scs, &n, &err)) {
			fprintf(stderr, "anonremap: %s\n", err.msg);
			bad++;
			continue;
		}
		for (int k = 0; k < n; k++) {
			if (a.print_json)
				out_json(scs[k]->json, stdout);
			else
				printf("%s: ok: %s (%d steps)\n", esc_text(scs[k]->file), esc_text(scs[k]->name),
				       scs[k]->nsteps);
			esc_release();
			scenario_free(scs[k]);
		}
		free(scs);
	}
	if (fflush(stdout))
		return EXIT_ERROR;
	return bad ? EXIT_USAGE : EXIT_PASS;
}
