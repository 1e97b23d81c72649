# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 22 goal 3: -f ktap without -R takes no dump (KTAP shows none), and
# that cut changes no JSON result and no verdict; bench-overhead.sh's (f)
# section, the library against the kernel's selftest binaries, runs.

load helper

TOP="$BATS_TEST_DIRNAME/../.."
NORM="$BATS_TEST_DIRNAME/overhead-norm.jq"

# The whole library three ways, without ASLR so that the addresses of two
# runs agree: the JSON result; KTAP with -R, which writes the JSON result
# too and so must take every dump; plain KTAP, which takes none.
# Under ASan the scenarios tagged asan-slow are left out (XSAN_RUN).
setup_file() {
	local d=$BATS_FILE_TMPDIR
	setarch -R "$AR" run -k -t 300 "${XSAN_RUN[@]}" -o "$d/json.json" "$TOP"/scenarios/*.json >/dev/null 2>"$d/json.err" || true
	setarch -R "$AR" run -k -t 300 "${XSAN_RUN[@]}" -f ktap -R "$d/report.json" -o "$d/report.ktap" "$TOP"/scenarios/*.json \
		>/dev/null 2>"$d/report.err" || true
	setarch -R "$AR" run -k -t 300 "${XSAN_RUN[@]}" -f ktap "$TOP"/scenarios/*.json >"$d/plain.ktap" 2>"$d/plain.err" || true
	# ANONREMAP_BEFORE=path: a build from before the cut, whose JSON result
	# the first test compares too (the check made when the cut was made)
	if [ -n "${ANONREMAP_BEFORE:-}" ]; then
		setarch -R "$ANONREMAP_BEFORE" run -k -t 300 -o "$d/before.json" "$TOP"/scenarios/*.json >/dev/null 2>&1 || true
	fi
}

@test "overhead: the whole library's JSON result is the same from -f json and from -f ktap -R" {
	local d=$BATS_FILE_TMPDIR n
	n=$(jq '.scenarios | length' "$d/json.json")
	[ "$n" -gt 100 ] # every scenario, variants apart
	jq -S -f "$NORM" "$d/json.json" >"$d/json.n"
	jq 'del(.summary_text)' "$d/report.json" | jq -S -f "$NORM" >"$d/report.n"
	# the dumps are there, with their VMAs: the comparison compares something
	[ "$(jq '[.scenarios[].dumps | length] | add' "$d/json.n")" -gt 100 ]
	run diff "$d/json.n" "$d/report.n"
	assert_success
	# where the kernel placed a region itself, outside the reservation
	# (masked "placed" above), anonremap diff compares it to its own anchor
	run "$AR" diff "$d/json.json" "$d/report.json"
	assert_success
	if [ -n "${ANONREMAP_BEFORE:-}" ]; then
		jq -S -f "$NORM" "$d/before.json" >"$d/before.n"
		run diff "$d/before.n" "$d/json.n"
		assert_success
	fi
}

@test "overhead: -f ktap without -R gives the verdicts and diagnostics that -f ktap -R and -f json give" {
	local d=$BATS_FILE_TMPDIR
	run diff "$d/report.ktap" "$d/plain.ktap"
	assert_success
	# and they are the JSON result's statuses, scenario by scenario
	jq -r '.scenarios[] | "\(if .status == "pass" or .status == "skip" then "ok" else "not ok" end) \(.name)"' \
		"$d/json.json" >"$d/json.verdicts"
	grep -E '^(ok|not ok) ' "$d/plain.ktap" | sed -E 's/^(ok|not ok) [0-9]+ /\1 /; s/ # SKIP .*//' >"$d/ktap.verdicts"
	run diff "$d/json.verdicts" "$d/ktap.verdicts"
	assert_success
}

@test "overhead: -f ktap without -R reads none of a dump's files; with -R it reads them" {
	command -v strace >/dev/null || fail "strace is missing: scripts/setup.sh installs it"
	local tr=$BATS_TEST_TMPDIR/tr sc=$ANONREMAP_SCENARIO_DIR/mremap_unfaulted_to_faulted.json
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -e trace=openat -o "$tr" \
		"$AR" run -f ktap "$sc" >"$BATS_TEST_TMPDIR/out"
	grep -q '^ok 1 mremap_unfaulted_to_faulted$' "$BATS_TEST_TMPDIR/out"
	run grep -E '/proc/[0-9]+/(smaps|smaps_rollup|pagemap)"' "$tr"
	assert_failure
	# the expectations still read the process: its maps (or PROCMAP_QUERY on it)
	grep -qE '/proc/[0-9]+/maps"' "$tr"
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -e trace=openat -o "$tr" \
		"$AR" run -f ktap -R "$BATS_TEST_TMPDIR/rep.json" "$sc" >/dev/null
	grep -qE '/proc/[0-9]+/smaps"' "$tr"
	grep -qE '/proc/[0-9]+/pagemap"' "$tr"
	[ "$(jq '.scenarios[0].dumps | length' "$BATS_TEST_TMPDIR/rep.json")" -gt 0 ]
}

@test "overhead: bench-overhead.sh -F prints every row of the library against merge and mremap_test" {
	command -v hyperfine >/dev/null || fail "hyperfine is missing: scripts/setup.sh installs it"
	run --separate-stderr env ANONREMAP="${TOP_BUILDDIR:-$TOP}/anonremap" bash "$TOP/scripts/bench-overhead.sh" -F -k 1
	assert_success
	assert_output --partial "(f) the library against the kernel's selftest binaries"
	assert_line --regexp '^   \./merge +[0-9.]+ +[0-9.]+$'
	assert_line --regexp '^   anonremap run -f ktap <[0-9]+ merge\.c files> +[0-9.]+ +[0-9.]+$'
	assert_line --regexp '^   anonremap run <the same [0-9]+>, JSON \(with the dumps\) +[0-9.]+ +[0-9.]+$'
	assert_line --regexp '^   \./mremap_test \(no -t\) +[0-9.]+ +[0-9.]+$'
	assert_line --regexp '^   anonremap run -f ktap -x perf <[0-9]+ mremap_test\.c files> +[0-9.]+ +[0-9.]+$'
	assert_line --regexp '^   anonremap run -x perf <the same [0-9]+>, JSON \(with the dumps\) +[0-9.]+ +[0-9.]+$'
	assert_line --regexp '^   KTAP totals: merge: pass:[0-9]+ fail:[0-9]+ '
	assert_line --regexp '^   => merge\.c: KTAP library [0-9.]+x merge'"'"'s wall time'
	assert_line --regexp '^   => mremap_test\.c: KTAP library [0-9.]+x mremap_test'"'"'s wall time'
	assert_line --regexp '^   goal (met|missed): +merge\.c'
	assert_line --regexp '^   goal (met|missed): +mremap_test\.c'
}
