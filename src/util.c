/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small helpers: allocation that never returns NULL, whole-fd reads and writes. */
#include "anonremap.h"
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void oom(void)
{
	static const char msg[] = "anonremap: out of memory\n";
	if (write(2, msg, sizeof(msg) - 1) < 0) {
		/* nothing more to say */
	}
	_exit(EXIT_ERROR);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);
	if (!p)
		oom();
	return p;
}

void *xreallocarray(void *p, size_t n, size_t m)
{
	p = reallocarray(p, n ? n : 1, m ? m : 1);
	if (!p)
		oom();
	return p;
}

/* A memory stream that exists: its writes cannot fail but for memory. */
FILE *xopen_memstream(char **buf, size_t *len)
{
	FILE *fp = open_memstream(buf, len);
	if (!fp)
		oom();
	return fp;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);
	if (!p)
		oom();
	return p;
}

int err_set(struct err *e, const char *fmt, ...)
{
	va_list ap;

	if (e) {
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* Read a whole descriptor, refusing more than max bytes. NUL-terminated. */
char *read_fd_all(int fd, size_t max, size_t *len, struct err *err)
{
	size_t cap = 4096, n = 0;
	char *buf = xmalloc(cap + 1);

	for (;;) {
		if (n == cap) {
			if (cap >= max) {
				free(buf);
				err_set(err, "larger than %zu bytes", max);
				return NULL;
			}
			cap *= 2;
			char *nb = realloc(buf, cap + 1);
			if (!nb) {
				free(buf);
				err_set(err, "out of memory");
				return NULL;
			}
			buf = nb;
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err_set(err, "%s", strerror(errno));
			free(buf);
			return NULL;
		}
		if (r == 0)
			break;
		n += r;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

int read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t r = read(fd, (char *)buf + got, len - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : (got ? -EIO : 0);
		got += r;
	}
	return 1;
}

int write_full(int fd, const void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r = write(fd, (const char *)buf + done, len - done);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		done += r;
	}
	return 0;
}

/* The /proc parsers' number scanners: no sscanf, which is most of their
 * cost on a 65,000-VMA process. Each reads digits at *p before end,
 * advances *p past them and returns how many it read: 0 when there are none
 * or the value would not fit 64 bits. */
size_t scan_hex(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;

	*v = 0;
	for (; s < end; s++) {
		unsigned d;
		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if ((*s | 0x20) >= 'a' && (*s | 0x20) <= 'f')
			d = (unsigned)((*s | 0x20) - 'a' + 10);
		else
			break;
		if (*v >> 60)
			return 0;
		*v = *v << 4 | d;
	}
	size_t k = (size_t)(s - *p);
	*p = s;
	return k;
}

size_t scan_dec(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;

	*v = 0;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');
		if (*v > (UINT64_MAX - d) / 10)
			return 0;
		*v = *v * 10 + d;
	}
	size_t k = (size_t)(s - *p);
	*p = s;
	return k;
}
