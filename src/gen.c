/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The fields of generated scenarios' steps (matrix, workload, stress),
 * written as a scenario author would write them: "12p", "carveout+4p". */
#include "anonremap.h"
#include <stdio.h>

void gen_pages(cJSON *s, const char *key, long pages)
{
	char b[32];
	snprintf(b, sizeof(b), "%ldp", pages);
	cJSON_AddStringToObject(s, key, b);
}

void gen_at(cJSON *s, const char *key, const char *region, long pages)
{
	char b[80];
	snprintf(b, sizeof(b), "%s+%ldp", region, pages);
	cJSON_AddStringToObject(s, key, b);
}

void gen_flags(cJSON *s, const char *const *names)
{
	cJSON *a = cJSON_AddArrayToObject(s, "flags");
	for (; *names; names++)
		cJSON_AddItemToArray(a, cJSON_CreateString(*names));
}
