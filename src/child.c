/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The scenario process: reserves the carveout, then makes one call per
 * message from anonremap. It allocates nothing once the carveout exists, so
 * no memory of its own can land beside the scenario's VMAs. */
#include "anonremap.h"
#include "compat.h"
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int cmd_fd = -1, rep_fd = -1, bell_fd = -1;
static sigjmp_buf touch_jb;
static volatile sig_atomic_t in_touch;
static volatile int fault_sig, fault_code;
static void *volatile fault_addr;

uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* The timer's own cost beside a call's duration: the median of empty
 * syscall(__NR_getpid)s, each timed as a call's duration is (now_ns()
 * before and after), in the process that made the call, right after it.
 * A duration near this is timer and entry cost, not the call's work. */
static uint64_t getpid_ns(void)
{
	enum { N = 9 };
	uint64_t s[N];

	for (int i = 0; i < N; i++) {
		uint64_t t0 = now_ns();
		syscall(__NR_getpid);
		uint64_t v = now_ns() - t0;
		int j = i;
		for (; j > 0 && s[j - 1] > v; j--)
			s[j] = s[j - 1];
		s[j] = v;
	}
	return s[N / 2];
}

/* A fault outside a touch is anonremap's own bug: die by it, honestly. */
static void on_fault(int sig, siginfo_t *si, void *uc)
{
	if (!in_touch) {
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	fault_sig = sig;
	fault_code = si->si_code;
	fault_addr = si->si_addr;
	in_touch = 0;
	siglongjmp(touch_jb, 1);
}

/* splitmix64: the pattern word at index i of a range filled with seed. */
static uint64_t pattern_word(uint64_t seed, uint64_t i)
{
	uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The 8 bytes fault writes, and verify wants, at offset 8 * w of a range of
 * len bytes: the fill byte, zero, or the seeded pattern, whose last partial
 * word is its low byte repeated. */
static uint64_t want_word(const struct call *c, uint64_t w, uint64_t len)
{
	uint64_t ones = 0x0101010101010101ull;

	if (c->fill)
		return (uint64_t)(c->fill - 1) * ones;
	if (c->access == 3)
		return 0;
	uint64_t p = pattern_word(c->seed, w);
	return w * 8 + 8 <= len ? p : (p & 0xff) * ones;
}

/* Touch bytes [lo, hi) of the range at base (len bytes): offsets, not
 * addresses, decide the contents, so a range touched a page at a time reads
 * as one touched at once. Returns the offset + 1 of the first byte verify
 * finds wrong, or 0. */
static uint64_t touch_span(const struct call *c, char *base, uint64_t lo, uint64_t hi, uint64_t len)
{
	uint64_t ps = kinfo.page_size;

	if (c->access <= 1 && !c->has_pattern && !c->fill) {
		/* one byte a page, like the selftests' ptr[0] = 'x' */
		uintptr_t start = (uintptr_t)base + lo, first = start & ~(ps - 1);
		for (uintptr_t p = first; p < (uintptr_t)base + hi; p += ps) {
			volatile char *b = (volatile char *)(p < start ? start : p);
			if (c->access)
				(void)*b;
			else
				*b = 'x';
		}
		return 0;
	}
	for (uint64_t i = lo; i < hi;) {
		uint64_t w = i / 8, end = w * 8 + 8 < hi ? w * 8 + 8 : hi, want = want_word(c, w, len);
		const char *wb = (const char *)&want + (i - w * 8);
		if (c->access <= 1) {
			memcpy(base + i, wb, end - i);
		} else if (memcmp(base + i, wb, end - i)) {
			for (uint64_t k = 0; k < end - i; k++)
				if (base[i + k] != wb[k])
					return i + k + 1;
		}
		i = end;
	}
	return 0;
}

/* fault (access 0 write, 1 read) and verify (2 pattern, 3 zero), of the
 * whole range at once or, with each_page, every page on its own: a signal
 * then ends only its page's touch, and the reply says how many pages
 * raised one and which page, if any, did not. */
void child_touch(const struct call *c, struct reply *rep)
{
	char *base = (char *)c->a[0];
	uint64_t len = c->a[1], ps = kinfo.page_size;
	volatile uint64_t lo = 0, raised = 0, quiet = 0;
	uint64_t t0 = now_ns();

	rep->ret = 0;
	if (sigsetjmp(touch_jb, 1)) {
		if (!raised++) {
			rep->signo = fault_sig;
			rep->si_code = fault_code;
			rep->sigaddr = (uintptr_t)fault_addr;
		}
		if (!c->each_page)
			lo = len;
		else
			lo = (((uintptr_t)base + lo) & ~(ps - 1)) + ps - (uintptr_t)base;
	}
	while (lo < len) {
		uint64_t hi = len;
		if (c->each_page) {
			uint64_t next = (((uintptr_t)base + lo) & ~(ps - 1)) + ps - (uintptr_t)base;
			hi = next < len ? next : len;
		}
		in_touch = 1;
		uint64_t bad = touch_span(c, base, lo, hi, len);
		in_touch = 0;
		if (!quiet)
			quiet = lo + 1;
		if (bad && !rep->extra)
			rep->extra = bad;
		lo = bad && !c->each_page ? len : hi;
	}
	rep->nraised = raised;
	if (raised) {
		rep->ret = -1;
		rep->unraised = quiet;
	} else if (c->access >= 2) {
		rep->ret = rep->extra ? 1 : 0;
	}
	rep->ns = now_ns() - t0;
}

/* A fork: both processes go on, each reading its own command pipe, so a
 * step can go to either. The new process takes the read end anonremap made
 * for it (c->a[0]) and replies for both, as it did when only it went on:
 * ret and pid are its own pid. Its parent replies only when fork fails. */
void child_fork(const struct call *c, struct reply *rep)
{
	pid_t parent = getpid();
	uint64_t t0 = now_ns();
	pid_t pid = fork();

	rep->ns = now_ns() - t0;
	if (pid < 0) {
		rep->ret = -1;
		rep->err = errno;
		return;
	}
	if (pid == 0) {
		/* ends with its parent, which ends with anonremap: nothing outlives a run */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(EXIT_ERROR);
		close(cmd_fd);
		cmd_fd = (int)c->a[0];
		rep->ret = getpid();
		return;
	}
	rep->kind = REPLY_NONE;
}

/* A process forked by this one ended: reap it (no zombie waits for the end
 * of the run) and tell anonremap how it ended, which only its parent can
 * know. The reply pipe is shared; a reply is below PIPE_BUF, so it goes in
 * whole even between another process's replies. */
static void on_child(int sig)
{
	int saved = errno, st;
	pid_t pid;

	(void)sig;
	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		struct reply ex = { .kind = REPLY_CHILD_EXIT, .pid = pid, .status = st };
		if (write(rep_fd, &ex, sizeof(ex)) < 0)
			break;
	}
	errno = saved;
}

/* Whether a call ended as its step says it will (set by run.c's
 * set_expected): anonremap judges each step by it, and the scenario process
 * makes the next call of a chain only then. */
bool outcome_expected(const struct call *c, const struct reply *rep)
{
	if (c->ok_any)
		return true;
	if (rep->unraised) /* each_page: some pages raised a signal, not all */
		return false;
	if (rep->signo || c->ok_sig)
		return rep->signo == c->ok_sig;
	if (c->ok_err > 0)
		return rep->ret == -1 && rep->err == c->ok_err;
	if (c->ok_err == OK_ERR_ANY)
		return rep->ret == -1;
	return c->ok_err < 0 || rep->ret != -1;
}

/* Close every descriptor from 3 up but those in keep. */
static void close_all_but(const int *keep, int n)
{
	for (int prev = 2;;) {
		int next = INT_MAX; /* the lowest kept one above prev */
		for (int k = 0; k < n; k++)
			if (keep[k] > prev && keep[k] < next)
				next = keep[k];
		if (next > prev + 1)
			close_range(prev + 1, next == INT_MAX ? ~0u : (unsigned int)next - 1, 0);
		if (next == INT_MAX)
			return;
		prev = next;
	}
}

static void send_reply(struct reply *rep)
{
	rep->pid = getpid();
	if (write_full(rep_fd, rep, sizeof(*rep)))
		_exit(EXIT_ERROR);
}

void child_main(const struct child_cfg *cfg)
{
	struct sigaction sa;
	stack_t ss;
	struct rlimit core = { 0, 0 };
	struct reply rep = { .kind = REPLY_READY };

	cmd_fd = cfg->cmd_fd;
	rep_fd = cfg->rep_fd;
	bell_fd = cfg->bell_fd;
	/* Nothing of anonremap's but the three pipes: libproc2 keeps its /proc
	 * files open without O_CLOEXEC, and a fork inherits them. */
	int keep[3 + MAX_FORKS] = { cmd_fd, rep_fd, bell_fd };
	int nkeep = 3;
	for (int k = 0; k < cfg->nfork_fds && k < MAX_FORKS; k++)
		keep[nkeep++] = cfg->fork_fds[k];
	close_all_but(keep, nkeep);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	setrlimit(RLIMIT_CORE, &core);
	if (cfg->max_file) {
		/* a file step past the limit fails with EFBIG, recorded as its errno */
		struct rlimit fsz = { cfg->max_file, cfg->max_file };
		setrlimit(RLIMIT_FSIZE, &fsz);
		signal(SIGXFSZ, SIG_IGN);
	}
	/* a runaway scenario is the first thing the OOM killer takes */
	int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		write_full(fd, "1000", 4);
		close(fd);
	}

	/* Everything the process needs exists before the carveout does. */
	ss.ss_sp = malloc(SIGSTKSZ * 4);
	ss.ss_size = SIGSTKSZ * 4;
	ss.ss_flags = 0;
	sigaltstack(&ss, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_child;
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGINT, SIG_IGN); /* Ctrl-C is anonremap's to handle */
	signal(SIGPIPE, SIG_DFL);

	/* Guard, carveout, guard: one PROT_NONE reservation, aligned inside,
	 * made with merge.c's very flags. Any flag the selftests' fixture does
	 * not pass (MAP_NORESERVE above all: the filler would lack VM_ACCOUNT
	 * after an mprotect to writable, and not merge with a fresh mapping
	 * beside it) would make the filler's vm_flags differ from theirs.
	 * Nothing else here touches the area: no madvise, no prctl, no other
	 * mapping; the trimming munmaps and the unfilling one (fill: false)
	 * only remove parts of it, which leaves the rest's flags alone. */
	uint64_t total = cfg->guard * 2 + cfg->size + cfg->align;
	char *p = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		rep.err = errno;
		send_reply(&rep);
		_exit(EXIT_ERROR);
	}
	uint64_t base = ((uintptr_t)p + cfg->guard + cfg->align - 1) & ~(cfg->align - 1);
	uint64_t lo = base - cfg->guard, hi = base + cfg->size + cfg->guard;
	if (lo > (uintptr_t)p)
		munmap(p, lo - (uintptr_t)p);
	if ((uintptr_t)p + total > hi)
		munmap((void *)hi, (uintptr_t)p + total - hi);
	/* Holes where the filler was, for MAP_FIXED_NOREPLACE and the like;
	 * the guards stay, so nothing the kernel places lands beside them. */
	if (!cfg->fill)
		munmap((void *)base, cfg->size);
	rep.base = base;
	send_reply(&rep);

	/* Each reply goes out as soon as its call is made: anonremap does not
	 * wait on the reply pipe during a chain, so the writes wake nobody, and
	 * what a chain did is in the pipe even if a later call hangs. */
	bool in_chain = false, skipping = false;
	for (;;) {
		struct call c;
		int rc = read_full(cmd_fd, &c, sizeof(c));
		if (rc <= 0 || c.kind == CALL_EXIT)
			_exit(0);
		memset(&rep, 0, sizeof(rep));
		rep.kind = skipping ? REPLY_NOT_RUN : REPLY_STEP;
		rep.index = c.index;
		if (!skipping && c.op >= 0 && op_table[c.op] && op_table[c.op]->exec)
			op_table[c.op]->exec(&c, &rep);
		if (c.chain && !skipping && !outcome_expected(&c, &rep))
			skipping = true;
		/* not between the calls of a chain: those run back to back */
		if (rep.kind == REPLY_STEP && !c.chain)
			rep.getpid_ns = getpid_ns();
		if (rep.kind != REPLY_NONE)
			send_reply(&rep);
		if (c.chain) {
			in_chain = true;
		} else if (in_chain) {
			in_chain = skipping = false;
			if (write_full(bell_fd, "", 1))
				_exit(EXIT_ERROR);
		}
	}
}
