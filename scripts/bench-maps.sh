#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark 'anonremap maps PID' on a process with vm.max_map_count VMAs
# (issue 3): against 'pmap -X PID' and a plain read of /proc/PID/maps.
#
#   scripts/bench-maps.sh [-n VMAS] [-r RUNS] [-j FILE]
#
#   -n VMAS   VMAs in the target process (default: vm.max_map_count)
#   -r RUNS   timed runs per command (default 7); the table shows medians
#   -j FILE   also keep hyperfine's JSON export in FILE
#
# First checks that 'anonremap maps' lists exactly the VMAs /proc/PID/maps
# lists: the maps_line of every VMA, in order, against the file, for the
# default read of the file, for PROCMAP_QUERY (-Q) and for -M. Exit status: 0 done,
# 1 a listing differs, 2 usage or a missing tool. A missed goal is reported,
# not an error: timings depend on the machine.
# ANONREMAP=path picks the binary (default: the one in the top directory).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
AR=${ANONREMAP:-$top/anonremap}
vmas=
runs=7
export_json=

while getopts n:r:j:h o; do
	case $o in
	n) vmas=$OPTARG ;;
	r) runs=$OPTARG ;;
	j) export_json=$OPTARG ;;
	*) sed -n '3,18s/^# \{0,1\}//p' "$0"; [ "$o" = h ]; exit 2 ;;
	esac
done

need() { # command package
	command -v "$1" >/dev/null 2>&1 && return 0
	echo "bench-maps: '$1' is missing: apt-get install -y $2" >&2
	exit 2
}
need hyperfine hyperfine
need jq jq
need pmap procps
need gcc gcc
[ -x "$AR" ] || { echo "bench-maps: $AR is not built (make -j2)" >&2; exit 2; }

tmp=$(mktemp -d)
mvpid=
# shellcheck disable=SC2317 # run by the trap
cleanup() {
	exec 9>&- 2>/dev/null || true
	[ -n "$mvpid" ] && { kill "$mvpid" 2>/dev/null || true; wait "$mvpid" 2>/dev/null || true; }
	rm -rf "$tmp"
}
trap cleanup EXIT

gcc -O2 -Wall -o "$tmp/many-vmas" "$top/tests/bench/many-vmas.c"
mkfifo "$tmp/hold"
# shellcheck disable=SC2086
"$tmp/many-vmas" $vmas <"$tmp/hold" >"$tmp/mv.out" &
mvpid=$!
exec 9>"$tmp/hold" # many-vmas waits until this closes
for _ in $(seq 600); do
	[ -s "$tmp/mv.out" ] && break
	kill -0 "$mvpid" 2>/dev/null || { echo "bench-maps: many-vmas failed" >&2; exit 2; }
	sleep 0.1
done
read -r pid count <"$tmp/mv.out"
echo "target: pid $pid, $count VMAs in /proc/$pid/maps (vm.max_map_count $(cat /proc/sys/vm/max_map_count))"
echo "anonremap: $AR ($("$AR" --version 2>/dev/null | head -1)), kernel $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"

# Correctness: the same VMAs, in order, each maps_line equal to the kernel's.
bad=0
check() { # label anonremap-args...
	local label=$1
	shift
	"$AR" "$@" "$pid" >"$tmp/out.json"
	jq -r '.vmas[].maps_line' "$tmp/out.json" >"$tmp/ours"
	cat "/proc/$pid/maps" >"$tmp/theirs"
	local n
	n=$(jq '.vma_count' "$tmp/out.json")
	if cmp -s "$tmp/ours" "$tmp/theirs"; then
		echo "check $label: $n VMAs, identical to /proc/$pid/maps"
	else
		echo "check $label: DIFFERS from /proc/$pid/maps ($n VMAs against $(wc -l <"$tmp/theirs")):"
		diff "$tmp/theirs" "$tmp/ours" | head -10
		bad=1
	fi
}
check "maps" maps
check "maps -S -P" maps --no-smaps --no-pagemap
check "maps -Q -S -P" maps --procmap-query --no-smaps --no-pagemap
check "-M maps -S -P" --maps-parse maps --no-smaps --no-pagemap

if [ -x /usr/bin/time ]; then
	/usr/bin/time -f '%M' -o "$tmp/rss" "$AR" maps "$pid" >/dev/null
	echo "peak RSS of 'anonremap maps $pid': $(($(cat "$tmp/rss") / 1024)) MiB (output $(($(stat -c %s "$tmp/out.json") / 1024)) KiB without smaps/pagemap)"
fi

# Timings. Output goes to /dev/null (hyperfine -N discards it).
cmds=(
	"cat /proc/$pid/maps"
	"$AR maps --no-smaps --no-pagemap $pid"
	"$AR maps $pid"
	"pmap -X $pid"
	"$AR maps --procmap-query --no-smaps --no-pagemap $pid"
	"cat /proc/$pid/smaps"
)
labels=(
	"cat /proc/PID/maps"
	"anonremap maps -S -P PID"
	"anonremap maps PID"
	"pmap -X PID"
	"anonremap maps -Q -S -P PID"
	"cat /proc/PID/smaps"
)
json=${export_json:-$tmp/hyperfine.json}
hyperfine -N -w 1 -r "$runs" --export-json "$json" "${cmds[@]}" >/dev/null 2>"$tmp/hyperfine.err" ||
	{ cat "$tmp/hyperfine.err" >&2; exit 2; }

echo
echo "median of $runs runs, $count VMAs; cpu = user+sys (mean)"
printf '%-28s %10s %10s %9s %9s\n' command "wall ms" "cpu ms" "x cat" "x pmap"
base=$(jq '.results[0].median' "$json")
pm=$(jq '.results[3].median' "$json")
for i in "${!cmds[@]}"; do
	jq -r --arg l "${labels[$i]}" --argjson i "$i" --argjson b "$base" --argjson p "$pm" \
		'.results[$i] | [$l, (.median*1000), ((.user+.system)*1000), (.median/$b), (.median/$p)]
		 | @tsv' "$json" |
		awk -F'\t' '{ printf "%-28s %10.1f %10.1f %9.1f %9.2f\n", $1, $2, $3, $4, $5 }'
done

full=$(jq '.results[2].median' "$json")
lite=$(jq '.results[1].median' "$json")
echo
goal() { # description condition
	if awk "BEGIN { exit !($2) }"; then echo "goal met:    $1"; else echo "goal missed: $1"; fi
}
goal "anonremap maps well ahead of pmap -X (< 0.5x): $(awk "BEGIN{printf \"%.2fx\", $full/$pm}")" "$full < 0.5 * $pm"
goal "anonremap maps well under a second (< 0.5 s): $(awk "BEGIN{printf \"%.3f s\", $full}")" "$full < 0.5"
goal "maps -S -P within twice the plain read (<= 2x): $(awk "BEGIN{printf \"%.1fx\", $lite/$base}")" "$lite <= 2 * $base"
exit $bad
