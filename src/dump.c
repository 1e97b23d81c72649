/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The VMA JSON of a dump: boundaries, smaps fields and page state. */
#include "anonremap.h"
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define KPF_THP 22
#define RLE_MIN_PAGES 128 /* VMAs at least this long get run-length encoding */
#define RLE_MIN_RUN 8

/* One character a page: '.' absent, 'x' exclusive, 's' shared, 'w' swapped,
 * 'H' part of a THP (only where /proc/kpageflags is readable). */
static char page_char(uint64_t pm, bool *kpf_ok)
{
	uint64_t kf;

	if (pm & PM_SWAP)
		return 'w';
	if (!(pm & PM_PRESENT))
		return '.';
	if (*kpf_ok && (pm & PM_PFN_MASK)) {
		if (kpageflags_read(pm & PM_PFN_MASK, &kf) == 0) {
			if (kf & (1ull << KPF_THP))
				return 'H';
		} else {
			*kpf_ok = false;
		}
	}
	return pm & PM_EXCLUSIVE ? 'x' : 's';
}

/* Long VMAs: runs of RLE_MIN_RUN or more become "c{N}", e.g. "H{512}.{1536}". */
static char *encode_runs(const char *s, size_t n)
{
	size_t cap = 64, len = 0;
	char *out = xmalloc(cap);

	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && s[j] == s[i])
			j++;
		char piece[32];
		if (j - i >= RLE_MIN_RUN)
			snprintf(piece, sizeof(piece), "%c{%zu}", s[i], j - i);
		else
			snprintf(piece, sizeof(piece), "%.*s", (int)(j - i), s + i);
		size_t pl = strlen(piece);
		if (len + pl + 1 > cap) {
			cap = (len + pl + 1) * 2;
			char *no = realloc(out, cap);
			if (!no) {
				free(out);
				return NULL;
			}
			out = no;
		}
		memcpy(out + len, piece, pl);
		len += pl;
		i = j;
	}
	out[len] = 0;
	return out;
}

/* Pages state of one VMA, with counts of each kind; NULL with errno. */
static char *pages_state(pid_t pid, uint64_t start, uint64_t end, bool *kpf_ok, int *err)
{
	uint64_t n = (end - start) / kinfo.page_size;
	uint64_t *pm = malloc(n * sizeof(uint64_t) + 1);
	char *s = malloc(n + 1);

	if (!pm || !s) {
		free(pm);
		free(s);
		*err = ENOMEM;
		return NULL;
	}
	int rc = pagemap_read(pid, start, n, pm);
	if (rc) {
		free(pm);
		free(s);
		*err = -rc;
		return NULL;
	}
	for (uint64_t i = 0; i < n; i++)
		s[i] = page_char(pm[i], kpf_ok);
	s[n] = 0;
	free(pm);
	if (n >= RLE_MIN_PAGES) {
		char *e = encode_runs(s, n);
		free(s);
		return e;
	}
	return s;
}

cJSON *vmas_json(struct vma_src *vs, const struct dump_opts *o, uint64_t lo, uint64_t hi, struct err *err)
{
	struct vma *v;
	size_t n;
	char buf[4096 + 256];
	struct smaps_table *sm = NULL;
	bool kpf_ok = true;

	int rc = vma_list(vs, lo, hi, &v, &n);
	if (rc)
		return err_set(err, "reading the VMAs of %d: %s", (int)vs->pid, strerror(-rc)), NULL;
	if (o->smaps && !(sm = smaps_load(vs->pid, err))) {
		vma_free_list(v, n);
		return NULL;
	}
	cJSON *arr = cJSON_CreateArray();
	for (size_t i = 0; i < n; i++) {
		cJSON *j = cJSON_CreateObject();
		char a[64], b[64];
		hex_format(v[i].start, buf, sizeof(buf));
		cJSON_AddStringToObject(j, "start", buf);
		hex_format(v[i].end, buf, sizeof(buf));
		cJSON_AddStringToObject(j, "end", buf);
		if (o->run) {
			rel_format(v[i].start, o->run->base, a, sizeof(a));
			rel_format(v[i].end, o->run->base, b, sizeof(b));
			snprintf(buf, sizeof(buf), "%s..%s", a, b);
			cJSON_AddStringToObject(j, "rel", buf);
		}
		cJSON_AddNumberToObject(j, "pages", (double)((v[i].end - v[i].start) / kinfo.page_size));
		cJSON_AddStringToObject(j, "perms", v[i].perms);
		if (o->run) {
			cJSON *list;
			const char *one = region_of(o->run, v[i].start, v[i].end, &list);
			if (list)
				cJSON_AddItemToObject(j, "region", list);
			else if (one)
				cJSON_AddStringToObject(j, "region", one);
			else
				cJSON_AddNullToObject(j, "region");
		}
		cJSON_AddNumberToObject(j, "offset", (double)v[i].offset);
		snprintf(buf, sizeof(buf), "%02x:%02x", v[i].dev_major, v[i].dev_minor);
		cJSON_AddStringToObject(j, "dev", buf);
		cJSON_AddNumberToObject(j, "inode", (double)v[i].inode);
		cJSON_AddStringToObject(j, "name", v[i].name ? v[i].name : "");
		if (o->smaps)
			smaps_add_json(sm, v[i].start, j);
		if (o->pagemap) {
			int e = 0;
			char *ps = pages_state(vs->pid, v[i].start, v[i].end, &kpf_ok, &e);
			if (ps)
				cJSON_AddStringToObject(j, "pages_state", ps);
			else
				cJSON_AddNullToObject(j, "pages_state");
			free(ps);
		}
		vma_maps_line(&v[i], buf, sizeof(buf));
		cJSON_AddStringToObject(j, "maps_line", buf);
		cJSON_AddItemToArray(arr, j);
	}
	smaps_free(sm);
	vma_free_list(v, n);
	return arr;
}

/* Where a page-state field cannot be read, the dump says so. */
const char *kpageflags_status(void)
{
	uint64_t f;
	int rc = kpageflags_read(0, &f);
	return rc ? "unreadable: huge pages are not marked H" : "readable";
}

cJSON *dump_vmas(struct run *r, uint64_t lo, uint64_t hi, struct err *err)
{
	struct dump_opts o = { .smaps = true, .pagemap = true, .run = r };
	return vmas_json(&r->vs, &o, lo, hi, err);
}
