#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Run the whole scenario library as KTAP and print the pass, skip and fail
# counts. Scenarios tagged slow (1-2 GiB moves) and perf (timing cases) are
# left out unless --all is given. Other arguments go to 'anonremap run'.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
AR=${ANONREMAP:-$top/anonremap}
[ -x "$AR" ] || sh "$top/scripts/build.sh"
excl="-x slow -x perf"
if [ "${1:-}" = "--all" ]; then
	excl=""
	shift
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
status=0
# shellcheck disable=SC2086
"$AR" run -f ktap -t 300 $excl "$@" "$top"/scenarios/*.json >"$out" || status=$?
cat "$out"
pass=$(grep -c '^ok [0-9]* [^#]*$' "$out" || true)
skip=$(grep -c '^ok .*# SKIP' "$out" || true)
fail=$(grep -c '^not ok' "$out" || true)
echo "library: $pass pass, $skip skip, $fail fail (anonremap exit $status)"
[ "$fail" -eq 0 ] && [ "$status" -ne 2 ] && [ "$status" -ne 3 ]
