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
	run sh "$VM" --debian 6.1 --thp sometimes -- run x
	assert_failure 2
	assert_output --partial "--thp: always, madvise or never, not 'sometimes'"
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

@test "anonremap-vm --initrd: with ARGS or --exec is a usage error" {
	run sh "$VM" --debian 6.1 --initrd "$BATS_TEST_TMPDIR/i.gz" -- run x
	assert_failure 2
	assert_output --partial '--initrd FILE gives a console shell: no ARGS, no --exec'
	run sh "$VM" --debian 6.1 --initrd "$BATS_TEST_TMPDIR/i.gz" --exec /bin/true
	assert_failure 2
	assert_output --partial 'no ARGS, no --exec'
	run sh "$VM" --debian 6.1 --initrd "$BATS_TEST_TMPDIR/nodir/i.gz"
	assert_failure 2
	assert_output --partial "--initrd: no directory"
}

@test "anonremap-vm --initrd FILE: writes the initramfs (with --ksm and --thp), boots nothing, prints the image" {
	command -v cpio >/dev/null || skip "no cpio (scripts/setup-vm.sh)"
	[ -x /bin/busybox ] || [ -x /usr/bin/busybox ] || skip "no busybox (scripts/setup-vm.sh)"
	printf 'not a kernel' >"$BATS_TEST_TMPDIR/bzImage"
	mkdir -p "$BATS_TEST_TMPDIR/tree/sub"
	printf 'anonremap:x\n' >"$BATS_TEST_TMPDIR/tree/sub/kselftest-list.txt"
	run --separate-stderr sh "$VM" --kernel "$BATS_TEST_TMPDIR/bzImage" --anonremap "$AR" \
		--tree "$BATS_TEST_TMPDIR/tree" --ksm --thp never --initrd "$BATS_TEST_TMPDIR/initrd.gz"
	assert_success
	assert_output "$BATS_TEST_TMPDIR/bzImage"
	[[ $stderr == *"wrote $BATS_TEST_TMPDIR/initrd.gz"* ]]
	x="$BATS_TEST_TMPDIR/x"
	mkdir -p "$x"
	(cd "$x" && gzip -dc "$BATS_TEST_TMPDIR/initrd.gz" | cpio -i -d --quiet)
	[ -x "$x/usr/bin/anonremap" ] && [ -x "$x/bin/busybox" ]
	[ "$(cat "$x/usr/libexec/anonremap-vm/tree/sub/kselftest-list.txt")" = anonremap:x ]
	grep -qx 'CONSOLE_SHELL=1' "$x/etc/vm.conf"
	# --ksm: ksmd is started before the shell (check-relocate boots it for real)
	grep -qx 'KSM=1' "$x/etc/vm.conf"
	grep -q 'echo 1 >/sys/kernel/mm/ksm/run' "$x/init"
	grep -qx 'THP_MODE=never' "$x/etc/vm.conf"
	grep -q "exec setsid cttyhack sh" "$x/init"
	grep -q "export PS1='/ # '" "$x/init"
}
