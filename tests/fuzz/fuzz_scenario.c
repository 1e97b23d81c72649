/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzz harness: the JSON scenario parser and validator, as scenario_load()
 * drives them for a file that holds JSON: json_parse_located(), then
 * variants_expand() (params and variants), then scenario_from_json() on each
 * variant. Everything is freed: a leak is a finding under LeakSanitizer.
 * Built with libFuzzer by scripts/fuzz.sh, or with replay_main.c into a plain
 * program that replays the corpus (make check). */
#include "anonremap.h"
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool inited;
	const char *file = "fuzz.json";
	struct load_opts lo = { 0 };
	struct err err = { "" };
	cJSON *json = NULL, **docs = NULL;
	int nd = 0, rc;

	if (!inited) {
		kinfo_init();
		inited = true;
	}
	/* read_scenario_file() refuses larger files */
	if (size > MAX_FILE_SIZE)
		return 0;
	if (json_parse_located(file, (const char *)data, size, &json, &err)) {
		/* "(the '{' at L:C is not closed)" must name a bracket of the input:
		 * for an empty or blank text it named buf[0], read past the end of
		 * an empty buffer (ASan cannot see a read past a 0-byte block, so
		 * check the words; a NUL read there cut the message at "(the '") */
		if (strstr(err.msg, "(the '") && !memchr(data, '{', size) && !memchr(data, '[', size))
			abort();
		return 0;
	}
	rc = variants_expand(file, json, NULL, &docs, &nd, &err);
	cJSON_Delete(json);
	if (rc)
		return 0;
	if (!nd) { /* not an object: scenario_load lets the validator say so */
		docs = xcalloc(1, sizeof(cJSON *));
		docs[0] = cJSON_CreateArray();
		nd = 1;
	}
	for (int i = 0; i < nd; i++) {
		struct scenario *sc = NULL;
		if (scenario_from_json(file, docs[i], &lo, &sc, &err)) {
			cJSON_Delete(docs[i]); /* the caller still owns it on failure */
			continue;
		}
		(void)scenario_has_tag(sc, "fuzz");
		scenario_free(sc); /* owns docs[i] now */
	}
	free(docs);
	return 0;
}
