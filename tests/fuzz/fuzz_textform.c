/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzz harness: the text form of scenarios (src/textform.c).
 * textform_parse_buf() on the whole input, as a text scenario file, then its
 * first lines through textform_merge_line(), as the shell reads them, and the
 * first line through textform_step(). (Only the first few lines: an unknown
 * word costs an edit distance against every op, and the whole-file parse
 * already reads every line.) The parser writes into its buffer: it gets a NUL-terminated copy.
 * Everything is freed: a leak is a finding under LeakSanitizer. */
#include "anonremap.h"
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool inited;
	struct load_opts lo = { 0 };
	struct err err = { "" };
	struct scenario *sc = NULL;

	if (!inited) {
		kinfo_init();
		inited = true;
	}
	if (size > MAX_FILE_SIZE)
		return 0;
	char *buf = xmalloc(size + 1);
	memcpy(buf, data, size);
	buf[size] = 0;
	if (!textform_parse_buf("fuzz.txt", buf, &lo, &sc, &err))
		scenario_free(sc);
	free(buf);

	/* The shell: line by line into one document, and each line as a step. */
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddNumberToObject(doc, "anonremap", FORMAT_VERSION);
	cJSON_AddArrayToObject(doc, "steps");
	const char *p = (const char *)data, *end = p + size;
	for (int lines = 0; p < end && lines < 16; lines++) {
		const char *nl = memchr(p, '\n', end - p);
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *line = xmalloc(ll + 1);
		memcpy(line, p, ll);
		line[ll] = 0;
		if (!lines)
			cJSON_Delete(textform_step(line, &err));
		(void)textform_merge_line(doc, line, &err);
		free(line);
		p += ll + 1;
	}
	cJSON_Delete(doc);
	return 0;
}
