/* SPDX-License-Identifier: GPL-2.0-or-later */
/* /proc/PID/pagemap (one pread per range) and /proc/kpageflags (root). */
#include "anonremap.h"
#include <errno.h>
#include <fcntl.h>
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

int pagemap_read(pid_t pid, uint64_t addr, uint64_t npages, uint64_t *out)
{
	char path[64];
	/* one open per process, not per VMA: a dump of 65k VMAs reads 65k ranges */

	if (pm_fd >= 0 && pm_pid != pid)
		pagemap_close();
	if (pm_fd < 0) {
		snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)pid);
		pm_fd = open(path, O_RDONLY | O_CLOEXEC);
		if (pm_fd < 0)
			return -errno;
		pm_pid = pid;
	}
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
