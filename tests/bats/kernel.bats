#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The relocate kernel's tooling, without building or booting it (make
# check-relocate does both: tests/vm/check-relocate.sh): the archive address
# read from apt sources, relocate-kernel.sh's cache key and usage errors, the
# series' layout, and anonremap-vm --exec's usage errors.

load helper

SRC="${TOP_SRCDIR:-$BATS_TEST_DIRNAME/../..}"
RK="$SRC/scripts/relocate-kernel.sh"

archive() { # SOURCES-FILE... : what apt_archive_uri main and security print
	APT_SOURCES="$*" sh -c ". '$SRC/scripts/apt-private.sh'; die() { echo \"\$*\" >&2; exit 2; }
		apt_archive_uri main; apt_archive_uri security"
}

@test "apt-private: the archive comes from apt sources, deb822 and one-line alike" {
	code=$(. /etc/os-release && echo "$VERSION_CODENAME")
	printf 'Types: deb\nURIs: http://mirror.invalid/debian/\nSuites: %s %s-updates\nComponents: main\n\nTypes: deb\nURIs: http://sec.invalid/debian-security\nSuites: %s-security\nComponents: main\n' \
		"$code" "$code" "$code" >"$BATS_TEST_TMPDIR/a.sources"
	run archive "$BATS_TEST_TMPDIR/a.sources"
	assert_success
	assert_line --index 0 'http://mirror.invalid/debian'
	assert_line --index 1 'http://sec.invalid/debian-security'
	printf '# deb http://commented.invalid/debian %s main\ndeb [signed-by=/x.gpg] http://one.invalid/debian %s main\ndeb http://one.invalid/sec %s-security main\n' \
		"$code" "$code" "$code" >"$BATS_TEST_TMPDIR/b.list"
	run archive "$BATS_TEST_TMPDIR/b.list"
	assert_success
	assert_line --index 0 'http://one.invalid/debian'
	assert_line --index 1 'http://one.invalid/sec'
}

@test "apt-private: no suite of this release in the sources is an error that says so" {
	printf 'deb http://x.invalid/debian sid main\n' >"$BATS_TEST_TMPDIR/c.list"
	run archive "$BATS_TEST_TMPDIR/c.list"
	assert_failure 2
	assert_output --partial "suite in this machine's apt sources"
}

@test "apt-private: this machine's own sources name an archive, and no script names a host" {
	run archive /etc/apt/sources.list /etc/apt/sources.list.d/*
	assert_success
	assert_output --regexp '^https?://'
	for h in $(cat /etc/apt/sources.list /etc/apt/sources.list.d/* 2>/dev/null |
		grep -oE 'https?://[^/ ]+' | sed 's#.*://##' | sort -u); do
		run grep -rlF "$h" "$SRC/scripts" "$SRC/tests/vm" "$SRC/kernel"
		assert_failure
	done
}

@test "kernel/series names every patch in kernel/, in order, each crediting the RFC" {
	run sh -c "ls '$SRC'/kernel/*.patch | xargs -n1 basename"
	assert_success
	assert_equal "$output" "$(grep -v '^#' "$SRC/kernel/series")"
	for p in $(cat "$SRC/kernel/series"); do
		grep -q '^Originally-by: Lorenzo Stoakes' "$SRC/kernel/$p"
		grep -q '^Subject: \[PATCH' "$SRC/kernel/$p"
	done
}

@test "relocate-kernel.sh: usage errors are exit 2; a series naming a missing patch is refused" {
	run sh "$RK" --bogus
	assert_failure 2
	assert_output --partial "unknown argument '--bogus'"
	mkdir -p "$BATS_TEST_TMPDIR/k"
	cp "$SRC/kernel/config" "$BATS_TEST_TMPDIR/k/"
	echo 0099-missing.patch >"$BATS_TEST_TMPDIR/k/series"
	KERNEL_DIR="$BATS_TEST_TMPDIR/k" run sh "$RK" --key
	assert_failure 2
	assert_output --partial 'names 0099-missing.patch'
}

@test "relocate-kernel.sh --key: the same for the same inputs, another for a changed patch or config" {
	cp -r "$SRC/kernel" "$BATS_TEST_TMPDIR/k"
	KERNEL_DIR="$BATS_TEST_TMPDIR/k" run sh "$RK" --key
	assert_success
	k1=${lines[${#lines[@]}-1]}
	assert_regex "$k1" '^[0-9a-f]{16}$'
	run sh "$RK" --key
	assert_equal "${lines[${#lines[@]}-1]}" "$k1"
	p=$(head -n 1 "$BATS_TEST_TMPDIR/k/series")
	echo ' ' >>"$BATS_TEST_TMPDIR/k/$p"
	KERNEL_DIR="$BATS_TEST_TMPDIR/k" run sh "$RK" --key
	[ "${lines[${#lines[@]}-1]}" != "$k1" ]
	cp "$SRC/kernel/$p" "$BATS_TEST_TMPDIR/k/$p"
	echo 'CONFIG_KSM=y' >>"$BATS_TEST_TMPDIR/k/config"
	KERNEL_DIR="$BATS_TEST_TMPDIR/k" run sh "$RK" --key
	[ "${lines[${#lines[@]}-1]}" != "$k1" ]
}

@test "anonremap-vm --exec: a missing program is a usage error; with --exec no ARGS are needed" {
	command -v "${QEMU:-qemu-system-x86_64}" >/dev/null || skip "no QEMU (scripts/setup-vm.sh)"
	printf 'not a kernel' >"$BATS_TEST_TMPDIR/bzImage"
	run sh "$SRC/scripts/anonremap-vm" --kernel "$BATS_TEST_TMPDIR/bzImage" --anonremap "$ANONREMAP" \
		--exec "$BATS_TEST_TMPDIR/nothing"
	assert_failure 2
	assert_output --partial "--exec: no executable"
	run sh "$SRC/scripts/anonremap-vm" --help
	assert_output --partial '--exec PROGRAM'
}
