/* SPDX-License-Identifier: GPL-2.0-or-later */
/* op fork: a new scenario process, named, that steps can go to ("in"); its
 * parent goes on too, keeping its mappings (and so the anon_vma chain)
 * alive, as merge.c's do_fork() does. */
#include "anonremap.h"
#include <string.h>

static const char *fork_name(const struct step *st)
{
	return st->f[FLD_NAME].set ? st->f[FLD_NAME].s : NULL;
}

static int fork_prepare(struct run *r, struct step *st, struct call *c, cJSON *args, struct err *err)
{
	char nm[MAX_NAME];

	if (procs_fork_name(&r->procs, fork_name(st), nm, err))
		return -1;
	if (r->procs.n >= r->ncmd)
		return err_set(err, "internal: no command pipe was made for fork %d", r->procs.n);
	c->a[0] = (uint64_t)r->proc[r->procs.n].cmd_rd;
	cJSON_AddStringToObject(args, "name", nm);
	return 0;
}

static void fork_exec(const struct call *c, struct reply *rep)
{
	child_fork(c, rep);
}

static int fork_after(struct run *r, struct step *st, const struct call *c,
		      const struct reply *rep, cJSON *sres)
{
	char nm[MAX_NAME];
	struct err err;

	if (rep->ret <= 0)
		return 0;
	if (procs_fork_name(&r->procs, fork_name(st), nm, &err))
		return -1; /* prepare said yes to the same question */
	int k = procs_add(&r->procs, (int)(r->cur - r->proc), nm);
	struct proc *p = &r->proc[k];
	p->pid = (pid_t)rep->ret;
	memcpy(p->bind, r->cur->bind, sizeof(p->bind));
	/* the newest process is the default of the steps that follow */
	r->cur = p;
	int rc = vma_open(&p->vs, p->pid);
	if (rc < 0) {
		err_set(&err, "cannot open /proc/%d/maps: %s", (int)p->pid, strerror(-rc));
		if (sres)
			cJSON_AddStringToObject(sres, "error", err.msg);
		return -1;
	}
	return 0;
}

static const struct op_field fork_fields[] = {
	{ FLD_NAME, false, NULL },
	{ FLD__COUNT, false, NULL },
};

const struct op_entry op_fork = {
	.name = "fork",
	.summary = "fork; a new process (name, default child, child2, ...)",
	.fields = fork_fields,
	.syscall = true,
	.prepare = fork_prepare,
	.exec = fork_exec,
	.after = fork_after,
};
