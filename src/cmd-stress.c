/* SPDX-License-Identifier: GPL-2.0-or-later */
/* anonremap stress: seeded random mmap/mremap/fault/madvise/... sequences in
 * rounds of fresh scenario processes, invariants checked after every step,
 * and a minimized scenario file when one breaks. */
#include "stress.h"
#include "compat.h"
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

enum {
	OPT_FORK = 0x100, OPT_THP, OPT_RECLAIM, OPT_CHECK_EVERY, OPT_ROUND, OPT_PAGES, OPT_OUT, OPT_TRACE,
	OPT_BREAK, OPT_NO_MIN, OPT_ADVICE, OPT_XRAY_ALL,
};

struct stress_args {
	struct stress_cfg cfg;
	bool seed_set, steps_set, pages_set, ops_set;
	bool no_minimize;
	const char *out_dir, *output, *trace;
	enum out_format format;
};

static const struct argp_option stress_options[] = {
	{ "seed", 's', "N", 0, "the seed (default: random, printed)", 0 },
	{ "steps", 'n', "M", 0, "stop after M operations (default 1000, or none with --time)", 0 },
	{ "time", 'T', "SECONDS", 0, "stop after SECONDS", 0 },
	{ "ops", 'O', "LIST", 0, "operations: mmap, munmap, mprotect, madvise, mremap, fault, fork (default all but fork)", 0 },
	{ "flags", 'F', "LIST", 0, "mremap flags to combine: maymove, fixed, dontunmap, relocate_anon, must_relocate_anon (default all)", 0 },
	{ "advice", OPT_ADVICE, "LIST", 0, "madvise advice: dontneed, pageout, cold, hugepage, nohugepage, collapse (default all)", 0 },
	{ "fork", OPT_FORK, NULL, 0, "add fork (at most 4 a round)", 0 },
	{ "thp", OPT_THP, NULL, 0, "PMD-aligned carveout of 1024 pages, huge-page-sized ranges, more hugepage and collapse advice", 0 },
	{ "reclaim", OPT_RECLAIM, NULL, 0, "memory pressure: madvise(MADV_PAGEOUT) of random ranges, and a memory cgroup limit where possible", 0 },
	{ "check-every", OPT_CHECK_EVERY, "K", 0, "read back every page every K operations (default 1)", 0 },
	{ "round", OPT_ROUND, "N", 0, "operations per scenario process (default 150)", 0 },
	{ "pages", OPT_PAGES, "N", 0, "carveout size in pages (default 512, 1024 with --thp)", 0 },
	{ "out", OPT_OUT, "DIR", 0, "where stress-SEED.json and stress-SEED-min.json go (default .)", 0 },
	{ "trace", OPT_TRACE, "FILE", 0, "write every step run, one JSON object a line", 0 },
	{ "break-model", OPT_BREAK, NULL, 0, "test only: make the model wrong on purpose", 0 },
	{ "xray-all-moves", OPT_XRAY_ALL, NULL, 0, "test only: check folios_linear (x-ray) after every move, not only relocating ones", 0 },
	{ "no-minimize", OPT_NO_MIN, NULL, 0, "write the failing sequence, do not minimize it", 0 },
	{ "format", 'f', "FORMAT", 0, "json (default) or text", 0 },
	{ "output", 'o', "FILE", 0, "write the result to FILE (atomically)", 0 },
	{ "timeout", 't', "SECONDS", 0, "per step (default 30)", 0 },
	{ 0 }
};

static bool parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 0);
	if (errno || !*s || *end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

static error_t stress_parse(int key, char *arg, struct argp_state *state)
{
	struct stress_args *a = state->input;
	static const char *const mflag_names[] = { "maymove", "fixed", "dontunmap", "relocate_anon", "must_relocate_anon" };
	long v;
	char *end;

	switch (key) {
	case 's':
		errno = 0;
		a->cfg.seed = strtoull(arg, &end, 0);
		if (errno || !*arg || *end || *arg == '-' || a->cfg.seed >= (1ull << 53))
			argp_error(state, "--seed: '%s' is not a number below 2^53", arg);
		a->seed_set = true;
		return 0;
	case 'n':
		if (!parse_long(arg, 1, 1L << 40, &v))
			argp_error(state, "--steps: '%s' is not a positive number", arg);
		a->cfg.max_ops = v;
		a->steps_set = true;
		return 0;
	case 'T':
		errno = 0;
		a->cfg.max_time = strtod(arg, &end);
		if (errno || *end || !(a->cfg.max_time > 0))
			argp_error(state, "--time: '%s' is not a number of seconds above 0", arg);
		return 0;
	case 'O':
		a->cfg.gen.ops = name_list_option(state, "--ops", arg, stress_kind_names, SOP__COUNT, NAME_NOCASE, NULL);
		a->ops_set = true;
		return 0;
	case 'F':
		a->cfg.gen.mflags = name_list_option(state, "--flags", arg, mflag_names, 5, NAME_NOCASE, "MREMAP_");
		return 0;
	case OPT_ADVICE:
		a->cfg.gen.advice = name_list_option(state, "--advice", arg, stress_adv_names, ADV__COUNT, NAME_NOCASE, NULL);
		return 0;
	case OPT_FORK:
		a->cfg.fork = true;
		return 0;
	case OPT_THP:
		a->cfg.thp = true;
		return 0;
	case OPT_RECLAIM:
		a->cfg.reclaim = true;
		return 0;
	case OPT_CHECK_EVERY:
		if (!parse_long(arg, 1, 1000000, &v))
			argp_error(state, "--check-every: '%s' is not a positive number", arg);
		a->cfg.check_every = v;
		return 0;
	case OPT_ROUND:
		if (!parse_long(arg, 1, 2000, &v))
			argp_error(state, "--round: '%s' is not 1..2000", arg);
		a->cfg.round_ops = v;
		return 0;
	case OPT_PAGES:
		if (!parse_long(arg, 16, 2048, &v))
			argp_error(state, "--pages: '%s' is not 16..2048", arg);
		a->cfg.pages = v;
		a->pages_set = true;
		return 0;
	case OPT_OUT:
		a->out_dir = arg;
		return 0;
	case OPT_TRACE:
		a->trace = output_file_arg(state, "--trace", arg);
		return 0;
	case OPT_BREAK:
		a->cfg.break_model = true;
		return 0;
	case OPT_NO_MIN:
		a->no_minimize = true;
		return 0;
	case OPT_XRAY_ALL:
		a->cfg.xray_all_moves = true;
		return 0;
	case 'f':
		if (parse_format(arg, &a->format) || a->format == OUT_KTAP)
			argp_error(state, "--format: '%s' is not json or text", arg);
		return 0;
	case 'o':
		a->output = output_file_arg(state, "--output", arg);
		return 0;
	case 't':
		errno = 0;
		a->cfg.ro.timeout = strtod(arg, &end);
		if (errno || *end || !(a->cfg.ro.timeout > 0))
			argp_error(state, "--timeout: '%s' is not a number of seconds above 0", arg);
		return 0;
	case ARGP_KEY_ARG:
		argp_error(state, "stress takes no arguments");
		return EINVAL;
	case ARGP_KEY_END: {
		long P = (long)(kinfo.pmd_size / kinfo.page_size);
		if (a->cfg.thp && a->pages_set && (a->cfg.pages < P || a->cfg.pages % P))
			argp_error(state, "--pages: with --thp, a multiple of %ld (the PMD size in pages)", P);
		return 0;
	}
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static void on_signal(int sig)
{
	(void)sig;
	run_interrupted = 1;
}

/* Does this kernel move a range of several VMAs with one mremap (6.17+)? */
static bool probe_multi_move(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		uint64_t ps = kinfo.page_size;
		char *p = mmap(NULL, 8 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED || mprotect(p + ps, ps, PROT_READ))
			_exit(2);
		long r = syscall(__NR_mremap, p, 3 * ps, 3 * ps, MREMAP_MAYMOVE | MREMAP_FIXED, p + 4 * ps);
		_exit(r == -1 ? 1 : 0);
	}
	int st = 0;
	if (pid < 0)
		return false;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static int swap_devices(void)
{
	char buf[4096];
	int n = 0;
	if (read_small_file("/proc/swaps", buf, sizeof(buf)) < 0)
		return 0;
	for (char *l = strchr(buf, '\n'); l && l[1]; l = strchr(l + 1, '\n'))
		n++;
	return n;
}

/* The cgroup v2 directory of this process, or "" with the reason. */
static bool cgroup2_dir(char *dir, size_t len, char *why, size_t wlen)
{
	char mnt[256] = "", line[1024], path[512] = "";
	FILE *fp = fopen("/proc/self/mountinfo", "re");

	while (fp && fgets(line, sizeof(line), fp)) {
		char *sep = strstr(line, " - ");
		char m[256], fs[64];
		if (sep && sscanf(sep + 3, "%63s", fs) == 1 && !strcmp(fs, "cgroup2") &&
		    sscanf(line, "%*s %*s %*s %*s %255s", m) == 1) {
			snprintf(mnt, sizeof(mnt), "%s", m);
			break;
		}
	}
	if (fp)
		fclose(fp);
	if (!*mnt) {
		snprintf(why, wlen, "no cgroup v2 file system is mounted");
		return false;
	}
	fp = fopen("/proc/self/cgroup", "re");
	while (fp && fgets(line, sizeof(line), fp))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(path, sizeof(path), "%s", line + 3);
		}
	if (fp)
		fclose(fp);
	snprintf(dir, len, "%s%s", mnt, strcmp(path, "/") ? path : "");
	return true;
}

/* A memory.high limit on the scenario processes' own new cgroup, where cgroup
 * v2 has the memory controller and there is swap to push pages into. */
static cJSON *reclaim_setup(struct stress_args *a)
{
	cJSON *o = cJSON_CreateObject();
	char dir[600], why[600] = "", buf[512];
	int swaps = swap_devices();

	cJSON_AddStringToObject(o, "pageout", "madvise(MADV_PAGEOUT) of random ranges, besides the ranges the generator picks");
	cJSON_AddNumberToObject(o, "swap_devices", swaps);
	if (!cgroup2_dir(dir, sizeof(dir), why, sizeof(why))) {
	} else {
		char f[700];
		snprintf(f, sizeof(f), "%s/cgroup.controllers", dir);
		bool mem = read_small_file(f, buf, sizeof(buf)) >= 0 && strstr(buf, "memory");
		snprintf(f, sizeof(f), "%s/cgroup.subtree_control", dir);
		bool sub = read_small_file(f, buf, sizeof(buf)) >= 0 && strstr(buf, "memory");
		if (!mem)
			snprintf(why, sizeof(why), "the cgroup v2 hierarchy at %s has no memory controller (it is bound to cgroup v1 here)", dir);
		else if (!sub)
			snprintf(why, sizeof(why), "memory is not enabled for the children of %s (cgroup.subtree_control)", dir);
		else if (!swaps)
			snprintf(why, sizeof(why), "no swap: a limit could only throttle the scenario process or OOM-kill it");
		else {
			snprintf(a->cfg.cgroup, sizeof(a->cfg.cgroup), "%s/anonremap-stress-%d", dir, (int)getpid());
			if (mkdir(a->cfg.cgroup, 0755) && errno != EEXIST) {
				snprintf(why, sizeof(why), "cannot create %s: %s", a->cfg.cgroup, strerror(errno));
				a->cfg.cgroup[0] = 0;
			} else {
				uint64_t high = (uint64_t)a->cfg.pages * kinfo.page_size / 2;
				snprintf(f, sizeof(f), "%s/memory.high", a->cfg.cgroup);
				int fd = open(f, O_WRONLY | O_CLOEXEC);
				int n = snprintf(buf, sizeof(buf), "%" PRIu64, high);
				if (fd < 0 || write(fd, buf, n) != n) {
					snprintf(why, sizeof(why), "cannot set %s: %s", f, strerror(errno));
					rmdir(a->cfg.cgroup);
					a->cfg.cgroup[0] = 0;
				} else {
					a->cfg.cgroup_high = high;
				}
				if (fd >= 0)
					close(fd);
			}
		}
	}
	if (a->cfg.cgroup[0]) {
		cJSON_AddStringToObject(o, "cgroup", a->cfg.cgroup);
		cJSON_AddNumberToObject(o, "memory_high", (double)a->cfg.cgroup_high);
	} else {
		cJSON_AddNullToObject(o, "cgroup");
		cJSON_AddStringToObject(o, "cgroup_reason", why);
	}
	if (!swaps)
		cJSON_AddStringToObject(o, "note",
					"reclaim pressure is madvise(MADV_PAGEOUT) only, and the host has no swap (/proc/swaps "
					"lists none), so pageout cannot really swap anonymous pages out");
	else if (!a->cfg.cgroup[0])
		cJSON_AddStringToObject(o, "note", "reclaim pressure is madvise(MADV_PAGEOUT) only (no memory cgroup limit)");
	return o;
}

static cJSON *names_json(unsigned mask, const char *const *names, int n)
{
	cJSON *a = cJSON_CreateArray();
	for (int i = 0; i < n; i++)
		if (mask & (1u << i))
			cJSON_AddItemToArray(a, cJSON_CreateString(names[i]));
	return a;
}

static void text(cJSON *doc, FILE *fp)
{
	cJSON *s = cJSON_GetObjectItem(doc, "stress");
#define N(k) cJSON_GetNumberValue(cJSON_GetObjectItem(s, k))
#define S(o, k) cJSON_GetStringValue(cJSON_GetObjectItem(o, k))
	cJSON *k = cJSON_GetObjectItem(doc, "kernel");
	fprintf(fp, "anonremap stress: seed %.0f, Linux %s, %.0f-page carveout\n", N("seed"), S(k, "release"), N("pages"));
	fprintf(fp, "  %.0f operations in %.0f rounds, %.1f s: %.0f operations/s; %.0f steps with the checks: %.0f steps/s\n",
		N("ops"), N("rounds"), N("duration_s"), N("ops_per_s"), N("steps"), N("steps_per_s"));
	fprintf(fp, "  coverage: %.0f (op, flags) pairs; %.0f calls failed as expected or allowed\n",
		cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(s, "coverage"), "pairs")), N("failed_calls"));
	fprintf(fp, "  data: %.0f page checks, %.0f pages not checkable (their pattern's first page was overwritten)\n",
		N("verified_pages"), N("unverifiable_pages"));
	cJSON *inv = cJSON_GetObjectItem(s, "invariants"), *it;
	cJSON_ArrayForEach(it, inv)
		fprintf(fp, "  invariant %s: %s\n", it->string, it->valuestring);
	cJSON *rc = cJSON_GetObjectItem(s, "reclaim");
	if (cJSON_IsObject(rc) && cJSON_IsNumber(cJSON_GetObjectItem(rc, "swapped_out_pages")))
		fprintf(fp, "  reclaim: %.0f swap devices; %.0f pages swapped out, %.0f in (system-wide, /proc/vmstat)\n",
			cJSON_GetNumberValue(cJSON_GetObjectItem(rc, "swap_devices")),
			cJSON_GetNumberValue(cJSON_GetObjectItem(rc, "swapped_out_pages")),
			cJSON_GetNumberValue(cJSON_GetObjectItem(rc, "swapped_in_pages")));
	if (cJSON_IsObject(rc) && S(rc, "note"))
		fprintf(fp, "  reclaim: %s\n", S(rc, "note"));
	cJSON *v = cJSON_GetObjectItem(s, "violation");
	if (!cJSON_IsObject(v)) {
		fprintf(fp, "  result: no invariant broke%s\n", cJSON_IsTrue(cJSON_GetObjectItem(s, "interrupted")) ? " (interrupted)" : "");
		return;
	}
	fprintf(fp, "  VIOLATION: %s invariant, round %.0f, operation %.0f, step %.0f (%s)\n", S(v, "invariant"),
		cJSON_GetNumberValue(cJSON_GetObjectItem(v, "round")), cJSON_GetNumberValue(cJSON_GetObjectItem(v, "op_index")),
		cJSON_GetNumberValue(cJSON_GetObjectItem(v, "step")), S(v, "op"));
	fprintf(fp, "    expected: %s\n    found:    %s\n", S(v, "expected"), S(v, "found"));
	if (S(v, "file"))
		fprintf(fp, "    full scenario: %s (%.0f steps, replayed: %s)\n", S(v, "file"),
			cJSON_GetNumberValue(cJSON_GetObjectItem(v, "file_steps")), S(v, "file_replay"));
	if (S(v, "minimized"))
		fprintf(fp, "    minimized:     %s (%.0f steps, replayed: %s)\n", S(v, "minimized"),
			cJSON_GetNumberValue(cJSON_GetObjectItem(v, "minimized_steps")), S(v, "minimized_replay"));
	if (S(v, "minimize_note"))
		fprintf(fp, "    %s\n", S(v, "minimize_note"));
	if (S(v, "reproduce"))
		fprintf(fp, "    reproduce: %s\n", S(v, "reproduce"));
#undef N
#undef S
}

static int write_scenario(const struct stress_cfg *cfg, const char *path, const char *name, const struct stress_viol *v,
			  cJSON *steps)
{
	char desc[2048];
	struct err err;
	snprintf(desc, sizeof(desc),
		 "anonremap stress, seed %" PRIu64 ": the %s invariant broke at the last step. Expected: %s. Found: %s.",
		 cfg->seed, v->kind, v->expected, v->found);
	cJSON *doc = stress_scenario_doc(cfg, name, desc, cJSON_Duplicate(steps, 1));
	int rc = out_to_file(doc, OUT_JSON, path, &err);
	if (rc)
		fprintf(stderr, "anonremap: stress: %s\n", err.msg);
	cJSON_Delete(doc);
	return rc;
}

/* The failing round as files, minimized, replayed; the violation's report. */
static cJSON *report_violation(struct stress_args *a, struct stress_round *rd, long round)
{
	struct stress_cfg *cfg = &a->cfg;
	const struct stress_viol *v = &rd->v;
	cJSON *o = cJSON_CreateObject();
	char full[4096], min[4096], name[64], line[4200];
	const char *dir = a->out_dir ? a->out_dir : ".";
	int idx;

	cJSON_AddStringToObject(o, "invariant", v->kind);
	cJSON_AddStringToObject(o, "op", v->op);
	cJSON_AddNumberToObject(o, "round", round);
	cJSON_AddNumberToObject(o, "op_index", v->op_index);
	cJSON_AddNumberToObject(o, "step", v->step_index);
	cJSON_AddStringToObject(o, "expected", v->expected);
	cJSON_AddStringToObject(o, "found", v->found);
	if (v->detail[0])
		cJSON_AddStringToObject(o, "detail", v->detail);
	cJSON_AddItemToObject(o, "failing_step", cJSON_Duplicate(cJSON_GetArrayItem(rd->steps, v->step_index), 1));
	mkdir(dir, 0777);
	snprintf(full, sizeof(full), "%s/stress-%" PRIu64 ".json", dir, cfg->seed);
	snprintf(min, sizeof(min), "%s/stress-%" PRIu64 "-min.json", dir, cfg->seed);
	cJSON *steps = cJSON_Duplicate(rd->steps, 1);
	stress_fix_final(steps, v);
	snprintf(name, sizeof(name), "stress-%" PRIu64, cfg->seed);
	if (!write_scenario(cfg, full, name, v, steps)) {
		cJSON_AddStringToObject(o, "file", full);
		cJSON_AddNumberToObject(o, "file_steps", cJSON_GetArraySize(steps));
		fprintf(stderr, "anonremap: stress: the failing sequence: %s\n", full);
	}
	const char *st = stress_replay(cfg, steps, &idx);
	char rep[64];
	snprintf(rep, sizeof(rep), "%s at step %d", st, idx);
	cJSON_AddStringToObject(o, "file_replay", idx >= 0 ? rep : st);
	cJSON_Delete(steps);
	snprintf(line, sizeof(line), "anonremap run %s", full);
	if (!a->no_minimize) {
		struct stress_min m;
		fprintf(stderr, "anonremap: stress: minimizing (%d operations)...\n", v->op_index + 1);
		stress_minimize(cfg, rd, &m);
		cJSON_AddNumberToObject(o, "minimize_runs", m.rounds);
		if (m.note[0])
			cJSON_AddStringToObject(o, "minimize_note", m.note);
		snprintf(name, sizeof(name), "stress-%" PRIu64 "-min", cfg->seed);
		if (m.steps && !write_scenario(cfg, min, name, v, m.steps)) {
			cJSON_AddStringToObject(o, "minimized", min);
			cJSON_AddNumberToObject(o, "minimized_steps", cJSON_GetArraySize(m.steps));
			cJSON_AddNumberToObject(o, "minimized_ops", m.nops);
			st = stress_replay(cfg, m.steps, &idx);
			snprintf(rep, sizeof(rep), "%s at step %d", st, idx);
			cJSON_AddStringToObject(o, "minimized_replay", idx >= 0 ? rep : st);
			fprintf(stderr, "anonremap: stress: minimized to %d steps: %s\n", cJSON_GetArraySize(m.steps), min);
			snprintf(line, sizeof(line), "anonremap run %s", min);
		}
		cJSON_Delete(m.steps);
	}
	cJSON_AddStringToObject(o, "reproduce", line);
	fprintf(stderr, "anonremap: stress: reproduce with: %s\n", line);
	return o;
}

int cmd_stress(int argc, char **argv)
{
	static const char stress_doc[] =
		"Run seeded random sequences of mmap, munmap, mprotect, fault (with patterns), madvise "
		"(dontneed, pageout, cold, hugepage, nohugepage, collapse), mremap (grow, shrink, move, any "
		"combination of MAYMOVE, FIXED, DONTUNMAP, RELOCATE_ANON, MUST_RELOCATE_ANON, moves across "
		"several VMAs) and fork in a carveout, and check invariants after every step.\v"
		"Every operation is a scenario step, validated and run as 'anonremap run' would. A model "
		"says what each page holds (unmapped, zero, or a pattern written from a given page) and "
		"what each call answers on this kernel. Checked after every operation: the answer "
		"(success, or an errno documented for that call and those arguments), the mapped pages "
		"and their protection, PROCMAP_QUERY against /proc/PID/maps over the carveout, and the "
		"contents of the pages it changed; every K operations (--check-every) every page is read "
		"back. With the x-ray module loaded (kmod/), after every successful move to a fixed address "
		"with MREMAP_MUST_RELOCATE_ANON or MREMAP_RELOCATE_ANON: the destination VMA's folios are "
		"linear at their new place (folios_linear); not a violation: a RELOCATE_ANON move that fell "
		"back to a plain move, or one that merged ordinarily (the series relocates nothing then). "
		"Without the module, or on a kernel without the flags, the result says this check was "
		"skipped and why. WARNING/BUG/lockdep lines in the kernel log are for scripts/anonremap-vm, "
		"which scans the guest's log. Each round of --round operations runs in a "
		"fresh scenario process. When an invariant breaks, the round is written as "
		"OUT/stress-SEED.json (its last step is the check that failed), minimized by delta "
		"debugging into OUT/stress-SEED-min.json, and both are replayed; 'anonremap run FILE' "
		"reproduces it. The seed is printed on standard error at the start. --break-model is for "
		"tests: the model forgets that MADV_DONTNEED empties pages a mremap moved, so a failure "
		"is bound to come; --xray-all-moves, also for tests, applies the folios_linear check after "
		"every move to a fixed address, which a moved faulted VMA breaks on a kernel without the "
		"series. Exit status: 0 no invariant broke, 1 one broke, 2 usage error, 3 a "
		"scenario process died or hung, or an internal error.";
	struct argp argp = { stress_options, stress_parse, NULL, stress_doc, NULL, NULL, NULL };
	struct stress_args a = { .format = OUT_JSON };
	struct stress_cfg *cfg = &a.cfg;

	cfg->ro.timeout = 30;
	cfg->round_ops = 150;
	cfg->check_every = 1;
	cfg->gen.ops = ((1u << SOP__COUNT) - 1) & ~(1u << SOP_FORK);
	cfg->gen.mflags = 31;
	cfg->gen.advice = (1u << ADV__COUNT) - 1;
	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return EXIT_USAGE;
	if (!a.seed_set) {
		uint64_t r = 0;
		if (getrandom(&r, sizeof(r), 0) != sizeof(r))
			r = (uint64_t)getpid() * 0x9e3779b97f4a7c15ull ^ (uint64_t)(run_now() * 1e9);
		cfg->seed = r & ((1ull << 53) - 1);
	}
	if (!a.steps_set && !(cfg->max_time > 0))
		cfg->max_ops = 1000;
	if (!a.pages_set)
		cfg->pages = cfg->thp ? 2 * (int)(kinfo.pmd_size / kinfo.page_size) : 512;
	if (cfg->fork)
		cfg->gen.ops |= 1u << SOP_FORK;
	cfg->gen.thp = cfg->thp;
	cfg->gen.reclaim = cfg->reclaim;
	cfg->gen.max_forks = 4;
	cfg->ro.max_rss_kb = mem_total_kb() / 2;
	cfg->ro.steps_later = true; /* generated one by one: any may fork */
	cfg->multi_move = probe_multi_move();
	cfg->relocate = feature_get(FEAT_MREMAP_RELOCATE_ANON)->ok;
	cfg->gen.thp_ok = feature_get(FEAT_THP)->ok;
	const struct feature_state *xf = feature_get(FEAT_XRAY), *rf = feature_get(FEAT_MREMAP_RELOCATE_ANON);
	cfg->xray = xf->ok && (cfg->relocate || cfg->xray_all_moves);
	const char *noq = getenv("ANONREMAP_NO_PROCMAP_QUERY");
	cfg->query = feature_get(FEAT_PROCMAP_QUERY)->ok && !force_maps_parse && !(noq && *noq);

	fprintf(stderr, "anonremap: stress: seed %" PRIu64 "\n", cfg->seed);
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (a.trace) {
		struct err terr;
		cfg->trace = out_open_stream(a.trace, &terr);
		if (!cfg->trace) {
			fprintf(stderr, "anonremap: stress: %s\n", terr.msg);
			return EXIT_ERROR;
		}
	}
	cJSON *reclaim = cfg->reclaim ? reclaim_setup(&a) : NULL;
	struct counters *vmc = NULL;
	if (reclaim) { /* did pages really go out to swap, and come back? (vmstat only) */
		vmc = counters_new();
		counters_snapshot(vmc, false);
	}

	struct stress_stats st = { 0 };
	struct stress_round rd = { 0 };
	cJSON *violation = NULL;
	char error[700] = "";
	int rc = EXIT_PASS;
	cfg->t0 = run_now();
	for (long k = 0; !run_interrupted; k++) {
		if ((cfg->max_ops && st.ops >= cfg->max_ops) || (cfg->max_time > 0 && run_now() - cfg->t0 >= cfg->max_time))
			break;
		/* each round its own stream, so a round does not depend on the last one's length */
		struct stress_prng seeder = { cfg->seed ^ (uint64_t)k * 0xd1b54a32d192ed03ull };
		struct stress_gen gen = { { stress_rand(&seeder) }, &cfg->gen };
		long before = st.ops;
		stress_round_run(cfg, &gen, NULL, 0, &st, &rd);
		if (rd.status == ROUND_VIOLATION) {
			double took = run_now() - cfg->t0;
			fprintf(stderr, "anonremap: stress: the %s invariant broke in round %ld, operation %d: expected %s; found %s\n",
				rd.v.kind, k + 1, rd.v.op_index, rd.v.expected, rd.v.found);
			violation = report_violation(&a, &rd, k + 1);
			cfg->t0 = run_now() - took; /* the figures are for the stress run, not the minimizer */
			rc = strcmp(rd.v.kind, "died") ? EXIT_FAIL : EXIT_ERROR;
			stress_round_free(&rd);
			break;
		}
		if (rd.status == ROUND_ERROR) {
			snprintf(error, sizeof(error), "%s", rd.error);
			fprintf(stderr, "anonremap: stress: %s\n", error);
			rc = EXIT_ERROR;
			stress_round_free(&rd);
			break;
		}
		stress_round_free(&rd);
		if (st.ops == before)
			break; /* nothing could be generated: --ops too narrow */
	}
	double dur = run_now() - cfg->t0;
	if (cfg->trace)
		fclose(cfg->trace);
	if (cfg->cgroup[0])
		rmdir(cfg->cgroup);

	cJSON *doc = cJSON_CreateObject();
	cJSON_AddNumberToObject(doc, "anonremap", FORMAT_VERSION);
	cJSON_AddStringToObject(doc, "version", PACKAGE_VERSION);
	cJSON_AddItemToObject(doc, "kernel", kinfo_json(true));
	cJSON *s = cJSON_AddObjectToObject(doc, "stress");
	cJSON_AddNumberToObject(s, "seed", (double)cfg->seed);
	cJSON_AddNumberToObject(s, "pages", cfg->pages);
	cJSON *op = cJSON_AddObjectToObject(s, "options");
	if (cfg->max_ops)
		cJSON_AddNumberToObject(op, "steps", (double)cfg->max_ops);
	if (cfg->max_time > 0)
		cJSON_AddNumberToObject(op, "time", cfg->max_time);
	cJSON_AddNumberToObject(op, "round", cfg->round_ops);
	cJSON_AddNumberToObject(op, "check_every", cfg->check_every);
	cJSON_AddItemToObject(op, "ops", names_json(cfg->gen.ops, stress_kind_names, SOP__COUNT));
	static const char *const mf[] = { "MAYMOVE", "FIXED", "DONTUNMAP", "RELOCATE_ANON", "MUST_RELOCATE_ANON" };
	cJSON_AddItemToObject(op, "flags", names_json(cfg->gen.mflags, mf, 5));
	cJSON_AddItemToObject(op, "advice", names_json(cfg->gen.advice, stress_adv_names, ADV__COUNT));
	cJSON_AddBoolToObject(op, "thp", cfg->thp);
	cJSON_AddBoolToObject(op, "fork", cfg->fork);
	cJSON_AddBoolToObject(op, "reclaim", cfg->reclaim);
	cJSON_AddBoolToObject(op, "break_model", cfg->break_model);
	cJSON_AddBoolToObject(op, "xray_all_moves", cfg->xray_all_moves);
	cJSON *ks = cJSON_AddObjectToObject(s, "kernel_support");
	cJSON_AddBoolToObject(ks, "multi_vma_move", cfg->multi_move);
	cJSON_AddBoolToObject(ks, "mremap_relocate_anon", cfg->relocate);
	cJSON_AddBoolToObject(ks, "thp", cfg->gen.thp_ok);
	cJSON_AddBoolToObject(ks, "procmap_query", cfg->query);
	cJSON_AddBoolToObject(ks, "xray", xf->ok);
	cJSON_AddNumberToObject(s, "rounds", st.rounds);
	cJSON_AddNumberToObject(s, "ops", st.ops);
	cJSON_AddNumberToObject(s, "steps", st.steps);
	cJSON_AddNumberToObject(s, "checks", st.checks);
	cJSON_AddNumberToObject(s, "duration_s", dur);
	cJSON_AddNumberToObject(s, "ops_per_s", dur > 0 ? st.ops / dur : 0);
	cJSON_AddNumberToObject(s, "steps_per_s", dur > 0 ? st.steps / dur : 0);
	cJSON_AddNumberToObject(s, "failed_calls", st.failed_calls);
	cJSON_AddNumberToObject(s, "forks", st.forks);
	cJSON_AddNumberToObject(s, "multi_vma_moves", st.multi_moves);
	cJSON_AddNumberToObject(s, "pageouts", st.pageouts);
	cJSON_AddNumberToObject(s, "verified_pages", st.verified_pages);
	cJSON_AddNumberToObject(s, "unverifiable_pages", st.orphan_pages);
	cJSON *cov = cJSON_AddObjectToObject(s, "coverage");
	cJSON_AddNumberToObject(cov, "pairs", stress_cov_count(&st));
	cJSON_AddItemToObject(cov, "by_pair", stress_cov_json(&st));
	cJSON *inv = cJSON_AddObjectToObject(s, "invariants");
	cJSON_AddStringToObject(inv, "data", "checked: pages a step changed after it, every page every --check-every operations");
	cJSON_AddStringToObject(inv, "mappings", "checked: mapped pages and their r/w protection, after every operation");
	cJSON_AddStringToObject(inv, "vma", cfg->query ? "checked: PROCMAP_QUERY against /proc/PID/maps over the carveout, after every operation"
						     : "not checked: no PROCMAP_QUERY here (before 6.11, or --maps-parse), so both sources are /proc/PID/maps");
	cJSON_AddStringToObject(inv, "syscall", "checked: success, or an errno documented for the call and its arguments");
	char xw[1200];
	if (cfg->xray)
		snprintf(xw, sizeof(xw),
			 "checked: folios_linear on the destination VMA after every successful move to a fixed address %s: "
			 "%ld checks, %ld MREMAP_RELOCATE_ANON moves fell back to a plain move, %ld merged ordinarily",
			 cfg->xray_all_moves ? "(every move: --xray-all-moves)" : "with MREMAP_[MUST_]RELOCATE_ANON",
			 st.xray_checks, st.xray_fallbacks, st.xray_merged);
	else if (!xf->ok)
		snprintf(xw, sizeof(xw), "skipped: folios_linear after a relocating move needs the x-ray: %s%s%s", xf->reason,
			 cfg->relocate ? "" : "; and no move can relocate here: ", cfg->relocate ? "" : rf->reason);
	else
		snprintf(xw, sizeof(xw), "skipped: the x-ray is loaded, but no move can relocate here: %s", rf->reason);
	cJSON_AddStringToObject(inv, "xray", xw);
	cJSON_AddStringToObject(inv, "kernel_log", "not checked by anonremap: scripts/anonremap-vm scans the guest's kernel log "
						   "for WARNING/BUG/Oops/lockdep/KASAN/UBSAN/stall reports (exit 5)");
	cJSON *xo = cJSON_AddObjectToObject(s, "xray");
	cJSON_AddBoolToObject(xo, "checked", cfg->xray);
	cJSON_AddNumberToObject(xo, "checks", st.xray_checks);
	cJSON_AddNumberToObject(xo, "relocate_anon_fallbacks", st.xray_fallbacks);
	cJSON_AddNumberToObject(xo, "ordinary_merges", st.xray_merged);
	cJSON_AddItemToObject(s, "errno_table", stress_errno_table_json());
	if (vmc) {
		cJSON *d = counters_delta_json(vmc);
		cJSON *vs = cJSON_GetObjectItem(d, "vmstat");
		cJSON *po = cJSON_GetObjectItem(vs, "pswpout"), *pi = cJSON_GetObjectItem(vs, "pswpin");
		if (cJSON_IsNumber(po) && cJSON_IsNumber(pi)) {
			cJSON_AddNumberToObject(reclaim, "swapped_out_pages", po->valuedouble);
			cJSON_AddNumberToObject(reclaim, "swapped_in_pages", pi->valuedouble);
		}
		cJSON_Delete(d);
		free(vmc);
	}
	if (reclaim)
		cJSON_AddItemToObject(s, "reclaim", reclaim);
	else
		cJSON_AddNullToObject(s, "reclaim");
	if (violation)
		cJSON_AddItemToObject(s, "violation", violation);
	else
		cJSON_AddNullToObject(s, "violation");
	if (*error)
		cJSON_AddStringToObject(s, "error", error);
	cJSON_AddBoolToObject(s, "interrupted", run_interrupted != 0);
	stress_cov_free(&st);

	if (a.output) {
		if (emit_result(doc, OUT_JSON, a.output))
			rc = EXIT_ERROR;
		if (a.format == OUT_TEXT)
			text(doc, stdout);
	} else if (a.format == OUT_TEXT) {
		text(doc, stdout);
	} else if (out_json(doc, stdout)) {
		rc = EXIT_ERROR;
	}
	if (fflush(stdout))
		rc = EXIT_ERROR;
	cJSON_Delete(doc);
	return rc;
}
