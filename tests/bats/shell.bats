#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# anonremap shell: one live scenario process, steps from stdin, one result a
# step; in a pipe and as a coprocess of a shell script.
load helper

# How long to wait for one answer of the shell (the sanitizer build is slow).
READ_TIMEOUT=60

# shell_session [SHELL_ARGS...]: pipe stdin into "$AR" shell ARGS; stdout in
# $output and in $SO (a file), stderr in $stderr, exit code in $status.
shell_session() {
	SO="$BATS_TEST_TMPDIR/shell.out"
	run --separate-stderr "$AR" shell "$@"
	printf '%s\n' "$output" >"$SO"
}

# jl N FILTER: jq -r FILTER on line N (1-based) of the JSON-lines output.
jl() {
	sed -n "$1p" "$SO" | jq -r "$2"
}

# assert_jl N FILTER EXPECTED
assert_jl() {
	local got
	got="$(jl "$1" "$2")" || fail "jq failed on line $1: $(sed -n "$1p" "$SO")"
	[[ "$got" == "$3" ]] || fail "line $1, jq '$2'
expected: $3
got     : $got
line    : $(sed -n "$1p" "$SO" | cut -c1-300)"
}

# every_line_is_json: each stdout line parses on its own as one object.
every_line_is_json() {
	local n=0 l
	while IFS= read -r l; do
		n=$((n + 1))
		jq -ce 'type == "object"' <<<"$l" >/dev/null || fail "line $n is not one JSON object: $l"
	done <"$SO"
	((n > 0)) || fail "no output"
}

# The answer lines of a session can be told apart by their key.
PASS_SESSION='carveout size=30p
mmap ptr at=carveout+1p len=5p prot=rw
mmap ptr2 at=carveout+7p len=5p prot=rw
mremap ptr2 to=ptr2+1000p flags=maymove,fixed
fault ptr
mremap ptr2 to=ptr+5p flags=maymove,fixed
expect vma=ptr start=ptr end=ptr+10p
dump'

@test "shell: a piped session prints readable text by default" {
	shell_session <<<"$PASS_SESSION"
	assert_success
	assert_line --regexp '^  \[ 0\] mmap +addr=carveout\+1p len=5p .* = carveout\+1p \([0-9]+ ns\)$'
	assert_line --regexp '^  \[ 4\] mremap +old_address=carveout\+1007p .* = carveout\+6p \([0-9]+ ns\)$'
	assert_line --regexp '^  \[ 5\] expect +VMA containing carveout\+1p spans carveout\+1p\.\.carveout\+11p: ok$'
	# dump draws the layout
	assert_line '    |-----------------------|'
	assert_line '    |        faulted        |'
	assert_line --regexp '^ +ptr\+ptr2$'
	assert_line --regexp '^    carveout\+1p\.\.carveout\+11p +10 rw-p ptr\+ptr2 +x\.{9}$'
}

@test "shell: -f json prints one JSON object a line, one a step" {
	shell_session -f json <<<"$PASS_SESSION"
	assert_success
	every_line_is_json
	assert_equal "$(wc -l <"$SO")" 7
	local i
	for i in 0 1 2 3 4 5 6; do
		assert_jl $((i + 1)) '.step.index' "$i"
	done
	assert_jl 1 '.step.op' mmap
	assert_jl 1 '.step.ret_rel' carveout+1p
	assert_jl 5 '.step.ret_rel' carveout+6p
	assert_jl 6 '.step.op' expect
	assert_jl 6 '.expectation.ok' true
	assert_jl 7 '.step.op' dump
	assert_jl 7 '[.dump.vmas[] | select(.rel == "carveout+1p..carveout+11p") | .region | join("+")] | .[0]' ptr+ptr2
	# the scenario process is one and the same for every step
	assert_equal "$(jq -r '.step.pid // empty' "$SO" | sort -u | wc -l)" 1
}

@test "shell: a bad line is reported, the session goes on and the step is not counted" {
	shell_session -f json <<'EOF'
carveout size=30p
mmap ptr at=carveout+1p len=5p prot=rw
mremap ptr to=ptr+5p flags=maymove,fixed,relocat_anon
mremapp to=ptr+5p
fault ptr
expect faulted=true at=ptr
EOF
	assert_success
	every_line_is_json
	assert_equal "$(wc -l <"$SO")" 5
	assert_jl 1 '.step.index' 0
	# the error names the line of the session and the word
	assert_jl 2 '.error | startswith("<stdin>:3: ") and test("relocat_anon") and test("did you mean")' true
	assert_jl 3 '.error | startswith("<stdin>:4: ") and test("unknown op") and test("mremapp") and test("did you mean .mremap.")' true
	assert_jl 4 '.step.index' 1
	assert_jl 4 '.step.op' fault
	assert_jl 5 '.step.index' 2
	assert_jl 5 '.expectation.ok' true
}

@test "shell: in text form a bad line is reported as an error line" {
	shell_session <<'EOF'
mmap ptr at=carveout+1p len=5p prot=rw
mmap ptr2 carveout+7p
fault ptr
EOF
	assert_success
	assert_line --regexp "^error: <stdin>:2: .*'carveout\+7p' is not key=value"
	assert_line --regexp '^  \[ 1\] fault '
	refute_line --regexp '^  \[ 2\]'
}

@test "shell: .save FILE, then run FILE, reproduces the outcome (pass)" {
	local f="$BATS_TEST_TMPDIR/saved.json"
	shell_session -f json <<EOF
$PASS_SESSION
.save $f
EOF
	assert_success
	assert_jl 8 '.saved' "$f"
	[[ -s "$f" ]] || fail ".save wrote nothing"
	run jq -c '[.carveout.size, (.steps | length), .steps[5]]' "$f"
	assert_output '["30p",7,{"op":"expect","vma":"ptr","start":"ptr","end":"ptr+10p"}]'
	# the expectation the session printed
	local want
	want="$(sed -n 6p "$SO" | jq -c '[.expectation | {step, check, ok, expected, found}]')"
	run_json "$f"
	assert_success
	assert_jq 'sc.status' pass
	assert_jq 'sc.carveout.pages' 30
	assert_jq '[sc.expectations[] | {step, check, ok, expected, found}] | tojson' "$want"
	assert_jq 'vma("carveout+1p").rel' carveout+1p..carveout+11p
}

@test "shell: .save FILE, then run FILE, reproduces the outcome (a failed expect)" {
	local f="$BATS_TEST_TMPDIR/saved.json"
	shell_session -f json <<EOF
mmap ptr at=carveout+1p len=5p prot=rw
expect vma=ptr start=ptr end=ptr+6p
.save $f
.quit
EOF
	assert_failure 1
	assert_jl 2 '.expectation.ok' false
	local want
	want="$(sed -n 2p "$SO" | jq -c '[.expectation | {step, check, ok, expected, found}]')"
	run_json "$f"
	assert_failure 1
	assert_jq 'sc.status' fail
	assert_jq '[sc.expectations[] | {step, check, ok, expected, found}] | tojson' "$want"
}

@test "shell: .save writes the steps so far as a JSON scenario that check accepts" {
	local f="$BATS_TEST_TMPDIR/s.json"
	shell_session <<EOF
name my_session
carveout size=30p
mmap ptr at=carveout+1p len=5p prot=rw
bogus line
fault ptr
.save $f
fault ptr2
EOF
	assert_line "saved: $f"
	run_ar check "$f"
	assert_success
	run jq -cS '[.name, .carveout, .steps]' "$f"
	assert_output "$(jq -cS . <<<'["my_session", {"size": "30p"},
		[{"op": "mmap", "name": "ptr", "at": "carveout+1p", "len": "5p", "prot": "rw"},
		 {"op": "fault", "region": "ptr"}]]')"
}

@test "shell: .quit ends the session with its exit status" {
	shell_session -f json <<'EOF'
mmap ptr at=carveout+1p len=5p prot=rw
expect mapped=true at=ptr
.quit
fault ptr
EOF
	assert_success
	assert_equal "$(wc -l <"$SO")" 2
	shell_session -f json <<'EOF'
mmap ptr at=carveout+1p len=5p prot=rw
expect mapped=false at=ptr
.quit
fault ptr
EOF
	assert_failure 1
	assert_equal "$(wc -l <"$SO")" 2
	assert_jl 2 '.expectation.ok' false
}

@test "shell: a failed expect is remembered after later good steps" {
	shell_session -f json <<'EOF'
mmap ptr at=carveout+1p len=5p prot=rw
expect mapped=false at=ptr
fault ptr
expect faulted=true at=ptr
EOF
	assert_failure 1
	assert_jl 4 '.expectation.ok' true
}

@test "shell: driven as a coprocess, one line in, one JSON line out, no EOF needed" {
	local f="$BATS_TEST_TMPDIR/co.json" l pid rc
	coproc SH { exec "$AR" shell -f json 2>"$BATS_TEST_TMPDIR/co.err"; }
	local in="${SH[1]}" out="${SH[0]}" sp="$SH_PID"

	echo 'carveout size=30p' >&"$in"
	echo 'mmap ptr at=carveout+1p len=5p prot=rw' >&"$in"
	read -t "$READ_TIMEOUT" -r l <&"$out" || fail "no answer to the first step"
	[[ "$(jq -r .step.op <<<"$l")" == mmap ]] || fail "got: $l"
	[[ "$(jq -r .step.ret_rel <<<"$l")" == carveout+1p ]] || fail "got: $l"
	pid="$(jq -r .step.pid <<<"$l")"
	# the scenario process is alive, waiting for the next line
	kill -0 "$pid" || fail "scenario process $pid is not alive between steps"

	echo 'mmap ptr2 at=carveout+7p len=5p prot=rw' >&"$in"
	read -t "$READ_TIMEOUT" -r l <&"$out" || fail "no answer to step 1"
	[[ "$(jq -r .step.index <<<"$l")" == 1 ]] || fail "got: $l"

	echo 'mremap ptr2 to=ptr2+1000p flags=maymove,fixed' >&"$in"
	read -t "$READ_TIMEOUT" -r l <&"$out" || fail "no answer to step 2"
	[[ "$(jq -r .step.ret_rel <<<"$l")" == carveout+1007p ]] || fail "got: $l"

	echo 'fault ptr' >&"$in"
	read -t "$READ_TIMEOUT" -r l <&"$out" || fail "no answer to step 3"

	# a carveout line after the first step is refused; the session goes on
	echo 'carveout size=64p' >&"$in"
	read -t "$READ_TIMEOUT" -r l <&"$out" || fail "no answer to the carveout line"
	[[ "$(jq -r '.error // ""' <<<"$l")" == *carveout* ]] || fail "the carveout line was not refused: $l"

	# the answer to a step reflects that step, before the next one is sent
	echo 'mremap ptr2 to=ptr+5p flags=maymove,fixed' >&"$in"
	read -t "$READ_TIMEOUT" -r l <&"$out" || fail "no answer to step 4"
	[[ "$(jq -r .step.index <<<"$l")" == 4 ]] || fail "got: $l"

	echo 'dump' >&"$in"
	read -t "$READ_TIMEOUT" -r l <&"$out" || fail "no answer to dump"
	[[ "$(jq -r '.dump.vmas[] | select(.rel == "carveout+1p..carveout+11p") | .pages_state' <<<"$l")" == x......... ]] ||
		fail "no merged VMA in: ${l:0:400}"

	echo 'expect vma=ptr start=ptr end=ptr+10p' >&"$in"
	read -t "$READ_TIMEOUT" -r l <&"$out" || fail "no answer to expect"
	[[ "$(jq -r .expectation.ok <<<"$l")" == true ]] || fail "got: $l"

	echo ".save $f" >&"$in"
	read -t "$READ_TIMEOUT" -r l <&"$out" || fail "no answer to .save"
	[[ "$(jq -r .saved <<<"$l")" == "$f" ]] || fail "got: $l"

	echo '.quit' >&"$in"
	rc=0
	wait "$sp" || rc=$?
	assert_equal "$rc" 0
	! kill -0 "$pid" 2>/dev/null || fail "scenario process $pid outlived the shell"

	# the saved session replays with run, with the same outcome
	jq -e '.carveout.size == "30p" and (.steps | length) == 7' "$f" >/dev/null ||
		fail "unexpected saved scenario: $(cat "$f")"
	run_json "$f"
	assert_success
	assert_jq 'sc.status' pass
	assert_jq 'sc.expectations[0].ok' true
	assert_jq 'vma("carveout+1p").rel' carveout+1p..carveout+11p
}

@test "shell: a carveout line before the first step is taken, after it refused" {
	local f="$BATS_TEST_TMPDIR/c.json"
	shell_session -f json <<EOF
carveout size=30p
mmap ptr at=carveout+1p len=5p prot=rw
carveout size=64p
fault ptr
.save $f
EOF
	assert_success
	assert_jl 1 '.step.index' 0
	assert_jl 2 '.error | startswith("<stdin>:3: ") and test("carveout")' true
	assert_jl 3 '.step.index' 1
	run jq -c .carveout "$f"
	assert_output '{"size":"30p"}'
}

@test "shell: end of input ends the session cleanly" {
	shell_session -f json <<'EOF'
mmap ptr at=carveout+1p len=5p prot=rw
fault ptr
EOF
	assert_success
	assert_equal "$(wc -l <"$SO")" 2
	local pid
	pid="$(jl 1 .step.pid)"
	[[ "$pid" =~ ^[0-9]+$ ]] || fail "no pid in: $(head -1 "$SO")"
	! kill -0 "$pid" 2>/dev/null || fail "scenario process $pid outlived the shell"
	# no input at all
	shell_session </dev/null
	assert_success
	assert_output ''
}

@test "shell: no prompt when stdin is not a terminal" {
	shell_session <<<"$PASS_SESSION"
	assert_success
	[[ "$stderr" != *"anonremap> "* ]] || fail "a prompt on stderr: $stderr"
	[[ "$output" != *"anonremap> "* ]] || fail "a prompt on stdout"
}

@test "shell: a prompt at a terminal" {
	command -v script >/dev/null || skip "script (util-linux) is not installed"
	run script -qec "'$AR' shell" /dev/null <<<'.quit'
	[[ "$output" == *"anonremap> "* ]] || fail "no prompt at a terminal: $output"
}

@test "shell: it takes no arguments and no ktap" {
	run_ar shell foo.json </dev/null
	assert_equal "$status" 2
	run_ar shell -f ktap </dev/null
	assert_equal "$status" 2
	run_ar shell --help
	assert_success
	assert_output --partial '.save'
}

@test "shell: a refused step after the first leaves the session as it was: names, processes, steps" {
	local f="$BATS_TEST_TMPDIR/rolled.json"
	shell_session <<EOF
mmap ptr at=carveout+1p len=5p prot=rw
fork name=c1
fork name=c1
mmap q at=carveout+20p len=0 prot=rw
fault q
exit in=c1
fault ptr in=main
carveout size=40p
.save $f
EOF
	assert_success
	# a duplicate fork name: c1 is made once, and exit can end it
	assert_line --regexp "^error: <stdin>:3: fork: .*c1"
	# a zero-length mmap is refused, and the name it brought is gone with it
	assert_line --regexp "^error: <stdin>:4: mmap: len: zero"
	assert_line --regexp "^error: <stdin>:5: .*q"
	assert_line --regexp "^error: <stdin>:8: scenario lines .* go before the first step"
	run_ar check "$f"
	assert_success
	run jq -c '[.steps[].op]' "$f"
	assert_output '["mmap","fork","exit","fault"]'
	run_json "$f"
	assert_success
}

@test "shell: scripts/bench-shell.sh runs a session of each length and prints a row for each" {
	run "${TOP_SRCDIR:-$BATS_TEST_DIRNAME/../..}/scripts/bench-shell.sh" -r 1 20 40
	assert_success
	assert_line --index 0 --regexp '^ +steps +wall \(s\) +per step \(us\) +rss \(KB\) +ratio$'
	assert_line --index 1 --regexp '^ +20 +[0-9.]+ +[0-9.]+ +[0-9]+ +1\.00$'
	assert_line --index 2 --regexp '^ +40 +[0-9.]+ +[0-9.]+ +[0-9]+ +[0-9.]+$'
	run "${TOP_SRCDIR:-$BATS_TEST_DIRNAME/../..}/scripts/bench-shell.sh" -r 1 ten
	assert_failure 2
	assert_output --partial "not a positive number: 'ten'"
}
