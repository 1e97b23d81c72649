#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# KSM for the matrix (issue 20): the ksm check (kpageflags' KSM bit), the
# within_ms retry window, the ksm_running feature and the matrix's ksm
# target. ksmd runs only where /sys/kernel/mm/ksm/run is 1, which anonremap
# and these tests never set on the machine; check-relocate runs the merging
# side in a guest with anonremap-vm --ksm.

load helper

ksmd_running() {
	[ "$(cat /sys/kernel/mm/ksm/run 2>/dev/null)" = 1 ]
}

@test "ksm: pages no process made mergeable are never KSM pages; within_ms looks again for the whole window" {
	need_feature root
	# without PR_SET_MEMORY_MERGE or MADV_MERGEABLE ksmd never merges these,
	# running or not: the check for false holds at once, the one for true
	# fails after its window, each saying what kpageflags showed
	steps_scen s.json '{"op": "mmap", "name": "a", "at": "carveout+1p", "len": "2p", "prot": "rw"}' \
		'{"op": "fault", "at": "a", "len": "2p", "fill": "k"}' \
		'{"op": "expect", "ksm": false, "at": "a", "len": "2p"}' \
		'{"op": "expect", "ksm": true, "at": "a", "len": "2p", "within_ms": 300}'
	run_json "$S"
	assert_failure 1
	assert_jq 'sc.expectations[0] | [.check, .ok, .found, has("waited_ms")] | map(tostring) | join("|")' \
		'ksm|true|0 of 2 pages KSM-merged|false'
	assert_jq 'sc.expectations[1] | [.check, .ok, .expected, .found] | map(tostring) | join("|")' \
		'ksm|false|all pages of carveout+1p +2p KSM-merged|0 of 2 pages KSM-merged'
	assert_jq 'sc.expectations[1].waited_ms >= 300 and sc.expectations[1].waited_ms < 5000' true
}

@test "within_ms: a check that holds at once waits 0 ms; the window is 1 to 60000 ms and belongs to expect" {
	steps_scen s.json '{"op": "mmap", "name": "a", "at": "carveout+1p", "len": "1p", "prot": "rw"}' \
		'{"op": "expect", "vma": "a", "start": "a", "end": "a+1p", "within_ms": 5000}'
	run_json "$S"
	assert_success
	assert_jq 'sc.expectations[0].waited_ms' 0
	for bad in 0 60001 -1; do
		steps_scen s.json '{"op": "mmap", "at": "carveout+1p", "len": "1p"}' \
			"{\"op\": \"expect\", \"mapped\": true, \"at\": \"carveout+1p\", \"within_ms\": $bad}"
		run_ar check "$S"
		assert_failure 2
		[[ "$stderr" == *"step 1"*"within_ms: expected 1 to 60000 milliseconds, got $bad"* ]]
	done
	steps_scen s.json '{"op": "mmap", "at": "carveout+1p", "len": "1p", "within_ms": 10}'
	run_ar check "$S"
	assert_failure 2
	[[ "$stderr" == *"step 0"*"within_ms"* ]]
	steps_scen s.json '{"op": "mmap", "at": "carveout+1p", "len": "1p"}' \
		'{"op": "expect", "ksm": true, "vma": "carveout+1p"}'
	run_ar check "$S"
	assert_failure 2
	[[ "$stderr" == *"step 1"* ]]
}

@test "ksm_running: the probe reads /sys/kernel/mm/ksm/run, and its scenarios skip or run by it" {
	need_feature ksm
	f="$("$AR" probe | jq -c .features.ksm_running)"
	if ksmd_running; then
		[ "$(jq -r .supported <<<"$f")" = true ]
		run_json ksm_pages_move_to_unfaulted_prev
		assert_success
		assert_jq 'sc.status' pass
	else
		[ "$(jq -r .supported <<<"$f")" = false ]
		[ "$(jq -r .detail <<<"$f")" = "/sys/kernel/mm/ksm/run is $(cat /sys/kernel/mm/ksm/run), so ksmd merges nothing (1 starts it)" ]
		run_json ksm_pages_move_to_unfaulted_prev
		assert_failure 4 # every scenario skipped
		assert_jq 'sc.status' skip
		assert_jq 'sc.reason' "requires ksm_running: $(jq -r .detail <<<"$f")"
	fi
}

@test "matrix: a ksm case makes the process mergeable, writes one byte over the target and waits for ksmd" {
	run_ar matrix --emit "$BATS_TEST_TMPDIR/cells" --op move --target ksm --prev unfaulted --next none
	assert_success
	local f="$BATS_TEST_TMPDIR/cells/matrix_move_ksm_prev_unfaulted_next_none_placed.json"
	run_ar check "$f"
	assert_success
	jq -e '(.requires | index("ksm") and index("ksm_running") and index("root"))
		and .steps[0] == {"op": "prctl", "option": "memory_merge", "value": 1}
		and ([.steps[] | select(.op == "fault")][0] | .at == "carveout+10p" and .len == "2p" and .fill == 107)
		and ([.steps[] | select(.op == "expect")][0] == {"op": "expect", "at": "carveout+10p", "len": "2p", "ksm": true, "within_ms": 30000})' "$f"
	# and the prctl comes before any mapping, so the neighbours are mergeable too
	[ "$(jq '[.steps[] | .op] | index("mmap")' "$f")" -gt 0 ]
	run_ar matrix -f json --op move --target ksm --prev unfaulted --next none --placement placed
	assert_success
	if ksmd_running && [ "$(id -u)" = 0 ]; then
		jq -e '.matrix.cases[0] | .status == "ran" and .merged == "prev"' <<<"$output"
	else
		jq -e '.matrix.cases[0] | .status == "unsupported" and (.reason | startswith("requires ksm_running") or startswith("requires root"))' <<<"$output"
	fi
}
