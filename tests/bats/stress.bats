#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# anonremap stress: a seeded run is clean on this kernel and repeatable; a
# deliberately wrong model is caught, and the minimizer shrinks the long
# failing run to a handful of steps that fail again under 'anonremap run'.

load helper

# stress ARGS...: the JSON result in $J, stderr in $stderr.
stress() {
	J="$BATS_TEST_TMPDIR/stress.json"
	run --separate-stderr "$AR" stress "$@"
	printf '%s\n' "$output" >"$J"
}

@test "stress: a seeded short run finds no violation, and says its seed" {
	stress --seed 7 --steps 300 --fork --out "$BATS_TEST_TMPDIR"
	assert_success
	assert_jq '.stress.violation' null
	assert_jq '.stress.seed' 7
	assert_jq '.stress.ops' 300
	jq_true '.stress.steps > .stress.ops and .stress.verified_pages > 0 and .stress.ops_per_s > 0'
	jq_true '.stress.coverage.pairs >= 20 and .stress.coverage.pairs == (.stress.coverage.by_pair | length)'
	jq_true '[.stress.coverage.by_pair | keys[] | split(" ")[0]] | unique | contains(["fault", "madvise", "mmap", "mprotect", "mremap", "munmap"])'
	assert_jq '.stress.invariants.xray | startswith("skipped: ")' true
	assert_jq '.stress.xray.checked' false
	grep -q '^anonremap: stress: seed 7$' <<<"$stderr" || fail "no seed line on stderr: $stderr"
	[[ -z "$(ls "$BATS_TEST_TMPDIR"/stress-*.json 2>/dev/null)" ]] || fail "a clean run wrote a scenario file"
}

@test "stress: the same seed gives the same steps, another seed others" {
	local t="$BATS_TEST_TMPDIR"
	"$AR" stress --seed 11 --steps 150 --thp --fork --trace "$t/a" >/dev/null 2>&1
	"$AR" stress --seed 11 --steps 150 --thp --fork --trace "$t/b" >/dev/null 2>&1
	"$AR" stress --seed 12 --steps 150 --thp --fork --trace "$t/c" >/dev/null 2>&1
	[[ $(grep -c '"op":"mremap"' "$t/a") -gt 10 ]] || fail "few mremap steps in the trace"
	run cmp "$t/a" "$t/b"
	assert_success
	run cmp -s "$t/a" "$t/c"
	assert_failure
}

@test "stress: relocate flags still run where the kernel lacks them, and their EINVAL is expected" {
	supported=$("$AR" probe | jq -r '.features.mremap_relocate_anon.supported')
	stress --seed 5 --steps 300 --flags maymove,fixed,relocate_anon,must_relocate_anon
	assert_success
	jq_true '[.stress.coverage.by_pair | keys[] | select(test("RELOCATE"))] | length > 0'
	if [ "$supported" = false ]; then
		jq_true '[.stress.coverage.by_pair | to_entries[] | select(.key | test("RELOCATE")) | .value.n == .value.failed] | all'
	fi
}

@test "stress --break-model: caught, minimized to a handful of steps that fail again" {
	local o="$BATS_TEST_TMPDIR/out"
	# seed 1: the broken model fails in its fourth round, after 16 operations
	stress --seed 1 --steps 2000 --round 50 --break-model --out "$o"
	assert_failure 1
	assert_jq '.stress.violation.invariant' data
	assert_jq '.stress.violation.file' "$o/stress-1.json"
	assert_jq '.stress.violation.minimized' "$o/stress-1-min.json"
	jq_true '.stress.violation.file_steps >= 50'
	jq_true '.stress.violation.minimized_steps <= 6'
	jq_true '.stress.violation.expected | test("pattern")'
	grep -q "anonremap run $o/stress-1-min.json" <<<"$stderr" || fail "no run line on stderr: $stderr"
	# the minimized file: a handful of steps, the last a verify that fails
	run jq -r '.steps | length, .[-1].op' "$o/stress-1-min.json"
	assert_line --index 1 verify
	run "$AR" run "$o/stress-1-min.json"
	assert_failure 1
	run "$AR" run "$o/stress-1.json"
	assert_failure 1
}

@test "stress: the x-ray invariant says it was skipped, and why, where it cannot run" {
	local xray reloc
	xray=$("$AR" probe | jq -r '.features.xray.supported')
	reloc=$("$AR" probe | jq -r '.features.mremap_relocate_anon.supported')
	[ "$xray" = true ] && [ "$reloc" = true ] && skip "this kernel has the x-ray module and the relocate series: the invariant runs"
	stress --seed 3 --steps 100 --flags maymove,fixed,relocate_anon,must_relocate_anon
	assert_success
	assert_jq '.stress.xray.checked' false
	assert_jq '.stress.xray.checks' 0
	assert_jq ".stress.kernel_support.xray" "$xray"
	if [ "$xray" != true ]; then
		jq_true '.stress.invariants.xray | test("^skipped: folios_linear after a relocating move needs the x-ray: .*not loaded")'
	fi
	if [ "$reloc" != true ]; then
		jq_true '.stress.invariants.xray | test("no move can relocate here: mremap\\(MREMAP_MUST_RELOCATE_ANON\\) returned EINVAL")'
	fi
	# the test switch does not make a check run without the module
	stress --seed 3 --steps 100 --xray-all-moves
	assert_success
	assert_jq '.stress.options.xray_all_moves' true
	if [ "$xray" != true ]; then
		assert_jq '.stress.xray.checked' false
		jq_true '.stress.invariants.xray | startswith("skipped: ")'
	fi
}

@test "stress -f text: a summary, with the figures" {
	run "$AR" stress --seed 9 --steps 100 -f text
	assert_success
	assert_line --partial 'operations/s'
	assert_line --partial '(op, flags) pairs'
	assert_line --regexp 'invariant xray: skipped: '
	assert_line --partial 'no invariant broke'
}

@test "stress --reclaim: says what pressure it could apply" {
	stress --seed 4 --steps 100 --reclaim
	assert_success
	jq_true '.stress.pageouts > 0'
	if [ "$(grep -vc '^Filename' /proc/swaps)" = 0 ]; then
		jq_true '.stress.reclaim.note | test("no swap")'
	fi
	jq_true '.stress.reclaim.cgroup != null or (.stress.reclaim.cgroup_reason | length > 0)'
	# what really went to swap, from /proc/vmstat: nothing without swap
	jq_true '.stress.reclaim.swapped_out_pages >= 0 and .stress.reclaim.swapped_in_pages >= 0'
	if [ "$(grep -vc '^Filename' /proc/swaps)" = 0 ]; then
		assert_jq '.stress.reclaim.swapped_out_pages' 0
	fi
}

@test "stress: bad options are usage errors" {
	local bad
	for bad in "--steps 0" "--steps x" "--ops mmap,bogus" "--flags maymove,nope" "--advice free" \
		"--check-every 0" "--round 0" "--pages 8" "--thp --pages 700" "--format ktap" "--seed -1" \
		"--time 0" "extra"; do
		run "$AR" stress $bad
		[[ "$status" == 2 ]] || fail "stress $bad: exit $status, expected 2"
	done
}
