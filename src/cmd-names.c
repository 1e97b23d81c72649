/* SPDX-License-Identifier: GPL-2.0-or-later */
/* anonremap names KIND: the names anonremap knows, one a line, straight from
 * its tables; bash completion and the documentation tests read them. */
#include "anonremap.h"
#include <argp.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

static int print_kinds(const struct names_args *a);

static int print_commands(const struct names_args *a)
{
	(void)a;
	for (int i = 0; command_name(i); i++)
		printf("%s\n", command_name(i));
	return EXIT_PASS;
}

static int print_ops(const struct names_args *a)
{
	(void)a;
	for (int i = 0; op_table[i]; i++)
		printf("%s\n", op_table[i]->name);
	return EXIT_PASS;
}

static int print_fields(const struct names_args *a)
{
	const struct op_entry *op = a->op ? op_find(a->op) : NULL;

	if (a->op && !op) {
		fprintf(stderr, "anonremap: unknown op '%s'\n", a->op);
		return EXIT_USAGE;
	}
	for (int f = 0; f < FLD__COUNT; f++)
		if (!op || op_has_field(op, f))
			printf("%s\n", field_defs[f].key);
	return EXIT_PASS;
}

static int print_features(const struct names_args *a)
{
	(void)a;
	for (int f = 0; f < FEAT__COUNT; f++)
		printf("%s\n", feature_names[f]);
	return EXIT_PASS;
}

static int print_scenarios(const struct names_args *a)
{
	DIR *d = opendir(scenario_dir());
	struct dirent *de;

	(void)a;
	if (!d) {
		fprintf(stderr, "anonremap: %s: %s\n", scenario_dir(), strerror(errno));
		return EXIT_ERROR;
	}
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (n > 5 && !strcmp(de->d_name + n - 5, ".json"))
			printf("%.*s\n", (int)(n - 5), de->d_name);
	}
	closedir(d);
	return EXIT_PASS;
}

/* Every KIND, once: a flag table's names, or a printer of its own. The
 * "kinds" kind, the help text and the unknown-KIND message come from this
 * list, so a new kind is one line here. */
static const struct kind {
	const char *name, *args; /* args: what the help shows after the name */
	const struct xlat_table *t;
	int (*print)(const struct names_args *a);
} kinds[] = {
	{ "kinds", "", NULL, print_kinds },
	{ "commands", "", NULL, print_commands },
	{ "ops", "", NULL, print_ops },
	{ "fields", " [OP]", NULL, print_fields },
	{ "mmap-flags", "", &xlat_mmap_flags, NULL },
	{ "mremap-flags", "", &xlat_mremap_flags, NULL },
	{ "prot", "", &xlat_mmap_prot, NULL },
	{ "advice", "", &xlat_madvise, NULL },
	{ "prctl", "", &xlat_prctl, NULL },
	{ "uffd-modes", "", &xlat_uffd_mode, NULL },
	{ "mlock-flags", "", &xlat_mlock_flags, NULL },
	{ "mlockall-flags", "", &xlat_mlockall_flags, NULL },
	{ "uffd-features", "", &xlat_uffd_features, NULL },
	{ "uffd-flags", "", &xlat_uffd_flags, NULL },
	{ "features", "", NULL, print_features },
	{ "scenarios", "", NULL, print_scenarios },
};
#define N_KINDS (sizeof(kinds) / sizeof(kinds[0]))

static int print_kinds(const struct names_args *a)
{
	(void)a;
	for (size_t k = 0; k < N_KINDS; k++)
		printf("%s\n", kinds[k].name);
	return EXIT_PASS;
}

static int print_table(const struct xlat_table *t, bool short_names)
{
	size_t pl = strlen(t->prefix);

	for (size_t i = 0; i < t->n; i++) {
		const char *n = t->items[i].name;
		if (short_names && !strncmp(n, t->prefix, pl))
			n += pl;
		printf("%s\n", n);
	}
	return EXIT_PASS;
}

int cmd_names(int argc, char **argv)
{
	char doc[1024];
	int len = snprintf(doc, sizeof(doc), "%s",
			   "Print the names anonremap knows, one a line, from its own tables.\v"
			   "KIND is one of:");
	for (size_t k = 0; k < N_KINDS && len < (int)sizeof(doc); k++)
		len += snprintf(doc + len, sizeof(doc) - len, "%s %s%s", k ? "," : "", kinds[k].name,
				kinds[k].args);
	if (len < (int)sizeof(doc))
		snprintf(doc + len, sizeof(doc) - len, "%s",
		 ". Bash completion reads these. Exit status: 0, 2 for an unknown KIND or op, "
		 "3 when the scenario library cannot be read.");
	struct argp argp = { names_options, names_parse, "KIND [OP]", doc, NULL, NULL, NULL };
	struct names_args a = { 0 };
	size_t k;
	int rc;

	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return EXIT_USAGE;
	for (k = 0; k < N_KINDS && strcmp(kinds[k].name, a.kind); k++)
		;
	if (k == N_KINDS) {
		fprintf(stderr, "anonremap: unknown KIND '%s'; one of:", a.kind);
		for (k = 0; k < N_KINDS; k++)
			fprintf(stderr, " %s", kinds[k].name);
		fputc('\n', stderr);
		return EXIT_USAGE;
	}
	rc = kinds[k].t ? print_table(kinds[k].t, a.short_names) : kinds[k].print(&a);
	return fflush(stdout) ? EXIT_ERROR : rc;
}
