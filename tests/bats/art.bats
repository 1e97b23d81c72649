#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Android ART's concurrent mark-compact GC cycle (mark_compact.cc) as
# scenarios (issue 20): each reaches its status on the live kernel, pass, or
# skip naming the feature the kernel lacks.

load helper

# art_case NAME FEATURE...: skip where the kernel lacks a feature the
# scenario requires (and check the scenario then skips naming it), else run
# scenarios/NAME.json and assert it passes with every step ok.
art_case() {
	local n="$1" f
	shift
	for f in "$@"; do
		if [[ "$("$AR" probe | jq -r --arg f "$f" '.features[$f].supported')" != true ]]; then
			run_json -t 120 "$ANONREMAP_SCENARIO_DIR/$n.json"
			assert_equal "$status" 4 # every scenario skipped
			assert_jq 'sc.status' 'skip'
			jq_true --arg f "$f" 'sc.reason | startswith("requires \($f):")'
			skip "this kernel lacks $f (the scenario skips, saying so)"
		fi
	done
	run_json -t 120 "$ANONREMAP_SCENARIO_DIR/$n.json"
	assert_success
	assert_jq 'sc.name' "$n"
	assert_jq 'sc.status' 'pass'
	assert_jq '[sc.steps[] | select(.status != "ok")] | length' '0'
}

# The last mremap step: the next cycle's move.
LAST_MREMAP='[sc.steps[] | select(.op == "mremap")] | .[-1]'

@test "art_gc_cycle: with the PMD-boundary write the halves merge at unregister, the next mremap succeeds" {
	art_case art_gc_cycle userfaultfd mremap_dontunmap
	assert_jq '[sc.steps[] | select(.signal.name == "SIGBUS")] | length' '1'
	assert_jq "$LAST_MREMAP | .ret_rel" 'carveout+2048p'
	assert_jq '[sc.expectations[] | select(.ok | not)] | length' '0'
}

@test "art_gc_cycle_no_workaround: the halves stay two VMAs; the next mremap spans both" {
	need_feature userfaultfd
	need_feature mremap_dontunmap
	run_json -t 120 "$ANONREMAP_SCENARIO_DIR/art_gc_cycle_no_workaround.json"
	if kernel_before 6 17; then
		# Before 6.17 a move may not span VMAs: the EFAULT ART's comment
		# foresees, and the scenario (written for later kernels) fails there.
		assert_equal "$status" 1
		assert_jq 'sc.status' 'fail'
		assert_jq "$LAST_MREMAP | .errno" 'EFAULT'
		return
	fi
	assert_success
	assert_jq 'sc.status' 'pass'
	assert_jq '[sc.steps[] | select(.status != "ok")] | length' '0'
	assert_jq "$LAST_MREMAP | .ret_rel" 'carveout+2048p'
	# after it: two VMAs of moving space, two of from-space
	assert_jq '[sc.dumps[-1].vmas[] | select(.region != "guard")] | length' '4'
}

@test "art_gc_two_cycles: two cycles back to back, one VMA after each" {
	art_case art_gc_two_cycles userfaultfd mremap_dontunmap
	assert_jq '[sc.steps[] | select(.op == "mremap" and .ret_rel == "carveout+2048p")] | length' '3'
}

@test "art_gc_cycle_uffdio_move: compaction with UFFDIO_MOVE, the halves merge" {
	art_case art_gc_cycle_uffdio_move userfaultfd userfaultfd_move mremap_dontunmap
	assert_jq '[sc.steps[] | select(.op == "userfaultfd" and .args.action == "move")] | length' '2'
}

@test "art_gc_cycle_relocate_anon: RELOCATE_ANON on the moves, skipped without the series" {
	art_case art_gc_cycle_relocate_anon userfaultfd mremap_dontunmap mremap_relocate_anon
	assert_jq "$LAST_MREMAP | .ret_rel" 'carveout+2048p'
}
