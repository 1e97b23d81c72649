/* SPDX-License-Identifier: GPL-2.0-or-later */
/* anonremap list: the bundled scenario library with name, source and requirements. */
#include "anonremap.h"
#include <argp.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const struct argp_option list_options[] = {
	{ "format", 'f', "FORMAT", 0, "text (default) or json", 0 },
	{ 0 }
};

static error_t list_parse(int key, char *arg, struct argp_state *state)
{
	enum out_format *f = state->input;

	switch (key) {
	case 'f':
		if (parse_format(arg, f) || *f == OUT_KTAP)
			argp_error(state, "--format: '%s' is not text or json", arg);
		return 0;
	case ARGP_KEY_ARG:
		argp_error(state, "list takes no arguments");
		return EINVAL;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int is_json(const struct dirent *d)
{
	size_t n = strlen(d->d_name);
	return n > 5 && !strcmp(d->d_name + n - 5, ".json");
}

int cmd_list(int argc, char **argv)
{
	static const char list_doc[] = "List the bundled scenarios: name, source and requirements.\v"
				  "The library is read from $ANONREMAP_SCENARIO_DIR, else a 'scenarios' "
				  "folder beside the binary, else ../share/anonremap/scenarios relative to "
				  "the binary, else the installed " SCENARIODIR ".";
	struct argp argp = { list_options, list_parse, NULL, list_doc, NULL, NULL, NULL };
	enum out_format f = OUT_TEXT;
	struct dirent **ents;
	const char *dir = scenario_dir();
	struct load_opts lo = { 0 };
	int bad = 0;

	if (argp_parse(&argp, argc, argv, 0, NULL, &f))
		return EXIT_USAGE;
	int n = scandir(dir, &ents, is_json, by_name);
	if (n < 0) {
		fprintf(stderr, "anonremap: %s: %s\n", dir, strerror(errno));
		return EXIT_ERROR;
	}
	cJSON *arr = cJSON_CreateArray();
	for (int i = 0; i < n; i++) {
		char path[4096];
		struct scenario **scs;
		int ns;
		struct err err;
		snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
		free(ents[i]);
		if (scenario_load(path, &lo, &scs, &ns, &err)) {
			fprintf(stderr, "anonremap: %s\n", err.msg);
			bad++;
			continue;
		}
		for (int k = 0; k < ns; k++) {
		struct scenario *sc = scs[k];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", sc->name);
		cJSON *src = cJSON_GetObjectItem(sc->json, "source");
		cJSON_AddStringToObject(o, "source", cJSON_IsString(src) ? src->valuestring : "");
		cJSON *req = cJSON_GetObjectItem(sc->json, "requires");
		cJSON_AddItemToObject(o, "requires", req ? cJSON_Duplicate(req, 1) : cJSON_CreateArray());
		cJSON *tags = cJSON_GetObjectItem(sc->json, "tags");
		cJSON_AddItemToObject(o, "tags", tags ? cJSON_Duplicate(tags, 1) : cJSON_CreateArray());
		cJSON_AddStringToObject(o, "file", path);
		cJSON_AddItemToArray(arr, o);
		scenario_free(sc);
		}
		free(scs);
	}
	free(ents);
	int rc = 0;
	if (f == OUT_JSON) {
		rc = out_write(arr, OUT_JSON, stdout);
	} else {
		cJSON *o;
		cJSON_ArrayForEach(o, arr) {
			char req[256] = "";
			cJSON *it;
			cJSON_ArrayForEach(it, cJSON_GetObjectItem(o, "requires"))
				snprintf(req + strlen(req), sizeof(req) - strlen(req), "%s%s", *req ? "," : "",
					 it->valuestring);
			/* names and sources are the files' own: escaped */
			printf("%-60s %-20s %s\n", esc_text(cJSON_GetObjectItem(o, "name")->valuestring), *req ? req : "-",
			       esc_text(cJSON_GetObjectItem(o, "source")->valuestring));
			esc_release();
		}
		rc = fflush(stdout) ? -1 : 0;
	}
	cJSON_Delete(arr);
	if (rc) {
		fprintf(stderr, "anonremap: cannot write to stdout: %s\n", strerror(errno));
		return EXIT_ERROR;
	}
	return bad ? EXIT_USAGE : EXIT_PASS;
}
