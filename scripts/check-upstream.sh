#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Cross-check the scenario library with the kernel's own selftests, built from
# Debian's linux-source package and run on this kernel. Prints a table,
# selftest by selftest: the selftest's verdict, anonremap's, and whether the
# scenario asserts the same VMA bounds. Exit 0 when every row agrees.
#
# The package is fetched with apt-get download under a private sources list
# and state directory (scripts/apt-private.sh: the archive is the one this
# machine's apt sources name): the system's apt configuration is left untouched.
#   UPSTREAM_PKG   (default linux-source-7.2)
#   UPSTREAM_SUITE (default unstable)
#   CACHE          (default ${XDG_CACHE_HOME:-$HOME/.cache}/anonremap/upstream)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
AR=${ANONREMAP:-$top/anonremap}
PKG=${UPSTREAM_PKG:-linux-source-7.2}
SUITE=${UPSTREAM_SUITE:-unstable}
CACHE=${CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/anonremap/upstream}
mkdir -p "$CACHE/lists/partial" "$CACHE/archives/partial" "$CACHE/build"

die() {
	echo "check-upstream: $*" >&2
	exit 2
}
# shellcheck source=scripts/apt-private.sh
. "$top/scripts/apt-private.sh"
# shellcheck source=scripts/selftest-build.sh
. "$top/scripts/selftest-build.sh"
src=$(selftest_unpack "$CACHE" "$SUITE" "$PKG")
mm="$src/tools/testing/selftests/mm"
tests="merge mremap_test mremap_dontunmap guard-regions madv_populate map_fixed_noreplace mlock2-tests mseal_test uffd-unit-tests mdwe_test"
# shellcheck disable=SC2086 # the tests, one a word
selftest_build "$src" "$CACHE/build" $tests

out="$CACHE/run"
mkdir -p "$out"
for t in $tests; do
	(cd "$CACHE/build" && timeout 600 "./$t" >"$out/$t.ktap" 2>&1) || true
done
# The whole library, slow cases included, as JSON.
"$AR" run -t 300 -k -o "$out/library.json" "$top"/scenarios/*.json || true
python3 "$top/scripts/upstream-table.py" --src "$mm" --selftests "$out" \
	--library "$out/library.json" --scenarios "$top/scenarios" --map "$top/tests/upstream-map.txt" \
	--binaries "$(echo "$tests" | tr ' ' ,)"
