#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/anonremap-vm and scripts/xray-kmod.sh: what can be checked without
# booting a guest (make check-vm boots them: tests/vm/check-vm.sh). Usage
# errors are exit 2 and say what is wrong; a module that cannot be built is
# exit 2 with the reason.

load helper

SRC="${TOP_SRCDIR:-$BATS_TEST_DIRNAME/../..}"
VM="$SRC/scripts/anonremap-vm"
KMOD="$SRC/scripts/xray-kmod.sh"

@test "anonremap-vm --help: the x-ray, swap and kernel-report options, and exit 5" {
	run sh "$VM" --help
	assert_success
	assert_output --partial '--xray'
	assert_output --partial '--kdir DIR'
	assert_output --partial '--swap SIZE'
	assert_output --partial '--no-swap'
	assert_output --partial '--allow-splat REGEX'
	assert_output --partial 'unless: 5 the guest'
	assert_output --partial "stress's --out DIR"
}

@test "anonremap-vm: bad --swap, --kdir without --xray or with --debian are usage errors" {
	run sh "$VM" --debian 6.1 --swap lots -- run x
	assert_failure 2
	assert_output --partial "--swap: a size such as 256M, not 'lots'"
	run sh "$VM" --kernel /dev/null --kdir /tmp -- run x
	assert_failure 2
	assert_output --partial '--kdir goes with --xray'
	run sh "$VM" --debian 6.1 --xray --kdir /tmp -- run x
	assert_failure 2
	assert_output --partial '--kdir goes with --kernel'
}

@test "anonremap-vm --xray --kernel IMAGE outside a kernel tree: asks for --kdir (exit 2)" {
	command -v "${QEMU:-qemu-system-x86_64}" >/dev/null || skip "no QEMU (scripts/setup-vm.sh)"
	printf 'not a kernel' >"$BATS_TEST_TMPDIR/bzImage"
	run sh "$VM" --kernel "$BATS_TEST_TMPDIR/bzImage" --xray --anonremap "$AR" -- run x
	assert_failure 2
	assert_output --partial 'give the kernel'"'"'s built tree with --kdir DIR'
}

@test "xray-kmod.sh: no kernel tree is exit 2 with the reason, before anything is built" {
	run sh "$KMOD"
	assert_failure 2
	assert_output --partial 'give --debian VERSION or --kdir DIR'
	run sh "$KMOD" --kdir "$BATS_TEST_TMPDIR/none"
	assert_failure 2
	assert_output --partial "no directory"
	run sh "$KMOD" --kdir "$BATS_TEST_TMPDIR"
	assert_failure 2
	assert_output --partial 'is not a configured kernel tree'
	run sh "$KMOD" --debian 6.1 --kdir /tmp
	assert_failure 2
}
