/* SPDX-License-Identifier: GPL-2.0-or-later */
/* anonremap stress: the parts shared by cmd-stress.c and the stress-*.c files
 * (generator, model, errno table, checks, rounds, minimizer). */
#ifndef STRESS_H
#define STRESS_H

#include "anonremap.h"

/* Operations the generator makes; each is exactly one scenario step. */
enum stress_kind { SOP_MMAP, SOP_MUNMAP, SOP_MPROTECT, SOP_MADVISE, SOP_MREMAP, SOP_FAULT, SOP_FORK, SOP__COUNT };
enum stress_adv { ADV_DONTNEED, ADV_PAGEOUT, ADV_COLD, ADV_HUGEPAGE, ADV_NOHUGEPAGE, ADV_COLLAPSE, ADV__COUNT };
enum stress_mmapk { MMK_FIXED, MMK_NOREPLACE, MMK_POPULATE, MMK_NORESERVE, MMK__COUNT };
extern const char *const stress_kind_names[SOP__COUNT];
extern const char *const stress_adv_names[ADV__COUNT];
extern const char *const stress_mmapk_names[MMK__COUNT];

/* Page numbers are relative to the carveout. */
struct stress_op {
	int kind;
	int a, n;        /* start, length (old length for mremap) */
	int new_n, t;    /* mremap: new length; target, or -1 */
	unsigned flags;  /* mremap flags; mmap: enum stress_mmapk */
	int prot;        /* mmap, mprotect: PROT_READ | PROT_WRITE bits */
	int advice;      /* enum stress_adv */
	int access;      /* fault: 0 write the pattern, 1 read */
	uint32_t seed;   /* fault: the pattern */
};

/* What the model says the kernel will answer. */
enum stress_pk { PRED_OK, PRED_ERRNO, PRED_MAYFAIL, PRED_UNSAFE };
struct stress_pred {
	int kind;
	int err;             /* PRED_ERRNO */
	uint64_t allowed;    /* PRED_MAYFAIL: bit per errno */
	bool soft;           /* write may_fail, though the errno is certain on this kernel */
	bool resync;         /* on failure, pages the kernel unmapped become holes */
	const char *why;     /* the rule, in words */
};

struct stress_page {
	uint8_t mapped, prot, thp, zero, moved;
	uint32_t seed;       /* pattern, when !zero */
	int32_t start;       /* the page the pattern's range started at */
	uint32_t vid;        /* equal vid: certainly one VMA */
};

struct stress_model {
	int n;
	struct stress_page *pg;
	uint8_t *dirty;      /* content changed since the last check */
	uint32_t next_vid;
	bool multi_move;     /* the kernel moves ranges of several VMAs (6.17+) */
	bool relocate;       /* the kernel knows MREMAP_[MUST_]RELOCATE_ANON */
	bool break_model;    /* --break-model */
	int forks;
};

/* stress-model.c */
void stress_model_init(struct stress_model *m, int npages, bool multi_move, bool relocate, bool break_model);
void stress_model_free(struct stress_model *m);
void stress_predict(const struct stress_model *m, const struct stress_op *op, struct stress_pred *p);
void stress_apply(struct stress_model *m, const struct stress_op *op, bool failed);
void stress_resync(struct stress_model *m, const struct stress_op *op, const uint8_t *kmapped);
bool stress_single_vma(const struct stress_model *m, int a, int n);
bool stress_all(const struct stress_model *m, int a, int n, int prot);
bool stress_any_hole(const struct stress_model *m, int a, int n);
uint64_t stress_pattern_word(uint64_t seed, uint64_t i);

/* stress-errno.c: the errnos documented for each call */
#define ERRBIT(e) ((e) > 0 && (e) < 64 ? 1ull << ((e) & 63) : 0) /* errnos above 63 (EOVERFLOW) are not tracked */
uint64_t stress_documented(const struct stress_op *op, bool relocate);
void stress_errnos_format(uint64_t set, char *buf, size_t len);
cJSON *stress_errno_table_json(void);

/* stress-gen.c */
struct stress_prng {
	uint64_t s;
};
uint64_t stress_rand(struct stress_prng *p);
int stress_below(struct stress_prng *p, int n);
struct stress_gen_cfg {
	unsigned ops;        /* bit per enum stress_kind */
	unsigned mflags;     /* mremap flags the generator may use */
	unsigned advice;     /* bit per enum stress_adv */
	bool thp, reclaim, thp_ok;
	int max_forks;
};
struct stress_gen {
	struct stress_prng prng;
	const struct stress_gen_cfg *cfg;
};
bool stress_gen_next(struct stress_gen *g, const struct stress_model *m, struct stress_op *op);
cJSON *stress_op_json(const struct stress_op *op, const struct stress_pred *p);
void stress_op_key(const struct stress_op *op, char *buf, size_t len);
void stress_pages_str(int p, char *buf, size_t len);

/* stress-run.c: one round, one scenario process */
struct stress_cfg {
	uint64_t seed;
	long max_ops;        /* --steps; 0 none */
	double max_time;     /* --time; 0 none */
	int round_ops, check_every, pages;
	bool thp, fork, reclaim, break_model;
	struct stress_gen_cfg gen;
	struct run_opts ro;
	bool multi_move, relocate, query;
	bool xray;           /* invariant 4 runs: the x-ray is loaded, and relocating moves exist (or --xray-all-moves) */
	bool xray_all_moves; /* test only: invariant 4 after every move to a fixed address */
	char cgroup[512];    /* the parent cgroup of the scenario processes' own, or "" */
	uint64_t cgroup_high;
	FILE *trace;
	double t0;
};
struct stress_cov;
struct stress_stats {
	long ops, steps, checks, rounds, verified_pages, orphan_pages, pageouts, forks;
	long failed_calls;
	long multi_moves;    /* successful moves of ranges that were not certainly one VMA */
	long xray_checks;    /* invariant 4 checks run */
	long xray_fallbacks; /* MREMAP_RELOCATE_ANON moves left non-linear: the flag fell back to a plain move */
	long xray_merged;    /* relocating moves that merged ordinarily (the series relocates nothing then) */
	struct stress_cov *cov;
};
/* A broken invariant: kind is data, mapped, prot, vma, syscall, xray, signal or died. */
struct stress_viol {
	char kind[16], op[16];
	int op_index, step_index;
	char expected[640], found[640];
	char detail[256];
	char status[16];     /* the failing step's status: failed, unexpected, died, ... */
};
enum { ROUND_DONE, ROUND_VIOLATION, ROUND_UNRESOLVED, ROUND_ERROR };
struct stress_round {
	int status;
	struct stress_viol v;
	cJSON *steps;            /* every step run, in order */
	struct stress_op *ops;   /* the operations (without the checks) */
	int nops, cap;
	char error[640];
};
/* Invariant 4's verdict on the destination VMA v (NULL: none) of a move of
 * [to, end) made with the flags (MREMAP_*): holds, a RELOCATE_ANON fallback
 * or an ordinary merge (not violations, as the series says), or broken. */
enum stress_reloc { RELOC_LINEAR, RELOC_FALLBACK, RELOC_MERGED, RELOC_BROKEN };
enum stress_reloc stress_relocate_verdict(const struct xray_vma *v, uint64_t to, uint64_t end, unsigned flags);
int stress_round_run(const struct stress_cfg *cfg, struct stress_gen *gen, const struct stress_op *replay,
		     int nreplay, struct stress_stats *st, struct stress_round *out);
void stress_round_free(struct stress_round *rd);
cJSON *stress_scenario_doc(const struct stress_cfg *cfg, const char *name, const char *desc, cJSON *steps);
void stress_cov_add(struct stress_stats *st, const char *key, bool failed);
cJSON *stress_cov_json(const struct stress_stats *st);
int stress_cov_count(const struct stress_stats *st);
void stress_cov_free(struct stress_stats *st);

/* stress-min.c: delta debugging */
struct stress_min {
	cJSON *steps;        /* the minimized scenario's steps */
	int nops, rounds;    /* operations kept; candidate runs */
	bool reproduced;     /* the full sequence failed again in a fresh process */
	char note[256];
};
void stress_minimize(const struct stress_cfg *cfg, const struct stress_round *rd, struct stress_min *out);
void stress_fix_final(cJSON *steps, const struct stress_viol *v);
const char *stress_replay(const struct stress_cfg *cfg, cJSON *steps, int *fail_index);

#endif
