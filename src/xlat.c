/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Flag and value names: one table per kind, read by the parser and the printers. */
#include "anonremap.h"
#include "compat.h"
#include <ctype.h>
#include <inttypes.h>
#include <limits.h>
#include <errno.h>
#include <signal.h>
#include <linux/userfaultfd.h>
#include <string.h>
#include <strings.h>

#define XLAT(x) { #x, x }
/* max: the largest value the kernel's argument holds (an int or unsigned
 * int argument would truncate a wider one into another value); 0: 64 bits */
#define TABLE(var, kindname, pfx, ismask, arr, max) \
	const struct xlat_table var = { kindname, pfx, arr, sizeof(arr) / sizeof(arr[0]), ismask, max }

static const struct xlat prot_items[] = {
	XLAT(PROT_NONE), XLAT(PROT_READ), XLAT(PROT_WRITE), XLAT(PROT_EXEC), XLAT(PROT_SEM),
	XLAT(PROT_GROWSDOWN), XLAT(PROT_GROWSUP),
};
TABLE(xlat_mmap_prot, "prot", "PROT_", true, prot_items, UINT32_MAX); /* int prot */

static const struct xlat mmap_flag_items[] = {
	/* the mapping type is a value, not bits: 3 is SHARED_VALIDATE, so it goes first */
	XLAT(MAP_SHARED_VALIDATE), XLAT(MAP_SHARED), XLAT(MAP_PRIVATE),
	XLAT(MAP_DROPPABLE), /* Linux 6.11, see compat.h */
	XLAT(MAP_FIXED), XLAT(MAP_ANONYMOUS), XLAT(MAP_32BIT),
	XLAT(MAP_GROWSDOWN), XLAT(MAP_DENYWRITE), XLAT(MAP_EXECUTABLE),
	XLAT(MAP_LOCKED), XLAT(MAP_NORESERVE), XLAT(MAP_POPULATE),
	XLAT(MAP_NONBLOCK), XLAT(MAP_STACK), XLAT(MAP_HUGETLB), XLAT(MAP_SYNC),
	XLAT(MAP_FIXED_NOREPLACE), XLAT(MAP_UNINITIALIZED),
	{ "MAP_ANON", MAP_ANONYMOUS }, /* alias, after the canonical name */
};
TABLE(xlat_mmap_flags, "mmap flag", "MAP_", true, mmap_flag_items, UINT32_MAX); /* int flags */

static const struct xlat mremap_flag_items[] = {
	XLAT(MREMAP_MAYMOVE), XLAT(MREMAP_FIXED),
	XLAT(MREMAP_DONTUNMAP),          /* Linux 5.7 */
	XLAT(MREMAP_RELOCATE_ANON),      /* 8: the RFC series in seeds/, not mainline */
	XLAT(MREMAP_MUST_RELOCATE_ANON), /* 16: the RFC series in seeds/, not mainline */
};
TABLE(xlat_mremap_flags, "mremap flag", "MREMAP_", true, mremap_flag_items, 0); /* unsigned long */

static const struct xlat madvise_items[] = {
	XLAT(MADV_NORMAL), XLAT(MADV_RANDOM), XLAT(MADV_SEQUENTIAL),
	XLAT(MADV_WILLNEED), XLAT(MADV_DONTNEED), XLAT(MADV_FREE),
	XLAT(MADV_REMOVE), XLAT(MADV_DONTFORK), XLAT(MADV_DOFORK),
	XLAT(MADV_MERGEABLE), XLAT(MADV_UNMERGEABLE), XLAT(MADV_HUGEPAGE),
	XLAT(MADV_NOHUGEPAGE), XLAT(MADV_DONTDUMP), XLAT(MADV_DODUMP),
	XLAT(MADV_WIPEONFORK), XLAT(MADV_KEEPONFORK), XLAT(MADV_COLD),
	XLAT(MADV_PAGEOUT), XLAT(MADV_POPULATE_READ), XLAT(MADV_POPULATE_WRITE),
	XLAT(MADV_DONTNEED_LOCKED),
	XLAT(MADV_COLLAPSE),      /* Linux 6.1 */
	XLAT(MADV_GUARD_INSTALL), /* Linux 6.13, see compat.h */
	XLAT(MADV_GUARD_REMOVE),  /* Linux 6.13, see compat.h */
	XLAT(MADV_HWPOISON), XLAT(MADV_SOFT_OFFLINE),
};
TABLE(xlat_madvise, "advice", "MADV_", false, madvise_items, INT_MAX); /* int behavior */

static const struct xlat mlock_flag_items[] = {
	XLAT(MLOCK_ONFAULT), /* Linux 4.4 */
};
TABLE(xlat_mlock_flags, "mlock flag", "MLOCK_", true, mlock_flag_items, UINT32_MAX); /* unsigned int flags */

static const struct xlat mlockall_flag_items[] = {
	XLAT(MCL_CURRENT), XLAT(MCL_FUTURE),
	XLAT(MCL_ONFAULT), /* Linux 4.4 */
};
TABLE(xlat_mlockall_flags, "mlockall flag", "MCL_", true, mlockall_flag_items, INT_MAX); /* int flags */

static const struct xlat prctl_items[] = {
	{ "PR_SET_THP_DISABLE", PR_SET_THP_DISABLE },
	{ "PR_GET_THP_DISABLE", PR_GET_THP_DISABLE },
	{ "PR_SET_MEMORY_MERGE", PR_SET_MEMORY_MERGE }, /* Linux 6.4 */
	{ "PR_GET_MEMORY_MERGE", PR_GET_MEMORY_MERGE },
	{ "PR_SET_MDWE", PR_SET_MDWE }, /* Linux 6.3: memory-deny-write-execute */
	{ "PR_GET_MDWE", PR_GET_MDWE },
	/* the SPEC's short spellings */
	{ "PR_THP_DISABLE", PR_SET_THP_DISABLE },
	{ "PR_MEMORY_MERGE", PR_SET_MEMORY_MERGE },
};
TABLE(xlat_prctl, "prctl option", "PR_", false, prctl_items, INT_MAX); /* int option */

static const struct xlat uffd_mode_items[] = {
	XLAT(UFFDIO_REGISTER_MODE_MISSING), XLAT(UFFDIO_REGISTER_MODE_WP),
	XLAT(UFFDIO_REGISTER_MODE_MINOR),
};
TABLE(xlat_uffd_mode, "userfaultfd mode", "UFFDIO_REGISTER_MODE_", true, uffd_mode_items, 0); /* __u64 */

/* UFFD_FEATURE_*: what UFFDIO_API is asked to enable */
static const struct xlat uffd_feature_items[] = {
	XLAT(UFFD_FEATURE_PAGEFAULT_FLAG_WP), XLAT(UFFD_FEATURE_EVENT_FORK),
	XLAT(UFFD_FEATURE_EVENT_REMAP), XLAT(UFFD_FEATURE_EVENT_REMOVE),
	XLAT(UFFD_FEATURE_MISSING_HUGETLBFS), XLAT(UFFD_FEATURE_MISSING_SHMEM),
	XLAT(UFFD_FEATURE_EVENT_UNMAP), XLAT(UFFD_FEATURE_SIGBUS),
	XLAT(UFFD_FEATURE_THREAD_ID), XLAT(UFFD_FEATURE_MINOR_HUGETLBFS),
	XLAT(UFFD_FEATURE_MINOR_SHMEM), XLAT(UFFD_FEATURE_EXACT_ADDRESS),
	XLAT(UFFD_FEATURE_WP_HUGETLBFS_SHMEM),
	XLAT(UFFD_FEATURE_WP_UNPOPULATED), /* Linux 6.4, see compat.h */
	XLAT(UFFD_FEATURE_POISON),         /* Linux 6.6, see compat.h */
	XLAT(UFFD_FEATURE_WP_ASYNC),       /* Linux 6.7, see compat.h */
	XLAT(UFFD_FEATURE_MOVE),           /* Linux 6.8, see compat.h */
	{ "UFFD_FEATURE_WP", UFFD_FEATURE_PAGEFAULT_FLAG_WP }, /* short alias, after the canonical name */
};
TABLE(xlat_uffd_features, "userfaultfd feature", "UFFD_FEATURE_", true, uffd_feature_items, 0); /* __u64 */

/* The mode of UFFDIO_COPY, _ZEROPAGE, _MOVE and _CONTINUE, one table each:
 * bit 1 is WP for copy and continue but ALLOW_SRC_HOLES for move. */
static const struct xlat uffd_copy_flag_items[] = {
	XLAT(UFFDIO_COPY_MODE_DONTWAKE), XLAT(UFFDIO_COPY_MODE_WP),
};
TABLE(xlat_uffd_copy_flags, "userfaultfd copy flag", "UFFDIO_COPY_MODE_", true, uffd_copy_flag_items, 0);
static const struct xlat uffd_zeropage_flag_items[] = {
	XLAT(UFFDIO_ZEROPAGE_MODE_DONTWAKE),
};
TABLE(xlat_uffd_zeropage_flags, "userfaultfd zeropage flag", "UFFDIO_ZEROPAGE_MODE_", true,
      uffd_zeropage_flag_items, 0);
static const struct xlat uffd_move_flag_items[] = {
	XLAT(UFFDIO_MOVE_MODE_DONTWAKE), XLAT(UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES),
};
TABLE(xlat_uffd_move_flags, "userfaultfd move flag", "UFFDIO_MOVE_MODE_", true, uffd_move_flag_items, 0);
static const struct xlat uffd_continue_flag_items[] = {
	XLAT(UFFDIO_CONTINUE_MODE_DONTWAKE), XLAT(UFFDIO_CONTINUE_MODE_WP),
};
TABLE(xlat_uffd_continue_flags, "userfaultfd continue flag", "UFFDIO_CONTINUE_MODE_", true,
      uffd_continue_flag_items, 0);
/* Every name of the four, for parsing before the action is known, for
 * suggestions and for 'anonremap names uffd-flags'; the op's check then
 * reads them again with its action's table. */
static const struct xlat uffd_flag_items[] = {
	{ "DONTWAKE", UFFDIO_COPY_MODE_DONTWAKE }, { "WP", UFFDIO_COPY_MODE_WP },
	{ "ALLOW_SRC_HOLES", UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES },
};
TABLE(xlat_uffd_flags, "userfaultfd flag", "", true, uffd_flag_items, 0);

/* Compare a user's spelling with a table name: any case, prefix optional. */
static bool name_matches(const struct xlat_table *t, const char *want, const char *have)
{
	size_t pl = strlen(t->prefix);

	if (!strcasecmp(want, have))
		return true;
	return !strncasecmp(have, t->prefix, pl) && !strcasecmp(want, have + pl);
}

int xlat_lookup(const struct xlat_table *t, const char *name, uint64_t *val)
{
	for (size_t i = 0; i < t->n; i++) {
		if (name_matches(t, name, t->items[i].name)) {
			*val = t->items[i].val;
			return 0;
		}
	}
	return -1;
}

/* The first (canonical) name of an exact value, or NULL. */
const char *xlat_name(const struct xlat_table *t, uint64_t val)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->items[i].val == val)
			return t->items[i].name;
	return NULL;
}

/* Split a mask into known names; bits no name covers are kept as a number. */
static uint64_t xlat_split(const struct xlat_table *t, uint64_t val,
			   void (*emit)(void *, const char *), void *ctx)
{
	uint64_t rest = val;

	for (size_t i = 0; i < t->n && rest; i++) {
		uint64_t v = t->items[i].val;
		if (v && (rest & v) == v) {
			emit(ctx, t->items[i].name);
			rest &= ~v;
		}
	}
	return rest;
}

static void emit_json(void *ctx, const char *name)
{
	cJSON_AddItemToArray(ctx, cJSON_CreateString(name));
}

/* Masks print as a list of names; a single value as its name; else a number. */
cJSON *xlat_json(const struct xlat_table *t, uint64_t val)
{
	char hex[32];

	if (!t->mask) {
		const char *n = xlat_name(t, val);
		return n ? cJSON_CreateString(n) : cJSON_CreateNumber((double)val);
	}
	cJSON *arr = cJSON_CreateArray();
	if (!val && xlat_name(t, 0)) { /* PROT_NONE */
		cJSON_AddItemToArray(arr, cJSON_CreateString(xlat_name(t, 0)));
		return arr;
	}
	uint64_t rest = xlat_split(t, val, emit_json, arr);
	if (rest) {
		hex_format(rest, hex, sizeof(hex));
		cJSON_AddItemToArray(arr, cJSON_CreateString(hex));
	}
	return arr;
}

struct fmt_ctx {
	char *buf;
	size_t len, used;
};

static void emit_fmt(void *p, const char *name)
{
	struct fmt_ctx *c = p;
	int n = snprintf(c->buf + c->used, c->len - c->used, "%s%s", c->used ? "|" : "", name);
	if (n > 0 && (size_t)n < c->len - c->used)
		c->used += n;
}

void xlat_format(const struct xlat_table *t, uint64_t val, char *buf, size_t len)
{
	struct fmt_ctx c = { buf, len, 0 };
	char hex[32];

	buf[0] = 0;
	if (!t->mask) {
		const char *n = xlat_name(t, val);
		if (n)
			snprintf(buf, len, "%s", n);
		else
			snprintf(buf, len, "%" PRIu64, val);
		return;
	}
	if (!val && xlat_name(t, 0)) {
		snprintf(buf, len, "%s", xlat_name(t, 0));
		return;
	}
	uint64_t rest = xlat_split(t, val, emit_fmt, &c);
	if (rest || !val) {
		hex_format(rest, hex, sizeof(hex));
		emit_fmt(&c, hex);
	}
}

int edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int d[64 + 1][64 + 1];

	if (la > 64 || lb > 64)
		return 99;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			int c = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			int m = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < m)
				m = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + c < m)
				m = d[i - 1][j - 1] + c;
			d[i][j] = m;
		}
	return d[la][lb];
}

/* The known name closest to a misspelling, compared without prefixes. */
const char *xlat_nearest(const struct xlat_table *t, const char *name)
{
	size_t pl = strlen(t->prefix);
	const char *best = NULL;
	int bestd = 4;

	if (!strncasecmp(name, t->prefix, pl))
		name += pl;
	for (size_t i = 0; i < t->n; i++) {
		const char *cand = t->items[i].name;
		if (!strncasecmp(cand, t->prefix, pl))
			cand += pl;
		int d = edit_distance(name, cand);
		if (d < bestd) {
			bestd = d;
			best = t->items[i].name;
		}
	}
	return best;
}

/* errno and signal names come from glibc: no table of our own. */
int errno_lookup(const char *name, int *val)
{
	for (int e = 1; e < 4096; e++) {
		const char *n = strerrorname_np(e);
		if (n && !strcasecmp(n, name)) {
			*val = e;
			return 0;
		}
	}
	return -1;
}

const char *errno_name(int e)
{
	const char *n = strerrorname_np(e);
	return n ? n : "E?";
}

int signal_lookup(const char *name, int *val)
{
	if (!strncasecmp(name, "SIG", 3))
		name += 3;
	for (int s = 1; s < NSIG; s++) {
		const char *n = sigabbrev_np(s);
		if (n && !strcasecmp(n, name)) {
			*val = s;
			return 0;
		}
	}
	return -1;
}

const char *signal_name(int s, char *buf, size_t len)
{
	const char *n = sigabbrev_np(s);
	if (n)
		snprintf(buf, len, "SIG%s", n);
	else
		snprintf(buf, len, "SIG%d", s);
	return buf;
}
