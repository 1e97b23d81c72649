#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# anonremap matrix (issue 20): the generated merge cases on this kernel,
# their cells against the hand-written scenarios of merge.c, --emit, and
# diff of two matrix results.

load helper

# cell FILE ID: the cell's answer as "merged/errno/vmas", or its status
cell() {
	jq -r --arg id "$2" '.matrix.cases[] | select(.id == $id) |
		if .status == "ran" then "\(.merged)/\(.errno // "-")/\(.vmas)" else .status end' "$1"
}

@test "matrix: cells agree with merge.c's scenarios on this kernel" {
	need_feature mremap_dontunmap
	run_ar matrix -f json --op move,dontunmap --target unfaulted,faulted,forked --prev unfaulted,faulted \
		--next none,faulted
	assert_success
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/m.json"
	local m="$BATS_TEST_TMPDIR/m.json"
	# mremap_faulted_to_unfaulted_prev: faulted A moved back (DONTUNMAP)
	# after unfaulted B merges with it, unless A was forked
	run_ar run mremap_faulted_to_unfaulted_prev
	assert_success
	[[ "$(cell "$m" matrix_dontunmap_faulted_prev_unfaulted_next_none_placed)" == prev/-/2 ]]
	[[ "$(cell "$m" matrix_dontunmap_forked_prev_unfaulted_next_none_placed)" == none/-/3 ]]
	# mremap_unfaulted_between_faulted: only the faulted VMA before it
	run_ar run mremap_unfaulted_between_faulted
	assert_success
	[[ "$(cell "$m" matrix_move_unfaulted_prev_faulted_next_faulted_unplaced)" == prev/-/2 ]]
	# mremap_unfaulted_to_faulted
	run_ar run mremap_unfaulted_to_faulted
	assert_success
	[[ "$(cell "$m" matrix_move_unfaulted_prev_faulted_next_none_placed)" == prev/-/2 ]]
	# a faulted VMA keeps its page offset: born elsewhere, it cannot merge
	[[ "$(cell "$m" matrix_move_faulted_prev_unfaulted_next_none_unplaced)" == none/-/3 ]]
}

@test "matrix: a cell's layout is what its emitted scenario's final dump shows" {
	run_ar matrix -f json --op mprotect --target faulted --prev faulted --next unfaulted,prot
	assert_success
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/m.json"
	run_ar matrix --emit "$BATS_TEST_TMPDIR/e" --op mprotect --target faulted --prev faulted --next unfaulted,prot
	assert_success
	[[ "$stderr" == *"4 scenarios in $BATS_TEST_TMPDIR/e"* ]]
	[[ $(find "$BATS_TEST_TMPDIR/e" -name '*.json' | wc -l) -eq 4 ]]
	run_ar check "$BATS_TEST_TMPDIR"/e/*.json
	assert_success
	local id=matrix_mprotect_faulted_prev_faulted_next_unfaulted_placed
	run_json "$BATS_TEST_TMPDIR/e/$id.json"
	assert_success
	# the window prev..next is carveout+8p..carveout+14p (units of 2 pages)
	local got want
	got="$(jqr 'def off: if . == "carveout" then 0
			elif startswith("carveout+") then ltrimstr("carveout+") | rtrimstr("p") | tonumber
			elif startswith("carveout-") then -(ltrimstr("carveout-") | rtrimstr("p") | tonumber)
			else error("rel \(.)") end;
		[vmas[] | select((.rel | split("..")[0] | off) < 14 and (.rel | split("..")[1] | off) > 8)
		| "\(.rel) \(.perms)"] | join(",")')"
	want="$(jq -r --arg id "$id" '.matrix.cases[] | select(.id == $id) | .layout | join(",")' "$BATS_TEST_TMPDIR/m.json")"
	[[ -n "$want" && "$got" == "$want" ]]
}

@test "matrix: relocate cells run on a kernel with the series, and say unsupported without it" {
	run_ar matrix -f json --op relocate,must_relocate --target faulted --prev unfaulted --next none
	assert_success
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/m.json"
	J="$BATS_TEST_TMPDIR/m.json"
	if "$AR" probe | jq -e '.features.mremap_relocate_anon.supported' >/dev/null; then
		# the series' own claim: a relocated faulted VMA merges where it lands
		assert_jq '[.matrix.cases[] | select(.placement == "unplaced") | .merged] | join(",")' 'prev,prev'
	else
		assert_jq '[.matrix.cases[].status] | unique | join(",")' unsupported
		assert_jq '.matrix.cases[0].reason | startswith("requires mremap_relocate_anon")' true
	fi
}

@test "matrix: UFFDIO_MOVE refuses pages a fork shares (EBUSY) and needs them present (ENOENT)" {
	need_feature userfaultfd_move
	run_ar matrix -f json --op uffd_move --target unfaulted,faulted,forked --prev none --next none
	assert_success
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/m.json"
	local m="$BATS_TEST_TMPDIR/m.json"
	[[ "$(cell "$m" matrix_uffd_move_faulted_prev_none_next_none_placed)" == none/-/3 ]]
	[[ "$(cell "$m" matrix_uffd_move_forked_prev_none_next_none_placed)" == none/EBUSY/3 ]]
	[[ "$(cell "$m" matrix_uffd_move_unfaulted_prev_none_next_none_placed)" == none/ENOENT/3 ]]
}

@test "matrix: a file target merges with its unfaulted neighbours, unless 7.3's anonymous page offset disagrees" {
	run_ar matrix -f json -o "$BATS_TEST_TMPDIR/m.json" --op move --target file --prev unfaulted,file --next none
	assert_success
	local m="$BATS_TEST_TMPDIR/m.json"
	# a different memfd never merges, wherever the target was faulted
	[[ "$(cell "$m" matrix_move_file_prev_file_next_none_placed)" == none/-/3 ]]
	[[ "$(cell "$m" matrix_move_file_prev_file_next_none_unplaced)" == none/-/3 ]]
	# the same memfd at the next file offsets: placed, the anonymous offsets
	# agree too, and the two merge on every kernel that merges a moved
	# CoW-faulted file VMA with an unfaulted one at all
	local probe
	probe=$("$AR" probe | jq -c .features.anon_pgoff)
	[[ "$(jq -r .detail <<<"$probe")" != *"not seen"* ]] || skip "this kernel merges no moved CoW-faulted file VMA with an unfaulted neighbour: $(jq -r .detail <<<"$probe")"
	[[ "$(cell "$m" matrix_move_file_prev_unfaulted_next_none_placed)" == prev/-/2 ]]
	# unplaced (faulted elsewhere): merged without a separate anonymous
	# page offset (6.18, 7.2), apart with one (7.3), as merge.c's
	# anon_and_page_offset_mismatch_memfd
	if [ "$(jq -r .supported <<<"$probe")" = true ]; then
		[[ "$(cell "$m" matrix_move_file_prev_unfaulted_next_none_unplaced)" == none/-/3 ]]
		jq -e '.matrix.cases[] | select(.id == "matrix_move_file_prev_unfaulted_next_none_unplaced") | .why[] | select(contains("anon_pgoff not contiguous"))' "$m" >/dev/null ||
			[ "$("$AR" probe | jq -r .features.xray.supported)" = false ]
	else
		[[ "$(cell "$m" matrix_move_file_prev_unfaulted_next_none_unplaced)" == prev/-/2 ]]
	fi
	# the target is a private mapping of the memfd f at the destination's offset
	run_ar matrix --emit "$BATS_TEST_TMPDIR/cells" --op move --target file --prev unfaulted --next none
	assert_success
	jq -e '[.steps[] | select(.op == "mmap" and .name == "t")][0] | .file == "f" and (.flags | index("PRIVATE")) and .offset == "10p"' \
		"$BATS_TEST_TMPDIR/cells/matrix_move_file_prev_unfaulted_next_none_unplaced.json"
}

@test "matrix: text form, one line a case and the summary" {
	run_ar matrix --op mmap --prev none,unfaulted --next none,unfaulted
	assert_success
	assert_line --index 0 --regexp '^merge matrix on Linux .+: 4 cases$'
	assert_line --regexp '^mmap +unfaulted +unfaulted +unfaulted +placed +both +- +1$'
	assert_line --regexp '^mmap +unfaulted +none +none +placed +none +- +3$'
	assert_line --regexp '^4 ran \(merged: 1 both, 1 prev, 1 next, 1 none; 0 calls failed\), 0 unsupported, 0 errors$'
}

@test "matrix: diff of two matrix results names the cells that changed" {
	run_ar matrix -f json -o "$BATS_TEST_TMPDIR/a.json" --op move,mmap --target unfaulted --prev none,faulted --next none
	assert_success
	run_ar diff "$BATS_TEST_TMPDIR/a.json" "$BATS_TEST_TMPDIR/a.json"
	assert_success
	assert_output '0 cells differ'
	jq '(.matrix.cases[] | select(.id == "matrix_mmap_unfaulted_prev_faulted_next_none_placed") | .merged) = "none"' \
		"$BATS_TEST_TMPDIR/a.json" >"$BATS_TEST_TMPDIR/b.json"
	run_ar diff "$BATS_TEST_TMPDIR/a.json" "$BATS_TEST_TMPDIR/b.json"
	assert_failure 1
	assert_line --index 0 '1 cells differ'
	assert_line --index 1 matrix_mmap_unfaulted_prev_faulted_next_none_placed
	assert_line --index 2 '  A: merged prev, 2 VMAs'
	assert_line --index 3 '  B: merged none, 2 VMAs'
	# a cell only one side has
	jq 'del(.matrix.cases[0])' "$BATS_TEST_TMPDIR/a.json" >"$BATS_TEST_TMPDIR/c.json"
	run_ar diff -f json "$BATS_TEST_TMPDIR/a.json" "$BATS_TEST_TMPDIR/c.json"
	assert_failure 1
	[[ "$(jq -r '.cells[0].b' <<<"$output")" == "(no such case)" ]]
	# a matrix against a scenario result is refused
	run_json -e 'mmap a at=carveout+1p len=1p prot=rw'
	run_ar diff "$BATS_TEST_TMPDIR/a.json" "$J"
	assert_failure 2
	[[ "$stderr" == *"is a matrix result and"*"is not"* ]]
}

@test "matrix: diff answers an unsupported cell by the feature it lacks, not the kernel release in its reason" {
	run_ar matrix -f json -o "$BATS_TEST_TMPDIR/a.json" --op move --target unfaulted --prev none --next none
	assert_success
	local id=matrix_move_unfaulted_prev_none_next_none_placed
	jq --arg id "$id" '(.matrix.cases[] | select(.id == $id)) |= {id, op, target, prev, next, placement,
		status: "unsupported", reason: "requires mremap_relocate_anon: mremap(MREMAP_MUST_RELOCATE_ANON) returned EINVAL on 6.1.0-41-amd64"}' \
		"$BATS_TEST_TMPDIR/a.json" >"$BATS_TEST_TMPDIR/b.json"
	sed 's/on 6\.1\.0-41-amd64/on 7.3.0-rc7-amd64/' "$BATS_TEST_TMPDIR/b.json" >"$BATS_TEST_TMPDIR/c.json"
	run_ar diff "$BATS_TEST_TMPDIR/b.json" "$BATS_TEST_TMPDIR/c.json"
	assert_success
	assert_output '0 cells differ'
	run_ar diff "$BATS_TEST_TMPDIR/a.json" "$BATS_TEST_TMPDIR/b.json"
	assert_failure 1
	assert_line --index 2 '  A: merged none, 3 VMAs'
	assert_line --index 3 '  B: unsupported: requires mremap_relocate_anon'
	# a different missing feature is a different answer
	sed 's/requires mremap_relocate_anon/requires userfaultfd_move/' "$BATS_TEST_TMPDIR/b.json" >"$BATS_TEST_TMPDIR/d.json"
	run_ar diff "$BATS_TEST_TMPDIR/b.json" "$BATS_TEST_TMPDIR/d.json"
	assert_failure 1
	assert_line --index 0 '1 cells differ'
}

@test "matrix: a crafted matrix file is refused naming the field, not read" {
	run_ar matrix -f json -o "$BATS_TEST_TMPDIR/a.json" --op mmap --prev none --next none
	assert_success
	jq '.matrix.cases[0].id = 7' "$BATS_TEST_TMPDIR/a.json" >"$BATS_TEST_TMPDIR/b.json"
	run_ar diff "$BATS_TEST_TMPDIR/a.json" "$BATS_TEST_TMPDIR/b.json"
	assert_failure 2
	[[ "$stderr" == *"matrix.cases[0].id: expected a string, got a number"* ]]
	jq '.matrix.cases[0].layout = [[]]' "$BATS_TEST_TMPDIR/a.json" >"$BATS_TEST_TMPDIR/b.json"
	run_ar diff "$BATS_TEST_TMPDIR/a.json" "$BATS_TEST_TMPDIR/b.json"
	assert_failure 2
	[[ "$stderr" == *"matrix.cases[0].layout[0]: expected a string"* ]]
}

@test "matrix: bad options are usage errors and nothing runs" {
	run_ar matrix --op bogus
	assert_failure 2
	[[ "$stderr" == *"--op: 'bogus' is none of: "* ]]
	run_ar matrix --prev ,
	assert_failure 2
	[[ "$stderr" == *"--prev: an empty list"* ]]
	run_ar matrix extra
	assert_failure 2
	[[ "$stderr" == *"no arguments"* ]]
	[[ -z "$output" ]]
}

@test "matrix: a THP target's neighbours carry its MADV_HUGEPAGE, so vm_flags are not the answer" {
	need_feature thp
	run_ar matrix -f json --op move --target thp --prev unfaulted --next none --placement placed
	assert_success
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/m.json"
	# a faulted VMA moved back where it was born merges with the unfaulted
	# VMA before it, whatever its folio size (as the 4 KiB case does)
	[[ "$(cell "$BATS_TEST_TMPDIR/m.json" matrix_move_thp_prev_unfaulted_next_none_placed)" == prev/-/2 ]]
	! jq -e '.matrix.cases[0].why[] | select(contains("vm_flags differ"))' "$BATS_TEST_TMPDIR/m.json"
}
