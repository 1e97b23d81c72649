/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests: the flag tables and errno/signal names (src/xlat.c). */
#include "anonremap.h"
#include "unit.h"
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>

/* xlat_lookup that must succeed; returns the value or a poison. */
static uint64_t lk(const struct xlat_table *t, const char *name)
{
	uint64_t v = 0xdeadbeefull;

	if (xlat_lookup(t, name, &v)) {
		printf("# xlat_lookup(%s, \"%s\") failed\n", t->kind, name);
		return 0xdeadbeefull;
	}
	return v;
}

static int lk_fails(const struct xlat_table *t, const char *name)
{
	uint64_t v = 12345;
	int rc = xlat_lookup(t, name, &v);

	return rc == -1 && v == 12345;
}

static void test_mremap_flags(void)
{
	const struct xlat_table *t = &xlat_mremap_flags;

	CHECK(t->mask);
	CHECK_STR(t->prefix, "MREMAP_");
	CHECK_EQ_U64(lk(t, "maymove"), 1);
	CHECK_EQ_U64(lk(t, "MAYMOVE"), 1);
	CHECK_EQ_U64(lk(t, "MREMAP_MAYMOVE"), 1);
	CHECK_EQ_U64(lk(t, "mremap_maymove"), 1);
	CHECK_EQ_U64(lk(t, "fixed"), 2);
	CHECK_EQ_U64(lk(t, "MrEmAp_FiXeD"), 2);
	CHECK_EQ_U64(lk(t, "dontunmap"), 4);
	CHECK_EQ_U64(lk(t, "MREMAP_DONTUNMAP"), 4);
	CHECK_EQ_U64(lk(t, "relocate_anon"), 8);
	CHECK_EQ_U64(lk(t, "MREMAP_RELOCATE_ANON"), 8);
	CHECK_EQ_U64(lk(t, "must_relocate_anon"), 16);
	CHECK_EQ_U64(lk(t, "MREMAP_MUST_RELOCATE_ANON"), 16);
	CHECK_EQ_U64(MREMAP_MAYMOVE, 1);
	CHECK_EQ_U64(MREMAP_FIXED, 2);
	CHECK(lk_fails(t, "MAP_FIXED"));
	CHECK(lk_fails(t, "MREMAP_"));
	CHECK(lk_fails(t, ""));
	CHECK(lk_fails(t, "maymov"));
	CHECK(lk_fails(t, "maymove "));
	CHECK(lk_fails(t, "REMAP_MAYMOVE"));
	CHECK(lk_fails(t, "MREMAP_MREMAP_MAYMOVE"));
	CHECK(lk_fails(t, "relocate"));
	CHECK_STR(xlat_name(t, 8), "MREMAP_RELOCATE_ANON");
	CHECK_STR(xlat_name(t, 16), "MREMAP_MUST_RELOCATE_ANON");
	CHECK(xlat_name(t, 3) == NULL);
	CHECK(xlat_name(t, 32) == NULL);
}

static void test_madvise_prctl(void)
{
	CHECK(!xlat_madvise.mask);
	CHECK_EQ_U64(lk(&xlat_madvise, "hugepage"), 14);
	CHECK_EQ_U64(lk(&xlat_madvise, "MADV_HUGEPAGE"), 14);
	CHECK_EQ_U64(lk(&xlat_madvise, "nohugepage"), 15);
	CHECK_EQ_U64(lk(&xlat_madvise, "dontneed"), 4);
	CHECK_EQ_U64(lk(&xlat_madvise, "normal"), 0);
	CHECK_EQ_U64(lk(&xlat_madvise, "collapse"), 25);
	CHECK_EQ_U64(lk(&xlat_madvise, "guard_install"), 102);
	CHECK_EQ_U64(lk(&xlat_madvise, "Guard_Remove"), 103);
	CHECK_EQ_U64(lk(&xlat_madvise, "pageout"), 21);
	CHECK(lk_fails(&xlat_madvise, "hugepages"));
	CHECK(lk_fails(&xlat_madvise, "MAP_HUGETLB"));
	CHECK_STR(xlat_name(&xlat_madvise, 14), "MADV_HUGEPAGE");
	CHECK_STR(xlat_name(&xlat_madvise, 0), "MADV_NORMAL");

	CHECK(!xlat_prctl.mask);
	CHECK_EQ_U64(lk(&xlat_prctl, "memory_merge"), 67);
	CHECK_EQ_U64(lk(&xlat_prctl, "PR_MEMORY_MERGE"), 67);
	CHECK_EQ_U64(lk(&xlat_prctl, "set_memory_merge"), 67);
	CHECK_EQ_U64(lk(&xlat_prctl, "PR_SET_MEMORY_MERGE"), 67);
	CHECK_EQ_U64(lk(&xlat_prctl, "get_memory_merge"), 68);
	CHECK_EQ_U64(lk(&xlat_prctl, "thp_disable"), 41);
	CHECK_EQ_U64(lk(&xlat_prctl, "THP_DISABLE"), 41);
	CHECK_EQ_U64(lk(&xlat_prctl, "pr_set_thp_disable"), 41);
	CHECK_EQ_U64(lk(&xlat_prctl, "get_thp_disable"), 42);
	CHECK_EQ_U64(lk(&xlat_prctl, "set_mdwe"), 65);
	CHECK_EQ_U64(lk(&xlat_prctl, "PR_GET_MDWE"), 66);
	CHECK(lk_fails(&xlat_prctl, "merge"));
	/* the canonical name comes first, before the short spelling */
	CHECK_STR(xlat_name(&xlat_prctl, 67), "PR_SET_MEMORY_MERGE");
	CHECK_STR(xlat_name(&xlat_prctl, 41), "PR_SET_THP_DISABLE");
	CHECK_STR(xlat_name(&xlat_prctl, 65), "PR_SET_MDWE");
}

/* The numbers are the kernel's uapi ones (Linux 7.2), whatever the headers. */
static void test_mlock_uffd(void)
{
	CHECK_EQ_U64(lk(&xlat_mlock_flags, "onfault"), 1);
	CHECK_EQ_U64(lk(&xlat_mlock_flags, "MLOCK_ONFAULT"), 1);
	CHECK_EQ_U64(lk(&xlat_mlockall_flags, "current"), 1);
	CHECK_EQ_U64(lk(&xlat_mlockall_flags, "future"), 2);
	CHECK_EQ_U64(lk(&xlat_mlockall_flags, "onfault"), 4);
	CHECK_EQ_U64(lk(&xlat_mlockall_flags, "MCL_FUTURE"), 2);
	CHECK_STR(xlat_name(&xlat_mlockall_flags, 4), "MCL_ONFAULT");
	CHECK_EQ_U64(lk(&xlat_uffd_features, "sigbus"), 1u << 7);
	CHECK_EQ_U64(lk(&xlat_uffd_features, "move"), 1u << 16);
	CHECK_EQ_U64(lk(&xlat_uffd_features, "missing_shmem"), 1u << 5);
	CHECK_EQ_U64(lk(&xlat_uffd_features, "UFFD_FEATURE_WP_ASYNC"), 1u << 15);
	CHECK_EQ_U64(lk(&xlat_uffd_features, "wp"), 1u << 0);
	CHECK_STR(xlat_name(&xlat_uffd_features, 1), "UFFD_FEATURE_PAGEFAULT_FLAG_WP");
	/* bit 1: wp for copy and continue, allow_src_holes for move */
	CHECK_EQ_U64(lk(&xlat_uffd_copy_flags, "wp"), 2);
	CHECK_EQ_U64(lk(&xlat_uffd_continue_flags, "wp"), 2);
	CHECK_EQ_U64(lk(&xlat_uffd_move_flags, "allow_src_holes"), 2);
	CHECK(lk_fails(&xlat_uffd_copy_flags, "allow_src_holes"));
	CHECK(lk_fails(&xlat_uffd_move_flags, "wp"));
	CHECK(lk_fails(&xlat_uffd_zeropage_flags, "wp"));
	CHECK_EQ_U64(lk(&xlat_uffd_zeropage_flags, "dontwake"), 1);
	CHECK_STR(xlat_name(&xlat_uffd_move_flags, 2), "UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES");
}

static void test_mmap_tables(void)
{
	CHECK_EQ_U64(lk(&xlat_mmap_prot, "read"), PROT_READ);
	CHECK_EQ_U64(lk(&xlat_mmap_prot, "PROT_WRITE"), PROT_WRITE);
	CHECK_EQ_U64(lk(&xlat_mmap_prot, "exec"), PROT_EXEC);
	CHECK_EQ_U64(lk(&xlat_mmap_flags, "private"), MAP_PRIVATE);
	CHECK_EQ_U64(lk(&xlat_mmap_flags, "anonymous"), MAP_ANONYMOUS);
	CHECK_EQ_U64(lk(&xlat_mmap_flags, "anon"), MAP_ANONYMOUS);
	CHECK_EQ_U64(lk(&xlat_mmap_flags, "MAP_ANON"), MAP_ANONYMOUS);
	CHECK_EQ_U64(lk(&xlat_mmap_flags, "fixed_noreplace"), MAP_FIXED_NOREPLACE);
	CHECK_EQ_U64(lk(&xlat_mmap_flags, "shared_validate"), MAP_SHARED_VALIDATE);
	CHECK_EQ_U64(lk(&xlat_mmap_flags, "droppable"), 0x08);
	CHECK_STR(xlat_name(&xlat_mmap_flags, MAP_ANONYMOUS), "MAP_ANONYMOUS");
}

/* A JSON value printed compactly; the caller frees it. */
static char *js(cJSON *v)
{
	char *s = cJSON_PrintUnformatted(v);
	cJSON_Delete(v);
	return s;
}

static void check_json(cJSON *v, const char *want)
{
	char *s = js(v);
	CHECK_STR(s, want);
	free(s);
}

static void test_xlat_json(void)
{
	const struct xlat_table *t = &xlat_mremap_flags;

	check_json(xlat_json(t, 0), "[]");
	check_json(xlat_json(t, 1), "[\"MREMAP_MAYMOVE\"]");
	check_json(xlat_json(t, 3), "[\"MREMAP_MAYMOVE\",\"MREMAP_FIXED\"]");
	check_json(xlat_json(t, 0x19), "[\"MREMAP_MAYMOVE\",\"MREMAP_RELOCATE_ANON\",\"MREMAP_MUST_RELOCATE_ANON\"]");
	/* unknown bits stay, as one hex string */
	check_json(xlat_json(t, 0x100), "[\"0x100\"]");
	check_json(xlat_json(t, 0x103), "[\"MREMAP_MAYMOVE\",\"MREMAP_FIXED\",\"0x100\"]");
	check_json(xlat_json(t, 0x8000000000000021ull),
		   "[\"MREMAP_MAYMOVE\",\"0x8000000000000020\"]");
	/* single values: the name, else the number */
	check_json(xlat_json(&xlat_madvise, 14), "\"MADV_HUGEPAGE\"");
	check_json(xlat_json(&xlat_madvise, 999), "999");
	check_json(xlat_json(&xlat_prctl, 41), "\"PR_SET_THP_DISABLE\"");
	/* a mask alias is not printed twice */
	check_json(xlat_json(&xlat_mmap_flags, MAP_PRIVATE | MAP_ANONYMOUS),
		   "[\"MAP_PRIVATE\",\"MAP_ANONYMOUS\"]");
}

static void test_xlat_format(void)
{
	const struct xlat_table *t = &xlat_mremap_flags;
	char buf[128];

	xlat_format(t, 3, buf, sizeof(buf));
	CHECK_STR(buf, "MREMAP_MAYMOVE|MREMAP_FIXED");
	xlat_format(t, 0, buf, sizeof(buf));
	CHECK_STR(buf, "0x0");
	xlat_format(t, 0x100, buf, sizeof(buf));
	CHECK_STR(buf, "0x100");
	xlat_format(t, 0x107, buf, sizeof(buf));
	CHECK_STR(buf, "MREMAP_MAYMOVE|MREMAP_FIXED|MREMAP_DONTUNMAP|0x100");
	xlat_format(&xlat_mlockall_flags, 7, buf, sizeof(buf));
	CHECK_STR(buf, "MCL_CURRENT|MCL_FUTURE|MCL_ONFAULT");
	xlat_format(&xlat_mmap_prot, PROT_READ | PROT_WRITE, buf, sizeof(buf));
	CHECK_STR(buf, "PROT_READ|PROT_WRITE");
	xlat_format(&xlat_madvise, 25, buf, sizeof(buf));
	CHECK_STR(buf, "MADV_COLLAPSE");
	xlat_format(&xlat_madvise, 12345, buf, sizeof(buf));
	CHECK_STR(buf, "12345");
	/* a short buffer is cut, not overrun, and stays terminated */
	memset(buf, 'X', sizeof(buf));
	xlat_format(t, 3, buf, 20);
	CHECK(strlen(buf) < 20 && !strncmp(buf, "MREMAP_MAYMOVE|MREMAP_FIXED", strlen(buf)));
	CHECK(buf[20] == 'X');
	memset(buf, 'X', sizeof(buf));
	xlat_format(t, 3, buf, 1);
	CHECK_STR(buf, "");
	/* what xlat_format prints parses back, name by name */
	uint64_t masks[] = { 1, 2, 4, 8, 16, 0x1f, 0x12 };
	for (size_t i = 0; i < sizeof(masks) / sizeof(masks[0]); i++) {
		char *save = NULL;
		uint64_t sum = 0, v;
		xlat_format(t, masks[i], buf, sizeof(buf));
		for (char *tok = strtok_r(buf, "|", &save); tok; tok = strtok_r(NULL, "|", &save)) {
			CHECK(xlat_lookup(t, tok, &v) == 0);
			sum |= v;
		}
		CHECK_EQ_U64(sum, masks[i]);
	}
}

static void test_mmap_shared_validate(void)
{
	char buf[128];

	xlat_format(&xlat_mmap_flags, MAP_SHARED_VALIDATE | MAP_FIXED, buf, sizeof(buf));
	CHECK_STR(buf, "MAP_SHARED_VALIDATE|MAP_FIXED");
	char *s = js(xlat_json(&xlat_mmap_flags, MAP_SHARED_VALIDATE));
	CHECK_STR(s, "[\"MAP_SHARED_VALIDATE\"]");
	free(s);
}

static void test_nearest(void)
{
	CHECK_STR(xlat_nearest(&xlat_mremap_flags, "relocat_anon"), "MREMAP_RELOCATE_ANON");
	CHECK_STR(xlat_nearest(&xlat_mremap_flags, "MREMAP_relocat_anon"), "MREMAP_RELOCATE_ANON");
	CHECK_STR(xlat_nearest(&xlat_mremap_flags, "must_relocat_anon"), "MREMAP_MUST_RELOCATE_ANON");
	CHECK_STR(xlat_nearest(&xlat_mremap_flags, "maymov"), "MREMAP_MAYMOVE");
	CHECK_STR(xlat_nearest(&xlat_mremap_flags, "dontunamp"), "MREMAP_DONTUNMAP");
	CHECK_STR(xlat_nearest(&xlat_madvise, "hugepages"), "MADV_HUGEPAGE");
	CHECK(xlat_nearest(&xlat_mremap_flags, "completely_unrelated") == NULL);
	CHECK(xlat_nearest(&xlat_mremap_flags, "") == NULL);
	char big[200];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	CHECK(xlat_nearest(&xlat_mremap_flags, big) == NULL);
}

static void test_errno(void)
{
	int v = -1;

	CHECK(errno_lookup("EINVAL", &v) == 0);
	CHECK(v == EINVAL && v == 22);
	CHECK(errno_lookup("einval", &v) == 0 && v == 22);
	CHECK(errno_lookup("ENOMEM", &v) == 0 && v == ENOMEM);
	CHECK(errno_lookup("EFAULT", &v) == 0 && v == EFAULT);
	CHECK(errno_lookup("EEXIST", &v) == 0 && v == EEXIST);
	v = -1;
	CHECK(errno_lookup("ENOTANERRNO", &v) == -1 && v == -1);
	CHECK(errno_lookup("", &v) == -1);
	CHECK(errno_lookup("22", &v) == -1);
	CHECK_STR(errno_name(22), "EINVAL");
	CHECK_STR(errno_name(ENOMEM), "ENOMEM");
	CHECK_STR(errno_name(99999), "E?");
	CHECK_STR(errno_name(-1), "E?");
	/* every named errno round-trips */
	int named = 0, bad = 0;
	for (int e = 1; e < 200; e++) {
		const char *n = errno_name(e);
		if (!strcmp(n, "E?"))
			continue;
		named++;
		if (errno_lookup(n, &v) || v != e) {
			printf("# errno %d (%s) does not round-trip\n", e, n);
			bad++;
		}
	}
	CHECK(named > 100);
	CHECK(bad == 0);
}

static void test_signal(void)
{
	int v = -1;
	char buf[32];

	CHECK(signal_lookup("SIGSEGV", &v) == 0 && v == SIGSEGV);
	CHECK(signal_lookup("segv", &v) == 0 && v == SIGSEGV);
	CHECK(signal_lookup("SegV", &v) == 0 && v == SIGSEGV);
	CHECK(signal_lookup("sigbus", &v) == 0 && v == SIGBUS);
	CHECK(signal_lookup("KILL", &v) == 0 && v == SIGKILL);
	v = -1;
	CHECK(signal_lookup("SIG", &v) == -1 && v == -1);
	CHECK(signal_lookup("", &v) == -1);
	CHECK(signal_lookup("SIGNOPE", &v) == -1);
	CHECK(signal_lookup("11", &v) == -1);
	CHECK_STR(signal_name(SIGSEGV, buf, sizeof(buf)), "SIGSEGV");
	CHECK_STR(signal_name(SIGBUS, buf, sizeof(buf)), "SIGBUS");
	CHECK_STR(signal_name(0, buf, sizeof(buf)), "SIG0");
	for (int s = 1; s < 32; s++) {
		signal_name(s, buf, sizeof(buf));
		if (signal_lookup(buf, &v) || v != s) {
			printf("# signal %d (%s) does not round-trip\n", s, buf);
			CHECK(0);
		}
	}
}

int main(void)
{
	kinfo_init();
	RUN(test_mremap_flags);
	RUN(test_madvise_prctl);
	RUN(test_mlock_uffd);
	RUN(test_mmap_tables);
	RUN(test_xlat_json);
	RUN(test_xlat_format);
	RUN(test_mmap_shared_validate);
	RUN(test_nearest);
	RUN(test_errno);
	RUN(test_signal);
	return unit_done();
}
