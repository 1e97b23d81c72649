# SPDX-License-Identifier: GPL-2.0-or-later
# Shared helpers of the Bats suite: every .bats file starts with 'load helper'.

load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'

AR="${ANONREMAP:-$BATS_TEST_DIRNAME/../../anonremap}"
export ANONREMAP_SCENARIO_DIR="${ANONREMAP_SCENARIO_DIR:-$BATS_TEST_DIRNAME/../../scenarios}"

# run_json ARGS...: "$AR" run ARGS with stdout (the result document) in $J
# and in $output, stderr in $stderr, the exit code in $status. Never fails
# by itself: assert the status.
run_json() {
	J="$BATS_TEST_TMPDIR/result.json"
	run --separate-stderr "$AR" run "$@"
	printf '%s\n' "$output" >"$J"
}

# run_ar ARGS...: any other command, stdout and stderr apart.
run_ar() {
	run --separate-stderr "$AR" "$@"
}

# jqr FILTER [ARGS...]: jq -r on the last result document.
jqr() {
	jq -r "$@" "$J"
}

# jq_true FILTER: the filter yields true on the last result, or show it.
jq_true() {
	local got
	got="$(jq -r "$1" "$J")" || fail "jq failed on: $1"
	[[ "$got" == true ]] || fail "expected true from: $1
got: $got"
}

# assert_jq FILTER EXPECTED: jq -r FILTER on the last result equals EXPECTED.
assert_jq() {
	local got
	got="$(jq -r "$1" "$J")" || fail "jq failed on: $1"
	[[ "$got" == "$2" ]] || fail "jq '$1'
expected: $2
got     : $got"
}

# scen NAME: write stdin (a heredoc) to $BATS_TEST_TMPDIR/NAME; the path is $S.
scen() {
	S="$BATS_TEST_TMPDIR/$1"
	cat >"$S"
}

# steps_scen NAME STEP_JSON...: a scenario file of the given step objects.
steps_scen() {
	local name="$1" sep="" body=""
	shift
	for s in "$@"; do
		body+="$sep    $s"
		sep=$',\n'
	done
	scen "$name" <<EOF
{
  "anonremap": 1,
  "carveout": {"size": "64p"},
  "steps": [
$body
  ]
}
EOF
}

# ar_msg: the first line anonremap printed on stderr about the input
# (sanitizers may print more; never assert stderr is empty).
ar_msg() {
	grep -m1 '^anonremap: ' <<<"$stderr"
}

# assert_msg EXPECTED: that line equals "anonremap: EXPECTED".
assert_msg() {
	local got
	got="$(ar_msg)"
	[[ "$got" == "anonremap: $1" ]] || fail "message
expected: anonremap: $1
got     : $got
stderr  : $stderr"
}

# assert_nothing_ran: no result document was printed.
assert_nothing_ran() {
	[[ -z "$output" ]] || fail "expected no result document, got: ${output:0:400}"
}

# assert_no_scenario_process: every pid the last result names is gone.
assert_no_scenario_process() {
	local pids pid
	pids="$(jq -r '[.scenarios[] | (.pid, (.steps[]?.pid), (.dumps[]?.pid))]
		| map(select(type == "number" and . > 0)) | unique | .[]' "$J")"
	[[ -n "$pids" ]] || fail "the result names no scenario pid"
	for pid in $pids; do
		if kill -0 "$pid" 2>/dev/null; then
			fail "scenario process $pid is still alive: $(cat /proc/"$pid"/cmdline 2>/dev/null | tr '\0' ' ')"
		fi
	done
}

# step_field INDEX FIELD: a field of step INDEX of the first scenario.
step_field() {
	jq -r --argjson i "$1" ".scenarios[0].steps[\$i].$2" "$J"
}

# vma_at REL: the dumped VMA (last dump) whose rel starts with REL.., as JSON.
vma_at() {
	jq -c --arg r "$1" '.scenarios[0].dumps[-1].vmas[] | select(.rel | startswith($r + ".."))' "$J"
}
