/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one table of commands: main() dispatches on it, 'names commands' lists it. */
#include "anonremap.h"

const struct command commands[] = {
	{ "run", cmd_run, "run scenario files ('-' = stdin) or steps given with -e" },
	{ "check", cmd_check, "parse and validate scenarios, run nothing" },
	{ "probe", cmd_probe, "what this kernel supports" },
	{ "maps", cmd_maps, "dump the VMA state of a live process" },
	{ "list", cmd_list, "list the bundled scenario library" },
	{ "shell", cmd_shell, "one live scenario process, steps read from stdin" },
	{ "names", cmd_names, "the names anonremap knows (ops, flags, ...), for completion" },
	{ "replay", cmd_replay, "run a result's scenarios again and compare" },
	{ "diff", cmd_diff, "compare two result files" },
	{ "show", cmd_show, "render a result or report file as text, JSON or KTAP" },
	{ "bench", cmd_bench, "time mremap moves over sizes, population, alignment, THP and flags" },
	{ "stress", cmd_stress, "random mremap sequences with invariants, minimized reproducers" },
	{ "matrix", cmd_matrix, "every merge case as a generated scenario, run on this kernel" },
	{ "workload", cmd_workload, "a workload (art-gc: ART's GC cycles) in each strategy, run on this kernel" },
	{ NULL, NULL, NULL },
};

/* For 'names commands': this table is the one list. */
const char *command_name(int i)
{
	return i >= 0 && i < (int)(sizeof(commands) / sizeof(commands[0])) ? commands[i].name : NULL;
}
