#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# guard-regions.c (Linux 7.3-rc7), anonymous variant, second half: each
# scenario translated from the selftest reaches the selftest's verdict on
# the live kernel. The C selftest passes every one of these cases on Linux
# 6.18 (guard_regions.anon.NAME: ok), so each scenario must pass; a kernel
# without the feature a case needs makes both skip.

load helper

@test "guard_regions_fork: the child inherits the guards, its removal leaves the parent's" {
	guard_case fork
	assert_jq '[sc.steps[] | select(.signal.name == "SIGSEGV")] | length' '10'
}

@test "guard_regions_fork_cow: guard install and remove in the child reads zeroes there, the parent keeps its data" {
	guard_case fork_cow
}

@test "guard_regions_fork_wipeonfork: the child has no guards, the parent keeps its 5" {
	guard_case fork_wipeonfork
	# only the parent's five guarded pages fault
	assert_jq '[sc.steps[] | select(.signal.name == "SIGSEGV")] | length' '5'
}

@test "guard_regions_lazyfree: MADV_FREE keeps the guard markers" {
	guard_case lazyfree
}

@test "guard_regions_populate: MADV_POPULATE_READ and _WRITE of a guard range fail with EFAULT" {
	guard_case populate
	assert_jq '[sc.steps[] | select(.op == "madvise") | .errno] | map(tostring) | join(",")' 'null,EFAULT,EFAULT'
}

@test "guard_regions_cold_pageout: MADV_COLD and MADV_PAGEOUT keep the guard markers" {
	guard_case cold_pageout
}

@test "guard_regions_uffd: guard markers in a userfaultfd-registered range fault without the userfaultfd" {
	guard_case uffd userfaultfd
}

@test "guard_regions_anon_zeropage: guards in a read-only mapping, then every page reads zero" {
	guard_case anon_zeropage
}

@test "guard_regions_pagemap: pagemap's guard bit on exactly the guarded pages" {
	guard_case pagemap
}

@test "guard_regions_pagemap_scan: PAGEMAP_SCAN finds the five one-page guard regions" {
	guard_case pagemap_scan
}

@test "guard_regions_collapse: MADV_COLLAPSE over guard markers fails and the markers stay" {
	guard_case collapse thp
	assert_jq '[sc.steps[] | select(.op == "madvise")] | map(select(.errno != null)) | length' '1'
}

@test "guard_regions_smaps: VmFlags gu is sticky, and guarded VMAs merge" {
	guard_case smaps
}

# --- the guard_scan check (PAGEMAP_SCAN with PAGE_IS_GUARD) -----------------

# guard_scen STEP...: a 6-page rw mapping at carveout+1p, its pages 1 and
# 3 and 4 guarded (MADV_GUARD_INSTALL = 102), then the given steps.
guard_scen() {
	steps_scen g.json \
		'{"op": "mmap", "name": "a", "at": "carveout+1p", "len": "6p", "prot": "rw"}' \
		'{"op": "madvise", "at": "a+1p", "len": "1p", "advice": 102}' \
		'{"op": "madvise", "at": "a+3p", "len": "2p", "advice": 102}' "$@"
}

@test "guard_scan: holds for the regions PAGEMAP_SCAN returns, one per run of guard pages" {
	need_feature guard_regions
	guard_scen '{"op": "expect", "guard_scan": ".g.gg.", "at": "a"}' \
		'{"op": "expect", "guard_scan": "g.gg", "at": "a+1p"}' \
		'{"op": "expect", "guard_scan": ".", "at": "a+5p"}'
	run_json "$S"
	assert_success
	assert_jq 'sc.expectations[0].check' 'guard_scan'
	assert_jq 'sc.expectations[0].found' 'PAGEMAP_SCAN from carveout+1p: 2 guard regions .g.gg., walk_end carveout+7p'
	assert_jq 'sc.expectations[2].found' 'PAGEMAP_SCAN from carveout+6p: 0 guard regions ., walk_end carveout+7p'
}

@test "guard_scan: fails where the kernel's regions differ, naming what it returned" {
	need_feature guard_regions
	guard_scen '{"op": "expect", "guard_scan": ".g.g..", "at": "a"}'
	run_json "$S"
	assert_failure 1
	assert_jq 'sc.reason' 'step 3 (expect guard_scan): expected PAGEMAP_SCAN from carveout+1p: 2 guard regions .g.g.., walk_end carveout+7p; found PAGEMAP_SCAN from carveout+1p: 2 guard regions .g.gg., walk_end carveout+7p'
	# a page guarded after the run is found: the check reads the live kernel
	guard_scen '{"op": "madvise", "at": "a+5p", "len": "1p", "advice": 102}' \
		'{"op": "expect", "guard_scan": ".g.gg.", "at": "a"}'
	run_json "$S"
	assert_failure 1
	assert_jq 'sc.expectations[0].found' 'PAGEMAP_SCAN from carveout+1p: 2 guard regions .g.ggg, walk_end carveout+7p'
}

@test "guard_scan: bad letters, a len, or no at are scenario errors (exit 2) naming step and field" {
	guard_scen '{"op": "expect", "guard_scan": "gx", "at": "a"}'
	run "$AR" check "$S"
	assert_failure 2
	assert_output --partial "step 3 (expect): guard_scan: expected g (a guard region) or . (none), one a page"
	guard_scen '{"op": "expect", "guard_scan": "g", "at": "a", "len": "1p"}'
	run "$AR" check "$S"
	assert_failure 2
	assert_output --partial "step 3 (expect): len: not part of a 'guard_scan' check"
	guard_scen '{"op": "expect", "guard_scan": "g"}'
	run "$AR" check "$S"
	assert_failure 2
	assert_output --partial "step 3 (expect): at: required by a 'guard_scan' check"
}
