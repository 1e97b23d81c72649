#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The text form of steps (-e one-liners and text scenario files), its errors,
# and the text output: layout diagrams drawn as the selftests draw them.
load helper

SRC="${TOP_SRCDIR:-$BATS_TEST_DIRNAME/../..}"
EXPECTED="$SRC/tests/expected"

# The parts of a result that do not depend on ASLR, pids or timing: the steps'
# op, relative arguments (absolute addresses dropped where a _rel twin
# exists), ret_rel, errno and status; the dumps' VMAs; the expectations.
PROJ='.scenarios[0] | {
  status,
  steps: [.steps[] | {index, op,
    args: ((.args // {}) as $a | $a | with_entries(select($a[.key + "_rel"] == null))),
    ret_rel, errno, status}],
  dumps: [.dumps[] | {after_step, label: .label,
    vmas: [.vmas[] | {rel, perms, pages, pages_state, region}]}],
  expectations: [.expectations[] | {step, check, ok, expected, found}]
}'

# proj RESULT_FILE: the projection above, one compact line.
proj() {
	jq -cS "$PROJ" "$1"
}

# run_to FILE ARGS...: "$AR" ARGS with stdout in FILE; status/stderr as run.
run_to() {
	local out="$1"
	shift
	run --separate-stderr "$AR" "$@"
	printf '%s\n' "$output" >"$out"
}

# assert_same_proj A B: two result files project to the same thing.
assert_same_proj() {
	local a b
	a="$(proj "$1")" || fail "jq failed on $1"
	b="$(proj "$2")" || fail "jq failed on $2"
	[[ -n "$a" && "$a" != null ]] || fail "empty projection of $1"
	[[ "$a" == "$b" ]] || fail "results differ
$1: $(jq -S "$PROJ" "$1")
$2: $(jq -S "$PROJ" "$2")"
}

# norm_text: the text output with what changes between runs normalised: the
# first line (version, kernel), durations, pids, trailing blanks.
norm_text() {
	sed -E '1s/.*/anonremap VERSION on Linux RELEASE/; s/\([0-9]+ ns\)/(N ns)/g; s/pid [0-9]+/pid N/g; s/[[:space:]]+$//'
}

# picture N [FILE]: the diagram of the dump after step N of a text output
# ($output by default), without its 4-space indent or trailing blanks.
picture() {
	local n="$1" f="${2:-}"
	if [[ -z "$f" ]]; then
		f="$BATS_TEST_TMPDIR/picture.txt"
		printf '%s\n' "$output" >"$f"
	fi
	awk -v n="$n" '
		$0 ~ "^  dump after step " n "[,:]" { on = 1; next }
		on && /^    range / { exit }
		on && /^    (not merged at|x-ray unavailable)/ { next }
		on && NF { sub(/^    /, ""); sub(/[ \t]+$/, ""); print }' "$f"
}

# assert_picture N: picture N of $output equals stdin.
assert_picture() {
	local want got
	want="$(cat)"
	got="$(picture "$1")"
	[[ "$got" == "$want" ]] || fail "picture of the dump after step $1
expected:
$want
got:
$got"
}

# golden NAME: run the library scenario NAME with -f text and compare with
# tests/expected/NAME.txt after normalising. To regenerate one:
#   anonremap run -f text NAME | sed -E '<the norm_text script>' >tests/expected/NAME.txt
# then check every picture by eye against the selftest's comment diagrams
# (seeds/006-*.patch). The picture after step 10 of
# mremap_unfaulted_between_faulted is drawn as merge.c draws it (a box-wide
# hole "leaving a place for ptr2"), not as the tool draws it today.
golden() {
	local name="$1" got="$BATS_TEST_TMPDIR/$1.txt"
	[[ "$(getconf PAGESIZE)" == 4096 ]] || skip "golden files are for 4 KiB pages"
	[[ -f "$EXPECTED/$name.txt" ]] || fail "missing golden file $EXPECTED/$name.txt"
	run --separate-stderr "$AR" run -f text "$name"
	assert_success
	printf '%s\n' "$output" | norm_text >"$got"
	diff -u "$EXPECTED/$name.txt" "$got" || fail "text output of $name differs from $EXPECTED/$name.txt (diff above)"
}

# The seed layout of merge.c's mremap_unfaulted_to_faulted, as one-liners.
SEED_STEPS=(
	-e 'carveout size=30p'
	-e 'mmap ptr at=carveout+1p len=5p prot=rw'
	-e 'mmap ptr2 at=carveout+7p len=5p prot=rw'
	-e 'dump label=distinct'
	-e 'mremap ptr2 to=ptr2+1000p flags=maymove,fixed'
	-e 'fault ptr'
	-e 'dump label=offset'
	-e 'mremap ptr2 to=ptr+5p flags=maymove,fixed'
	-e 'expect vma=ptr start=ptr end=ptr+10p'
	-e 'dump label=merged'
)

seed_json() {
	scen seed.json <<'EOF'
{
  "anonremap": 1,
  "carveout": {"size": "30p"},
  "steps": [
    {"op": "mmap", "name": "ptr", "at": "carveout+1p", "len": "5p", "prot": "rw"},
    {"op": "mmap", "name": "ptr2", "at": "carveout+7p", "len": "5p", "prot": "rw"},
    {"op": "dump", "label": "distinct"},
    {"op": "mremap", "region": "ptr2", "to": "ptr2+1000p", "flags": ["maymove", "fixed"]},
    {"op": "fault", "region": "ptr"},
    {"op": "dump", "label": "offset"},
    {"op": "mremap", "region": "ptr2", "to": "ptr+5p", "flags": ["maymove", "fixed"]},
    {"op": "expect", "vma": "ptr", "start": "ptr", "end": "ptr+10p"},
    {"op": "dump", "label": "merged"}
  ]
}
EOF
}

# A text-form scenario file: comments, blank lines, scenario lines.
text_scen() {
	scen demo.txt <<'EOF'
# The seed layout of mremap_unfaulted_to_faulted, in the text form.
name text_demo

carveout size=30p
   # an indented comment

mmap ptr at=carveout+1p len=5p prot=rw
mmap ptr2 at=carveout+7p len=5p prot=rw   # a trailing comment
mremap ptr2 to=ptr2+1000p flags=maymove,fixed
fault ptr
mremap ptr2 to=ptr+5p flags=maymove,fixed
expect vma=ptr start=ptr end=ptr+10p
dump label=final
EOF
}

# --- the text form -----------------------------------------------------

@test "text: -e one-liners give the same step results as the equivalent JSON file" {
	seed_json
	run_to "$BATS_TEST_TMPDIR/json.out" run "$S"
	assert_success
	run_to "$BATS_TEST_TMPDIR/e.out" run "${SEED_STEPS[@]}"
	assert_success
	assert_same_proj "$BATS_TEST_TMPDIR/json.out" "$BATS_TEST_TMPDIR/e.out"
	# and it is the layout the selftest asserts
	J="$BATS_TEST_TMPDIR/e.out"
	assert_jq 'sc.status' pass
	assert_jq '[sc.steps[].op] | join(" ")' 'mmap mmap dump mremap fault dump mremap expect dump'
	assert_jq 'st(6).ret_rel' carveout+6p
	assert_jq 'vma("carveout+1p").rel' 'carveout+1p..carveout+11p'
	assert_jq 'vma("carveout+1p").region | join("+")' 'ptr+ptr2'
	assert_jq 'sc.carveout.pages' 30
}

@test "text: run --format=json of -e steps embeds the equivalent JSON scenario" {
	seed_json
	run_to "$BATS_TEST_TMPDIR/e.out" run -f json "${SEED_STEPS[@]}"
	assert_success
	# the embedded scenario is the JSON file's
	jq -S '.scenarios[0].scenario' "$BATS_TEST_TMPDIR/e.out" >"$BATS_TEST_TMPDIR/embedded.json"
	jq -S . "$S" >"$BATS_TEST_TMPDIR/want.json"
	diff -u "$BATS_TEST_TMPDIR/want.json" "$BATS_TEST_TMPDIR/embedded.json" ||
		fail "the embedded scenario is not the equivalent JSON scenario"
	# and running it again gives the same results
	jq '.scenarios[0].scenario' "$BATS_TEST_TMPDIR/e.out" >"$BATS_TEST_TMPDIR/replay.json"
	run_to "$BATS_TEST_TMPDIR/replay.out" run "$BATS_TEST_TMPDIR/replay.json"
	assert_success
	assert_same_proj "$BATS_TEST_TMPDIR/e.out" "$BATS_TEST_TMPDIR/replay.out"
}

@test "text: the first bare word is name for mmap and region otherwise" {
	run_json -e 'mmap ptr at=carveout+1p len=5p prot=rw' -e 'fault ptr' -e 'mprotect ptr prot=r' -e 'dump hello'
	assert_success
	assert_jq 'sc.scenario.steps[0].name' ptr
	assert_jq 'sc.scenario.steps[1].region' ptr
	assert_jq 'sc.scenario.steps[2].region' ptr
	assert_jq 'sc.scenario.steps[3].label' hello
	assert_jq 'vma("carveout+1p").perms' r--p
}

@test "text: double quotes keep spaces in a value" {
	run_json -e 'dump label="two words"'
	assert_success
	assert_jq 'sc.scenario.steps[0].label' 'two words'
	assert_jq 'dump(0).label' 'two words'
}

@test "text: a text-form file (comments, blank lines, name, carveout) runs" {
	text_scen
	run_json "$S"
	assert_success
	assert_jq 'sc.status' pass
	assert_jq 'sc.name' text_demo
	assert_jq 'sc.carveout.pages' 30
	assert_jq 'sc.steps | length' 7
	assert_jq '[sc.steps[].op] | join(" ")' 'mmap mmap mremap fault mremap expect dump'
	assert_jq 'sc.expectations[0].ok' true
	assert_jq 'dump(0).label' final
	assert_jq 'vma("carveout+1p").rel' 'carveout+1p..carveout+11p'
	assert_jq 'vma("carveout+1p").pages_state' 'x.........'
}

@test "text: a text-form scenario on stdin ('-') runs too" {
	text_scen
	run --separate-stderr "$AR" run - <"$S"
	assert_success
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/r.json"
	J="$BATS_TEST_TMPDIR/r.json"
	assert_jq 'sc.name' text_demo
	assert_jq 'sc.status' pass
}

@test "text: check --print-json converts a text file to the equivalent JSON scenario" {
	text_scen
	run --separate-stderr "$AR" check --print-json "$S"
	assert_success
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/conv.json"
	jq -e . "$BATS_TEST_TMPDIR/conv.json" >/dev/null || fail "not JSON: $output"
	run jq -cS . "$BATS_TEST_TMPDIR/conv.json"
	assert_output "$(jq -cS . <<'EOF'
{
  "anonremap": 1,
  "name": "text_demo",
  "carveout": {"size": "30p"},
  "steps": [
    {"op": "mmap", "name": "ptr", "at": "carveout+1p", "len": "5p", "prot": "rw"},
    {"op": "mmap", "name": "ptr2", "at": "carveout+7p", "len": "5p", "prot": "rw"},
    {"op": "mremap", "region": "ptr2", "to": "ptr2+1000p", "flags": ["maymove", "fixed"]},
    {"op": "fault", "region": "ptr"},
    {"op": "mremap", "region": "ptr2", "to": "ptr+5p", "flags": ["maymove", "fixed"]},
    {"op": "expect", "vma": "ptr", "start": "ptr", "end": "ptr+10p"},
    {"op": "dump", "label": "final"}
  ]
}
EOF
)"
}

@test "text: running the converted JSON gives the same results as running the text file" {
	text_scen
	run --separate-stderr "$AR" check --print-json "$S"
	assert_success
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/conv.json"
	run_to "$BATS_TEST_TMPDIR/text.out" run "$S"
	assert_success
	run_to "$BATS_TEST_TMPDIR/conv.out" run "$BATS_TEST_TMPDIR/conv.json"
	assert_success
	assert_same_proj "$BATS_TEST_TMPDIR/text.out" "$BATS_TEST_TMPDIR/conv.out"
	# the converted file is itself valid
	run --separate-stderr "$AR" check "$BATS_TEST_TMPDIR/conv.json"
	assert_success
}

@test "text: 'requires' lines become the requires list and skip as JSON would" {
	scen req.txt <<'EOF'
name needs_relocate
requires mremap_relocate_anon
carveout size=30p align=pmd
mmap ptr at=carveout+1p len=5p prot=rw
EOF
	run --separate-stderr "$AR" check --print-json "$S"
	assert_success
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/conv.json"
	run jq -c '[.requires, .carveout]' "$BATS_TEST_TMPDIR/conv.json"
	assert_output '[["mremap_relocate_anon"],{"size":"30p","align":"pmd"}]'
	run_json "$S"
	if [[ "$(jqr '.kernel.features.mremap_relocate_anon')" == true ]]; then
		assert_success
		assert_jq 'sc.status' pass
	else
		assert_equal "$status" 4
		assert_jq 'sc.status' skip
		assert_jq 'sc.reason | test("mremap_relocate_anon|RELOCATE_ANON")' true
	fi
}

# --- errors point at the line and the word ------------------------------

# assert_msg_parts WHERE PART...: the first "anonremap: " line of stderr
# starts with "anonremap: WHERE: " (FILE:LINE or -e:N) and holds every PART.
# The key parts only: the wording around them may change.
assert_msg_parts() {
	local where="$1" m p
	shift
	m="$(ar_msg)"
	[[ "$m" == "anonremap: $where: "* ]] || fail "message does not start with 'anonremap: $where: '
got   : $m
stderr: $stderr"
	for p in "$@"; do
		[[ "$m" == *"$p"* ]] || fail "message lacks '$p'
got   : $m"
	done
}

@test "text: 'allow_outside' and 'carveout fill=false' lines are the header's keys" {
	scen hdr.txt <<'EOF'
allow_outside
carveout size=4p guard=4p fill=false
mmap far at=0x300000000000 len=1p prot=rw flags=private,anonymous,fixed_noreplace
mmap in at=carveout+1p len=1p prot=rw flags=private,anonymous,fixed_noreplace
EOF
	run --separate-stderr "$AR" check --print-json "$S"
	assert_success
	run jq -c '[.allow_outside, .carveout]' <<<"$output"
	assert_output '[true,{"size":"4p","guard":"4p","fill":false}]'
	run_json "$S"
	assert_success
	assert_jq '[st(0).ret, st(1).ret_rel] | join(" ")' '0x300000000000 carveout+1p'
	# 'allow_outside false' is the default, and anything else is an error
	run_json -e 'allow_outside false' -e 'carveout size=4p guard=4p' -e 'munmap at=carveout+4p len=8p'
	assert_failure 2
	assert_msg_parts -e:3 'range leaves the reserved area'
	run_json -e 'allow_outside yes' -e dump
	assert_failure 2
	assert_msg_parts -e:1 'allow_outside: expected nothing, true or false'
}

@test "text: a mistyped flag names FILE:LINE, the op, the field and the nearest flag" {
	scen bad.txt <<'EOF'
name typo
carveout size=30p
mremap ptr2 to=ptr+5p flags=maymove,fixed,relocat_anon
EOF
	run_json "$S"
	assert_equal "$status" 2
	assert_nothing_ran
	# today: FILE:3: mremap: flags: unknown mremap flag 'relocat_anon' (did you mean 'MREMAP_RELOCATE_ANON'?)
	assert_msg_parts "$S:3" mremap flags "'relocat_anon'" "did you mean" RELOCATE_ANON
	# the suggestion is the nearest flag, not MUST_RELOCATE_ANON
	[[ "$(ar_msg)" != *MUST_RELOCATE_ANON* ]] || fail "suggests the wrong flag: $(ar_msg)"
	# check says the same without running
	run_ar check "$S"
	assert_equal "$status" 2
	assert_msg_parts "$S:3" mremap flags "'relocat_anon'" "did you mean" RELOCATE_ANON
}

@test "text: line numbers count comments and blank lines" {
	scen bad2.txt <<'EOF'
# comment

carveout size=30p
mmap ptr at=carveout+1p len=5p prot=rw
   # another comment
mremap ptr to=ptr+10p flags=maymove,fixd
EOF
	run_json "$S"
	assert_equal "$status" 2
	assert_nothing_ran
	assert_msg_parts "$S:6" mremap flags "'fixd'" "did you mean" FIXED
}

@test "text: -e errors are named -e:N: after the N-th -e" {
	run_json -e 'mmap ptr at=carveout+1p len=5p prot=rw' -e 'fault ptr' \
		-e 'mremap ptr to=ptr+5p flags=maymove,fixed,relocat_anon'
	assert_equal "$status" 2
	assert_nothing_ran
	assert_msg_parts "-e:3" mremap flags "'relocat_anon'" "did you mean" RELOCATE_ANON
}

@test "text: an unknown op is named with the nearest op" {
	run_json -e 'mmap ptr at=carveout+1p len=5p prot=rw' -e 'mremapp to=ptr+5p flags=maymove,fixed'
	assert_equal "$status" 2
	assert_nothing_ran
	assert_msg_parts "-e:2" mremapp "unknown op" "did you mean 'mremap'"
	scen badop.txt <<'EOF'
carveout size=30p
mmap ptr at=carveout+1p len=5p prot=rw
munmapp region=ptr
EOF
	run_json "$S"
	assert_equal "$status" 2
	assert_msg_parts "$S:3" munmapp "unknown op" "did you mean 'munmap'"
}

@test "text: an unknown op followed by its region is still named with the nearest op" {
	run_json -e 'mmap ptr2 at=carveout+1p len=5p prot=rw' -e 'mremapp ptr2 to=ptr2+5p flags=maymove,fixed'
	assert_equal "$status" 2
	assert_nothing_ran
	assert_msg_parts "-e:2" mremapp "unknown op" "did you mean 'mremap'"
}

@test "text: an unknown field is named with the nearest field" {
	run_json -e 'mmap ptr at=carveout+1p len=5p prot=rw' -e 'mremap ptr to=ptr+5p flgs=maymove,fixed'
	assert_equal "$status" 2
	assert_nothing_ran
	assert_msg_parts "-e:2" mremap flgs "did you mean 'flags'"
}

@test "text: a bare word is refused where no bare word is allowed" {
	# after the first word
	run_json -e 'mmap ptr carveout+1p len=5p'
	assert_equal "$status" 2
	assert_nothing_ran
	assert_msg_parts "-e:1" mmap "'carveout+1p'" "not key=value"
	run_json -e 'mmap ptr at=carveout+1p len=5p' -e 'fault ptr len=1p ptr'
	assert_equal "$status" 2
	assert_msg_parts "-e:2" fault "'ptr'" "not key=value"
	# an op that takes no bare word at all
	run_json -e 'fork child'
	assert_equal "$status" 2
	assert_msg_parts "-e:1" fork "'child'" "not key=value"
	# a scenario line
	scen badc.txt <<'EOF'
name bare
carveout 30p
EOF
	run_json "$S"
	assert_equal "$status" 2
	assert_msg_parts "$S:2" carveout "'30p'" "not key=value"
}

@test "text: a field given twice and an unterminated quote are errors with their line" {
	run_json -e 'mmap ptr len=5p len=6p'
	assert_equal "$status" 2
	assert_msg_parts "-e:1" mmap len twice
	run_json -e 'dump' -e 'dump label="open'
	assert_equal "$status" 2
	assert_msg_parts "-e:2" "unterminated quote"
}

# --- layout diagrams -----------------------------------------------------

@test "diagram: mremap_unfaulted_to_faulted matches tests/expected" {
	golden mremap_unfaulted_to_faulted
}

@test "diagram: mremap_unfaulted_between_faulted matches tests/expected" {
	golden mremap_unfaulted_between_faulted
}

@test "diagram: mremap_unfaulted_between_faulted draws the selftest's far gaps and final merge" {
	run --separate-stderr "$AR" run -f text mremap_unfaulted_between_faulted
	assert_success
	# "Map three distinct areas" (gaps of 1 and 2 pages: near)
	assert_picture 3 <<'EOF'
|-----------|  |-----------|  |-----------|
| unfaulted |  | unfaulted |  | unfaulted |
|-----------|  |-----------|  |-----------|
     ptr           ptr2           ptr3
EOF
	# "Fault in ptr, ptr3": two far gaps as zig-zags
	assert_picture 8 <<'EOF'
               \                 \
|-----------|  /  |-----------|  /  |-----------|
|  faulted  |  \  | unfaulted |  \  |  faulted  |
|-----------|  /  |-----------|  /  |-----------|
     ptr       \      ptr2       \      ptr3
EOF
	# "It should merge, but only ptr, ptr2" (the selftest's comment calls
	# ptr3 "unfaulted"; it was faulted, and the page state says so)
	assert_picture 15 <<'EOF'
|-----------------------|-----------|
|        faulted        |  faulted  |
|-----------------------|-----------|
        ptr+ptr2            ptr3
EOF
}

@test "diagram: a hole the size of a region is drawn box-wide, as merge.c draws it" {
	run --separate-stderr "$AR" run -f text -e 'carveout size=30p' \
		-e 'mmap ptr at=carveout+1p len=5p prot=rw' -e 'mmap ptr3 at=carveout+11p len=5p prot=rw' \
		-e 'fault ptr' -e 'fault ptr3' -e dump
	assert_success
	# "Move ptr3 back into place, leaving a place for ptr2" (the dump is step 4)
	assert_picture 4 <<'EOF'
|-----------|           |-----------|
|  faulted  |           |  faulted  |
|-----------|           |-----------|
     ptr                    ptr3
EOF
}

@test "diagram: a one-liner reproducing mremap_unfaulted_to_faulted draws the seed's pictures" {
	run --separate-stderr "$AR" run -f text "${SEED_STEPS[@]}"
	assert_success
	# "Map two distinct areas"
	assert_picture 2 <<'EOF'
|-----------|  |-----------|
| unfaulted |  | unfaulted |
|-----------|  |-----------|
     ptr           ptr2
EOF
	# "Fault in ptr": ptr2 1000 pages away, a far gap
	assert_picture 5 <<'EOF'
               \
|-----------|  /  |-----------|
|  faulted  |  \  | unfaulted |
|-----------|  /  |-----------|
     ptr       \      ptr2
EOF
	# "It should merge": one box, faulted, both names
	assert_picture 8 <<'EOF'
|-----------------------|
|        faulted        |
|-----------------------|
        ptr+ptr2
EOF
	# and the table under it
	assert_line --regexp '^    carveout\+1p\.\.carveout\+11p +10 rw-p ptr\+ptr2 +x\.{9}$'
	assert_line --regexp '^  \[ 7\] expect .*: ok$'
}

@test "diagram: adjacent VMAs share a wall" {
	# two faulted VMAs (two anon_vmas) moved next to each other do not merge
	run --separate-stderr "$AR" run -f text -e 'carveout size=30p' \
		-e 'mmap ptr at=carveout+1p len=5p prot=rw' -e 'mmap ptr2 at=carveout+12p len=5p prot=rw' \
		-e 'fault ptr' -e 'fault ptr2' -e 'mremap ptr2 to=ptr+5p flags=maymove,fixed' -e dump
	assert_success
	assert_picture 5 <<'EOF'
|-----------|-----------|
|  faulted  |  faulted  |
|-----------|-----------|
     ptr        ptr2
EOF
}

@test "diagram: protections are drawn above the boxes only when they differ" {
	run --separate-stderr "$AR" run -f text -e 'carveout size=30p' \
		-e 'mmap ptr at=carveout+1p len=5p prot=rw' -e 'mmap ptr2 at=carveout+6p len=5p prot=rw' \
		-e 'mprotect ptr2 prot=r' -e 'fault ptr' -e dump
	assert_success
	assert_picture 4 <<'EOF'
     rw-         r--
|-----------|-----------|
|  faulted  | unfaulted |
|-----------|-----------|
     ptr        ptr2
EOF
	# the same protections everywhere: no protections line
	run --separate-stderr "$AR" run -f text -e 'carveout size=30p' \
		-e 'mmap ptr at=carveout+1p len=5p prot=rw' -e 'mmap ptr2 at=carveout+7p len=5p prot=r' \
		-e 'mprotect ptr2 prot=rw' -e dump
	assert_success
	assert_picture 3 <<'EOF'
|-----------|  |-----------|
| unfaulted |  | unfaulted |
|-----------|  |-----------|
     ptr           ptr2
EOF
}

@test "text output: a failed expectation prints expected against found" {
	run --separate-stderr "$AR" run -f text -e 'carveout size=30p' \
		-e 'mmap ptr at=carveout+1p len=5p prot=rw' -e 'expect vma=ptr start=ptr end=ptr+6p'
	assert_failure 1
	assert_line --regexp '^  \[ 1\] expect +VMA containing carveout\+1p spans carveout\+1p\.\.carveout\+7p: FAILED$'
	assert_line --regexp '^ +found: VMA containing carveout\+1p spans carveout\+1p\.\.carveout\+6p$'
	assert_line --regexp '^summary: 0 pass, 1 fail, 0 skip, 0 error$'
}

@test "text output: one line a step, with what was called, what it returned and how long it took" {
	run --separate-stderr "$AR" run -f text -e 'carveout size=30p' \
		-e 'mmap ptr at=carveout+1p len=5p prot=rw' \
		-e 'mremap ptr to=ptr+100p flags=0x18 may_fail=true'
	assert_success
	assert_line --regexp '^  \[ 0\] mmap +addr=carveout\+1p len=5p prot=PROT_READ\|PROT_WRITE .* = carveout\+1p \([0-9]+ ns\)$'
	assert_line --regexp '^  \[ 1\] mremap +old_address=carveout\+1p .*new_address=carveout\+101p = (-1 EINVAL|carveout\+101p) \([0-9]+ ns\)'
}

# --- colour --------------------------------------------------------------

# A run with a failure, so that there is something to colour.
COLOUR_RUN="run -f text -e 'carveout size=30p' -e 'mmap ptr at=carveout+1p len=5p prot=rw' -e 'expect vma=ptr start=ptr end=ptr+6p'"

@test "colour: none when stdout is not a terminal, even with NO_COLOR unset" {
	run --separate-stderr env -u NO_COLOR "$AR" run -f text -e 'carveout size=30p' \
		-e 'mmap ptr at=carveout+1p len=5p prot=rw' -e 'expect vma=ptr start=ptr end=ptr+6p'
	assert_failure 1
	assert_output --partial FAILED
	[[ "$output" != *$'\e'* ]] || fail "escape codes in a pipe: $(printf '%s' "$output" | cat -v | grep -m3 '\^\[')"
}

@test "colour: escape codes at a terminal, none with NO_COLOR=1" {
	command -v script >/dev/null || skip "script (util-linux) is not installed"
	run env -u NO_COLOR script -qec "'$AR' $COLOUR_RUN" /dev/null
	[[ "$output" == *FAILED* ]] || fail "no text output through script: $output"
	[[ "$output" == *$'\e['*m* ]] || fail "no escape codes at a terminal: $output"
	run env NO_COLOR=1 script -qec "'$AR' $COLOUR_RUN" /dev/null
	[[ "$output" == *FAILED* ]] || fail "no text output through script: $output"
	[[ "$output" != *$'\e'* ]] || fail "escape codes with NO_COLOR=1: $(printf '%s' "$output" | cat -v | grep -m3 '\^\[')"
}
