/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzz harness: sizes and address expressions (src/expr.c). Each line of the
 * input goes through size_parse() and expr_parse(), the latter interning its
 * names into one struct names shared by all lines (as a scenario does, up to
 * MAX_REGIONS); then the formatting helpers run on what was parsed. The
 * interned names are freed at the end. */
#include "anonremap.h"
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool inited;
	struct names nm = { 0 };
	struct err err = { "" };
	const char *p = (const char *)data, *end = p + size;

	if (!inited) {
		kinfo_init();
		inited = true;
	}
	if (size > 65536)
		return 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *s = xmalloc(ll + 1);
		memcpy(s, p, ll);
		s[ll] = 0;
		p += ll + 1;

		uint64_t v = 0;
		char out[128];
		if (!size_parse(s, &v, &err)) {
			hex_format(v, out, sizeof(out));
			rel_format(v, kinfo.page_size * 1024, out, sizeof(out));
		}
		struct expr e;
		if (!expr_parse(s, &nm, &e, &err)) {
			__int128 c;
			if (!expr_const(&e, &c))
				abort(); /* expr_parse checked it */
			for (int i = 0; i < e.n; i++)
				if (e.t[i].kind == TERM_REGION &&
				    (e.t[i].region < 0 || e.t[i].region >= nm.n || !name_valid(nm.name[e.t[i].region])))
					abort();
			rel_format((uint64_t)c, 0x7f0000000000ull, out, sizeof(out));
		}
		(void)name_valid(s);
		free(s);
	}
	for (int i = 0; i < nm.n; i++)
		free(nm.name[i]);
	return 0;
}
