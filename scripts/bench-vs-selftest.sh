#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench against the kernel's own numbers (issue 22, goal 1): Linux 7.2's
# mremap_test, built from Debian's linux-source package as check-upstream.sh
# builds it, and 'anonremap bench --preset mremap_test', run alternately in
# the same session. Prints, for each of mremap_test's three 1 GiB perf cases
# (PTE, PMD and PUD placement), the median mremap time of each side over the
# rounds and their ratio. It measures; it asserts nothing about speed.
#
#   scripts/bench-vs-selftest.sh [-r ROUNDS] [-t THRESHOLD_MB]
#
#   -r ROUNDS   rounds, each one run of mremap_test and one of bench -r 1,
#               in turns (odd rounds the selftest first) (default 5)
#   -t MB       mremap_test's -t, how much of each region it fills and
#               verifies (default 1024, the least that runs its perf cases)
#
#   ANONREMAP       the binary (default ./anonremap)
#   UPSTREAM_PKG    (default linux-source-7.2), UPSTREAM_SUITE (unstable),
#   CACHE           (default ${XDG_CACHE_HOME:-$HOME/.cache}/anonremap/upstream):
#                   as check-upstream.sh, whose unpacked sources are shared
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
AR=${ANONREMAP:-$top/anonremap}
PKG=${UPSTREAM_PKG:-linux-source-7.2}
SUITE=${UPSTREAM_SUITE:-unstable}
CACHE=${CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/anonremap/upstream}
rounds=5 thr=1024

die() {
	echo "bench-vs-selftest: $*" >&2
	exit 2
}
while getopts r:t:h o; do
	case $o in
	r) rounds=$OPTARG ;;
	t) thr=$OPTARG ;;
	*) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "-r: '$rounds' is not a positive number"
[[ $thr =~ ^[0-9]+$ ]] && [ "$thr" -ge 1024 ] || die "-t: '$thr' is below 1024, where mremap_test skips its perf cases"
[ -x "$AR" ] || die "no $AR: build first (sh scripts/build.sh)"
[ "$(id -u)" -eq 0 ] || die "needs root, as check-upstream.sh does (apt-get download into a private state)"

mkdir -p "$CACHE/lists/partial" "$CACHE/archives/partial"
# shellcheck source=scripts/apt-private.sh
. "$top/scripts/apt-private.sh"
# shellcheck source=scripts/selftest-build.sh
. "$top/scripts/selftest-build.sh"
src=$(selftest_unpack "$CACHE" "$SUITE" "$PKG")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
selftest_build "$src" "$tmp" mremap_test

# One round's samples, one "SIDE CASE NS" a line. mremap_test prints a perf
# case as "ok N 1GB mremap - Source PTE-aligned, Destination PTE-aligned"
# and, on the next line, "<tab>mremap time:  NNNns".
selftest_once() {
	"$tmp/mremap_test" -t "$thr" >"$tmp/st.out" 2>&1 || true
	awk '/^ok [0-9]+ 1GB mremap - Source (PTE|PMD|PUD)-aligned, Destination/ {
		c = $0; sub(/.*Source /, "", c); sub(/-aligned.*/, "", c); want = tolower(c); next }
	want != "" && /mremap time:/ { t = $0; gsub(/[^0-9]/, "", t); print "selftest", want, t; want = "" }
	{ want = "" }' "$tmp/st.out"
}
bench_once() {
	"$AR" bench --preset mremap_test -r 1 -f json >"$tmp/b.json" || die "bench failed: $(cat "$tmp/b.json")"
	jq -r '.points[] | select(.supported) | "bench \(.align) \(.median_ns)"' "$tmp/b.json"
}

: >"$tmp/samples"
for r in $(seq "$rounds"); do
	if [ $((r % 2)) -eq 1 ]; then
		selftest_once >>"$tmp/samples"
		bench_once >>"$tmp/samples"
	else
		bench_once >>"$tmp/samples"
		selftest_once >>"$tmp/samples"
	fi
done

median() { # SIDE CASE: the median of that side's samples, in ns, or "-"
	awk -v s="$1" -v c="$2" '$1 == s && $2 == c { print $3 }' "$tmp/samples" | sort -n |
		awk '{ v[NR] = $1 } END { if (!NR) print "-"; else if (NR % 2) print v[(NR + 1) / 2];
			else printf "%d\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
echo "mremap_test -t $thr (Linux ${PKG#linux-source-}) against anonremap bench --preset mremap_test"
echo "on $(uname -r), $rounds rounds, medians"
echo
printf '| %-9s | %-16s | %-22s | %-6s |\n' alignment mremap_test 'bench -P mremap_test' ratio
printf '| %-9s | %-16s | %-22s | %-6s |\n' --- --- --- ---
for c in pte pmd pud; do
	s=$(median selftest "$c") b=$(median bench "$c")
	ratio=-
	[ "$s" != - ] && [ "$b" != - ] && [ "$s" -gt 0 ] && ratio=$(awk -v b="$b" -v s="$s" 'BEGIN { printf "%.2fx", b / s }')
	fmt() { [ "$1" = - ] && echo - || awk -v n="$1" 'BEGIN { if (n >= 1e6) printf "%.2f ms", n / 1e6; else printf "%.1f us", n / 1e3 }'; }
	printf '| %-9s | %-16s | %-22s | %-6s |\n' "${c^^}" "$(fmt "$s")" "$(fmt "$b")" "$ratio"
done
