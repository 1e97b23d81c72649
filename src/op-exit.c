/* SPDX-License-Identifier: GPL-2.0-or-later */
/* op exit: end a scenario process; its mappings go with it. */
#include "anonremap.h"

/* anonremap's part only: closing the process's command pipe is what makes
 * it leave (its read sees the end), and run_exit waits to learn how it
 * ended. */
static int exit_after(struct run *r, struct step *st, const struct call *c,
		      const struct reply *rep, cJSON *sres)
{
	return run_exit(r, sres);
}

static const struct op_field exit_fields[] = {
	{ FLD__COUNT, false, NULL },
};

const struct op_entry op_exit = {
	.name = "exit",
	.summary = "end the process the step is in (its mappings go with it)",
	.fields = exit_fields,
	.after = exit_after,
};
