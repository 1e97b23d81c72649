#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Processes: fork names a new process, "in" says which process a step is
# made in (or whose state it reads), exit ends one. Against the live kernel.
load helper

# The guard-regions selftests' fork shape: the child writes, both look.
@test "fork name + in: the child's writes stay the child's (COW): main still verifies its own pattern" {
	run_json -e 'mmap ptr at=carveout+1p len=4p' -e 'fault ptr len=4p pattern=1' -e 'fork name=c1' \
		-e 'fault ptr len=4p pattern=2 in=c1' -e 'verify ptr len=4p pattern=2 in=c1' \
		-e 'verify ptr len=4p pattern=1 in=main' -e 'dump in=c1' -e 'dump in=main'
	assert_success
	assert_jq '[sc.steps[] | .in] | join(",")' 'main,main,main,c1,c1,main,c1,main'
	assert_jq 'st(2).args.name' 'c1'
	# a fork's pid (and ret) is the new process's, as before processes had names
	assert_jq 'st(2).ret == st(3).pid and st(3).pid != st(5).pid and st(1).pid == st(5).pid' 'true'
	assert_jq 'dump(0).in + " " + dump(1).in' 'c1 main'
	assert_jq 'dump(0).pid == st(3).pid and dump(1).pid == st(5).pid' 'true'
	# the child wrote every page: its own copies; main's stay, no longer shared
	assert_jq 'vma_in(0; "carveout+1p").pages_state' 'xxxx'
	assert_jq 'vma_in(1; "carveout+1p").pages_state' 'xxxx'
	assert_no_scenario_process
}

@test "a verify in main after the child wrote fails when it expects the child's data" {
	run_json -e 'mmap ptr at=carveout+1p len=1p' -e 'fault ptr pattern=1' -e fork \
		-e 'fault ptr pattern=2' -e 'verify ptr pattern=2 in=main'
	assert_failure 1
	assert_jq 'st(3).in + " " + st(4).in' 'child main'
	assert_jq 'st(4).status' 'failed'
	assert_no_scenario_process
}

@test "dumps read their own process: the child's munmap leaves main's VMA" {
	run_json -e 'mmap ptr at=carveout+1p len=3p' -e fork -e 'munmap ptr' -e 'dump' -e 'dump in=main' \
		-e 'expect mapped=false at=ptr' -e 'expect mapped=true at=ptr in=main'
	assert_success
	assert_jq '[dump(0).vmas[] | .region] | index("ptr")' 'null'
	assert_jq 'vma_in(1; "carveout+1p").region' 'ptr'
	assert_jq 'st(5).in + " " + st(6).in' 'child main'
	assert_no_scenario_process
}

@test "exit ends a process, records how; a later step without in goes to main" {
	run_json -e 'mmap ptr at=carveout+1p len=2p' -e fork -e 'munmap ptr' -e 'exit in=child' \
		-e 'expect mapped=true at=ptr' -e 'munmap ptr in=main'
	assert_success
	assert_jq 'st(3).op + " " + st(3).in + " " + st(3).ended' 'exit child exited with status 0'
	assert_jq 'st(3).pid == st(1).pid' 'true'
	assert_jq 'st(4).in' 'main'
	assert_jq '[sc.processes[] | "\(.name):\(.ended)"] | join(",")' 'main:null,child:exited with status 0'
	assert_no_scenario_process
	pid="$(jqr 'st(3).pid')"
	[[ ! -e /proc/$pid ]] || fail "process $pid still exists (a zombie?)"
}

@test "the default in: the newest process alive, so an old fork scenario keeps its meaning" {
	run_json -e 'mmap ptr at=carveout+1p len=1p' -e fork -e 'fork' -e 'fault ptr' -e 'exit' -e 'fault ptr' \
		-e 'exit' -e 'dump'
	assert_success
	assert_jq '[sc.steps[] | .in] | join(",")' 'main,main,child,child2,child2,child,child,main'
	assert_jq 'st(2).args.name' 'child2'
	assert_no_scenario_process
}

@test "exit of main after its child: main is reaped by anonremap, the run passes" {
	run_json -e 'mmap ptr at=carveout+1p len=1p' -e fork -e 'exit' -e 'fault ptr' -e 'exit'
	assert_success
	assert_jq '[sc.steps[] | .in + ":" + (.ended // "")] | join(",")' 'main:,main:,child:exited with status 0,main:,main:exited with status 0'
	assert_no_scenario_process
}

@test "exit of main, the last process: steps after it are refused before anything runs" {
	run_json -e 'mmap ptr at=carveout+1p len=1p' -e 'exit' -e dump
	assert_failure 2
	assert_nothing_ran
	assert_msg '-e:3: dump: in: every process has exited'
}

@test "a step in an exited process: exit 2, naming the step and field, nothing run" {
	steps_scen s.json '{"op": "fork", "name": "c1"}' '{"op": "exit", "in": "c1"}' \
		'{"op": "dump", "in": "c1"}'
	run_json "$S"
	assert_failure 2
	assert_nothing_ran
	assert_msg "$S: step 2 (dump): in: process 'c1' has exited"
}

@test "an unknown process name: exit 2, naming the step and field" {
	steps_scen s.json '{"op": "mmap", "name": "ptr", "at": "carveout+1p", "len": "1p"}' \
		'{"op": "fault", "at": "ptr", "in": "nobody"}'
	run_json "$S"
	assert_failure 2
	assert_nothing_ran
	assert_msg "$S: step 1 (fault): in: no process 'nobody' (main, or a name a fork gave)"
}

@test "a duplicate fork name, and a fork named main: exit 2" {
	steps_scen s.json '{"op": "fork", "name": "c1"}' '{"op": "fork", "name": "c1", "in": "main"}'
	run_json "$S"
	assert_failure 2
	assert_msg "$S: step 1 (fork): name: a process is already called 'c1'"
	steps_scen s.json '{"op": "fork", "name": "main"}'
	run_json "$S"
	assert_failure 2
	assert_msg "$S: step 0 (fork): name: a process is already called 'main'"
}

@test "regions are per process: one the child maps is unknown to main (exit 2); a move in the child leaves main's" {
	steps_scen s.json '{"op": "fork"}' '{"op": "mmap", "name": "q", "at": "carveout+1p", "len": "1p"}' \
		'{"op": "fault", "at": "q", "in": "main"}'
	run_json "$S"
	assert_failure 2
	assert_nothing_ran
	assert_msg "$S: step 2 (fault): at: region 'q' is bound in process 'child', not in 'main'"
	run_json -e 'mmap ptr at=carveout+1p len=1p' -e 'fault ptr pattern=1' -e fork \
		-e 'mremap ptr to=carveout+10p flags=maymove,fixed' -e 'verify ptr pattern=1' \
		-e 'verify ptr pattern=1 in=main' -e 'dump in=main'
	assert_success
	assert_jq 'st(4).args.addr_rel + " " + st(5).args.addr_rel' 'carveout+10p carveout+1p'
	assert_jq 'vma_in(0; "carveout+1p").region' 'ptr'
	assert_no_scenario_process
}

@test "exit of a process whose child is alive is refused: exit 2" {
	steps_scen s.json '{"op": "fork"}' '{"op": "exit", "in": "main"}'
	run_json "$S"
	assert_failure 2
	assert_msg "$S: step 1 (exit): in: 'main' still has 'child' alive, which it forked; exit that first"
}

@test "in is checked by 'anonremap check' too, and a bad process name is refused" {
	steps_scen s.json '{"op": "dump", "in": "c-1"}'
	run_ar check "$S"
	assert_failure 2
	assert_msg "$S: step 0 (dump): in: expected a process name (letters, digits, '_')"
}

@test "text form: fork name=, in= round-trip into the embedded scenario" {
	run_json -e 'fork name=c1' -e 'dump in=main'
	assert_success
	assert_jq 'sc.scenario.steps[0].name + " " + sc.scenario.steps[1].in' 'c1 main'
	# text output names the process of a step unless it is main
	run_ar run -f text -e 'mmap ptr at=carveout+1p len=1p' -e 'fork name=c1' -e 'fault ptr' -e 'exit' -e 'dump'
	assert_success
	assert_line --regexp '^  \[ 2\] fault    in=c1 addr=carveout\+1p '
	assert_line --regexp '^  \[ 3\] exit     in=c1 exited with status 0$'
	assert_line --regexp '^  \[ 4\] dump *$'
}

@test "no process survives a timeout while a forked process is paused" {
	run_json -t 1 -e 'mmap ptr at=carveout+1p len=1p' -e 'fork name=c1' -e 'fault ptr' -e pause </dev/null
	assert_failure 3
	assert_jq 'st(3).status + " " + st(3).in' 'timeout c1'
	assert_no_scenario_process
}

@test "no process survives a timeout while main hangs in a userfaultfd fault" {
	need_feature userfaultfd
	run_json -t 1 -e 'mmap ptr at=carveout+1p len=1p' -e 'fork' -e 'userfaultfd ptr in=main' \
		-e 'fault ptr in=main'
	assert_failure 3
	assert_jq 'st(3).status + " " + st(3).in' 'timeout main'
	assert_no_scenario_process
}

@test "show, diff and replay take a result with several processes" {
	run_json -e 'mmap ptr at=carveout+1p len=1p' -e 'fork name=c1' -e 'fault ptr in=c1' -e 'dump in=main' \
		-e 'dump in=c1'
	assert_success
	cp "$J" "$BATS_TEST_TMPDIR/a.json"
	run_ar show "$BATS_TEST_TMPDIR/a.json"
	assert_success
	assert_output --partial 'in=c1'
	# replay runs it again; a fork returns a pid, which no two runs share,
	# so that (and only that) may differ
	run_ar replay "$BATS_TEST_TMPDIR/a.json"
	[[ $status -eq 0 ]] || { assert_failure 1; assert_line --index 1 '-e: DIFFERENT';
		assert_line --regexp '^  step 1 \(fork\): ret: recorded [0-9]+, now [0-9]+$'; [[ ${#lines[@]} -eq 3 ]]; }
	run_ar diff "$BATS_TEST_TMPDIR/a.json" "$BATS_TEST_TMPDIR/a.json"
	assert_success
}

@test "no process survives Ctrl-C (SIGINT) while a forked process is paused" {
	local err="$BATS_TEST_TMPDIR/stderr" i
	J="$BATS_TEST_TMPDIR/result.json"
	"$AR" run -e 'mmap ptr at=carveout+1p len=1p' -e 'fork name=c1' -e 'fork name=c2 in=main' \
		-e 'pause in=c1' -e dump </dev/null >"$J" 2>"$err" &
	local bg=$!
	for ((i = 0; i < 400; i++)); do
		grep -q '^anonremap: step 3: paused: pid ' "$err" && break
		sleep 0.05
	done
	grep -q '^anonremap: step 3: paused: pid ' "$err" || { kill -KILL "$bg"; fail "never paused: $(cat "$err")"; }
	local paused
	paused="$(sed -n 's/^anonremap: step 3: paused: pid \([0-9]*\),.*/\1/p' "$err")"
	kill -INT "$bg"
	local rc=0
	wait "$bg" || rc=$?
	assert_equal "$rc" 3
	assert_jq 'sc.reason' 'step 3 (pause): interrupted by the user'
	assert_jq 'st(3).in' 'c1'
	# main, c1 (the pid paused) and c2 (which no step after its fork used)
	assert_jq 'st(1).pid' "$paused"
	assert_jq '[sc.processes[] | "\(.name)<\(.forked_by)"] | join(",")' 'main<null,c1<main,c2<main'
	assert_jq '[sc.processes[].pid | select(. > 0)] | unique | length' 3
	assert_no_scenario_process
}

@test "valgrind: a run with an exiting child is clean in anonremap and in every scenario process" {
	command -v valgrind >/dev/null || skip "no valgrind"
	sanitized && skip "the sanitized build runs under its own checker"
	local log="$BATS_TEST_TMPDIR/vg.log"
	J="$BATS_TEST_TMPDIR/result.json"
	local rc=0
	# memcheck follows forks: the exiting child and main leave under it too
	valgrind --leak-check=full --error-exitcode=9 --log-file="$log" "$AR" run \
		"$ANONREMAP_SCENARIO_DIR/guard_regions_fork_cow.json" >"$J" || rc=$?
	assert_equal "$rc" 0
	assert_jq 'sc.status' 'pass'
	# under memcheck a process with errors exits 9, so this is the child's verdict
	assert_jq '[sc.steps[] | select(.op == "exit") | .ended] | join(",")' 'exited with status 0'
	run grep -E 'ERROR SUMMARY: [1-9]|definitely lost: [1-9]' "$log"
	assert_failure
}
