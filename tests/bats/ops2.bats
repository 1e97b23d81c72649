#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The ops of issue 18 against the live kernel: mlock, munlock, the advice
# names of Linux 7.2's uapi, and userfaultfd's api, copy, zeropage, move,
# wake and continue. Effects are read from anonremap's dumps (smaps
# VmFlags and Locked, pagemap) and from verify steps.

load helper

# --- mlock / munlock ------------------------------------------------------

@test "mlock: the locked range is its own VMA with VmFlags lo and Locked pages; munlock merges it back" {
	run_json -e 'mmap ptr at=carveout+1p len=3p' -e 'mlock at=ptr+1p len=1p' -e 'dump locked' \
		-e 'munlock ptr' -e 'dump unlocked'
	assert_success
	assert_jq 'st(1).ret' '0'
	assert_jq 'st(1).args.flags' 'null'
	# mlock populates: the middle page is present and counted as Locked
	assert_jq 'vma_in(0; "carveout+2p").rel' 'carveout+2p..carveout+3p'
	assert_jq 'vma_in(0; "carveout+2p").vm_flags | index("lo") != null' 'true'
	assert_jq 'vma_in(0; "carveout+2p").locked_pages' '1'
	assert_jq 'vma_in(0; "carveout+2p").pages_state' 'x'
	assert_jq 'vma_in(0; "carveout+1p").vm_flags | index("lo") == null' 'true'
	assert_jq 'vma_in(0; "carveout+3p").vm_flags | index("lo") == null' 'true'
	assert_jq 'vma_in(1; "carveout+1p").rel' 'carveout+1p..carveout+4p'
	assert_jq 'vma_in(1; "carveout+1p").vm_flags | index("lo") == null' 'true'
	assert_jq 'vma_in(1; "carveout+1p").locked_pages' '0'
}

@test "mlock of the middle third splits one VMA in three; munlock of all merges them into one" {
	run_json -e 'mmap ptr at=carveout+1p len=3p' -e 'expect vma_count=1 from=ptr to=ptr+3p' \
		-e 'mlock at=ptr+1p len=1p' -e 'expect vma_count=3 from=ptr to=ptr+3p' \
		-e 'expect vma=ptr+1p start=ptr+1p end=ptr+2p' \
		-e 'munlock ptr' -e 'expect vma_count=1 from=ptr to=ptr+3p' -e 'expect vma=ptr start=ptr end=ptr+3p'
	assert_success
	assert_jq '[sc.steps[] | .status] | unique | join(",")' 'ok'
}

@test "mlock with flags=onfault is mlock2(MLOCK_ONFAULT): VmFlags lf, nothing populated" {
	run_json -e 'mmap ptr at=carveout+1p len=2p' -e 'mlock ptr flags=onfault' -e 'dump'
	assert_success
	assert_jq 'st(1).args.flags | join(",")' 'MLOCK_ONFAULT'
	assert_jq 'vma("carveout+1p").vm_flags | (index("lo") != null and index("lf") != null)' 'true'
	assert_jq 'vma("carveout+1p").pages_state' '..'
	assert_jq 'vma("carveout+1p").locked_pages' '0'
}

@test "mlock flags=0 still calls mlock2 (and succeeds); an unknown mlock flag is refused with a suggestion" {
	run_json -e 'mmap ptr at=carveout+1p len=1p' -e 'mlock ptr flags=0' -e 'dump'
	assert_success
	assert_jq 'st(1).ret' '0'
	assert_jq 'st(1).args.flags | length' '0'
	assert_jq 'vma("carveout+1p").locked_pages' '1'
	run_json -e 'mmap ptr at=carveout+1p len=1p' -e 'mlock ptr flags=onfalt'
	assert_equal "$status" 2
	assert_nothing_ran
	assert_msg "-e:2: mlock: flags: unknown mlock flag 'onfalt' (did you mean 'MLOCK_ONFAULT'?)"
}

@test "munlock of an unmapped range fails with ENOMEM, recorded by name" {
	run_json -e 'munmap at=carveout+1p len=1p' -e 'munlock at=carveout+1p len=1p errno=ENOMEM'
	assert_success
	assert_jq 'st(1).errno' 'ENOMEM'
}
