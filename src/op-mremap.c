/* SPDX-License-Identifier: GPL-2.0-or-later */
/* op mremap: the raw system call, as the selftests make it, so that glibc
 * does not refuse flags it does not know (MREMAP_RELOCATE_ANON). */
#include "anonremap.h"
#include "compat.h"
#include <errno.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static int mremap_prepare(struct run *r, struct step *st, struct call *c, cJSON *args, struct err *err)
{
	uint64_t old_addr, old_len, new_addr = 0;

	if (run_range(r, st, &old_addr, &old_len, false, 0, err))
		return -1;
	if (st->f[FLD_OLD_LEN].set)
		old_len = st->f[FLD_OLD_LEN].u;
	if (st->f[FLD_TO].set && run_resolve(r, st, FLD_TO, &new_addr, err))
		return -1;
	if (st->f[FLD_TO].set &&
	    run_check_range(r, st, FLD_TO, new_addr, st->f[FLD_NEW_LEN].set ? st->f[FLD_NEW_LEN].u : old_len, err))
		return -1;
	c->a[0] = old_addr;
	c->a[1] = old_len;
	c->a[2] = st->f[FLD_NEW_LEN].set ? st->f[FLD_NEW_LEN].u : old_len;
	c->a[3] = st->f[FLD_FLAGS].u;
	c->a[4] = new_addr;
	run_addr_json(r, args, "old_address", c->a[0]);
	cJSON_AddNumberToObject(args, "old_size", (double)c->a[1]);
	cJSON_AddNumberToObject(args, "new_size", (double)c->a[2]);
	cJSON_AddItemToObject(args, "flags", xlat_json(&xlat_mremap_flags, c->a[3]));
	if (st->f[FLD_TO].set)
		run_addr_json(r, args, "new_address", c->a[4]);
	else
		cJSON_AddNumberToObject(args, "new_address", 0);
	return 0;
}

static void mremap_exec(const struct call *c, struct reply *rep)
{
	uint64_t t0 = now_ns();
	long ret = syscall(__NR_mremap, c->a[0], c->a[1], c->a[2], c->a[3], c->a[4]);
	rep->ns = now_ns() - t0;
	rep->err = ret == -1 ? errno : 0;
	rep->ret = ret;
}

/* Like ptr2 = mremap(ptr2, ...): the region follows the mapping it moved. */
static int mremap_after(struct run *r, struct step *st, const struct call *c,
			const struct reply *rep, cJSON *sres)
{
	const char *nm = st->f[FLD_NAME].set ? st->f[FLD_NAME].s :
			 st->f[FLD_REGION].set ? st->f[FLD_REGION].s : NULL;
	if (rep->ret != -1 && nm) {
		struct binding *b = &r->cur->bind[names_find(&r->sc->names, nm)];
		b->set = true;
		b->addr = rep->ret;
		b->len = c->a[2];
	}
	return 0;
}

/* MREMAP_FIXED moves to new_address; without MREMAP_MAYMOVE the mapping
 * stays where it is */
static bool mremap_fixed_ret(const struct call *c, int64_t *ret)
{
	*ret = (int64_t)(c->a[3] & MREMAP_FIXED ? c->a[4] : c->a[0]);
	return (c->a[3] & MREMAP_FIXED) || !(c->a[3] & MREMAP_MAYMOVE);
}

static const struct op_field mremap_fields[] = {
	{ FLD_REGION, false, NULL }, { FLD_AT, false, NULL }, { FLD_OLD_LEN, false, NULL },
	{ FLD_NEW_LEN, false, NULL }, { FLD_FLAGS, false, &xlat_mremap_flags },
	{ FLD_TO, false, NULL }, { FLD_NAME, false, NULL },
	{ FLD__COUNT, false, NULL },
};

const struct op_entry op_mremap = {
	.name = "mremap",
	.summary = "raw mremap system call; the region is rebound to the result",
	.fields = mremap_fields,
	.first_word = "region",
	.syscall = true,
	.ret_addr = true,
	.prepare = mremap_prepare,
	.exec = mremap_exec,
	.after = mremap_after,
	.fixed_ret = mremap_fixed_ret,
};
