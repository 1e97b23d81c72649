# SPDX-License-Identifier: GPL-2.0-or-later
# The test points of the VM checks (check-relocate.sh, check-lava.sh), sourced:
# TAP lines on stdout, counted in $pass and $fail; the check ends with
#   echo "$pass passed, $fail failed"
# which scripts/check.sh adds to its totals.
i=0 pass=0 fail=0
ok() { i=$((i + 1)); pass=$((pass + 1)); echo "ok $i $*"; }
notok() { i=$((i + 1)); fail=$((fail + 1)); echo "not ok $i $*"; }
check() { # DESCRIPTION COMMAND...: one test point
	_desc=$1
	shift
	if "$@"; then ok "$_desc"; else notok "$_desc"; fi
}
diag() { sed 's/^/# /' "$@"; }
