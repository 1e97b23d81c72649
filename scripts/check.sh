#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Quick start 2: set everything up, build, and pass the whole test suite:
# C unit tests, the Bats suite against the live kernel, the same suite under
# ASan+UBSan, and the man page lint; then 'make distcheck' unless FAST=1.
set -eu
cd "$(dirname "$0")/.."
sh scripts/build.sh
status=0
make -s check -j1 || status=$?
# Per-test counts from the Bats TAP logs and the unit test logs.
pass=$(cat tests/unit/*.log tests/bats/*.log tests/*.log 2>/dev/null | grep -c '^ok ' || true)
fail=$(cat tests/unit/*.log tests/bats/*.log tests/*.log 2>/dev/null | grep -c '^not ok ' || true)
if [ "$status" -ne 0 ]; then
	cat test-suite.log >&2 || true
fi
if [ "$status" -eq 0 ] && [ "${FAST:-0}" != 1 ]; then
	make -s distcheck >/dev/null || status=$?
fi
echo "$pass passed, $fail failed"
exit "$status"
