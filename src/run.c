/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The parent side of one scenario: fork the scenario process, send it one
 * call per step, and inspect it between steps while it is blocked. */
#include "anonremap.h"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

volatile int run_interrupted;

/* In a scenario process: the run it was forked from. It never frees what
 * it inherited (it touches no heap once its carveout exists); this keeps
 * that reachable, so a leak checker that follows forks (valgrind) does not
 * call it lost when an exit step ends the process normally. */
static struct run *volatile inherited_run;

int run_resolve(struct run *r, const struct step *st, enum field_id id, uint64_t *out, struct err *err)
{
	const struct expr *e = st->f[id].e;
	__int128 v;

	expr_const(e, &v);
	for (int i = 0; i < e->n; i++) {
		if (e->t[i].kind == TERM_CARVEOUT) {
			v += r->base;
		} else if (e->t[i].kind == TERM_REGION) {
			const struct binding *b = &r->cur->bind[e->t[i].region];
			if (!b->set)
				return err_set(err, "%s: region '%s' has no address (its mmap failed?)",
					       field_defs[id].key, r->sc->names.name[e->t[i].region]);
			v += b->addr;
		}
	}
	if (v < 0 || v > (__int128)UINT64_MAX)
		return err_set(err, "%s: address arithmetic wraps", field_defs[id].key);
	*out = (uint64_t)v;
	return 0;
}

/* The same rule as the static check, on real addresses: a range whose base
 * (the carveout, or a region the scenario placed in it) lies in the reserved
 * area must stay there. A region the kernel placed elsewhere is the
 * scenario's own mapping and may be used where it is, but only there: an
 * offset from it (a-0x10000000000) could reach anonremap's own image. */
int run_check_range(struct run *r, const struct step *st, enum field_id id, uint64_t addr, uint64_t len,
		    struct err *err)
{
	uint64_t lo = r->base - r->guard, hi = r->base + r->size + r->guard;
	const struct binding *b = NULL;
	const struct expr *e = st->f[id].e;

	if (r->opts->allow_outside || r->sc->allow_outside)
		return 0;
	if (id == FLD_REGION) {
		b = &r->cur->bind[names_find(&r->sc->names, st->f[FLD_REGION].s)];
	} else if (e) {
		for (int i = 0; i < e->n; i++)
			if (e->t[i].kind == TERM_REGION)
				b = &r->cur->bind[e->t[i].region];
	}
	if (b && (b->addr < lo || b->addr >= hi)) {
		if (addr < b->addr || addr > b->addr + b->len || len > b->addr + b->len - addr)
			return err_set(err, "%s: the range leaves region '%s', which the kernel placed outside the reserved area (use --allow-outside)",
				       field_defs[id].key, r->sc->names.name[b - r->cur->bind]);
		return 0;
	}
	if (addr < lo || addr > hi || len > hi - addr)
		return err_set(err, "%s: the range leaves the reserved area (use --allow-outside)", field_defs[id].key);
	return 0;
}

/* at or region, then len; a region's length is the default. */
int run_range(struct run *r, const struct step *st, uint64_t *addr, uint64_t *len, bool len_required,
	      uint64_t def_len, struct err *err)
{
	*len = def_len;
	if (st->f[FLD_REGION].set) {
		const struct binding *b = &r->cur->bind[names_find(&r->sc->names, st->f[FLD_REGION].s)];
		if (!b->set)
			return err_set(err, "region: '%s' has no address (its mmap failed?)", st->f[FLD_REGION].s);
		*addr = b->addr;
		*len = b->len;
	} else if (run_resolve(r, st, FLD_AT, addr, err)) {
		return -1;
	}
	if (st->f[FLD_LEN].set)
		*len = st->f[FLD_LEN].u;
	if (len_required && !*len && !st->f[FLD_LEN].set)
		return err_set(err, "len: required");
	return run_check_range(r, st, st->f[FLD_REGION].set ? FLD_REGION : FLD_AT, *addr, *len, err);
}

void run_addr_json(struct run *r, cJSON *obj, const char *key, uint64_t addr)
{
	char buf[64], k[64];

	hex_format(addr, buf, sizeof(buf));
	cJSON_AddStringToObject(obj, key, buf);
	rel_format(addr, r->base, buf, sizeof(buf));
	snprintf(k, sizeof(k), "%s_rel", key);
	cJSON_AddStringToObject(obj, k, buf);
}

/* The names of the regions a VMA holds: one string, or a list after a merge. */
const char *region_of(struct run *r, uint64_t start, uint64_t end, cJSON **list)
{
	const char *one = NULL;
	int n = 0;

	*list = NULL;
	for (int i = 0; i < r->sc->names.n; i++) {
		const struct binding *b = &r->cur->bind[i];
		if (!b->set || b->addr >= end || b->addr + b->len <= start)
			continue;
		if (n == 1) {
			*list = cJSON_CreateArray();
			cJSON_AddItemToArray(*list, cJSON_CreateString(one));
		}
		if (n >= 1)
			cJSON_AddItemToArray(*list, cJSON_CreateString(r->sc->names.name[i]));
		one = r->sc->names.name[i];
		n++;
	}
	if (n)
		return n == 1 ? one : NULL;
	if (start < r->base + r->size && end > r->base)
		return "carveout";
	if (start < r->base + r->size + r->guard && end > r->base - r->guard)
		return "guard";
	return NULL;
}

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

double run_now(void)
{
	return mono();
}

/* The process step st goes to (procs_resolve's rule); NULL with err set
 * when it names none alive. */
static struct proc *run_proc_of(struct run *r, const struct step *st, struct err *err)
{
	int i = procs_resolve(&r->procs, st->f[FLD_IN].set ? st->f[FLD_IN].s : NULL, err);
	return i < 0 ? NULL : &r->proc[i];
}

const char *run_proc_name(const struct run *r)
{
	return r->procs.name[r->cur - r->proc];
}

static void describe_status(int st, char *buf, size_t len)
{
	char sig[32];

	if (WIFSIGNALED(st))
		snprintf(buf, len, "killed by %s%s", signal_name(WTERMSIG(st), sig, sizeof(sig)),
			 WCOREDUMP(st) ? " (core dumped)" : "");
	else if (WIFEXITED(st))
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(st));
	else
		snprintf(buf, len, "ended (wait status 0x%x)", st);
}

enum wait_result { WAIT_OK, WAIT_DIED, WAIT_TIMEOUT, WAIT_INTERRUPTED };

/* A step reply already in the pipe, read without waiting. */
static bool ready_reply(struct run *r, struct reply *rep)
{
	struct pollfd p = { .fd = r->rep_fd, .events = POLLIN };
	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN) && read_full(r->rep_fd, rep, sizeof(*rep)) > 0 &&
	       rep->kind != REPLY_CHILD_EXIT;
}

/* One reply, or why none came: the scenario process died, hung or we were interrupted. */
static enum wait_result wait_reply(struct run *r, double deadline, struct reply *rep, char *why, size_t wlen)
{
	for (;;) {
		double left = deadline - mono();
		if ((run_interrupted || left <= 0) && r->bell_pending && ready_reply(r, rep))
			return WAIT_OK; /* a step of the chain that ended: the next one hangs */
		if (run_interrupted) {
			snprintf(why, wlen, "interrupted by the user");
			return WAIT_INTERRUPTED;
		}
		if (left <= 0) {
			snprintf(why, wlen, "timed out after %g s", r->opts->timeout);
			return WAIT_TIMEOUT;
		}
		/* During a chain only the bell (or a hangup) wakes anonremap:
		 * a poll without POLLIN is not woken by the replies' writes. */
		struct pollfd pfd[2] = { { .fd = r->rep_fd, .events = r->bell_pending ? 0 : POLLIN },
					 { .fd = r->bell_fd, .events = POLLIN } };
		int pr = poll(pfd, r->bell_pending ? 2 : 1, left > 0.02 ? 20 : (int)(left * 1000) + 1);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr == 0 && r->opts->max_rss_kb) {
			/* a slow step: make sure it is not a runaway fault loop, in
			 * any process of the scenario (its process group, forks too) */
			long kb = pgrp_rss_kb(r->pgid);
			if (kb > 0 && (uint64_t)kb > r->opts->max_rss_kb) {
				kill(-r->pgid, SIGKILL);
				r->rss_killed = kb;
			}
		}
		if (pr <= 0)
			continue;
		if (r->bell_pending) {
			char b;
			if (pfd[1].revents & POLLIN)
				while (read(r->bell_fd, &b, 1) < 0 && errno == EINTR)
					;
			else if (!((pfd[0].revents | pfd[1].revents) & (POLLHUP | POLLERR)))
				continue;
			/* done, or gone: either way the replies it wrote are read now */
			r->bell_pending = false;
		}
		int rc = read_full(r->rep_fd, rep, sizeof(*rep));
		if (rc > 0 && rep->kind != REPLY_CHILD_EXIT)
			return WAIT_OK;
		char d[96], cause[160] = "";
		int st = 0;
		pid_t who = r->cur->pid;
		if (rc > 0) {
			st = rep->status;
			who = rep->pid;
			describe_status(st, d, sizeof(d));
		} else {
			/* -1 once main has exited: waitpid(-1) would take any child */
			pid_t w = r->first_pid > 0 ? waitpid(r->first_pid, &st, 0) : -1;
			if (w > 0 && w == r->first_pid) {
				describe_status(st, d, sizeof(d));
				r->first_pid = -1;
			} else {
				snprintf(d, sizeof(d), "closed its pipe");
			}
		}
		if (r->rss_killed)
			snprintf(cause, sizeof(cause), " by anonremap: the RSS of its processes reached %ld kB, over --max-rss of %" PRIu64 " kB",
				 r->rss_killed, r->opts->max_rss_kb);
		else if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL && counters_oom_kills(r->ctr) > 0)
			snprintf(cause, sizeof(cause), " (the OOM killer: oom_kill rose by %ld)", counters_oom_kills(r->ctr));
		snprintf(why, wlen, "scenario process %d %s%s", (int)who, d, cause);
		return WAIT_DIED;
	}
}

/* Kill every process of the scenario and reap what is ours to reap. */
static void reap_all(struct run *r)
{
	int st;

	for (int k = 0; k < r->ncmd; k++) {
		struct proc *p = &r->proc[k];
		if (p->cmd_fd < 0)
			continue;
		if (k < r->procs.n && r->procs.alive[k]) {
			struct call c = { .kind = CALL_EXIT };
			write_full(p->cmd_fd, &c, sizeof(c));
		}
		close(p->cmd_fd);
		p->cmd_fd = -1;
	}
	if (r->pgid > 0) {
		kill(-r->pgid, SIGKILL);
		/* anonremap is a subreaper: orphaned scenario processes come back to it.
		 * A killed process is gone within tens of microseconds: look again
		 * soon, then less often, for about a second in all. */
		for (int i = 0, us = 10; i < 2100; i++) {
			while (waitpid(-r->pgid, &st, WNOHANG) > 0)
				;
			if (kill(-r->pgid, 0) < 0 && errno == ESRCH)
				break;
			usleep(us);
			us = us < 500 ? us * 2 : 500;
		}
	}
	if (r->rep_fd >= 0)
		close(r->rep_fd);
	if (r->bell_fd >= 0)
		close(r->bell_fd);
	r->rep_fd = r->bell_fd = -1;
}

/* End the process of the step in its turn (op exit) and record how it
 * ended. Its command pipe's end makes it leave; its parent reaps it and
 * tells how (REPLY_CHILD_EXIT), or for main, which is anonremap's own
 * child, waitpid does. -1 when it does not end in time. */
int run_exit(struct run *r, cJSON *sres)
{
	struct proc *p = r->cur;
	int i = (int)(p - r->proc), st = 0;
	bool ended = false;

	close(p->cmd_fd);
	p->cmd_fd = -1;
	while (!ended) {
		if (p->pid == r->first_pid) {
			ended = waitpid(p->pid, &st, WNOHANG) == p->pid;
			if (ended)
				r->first_pid = -1;
		} else {
			struct pollfd pf = { .fd = r->rep_fd, .events = POLLIN };
			struct reply rep;
			if (poll(&pf, 1, 20) == 1 && (pf.revents & POLLIN) &&
			    read_full(r->rep_fd, &rep, sizeof(rep)) > 0 && rep.kind == REPLY_CHILD_EXIT &&
			    rep.pid == p->pid) {
				st = rep.status;
				ended = true;
			}
		}
		if (ended)
			break;
		if (run_interrupted || mono() > r->deadline) {
			r->wr = run_interrupted ? WAIT_INTERRUPTED : WAIT_TIMEOUT;
			snprintf(r->why, sizeof(r->why), "process '%s' (%d) did not end: %s", r->procs.name[i],
				 (int)p->pid, run_interrupted ? "interrupted by the user" : "timed out");
			cJSON_AddStringToObject(sres, "error", r->why);
			return -1;
		}
		if (p->pid == r->first_pid)
			usleep(200);
	}
	describe_status(st, p->end, sizeof(p->end));
	cJSON_AddNumberToObject(sres, "pid", p->pid);
	cJSON_AddStringToObject(sres, "ended", p->end);
	r->procs.alive[i] = false;
	vma_close(&p->vs);
	/* later steps without "in" go to the newest process still alive */
	int next = procs_resolve(&r->procs, NULL, NULL);
	if (next >= 0)
		r->cur = &r->proc[next];
	return 0;
}

static void set_status(cJSON *res, const char *status, const char *reason)
{
	cJSON_ReplaceItemInObject(res, "status", cJSON_CreateString(status));
	if (reason)
		cJSON_ReplaceItemInObject(res, "reason", cJSON_CreateString(reason));
}

/* The outcome step st says it will have, for outcome_expected(): the one
 * rule, in anonremap (judge) and in the scenario process (chains). */
static void set_expected(const struct step *st, struct call *c)
{
	const struct fval *f = st->f;

	c->ok_sig = f[FLD_SIGNAL].set ? (int)f[FLD_SIGNAL].u : 0;
	c->ok_err = f[FLD_ERRNO].set ? (f[FLD_ERRNO].u ? (int)f[FLD_ERRNO].u : OK_ERR_ANY)
				     : f[FLD_MAY_FAIL].set && f[FLD_MAY_FAIL].u ? -1 : 0;
	c->each_page = f[FLD_EACH_PAGE].set && f[FLD_EACH_PAGE].u;
}

/* Did the step do what it said it would? NULL when it did, else why not. */
static const char *judge(const struct run *r, const struct step *st, const struct reply *rep, char *buf,
			 size_t len)
{
	char sig[32], sig2[32], at[48];
	const struct fval *f = st->f;
	struct call want = { 0 };

	set_expected(st, &want);
	bool differ = !strcmp(st->op->name, "verify") && rep->ret == 1; /* the contents, not the call */
	if (outcome_expected(&want, rep) && !differ)
		return NULL;
	if (rep->unraised) {
		hex_format(rep->unraised - 1, at, sizeof(at));
		snprintf(buf, len, "each_page: %" PRIu64 " pages raised %s, the page at offset %s of the range raised none",
			 rep->nraised, signal_name(rep->signo, sig, sizeof(sig)), at);
		return f[FLD_SIGNAL].set ? "failed" : "unexpected";
	}
	if (rep->signo) {
		/* where, as the steps say it: relative to the carveout */
		rel_format(rep->sigaddr, r->base, at, sizeof(at));
		snprintf(buf, len, "raised %s at %s%s%s", signal_name(rep->signo, sig, sizeof(sig)),
			 at, f[FLD_SIGNAL].set ? ", expected " : "",
			 f[FLD_SIGNAL].set ? signal_name(f[FLD_SIGNAL].u, sig2, sizeof(sig2)) : "");
		return "unexpected";
	}
	if (f[FLD_SIGNAL].set) {
		snprintf(buf, len, "expected %s, none was raised", signal_name(f[FLD_SIGNAL].u, sig, sizeof(sig)));
		return "failed";
	}
	if (differ)
		snprintf(buf, len, "page contents differ from the pattern");
	else if (!f[FLD_ERRNO].set)
		snprintf(buf, len, "failed with %s, expected success", errno_name(rep->err));
	else if (rep->ret == -1)
		snprintf(buf, len, "failed with %s, expected %s", errno_name(rep->err), errno_name(f[FLD_ERRNO].u));
	else
		snprintf(buf, len, "succeeded, expected %s", f[FLD_ERRNO].u ? errno_name(f[FLD_ERRNO].u) : "a failure (errno any)");
	return "failed";
}

static void record_reply(struct run *r, const struct step *st, const struct reply *rep, cJSON *sres)
{
	char buf[64];

	if (st->op->ret_addr && rep->ret != -1) {
		run_addr_json(r, sres, "ret", (uint64_t)rep->ret);
	} else {
		cJSON_AddNumberToObject(sres, "ret", (double)rep->ret);
	}
	if (rep->ret == -1 && rep->err)
		cJSON_AddStringToObject(sres, "errno", errno_name(rep->err));
	else
		cJSON_AddNullToObject(sres, "errno");
	cJSON_AddNumberToObject(sres, "duration_ns", (double)rep->ns);
	if (rep->getpid_ns)
		cJSON_AddNumberToObject(sres, "getpid_ns", (double)rep->getpid_ns);
	else
		cJSON_AddNullToObject(sres, "getpid_ns");
	if (rep->signo) {
		cJSON *s = cJSON_AddObjectToObject(sres, "signal");
		cJSON_AddStringToObject(s, "name", signal_name(rep->signo, buf, sizeof(buf)));
		hex_format(rep->sigaddr, buf, sizeof(buf));
		cJSON_AddStringToObject(s, "addr", buf);
		rel_format(rep->sigaddr, r->base, buf, sizeof(buf));
		cJSON_AddStringToObject(s, "rel", buf);
		cJSON_AddNumberToObject(s, "code", rep->si_code);
	} else {
		cJSON_AddNullToObject(sres, "signal");
	}
	cJSON_AddNumberToObject(sres, "pid", rep->pid);
}

/* The calls of a chain run back to back, so the scenario process times
 * its empty getpid()s once, after the chain's last call (step i): the
 * earlier steps of the chain, in the same process, get that figure. */
static void chain_getpid_ns(struct run *r, int i, const struct reply *rep)
{
	if (!rep->getpid_ns || i + 1 != r->ahead_hi || r->ahead_base < 1)
		return;
	cJSON *s = r->steps->child ? r->steps->child->prev : NULL; /* step i's */
	for (int j = i - 1; s && j >= r->ahead_base - 1; j--) {
		s = s->prev;
		if (cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(s, "getpid_ns")))
			cJSON_ReplaceItemInObjectCaseSensitive(s, "getpid_ns", cJSON_CreateNumber((double)rep->getpid_ns));
	}
}

static int op_index(const struct op_entry *op)
{
	for (int i = 0; op_table[i]; i++)
		if (op_table[i] == op)
			return i;
	return -1;
}

static cJSON *new_result(struct scenario *sc)
{
	cJSON *res = cJSON_CreateObject();
	cJSON_AddStringToObject(res, "name", sc->name);
	cJSON_AddStringToObject(res, "file", sc->file);
	cJSON_AddStringToObject(res, "status", "pass");
	cJSON_AddStringToObject(res, "reason", "");
	cJSON_AddItemToObject(res, "scenario", cJSON_Duplicate(sc->json, true));
	/* the same keys whatever the status, so consumers need no special case */
	cJSON_AddNullToObject(res, "carveout");
	cJSON_AddNullToObject(res, "pid");
	cJSON_AddArrayToObject(res, "steps");
	cJSON_AddArrayToObject(res, "dumps");
	cJSON_AddArrayToObject(res, "expectations");
	cJSON_AddArrayToObject(res, "processes");
	return res;
}

/* anonremap and its scenario process take turns: one sends a call and
 * blocks, the other makes it and replies. On one CPU each handover is a
 * plain context switch; across two it is a wakeup IPI, which in a virtual
 * machine costs tens of microseconds a step. So while a scenario runs both
 * share the CPU anonremap is on (its forks inherit it), and anonremap's own
 * affinity is given back when the scenario ends. Failure only costs speed. */
static cpu_set_t saved_cpus;
static int pinned; /* scenarios running with the shared CPU */

static void cpu_share(void)
{
	cpu_set_t one;
	int cpu = sched_getcpu();

	if (pinned++)
		return;
	CPU_ZERO(&saved_cpus);
	if (cpu < 0 || sched_getaffinity(0, sizeof(saved_cpus), &saved_cpus)) {
		CPU_ZERO(&saved_cpus);
		return;
	}
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		CPU_ZERO(&saved_cpus);
}

static void cpu_unshare(void)
{
	if (pinned > 0 && !--pinned && CPU_COUNT(&saved_cpus))
		sched_setaffinity(0, sizeof(saved_cpus), &saved_cpus);
}

/* Whether a dump may come: only a dump shows the slab counters, and their
 * baseline (a read of /proc/slabinfo, about half a millisecond here)
 * is taken only then. With verdicts_only no dump reads anything. */
static bool may_dump(const struct scenario *sc, const struct run_opts *o)
{
	if (o->verdicts_only)
		return false;
	if (o->steps_later)
		return true;
	for (int i = 0; i < sc->nsteps; i++)
		if (!strcmp(sc->steps[i].op->name, "dump"))
			return true;
	return false;
}

/* Fork the scenario process and wait until its carveout exists. NULL with
 * *res set when the scenario ends before it starts (skip, error). */
struct run *run_begin(struct scenario *sc, const struct run_opts *o, cJSON **resp)
{
	struct run *r = xcalloc(1, sizeof(*r));
	cJSON *res = new_result(sc);
	char why[512];
	int cmdp[MAX_PROCS][2], repp[2], bellp[2], fork_fds[MAX_FORKS];
	struct reply rep;

	*resp = res;
	r->res = res;
	r->sc = sc;
	r->opts = o;
	r->rep_fd = r->bell_fd = -1;
	r->proc = xcalloc(MAX_PROCS, sizeof(*r->proc));
	for (int k = 0; k < MAX_PROCS; k++)
		r->proc[k].cmd_fd = r->proc[k].cmd_rd = r->proc[k].vs.fd = -1;
	procs_init(&r->procs);
	r->cur = &r->proc[0];
	r->final = "pass";
	for (int f = 0; f < FEAT__COUNT; f++) {
		if (!(sc->requires & (1u << f)))
			continue;
		const struct feature_state *fs = feature_get(f);
		if (!fs->ok) {
			snprintf(why, sizeof(why), "requires %s: %s", feature_names[f], fs->reason);
			set_status(res, "skip", why);
			free(r->proc);
			free(r);
			return NULL;
		}
	}
	/* A command pipe for each process there may be, made here: a
	 * scenario process must not make what it can do without, and a pipe
	 * made now is ready the moment a fork's child reads it. The shell and
	 * stress learn their steps one by one, so any fork may come. */
	int ncmd = 1 + (o->steps_later ? MAX_FORKS : (sc->forks < MAX_FORKS ? sc->forks : MAX_FORKS));
	int made = 0;
	bool pipes_ok = true;
	for (; made < ncmd && pipes_ok; made++)
		pipes_ok = !pipe2(cmdp[made], O_CLOEXEC);
	if (!pipes_ok)
		made--;
	pipes_ok = pipes_ok && !pipe2(repp, O_CLOEXEC);
	if (pipes_ok && pipe2(bellp, O_CLOEXEC)) {
		pipes_ok = false;
		close(repp[0]);
		close(repp[1]);
	}
	if (!pipes_ok) {
		snprintf(why, sizeof(why), "pipe: %s", strerror(errno));
		set_status(res, "error", why);
		for (int k = 0; k < made; k++) {
			close(cmdp[k][0]);
			close(cmdp[k][1]);
		}
		free(r->proc);
		free(r);
		return NULL;
	}
	for (int k = 1; k < ncmd; k++)
		fork_fds[k - 1] = cmdp[k][0];
	r->ctr = counters_new();
	counters_snapshot(r->ctr, may_dump(sc, o));
	fflush(NULL);
	cpu_share();
	pid_t pid = fork();
	if (pid == 0) {
		/* --max-rss bounds the scenario's files too: their pages are
		 * memory (memfd) or disk (O_TMPFILE) the watchdog cannot see */
		struct child_cfg cfg = { .size = sc->size, .align = sc->align, .guard = sc->guard, .fill = sc->fill,
					 .cmd_fd = cmdp[0][0], .rep_fd = repp[1], .bell_fd = bellp[1],
					 .fork_fds = fork_fds, .nfork_fds = ncmd - 1,
					 .max_file = r->opts->max_rss_kb * 1024 };
		setpgid(0, 0);
		inherited_run = r;
		for (int k = 0; k < ncmd; k++)
			close(cmdp[k][1]);
		close(repp[0]);
		close(bellp[0]);
		child_main(&cfg);
	}
	r->ncmd = ncmd;
	for (int k = 0; k < ncmd; k++) {
		close(cmdp[k][0]); /* the number stays meaningful in the scenario processes */
		r->proc[k].cmd_rd = cmdp[k][0];
		r->proc[k].cmd_fd = cmdp[k][1];
	}
	close(repp[1]);
	close(bellp[1]);
	r->rep_fd = repp[0];
	r->bell_fd = bellp[0];
	if (pid < 0) {
		snprintf(why, sizeof(why), "fork: %s", strerror(errno));
		set_status(res, "error", why);
		reap_all(r);
		cpu_unshare();
		free(r->ctr);
		free(r->proc);
		free(r);
		return NULL;
	}
	setpgid(pid, pid);
	r->proc[0].pid = r->first_pid = r->pgid = pid;
	r->size = sc->size;
	r->guard = sc->guard;
	r->deadline = mono() + o->timeout;

	cJSON *carve = cJSON_CreateObject();
	cJSON_ReplaceItemInObject(res, "carveout", carve);
	r->steps = cJSON_GetObjectItem(res, "steps");
	r->dumps = cJSON_GetObjectItem(res, "dumps");
	r->expects = cJSON_GetObjectItem(res, "expectations");
	r->wr = wait_reply(r, r->deadline, &rep, r->why, sizeof(r->why));
	if (r->wr == WAIT_OK && rep.kind == REPLY_READY && !rep.err) {
		char b[32];
		r->base = rep.base;
		hex_format(r->base, b, sizeof(b));
		cJSON_AddStringToObject(carve, "start", b);
		hex_format(r->base + r->size, b, sizeof(b));
		cJSON_AddStringToObject(carve, "end", b);
		cJSON_AddNumberToObject(carve, "pages", (double)(r->size / kinfo.page_size));
		cJSON_AddNumberToObject(carve, "guard_pages", (double)(r->guard / kinfo.page_size));
		hex_format(sc->align, b, sizeof(b));
		cJSON_AddStringToObject(carve, "align", b);
		cJSON_AddBoolToObject(carve, "fill", sc->fill);
		int vrc = vma_open(&r->cur->vs, r->cur->pid);
		if (vrc < 0) {
			snprintf(r->why, sizeof(r->why), "cannot open /proc/%d/maps: %s", (int)r->cur->pid, strerror(-vrc));
			r->wr = WAIT_DIED;
		}
	} else if (r->wr == WAIT_OK) {
		snprintf(r->why, sizeof(r->why), "cannot reserve the carveout: %s", errno_name(rep.err));
		r->wr = WAIT_DIED;
	}
	cJSON_ReplaceItemInObject(res, "pid", cJSON_CreateNumber(r->cur->pid));
	return r;
}

/* Wait for the paused scenario process: Enter on a terminal sends it SIGCONT.
 * At a terminal the pause does not count against --timeout (a person is
 * looking); without one it does, so nothing waits forever unattended. */
static enum wait_result wait_pause(struct run *r, struct reply *rep)
{
	double t0 = mono();
	enum wait_result wr = WAIT_OK;
	bool tty = isatty(0);

	for (;;) {
		struct pollfd pf[2] = { { r->rep_fd, POLLIN, 0 }, { 0, POLLIN, 0 } };
		int np = tty ? 2 : 1;
		if (run_interrupted) {
			snprintf(r->why, sizeof(r->why), "interrupted by the user");
			wr = WAIT_INTERRUPTED;
			break;
		}
		if (!tty && mono() > r->deadline) {
			snprintf(r->why, sizeof(r->why), "timed out after %g s (paused, no terminal to press Enter)",
				 r->opts->timeout);
			return WAIT_TIMEOUT;
		}
		if (poll(pf, np, 1000) <= 0)
			continue;
		if (np == 2 && pf[1].revents) {
			char line[256];
			/* Enter, or end of input: either way, go on */
			(void)!fgets(line, sizeof(line), stdin);
			kill(r->cur->pid, SIGCONT);
		}
		if (pf[0].revents)
			break;
	}
	if (wr == WAIT_OK)
		wr = wait_reply(r, mono() + 5, rep, r->why, sizeof(r->why));
	if (tty)
		r->deadline += mono() - t0;
	return wr;
}

/* Which steps a chain may hold: those the scenario process makes, but
 * pause, which waits for a person, and fork, which changes the process the
 * calls go to. */
static bool chain_may_join(const struct step *st)
{
	return st->op->exec && strcmp(st->op->name, "pause") && strcmp(st->op->name, "fork");
}

/* Whether a chain may go on past step st, whose call is c: the next call is
 * prepared before st's reply, so st must bind no name, or bind one to what
 * is known before the call is made: an errno it must fail with, or the
 * address MAP_FIXED or MREMAP_FIXED fixes. *pred is then that outcome. */
static bool chain_may_go_on(const struct run *r, const struct step *st, const struct call *c, struct reply *pred)
{
	const struct fval *f = st->f;

	if (!chain_may_join(st))
		return false;
	if (f[FLD_RET].set) /* only anonremap compares the value: the chain would go on past a mismatch */
		return false;
	if (!st->op->after)
		return true;
	if (!st->op->fixed_ret || r->opts->keep_going || f[FLD_SIGNAL].set || (f[FLD_MAY_FAIL].set && f[FLD_MAY_FAIL].u))
		return false;
	memset(pred, 0, sizeof(*pred));
	if (f[FLD_ERRNO].set && !f[FLD_ERRNO].u)
		return false; /* errno any: which one is not known before */
	if (f[FLD_ERRNO].set) {
		pred->ret = -1;
		pred->err = f[FLD_ERRNO].u;
		return true;
	}
	return st->op->fixed_ret(c, &pred->ret);
}

/* Send step i's call, and with it, as one chain, the calls of the steps
 * after it that need nothing from anonremap in between (no dump, no
 * expect, no binding it cannot foresee): the scenario process makes them
 * back to back, as a selftest makes its calls, with no switch to anonremap
 * and back before each one to cool the caches its duration_ns depends on.
 * The calls after a binding step are prepared with the binding its
 * foreseen outcome makes; the bindings are put back after, and the real
 * reply makes them again in the step's turn. */
static int send_chain(struct run *r, int i, struct call *c)
{
	struct call calls[CHAIN_MAX];
	struct binding saved[MAX_REGIONS];
	struct reply pred;
	struct err err;
	int n = 0;

	memcpy(saved, r->cur->bind, sizeof(saved));
	calls[0] = *c;
	for (int j = i; j + 1 < r->sc->nsteps && n + 1 < CHAIN_MAX; j++) {
		struct step *sj = &r->sc->steps[j], *next = &r->sc->steps[j + 1];
		if (!chain_may_join(next) || !chain_may_go_on(r, sj, &calls[n], &pred) ||
		    run_proc_of(r, next, NULL) != r->cur)
			break; /* a chain is one process's: its calls go down one pipe */
		if (sj->op->after)
			sj->op->after(r, sj, &calls[n], &pred, NULL);
		struct call cn = { .kind = CALL_STEP, .op = op_index(next->op), .index = j + 1 };
		cJSON *args = cJSON_CreateObject();
		if (next->op->prepare && next->op->prepare(r, next, &cn, args, &err)) {
			cJSON_Delete(args); /* its turn reports the error */
			break;
		}
		calls[n].chain = 1;
		calls[n].ok_any = r->opts->keep_going;
		set_expected(sj, &calls[n]);
		r->ahead[n] = cn;
		r->ahead_args[n] = args;
		calls[++n] = cn;
	}
	memcpy(r->cur->bind, saved, sizeof(saved));
	r->ahead_base = r->ahead_lo = i + 1;
	r->ahead_hi = i + 1 + n;
	r->bell_pending = n > 0;
	return write_full(r->cur->cmd_fd, calls, (n + 1) * sizeof(calls[0]));
}

/* A step that could not be made: its result says why, and so does the
 * scenario's reason; the scenario ends in error. */
static int step_error(struct run *r, cJSON *sres, int i, const struct step *st, const char *msg)
{
	cJSON_AddStringToObject(sres, "status", "error");
	cJSON_AddStringToObject(sres, "error", msg);
	snprintf(r->rbuf, sizeof(r->rbuf), "step %d (%s): %s", i, st->op->name, msg);
	r->final = "error";
	r->reason = r->rbuf;
	return -1;
}

/* Run step i of r->sc. 0: go on; 1: the step failed; -1: the run is over. */
int run_step(struct run *r, int i, cJSON **out)
{
	struct step *st = &r->sc->steps[i];
	struct call c = { .kind = CALL_STEP, .op = op_index(st->op), .index = i };
	struct reply rep;
	struct err err;
	cJSON *sres = cJSON_CreateObject(), *args = cJSON_CreateObject();
	const char *sstat = "ok";
	char sbuf[256];

	*out = sres;
	if (r->wr != WAIT_OK) {
		cJSON_Delete(sres);
		cJSON_Delete(args);
		*out = NULL;
		return -1;
	}
	cJSON_AddNumberToObject(sres, "index", i);
	cJSON_AddStringToObject(sres, "op", st->op->name);
	cJSON_AddItemToArray(r->steps, sres);
	struct proc *in = run_proc_of(r, st, &err);
	if (!in) {
		cJSON_Delete(args);
		return step_error(r, sres, i, st, err.msg);
	}
	r->cur = in;
	cJSON_AddStringToObject(sres, "in", run_proc_name(r));
	bool sent = i >= r->ahead_lo && i < r->ahead_hi;
	if (sent) { /* prepared and sent with the chain before it */
		c = r->ahead[i - r->ahead_base];
		cJSON_Delete(args);
		args = r->ahead_args[i - r->ahead_base];
		r->ahead_args[i - r->ahead_base] = NULL;
		r->ahead_lo = i + 1;
	} else if (st->op->prepare && st->op->prepare(r, st, &c, args, &err)) {
		cJSON_AddItemToObject(sres, "args", args);
		return step_error(r, sres, i, st, err.msg);
	}
	cJSON_AddItemToObject(sres, "args", args);
	memset(&rep, 0, sizeof(rep));
	if (st->op->exec) {
		bool pause = !strcmp(st->op->name, "pause");
		if (pause) {
			char b1[32], b2[32];
			hex_format(r->base, b1, sizeof(b1));
			hex_format(r->base + r->size, b2, sizeof(b2));
			fprintf(stderr, "anonremap: step %d: paused: pid %d, carveout %s-%s; "
				"press Enter or send SIGCONT to %d\n", i, (int)r->cur->pid, b1, b2, (int)r->cur->pid);
		}
		if (!sent && (pause ? write_full(r->cur->cmd_fd, &c, sizeof(c)) : send_chain(r, i, &c))) {
			snprintf(r->why, sizeof(r->why), "scenario process %d is gone", (int)r->cur->pid);
			r->wr = WAIT_DIED;
		} else if (pause) {
			r->wr = wait_pause(r, &rep);
		} else {
			r->wr = wait_reply(r, r->deadline, &rep, r->why, sizeof(r->why));
			/* Not made: the step before ended otherwise than it said, and
			 * the call was prepared as if it had. The scenario stops at
			 * such a step (with -k every call of a chain is made), so this
			 * is anonremap's own error, reported as one. */
			if (r->wr == WAIT_OK && rep.kind == REPLY_NOT_RUN) {
				snprintf(r->why, sizeof(r->why), "internal error: the call was not made, its chain stopped");
				r->wr = WAIT_DIED;
			}
		}
		if (r->wr != WAIT_OK) {
			cJSON_AddStringToObject(sres, "status", r->wr == WAIT_TIMEOUT ? "timeout" :
						r->wr == WAIT_INTERRUPTED ? "interrupted" : "died");
			snprintf(r->rbuf, sizeof(r->rbuf), "step %d (%s): %s", i, st->op->name, r->why);
			r->final = "error";
			r->reason = r->rbuf;
			return -1;
		}
		record_reply(r, st, &rep, sres);
		chain_getpid_ns(r, i, &rep);
		const char *bad = judge(r, st, &rep, sbuf, sizeof(sbuf));
		if (!bad && st->f[FLD_RET].set) {
			uint64_t want;
			if (run_resolve(r, st, FLD_RET, &want, &err))
				return step_error(r, sres, i, st, err.msg);
			if ((uint64_t)rep.ret != want) {
				char w[64], g[64];
				if (st->op->ret_addr) {
					rel_format(want, r->base, w, sizeof(w));
					rel_format((uint64_t)rep.ret, r->base, g, sizeof(g));
				} else {
					snprintf(w, sizeof(w), "%" PRId64, (int64_t)want);
					snprintf(g, sizeof(g), "%" PRId64, rep.ret);
				}
				snprintf(sbuf, sizeof(sbuf), "ret: returned %s, expected %s", g, w);
				bad = "failed";
				cJSON_AddStringToObject(sres, "failure", sbuf);
			}
		}
		if (bad) {
			sstat = bad;
			cJSON_AddStringToObject(sres, "failure", sbuf);
		}
	}
	vma_invalidate(&r->cur->vs);
	int arc = st->op->after ? st->op->after(r, st, &c, &rep, sres) : 0;
	if (arc < 0) {
		cJSON *e = cJSON_GetObjectItem(sres, "error");
		snprintf(r->rbuf, sizeof(r->rbuf), "step %d (%s): %s", i, st->op->name,
			 e ? e->valuestring : "inspection failed");
		cJSON_AddStringToObject(sres, "status", "error");
		r->final = "error";
		r->reason = r->rbuf;
		return -1;
	}
	if (arc > 0)
		sstat = "failed";
	cJSON_AddStringToObject(sres, "status", sstat);
	if (!strcmp(sstat, "ok"))
		return 0;
	if (strcmp(r->final, "fail")) {
		cJSON *fl = cJSON_GetObjectItem(sres, "failure");
		cJSON *ex = cJSON_GetArrayItem(r->expects, cJSON_GetArraySize(r->expects) - 1);
		if (arc > 0 && ex)
			snprintf(r->rbuf, sizeof(r->rbuf), "step %d (expect %s): expected %s; found %s", i,
				 cJSON_GetObjectItem(ex, "check")->valuestring,
				 cJSON_GetObjectItem(ex, "expected")->valuestring,
				 cJSON_GetObjectItem(ex, "found")->valuestring);
		else
			snprintf(r->rbuf, sizeof(r->rbuf), "step %d (%s): %s", i, st->op->name,
				 fl ? fl->valuestring : sstat);
		r->reason = r->rbuf;
	}
	r->final = "fail";
	return 1;
}

/* Status and reason into the result; every scenario process killed and reaped. */
int run_end(struct run *r)
{
	int status;

	if (r->wr != WAIT_OK) {
		r->final = "error";
		if (!r->reason) {
			snprintf(r->rbuf, sizeof(r->rbuf), "%s", r->why);
			r->reason = r->rbuf;
		}
	}
	cJSON_ReplaceItemInObject(r->res, "pid", cJSON_CreateNumber(r->cur->pid));
	set_status(r->res, r->final, r->reason ? r->reason : "");
	status = !strcmp(r->final, "pass") ? EXIT_PASS : !strcmp(r->final, "fail") ? EXIT_FAIL : EXIT_ERROR;
	if (r->wr == WAIT_INTERRUPTED)
		cJSON_AddTrueToObject(r->res, "interrupted");
	/* every process, also one no step after its fork used: who it was */
	cJSON *procs = cJSON_GetObjectItem(r->res, "processes");
	for (int k = 0; k < r->procs.n; k++) {
		cJSON *p = cJSON_CreateObject();
		cJSON_AddStringToObject(p, "name", r->procs.name[k]);
		cJSON_AddNumberToObject(p, "pid", r->proc[k].pid);
		if (r->procs.parent[k] >= 0)
			cJSON_AddStringToObject(p, "forked_by", r->procs.name[r->procs.parent[k]]);
		else
			cJSON_AddNullToObject(p, "forked_by");
		if (r->procs.alive[k])
			cJSON_AddNullToObject(p, "ended");
		else
			cJSON_AddStringToObject(p, "ended", r->proc[k].end);
		cJSON_AddItemToArray(procs, p);
	}
	for (int k = 0; k < MAX_PROCS; k++)
		vma_close(&r->proc[k].vs);
	reap_all(r);
	cpu_unshare();
	for (int k = r->ahead_lo; k < r->ahead_hi; k++)
		cJSON_Delete(r->ahead_args[k - r->ahead_base]);
	free(r->ctr);
	free(r->proc);
	free(r);
	return status;
}

cJSON *run_scenario(struct scenario *sc, const struct run_opts *o, int *status)
{
	cJSON *res, *sres;
	struct run *r = run_begin(sc, o, &res);

	if (!r) {
		*status = !strcmp(cJSON_GetObjectItem(res, "status")->valuestring, "skip") ? EXIT_SKIP : EXIT_ERROR;
		return res;
	}
	for (int i = 0; i < sc->nsteps; i++) {
		int rc = run_step(r, i, &sres);
		if (rc < 0 || (rc > 0 && !o->keep_going))
			break;
	}
	*status = run_end(r);
	return res;
}
