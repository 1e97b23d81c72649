#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Run the whole scenario library as KTAP and print the pass, skip and fail
# counts. Scenarios tagged slow (1-2 GiB moves) and perf (timing cases) are
# left out unless --all is given. Other arguments go to 'anonremap run'.
# A scenario tagged fails-without:FEATURE that fails on a kernel without
# FEATURE is a known failure: listed and counted, and not a failure of the
# run (exit 0 when every other scenario passes or skips).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
AR=${ANONREMAP:-$top/anonremap}
[ -x "$AR" ] || sh "$top/scripts/build.sh"
excl="-x slow -x perf"
if [ "${1:-}" = "--all" ]; then
	excl=""
	shift
fi
out=$(mktemp) res=$(mktemp)
trap 'rm -f "$out" "$res"' EXIT
status=0
# shellcheck disable=SC2086
"$AR" run -f json -o "$res" -t 300 $excl "$@" "$top"/scenarios/*.json || status=$?
"$AR" show -f ktap "$res" >"$out" || [ "$status" -ne 0 ]
cat "$out"
pass=$(grep -c '^ok [0-9]* [^#]*$' "$out" || true)
skip=$(grep -c '^ok .*# SKIP' "$out" || true)
fail=$(grep -c '^not ok' "$out" || true)
# Known failures (tests/known-failures.jq): a selftest's expectation that
# this kernel does not meet, as the C selftest does not; counted apart.
known=$(jq -r -f "$top/tests/known-failures.jq" "$res" 2>/dev/null || true)
unknown=$fail
for n in $known; do
	if awk -v n="$n" '$1 == "not" && $2 == "ok" && $4 == n && NF == 4 { f = 1 } END { exit !f }' "$out"; then
		unknown=$((unknown - 1))
		echo "# known failure on this kernel: $n"
	fi
done
echo "library: $pass pass, $skip skip, $unknown fail, $((fail - unknown)) known failures (anonremap exit $status)"
[ "$unknown" -eq 0 ] && [ "$status" -ne 2 ] && [ "$status" -ne 3 ]
