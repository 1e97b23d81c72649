#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# madv_populate.c and map_fixed_noreplace.c (Linux 7.2.13): each scenario
# translated from the selftest reaches its verdict on the live kernel (the C
# tests pass every point on 6.18), and each assertion is live: the same
# steps with the opposite expectation fail.

load helper

# run_case NAME: run scenarios/NAME.json; it must pass, every step ok.
run_case() {
	run_json "$ANONREMAP_SCENARIO_DIR/$1.json"
	assert_success
	assert_jq 'sc.status' 'pass'
	assert_jq '[sc.steps[] | select(.status != "ok")] | length' '0'
}

@test "madv_populate_prot_read: POPULATE_READ of PROT_READ succeeds, POPULATE_WRITE fails with EINVAL" {
	run_case madv_populate_prot_read
	assert_jq 'st(1).ret' '0'
	assert_jq 'st(2).errno' 'EINVAL'
}

@test "madv_populate_prot_write: POPULATE_READ of PROT_WRITE fails with EINVAL, POPULATE_WRITE succeeds" {
	run_case madv_populate_prot_write
	assert_jq 'st(1).errno' 'EINVAL'
	assert_jq 'st(2).ret' '0'
}

@test "madv_populate_holes: a hole in the middle, at the end or the beginning is ENOMEM, read and write" {
	run_case madv_populate_holes
	assert_jq '[sc.steps[] | select(.op == "madvise") | .errno] | join(",")' 'ENOMEM,ENOMEM,ENOMEM,ENOMEM,ENOMEM,ENOMEM'
}

@test "madv_populate_populate_read and _write: 512 unpopulated pages, then 512 populated ones" {
	local k
	for k in read write; do
		run_case "madv_populate_populate_$k"
		assert_jq 'sc.expectations[0].found | endswith(": .{512}")' 'true'
		assert_jq 'sc.expectations[1].found | test(": [xsHw{}0-9]+$")' 'true'
	done
	# a read populate of private anonymous memory maps the shared zero
	# page: populated, not exclusive (where the kernel has a zero page)
	if "$AR" probe | jq -e '.features.zero_page.supported' >/dev/null; then
		run_case madv_populate_populate_read
		assert_jq 'sc.expectations[1].found | endswith(": s{512}")' 'true'
	fi
	# the check is live: the populated range is not unpopulated
	jq '.steps[3].pages = ".{512}"' "$ANONREMAP_SCENARIO_DIR/madv_populate_populate_write.json" >"$BATS_TEST_TMPDIR/w.json"
	run_json "$BATS_TEST_TMPDIR/w.json"
	assert_failure 1
	assert_jq 'sc.expectations[1].found | endswith(": x{512}")' 'true'
}

@test "map_fixed_noreplace: the four overlapping mmaps fail with EEXIST, the rest map where asked" {
	run_case map_fixed_noreplace
	assert_jq '[sc.steps[] | select(.op == "mmap") | .errno // "ok"] | join(",")' 'ok,ok,EEXIST,EEXIST,EEXIST,EEXIST,ok,ok'
	assert_jq '[sc.steps[] | select(.op == "mmap" and .errno == null) | .ret_rel] | join(",")' \
		'carveout,carveout+1p,carveout,carveout+4p'
	# with the filler the carveout normally gets, the first mmap overlaps it
	jq 'del(.carveout.fill)' "$ANONREMAP_SCENARIO_DIR/map_fixed_noreplace.json" >"$BATS_TEST_TMPDIR/f.json"
	run_json "$BATS_TEST_TMPDIR/f.json"
	assert_failure 1
	assert_jq 'st(0).errno' 'EEXIST'
}

@test "madv_populate_softdirty: cleared, not soft-dirty; POPULATE_READ leaves it so; POPULATE_WRITE makes every page soft-dirty" {
	need_feature soft_dirty
	run_case madv_populate_softdirty
	assert_jq '[sc.expectations[] | .check] | join(",")' 'soft_dirty,soft_dirty,soft_dirty'
	assert_jq 'sc.expectations[2].found' '512 of 512 pages soft-dirty'
	assert_jq 'sc.expectations[1].found' '0 of 512 pages soft-dirty'
	# the check is live: without clear_soft_dirty the new pages are soft-dirty
	# (a new VMA is), so "not soft-dirty" fails
	jq 'del(.steps[1])' "$ANONREMAP_SCENARIO_DIR/madv_populate_softdirty.json" >"$BATS_TEST_TMPDIR/s.json"
	run_json "$BATS_TEST_TMPDIR/s.json"
	assert_failure 1
}

@test "soft_dirty: the probe says why it is false, and clear_soft_dirty runs anyway" {
	local f
	f="$("$AR" probe | jq -c '.features.soft_dirty')"
	if [ "$(jq -r .supported <<<"$f")" = false ]; then
		[[ "$(jq -r .detail <<<"$f")" == *"soft-dirty bit clear (no CONFIG_MEM_SOFT_DIRTY?) on $(uname -r)"* ]]
	fi
	run_json -e 'mmap a at=carveout len=1p prot=rw' -e 'clear_soft_dirty'
	assert_success
	assert_jq 'st(1).ret' '0'
}
