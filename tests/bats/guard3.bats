#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# guard-regions.c (Linux 7.2.13; 7.3's file was not at hand), anonymous
# variant, third part: the VMA-operation cases (multiple VMAs, mprotect,
# split and merge, MADV_DONTNEED, mlock, mremap). Each scenario translated
# from the selftest reaches the selftest's verdict on the live kernel. The C
# selftest passes these cases on Linux 6.18 (guard_regions.anon.NAME: ok),
# so each scenario must pass; a kernel without guard regions makes both skip.

load helper

# The pages that raised SIGSEGV: a one-page fault step counts 1, an
# each_page step every page of its range (each had to raise it).
# shellcheck disable=SC2016 # a jq variable, not a shell one
SEGV_PAGES='.kernel.page_size as $ps | [sc.steps[] | select(.signal.name == "SIGSEGV") | .args.len / $ps | ceil] | add'

@test "guard_regions_multi_vma: guard install and remove over VMAs and gaps fail with ENOMEM but act on every VMA" {
	guard_case multi_vma
	# with gaps: ENOMEM both times; over five adjacent VMAs: success
	assert_jq '[sc.steps[] | select(.op == "madvise") | .errno] | map(tostring) | join(",")' 'ENOMEM,ENOMEM,null,null'
	# 10 + 5 + 20 pages guarded across the gaps, then all 100
	assert_jq "$SEGV_PAGES" '135'
	# the same pages each read and written once unguarded
	assert_jq '[sc.steps[] | select(.op == "fault" and .signal == null)] | length' '270'
}

@test "guard_regions_mprotect: PROT_READ keeps the guards, guarding again works, removal makes all readable" {
	guard_case mprotect
	assert_jq '[sc.steps[] | select(.signal.name == "SIGSEGV")] | length' '6'
	assert_jq '[sc.steps[] | select(.op == "fault" and .signal == null and .args.access == "read")] | length' '10'
}

@test "guard_regions_split_merge: guards survive munmap splits and mprotect splits and merges" {
	guard_case split_merge
	# 10, 2 + 3 + 2 + 1 after the munmaps, 7 after remapping, then 10 three times
	assert_jq "$SEGV_PAGES" '55'
	# only the three remapped pages 2, 5 and 8 are written before the final merge
	assert_jq '[sc.steps[] | select(.op == "fault" and .args.access == "write")] | length' '13'
	# split, merge, split, merge: two mprotect calls each
	assert_jq '[sc.steps[] | select(.op == "mprotect") | .args.prot | join("|")] | join(",")' 'PROT_READ,PROT_READ,PROT_READ|PROT_WRITE,PROT_READ|PROT_WRITE,PROT_READ,PROT_READ,PROT_READ|PROT_WRITE,PROT_READ|PROT_WRITE'
}

@test "guard_regions_dontneed: MADV_DONTNEED keeps the guards, the other pages read zero" {
	guard_case dontneed
	# every even page faults on the read and on the write
	assert_jq '[sc.steps[] | select(.signal.name == "SIGSEGV") | .args.access] | group_by(.) | map("\(.[0])=\(length)") | join(",")' 'read=5,write=5'
	# every odd page reads '\0'
	assert_jq '[sc.steps[] | select(.op == "verify" and .status == "ok")] | length' '5'
}

@test "guard_regions_mlock: guarding mlock()ed pages fails with EINVAL, removing guards from them works" {
	guard_case mlock
	assert_jq '[sc.steps[] | select(.op == "madvise") | .errno] | map(tostring) | join(",")' 'EINVAL,null,null'
	assert_jq '[sc.steps[] | select(.signal.name == "SIGSEGV")] | length' '5'
	assert_jq '[sc.steps[] | select(.op == "mlock" or .op == "munlock") | .op] | join(",")' 'mlock,munlock,mlock'
}

@test "guard_regions_mremap_move: a moved mapping keeps its guards at both ends" {
	guard_case mremap_move
	assert_jq '[sc.steps[] | select(.signal.name == "SIGSEGV")] | length' '4'
	# mremap returned the PROT_NONE reservation's address
	jq_true '[sc.steps[] | select(.op == "mremap")][0].ret_rel == [sc.steps[] | select(.op == "mmap")][1].ret_rel'
}

@test "guard_regions_mremap_expand: expanded in place and moved, the guards stay at pages 0 and 4" {
	guard_case mremap_expand
	assert_jq '[sc.steps[] | select(.signal.name == "SIGSEGV")] | length' '6'
	# the first expansion is in place, the second lands on the reservation
	jq_true '[sc.steps[] | select(.op == "mremap")][0].ret_rel == st(0).ret_rel'
	jq_true '[sc.steps[] | select(.op == "mremap")][1].ret_rel == [sc.steps[] | select(.op == "mmap")][1].ret_rel'
}

@test "guard_regions_mremap_shrink: shrinking drops the end guard, expanding back does not restore it" {
	guard_case mremap_shrink
	# both ends, then only page 0 twice
	assert_jq '[sc.steps[] | select(.signal.name == "SIGSEGV")] | length' '4'
	assert_jq '[sc.steps[] | select(.signal.name == "SIGSEGV") | .args.addr_rel] | unique | length' '2'
	assert_jq '[sc.steps[] | select(.op == "fault" and .signal == null)] | length' '12'
}

@test "guard_regions_process_madvise: one call guards both ends of three VMAs (6 pages), one removes them" {
	guard_case process_madvise
	assert_jq '[sc.steps[] | select(.op == "process_madvise") | .ret] | map(tostring) | join(",")' '24576,24576'
	assert_jq '[sc.steps[] | select(.op == "process_madvise")][0].args.vec | length' '6'
	assert_jq '[sc.steps[] | select(.signal.name == "SIGSEGV")] | length' '6'
	assert_jq '[sc.steps[] | select(.op == "fault" and .signal == null)] | length' '12'
}
