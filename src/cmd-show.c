/* SPDX-License-Identifier: GPL-2.0-or-later */
/* anonremap show FILE: render a saved result or report in any format. */
#include "anonremap.h"
#include <argp.h>
#include <string.h>

struct show_args {
	const char *file;
	enum out_format format;
};

static const struct argp_option show_options[] = {
	{ "format", 'f', "FORMAT", 0, "text (default), json or ktap", 0 },
	{ 0 }
};

static error_t show_parse(int key, char *arg, struct argp_state *state)
{
	struct show_args *a = state->input;

	switch (key) {
	case 'f':
		if (parse_format(arg, &a->format))
			argp_error(state, "--format: '%s' is not text, json or ktap", arg);
		return 0;
	case ARGP_KEY_ARG:
	case ARGP_KEY_END:
		return result_file_arg(state, key, arg, &a->file);
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

int cmd_show(int argc, char **argv)
{
	static const char show_doc[] = "Render a result or report file (from run -o or --report) as "
				       "text, JSON or KTAP.\vA report's text summary is printed first. "
				       "Exit status: 0, 2 when the file is not a valid result, 3 when the output cannot be written.";
	struct argp argp = { show_options, show_parse, "RESULT.json", show_doc, NULL, NULL, NULL };
	struct show_args a = { .format = OUT_TEXT };
	struct err err;
	cJSON *doc;

	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return EXIT_USAGE;
	if (result_load(a.file, &doc, &err)) {
		fprintf(stderr, "anonremap: %s\n", err.msg);
		return EXIT_USAGE;
	}
	const char *sum = cJSON_GetStringValue(cJSON_GetObjectItem(doc, "summary_text"));
	if (sum && a.format == OUT_TEXT)
		printf("%s\n", sum);
	int rc = out_write(doc, a.format, stdout);
	cJSON_Delete(doc);
	return rc ? EXIT_ERROR : EXIT_PASS;
}
