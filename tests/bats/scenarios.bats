#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The scenario library against the live kernel: every scenario (and every
# variant) reaches the status that is right on this kernel. Scenarios tagged
# slow or perf are left out here; scripts/run-library.sh --all runs them.

load helper

setup_file() {
	export LIB="$BATS_FILE_TMPDIR/library.json"
	# the sanitizer run leaves the asan-slow scenarios out (XSAN_RUN)
	"$AR" run -k -t 120 -x slow -x perf "${XSAN_RUN[@]}" -o "$LIB" "$ANONREMAP_SCENARIO_DIR"/*.json || true
	export LIST="$BATS_FILE_TMPDIR/list.json"
	"$AR" list -f json >"$LIST"
}

@test "the library validates, all of it" {
	run "$AR" check "$ANONREMAP_SCENARIO_DIR"/*.json
	assert_success
}

@test "the library run produced a result for every non-slow scenario" {
	want=$(jq -r --arg san "${ANONREMAP_SANITIZED:-0}" '[.[] | select((.tags | index("slow") | not) and (.tags | index("perf") | not)
		and ($san != "1" or (.tags | index("asan-slow") | not)))] | length' "$LIST")
	got=$(jq -r '.scenarios | length' "$LIB")
	[ "$want" -gt 0 ]
	[ "$got" -eq "$want" ]
}

@test "every relocate scenario skips, naming mremap_relocate_anon and the errno" {
	names=$(jq -r '.[] | select(.requires | index("mremap_relocate_anon")) | .name' "$LIST")
	[ -n "$names" ]
	for n in $names; do
		st=$(jq -r --arg n "$n" '.scenarios[] | select(.name == $n) | .status' "$LIB")
		[ -z "$st" ] && continue # slow or perf: not run here
		reason=$(jq -r --arg n "$n" '.scenarios[] | select(.name == $n) | .reason' "$LIB")
		[ "$st" = skip ] || fail "$n: $st ($reason)"
		[[ $reason == *mremap_relocate_anon* && $reason == *EINVAL* ]] || fail "$n: reason '$reason'"
	done
}

@test "every other scenario passes (root-only ones skip without root)" {
	known=$(jq -r -f "$BATS_TEST_DIRNAME/../known-failures.jq" "$LIB" | jq -R . | jq -sc .)
	bad=$(jq -r --argjson k "$known" '.scenarios[] | select(.status != "pass" and .status != "skip")
		| select(.name as $n | $k | index($n) | not) | "\(.name): \(.status) \(.reason)"' "$LIB")
	[ -z "$bad" ] || fail "$bad"
	for n in $(jq -r '.scenarios[] | select(.status == "skip") | .name' "$LIB"); do
		req=$(jq -r --arg n "$n" '.[] | select(.name == $n) | .requires | join(",")' "$LIST")
		case $req in
		*mremap_relocate_anon*) ;;
		*xray*) [ "$("$AR" probe | jq -r .features.xray.supported)" = false ] || fail "$n skipped with the x-ray loaded" ;;
		*ksm_running*) [ "$(cat /sys/kernel/mm/ksm/run 2>/dev/null)" != 1 ] || fail "$n skipped with ksmd running" ;;
		*thp_always* | *thp_madvise* | *thp_never*)
			m=$(echo "$req" | grep -o 'thp_\(always\|madvise\|never\)' | head -n 1)
			[ "$("$AR" probe | jq -r ".features.$m.supported")" = false ] || fail "$n skipped in its own THP mode ($m)" ;;
		*root*) [ "$(id -u)" -ne 0 ] || fail "$n skipped although we are root" ;;
		*soft_dirty*) [ "$("$AR" probe | jq -r .features.soft_dirty.supported)" = false ] ||
			fail "$n skipped on a kernel that tracks soft-dirty bits" ;;
		*) fail "$n skipped: requires $req" ;;
		esac
	done
}

@test "a scenario tagged fails-without:FEATURE fails where the kernel lacks FEATURE (and merges), and passes where it has it" {
	local n=anon_and_page_offset_mismatch_memfd
	st=$(jq -r --arg n "$n" '.scenarios[] | select(.name == $n) | .status' "$LIB")
	detail=$("$AR" probe | jq -r .features.anon_pgoff.detail)
	if [ "$(jq -r .kernel.features.anon_pgoff "$LIB")" = true ]; then
		[ "$st" = pass ] || fail "$n: $st on a kernel with anon_pgoff"
	elif [[ "$detail" != *"merged them (no separate anonymous page offset)"* ]]; then
		skip "this kernel merges no moved CoW-faulted private file mapping with an unfaulted neighbour at all: $detail"
	else
		# as merge.c's own test fails here: the two VMAs merge
		[ "$st" = fail ] || fail "$n: $st on a kernel without anon_pgoff"
		reason=$(jq -r --arg n "$n" '.scenarios[] | select(.name == $n) | .reason' "$LIB")
		[ "$reason" = 'step 7 (expect vma): expected VMA containing carveout spans carveout..carveout+5p; found VMA containing carveout spans carveout..carveout+10p' ] ||
			fail "$reason"
		jq -r -f "$BATS_TEST_DIRNAME/../known-failures.jq" "$LIB" | grep -qx "$n"
	fi
}

@test "every scenario names its origin and describes its layout" {
	for f in "$ANONREMAP_SCENARIO_DIR"/*.json; do
		jq -e '(.source | test("tools/testing/selftests/mm/|not a selftest")) and (.description | length > 20)' "$f" >/dev/null ||
			fail "$f: source or description missing"
	done
}

@test "expectations hold: no failed expectation anywhere in the library run but the known failures" {
	known=$(jq -r -f "$BATS_TEST_DIRNAME/../known-failures.jq" "$LIB" | jq -R . | jq -sc .)
	n=$(jq --argjson k "$known" '[.scenarios[] | select(.name as $n | $k | index($n) | not)
		| .expectations[] | select(.ok | not)] | length' "$LIB")
	[ "$n" -eq 0 ]
	total=$(jq '[.scenarios[].expectations[]] | length' "$LIB")
	[ "$total" -gt 5 ]
}

@test "run NAME[variant] runs just that variant" {
	v=$(jq -r '[.[] | select(.name | test("\\[")) | .name][0] // empty' "$LIST")
	[ -n "$v" ] || skip "no scenario with variants in the library yet"
	run_json "$v"
	[ "$(jqr '.scenarios | length')" -eq 1 ]
	assert_jq '.scenarios[0].name' "$v"
}

@test "scripts/run-library.sh prints the counts" {
	run sh "${TOP_SRCDIR:-$BATS_TEST_DIRNAME/../..}/scripts/run-library.sh" "${XSAN_RUN[@]}"
	assert_success
	assert_output --regexp 'library: [0-9]+ pass, [0-9]+ skip, 0 fail, [0-9]+ known failures'
}

@test "variants: \"if\": \"!\$name\" keeps a step where the parameter is false; an unknown one is an error" {
	scen neg.json <<'EOS'
{"anonremap": 1, "name": "neg", "params": {"forked": false},
 "variants": {"forked": {"params": {"forked": true}}, "unforked": {}},
 "steps": [{"op": "mmap", "name": "a", "at": "carveout", "len": "1p", "prot": "rw"},
  {"op": "fork", "if": "$forked"},
  {"op": "munmap", "region": "a", "if": "!$forked"},
  {"op": "expect", "vma_count": 1, "from": "carveout", "to": "carveout+1p", "if": "$forked"}]}
EOS
	run_json -f json "$S"
	assert_equal "$status" 0
	jq -e '[.scenarios[] | [.name, [.steps[].op]]] == [["neg[forked]", ["mmap", "fork", "expect"]], ["neg[unforked]", ["mmap", "munmap"]]]' "$J"
	sed -i 's/!\$forked/!$nope/' "$S"
	run_ar check "$S"
	assert_equal "$status" 2
	[[ "$stderr" == *"step 2: if: unknown parameter '\$nope'"* ]]
}
