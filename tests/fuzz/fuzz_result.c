/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzz harness: the readers of result files (show, diff, replay). The input
 * goes through result_parse_buf(), the check result_load() makes of every
 * file; what passes is drawn as show draws it (the text and KTAP writers)
 * and compared with itself as diff and replay compare (compare_scenarios,
 * compare_features, diff's side-by-side table of each dump; its loop once
 * never ended on a VMA whose rel it could not read; matrix_compare of a
 * matrix result). Everything is freed: a leak is a finding under
 * LeakSanitizer. Built with libFuzzer by scripts/fuzz.sh, or with
 * replay_main.c into a plain program that replays the corpus (make check). */
#include "anonremap.h"
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool inited;
	static FILE *sink;
	struct err err = { "" };
	struct compare_opts co = { .timing = true, .tolerance = 0.5 };
	cJSON *doc = NULL, *sc;

	if (!inited) {
		kinfo_init();
		/* the writers' output is not the point, only that they finish */
		sink = fopen("/dev/null", "we");
		if (!sink)
			abort();
		inited = true;
	}
	if (size > MAX_FILE_SIZE)
		return 0;
	if (result_parse_buf("fuzz.json", (const char *)data, size, &doc, &err))
		return 0;
	if (out_write(doc, OUT_TEXT, sink) || out_write(doc, OUT_KTAP, sink))
		abort(); /* /dev/null takes everything */
	cJSON_ArrayForEach(sc, cJSON_GetObjectItem(doc, "scenarios")) {
		cJSON *d, *dump;
		/* with itself, and with its neighbour: both sides of each pairing */
		cJSON_Delete(compare_scenarios(sc, sc, &co));
		if (sc->next)
			cJSON_Delete(compare_scenarios(sc, sc->next, &co));
		cJSON_ArrayForEach(d, cJSON_GetObjectItem(sc, "dumps")) {
			diff_side_by_side(sink, d, d);
			dump = d->next ? d->next : cJSON_GetArrayItem(cJSON_GetObjectItem(sc, "dumps"), 0);
			diff_side_by_side(sink, d, dump);
		}
	}
	cJSON_Delete(compare_features(doc, doc));
	/* a matrix result, with itself: diff pairs its cells by id */
	if (cJSON_GetObjectItem(doc, "matrix"))
		cJSON_Delete(matrix_compare(doc, doc));
	cJSON_Delete(doc);
	return 0;
}
