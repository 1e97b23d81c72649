/* SPDX-License-Identifier: GPL-2.0-or-later */
/* VMA boundaries of a process: PROCMAP_QUERY (6.11+), else parsed /proc/PID/maps. */
#include "anonremap.h"
#include "compat.h"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Set by --maps-parse or ANONREMAP_NO_PROCMAP_QUERY: tests run the old-kernel path. */
bool force_maps_parse;

void vma_clear(struct vma *v)
{
	free(v->name);
	v->name = NULL;
}

void vma_free_list(struct vma *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		vma_clear(&v[i]);
	free(v);
}

void vma_invalidate(struct vma_src *s)
{
	if (s->cached)
		vma_free_list(s->cache, s->ncache);
	s->cache = NULL;
	s->ncache = 0;
	s->cached = false;
}

int vma_open(struct vma_src *s, pid_t pid)
{
	char path[64];
	struct procmap_query q = { .size = sizeof(q), .query_flags = PROCMAP_QUERY_COVERING_OR_NEXT_VMA };

	memset(s, 0, sizeof(*s));
	s->pid = pid;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	s->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0)
		return -errno;
	const char *no = getenv("ANONREMAP_NO_PROCMAP_QUERY");
	s->query = !force_maps_parse && !(no && *no);
	if (s->query && ioctl(s->fd, PROCMAP_QUERY, &q) < 0 && errno != ENOENT)
		s->query = false; /* ENOTTY before 6.11 */
	return 0;
}

void vma_close(struct vma_src *s)
{
	vma_invalidate(s);
	free(s->name);
	s->name = NULL;
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

#define NAME_BUF (4096 + 64)

static int query_one(struct vma_src *s, uint64_t addr, bool next, struct vma *out)
{
	/* zeroed once: the kernel writes it through the ioctl, which memcheck
	 * cannot see; zeroing it a call cost more than the call on 65k VMAs */
	if (!s->name)
		s->name = xcalloc(1, NAME_BUF);
	char *name = s->name;
	struct procmap_query q = {
		.size = sizeof(q),
		.query_flags = next ? PROCMAP_QUERY_COVERING_OR_NEXT_VMA : 0,
		.query_addr = addr,
		.vma_name_addr = (uintptr_t)name,
		.vma_name_size = NAME_BUF,
	};

	if (ioctl(s->fd, PROCMAP_QUERY, &q) < 0)
		return errno == ENOENT ? 0 : -errno;
	out->start = q.vma_start;
	out->end = q.vma_end;
	out->offset = q.vma_offset;
	out->inode = q.inode;
	out->dev_major = q.dev_major;
	out->dev_minor = q.dev_minor;
	out->perms[0] = q.vma_flags & PROCMAP_QUERY_VMA_READABLE ? 'r' : '-';
	out->perms[1] = q.vma_flags & PROCMAP_QUERY_VMA_WRITABLE ? 'w' : '-';
	out->perms[2] = q.vma_flags & PROCMAP_QUERY_VMA_EXECUTABLE ? 'x' : '-';
	out->perms[3] = q.vma_flags & PROCMAP_QUERY_VMA_SHARED ? 's' : 'p';
	out->perms[4] = 0;
	out->name = xstrdup(q.vma_name_size ? name : "");
	return 1;
}

/* How many VMAs the whole process has, as /proc/PID/maps (and smaps) list
 * them: the lines of the file, which costs no page-table walk. -1 if
 * unreadable. */
long vma_count_all(struct vma_src *s)
{
	char buf[65536];
	long lines = 0;
	off_t off = 0;

	if (s->cached)
		return (long)s->ncache;
	for (;;) {
		ssize_t r = pread(s->fd, buf, sizeof(buf), off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			return lines;
		for (const char *q = buf; (q = memchr(q, '\n', (size_t)(buf + r - q))); q++)
			lines++;
		off += r;
	}
}

static int load_cache(struct vma_src *s)
{
	if (s->cached)
		return 0;
	int rc = maps_parse_fd(s->fd, &s->cache, &s->ncache);
	if (rc)
		return rc;
	s->cached = true;
	return 0;
}

static void vma_copy(struct vma *dst, const struct vma *src)
{
	*dst = *src;
	dst->name = xstrdup(src->name ? src->name : "");
}

/* the file lists VMAs in address order: the first that ends above addr */
static size_t first_ending_above(const struct vma_src *s, uint64_t addr)
{
	size_t lo = 0, hi = s->ncache;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->cache[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int vma_find(struct vma_src *s, uint64_t addr, bool next, struct vma *out)
{
	memset(out, 0, sizeof(*out));
	if (s->query)
		return query_one(s, addr, next, out);
	int rc = load_cache(s);
	if (rc)
		return rc;
	size_t lo = first_ending_above(s, addr);
	if (lo < s->ncache && (s->cache[lo].start <= addr || next)) {
		vma_copy(out, &s->cache[lo]);
		return 1;
	}
	return 0;
}

/* PROCMAP_QUERY walks the mm's VMAs; /proc/PID/maps also prints the gate
 * area ([vsyscall] on x86_64), which is no VMA of the process but the same
 * for every 64-bit process. Read it once from our own maps. */
static const struct vma *gate_vma(void)
{
	static struct vma gate;
	static int state; /* 0 unknown, 1 none, 2 found */
	char buf[512];

	if (!state) {
		state = 1;
		FILE *fp = fopen("/proc/self/maps", "re");
		while (fp && fgets(buf, sizeof(buf), fp)) {
			unsigned long long s, e;
			if (sscanf(buf, "%llx-%llx", &s, &e) == 2 && s >= 0xffff800000000000ull) {
				buf[strcspn(buf, "\n")] = 0;
				struct vma *v = NULL;
				size_t n = 0;
				if (!maps_parse_buf(buf, strlen(buf), &v, &n) && n == 1) {
					gate = v[0];
					free(v);
					state = 2;
				} else {
					vma_free_list(v, n);
				}
			}
		}
		if (fp)
			fclose(fp);
	}
	return state == 2 ? &gate : NULL;
}

/* Every VMA that intersects [lo, hi). */
int vma_list(struct vma_src *s, uint64_t lo, uint64_t hi, struct vma **out, size_t *n)
{
	size_t cap = 16;
	struct vma v;
	uint64_t addr = lo;

	*n = 0;
	if (!s->query) {
		/* the parsed file is in address order: one slice of it */
		int rc = load_cache(s);
		if (rc) {
			*out = NULL;
			return rc;
		}
		size_t i = first_ending_above(s, lo), j = i;
		while (j < s->ncache && s->cache[j].start < hi)
			j++;
		if (i == 0 && j == s->ncache) {
			/* all of it (maps PID): the list is the cache, not a copy
			 * of 65,000 names; the next reader parses the file again */
			*out = s->cache;
			*n = s->ncache;
			s->cache = NULL;
			s->ncache = 0;
			s->cached = false;
			if (!*out)
				*out = xcalloc(1, sizeof(struct vma));
			return 0;
		}
		*out = xcalloc(j > i ? j - i : 1, sizeof(struct vma));
		for (size_t k = i; k < j; k++)
			vma_copy(&(*out)[(*n)++], &s->cache[k]);
		return 0;
	}
	*out = xcalloc(cap, sizeof(struct vma));
	for (;;) {
		int rc = vma_find(s, addr, true, &v);
		if (rc < 0) {
			vma_free_list(*out, *n);
			*out = NULL;
			return rc;
		}
		if (rc == 0 || v.start >= hi) {
			vma_clear(&v);
			break;
		}
		if (*n == cap) {
			cap *= 2;
			struct vma *nv = realloc(*out, cap * sizeof(struct vma));
			if (!nv) {
				vma_clear(&v);
				vma_free_list(*out, *n);
				return -ENOMEM;
			}
			*out = nv;
		}
		(*out)[(*n)++] = v;
		if (v.end == 0 || v.end >= hi)
			break;
		addr = v.end;
	}
	const struct vma *g = s->query ? gate_vma() : NULL;
	if (g && g->start < hi && g->end > lo && (!*n || (*out)[*n - 1].end <= g->start)) {
		struct vma *nv = realloc(*out, (*n + 1) * sizeof(struct vma));
		if (!nv)
			return -ENOMEM;
		*out = nv;
		vma_copy(&(*out)[(*n)++], g);
	}
	return 0;
}

/* One line of /proc/PID/maps: "start-end perms offset major:minor inode   name". */
static int parse_line(const char *line, size_t len, struct vma *v)
{
	const char *s = line, *end = line + len;
	uint64_t st, en, off, maj, min, ino;

#define SEP(c) (s < end && *s++ == (c))
	if (!scan_hex(&s, end, &st) || !SEP('-') || !scan_hex(&s, end, &en) || !SEP(' ') || end - s < 5 ||
	    s[4] != ' ')
		return -1;
	const char *perms = s;
	s += 5;
	if (!scan_hex(&s, end, &off) || !SEP(' ') || !scan_hex(&s, end, &maj) || !SEP(':') ||
	    !scan_hex(&s, end, &min) || !SEP(' ') || !scan_dec(&s, end, &ino) || (s < end && *s != ' '))
		return -1;
#undef SEP
	if (st > en || maj > UINT32_MAX || min > UINT32_MAX || memchr(perms, 0, 4) || memchr(perms, ' ', 4))
		return -1;
	memset(v, 0, sizeof(*v));
	v->start = st;
	v->end = en;
	memcpy(v->perms, perms, 4);
	v->perms[4] = 0;
	v->offset = off;
	v->dev_major = (unsigned)maj;
	v->dev_minor = (unsigned)min;
	v->inode = ino;
	/* The name starts after the padding; it may hold spaces of its own. */
	while (s < end && *s == ' ')
		s++;
	size_t nl = (size_t)(end - s);
	v->name = xmalloc(nl + 1);
	memcpy(v->name, s, nl);
	v->name[nl] = 0;
	return 0;
}

int maps_parse_buf(const char *buf, size_t len, struct vma **out, size_t *n)
{
	size_t cap = 64;
	const char *p = buf, *end = buf + len;

	*n = 0;
	*out = xcalloc(cap, sizeof(struct vma));
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (ll) {
			if (*n == cap) {
				cap *= 2;
				struct vma *nv = realloc(*out, cap * sizeof(struct vma));
				if (!nv) {
					vma_free_list(*out, *n);
					*out = NULL;
					return -ENOMEM;
				}
				*out = nv;
			}
			if (parse_line(p, ll, &(*out)[*n])) {
				vma_free_list(*out, *n);
				*out = NULL;
				*n = 0;
				return -EINVAL;
			}
			(*n)++;
		}
		p += ll + 1;
	}
	return 0;
}

/* The whole file in one buffer, read from offset 0 of fd, as the kernel
 * produces it; a parse error is -EINVAL. */
int maps_parse_fd(int fd, struct vma **out, size_t *n)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = xmalloc(cap);

	for (;;) {
		if (len == cap) {
			cap *= 2;
			char *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
		}
		ssize_t r = pread(fd, buf + len, cap - len, len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(buf);
			return -e;
		}
		if (r == 0)
			break;
		len += r;
	}
	int rc = maps_parse_buf(buf, len, out, n);
	free(buf);
	return rc;
}

/* Hand-formatted: snprintf was a tenth of a 65,000-VMA listing's time. */
static char *put_hex(char *p, uint64_t v, int minw)
{
	char t[16];
	int n = 0;

	do
		t[n++] = "0123456789abcdef"[v & 15];
	while (v >>= 4);
	while (n < minw)
		t[n++] = '0';
	while (n)
		*p++ = t[--n];
	return p;
}

static char *put_dec(char *p, uint64_t v)
{
	char t[20];
	int n = 0;

	do
		t[n++] = (char)('0' + v % 10);
	while (v /= 10);
	while (n)
		*p++ = t[--n];
	return p;
}

static char *put_dev(char *p, const struct vma *v)
{
	p = put_hex(p, v->dev_major, 2);
	*p++ = ':';
	return put_hex(p, v->dev_minor, 2);
}

/* "major:minor" as the maps line prints it ("%02x:%02x"). */
void vma_dev_format(const struct vma *v, char out[VMA_DEV_LEN])
{
	*put_dev(out, v) = 0;
}

/* The line the kernel would print for this VMA (show_map_vma's format:
 * "%08lx-%08lx %s %08llx %02x:%02x %lu ", then the name padded to column
 * 73), cut to len - 1 bytes as snprintf would cut it. */
void vma_maps_line(const struct vma *v, char *buf, size_t len)
{
	char head[128], *p = head; /* at most 16+1+16+1+4+1+16+1+8+1+8+1+20+1 bytes, padded to 73 */

	if (!len)
		return;
	p = put_hex(p, v->start, 8);
	*p++ = '-';
	p = put_hex(p, v->end, 8);
	*p++ = ' ';
	for (const char *c = v->perms; *c && c < v->perms + 4; c++)
		*p++ = *c;
	*p++ = ' ';
	p = put_hex(p, v->offset, 8);
	*p++ = ' ';
	p = put_dev(p, v);
	*p++ = ' ';
	p = put_dec(p, v->inode);
	*p++ = ' ';
	size_t n = (size_t)(p - head);
	const char *name = v->name ? v->name : "";
	if (*name) {
		/* the kernel pads to 72 columns, then always adds one space */
		while (n < 72)
			head[n++] = ' ';
		head[n++] = ' ';
	}
	/* no name: the kernel ends the line after the inode and its space */
	size_t h = n < len - 1 ? n : len - 1;
	memcpy(buf, head, h);
	size_t nl = *name ? strnlen(name, len - 1 - h) : 0;
	memcpy(buf + h, name, nl);
	buf[h + nl] = 0;
}
