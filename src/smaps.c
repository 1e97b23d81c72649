/* SPDX-License-Identifier: GPL-2.0-or-later */
/* /proc/PID/smaps, per VMA: the fields a merge question needs. */
#include "anonremap.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define READ_CHUNK (256 * 1024) /* smaps is read and parsed this much at a time */

static int cmp_start(const void *a, const void *b)
{
	const struct smaps_entry *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* The parser sees one line at a time, so the file never has to be held
 * whole: the smaps of 65,000 VMAs is 60 MB of text. */
struct smaps_parser {
	struct smaps_entry *e;
	size_t n, cap;
	bool sorted;
	uint64_t stop_at; /* the first entry at or above this ends the parse */
	bool reached;     /* it did: nothing more is read */
	/* Only for a parse on a thread of its own (smaps_stream): e moves
	 * under the lock, and entries [0, done) are final and visible. */
	pthread_mutex_t *lock;
	pthread_cond_t *cond;
	size_t done;
	bool done_sorted, finished, stop;
};

/* "   1234 kB": the decimal number after the key's colon (0 if none). */
static uint64_t dec_field(const char *s, const char *end)
{
	uint64_t v;

	while (s < end && *s == ' ')
		s++;
	scan_dec(&s, end, &v);
	return v;
}

/* The "Key:   N kB" fields kept, each into its own uint64_t of the entry. */
static const struct {
	const char *key;
	size_t len, off;
} kb_fields[] = {
#define KB(k, f) { k, sizeof(k) - 1, offsetof(struct smaps_entry, f) }
	KB("Rss", rss), KB("Anonymous", anon), KB("AnonHugePages", anon_huge), KB("Swap", swap), KB("Locked", locked),
#undef KB
};

/* Header lines are maps lines, "start-end perms ...": they, and only they,
 * begin with a hex digit (addresses print in lower case). Field lines are
 * "Key:   value kB" with a capitalized key. Unknown keys are ignored:
 * kernels add them. */
static int parse_line(struct smaps_parser *p, const char *line, size_t ll)
{
	const char *s = line, *end = line + ll;
	uint64_t a, b;

	if (ll && ((*line >= '0' && *line <= '9') || (*line >= 'a' && *line <= 'f'))) {
		if (!scan_hex(&s, end, &a) || s == end || *s++ != '-' || !scan_hex(&s, end, &b) ||
		    (s < end && *s != ' '))
			return 0; /* not a header after all: ignored, as any unknown line */
		if (a >= p->stop_at) {
			p->reached = true; /* the caller needs nothing from here on */
			return 0;
		}
		if (p->n == p->cap) {
			size_t cap = p->cap ? p->cap * 2 : 64;
			if (p->lock)
				pthread_mutex_lock(p->lock);
			struct smaps_entry *ne = realloc(p->e, cap * sizeof(*ne));
			if (ne)
				p->e = ne, p->cap = cap;
			if (p->lock)
				pthread_mutex_unlock(p->lock);
			if (!ne)
				return -ENOMEM;
		}
		struct smaps_entry *cur = &p->e[p->n++];
		memset(cur, 0, sizeof(*cur));
		cur->start = a;
		cur->end = b;
		cur->thp_eligible = -1;
		if (p->n > 1 && p->e[p->n - 2].start >= a)
			p->sorted = false;
		return 0;
	}
	if (!p->n)
		return 0;
	struct smaps_entry *cur = &p->e[p->n - 1];
	const char *colon = memchr(line, ':', ll);
	if (!colon)
		return 0;
	size_t kl = (size_t)(colon - line);
	const char *v = colon + 1;
#define KEY(k) (kl == sizeof(k) - 1 && !memcmp(line, k, kl))
	for (size_t i = 0; i < sizeof(kb_fields) / sizeof(kb_fields[0]); i++)
		if (kl == kb_fields[i].len && !memcmp(line, kb_fields[i].key, kl)) {
			*(uint64_t *)((char *)cur + kb_fields[i].off) = dec_field(v, end);
			return 0;
		}
	if (KEY("THPeligible")) {
		cur->thp_eligible = (int)dec_field(v, end);
	} else if (KEY("VmFlags")) {
		while (v < end && *v == ' ')
			v++;
		size_t fl = (size_t)(end - v);
		if (fl > sizeof(cur->vm_flags) - 1)
			fl = sizeof(cur->vm_flags) - 1;
		memcpy(cur->vm_flags, v, fl);
		cur->vm_flags[fl] = 0;
	}
#undef KEY
	return 0;
}

/* Every complete line of buf[0..len); returns how many bytes were used. A
 * line longer than the buffer (only a pathological file name) is cut. */
static int parse_lines(struct smaps_parser *p, const char *buf, size_t len, bool last, size_t *used)
{
	const char *q = buf, *end = buf + len;

	while (q < end && !p->reached) {
		const char *nl = memchr(q, '\n', (size_t)(end - q));
		if (!nl && !last)
			break;
		size_t ll = nl ? (size_t)(nl - q) : (size_t)(end - q);
		int rc = parse_line(p, q, ll);
		if (rc)
			return rc;
		q += ll + (nl != NULL);
	}
	*used = (size_t)(q - buf);
	return 0;
}

static void parser_finish(struct smaps_parser *p)
{
	if (!p->sorted)
		qsort(p->e, p->n, sizeof(*p->e), cmp_start);
}

/* The parse's entries, sorted, to the caller; none (NULL) after an error. */
static int parser_hand_over(struct smaps_parser *p, int rc, struct smaps_entry **out, size_t *n)
{
	if (rc) {
		free(p->e);
		p->e = NULL, p->n = 0;
	} else {
		parser_finish(p);
	}
	*out = p->e;
	*n = p->n;
	return rc;
}

int smaps_parse_buf(const char *buf, size_t len, struct smaps_entry **out, size_t *n)
{
	struct smaps_parser p = { .sorted = true, .stop_at = UINT64_MAX };
	size_t used;

	return parser_hand_over(&p, parse_lines(&p, buf, len, true, &used), out, n);
}

struct smaps_table {
	struct smaps_entry *e;
	size_t n;
};

/* Read and parse in chunks, carrying a partial line over. */
static int smaps_read_fd(int fd, struct smaps_parser *p)
{
	char *buf = xmalloc(READ_CHUNK);
	size_t have = 0, used;
	bool skipping = false; /* the rest of a line longer than the buffer */
	int rc = 0;

	for (;;) {
		ssize_t r = read(fd, buf + have, READ_CHUNK - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = -errno;
			break;
		}
		have += (size_t)r;
		size_t from = 0;
		if (skipping) {
			char *nl = memchr(buf, '\n', have);
			if (!nl) {
				have = 0;
				if (r == 0)
					break;
				continue;
			}
			from = (size_t)(nl - buf) + 1;
			skipping = false;
		}
		if ((rc = parse_lines(p, buf + from, have - from, r == 0, &used)) || p->reached)
			break;
		used += from;
		if (p->lock) {
			/* every entry but the last is whole: a later line cannot change it */
			pthread_mutex_lock(p->lock);
			p->done = p->n ? p->n - 1 : 0;
			p->done_sorted = p->sorted;
			bool stop = p->stop;
			pthread_cond_broadcast(p->cond);
			pthread_mutex_unlock(p->lock);
			if (stop)
				break;
		}
		if (r == 0)
			break;
		if (used == 0 && have == READ_CHUNK) {
			/* one line fills the buffer: parse what fits, skip the rest */
			if ((rc = parse_line(p, buf, have)) || p->reached)
				break;
			skipping = true;
			used = have;
		}
		memmove(buf, buf + used, have - used);
		have -= used;
	}
	free(buf);
	return rc;
}

/* /proc/PID/smaps opened, its path in path for later messages; -1 with err
 * set when it cannot be. */
static int smaps_open(pid_t pid, char path[64], struct err *err)
{
	snprintf(path, 64, "/proc/%d/smaps", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		err_set(err, "%s: %s", path, strerror(errno));
	return fd;
}

int smaps_parse_fd(int fd, uint64_t stop_at, struct smaps_entry **out, size_t *n)
{
	struct smaps_parser p = { .sorted = true, .stop_at = stop_at };

	return parser_hand_over(&p, smaps_read_fd(fd, &p), out, n);
}

/* The entries of the VMAs that start below hi: the kernel formats (and
 * walks the page tables of) no VMA above, such as a scenario process's
 * libraries and stack. */
struct smaps_table *smaps_load(pid_t pid, uint64_t hi, struct err *err)
{
	char path[64];
	struct smaps_entry *e;
	size_t n;

	int fd = smaps_open(pid, path, err);
	if (fd < 0)
		return NULL;
	int rc = smaps_parse_fd(fd, hi, &e, &n);
	close(fd);
	if (rc) {
		err_set(err, "%s: %s", path, strerror(-rc));
		return NULL;
	}
	struct smaps_table *t = xcalloc(1, sizeof(*t));
	t->e = e;
	t->n = n;
	return t;
}

void smaps_free(struct smaps_table *t)
{
	if (t) {
		free(t->e);
		free(t);
	}
}

const struct smaps_entry *smaps_find(const struct smaps_table *t, uint64_t start)
{
	struct smaps_entry key = { .start = start };
	return t ? bsearch(&key, t->e, t->n, sizeof(key), cmp_start) : NULL;
}

/* The smaps fields of one VMA, or, without its entry, why not. */
void smaps_entry_json(const struct smaps_entry *e, cJSON *v)
{
	uint64_t pk = kinfo.page_size / 1024;

	if (!e) {
		cJSON_AddStringToObject(v, "smaps", "no smaps entry (the VMA changed?)");
		return;
	}
	cJSON_AddNumberToObject(v, "rss_pages", (double)(e->rss / pk));
	cJSON_AddNumberToObject(v, "anon_pages", (double)(e->anon / pk));
	cJSON_AddNumberToObject(v, "anon_huge_pages", (double)(e->anon_huge / pk));
	cJSON_AddNumberToObject(v, "swap_pages", (double)(e->swap / pk));
	cJSON_AddNumberToObject(v, "locked_pages", (double)(e->locked / pk));
	if (e->thp_eligible >= 0)
		cJSON_AddBoolToObject(v, "thp_eligible", e->thp_eligible);
	else
		cJSON_AddNullToObject(v, "thp_eligible");
	cJSON *fl = cJSON_AddArrayToObject(v, "vm_flags");
	char *save = NULL, copy[128];
	snprintf(copy, sizeof(copy), "%s", e->vm_flags);
	for (char *tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		cJSON_AddItemToArray(fl, cJSON_CreateString(tok));
}

/* smaps read on a thread of its own while the caller lists the VMAs and
 * reads pagemap: the kernel's smaps text is the largest single cost of a
 * dump of a big process, and the two need not wait for each other. */
struct smaps_stream {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct smaps_parser p;
	int fd, rc;
	char path[64];
};

static void *stream_main(void *arg)
{
	struct smaps_stream *s = arg;
	int rc = smaps_read_fd(s->fd, &s->p);

	pthread_mutex_lock(&s->lock);
	if (!rc)
		parser_finish(&s->p); /* sorts, under the lock: entries move */
	s->rc = rc;
	s->p.done = s->p.n;
	s->p.done_sorted = true;
	s->p.finished = true;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

struct smaps_stream *smaps_stream_start(pid_t pid, struct err *err)
{
	struct smaps_stream *s = xcalloc(1, sizeof(*s));

	s->fd = smaps_open(pid, s->path, err);
	if (s->fd < 0) {
		free(s);
		return NULL;
	}
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	s->p.sorted = true;
	s->p.stop_at = UINT64_MAX;
	s->p.lock = &s->lock;
	s->p.cond = &s->cond;
	int e = pthread_create(&s->thread, NULL, stream_main, s);
	if (e) {
		/* no thread: read it here and now */
		stream_main(s);
		s->thread = pthread_self();
	}
	return s;
}

/* The entry of the VMA at start, copied out: waits until the reader has
 * passed start (entries come in address order) or is done. */
bool smaps_stream_get(struct smaps_stream *s, uint64_t start, struct smaps_entry *out)
{
	struct smaps_parser *p = &s->p;
	bool found = false;

	pthread_mutex_lock(&s->lock);
	while (!p->finished && (!p->done_sorted || !p->done || p->e[p->done - 1].start < start))
		pthread_cond_wait(&s->cond, &s->lock);
	struct smaps_entry key = { .start = start };
	const struct smaps_entry *e = p->done ? bsearch(&key, p->e, p->done, sizeof(key), cmp_start) : NULL;
	if (e) {
		*out = *e;
		found = true;
	}
	pthread_mutex_unlock(&s->lock);
	return found;
}

/* Wait for the reader (or tell it to stop when the table is not wanted)
 * and hand over the whole table. */
struct smaps_table *smaps_stream_finish(struct smaps_stream *s, bool want, struct err *err)
{
	struct smaps_table *t = NULL;

	pthread_mutex_lock(&s->lock);
	s->p.stop = !want;
	pthread_mutex_unlock(&s->lock);
	if (!pthread_equal(s->thread, pthread_self()))
		pthread_join(s->thread, NULL);
	close(s->fd);
	if (s->rc) {
		err_set(err, "%s: %s", s->path, strerror(-s->rc));
		free(s->p.e);
	} else if (want) {
		t = xcalloc(1, sizeof(*t));
		t->e = s->p.e;
		t->n = s->p.n;
	} else {
		free(s->p.e);
	}
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->cond);
	free(s);
	return t;
}
