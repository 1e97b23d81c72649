/* SPDX-License-Identifier: GPL-2.0-or-later */
/* KTAP writer: one test point per scenario, as kselftest prints them. */
#include "anonremap.h"
#include <string.h>

static const char *str(cJSON *o, const char *k)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : "";
}

/* A diagnostic or a SKIP reason: one line, escaped (escape.c). */
static void oneline(FILE *fp, const char *s)
{
	fputs(esc_text(s), fp);
	fputc('\n', fp);
}

/* KTAP diagnostics are single lines starting with '#'. */
static void diag(FILE *fp, const char *prefix, const char *s)
{
	fprintf(fp, "# %s", prefix);
	oneline(fp, s);
}

int out_ktap(cJSON *doc, FILE *fp)
{
	cJSON *scs = cJSON_GetObjectItem(doc, "scenarios"), *sc;
	int n = 0, pass = 0, fail = 0, skip = 0, error = 0;

	fprintf(fp, "TAP version 13\n1..%d\n", cJSON_GetArraySize(scs));
	cJSON_ArrayForEach(sc, scs) {
		const char *st = str(sc, "status"), *name = esc_ktap_name(str(sc, "name"));
		if (ferror(fp)) /* the reader is gone (SIGPIPE is ignored): stop */
			return -1;
		n++;
		if (!strcmp(st, "pass")) {
			pass++;
			fprintf(fp, "ok %d %s\n", n, name);
		} else if (!strcmp(st, "skip")) {
			skip++;
			fprintf(fp, "ok %d %s # SKIP ", n, name);
			oneline(fp, str(sc, "reason"));
		} else {
			cJSON *ex;
			cJSON_ArrayForEach(ex, cJSON_GetObjectItem(sc, "expectations")) {
				if (cJSON_IsTrue(cJSON_GetObjectItem(ex, "ok")))
					continue;
				diag(fp, "expected: ", str(ex, "expected"));
				diag(fp, "found:    ", str(ex, "found"));
			}
			diag(fp, !strcmp(st, "fail") ? "failed: " : "error: ", str(sc, "reason"));
			if (!strcmp(st, "fail"))
				fail++;
			else
				error++;
			fprintf(fp, "not ok %d %s\n", n, name);
		}
		esc_release();
	}
	fprintf(fp, "# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:%d\n", pass, fail, skip, error);
	return 0;
}
