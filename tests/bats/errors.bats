#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Every class of bad input: exit 2, a precise message naming file, step, op
# and field, and nothing run -- not even the valid scenario given beside it.

load helper

setup() {
	# a valid scenario that would print a result if anything ran
	V="$BATS_TEST_TMPDIR/valid.json"
	cat >"$V" <<'EOF'
{"anonremap": 1, "steps": [
  {"op": "mmap", "name": "ptr", "at": "carveout+1p", "len": "1p"},
  {"op": "fault", "region": "ptr"}
]}
EOF
}

# assert_invalid FILE MESSAGE: run and check both refuse FILE with exactly
# "anonremap: MESSAGE" and exit 2; run prints no result, even with a valid
# scenario before it.
assert_invalid() {
	local file="$1" msg="$2"
	run_json "$V" "$file"
	assert_failure 2
	assert_nothing_ran
	assert_msg "$msg"
	run_ar check "$file"
	assert_failure 2
	assert_msg "$msg"
	refute_output --partial ': ok'
}

# invalid_steps MESSAGE_AFTER_FILE STEP_JSON...: a scenario of those steps is
# refused with "anonremap: FILE: MESSAGE_AFTER_FILE".
invalid_steps() {
	local msg="$1"
	shift
	steps_scen bad.json "$@"
	assert_invalid "$S" "$S: $msg"
}

# --- the file itself --------------------------------------------------------

@test "malformed JSON: FILE:LINE:COL of the offending character (missing comma)" {
	scen bad.json <<'EOF'
{
  "anonremap": 1,
  "steps": [
    {"op": "dump"}
    {"op": "dump"}
  ]
}
EOF
	assert_invalid "$S" "$S:5:5: invalid JSON: expected ',' or ']'"
}

@test "malformed JSON: a wrong literal is pointed at" {
	printf '{"anonremap": 1,\n "steps": [], "name": tru}\n' >"$BATS_TEST_TMPDIR/bad.json"
	assert_invalid "$BATS_TEST_TMPDIR/bad.json" "$BATS_TEST_TMPDIR/bad.json:2:23: invalid JSON: expected a value"
}

@test "malformed JSON: a trailing comma is located at the '}' after it" {
	scen bad.json <<'EOF'
{
  "anonremap": 1,
  "steps": [
    {"op": "mmap", "len": "1p",}
  ]
}
EOF
	assert_invalid "$S" "$S:4:32: invalid JSON: trailing comma before '}'"
}

@test "malformed JSON: an unquoted key is located at its first letter" {
	printf '{anonremap: 1, "steps": []}\n' >"$BATS_TEST_TMPDIR/bad.json"
	assert_invalid "$BATS_TEST_TMPDIR/bad.json" "$BATS_TEST_TMPDIR/bad.json:1:2: invalid JSON: expected a key in double quotes"
}

@test "malformed JSON: a truncated file says 'unexpected end of input'" {
	printf '{"anonremap": 1, "steps": [{"op": "dump"}\n' >"$BATS_TEST_TMPDIR/bad.json"
	assert_invalid "$BATS_TEST_TMPDIR/bad.json" "$BATS_TEST_TMPDIR/bad.json:2:1: invalid JSON: unexpected end of input (the '[' at 1:27 is not closed)"
}

@test "malformed JSON: a truncated file without a final newline says 'unexpected end of input' too" {
	printf '{"anonremap": 1, "steps": [{"op": "dump"}' >"$BATS_TEST_TMPDIR/bad.json"
	assert_invalid "$BATS_TEST_TMPDIR/bad.json" "$BATS_TEST_TMPDIR/bad.json:1:42: invalid JSON: unexpected end of input (the '[' at 1:27 is not closed)"
}

@test "trailing garbage after the object" {
	printf '{"anonremap": 1, "steps": []}\n\n  x\n' >"$BATS_TEST_TMPDIR/bad.json"
	assert_invalid "$BATS_TEST_TMPDIR/bad.json" "$BATS_TEST_TMPDIR/bad.json:3:3: invalid JSON: data after the end of the object"
	printf '{"anonremap": 1, "steps": []}{"anonremap": 1, "steps": []}' >"$BATS_TEST_TMPDIR/two.json"
	assert_invalid "$BATS_TEST_TMPDIR/two.json" "$BATS_TEST_TMPDIR/two.json:1:30: invalid JSON: data after the end of the object"
}

@test "a NUL byte" {
	printf '{"anonremap": 1,\n "steps": [\0]}\n' >"$BATS_TEST_TMPDIR/bad.json"
	assert_invalid "$BATS_TEST_TMPDIR/bad.json" "$BATS_TEST_TMPDIR/bad.json:2:12: NUL byte in the file"
}

@test "invalid UTF-8 (a lone byte, and an overlong encoding)" {
	printf '{"anonremap": 1, "name": "caf\xe9", "steps": []}\n' >"$BATS_TEST_TMPDIR/bad.json"
	assert_invalid "$BATS_TEST_TMPDIR/bad.json" "$BATS_TEST_TMPDIR/bad.json:1:30: invalid UTF-8 (byte 0xe9)"
	printf '{"anonremap": 1,\n"name": "\xc0\xaf", "steps": []}\n' >"$BATS_TEST_TMPDIR/bad2.json"
	assert_invalid "$BATS_TEST_TMPDIR/bad2.json" "$BATS_TEST_TMPDIR/bad2.json:2:10: invalid UTF-8 (byte 0xc0)"
	# valid UTF-8 is fine, and counts as one column a character
	printf '{"anonremap": 1, "name": "caf\xc3\xa9", "steps": []}\n' >"$BATS_TEST_TMPDIR/ok.json"
	run_ar check "$BATS_TEST_TMPDIR/ok.json"
	assert_success
}

@test "a JSON value that is not an object" {
	printf '"just a string"\n' >"$BATS_TEST_TMPDIR/bad.json"
	run_ar check "$BATS_TEST_TMPDIR/bad.json"
	assert_failure 2
	printf '[{"op": "dump"}]\n' >"$BATS_TEST_TMPDIR/bad.json"
	assert_invalid "$BATS_TEST_TMPDIR/bad.json" "$BATS_TEST_TMPDIR/bad.json: expected a JSON object"
}

@test "a directory" {
	mkdir "$BATS_TEST_TMPDIR/dir.json"
	assert_invalid "$BATS_TEST_TMPDIR/dir.json" "$BATS_TEST_TMPDIR/dir.json: not a regular file (a directory)"
}

@test "a FIFO is refused without blocking" {
	mkfifo "$BATS_TEST_TMPDIR/fifo.json"
	run --separate-stderr timeout 10 "$AR" run "$V" "$BATS_TEST_TMPDIR/fifo.json"
	assert_failure 2
	assert_nothing_ran
	assert_msg "$BATS_TEST_TMPDIR/fifo.json: not a regular file (a FIFO: use '-' for a pipe on stdin)"
	run --separate-stderr timeout 10 "$AR" check "$BATS_TEST_TMPDIR/fifo.json"
	assert_failure 2
	assert_msg "$BATS_TEST_TMPDIR/fifo.json: not a regular file (a FIFO: use '-' for a pipe on stdin)"
}

@test "an unreadable file" {
	if [[ "$(id -u)" == 0 ]]; then
		skip "running as root: chmod 000 does not stop root from reading"
	fi
	scen bad.json <"$V"
	chmod 000 "$S"
	assert_invalid "$S" "$S: cannot open: Permission denied"
}

@test "a missing file" {
	assert_invalid "$BATS_TEST_TMPDIR/nope.json" "$BATS_TEST_TMPDIR/nope.json: cannot open: No such file or directory"
}

# --- the top level ----------------------------------------------------------

@test "wrong or missing format version" {
	printf '{"anonremap": 2, "steps": []}\n' >"$BATS_TEST_TMPDIR/v2.json"
	assert_invalid "$BATS_TEST_TMPDIR/v2.json" "$BATS_TEST_TMPDIR/v2.json: anonremap: format version must be 1"
	printf '{"anonremap": "1", "steps": []}\n' >"$BATS_TEST_TMPDIR/vs.json"
	assert_invalid "$BATS_TEST_TMPDIR/vs.json" "$BATS_TEST_TMPDIR/vs.json: anonremap: format version must be 1"
	printf '{"steps": []}\n' >"$BATS_TEST_TMPDIR/v0.json"
	assert_invalid "$BATS_TEST_TMPDIR/v0.json" "$BATS_TEST_TMPDIR/v0.json: anonremap: missing (the format version, 1)"
}

@test "unknown top-level key, and a key given twice" {
	printf '{"anonremap": 1, "stepz": []}\n' >"$BATS_TEST_TMPDIR/bad.json"
	run_json "$V" "$BATS_TEST_TMPDIR/bad.json"
	assert_failure 2
	assert_nothing_ran
	run ar_msg
	assert_output --regexp "^anonremap: $BATS_TEST_TMPDIR/bad.json: stepz: unknown field \\(anonremap, .*steps\\)$"
	printf '{"anonremap": 1, "name": "a", "name": "b", "steps": []}\n' >"$BATS_TEST_TMPDIR/twice.json"
	# refused as JSON, with where both are (trust.bats has more)
	assert_invalid "$BATS_TEST_TMPDIR/twice.json" "$BATS_TEST_TMPDIR/twice.json:1:31: invalid JSON: duplicate key \"name\" (the first is at 1:18)"
}

@test "missing steps" {
	printf '{"anonremap": 1, "name": "x"}\n' >"$BATS_TEST_TMPDIR/bad.json"
	assert_invalid "$BATS_TEST_TMPDIR/bad.json" "$BATS_TEST_TMPDIR/bad.json: steps: missing (a list of steps)"
}

@test "unknown requires name" {
	printf '{"anonremap": 1, "requires": ["thp", "warp_drive"], "steps": []}\n' >"$BATS_TEST_TMPDIR/bad.json"
	assert_invalid "$BATS_TEST_TMPDIR/bad.json" "$BATS_TEST_TMPDIR/bad.json: requires: unknown feature 'warp_drive'"
}

@test "bad carveout size" {
	printf '{"anonremap": 1, "carveout": {"size": "1000"}, "steps": []}\n' >"$BATS_TEST_TMPDIR/bad.json"
	assert_invalid "$BATS_TEST_TMPDIR/bad.json" "$BATS_TEST_TMPDIR/bad.json: carveout: size: must be a non-zero multiple of the page size, at most 64 TiB"
}

@test "more than 4096 steps (4096 are fine)" {
	local i
	{
		printf '{"anonremap": 1, "steps": [\n{"op": "dump"}'
		for ((i = 1; i < 4096; i++)); do printf ',\n{"op": "dump"}'; done
		printf '\n]}\n'
	} >"$BATS_TEST_TMPDIR/max.json"
	run_ar check "$BATS_TEST_TMPDIR/max.json"
	assert_success
	assert_output --partial '(4096 steps)'
	sed 's/^\]}$/,{"op": "dump"}]}/' "$BATS_TEST_TMPDIR/max.json" >"$BATS_TEST_TMPDIR/over.json"
	assert_invalid "$BATS_TEST_TMPDIR/over.json" "$BATS_TEST_TMPDIR/over.json: steps: 4097 steps, more than the limit of 4096"
}

@test "deep nesting is refused where it starts to be too deep" {
	python3 -c 'import sys; sys.stdout.write("{\"anonremap\": 1, \"steps\": [{\"op\": \"dump\", \"label\": " + "[" * 3000 + "]" * 3000 + "}]}")' \
		>"$BATS_TEST_TMPDIR/deep.json"
	run_json "$V" "$BATS_TEST_TMPDIR/deep.json"
	assert_failure 2
	assert_nothing_ran
	assert_msg "$BATS_TEST_TMPDIR/deep.json:1:1050: invalid JSON: nested too deeply"
}

@test "more than 256 region names" {
	local i
	{
		printf '{"anonremap": 1, "steps": [\n{"op": "mmap", "name": "r0", "at": "carveout", "len": "1p"}'
		for ((i = 1; i <= 256; i++)); do printf ',\n{"op": "mmap", "name": "r%d", "at": "carveout", "len": "1p"}' "$i"; done
		printf '\n]}\n'
	} >"$BATS_TEST_TMPDIR/regions.json"
	assert_invalid "$BATS_TEST_TMPDIR/regions.json" "$BATS_TEST_TMPDIR/regions.json: step 256 (mmap): name: more than 256 region names"
}

@test "huge numbers: beyond 2^53 as a JSON number, 1e300, and sizes past 2^64 as strings" {
	invalid_steps 'step 0 (mmap): len: not an integer below 2^53 (write larger sizes as strings: "2g")' \
		'{"op": "mmap", "name": "p0", "at": "carveout", "len": 1e300}'
	invalid_steps 'step 0 (mmap): len: not an integer below 2^53 (write larger sizes as strings: "2g")' \
		'{"op": "mmap", "name": "p0", "at": "carveout", "len": 18014398509481984}'
	invalid_steps "step 0 (mmap): len: '99999999999999999999999': number too large" \
		'{"op": "mmap", "name": "p0", "at": "carveout", "len": "99999999999999999999999"}'
}

# --- steps: ops and fields --------------------------------------------------

@test "unknown op, with 'did you mean', or with the list of ops where none is near" {
	invalid_steps "step 1: op: unknown op 'mremep' (did you mean 'mremap'?)" \
		'{"op": "mmap", "name": "ptr", "at": "carveout+1p", "len": "1p"}' '{"op": "mremep", "region": "ptr"}'
	# the list is the op table's, in its order: the ops run --help lists
	local ops
	ops="$("$AR" run --help | sed -n '/^ *Ops/,/^$/p' | awk '/^  [a-z]/ { print $1 }' | paste -sd, - | sed 's/,/, /g')"
	[[ -n "$ops" ]] || fail "no op list in run --help"
	invalid_steps "step 0: op: unknown op 'frobnicate' (ops: $ops)" '{"op": "frobnicate"}'
}

@test "missing op" {
	invalid_steps "step 0: op: missing (a string: mmap, mremap, ...)" '{"len": "1p"}'
}

@test "unknown field" {
	invalid_steps "step 1 (munmap): colour: unknown field for munmap" \
		'{"op": "mmap", "name": "ptr", "at": "carveout+1p", "len": "1p"}' '{"op": "munmap", "region": "ptr", "colour": "red"}'
	# a field of another op
	invalid_steps "step 0 (dump): prot: unknown field for dump" '{"op": "dump", "prot": "rw"}'
}

@test "a field given twice" {
	steps_scen bad.json '{"op": "mmap", "at": "carveout+1p", "len": "1p", "len": "2p"}'
	assert_invalid "$S" "$S:5:54: invalid JSON: duplicate key \"len\" (the first is at 5:41)"
}

@test "unknown flag, advice and prot names, with a suggestion" {
	invalid_steps "step 1 (mremap): flags: unknown mremap flag 'MAYMOV' (did you mean 'MREMAP_MAYMOVE'?)" \
		'{"op": "mmap", "name": "ptr", "at": "carveout+1p", "len": "1p"}' \
		'{"op": "mremap", "region": "ptr", "to": "carveout+9p", "flags": ["MAYMOV", "FIXED"]}'
	invalid_steps "step 0 (mmap): flags: unknown mmap flag 'PRIVTE' (did you mean 'MAP_PRIVATE'?)" \
		'{"op": "mmap", "at": "carveout+1p", "len": "1p", "flags": "PRIVTE|ANONYMOUS"}'
	invalid_steps "step 1 (madvise): advice: unknown advice 'hugepages' (did you mean 'MADV_HUGEPAGE'?)" \
		'{"op": "mmap", "name": "ptr", "at": "carveout+1p", "len": "1p"}' '{"op": "madvise", "region": "ptr", "advice": "hugepages"}'
}

@test "unknown errno and signal names" {
	invalid_steps "step 0 (mmap): errno: unknown errno 'EFOO'" '{"op": "mmap", "at": "carveout+1p", "len": "1p", "errno": "EFOO"}'
	invalid_steps "step 0 (fault): signal: unknown signal 'SIGFOO'" '{"op": "fault", "at": "carveout+1p", "signal": "SIGFOO"}'
	invalid_steps "step 0 (mmap): errno: cannot be combined with may_fail" \
		'{"op": "mmap", "at": "carveout+1p", "len": "1p", "errno": "EINVAL", "may_fail": true}'
}

@test "an undefined region" {
	invalid_steps "step 0 (munmap): region: region 'nope' is not bound by an earlier mmap or mremap" '{"op": "munmap", "region": "nope"}'
}

@test "a region used before the mmap that binds it" {
	invalid_steps "step 0 (fault): at: region 'ptr' is not bound by an earlier mmap or mremap" \
		'{"op": "fault", "at": "ptr+1p"}' '{"op": "mmap", "name": "ptr", "at": "carveout+1p", "len": "2p"}'
}

@test "a region name that is a unit or reserved word" {
	invalid_steps "step 0 (mmap): name: expected a region name (letters, digits, '_'; not carveout, guard or a unit)" \
		'{"op": "mmap", "name": "pmd", "at": "carveout+1p", "len": "1p"}'
}

@test "a bad size: '5q' (an unknown unit)" {
	invalid_steps "step 0 (mmap): len: '5q': '5q' is not a size (units: p k m g pmd pud)" \
		'{"op": "mmap", "at": "carveout+1p", "len": "5q"}'
	run_json -e 'mmap ptr at=carveout+1p len=5q'
	assert_failure 2
	assert_nothing_ran
	assert_msg "-e:1: mmap: len: '5q': '5q' is not a size (units: p k m g pmd pud)"
}

@test "a bad size that is a word" {
	invalid_steps "step 0 (mmap): len: 'abc': a size cannot name 'abc'" '{"op": "mmap", "at": "carveout+1p", "len": "abc"}'
}

@test "a negative size" {
	invalid_steps "step 0 (mmap): len: negative size" '{"op": "mmap", "at": "carveout+1p", "len": -4096}'
	invalid_steps "step 0 (mmap): len: '-1p': negative value" '{"op": "mmap", "at": "carveout+1p", "len": "-1p"}'
}

@test "a size that overflows 64 bits" {
	invalid_steps "step 0 (mmap): len: '99999999999999999999g': number too large" \
		'{"op": "mmap", "at": "carveout+1p", "len": "99999999999999999999g"}'
	invalid_steps "step 0 (mmap): len: '0xffffffffffffffffg': size overflows 64 bits" \
		'{"op": "mmap", "at": "carveout+1p", "len": "0xffffffffffffffffg"}'
}

@test "an address that wraps" {
	invalid_steps "step 0 (mmap): at: '0xffffffffffffffff+2p': arithmetic overflows 64 bits" \
		'{"op": "mmap", "at": "0xffffffffffffffff+2p", "len": "1p"}'
	invalid_steps "step 0 (mmap): at: 'carveout+1p-carveout': a region or carveout cannot be subtracted" \
		'{"op": "mmap", "at": "carveout+1p-carveout", "len": "1p"}'
}

@test "the wrong JSON type for a field" {
	invalid_steps "step 0 (mmap): len: expected a size (\"5p\", \"2m\", \"0x5000\" or a number)" \
		'{"op": "mmap", "at": "carveout+1p", "len": true}'
	invalid_steps "step 0 (mmap): at: expected an address expression string (\"carveout+1p\", \"ptr+5p\")" \
		'{"op": "mmap", "at": 4096, "len": "1p"}'
	invalid_steps "step 0 (mmap): may_fail: expected true or false" \
		'{"op": "mmap", "at": "carveout+1p", "len": "1p", "may_fail": "yes"}'
	invalid_steps "step 0 (dump): scope: expected one of: carveout, all" '{"op": "dump", "scope": "everything"}'
	invalid_steps "step 0 (expect): same_vma: expected two address expressions: [\"ptr\", \"ptr2\"]" \
		'{"op": "expect", "same_vma": "carveout"}'
}

@test "a missing required field" {
	invalid_steps "step 0 (mmap): len: required" '{"op": "mmap", "at": "carveout+1p"}'
	invalid_steps "step 0 (munmap): len: required with 'at'" '{"op": "munmap", "at": "carveout+1p"}'
	invalid_steps "step 0 (expect): end: required by a 'vma' check" '{"op": "expect", "vma": "carveout", "start": "carveout"}'
	invalid_steps "step 0 (expect): expect: no check (vma, same_vma, different_vma, vma_count, mapped, faulted, thp, ksm, anon_huge_pages, pgoff_linear, folios_linear, same_anon_vma, different_anon_vma, perms, vm_flags, pages or guard_scan)" \
		'{"op": "expect"}'
}

@test "expect with two checks" {
	invalid_steps "step 0 (expect): mapped: one check per expect step (also has 'vma_count')" \
		'{"op": "expect", "vma_count": 1, "mapped": true, "at": "carveout"}'
	invalid_steps "step 0 (expect): len: not part of a 'mapped' check" \
		'{"op": "expect", "mapped": true, "at": "carveout", "len": "1p"}'
}

@test "at and region both given, or neither" {
	invalid_steps "step 1 (munmap): at: give either 'at' or 'region'" \
		'{"op": "mmap", "name": "ptr", "at": "carveout+1p", "len": "1p"}' \
		'{"op": "munmap", "region": "ptr", "at": "carveout+1p", "len": "1p"}'
	invalid_steps "step 0 (fault): region: give either 'at' or 'region'" '{"op": "fault"}'
}

@test "an absolute address outside the reserved area; --allow-outside lets it pass check" {
	invalid_steps "step 0 (mmap): at: an absolute address is outside the reserved area (use --allow-outside)" \
		'{"op": "mmap", "at": "0x10000", "len": "1p", "may_fail": true}'
	run_ar check --allow-outside "$S"
	assert_success
	assert_output --regexp "^$S: ok"
}

@test "header allow_outside: true is --allow-outside; it must be a boolean" {
	# 48 TiB: above ASan's shadow, below its allocator, away from every
	# mapping the kernel places; NOREPLACE so that nothing could be clobbered.
	# The munmap leaves the reserved area there, beside "far", where nothing
	# is mapped: past the carveout's upper guard the kernel has usually put
	# a library of the scenario process, which an munmap would take away.
	scen out.json <<'EOF'
{"anonremap": 1, "allow_outside": true, "carveout": {"size": "4p", "guard": "4p"},
 "steps": [{"op": "mmap", "name": "far", "at": "0x300000000000", "len": "1p", "prot": "rw",
            "flags": ["PRIVATE", "ANONYMOUS", "FIXED_NOREPLACE"]},
           {"op": "fault", "region": "far"},
           {"op": "munmap", "at": "0x300000001000", "len": "1p"}]}
EOF
	run_ar check "$S"
	assert_success
	run_json "$S"
	assert_success
	assert_jq 'st(0).ret' '0x300000000000'
	assert_jq '[sc.steps[].status] | join(" ")' 'ok ok ok'
	# without it, both are scenario errors
	scen in.json <<'EOF'
{"anonremap": 1, "carveout": {"size": "4p", "guard": "4p"},
 "steps": [{"op": "mmap", "name": "far", "at": "0x300000000000", "len": "1p", "prot": "rw",
            "flags": ["PRIVATE", "ANONYMOUS", "FIXED_NOREPLACE"]}]}
EOF
	assert_invalid "$S" "$S: step 0 (mmap): at: an absolute address is outside the reserved area (use --allow-outside)"
	scen in2.json <<'EOF'
{"anonremap": 1, "carveout": {"size": "4p", "guard": "4p"},
 "steps": [{"op": "munmap", "at": "carveout+4p", "len": "8p"}]}
EOF
	assert_invalid "$S" "$S: step 0 (munmap): at: range leaves the reserved area (carveout and guards: carveout-4p..carveout+8p); use --allow-outside"
	scen bad.json <<'EOF'
{"anonremap": 1, "allow_outside": "yes", "steps": []}
EOF
	assert_invalid "$S" "$S: allow_outside: expected true or false"
}

@test "carveout fill must be a boolean; an unknown carveout field lists fill" {
	scen bad.json <<'EOF'
{"anonremap": 1, "carveout": {"fill": 0}, "steps": []}
EOF
	assert_invalid "$S" "$S: carveout: fill: expected true or false"
	scen bad2.json <<'EOF'
{"anonremap": 1, "carveout": {"filler": false}, "steps": []}
EOF
	assert_invalid "$S" "$S: carveout: filler: unknown field (size, align, guard, fill)"
}

@test "a range that leaves the reserved area (at, and mremap's to)" {
	scen bad.json <<'EOF'
{"anonremap": 1, "carveout": {"size": "30p", "guard": "100p"},
 "steps": [{"op": "mmap", "name": "ptr", "at": "carveout+1p", "len": "200p"}]}
EOF
	assert_invalid "$S" "$S: step 0 (mmap): at: range leaves the reserved area (carveout and guards: carveout-100p..carveout+130p); use --allow-outside"
	scen bad2.json <<'EOF'
{"anonremap": 1, "carveout": {"size": "30p", "guard": "100p"},
 "steps": [{"op": "mmap", "name": "ptr", "at": "carveout+1p", "len": "2p"},
           {"op": "mremap", "region": "ptr", "to": "ptr+1000p", "flags": ["MAYMOVE", "FIXED"]}]}
EOF
	assert_invalid "$S" "$S: step 1 (mremap): to: range leaves the reserved area (carveout and guards: carveout-100p..carveout+130p); use --allow-outside"
	# below the lower guard
	scen bad3.json <<'EOF'
{"anonremap": 1, "carveout": {"size": "30p", "guard": "100p"},
 "steps": [{"op": "munmap", "at": "carveout-101p", "len": "1p"}]}
EOF
	assert_invalid "$S" "$S: step 0 (munmap): at: range leaves the reserved area (carveout and guards: carveout-100p..carveout+130p); use --allow-outside"
	# the guards themselves are reserved: the selftests' ptr2+1000p lands there
	scen ok.json <<'EOF'
{"anonremap": 1, "carveout": {"size": "30p"},
 "steps": [{"op": "mmap", "name": "ptr", "at": "carveout+1p", "len": "2p"},
           {"op": "mremap", "region": "ptr", "to": "ptr+1000p", "flags": ["MAYMOVE", "FIXED"]},
           {"op": "munmap", "at": "carveout-2000p", "len": "1p"}]}
EOF
	run_ar check "$S"
	assert_success
}

# --- the text form ------------------------------------------------------------

@test "text form errors name FILE:LINE, op and field" {
	scen bad.txt <<'EOF'
# comment
mmap ptr at=carveout+1p len=5p

fault ptr lenn=1p
EOF
	assert_invalid "$S" "$S:4: fault: lenn: unknown field for fault (did you mean 'len'?)"
	run_json -e 'mmap ptr at=carveout+1p len=5p' -e 'munmap ptr len=1p extra'
	assert_failure 2
	assert_nothing_ran
	assert_msg "-e:2: munmap: 'extra' is not key=value (only the first word may be bare)"
	run_json -e 'mmap ptr at=carveout+1p len=5p' -e 'expect vma=ptr start=ptr'
	assert_failure 2
	assert_nothing_ran
	assert_msg "-e:2: expect: end: required by a 'vma' check"
	run_json -e 'mmap ptr at=carveout+1p len=5p prot="rw'
	assert_failure 2
	assert_msg "-e:1: unterminated quote"
}

@test "text form: an unknown op with a bare word is reported as an unknown op" {
	run_json -e 'mremep'
	assert_failure 2
	assert_msg "-e:1: op: unknown op 'mremep' (did you mean 'mremap'?)"
	run_json -e 'mmap ptr at=carveout+1p len=1p' -e 'mremep ptr'
	assert_failure 2
	assert_nothing_ran
	assert_msg "-e:2: op: unknown op 'mremep' (did you mean 'mremap'?)"
}

# --- usage ------------------------------------------------------------------

@test "usage errors exit 2 and run nothing" {
	run_json
	assert_failure 2
	assert_nothing_ran
	[[ "$stderr" == *"anonremap run: no scenario given"* ]] || fail "$stderr"
	run_json -e dump "$V"
	assert_failure 2
	assert_nothing_ran
	[[ "$stderr" == *"give scenario files or -e steps, not both"* ]] || fail "$stderr"
	run_json -f xml "$V"
	assert_failure 2
	assert_nothing_ran
	[[ "$stderr" == *"--format: 'xml' is not json, text or ktap"* ]] || fail "$stderr"
	run_json -t 0 "$V"
	assert_failure 2
	assert_nothing_ran
	[[ "$stderr" == *"--timeout: '0' is not a number of seconds above 0"* ]] || fail "$stderr"
	run_json --bogus "$V"
	assert_failure 2
	assert_nothing_ran
	[[ "$stderr" == *"unrecognized option '--bogus'"* ]] || fail "$stderr"
	run_ar check
	assert_failure 2
	[[ "$stderr" == *"anonremap check: no scenario given"* ]] || fail "$stderr"
}

@test "check: every file is reported, valid ones as ok, exit 2 if any is invalid" {
	printf '{"anonremap": 1, "steps": [{"op": "dump", "scope": "al"}]}\n' >"$BATS_TEST_TMPDIR/bad.json"
	run_ar check "$BATS_TEST_TMPDIR/bad.json" "$V"
	assert_failure 2
	assert_output --regexp "^$V: ok"
	assert_msg "$BATS_TEST_TMPDIR/bad.json: step 0 (dump): scope: expected one of: carveout, all"
}
