/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The processes of a scenario: which exist, under what name, forked by
 * whom, still alive or not. The one table both the static check (what a
 * scenario may name) and a run (which process a step goes to) keep, so the
 * two cannot disagree on a name or on the default. */
#include "anonremap.h"
#include <stdio.h>
#include <string.h>

void procs_init(struct procs *t)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->name[0], MAX_NAME, "main");
	t->parent[0] = -1;
	t->alive[0] = true;
	t->n = 1;
}

/* The process a step goes to: the one it names, else the most recently
 * forked one still alive (so a scenario written before "in" existed goes on
 * in the child after a fork, as it did). -1 with err set when there is none. */
int procs_resolve(const struct procs *t, const char *in, struct err *err)
{
	if (in) {
		for (int i = 0; i < t->n; i++)
			if (!strcmp(t->name[i], in)) {
				if (!t->alive[i])
					return err_set(err, "in: process '%s' has exited", in);
				return i;
			}
		return err_set(err, "in: no process '%s' (main, or a name a fork gave)", in);
	}
	for (int i = t->n - 1; i >= 0; i--)
		if (t->alive[i])
			return i;
	return err_set(err, "in: every process has exited");
}

/* The name the next fork gives its child: name as given, or child, child2, … */
int procs_fork_name(const struct procs *t, const char *name, char *out, struct err *err)
{
	if (t->n > MAX_FORKS)
		return err_set(err, "more than %d forks in one scenario", MAX_FORKS);
	if (name)
		snprintf(out, MAX_NAME, "%s", name);
	else if (t->n == 1)
		snprintf(out, MAX_NAME, "child");
	else
		snprintf(out, MAX_NAME, "child%d", t->n);
	for (int i = 0; i < t->n; i++)
		if (!strcmp(t->name[i], out))
			return err_set(err, "name: a process is already called '%s'%s", out,
				       name ? "" : " (give this fork a name)");
	return 0;
}

int procs_add(struct procs *t, int parent, const char *name)
{
	int k = t->n++;
	snprintf(t->name[k], MAX_NAME, "%s", name);
	t->parent[k] = parent;
	t->alive[k] = true;
	return k;
}

/* A process that ends takes the processes it forked with it (they die by
 * PR_SET_PDEATHSIG): refused while one is alive, so that no process ends
 * without a step saying so. */
int procs_may_exit(const struct procs *t, int i, struct err *err)
{
	for (int k = 0; k < t->n; k++)
		if (t->alive[k] && t->parent[k] == i)
			return err_set(err, "in: '%s' still has '%s' alive, which it forked; exit that first",
				       t->name[i], t->name[k]);
	return 0;
}
