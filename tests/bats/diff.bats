#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Differential test: the same mmap/munmap/mprotect/fault/mremap sequences as
# anonremap scenarios and as raw system calls (tests/diff/seqrun, a carveout
# made as merge.c makes it). On one live kernel both must end with the same
# errnos, signals and VMAs: a difference is anonremap falsifying the setup
# (as MAP_NORESERVE on its carveout did, issue 18). DIFF_SEED replays a run;
# DIFF_N sets how many sequences (default 60).

load helper

setup_file() {
	export SEQRUN="${TOP_BUILDDIR:-$BATS_TEST_DIRNAME/../..}/tests/diff/seqrun"
	export DIFFRUN="${TOP_SRCDIR:-$BATS_TEST_DIRNAME/../..}/tests/diff/diffrun.py"
	# make check builds it (a check program); a bare bats run may not have
	[[ -x "$SEQRUN" ]] || make -s -C "$(dirname "$SEQRUN")/../.." tests/diff/seqrun >&2
}

@test "seqrun: the issue's smallest case is one VMA, and anonremap agrees" {
	# mmap carveout+3p..+6p rw, then mprotect the filler below it rw: with
	# merge.c's carveout the filler gets VM_ACCOUNT and the two merge.
	run --separate-stderr "$SEQRUN" <<<$'mmap 3 3 rw\nmprotect 0 3 rw'
	assert_success
	assert_line 'step 0 ret=0 errno=0 signal=0 page=-'
	assert_line 'step 1 ret=0 errno=0 signal=0 page=-'
	assert_line 'vma carveout..carveout+6p rw-p'
	run_json -e 'mmap a at=carveout+3p len=3p prot=rw' -e 'mprotect at=carveout len=3p prot=rw' -e dump
	assert_success
	assert_jq '[vmas[] | select(.perms == "rw-p") | .rel] | join(" ")' 'carveout..carveout+6p'
}

@test "seqrun: errno and the page a fault's signal hit are reported" {
	run --separate-stderr "$SEQRUN" <<<$'munmap 0 0\nfault 2 3 w\nmmap 5 1 r\nfault 5 1 w\nfault 5 1 r'
	assert_success
	assert_line 'step 0 ret=-1 errno=22 signal=0 page=-'
	assert_line 'step 1 ret=-1 errno=0 signal=11 page=2'
	assert_line 'step 3 ret=-1 errno=0 signal=11 page=5'
	assert_line 'step 4 ret=0 errno=0 signal=0 page=-'
	assert_line 'vma carveout+5p..carveout+6p r--p'
}

@test "random sequences: anonremap and raw system calls end the same" {
	local seed="${DIFF_SEED:-$(( $(date +%s%N) % 1000000007 ))}" n="${DIFF_N:-60}"
	mkdir -p "$BATS_TEST_TMPDIR/seqs"
	echo "# diff: DIFF_SEED=$seed DIFF_N=$n" >&3
	run python3 "$DIFFRUN" "$SEQRUN" "$AR" "$BATS_TEST_TMPDIR/seqs" "$n" "$seed"
	echo "# ${lines[-1]}" >&3
	assert_success
	assert_line --regexp "^diff: $n sequences from seed $seed .*: 0 differ$"
}
