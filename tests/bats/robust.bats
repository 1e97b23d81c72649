#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Robustness (issue 4) against the live kernel: fork, caught signals, a killed
# scenario process, timeouts, Ctrl-C, atomic -o, resource limits, KTAP of the
# scenario library, list and install. After each, no process is left behind.

load helper

# --- local helpers -----------------------------------------------------------

# Background processes a test started; teardown kills whatever is left, by pid.
BG_PIDS=()
teardown() {
	local p
	for p in "${BG_PIDS[@]}"; do
		kill -CONT "$p" 2>/dev/null || true
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
}

# is_sanitized: $AR is the ASan/UBSan build.
is_sanitized() {
	[[ -n "${ANONREMAP_SANITIZED:-}" ]] || ldd "$AR" 2>/dev/null | grep -q libasan
}

# bg_run OUT ERR ARGS...: "$AR" run ARGS in the background under timeout 60,
# stdin from /dev/null (no terminal), stdout to OUT, stderr to ERR. $BG is
# the pid to wait for (timeout's, whose status is anonremap's), $ARPID is
# anonremap's own, set by wait_paused.
bg_run() {
	local out="$1" err="$2"
	shift 2
	timeout 60 "$AR" run "$@" </dev/null >"$out" 2>"$err" 3>&- &
	BG=$!
	BG_PIDS+=("$BG")
}

# wait_paused ERR: wait for the "paused" line of a pause step; its pid is $PAUSED.
wait_paused() {
	local i
	for ((i = 0; i < 600; i++)); do
		# the redirect may not have created the file yet on the first look
		PAUSED="$(sed -n 's/^anonremap: step [0-9]*: paused: pid \([0-9]*\),.*/\1/p' "$1" 2>/dev/null || true)"
		if [[ -n "$PAUSED" ]]; then
			ARPID="$(ps -o pid= --ppid "$BG" | tr -d ' ')"
			[[ "$ARPID" =~ ^[0-9]+$ ]] || fail "no anonremap under timeout $BG: '$ARPID'"
			BG_PIDS+=("$ARPID")
			return 0
		fi
		kill -0 "$BG" 2>/dev/null || fail "anonremap ended before pausing: $(cat "$1")"
		sleep 0.05
	done
	fail "never paused: $(cat "$1")"
}

# run_json_t ARGS...: run_json, bounded by timeout 60 (exit 124 if it hangs).
run_json_t() {
	J="$BATS_TEST_TMPDIR/result.json"
	run --separate-stderr timeout 60 "$AR" run "$@"
	printf '%s\n' "$output" >"$J"
}

# assert_gone PID...: none of them is alive.
assert_gone() {
	local p
	for p in "$@"; do
		! kill -0 "$p" 2>/dev/null || fail "process $p is still alive"
	done
}

# --- fork ---------------------------------------------------------------------

@test "fork: the scenario goes on in the child; steps and dumps record the pid running it" {
	run_json -e 'mmap ptr at=carveout+1p len=4p' -e 'fault ptr' -e 'dump before' -e fork \
		-e 'fault at=ptr+1p' -e 'dump middle' -e fork -e 'fault at=ptr+2p' -e 'dump after'
	assert_success
	local p0 p1 p2
	p0="$(jqr 'st(0).pid')"
	p1="$(jqr 'st(3).ret')"
	p2="$(jqr 'st(6).ret')"
	[[ "$p0" -gt 0 && "$p1" -gt 0 && "$p2" -gt 0 ]]
	[[ "$p0" != "$p1" && "$p1" != "$p2" && "$p0" != "$p2" ]]
	assert_jq 'st(1).pid' "$p0"
	# the fork step's reply comes from the child, every later step too
	assert_jq 'st(3).pid' "$p1"
	assert_jq 'st(4).pid' "$p1"
	assert_jq 'st(6).pid' "$p2"
	assert_jq 'st(7).pid' "$p2"
	assert_jq '[sc.dumps[].pid] | @json' "[$p0,$p1,$p2]"
	assert_jq 'sc.pid' "$p2"
	# each generation's pages: shared with its parent, or its own
	assert_jq 'vma_in(1; "carveout+1p").pages_state' 'sx..'
	assert_jq 'vma_in(2; "carveout+1p").pages_state' 'ssx.'
	assert_no_scenario_process
}

@test "fork: 16 forks run; a 17th is refused before anything runs (exit 2)" {
	local args=() i
	for ((i = 0; i < 16; i++)); do args+=(-e fork); done
	run_json "${args[@]}" -e dump
	assert_success
	assert_jq '[sc.steps[] | select(.op == "fork") | .pid] | unique | length' '16'
	assert_jq 'dump(0).pid == sc.pid' 'true'
	assert_no_scenario_process

	run_json "${args[@]}" -e fork -e dump
	assert_failure 2
	assert_nothing_ran
	[[ "$(ar_msg)" == *"more than 16 forks"* ]] || fail "message: $stderr"
}

# --- signals ------------------------------------------------------------------

@test "signal: SIGSEGV on a PROT_NONE page, expected, is recorded and the scenario goes on" {
	run_json -e 'mmap ptr at=carveout+1p len=2p prot=none' -e 'fault at=ptr+1p signal=SIGSEGV' \
		-e 'mmap q at=carveout+10p len=1p' -e 'fault q' -e 'expect faulted=true at=q' -e dump
	assert_success
	assert_jq 'sc.status' 'pass'
	assert_jq 'st(1).status' 'ok'
	assert_jq 'st(1).signal.name' 'SIGSEGV'
	assert_jq 'st(1).signal.rel' 'carveout+2p'
	assert_jq 'st(1).signal.addr == st(1).args.addr' 'true'
	assert_jq 'st(1).signal.code' '2' # SEGV_ACCERR: mapped, but PROT_NONE
	# later steps ran
	assert_jq 'st(3).status' 'ok'
	assert_jq 'vma("carveout+10p").pages_state' 'x'
	assert_no_scenario_process
}

@test "signal: an unexpected SIGSEGV fails the step and the scenario (exit 1), naming the address" {
	run_json -e 'mmap ptr at=carveout+1p len=2p prot=none' -e 'fault at=ptr+1p' -e 'mmap q at=carveout+10p len=1p' -e dump
	assert_failure 1
	assert_jq 'sc.status' 'fail'
	assert_jq 'st(1).status' 'unexpected'
	assert_jq 'st(1).signal.name' 'SIGSEGV'
	assert_jq 'st(1).signal.rel' 'carveout+2p'
	# the reason says where as the steps do: relative to the carveout
	assert_jq 'sc.reason' 'step 1 (fault): raised SIGSEGV at carveout+2p'
	# without -k the scenario stops at the failed step
	assert_jq 'sc.steps | length' '2'
	assert_jq 'sc.dumps | length' '0'
	assert_jq '.summary.fail' '1'
	assert_no_scenario_process
}

@test "signal: a step that expects SIGSEGV and gets none fails" {
	run_json -e 'mmap ptr at=carveout+1p len=1p' -e 'fault ptr signal=SIGSEGV'
	assert_failure 1
	assert_jq 'st(1).status' 'failed'
	assert_jq 'st(1).signal' 'null'
	assert_jq 'st(1).failure' 'expected SIGSEGV, none was raised'
	assert_no_scenario_process
}

@test "signal: reading past a shrunk mapping raises SIGSEGV at the old tail" {
	run_json -k -e 'mmap ptr at=carveout+1p len=4p' -e 'fault ptr len=4p' -e 'mremap ptr new_len=2p' \
		-e 'fault at=ptr+3p access=read signal=SIGSEGV' -e 'fault at=ptr+1p access=read' -e dump
	assert_success
	assert_jq 'st(2).ret_rel' 'carveout+1p'
	assert_jq 'st(3).status' 'ok'
	assert_jq 'st(3).signal.name' 'SIGSEGV'
	assert_jq 'st(3).signal.rel' 'carveout+4p'
	assert_jq 'st(3).signal.code' '1' # SEGV_MAPERR: nothing mapped there any more
	assert_jq 'st(4).signal' 'null'
	assert_jq 'vma("carveout+1p").rel' 'carveout+1p..carveout+3p'
	assert_jq 'vma("carveout+1p").pages_state' 'xx'
	assert_no_scenario_process
}

@test "signal: MREMAP_DONTUNMAP of a MAP_SHARED memfd mapping: the old range still maps the file" {
	need_dontunmap() { "$AR" probe | jq -e '.features.mremap_dontunmap.supported' >/dev/null; }
	need_dontunmap || skip "no MREMAP_DONTUNMAP"
	# Observed on 6.18 (DONTUNMAP accepts non-anonymous mappings since 5.13):
	# the move succeeds, the old VMA stays (rw-s, same file) with its page
	# table entries gone; touching it raises no signal but faults the same
	# shared file pages back in: the data, not zeroes.
	run_json -k -e 'mmap ptr at=carveout+1p len=2p prot=rw file=memfd flags=shared,fixed' -e 'fault ptr len=2p pattern=5' \
		-e 'mremap ptr to=carveout+20p flags=maymove,fixed,dontunmap name=moved' -e 'dump moved' \
		-e 'fault at=carveout+1p access=read' -e 'verify at=carveout+1p len=2p pattern=5' \
		-e 'verify at=carveout+1p len=2p pattern=zero' -e 'verify moved pattern=5' -e 'dump touched'
	assert_failure 1 # only the zero verify fails
	assert_jq 'st(0).args.flags | sort | join(",")' 'MAP_FIXED,MAP_SHARED'
	assert_jq 'st(2).status' 'ok'
	assert_jq 'st(2).errno' 'null'
	assert_jq 'st(2).ret_rel' 'carveout+20p'
	assert_jq 'vma_in(0; "carveout+1p") | [.rel, .perms, .region, .pages_state] | @json' \
		'["carveout+1p..carveout+3p","rw-s","ptr",".."]'
	jq_true 'vma_in(0; "carveout+1p").name | startswith("/memfd:")'
	assert_jq 'vma_in(0; "carveout+20p") | [.perms, .region, .rss_pages] | @json' '["rw-s","moved",2]'
	assert_jq '[st(4), st(5), st(7)] | map(.status) | @json' '["ok","ok","ok"]'
	assert_jq '[st(4), st(5), st(6), st(7)] | map(.signal) | @json' '[null,null,null,null]'
	assert_jq 'st(6).status' 'failed'
	assert_jq 'st(6).failure' 'page contents differ from the pattern: first at carveout+1p'
	# both mappings now map the same two file pages
	assert_jq 'vma_in(1; "carveout+1p").pages_state' 'ss'
	assert_jq 'vma_in(1; "carveout+20p").pages_state' 'ss'
	assert_no_scenario_process
}

@test "signal: MREMAP_DONTUNMAP of private anonymous memory leaves a zero-filled old range" {
	run_json -e 'mmap ptr at=carveout+1p len=2p prot=rw' -e 'fault ptr len=2p pattern=9' \
		-e 'mremap ptr to=carveout+20p flags=maymove,fixed,dontunmap name=moved' \
		-e 'verify at=carveout+1p len=2p pattern=zero' -e 'verify moved pattern=9' -e dump
	assert_success
	assert_jq '[sc.steps[].signal] | map(select(. != null)) | length' '0'
	assert_jq 'vma("carveout+1p").perms' 'rw-p'
	assert_no_scenario_process
}

@test "signal: SIGBUS touching a shared file mapping grown past the end of its file" {
	# The memfd is 2 pages long; mremap makes the mapping 4 pages: its tail
	# lies beyond EOF. (A scenario cannot truncate the file itself.)
	run_json -k -e 'mmap ptr at=carveout+1p len=2p prot=rw file=memfd flags=shared,fixed' \
		-e 'mremap ptr new_len=4p to=carveout+20p flags=maymove,fixed' \
		-e 'fault at=ptr+1p' -e 'fault at=ptr+3p signal=SIGBUS' -e 'fault at=ptr+2p access=read' -e dump
	assert_failure 1
	assert_jq 'st(2).signal' 'null'
	assert_jq 'st(3).status' 'ok'
	assert_jq 'st(3).signal.name' 'SIGBUS'
	assert_jq 'st(3).signal.rel' 'carveout+23p'
	assert_jq 'st(3).signal.code' '2' # BUS_ADRERR
	assert_jq 'st(4).status' 'unexpected'
	assert_jq 'st(4).signal.name' 'SIGBUS'
	assert_jq 'st(4).signal.rel' 'carveout+22p'
	jq_true 'sc.reason | test("raised SIGBUS")'
	assert_jq 'vma("carveout+20p").pages_state' '.x..'
	assert_no_scenario_process
}

# --- hostile addresses ------------------------------------------------------------

@test "outside: a region the kernel placed outside the reserved area is the scenario's own, used where it is" {
	# 'flags' without FIXED makes 'at' a hint; the carveout is there, so the
	# kernel maps elsewhere. A kernel-chosen place never lies on anonremap's
	# memory (no MAP_FIXED replaced anything), so later steps may use the
	# region there (anonremap-scenario(5), "Reserved area"); a carveout dump
	# does not show it, scope=all does.
	run_json_t -e 'mmap ptr at=carveout+1p len=2p flags=private,anonymous' -e 'fault ptr' -e dump -e 'dump scope=all'
	assert_success
	assert_jq 'st(1).status' ok
	jq_true 'sc.steps[0].ret_rel | test("^carveout[+-][0-9]+p$")'
	jq_true '[sc.dumps[0].vmas[] | select(.region == "ptr")] | length == 0'
	jq_true '[sc.dumps[1].vmas[] | select(.region == "ptr") | .pages_state] == ["x."]'
	# but an address the scenario computes from the carveout must stay inside
	run --separate-stderr "$AR" run -e 'mmap ptr at=carveout+1p len=2p' -e 'fault at=carveout+200000p'
	assert_failure 2
	[[ "$stderr" == *"leaves the reserved area"* ]]
	assert_no_scenario_process
}

# --- a scenario process that dies, hangs, or is interrupted --------------------

@test "killed: a runaway fault over --max-rss is killed; the result keeps what came before (exit 3)" {
	scen big.json <<'EOF'
{ "anonremap": 1, "carveout": { "size": "1g" },
  "steps": [
    { "op": "mmap", "name": "ptr", "at": "carveout", "len": "1g", "prot": "rw" },
    { "op": "fault", "region": "ptr", "len": "1g", "pattern": 1 },
    { "op": "dump" }
  ] }
EOF
	run_json_t -t 50 --max-rss 64m "$S"
	assert_failure 3
	assert_jq 'sc.status' 'error'
	jq_true 'sc.reason | test("^step 1 \\(fault\\): scenario process [0-9]+ killed by SIGKILL")'
	jq_true 'sc.reason | test("max-rss")'
	assert_jq 'st(0).status' 'ok'
	assert_jq 'st(0).ret_rel' 'carveout'
	assert_jq 'st(1).status' 'died'
	assert_jq 'sc.steps | length' '2'
	assert_jq '.summary.error' '1'
	assert_no_scenario_process
}

@test "timeout: a step running past -t is killed, the reason names it (exit 3)" {
	# ptr is registered with userfaultfd and nobody serves it: the read
	# fault waits forever without memory or CPU, so only the timeout stops
	# it. (A huge read fault needs the zero page, which a kernel booted
	# without one does not have, and allocates instead.)
	scen slow.json <<'EOF'
{ "anonremap": 1, "carveout": { "size": "30p" },
  "steps": [
    { "op": "mmap", "name": "ptr", "at": "carveout", "len": "4p", "prot": "rw" },
    { "op": "userfaultfd", "region": "ptr" },
    { "op": "fault", "region": "ptr", "len": "4p", "access": "read" },
    { "op": "dump" }
  ] }
EOF
	SECONDS=0
	run_json_t -t 1 "$S"
	[[ $SECONDS -lt 30 ]] || fail "took $SECONDS s"
	assert_failure 3
	assert_jq 'sc.status' 'error'
	assert_jq 'sc.reason' 'step 2 (fault): timed out after 1 s'
	assert_jq 'st(2).status' 'timeout'
	assert_jq '[st(0).status, st(1).status] | join(",")' 'ok,ok'
	assert_no_scenario_process
}

# --- chains: calls with nothing of anonremap's between them go as one -----------

@test "chain: steps that need nothing from anonremap between them are made back to back" {
	command -v strace >/dev/null || fail "strace is missing: scripts/setup.sh installs it"
	local tr="$BATS_TEST_TMPDIR/trace"
	# (LeakSanitizer cannot work under ptrace: a sanitizer build leaves it out here)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -e trace=write,madvise -o "$tr" "$AR" run -f ktap -e 'mmap ptr at=carveout len=1p prot=rw' \
		-e 'madvise ptr advice=normal' -e 'madvise ptr advice=random' -e 'madvise ptr advice=sequential' \
		-e dump -e 'madvise ptr advice=normal' >/dev/null
	local parent
	parent="$(grep -m1 'write(1, "TAP' "$tr" | cut -d' ' -f1)" # anonremap prints the result
	[[ "$parent" =~ ^[0-9]+$ ]] || fail "no result write in $(cat "$tr")"
	# the three madvise calls before the dump: the scenario process makes
	# them with no write of anonremap's (a call sent) between the first and third
	awk -v p="$parent" '
		$1 != p && /madvise\(.*MADV_(NORMAL|RANDOM|SEQUENTIAL)\)/ { n++; if (n == 1) on = 1; if (n == 3) { on = 0; done = 1 } }
		on && $1 == p && /write\(/ { bad = 1 }
		END { exit !(done && !bad) }' "$tr" || fail "anonremap wrote between the chained calls: $(cat "$tr")"
	[ "$(grep -cE 'madvise\(.*MADV_(NORMAL|RANDOM|SEQUENTIAL)\)' "$tr")" -eq 4 ] || fail "$(grep 'madvise(' "$tr")"
}

@test "chain: a chain goes on past mmap and mremap where MAP_FIXED, MREMAP_FIXED or an errno fixes the outcome" {
	local tr="$BATS_TEST_TMPDIR/trace" parent
	local steps=(-e 'mmap ptr at=carveout+1p len=5p prot=rw' -e 'mmap ptr2 at=carveout+7p len=5p prot=rw'
		-e 'mremap ptr2 to=ptr2+1000p flags=maymove,fixed,0x400 errno=EINVAL'
		-e 'mremap ptr2 to=ptr2+1000p flags=maymove,fixed' -e 'fault ptr'
		-e 'mremap ptr2 to=ptr+5p flags=maymove,fixed')
	# (LeakSanitizer cannot work under ptrace: a sanitizer build leaves it out here)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -e trace=write,mremap -o "$tr" \
		"$AR" run -f ktap "${steps[@]}" -e 'expect vma=ptr start=ptr end=ptr+10p' >/dev/null
	parent="$(grep -m1 'write(1, "TAP' "$tr" | cut -d' ' -f1)"
	[[ "$parent" =~ ^[0-9]+$ ]] || fail "no result write in $(cat "$tr")"
	# all four mremap calls (the one that fails, and the three ptr2 moves
	# that follow it, on ptr2 where the failure left it) in one chain
	awk -v p="$parent" '
		$1 != p && /mremap\(/ { n++; if (n == 1) on = 1; if (n == 3) { on = 0; done = 1 } }
		on && $1 == p && /write\(/ { bad = 1 }
		END { exit !(done && !bad) }' "$tr" || fail "anonremap wrote inside the chain: $(cat "$tr")"
	run_json "${steps[@]}" -e 'expect vma=ptr start=ptr end=ptr+10p' -e dump
	assert_success
	assert_jq '[sc.steps[] | .status] | join(",")' 'ok,ok,ok,ok,ok,ok,ok,ok'
	assert_jq 'st(2).errno' 'EINVAL'
	assert_jq 'st(3).args.old_address_rel' 'carveout+7p'
	assert_jq 'st(5).args.old_address_rel' 'carveout+1007p'
	assert_jq 'st(5).ret_rel' 'carveout+6p'
	# a step foreseen to succeed that fails ends the chain and the scenario there
	run_json -e 'mmap ptr at=carveout+1p len=1p prot=rw flags=fixed' -e 'fault ptr' -e 'madvise ptr advice=normal'
	assert_failure 1
	assert_jq '[sc.steps[] | .status] | join(",")' 'failed'
	jq_true 'sc.reason | test("^step 0 \\(mmap\\): failed with EBADF")'
}

@test "chain: a step that hangs inside a chain is the one named; the steps before it keep their results" {
	# userfaultfd registers ptr with no handler: the fault after it waits forever
	run_json_t -t 1 -e 'mmap ptr at=carveout len=1p prot=rw' -e 'madvise ptr advice=normal' \
		-e 'userfaultfd ptr' -e 'fault ptr' -e 'madvise ptr advice=normal'
	assert_failure 3
	assert_jq 'sc.reason' 'step 3 (fault): timed out after 1 s'
	assert_jq '[sc.steps[] | .status] | join(",")' 'ok,ok,ok,timeout'
	jq_true 'st(2).duration_ns > 0'
	assert_no_scenario_process
}

@test "chain: a step killed inside a chain is the one named (exit 3)" {
	run_json_t -t 50 --max-rss 64m -e 'carveout size=1g' -e 'mmap ptr at=carveout len=1g prot=rw' \
		-e 'madvise ptr advice=normal' -e 'fault ptr len=1g pattern=1' -e 'madvise ptr advice=normal'
	assert_failure 3
	jq_true 'sc.reason | test("^step 2 \\(fault\\): scenario process [0-9]+ killed by SIGKILL.*max-rss")'
	assert_jq '[sc.steps[] | .status] | join(",")' 'ok,ok,died'
	assert_no_scenario_process
}

@test "chain: a step that ends otherwise than it says stops the chain, unless -k" {
	run_json -e 'mmap ptr at=carveout len=1p prot=rw' -e 'madvise ptr advice=normal errno=EINVAL' \
		-e 'fault ptr' -e 'expect faulted=false at=ptr'
	assert_failure 1
	assert_jq '[sc.steps[] | .status] | join(",")' 'ok,failed'
	run_json -k -e 'mmap ptr at=carveout len=1p prot=rw' -e 'madvise ptr advice=normal errno=EINVAL' \
		-e 'fault ptr' -e 'expect faulted=true at=ptr'
	assert_failure 1
	assert_jq '[sc.steps[] | .status] | join(",")' 'ok,failed,ok,ok'
	# an expected signal is the outcome the chain goes on after
	run_json -e 'mmap ptr at=carveout+1p len=1p prot=rw' -e 'fault at=carveout signal=SIGSEGV' \
		-e 'fault ptr' -e 'expect faulted=true at=ptr'
	assert_success
	assert_jq '[sc.steps[] | .status] | join(",")' 'ok,ok,ok,ok'
}

@test "timeout: a pause with no terminal to press Enter times out too (exit 3)" {
	run_json_t -t 1 -e 'mmap ptr at=carveout len=1p' -e pause -e dump </dev/null
	assert_failure 3
	jq_true 'sc.reason | test("^step 1 \\(pause\\): timed out")'
	assert_jq 'st(1).status' 'timeout'
	assert_jq 'sc.pid' "$(jqr 'st(0).pid')"
	assert_gone "$(jqr 'sc.pid')"
	assert_no_scenario_process
}

@test "Ctrl-C: SIGINT to anonremap ends the paused scenario and still writes -o (exit 3)" {
	local d="$BATS_TEST_TMPDIR/out"
	mkdir "$d"
	bg_run "$BATS_TEST_TMPDIR/stdout" "$BATS_TEST_TMPDIR/stderr" -o "$d/r.json" \
		-e 'mmap ptr at=carveout len=2p' -e 'fault ptr' -e 'dump first' -e pause -e 'dump never'
	wait_paused "$BATS_TEST_TMPDIR/stderr"
	kill -0 "$PAUSED"
	kill -INT "$ARPID"
	local rc=0
	wait "$BG" || rc=$?
	assert_equal "$rc" 3
	# the result file, complete, and nothing else in its directory
	assert_equal "$(ls -A "$d")" "r.json"
	J="$d/r.json"
	jq -e . "$J" >/dev/null
	assert_jq '.interrupted' 'true'
	assert_jq 'sc.interrupted' 'true'
	assert_jq 'sc.status' 'error'
	jq_true 'sc.reason | test("^step 3 \\(pause\\): interrupted")'
	assert_jq '[sc.steps[] | .status] | @json' '["ok","ok","ok","interrupted"]'
	assert_jq '[sc.dumps[].label] | @json' '["first"]'
	assert_jq 'sc.pid' "$PAUSED"
	assert_gone "$PAUSED" "$ARPID"
	assert_no_scenario_process
	[[ ! -s "$BATS_TEST_TMPDIR/stdout" ]]
}

@test "Ctrl-C: without -o the result gathered so far goes to stdout" {
	bg_run "$BATS_TEST_TMPDIR/stdout" "$BATS_TEST_TMPDIR/stderr" -e 'mmap ptr at=carveout len=1p' -e pause
	wait_paused "$BATS_TEST_TMPDIR/stderr"
	kill -INT "$ARPID"
	local rc=0
	wait "$BG" || rc=$?
	assert_equal "$rc" 3
	J="$BATS_TEST_TMPDIR/stdout"
	assert_jq '.interrupted' 'true'
	assert_jq 'st(0).status' 'ok'
	assert_gone "$PAUSED"
	assert_no_scenario_process
}

@test "limits: the scenario process has core dumps off and oom_score_adj 1000" {
	bg_run "$BATS_TEST_TMPDIR/stdout" "$BATS_TEST_TMPDIR/stderr" -e 'mmap ptr at=carveout len=1p' -e pause -e dump
	wait_paused "$BATS_TEST_TMPDIR/stderr"
	local adj core
	adj="$(cat "/proc/$PAUSED/oom_score_adj")"
	core="$(grep 'Max core file size' "/proc/$PAUSED/limits")"
	kill -CONT "$PAUSED"
	local rc=0
	wait "$BG" || rc=$?
	assert_equal "$rc" 0
	assert_equal "$adj" 1000
	[[ "$core" =~ ^Max\ core\ file\ size\ +0\ +0\ +bytes ]] || fail "limits: $core"
	J="$BATS_TEST_TMPDIR/stdout"
	assert_jq 'sc.status' 'pass'
	assert_jq 'st(1).status' 'ok'
	assert_jq 'dump(0).pid' "$PAUSED"
	assert_no_scenario_process
	# and the man page says so
	local man="${TOP_SRCDIR:-$BATS_TEST_DIRNAME/../..}/man/anonremap.1"
	if [[ -f "$man" ]]; then
		grep -q 'oom_score_adj' "$man"
		grep -q 'RLIMIT_CORE\|core dump' "$man"
	fi
}

@test "descriptors: the scenario process holds its three pipes and stdio, nothing of anonremap's" {
	# dumps first, so that anonremap has its /proc readers open when the second scenario forks
	echo '{"anonremap": 1, "name": "first", "steps": [{"op": "dump"}]}' >"$BATS_TEST_TMPDIR/first.json"
	echo '{"anonremap": 1, "name": "second", "steps": [{"op": "pause"}, {"op": "dump"}]}' >"$BATS_TEST_TMPDIR/second.json"
	bg_run "$BATS_TEST_TMPDIR/stdout" "$BATS_TEST_TMPDIR/stderr" -k \
		"$BATS_TEST_TMPDIR/first.json" "$BATS_TEST_TMPDIR/second.json"
	wait_paused "$BATS_TEST_TMPDIR/stderr"
	local fds
	fds="$(for f in /proc/"$PAUSED"/fd/*; do [[ "${f##*/}" -gt 2 ]] && readlink "$f"; done | sort | tr '\n' ' ')"
	kill -CONT "$PAUSED"
	local rc=0
	wait "$BG" || rc=$?
	assert_equal "$rc" 0
	# calls, replies and the bell
	[[ "$fds" =~ ^pipe:\[[0-9]+\]\ pipe:\[[0-9]+\]\ pipe:\[[0-9]+\]\ $ ]] || fail "the scenario process holds: $fds"
}

@test "cpu: anonremap and the scenario process share one CPU while it runs" {
	bg_run "$BATS_TEST_TMPDIR/stdout" "$BATS_TEST_TMPDIR/stderr" -e 'mmap ptr at=carveout len=1p' -e pause \
		-e dump -e pause
	wait_paused "$BATS_TEST_TMPDIR/stderr"
	local child parent
	child="$(sed -n 's/^Cpus_allowed_list:\s*//p' "/proc/$PAUSED/status")"
	parent="$(sed -n 's/^Cpus_allowed_list:\s*//p' "/proc/$ARPID/status")"
	kill -CONT "$PAUSED"
	# the second pause: the same process, still bound
	local i
	for ((i = 0; i < 600; i++)); do
		grep -q '^anonremap: step 3: paused' "$BATS_TEST_TMPDIR/stderr" && break
		sleep 0.05
	done
	kill -CONT "$PAUSED"
	local rc=0
	wait "$BG" || rc=$?
	assert_equal "$rc" 0
	[[ "$child" =~ ^[0-9]+$ ]] || fail "scenario process bound to '$child', expected one CPU"
	assert_equal "$parent" "$child"
	J="$BATS_TEST_TMPDIR/stdout"
	assert_jq 'sc.status' 'pass'
	assert_no_scenario_process
}

# --- -o and write errors ------------------------------------------------------

@test "-o: the result is written whole, with no temporary file left" {
	local d="$BATS_TEST_TMPDIR/o"
	mkdir "$d"
	echo old >"$d/r.json"
	run --separate-stderr "$AR" run -o "$d/r.json" -e 'mmap ptr at=carveout len=1p' -e dump
	assert_success
	assert_nothing_ran
	J="$d/r.json"
	assert_jq 'sc.status' 'pass'
	assert_jq '.summary.pass' '1'
	assert_equal "$(ls -A "$d")" "r.json"
	assert_no_scenario_process
	run --separate-stderr "$AR" run -f ktap -o "$d/r.tap" -e 'mmap ptr at=carveout len=1p'
	assert_success
	assert_equal "$(head -1 "$d/r.tap")" "TAP version 13"
	assert_equal "$(ls -A "$d" | sort | tr '\n' ' ')" "r.json r.tap "
}

@test "-o: a missing directory is reported, non-zero exit, nothing written" {
	run --separate-stderr "$AR" run -o "$BATS_TEST_TMPDIR/no/such/dir/r.json" -e 'mmap ptr at=carveout len=1p'
	assert_failure 3
	assert_nothing_ran
	[[ "$(ar_msg)" == *"no/such/dir/r.json: No such file or directory"* ]] || fail "message: $stderr"
	[[ ! -e "$BATS_TEST_TMPDIR/no" ]]
}

@test "write errors: a full disk on stdout is reported, non-zero exit" {
	run --separate-stderr bash -c '"$0" run -e "mmap ptr at=carveout len=1p" >/dev/full' "$AR"
	assert_failure 3
	[[ "$stderr" == *"No space left on device"* ]] || fail "message: $stderr"
	run --separate-stderr bash -c '"$0" run -f ktap -e "mmap ptr at=carveout len=1p" >/dev/full' "$AR"
	assert_failure 3
	[[ "$stderr" == *"No space left on device"* ]] || fail "message: $stderr"
}

@test "write errors: a closed pipe on stdout is reported, non-zero exit" {
	command -v python3 >/dev/null || skip "python3 makes the closed pipe"
	# a pipe whose reader is closed before anonremap starts: no race
	run --separate-stderr timeout 60 python3 -c '
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
sys.exit(subprocess.call(sys.argv[1:], stdout=w))' "$AR" run -e 'mmap ptr at=carveout len=1p' -e dump
	assert_failure 3
	[[ "$stderr" == *"Broken pipe"* ]] || fail "message: $stderr"
}

# --- KTAP ---------------------------------------------------------------------

@test "ktap: the scenario library runs as one KTAP document: plan, points, skips, totals" {
	local dir="$ANONREMAP_SCENARIO_DIR" files=() f
	for f in "$dir"/*.json; do
		# Under ASan, PR_SET_MEMORY_MERGE over the sanitizer's terabytes of
		# shadow mappings takes longer than the 30 s timeout, and
		# mlockall(MCL_CURRENT) populates them: leave the scenarios tagged
		# asan-slow (ksm_merge, mlock2's mlockall ones) out there.
		if is_sanitized && jq -e '(.tags // []) | index("asan-slow")' "$f" >/dev/null; then continue; fi
		files+=("$f")
	done
	[[ ${#files[@]} -gt 0 ]]
	# What to expect, from 'list' and 'probe': every scenario (variants
	# included) not tagged slow, skipped exactly when it requires a feature
	# this kernel lacks.
	"$AR" list -f json >"$BATS_TEST_TMPDIR/list.json"
	"$AR" probe >"$BATS_TEST_TMPDIR/probe.json"
	local want
	want="$(jq -c --slurpfile p "$BATS_TEST_TMPDIR/probe.json" '
		($p[0].features | to_entries | map(select(.value.supported | not) | .key)) as $lacks |
		[.[] | select(.file | split("/") | last | IN($ARGS.positional[]))
		     | select(.tags | index("slow") | not)
		     | {name, skip: ((.requires - (.requires - $lacks)) | length > 0), requires,
			known: ([(.tags // [])[] | select(startswith("fails-without:")) | ltrimstr("fails-without:")
				 | select(IN($lacks[]))] | length > 0)}]' \
		--args "${files[@]##*/}" <"$BATS_TEST_TMPDIR/list.json")"
	local n nskip npass nfail
	n="$(jq length <<<"$want")"
	nskip="$(jq '[.[] | select(.skip)] | length' <<<"$want")"

	run --separate-stderr timeout 120 "$AR" run -f ktap -x slow "${files[@]}"
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/out.tap"
	# a known failure (tagged fails-without:FEATURE, FEATURE lacking here:
	# tests/known-failures.jq) may fail, and nothing else may
	nfail="$(grep -c '^not ok ' "$BATS_TEST_TMPDIR/out.tap" || true)"
	if [[ "$nfail" -gt 0 ]]; then assert_failure 1; else assert_success; fi
	[ -z "$(comm -23 <(sed -n 's/^not ok [0-9]* \([^ ]*\).*/\1/p' "$BATS_TEST_TMPDIR/out.tap" | sort) \
		<(jq -r '.[] | select(.known and (.skip | not)) | .name' <<<"$want" | sort))" ] ||
		fail "a failure that is not a known one"
	npass=$((n - nskip - nfail))
	assert_equal "${lines[0]}" "TAP version 13"
	assert_equal "${lines[1]}" "1..$n"
	assert_equal "$(grep -cE '^(not )?ok [0-9]+ ' "$BATS_TEST_TMPDIR/out.tap")" "$n"
	assert_equal "$(grep -E '^ok [0-9]+ ' "$BATS_TEST_TMPDIR/out.tap" | grep -vc ' # SKIP ')" "$npass"
	assert_equal "$(grep -c ' # SKIP ' "$BATS_TEST_TMPDIR/out.tap")" "$nskip"
	# test points numbered 1..n in order
	assert_equal "$(grep -oE '^(not )?ok [0-9]+' "$BATS_TEST_TMPDIR/out.tap" | awk '{print $NF}' | tr '\n' ' ')" "$(seq -s ' ' 1 "$n") "
	# the right ones are skipped, each saying why; relocate ones name the flag
	diff -u <(jq -r '.[] | select(.skip) | .name' <<<"$want" | sort) \
		<(sed -n 's/^ok [0-9]* \(.*\) # SKIP .*/\1/p' "$BATS_TEST_TMPDIR/out.tap" | sort)
	local name
	for name in $(jq -r '.[] | select(.requires | index("mremap_relocate_anon")) | .name' <<<"$want"); do
		grep -F " $name # SKIP " "$BATS_TEST_TMPDIR/out.tap" | grep -qF 'mremap_relocate_anon' ||
			fail "$name: no SKIP line naming mremap_relocate_anon"
	done
	# merge.c's ten relocate scenarios at least
	[[ "$(jq '[.[] | select(.requires | index("mremap_relocate_anon"))] | length' <<<"$want")" -ge 10 ]]
	assert_equal "${lines[-1]}" "# Totals: pass:$npass fail:$nfail xfail:0 xpass:0 skip:$nskip error:0"
}

@test "ktap: a failing scenario is 'not ok' with expected and found diagnostics (exit 1)" {
	steps_scen bad.json \
		'{"op": "mmap", "name": "ptr", "at": "carveout+1p", "len": "5p"}' \
		'{"op": "expect", "vma": "ptr", "start": "ptr", "end": "ptr+10p"}'
	run --separate-stderr "$AR" run -f ktap "$ANONREMAP_SCENARIO_DIR/mremap_unfaulted_to_faulted.json" "$S"
	assert_failure 1
	assert_line --index 0 'TAP version 13'
	assert_line --index 1 '1..2'
	assert_line --index 2 'ok 1 mremap_unfaulted_to_faulted'
	assert_line '# expected: VMA containing carveout+1p spans carveout+1p..carveout+11p'
	assert_line --regexp '^# found: +VMA containing carveout\+1p spans carveout\+1p\.\.carveout\+6p$'
	assert_line --regexp '^not ok 2 '
	assert_line '# Totals: pass:1 fail:1 xfail:0 xpass:0 skip:0 error:0'
	# diagnostics come before their test point
	local nd nn
	nd="$(grep -n '^# expected:' <<<"$output" | cut -d: -f1)"
	nn="$(grep -n '^not ok 2' <<<"$output" | cut -d: -f1)"
	[[ "$nd" -lt "$nn" ]]
}

@test "ktap: a scenario process that died is 'not ok' with the reason (exit 3)" {
	run --separate-stderr timeout 60 "$AR" run -f ktap -t 1 -e 'mmap ptr at=carveout len=1p' -e pause </dev/null
	assert_failure 3
	assert_line --regexp '^# .*timed out'
	assert_line --regexp '^not ok 1 '
	assert_line '# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:0 error:1'
}

# --- list ---------------------------------------------------------------------

@test "list: every bundled scenario with its requirements; -f json gives name, source, requires" {
	run --separate-stderr "$AR" list -f json
	assert_success
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/list.json"
	jq -e 'type == "array" and length > 0' "$BATS_TEST_TMPDIR/list.json" >/dev/null
	jq -e 'all(.[]; (.name | type == "string") and (.source | type == "string") and (.requires | type == "array"))' \
		"$BATS_TEST_TMPDIR/list.json" >/dev/null
	# every file of the library is there
	diff -u <(cd "$ANONREMAP_SCENARIO_DIR" && printf '%s\n' *.json | sort) \
		<(jq -r '.[].file | split("/") | last' "$BATS_TEST_TMPDIR/list.json" | sort -u)
	jq -e 'any(.[]; .name == "mremap_relocate_anon_faulted_after_unfaulted" and .requires == ["mremap_relocate_anon"])' \
		"$BATS_TEST_TMPDIR/list.json" >/dev/null

	# the text form: one line a scenario, name then requirements ("-" for none)
	run --separate-stderr "$AR" list
	assert_success
	diff -u <(jq -r '.[] | "\(.name) \(if (.requires | length) > 0 then .requires | join(",") else "-" end)"' \
		"$BATS_TEST_TMPDIR/list.json") <(awk '{ print $1, $2 }' <<<"$output")
}

@test "run NAME finds a bundled scenario by name" {
	run_json mremap_unfaulted_to_faulted
	assert_success
	assert_jq 'sc.name' 'mremap_unfaulted_to_faulted'
	assert_jq 'sc.status' 'pass'
	assert_no_scenario_process
}

# --- install ------------------------------------------------------------------

@test "install: DESTDIR install, then run NAME finds the installed scenario and passes" {
	local top="${TOP_BUILDDIR:-$BATS_TEST_DIRNAME/../..}"
	[[ -f "$top/Makefile" ]] || skip "no configured build tree at $top"
	local d="$BATS_TEST_TMPDIR/d"
	run timeout 300 make -s -C "$top" install DESTDIR="$d"
	[[ $status -eq 0 ]] || fail "make install failed: $output"
	local bin
	bin="$(find "$d" -path '*/bin/anonremap' -type f | head -1)"
	[[ -x "$bin" ]] || fail "no bin/anonremap under $d"
	local share="${bin%/bin/anonremap}/share"
	[[ -f "$share/anonremap/scenarios/mremap_unfaulted_to_faulted.json" ]]
	[[ -f "$share/bash-completion/completions/anonremap" ]]
	[[ -f "$share/man/man1/anonremap.1" ]]
	# every library file is installed
	local f
	for f in "$ANONREMAP_SCENARIO_DIR"/*.json; do
		[[ -f "$share/anonremap/scenarios/$(basename "$f")" ]] || fail "not installed: $f"
	done

	run --separate-stderr env -u ANONREMAP_SCENARIO_DIR "$bin" run mremap_unfaulted_to_faulted
	assert_success
	J="$BATS_TEST_TMPDIR/installed.json"
	printf '%s\n' "$output" >"$J"
	assert_jq 'sc.status' 'pass'
	assert_equal "$(realpath "$(jqr 'sc.file')")" "$(realpath "$share/anonremap/scenarios/mremap_unfaulted_to_faulted.json")"
	assert_no_scenario_process
	run --separate-stderr env -u ANONREMAP_SCENARIO_DIR "$bin" list
	assert_success
	assert_line --regexp '^mremap_unfaulted_to_faulted '
}
