/* SPDX-License-Identifier: GPL-2.0-or-later */
/* anonremap: build VMA layouts against the live kernel and report what it did. */
#include "anonremap.h"
#include "compat.h"
#include <argp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

const char *argp_program_version = PACKAGE_NAME " " PACKAGE_VERSION;
const char *argp_program_bug_address = NULL;

static const struct argp_option options[] = {
	{ "maps-parse", 'M', NULL, 0, "read VMA boundaries from /proc/PID/maps, not PROCMAP_QUERY", 0 },
	{ 0 }
};


struct global {
	const struct command *cmd;
	int cmd_index;
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct global *g = state->input;

	switch (key) {
	case 'M':
		force_maps_parse = true;
		return 0;
	case ARGP_KEY_ARG:
		for (const struct command *c = commands; c->name; c++)
			if (!strcmp(c->name, arg)) {
				g->cmd = c;
				g->cmd_index = state->next - 1;
				state->next = state->argc; /* the command parses the rest */
				return 0;
			}
		argp_error(state, "unknown command '%s'", arg);
		return EINVAL;
	case ARGP_KEY_END:
		if (!g->cmd)
			argp_error(state, "a command is needed: run, check, probe, maps, list, shell, names, replay, diff, show or bench");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const char doc[] =
	"Build VMA layouts against the live kernel, issue mremap() with any flags, "
	"and report what the kernel did.\v"
	"Commands:\n"
	"  run [OPTIONS] SCENARIO...    run scenario files ('-' = stdin) or names\n"
	"  run [OPTIONS] -e STEP...     run steps given in the text form\n"
	"  check SCENARIO...            parse and validate only, run nothing\n"
	"  probe                        what this kernel supports\n"
	"  maps PID                     dump the VMA state of a live process\n"
	"  list                         list the bundled scenario library\n"
	"  shell                        one live scenario process, steps from stdin\n"
	"  names KIND                   ops, fields, flag names, ... one a line\n"
	"  replay RESULT.json           run a result's scenarios again and compare\n"
	"  diff A.json B.json           compare two results, dump by dump\n"
	"  show RESULT.json             render a result or report as text, JSON or KTAP\n"
	"  bench [OPTIONS]              time mremap moves: plain against the relocate flags\n"
	"  stress [OPTIONS]             random sequences, invariants checked, minimized reproducers\n"
	"  matrix [OPTIONS]             every merge case as a generated scenario, one table\n"
	"  workload art-gc [OPTIONS]    ART's GC cycle, N times, in four strategies, one table\n"
	"\n'anonremap COMMAND --help' describes each command. Exit status: 0 pass, "
	"1 an expectation failed, 2 usage error or invalid scenario, 3 the scenario "
	"process died or hung, or an internal error, 4 every scenario was skipped.";

int main(int argc, char **argv)
{
	struct argp argp = { options, parse_opt, "COMMAND [ARGS...]", doc, NULL, NULL, NULL };
	struct global g = { NULL, 0 };

	signal(SIGPIPE, SIG_IGN); /* a closed stdout is an error we report */
	/* scenario processes orphaned by a fork op come back to us to be reaped */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	argp_err_exit_status = EXIT_USAGE;
	kinfo_init();
	if (argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, &g))
		return EXIT_USAGE;
	char *name = xmalloc(strlen(g.cmd->name) + 16);
	sprintf(name, "anonremap %s", g.cmd->name);
	argv[g.cmd_index] = name;
	int rc = g.cmd->fn(argc - g.cmd_index, argv + g.cmd_index);
	free(name);
	return rc;
}
