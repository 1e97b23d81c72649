#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# anonremap bench: the numbers come out, structured, verified, honest about
# what the kernel refuses. No assertion on speed: that is the benchmarks' job.

load helper

@test "bench: one point per size, population, alignment, THP and variant" {
	run --separate-stderr "$AR" bench -s 4k,2m -p 0,100 -A pte,pmd -H nohugepage -r 3 -f json
	assert_success
	echo "$output" >"$BATS_TEST_TMPDIR/b.json"
	J="$BATS_TEST_TMPDIR/b.json"
	assert_jq '.points | length' 24
	assert_jq '[.points[] | select(.variant == "plain")] | length' 8
	jq_true '[.points[] | select(.variant == "plain") | .supported and .n == 3 and .min_ns > 0 and .min_ns <= .median_ns and .median_ns <= .p90_ns and .p90_ns <= .max_ns] | all'
	assert_jq '.bench.repeat' 3
}

@test "bench: relocate variants are unsupported on a kernel without the series, plain still measured" {
	supported=$("$AR" probe | jq -r '.features.mremap_relocate_anon.supported')
	run --separate-stderr "$AR" bench -s 4k -p 100 -A pte -H nohugepage -r 2 -f json
	assert_success
	J="$BATS_TEST_TMPDIR/b.json"
	echo "$output" >"$J"
	if [ "$supported" = false ]; then
		assert_jq '[.points[] | select(.variant != "plain") | .supported] | any' false
		assert_jq '[.points[] | select(.variant != "plain") | .errno] | unique | join(",")' EINVAL
	else
		jq_true '[.points[] | select(.variant != "plain") | .ratio_to_plain > 0] | all'
	fi
	jq_true '.points[] | select(.variant == "plain") | .supported'
}

@test "bench: text table has a header and one row a point" {
	run "$AR" bench -s 64k -p 50 -A pmd -H hugepage -V plain -r 2
	assert_success
	assert_line --partial 'median ns'
	assert_line --regexp '^ +65536 +50 +pmd +hugepage plain +[0-9]+'
}

@test "bench: the mremap_test preset is the three 1 GiB cases" {
	[ "${ANONREMAP_SANITIZED:-0}" = 1 ] && skip "1 GiB moves are slow under ASan"
	run --separate-stderr "$AR" bench --preset mremap_test -r 1 -f json
	assert_success
	J="$BATS_TEST_TMPDIR/b.json"
	echo "$output" >"$J"
	assert_jq '[.points[] | "\(.size) \(.align) \(.populate)"] | join(",")' '1073741824 pte 100,1073741824 pmd 100,1073741824 pud 100'
}

@test "bench: bad options are usage errors" {
	run "$AR" bench --sizes 5q
	assert_failure 2
	run "$AR" bench --populate 120
	assert_failure 2
	run "$AR" bench --align huge
	assert_failure 2
}

@test "bench -o writes the JSON atomically" {
	run "$AR" bench -s 4k -p 0 -A pte -H nohugepage -V plain -r 1 -o "$BATS_TEST_TMPDIR/out.json"
	assert_success
	jq -e '.points | length == 1' "$BATS_TEST_TMPDIR/out.json"
	[ -z "$(ls "$BATS_TEST_TMPDIR" | grep 'out.json.')" ]
}

@test "floor: the overhead benchmark's C program builds, and its six merge tests pass as the scenarios do" {
	local src="${TOP_SRCDIR:-$BATS_TEST_DIRNAME/../..}" bld="${TOP_BUILDDIR:-$BATS_TEST_DIRNAME/../..}"
	local floor="$BATS_TEST_TMPDIR/floor" tr="$BATS_TEST_TMPDIR/trace"
	[[ -f "$bld/config.h" ]] || fail "no config.h in $bld: configure first"
	gcc -O2 -Wall -Wextra -Werror -I"$bld" -I"$src/src" -o "$floor" "$src/tests/bench/floor.c"
	run "$floor" 2
	assert_success
	assert_output --regexp '^2 rounds of 6 tests: [0-9.]+ ms, 0 failed$'
	# --inspect reads what a dump reads at each of the 38 dump steps of the six scenarios
	local dumps
	dumps=$(for f in mremap_unfaulted_to_faulted mremap_unfaulted_behind_faulted mremap_unfaulted_between_faulted \
		mremap_unfaulted_between_faulted_unfaulted mremap_unfaulted_between_correctly_placed_faulted \
		mremap_correct_placed_faulted; do jq '[.steps[] | select(.op == "dump")] | length' \
		"$ANONREMAP_SCENARIO_DIR/$f.json"; done | paste -sd+ | bc)
	run strace -f -qq -e trace=openat -o "$tr" "$floor" --inspect
	assert_success
	assert_output --regexp '^1 rounds of 6 tests, inspected: [0-9.]+ ms, 0 failed$'
	local f
	for f in /proc/self/smaps /proc/self/pagemap /proc/self/smaps_rollup /proc/vmstat /proc/slabinfo; do
		[ "$(grep -c "\"$f\"" "$tr")" -eq "$dumps" ] || fail "$f read $(grep -c "\"$f\"" "$tr") times, not $dumps"
	done
	local o
	for o in "--inspect" "--pause 10" "--fork" "--fork --pollute 64"; do
		# shellcheck disable=SC2086 # the options, split
		run "$floor" --mremap 5 $o
		assert_success
		assert_output --regexp '^[0-9]+$'
	done
	run "$floor" --bogus
	assert_failure 2
	run "$floor" --mremap 5 --pollute 64 # only with --fork
	assert_failure 2
}
