/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Kernel counters through libproc2: system-wide vmstat and slab deltas, and
 * one process's totals (smaps_rollup and status). */
#include "anonremap.h"
#include <errno.h>
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

struct counters *counters_new(void)
{
	return xcalloc(1, sizeof(struct counters));
}

void counters_snapshot(struct counters *c)
{
	struct vmstat_info *vi = NULL;
	struct slabinfo_info *si = NULL;

	c->vm_ok = procps_vmstat_new(&vi) >= 0;
	for (size_t i = 0; c->vm_ok && i < NVM; i++)
		c->vm[i] = VMSTAT_GET(vi, vm_items[i].item, ul_int);
	if (vi)
		procps_vmstat_unref(&vi);

	c->slab_ok = false;
	int rc = procps_slabinfo_new(&si);
	if (rc < 0) {
		snprintf(c->slab_why, sizeof(c->slab_why), "/proc/slabinfo unreadable: %s (root only)",
			 errno_name(-rc > 0 ? -rc : errno));
		return;
	}
	enum slabinfo_item items[] = { SLAB_NAME, SLAB_ACTIVE_OBJS };
	struct slabinfo_reaped *r = procps_slabinfo_reap(si, items, 2);
	if (!r) {
		snprintf(c->slab_why, sizeof(c->slab_why), "/proc/slabinfo unreadable: %s (root only)",
			 errno_name(errno));
		procps_slabinfo_unref(&si);
		return;
	}
	int found = 0;
	for (int i = 0; i < r->total; i++) {
		const char *name = SLABINFO_VAL(0, str, r->stacks[i], si);
		for (int k = 0; k < NSLAB; k++)
			if (name && !strcmp(name, slab_names[k])) {
				c->slab[k] = SLABINFO_VAL(1, u_int, r->stacks[i], si);
				found++;
			}
	}
	c->slab_ok = found == NSLAB;
	if (!c->slab_ok)
		snprintf(c->slab_why, sizeof(c->slab_why), "caches merged away by the slab allocator");
	procps_slabinfo_unref(&si);
}

/* Deltas since base, labelled system-wide: other processes move them too. */
cJSON *counters_delta_json(const struct counters *base)
{
	struct counters now;
	cJSON *o = cJSON_CreateObject();

	counters_snapshot(&now);
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
	struct pids_info *pi = NULL;
	cJSON *o = cJSON_CreateObject();
	unsigned p = pid;

	if (procps_pids_new(&pi, items, 4) < 0) {
		cJSON_AddStringToObject(o, "error", "libproc2: cannot read /proc");
		return o;
	}
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
	procps_pids_unref(&pi);
	return o;
}

/* Resident set of one process in kB (status: VmRSS), or -1. */
long process_rss_kb(pid_t pid)
{
	static struct pids_info *pi;
	static enum pids_item items[] = { PIDS_VM_RSS };
	unsigned p = pid;

	if (!pi && procps_pids_new(&pi, items, 1) < 0)
		return -1;
	struct pids_fetch *f = procps_pids_select(pi, &p, 1, PIDS_SELECT_PID);
	if (!f || !f->counts || f->counts->total < 1)
		return -1;
	return (long)PIDS_VAL(0, ul_int, f->stacks[0], pi);
}

/* How many OOM kills happened since the snapshot (system-wide). */
long counters_oom_kills(const struct counters *base)
{
	struct vmstat_info *vi = NULL;
	if (!base->vm_ok || procps_vmstat_new(&vi) < 0)
		return -1;
	unsigned long now = VMSTAT_GET(vi, VMSTAT_OOM_KILL, ul_int);
	procps_vmstat_unref(&vi);
	return (long)(now - base->vm[NVM - 1]);
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
