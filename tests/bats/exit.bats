#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Exit codes 0/1/2/3/4, how several scenarios combine, and the options that
# shape a run (--keep-going, -o, -f ktap, bundled names): after every run, no
# scenario process is left.

load helper

RELOCATE=mremap_relocate_anon_faulted_after_unfaulted
RELOCATE2=mremap_relocate_anon_faulted_before_faulted

setup() {
	cd "$BATS_TEST_TMPDIR" || exit 1
	scen pass.json <<'EOF'
{"anonremap": 1, "name": "passes", "carveout": {"size": "30p"}, "steps": [
  {"op": "mmap", "name": "ptr", "at": "carveout+1p", "len": "5p"},
  {"op": "fault", "region": "ptr"},
  {"op": "expect", "vma": "ptr", "start": "ptr", "end": "ptr+5p"}
]}
EOF
	PASS="$S"
	scen fail.json <<'EOF'
{"anonremap": 1, "name": "fails", "carveout": {"size": "30p"}, "steps": [
  {"op": "mmap", "name": "ptr", "at": "carveout+1p", "len": "5p"},
  {"op": "expect", "vma": "ptr", "start": "ptr", "end": "ptr+10p"},
  {"op": "fault", "region": "ptr"},
  {"op": "expect", "mapped": false, "at": "ptr"},
  {"op": "dump", "label": "end"}
]}
EOF
	FAIL="$S"
	# ptr is registered with userfaultfd and nobody serves its faults: the
	# verify's first read waits forever, using no memory and no CPU, so only
	# -t ends it (a huge read fault would need the zero page, or allocate)
	scen hang.json <<'EOF'
{"anonremap": 1, "name": "hangs", "carveout": {"size": "30p"}, "steps": [
  {"op": "mmap", "name": "ptr", "at": "carveout+1p", "len": "1p", "prot": "rw"},
  {"op": "userfaultfd", "region": "ptr"},
  {"op": "verify", "region": "ptr", "pattern": "zero"},
  {"op": "dump"}
]}
EOF
	HANG="$S"
	relocate_supported=false
	if "$AR" probe | jq -e '.features.mremap_relocate_anon.supported' >/dev/null; then
		relocate_supported=true
	fi
}

need_no_relocate() {
	if [[ "$relocate_supported" == true ]]; then
		skip "this kernel supports MREMAP_RELOCATE_ANON: the relocate scenarios do not skip"
	fi
}

# --- each code --------------------------------------------------------------

@test "exit 0: every expectation holds" {
	run_json "$PASS"
	assert_success
	assert_jq 'sc | [.name, .status, .reason] | @json' '["passes","pass",""]'
	assert_jq '.summary | @json' '{"pass":1,"fail":0,"skip":0,"error":0}'
	assert_no_scenario_process
}

@test "exit 0: a scenario with nothing to check" {
	run_json -e 'mmap ptr at=carveout+1p len=1p' -e 'fault ptr' -e dump
	assert_success
	assert_jq 'sc.status' 'pass'
	assert_jq 'sc.expectations | length' '0'
	assert_no_scenario_process
}

@test "exit 1: a failed expectation, with expected and found; the run stops there" {
	run_json "$FAIL"
	assert_failure 1
	assert_jq 'sc.status' 'fail'
	assert_jq 'sc.expectations[0] | [.ok, .expected, .found] | @json' \
		'[false,"VMA containing carveout+1p spans carveout+1p..carveout+11p","VMA containing carveout+1p spans carveout+1p..carveout+6p"]'
	assert_jq 'sc.reason | startswith("step 1 (expect vma): expected VMA containing carveout+1p spans carveout+1p..carveout+11p; found ")' 'true'
	assert_jq '[sc.steps[] | .index] | @json' '[0,1]'
	assert_jq 'sc.dumps | length' '0'
	assert_jq '.summary | @json' '{"pass":0,"fail":1,"skip":0,"error":0}'
	assert_no_scenario_process
}

@test "--keep-going: the steps after a failed expectation run too; the reason is the first failure" {
	run_json --keep-going "$FAIL"
	assert_failure 1
	assert_jq '[sc.steps[] | .status] | @json' '["ok","failed","ok","failed","ok"]'
	assert_jq '[sc.expectations[] | .ok] | @json' '[false,false]'
	assert_jq 'sc.dumps[0].label' 'end'
	assert_jq 'sc.reason | startswith("step 1 (expect vma)")' 'true'
	run_json -k "$FAIL"
	assert_failure 1
	assert_jq 'sc.steps | length' '5'
	assert_no_scenario_process
}

@test "exit 2: an invalid scenario; nothing runs, no result" {
	printf '{"anonremap": 1, "steps": [{"op": "mmap", "len": "1p", "at": "carveout", "prot": "rq"}]}\n' >bad.json
	run_json bad.json
	assert_failure 2
	assert_nothing_ran
	run ar_msg
	assert_output --regexp "^anonremap: bad.json: step 0 \(mmap\): prot: unknown prot 'rq'"
}

@test "exit 3: a step that outlives the timeout; the scenario process is killed" {
	run_json -t 1 "$HANG"
	assert_failure 3
	assert_jq 'sc.status' 'error'
	assert_jq 'sc.reason' 'step 2 (verify): timed out after 1 s'
	assert_jq 'sc.steps[2] | [.op, .status] | @json' '["verify","timeout"]'
	assert_jq 'sc.steps | length' '3'
	assert_jq '.summary | @json' '{"pass":0,"fail":0,"skip":0,"error":1}'
	assert_no_scenario_process
}

@test "exit 3: a pause with no terminal and no SIGCONT times out with -t" {
	run --separate-stderr timeout 10 "$AR" run -t 1 -e 'mmap ptr at=carveout+1p len=1p' -e pause -e dump </dev/null
	J="$BATS_TEST_TMPDIR/result.json"
	printf '%s\n' "$output" >"$J"
	assert_failure 3
	assert_jq 'sc.status' 'error'
	assert_jq 'sc.reason | test("^step 1 \\(pause\\): .*timed out")' 'true'
	assert_no_scenario_process
}

@test "exit 3: the scenario process dies (everything unmapped under it)" {
	run_json --allow-outside -e 'munmap at=0x10000 len=0x7ffffffef000' -e dump
	assert_failure 3
	assert_jq 'sc.status' 'error'
	assert_jq 'sc.reason' "step 0 (munmap): scenario process $(jqr 'sc.pid') killed by SIGSEGV"
	assert_jq 'sc.steps[0].status' 'died'
	assert_jq 'sc.dumps | length' '0'
	assert_no_scenario_process
}

@test "exit 3: interrupted (SIGTERM) while paused, with what ran so far" {
	local err="$BATS_TEST_TMPDIR/stderr" i
	J="$BATS_TEST_TMPDIR/result.json"
	"$AR" run -e 'mmap ptr at=carveout+1p len=1p' -e pause -e dump </dev/null >"$J" 2>"$err" &
	local bg=$!
	for ((i = 0; i < 400; i++)); do
		grep -q '^anonremap: step 1: paused: pid ' "$err" && break
		sleep 0.05
	done
	grep -q '^anonremap: step 1: paused: pid ' "$err" || { kill -KILL "$bg"; fail "never paused: $(cat "$err")"; }
	kill -TERM "$bg"
	local rc=0
	wait "$bg" || rc=$?
	assert_equal "$rc" 3
	assert_jq '.interrupted' 'true'
	assert_jq 'sc.status' 'error'
	assert_jq 'sc.reason' 'step 1 (pause): interrupted by the user'
	assert_jq 'sc.steps[0].status' 'ok'
	assert_no_scenario_process
}

@test "exit 4: every scenario skipped" {
	need_no_relocate
	run_json "$RELOCATE" "$RELOCATE2"
	assert_failure 4
	assert_jq '[.scenarios[] | .status] | @json' '["skip","skip"]'
	assert_jq '[.scenarios[] | .reason | startswith("requires mremap_relocate_anon: ")] | all' 'true'
	assert_jq '.summary | @json' '{"pass":0,"fail":0,"skip":2,"error":0}'
	# nothing was forked for them
	assert_jq '[.scenarios[] | .pid // 0] | add' '0'
}

# --- combinations -----------------------------------------------------------

@test "pass + skip = 0" {
	need_no_relocate
	run_json "$PASS" "$RELOCATE"
	assert_success
	assert_jq '[.scenarios[] | .status] | @json' '["pass","skip"]'
	assert_jq '.summary | @json' '{"pass":1,"fail":0,"skip":1,"error":0}'
}

@test "fail + pass = 1, in either order; every scenario runs" {
	run_json "$FAIL" "$PASS"
	assert_failure 1
	assert_jq '[.scenarios[] | .status] | @json' '["fail","pass"]'
	run_json "$PASS" "$FAIL"
	assert_failure 1
	assert_jq '[.scenarios[] | .name] | @json' '["passes","fails"]'
	assert_no_scenario_process
}

@test "fail + skip = 1" {
	need_no_relocate
	run_json "$RELOCATE" "$FAIL"
	assert_failure 1
	assert_jq '[.scenarios[] | .status] | @json' '["skip","fail"]'
}

@test "error + fail = 3, and error wins over pass and skip too" {
	run_json -t 1 "$FAIL" "$HANG"
	assert_failure 3
	assert_jq '[.scenarios[] | .status] | @json' '["fail","error"]'
	assert_jq '.summary | @json' '{"pass":0,"fail":1,"skip":0,"error":1}'
	assert_no_scenario_process
	if [[ "$relocate_supported" == false ]]; then
		run_json -t 1 "$HANG" "$PASS" "$RELOCATE"
		assert_failure 3
		assert_jq '[.scenarios[] | .status] | @json' '["error","pass","skip"]'
	fi
}

@test "invalid + valid = 2: nothing runs at all" {
	printf '{"anonremap": 1, "steps": [{"op": "fault"}]}\n' >bad.json
	run_json "$PASS" bad.json "$FAIL"
	assert_failure 2
	assert_nothing_ran
	assert_msg "bad.json: step 0 (fault): region: give either 'at' or 'region'"
	# every invalid file is reported, not only the first
	cp bad.json bad2.json
	run_json bad.json "$PASS" bad2.json
	assert_failure 2
	assert_nothing_ran
	[[ "$stderr" == *"anonremap: bad2.json: step 0 (fault)"* ]] || fail "bad2.json not reported: $stderr"
}

# --- output options -------------------------------------------------------------

@test "-o FILE: the result goes to FILE, stdout stays empty, no temporary file is left" {
	mkdir out
	run_ar run -k -o out/r.json "$FAIL"
	assert_failure 1
	assert_output ''
	run ls -A out
	assert_output 'r.json'
	J=out/r.json
	assert_jq 'sc | [.name, .status] | @json' '["fails","fail"]'
	assert_jq 'sc.steps | length' '5'
	# the same document as on stdout, but for what changes from run to run
	local norm='{summary, release: .kernel.release, scenarios: [.scenarios[] | del(.dumps)]}
		| walk(if type == "object" then with_entries(select(.key | test("pid|duration|date|time") | not))
		       elif type == "string" and test("^0x[0-9a-f]+$") then "ADDR" else . end)'
	jq -S "$norm" out/r.json >from-file
	run_json -k "$FAIL"
	assert_failure 1
	jq -S "$norm" "$J" >from-stdout
	run diff from-file from-stdout
	assert_success
	# an existing file is replaced
	run_ar run -o out/r.json "$PASS"
	assert_success
	J=out/r.json
	assert_jq 'sc.name' 'passes'
	run ls -A out
	assert_output 'r.json'
}

@test "-o FILE in a missing directory: exit 3, a message, nothing left behind" {
	run_ar run -o nodir/r.json "$PASS"
	assert_failure 3
	assert_output ''
	assert_msg "cannot write the result: nodir/r.json: No such file or directory"
	run ls -A
	refute_output --partial nodir
}

@test "-o FILE is created like any output file (0666 minus the umask)" {
	umask 022
	run_ar run -o r.json "$PASS"
	assert_success
	run stat -c %a r.json
	assert_output 644
}

@test "-f ktap: a plan line, ok / not ok with diagnostics, # SKIP with the reason; same exit codes" {
	need_no_relocate
	run_ar run -f ktap "$PASS" "$FAIL" "$RELOCATE"
	assert_failure 1
	assert_line --index 0 'TAP version 13'
	assert_line --index 1 '1..3'
	assert_line 'ok 1 passes'
	assert_line 'not ok 2 fails'
	assert_line '# expected: VMA containing carveout+1p spans carveout+1p..carveout+11p'
	assert_line '# found:    VMA containing carveout+1p spans carveout+1p..carveout+6p'
	assert_line --regexp "^ok 3 $RELOCATE # SKIP requires mremap_relocate_anon: .*EINVAL"
	assert_line --regexp '^# Totals: pass:1 fail:1 .*skip:1 error:0$'
	run_ar run -f ktap "$RELOCATE"
	assert_failure 4
	assert_line --index 1 '1..1'
	run_ar run --format=ktap -t 1 "$HANG"
	assert_failure 3
	assert_line 'not ok 1 hangs'
	assert_line '# error: step 2 (verify): timed out after 1 s'
}

@test "-f text: the same exit codes" {
	run_ar run -f text "$PASS"
	assert_success
	[[ -n "$output" ]] || fail "no text output"
	run_ar run --format text "$FAIL"
	assert_failure 1
}

# --- naming scenarios ---------------------------------------------------------

@test "run NAME finds a bundled scenario by name" {
	run_json mremap_unfaulted_to_faulted
	assert_success
	assert_jq 'sc.name' 'mremap_unfaulted_to_faulted'
	assert_jq --arg f "$ANONREMAP_SCENARIO_DIR/mremap_unfaulted_to_faulted.json" 'sc.file == $f' 'true'
	assert_jq 'sc.status' 'pass'
	assert_no_scenario_process
}

@test "run NAME looks in \$ANONREMAP_SCENARIO_DIR; an unknown name is a missing file (exit 2)" {
	mkdir lib
	cp "$PASS" lib/my_own.json
	ANONREMAP_SCENARIO_DIR="$BATS_TEST_TMPDIR/lib" run_json my_own
	assert_success
	assert_jq 'sc.file' "$BATS_TEST_TMPDIR/lib/my_own.json"
	ANONREMAP_SCENARIO_DIR="$BATS_TEST_TMPDIR/lib" run_json mremap_unfaulted_to_faulted
	assert_failure 2
	assert_nothing_ran
	assert_msg 'mremap_unfaulted_to_faulted: cannot open: No such file or directory'
}

@test "'-' reads the scenario from stdin" {
	run --separate-stderr "$AR" run - <"$FAIL"
	J="$BATS_TEST_TMPDIR/result.json"
	printf '%s\n' "$output" >"$J"
	assert_failure 1
	assert_jq 'sc | [.name, .file] | @json' '["fails","-"]'
}
