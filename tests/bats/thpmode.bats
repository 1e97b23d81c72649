#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The system THP mode as a requirement (prctl_thp_disable.c, issue 18): the
# features thp_always, thp_madvise and thp_never read the machine's setting,
# which anonremap never writes; the scenario variant of this machine's mode
# runs here and the others skip, saying which mode the machine is in.
# check-relocate runs the other two modes in guests (anonremap-vm --thp).

load helper

# the machine's mode, as transparent_hugepage/enabled brackets it
machine_mode() {
	sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled
}

@test "thp_always, thp_madvise, thp_never: exactly the machine's mode, with the PMD size inheriting it" {
	[ -r /sys/kernel/mm/transparent_hugepage/enabled ] || skip "this kernel has no THP (no /sys/kernel/mm/transparent_hugepage)"
	local mode pmdkb f inherit=true
	mode=$(machine_mode)
	pmdkb=$(($(cat /sys/kernel/mm/transparent_hugepage/hpage_pmd_size) / 1024))
	f=/sys/kernel/mm/transparent_hugepage/hugepages-${pmdkb}kB/enabled
	[ ! -r "$f" ] || grep -q '\[inherit\]' "$f" || inherit=false
	p=$("$AR" probe)
	for m in always madvise never; do
		want=false
		[ "$m" = "$mode" ] && [ "$inherit" = true ] && want=true
		[ "$(jq -r ".features.thp_$m.supported" <<<"$p")" = "$want" ] || fail "thp_$m: $(jq -c ".features.thp_$m" <<<"$p")"
		[[ "$(jq -r ".features.thp_$m.detail" <<<"$p")" == "transparent_hugepage/enabled is [$mode]"* ]]
	done
}

@test "prctl_thp_disable: the variant of the machine's mode runs and passes, the others skip naming the mode" {
	need_feature thp_disable_except_advised
	local mode
	mode=$(machine_mode)
	"$AR" probe | jq -e ".features.thp_$mode.supported" >/dev/null ||
		skip "this machine's PMD size does not inherit the THP mode: $("$AR" probe | jq -r ".features.thp_$mode.detail")"
	run_json "$ANONREMAP_SCENARIO_DIR"/prctl_thp_disable_*.json
	assert_success
	assert_jq "[.scenarios[] | select(.name | endswith(\"[$mode]\")) | .status] | unique | join(\",\")" pass
	assert_jq "[.scenarios[] | select(.name | endswith(\"[$mode]\"))] | length" 4
	assert_jq "[.scenarios[] | select(.status == \"skip\") | .reason | test(\"^requires thp_(always|madvise|never): transparent_hugepage/enabled is \\\\[$mode\\\\]\")] | all" true
	assert_jq '.summary.skip' 8
	# each check is live: the except_madvise test's MADV_HUGEPAGE (its third
	# check) gives a THP unless the mode is never
	local want=512
	[ "$mode" != never ] || want=0
	assert_jq "[.scenarios[] | select(.name == \"prctl_thp_disable_except_madvise_nofork[$mode]\") | .expectations[2].found][0]" \
		"VMA carveout+512p..carveout+1024p has $want pages in PMD-mapped huge pages"
}
