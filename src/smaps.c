/* SPDX-License-Identifier: GPL-2.0-or-later */
/* /proc/PID/smaps, per VMA: the fields a merge question needs. */
#include "anonremap.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmp_start(const void *a, const void *b)
{
	const struct smaps_entry *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static uint64_t kb_field(const char *line, size_t klen)
{
	return strtoull(line + klen, NULL, 10);
}

/* Parse a whole smaps file. Header lines are maps lines; field lines are
 * "Key:   value kB". Unknown keys are ignored: kernels add them. */
int smaps_parse_buf(const char *buf, size_t len, struct smaps_entry **out, size_t *n)
{
	size_t cap = 16;
	const char *p = buf, *end = buf + len;
	struct smaps_entry *cur = NULL;

	*n = 0;
	*out = xcalloc(cap, sizeof(**out));
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char line[512];
		size_t cl = ll < sizeof(line) - 1 ? ll : sizeof(line) - 1;
		memcpy(line, p, cl);
		line[cl] = 0;
		p += ll + 1;
		unsigned long long s, e;
		char dash;
		if (sscanf(line, "%llx%c%llx ", &s, &dash, &e) == 3 && dash == '-') {
			if (*n == cap) {
				cap *= 2;
				struct smaps_entry *ne = realloc(*out, cap * sizeof(**out));
				if (!ne)
					return -ENOMEM;
				*out = ne;
			}
			cur = &(*out)[(*n)++];
			memset(cur, 0, sizeof(*cur));
			cur->start = s;
			cur->end = e;
			cur->thp_eligible = -1;
			continue;
		}
		if (!cur)
			continue;
#define KEY(k) (!strncmp(line, k ":", sizeof(k)))
		if (KEY("Rss"))
			cur->rss = kb_field(line, sizeof("Rss"));
		else if (KEY("Anonymous"))
			cur->anon = kb_field(line, sizeof("Anonymous"));
		else if (KEY("AnonHugePages"))
			cur->anon_huge = kb_field(line, sizeof("AnonHugePages"));
		else if (KEY("Swap"))
			cur->swap = kb_field(line, sizeof("Swap"));
		else if (KEY("Locked"))
			cur->locked = kb_field(line, sizeof("Locked"));
		else if (KEY("THPeligible"))
			cur->thp_eligible = (int)kb_field(line, sizeof("THPeligible"));
		else if (KEY("VmFlags")) {
			const char *v = line + sizeof("VmFlags");
			while (*v == ' ')
				v++;
			snprintf(cur->vm_flags, sizeof(cur->vm_flags), "%.127s", v);
		}
#undef KEY
	}
	qsort(*out, *n, sizeof(**out), cmp_start);
	return 0;
}

struct smaps_table {
	struct smaps_entry *e;
	size_t n;
};

struct smaps_table *smaps_load(pid_t pid, struct err *err)
{
	char path[64];
	size_t len;

	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err_set(err, "%s: %s", path, strerror(errno));
		return NULL;
	}
	char *buf = read_fd_all(fd, 1u << 30, &len, err);
	close(fd);
	if (!buf)
		return NULL;
	struct smaps_table *t = xcalloc(1, sizeof(*t));
	int rc = smaps_parse_buf(buf, len, &t->e, &t->n);
	free(buf);
	if (rc) {
		free(t->e);
		free(t);
		err_set(err, "%s: %s", path, strerror(-rc));
		return NULL;
	}
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

size_t smaps_count(const struct smaps_table *t)
{
	return t ? t->n : 0;
}

/* Add the smaps fields of the VMA that starts at start, or say why not. */
void smaps_add_json(const struct smaps_table *t, uint64_t start, cJSON *v)
{
	struct smaps_entry key = { .start = start };
	struct smaps_entry *e = t ? bsearch(&key, t->e, t->n, sizeof(key), cmp_start) : NULL;
	uint64_t pk = kinfo.page_size / 1024;

	if (!e) {
		cJSON_AddStringToObject(v, "smaps", t ? "no smaps entry (the VMA changed?)" : "not read");
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
