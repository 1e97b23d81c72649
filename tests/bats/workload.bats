#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# anonremap workload art-gc (issue 20): ART's GC cycle, N times, in four
# strategies, on the live kernel. What the kernel does is asserted where
# scenarios/art_gc_cycle* assert it too (one heap VMA with the workaround,
# two without); times are measured, never asserted.

load helper

setup_file() {
	export WJ="$BATS_FILE_TMPDIR/w.json"
	"$AR" workload art-gc -n 3 -f json -o "$BATS_FILE_TMPDIR/w-o.json" --plot "$BATS_FILE_TMPDIR/w.gp" >"$WJ" ||
		echo "exit $?" >"$BATS_FILE_TMPDIR/w.status"
	"$AR" probe >"$BATS_FILE_TMPDIR/probe.json"
}

wjq() { # FILTER: on the workload document
	jq -r "$@" "$WJ"
}

supported() {
	[ "$(jq -r --arg f "$1" '.features[$f].supported' "$BATS_FILE_TMPDIR/probe.json")" = true ]
}

@test "workload art-gc: four strategies, each cycle's every chunk verified, none of ART's calls failing" {
	need_feature userfaultfd
	need_feature mremap_dontunmap
	[ ! -e "$BATS_FILE_TMPDIR/w.status" ] || fail "workload: $(cat "$BATS_FILE_TMPDIR/w.status")"
	assert_equal "$(wjq -c '[.workload.strategies[].name]')" '["art","no-workaround","relocate","uffd-move"]'
	assert_equal "$(wjq '.workload.params | [.cycles, .heap_pages, .chunks] | map(tostring) | join(" ")')" "3 2048 16"
	# the used part is the heap less one PMD, in 16 chunks
	assert_equal "$(wjq '.workload.params | .used_pages == .heap_pages - 512 and .chunks * .chunk_pages == .used_pages')" true
	local s
	for s in art no-workaround; do
		assert_equal "$(wjq --arg s "$s" '.workload.strategies[] | select(.name == $s) | .status')" ran
		assert_equal "$(wjq --arg s "$s" '[.workload.strategies[] | select(.name == $s) | .cycles[].cycle] | map(tostring) | join(" ")')" "1 2 3"
		# every chunk is checked after compaction: live data moved down, zeros above
		assert_equal "$(wjq --arg s "$s" '[.workload.strategies[] | select(.name == $s) | .cycles[]
			| .verified_pages == $w.params.chunks * $w.params.chunk_pages] | all' --argjson w "$(wjq -c .workload)")" true
		assert_equal "$(wjq --arg s "$s" '.workload.strategies[] | select(.name == $s) | .totals.failed_calls')" 0
	done
	# ratios are to art's time; art's own is 1
	assert_equal "$(wjq '.workload.strategies[0].ratio | [.to, .time_ns] | map(tostring) | join(" ")')" "art 1"
	# -o writes the same document
	assert_equal "$(jq -c '.workload.params' "$BATS_FILE_TMPDIR/w-o.json")" "$(wjq -c '.workload.params')"
}

@test "workload art-gc: with ART's workaround the heap is one VMA after every cycle; without it, two (as art_gc_cycle*)" {
	need_feature userfaultfd
	need_feature mremap_dontunmap
	! kernel_before 6 17 || skip "before 6.17 the next cycle's mremap of a two-VMA heap fails (art.bats checks that EFAULT)"
	assert_equal "$(wjq -c '[.workload.strategies[] | select(.name == "art") | .cycles[].heap_vmas]')" '[1,1,1]'
	assert_equal "$(wjq -c '[.workload.strategies[] | select(.name == "no-workaround") | .cycles[].heap_vmas]')" '[2,2,2]'
}

@test "workload art-gc: relocate and uffd-move run exactly where the kernel has the feature, else say why" {
	need_feature userfaultfd
	local s f
	for s in relocate:mremap_relocate_anon uffd-move:userfaultfd_move; do
		f=${s#*:} s=${s%%:*}
		if supported "$f"; then
			assert_equal "$(wjq --arg s "$s" '.workload.strategies[] | select(.name == $s) | .status')" ran
			assert_equal "$(wjq --arg s "$s" '.workload.strategies[] | select(.name == $s) | .totals.failed_calls')" 0
		else
			assert_equal "$(wjq --arg s "$s" '.workload.strategies[] | select(.name == $s) | .status')" unsupported
			wjq --arg s "$s" '.workload.strategies[] | select(.name == $s) | .reason' | grep -qF "$f" ||
				fail "$s: the reason does not name $f"
			assert_equal "$(wjq --arg s "$s" '.workload.strategies[] | select(.name == $s) | has("cycles")')" false
		fi
	done
}

@test "workload art-gc: heap VMA counts agree with the maps lines of the emitted scenario's own run" {
	need_feature userfaultfd
	need_feature mremap_dontunmap
	local d="$BATS_TEST_TMPDIR/emit" s want got
	run_ar workload art-gc -n 3 --emit "$d" -s art,no-workaround
	assert_success
	assert_equal "$(ls "$d" | tr '\n' ' ')" "art_gc_workload_art.json art_gc_workload_no_workaround.json "
	run "$AR" check "$d"/*.json
	assert_success
	for s in art no-workaround; do
		"$AR" run -o "$BATS_TEST_TMPDIR/r.json" "$d/art_gc_workload_${s//-/_}.json" || true
		# the heap's bounds from its mmap step (heap, a PMD, then the
		# from-space of the same length), then the /proc/PID/maps lines of
		# each cycle's dump that start inside [heap, from-space end): the
		# kernel's own text, parsed here, not by anonremap
		local lo len hi i a line n
		lo=$(( $(jq -r '.scenarios[0].steps[1].ret' "$BATS_TEST_TMPDIR/r.json") ))
		len=$(jq -r '.scenarios[0].steps[1].args.len' "$BATS_TEST_TMPDIR/r.json")
		hi=$((lo + 2 * len + 2 * 1024 * 1024))
		got="["
		for ((i = 1; i < $(jq '.scenarios[0].dumps | length' "$BATS_TEST_TMPDIR/r.json"); i++)); do
			n=0
			while read -r line; do
				a=$((16#${line%%-*}))
				((a >= lo && a < hi)) && n=$((n + 1))
			done < <(jq -r --argjson i "$i" '.scenarios[0].dumps[$i].vmas[].maps_line' "$BATS_TEST_TMPDIR/r.json")
			got+="$([ "$got" = "[" ] || echo ,)$n"
		done
		got+="]"
		want=$(wjq -c --arg s "$s" '[.workload.strategies[] | select(.name == $s) | .cycles[] | .heap_vmas + .fromspace_vmas]')
		assert_equal "$got" "$want"
	done
}

@test "workload art-gc --plot: a gnuplot script with one data block a strategy that ran, one row a cycle" {
	need_feature userfaultfd
	need_feature mremap_dontunmap
	local gp="$BATS_FILE_TMPDIR/w.gp" n
	[ -s "$gp" ]
	n=$(wjq '[.workload.strategies[] | select(has("cycles"))] | length')
	assert_equal "$(grep -c '^\$s[0-9]* << EOD$' "$gp")" "$n"
	assert_equal "$(grep -cE '^[0-9]+ [0-9.]+ [0-9]+$' "$gp")" "$((n * 3))"
	grep -qF "set output '$gp.png'" "$gp"
	# the data are the document's: art's first cycle
	assert_equal "$(sed -n '/^\$s0 << EOD$/,/^EOD$/p' "$gp" | sed -n 3p | cut -d' ' -f1,3)" \
		"$(wjq '.workload.strategies[0].cycles[0] | "\(.cycle) \(.heap_vmas)"')"
}

@test "workload: usage errors are exit 2, named, before anything runs" {
	run_ar workload
	assert_failure 2
	[[ "$stderr" == *"a workload is needed"* ]]
	run_ar workload art-gc --heap 3m
	assert_failure 2
	[[ "$stderr" == *"not a whole number of PMDs"* ]]
	run_ar workload art-gc --live 1.5
	assert_failure 2
	[[ "$stderr" == *"not a fraction"* ]]
	run_ar workload art-gc --chunks 0
	assert_failure 2
	run_ar workload art-gc -s art,gc
	assert_failure 2
	[[ "$stderr" == *"'gc' is none of"* ]]
	run_ar workload art-gc -n 1000 -c 64
	assert_failure 2
	[[ "$stderr" == *"more than a scenario's 4096"* ]]
	run_ar workload other
	assert_failure 2
	[[ "$stderr" == *"no workload"* ]]
}
