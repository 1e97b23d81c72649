/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Text writer: steps one line each, each dump drawn as the selftests draw
 * layouts in their comments, then a table of its VMAs. */
#include "anonremap.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GAP_NEAR_PAGES 16 /* a gap up to this is drawn as spaces, beyond it as a zig-zag */
#define BOX_MIN 11        /* "-----------", as merge.c draws a 5-page VMA */
#define GAP_WIDE_PAGES 5  /* a hole with room for such a VMA is drawn as wide as one */
/* a box is drawn at most this many regions wide: wider reads no better */
#define BOX_MAX_REGIONS 10
#define REL_PAGES_MAX (1L << 52) /* pages: beyond any address */

static bool colour;

/* Every string of a result may be someone else's: printed escaped. */
static const char *str(cJSON *o, const char *k)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? esc_text(v->valuestring) : "";
}

static double num(cJSON *o, const char *k)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static const char *paint(const char *what)
{
	if (!colour)
		return "";
	if (!strcmp(what, "ok") || !strcmp(what, "pass"))
		return "\033[32m";
	if (!strcmp(what, "skip"))
		return "\033[33m";
	if (!strcmp(what, "off"))
		return "\033[0m";
	return "\033[31m";
}

/* Compact "key=value" arguments, relative addresses preferred. */
/* A number of an argument; a size (len, size) in pages where it is one a
 * call can take: an edited 1e102 does not fit the integer it is divided as. */
static void put_number(FILE *fp, double v, bool sz)
{
	uint64_t ps = kinfo.page_size;

	if (sz && v >= ps && v < 0x1p63 && (uint64_t)v % ps == 0)
		fprintf(fp, "%.0fp", v / ps);
	else
		fprintf(fp, "%.0f", v);
}

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
		fprintf(fp, "%s%s=", first ? "" : " ", esc_text(a->string));
		first = false;
		if (cJSON_IsString(rel)) {
			fputs(esc_text(rel->valuestring), fp);
		} else if (cJSON_IsArray(a)) {
			cJSON *it;
			bool f2 = true;
			cJSON_ArrayForEach(it, a) {
				if (cJSON_IsObject(it)) { /* a range of process_madvise's vec: A:L,A:L */
					cJSON *ar = cJSON_GetObjectItemCaseSensitive(it, "addr_rel");
					cJSON *ln = cJSON_GetObjectItemCaseSensitive(it, "len");
					fprintf(fp, "%s%s:", f2 ? "" : ",", cJSON_IsString(ar) ? esc_text(ar->valuestring) : "?");
					if (cJSON_IsNumber(ln))
						put_number(fp, ln->valuedouble, true);
					else
						fputs("?", fp);
				} else {
					fprintf(fp, "%s%s", f2 ? "" : "|", cJSON_IsString(it) ? esc_text(it->valuestring) : "?");
				}
				f2 = false;
			}
			if (f2)
				fputs("0", fp);
		} else if (cJSON_IsString(a)) {
			fputs(esc_text(a->valuestring), fp);
		} else if (cJSON_IsNumber(a)) {
			bool sz = (kl >= 3 && !strcmp(a->string + kl - 3, "len")) || (kl >= 4 && !strcmp(a->string + kl - 4, "size"));
			put_number(fp, a->valuedouble, sz);
		} else if (cJSON_IsBool(a)) {
			fputs(cJSON_IsTrue(a) ? "true" : "false", fp);
		}
	}
}

static cJSON *expectation_of(cJSON *expects, double step)
{
	cJSON *e;
	cJSON_ArrayForEach(e, expects)
		if (num(e, "step") == step)
			return e;
	return NULL;
}

/* "[ 6] mremap old_address=... = carveout+6p (7291 ns)" */
void out_text_step(FILE *fp, cJSON *s, cJSON *expects)
{
	cJSON *ret = cJSON_GetObjectItem(s, "ret"), *sig = cJSON_GetObjectItem(s, "signal");
	const char *st = str(s, "status");

	fprintf(fp, "  [%2.0f] %-8s ", num(s, "index"), str(s, "op"));
	/* main goes unsaid, as in a scenario without forks */
	if (*str(s, "in") && strcmp(str(s, "in"), "main"))
		fprintf(fp, "in=%s ", str(s, "in"));
	if (!strcmp(str(s, "op"), "expect")) {
		cJSON *e = expectation_of(expects, num(s, "index"));
		if (e) {
			bool ok = cJSON_IsTrue(cJSON_GetObjectItem(e, "ok"));
			fprintf(fp, "%s: %s%s%s\n", str(e, "expected"), paint(ok ? "ok" : "fail"), ok ? "ok" : "FAILED",
				paint("off"));
			if (!ok)
				fprintf(fp, "         found: %s\n", str(e, "found"));
			return;
		}
	}
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
	if (*st && strcmp(st, "ok"))
		fprintf(fp, "  %s** %s%s%s%s", paint(st), st, *str(s, "failure") ? ": " : "", str(s, "failure"),
			paint("off"));
	if (*str(s, "ended"))
		fprintf(fp, "%s", str(s, "ended"));
	if (*str(s, "error"))
		fprintf(fp, "  %s** %s%s", paint("error"), str(s, "error"), paint("off"));
	fputc('\n', fp);
	esc_release();
}

static void region_text(cJSON *reg, char *buf, size_t len)
{
	buf[0] = 0;
	if (cJSON_IsString(reg)) {
		snprintf(buf, len, "%s", esc_text(reg->valuestring));
	} else if (cJSON_IsArray(reg)) {
		cJSON *it;
		cJSON_ArrayForEach(it, reg)
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", *buf ? "+" : "",
				 cJSON_IsString(it) ? esc_text(it->valuestring) : "?");
	} else {
		snprintf(buf, len, "-");
	}
}

/* The drawn VMAs are the scenario's own: not the PROT_NONE filler. */
static bool drawn(cJSON *v)
{
	cJSON *reg = cJSON_GetObjectItem(v, "region");
	if (cJSON_IsArray(reg))
		return true;
	if (!cJSON_IsString(reg))
		return false;
	return strcmp(reg->valuestring, "carveout") && strcmp(reg->valuestring, "guard");
}

static bool faulted(const char *ps)
{
	for (; *ps; ps++)
		if (*ps == 'x' || *ps == 's' || *ps == 'H' || *ps == 'w')
			return true;
	return false;
}

static long rel_pages(const char *rel, bool end)
{
	/* "carveout+1p..carveout+11p": the offset in pages of start or end; 0
	 * for anything else (an edited or truncated rel: only the picture's
	 * gaps depend on it) */
	static const char base[] = "carveout";
	const char *p = end ? strstr(rel, "..") : rel;
	if (!p)
		return 0;
	if (end)
		p += 2;
	if (strncmp(p, base, strlen(base)))
		return 0;
	p += strlen(base);
	if (*p != '+' && *p != '-')
		return 0;
	long sign = *p == '-' ? -1 : 1, v = strtol(p + 1, NULL, 0);
	/* bounded, so that the gap between two VMAs cannot overflow a long */
	if (v < 0 || v > REL_PAGES_MAX)
		v = REL_PAGES_MAX;
	return sign * v;
}

static void centre(char *out, size_t width, const char *s)
{
	size_t l = strlen(s);
	if (l > width)
		l = width;
	size_t left = (width - l) / 2;
	memset(out, ' ', width);
	memcpy(out + left, s, l);
	out[width] = 0;
}

struct box {
	char label[16], names[96], perms[8];
	size_t w;
	int gap; /* before this box: 0 adjacent, 1 near, 2 far */
};

/* The picture: perms above where they differ, boxes, names below. */
static void draw(FILE *fp, cJSON *vmas)
{
	struct box b[64];
	int n = 0;
	long prev_end = 0;
	bool perms_differ = false;
	cJSON *v;

	cJSON_ArrayForEach(v, vmas) {
		if (!drawn(v) || n == 64)
			continue;
		struct box *x = &b[n];
		const char *rel = str(v, "rel");
		snprintf(x->label, sizeof(x->label), "%s", faulted(str(v, "pages_state")) ? "faulted" : "unfaulted");
		region_text(cJSON_GetObjectItem(v, "region"), x->names, sizeof(x->names));
		snprintf(x->perms, sizeof(x->perms), "%.3s", str(v, "perms"));
		/* a merge of k regions is drawn as wide as k boxes, as the selftests do */
		cJSON *reg = cJSON_GetObjectItem(v, "region");
		int k = cJSON_IsArray(reg) ? cJSON_GetArraySize(reg) : 1;
		if (k < 1)
			k = 1;
		if (k > BOX_MAX_REGIONS)
			k = BOX_MAX_REGIONS;
		x->w = BOX_MIN * k + (k - 1);
		if (strlen(x->names) + 2 > x->w)
			x->w = strlen(x->names) + 2;
		long s = rel_pages(rel, false);
		x->gap = !n ? 0 : s == prev_end ? 0 : s - prev_end > GAP_NEAR_PAGES ? 2 : s - prev_end >= GAP_WIDE_PAGES ? 3 : 1;
		prev_end = rel_pages(rel, true);
		if (n && strcmp(x->perms, b[0].perms))
			perms_differ = true;
		n++;
	}
	if (!n)
		return;
	/* rows: 0 perms, 1 zig-zag top, 2 border, 3 label, 4 border, 5 names;
	 * as wide as the boxes make them (a merge of k regions is k boxes wide) */
	char *row[6];
	size_t rowlen[6];
	FILE *rf[6];
	for (int r = 0; r < 6; r++)
		rf[r] = xopen_memstream(&row[r], &rowlen[r]);
	for (int i = 0; i < n; i++) {
		const char *gap5[6] = { "     ", "  \\  ", "  /  ", "  \\  ", "  /  ", "  \\  " };
		for (int r = 0; r < 6; r++)
			fputs(b[i].gap == 2 ? gap5[r] : b[i].gap == 1 ? "  " : b[i].gap == 3 ? "           " : "", rf[r]);
		size_t w = b[i].w;
		char *cell = xmalloc(w + 1);
		bool open = i == 0 || b[i].gap;
		/* adjacent boxes share their wall */
		centre(cell, w, b[i].perms);
		fprintf(rf[0], "%s%s ", open ? " " : "", cell);
		fprintf(rf[1], "%*s", (int)(w + 1 + open), "");
		memset(cell, '-', w);
		cell[w] = 0;
		fprintf(rf[2], "%s%s|", open ? "|" : "", cell);
		fprintf(rf[4], "%s%s|", open ? "|" : "", cell);
		centre(cell, w, b[i].label);
		fprintf(rf[3], "%s%s|", open ? "|" : "", cell);
		centre(cell, w, b[i].names);
		fprintf(rf[5], "%s%s ", open ? " " : "", cell);
		free(cell);
	}
	for (int r = 0; r < 6; r++) {
		fclose(rf[r]);
		/* the zig-zag's top row only exists where there is a far gap */
		char *e = row[r] + strlen(row[r]);
		while (e > row[r] && e[-1] == ' ')
			*--e = 0;
		if (*row[r] && (r || perms_differ))
			fprintf(fp, "    %s\n", row[r]);
		free(row[r]);
	}
}

void out_text_dump(FILE *fp, cJSON *d)
{
	cJSON *v, *vmas = cJSON_GetObjectItem(d, "vmas");

	fprintf(fp, "\n  dump after step %.0f%s%s: %.0f VMAs\n\n", num(d, "after_step"),
		*str(d, "label") ? ", " : "", str(d, "label"), num(d, "vma_count"));
	draw(fp, vmas);
	cJSON *nm;
	cJSON_ArrayForEach(nm, cJSON_GetObjectItem(d, "non_merges"))
		fprintf(fp, "    not merged at %s: %s\n", str(nm, "at"), str(nm, "why"));
	cJSON *xs = cJSON_GetObjectItem(d, "xray");
	if (xs && !cJSON_IsTrue(cJSON_GetObjectItem(xs, "available")))
		fprintf(fp, "    x-ray unavailable: %s\n", str(xs, "why"));
	fprintf(fp, "\n    %-36s %7s %-4s %-14s %s\n", "range", "pages", "perm", "region", "pages_state");
	cJSON_ArrayForEach(v, vmas) {
		const char *rel = str(v, "rel");
		char reg[96];
		region_text(cJSON_GetObjectItem(v, "region"), reg, sizeof(reg));
		fprintf(fp, "    %-36s %7.0f %-4s %-14s ", *rel ? rel : str(v, "start"), num(v, "pages"),
			str(v, "perms"), reg);
		const char *ps = str(v, "pages_state");
		fprintf(fp, "%.48s%s\n", ps, strlen(ps) > 48 ? "..." : "");
	}
	fputc('\n', fp);
	esc_release();
}

static void out_text_scenario(FILE *fp, cJSON *sc)
{
	cJSON *x;
	const char *st = str(sc, "status");

	fprintf(fp, "\n%s: %s%s%s", str(sc, "name"), paint(st), st, paint("off"));
	if (*str(sc, "reason"))
		fprintf(fp, " (%s)", str(sc, "reason"));
	fputc('\n', fp);
	cJSON *c = cJSON_GetObjectItem(sc, "carveout");
	if (cJSON_GetObjectItem(c, "pages"))
		fprintf(fp, "  carveout: %.0f pages, guard %.0f pages each side\n", num(c, "pages"), num(c, "guard_pages"));
	int di = 0;
	cJSON *dumps = cJSON_GetObjectItem(sc, "dumps"), *expects = cJSON_GetObjectItem(sc, "expectations");
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(sc, "steps")) {
		out_text_step(fp, x, expects);
		cJSON *d = cJSON_GetArrayItem(dumps, di);
		if (d && num(d, "after_step") == num(x, "index")) {
			out_text_dump(fp, d);
			di++;
		}
	}
}

int out_text(cJSON *doc, FILE *fp)
{
	cJSON *sc;
	cJSON *k = cJSON_GetObjectItem(doc, "kernel");

	colour = isatty(fileno(fp)) && !getenv("NO_COLOR");
	fprintf(fp, "anonremap %s on Linux %s\n", str(doc, "version"), str(k, "release"));
	/* SIGPIPE is ignored (main.c): once the reader is gone every write
	 * fails, and the rest of a large result is not worth drawing */
	cJSON_ArrayForEach(sc, cJSON_GetObjectItem(doc, "scenarios")) {
		if (ferror(fp))
			return -1;
		out_text_scenario(fp, sc);
	}
	cJSON *s = cJSON_GetObjectItem(doc, "summary");
	if (s)
		fprintf(fp, "\nsummary: %.0f pass, %.0f fail, %.0f skip, %.0f error\n", num(s, "pass"), num(s, "fail"),
			num(s, "skip"), num(s, "error"));
	esc_release();
	return 0;
}
