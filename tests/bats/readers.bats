#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The readers of result files (show, diff, replay) on hostile input (issue
# 19, item 4): every file is a real result of a library scenario, edited
# with jq the way the tester found the crashes and hangs. And the stable
# comparison (item 7): replaying the library on the kernel that recorded it
# says "same", a genuine difference still says DIFFERENT.

load helper

setup_file() {
	export R="$BATS_FILE_TMPDIR/expand.json"
	# a merge (step 3) between dumps, *_rel arguments, an expectation
	"$AR" run -f json "$ANONREMAP_SCENARIO_DIR/mremap_test_expand_merge.json" >"$R"
}

# mutate FILTER: the result edited by jq FILTER, in $M
mutate() {
	M="$BATS_TEST_TMPDIR/m-$RANDOM.json"
	jq "$1" "$R" >"$M"
}

# bounded CMD...: CMD under timeout 10 with its stdout cut at 1 MB: diff
# once looped printing for ever, and a regression must not fill bats'
# memory. Sets $status (CMD's: 124 when it timed out), $output, $lines and
# $stderr as run does.
bounded() {
	local o="$BATS_TEST_TMPDIR/bounded"
	{
		local st=0
		timeout 10 "$@" 2>"$o.err" || st=$?
		echo "$st" >"$o.rc"
	} | head -c 1000000 >"$o.out"
	status=$(cat "$o.rc")
	output=$(cat "$o.out")
	stderr=$(cat "$o.err")
	mapfile -t lines <<<"$output"
}

# each_reader STATUS TEXT: show, diff and replay of $M all exit STATUS and say TEXT
each_reader() {
	local cmd
	for cmd in show diff replay; do
		local args=("$M")
		[ "$cmd" = diff ] && args=("$R" "$M")
		bounded "$AR" "$cmd" "${args[@]}"
		[ "$status" -eq "$1" ] || fail "$cmd exited $status, expected $1; stderr: $stderr"
		[[ "$stderr" == *"$2"* ]] || fail "$cmd: '$2' not in stderr: $stderr"
	done
}

@test "the unedited result is valid to every reader (so the edits below are what is refused)" {
	run_ar show "$R"
	assert_success
	run_ar diff "$R" "$R"
	assert_success
	assert_line "  same"
}

@test "a non-string *_rel argument: exit 2 naming its path, not a segfault in show" {
	mutate '.scenarios[0].steps[1].args.addr_rel = 4096'
	each_reader 2 "m-"
	each_reader 2 ": .scenarios[0].steps[1].args.addr_rel: expected a string, got a number"
	mutate '.scenarios[0].steps[3].args.old_address_rel = {"x": 1}'
	each_reader 2 ": .scenarios[0].steps[3].args.old_address_rel: expected a string, got an object"
}

@test "\"region\": []: exit 2 naming its path; a merge of many regions is still drawn" {
	mutate '.scenarios[0].dumps[1].vmas[1].region = []'
	each_reader 2 ": .scenarios[0].dumps[1].vmas[1].region: expected the names of the merged regions, got an empty array"
	mutate '.scenarios[0].dumps[1].vmas[1].region = ["start", 3]'
	each_reader 2 ": .scenarios[0].dumps[1].vmas[1].region[1]: expected a string, got a number"
	# a box as wide as 40 regions overran its 128-column cell
	mutate '.scenarios[0].dumps[1].vmas[1].region = [range(40) | "r\(.)"]'
	run_ar show "$M"
	assert_success
	assert_output --partial "r0+r1+r2"
}

@test "diff: a VMA rel that is not a string is refused at once; one that is not a span ends" {
	mutate '.scenarios[0].dumps[0].vmas[1].rel = 7'
	bounded "$AR" diff "$M" "$M"
	assert_failure 2
	[[ "$stderr" == *": .scenarios[0].dumps[0].vmas[1].rel: expected a string, got a number" ]]
	# a string the side-by-side table cannot place: it is listed alone, and
	# the table ends (it once looped, printing for ever)
	mutate '.scenarios[0].dumps[0].vmas[1].rel = "x" | .scenarios[0].dumps[0].vmas[2].rel = "start+1p..start+2p"'
	bounded "$AR" diff "$M" "$M"
	assert_success
	assert_line --regexp '^    x rw-p .* \| +<-- only in A$'
	assert_line --regexp '^ +\| x rw-p .*<-- only in B$'
	[ "${#output}" -lt 20000 ]
	bounded "$AR" diff "$R" "$M"
	assert_failure 1
	assert_line --partial "vma: A carveout+1p..carveout+2p rw-p, B absent"
}

@test "a truncated rel is drawn without reading past it (rel_pages)" {
	for rel in "" c carv carveout carveout+ "carveout+1p.." "carveout+1p..c" "carveout+99999999999999999999p..carveout-99999999999999999999p"; do
		M="$BATS_TEST_TMPDIR/rel.json"
		jq --arg r "$rel" '.scenarios[0].dumps[0].vmas[1].rel = $r | .scenarios[0].dumps[0].vmas[2].rel = $r' "$R" >"$M"
		bounded "$AR" show "$M"
		assert_success
		# the table prints the rel as it is (an empty one falls back to start)
		[ -z "$rel" ] || assert_output --partial "    $rel "
	done
}

@test "a wrong type deep in dumps or out of range as a count: exit 2 with its path" {
	mutate '.scenarios[0].dumps[1].vmas[2].pages_state = 5'
	each_reader 2 ": .scenarios[0].dumps[1].vmas[2].pages_state: expected a string or null, got a number"
	mutate '.scenarios[0].dumps[1].vma_count = 1e308'
	each_reader 2 ": .scenarios[0].dumps[1].vma_count: expected an integer from 0 to 2147483647, got 1e+308"
	mutate '.scenarios[0].dumps[0].non_merges = [{"at": null}]'
	each_reader 2 ": .scenarios[0].dumps[0].non_merges[0].at: expected a string, got null"
	mutate '.scenarios[0].expectations[0].ok = "yes"'
	each_reader 2 ": .scenarios[0].expectations[0].ok: expected a boolean, got a string"
	# readers look keys up case-insensitively too: a twin key is checked
	mutate '.scenarios[0].dumps[1].vmas[0].REL = 1'
	each_reader 2 ": .scenarios[0].dumps[1].vmas[0].rel: expected a string, got a number"
}

@test "a size too large for any call is printed as a number (the fuzzer's 1e102 len)" {
	mutate '.scenarios[0].steps[0].args.len = 2.02222e+102'
	run_ar show "$M"
	assert_success
	assert_output --regexp '\[ 0\] mmap +addr=carveout\+1p len=2022220000'
}

# big: 500 copies of the result's scenario, far more text than a pipe
# holds, each with a VMA whose rel diff's table cannot place (the table
# once looped on it, writing for ever to a reader long gone)
big() {
	BIG="$BATS_TEST_TMPDIR/big.json"
	jq '.scenarios = [range(500) as $i | .scenarios[0] | .name = "s\($i)" | .dumps[0].vmas[1].rel = "x"]' "$R" >"$BIG"
}

@test "show and diff stop when the reader goes away (| head -1), exit 3" {
	big
	for cmd in show diff; do
		args=("$BIG")
		[ "$cmd" = diff ] && args=("$BIG" "$BIG")
		start=$SECONDS
		run bash -c 'timeout 60 "$@" | head -n 1 >/dev/null; echo "${PIPESTATUS[0]}"' _ "$AR" "$cmd" "${args[@]}"
		assert_success
		# 3: the output could not be written (not 124, the timeout)
		assert_output 3
		[ $((SECONDS - start)) -lt 30 ]
	done
}

@test "every field of a real result mutated in type: show, diff and replay exit 0, 1 or 2, never a signal or a hang" {
	local d="$BATS_TEST_TMPDIR/mut" n=0 refused=0 i st cmd
	mkdir -p "$d"
	# One edit per distinct field (array indices folded to the first
	# element's), each leaf or subtree replaced by one of five values in
	# turn; the kernel's config, probe and settings are one field each, the
	# embedded scenario its top keys (replay's scenario validator has its
	# own fuzz harness).
	jq -c '. as $doc
		| [paths | select((.[0] != "config" and .[0] != "probe" and .[0] != "settings" or length == 1)
			and (.[0] != "kernel" or length <= 2) and (.[2] != "scenario" or length <= 3))
			| map(if type == "number" then 0 else . end)] | unique
		| to_entries[] | .key as $k | .value as $p
		| $doc | setpath($p; ([[], {}, 1e308, "x", null][$k % 5]))' "$R" |
		while IFS= read -r line; do
			printf '%s\n' "$line" >"$d/$(printf %04d "$n").json"
			n=$((n + 1))
		done
	n=$(find "$d" -name '*.json' | wc -l)
	[ "$n" -gt 100 ]
	for i in "$d"/*.json; do
		for cmd in show diff replay; do
			args=("$i")
			[ "$cmd" = diff ] && args=("$R" "$i")
			st=0
			timeout 10 "$AR" "$cmd" "${args[@]}" >/dev/null 2>"$d/err" || st=$?
			case $st in
			0 | 1) ;;
			2) refused=$((refused + 1)) ;;
			*) fail "$cmd on $i exited $st: $(head -n 5 "$d/err")" ;;
			esac
		done
	done
	# most edits are type errors the readers refuse: the check is in effect
	[ "$refused" -gt "$n" ]
}

@test "replay of the whole library on the kernel that recorded it: every scenario the same" {
	local lib="$BATS_TEST_TMPDIR/lib.json"
	# as scenarios.bats runs it: slow and perf are left to the VM, and the
	# sanitized build leaves out the asan-slow scenarios (XSAN_RUN)
	"$AR" run -k -t 120 -x slow -x perf "${XSAN_RUN[@]}" -f json -o "$lib" "$ANONREMAP_SCENARIO_DIR"/*.json || true
	n=$(jq '.scenarios | length' "$lib")
	[ "$n" -gt 50 ]
	# forks and kernel-placed moves are in it (what used to differ)
	jq -e '[.scenarios[].steps[] | select(.op == "fork" and .ret > 0)] | length > 0' "$lib"
	jq -e '[.scenarios[].steps[] | select(.op == "mremap" and (.args.flags | index("MREMAP_DONTUNMAP"))
		and (.args.flags | index("MREMAP_FIXED") | not) and .ret_rel != .args.old_address_rel)] | length > 0' "$lib"
	run_ar replay -f json "$lib"
	[ "$status" -eq 0 ] || fail "replay exited $status: $(jq -c '[.scenarios[] | select(.same | not)]' <<<"$output")"
	[ "$(jq '[.scenarios[] | select(.same)] | length' <<<"$output")" -eq "$n" ]
	run_ar replay "$lib"
	assert_success
	assert_line "forked_target_vma: same"
	assert_line "forked_source_vma: same"
	refute_output --partial DIFFERENT
}

@test "diff: each region the kernel placed is its own anchor (guard_regions_mremap_expand's ptr_new below or above ptr)" {
	local a="$BATS_TEST_TMPDIR/a.json" b="$BATS_TEST_TMPDIR/b.json" c="$BATS_TEST_TMPDIR/c.json" p q
	"$AR" run -o "$a" "$ANONREMAP_SCENARIO_DIR/guard_regions_mremap_expand.json"
	# step 9 places ptr_new (20 pages) where a hole fits: how far from ptr
	# (step 0) depends on the holes ASLR left, as CI saw (placed-1549p
	# against placed-35267p). The same run with ptr_new 40,000 pages
	# further from the carveout, on the side it is on: towards the carveout
	# it could land inside the reservation (its guards are 16,384 pages),
	# where an address is carveout-relative, not a placed region's.
	p=$(jq -r '.scenarios[0].steps[9].ret_rel | ltrimstr("carveout") | rtrimstr("p")' "$a")
	[[ "$(jq -r '.scenarios[0].steps[10].ret_rel' "$a")" == "carveout${p}p" ]]
	if [ "$p" -ge 0 ]; then q=$(printf '%+d' $((p + 40000))); else q=$((p - 40000)); fi
	jq --arg p "$p" --arg q "$q" 'walk(if type == "string" then
		(capture("^carveout(?<n>[-+][0-9]+)p$") // null) as $m
		| if $m and (($m.n | tonumber) - ($p | tonumber)) >= 0 and (($m.n | tonumber) - ($p | tonumber)) < 20
		  then "carveout\(($m.n | tonumber) - ($p | tonumber) + ($q | tonumber) | if . >= 0 then "+\(.)" else tostring end)p"
		  else . end else . end)' "$a" >"$b"
	[[ "$(jq -r '.scenarios[0].steps[10].ret_rel' "$b")" == "carveout${q}p" ]]
	run_ar diff "$a" "$b"
	assert_success
	assert_output --partial "same"
	# a move that lands one page off ptr_new is still a difference
	jq '.scenarios[0].steps[10].ret_rel |= sub("(?<n>[0-9]+)p$"; "\((.n | tonumber) + 1)p")' "$b" >"$c"
	run_ar diff "$a" "$c"
	assert_failure 1
	assert_output --partial "step 10 (mremap)"
}

@test "a genuine difference still says DIFFERENT: bounds, a failed fork, an in-place move" {
	local rec="$BATS_TEST_TMPDIR/rec.json"
	"$AR" run -f json -o "$rec" "$ANONREMAP_SCENARIO_DIR/forked_source_vma.json" \
		"$ANONREMAP_SCENARIO_DIR/mremap_dontunmap_simple.json"
	run_ar replay "$rec"
	assert_success
	# the last dump of the fork scenario, its second VMA one page shorter
	jq '(.scenarios[0].dumps[-1].vmas[1].rel) |= sub("\\+(?<n>[0-9]+)p$"; "+\(.n | tonumber - 1)p")' "$rec" >"$BATS_TEST_TMPDIR/bounds.json"
	run_ar replay "$BATS_TEST_TMPDIR/bounds.json"
	assert_failure 1
	assert_line "forked_source_vma: DIFFERENT"
	assert_line --regexp '^  dump [0-9]+ .*: vma: recorded carveout\+[0-9]+p\.\.carveout\+[0-9]+p [-rwxps]+, now absent$'
	assert_line "mremap_dontunmap_simple: same"
	# a fork that failed is not "a child pid"
	jq '(.scenarios[0].steps[] | select(.op == "fork") | .ret) = -1' "$rec" >"$BATS_TEST_TMPDIR/nofork.json"
	run_ar replay "$BATS_TEST_TMPDIR/nofork.json"
	assert_failure 1
	assert_line --regexp '^  step [0-9]+ \(fork\): ret: recorded -1, now a child pid$'
	# a move the kernel placed, recorded as done in place
	jq '(.scenarios[1].steps[] | select(.op == "mremap") | .ret_rel) |= "carveout+1p"' "$rec" >"$BATS_TEST_TMPDIR/inplace.json"
	run_ar replay "$BATS_TEST_TMPDIR/inplace.json"
	assert_failure 1
	assert_line "  step 3 (mremap): ret: recorded at old_address (as asked), now not at old_address: where the kernel chose"
	# and diff compares alike: the two recordings are the same, the edit is not
	"$AR" run -f json -o "$BATS_TEST_TMPDIR/rec2.json" "$ANONREMAP_SCENARIO_DIR/forked_source_vma.json" \
		"$ANONREMAP_SCENARIO_DIR/mremap_dontunmap_simple.json"
	run_ar diff "$rec" "$BATS_TEST_TMPDIR/rec2.json"
	assert_success
	run_ar diff "$BATS_TEST_TMPDIR/bounds.json" "$BATS_TEST_TMPDIR/rec2.json"
	assert_failure 1
}

@test "replay of a dump of scope all: anonremap's own VMAs and a kernel-placed region compare by what they map" {
	local s="$BATS_TEST_TMPDIR/all.json" rec="$BATS_TEST_TMPDIR/all.r.json"
	cat >"$s" <<'JSON'
{"anonremap": 1, "name": "scope_all", "steps": [
  {"op": "mmap", "name": "a", "len": "3p", "prot": "rw"},
  {"op": "fault", "at": "a", "len": "1p"},
  {"op": "dump", "scope": "all"}]}
JSON
	"$AR" run -f json -o "$rec" "$s"
	# the kernel placed a outside the reservation; [vsyscall]'s pagemap is
	# unreadable, so its pages_state is null (replay once refused its own file)
	jq -e '[.scenarios[0].dumps[0].vmas[] | select(.region == "a")] | length == 1' "$rec"
	jq -e '[.scenarios[0].dumps[0].vmas[] | select(.pages_state == null)] | length > 0' "$rec"
	jq -e '[.scenarios[0].dumps[0].vmas[] | select(.name == "[heap]" or (.name | test("libc")))] | length > 0' "$rec"
	run_ar replay "$rec"
	assert_success
	assert_line "scope_all: same"
	# the region's own pages are the scenario's: a page more faulted differs
	jq '(.scenarios[0].dumps[0].vmas[] | select(.region == "a") | .pages_state) = "xx."' "$rec" >"$BATS_TEST_TMPDIR/state.json"
	run_ar replay "$BATS_TEST_TMPDIR/state.json"
	assert_failure 1
	assert_line "  dump 0 (after step 2): pages_state of placed+0p..placed+3p rw-p: recorded xx., now x.."
	# and so are its bounds, from where the kernel placed it (step 0)
	jq '(.scenarios[0].dumps[0].vmas[] | select(.region == "a") | .rel) |= (split("..") | .[0] + ".." +
		(.[1] | capture("^carveout(?<n>[-+][0-9]+)p$") | (.n | tonumber + 1) as $e |
		"carveout" + (if $e >= 0 then "+" else "" end) + ($e | tostring) + "p"))' "$rec" >"$BATS_TEST_TMPDIR/size.json"
	run_ar replay "$BATS_TEST_TMPDIR/size.json"
	assert_failure 1
	assert_line "  dump 0 (after step 2): vma: recorded placed+0p..placed+4p rw-p, now absent"
	assert_line "  dump 0 (after step 2): vma: recorded absent, now placed+0p..placed+3p rw-p"
	# a library anonremap's process no longer maps differs too
	jq '(.scenarios[0].dumps[0].vmas[] | select(.name | test("libc")) | .name) |= sub("libc"; "libq")' "$rec" >"$BATS_TEST_TMPDIR/lib.json"
	run_ar replay "$BATS_TEST_TMPDIR/lib.json"
	assert_failure 1
	assert_line --regexp '^  dump 0 \(after step 2\): vma: recorded /.*libq.* r-xp, now absent$'
}
