/* SPDX-License-Identifier: GPL-2.0-or-later */
/* op dump: record the VMA state of the scenario process. */
#include "anonremap.h"
#include <string.h>

static int dump_after(struct run *r, struct step *st, const struct call *c,
		      const struct reply *rep, cJSON *sres)
{
	struct err err;
	/* KTAP prints verdicts and failed expectations only, and every
	 * expectation reads the process itself, never a dump: a dump nobody
	 * reads is not taken (a third of a merge.c scenario's time). */
	if (r->opts->verdicts_only)
		return 0;
	bool all = r->opts->all_vmas || (st->f[FLD_SCOPE].set && !strcmp(st->f[FLD_SCOPE].s, "all"));
	uint64_t lo = all ? 0 : r->base - r->guard;
	uint64_t hi = all ? UINT64_MAX : r->base + r->size + r->guard;

	long nproc = -1;
	cJSON *xst = r->opts->xray ? cJSON_CreateObject() : NULL, *nm = cJSON_CreateArray();
	cJSON *vmas = dump_vmas(r, lo, hi, &nproc, xst, nm, &err);
	if (!vmas) {
		cJSON_Delete(xst);
		cJSON_Delete(nm);
		cJSON_AddStringToObject(sres, "error", err.msg);
		return -1;
	}
	cJSON *d = cJSON_CreateObject();
	cJSON_AddNumberToObject(d, "after_step", st->index);
	cJSON_AddStringToObject(d, "label", st->f[FLD_LABEL].set ? st->f[FLD_LABEL].s : "");
	cJSON_AddNumberToObject(d, "pid", r->cur->pid);
	cJSON_AddStringToObject(d, "in", run_proc_name(r));
	cJSON_AddStringToObject(d, "scope", all ? "all" : "carveout");
	cJSON_AddStringToObject(d, "source", r->cur->vs.query ? "procmap_query" : "maps");
	cJSON_AddNumberToObject(d, "vma_count", cJSON_GetArraySize(vmas));
	cJSON_AddStringToObject(d, "kpageflags", kpageflags_status());
	cJSON_AddItemToObject(d, "vmas", vmas);
	cJSON_AddItemToObject(d, "non_merges", nm);
	if (xst)
		cJSON_AddItemToObject(d, "xray", xst);
	/* the process as a whole: all its VMAs (smaps has one entry each), and libproc2's totals */
	cJSON_AddNumberToObject(d, "process_vma_count", (double)nproc);
	cJSON_AddItemToObject(d, "process", process_totals_json(r->cur->pid));
	cJSON_AddItemToObject(d, "kernel_counters", counters_delta_json(r->ctr));
	cJSON_AddItemToArray(r->dumps, d);
	return 0;
}

static const struct op_field dump_fields[] = {
	{ FLD_LABEL, false, NULL }, { FLD_SCOPE, false, NULL },
	{ FLD__COUNT, false, NULL },
};

const struct op_entry op_dump = {
	.name = "dump",
	.summary = "record the VMA state (scope carveout or all)",
	.fields = dump_fields,
	.first_word = "label",
	.after = dump_after,
};
