/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Every field a step may carry: its JSON key (also its text-form key) and type. */
#include "anonremap.h"
#include <string.h>

static const char *const pidfd_choices[] = { "self", "open", NULL };
static const char *const access_choices[] = { "write", "read", NULL };
static const char *const scope_choices[] = { "carveout", "all", NULL };
static const char *const file_choices[] = { "memfd", "tmpfile", "uprobe", NULL };
static const char *const kind_choices[] = { "memfd", "tmpfile", NULL };
static const char *const action_choices[] = { "register", "unregister", "api", "copy", "zeropage",
					       "move", "wake", "continue", NULL };

const struct field_def field_defs[FLD__COUNT] = {
	[FLD_NAME] = { "name", FT_NEWNAME, NULL, "region name bound to the result" },
	[FLD_AT] = { "at", FT_ADDR, NULL, "address expression" },
	[FLD_LEN] = { "len", FT_SIZE, NULL, "length" },
	[FLD_PROT] = { "prot", FT_MASK, NULL, "protection: none, r, rw, rwx, or names" },
	[FLD_FLAGS] = { "flags", FT_MASK, NULL, "flag names or a number" },
	[FLD_FILE] = { "file", FT_STR, file_choices, "back the mapping by a new memfd, a new unlinked temporary file, the uprobe op's file, or a file op's file by name" },
	[FLD_OFFSET] = { "offset", FT_SIZE, NULL, "file offset" },
	[FLD_REGION] = { "region", FT_REGION, NULL, "a bound region: its address and length" },
	[FLD_ADVICE] = { "advice", FT_VALUE, NULL, "madvise advice name or number" },
	[FLD_OLD_LEN] = { "old_len", FT_SIZE, NULL, "old length (default: the region's)" },
	[FLD_NEW_LEN] = { "new_len", FT_SIZE, NULL, "new length (default: old_len)" },
	[FLD_TO] = { "to", FT_ADDR, NULL, "address expression" },
	[FLD_ACCESS] = { "access", FT_ENUM, access_choices, "write (default) or read" },
	[FLD_PATTERN] = { "pattern", FT_PATTERN, NULL, "seed of the page pattern, or \"zero\"" },
	[FLD_OPTION] = { "option", FT_VALUE, NULL, "prctl option name or number" },
	[FLD_VALUE] = { "value", FT_INT, NULL, "prctl argument" },
	[FLD_ARG3] = { "arg3", FT_INT, NULL, "prctl: its third argument (default 0)" },
	[FLD_ARG4] = { "arg4", FT_INT, NULL, "prctl: its fourth argument (default 0)" },
	[FLD_ARG5] = { "arg5", FT_INT, NULL, "prctl: its fifth argument (default 0)" },
	[FLD_LABEL] = { "label", FT_STR, NULL, "label of the dump" },
	[FLD_SCOPE] = { "scope", FT_ENUM, scope_choices, "carveout (default) or all" },
	[FLD_ERRNO] = { "errno", FT_ERRNO, NULL, "the call must fail with this errno" },
	[FLD_MAY_FAIL] = { "may_fail", FT_BOOL, NULL, "the call may fail" },
	[FLD_SIGNAL] = { "signal", FT_SIGNAL, NULL, "the step must raise this signal" },
	[FLD_VMA] = { "vma", FT_ADDR, NULL, "expect: the VMA containing this address" },
	[FLD_START] = { "start", FT_ADDR, NULL, "expect: its start" },
	[FLD_END] = { "end", FT_ADDR, NULL, "expect: its end" },
	[FLD_SAME_VMA] = { "same_vma", FT_ADDR2, NULL, "expect: two addresses in one VMA" },
	[FLD_DIFFERENT_VMA] = { "different_vma", FT_ADDR2, NULL, "expect: two addresses in different VMAs" },
	[FLD_VMA_COUNT] = { "vma_count", FT_INT, NULL, "expect: number of VMAs in [from, to)" },
	[FLD_FROM] = { "from", FT_ADDR, NULL, "expect: range start; userfaultfd: source of copy and move" },
	[FLD_MAPPED] = { "mapped", FT_BOOL, NULL, "expect: some VMA contains at" },
	[FLD_FAULTED] = { "faulted", FT_BOOL, NULL, "expect: every (or no) page of the range is present" },
	[FLD_SOFT_DIRTY] = { "soft_dirty", FT_BOOL, NULL, "expect: every (or no) page of the range is soft-dirty (pagemap bit 55)" },
	[FLD_THP] = { "thp", FT_BOOL, NULL, "expect: the range is (or is not) backed by huge pages" },
	[FLD_ANON_HUGE_PAGES] = { "anon_huge_pages", FT_INT, NULL, "expect: smaps AnonHugePages of the VMA at vma, in pages (PMD-mapped THP)" },
	[FLD_PGOFF_LINEAR] = { "pgoff_linear", FT_BOOL, NULL, "expect (x-ray): the VMA's vm_pgoff is its start in pages" },
	[FLD_FOLIOS_LINEAR] = { "folios_linear", FT_BOOL, NULL, "expect (x-ray): every folio's index is linear and its anon_vma the VMA's" },
	[FLD_SAME_ANON_VMA] = { "same_anon_vma", FT_ADDR2, NULL, "expect (x-ray): the VMAs at two addresses share an anon_vma" },
	[FLD_DIFFERENT_ANON_VMA] = { "different_anon_vma", FT_ADDR2, NULL, "expect (x-ray): the VMAs at two addresses have different anon_vmas" },
	[FLD_ACTION] = { "action", FT_ENUM, action_choices, "userfaultfd: register (default), unregister, api, copy, zeropage, move, wake, continue" },
	[FLD_MODE] = { "mode", FT_MASK, NULL, "userfaultfd register mode: missing (default), wp, minor" },
	[FLD_FEATURES] = { "features", FT_MASK, NULL, "userfaultfd api: feature names (sigbus, move, ...) or a number" },
	[FLD_IN] = { "in", FT_PROC, NULL, "the process that makes the call, or whose state it reads (default: the newest alive)" },
	[FLD_COMMENT] = { "comment", FT_STR, NULL, "free text, ignored" },
	[FLD_PERMS] = { "perms", FT_STR, NULL, "expect: the permissions of the VMA at 'at', as maps prints them (r--p)" },
	[FLD_VM_FLAGS] = { "vm_flags", FT_VMFLAGS, NULL, "expect: smaps VmFlags the VMA at 'at' has and lacks" },
	[FLD_PAGES] = { "pages", FT_STR, NULL, "expect: pages_state of the pages from 'at', one letter a page (runs as x{N}), ? any, P populated" },
	[FLD_RET] = { "ret", FT_ADDR, NULL, "the call must return exactly this: an address expression or a number" },
	[FLD_EACH_PAGE] = { "each_page", FT_BOOL, NULL, "touch every page on its own (with signal: every page must raise it)" },
	[FLD_KIND] = { "kind", FT_ENUM, kind_choices, "file: memfd or tmpfile" },
	[FLD_SIZE] = { "size", FT_SIZE, NULL, "file: its size" },
	[FLD_GUARD_SCAN] = { "guard_scan", FT_STR, NULL, "expect: the guard regions PAGEMAP_SCAN finds from 'at', g or . a page" },
	[FLD_VEC] = { "vec", FT_RANGES, NULL, "process_madvise: the ranges, [[at, len], ...] (text form vec=A:L,A:L), 1 to 8" },
	[FLD_PIDFD] = { "pidfd", FT_ENUM, pidfd_choices, "process_madvise: self (PIDFD_SELF, default) or open (pidfd_open of the process)" },
	[FLD_KSM] = { "ksm", FT_BOOL, NULL, "expect: every (or no) page of the range is a KSM page (kpageflags bit 21; root only)" },
	[FLD_WITHIN_MS] = { "within_ms", FT_INT, NULL, "expect: retry the check until it holds or this many milliseconds (1 to 60000) pass, as for ksmd's merging" },
	[FLD_FILL] = { "fill", FT_BYTE, NULL, "fault: write this byte over the range; verify: every byte is it" },
};

int field_find(const char *key)
{
	for (int i = 0; i < FLD__COUNT; i++)
		if (!strcmp(field_defs[i].key, key))
			return i;
	return -1;
}
