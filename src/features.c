/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What this kernel supports, each probed for real, the risky ones in a throwaway child. */
#include "anonremap.h"
#include "compat.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

const char *const feature_names[FEAT__COUNT] = {
	[FEAT_PROCMAP_QUERY] = "procmap_query",
	[FEAT_MREMAP_DONTUNMAP] = "mremap_dontunmap",
	[FEAT_MREMAP_RELOCATE_ANON] = "mremap_relocate_anon",
	[FEAT_THP] = "thp",
	[FEAT_KSM] = "ksm",
	[FEAT_USERFAULTFD] = "userfaultfd",
	[FEAT_ROOT] = "root",
	[FEAT_MSEAL] = "mseal",
	[FEAT_UPROBE] = "uprobe",
	[FEAT_XRAY] = "xray",
	[FEAT_ZERO_PAGE] = "zero_page",
	[FEAT_UFFD_MOVE] = "userfaultfd_move",
	[FEAT_GUARD_REGIONS] = "guard_regions",
	[FEAT_ANON_PGOFF] = "anon_pgoff",
	[FEAT_SOFT_DIRTY] = "soft_dirty",
	[FEAT_MDWE] = "mdwe",
	[FEAT_MAP_DROPPABLE] = "map_droppable",
	[FEAT_KSM_RUNNING] = "ksm_running",
	[FEAT_THP_ALWAYS] = "thp_always",
	[FEAT_THP_MADVISE] = "thp_madvise",
	[FEAT_THP_NEVER] = "thp_never",
	[FEAT_THP_DISABLE_EXCEPT_ADVISED] = "thp_disable_except_advised",
};

static struct feature_state states[FEAT__COUNT];

int feature_find(const char *name)
{
	for (int i = 0; i < FEAT__COUNT; i++)
		if (!strcmp(feature_names[i], name))
			return i;
	return -1;
}

/* Run fn in a child so that a surprising kernel cannot hurt anonremap;
 * the child reports the errno it saw (0: supported). */
static int in_child(int (*fn)(void))
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return errno;
	if (pid == 0)
		_exit(fn());
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(st))
		return -WTERMSIG(st);
	return WEXITSTATUS(st);
}

static int errno_byte(int e)
{
	return e > 0 && e < 255 ? e : 254;
}

static int probe_procmap(void)
{
	struct procmap_query q = { .size = sizeof(q), .query_addr = (uintptr_t)&q };
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno_byte(errno);
	int rc = ioctl(fd, PROCMAP_QUERY, &q), e = errno;
	close(fd);
	return rc ? errno_byte(e) : 0;
}

static int probe_dontunmap(void)
{
	long ps = sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return errno_byte(errno);
	long r = syscall(__NR_mremap, p, ps, ps, MREMAP_MAYMOVE | MREMAP_DONTUNMAP, 0);
	return r == -1 ? errno_byte(errno) : 0;
}

/* A faulted page moved with MREMAP_MUST_RELOCATE_ANON: a patched kernel
 * moves it, an unpatched one answers EINVAL for the unknown flag. */
static int probe_relocate(void)
{
	long ps = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, 4 * ps, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return errno_byte(errno);
	if (mmap(p, ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
		return errno_byte(errno);
	p[0] = 1;
	long r = syscall(__NR_mremap, p, ps, ps,
			 MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_MUST_RELOCATE_ANON, p + 2 * ps);
	if (r == -1)
		return errno_byte(errno);
	return p[2 * ps] == 1 ? 0 : 253;
}

/* A read fault of untouched private anonymous memory maps the shared zero
 * page: present in pagemap but not exclusively mapped. Some kernels never
 * do (a hypervisor's pvm_no_zero_page=1, for one) and give every read
 * fault a zeroed page of its own, so what such a test expects ('s', no
 * RSS) is not this kernel's behaviour. */
#define NO_ZERO_PAGE 252
/* A new private anonymous page, read (write false) or written, and its
 * pagemap entry into *e: 0, or an errno byte. Probes run in a child, but
 * the page is unmapped all the same. */
static int touched_page_entry(bool write, uint64_t *e)
{
	long ps = sysconf(_SC_PAGESIZE);
	volatile char *p = mmap(NULL, ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return errno_byte(errno);
	if (write)
		p[0] = 1;
	else
		(void)p[0];
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e2 = errno;
		munmap((void *)p, ps);
		return errno_byte(e2);
	}
	ssize_t r = pread(fd, e, sizeof(*e), (off_t)((uintptr_t)p / ps * sizeof(*e)));
	int err = errno;
	close(fd);
	munmap((void *)p, ps);
	if (r != (ssize_t)sizeof(*e))
		return r < 0 ? errno_byte(err) : EIO;
	return 0;
}

static int probe_zero_page(void)
{
	uint64_t e;
	int rc = touched_page_entry(false, &e);

	if (rc)
		return rc;
	if (!(e & PM_PRESENT) || (e & PM_EXCLUSIVE))
		return NO_ZERO_PAGE;
	return 0;
}

/* Linux 7.3 gives an anonymous VMA's pages an offset of their own, apart
 * from the file offset (vma_start_anon_pgoff()), and merges two VMAs only
 * where both agree: merge.c's anon_and_page_offset_mismatch_memfd. Its own
 * sequence is the probe: an unfaulted private memfd mapping at file page 0
 * and a CoW-faulted one of file pages 5..9 moved next to it. A kernel
 * without the separate offset merges them (the file offsets run on); one
 * with it keeps them apart. A kernel that merges no moved CoW-faulted file
 * VMA with an unfaulted neighbour at all (6.1) keeps them apart too, so a
 * control runs first: the faulted one moved back to where it was faulted,
 * where the two offsets agree again. The bounds come from /proc/self/maps,
 * which every kernel has. */
#define ANON_PGOFF_MERGED 251
#define ANON_PGOFF_UNSEEN 250

static uintptr_t vma_end_at(uintptr_t a)
{
	struct vma_src vs;
	struct vma v;
	uintptr_t end = 0;

	if (vma_open(&vs, getpid()))
		return 0;
	if (vma_find(&vs, a, false, &v) == 1) {
		end = v.start == a ? v.end : 0;
		vma_clear(&v);
	}
	vma_close(&vs);
	return end;
}

/* In a fresh 30-page reservation: file pages 5..9 mapped at +faulted_at,
 * CoW-faulted there and moved to +20p; file pages 0..4 mapped unfaulted at
 * +0; the first moved to +5p. The end of the VMA at +0, or 0. */
static uintptr_t memfd_pair(int fd, long ps, long faulted_at)
{
	char *c = mmap(NULL, 30 * ps, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c == MAP_FAILED)
		return 0;
	char *p2 = mmap(c + faulted_at * ps, 5 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 5 * ps);
	if (p2 == MAP_FAILED)
		return 0;
	p2[0] = 'x';
	if (syscall(__NR_mremap, p2, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, c + 20 * ps) == -1 ||
	    mmap(c, 5 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED ||
	    syscall(__NR_mremap, c + 20 * ps, 5 * ps, 5 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, c + 5 * ps) == -1)
		return 0;
	return vma_end_at((uintptr_t)c) - (uintptr_t)c;
}

static int probe_anon_pgoff(void)
{
	long ps = sysconf(_SC_PAGESIZE);
	int fd = memfd_create("anonremap-probe", MFD_CLOEXEC);

	if (fd < 0 || ftruncate(fd, 10 * ps))
		return errno_byte(errno);
	uintptr_t control = memfd_pair(fd, ps, 5), test = memfd_pair(fd, ps, 10);
	if (!control || !test)
		return errno ? errno_byte(errno) : EIO;
	if (control != (uintptr_t)(10 * ps))
		return ANON_PGOFF_UNSEEN;
	return test == (uintptr_t)(10 * ps) ? ANON_PGOFF_MERGED : 0;
}

/* vm_util.c's softdirty_supported(): a page just written is soft-dirty
 * where the kernel tracks it (CONFIG_MEM_SOFT_DIRTY); elsewhere pagemap's
 * bit 55 is always clear. */
#define NO_SOFT_DIRTY 249
static int probe_soft_dirty(void)
{
	uint64_t e;
	int rc = touched_page_entry(true, &e);

	if (rc)
		return rc;
	return e & PM_SOFT_DIRTY ? 0 : NO_SOFT_DIRTY;
}

static int probe_uffd(void)
{
	int fd = syscall(__NR_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);
	if (fd < 0)
		fd = syscall(__NR_userfaultfd, O_CLOEXEC);
	if (fd < 0)
		return errno_byte(errno);
	struct uffdio_api api = { .api = UFFD_API };
	int rc = ioctl(fd, UFFDIO_API, &api);
	return rc ? errno_byte(errno) : 0;
}

/* UFFDIO_API refuses a feature it does not know with EINVAL. */
static int probe_uffd_move(void)
{
	int fd = syscall(__NR_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);
	if (fd < 0)
		fd = syscall(__NR_userfaultfd, O_CLOEXEC);
	if (fd < 0)
		return errno_byte(errno);
	struct uffdio_api api = { .api = UFFD_API, .features = UFFD_FEATURE_MOVE };
	int rc = ioctl(fd, UFFDIO_API, &api);
	return rc ? errno_byte(errno) : 0;
}

/* MADV_GUARD_INSTALL is accepted from Linux 6.13; an older kernel refuses
 * the unknown advice with EINVAL. The advice's success is the probe: a
 * read that must then fault is no test of the kernel under valgrind, whose
 * memcheck of the probe's own load does not see the kernel's SIGSEGV. */
static int probe_guard(void)
{
	long ps = sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return errno_byte(errno);
	int rc = madvise(p, ps, MADV_GUARD_INSTALL) ? errno_byte(errno) : 0;

	munmap(p, ps);
	return rc;
}

static int probe_mseal(void)
{
#ifdef __NR_mseal
	long ps = sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, ps, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return errno_byte(errno);
	return syscall(__NR_mseal, p, ps, 0) ? errno_byte(errno) : 0;
#else
	return ENOSYS;
#endif
}

static int probe_ksm(void)
{
	if (access("/sys/kernel/mm/ksm/run", R_OK))
		return errno_byte(errno);
	return prctl(PR_GET_MEMORY_MERGE, 0, 0, 0, 0) < 0 ? errno_byte(errno) : 0;
}

/* read only: PR_GET_MDWE sets nothing (EINVAL before Linux 6.3) */
static int probe_mdwe(void)
{
	return prctl(PR_GET_MDWE, 0L, 0L, 0L, 0L) < 0 ? errno_byte(errno) : 0;
}

/* EINVAL before Linux 6.18, where prctl_thp_disable.c's fixture skips;
 * it changes only the throwaway child */
static int probe_thp_except_advised(void)
{
	return prctl(PR_SET_THP_DISABLE, 1L, (long)PR_THP_DISABLE_EXCEPT_ADVISED, 0L, 0L) < 0 ? errno_byte(errno) : 0;
}

/* EINVAL before Linux 6.11, EOPNOTSUPP on 32-bit: mlock2-tests.c skips on both */
static int probe_droppable(void)
{
	void *p = mmap(NULL, kinfo.page_size, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_DROPPABLE, -1, 0);
	if (p == MAP_FAILED)
		return errno_byte(errno);
	munmap(p, kinfo.page_size);
	return 0;
}

/* The system THP mode as prctl_thp_disable.c's fixture sets it: enabled
 * is [mode], and the PMD size's own setting (Linux 6.8) inherits it. A
 * setting of the machine, which anonremap only reads (anonremap-vm --thp
 * sets it in a guest). */
static void probe_thp_mode(enum feature f, const char *mode)
{
	struct feature_state *s = &states[f];
	char path[96], buf[64], pmd[64] = "";

	s->probed = true;
	int rc = sysfs_bracketed("/sys/kernel/mm/transparent_hugepage/enabled", buf, sizeof(buf));
	if (rc) {
		snprintf(s->reason, sizeof(s->reason), "/sys/kernel/mm/transparent_hugepage/enabled: %s (no THP in this kernel?)",
			 errno_name(-rc));
		return;
	}
	snprintf(path, sizeof(path), "/sys/kernel/mm/transparent_hugepage/hugepages-%llukB/enabled",
		 (unsigned long long)(kinfo.pmd_size / 1024));
	bool per_size = !sysfs_bracketed(path, pmd, sizeof(pmd));
	s->ok = !strcmp(buf, mode) && (!per_size || !strcmp(pmd, "inherit"));
	char own[128] = "";
	if (per_size)
		snprintf(own, sizeof(own), ", hugepages-%llukB/enabled [%s]", (unsigned long long)(kinfo.pmd_size / 1024), pmd);
	snprintf(s->reason, sizeof(s->reason), "transparent_hugepage/enabled is [%s]%s%s", buf, own,
		 s->ok ? "" : " (the system's THP setting: anonremap-vm --thp sets it in a guest)");
}

static void set(enum feature f, int e, const char *what)
{
	struct feature_state *s = &states[f];
	char sig[32];

	s->probed = true;
	s->ok = e == 0;
	if (e == 0 && f == FEAT_ANON_PGOFF)
		snprintf(s->reason, sizeof(s->reason), "%s kept them apart, where the control merged", what);
	else if (e == 0)
		snprintf(s->reason, sizeof(s->reason), "%s succeeded", what);
	else if (e < 0)
		snprintf(s->reason, sizeof(s->reason), "%s killed the probe by %s", what,
			 signal_name(-e, sig, sizeof(sig)));
	else if (e == 253)
		snprintf(s->reason, sizeof(s->reason), "%s succeeded but lost the data", what);
	else if (e == NO_SOFT_DIRTY)
		snprintf(s->reason, sizeof(s->reason), "%s left pagemap's soft-dirty bit clear (no CONFIG_MEM_SOFT_DIRTY?) on %s",
			 what, kinfo.release);
	else if (e == ANON_PGOFF_UNSEEN)
		snprintf(s->reason, sizeof(s->reason),
			 "%s: not seen, as the control (moved back to where it was faulted) did not merge either, on %s",
			 what, kinfo.release);
	else if (e == ANON_PGOFF_MERGED)
		snprintf(s->reason, sizeof(s->reason), "%s merged them (no separate anonymous page offset) on %s", what,
			 kinfo.release);
	else if (e == NO_ZERO_PAGE)
		snprintf(s->reason, sizeof(s->reason), "%s mapped a page of its own, not the shared zero page, on %s",
			 what, kinfo.release);
	else
		snprintf(s->reason, sizeof(s->reason), "%s returned %s on %s", what, errno_name(e), kinfo.release);
}

/* The probes that run in a throwaway child, each with its description. */
static const struct {
	enum feature f;
	int (*fn)(void);
	const char *what;
} risky[] = {
	{ FEAT_MREMAP_DONTUNMAP, probe_dontunmap, "mremap(MREMAP_DONTUNMAP)" },
	{ FEAT_MREMAP_RELOCATE_ANON, probe_relocate, "mremap(MREMAP_MUST_RELOCATE_ANON)" },
	{ FEAT_USERFAULTFD, probe_uffd, "userfaultfd()" },
	{ FEAT_UFFD_MOVE, probe_uffd_move, "UFFDIO_API(UFFD_FEATURE_MOVE)" },
	{ FEAT_MSEAL, probe_mseal, "mseal()" },
	{ FEAT_GUARD_REGIONS, probe_guard, "madvise(MADV_GUARD_INSTALL)" },
	{ FEAT_KSM, probe_ksm, "KSM (/sys/kernel/mm/ksm, PR_GET_MEMORY_MERGE)" },
	{ FEAT_ZERO_PAGE, probe_zero_page, "a read fault of private anonymous memory" },
	{ FEAT_SOFT_DIRTY, probe_soft_dirty, "a write to a new private anonymous page" },
	{ FEAT_MDWE, probe_mdwe, "prctl(PR_GET_MDWE)" },
	{ FEAT_MAP_DROPPABLE, probe_droppable, "mmap(MAP_ANONYMOUS | MAP_DROPPABLE)" },
	{ FEAT_THP_DISABLE_EXCEPT_ADVISED, probe_thp_except_advised,
	  "prctl(PR_SET_THP_DISABLE, 1, PR_THP_DISABLE_EXCEPT_ADVISED)" },
	{ FEAT_ANON_PGOFF, probe_anon_pgoff,
	  "mremap of a CoW-faulted private memfd mapping next to an unfaulted one at the next file offsets" },
};
#define NRISKY (sizeof(risky) / sizeof(risky[0]))

static void probe(enum feature f)
{
	char buf[128];
	int rc;

	for (size_t i = 0; i < NRISKY; i++)
		if (risky[i].f == f) {
			set(f, in_child(risky[i].fn), risky[i].what);
			return;
		}
	switch (f) {
	case FEAT_PROCMAP_QUERY:
		set(f, probe_procmap(), "ioctl(PROCMAP_QUERY)");
		break;
	case FEAT_THP:
		rc = sysfs_bracketed("/sys/kernel/mm/transparent_hugepage/enabled", buf, sizeof(buf));
		states[f].probed = true;
		states[f].ok = !rc && strcmp(buf, "never");
		if (rc)
			snprintf(states[f].reason, sizeof(states[f].reason),
				 "/sys/kernel/mm/transparent_hugepage/enabled: %s (no THP in this kernel?)",
				 errno_name(-rc));
		else
			snprintf(states[f].reason, sizeof(states[f].reason),
				 "transparent_hugepage/enabled is [%s]", buf);
		break;
	case FEAT_UPROBE:
		states[f].probed = true;
		rc = read_small_file("/sys/bus/event_source/devices/uprobe/type", buf, sizeof(buf));
		states[f].ok = !rc;
		snprintf(states[f].reason, sizeof(states[f].reason), "/sys/bus/event_source/devices/uprobe/type: %s",
			 rc ? errno_name(-rc) : "present");
		break;
	case FEAT_XRAY:
		states[f].probed = true;
		states[f].ok = xray_available(states[f].reason, sizeof(states[f].reason));
		if (states[f].ok)
			snprintf(states[f].reason, sizeof(states[f].reason), "%s is readable", XRAY_DATA);
		break;
	case FEAT_THP_ALWAYS:
		probe_thp_mode(f, "always");
		break;
	case FEAT_THP_MADVISE:
		probe_thp_mode(f, "madvise");
		break;
	case FEAT_THP_NEVER:
		probe_thp_mode(f, "never");
		break;
	case FEAT_KSM_RUNNING:
		/* a machine setting, not the kernel's: ksmd merges pages only
		 * while run is 1 (anonremap-vm --ksm sets it in a guest) */
		states[f].probed = true;
		rc = read_small_file("/sys/kernel/mm/ksm/run", buf, sizeof(buf));
		states[f].ok = !rc && !strcmp(buf, "1");
		if (rc)
			snprintf(states[f].reason, sizeof(states[f].reason), "/sys/kernel/mm/ksm/run: %s (no CONFIG_KSM?)",
				 errno_name(-rc));
		else
			snprintf(states[f].reason, sizeof(states[f].reason), "/sys/kernel/mm/ksm/run is %s%s", buf,
				 states[f].ok ? " (ksmd is merging)" : ", so ksmd merges nothing (1 starts it)");
		break;
	case FEAT_ROOT:
		states[f].probed = true;
		states[f].ok = geteuid() == 0;
		snprintf(states[f].reason, sizeof(states[f].reason), "effective uid is %u", (unsigned)geteuid());
		break;
	default:
		break;
	}
}

/* Every risky probe not made yet, in one child instead of one child each
 * (a fork of anonremap costs about half a millisecond): the child writes
 * one result byte a probe. If a probe kills it, that probe gets the
 * signal, and the ones after it run in children of their own as before. */
static void probe_risky_batch(void)
{
	int fds[2], st;
	size_t todo[NRISKY], n = 0, got = 0;
	unsigned char res[NRISKY];

	for (size_t i = 0; i < NRISKY; i++)
		if (!states[risky[i].f].probed)
			todo[n++] = i;
	if (n < 2 || pipe2(fds, O_CLOEXEC))
		return; /* feature_get probes them one by one */
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return;
	}
	if (pid == 0) {
		close(fds[0]);
		for (size_t k = 0; k < n; k++) {
			unsigned char b = (unsigned char)risky[todo[k]].fn();
			if (write(fds[1], &b, 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	close(fds[1]);
	while (got < n) {
		ssize_t r = read(fds[0], res + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += r;
	}
	close(fds[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	for (size_t k = 0; k < got; k++)
		set(risky[todo[k]].f, res[k], risky[todo[k]].what);
	if (got < n && WIFSIGNALED(st))
		set(risky[todo[got]].f, -WTERMSIG(st), risky[todo[got]].what);
}

const struct feature_state *feature_get(enum feature f)
{
	if (!states[f].probed)
		probe(f);
	return &states[f];
}

cJSON *features_json(bool verbose)
{
	probe_risky_batch();
	/* Every probe before the object exists: a probe's child leaves by
	 * _exit, and a leak checker that follows forks (valgrind) would call
	 * an object only a register of this frame points to lost. */
	for (int i = 0; i < FEAT__COUNT; i++)
		feature_get(i);
	cJSON *o = cJSON_CreateObject();
	for (int i = 0; i < FEAT__COUNT; i++) {
		const struct feature_state *s = feature_get(i);
		if (verbose) {
			cJSON *f = cJSON_AddObjectToObject(o, feature_names[i]);
			cJSON_AddBoolToObject(f, "supported", s->ok);
			cJSON_AddStringToObject(f, "detail", s->reason);
		} else {
			cJSON_AddBoolToObject(o, feature_names[i], s->ok);
		}
	}
	return o;
}
