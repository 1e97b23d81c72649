#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# mlock2-tests.c (Linux 7.2): mlock2, MLOCK_ONFAULT, mlockall, munlockall
# and MAP_DROPPABLE. Each scenario translated from the selftest reaches the
# selftest's verdict on the live kernel: the C binary passes all 15 of its
# test points on Linux 6.18, so each scenario must pass. The scenarios check
# lo with vm_flags and smaps Rss against Size with pages and faulted; here
# the dumps' rss_pages and pages show the C's own Rss == Size and Rss < Size
# as well. The scenarios whose mlockall has MCL_CURRENT without MCL_ONFAULT
# are tagged asan-slow: in the ASan build it populates the sanitizer's
# terabytes of shadow until --max-rss kills the scenario process, so their
# tests skip there (need_plain). MAP_DROPPABLE is Linux 6.11: where mmap
# refuses it the C skips, and so do the droppable scenarios (they require
# the probe's map_droppable) and their tests below.

# The jq filters below are in single quotes: their $i is jq's, not the shell's.
# shellcheck disable=SC2016

load helper

# Shorthands: calls(op) the steps with that op, in order; m($i) the VMA of
# region map in dump $i.
M_DEFS='def calls($op): [sc.steps[] | select(.op == $op)];
def m($i): [sc.dumps[$i].vmas[] | select(.region == "map")] | if length == 1 then .[0] else error("map is not one VMA in dump \($i)") end;
def locked($i): m($i).vm_flags | index("lo") != null;'

mq() {
	assert_jq "$M_DEFS $1" "$2"
}

# mlock2_case NAME: run scenarios/mlock2_test_NAME.json and assert that it
# passes with every step ok and every expectation held.
mlock2_case() {
	local n="mlock2_test_$1"
	run_json -t 120 "$ANONREMAP_SCENARIO_DIR/$n.json"
	assert_success
	assert_jq 'sc.name' "$n"
	assert_jq 'sc.status' 'pass'
	assert_jq '[sc.steps[] | select(.status != "ok")] | length' '0'
	assert_jq '[sc.expectations[] | select(.ok != true)] | length' '0'
}

need_plain() {
	if [[ "${ANONREMAP_SANITIZED:-0}" == 1 ]] || sanitized; then
		skip "asan-slow: mlockall(MCL_CURRENT) would populate ASan's shadow"
	fi
}

need_droppable() {
	need_feature map_droppable # the probe's mmap fails where the C skips: before 6.11, 32-bit
}

@test "mlock2: test_mlock_lock: mlock2(0) locks and populates, munlock unlocks (Locked, Unlocked)" {
	mlock2_case mlock_lock
	# flags 0 given: mlock2, not mlock
	mq '[calls("mlock")[] | [.args.flags, .ret, .errno]] | tostring' '[[[],0,null]]'
	mq '[calls("munlock")[] | .ret] | tostring' '[0]'
	# lock_check: lo and smaps Rss == Size
	mq '[locked(0), m(0).rss_pages, m(0).pages, m(0).locked_pages, m(0).pages_state] | tostring' '[true,2,2,2,"xx"]'
	# unlock_lock_check: no lo
	mq 'locked(1)' 'false'
	mq '[sc.expectations[] | .check] | tostring' '["vm_flags","pages","vm_flags"]'
}

@test "mlock2: test_mlock_onfault: MLOCK_ONFAULT locks without populating, munlock unlocks" {
	mlock2_case mlock_onfault
	mq '[calls("mlock")[] | [.args.flags, .ret]] | tostring' '[[["MLOCK_ONFAULT"],0]]'
	# is_vma_lock_on_fault after *map = 'a': lo and Rss < Size
	mq '[locked(0), m(0).rss_pages, m(0).pages, m(0).pages_state] | tostring' '[true,1,2,"x."]'
	mq '(m(0).vm_flags | index("lf") != null)' 'true'
	mq 'locked(1)' 'false'
	mq '[sc.expectations[] | .check] | tostring' '["vm_flags","faulted","vm_flags","vm_flags"]'
}

@test "mlock2: test_lock_onfault_of_present: a present page, then MLOCK_ONFAULT: lock on fault" {
	mlock2_case lock_onfault_of_present
	mq '[calls("fault")[0].index, calls("mlock")[0].index] | tostring' '[1,2]'
	mq '[locked(0), m(0).rss_pages, m(0).pages, m(0).locked_pages, m(0).pages_state] | tostring' '[true,1,2,1,"x."]'
}

@test "mlock2: test_munlockall0: mlockall(MCL_CURRENT) locks and populates, munlockall unlocks" {
	need_plain
	mlock2_case munlockall0
	mq '[calls("mlockall")[] | [.args.flags, .ret, .errno]] | tostring' '[[["MCL_CURRENT"],0,null]]'
	mq '[calls("munlockall")[] | [.ret, .errno]] | tostring' '[[0,null]]'
	mq '[locked(0), m(0).rss_pages, m(0).pages, m(0).pages_state] | tostring' '[true,2,2,"xx"]'
	mq 'locked(1)' 'false'
}

@test "mlock2: test_munlockall1: CURRENT|ONFAULT, munlockall, CURRENT|FUTURE, munlockall" {
	need_plain
	mlock2_case munlockall1
	mq '[calls("mlockall")[] | [.args.flags, .ret]] | tostring' \
		'[[["MCL_CURRENT","MCL_ONFAULT"],0],[["MCL_CURRENT","MCL_FUTURE"],0]]'
	mq '[calls("munlockall")[] | .ret] | tostring' '[0,0]'
	# VMA marked for lock on fault; Unlocked; Locked; No locked memory
	mq '[locked(0), m(0).rss_pages, m(0).pages] | tostring' '[true,1,2]'
	mq '[locked(1), m(1).pages_state] | tostring' '[false,"x."]'
	mq '[locked(2), m(2).rss_pages, m(2).pages, m(2).pages_state] | tostring' '[true,2,2,"xx"]'
	mq 'locked(3)' 'false'
}

@test "mlock2: test_mlockall: test_vma_management(false) under mlockall(CURRENT|ONFAULT|FUTURE)" {
	mlock2_case mlockall
	mq '[calls("mlockall")[] | [.args.flags, .ret]] | tostring' '[[["MCL_CURRENT","MCL_FUTURE","MCL_ONFAULT"],0]]'
	mq 'calls("mlock") | length' '0'
	# MCL_FUTURE | MCL_ONFAULT lock the new mapping on fault: one VMA
	mq '[sc.dumps[0].vmas[] | select(.region == "map") | .vm_flags | (index("lo") != null) and (index("lf") != null)] | tostring' '[true]'
	mq '[sc.dumps[1].vmas[] | select(.region == "map") | .vm_flags | index("lo") != null] | tostring' '[true,false,true]'
	mq '[sc.dumps[2].vmas[] | select(.region == "map")] | length' '1'
	mq '[calls("munlockall")[] | .ret] | tostring' '[0]'
}

@test "mlock2: test_mlock_droppable: mlock2(0) succeeds on MAP_DROPPABLE memory but locks nothing" {
	need_droppable
	mlock2_case mlock_droppable
	mq '[sc.steps[] | .op] | tostring' '["munlockall","mmap","mlock","dump","expect","munmap"]'
	mq 'calls("mmap")[0].args.flags | tostring' '["MAP_DROPPABLE","MAP_ANONYMOUS"]'
	mq '[calls("mlock")[] | [.args.flags, .ret]] | tostring' '[[[],0]]'
	# the map is kernel-placed, outside the dump's carveout: the expectation reads it
	mq 'sc.expectations[0].found | test(" dd( |$)") and (test(" lo( |$)") | not)' 'true'
}

@test "mlock2: test_mlockall_future_droppable: MCL_FUTURE does not lock new MAP_DROPPABLE memory" {
	need_droppable
	need_plain
	mlock2_case mlockall_future_droppable
	mq '[calls("mlockall")[] | [.args.flags, .ret]] | tostring' '[[["MCL_CURRENT","MCL_FUTURE"],0]]'
	mq 'sc.expectations[0].found | test(" dd( |$)") and (test(" lo( |$)") | not)' 'true'
	mq '[calls("munlockall")[] | .ret] | tostring' '[0]'
}

# The checks the scenarios rely on bite: lo after munlock or munlockall,
# every page present after MLOCK_ONFAULT, page 1 absent after mlock2(0),
# each fails the scenario; mlockall(0) is the kernel's EINVAL.
@test "mlock2: the checks bite (+lo after munlock and munlockall, xx after onfault, page 1 absent after mlock2(0))" {
	steps_scen unlocked.json '{"op": "mmap", "name": "map", "at": "carveout+1p", "len": "2p"}' \
		'{"op": "mlock", "region": "map", "flags": 0}' \
		'{"op": "munlock", "region": "map"}' \
		'{"op": "expect", "vm_flags": {"has": ["lo"]}, "at": "map"}'
	run_json -f json "$S"
	assert_equal "$status" 1
	assert_jq '[sc.status, st(3).status, sc.expectations[0].ok] | tostring' '["fail","failed",false]'
	assert_jq 'sc.expectations[0].found' 'VMA carveout+1p..carveout+3p has VmFlags rd wr mr mw me ac'

	steps_scen unlockall.json '{"op": "mmap", "name": "map", "at": "carveout+1p", "len": "2p"}' \
		'{"op": "mlockall", "flags": ["current", "onfault"]}' \
		'{"op": "munlockall"}' \
		'{"op": "expect", "vm_flags": {"has": ["lo"]}, "at": "map"}'
	run_json -f json "$S"
	assert_equal "$status" 1
	assert_jq '[sc.status, st(1).ret, st(2).ret, st(3).status] | tostring' '["fail",0,0,"failed"]'

	steps_scen onfault.json '{"op": "mmap", "name": "map", "at": "carveout+1p", "len": "2p"}' \
		'{"op": "mlock", "region": "map", "flags": ["onfault"]}' \
		'{"op": "fault", "at": "map", "access": "write"}' \
		'{"op": "expect", "pages": "xx", "at": "map"}'
	run_json -f json "$S"
	assert_equal "$status" 1
	assert_jq '[sc.status, st(3).status, sc.expectations[0].found] | tostring' '["fail","failed","pages from carveout+1p: x."]'

	steps_scen populated.json '{"op": "mmap", "name": "map", "at": "carveout+1p", "len": "2p"}' \
		'{"op": "mlock", "region": "map", "flags": 0}' \
		'{"op": "expect", "faulted": false, "at": "map+1p"}'
	run_json -f json "$S"
	assert_equal "$status" 1
	assert_jq '[sc.status, st(2).status] | tostring' '["fail","failed"]'

	steps_scen einval.json '{"op": "mlockall", "flags": 0, "errno": "EINVAL"}' \
		'{"op": "mlockall", "flags": 0}'
	run_json -f json "$S"
	assert_equal "$status" 1
	assert_jq '[st(0).status, st(0).errno, st(1).status, st(1).errno] | tostring' '["ok","EINVAL","failed","EINVAL"]'
}

# mlockall acts on the process the step runs in: a child's MCL_CURRENT
# locks the child's copy of a mapping, not its parent's; the child's
# MCL_FUTURE locks the child's later mappings (with MCL_ONFAULT, so that
# the sanitized build can run it too).
@test "mlock2: mlockall in a child locks the child only" {
	steps_scen child.json '{"op": "mmap", "name": "map", "at": "carveout+1p", "len": "2p"}' \
		'{"op": "fork"}' \
		'{"op": "mlockall", "flags": ["current", "future", "onfault"]}' \
		'{"op": "mmap", "name": "later", "at": "carveout+4p", "len": "1p"}' \
		'{"op": "expect", "vm_flags": {"has": ["lo"]}, "at": "map"}' \
		'{"op": "expect", "vm_flags": {"has": ["lo"]}, "at": "later"}' \
		'{"op": "expect", "vm_flags": {"lacks": ["lo"]}, "at": "map", "in": "main"}' \
		'{"op": "munlockall"}' \
		'{"op": "expect", "vm_flags": {"lacks": ["lo"]}, "at": "map"}'
	run_json -f json "$S"
	assert_success
	assert_jq '[sc.status, st(2).in, st(2).ret, st(7).in, st(7).ret] | tostring' '["pass","child",0,"child",0]'
	assert_jq '[sc.expectations[] | .ok] | tostring' '[true,true,true,true]'
}
