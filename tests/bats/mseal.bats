#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# mseal_test.c (Linux 7.2.13): the mremap, merge and split cases. Each
# scenario translated from the selftest reaches the selftest's verdict on
# the live kernel. The C selftest passes every one of these cases on Linux
# 6.18 (ok N test_seal_...), both runs of a function (seal = false, then
# seal = true) included, so each scenario, and each of its variants
# unsealed and sealed, must pass; a kernel without mseal() makes them skip.

load helper

# Shorthands on the result of a file with variants: v(0) is the first
# variant's result (unsealed), v(1) the second (sealed); calls(i; op) its
# steps with that op, in order.
# shellcheck disable=SC2016 # jq's $i, not the shell's
V_DEFS='def v($i): .scenarios[$i]; def calls($i; $op): [v($i).steps[] | select(.op == $op)];'

# mseal_case NAME [VARIANT...]: run scenarios/mseal_test_NAME.json and
# assert that it passes with every step ok: one result when no VARIANT is
# given, else one per VARIANT, named NAME[VARIANT], in that order.
mseal_case() {
	local n="mseal_test_$1" want
	shift
	need_feature mseal
	run_json -t 120 "$ANONREMAP_SCENARIO_DIR/$n.json"
	assert_success
	if [ $# -eq 0 ]; then
		want="$n"
	else
		want="$(printf "${n}[%s]\n" "$@")"
	fi
	assert_jq '.scenarios[] | .name' "$want"
	assert_jq '[.scenarios[] | select(.status != "pass")] | length' '0'
	assert_jq '[.scenarios[].steps[] | select(.status != "ok")] | length' '0'
}

# vq FILTER EXPECTED: assert_jq with the variant shorthands.
vq() {
	assert_jq "$V_DEFS $1" "$2"
}

# sealed_mremap_eperm: the unsealed variant's mremap succeeded, the sealed
# variant's (after its one mseal) failed with EPERM.
sealed_mremap_eperm() {
	vq 'calls(0; "mremap") | map(.errno) | tostring' '[null]'
	vq 'calls(0; "mseal") | length' '0'
	vq 'calls(1; "mseal") | map(.ret) | tostring' '[0]'
	vq 'calls(1; "mremap") | map([.ret, .errno]) | tostring' '[[-1,"EPERM"]]'
}

@test "mseal_test_seal_mremap_shrink: a sealed mapping cannot be shrunk in place (EPERM)" {
	mseal_case seal_mremap_shrink unsealed sealed
	sealed_mremap_eperm
	# shrunk in place, unsealed: the same address back, 2 pages
	vq 'calls(0; "mremap")[0] | [.ret == .args.old_address, .args.new_size == 2 * .args.old_size / 4] | tostring' '[true,true]'
}

@test "mseal_test_seal_mremap_expand: a sealed mapping cannot grow in place into the hole after it (EPERM)" {
	mseal_case seal_mremap_expand unsealed sealed
	sealed_mremap_eperm
	vq 'calls(0; "mremap")[0].ret == calls(0; "mmap")[0].ret' 'true'
}

@test "mseal_test_seal_mremap_move: a sealed mapping cannot be moved with MREMAP_FIXED (EPERM)" {
	mseal_case seal_mremap_move unsealed sealed
	sealed_mremap_eperm
	# newPtr was unmapped before the move; unsealed, the page lands there
	vq 'calls(0; "mremap")[0].ret == calls(0; "mmap")[1].ret' 'true'
}

@test "mseal_test_seal_mremap_shrink_fixed: a sealed mapping cannot be moved and shrunk over another (EPERM)" {
	mseal_case seal_mremap_shrink_fixed unsealed sealed
	sealed_mremap_eperm
	vq 'calls(0; "mremap")[0].ret == calls(0; "mmap")[1].ret' 'true'
}

@test "mseal_test_seal_mremap_expand_fixed: nothing can be moved over a sealed mapping (EPERM)" {
	mseal_case seal_mremap_expand_fixed unsealed sealed
	sealed_mremap_eperm
	# the sealed range is the destination, newAddr
	vq 'calls(1; "mseal")[0].args.addr == calls(1; "mremap")[0].args.new_address' 'true'
}

@test "mseal_test_seal_mremap_move_fixed: nothing can be moved onto a sealed mapping (EPERM)" {
	mseal_case seal_mremap_move_fixed unsealed sealed
	sealed_mremap_eperm
	vq 'calls(1; "mseal")[0].args.addr == calls(1; "mremap")[0].args.new_address' 'true'
}

@test "mseal_test_seal_mremap_move_fixed_zero: a sealed mapping cannot be moved to address 0 (EPERM); unsealed, it can (root)" {
	need_feature mseal
	if [ "$(id -u)" -ne 0 ]; then
		run_json -t 120 "$ANONREMAP_SCENARIO_DIR/mseal_test_seal_mremap_move_fixed_zero.json"
		vq '[v(0).status, v(1).status] | tostring' '["skip","pass"]'
		return
	fi
	mseal_case seal_mremap_move_fixed_zero unsealed sealed
	sealed_mremap_eperm
	vq 'calls(0; "mremap")[0] | [.ret, .args.new_address] | tostring' '["0x0",0]'
}

@test "mseal_test_seal_mremap_move_dontunmap: a sealed mapping cannot be moved with MREMAP_DONTUNMAP (EPERM)" {
	mseal_case seal_mremap_move_dontunmap unsealed sealed
	sealed_mremap_eperm
	vq 'calls(0; "mremap")[0].args.flags | tostring' '["MREMAP_MAYMOVE","MREMAP_DONTUNMAP"]'
}

@test "mseal_test_seal_mremap_move_dontunmap_anyaddr: a sealed mapping cannot be moved with MREMAP_DONTUNMAP to a hint (EPERM)" {
	mseal_case seal_mremap_move_dontunmap_anyaddr unsealed sealed
	sealed_mremap_eperm
	# unsealed, the hint ptr2 (mapped and unmapped again) is where it lands
	vq 'calls(0; "mremap")[0].ret == calls(0; "mmap")[1].ret' 'true'
}

@test "mseal_test_seal_merge_and_split: mseal splits from both ends, merges sealed neighbours, and sealed pages resist munmap and mprotect" {
	mseal_case seal_merge_and_split
	# every get_vma_size() size and prot check the C makes (the stale
	# prot == 0x4 after the sixth mseal aside): 10 of each, all holding
	assert_jq '[sc.expectations[] | select(.check == "vma")] | length' '10'
	assert_jq '[sc.expectations[] | select(.check == "perms")] | length' '10'
	assert_jq '[sc.expectations[] | select(.ok | not)] | length' '0'
	# the C asserts only ret < 0; this kernel says EPERM
	assert_jq '[sc.steps[] | select(.errno != null) | [.op, .errno]] | tostring' '[["munmap","EPERM"],["mprotect","EPERM"]]'
	# finally one sealed VMA of the 22 middle pages, from ptr + 1 page
	assert_jq '[sc.expectations[] | select(.check == "vma")][-1].found
		| capture("spans carveout(?<a>[-+][0-9]+)p\\.\\.carveout(?<b>[-+][0-9]+)p")
		| (.b | tonumber) - (.a | tonumber)' '22'
	assert_jq '[sc.expectations[] | select(.check == "perms")][-1].found | test("has permissions r--p$")' 'true'
}

@test "mseal_test_seal_split_start: sealing the first page, then the other three across two VMAs, succeeds" {
	mseal_case seal_split_start
	assert_jq '[sc.steps[] | select(.op == "mseal") | .ret] | tostring' '[0,0]'
}

@test "mseal_test_seal_split_end: sealing the last page, then the first three across two VMAs, succeeds" {
	mseal_case seal_split_end
	assert_jq '[sc.steps[] | select(.op == "mseal") | .ret] | tostring' '[0,0]'
}

@test "mseal_test_seal_mprotect_merge: mprotect of two sealed pages fails, of the two unsealed after them succeeds" {
	mseal_case seal_mprotect_merge unsealed sealed
	vq 'calls(0; "mprotect") | map(.errno) | tostring' '[null,null,null]'
	vq 'calls(1; "mprotect") | map(.errno) | tostring' '[null,"EPERM",null]'
}

@test "mseal_test_seal_mprotect_split: mprotect of a sealed range split in two VMAs fails on both halves" {
	mseal_case seal_mprotect_split unsealed sealed
	vq 'calls(0; "mprotect") | map(.errno) | tostring' '[null,null,null]'
	vq 'calls(1; "mprotect") | map(.errno) | tostring' '[null,"EPERM","EPERM"]'
}

@test "mseal_test_seal_mprotect_two_vma_with_split: mseal across two VMAs splits both; only the sealed middle pages refuse mprotect" {
	mseal_case seal_mprotect_two_vma_with_split unsealed sealed
	vq 'calls(0; "mprotect") | map(.errno) | tostring' '[null,null,null,null,null]'
	vq 'calls(1; "mprotect") | map(.errno) | tostring' '[null,null,"EPERM","EPERM",null]'
}
