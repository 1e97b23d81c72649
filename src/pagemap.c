/* SPDX-License-Identifier: GPL-2.0-or-later */
/* /proc/PID/pagemap (one pread per range) and /proc/kpageflags (root). */
#include "anonremap.h"
#include "compat.h"
#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#ifdef HAVE_VALGRIND_MEMCHECK_H
#include <valgrind/memcheck.h>
#endif
#include <unistd.h>

/* Kept open across the reads of one dump or check, closed by pagemap_close()
 * before the process could be gone and its pid reused. */
static int pm_fd = -1;
static pid_t pm_pid;

void pagemap_close(void)
{
	if (pm_fd >= 0)
		close(pm_fd);
	pm_fd = -1;
}

/* one open per process, not per VMA: a dump of 65k VMAs reads 65k ranges */
static int pagemap_open(pid_t pid)
{
	char path[64];

	if (pm_fd >= 0 && pm_pid != pid)
		pagemap_close();
	if (pm_fd < 0) {
		snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)pid);
		pm_fd = open(path, O_RDONLY | O_CLOEXEC);
		if (pm_fd < 0)
			return -errno;
		pm_pid = pid;
	}
	return 0;
}

int pagemap_read(pid_t pid, uint64_t addr, uint64_t npages, uint64_t *out)
{
	int rc = pagemap_open(pid);

	if (rc)
		return rc;
	size_t want = npages * sizeof(uint64_t), got = 0;
	off_t off = (addr / kinfo.page_size) * sizeof(uint64_t);
	while (got < want) {
		ssize_t r = pread(pm_fd, (char *)out + got, want - got, off + got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			int e = r < 0 ? errno : EIO;
			close(pm_fd);
			pm_fd = -1;
			return -e;
		}
		got += r;
	}
	return 0;
}

/* PAGEMAP_SCAN (6.7): the runs of [start, end) whose pages are present or
 * swapped (swap entries, and markers such as guard regions, which
 * PAGEMAP_SCAN counts as swapped as pagemap's bit 62 does), up to n of
 * them; *walk_end is where the walk stopped, end once it is done. A read of
 * pagemap writes eight bytes for every page; this walk skips page tables
 * that are not there, as in the 64 MiB guards of every dump. -ENOTTY
 * where the kernel has no PAGEMAP_SCAN (and from then on). */
static int scan(pid_t pid, uint64_t start, uint64_t end, uint64_t mask, struct page_region *out, size_t n,
		uint64_t *walk_end)
{
	int rc;

	if ((rc = pagemap_open(pid)))
		return rc;
	struct pm_scan_arg a = {
		.size = sizeof(a), .start = start, .end = end, .vec = (uintptr_t)out, .vec_len = n,
		.category_anyof_mask = mask, .return_mask = mask,
	};
	do
		rc = ioctl(pm_fd, PAGEMAP_SCAN, &a);
	while (rc < 0 && errno == EINTR);
	if (rc < 0)
		return -errno;
#ifdef HAVE_VALGRIND_MEMCHECK_H
	VALGRIND_MAKE_MEM_DEFINED(out, (size_t)rc * sizeof(*out));
#endif
	*walk_end = a.walk_end;
	return rc;
}

int pagemap_scan(pid_t pid, uint64_t start, uint64_t end, struct page_region *out, size_t n, uint64_t *walk_end)
{
	static bool unsupported;
	int rc;

	if (unsupported)
		return -ENOTTY;
	rc = scan(pid, start, end, PAGE_IS_PRESENT | PAGE_IS_SWAPPED, out, n, walk_end);
	if (rc == -ENOTTY || rc == -EINVAL) {
		unsupported = true;
		return -ENOTTY;
	}
	return rc;
}

/* The selftests' PAGEMAP_SCAN for guard regions (guard-regions.c's
 * pagemap_scan): category_anyof_mask = return_mask = PAGE_IS_GUARD. The
 * ioctl's count, or -errno: EINVAL where the kernel has no PAGE_IS_GUARD,
 * ENOTTY where it has no PAGEMAP_SCAN. */
int pagemap_scan_guard(pid_t pid, uint64_t start, uint64_t end, struct page_region *out, size_t n, uint64_t *walk_end)
{
	return scan(pid, start, end, PAGE_IS_GUARD, out, n, walk_end);
}

/* Flags of n consecutive PFNs in one pread: a THP is 512 of them. */
int kpageflags_read_range(uint64_t pfn, uint64_t n, uint64_t *flags)
{
	static int fd = -2;

	if (fd == -2)
		fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -EACCES;
	ssize_t want = n * sizeof(uint64_t);
	if (pread(fd, flags, want, pfn * sizeof(uint64_t)) != want)
		return errno ? -errno : -EIO;
	return 0;
}

int kpageflags_read(uint64_t pfn, uint64_t *flags)
{
	return kpageflags_read_range(pfn, 1, flags);
}
