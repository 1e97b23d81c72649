#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# uffd-unit-tests.c (Linux 7.2.13), the UFFDIO_MOVE cases on anonymous
# memory ("move", "move-pmd", "move-pmd-split"): each scenario translated
# from the selftest reaches the selftest's verdict on the live kernel. The C
# selftest passes them on Linux 6.18 (ok N move... on anon), so each
# scenario must pass; a kernel without UFFD_FEATURE_MOVE (before 6.8) makes
# both skip. The C's fault-handling thread is replaced by SIGBUS: each
# chunk's first read of area_dst raises it, then the scenario moves the
# chunk itself.

load helper

# uffd_case NAME [FEATURE...]: skip unless the kernel has userfaultfd_move
# (and each FEATURE), run scenarios/NAME.json, and assert it passes with
# every step ok.
uffd_case() {
	local n="$1" f
	shift
	for f in userfaultfd userfaultfd_move "$@"; do need_feature "$f"; done
	run_json -t 120 "$ANONREMAP_SCENARIO_DIR/$n.json"
	assert_success
	assert_jq 'sc.name' "$n"
	assert_jq 'sc.status' 'pass'
	assert_jq '[sc.steps[] | select(.status != "ok")] | length' '0'
}

# The UFFDIO_MOVE steps of the result.
MOVES='[sc.steps[] | select(.op == "userfaultfd" and .args.action == "move")]'

@test "uffd_unit_move: 640 one-page UFFDIO_MOVEs, each after a missing fault, each returning the page size" {
	uffd_case uffd_unit_move
	assert_jq "$MOVES | length" '640'
	assert_jq -c "[$MOVES[] | .ret] | unique" '[4096]'
	assert_jq -c "[$MOVES[] | .args.flags] | unique" '[["UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES"]]'
	assert_jq '[sc.steps[] | select(.signal.name == "SIGBUS")] | length' '640'
}

@test "uffd_unit_move_pmd: 16 PMD-sized UFFDIO_MOVEs into a MADV_HUGEPAGE destination, each returning 2 MiB" {
	uffd_case uffd_unit_move_pmd thp
	assert_jq "$MOVES | length" '16'
	assert_jq -c "[$MOVES[] | .ret] | unique" '[2097152]'
	assert_jq '[sc.steps[] | select(.signal.name == "SIGBUS")] | length' '16'
}

@test "uffd_unit_move_pmd_split: 16 PMD-sized UFFDIO_MOVEs into a MADV_NOHUGEPAGE destination (the source THP split), each returning 2 MiB" {
	uffd_case uffd_unit_move_pmd_split thp
	assert_jq "$MOVES | length" '16'
	assert_jq -c "[$MOVES[] | .ret] | unique" '[2097152]'
	# the destination's PTE table, allocated by the faulting read, makes the
	# move split the source PMD: no PMD-mapped THP lands in area_dst
	assert_jq '[sc.dumps[-1].vmas[] | select(.region == "dst")][0].anon_huge_pages' '0'
}
