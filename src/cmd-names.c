/* SPDX-License-Identifier: GPL-2.0-or-later */
/* anonremap names KIND: the names anonremap knows, one a line, straight from
 * its tables; bash completion and the documentation tests read them. */
#include "anonremap.h"
#include <argp.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *kind;
	const struct xlat_table *t;
} tables[] = {
	{ "mmap-flags", &xlat_mmap_flags }, { "mremap-flags", &xlat_mremap_flags },
	{ "prot", &xlat_mmap_prot }, { "advice", &xlat_madvise }, { "prctl", &xlat_prctl },
	{ "uffd-modes", &xlat_uffd_mode }, { "mlock-flags", &xlat_mlock_flags },
	{ "mlockall-flags", &xlat_mlockall_flags },
	{ "uffd-features", &xlat_uffd_features }, { "uffd-flags", &xlat_uffd_flags },
};

static const char *const kinds[] = { "kinds", "commands", "ops", "fields", "mmap-flags", "mremap-flags", "prot",
				     "advice", "prctl", "uffd-modes", "mlock-flags", "mlockall-flags", "uffd-features", "uffd-flags", "features", "scenarios", NULL };

static void print_table(const struct xlat_table *t, bool short_names)
{
	size_t pl = strlen(t->prefix);
	for (size_t i = 0; i < t->n; i++) {
		const char *n = t->items[i].name;
		if (short_names && !strncmp(n, t->prefix, pl))
			n += pl;
		printf("%s\n", n);
	}
}

static int print_scenarios(void)
{
	DIR *d = opendir(scenario_dir());
	struct dirent *de;
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (n > 5 && !strcmp(de->d_name + n - 5, ".json"))
			printf("%.*s\n", (int)(n - 5), de->d_name);
	}
	closedir(d);
	return 0;
}

struct names_args {
	const char *kind, *op;
	bool short_names;
};

static const struct argp_option names_options[] = {
	{ "short", 's', NULL, 0, "flag names without their prefix (maymove, not MREMAP_MAYMOVE)", 0 },
	{ 0 }
};

static error_t names_parse(int key, char *arg, struct argp_state *state)
{
	struct names_args *a = state->input;

	switch (key) {
	case 's':
		a->short_names = true;
		return 0;
	case ARGP_KEY_ARG:
		if (!a->kind)
			a->kind = arg;
		else if (!a->op)
			a->op = arg;
		else
			argp_error(state, "too many arguments");
		return 0;
	case ARGP_KEY_END:
		if (!a->kind)
			argp_error(state, "a KIND is needed");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

int cmd_names(int argc, char **argv)
{
	static const char names_doc[] =
		"Print the names anonremap knows, one a line, from its own tables.\v"
		"KIND is one of: kinds, commands, ops, fields [OP], mmap-flags, mremap-flags, prot, "
		"advice, prctl, uffd-modes, mlock-flags, mlockall-flags, uffd-features, uffd-flags, features, scenarios. Bash completion reads these. Exit status: 0, 2 for an unknown KIND or op, 3 when the scenario library cannot be read.";
	struct argp argp = { names_options, names_parse, "KIND [OP]", names_doc, NULL, NULL, NULL };
	struct names_args a = { 0 };

	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return EXIT_USAGE;
	if (!strcmp(a.kind, "kinds")) {
		for (int k = 0; kinds[k]; k++)
			printf("%s\n", kinds[k]);
	} else if (!strcmp(a.kind, "commands")) {
		for (int i = 0; command_name(i); i++)
			printf("%s\n", command_name(i));
	} else if (!strcmp(a.kind, "ops")) {
		for (int i = 0; op_table[i]; i++)
			printf("%s\n", op_table[i]->name);
	} else if (!strcmp(a.kind, "fields")) {
		const struct op_entry *op = a.op ? op_find(a.op) : NULL;
		if (a.op && !op) {
			fprintf(stderr, "anonremap: unknown op '%s'\n", a.op);
			return EXIT_USAGE;
		}
		for (int f = 0; f < FLD__COUNT; f++)
			if (!op || op_has_field(op, f))
				printf("%s\n", field_defs[f].key);
	} else if (!strcmp(a.kind, "features")) {
		for (int f = 0; f < FEAT__COUNT; f++)
			printf("%s\n", feature_names[f]);
	} else if (!strcmp(a.kind, "scenarios")) {
		if (print_scenarios()) {
			fprintf(stderr, "anonremap: %s: %s\n", scenario_dir(), strerror(errno));
			return EXIT_ERROR;
		}
	} else {
		size_t i;
		for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
			if (!strcmp(tables[i].kind, a.kind))
				break;
		if (i == sizeof(tables) / sizeof(tables[0])) {
			fprintf(stderr, "anonremap: unknown KIND '%s'; one of:", a.kind);
			for (int k = 0; kinds[k]; k++)
				fprintf(stderr, " %s", kinds[k]);
			fputc('\n', stderr);
			return EXIT_USAGE;
		}
		print_table(tables[i].t, a.short_names);
	}
	return fflush(stdout) ? EXIT_ERROR : EXIT_PASS;
}
