/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Kernel constants that older uapi headers (Debian 12: Linux 6.1) lack. */
#ifndef ANONREMAP_COMPAT_H
#define ANONREMAP_COMPAT_H

#include "config.h"
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/types.h>
#include <linux/fs.h>
#include <linux/mman.h>
#include <linux/userfaultfd.h>

/*
 * Each definition below is used only when configure found the header
 * without it, so a newer header always wins.
 */

#if !HAVE_DECL_MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4 /* uapi linux/mman.h, Linux 5.7 */
#endif
#if !HAVE_DECL_MREMAP_RELOCATE_ANON
#define MREMAP_RELOCATE_ANON 8 /* the RFC series in seeds/ (never mainline) */
#endif
#if !HAVE_DECL_MREMAP_MUST_RELOCATE_ANON
#define MREMAP_MUST_RELOCATE_ANON 16 /* the RFC series in seeds/ (never mainline) */
#endif
#if !HAVE_DECL_MADV_COLLAPSE
#define MADV_COLLAPSE 25 /* asm-generic/mman-common.h, Linux 6.1 */
#endif
#if !HAVE_DECL_MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102 /* asm-generic/mman-common.h, Linux 6.13 */
#endif
#if !HAVE_DECL_MADV_GUARD_REMOVE
#define MADV_GUARD_REMOVE 103 /* asm-generic/mman-common.h, Linux 6.13 */
#endif
#if !HAVE_DECL_MAP_DROPPABLE
#define MAP_DROPPABLE 0x08 /* uapi linux/mman.h, Linux 6.11 */
#endif
#if !HAVE_DECL_PR_SET_MEMORY_MERGE
#define PR_SET_MEMORY_MERGE 67 /* uapi linux/prctl.h, Linux 6.4 */
#define PR_GET_MEMORY_MERGE 68
#endif
#if !HAVE_DECL_PR_SET_THP_DISABLE
#define PR_SET_THP_DISABLE 41 /* uapi linux/prctl.h, Linux 3.15 */
#define PR_GET_THP_DISABLE 42
#endif
#if !HAVE_DECL_PR_THP_DISABLE_EXCEPT_ADVISED
#define PR_THP_DISABLE_EXCEPT_ADVISED (1 << 1) /* uapi linux/prctl.h, Linux 6.18 */
#endif
#if !HAVE_DECL_PR_SET_MDWE
#define PR_SET_MDWE 65 /* uapi linux/prctl.h, Linux 6.3 */
#define PR_GET_MDWE 66
#endif
#if !HAVE_DECL___NR_mseal && defined(__x86_64__)
#define __NR_mseal 462 /* arch/x86/entry/syscalls/syscall_64.tbl, Linux 6.10 */
#endif
#if !HAVE_DECL_UFFD_FEATURE_WP_UNPOPULATED
#define UFFD_FEATURE_WP_UNPOPULATED (1 << 13) /* uapi linux/userfaultfd.h, Linux 6.4 */
#endif
#if !HAVE_DECL_UFFD_FEATURE_POISON
#define UFFD_FEATURE_POISON (1 << 14) /* uapi linux/userfaultfd.h, Linux 6.6 */
#endif
#if !HAVE_DECL_UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC (1 << 15) /* uapi linux/userfaultfd.h, Linux 6.7 */
#endif
#if !HAVE_DECL_UFFDIO_CONTINUE_MODE_WP
#define UFFDIO_CONTINUE_MODE_WP ((__u64)1 << 1) /* uapi linux/userfaultfd.h, Linux 6.3 */
#endif
#if !HAVE_DECL_UFFDIO_MOVE
/* uapi linux/userfaultfd.h, Linux 6.8: move pages from src to dst, the
 * source becoming missing; "move" is written by the ioctl. */
#define UFFD_FEATURE_MOVE (1 << 16)
#define UFFDIO_MOVE_MODE_DONTWAKE ((__u64)1 << 0)
#define UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES ((__u64)1 << 1)
struct uffdio_move {
	__u64 dst;
	__u64 src;
	__u64 len;
	__u64 mode;
	__s64 move;
};
#define UFFDIO_MOVE _IOWR(UFFDIO, 0x05, struct uffdio_move)
#endif

#if !HAVE_DECL_PROCMAP_QUERY
/* uapi linux/fs.h, Linux 6.11: query one VMA of /proc/PID/maps by address. */
enum procmap_query_flags {
	PROCMAP_QUERY_VMA_READABLE = 0x01,
	PROCMAP_QUERY_VMA_WRITABLE = 0x02,
	PROCMAP_QUERY_VMA_EXECUTABLE = 0x04,
	PROCMAP_QUERY_VMA_SHARED = 0x08,
	PROCMAP_QUERY_COVERING_OR_NEXT_VMA = 0x10,
	PROCMAP_QUERY_FILE_BACKED_VMA = 0x20,
};

struct procmap_query {
	__u64 size;
	__u64 query_flags;
	__u64 query_addr;
	__u64 vma_start;
	__u64 vma_end;
	__u64 vma_flags;
	__u64 vma_page_size;
	__u64 vma_offset;
	__u64 inode;
	__u32 dev_major;
	__u32 dev_minor;
	__u32 vma_name_size;
	__u32 build_id_size;
	__u64 vma_name_addr;
	__u64 build_id_addr;
};

#define PROCMAP_QUERY _IOWR('f', 17, struct procmap_query)
#endif

#if !HAVE_DECL_PAGEMAP_SCAN
/* uapi linux/fs.h, Linux 6.7: the runs of pages of a range that have any
 * of the asked categories, found by a page table walk. */
#define PAGE_IS_WPALLOWED (1 << 0)
#define PAGE_IS_WRITTEN (1 << 1)
#define PAGE_IS_FILE (1 << 2)
#define PAGE_IS_PRESENT (1 << 3)
#define PAGE_IS_SWAPPED (1 << 4)
#define PAGE_IS_PFNZERO (1 << 5)
#define PAGE_IS_HUGE (1 << 6)
#define PAGE_IS_SOFT_DIRTY (1 << 7)

struct page_region {
	__u64 start;
	__u64 end;
	__u64 categories;
};

struct pm_scan_arg {
	__u64 size;
	__u64 flags;
	__u64 start;
	__u64 end;
	__u64 walk_end;
	__u64 vec;
	__u64 vec_len;
	__u64 max_pages;
	__u64 category_inverted;
	__u64 category_mask;
	__u64 category_anyof_mask;
	__u64 return_mask;
};

#define PAGEMAP_SCAN _IOWR('f', 16, struct pm_scan_arg)
#endif
#ifndef PAGE_IS_GUARD
#define PAGE_IS_GUARD (1 << 8) /* uapi linux/fs.h: a guard-region marker */
#endif

#endif
