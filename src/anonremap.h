/* SPDX-License-Identifier: GPL-2.0-or-later */
/* anonremap: the one header. Grouped by the file that defines each part. */
#ifndef ANONREMAP_H
#define ANONREMAP_H

#include "config.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <cjson/cJSON.h>

#define FORMAT_VERSION 1

/* Limits: documented in anonremap-scenario(5). */
#define MAX_STEPS 4096
#define MAX_REGIONS 256
#define MAX_TERMS 16
#define MAX_NAME 64
#define MAX_FORKS 16
#define MAX_PROCS (MAX_FORKS + 1) /* main and its forks */
#define MAX_FILE_SIZE (16u << 20)

/* Exit codes of the SPEC. */
enum {
	EXIT_PASS = 0,
	EXIT_FAIL = 1,
	EXIT_USAGE = 2,
	EXIT_ERROR = 3,
	EXIT_SKIP = 4,
};

/* A message buffer for errors that name file, step and field. */
struct err {
	char msg[1024];
};
int err_set(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* kernel.c */
struct kinfo {
	uint64_t page_size, pmd_size, pud_size;
	char release[128];
};
extern struct kinfo kinfo;
void kinfo_init(void);
cJSON *kinfo_json(bool features);
int read_small_file(const char *path, char *buf, size_t len);
int sysfs_bracketed(const char *path, char *out, size_t len);
void json_add_file(cJSON *o, const char *key, const char *path, bool bracketed);
void json_add_thp_file(cJSON *o, const char *key, const char *name, bool bracketed);

/* xlat.c: one table per kind of flag, used to parse and to print. */
struct xlat {
	const char *name;
	uint64_t val;
};
struct xlat_table {
	const char *kind;    /* "mremap flag" */
	const char *prefix;  /* "MREMAP_": optional when parsing */
	const struct xlat *items;
	size_t n;
	bool mask;           /* a bit mask (lists allowed) or a single value */
	uint64_t max;        /* the kernel argument's largest value; 0: 64 bits */
};
extern const struct xlat_table xlat_mmap_prot, xlat_mmap_flags, xlat_mremap_flags,
	xlat_madvise, xlat_prctl, xlat_uffd_mode, xlat_mlock_flags, xlat_mlockall_flags, xlat_uffd_features,
	xlat_uffd_flags, xlat_uffd_copy_flags, xlat_uffd_zeropage_flags, xlat_uffd_move_flags,
	xlat_uffd_continue_flags;
int xlat_lookup(const struct xlat_table *t, const char *name, uint64_t *val);
const char *xlat_name(const struct xlat_table *t, uint64_t val);
cJSON *xlat_json(const struct xlat_table *t, uint64_t val);
void xlat_format(const struct xlat_table *t, uint64_t val, char *buf, size_t len);
const char *xlat_nearest(const struct xlat_table *t, const char *name);
int edit_distance(const char *a, const char *b);
int errno_lookup(const char *name, int *val);
int signal_lookup(const char *name, int *val);
const char *errno_name(int e);
const char *signal_name(int s, char *buf, size_t len);

/* expr.c: sizes and address expressions */
enum term_kind { TERM_NUM, TERM_CARVEOUT, TERM_REGION };
struct term {
	enum term_kind kind;
	bool neg;
	uint64_t num;  /* bytes, for TERM_NUM */
	int region;    /* index into the scenario's region names */
};
struct expr {
	int n;
	struct term t[MAX_TERMS];
};
struct names {
	int n;
	char *name[MAX_REGIONS];
};
int names_intern(struct names *nm, const char *name);
int names_find(const struct names *nm, const char *name);
bool name_valid(const char *name);
/* Parse; symbols are interned in nm, or refused when nm is NULL (a size). */
int expr_parse(const char *s, struct names *nm, struct expr *e, struct err *err);
int size_parse(const char *s, uint64_t *out, struct err *err);
/* The constant part of an expression, in bytes; false when it overflows. */
bool expr_const(const struct expr *e, __int128 *out);
void rel_format(uint64_t addr, uint64_t base, char *buf, size_t len);
void hex_format(uint64_t v, char *buf, size_t len);

/* fields.c: every field a step may carry, with its JSON key and type. */
enum ftype {
	FT_ADDR,    /* address expression */
	FT_SIZE,    /* size expression, no symbols */
	FT_MASK,    /* flags: list of names, a name, a number, "0x18", "a|b" */
	FT_VALUE,   /* a single xlat value or a number */
	FT_NEWNAME, /* binds a region */
	FT_REGION,  /* names a bound region */
	FT_BOOL,
	FT_INT,     /* a JSON integer */
	FT_ERRNO,
	FT_SIGNAL,
	FT_STR,
	FT_ENUM,    /* one of the field's choices */
	FT_ADDR2,   /* [address, address] */
	FT_PATTERN, /* integer seed, string, or "zero" */
	FT_PROC,    /* a process name: main, or one a fork gave */
	FT_VMFLAGS, /* {"has": [...], "lacks": [...]}: kept as "+gu -nr" */
	FT_BYTE,    /* one character, or a number from 0 to 255 */
	FT_RANGES,  /* [[address, size], ...]: i of them, 2 * i expressions in e */
};
enum field_id {
	FLD_NAME, FLD_AT, FLD_LEN, FLD_PROT, FLD_FLAGS, FLD_FILE, FLD_OFFSET,
	FLD_REGION, FLD_ADVICE, FLD_OLD_LEN, FLD_NEW_LEN, FLD_TO, FLD_ACCESS,
	FLD_PATTERN, FLD_OPTION, FLD_VALUE, FLD_LABEL, FLD_SCOPE, FLD_ERRNO,
	FLD_MAY_FAIL, FLD_SIGNAL, FLD_VMA, FLD_START, FLD_END, FLD_SAME_VMA,
	FLD_DIFFERENT_VMA, FLD_VMA_COUNT, FLD_FROM, FLD_MAPPED, FLD_FAULTED,
	FLD_THP, FLD_ANON_HUGE_PAGES, FLD_PGOFF_LINEAR, FLD_FOLIOS_LINEAR, FLD_SAME_ANON_VMA,
	FLD_DIFFERENT_ANON_VMA, FLD_ACTION, FLD_MODE, FLD_FEATURES, FLD_IN, FLD_COMMENT,
	FLD_PERMS, FLD_VM_FLAGS, FLD_PAGES, FLD_RET, FLD_EACH_PAGE, FLD_FILL,
	FLD_KIND, FLD_SIZE,
	FLD_GUARD_SCAN, FLD_VEC, FLD_PIDFD, FLD_SOFT_DIRTY, FLD_ARG3, FLD_ARG4, FLD_ARG5,
	FLD_KSM, FLD_WITHIN_MS,
	FLD__COUNT
};
struct field_def {
	const char *key;
	enum ftype type;
	const char *const *choices; /* FT_ENUM */
	const char *help;
};
extern const struct field_def field_defs[FLD__COUNT];
int field_find(const char *key);

struct fval {
	bool set;
	uint64_t u;        /* masks, values, bools, errno, signal, seed */
	int64_t i;         /* FT_INT */
	char *s;           /* names, strings, enum choice, pattern text */
	struct expr *e;    /* FT_ADDR, FT_SIZE (two for FT_ADDR2) */
};

/* ops.c: the one op table */
struct scenario;
struct step;
struct run;
struct call;
struct reply;
struct op_field {
	enum field_id id;
	bool required;
	const struct xlat_table *xlat; /* FT_MASK / FT_VALUE */
};
struct op_entry {
	const char *name;
	const char *summary;
	const struct op_field *fields; /* ends with id == FLD__COUNT */
	const char *first_word;        /* text form: field of the bare word */
	bool syscall;                  /* records ret, errno, duration_ns */
	bool ret_addr;                 /* returns an address (mmap, mremap) */
	/* static checks beyond field types; may be NULL */
	int (*check)(struct scenario *sc, struct step *st, struct err *err);
	/* true when this step of a ranged op takes no range (userfaultfd api);
	 * may be NULL */
	bool (*rangeless)(const struct step *st);
	/* parent: resolve the step into a call for the scenario process */
	int (*prepare)(struct run *r, struct step *st, struct call *c, cJSON *args, struct err *err);
	/* scenario process: perform the call; NULL for parent-only ops */
	void (*exec)(const struct call *c, struct reply *rep);
	/* parent: after the reply (bindings), or the whole op when exec is NULL;
	 * sres is NULL when a chain foresees the reply (fixed_ret) */
	int (*after)(struct run *r, struct step *st, const struct call *c,
		     const struct reply *rep, cJSON *sres);
	/* what a successful call returns where the call fixes it (MAP_FIXED,
	 * MREMAP_FIXED); may be NULL */
	bool (*fixed_ret)(const struct call *c, int64_t *ret);
};
extern const struct op_entry *const op_table[];
const struct op_entry *op_find(const char *name);
const char *op_nearest(const char *name);
void op_unknown(const char *name, char *buf, size_t len);
const char *field_nearest(const struct op_entry *op, const char *key);
bool op_has_field(const struct op_entry *op, enum field_id id);
const struct op_field *op_field(const struct op_entry *op, enum field_id id);

/* scenario.c */
struct step {
	int index;
	int line;          /* text form: line number, else 0 */
	const struct op_entry *op;
	struct fval f[FLD__COUNT];
	const cJSON *json; /* while loading only: op check hooks read a raw field */
};
enum feature {
	FEAT_PROCMAP_QUERY, FEAT_MREMAP_DONTUNMAP, FEAT_MREMAP_RELOCATE_ANON,
	FEAT_THP, FEAT_KSM, FEAT_USERFAULTFD, FEAT_ROOT, FEAT_MSEAL, FEAT_UPROBE, FEAT_XRAY,
	FEAT_ZERO_PAGE, FEAT_UFFD_MOVE, FEAT_GUARD_REGIONS, FEAT_ANON_PGOFF, FEAT_SOFT_DIRTY, FEAT_MDWE, FEAT_MAP_DROPPABLE,
	FEAT_KSM_RUNNING, FEAT_THP_ALWAYS, FEAT_THP_MADVISE, FEAT_THP_NEVER,
	FEAT_THP_DISABLE_EXCEPT_ADVISED,
	FEAT__COUNT
};
struct scenario {
	char *file;        /* as given, "-" for stdin */
	char *name;
	cJSON *json;       /* the scenario as run */
	uint32_t requires; /* bit per enum feature */
	uint64_t size, align, guard;
	bool fill;          /* carveout.fill: PROT_NONE filler stays after setup */
	bool allow_outside; /* the header's allow_outside, as --allow-outside */
	int nsteps, cap;
	struct step *steps;
	struct names names;
	int forks;         /* fork steps: a run makes a command pipe for each */
	bool is_file[MAX_REGIONS]; /* by name index: a file op made it */
	struct sim *sim;   /* load_opts.keep_sim: the placement, for more steps */
};
struct load_opts {
	bool allow_outside;
	bool allow_dangerous; /* trust.c's refusals off */
	const int *lines;  /* text form: the line of each step, for errors */
	uint64_t guard;    /* 0: per scenario or default */
	bool keep_sim;     /* the shell: scenario_append_step will follow */
};
#define DEFAULT_GUARD (64ull << 20)
#define DEFAULT_PAGES 1024
/* A flag field's JSON as a mask of t's names (for ops whose names depend
 * on another field, e.g. userfaultfd's flags on its action). */
int scenario_parse_mask(const struct xlat_table *t, const cJSON *v, uint64_t *out, struct err *err);
int scenario_load(const char *arg, const struct load_opts *o, struct scenario ***out, int *n, struct err *err);

/* variants.c */
int variants_expand(const char *file, const cJSON *doc, const char *want, cJSON ***out, int *n, struct err *err);
int scenario_from_json(const char *file, cJSON *json, const struct load_opts *o,
		       struct scenario **out, struct err *err);
int scenario_append_step(struct scenario *sc, cJSON *step, const struct load_opts *o, struct err *err);
void scenario_free(struct scenario *sc);
bool scenario_has_tag(const struct scenario *sc, const char *tag);
int json_parse_located(const char *file, const char *buf, size_t len, cJSON **out, struct err *err);
int json_locate_error(const char *s, size_t len, size_t *off, const char **why, size_t *open);
int json_find_duplicate(const char *s, size_t len, size_t *off, size_t *first);
char *scenario_find(const char *name_or_path);
const char *scenario_dir(void);

/* procs.c: the processes of a scenario, by name */
struct procs {
	int n;
	char name[MAX_PROCS][MAX_NAME];
	int parent[MAX_PROCS]; /* index of the forking process; -1 for main */
	bool alive[MAX_PROCS];
};
void procs_init(struct procs *t);
int procs_resolve(const struct procs *t, const char *in, struct err *err);
int procs_fork_name(const struct procs *t, const char *name, char *out, struct err *err);
int procs_add(struct procs *t, int parent, const char *name);
int procs_may_exit(const struct procs *t, int i, struct err *err);

/* textform.c */
int textform_parse_buf(const char *file, char *buf, const struct load_opts *o,
		       struct scenario **out, struct err *err);
int textform_from_args(char **steps, int n, const struct load_opts *o, struct scenario **out, struct err *err);
cJSON *textform_step(const char *line, struct err *err);
int textform_merge_line(cJSON *doc, char *line, struct err *err);

/* features.c */
struct feature_state {
	bool probed, ok;
	char reason[320];
};
extern const char *const feature_names[FEAT__COUNT];
int feature_find(const char *name);
const struct feature_state *feature_get(enum feature f);
cJSON *features_json(bool verbose);

/* vma.c: VMA boundaries from PROCMAP_QUERY, or parsed /proc/PID/maps */
struct vma {
	uint64_t start, end, offset, inode;
	unsigned dev_major, dev_minor;
	char perms[5];
	char *name;
};
struct vma_src {
	pid_t pid;
	int fd;
	bool query;        /* PROCMAP_QUERY works on fd */
	struct vma *cache; /* maps fallback: the parsed file */
	size_t ncache;
	bool cached;
	char *name;        /* PROCMAP_QUERY's name buffer, zeroed once */
};
extern bool force_maps_parse;
long vma_count_all(struct vma_src *s);
int vma_open(struct vma_src *s, pid_t pid);
void vma_close(struct vma_src *s);
void vma_invalidate(struct vma_src *s);
/* 1 found, 0 none, -errno; covering only, or covering-or-next */
int vma_find(struct vma_src *s, uint64_t addr, bool next, struct vma *out);
int vma_list(struct vma_src *s, uint64_t lo, uint64_t hi, struct vma **out, size_t *n);
void vma_free_list(struct vma *v, size_t n);
void vma_clear(struct vma *v);
int maps_parse_fd(int fd, struct vma **out, size_t *n);
#define VMA_DEV_LEN 24
void vma_dev_format(const struct vma *v, char out[VMA_DEV_LEN]);
int maps_parse_buf(const char *buf, size_t len, struct vma **out, size_t *n);
void vma_maps_line(const struct vma *v, char *buf, size_t len);

/* child.c: the scenario process. Messages are fixed-size, below PIPE_BUF. */
enum call_kind { CALL_STEP, CALL_EXIT };
#define VEC_MAX 8 /* ranges a process_madvise step may name */
struct call {
	int kind;
	int op;            /* index in op_table */
	int index;         /* step index */
	uint64_t a[6];
	uint64_t vec[2 * VEC_MAX]; /* process_madvise: base, len of each range */
	int nvec;
	uint64_t seed;
	int access;        /* fault: 0 write, 1 read; verify: 1 zero */
	int has_pattern;
	/* A chain: the next call is already in the pipe. Make it right after
	 * this one, as a selftest would, if this one ends as the step says it
	 * will: ok_sig raised (0: none), ok_err (0 success, N failure with
	 * errno N, -1 either), or ok_any (--keep-going). Else reply
	 * REPLY_NOT_RUN for the rest of the chain. */
	int chain;
	int ok_sig, ok_err, ok_any;
	int each_page;     /* fault, verify: each page touched on its own */
	int fill;          /* fault, verify: 1 + the byte of "fill"; 0: none */
};
/* REPLY_NONE: nothing is sent (the parent of a fork: its child replies) */
enum reply_kind { REPLY_READY, REPLY_STEP, REPLY_CHILD_EXIT, REPLY_NOT_RUN, REPLY_NONE };
struct reply {
	int kind;
	int index;
	int64_t ret;
	int err;
	uint64_t ns;
	uint64_t getpid_ns; /* median of empty getpid()s timed as ns was; 0: none */
	int signo, si_code;
	uint64_t sigaddr;
	pid_t pid;
	int status;        /* REPLY_CHILD_EXIT: wait status */
	uint64_t extra;    /* verify: first bad byte offset + 1, or 0 */
	uint64_t unraised; /* each_page: offset + 1 of a page that raised no signal when another did */
	uint64_t nraised;  /* each_page: pages that raised a signal */
	uint64_t base;     /* REPLY_READY: carveout start */
};
struct child_cfg {
	uint64_t size, align, guard;
	bool fill;
	int cmd_fd, rep_fd;
	int bell_fd;       /* a byte written when a chain of calls is done */
	uint64_t max_file; /* RLIMIT_FSIZE of the scenario's files (0: none) */
	const int *fork_fds; /* the read ends of the command pipes of the forks to come */
	int nfork_fds;
};
void child_main(const struct child_cfg *cfg) __attribute__((noreturn));
void child_touch(const struct call *c, struct reply *rep);
void child_fork(const struct call *c, struct reply *rep);
bool outcome_expected(const struct call *c, const struct reply *rep);
#define OK_ERR_ANY (-2) /* call.ok_err of "errno": "any": it must fail */
uint64_t now_ns(void);

/* op-file.c: the scenario process's named files */
int file_fd(int idx);
int file_make(bool memfd, const char *name, uint64_t size);

/* op-uprobe.c */
int uprobe_file_fd(void);

/* run.c: the parent side of one scenario */
struct binding {
	bool set;
	uint64_t addr, len;
};
struct run_opts {
	double timeout;
	uint64_t max_rss_kb;   /* the watchdog kills a scenario process above it */
	bool xray;             /* dumps carry the x-ray module's view */
	bool keep_going;
	bool all_vmas;
	bool allow_outside;
	bool steps_later;      /* shell: steps arrive one by one, any may dump */
	bool verdicts_only;    /* run -f ktap without -R: nothing shows a dump */
};
#define CHAIN_MAX 32 /* calls in one chain: one write, within PIPE_BUF */
/* One scenario process as anonremap sees it. The carveout is at the same
 * address in all: a fork copies the address space. */
struct proc {
	pid_t pid;
	int cmd_fd;            /* anonremap's write end of its command pipe */
	int cmd_rd;            /* the read end's number, in the scenario processes */
	struct vma_src vs;     /* its /proc/PID/maps (or PROCMAP_QUERY) */
	struct binding bind[MAX_REGIONS]; /* a fork copies its parent's */
	char end[96];          /* how it ended, once it has */
};
struct run {
	struct scenario *sc;
	const struct run_opts *opts;
	struct procs procs;    /* names, parents, alive */
	struct proc *proc;     /* [MAX_PROCS], by the index in procs */
	struct proc *cur;      /* the process of the step in its turn */
	int ncmd;              /* command pipes made: 1 + the forks that may come */
	pid_t first_pid, pgid;
	int rep_fd;
	uint64_t base, size, guard;
	struct counters *ctr;  /* at the scenario's start */
	cJSON *res, *steps, *dumps, *expects;
	int failed;            /* failed expectations */
	int wr;                /* enum wait_result of the last wait */
	double deadline;
	const char *final, *reason;
	char why[512], rbuf[700];
	long rss_killed;       /* the watchdog killed it at this RSS (kB) */
	bool stop;             /* a failed step ends the scenario */
	/* Steps [ahead_lo, ahead_hi) went to the scenario process as one chain
	 * (struct call), prepared ahead of their turn; their replies come in
	 * as usual, and bell_fd is readable once the whole chain is done. */
	int bell_fd;
	bool bell_pending;
	int ahead_base, ahead_lo, ahead_hi; /* ahead[k - ahead_base] is step k's */
	struct call ahead[CHAIN_MAX];
	cJSON *ahead_args[CHAIN_MAX];
};
int run_resolve(struct run *r, const struct step *st, enum field_id id, uint64_t *out, struct err *err);
int run_check_range(struct run *r, const struct step *st, enum field_id id, uint64_t addr, uint64_t len,
		    struct err *err);
int run_range(struct run *r, const struct step *st, uint64_t *addr, uint64_t *len, bool len_required,
	      uint64_t def_len, struct err *err);
void run_addr_json(struct run *r, cJSON *obj, const char *key, uint64_t addr);
cJSON *run_scenario(struct scenario *sc, const struct run_opts *o, int *status);
struct run *run_begin(struct scenario *sc, const struct run_opts *o, cJSON **res);
int run_step(struct run *r, int i, cJSON **sres);
int run_end(struct run *r);
int run_exit(struct run *r, cJSON *sres);
const char *run_proc_name(const struct run *r);
double run_now(void);
extern volatile int run_interrupted;
const char *region_of(struct run *r, uint64_t start, uint64_t end, cJSON **list);

/* pagemap.c: one pread per range; kpageflags where readable */
#define PM_PRESENT (1ull << 63)
#define PM_SWAP (1ull << 62)
#define PM_FILE_SHARED (1ull << 61)
#define PM_GUARD_REGION (1ull << 58) /* Linux 6.15+: a MADV_GUARD_INSTALL marker */
#define PM_EXCLUSIVE (1ull << 56)
#define PM_SOFT_DIRTY (1ull << 55)
#define PM_PFN_MASK ((1ull << 55) - 1)
int pagemap_read(pid_t pid, uint64_t addr, uint64_t npages, uint64_t *out);
struct page_region;
int pagemap_scan(pid_t pid, uint64_t start, uint64_t end, struct page_region *out, size_t n, uint64_t *walk_end);
int pagemap_scan_guard(pid_t pid, uint64_t start, uint64_t end, struct page_region *out, size_t n, uint64_t *walk_end);
void pagemap_close(void);
int kpageflags_read(uint64_t pfn, uint64_t *flags);
int kpageflags_read_range(uint64_t pfn, uint64_t n, uint64_t *flags);

/* smaps.c */
/* One parsed smaps entry; sizes in kB as the kernel prints them. */
struct smaps_entry {
	uint64_t start, end;
	uint64_t rss, anon, anon_huge, swap, locked;
	int thp_eligible;  /* -1: no THPeligible line */
	char vm_flags[128];
};
struct smaps_table;
int smaps_parse_buf(const char *buf, size_t len, struct smaps_entry **out, size_t *n);
/* read in chunks, up to the first entry at or above stop_at */
int smaps_parse_fd(int fd, uint64_t stop_at, struct smaps_entry **out, size_t *n);
struct smaps_table *smaps_load(pid_t pid, uint64_t hi, struct err *err);
void smaps_free(struct smaps_table *t);
void smaps_entry_json(const struct smaps_entry *e, cJSON *v);
struct smaps_stream;
struct smaps_stream *smaps_stream_start(pid_t pid, struct err *err);
bool smaps_stream_get(struct smaps_stream *s, uint64_t start, struct smaps_entry *out);
struct smaps_table *smaps_stream_finish(struct smaps_stream *s, bool want, struct err *err);
const struct smaps_entry *smaps_find(const struct smaps_table *t, uint64_t start);

/* counters.c: libproc2 */
struct counters;
struct counters *counters_new(void);
void counters_snapshot(struct counters *c, bool slab);
cJSON *counters_delta_json(const struct counters *base);
cJSON *process_totals_json(pid_t pid);
long pgrp_rss_kb(pid_t pgid);
long counters_oom_kills(const struct counters *base);
unsigned long mem_total_kb(void);

/* dump.c */
struct dump_opts {
	bool smaps, pagemap;
	bool smaps_thread;  /* read smaps beside the walk (maps PID: many VMAs) */
	struct run *run;   /* adds carveout-relative addresses and regions */
	long *process_vmas; /* out: the process's VMA count (the lines of /proc/PID/maps) */
	bool xray;          /* add each VMA's x-ray record */
	cJSON *xray_status; /* out, when xray: {available, why} */
	cJSON *non_merges;  /* out, when set: adjacent VMAs that did not merge, and why */
};
/* Where vmas_walk puts each VMA: begin (optional) learns the count first;
 * vma owns the object it is given. A non-zero return (-errno) stops the walk. */
struct vma_sink {
	int (*begin)(void *ctx, size_t count);
	int (*vma)(void *ctx, cJSON *vma);
	void *ctx;
	/* vma only prints and deletes what it is given: its strings may point
	 * into a buffer the next VMA reuses, and some are raw JSON */
	bool print_only;
};
int vmas_walk(struct vma_src *vs, const struct dump_opts *o, uint64_t lo, uint64_t hi, const struct vma_sink *sink,
	      struct err *err);
cJSON *vmas_json(struct vma_src *vs, const struct dump_opts *o, uint64_t lo, uint64_t hi, struct err *err);
cJSON *dump_vmas(struct run *r, uint64_t lo, uint64_t hi, long *process_vmas, cJSON *xray_status, cJSON *non_merges,
		 struct err *err);
const char *kpageflags_status(void);
/* pages_state of [start, end), one letter a page (no run-length encoding) */
char *pages_letters(pid_t pid, uint64_t start, uint64_t end, int *err);
char *pages_runs(const char *letters);

/* expect.c */
int expect_eval(struct run *r, struct step *st, cJSON *exp, struct err *err);
#define PAGES_MAX (1u << 20) /* pages a pages check may name */
char *pages_pattern(const char *s, struct err *err);

/* report.c */
void report_enrich(cJSON *doc, int argc, char **argv);
char *report_summary(cJSON *doc);

/* compare.c */
struct compare_opts {
	bool timing;
	double tolerance;  /* fraction, for duration_ns */
};
cJSON *compare_scenarios(cJSON *a, cJSON *b, const struct compare_opts *o);
cJSON *compare_features(cJSON *a, cJSON *b);
int result_load(const char *path, cJSON **out, struct err *err);
int result_parse_buf(const char *name, const char *buf, size_t len, cJSON **out, struct err *err);
/* result-schema.c: every field the readers use has the type they expect */
int result_check(const char *file, const cJSON *doc, struct err *err);
void print_diffs(FILE *fp, cJSON *diffs, const char *la, const char *lb);
/* cmd-diff.c: two dumps' VMAs side by side, in address order */
void diff_side_by_side(FILE *fp, cJSON *da, cJSON *db);

/* output: out-json.c, out-text.c, out-ktap.c */
enum out_format { OUT_JSON, OUT_TEXT, OUT_KTAP };
int out_write(cJSON *doc, enum out_format f, FILE *fp);
int out_json(cJSON *doc, FILE *fp);
/* A JSON object whose last key holds a long array, written an element at a
 * time: the head's keys pretty-printed, each element compact on its own line. */
struct json_stream {
	FILE *fp;
	size_t count;
	char *buf;
	size_t cap;
};
int json_stream_begin(struct json_stream *s, cJSON *head, const char *array_key, FILE *fp);
int json_stream_item(struct json_stream *s, cJSON *item); /* may rewrite item's numbers */
int json_stream_end(struct json_stream *s);
int out_text(cJSON *doc, FILE *fp);
void out_text_step(FILE *fp, cJSON *step, cJSON *expects);
void out_text_dump(FILE *fp, cJSON *dump);
int out_ktap(cJSON *doc, FILE *fp);
int out_to_file(cJSON *doc, enum out_format f, const char *path, struct err *err);
int out_target(const char *path, bool *in_place, char **real, struct err *err);
FILE *out_open_stream(const char *path, struct err *err);

/* util.c */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xreallocarray(void *p, size_t n, size_t m);
char *xstrdup(const char *s);
FILE *xopen_memstream(char **buf, size_t *len);

/* matrix.c: the merge matrix's axes, cases, scenarios and outcomes */
enum { MX_OP, MX_TARGET, MX_PREV, MX_NEXT, MX_PLACEMENT, MX_AXES };
struct matrix_case {
	int v[MX_AXES]; /* an index into each axis's values */
};
extern const char *const matrix_axis_names[MX_AXES];
extern const char *const *const matrix_axis_values[MX_AXES];
bool matrix_case_valid(const struct matrix_case *c);
void matrix_case_id(const struct matrix_case *c, char *buf, size_t len);
cJSON *matrix_scenario(const struct matrix_case *c, int *op_step);
/* gen.c: a generated step's fields, as an author writes them */
void gen_pages(cJSON *s, const char *key, long pages);                    /* "12p" */
void gen_at(cJSON *s, const char *key, const char *region, long pages); /* "heap+4p" */
void gen_flags(cJSON *s, const char *const *names);                      /* ["MAYMOVE", ...] */
cJSON *matrix_outcome(const struct matrix_case *c, const cJSON *res, int op_step);
cJSON *matrix_compare(const cJSON *A, const cJSON *B);

/* workload-art.c: the art-gc workload's scenario a strategy, and its cycles
 * read from a run of it */
enum { WL_ART, WL_NO_WORKAROUND, WL_RELOCATE, WL_UFFD_MOVE, WL_NSTRATEGIES };
#define WL_MAX_CHUNKS 64
struct wl_params {
	long heap_pages; /* a whole number of PMDs, at least 2 */
	double live;     /* the live fraction of the used part */
	int cycles, chunks;
};
extern const char *const wl_strategy_names[WL_NSTRATEGIES];
const char *wl_strategy_describe(int strategy);
cJSON *wl_art_scenario(const struct wl_params *p, int strategy);
cJSON *wl_art_cycles(const cJSON *result, long chunk_pages);

/* escape.c: someone else's strings, safe to print as text or KTAP */
const char *esc_text(const char *s);
const char *esc_ktap_name(const char *s);
void esc_release(void);

/* trust.c: calls refused unless --allow-dangerous */
int trust_check(const struct step *st, bool allow_dangerous, struct err *err);
char *read_fd_all(int fd, size_t max, size_t *len, struct err *err);
int read_full(int fd, void *buf, size_t len);
int write_full(int fd, const void *buf, size_t len);
size_t scan_hex(const char **p, const char *end, uint64_t *v);
size_t scan_dec(const char **p, const char *end, uint64_t *v);

/* opts.c: options shared by the commands */
struct proc_opts {
	struct run_opts ro;
	struct load_opts lo;
};
struct argp;
struct argp_state;
extern const struct argp proc_argp;
int format_option(struct argp_state *state, const char *arg, enum out_format *f, bool ktap_ok);
#define NAME_NOCASE 1u /* name_list_option: match without case */
unsigned name_list_option(struct argp_state *state, const char *opt, const char *arg, const char *const *names,
			  int n, unsigned how, const char *prefix);
int timing_option(struct argp_state *state, const char *arg, struct compare_opts *co);
const char *output_file_arg(struct argp_state *state, const char *opt, const char *arg);
int result_file_arg(struct argp_state *state, int key, const char *arg, const char **file);

/* commands: cmd-*.c */
int cmd_run(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_maps(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_shell(int argc, char **argv);
int cmd_names(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_stress(int argc, char **argv);
int cmd_matrix(int argc, char **argv);
int cmd_workload(int argc, char **argv);
char *ops_help(int key, const char *text, void *input);
struct command {
	const char *name;
	int (*fn)(int, char **);
	const char *summary;
};
extern const struct command commands[];
const char *command_name(int i);
int parse_format(const char *arg, enum out_format *f);
cJSON *result_new(bool features);
int result_finish(cJSON *doc);
int emit_result(cJSON *doc, enum out_format f, const char *output);
extern const char *argp_program_version;

/* xray.c: the optional anonremap_xray kernel module's view of VMAs and
 * folios (kmod/README has the record format). Identities are keyed hashes of
 * kernel pointers: equal means the same object, within one module load. */
#define XRAY_DIR "/sys/kernel/debug/anonremap-xray"
#define XRAY_DATA XRAY_DIR "/data"
struct xray_folio {
	uint64_t addr;         /* the first page of this run of one folio */
	uint64_t nr;           /* pages of the folio mapped from addr on */
	uint64_t index;        /* folio->index */
	uint64_t subpage;      /* which page of the folio is mapped at addr */
	uint64_t linear_index; /* vm_pgoff + (addr - vm_start) / page size */
	uint64_t addr_index;   /* addr / page size: an unmoved VMA's index */
	uint64_t anon_vma;     /* identity of folio->mapping's anon_vma */
	bool has_anon_vma;
	unsigned order;
	bool ksm, large;
};
struct xray_vma {
	uint64_t start, end, pgoff, flags, page_size;
	bool has_anon_pgoff;   /* Linux 7.3 and later: vma_start_anon_pgoff() */
	uint64_t anon_pgoff;
	char vmflags[160];     /* smaps VmFlags mnemonics, comma-separated */
	bool has_anon_vma;
	uint64_t anon_vma, anon_vma_root, chain_len;
	bool uffd;
	uint64_t uffd_ctx;
	bool has_file;
	uint64_t file;
	bool mpol;
	char folios_walk[32];  /* walked, not_requested, no_anon_vma, hugetlb, io_pfnmap */
	bool walked;
	uint64_t present, anon, zero, other; /* pages the walk found */
	struct xray_folio *folios;
	size_t nfolios, folios_cap;
};
int xray_available(char *why, size_t len);
int xray_read(pid_t pid, uint64_t lo, uint64_t hi, bool folios, struct xray_vma **out, size_t *n,
	      char *why, size_t len);
int xray_parse_fd(int fd, struct xray_vma **out, size_t *n, char *why, size_t len);
int xray_parse_buf(const char *buf, size_t blen, struct xray_vma **out, size_t *n, char *why, size_t len);
void xray_free(struct xray_vma *v, size_t n);
const struct xray_vma *xray_find(const struct xray_vma *v, size_t n, uint64_t addr);
bool xray_pgoff_linear(const struct xray_vma *v);
bool xray_folio_linear(const struct xray_vma *v, const struct xray_folio *f);
bool xray_folios_linear(const struct xray_vma *v);
cJSON *xray_vma_json(const struct xray_vma *v);
int xray_explain(const struct xray_vma *a, const struct xray_vma *b, char *buf, size_t len);

#endif
