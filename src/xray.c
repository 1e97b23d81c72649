/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The x-ray: what /proc cannot show (vm_pgoff, anon_vma, the anon_vma_chain,
 * folio indices), read from the optional anonremap_xray kernel module's
 * debugfs files (kmod/README has the record format), parsed into structs,
 * turned into JSON, and used to explain why two adjacent VMAs did not merge
 * in the kernel's own terms. */
#include "anonremap.h"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#define XRAY_DEBUGFS "/sys/kernel/debug"
#define XRAY_DEBUGFS_MAGIC 0x64626720
#define XRAY_MAX_BYTES (80u << 20) /* the module stops at 64 MiB */

static void why_set(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void why_set(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!why || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

int xray_available(char *why, size_t len)
{
	struct stat st;
	struct statfs sf;

	if (stat("/sys/module/anonremap_xray", &st) != 0) {
		why_set(why, len, "the anonremap_xray kernel module is not loaded "
			"(build it from kmod/ for this kernel and insmod anonremap_xray.ko)");
		return 0;
	}
	if (statfs(XRAY_DEBUGFS, &sf) != 0 || (uint64_t)sf.f_type != XRAY_DEBUGFS_MAGIC) {
		if (errno == EACCES)
			why_set(why, len, "cannot look into " XRAY_DEBUGFS ": %s (the x-ray needs root)",
				strerror(errno));
		else
			why_set(why, len, "debugfs is not mounted on " XRAY_DEBUGFS
				" (mount -t debugfs none " XRAY_DEBUGFS ")");
		return 0;
	}
	if (access(XRAY_DATA, R_OK | W_OK) != 0) {
		if (errno == EACCES || errno == EPERM)
			why_set(why, len, "%s: %s (the x-ray needs root: CAP_SYS_ADMIN)", XRAY_DATA,
				strerror(errno));
		else
			why_set(why, len, "%s: %s (is the module too old, or being unloaded?)", XRAY_DATA,
				strerror(errno));
		return 0;
	}
	if (why && len)
		why[0] = 0;
	return 1;
}

/* ---- parsing ---------------------------------------------------------- */

struct xparse {
	struct xray_vma *v;
	size_t n, cap;
	uint64_t page_size;
	bool header, end;
	char *why;
	size_t wlen;
	int line;
};

/* The value of KEY in a line's tokens ("key=value"), or NULL. */
static const char *tok_get(char **toks, int nt, const char *key)
{
	size_t kl = strlen(key);

	for (int i = 1; i < nt; i++)
		if (!strncmp(toks[i], key, kl) && toks[i][kl] == '=')
			return toks[i] + kl + 1;
	return NULL;
}

static int get_u64(struct xparse *p, char **toks, int nt, const char *key, uint64_t *out, bool required)
{
	const char *s = tok_get(toks, nt, key);
	char *end;

	if (!s) {
		if (!required)
			return 0;
		why_set(p->why, p->wlen, "x-ray line %d (%s): no %s", p->line, toks[0], key);
		return -1;
	}
	errno = 0;
	*out = strtoull(s, &end, 0);
	if (errno || end == s || *end) {
		why_set(p->why, p->wlen, "x-ray line %d (%s): bad %s=%s", p->line, toks[0], key, s);
		return -1;
	}
	return 0;
}

static int get_bool(struct xparse *p, char **toks, int nt, const char *key, bool *out)
{
	uint64_t v = 0;

	if (get_u64(p, toks, nt, key, &v, false))
		return -1;
	*out = v != 0;
	return 0;
}

/* An identity: 16 hex digits, or "-" for none. */
static int get_id(struct xparse *p, char **toks, int nt, const char *key, uint64_t *out, bool *has)
{
	const char *s = tok_get(toks, nt, key);
	char *end;

	*has = false;
	*out = 0;
	if (!s || !strcmp(s, "-"))
		return 0;
	errno = 0;
	*out = strtoull(s, &end, 16);
	if (errno || end == s || *end) {
		why_set(p->why, p->wlen, "x-ray line %d (%s): bad identity %s=%s", p->line, toks[0], key, s);
		return -1;
	}
	*has = true;
	return 0;
}

static int parse_header(struct xparse *p, char **toks, int nt)
{
	uint64_t fmt = 0;

	if (get_u64(p, toks, nt, "format", &fmt, true))
		return -1;
	if (fmt != 1) {
		why_set(p->why, p->wlen, "x-ray format %" PRIu64 " is not supported (anonremap reads format 1): "
			"rebuild the module from this anonremap's kmod/", fmt);
		return -1;
	}
	p->page_size = 4096;
	if (get_u64(p, toks, nt, "page_size", &p->page_size, false))
		return -1;
	if (!p->page_size || (p->page_size & (p->page_size - 1))) {
		why_set(p->why, p->wlen, "x-ray line %d: bad page_size", p->line);
		return -1;
	}
	p->header = true;
	return 0;
}

static int parse_vma(struct xparse *p, char **toks, int nt)
{
	struct xray_vma *v;
	bool has;
	const char *s;

	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		struct xray_vma *nv = realloc(p->v, cap * sizeof(*nv));
		if (!nv) {
			why_set(p->why, p->wlen, "out of memory");
			return -1;
		}
		p->v = nv;
		p->cap = cap;
	}
	v = &p->v[p->n];
	memset(v, 0, sizeof(*v));
	p->n++;
	v->page_size = p->page_size;
	if (get_u64(p, toks, nt, "start", &v->start, true) || get_u64(p, toks, nt, "end", &v->end, true) ||
	    get_u64(p, toks, nt, "pgoff", &v->pgoff, true) || get_u64(p, toks, nt, "flags", &v->flags, true) ||
	    get_u64(p, toks, nt, "anon_pgoff", &v->anon_pgoff, false) ||
	    get_id(p, toks, nt, "anon_vma", &v->anon_vma, &v->has_anon_vma) ||
	    get_id(p, toks, nt, "anon_vma_root", &v->anon_vma_root, &has) ||
	    get_u64(p, toks, nt, "chain", &v->chain_len, true) ||
	    get_bool(p, toks, nt, "uffd", &v->uffd) ||
	    get_id(p, toks, nt, "uffd_ctx", &v->uffd_ctx, &has) ||
	    get_id(p, toks, nt, "file", &v->file, &v->has_file) ||
	    get_bool(p, toks, nt, "mpol", &v->mpol))
		return -1;
	if (v->end <= v->start) {
		why_set(p->why, p->wlen, "x-ray line %d: vma end <= start", p->line);
		return -1;
	}
	s = tok_get(toks, nt, "vmflags");
	snprintf(v->vmflags, sizeof(v->vmflags), "%s", s && strcmp(s, "-") ? s : "");
	s = tok_get(toks, nt, "folios");
	snprintf(v->folios_walk, sizeof(v->folios_walk), "%s", s ? s : "not_requested");
	v->walked = !strcmp(v->folios_walk, "walked");
	v->has_anon_pgoff = tok_get(toks, nt, "anon_pgoff") != NULL;
	return 0;
}

static int parse_folio(struct xparse *p, char **toks, int nt)
{
	struct xray_vma *v;
	struct xray_folio *f;
	uint64_t order = 0;

	if (!p->n) {
		why_set(p->why, p->wlen, "x-ray line %d: a folio before any vma", p->line);
		return -1;
	}
	v = &p->v[p->n - 1];
	if (v->nfolios == v->folios_cap) {
		size_t cap = v->folios_cap ? v->folios_cap * 2 : 8;
		struct xray_folio *nf = realloc(v->folios, cap * sizeof(*nf));
		if (!nf) {
			why_set(p->why, p->wlen, "out of memory");
			return -1;
		}
		v->folios = nf;
		v->folios_cap = cap;
	}
	f = &v->folios[v->nfolios];
	memset(f, 0, sizeof(*f));
	f->nr = 1;
	if (get_u64(p, toks, nt, "addr", &f->addr, true) || get_u64(p, toks, nt, "nr", &f->nr, false) ||
	    get_u64(p, toks, nt, "index", &f->index, true) ||
	    get_u64(p, toks, nt, "subpage", &f->subpage, false) ||
	    get_u64(p, toks, nt, "linear", &f->linear_index, true) ||
	    get_id(p, toks, nt, "anon_vma", &f->anon_vma, &f->has_anon_vma) ||
	    get_u64(p, toks, nt, "order", &order, false) ||
	    get_bool(p, toks, nt, "ksm", &f->ksm) || get_bool(p, toks, nt, "large", &f->large))
		return -1;
	if (f->addr < v->start || f->addr >= v->end || !f->nr) {
		why_set(p->why, p->wlen, "x-ray line %d: folio at 0x%" PRIx64 " outside its vma", p->line, f->addr);
		return -1;
	}
	f->order = (unsigned)order;
	f->addr_index = f->addr / v->page_size;
	v->nfolios++;
	return 0;
}

static int parse_walk(struct xparse *p, char **toks, int nt)
{
	struct xray_vma *v;

	if (!p->n) {
		why_set(p->why, p->wlen, "x-ray line %d: a walk before any vma", p->line);
		return -1;
	}
	v = &p->v[p->n - 1];
	return get_u64(p, toks, nt, "present", &v->present, false) ||
	       get_u64(p, toks, nt, "anon", &v->anon, false) ||
	       get_u64(p, toks, nt, "zero", &v->zero, false) ||
	       get_u64(p, toks, nt, "other", &v->other, false) ? -1 : 0;
}

int xray_parse_buf(const char *buf, size_t blen, struct xray_vma **out, size_t *n, char *why, size_t len)
{
	struct xparse p = { .why = why, .wlen = len, .page_size = 4096 };
	char *copy = xmalloc(blen + 1), *line, *save = NULL;
	int ret = 0;

	memcpy(copy, buf, blen);
	copy[blen] = 0;
	*out = NULL;
	*n = 0;
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *toks[64], *t, *ts = NULL;
		int nt = 0;

		p.line++;
		for (t = strtok_r(line, " \t\r", &ts); t && nt < 64; t = strtok_r(NULL, " \t\r", &ts))
			toks[nt++] = t;
		if (!nt || toks[0][0] == '#')
			continue;
		if (p.end) {
			why_set(why, len, "x-ray line %d: records after the end record", p.line);
			ret = -1;
			break;
		}
		if (!p.header && strcmp(toks[0], "xray")) {
			why_set(why, len, "not x-ray records (line %d starts with '%.32s', not 'xray')", p.line,
				toks[0]);
			ret = -1;
			break;
		}
		if (!strcmp(toks[0], "xray"))
			ret = parse_header(&p, toks, nt);
		else if (!strcmp(toks[0], "vma"))
			ret = parse_vma(&p, toks, nt);
		else if (!strcmp(toks[0], "folio"))
			ret = parse_folio(&p, toks, nt);
		else if (!strcmp(toks[0], "walk"))
			ret = parse_walk(&p, toks, nt);
		else if (!strcmp(toks[0], "end"))
			p.end = true;
		/* other record types: from a newer module, ignored */
		if (ret)
			break;
	}
	free(copy);
	if (!ret && !p.header) {
		why_set(why, len, "no x-ray records");
		ret = -1;
	}
	if (!ret && !p.end) {
		why_set(why, len, "the x-ray records are truncated (no end record)");
		ret = -1;
	}
	if (ret) {
		xray_free(p.v, p.n);
		return -1;
	}
	*out = p.v;
	*n = p.n;
	return 0;
}

int xray_parse_fd(int fd, struct xray_vma **out, size_t *n, char *why, size_t len)
{
	struct err err = { "" };
	size_t blen = 0;
	char *buf = read_fd_all(fd, XRAY_MAX_BYTES, &blen, &err);
	int ret;

	*out = NULL;
	*n = 0;
	if (!buf) {
		why_set(why, len, "reading the x-ray: %s", err.msg);
		return -1;
	}
	ret = xray_parse_buf(buf, blen, out, n, why, len);
	free(buf);
	return ret;
}

int xray_read(pid_t pid, uint64_t lo, uint64_t hi, bool folios, struct xray_vma **out, size_t *n,
	      char *why, size_t len)
{
	char req[128];
	int fd, rl, ret;

	*out = NULL;
	*n = 0;
	if (hi <= lo) {
		why_set(why, len, "x-ray: empty range 0x%" PRIx64 "-0x%" PRIx64, lo, hi);
		return -1;
	}
	if (!xray_available(why, len))
		return -1;
	/* The request goes to the data file itself and is read back from the
	 * same open file: no other reader's request can come in between. */
	fd = open(XRAY_DATA, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		why_set(why, len, "%s: %s", XRAY_DATA, strerror(errno));
		return -1;
	}
	rl = snprintf(req, sizeof(req), "%d 0x%" PRIx64 " 0x%" PRIx64 "%s\n", (int)pid, lo, hi,
		      folios ? " folios" : "");
	if (write(fd, req, (size_t)rl) != rl) {
		int e = errno;
		why_set(why, len, "x-ray request for pid %d: %s", (int)pid,
			e == ESRCH ? "no such process" : strerror(e));
		close(fd);
		return -1;
	}
	if (lseek(fd, 0, SEEK_SET) != 0) {
		why_set(why, len, "%s: lseek: %s", XRAY_DATA, strerror(errno));
		close(fd);
		return -1;
	}
	ret = xray_parse_fd(fd, out, n, why, len);
	close(fd);
	return ret;
}

void xray_free(struct xray_vma *v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		free(v[i].folios);
	free(v);
}

const struct xray_vma *xray_find(const struct xray_vma *v, size_t n, uint64_t addr)
{
	for (size_t i = 0; i < n; i++)
		if (addr >= v[i].start && addr < v[i].end)
			return &v[i];
	return NULL;
}

bool xray_pgoff_linear(const struct xray_vma *v)
{
	return v->pgoff == v->start / v->page_size;
}

/* Every page of the run holds the index rmap expects at its address
 * (vm_pgoff + offset: a kernel invariant), and that index is the one an
 * unmoved VMA has there (address / page size). */
bool xray_folio_linear(const struct xray_vma *v, const struct xray_folio *f)
{
	uint64_t idx = f->index + f->subpage;

	return idx == f->linear_index && idx == f->addr_index && f->has_anon_vma && v->has_anon_vma &&
	       f->anon_vma == v->anon_vma;
}

bool xray_folios_linear(const struct xray_vma *v)
{
	for (size_t i = 0; i < v->nfolios; i++)
		if (!v->folios[i].ksm && !xray_folio_linear(v, &v->folios[i]))
			return false;
	return true;
}

/* ---- JSON --------------------------------------------------------------- */

static void add_hex(cJSON *o, const char *key, uint64_t v)
{
	char b[32];

	hex_format(v, b, sizeof(b));
	cJSON_AddStringToObject(o, key, b);
}

static void add_id(cJSON *o, const char *key, bool has, uint64_t id)
{
	char b[32];

	if (!has) {
		cJSON_AddNullToObject(o, key);
		return;
	}
	snprintf(b, sizeof(b), "%016" PRIx64, id);
	cJSON_AddStringToObject(o, key, b);
}

cJSON *xray_vma_json(const struct xray_vma *v)
{
	cJSON *o = cJSON_CreateObject();
	char names[sizeof(v->vmflags)];

	add_hex(o, "vm_pgoff", v->pgoff);
	cJSON_AddBoolToObject(o, "pgoff_linear", xray_pgoff_linear(v));
	if (v->has_anon_pgoff)
		add_hex(o, "anon_pgoff", v->anon_pgoff);
	add_hex(o, "vm_flags", v->flags);
	snprintf(names, sizeof(names), "%s", v->vmflags);
	for (char *c = names; *c; c++)
		if (*c == ',')
			*c = ' ';
	cJSON_AddStringToObject(o, "vm_flags_names", names);
	add_id(o, "anon_vma", v->has_anon_vma, v->anon_vma);
	add_id(o, "anon_vma_root", v->has_anon_vma, v->anon_vma_root);
	cJSON_AddNumberToObject(o, "chain_len", (double)v->chain_len);
	cJSON_AddBoolToObject(o, "uffd", v->uffd);
	cJSON_AddStringToObject(o, "folios_walk", v->folios_walk);
	if (v->walked) {
		cJSON *arr = cJSON_AddArrayToObject(o, "folios");
		for (size_t i = 0; i < v->nfolios; i++) {
			const struct xray_folio *f = &v->folios[i];
			cJSON *fo = cJSON_CreateObject();

			add_hex(fo, "addr", f->addr);
			cJSON_AddNumberToObject(fo, "nr_pages", (double)f->nr);
			add_hex(fo, "index", f->index);
			cJSON_AddNumberToObject(fo, "subpage", (double)f->subpage);
			add_hex(fo, "linear_index", f->linear_index);
			add_hex(fo, "addr_index", f->addr_index);
			add_id(fo, "anon_vma", f->has_anon_vma, f->anon_vma);
			cJSON_AddNumberToObject(fo, "order", f->order);
			cJSON_AddBoolToObject(fo, "ksm", f->ksm);
			cJSON_AddBoolToObject(fo, "large", f->large);
			cJSON_AddBoolToObject(fo, "linear", xray_folio_linear(v, f));
			cJSON_AddItemToArray(arr, fo);
		}
		cJSON_AddBoolToObject(o, "folios_linear", xray_folios_linear(v));
		cJSON *pages = cJSON_AddObjectToObject(o, "pages");
		cJSON_AddNumberToObject(pages, "present", (double)v->present);
		cJSON_AddNumberToObject(pages, "anon", (double)v->anon);
		cJSON_AddNumberToObject(pages, "zero", (double)v->zero);
		cJSON_AddNumberToObject(pages, "other", (double)v->other);
	}
	return o;
}

/* ---- why two adjacent VMAs did not merge ------------------------------------ */

static bool has_flag(const char *list, const char *name)
{
	size_t nl = strlen(name);

	for (const char *s = list; *s;) {
		const char *e = strchr(s, ',');
		size_t l = e ? (size_t)(e - s) : strlen(s);
		if (l == nl && !strncmp(s, name, nl))
			return true;
		if (!e)
			break;
		s = e + 1;
	}
	return false;
}

/* The names in A that B lacks, comma-separated; "sd" and "gr" (which
 * merging ignores) are left out. Returns how many. */
static int flags_only(const char *a, const char *b, char *out, size_t len)
{
	char copy[sizeof(((struct xray_vma *)0)->vmflags)], *t, *save = NULL;
	int n = 0;
	size_t used = 0;

	out[0] = 0;
	snprintf(copy, sizeof(copy), "%s", a);
	for (t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (!strcmp(t, "sd") || !strcmp(t, "gr") || has_flag(b, t))
			continue;
		int w = snprintf(out + used, len - used, "%s%s", n ? "," : "", t);
		if (w > 0 && (size_t)w < len - used)
			used += (size_t)w;
		n++;
	}
	return n;
}

struct reasons {
	char *buf;
	size_t len, used;
	int n;
};

static void reason(struct reasons *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reason(struct reasons *r, const char *fmt, ...)
{
	va_list ap;
	int w;

	r->n++;
	if (!r->len || r->used >= r->len - 1)
		return;
	if (r->n > 1) {
		w = snprintf(r->buf + r->used, r->len - r->used, "; ");
		if (w > 0)
			r->used = r->used + (size_t)w < r->len ? r->used + (size_t)w : r->len - 1;
	}
	va_start(ap, fmt);
	w = vsnprintf(r->buf + r->used, r->len - r->used, fmt, ap);
	va_end(ap);
	if (w > 0)
		r->used = r->used + (size_t)w < r->len ? r->used + (size_t)w : r->len - 1;
}

static const char *const special_flags[] = { "io", "de", "pf", "mm" };

int xray_explain(const struct xray_vma *a, const struct xray_vma *b, char *buf, size_t len)
{
	struct reasons r = { buf, len, 0, 0 };
	uint64_t ps, apages;

	if (buf && len)
		buf[0] = 0;
	if (!a || !b)
		return -1;
	if (a->start > b->start) {
		const struct xray_vma *t = a;
		a = b;
		b = t;
	}
	ps = a->page_size ? a->page_size : 4096;
	apages = (a->end - a->start) / ps;
	if (a->end != b->start) {
		reason(&r, "not adjacent: the lower VMA ends at 0x%" PRIx64 ", the upper starts at 0x%" PRIx64,
		       a->end, b->start);
		return r.n;
	}
	/* vma_merge() / can_vma_merge_after(): pgoff must continue the lower VMA. */
	if (a->pgoff + apages != b->pgoff)
		reason(&r, "pgoff not contiguous: 0x%" PRIx64 " + %" PRIu64 " != 0x%" PRIx64, a->pgoff, apages,
		       b->pgoff);
	/* 7.3's needs_adjacent_anon_pgoff(): a private writable (CoW) file
	 * mapping's anonymous page offset must continue the lower VMA too. */
	if (a->has_anon_pgoff && b->has_anon_pgoff && a->has_file && b->has_file && !has_flag(a->vmflags, "sh") &&
	    has_flag(a->vmflags, "mw") && a->anon_pgoff + apages != b->anon_pgoff)
		reason(&r, "anon_pgoff not contiguous: 0x%" PRIx64 " + %" PRIu64 " != 0x%" PRIx64, a->anon_pgoff,
		       apages, b->anon_pgoff);
	/* is_mergeable_anon_vma() */
	if (a->has_anon_vma && b->has_anon_vma) {
		if (a->anon_vma != b->anon_vma)
			reason(&r, "anon_vma differs");
	} else if (a->has_anon_vma || b->has_anon_vma) {
		const struct xray_vma *f = a->has_anon_vma ? a : b;
		if (f->chain_len > 1)
			reason(&r, "anon_vma_chain of the %s VMA has %" PRIu64 " entries (forked)",
			       f == a ? "lower" : "upper", f->chain_len);
	}
	/* is_mergeable_vma(): vm_flags, less the ones merging ignores
	 * (VM_IGNORE_MERGE: soft-dirty, bit 27 on every kernel; on 7.x
	 * also VM_MAYBE_GUARD, bit 11, which the module names "gr"). */
	if (a->flags != b->flags) {
		uint64_t ign = 0;
		if (has_flag(a->vmflags, "sd") != has_flag(b->vmflags, "sd"))
			ign |= 1ull << 27;
		if (has_flag(a->vmflags, "gr") != has_flag(b->vmflags, "gr"))
			ign |= 1ull << 11;
		if ((a->flags ^ b->flags) & ~ign) {
			char oa[160], ob[160], detail[400] = "";
			int na = flags_only(a->vmflags, b->vmflags, oa, sizeof(oa));
			int nb = flags_only(b->vmflags, a->vmflags, ob, sizeof(ob));
			if (na && nb)
				snprintf(detail, sizeof(detail), " (lower only: %s; upper only: %s)", oa, ob);
			else if (na)
				snprintf(detail, sizeof(detail), " (lower only: %s)", oa);
			else if (nb)
				snprintf(detail, sizeof(detail), " (upper only: %s)", ob);
			reason(&r, "vm_flags differ: 0x%" PRIx64 " != 0x%" PRIx64 "%s", a->flags, b->flags, detail);
		}
	}
	for (size_t i = 0; i < sizeof(special_flags) / sizeof(special_flags[0]); i++) {
		const char *fl = special_flags[i];
		if (has_flag(a->vmflags, fl) || has_flag(b->vmflags, fl)) {
			reason(&r, "VM_SPECIAL flag %s: such VMAs never merge", fl);
			break;
		}
	}
	if (a->has_file != b->has_file || (a->has_file && a->file != b->file))
		reason(&r, "vm_file differs");
	if (a->uffd != b->uffd || (a->uffd && a->uffd_ctx != b->uffd_ctx))
		reason(&r, "uffd context differs (lower: %s, upper: %s)", a->uffd ? "attached" : "none",
		       b->uffd ? "attached" : "none");
	if (a->mpol != b->mpol)
		reason(&r, "mempolicy differs (only the %s VMA has one)", a->mpol ? "lower" : "upper");
	return r.n;
}
