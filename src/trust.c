/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The trust model's refusals: calls a scenario may not make unless the user
 * says --allow-dangerous, because their effect reaches beyond the scenario's
 * own processes (physical memory of the machine) or defeats what anonremap
 * relies on to end them (the parent-death signal, reaping, /proc access).
 * Values are checked as the kernel reads them: scenario.c has refused any
 * that does not fit the kernel's int argument before this runs. */
#include "anonremap.h"
#include "compat.h"
#include <string.h>
#include <sys/prctl.h>

#ifndef PR_SET_CHILD_SUBREAPER
#define PR_SET_CHILD_SUBREAPER 36
#endif

struct refusal {
	const char *op;
	enum field_id field;
	uint64_t value;
	bool unless_value_1; /* refused unless the step's value is 1 */
	const char *why;
};

static const struct refusal refusals[] = {
	{ "madvise", FLD_ADVICE, 100, false, "MADV_HWPOISON poisons a physical page of the machine" },
	{ "madvise", FLD_ADVICE, 101, false, "MADV_SOFT_OFFLINE takes a physical page of the machine offline" },
	{ "prctl", FLD_OPTION, PR_SET_PDEATHSIG, false,
	  "PR_SET_PDEATHSIG changes the signal that ends the scenario process with anonremap" },
	{ "prctl", FLD_OPTION, PR_SET_CHILD_SUBREAPER, false,
	  "PR_SET_CHILD_SUBREAPER keeps orphaned processes from being reaped as anonremap expects" },
	{ "prctl", FLD_OPTION, PR_SET_SECCOMP, false,
	  "PR_SET_SECCOMP filters the calls anonremap's scenario process needs to report and end" },
	{ "prctl", FLD_OPTION, PR_SET_DUMPABLE, true,
	  "PR_SET_DUMPABLE other than 1 closes /proc/PID/maps and pagemap to anonremap" },
	{ "prctl", FLD_OPTION, PR_SET_MM, false,
	  "PR_SET_MM rewrites the process's memory map fields, which anonremap reads back" },
};

int trust_check(const struct step *st, bool allow_dangerous, struct err *err)
{
	if (allow_dangerous)
		return 0;
	for (size_t i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++) {
		const struct refusal *x = &refusals[i];
		if (strcmp(st->op->name, x->op) || !st->f[x->field].set || st->f[x->field].u != x->value)
			continue;
		if (x->unless_value_1 && st->f[FLD_VALUE].set && st->f[FLD_VALUE].i == 1)
			continue;
		return err_set(err, "%s: %s; refused (--allow-dangerous to run it)", field_defs[x->field].key, x->why);
	}
	return 0;
}
