/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one table of ops: parsers, --help, the man page test and completion read it. */
#include "anonremap.h"
#include <string.h>

extern const struct op_entry op_mmap, op_munmap, op_mprotect, op_madvise, op_mremap,
	op_fault, op_verify, op_fork, op_prctl, op_mseal, op_userfaultfd, op_uprobe, op_dump, op_expect, op_pause,
	op_exit, op_mlock, op_munlock, op_mlockall, op_munlockall, op_file, op_process_madvise, op_clear_soft_dirty;

const struct op_entry *const op_table[] = {
	&op_mmap, &op_munmap, &op_mprotect, &op_madvise, &op_process_madvise, &op_mlock, &op_munlock, &op_mlockall, &op_munlockall, &op_mremap, &op_fault,
	&op_verify, &op_fork, &op_exit, &op_prctl, &op_mseal, &op_userfaultfd, &op_uprobe, &op_dump, &op_expect, &op_pause,
	&op_file, &op_clear_soft_dirty, NULL,
};

const struct op_entry *op_find(const char *name)
{
	for (int i = 0; op_table[i]; i++)
		if (!strcmp(op_table[i]->name, name))
			return op_table[i];
	return NULL;
}

const struct op_field *op_field(const struct op_entry *op, enum field_id id)
{
	for (const struct op_field *f = op->fields; f->id != FLD__COUNT; f++)
		if (f->id == id)
			return f;
	return NULL;
}

bool op_has_field(const struct op_entry *op, enum field_id id)
{
	return id == FLD_COMMENT || id == FLD_IN || op_field(op, id) != NULL ||
	       (op->syscall && (id == FLD_ERRNO || id == FLD_MAY_FAIL || id == FLD_SIGNAL || id == FLD_RET));
}

/* The op closest to a misspelling, for "did you mean". */
const char *op_nearest(const char *name)
{
	const char *best = NULL;
	int bestd = 3;
	for (int i = 0; op_table[i]; i++) {
		int d = edit_distance(name, op_table[i]->name);
		if (d < bestd) {
			bestd = d;
			best = op_table[i]->name;
		}
	}
	return best;
}

/* "unknown op 'X'" with the nearest op, or, where none is near, the list
 * of ops: one wording for JSON and the text form. */
void op_unknown(const char *name, char *buf, size_t len)
{
	const char *best = op_nearest(name);
	int n = snprintf(buf, len, "unknown op '%s'", name);
	if (best) {
		snprintf(buf + n, len - n, " (did you mean '%s'?)", best);
		return;
	}
	for (int i = 0; op_table[i] && (size_t)n < len; i++)
		n += snprintf(buf + n, len - n, "%s%s", i ? ", " : " (ops: ", op_table[i]->name);
	if ((size_t)n < len)
		snprintf(buf + n, len - n, ")");
}

/* The field of op closest to a misspelt key. */
const char *field_nearest(const struct op_entry *op, const char *key)
{
	const char *best = NULL;
	int bestd = 3;
	for (int f = 0; f < FLD__COUNT; f++) {
		if (!op_has_field(op, f))
			continue;
		int d = edit_distance(key, field_defs[f].key);
		if (d < bestd) {
			bestd = d;
			best = field_defs[f].key;
		}
	}
	return best;
}
