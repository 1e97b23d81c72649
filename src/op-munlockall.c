/* SPDX-License-Identifier: GPL-2.0-or-later */
/* op munlockall: unlock every mapping of the scenario process and clear
 * MCL_FUTURE (undoes mlockall, mlock and mlock2 alike); a raw system call,
 * as op-mlockall.c says why. */
#include "anonremap.h"
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

static void munlockall_exec(const struct call *c, struct reply *rep)
{
	(void)c;
	uint64_t t0 = now_ns();
	rep->ret = syscall(__NR_munlockall);
	rep->ns = now_ns() - t0;
	rep->err = rep->ret ? errno : 0;
}

static const struct op_field munlockall_fields[] = {
	{ FLD__COUNT, false, NULL },
};

const struct op_entry op_munlockall = {
	.name = "munlockall",
	.summary = "unlock the whole process, MCL_FUTURE cleared",
	.fields = munlockall_fields,
	.syscall = true,
	.exec = munlockall_exec,
};
