#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# mdwe_test.c (Linux 7.2): memory-deny-write-execute, PR_SET_MDWE. Each
# scenario translated from the selftest reaches the selftest's verdict on
# the live kernel. The C selftest passes all of these cases on Linux 6.18
# (ok N consecutive_prctl_flags.VARIANT.two_prctls, ok N mdwe.VARIANT.TEST),
# so each scenario, and each of its variants, must pass. PR_SET_MDWE is
# Linux 6.3: an older kernel refuses it with EINVAL, the C fixture's
# ASSERT_EQ(ret, 0) fails there, and the scenarios require the probe's mdwe:
# these tests skip on such a kernel. Not translated (tests/upstream-map.txt
# maps it to -): arm64_BTI, which skips off arm64.

# The jq filters below are in single quotes: their $i is jq's, not the shell's.
# shellcheck disable=SC2016

load helper

# Shorthands on the result of a file with variants: v(i) is the i-th
# variant's result, calls(i; op) its steps with that op, in order.
V_DEFS='def v($i): .scenarios[$i]; def calls($i; $op): [v($i).steps[] | select(.op == $op)];'

# vq FILTER EXPECTED: assert_jq with the variant shorthands.
vq() {
	assert_jq "$V_DEFS $1" "$2"
}

# mdwe_case NAME VARIANT...: run scenarios/mdwe_test_NAME.json and assert
# that it gives one result per VARIANT, named NAME[VARIANT] in that order,
# each passing with every step ok.
mdwe_case() {
	local n="mdwe_test_$1"
	shift
	need_feature mdwe
	run_json -t 120 "$ANONREMAP_SCENARIO_DIR/$n.json"
	assert_success
	assert_jq '.scenarios[] | .name' "$(printf "${n}[%s]\n" "$@")"
	assert_jq '[.scenarios[] | select(.status != "pass")] | length' '0'
	assert_jq '[.scenarios[].steps[] | select(.status != "ok")] | length' '0'
}

# The four variants of FIXTURE(mdwe), in the selftest's order.
MDWE_VARIANTS=(stock enabled inherited not_inherited)

# fixture_setup: every result of a mdwe-fixture file set up as
# FIXTURE_SETUP does: stock makes no prctl and no fork; enabled sets
# PR_MDWE_REFUSE_EXEC_GAIN (1) and reads it back; inherited the same, then
# forks; not_inherited sets and reads back 1 | PR_MDWE_NO_INHERIT (3), then
# forks. After a fork, the test's calls are made in the child, which exits.
fixture_setup() {
	vq 'calls(0; "prctl") | length' '0'
	vq '[calls(1; "prctl")[] | [.args.option, .args.value, .ret]] | tostring' \
		'[["PR_SET_MDWE",1,0],["PR_GET_MDWE",0,1]]'
	vq '[calls(2; "prctl")[] | [.args.option, .args.value, .ret]] | tostring' \
		'[["PR_SET_MDWE",1,0],["PR_GET_MDWE",0,1]]'
	vq '[calls(3; "prctl")[] | [.args.option, .args.value, .ret]] | tostring' \
		'[["PR_SET_MDWE",3,0],["PR_GET_MDWE",0,3]]'
	vq '[(range(4)) as $i | calls($i; "fork") | length] | tostring' '[0,0,1,1]'
	vq '[range(4) as $i | [v($i).processes[] | .name] | join(",")] | join(" ")' 'main main main,child main,child'
	vq '[(range(4)) as $i | [calls($i; "mmap")[] | .in] | unique | join(",")] | join(" ")' 'main main child child'
	vq '[(range(2; 4)) as $i | calls($i; "exit")[] | .in] | join(",")' 'child,child'
}

@test "mdwe_test_prctl_flags: unknown flags and every non-zero unused argument are EINVAL, set and get alike" {
	need_feature mdwe
	run_json "$ANONREMAP_SCENARIO_DIR/mdwe_test_prctl_flags.json"
	assert_success
	assert_jq '.scenarios[0].status' 'pass'
	assert_jq '[.scenarios[0].steps[] | [.args.option, .args.value, .args.arg3 // 0, .args.arg4 // 0, .args.arg5 // 0, .ret, .errno]] | tostring' \
		'[["PR_SET_MDWE",2,0,0,7,-1,"EINVAL"],["PR_SET_MDWE",7,0,0,0,-1,"EINVAL"],["PR_SET_MDWE",0,7,0,0,-1,"EINVAL"],["PR_SET_MDWE",0,0,7,0,-1,"EINVAL"],["PR_SET_MDWE",0,0,0,7,-1,"EINVAL"],["PR_GET_MDWE",7,0,0,0,-1,"EINVAL"],["PR_GET_MDWE",0,7,0,0,-1,"EINVAL"],["PR_GET_MDWE",0,0,7,0,-1,"EINVAL"],["PR_GET_MDWE",0,0,0,7,-1,"EINVAL"]]'
	# the arguments reach the kernel: the same call without arg5 is valid
	run_json -e 'prctl option=set_mdwe value=3 arg5=7 errno=EINVAL' -e 'prctl option=get_mdwe ret=0' \
		-e 'prctl option=set_mdwe value=3 ret=0' -e 'prctl option=get_mdwe ret=3'
	assert_success
}

@test "mdwe_test_two_prctls: a second PR_SET_MDWE may repeat the flags, never clear REFUSE_EXEC_GAIN or change NO_INHERIT (EPERM)" {
	need_feature mdwe
	run_json -t 120 "$ANONREMAP_SCENARIO_DIR/mdwe_test_two_prctls.json"
	assert_success
	assert_jq '.scenarios[] | .name' "$(printf 'mdwe_test_two_prctls[%s]\n' can_keep_no_flags \
		can_keep_exec_gain can_keep_both_flags cant_disable_mdwe cant_disable_mdwe_no_inherit \
		cant_disable_no_inherit cant_enable_no_inherit)"
	assert_jq '[.scenarios[] | select(.status != "pass")] | length' '0'
	assert_jq '[.scenarios[].steps[] | select(.status != "ok")] | length' '0'
	# every variant's first call sets its first_flags and returns 0
	vq '[(range(7)) as $i | calls($i; "prctl")[0] | [.args.option, .args.value, .ret]] | tostring' \
		'[["PR_SET_MDWE",0,0],["PR_SET_MDWE",1,0],["PR_SET_MDWE",3,0],["PR_SET_MDWE",1,0],["PR_SET_MDWE",3,0],["PR_SET_MDWE",3,0],["PR_SET_MDWE",1,0]]'
	# should_work: the second set succeeds, PR_GET_MDWE returns second_flags
	vq '[(range(3)) as $i | [calls($i; "prctl")[1:][] | [.args.option, .args.value, .ret, .errno]]] | tostring' \
		'[[["PR_SET_MDWE",0,0,null],["PR_GET_MDWE",0,0,null]],[["PR_SET_MDWE",1,0,null],["PR_GET_MDWE",0,1,null]],[["PR_SET_MDWE",3,0,null],["PR_GET_MDWE",0,3,null]]]'
	# !should_work: the second set, of second_flags, fails with EPERM
	vq '[(range(3; 7)) as $i | [calls($i; "prctl")[1:][] | [.args.value, .ret, .errno]]] | tostring' \
		'[[[0,-1,"EPERM"]],[[0,-1,"EPERM"]],[[1,-1,"EPERM"]],[[3,-1,"EPERM"]]]'
}

@test "mdwe_test_mmap_read_exec: a PROT_READ|PROT_EXEC shared mapping is made in every variant" {
	mdwe_case mmap_read_exec "${MDWE_VARIANTS[@]}"
	fixture_setup
	vq '[(range(4)) as $i | calls($i; "mmap")[] | [.args.prot, .args.flags, (.ret | type)]] | unique | tostring' \
		'[[["PROT_READ","PROT_EXEC"],["MAP_SHARED","MAP_ANONYMOUS"],"string"]]'
	vq '[(range(4)) as $i | calls($i; "munmap")[] | .ret] | tostring' '[0,0,0,0]'
}

@test "mdwe_test_mmap_write_exec: PROT_WRITE|PROT_EXEC is refused (EACCES) where MDWE holds, made where it does not" {
	mdwe_case mmap_write_exec "${MDWE_VARIANTS[@]}"
	fixture_setup
	vq '[(range(4)) as $i | calls($i; "mmap")[] | .args.prot | join("|")] | unique | tostring' '["PROT_WRITE|PROT_EXEC"]'
	# enabled and inherited: MAP_FAILED, errno EACCES (the C checks only MAP_FAILED)
	vq '[(1, 2) as $i | calls($i; "mmap")[] | [.ret, .errno]] | tostring' '[[-1,"EACCES"],[-1,"EACCES"]]'
	# stock and not_inherited (NO_INHERIT: the child is free of MDWE): mapped
	vq '[(0, 3) as $i | calls($i; "mmap")[] | [(.ret | type), .errno]] | tostring' '[["string",null],["string",null]]'
	# the teardown munmaps only a mapping made
	vq '[(range(4)) as $i | calls($i; "munmap") | length] | tostring' '[1,0,0,1]'
}

@test "mdwe_test_mprotect_stay_exec: mprotect(PROT_READ|PROT_EXEC) of a PROT_READ|PROT_EXEC mapping succeeds in every variant" {
	mdwe_case mprotect_stay_exec "${MDWE_VARIANTS[@]}"
	fixture_setup
	vq '[(range(4)) as $i | calls($i; "mprotect")[] | [(.args.prot | join("|")), .ret, .errno]] | tostring' \
		'[["PROT_READ|PROT_EXEC",0,null],["PROT_READ|PROT_EXEC",0,null],["PROT_READ|PROT_EXEC",0,null],["PROT_READ|PROT_EXEC",0,null]]'
}

@test "mdwe_test_mprotect_add_exec: adding PROT_EXEC to PROT_READ is refused (EACCES) where MDWE holds" {
	mdwe_case mprotect_add_exec "${MDWE_VARIANTS[@]}"
	fixture_setup
	vq '[(range(4)) as $i | calls($i; "mmap")[] | .args.prot | join("|")] | unique | tostring' '["PROT_READ"]'
	vq '[(range(4)) as $i | calls($i; "mprotect")[] | [(.args.prot | join("|")), .ret, .errno]] | tostring' \
		'[["PROT_READ|PROT_EXEC",0,null],["PROT_READ|PROT_EXEC",-1,"EACCES"],["PROT_READ|PROT_EXEC",-1,"EACCES"],["PROT_READ|PROT_EXEC",0,null]]'
}

@test "mdwe_test_mprotect_write_exec: adding PROT_EXEC to PROT_WRITE is refused (EACCES) where MDWE holds" {
	mdwe_case mprotect_write_exec "${MDWE_VARIANTS[@]}"
	fixture_setup
	vq '[(range(4)) as $i | calls($i; "mmap")[] | .args.prot | join("|")] | unique | tostring' '["PROT_WRITE"]'
	vq '[(range(4)) as $i | calls($i; "mprotect")[] | [(.args.prot | join("|")), .ret, .errno]] | tostring' \
		'[["PROT_WRITE|PROT_EXEC",0,null],["PROT_WRITE|PROT_EXEC",-1,"EACCES"],["PROT_WRITE|PROT_EXEC",-1,"EACCES"],["PROT_WRITE|PROT_EXEC",0,null]]'
}

@test "mdwe_test_mmap_fixed: MAP_FIXED of PROT_READ|PROT_EXEC over a PROT_READ page lands at the same address in every variant" {
	mdwe_case mmap_fixed "${MDWE_VARIANTS[@]}"
	fixture_setup
	vq '[(range(4)) as $i | calls($i; "mmap") | [.[1].ret == .[0].ret, .[1].args.addr == .[0].ret,
		(.[1].args.flags | join("|")), (.[1].args.prot | join("|"))]] | unique | tostring' \
		'[[true,true,"MAP_SHARED|MAP_FIXED|MAP_ANONYMOUS","PROT_READ|PROT_EXEC"]]'
}

# The checks the scenarios rely on bite: under MDWE, a writable and
# executable mmap expected to succeed fails the scenario, and PR_GET_MDWE
# expected to return other flags fails it; a refused mprotect leaves the
# mapping as it was, and a NO_INHERIT parent's child may add PROT_EXEC.
@test "mdwe: the checks bite (EACCES where success was expected, a wrong PR_GET_MDWE ret), and a refused mprotect changes nothing" {
	need_feature mdwe
	steps_scen wx.json '{"op": "prctl", "option": "set_mdwe", "value": 1}' \
		'{"op": "mmap", "name": "q", "len": "1p", "prot": "wx", "flags": ["SHARED", "ANONYMOUS"]}'
	run_json -f json "$S"
	assert_equal "$status" 1
	assert_jq 'sc.status' 'fail'
	assert_jq '[st(1).ret, st(1).errno, st(1).status, st(1).failure] | tostring' \
		'[-1,"EACCES","failed","failed with EACCES, expected success"]'

	steps_scen get.json '{"op": "prctl", "option": "set_mdwe", "value": 3}' \
		'{"op": "prctl", "option": "get_mdwe", "ret": 1}'
	run_json -f json "$S"
	assert_equal "$status" 1
	assert_jq '[sc.status, st(1).ret, st(1).status] | tostring' '["fail",3,"failed"]'

	steps_scen perms.json '{"op": "prctl", "option": "set_mdwe", "value": 3}' \
		'{"op": "mmap", "name": "q", "len": "1p", "prot": "r", "flags": ["SHARED", "ANONYMOUS"]}' \
		'{"op": "mprotect", "region": "q", "prot": "rx", "errno": "EACCES"}' \
		'{"op": "expect", "perms": "r--s", "at": "q"}' \
		'{"op": "fork"}' \
		'{"op": "prctl", "option": "get_mdwe", "ret": 0}' \
		'{"op": "mprotect", "region": "q", "prot": "rx"}' \
		'{"op": "expect", "perms": "r-xs", "at": "q"}' \
		'{"op": "expect", "perms": "r--s", "at": "q", "in": "main"}'
	run_json -f json "$S"
	assert_success
	assert_jq 'sc.status' 'pass'
	assert_jq '[sc.expectations[] | .ok] | tostring' '[true,true,true]'
	assert_jq '[st(5).in, st(5).ret, st(6).in, st(6).ret] | tostring' '["child",0,"child",0]'
}
