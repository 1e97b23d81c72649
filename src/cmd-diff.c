/* SPDX-License-Identifier: GPL-2.0-or-later */
/* anonremap diff A.json B.json: two results side by side, dump by dump. */
#include "anonremap.h"
#include <argp.h>
#include <stdlib.h>
#include <string.h>

struct diff_args {
	const char *a, *b;
	enum out_format format;
	struct compare_opts co;
};

static const struct argp_option diff_options[] = {
	{ "format", 'f', "FORMAT", 0, "text (default) or json", 0 },
	{ "timing", 'T', "FRACTION", OPTION_ARG_OPTIONAL, "also compare duration_ns, within FRACTION (default 0.5)", 0 },
	{ 0 }
};

static error_t diff_parse(int key, char *arg, struct argp_state *state)
{
	struct diff_args *a = state->input;

	switch (key) {
	case 'f':
		return format_option(state, arg, &a->format, false);
	case 'T':
		return timing_option(state, arg, &a->co);
	case ARGP_KEY_ARG:
		if (!a->a)
			a->a = arg;
		else if (!a->b)
			a->b = arg;
		else
			argp_error(state, "two result files");
		return 0;
	case ARGP_KEY_END:
		if (!a->b)
			argp_error(state, "two result files are needed");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

/* The page offset of one end of a rel ("carveout+11p"): false for anything
 * else, a region's name included (an edited file; the names an expression
 * interns are freed here, or each turn leaked them). */
static bool rel_end(const char *text, long *pages)
{
	struct names nm = { 0 };
	struct expr x;
	__int128 c;
	bool ok = !expr_parse(text, &nm, &x, NULL) && !nm.n && expr_const(&x, &c);

	for (int i = 0; i < nm.n; i++)
		free(nm.name[i]);
	if (ok)
		*pages = (long)(c / (__int128)kinfo.page_size);
	return ok;
}

/* Page offsets of a VMA from its rel ("carveout+1p..carveout+11p"). */
static bool span(cJSON *v, long *s, long *e)
{
	const char *rel = cJSON_GetStringValue(cJSON_GetObjectItem(v, "rel"));
	const char *dots = rel ? strstr(rel, "..") : NULL;
	char first[128];

	if (!dots || (size_t)(dots - rel) >= sizeof(first))
		return false;
	snprintf(first, sizeof(first), "%.*s", (int)(dots - rel), rel);
	return rel_end(first, s) && rel_end(dots + 2, e);
}

static void cell(char *buf, size_t len, cJSON *v)
{
	if (!v) {
		buf[0] = 0;
		return;
	}
	const char *ps = cJSON_GetStringValue(cJSON_GetObjectItem(v, "pages_state"));
	const char *rel = cJSON_GetStringValue(cJSON_GetObjectItem(v, "rel"));
	const char *perms = cJSON_GetStringValue(cJSON_GetObjectItem(v, "perms"));
	snprintf(buf, len, "%s %s %.16s", rel ? esc_text(rel) : "?", perms ? esc_text(perms) : "", ps ? esc_text(ps) : "");
	esc_release();
}

/* VMAs of both sides in address order; a VMA of one side that covers several
 * of the other is called out as merged there and split here. */
void diff_side_by_side(FILE *fp, cJSON *da, cJSON *db)
{
	cJSON *va = cJSON_GetObjectItem(da, "vmas"), *vb = cJSON_GetObjectItem(db, "vmas");
	int na = cJSON_GetArraySize(va), nb = cJSON_GetArraySize(vb), i = 0, j = 0;
	char ca[128], cb[128];

	while (i < na || j < nb) {
		cJSON *x = cJSON_GetArrayItem(va, i), *y = cJSON_GetArrayItem(vb, j);
		long xs = 0, xe = 0, ys = 0, ye = 0;
		bool hx = x && span(x, &xs, &xe), hy = y && span(y, &ys, &ye);
		cJSON *l = NULL, *r = NULL;
		const char *note = "";
		if (hx && hy && xs == ys && xe == ye) {
			l = x, r = y, i++, j++;
			cell(ca, sizeof(ca), l);
			cell(cb, sizeof(cb), r);
			note = strcmp(ca, cb) ? "  <-- differs" : "";
		} else if (x && (!y || (hx && (!hy || xs < ys || (xs == ys && xe > ye))))) {
			/* each turn takes a VMA from one side or both: a VMA without a
			 * readable span (an edited rel) is shown alone, never stalls */
			l = x, i++;
			if (hy && xs <= ys && xe >= ye)
				note = "  <-- one VMA in A, split in B";
		} else {
			r = y, j++;
			if (hx && ys <= xs && ye >= xe)
				note = "  <-- one VMA in B, split in A";
		}
		if (!*note && (!l || !r))
			note = l ? "  <-- only in A" : "  <-- only in B";
		cell(ca, sizeof(ca), l);
		cell(cb, sizeof(cb), r);
		fprintf(fp, "    %-52s | %-52s%s\n", ca, cb, note);
	}
}

/* Two anonremap matrix results: the cells whose answer changed. */
static int diff_matrix(const struct diff_args *a, cJSON *A, cJSON *B)
{
	int rc = EXIT_PASS;
	if (!cJSON_GetObjectItem(A, "matrix") || !cJSON_GetObjectItem(B, "matrix")) {
		fprintf(stderr, "anonremap: diff: %s is a matrix result and %s is not\n",
			cJSON_GetObjectItem(A, "matrix") ? a->a : a->b, cJSON_GetObjectItem(A, "matrix") ? a->b : a->a);
		rc = EXIT_USAGE;
		goto out;
	}
	cJSON *cells = matrix_compare(A, B), *d;
	cJSON *out = cJSON_CreateObject();
	cJSON_AddItemToObject(out, "kernel", compare_features(A, B));
	cJSON_AddItemToObject(out, "cells", cells);
	cJSON_AddBoolToObject(out, "same", !cJSON_GetArraySize(cells));
	if (cJSON_GetArraySize(cells))
		rc = EXIT_FAIL;
	if (a->format == OUT_JSON) {
		out_json(out, stdout);
	} else {
		if (cJSON_GetArraySize(cJSON_GetObjectItem(out, "kernel"))) {
			printf("the kernels differ:\n");
			print_diffs(stdout, cJSON_GetObjectItem(out, "kernel"), "A", "B");
		}
		printf("%d cells differ\n", cJSON_GetArraySize(cells));
		cJSON_ArrayForEach(d, cells) {
			printf("%s\n  A: %s\n", esc_text(cJSON_GetStringValue(cJSON_GetObjectItem(d, "id"))),
			       esc_text(cJSON_GetStringValue(cJSON_GetObjectItem(d, "a"))));
			printf("  B: %s\n", esc_text(cJSON_GetStringValue(cJSON_GetObjectItem(d, "b"))));
			esc_release();
			if (ferror(stdout))
				break;
		}
	}
	if (fflush(stdout) || ferror(stdout))
		rc = EXIT_ERROR;
	cJSON_Delete(out);
out:
	cJSON_Delete(A);
	cJSON_Delete(B);
	return rc;
}

int cmd_diff(int argc, char **argv)
{
	static const char diff_doc[] =
		"Compare two result files: the same scenario on two kernels, or two variants "
		"(plain against MREMAP_RELOCATE_ANON). Scenarios are paired by name, or in order "
		"when the names differ.\vText shows each dump's VMAs side by side, with merged-here-"
		"split-there called out and the VMA count difference, then every other difference. "
		"Exit status: 0 the same, 1 different, 2 a file is not a valid result.";
	struct argp argp = { diff_options, diff_parse, "A.json B.json", diff_doc, NULL, NULL, NULL };
	struct diff_args a = { .format = OUT_TEXT };
	struct err err;
	cJSON *A = NULL, *B = NULL;

	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return EXIT_USAGE;
	if (result_load(a.a, &A, &err) || result_load(a.b, &B, &err)) {
		fprintf(stderr, "anonremap: %s\n", err.msg);
		if (A)
			cJSON_Delete(A);
		return EXIT_USAGE;
	}
	if (cJSON_GetObjectItem(A, "matrix") || cJSON_GetObjectItem(B, "matrix"))
		return diff_matrix(&a, A, B);
	cJSON *sa = cJSON_GetObjectItem(A, "scenarios"), *sb = cJSON_GetObjectItem(B, "scenarios"), *x;
	cJSON *out = cJSON_CreateObject(), *outs = cJSON_AddArrayToObject(out, "scenarios");
	cJSON *feat = compare_features(A, B);
	cJSON_AddItemToObject(out, "kernel", feat);
	bool by_name = true;
	cJSON_ArrayForEach(x, sa) {
		bool found = false;
		cJSON *y;
		cJSON_ArrayForEach(y, sb)
			found |= !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(x, "name")),
					 cJSON_GetStringValue(cJSON_GetObjectItem(y, "name")));
		by_name &= found;
	}
	int rc = EXIT_PASS, idx = 0;
	if (a.format == OUT_TEXT && cJSON_GetArraySize(feat)) {
		printf("the kernels differ:\n");
		print_diffs(stdout, feat, "A", "B");
	}
	cJSON_ArrayForEach(x, sa) {
		cJSON *y = NULL, *t;
		/* SIGPIPE is ignored (main.c): a reader that went away (diff | head)
		 * shows as a write error; the rest is not worth comparing */
		if (ferror(stdout)) {
			rc = EXIT_ERROR;
			break;
		}
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(x, "name"));
		if (by_name) {
			cJSON_ArrayForEach(t, sb)
				if (!strcmp(name, cJSON_GetStringValue(cJSON_GetObjectItem(t, "name"))))
					y = t;
		} else {
			y = cJSON_GetArrayItem(sb, idx);
		}
		idx++;
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "a", name);
		cJSON_AddStringToObject(o, "b", y ? cJSON_GetStringValue(cJSON_GetObjectItem(y, "name")) : "");
		cJSON_AddItemToArray(outs, o);
		if (!y) {
			cJSON_AddBoolToObject(o, "same", false);
			cJSON_AddStringToObject(o, "note", "only in A");
			rc = EXIT_FAIL;
			if (a.format == OUT_TEXT)
				printf("\n== %s: only in A\n", esc_text(name));
			continue;
		}
		cJSON *diffs = compare_scenarios(x, y, &a.co);
		cJSON_AddBoolToObject(o, "same", !cJSON_GetArraySize(diffs));
		cJSON *counts = cJSON_AddArrayToObject(o, "vma_counts");
		int nd = cJSON_GetArraySize(cJSON_GetObjectItem(x, "dumps"));
		for (int d = 0; d < nd; d++) {
			cJSON *da = cJSON_GetArrayItem(cJSON_GetObjectItem(x, "dumps"), d);
			cJSON *db = cJSON_GetArrayItem(cJSON_GetObjectItem(y, "dumps"), d);
			cJSON *c = cJSON_CreateObject();
			cJSON_AddNumberToObject(c, "after_step", cJSON_GetNumberValue(cJSON_GetObjectItem(da, "after_step")));
			cJSON_AddNumberToObject(c, "a", cJSON_GetNumberValue(cJSON_GetObjectItem(da, "vma_count")));
			cJSON_AddNumberToObject(c, "b", db ? cJSON_GetNumberValue(cJSON_GetObjectItem(db, "vma_count")) : 0);
			cJSON_AddItemToArray(counts, c);
		}
		if (a.format == OUT_TEXT) {
			printf("\n== A %s (%s) | B %s (%s)\n", esc_text(name),
			       esc_text(cJSON_GetStringValue(cJSON_GetObjectItem(x, "status"))),
			       esc_text(cJSON_GetStringValue(cJSON_GetObjectItem(y, "name"))),
			       esc_text(cJSON_GetStringValue(cJSON_GetObjectItem(y, "status"))));
			esc_release();
			for (int d = 0; d < nd; d++) {
				cJSON *da = cJSON_GetArrayItem(cJSON_GetObjectItem(x, "dumps"), d);
				cJSON *db = cJSON_GetArrayItem(cJSON_GetObjectItem(y, "dumps"), d);
				if (!db)
					break;
				double ca = cJSON_GetNumberValue(cJSON_GetObjectItem(da, "vma_count"));
				double cb = cJSON_GetNumberValue(cJSON_GetObjectItem(db, "vma_count"));
				const char *lab = cJSON_GetStringValue(cJSON_GetObjectItem(da, "label"));
				printf("  dump after step %.0f%s%s: A %.0f VMAs, B %.0f VMAs (%+.0f)\n",
				       cJSON_GetNumberValue(cJSON_GetObjectItem(da, "after_step")), lab && *lab ? " " : "",
				       lab ? esc_text(lab) : "", ca, cb, cb - ca);
				esc_release();
				diff_side_by_side(stdout, da, db);
			}
			if (cJSON_GetArraySize(diffs)) {
				printf("  differences:\n");
				print_diffs(stdout, diffs, "A", "B");
			} else {
				printf("  same\n");
			}
		}
		cJSON_AddItemToObject(o, "differences", diffs);
		if (!cJSON_IsTrue(cJSON_GetObjectItem(o, "same")))
			rc = EXIT_FAIL;
	}
	/* what B has that A does not: only when paired by name */
	if (by_name) {
		cJSON *y;
		cJSON_ArrayForEach(y, sb) {
			const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(y, "name"));
			bool found = false;
			cJSON_ArrayForEach(x, sa)
				found |= !strcmp(name, cJSON_GetStringValue(cJSON_GetObjectItem(x, "name")));
			if (found)
				continue;
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "a", "");
			cJSON_AddStringToObject(o, "b", name);
			cJSON_AddBoolToObject(o, "same", false);
			cJSON_AddStringToObject(o, "note", "only in B");
			cJSON_AddItemToArray(outs, o);
			rc = EXIT_FAIL;
			if (a.format == OUT_TEXT)
				printf("\n== %s: only in B\n", esc_text(name));
		}
	} else if (cJSON_GetArraySize(sb) > cJSON_GetArraySize(sa)) {
		rc = EXIT_FAIL;
		if (a.format == OUT_TEXT)
			printf("\n== B has %d more scenarios than A\n", cJSON_GetArraySize(sb) - cJSON_GetArraySize(sa));
	}
	cJSON_AddBoolToObject(out, "same", rc == EXIT_PASS);
	if (a.format == OUT_JSON)
		out_json(out, stdout);
	if (fflush(stdout) || ferror(stdout))
		rc = EXIT_ERROR;
	cJSON_Delete(out);
	cJSON_Delete(A);
	cJSON_Delete(B);
	return rc;
}
