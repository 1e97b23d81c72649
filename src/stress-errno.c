/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The errnos each call documents (man-pages 6.x: mmap(2), munmap(2),
 * mprotect(2), madvise(2), mremap(2), fork(2)), narrowed by the arguments
 * where the kernel's answer is fixed: a stress step that fails with an errno
 * outside its set breaks the syscall invariant. */
#include "stress.h"
#include "compat.h"
#include <errno.h>
#include <string.h>

static const struct {
	int kind;
	uint64_t errs;
	const char *note;
} table[] = {
	{ SOP_MMAP, ERRBIT(EACCES) | ERRBIT(EAGAIN) | ERRBIT(EBADF) | ERRBIT(EEXIST) | ERRBIT(EINVAL) |
		    ERRBIT(ENFILE) | ERRBIT(ENODEV) | ERRBIT(ENOMEM) | ERRBIT(EOVERFLOW) | ERRBIT(EPERM) |
		    ERRBIT(ETXTBSY),
	  "EEXIST only with MAP_FIXED_NOREPLACE over a mapping" },
	{ SOP_MUNMAP, ERRBIT(EINVAL) | ERRBIT(ENOMEM) | ERRBIT(EPERM), "EPERM after mseal" },
	{ SOP_MPROTECT, ERRBIT(EACCES) | ERRBIT(EINVAL) | ERRBIT(ENOMEM) | ERRBIT(EPERM),
	  "ENOMEM for a range with unmapped pages, after changing the part before the first hole" },
	{ SOP_MADVISE, ERRBIT(EACCES) | ERRBIT(EAGAIN) | ERRBIT(EBADF) | ERRBIT(EBUSY) | ERRBIT(EFAULT) |
		       ERRBIT(EINVAL) | ERRBIT(EIO) | ERRBIT(ENOMEM) | ERRBIT(EPERM),
	  "ENOMEM for a range with unmapped pages, after advising the mapped part" },
	{ SOP_MREMAP, ERRBIT(EAGAIN) | ERRBIT(EFAULT) | ERRBIT(EINVAL) | ERRBIT(ENOMEM) | ERRBIT(EPERM),
	  "EINVAL only, for MREMAP_RELOCATE_ANON or MREMAP_MUST_RELOCATE_ANON on a kernel without the series" },
	{ SOP_FORK, ERRBIT(EAGAIN) | ERRBIT(ENOMEM), "" },
	{ SOP_FAULT, 0, "a fault step makes no call: it may only raise no signal" },
};

uint64_t stress_documented(const struct stress_op *op, bool relocate)
{
	if (op->kind == SOP_MREMAP && !relocate &&
	    (op->flags & (MREMAP_RELOCATE_ANON | MREMAP_MUST_RELOCATE_ANON)))
		return ERRBIT(EINVAL);
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].kind == op->kind)
			return table[i].errs;
	return 0;
}

void stress_errnos_format(uint64_t set, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = 0;
	for (int e = 1; e < 64 && o < len; e++)
		if (set & ERRBIT(e))
			o += snprintf(buf + o, len - o, "%s%s", o ? ", " : "", errno_name(e));
}

cJSON *stress_errno_table_json(void)
{
	cJSON *o = cJSON_CreateObject();
	char buf[256];

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		cJSON *e = cJSON_AddObjectToObject(o, stress_kind_names[table[i].kind]);
		stress_errnos_format(table[i].errs, buf, sizeof(buf));
		cJSON_AddStringToObject(e, "documented", buf);
		if (*table[i].note)
			cJSON_AddStringToObject(e, "note", table[i].note);
	}
	return o;
}
