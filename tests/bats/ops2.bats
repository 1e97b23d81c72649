#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The ops of issue 18 against the live kernel: mlock, munlock, the advice
# names of Linux 7.2's uapi, and userfaultfd's api, copy, zeropage, move,
# wake and continue. Effects are read from anonremap's dumps (smaps
# VmFlags and Locked, pagemap) and from verify steps.

load helper

# --- mlock / munlock ------------------------------------------------------

@test "mlock: the locked range is its own VMA with VmFlags lo and Locked pages; munlock merges it back" {
	run_json -e 'mmap ptr at=carveout+1p len=3p' -e 'mlock at=ptr+1p len=1p' -e 'dump locked' \
		-e 'munlock ptr' -e 'dump unlocked'
	assert_success
	assert_jq 'st(1).ret' '0'
	assert_jq 'st(1).args.flags' 'null'
	# mlock populates: the middle page is present and counted as Locked
	assert_jq 'vma_in(0; "carveout+2p").rel' 'carveout+2p..carveout+3p'
	assert_jq 'vma_in(0; "carveout+2p").vm_flags | index("lo") != null' 'true'
	assert_jq 'vma_in(0; "carveout+2p").locked_pages' '1'
	assert_jq 'vma_in(0; "carveout+2p").pages_state' 'x'
	assert_jq 'vma_in(0; "carveout+1p").vm_flags | index("lo") == null' 'true'
	assert_jq 'vma_in(0; "carveout+3p").vm_flags | index("lo") == null' 'true'
	assert_jq 'vma_in(1; "carveout+1p").rel' 'carveout+1p..carveout+4p'
	assert_jq 'vma_in(1; "carveout+1p").vm_flags | index("lo") == null' 'true'
	assert_jq 'vma_in(1; "carveout+1p").locked_pages' '0'
}

@test "mlock of the middle third splits one VMA in three; munlock of all merges them into one" {
	run_json -e 'mmap ptr at=carveout+1p len=3p' -e 'expect vma_count=1 from=ptr to=ptr+3p' \
		-e 'mlock at=ptr+1p len=1p' -e 'expect vma_count=3 from=ptr to=ptr+3p' \
		-e 'expect vma=ptr+1p start=ptr+1p end=ptr+2p' \
		-e 'munlock ptr' -e 'expect vma_count=1 from=ptr to=ptr+3p' -e 'expect vma=ptr start=ptr end=ptr+3p'
	assert_success
	assert_jq '[sc.steps[] | .status] | unique | join(",")' 'ok'
}

@test "mlock with flags=onfault is mlock2(MLOCK_ONFAULT): VmFlags lf, nothing populated" {
	run_json -e 'mmap ptr at=carveout+1p len=2p' -e 'mlock ptr flags=onfault' -e 'dump'
	assert_success
	assert_jq 'st(1).args.flags | join(",")' 'MLOCK_ONFAULT'
	assert_jq 'vma("carveout+1p").vm_flags | (index("lo") != null and index("lf") != null)' 'true'
	assert_jq 'vma("carveout+1p").pages_state' '..'
	assert_jq 'vma("carveout+1p").locked_pages' '0'
}

@test "mlock flags=0 still calls mlock2 (and succeeds); an unknown mlock flag is refused with a suggestion" {
	run_json -e 'mmap ptr at=carveout+1p len=1p' -e 'mlock ptr flags=0' -e 'dump'
	assert_success
	assert_jq 'st(1).ret' '0'
	assert_jq 'st(1).args.flags | length' '0'
	assert_jq 'vma("carveout+1p").locked_pages' '1'
	run_json -e 'mmap ptr at=carveout+1p len=1p' -e 'mlock ptr flags=onfalt'
	assert_equal "$status" 2
	assert_nothing_ran
	assert_msg "-e:2: mlock: flags: unknown mlock flag 'onfalt' (did you mean 'MLOCK_ONFAULT'?)"
}

@test "munlock of an unmapped range fails with ENOMEM, recorded by name" {
	run_json -e 'munmap at=carveout+1p len=1p' -e 'munlock at=carveout+1p len=1p errno=ENOMEM'
	assert_success
	assert_jq 'st(1).errno' 'ENOMEM'
}

# --- madvise: every MADV_* of Linux 7.2's uapi ------------------------------

@test "madvise: every advice name of Linux 7.2's uapi parses, with and without its prefix, to its kernel number" {
	local -A want=([NORMAL]=0 [RANDOM]=1 [SEQUENTIAL]=2 [WILLNEED]=3 [DONTNEED]=4 [FREE]=8
		[REMOVE]=9 [DONTFORK]=10 [DOFORK]=11 [MERGEABLE]=12 [UNMERGEABLE]=13 [HUGEPAGE]=14
		[NOHUGEPAGE]=15 [DONTDUMP]=16 [DODUMP]=17 [WIPEONFORK]=18 [KEEPONFORK]=19 [COLD]=20
		[PAGEOUT]=21 [POPULATE_READ]=22 [POPULATE_WRITE]=23 [DONTNEED_LOCKED]=24 [COLLAPSE]=25
		[HWPOISON]=100 [SOFT_OFFLINE]=101 [GUARD_INSTALL]=102 [GUARD_REMOVE]=103)
	local n got
	# the table holds exactly these names
	run_ar names -s advice
	assert_success
	assert_equal "$(sort <<<"$output" | tr '\n' ' ')" "$(printf '%s\n' "${!want[@]}" | sort | tr '\n' ' ')"
	# every spelling parses (check runs nothing: hwpoison and soft_offline
	# are only checked, with -D, never run)
	local -a steps=('{"op": "mmap", "name": "ptr", "at": "carveout+1p", "len": "1p"}') run_steps=() safe=()
	for n in "${!want[@]}"; do
		steps+=("{\"op\": \"madvise\", \"region\": \"ptr\", \"advice\": \"${n,,}\", \"may_fail\": true}"
			"{\"op\": \"madvise\", \"region\": \"ptr\", \"advice\": \"MADV_$n\", \"may_fail\": true}")
		[[ $n == HWPOISON || $n == SOFT_OFFLINE ]] && continue
		safe+=("$n")
		run_steps+=(-e "madvise ptr advice=${n,,} may_fail=true" -e "madvise ptr advice=${want[$n]} may_fail=true")
	done
	steps_scen all.json "${steps[@]}"
	run_ar check -D "$S"
	assert_success
	# each safe name runs as its kernel number, and that number prints as the name
	run_json -e 'mmap ptr at=carveout+1p len=1p' "${run_steps[@]}"
	local i=1
	for n in "${safe[@]}"; do
		got="$(jqr "st($i).args.advice") $(jqr "st($((i + 1))).args.advice")"
		[[ "$got" == "MADV_$n MADV_$n" ]] || fail "advice ${n,,} / ${want[$n]} ran as '$got'"
		i=$((i + 2))
	done
	# without -D the poisoning advice is refused, nothing run
	steps_scen poison.json '{"op": "mmap", "name": "ptr", "at": "carveout+1p", "len": "1p"}' \
		'{"op": "madvise", "region": "ptr", "advice": "hwpoison"}'
	run_ar check "$S"
	assert_equal "$status" 2
}

# --- userfaultfd ------------------------------------------------------------

@test "userfaultfd copy fills the missing pages of a registered range with the source's content; ret is the bytes copied" {
	need_feature userfaultfd
	run_json -e 'mmap src at=carveout+1p len=2p' -e 'fault src len=2p pattern=7' \
		-e 'mmap dst at=carveout+10p len=2p' -e 'userfaultfd action=api' -e 'userfaultfd dst' \
		-e 'expect faulted=false at=dst len=2p' \
		-e 'userfaultfd dst action=copy from=src' -e 'expect faulted=true at=dst len=2p' \
		-e 'verify dst pattern=7' -e 'verify src pattern=7' -e 'verify dst pattern=8'
	assert_equal "$status" 1 # only the last verify, whose pattern differs
	assert_jq 'st(3).args.features | length' '0'
	assert_jq 'st(6).args.action' 'copy'
	assert_jq 'st(6).args.from_rel' 'carveout+1p'
	assert_jq 'st(6).ret' '8192'
	assert_jq '[sc.steps[0:10][] | .status] | unique | join(",")' 'ok'
	assert_jq 'st(10).status' 'failed'
}

@test "userfaultfd copy over a present page fails with EEXIST; flags name the action's own mode bits" {
	need_feature userfaultfd
	run_json -e 'mmap src at=carveout+1p len=1p' -e 'fault src pattern=3' \
		-e 'mmap dst at=carveout+10p len=1p' -e 'fault dst' -e 'userfaultfd dst' \
		-e 'userfaultfd dst action=copy from=src flags=dontwake errno=EEXIST'
	assert_success
	assert_jq 'st(5).args.flags | join(",")' 'UFFDIO_COPY_MODE_DONTWAKE'
	assert_jq 'st(5).ret' '-1'
	assert_jq 'st(5).errno' 'EEXIST'
}

@test "userfaultfd zeropage maps zeroes into the missing pages" {
	need_feature userfaultfd
	run_json -e 'mmap z at=carveout+1p len=2p' -e 'userfaultfd z' -e 'userfaultfd z action=zeropage' \
		-e 'verify z pattern=zero' -e 'dump'
	assert_success
	assert_jq 'st(2).ret' '8192'
	assert_jq 'st(2).args.flags | length' '0'
	assert_jq 'vma("carveout+1p").pages_state | test("^[^.]{2}$")' 'true'
}

@test "userfaultfd move: the destination gets the data, the source becomes missing" {
	need_feature userfaultfd_move
	run_json -e 'mmap src at=carveout+1p len=2p' -e 'fault src len=2p pattern=11' \
		-e 'mmap dst at=carveout+10p len=2p' -e 'userfaultfd action=api features=move' -e 'userfaultfd dst' \
		-e 'userfaultfd dst action=move from=src' -e 'verify dst pattern=11' \
		-e 'expect faulted=false at=src len=2p' -e 'expect faulted=true at=dst len=2p'
	assert_success
	assert_jq 'st(3).args.features | join(",")' 'UFFD_FEATURE_MOVE'
	assert_jq 'st(5).ret' '8192'
}

@test "userfaultfd move of a hole fails with ENOENT unless allow_src_holes" {
	need_feature userfaultfd_move
	run_json -e 'mmap src at=carveout+1p len=1p' -e 'mmap dst at=carveout+10p len=1p' \
		-e 'userfaultfd action=api features=move' -e 'userfaultfd dst' \
		-e 'userfaultfd dst action=move from=src errno=ENOENT' \
		-e 'userfaultfd dst action=move from=src flags=allow_src_holes'
	assert_success
	assert_jq 'st(5).args.flags | join(",")' 'UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES'
	assert_jq 'st(5).errno' 'null'
}

@test "userfaultfd features=sigbus: touching a missing registered page raises SIGBUS, which fault expects" {
	need_feature userfaultfd
	run_json -e 'mmap dst at=carveout+1p len=1p' -e 'userfaultfd action=api features=sigbus' \
		-e 'userfaultfd dst' -e 'fault dst signal=SIGBUS' -e 'fault dst access=read signal=SIGBUS' \
		-e 'userfaultfd dst action=zeropage' -e 'fault dst access=read'
	assert_success
	assert_jq 'st(1).args.features | join(",")' 'UFFD_FEATURE_SIGBUS'
	assert_jq 'st(3).signal.name' 'SIGBUS'
	assert_jq 'st(3).signal.rel' 'carveout+1p'
	assert_jq 'st(6).signal' 'null'
	# without a fault step expecting it, the SIGBUS fails the scenario
	run_json -e 'mmap dst at=carveout+1p len=1p' -e 'userfaultfd action=api features=sigbus' \
		-e 'userfaultfd dst' -e 'fault dst'
	assert_equal "$status" 1
	assert_jq 'st(3).signal.name' 'SIGBUS'
}

@test "userfaultfd api twice: the kernel refuses the second with EINVAL; wake, unregister and continue reach the kernel" {
	need_feature userfaultfd
	run_json -e 'mmap a at=carveout+1p len=1p' -e 'userfaultfd action=api' -e 'userfaultfd action=api errno=EINVAL' \
		-e 'userfaultfd a' -e 'userfaultfd a action=wake' \
		-e 'userfaultfd a action=continue errno=EINVAL' -e 'userfaultfd a action=unregister' -e 'fault a'
	assert_success
	assert_jq 'st(4).ret' '0'
	assert_jq 'st(5).errno' 'EINVAL'
}

@test "userfaultfd: wrong fields for the action and unknown names are scenario errors naming step and field" {
	invalid() {
		local want="$1"
		shift
		run_json "$@"
		assert_equal "$status" 2
		assert_nothing_ran
		assert_msg "$want"
	}
	invalid "-e:1: userfaultfd: features: unknown userfaultfd feature 'sigbsu' (did you mean 'UFFD_FEATURE_SIGBUS'?)" \
		-e 'userfaultfd action=api features=sigbsu'
	invalid "-e:1: userfaultfd: at: action api takes no range" -e 'userfaultfd action=api at=carveout len=1p'
	invalid "-e:2: userfaultfd: from: required by action copy" -e 'mmap a at=carveout len=1p' -e 'userfaultfd a action=copy'
	invalid "-e:2: userfaultfd: from: only for actions copy and move" -e 'mmap a at=carveout len=1p' \
		-e 'userfaultfd a action=zeropage from=a'
	invalid "-e:2: userfaultfd: flags: only for actions copy, zeropage, move and continue" \
		-e 'mmap a at=carveout len=1p' -e 'userfaultfd a flags=dontwake'
	invalid "-e:2: userfaultfd: flags: unknown userfaultfd copy flag 'allow_src_holes'" \
		-e 'mmap a at=carveout len=1p' -e 'userfaultfd a action=copy from=a flags=allow_src_holes'
	invalid "-e:2: userfaultfd: features: only for action api" -e 'mmap a at=carveout len=1p' -e 'userfaultfd a features=sigbus'
	invalid "-e:2: userfaultfd: mode: only for action register" -e 'mmap a at=carveout len=1p' -e 'userfaultfd a action=wake mode=wp'
	invalid "-e:1: userfaultfd: action: expected one of: register, unregister, api, copy, zeropage, move, wake, continue" \
		-e 'userfaultfd action=cpy at=carveout len=1p'
	# the JSON form names the step index
	steps_scen bad.json '{"op": "userfaultfd", "action": "api", "features": ["sigbus", "mvoe"]}'
	run_json "$S"
	assert_equal "$status" 2
	assert_msg "$S: step 0 (userfaultfd): features: unknown userfaultfd feature 'mvoe' (did you mean 'UFFD_FEATURE_MOVE'?)"
}

@test "userfaultfd: every UFFD_FEATURE_* name of Linux 7.2 is known, plus the short wp" {
	run_ar names -s uffd-features
	assert_success
	assert_equal "$(sort <<<"$output" | tr '\n' ' ')" "$(printf '%s\n' PAGEFAULT_FLAG_WP EVENT_FORK EVENT_REMAP \
		EVENT_REMOVE MISSING_HUGETLBFS MISSING_SHMEM EVENT_UNMAP SIGBUS THREAD_ID MINOR_HUGETLBFS MINOR_SHMEM \
		EXACT_ADDRESS WP_HUGETLBFS_SHMEM WP_UNPOPULATED POISON WP_ASYNC MOVE WP | sort | tr '\n' ' ')"
	steps_scen f.json '{"op": "userfaultfd", "action": "api", "features": ["wp", "missing_shmem", "UFFD_FEATURE_MOVE", "sigbus"]}'
	run_ar check -j "$S"
	assert_success
}

@test "userfaultfd continue maps a shmem page that is in the page cache but not in the page table (minor fault)" {
	need_feature userfaultfd
	run_json -e 'mmap sh at=carveout+1p len=2p file=memfd flags=shared,fixed' -e 'fault sh len=2p pattern=5' \
		-e 'madvise sh advice=dontneed' -e 'expect faulted=false at=sh len=2p' \
		-e 'userfaultfd action=api features=minor_shmem' -e 'userfaultfd sh mode=minor' \
		-e 'userfaultfd sh action=continue' -e 'expect faulted=true at=sh len=2p' -e 'verify sh pattern=5'
	assert_success
	assert_jq 'st(5).args.mode | join(",")' 'UFFDIO_REGISTER_MODE_MINOR'
	assert_jq 'st(6).args.action' 'continue'
	assert_jq 'st(6).ret' '8192'
}

@test "process_madvise: one advice over several ranges; text form vec=A:L,A:L; pidfd self or open; outside the reserved area refused" {
	need_feature guard_regions
	run_json -e 'mmap a at=carveout+1p len=10p prot=rw' \
		-e 'process_madvise vec=a:1p,a+9p:1p advice=guard_install ret=2p' \
		-e 'fault at=a+9p access=read signal=SIGSEGV' -e 'fault at=a+1p' \
		-e 'process_madvise vec=a:1p,a+9p:1p advice=guard_remove pidfd=open ret=2p' -e 'fault at=a+9p'
	assert_success
	assert_jq 'st(1).args.vec | map("\(.addr_rel):\(.len)") | join(",")' 'carveout+1p:4096,carveout+10p:4096'
	assert_jq 'st(1).args.pidfd' 'self'
	assert_jq 'st(4).args.pidfd' 'open'
	assert_jq 'st(1).args.advice' 'MADV_GUARD_INSTALL'
	# the JSON the text form stands for
	assert_jq 'sc.scenario.steps[1].vec | @json' '[["a","1p"],["a+9p","1p"]]'
	# a range that leaves the reserved area runs nothing: refused before the
	# run where the check can tell, else when the step comes
	run_json -e 'process_madvise vec=carveout:1p,carveout-0x10000000000:1p advice=dontneed'
	assert_failure 2
	[[ "$stderr" == *'process_madvise: vec: range leaves the reserved area'* ]] || fail "$stderr"
	run_json -e 'mmap a len=2p' -e 'process_madvise vec=a:1p,a-0x10000000000:1p advice=dontneed'
	assert_failure 3
	assert_jq 'sc.reason' "step 1 (process_madvise): vec: the range leaves region 'a', which the kernel placed outside the reserved area (use --allow-outside)"
	assert_jq 'st(1).ret' 'null'
}

@test "process_madvise: vec not 1 to 8 ranges of [address, length] is a scenario error naming step and field" {
	local v
	for v in '[]' '[["carveout"]]' '[["carveout", "zz"]]' '"carveout"' \
		'[["carveout","1p"],["carveout","1p"],["carveout","1p"],["carveout","1p"],["carveout","1p"],["carveout","1p"],["carveout","1p"],["carveout","1p"],["carveout","1p"]]'; do
		steps_scen s.json "{\"op\": \"process_madvise\", \"vec\": $v, \"advice\": \"dontneed\"}"
		run_ar check "$S"
		assert_failure 2
		[[ "$stderr" == *'step 0 (process_madvise): vec: '* ]] || fail "$v: $stderr"
	done
	steps_scen s.json '{"op": "process_madvise", "vec": [["carveout", "1p"]]}'
	run_ar check "$S"
	assert_failure 2
	[[ "$stderr" == *'advice'* ]] || fail "$stderr"
}
