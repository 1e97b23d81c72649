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

@test "bench: uffd_move times UFFDIO_MOVE of the same pages (data verified), or says why not; never on shmem" {
	local supported
	supported=$("$AR" probe | jq -r '.features.userfaultfd_move.supported')
	run --separate-stderr "$AR" bench -V plain,uffd_move -s 4k,2m -p 0,100 -A pmd -H hugepage -B anon,shmem -r 2 -f json
	assert_success
	J="$BATS_TEST_TMPDIR/b.json"
	echo "$output" >"$J"
	# only the variants asked for, one point each per size, population and backing
	assert_jq '[.points[].variant] | unique | join(",")' plain,uffd_move
	assert_jq '[.points[] | select(.variant == "uffd_move")] | length' 8
	# UFFDIO_MOVE moves private anonymous pages only: shmem is not tried
	assert_jq '[.points[] | select(.variant == "uffd_move" and .backing == "shmem") | .errno] | unique | join(",")' EOPNOTSUPP
	if [ "$supported" = true ]; then
		# every anonymous move was made and its data checked after it (a
		# mismatch is exit 3): a time and a ratio to plain for each
		jq_true '[.points[] | select(.variant == "uffd_move" and .backing == "anon") | .supported and .median_ns > 0 and .ratio_to_plain > 0] | all'
	else
		assert_jq '[.points[] | select(.variant == "uffd_move" and .backing == "anon") | .errno] | unique | join(",")' EINVAL
	fi
}

@test "bench: text table has a header and one row a point" {
	run "$AR" bench -s 64k -p 50 -A pmd -H hugepage -V plain -r 2
	assert_success
	assert_line --partial 'median ns'
	assert_line --regexp 'placement +back +thp'
	assert_line --regexp '^ +65536 +50 +pmd +anon +hugepage plain +[0-9]+'
}

@test "bench: pte, pmd and pud place source and destination as mremap_test.c computes them" {
	local min pg=4096 pmd pud sz=$((4 << 20))
	min=$(cat /proc/sys/vm/mmap_min_addr)
	pmd=$("$AR" probe | jq -r .kernel.pmd_size)
	pud=$("$AR" probe | jq -r .kernel.pud_size)
	run --separate-stderr "$AR" bench -s 4m -p 100 -A pte,pmd,pud,relative,misaligned -B anon,shmem -H none -V plain -r 2 -f json
	assert_success
	J="$BATS_TEST_TMPDIR/b.json"
	echo "$output" >"$J"
	assert_jq '.points | length' 10
	assert_jq '.bench.process' one
	jq_true '[.points[] | .supported and .n == 2] | all'
	assert_jq '[.points[] | "\(.align) \(.backing) \(.thp)"] | join(",")' \
		'pte anon none,pte shmem none,pmd anon none,pmd shmem none,pud anon none,pud shmem none,relative anon none,relative shmem none,misaligned anon none,misaligned shmem none'
	# get_source_mapping(): the lowest multiple of A at or above mmap_min_addr
	# that is not a multiple of 2A; remap_region(): A past the end, rounded
	# down to A, made an odd multiple of A. Nothing is mapped that low here,
	# except under ASan, whose shadow takes part of the low addresses.
	expect() { # A: "source destination" as the selftest computes them
		local a=$1 s d
		s=$a
		while ((s < min || !(s & a))); do s=$((s + a)); done
		d=$(((s + sz + a) & ~(a - 1)))
		((d & a)) || d=$((d | a))
		printf '0x%x 0x%x' "$s" "$d"
	}
	if [ "${ANONREMAP_SANITIZED:-0}" != 1 ]; then
		assert_jq '[.points[] | select(.align == "pte") | "\(.source) \(.destination)"] | unique | join(",")' "$(expect $pg)"
		assert_jq '[.points[] | select(.align == "pmd") | "\(.source) \(.destination)"] | unique | join(",")' "$(expect "$pmd")"
		assert_jq '[.points[] | select(.align == "pud") | "\(.source) \(.destination)"] | unique | join(",")' "$(expect "$pud")"
	fi
	# relative: both one page past a PMD boundary; misaligned: the destination three
	local p src dst
	for p in relative misaligned; do
		src=$(jq -r --arg p "$p" '.points[] | select(.align == $p) | .source' "$J" | head -n 1)
		dst=$(jq -r --arg p "$p" '.points[] | select(.align == $p) | .destination' "$J" | head -n 1)
		local want=$((3 * pg))
		[ "$p" = relative ] && want=$pg
		assert_equal "$p src $((src % pmd))" "$p src $pg"
		assert_equal "$p dst $((dst % pmd))" "$p dst $want"
		(( dst >= src + sz ))
	done
}

@test "bench: --fork-each makes each move in a fresh process; the result says which" {
	run --separate-stderr "$AR" bench -s 64k -p 100 -A relative -H none -V plain -r 2 -F -f json
	assert_success
	J="$BATS_TEST_TMPDIR/b.json"
	echo "$output" >"$J"
	assert_jq '.bench.process' fork_each
	jq_true '.points[0].supported and .points[0].n == 2'
}

@test "bench: the mremap_test preset is the three 1 GiB cases" {
	[ "${ANONREMAP_SANITIZED:-0}" = 1 ] && skip "1 GiB moves are slow under ASan"
	run --separate-stderr "$AR" bench --preset mremap_test -r 1 -f json
	assert_success
	J="$BATS_TEST_TMPDIR/b.json"
	echo "$output" >"$J"
	assert_jq '[.points[] | "\(.size) \(.align) \(.populate) \(.backing) \(.thp) \(.variant)"] | join(",")' \
		'1073741824 pte 100 shmem none plain,1073741824 pmd 100 shmem none plain,1073741824 pud 100 shmem none plain'
	# -A, -B and -H still apply
	run --separate-stderr "$AR" bench --preset mremap_test -A misaligned -B anon -H nohugepage -r 1 -f json
	assert_success
	echo "$output" >"$J"
	assert_jq '[.points[] | "\(.size) \(.align) \(.backing) \(.thp)"] | join(",")' '1073741824 misaligned anon nohugepage'
}

@test "bench-vs-selftest.sh: mremap_test and the preset, in turns, a row for each of the three cases" {
	[ "${ANONREMAP_SANITIZED:-0}" = 1 ] && skip "1 GiB moves are slow under ASan"
	run --separate-stderr "${TOP_SRCDIR:-$BATS_TEST_DIRNAME/../..}/scripts/bench-vs-selftest.sh" -r 1
	assert_success
	assert_line --index 0 --regexp '^mremap_test -t 1024 \(Linux 7\.2\) against anonremap bench --preset mremap_test$'
	assert_line --regexp '^\| alignment \| mremap_test +\| bench -P mremap_test +\| ratio +\|$'
	local c
	for c in PTE PMD PUD; do
		assert_line --regexp "^\\| $c +\\| [0-9.]+ (ms|us) +\\| [0-9.]+ (ms|us) +\\| [0-9.]+x +\\|\$"
	done
	run --separate-stderr "${TOP_SRCDIR:-$BATS_TEST_DIRNAME/../..}/scripts/bench-vs-selftest.sh" -t 100
	assert_failure 2
	[[ "$stderr" == *"-t: '100' is below 1024"* ]]
}

@test "bench: bad options are usage errors" {
	run "$AR" bench --sizes 5q
	assert_failure 2
	run "$AR" bench --populate 120
	assert_failure 2
	run "$AR" bench --align huge
	assert_failure 2
	run --separate-stderr "$AR" bench --backing file
	assert_failure 2
	[[ "$stderr" == *"--backing: 'file' is not anon or shmem"* ]]
	run --separate-stderr "$AR" bench --thp always
	assert_failure 2
	[[ "$stderr" == *"--thp: 'always' is not hugepage, nohugepage or none"* ]]
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
