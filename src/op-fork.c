/* SPDX-License-Identifier: GPL-2.0-or-later */
/* op fork: the scenario goes on in the child; the parent waits, keeping its
 * mappings (and so the anon_vma chain) alive, as merge.c's do_fork() does. */
#include "anonremap.h"

static int fork_prepare(struct run *r, struct step *st, struct call *c, cJSON *args, struct err *err)
{
	if (r->forks >= MAX_FORKS)
		return err_set(err, "more than %d forks", MAX_FORKS);
	return 0;
}

static void fork_exec(const struct call *c, struct reply *rep)
{
	child_fork(rep);
}

static int fork_after(struct run *r, struct step *st, const struct call *c,
		      const struct reply *rep, cJSON *sres)
{
	if (rep->ret > 0) {
		r->forks++;
		r->pid = rep->ret;
		vma_close(&r->vs);
		if (vma_open(&r->vs, r->pid) < 0)
			return -1;
	}
	return 0;
}

static const struct op_field fork_fields[] = {
	{ FLD__COUNT, false, NULL },
};

const struct op_entry op_fork = {
	.name = "fork",
	.summary = "fork; the scenario goes on in the child",
	.fields = fork_fields,
	.syscall = true,
	.prepare = fork_prepare,
	.exec = fork_exec,
	.after = fork_after,
};
