#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Quick start 2: set everything up, build, and pass the whole test suite:
# C unit tests, the Bats suite against the live kernel, the same suite under
# ASan+UBSan, then 'make distcheck', then 'make check-deb' (the Debian
# packages built, linted and used from a clean tree), then 'make check-vm' (the quick library
# in Debian's 6.1 kernel under QEMU), then 'make check-relocate' (Linux 7.2
# with the project's port of the relocate series, built and cached, under
# QEMU), then 'make check-lava' (the LAVA test definition under Debian's
# lava-dispatcher, on 6.1 and the relocate kernel). FAST=1 skips distcheck
# and the VMs; NO_VM=1 skips the VMs only; RELOCATE=0 skips check-relocate
# only; LAVA=0 skips check-lava only.
set -eu
cd "$(dirname "$0")/.."
sh scripts/build.sh
status=0
vm_counts() { # LOG: add a VM check's "N passed, M failed" to the totals
	vm=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$1" | tail -n 1 || true)
	if [ -n "$vm" ]; then
		pass=$((pass + ${vm%% passed*}))
		vf=${vm#*, }
		fail=$((fail + ${vf%% failed}))
	fi
}
make -s check -j1 || status=$?
# Per-test counts from the Bats TAP logs and the unit test logs.
pass=$(cat tests/unit/*.log tests/bats/*.log tests/*.log 2>/dev/null | grep -c '^ok ' || true)
fail=$(cat tests/unit/*.log tests/bats/*.log tests/*.log 2>/dev/null | grep -c '^not ok ' || true)
if [ "$status" -ne 0 ]; then
	cat test-suite.log >&2 || true
fi
if [ "$status" -eq 0 ] && [ "${FAST:-0}" != 1 ]; then
	make -s distcheck >distcheck.log 2>&1 || { status=$?; tail -50 distcheck.log >&2; }
fi
if [ "$status" -eq 0 ] && [ "${FAST:-0}" != 1 ]; then
	make -s check-deb >check-deb.log 2>&1 || { status=$?; cat check-deb.log >&2; }
fi
if [ "$status" -eq 0 ] && [ "${FAST:-0}" != 1 ] && [ "${NO_VM:-0}" != 1 ]; then
	make -s check-vm >check-vm.log 2>&1 || { status=$?; cat check-vm.log >&2; }
	vm_counts check-vm.log
fi
if [ "$status" -eq 0 ] && [ "${FAST:-0}" != 1 ] && [ "${NO_VM:-0}" != 1 ] && [ "${RELOCATE:-1}" = 1 ]; then
	make -s check-relocate >check-relocate.log 2>&1 || { status=$?; cat check-relocate.log >&2; }
	vm_counts check-relocate.log
fi
if [ "$status" -eq 0 ] && [ "${FAST:-0}" != 1 ] && [ "${NO_VM:-0}" != 1 ] && [ "${LAVA:-1}" = 1 ]; then
	make -s check-lava >check-lava.log 2>&1 || { status=$?; cat check-lava.log >&2; }
	vm_counts check-lava.log
fi
echo "$pass passed, $fail failed"
exit "$status"
