#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The trust model (issue 19): a scenario or result file from someone else
# cannot harm the machine, crash anonremap or forge its output. Each test is
# a reproduction from the issue; each failed on the main it was found on.

load helper

# --- values as the kernel reads them, and the refusals ----------------------

@test "trust: an advice above 32 bits is refused as the kernel would truncate it (0x100000064 is MADV_HWPOISON)" {
	steps_scen big.json '{"op": "mmap", "name": "a", "at": "carveout", "len": "1p", "prot": "rw"}' \
		'{"op": "madvise", "region": "a", "advice": "0x100000064"}'
	run_ar check "$S"
	assert_equal "$status" 2
	assert_equal "$(ar_msg)" "anonremap: $S: step 1 (madvise): advice: 0x100000064 does not fit the kernel's advice argument (at most 0x7fffffff)"
	# and it is not run: strace sees no madvise at all
	command -v strace >/dev/null || skip "strace is not installed"
	local tr="$BATS_TEST_TMPDIR/strace"
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -e trace=madvise -o "$tr" \
		"$AR" run -f json "$S" >/dev/null 2>&1 || true
	run grep -c 'madvise(.*, 4096, ' "$tr"
	assert_output 0
}

@test "trust: a prctl option and mmap flags above their int are refused too" {
	steps_scen p.json '{"op": "prctl", "option": "0x100000001", "value": 0}'
	run_ar check "$S"
	assert_equal "$status" 2
	assert_equal "$(ar_msg)" "anonremap: $S: step 0 (prctl): option: 0x100000001 does not fit the kernel's prctl option argument (at most 0x7fffffff)"
	steps_scen f.json '{"op": "mmap", "name": "a", "at": "carveout", "len": "1p", "prot": "rw", "flags": ["PRIVATE", "ANONYMOUS", "FIXED", "0x100000000"]}'
	run_ar check "$S"
	assert_equal "$status" 2
	[[ "$(ar_msg)" == *"flags: 0x100000032 does not fit the kernel's mmap flag argument (at most 0xffffffff)" ]]
}

@test "trust: HWPOISON, SOFT_OFFLINE and prctls that defeat cleanup are refused without --allow-dangerous, named" {
	local step want
	while IFS='|' read -r step want; do
		steps_scen d.json '{"op": "mmap", "name": "a", "at": "carveout", "len": "1p", "prot": "rw"}' "$step"
		run_ar check "$S"
		assert_equal "$status" 2
		[[ "$(ar_msg)" == *"$want"*"; refused (--allow-dangerous to run it)" ]] || fail "$step: $(ar_msg)"
		run_ar check -D "$S"
		assert_equal "$status" 0
	done <<'EOF'
{"op": "madvise", "region": "a", "advice": "hwpoison"}|advice: MADV_HWPOISON poisons a physical page
{"op": "madvise", "region": "a", "advice": 101}|advice: MADV_SOFT_OFFLINE
{"op": "prctl", "option": 1, "value": 0}|option: PR_SET_PDEATHSIG
{"op": "prctl", "option": 36, "value": 1}|option: PR_SET_CHILD_SUBREAPER
{"op": "prctl", "option": 22, "value": 1}|option: PR_SET_SECCOMP
{"op": "prctl", "option": 4, "value": 0}|option: PR_SET_DUMPABLE other than 1
{"op": "prctl", "option": 35, "value": 1}|option: PR_SET_MM
EOF
	# PR_SET_DUMPABLE 1 is what the process has already: allowed
	steps_scen ok.json '{"op": "prctl", "option": 4, "value": 1}'
	run_ar check "$S"
	assert_equal "$status" 0
	# run refuses it the same way, before anything runs
	steps_scen r.json '{"op": "prctl", "option": 1, "value": 0}'
	run_ar run "$S"
	assert_equal "$status" 2
}

@test "trust: an offset from a region the kernel placed cannot leave that region (a-0x10000000000)" {
	steps_scen esc.json '{"op": "mmap", "name": "a", "len": "2p", "prot": "rw"}' \
		'{"op": "munmap", "at": "a-0x10000000000", "len": "1p"}'
	run_json -f json "$S"
	assert_equal "$status" 3
	assert_jq 'st(1).error' "at: the range leaves region 'a', which the kernel placed outside the reserved area (use --allow-outside)"
	# inside it is the scenario's own mapping
	steps_scen in.json '{"op": "mmap", "name": "a", "len": "2p", "prot": "rw"}' \
		'{"op": "munmap", "at": "a+1p", "len": "1p"}'
	run_json -f json "$S"
	assert_equal "$status" 0
	assert_jq 'st(1).ret' 0
}

# --- output files -------------------------------------------------------------

@test "trust: -o onto a character device or a FIFO writes it in place, never replaces the node" {
	local d="$BATS_TEST_TMPDIR"
	mknod "$d/null" c 1 3
	run_ar run -o "$d/null" -e 'mmap a at=carveout len=1p prot=rw'
	assert_equal "$status" 0
	[[ -c "$d/null" ]] || fail "the device node was replaced: $(ls -l "$d/null")"
	mkfifo "$d/fifo"
	cat "$d/fifo" >"$d/fifo.out" &
	local reader=$!
	run_ar run -o "$d/fifo" -e 'mmap a at=carveout len=1p prot=rw'
	wait "$reader"
	assert_equal "$status" 0
	[[ -p "$d/fifo" ]] || fail "the FIFO was replaced"
	jq -e '.scenarios[0].status == "pass"' "$d/fifo.out"
	# and -R, bench -o, stress --trace, shell .save: the same writer
	run_ar run -R "$d/null" -e 'mmap a at=carveout len=1p prot=rw'
	assert_equal "$status" 0
	[[ -c "$d/null" ]]
	run bash -c "printf 'mmap a at=carveout len=1p prot=rw\n.save %s\n' '$d/null' | '$AR' shell"
	[[ -c "$d/null" ]]
	assert_output --partial "saved"
}

@test "trust: -o follows a symlink to a regular file (replaced, the link stays); a dangling one, a directory or a block device is refused before anything runs" {
	local d="$BATS_TEST_TMPDIR"
	echo old >"$d/target"
	ln -s target "$d/link"
	run_ar run -o "$d/link" -e 'mmap a at=carveout len=1p prot=rw'
	assert_equal "$status" 0
	[[ -L "$d/link" ]] || fail "the symlink was replaced"
	jq -e '.scenarios[0].status == "pass"' "$d/target"
	ln -s nowhere "$d/dangling"
	mkdir "$d/dir"
	mknod "$d/blk" b 7 200
	local t
	for t in dangling dir blk; do
		run_ar run -o "$d/$t" -e 'mmap a at=carveout len=1p prot=rw' -e 'pause'
		assert_equal "$status" 2
		[[ "$stderr" == *"--output: $d/$t: "*": refused"* ]] || fail "$t: $stderr"
	done
	[[ -b "$d/blk" && -d "$d/dir" && -L "$d/dangling" ]]
	run_ar stress --steps 3 -o "$d/dir"
	assert_equal "$status" 2
	run_ar bench -q -o "$d/dir"
	assert_equal "$status" 2
}

# --- the text drawing ---------------------------------------------------------

@test "trust: sixty regions merged into one VMA draw as one box, ten boxes wide (was a stack overflow of a 128-byte cell)" {
	local d="$BATS_TEST_TMPDIR" i steps=""
	for i in $(seq 0 59); do
		steps+="{\"op\": \"mmap\", \"name\": \"r$i\", \"at\": \"carveout+${i}p\", \"len\": \"1p\", \"prot\": \"rw\"},"
	done
	printf '{"anonremap": 1, "name": "many", "steps": [%s {"op": "dump"}]}\n' "$steps" >"$d/many.json"
	run_ar run -f text "$d/many.json"
	assert_equal "$status" 0
	# the box is drawn as wide as 10 boxes (BOX_MAX_REGIONS): 10 * 11 dashes
	# and the 9 walls between them, in its two walls
	local border
	border="$(grep -m1 -- '|----' <<<"$output" | tr -d ' ')"
	assert_equal "${#border}" $((10 * 11 + 9 + 2))
	assert_output --partial "r0+r1+r2"
	# the same picture from show, and in the report
	run_ar run -f json -o "$d/r.json" "$d/many.json"
	run_ar show "$d/r.json"
	assert_equal "$status" 0
	assert_output --partial "$(head -c 40 <<<"$border")"
}

# --- printing someone else's strings -------------------------------------------

@test "trust: a newline in a scenario name cannot forge a KTAP line; escapes do not reach the terminal" {
	local d="$BATS_TEST_TMPDIR"
	printf '%s\n' '{"anonremap": 1, "name": "evil\nok 2 forged # SKIP\u001b[2J\u009b",
	  "steps": [{"op": "mmap", "name": "a", "at": "carveout", "len": "1p", "prot": "rw"},
	            {"op": "dump", "label": "l\u001b]0;title\u0007"}]}' >"$d/evil.json"
	run_ar run -f ktap "$d/evil.json"
	assert_equal "$status" 0
	assert_equal "$(grep -c '^ok ' <<<"$output")" 1
	assert_line 'ok 1 evil\nok 2 forged \x23 SKIP\x1b[2J\xc2\x9b'
	run_ar run -f text "$d/evil.json"
	[[ "$output" != *$'\e'* ]] || fail "an ESC reached the text output"
	assert_output --partial 'evil\nok 2 forged # SKIP\x1b[2J\xc2\x9b: pass'
	assert_output --partial 'dump after step 1, l\x1b]0;title\x07:'
	run_ar check "$d/evil.json"
	[[ "$output" != *$'\e'* && "$(wc -l <<<"$output")" == 1 ]] || fail "check: $output"
	# the readers of a result file someone sent: show, diff, replay
	"$AR" run -f json -o "$d/evil.r.json" "$d/evil.json"
	local c
	for c in "show $d/evil.r.json" "diff $d/evil.r.json $d/evil.r.json" "replay $d/evil.r.json"; do
		run_ar $c
		[[ "$output" != *$'\e'* && "$output" != *$'\xc2\x9b'* ]] || fail "$c: an escape reached the output"
		assert_output --partial 'evil\nok 2 forged # SKIP\x1b[2J\xc2\x9b'
	done
	# valid UTF-8 passes unchanged
	printf '%s\n' '{"anonremap": 1, "name": "größe → ok", "steps": []}' >"$d/utf8.json"
	run_ar run -f ktap "$d/utf8.json"
	assert_line 'ok 1 größe → ok'
}

# --- JSON input ------------------------------------------------------------------

@test "trust: a duplicate key anywhere is refused with its line and column, and the first's" {
	local d="$BATS_TEST_TMPDIR"
	printf '{"anonremap": 1, "name": "dup", "steps": [\n  {"op": "mmap", "name": "a", "at": "carveout", "len": "1p",\n   "op": "munmap"}]}\n' >"$d/op.json"
	run_ar check "$d/op.json"
	assert_equal "$status" 2
	assert_equal "$(ar_msg)" "anonremap: $d/op.json:3:4: invalid JSON: duplicate key \"op\" (the first is at 2:4)"
	# spelled with an escape, it is the same key
	printf '{"anonremap": 1, "carveout": {"size": "10p", "\\u0073ize": "20p"}, "steps": []}\n' >"$d/esc.json"
	run_ar check "$d/esc.json"
	assert_equal "$status" 2
	assert_equal "$(ar_msg)" "anonremap: $d/esc.json:1:46: invalid JSON: duplicate key \"\\u0073ize\" (the first is at 1:31)"
	# result files too
	run_ar run -f json -o "$d/r.json" -e 'mmap a at=carveout len=1p prot=rw'
	sed -i '0,/"status":/s//"status": "pass", "status":/' "$d/r.json"
	run_ar show "$d/r.json"
	assert_equal "$status" 2
	[[ "$(ar_msg)" == *"invalid JSON: duplicate key \"status\""* ]]
	# the same key in two objects is fine
	printf '{"anonremap": 1, "steps": [{"op": "mmap", "name": "a", "at": "carveout", "len": "1p"}, {"op": "munmap", "region": "a"}]}\n' >"$d/two.json"
	run_ar check "$d/two.json"
	assert_equal "$status" 0
}

@test "trust: whole numbers near 2^53 are written exactly (cJSON would round 9007199254740001)" {
	steps_scen n.json '{"op": "mmap", "name": "a", "at": "carveout", "len": "1p", "prot": "rw"}' \
		'{"op": "fault", "region": "a", "pattern": 9007199254740001}'
	run_json -f json "$S"
	assert_equal "$status" 0
	grep -q '"pattern":[[:space:]]*9007199254740001' "$J"
	! grep -q 'e+15' "$J"
}

@test "trust: shell reports a NUL byte in a line instead of running what precedes it" {
	run bash -c "printf 'mmap a at=carveout len=1p prot=rw\0 munmap a\ndump\n' | '$AR' shell"
	assert_output --partial "error: <stdin>:1:34: NUL byte in the line; the line is ignored"
	# the mmap before the NUL did not run: the dump has the carveout alone
	refute_output --partial "rw-p"
}

# --- resource limits cover every process and file ------------------------------

@test "trust: --max-rss sums every process of the scenario (three processes of 40m each, none over 100m alone)" {
	scen rss.json <<'EOS'
{"anonremap": 1, "name": "rss", "carveout": {"size": "256m"}, "steps": [
 {"op": "mmap", "name": "a", "at": "carveout", "len": "40m", "prot": "rw"},
 {"op": "fault", "region": "a", "len": "40m"},
 {"op": "fork"}, {"op": "fork"},
 {"op": "mmap", "name": "b", "at": "carveout+64m", "len": "50m", "prot": "rw"},
 {"op": "fault", "region": "b", "len": "50m", "pattern": 1},
 {"op": "verify", "region": "b", "pattern": 1},
 {"op": "verify", "region": "b", "pattern": 1}]}
EOS
	run_json -m 100m -t 20 -f json "$S"
	assert_equal "$status" 3
	assert_jq 'sc.status' error
	[[ "$(jqr 'sc.reason')" =~ by\ anonremap:\ the\ RSS\ of\ its\ processes\ reached\ [0-9]+\ kB,\ over\ --max-rss\ of\ 102400\ kB$ ]] ||
		fail "$(jqr 'sc.reason')"
	# and nothing of it is left
	run pgrep -f "anonremap run -m 100m"
	assert_failure
}

@test "trust: --max-rss bounds the scenario's files (EFBIG), and below 1k is a usage error, not 'no limit'" {
	steps_scen f.json '{"op": "mmap", "name": "a", "at": "carveout", "len": "4m", "prot": "rw", "file": "tmpfile", "flags": "shared|fixed"}'
	run_json -m 2m -f json "$S"
	assert_jq 'st(0).errno' EFBIG
	run_json -m 8m -f json "$S"
	assert_jq 'st(0).errno' null
	run_ar run -m 1000 -e 'mmap a carveout 1p rw'
	assert_equal "$status" 2
	[[ "$stderr" == *"--max-rss: '1000' is below 1k (0 means no limit)"* ]]
}
