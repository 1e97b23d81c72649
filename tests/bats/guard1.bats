#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# guard-regions.c (Linux 7.2.13; 7.3's file was not at hand), anonymous
# variant, first half: each scenario translated from the selftest reaches
# the selftest's verdict on the live kernel. The C selftest passes these
# cases on Linux 6.18 (guard_regions.anon.NAME: ok), so each scenario must
# pass; a kernel without guard regions makes both skip.

load helper

@test "guard_regions_basic: single and ranged guards fault, removal restores access and keeps the data" {
	guard_case basic
	# page 0 once, page 0 and 9, then the 3-page range (one step)
	assert_jq '[sc.steps[] | select(.signal.name == "SIGSEGV")] | length' '4'
}

@test "guard_regions_munmap: mappings over unmapped guarded pages are not guarded" {
	guard_case munmap
	assert_jq '[sc.steps[] | select(.signal.name == "SIGSEGV")] | length' '2'
}
