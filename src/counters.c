/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Kernel counters through libproc2: system-wide vmstat and slab deltas, and
 * one process's totals (smaps_rollup and status). */
#include "anonremap.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <libproc2/meminfo.h>
#include <libproc2/pids.h>
#include <libproc2/slabinfo.h>
#include <libproc2/vmstat.h>

/* The THP and migration counters a merge or a move can touch. */
static const struct {
	const char *key;
	enum vmstat_item item;
} vm_items[] = {
	{ "thp_fault_alloc", VMSTAT_THP_FAULT_ALLOC },
	{ "thp_fault_fallback", VMSTAT_THP_FAULT_FALLBACK },
	{ "thp_split_pmd", VMSTAT_THP_SPLIT_PMD },
	{ "thp_split_page", VMSTAT_THP_SPLIT_PAGE },
	{ "thp_collapse_alloc", VMSTAT_THP_COLLAPSE_ALLOC },
	{ "thp_deferred_split_page", VMSTAT_THP_DEFERRED_SPLIT_PAGE },
	{ "pgmigrate_success", VMSTAT_PGMIGRATE_SUCCESS },
	{ "pgmigrate_fail", VMSTAT_PGMIGRATE_FAIL },
	{ "pgfault", VMSTAT_PGFAULT },
	{ "pswpout", VMSTAT_PSWPOUT },
	{ "pswpin", VMSTAT_PSWPIN },
	{ "oom_kill", VMSTAT_OOM_KILL },
};
#define NVM (sizeof(vm_items) / sizeof(vm_items[0]))

/* The caches whose object counts the relocate series exists to cut. */
static const char *const slab_names[] = { "vm_area_struct", "anon_vma", "anon_vma_chain" };
#define NSLAB 3

struct counters {
	bool vm_ok, slab_ok;
	unsigned long vm[NVM];
	unsigned long slab[NSLAB];
	char slab_why[96];
};

/* One libproc2 handle of each kind for the whole invocation. A new handle
 * reads its file once to set itself up, and reading through it is a second
 * read: /proc/slabinfo alone costs about half a millisecond here, so
 * each snapshot reads each file once, through these. select and reap always
 * read afresh (VMSTAT_GET on a kept handle would serve a copy up to a second
 * old, so it is not used). */
static struct vmstat_info *vm_info;
static struct slabinfo_info *slab_info;
static struct pids_info *totals_info, *grp_info;
static bool slab_tried;
static int slab_errno;     /* why procps_slabinfo_new failed */

static void counters_release(void)
{
	if (vm_info)
		procps_vmstat_unref(&vm_info);
	if (slab_info)
		procps_slabinfo_unref(&slab_info);
	if (totals_info)
		procps_pids_unref(&totals_info);
	if (grp_info)
		procps_pids_unref(&grp_info);
}

static void release_at_exit(void)
{
	static bool registered;
	if (!registered)
		atexit(counters_release);
	registered = true;
}

struct counters *counters_new(void)
{
	return xcalloc(1, sizeof(struct counters));
}

static bool vmstat_read(unsigned long *out)
{
	enum vmstat_item items[NVM];

	release_at_exit();
	if (!vm_info && procps_vmstat_new(&vm_info) < 0) {
		vm_info = NULL;
		return false;
	}
	for (size_t i = 0; i < NVM; i++)
		items[i] = vm_items[i].item;
	struct vmstat_stack *st = procps_vmstat_select(vm_info, items, NVM);
	if (!st)
		return false;
	for (size_t i = 0; i < NVM; i++)
		out[i] = VMSTAT_VAL(i, ul_int, st, vm_info);
	return true;
}

static void slab_read(struct counters *c)
{
	c->slab_ok = false;
	release_at_exit();
	if (!slab_tried) {
		int rc = procps_slabinfo_new(&slab_info);
		slab_tried = true;
		if (rc < 0) {
			slab_errno = -rc > 0 ? -rc : errno;
			slab_info = NULL;
		}
	}
	if (!slab_info) {
		snprintf(c->slab_why, sizeof(c->slab_why), "/proc/slabinfo unreadable: %s (root only)",
			 errno_name(slab_errno));
		return;
	}
	enum slabinfo_item items[] = { SLAB_NAME, SLAB_ACTIVE_OBJS };
	struct slabinfo_reaped *r = procps_slabinfo_reap(slab_info, items, 2);
	if (!r) {
		snprintf(c->slab_why, sizeof(c->slab_why), "/proc/slabinfo unreadable: %s (root only)",
			 errno_name(errno));
		return;
	}
	int found = 0;
	for (int i = 0; i < r->total; i++) {
		const char *name = SLABINFO_VAL(0, str, r->stacks[i], slab_info);
		for (int k = 0; k < NSLAB; k++)
			if (name && !strcmp(name, slab_names[k])) {
				c->slab[k] = SLABINFO_VAL(1, u_int, r->stacks[i], slab_info);
				found++;
			}
	}
	c->slab_ok = found == NSLAB;
	if (!c->slab_ok)
		snprintf(c->slab_why, sizeof(c->slab_why), "caches merged away by the slab allocator");
}

/* vmstat always (the OOM-kill cause needs it); the slab caches only when
 * asked: a scenario without a dump never shows them. */
void counters_snapshot(struct counters *c, bool slab)
{
	c->vm_ok = vmstat_read(c->vm);
	if (slab) {
		slab_read(c);
	} else {
		c->slab_ok = false;
		snprintf(c->slab_why, sizeof(c->slab_why), "no baseline was taken");
	}
}

/* Deltas since base, labelled system-wide: other processes move them too. */
cJSON *counters_delta_json(const struct counters *base)
{
	struct counters now;
	cJSON *o = cJSON_CreateObject();

	/* no slabinfo read when the baseline already failed: the answer is known */
	counters_snapshot(&now, base->slab_ok);
	cJSON_AddStringToObject(o, "scope", "system-wide, since the scenario started");
	cJSON *vm = cJSON_AddObjectToObject(o, "vmstat");
	if (base->vm_ok && now.vm_ok)
		for (size_t i = 0; i < NVM; i++)
			cJSON_AddNumberToObject(vm, vm_items[i].key, (double)(long)(now.vm[i] - base->vm[i]));
	else
		cJSON_AddStringToObject(o, "vmstat_error", "/proc/vmstat unreadable");
	cJSON *sl = cJSON_AddObjectToObject(o, "slab_active_objs");
	if (base->slab_ok && now.slab_ok)
		for (int k = 0; k < NSLAB; k++)
			cJSON_AddNumberToObject(sl, slab_names[k], (double)(long)(now.slab[k] - base->slab[k]));
	else
		cJSON_AddStringToObject(o, "slab_error", base->slab_ok ? now.slab_why : base->slab_why);
	return o;
}

/* Rss, Anonymous, AnonHugePages (smaps_rollup) and VmSize (status), in kB. */
cJSON *process_totals_json(pid_t pid)
{
	enum pids_item items[] = { PIDS_SMAP_RSS, PIDS_SMAP_ANONYMOUS, PIDS_SMAP_HUGE_ANON, PIDS_VM_SIZE };
	cJSON *o = cJSON_CreateObject();
	unsigned p = pid;

	release_at_exit();
	if (!totals_info && procps_pids_new(&totals_info, items, 4) < 0) {
		totals_info = NULL;
		cJSON_AddStringToObject(o, "error", "libproc2: cannot read /proc");
		return o;
	}
	struct pids_info *pi = totals_info;
	struct pids_fetch *f = procps_pids_select(pi, &p, 1, PIDS_SELECT_PID);
	if (!f || !f->counts || f->counts->total < 1) {
		cJSON_AddStringToObject(o, "error", "process not readable");
	} else {
		struct pids_stack *s = f->stacks[0];
		cJSON_AddNumberToObject(o, "rss_kb", (double)PIDS_VAL(0, ul_int, s, pi));
		cJSON_AddNumberToObject(o, "anonymous_kb", (double)PIDS_VAL(1, ul_int, s, pi));
		cJSON_AddNumberToObject(o, "anon_huge_kb", (double)PIDS_VAL(2, ul_int, s, pi));
		cJSON_AddNumberToObject(o, "vm_size_kb", (double)PIDS_VAL(3, ul_int, s, pi));
	}
	return o;
}

/* The RSS of every process in a process group, summed (pages a fork shares
 * count in each: an upper bound, as a watchdog wants). */
long pgrp_rss_kb(pid_t pgid)
{
	static enum pids_item items[] = { PIDS_ID_PGRP, PIDS_VM_RSS };
	release_at_exit();
	if (!grp_info && procps_pids_new(&grp_info, items, 2) < 0) {
		grp_info = NULL;
		return -1;
	}
	struct pids_info *pi = grp_info;
	struct pids_fetch *f = procps_pids_reap(pi, PIDS_FETCH_TASKS_ONLY);
	if (!f)
		return -1;
	long kb = 0;
	for (int i = 0; i < f->counts->total; i++)
		if (PIDS_VAL(0, s_int, f->stacks[i], pi) == pgid)
			kb += (long)PIDS_VAL(1, ul_int, f->stacks[i], pi);
	return kb;
}

/* How many OOM kills happened since the snapshot (system-wide). */
long counters_oom_kills(const struct counters *base)
{
	unsigned long now[NVM];
	if (!base->vm_ok || !vmstat_read(now))
		return -1;
	return (long)(now[NVM - 1] - base->vm[NVM - 1]);
}

/* MemTotal in kB, for the default --max-rss. */
unsigned long mem_total_kb(void)
{
	struct meminfo_info *mi = NULL;
	if (procps_meminfo_new(&mi) < 0)
		return 0;
	unsigned long kb = MEMINFO_GET(mi, MEMINFO_MEM_TOTAL, ul_int);
	procps_meminfo_unref(&mi);
	return kb;
}
