# SPDX-License-Identifier: GPL-2.0-or-later
# Shared helpers of the Bats suite: every .bats file starts with 'load helper'.

load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'
bats_require_minimum_version 1.5.0

AR="${ANONREMAP:-$BATS_TEST_DIRNAME/../../anonremap}"
export ANONREMAP_SCENARIO_DIR="${ANONREMAP_SCENARIO_DIR:-$BATS_TEST_DIRNAME/../../scenarios}"

# XSAN_RUN: the run options that leave the scenarios tagged asan-slow out
# when "$AR" is the sanitizer build (ANONREMAP_SANITIZED=1): under ASan
# ksm_merge's PR_SET_MEMORY_MERGE walks the shadow's terabytes for minutes,
# and an mlockall with MCL_CURRENT populates them until --max-rss kills it.
XSAN_RUN=()
if [[ "${ANONREMAP_SANITIZED:-0}" == 1 ]]; then
	XSAN_RUN=(-x asan-slow)
fi

# sanitized: "$AR" is the ASan/UBSan build (make anonremap-san).
sanitized() {
	grep -qa '__asan_init' "$AR"
}

# need_feature NAME: skip unless this kernel has feature NAME, saying why
# not in the probe's own words (anonremap probe).
need_feature() {
	local p f
	# a probe that cannot run is a failure, never a skip for "this kernel"
	p="$("$AR" probe)" || { echo "need_feature: '$AR probe' failed" >&2; return 1; }
	f="$(jq -c --arg n "$1" '.features[$n]' <<<"$p")"
	[ "$(jq -r .supported <<<"$f")" = true ] || skip "this kernel lacks $1: $(jq -r .detail <<<"$f")"
}

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

# Shorthands usable in every jq filter below:
#   sc        the first scenario result      st(i)   its step i
#   dump(i)   its dump i                     vmas    the VMAs of its last dump
#   vma(rel)  the VMA of the last dump whose span starts at rel ("carveout+1p")
#   vma_in(i; rel)  the same in dump i
JQ_DEFS='def sc: .scenarios[0]; def st($i): sc.steps[$i]; def dump($i): sc.dumps[$i];
def vmas: sc.dumps[-1].vmas;
def vma_in($i; $r): [sc.dumps[$i].vmas[] | select(.rel | startswith($r + ".."))] | if length == 1 then .[0] else error("no single VMA at \($r)") end;
def vma($r): vma_in(-1; $r);
def regions: [vmas[] | .region];
'

# jqr FILTER [ARGS...]: jq -r on the last result document.
jqr() {
	local f="$1"
	shift
	jq -r "$@" "$JQ_DEFS $f" "$J"
}

# jq_true [JQ_OPTS...] FILTER: the filter yields true on the last result.
jq_true() {
	assert_jq "$@" true
}

# assert_jq [JQ_OPTS...] FILTER EXPECTED: jq -r FILTER on the last result
# equals EXPECTED (JQ_OPTS such as --arg NAME VALUE come first).
assert_jq() {
	local -a opts=("${@:1:$#-2}")
	local filter="${*:$#-1:1}" want="${*:$#:1}" got
	got="$(jq -r "${opts[@]}" "$JQ_DEFS $filter" "$J")" || fail "jq failed on: $filter"
	[[ "$got" == "$want" ]] || fail "jq '$filter'
expected: $want
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
	local s
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
	pids="$(jq -r '[.scenarios[] | (.pid, (.steps[]?.pid), (.dumps[]?.pid), (.processes[]?.pid))]
		| map(select(type == "number" and . > 0)) | unique | .[]' "$J")"
	[[ -n "$pids" ]] || fail "the result names no scenario pid"
	for pid in $pids; do
		if kill -0 "$pid" 2>/dev/null; then
			fail "scenario process $pid is still alive: $(cat /proc/"$pid"/cmdline 2>/dev/null | tr '\0' ' ')"
		fi
	done
}

# guard_case NAME [FEATURE...]: guard-regions.c's case NAME, translated as
# scenarios/guard_regions_NAME.json (guard1-3.bats): skip, as the selftest
# does, where the kernel lacks guard regions or a FEATURE, else run it and
# assert it passes with every step ok.
guard_case() {
	local n="$1" f
	shift
	for f in guard_regions "$@"; do need_feature "$f"; done
	run_json -t 120 "$ANONREMAP_SCENARIO_DIR/guard_regions_$n.json"
	assert_success
	assert_jq 'sc.name' "guard_regions_$n"
	assert_jq 'sc.status' 'pass'
	assert_jq '[sc.steps[] | select(.status != "ok")] | length' '0'
}

# kernel_before MAJOR MINOR: the running kernel is older than MAJOR.MINOR.
kernel_before() {
	local r maj min
	r=$(uname -r)
	maj=${r%%.*}
	min=${r#*.}
	min=${min%%[!0-9]*}
	((maj < $1 || (maj == $1 && min < $2)))
}
