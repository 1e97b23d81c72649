/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The VMA JSON of a dump: boundaries, smaps fields and page state. */
#include "anonremap.h"
#include "compat.h"
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define KPF_THP 22
#define RLE_MIN_PAGES 128 /* VMAs at least this long get run-length encoding */
#define RLE_MIN_RUN 8

#define CHUNK_PAGES (64 * 1024) /* pagemap entries read at a time: 512 KiB */
#define MAX_STATE_PAGES (1ull << 24) /* 64 GiB of 4 KiB pages: beyond, pagemap is not walked */

struct runbuf {
	char *s;
	size_t len, cap;
	char cur;       /* the run being counted */
	uint64_t count;
	bool rle;
};

static void put(struct runbuf *b, const char *piece)
{
	size_t pl = strlen(piece);
	if (b->len + pl + 1 > b->cap) {
		b->cap = (b->len + pl + 1) * 2;
		b->s = realloc(b->s, b->cap);
		if (!b->s)
			abort(); /* out of memory: nothing sensible to report into */
	}
	memcpy(b->s + b->len, piece, pl + 1);
	b->len += pl;
}

static void flush_run(struct runbuf *b)
{
	char piece[40];
	if (!b->count)
		return;
	if (b->rle && b->count >= RLE_MIN_RUN) {
		snprintf(piece, sizeof(piece), "%c{%" PRIu64 "}", b->cur, b->count);
		put(b, piece);
	} else {
		memset(piece, b->cur, sizeof(piece) - 1);
		for (uint64_t left = b->count; left;) {
			size_t k = left < sizeof(piece) - 1 ? left : sizeof(piece) - 1;
			piece[k] = 0;
			put(b, piece);
			memset(piece, b->cur, sizeof(piece) - 1);
			left -= k;
		}
	}
	b->count = 0;
}

static void add_pages(struct runbuf *b, char c, uint64_t n)
{
	if (!n)
		return;
	if (b->count && c != b->cur)
		flush_run(b);
	b->cur = c;
	b->count += n;
}

static void add_page(struct runbuf *b, char c)
{
	add_pages(b, c, 1);
}

/* One character a page: '.' absent, 'x' exclusive, 's' shared, 'w' swapped,
 * 'g' a guard-region marker (pagemap shows it as swapped too, so it is
 * told first), 'H' part of a THP (only where /proc/kpageflags is readable). The kernel's
 * flags are read for runs of consecutive PFNs at once. */
static void classify(const uint64_t *pm, uint64_t n, bool *kpf_ok, struct runbuf *b)
{
	uint64_t kf[512];

	for (uint64_t i = 0; i < n;) {
		uint64_t e = pm[i];
		if (e & PM_GUARD_REGION) {
			add_page(b, 'g'), i++;
			continue;
		}
		if (e & PM_SWAP) {
			add_page(b, 'w'), i++;
			continue;
		}
		if (!(e & PM_PRESENT)) {
			add_page(b, '.'), i++;
			continue;
		}
		uint64_t pfn = e & PM_PFN_MASK, run = 1;
		while (i + run < n && run < 512 && (pm[i + run] & PM_PRESENT) && !(pm[i + run] & PM_SWAP) &&
		       (pm[i + run] & PM_PFN_MASK) == pfn + run)
			run++;
		bool kpf = *kpf_ok && pfn && !kpageflags_read_range(pfn, run, kf);
		if (*kpf_ok && pfn && !kpf)
			*kpf_ok = false;
		for (uint64_t k = 0; k < run; k++) {
			bool thp = kpf && (kf[k] & (1ull << KPF_THP));
			add_page(b, thp ? 'H' : pm[i + k] & PM_EXCLUSIVE ? 'x' : 's');
		}
		i += run;
	}
}

/* The pagemap of n pages from addr, classified, through a chunk buffer of
 * cap entries made at the first range that needs one: where PAGEMAP_SCAN
 * finds nothing, as in the guards, none is. */
static int classify_range(pid_t pid, uint64_t addr, uint64_t n, uint64_t **pm, uint64_t cap, bool *kpf_ok,
			  struct runbuf *b)
{
	if (n && !*pm && !(*pm = malloc(cap * sizeof(uint64_t))))
		return -ENOMEM;
	for (uint64_t done = 0; done < n;) {
		uint64_t k = n - done < cap ? n - done : cap;
		int rc = pagemap_read(pid, addr + done * kinfo.page_size, k, *pm);
		if (rc)
			return rc;
		classify(*pm, k, kpf_ok, b);
		done += k;
	}
	return 0;
}

/* Pages state of one VMA, streamed through a chunk buffer: a VMA of any size
 * costs 512 KiB of memory. Where PAGEMAP_SCAN finds the runs of pages that
 * are present or swapped, only those are read from pagemap, and the rest is
 * '.' as pagemap would say. Beyond MAX_STATE_PAGES the walk would take
 * seconds a dump: the result says so instead (smaps still gives the counts). */
static char *pages_state_rle(pid_t pid, uint64_t start, uint64_t end, bool rle, bool *kpf_ok, int *err)
{
	uint64_t n = (end - start) / kinfo.page_size, ps = kinfo.page_size;
	struct runbuf b = { .rle = rle && n >= RLE_MIN_PAGES };
	struct page_region reg[256];
	int rc = 0;

	if (n > MAX_STATE_PAGES) {
		*err = EFBIG;
		return NULL;
	}
	uint64_t *pm = NULL, cap = n < CHUNK_PAGES ? n : CHUNK_PAGES;
	for (uint64_t pos = start, walk_end; pos < end && !rc; pos = walk_end) {
		int k = pagemap_scan(pid, pos, end, reg, sizeof(reg) / sizeof(reg[0]), &walk_end);
		if (k == -ENOTTY) { /* no PAGEMAP_SCAN: all of pagemap */
			rc = classify_range(pid, pos, (end - pos) / ps, &pm, cap, kpf_ok, &b);
			break;
		}
		if (k < 0 || walk_end <= pos || walk_end > end) {
			rc = k < 0 ? k : -EIO;
			break;
		}
		for (int i = 0; i < k && !rc; i++) {
			add_pages(&b, '.', (reg[i].start - pos) / ps);
			rc = classify_range(pid, reg[i].start, (reg[i].end - reg[i].start) / ps, &pm, cap, kpf_ok, &b);
			pos = reg[i].end;
		}
		add_pages(&b, '.', (walk_end - pos) / ps);
	}
	free(pm);
	if (rc) {
		free(b.s);
		*err = -rc;
		return NULL;
	}
	flush_run(&b);
	return b.s ? b.s : xstrdup("");
}

static char *pages_state(pid_t pid, uint64_t start, uint64_t end, bool *kpf_ok, int *err)
{
	return pages_state_rle(pid, start, end, true, kpf_ok, err);
}

/* For the pages check: the same letters, one a page, never run-length encoded. */
char *pages_letters(pid_t pid, uint64_t start, uint64_t end, int *err)
{
	bool kpf_ok = true;
	return pages_state_rle(pid, start, end, false, &kpf_ok, err);
}

/* Letters, one a page, in the run-length form dumps print (runs of
 * RLE_MIN_RUN or more as c{N}): the pages check shows what it found so. */
char *pages_runs(const char *letters)
{
	struct runbuf b = { .rle = true };

	put(&b, "");
	for (const char *c = letters; *c; c++)
		add_page(&b, *c);
	flush_run(&b);
	return b.s;
}

/* Adjacent VMAs of the scenario that did not merge, and the reasons that can
 * be seen: the x-ray's (vm_pgoff, anon_vma, chain, flags, uffd) where it is
 * loaded, else what /proc shows (protections, file, VmFlags). */
static void explain_non_merges(const struct dump_opts *o, const struct vma *v, size_t n, const struct smaps_table *sm,
			       const struct xray_vma *xv, size_t nx, cJSON *out)
{
	char a[64], b[64], why[512];

	for (size_t i = 0; i + 1 < n; i++) {
		if (v[i].end != v[i + 1].start)
			continue;
		cJSON *la, *lb;
		const char *ra = o->run ? region_of(o->run, v[i].start, v[i].end, &la) : NULL;
		const char *rb = o->run ? region_of(o->run, v[i + 1].start, v[i + 1].end, &lb) : NULL;
		bool filler_a = !la && (!ra || !strcmp(ra, "carveout") || !strcmp(ra, "guard"));
		bool filler_b = !lb && (!rb || !strcmp(rb, "carveout") || !strcmp(rb, "guard"));
		cJSON_Delete(la);
		cJSON_Delete(lb);
		if (o->run && (filler_a || filler_b))
			continue; /* the PROT_NONE filler is not the scenario's */
		const struct xray_vma *xa = xv ? xray_find(xv, nx, v[i].start) : NULL;
		const struct xray_vma *xb = xv ? xray_find(xv, nx, v[i + 1].start) : NULL;
		why[0] = 0;
		if (xa && xb) {
			if (xray_explain(xa, xb, why, sizeof(why)) == 0)
				snprintf(why, sizeof(why), "no reason the x-ray can see");
		} else {
			const struct smaps_entry *sa = smaps_find(sm, v[i].start), *sb = smaps_find(sm, v[i + 1].start);
			if (strcmp(v[i].perms, v[i + 1].perms))
				snprintf(why, sizeof(why), "protections differ: %s != %s", v[i].perms, v[i + 1].perms);
			else if (v[i].inode != v[i + 1].inode || strcmp(v[i].name ? v[i].name : "", v[i + 1].name ? v[i + 1].name : ""))
				snprintf(why, sizeof(why), "different files: '%s' (inode %" PRIu64 ") != '%s' (inode %" PRIu64 ")",
					 v[i].name ? v[i].name : "", v[i].inode, v[i + 1].name ? v[i + 1].name : "", v[i + 1].inode);
			else if (v[i].inode && v[i + 1].offset != v[i].offset + (v[i].end - v[i].start))
				snprintf(why, sizeof(why), "file offsets not contiguous");
			else if (sa && sb && strcmp(sa->vm_flags, sb->vm_flags))
				snprintf(why, sizeof(why), "vm_flags differ: %s != %s", sa->vm_flags, sb->vm_flags);
			else
				snprintf(why, sizeof(why), "nothing /proc shows: vm_pgoff or anon_vma differ, which only the "
							   "x-ray shows (kmod/, --xray)");
		}
		if (o->run) {
			rel_format(v[i].end, o->run->base, a, sizeof(a));
			snprintf(b, sizeof(b), "%s", a);
		} else {
			hex_format(v[i].end, a, sizeof(a));
			snprintf(b, sizeof(b), "%s", a);
		}
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "at", b);
		cJSON_AddStringToObject(e, "why", why);
		cJSON_AddItemToArray(out, e);
	}
}

/* A VMA's fields. Its keys are string literals: cJSON keeps them without a
 * copy, which on 65,000 VMAs is 600,000 allocations fewer. For a sink that
 * only prints each VMA before the next is built (maps PID), the values are
 * not copied either: they are written into one buffer reused a VMA, as raw
 * JSON (quoted) where cJSON would print them as they are, which it then
 * does without its scan for characters to escape. */
struct vma_fields {
	bool print_only;
	size_t used;
	char pool[2 * (4096 + 256)];
};

/* what cJSON's printer escapes: '"', '\\' and control characters */
static bool needs_escape(const char *v)
{
	for (; *v; v++)
		if (*v == '"' || *v == '\\' || (unsigned char)*v < 0x20)
			return true;
	return false;
}

/* v in the pool, quoted; NULL when it does not fit */
static const char *pool_put(struct vma_fields *f, const char *v, bool quoted)
{
	size_t n = strlen(v), q = quoted ? 2 : 0;
	if (f->used + n + q + 1 > sizeof(f->pool))
		return NULL;
	char *p = f->pool + f->used;
	if (quoted)
		p[0] = '"';
	memcpy(p + (quoted ? 1 : 0), v, n);
	if (quoted)
		p[n + 1] = '"';
	p[n + q] = 0;
	f->used += n + q + 1;
	return p;
}

static void add_str(struct vma_fields *f, cJSON *j, const char *key, const char *v)
{
	const char *p = f->print_only && !needs_escape(v) ? pool_put(f, v, true) : NULL;
	cJSON *item;
	if (p) {
		item = cJSON_CreateStringReference(p);
		item->type = cJSON_Raw | cJSON_IsReference;
	} else {
		item = cJSON_CreateString(v);
	}
	cJSON_AddItemToObjectCS(j, key, item);
}

static void add_num(struct vma_fields *f, cJSON *j, const char *key, uint64_t v)
{
	if (!f->print_only) {
		cJSON_AddItemToObjectCS(j, key, cJSON_CreateNumber((double)v));
		return;
	}
	char digits[24], *q = digits + sizeof(digits);
	*--q = 0;
	do
		*--q = (char)('0' + v % 10);
	while (v /= 10);
	const char *p = pool_put(f, q, false);
	cJSON *item = p ? cJSON_CreateStringReference(p) : cJSON_CreateRaw(q);
	item->type = cJSON_Raw | (p ? cJSON_IsReference : 0);
	cJSON_AddItemToObjectCS(j, key, item);
}

/* Build each VMA's JSON and hand it to the sink as soon as it is done, so a
 * caller that prints (maps PID) holds one VMA at a time, not 65,000. */
int vmas_walk(struct vma_src *vs, const struct dump_opts *o, uint64_t lo, uint64_t hi, const struct vma_sink *sink,
	      struct err *err)
{
	struct vma *v;
	size_t n;
	char buf[4096 + 256];
	struct smaps_table *sm = NULL;
	bool kpf_ok = true;
	struct vma_fields *f = xcalloc(1, sizeof(*f));
	f->print_only = sink->print_only;

	struct smaps_stream *ss = NULL;
	if (o->smaps && o->smaps_thread && !(ss = smaps_stream_start(vs->pid, err)))
		return -1;
	int rc = vma_list(vs, lo, hi, &v, &n);
	if (rc) {
		if (ss)
			smaps_stream_finish(ss, false, err);
		return err_set(err, "reading the VMAs of %d: %s", (int)vs->pid, strerror(-rc)), -1;
	}
	if (o->smaps && !ss && !(sm = smaps_load(vs->pid, hi, err))) {
		vma_free_list(v, n);
		return -1;
	}
	struct xray_vma *xv = NULL;
	size_t nx = 0;
	bool xok = false;
	if (o->xray) {
		char why[200];
		/* user space ends below 2^57 (5-level paging): the module page-aligns hi */
		xok = xray_read(vs->pid, lo, hi > (1ull << 57) ? 1ull << 57 : hi, true, &xv, &nx, why, sizeof(why)) == 0;
		if (o->xray_status) {
			cJSON_AddBoolToObject(o->xray_status, "available", xok);
			if (!xok)
				cJSON_AddStringToObject(o->xray_status, "why", why);
		}
	}
	if (sink->begin && (rc = sink->begin(sink->ctx, n))) {
		err_set(err, "%s", strerror(-rc));
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		cJSON *j = cJSON_CreateObject();
		char a[64], b[64];
		f->used = 0;
		hex_format(v[i].start, buf, sizeof(buf));
		add_str(f, j, "start", buf);
		hex_format(v[i].end, buf, sizeof(buf));
		add_str(f, j, "end", buf);
		if (o->run) {
			rel_format(v[i].start, o->run->base, a, sizeof(a));
			rel_format(v[i].end, o->run->base, b, sizeof(b));
			snprintf(buf, sizeof(buf), "%s..%s", a, b);
			add_str(f, j, "rel", buf);
		}
		add_num(f, j, "pages", (v[i].end - v[i].start) / kinfo.page_size);
		add_str(f, j, "perms", v[i].perms);
		if (o->run) {
			cJSON *list;
			const char *one = region_of(o->run, v[i].start, v[i].end, &list);
			if (list)
				cJSON_AddItemToObject(j, "region", list);
			else if (one)
				add_str(f, j, "region", one);
			else
				cJSON_AddNullToObject(j, "region");
		}
		add_num(f, j, "offset", v[i].offset);
		vma_dev_format(&v[i], buf);
		add_str(f, j, "dev", buf);
		add_num(f, j, "inode", v[i].inode);
		add_str(f, j, "name", v[i].name ? v[i].name : "");
		struct smaps_entry se_copy;
		const struct smaps_entry *se = NULL;
		if (ss)
			se = smaps_stream_get(ss, v[i].start, &se_copy) ? &se_copy : NULL;
		else if (sm)
			se = smaps_find(sm, v[i].start);
		if (o->smaps)
			smaps_entry_json(se, j);
		if (o->pagemap) {
			int e = 0;
			char *ps = pages_state(vs->pid, v[i].start, v[i].end, &kpf_ok, &e);
			if (ps) {
				add_str(f, j, "pages_state", ps);
			} else {
				char why[160];
				if (e == EFBIG)
					snprintf(why, sizeof(why), "not read: more than %llu pages (smaps: Rss %llu kB, Swap %llu kB)",
						 (unsigned long long)MAX_STATE_PAGES, se ? (unsigned long long)se->rss : 0ull,
						 se ? (unsigned long long)se->swap : 0ull);
				else
					snprintf(why, sizeof(why), "/proc/%d/pagemap: %s", (int)vs->pid, errno_name(e));
				cJSON_AddNullToObject(j, "pages_state");
				add_str(f, j, "pages_state_error", why);
			}
			free(ps);
		}
		vma_maps_line(&v[i], buf, sizeof(buf));
		add_str(f, j, "maps_line", buf);
		if (xok) {
			const struct xray_vma *x = xray_find(xv, nx, v[i].start);
			if (x)
				cJSON_AddItemToObject(j, "xray", xray_vma_json(x));
		}
		if ((rc = sink->vma(sink->ctx, j))) {
			err_set(err, "%s", strerror(-rc));
			goto out;
		}
	}
	if (ss) {
		sm = smaps_stream_finish(ss, true, err);
		ss = NULL;
		if (!sm) { /* err says why */
			rc = -1;
			goto out;
		}
	}
	if (o->non_merges)
		explain_non_merges(o, v, n, sm, xok ? xv : NULL, nx, o->non_merges);
	if (o->process_vmas)
		*o->process_vmas = vma_count_all(vs);
out:
	if (ss)
		smaps_stream_finish(ss, false, NULL);
	free(f);
	xray_free(xv, nx);
	pagemap_close();
	smaps_free(sm);
	vma_free_list(v, n);
	return rc ? -1 : 0;
}

static int add_to_array(void *arr, cJSON *vma)
{
	cJSON_AddItemToArray(arr, vma);
	return 0;
}

cJSON *vmas_json(struct vma_src *vs, const struct dump_opts *o, uint64_t lo, uint64_t hi, struct err *err)
{
	cJSON *arr = cJSON_CreateArray();
	struct vma_sink sink = { .vma = add_to_array, .ctx = arr };

	if (vmas_walk(vs, o, lo, hi, &sink, err)) {
		cJSON_Delete(arr);
		return NULL;
	}
	return arr;
}

/* Where a page-state field cannot be read, the dump says so. */
const char *kpageflags_status(void)
{
	uint64_t f;
	int rc = kpageflags_read(0, &f);
	return rc ? "unreadable: huge pages are not marked H" : "readable";
}

cJSON *dump_vmas(struct run *r, uint64_t lo, uint64_t hi, long *process_vmas, cJSON *xray_status, cJSON *non_merges,
		 struct err *err)
{
	struct dump_opts o = { .smaps = true, .pagemap = true, .run = r, .process_vmas = process_vmas,
			       .xray = r->opts->xray, .xray_status = xray_status, .non_merges = non_merges };
	return vmas_json(&r->cur->vs, &o, lo, hi, err);
}
