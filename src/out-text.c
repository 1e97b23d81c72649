/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Text writer: steps one line each, then each dump as a table. */
#include "anonremap.h"
#include <string.h>
#include <unistd.h>

static const char *str(cJSON *o, const char *k)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : "";
}

static double num(cJSON *o, const char *k)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* Compact "key=value" arguments, relative addresses preferred. */
static void print_args(FILE *fp, cJSON *args)
{
	cJSON *a;
	bool first = true;

	cJSON_ArrayForEach(a, args) {
		size_t kl = strlen(a->string);
		if (kl > 4 && !strcmp(a->string + kl - 4, "_rel"))
			continue;
		char relkey[96];
		snprintf(relkey, sizeof(relkey), "%s_rel", a->string);
		cJSON *rel = cJSON_GetObjectItemCaseSensitive(args, relkey);
		fprintf(fp, "%s%s=", first ? "" : " ", a->string);
		first = false;
		if (rel) {
			fputs(rel->valuestring, fp);
		} else if (cJSON_IsArray(a)) {
			cJSON *it;
			bool f2 = true;
			cJSON_ArrayForEach(it, a) {
				fprintf(fp, "%s%s", f2 ? "" : "|", cJSON_IsString(it) ? it->valuestring : "?");
				f2 = false;
			}
			if (f2)
				fputs("0", fp);
		} else if (cJSON_IsString(a)) {
			fputs(a->valuestring, fp);
		} else if (cJSON_IsNumber(a)) {
			fprintf(fp, "%.0f", a->valuedouble);
		}
	}
}

static void print_step(FILE *fp, cJSON *s)
{
	cJSON *ret = cJSON_GetObjectItem(s, "ret"), *sig = cJSON_GetObjectItem(s, "signal");
	const char *st = str(s, "status");

	fprintf(fp, "  [%2.0f] %-8s ", num(s, "index"), str(s, "op"));
	print_args(fp, cJSON_GetObjectItem(s, "args"));
	if (ret) {
		const char *rr = str(s, "ret_rel");
		if (*rr)
			fprintf(fp, " = %s", rr);
		else
			fprintf(fp, " = %.0f", ret->valuedouble);
		if (*str(s, "errno"))
			fprintf(fp, " %s", str(s, "errno"));
		fprintf(fp, " (%.0f ns)", num(s, "duration_ns"));
	}
	if (cJSON_IsObject(sig))
		fprintf(fp, " %s at %s", str(sig, "name"), str(sig, "rel"));
	if (strcmp(st, "ok"))
		fprintf(fp, "  ** %s%s%s", st, *str(s, "failure") ? ": " : "", str(s, "failure"));
	if (*str(s, "error"))
		fprintf(fp, "  ** %s", str(s, "error"));
	fputc('\n', fp);
}

static void print_region(FILE *fp, cJSON *reg)
{
	if (cJSON_IsString(reg)) {
		fprintf(fp, "%-12s", reg->valuestring);
	} else if (cJSON_IsArray(reg)) {
		char buf[128] = "";
		cJSON *it;
		cJSON_ArrayForEach(it, reg)
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", *buf ? "+" : "", it->valuestring);
		fprintf(fp, "%-12s", buf);
	} else {
		fprintf(fp, "%-12s", "-");
	}
}

static void print_dump(FILE *fp, cJSON *d)
{
	cJSON *v;

	fprintf(fp, "  dump after step %.0f%s%s (pid %.0f, %.0f VMAs)\n", num(d, "after_step"),
		*str(d, "label") ? ": " : "", str(d, "label"), num(d, "pid"), num(d, "vma_count"));
	fprintf(fp, "    %-40s %7s %-4s %-12s %s\n", "range", "pages", "perm", "region", "pages_state");
	cJSON_ArrayForEach(v, cJSON_GetObjectItem(d, "vmas")) {
		const char *rel = str(v, "rel");
		char range[80];
		snprintf(range, sizeof(range), "%s", *rel ? rel : str(v, "start"));
		fprintf(fp, "    %-40s %7.0f %-4s ", range, num(v, "pages"), str(v, "perms"));
		print_region(fp, cJSON_GetObjectItem(v, "region"));
		const char *ps = str(v, "pages_state");
		fprintf(fp, " %.60s%s\n", ps, strlen(ps) > 60 ? "..." : "");
	}
}

int out_text(cJSON *doc, FILE *fp)
{
	cJSON *sc, *x;
	cJSON *k = cJSON_GetObjectItem(doc, "kernel");

	fprintf(fp, "anonremap %s on Linux %s\n", str(doc, "version"), str(k, "release"));
	cJSON_ArrayForEach(sc, cJSON_GetObjectItem(doc, "scenarios")) {
		fprintf(fp, "\n%s: %s", str(sc, "name"), str(sc, "status"));
		if (*str(sc, "reason"))
			fprintf(fp, " (%s)", str(sc, "reason"));
		fputc('\n', fp);
		cJSON *c = cJSON_GetObjectItem(sc, "carveout");
		if (c)
			fprintf(fp, "  carveout %s-%s (%.0f pages)\n", str(c, "start"), str(c, "end"), num(c, "pages"));
		int di = 0;
		cJSON *dumps = cJSON_GetObjectItem(sc, "dumps");
		cJSON_ArrayForEach(x, cJSON_GetObjectItem(sc, "steps")) {
			print_step(fp, x);
			cJSON *d = cJSON_GetArrayItem(dumps, di);
			if (d && num(d, "after_step") == num(x, "index")) {
				print_dump(fp, d);
				di++;
			}
		}
		cJSON_ArrayForEach(x, cJSON_GetObjectItem(sc, "expectations")) {
			bool ok = cJSON_IsTrue(cJSON_GetObjectItem(x, "ok"));
			fprintf(fp, "  expect [%.0f] %s: %s\n", num(x, "step"), str(x, "check"), ok ? "ok" : "FAILED");
			if (!ok)
				fprintf(fp, "    expected: %s\n    found:    %s\n", str(x, "expected"), str(x, "found"));
		}
	}
	cJSON *s = cJSON_GetObjectItem(doc, "summary");
	if (s)
		fprintf(fp, "\nsummary: %.0f pass, %.0f fail, %.0f skip, %.0f error\n", num(s, "pass"), num(s, "fail"),
			num(s, "skip"), num(s, "error"));
	return 0;
}
