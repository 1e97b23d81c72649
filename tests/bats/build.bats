#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The build: configure's header checks, compat definitions, --help/--version.

load helper

top() { echo "${TOP_BUILDDIR:-$BATS_TEST_DIRNAME/../..}"; }

@test "configure recorded which kernel constants the headers lack" {
	cfg="$(top)/config.h"
	[ -f "$cfg" ] || skip "no config.h in $(top)"
	for d in PROCMAP_QUERY MREMAP_DONTUNMAP MREMAP_RELOCATE_ANON MREMAP_MUST_RELOCATE_ANON; do
		grep -q "define HAVE_DECL_$d [01]" "$cfg" || fail "config.h has no HAVE_DECL_$d"
	done
	# Debian 12's 6.1 headers: PROCMAP_QUERY and the relocate flags are missing
	if grep -q 'PROCMAP_QUERY' /usr/include/linux/fs.h; then
		grep -q 'define HAVE_DECL_PROCMAP_QUERY 1' "$cfg"
	else
		grep -q 'define HAVE_DECL_PROCMAP_QUERY 0' "$cfg"
	fi
}

@test "the compat values are the kernel's: relocate flags 8 and 16, DONTUNMAP 4" {
	run "$AR" names mremap-flags
	assert_success
	assert_line MREMAP_RELOCATE_ANON
	run "$AR" run -e 'mmap ptr at=carveout len=1p' -e 'mremap ptr flags=0x4 errno=EINVAL' \
		-e 'mremap ptr flags=8 to=carveout+4p errno=EINVAL' -e 'mremap ptr flags=must_relocate_anon errno=EINVAL'
	assert_success
	# flags are printed back by name from the value given as a number
	run_json -e 'mmap ptr at=carveout len=1p' -e 'mremap ptr flags=0x18 may_fail=true'
	assert_jq '.scenarios[0].steps[1].args.flags | join(",")' 'MREMAP_RELOCATE_ANON,MREMAP_MUST_RELOCATE_ANON'
}

@test "PROCMAP_QUERY is used on this kernel although the headers lack it" {
	run_json -e 'mmap ptr at=carveout len=1p' -e dump
	assert_success
	assert_jq '.scenarios[0].dumps[0].source' procmap_query
	assert_jq '.kernel.features.procmap_query' true
}

@test "--version and --help of the tool and of every command" {
	run "$AR" --version
	assert_success
	assert_output --regexp '^anonremap [0-9]+\.[0-9]+\.[0-9]+'
	for c in $("$AR" names commands); do
		run "$AR" "$c" --help
		assert_success
		assert_output --partial "Usage: anonremap $c"
	done
}

@test "no command, or an unknown one, is a usage error (exit 2)" {
	run "$AR"
	assert_failure 2
	run "$AR" frobnicate
	assert_failure 2
	assert_output --partial "unknown command 'frobnicate'"
	run "$AR" run --bogus-option x
	assert_failure 2
}
