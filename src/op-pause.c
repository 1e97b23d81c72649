/* SPDX-License-Identifier: GPL-2.0-or-later */
/* op pause: stop so another tool can inspect the scenario process. */
#include "anonremap.h"
#include <signal.h>

/* The scenario process waits for SIGCONT; anonremap sends it on Enter. */
static void pause_exec(const struct call *c, struct reply *rep)
{
	sigset_t set;
	siginfo_t si;

	sigemptyset(&set);
	sigaddset(&set, SIGCONT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	uint64_t t0 = now_ns();
	while (sigwaitinfo(&set, &si) < 0)
		;
	rep->ns = now_ns() - t0;
	rep->ret = 0;
}

static const struct op_field pause_fields[] = {
	{ FLD__COUNT, false, NULL },
};

const struct op_entry op_pause = {
	.name = "pause",
	.summary = "print the pid and carveout, wait for Enter or SIGCONT",
	.fields = pause_fields,
	.exec = pause_exec,
};
