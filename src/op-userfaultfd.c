/* SPDX-License-Identifier: GPL-2.0-or-later */
/* op userfaultfd: the scenario process's one userfaultfd and its ioctls:
 * api (with features), register, unregister, copy, zeropage, move, wake,
 * continue. No handler thread runs: touching a missing page of a
 * registered range blocks until the timeout, as it would in any process,
 * unless the api step asked for the sigbus feature; a scenario resolves
 * faults itself with copy, zeropage, move or continue. */
#include "anonremap.h"
#include "compat.h"
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* In the order of fields.c's action choices. */
enum { A_REGISTER, A_UNREGISTER, A_API, A_COPY, A_ZEROPAGE, A_MOVE, A_WAKE, A_CONTINUE };
static const char *const actions[] = { "register", "unregister", "api", "copy", "zeropage",
				       "move", "wake", "continue", NULL };

/* The flags' names of each action; NULL: it takes no flags. */
static const struct xlat_table *const action_flags[] = {
	[A_COPY] = &xlat_uffd_copy_flags, [A_ZEROPAGE] = &xlat_uffd_zeropage_flags,
	[A_MOVE] = &xlat_uffd_move_flags, [A_CONTINUE] = &xlat_uffd_continue_flags,
};

static int action_of(const struct step *st)
{
	if (!st->f[FLD_ACTION].set)
		return A_REGISTER;
	for (int i = 0; actions[i]; i++)
		if (!strcmp(actions[i], st->f[FLD_ACTION].s))
			return i;
	return A_REGISTER; /* the field's choices are these: not reached */
}

static bool uffd_rangeless(const struct step *st)
{
	return action_of(st) == A_API;
}

/* Each action takes only its own fields, so a misplaced one is an error
 * rather than silently ignored. */
static int uffd_check(struct scenario *sc, struct step *st, struct err *err)
{
	int a = action_of(st);
	struct err e2;
	(void)sc;

	if (a == A_API) {
		static const enum field_id no[] = { FLD_AT, FLD_REGION, FLD_LEN };
		for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
			if (st->f[no[i]].set)
				return err_set(err, "%s: action api takes no range", field_defs[no[i]].key);
	} else if (st->f[FLD_FEATURES].set) {
		return err_set(err, "features: only for action api");
	}
	if (st->f[FLD_MODE].set && a != A_REGISTER)
		return err_set(err, "mode: only for action register");
	bool wants_from = a == A_COPY || a == A_MOVE;
	if (wants_from && !st->f[FLD_FROM].set)
		return err_set(err, "from: required by action %s", actions[a]);
	if (!wants_from && st->f[FLD_FROM].set)
		return err_set(err, "from: only for actions copy and move");
	if (st->f[FLD_FLAGS].set) {
		const struct xlat_table *t = action_flags[a];
		if (!t)
			return err_set(err, "flags: only for actions copy, zeropage, move and continue");
		/* again with the action's own names: allow_src_holes is move's
		 * bit 1, wp is copy's and continue's */
		if (scenario_parse_mask(t, cJSON_GetObjectItemCaseSensitive(st->json, "flags"),
					&st->f[FLD_FLAGS].u, &e2))
			return err_set(err, "flags: %s", e2.msg);
	}
	return 0;
}

static int uffd_prepare(struct run *r, struct step *st, struct call *c, cJSON *args, struct err *err)
{
	int a = action_of(st);

	c->a[2] = a;
	cJSON_AddStringToObject(args, "action", actions[a]);
	if (a == A_API) {
		c->a[3] = st->f[FLD_FEATURES].u;
		cJSON_AddItemToObject(args, "features", xlat_json(&xlat_uffd_features, c->a[3]));
		return 0;
	}
	if (run_range(r, st, &c->a[0], &c->a[1], true, 0, err))
		return -1;
	run_addr_json(r, args, "addr", c->a[0]);
	cJSON_AddNumberToObject(args, "len", (double)c->a[1]);
	if (a == A_REGISTER) {
		c->a[3] = st->f[FLD_MODE].set ? st->f[FLD_MODE].u : UFFDIO_REGISTER_MODE_MISSING;
		cJSON_AddItemToObject(args, "mode", xlat_json(&xlat_uffd_mode, c->a[3]));
	}
	if (st->f[FLD_FROM].set) {
		if (run_resolve(r, st, FLD_FROM, &c->a[4], err) ||
		    run_check_range(r, st, FLD_FROM, c->a[4], c->a[1], err))
			return -1;
		run_addr_json(r, args, "from", c->a[4]);
	}
	if (action_flags[a]) {
		c->a[3] = st->f[FLD_FLAGS].u;
		cJSON_AddItemToObject(args, "flags", xlat_json(action_flags[a], c->a[3]));
	}
	return 0;
}

/* Made by an api step or on first use (no features), in the scenario
 * process, and kept for its lifetime. */
static int uffd = -1;

static int uffd_open(void)
{
	int fd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
	if (fd < 0 && errno == EINVAL)
		fd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	return fd;
}

/* UFFDIO_API on the scenario process's userfaultfd, made here if need be:
 * a second api step reaches the kernel's answer for an fd already set up. */
static int uffd_api(uint64_t features)
{
	bool fresh = uffd < 0;
	if (fresh && (uffd = uffd_open()) < 0)
		return -1;
	struct uffdio_api api = { .api = UFFD_API, .features = features };
	if (ioctl(uffd, UFFDIO_API, &api)) {
		if (fresh) {
			int e = errno;
			close(uffd);
			uffd = -1;
			errno = e;
		}
		return -1;
	}
	return 0;
}

/* The count the ioctl wrote on success (bytes copied, zeroed, moved or
 * mapped) is the step's ret; a failure is -1 with its errno. */
static int64_t counted(int rc, int64_t n)
{
	return rc ? -1 : n;
}

static void uffd_exec(const struct call *c, struct reply *rep)
{
	uint64_t t0 = now_ns();
	struct uffdio_range range = { .start = c->a[0], .len = c->a[1] };
	int rc;

	rep->ret = -1;
	if (c->a[2] == A_API) {
		rep->ret = uffd_api(c->a[3]);
		goto out;
	}
	if (uffd < 0 && uffd_api(0))
		goto out;
	switch (c->a[2]) {
	case A_REGISTER: {
		struct uffdio_register reg = { .range = range, .mode = c->a[3] };
		rep->ret = ioctl(uffd, UFFDIO_REGISTER, &reg);
		break;
	}
	case A_UNREGISTER:
		rep->ret = ioctl(uffd, UFFDIO_UNREGISTER, &range);
		break;
	case A_WAKE:
		rep->ret = ioctl(uffd, UFFDIO_WAKE, &range);
		break;
	case A_COPY: {
		struct uffdio_copy cp = { .dst = c->a[0], .src = c->a[4], .len = c->a[1], .mode = c->a[3] };
		rc = ioctl(uffd, UFFDIO_COPY, &cp);
		rep->ret = counted(rc, cp.copy);
		break;
	}
	case A_ZEROPAGE: {
		struct uffdio_zeropage z = { .range = range, .mode = c->a[3] };
		rc = ioctl(uffd, UFFDIO_ZEROPAGE, &z);
		rep->ret = counted(rc, z.zeropage);
		break;
	}
	case A_MOVE: {
		struct uffdio_move mv = { .dst = c->a[0], .src = c->a[4], .len = c->a[1], .mode = c->a[3] };
		rc = ioctl(uffd, UFFDIO_MOVE, &mv);
		rep->ret = counted(rc, mv.move);
		break;
	}
	case A_CONTINUE: {
		struct uffdio_continue ct = { .range = range, .mode = c->a[3] };
		rc = ioctl(uffd, UFFDIO_CONTINUE, &ct);
		rep->ret = counted(rc, ct.mapped);
		break;
	}
	}
out:
	rep->err = rep->ret == -1 ? errno : 0;
	rep->ns = now_ns() - t0;
}

static const struct op_field uffd_fields[] = {
	{ FLD_AT, false, NULL }, { FLD_REGION, false, NULL }, { FLD_LEN, false, NULL },
	{ FLD_ACTION, false, NULL }, { FLD_MODE, false, &xlat_uffd_mode },
	{ FLD_FEATURES, false, &xlat_uffd_features }, { FLD_FROM, false, NULL },
	{ FLD_FLAGS, false, &xlat_uffd_flags },
	{ FLD__COUNT, false, NULL },
};

const struct op_entry op_userfaultfd = {
	.name = "userfaultfd",
	.summary = "userfaultfd ioctls: api, (un)register, copy, zeropage, move, ...",
	.fields = uffd_fields,
	.first_word = "region",
	.syscall = true,
	.check = uffd_check,
	.rangeless = uffd_rangeless,
	.prepare = uffd_prepare,
	.exec = uffd_exec,
};
