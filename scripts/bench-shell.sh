#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# How 'anonremap shell' scales with the length of a session (issue 19): a
# session of N steps (one mmap, then faults and mprotects of its pages) for
# each N given, its wall time, its time per step, and its peak RSS.
#
#   scripts/bench-shell.sh [-r RUNS] [N...]      (default N: 500 1000 2000 4000)
#
#   -r RUNS   timed runs per N (default 3); the table shows medians
#
# Each session must end with every step run (exit 0), or the script stops
# with exit 1. The last column is the time per step against the smallest
# N's: near 1 when a session costs its length, growing with N when it costs
# its square (as it did, 11 s for 2,000 steps). Exit 2: usage.
# ANONREMAP=path picks the binary (default: the one in the top directory).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
AR=${ANONREMAP:-$top/anonremap}
runs=3

while getopts r:h o; do
	case $o in
	r) runs=$OPTARG ;;
	*) sed -n '3,15s/^# \{0,1\}//p' "$0"; [ "$o" = h ]; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- 500 1000 2000 4000
for n in "$@" "$runs"; do
	case $n in '' | *[!0-9]* | 0) echo "bench-shell: not a positive number: '$n'" >&2; exit 2 ;; esac
done
[ -x "$AR" ] || { echo "bench-shell: no anonremap at $AR (make)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

session() { # N: the text-form session on stdout
	echo "carveout size=64p"
	echo "mmap a at=carveout+1p len=8p prot=rw"
	for ((i = 1; i < $1; i++)); do
		if ((i % 2)); then echo "fault a"; else echo "mprotect at=a len=1p prot=rw"; fi
	done
}

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

printf '%8s %10s %12s %10s %8s\n' steps "wall (s)" "per step (us)" "rss (KB)" ratio
base=""
for n in "$@"; do
	session "$n" >"$tmp/in"
	: >"$tmp/times"
	for ((r = 0; r < runs; r++)); do
		# wall time from bash's microsecond clock: time's %e has 10 ms
		# steps, and a short session takes less (0.00 made its ratio 0)
		t0=$EPOCHREALTIME
		if ! /usr/bin/time -f '%M' -o "$tmp/t" "$AR" shell -f json <"$tmp/in" >"$tmp/out" 2>"$tmp/err"; then
			echo "bench-shell: the session of $n steps failed: $(head -n 3 "$tmp/err")" >&2
			exit 1
		fi
		t1=$EPOCHREALTIME
		got=$(wc -l <"$tmp/out")
		[ "$got" -eq "$n" ] || { echo "bench-shell: $n steps given, $got results" >&2; exit 1; }
		echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }') $(cat "$tmp/t")" >>"$tmp/times"
	done
	wall=$(cut -d' ' -f1 "$tmp/times" | median)
	rss=$(cut -d' ' -f2 "$tmp/times" | median)
	per=$(awk -v w="$wall" -v n="$n" 'BEGIN { printf "%.1f", w * 1e6 / n }')
	[ -n "$base" ] || base=$per
	ratio=$(awk -v p="$per" -v b="$base" 'BEGIN { printf "%.2f", (b > 0 ? p / b : 0) }')
	printf '%8d %10s %12s %10s %8s\n' "$n" "$wall" "$per" "$rss" "$ratio"
done
