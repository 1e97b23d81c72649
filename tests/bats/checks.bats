#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The checks of issue 18 against real kernel state: perms, vm_flags, pages,
# ret, errno any, each_page, fill and the file op. Each passes on the state
# the kernel made and fails, with a reason, on any other.

load helper

# A 6-page rw mapping at carveout+1p; its first page made read-only, its
# last two guard pages (MADV_GUARD_INSTALL = 102), its second faulted.
base_steps() {
	printf '%s\n' \
		'{"op": "mmap", "name": "a", "at": "carveout+1p", "len": "6p", "prot": "rw"}' \
		'{"op": "mprotect", "at": "a", "len": "1p", "prot": "r"}' \
		'{"op": "madvise", "at": "a+4p", "len": "2p", "advice": 102}' \
		'{"op": "fault", "at": "a+1p"}'
}

# with STEP...: a scenario of base_steps then the given steps, run as JSON.
with() {
	local -a st
	mapfile -t st < <(base_steps)
	steps_scen s.json "${st[@]}" "$@"
	run_json "$S"
}

@test "perms: holds for the permissions mprotect gave, fails on others, naming what maps shows" {
	with '{"op": "expect", "perms": "r--p", "at": "a"}' '{"op": "expect", "perms": "rw-p", "at": "a+1p"}'
	assert_success
	assert_jq '[sc.expectations[] | .ok] | all' 'true'
	with '{"op": "expect", "perms": "rw-p", "at": "a"}'
	assert_failure 1
	assert_jq 'sc.expectations[0].check' 'perms'
	assert_jq 'sc.expectations[0].found' 'VMA carveout+1p..carveout+2p has permissions r--p'
}

@test "perms: not four maps letters is a scenario error naming step and field" {
	steps_scen s.json '{"op": "mmap", "at": "carveout+1p", "len": "1p"}' '{"op": "expect", "perms": "rw", "at": "carveout+1p"}'
	run_ar check "$S"
	assert_failure 2
	[[ "$stderr" == *'step 1 (expect): perms: expected four letters'* ]] || fail "$stderr"
}

@test "vm_flags: gu after guard_install, and no nr; fails where the VMA lacks gu" {
	with '{"op": "expect", "vm_flags": {"has": ["gu", "rd", "wr"], "lacks": ["nr"]}, "at": "a+1p"}'
	assert_success
	assert_jq 'sc.expectations[0].ok' 'true'
	assert_jq 'sc.expectations[0].found | test(" gu")' 'true'
	# the read-only first page is its own VMA, without guards
	with '{"op": "expect", "vm_flags": {"has": ["gu"]}, "at": "a"}'
	assert_failure 1
	assert_jq 'sc.expectations[0].ok' 'false'
	assert_jq 'sc.expectations[0].found | test("^VMA carveout\\+1p\\.\\.carveout\\+2p has VmFlags rd( [a-z]{2})*$")' 'true'
	with '{"op": "expect", "vm_flags": {"lacks": ["gu"]}, "at": "a+1p"}'
	assert_failure 1
}

@test "pages: g for guard markers, x faulted, . untouched, ? any; a wrong letter fails" {
	with '{"op": "expect", "pages": ".x..gg", "at": "a"}' '{"op": "expect", "pages": "?x??g?", "at": "a"}'
	assert_success
	assert_jq 'sc.expectations[0].found' 'pages from carveout+1p: .x..gg'
	with '{"op": "dump"}'
	assert_jq 'vma("carveout+2p").pages_state' 'x..gg'
	with '{"op": "expect", "pages": "..", "at": "a"}'
	assert_failure 1
	with '{"op": "expect", "pages": "....ww", "at": "a"}'
	assert_failure 1
}

@test "pages: runs as dumps print them (x{N}) and P for any populated page; found is shown in runs" {
	steps_scen s.json '{"op": "mmap", "name": "a", "at": "carveout+1p", "len": "20p", "prot": "rw"}' \
		'{"op": "madvise", "at": "a+2p", "len": "16p", "advice": "populate_write"}' \
		'{"op": "expect", "pages": ".{2}x{16}..", "at": "a"}' '{"op": "expect", "pages": "..P{16}?.", "at": "a"}'
	run_json "$S"
	assert_success
	assert_jq 'sc.expectations[0].found' 'pages from carveout+1p: ..x{16}..'
	steps_scen s.json '{"op": "mmap", "name": "a", "at": "carveout+1p", "len": "20p", "prot": "rw"}' \
		'{"op": "madvise", "at": "a+2p", "len": "16p", "advice": "populate_write"}' '{"op": "expect", "pages": "P{17}", "at": "a+2p"}'
	run_json "$S"
	assert_failure 1
	assert_jq 'sc.expectations[0].expected' 'pages from carveout+3p: P{17}'
	assert_jq 'sc.expectations[0].found' 'pages from carveout+3p: x{16}.'
}

@test "pages: a bad run or letter is a scenario error naming step, field and offset" {
	for bad in 'x{0}' 'x{' 'x{2' '{3}' 'xQ' 'x{99999999999}'; do
		steps_scen s.json '{"op": "mmap", "at": "carveout+1p", "len": "1p"}' "{\"op\": \"expect\", \"pages\": \"$bad\", \"at\": \"carveout+1p\"}"
		run_ar check "$S"
		assert_failure 2
		[[ "$stderr" == *'step 1 (expect): pages: '* ]] || fail "$bad: $stderr"
	done
	[[ "$stderr" == *'run at offset 0 is not x{N}'* ]] || fail "$stderr"
}

@test "ret: mmap returning carveout+1p holds; a different address fails naming both" {
	steps_scen s.json '{"op": "mmap", "at": "carveout+1p", "len": "1p", "ret": "carveout+1p"}' \
		'{"op": "munmap", "at": "carveout+1p", "len": "1p", "ret": 0}'
	run_json "$S"
	assert_success
	steps_scen s.json '{"op": "mmap", "at": "carveout+1p", "len": "1p", "ret": "carveout+2p"}'
	run_json "$S"
	assert_failure 1
	assert_jq 'st(0).status' 'failed'
	assert_jq 'sc.reason' 'step 0 (mmap): ret: returned carveout+1p, expected carveout+2p'
}

@test "errno any: a munmap of an unaligned address passes and records EINVAL; a success fails" {
	steps_scen s.json '{"op": "mmap", "at": "carveout+1p", "len": "2p"}' \
		'{"op": "munmap", "at": "carveout+1p+1", "len": "1p", "errno": "any"}'
	run_json "$S"
	assert_success
	assert_jq 'st(1).errno' 'EINVAL'
	steps_scen s.json '{"op": "mmap", "at": "carveout+1p", "len": "2p"}' \
		'{"op": "munmap", "at": "carveout+1p", "len": "1p", "errno": "any"}'
	run_json "$S"
	assert_failure 1
	assert_jq 'sc.reason' 'step 1 (munmap): succeeded, expected a failure (errno any)'
}

@test "each_page: every page of a guard range raises SIGSEGV; a range with one plain page fails" {
	with '{"op": "fault", "at": "a+4p", "len": "2p", "each_page": true, "signal": "SIGSEGV"}' \
		'{"op": "verify", "at": "a+4p", "len": "2p", "fill": 0, "each_page": true, "signal": "SIGSEGV"}'
	assert_success
	assert_jq 'st(4).signal.name' 'SIGSEGV'
	with '{"op": "fault", "at": "a+3p", "len": "3p", "each_page": true, "signal": "SIGSEGV"}'
	assert_failure 1
	assert_jq 'sc.reason' 'step 4 (fault): each_page: 2 pages raised SIGSEGV, the page at offset 0x0 of the range raised none'
	# without each_page the first guard page ends the touch: it passes
	with '{"op": "fault", "at": "a+3p", "len": "3p", "signal": "SIGSEGV"}'
	assert_success
}

@test "fill: fault writes the byte, verify fill holds for it and fails on another, naming the first byte" {
	with '{"op": "fault", "at": "a+1p", "len": "3p", "fill": "x"}' '{"op": "verify", "at": "a+1p", "len": "3p", "fill": "x"}' \
		'{"op": "verify", "at": "a+1p", "len": "3p", "fill": 120}'
	assert_success
	with '{"op": "fault", "at": "a+1p", "len": "3p", "fill": "x"}' '{"op": "verify", "at": "a+1p", "len": "3p", "fill": "y"}'
	assert_failure 1
	assert_jq 'st(5).mismatch' 'carveout+2p'
	assert_jq 'sc.reason' 'step 5 (verify): page contents differ from the fill byte 0x79: first at carveout+2p'
	# the plain touch wrote only the first byte of a+1p: the second differs
	with '{"op": "verify", "at": "a+1p", "fill": "x"}'
	assert_failure 1
	assert_jq 'st(4).mismatch' 'carveout+2p+0x1'
}

@test "fill: not one character or 0-255 is a scenario error" {
	steps_scen s.json '{"op": "mmap", "at": "carveout+1p", "len": "1p"}' '{"op": "fault", "at": "carveout+1p", "fill": "xy"}'
	run_ar check "$S"
	assert_failure 2
	[[ "$stderr" == *'step 1 (fault): fill: expected one character'* ]] || fail "$stderr"
}

@test "file: one memfd mapped twice, adjacent with matching offsets, merges into one shared VMA" {
	steps_scen s.json '{"op": "file", "name": "f", "kind": "memfd", "size": "10p"}' \
		'{"op": "mmap", "name": "a", "at": "carveout+1p", "len": "2p", "file": "f", "flags": ["shared", "fixed"]}' \
		'{"op": "mmap", "name": "b", "at": "carveout+3p", "len": "2p", "file": "f", "offset": "2p", "flags": ["shared", "fixed"]}' \
		'{"op": "expect", "vma": "a", "start": "a", "end": "a+4p"}' '{"op": "expect", "perms": "rw-s", "at": "b"}' \
		'{"op": "dump"}'
	run_json "$S"
	assert_success
	assert_jq 'st(0).args | [.name, .kind, .size] | @json' '["f","memfd",40960]'
	assert_jq 'vma("carveout+1p").name' '/memfd:f (deleted)'
}

@test "file: two different memfds do not merge, and the reason tells them apart by name" {
	steps_scen s.json '{"op": "file", "name": "f", "kind": "memfd", "size": "4p"}' \
		'{"op": "file", "name": "f2", "kind": "tmpfile", "size": "4p"}' \
		'{"op": "file", "name": "f3", "kind": "memfd", "size": "4p"}' \
		'{"op": "mmap", "name": "a", "at": "carveout+1p", "len": "2p", "file": "f", "flags": ["shared", "fixed"]}' \
		'{"op": "mmap", "name": "b", "at": "carveout+3p", "len": "2p", "file": "f3", "offset": "2p", "flags": ["shared", "fixed"]}' \
		'{"op": "expect", "different_vma": ["a", "b"]}' '{"op": "dump"}'
	run_json "$S"
	assert_success
	assert_jq 'dump(0).non_merges[0].why | test("different files: .*/memfd:f \\(deleted\\).* != .*/memfd:f3 \\(deleted\\)")' 'true'
}

@test "file: an mmap of a file without shared or private is exit 2 naming step and field; an unknown file too" {
	steps_scen s.json '{"op": "file", "name": "f", "kind": "memfd", "size": "4p"}' \
		'{"op": "mmap", "at": "carveout+1p", "len": "2p", "file": "f"}'
	run_ar run "$S"
	assert_failure 2
	[[ "$stderr" == *'step 1 (mmap): flags: an mmap of a file must say shared or private'* ]] || fail "$stderr"
	steps_scen s.json '{"op": "mmap", "at": "carveout+1p", "len": "2p", "file": "memfd", "flags": ["fixed"]}'
	run_ar check "$S"
	assert_failure 2
	[[ "$stderr" == *'step 0 (mmap): flags: an mmap of a file must say shared or private'* ]] || fail "$stderr"
	steps_scen s.json '{"op": "mmap", "at": "carveout+1p", "len": "2p", "file": "nosuch", "flags": ["shared"]}'
	run_ar check "$S"
	assert_failure 2
	[[ "$stderr" == *"step 0 (mmap): file: 'nosuch' is not memfd, tmpfile, uprobe or the name of an earlier file step"* ]] || fail "$stderr"
}

@test "text form: file, fill=x, each_page=true, vm_flags=rd,-gu, pages, perms, errno=any and ret" {
	run_json -e 'file f kind=memfd size=4p' -e 'mmap a at=carveout+1p len=2p file=f flags=shared,fixed' \
		-e 'fault a len=2p fill=x each_page=true' -e 'verify a fill=x' -e 'expect vm_flags=rd,-gu at=a' \
		-e 'expect pages=xx at=a' -e 'expect perms=rw-s at=a' -e 'munmap at=a+1 len=1p errno=any' \
		-e 'mmap b at=carveout+5p len=1p ret=carveout+5p' -e 'munmap b ret=0'
	assert_success
	assert_jq 'sc.scenario.steps[4].vm_flags | @json' '{"has":["rd"],"lacks":["gu"]}'
	assert_jq 'st(2).args | [.fill, .each_page] | @json' '[120,true]'
	assert_jq '[sc.expectations[] | .ok] | @json' '[true,true,true]'
	assert_jq 'st(7).errno' 'EINVAL'
}
