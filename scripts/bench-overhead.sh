#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# anonremap's own overhead (issue 9), against tests/bench/floor.c, a program
# that makes the seed library's system calls directly, as a selftest does.
#
#   scripts/bench-overhead.sh [-r RUNS] [-n MOVES] [-s STEPS] [-d DUMPS] [-e ROUNDS]
#                             [-k ROUNDS] [-F]
#
#   -r RUNS    hyperfine runs per command (default 20); medians are shown
#   -n MOVES   samples of the final mremap of mremap_unfaulted_to_faulted
#              (default 200)
#   -s STEPS   cheap steps in the per-step scenario (default 2000)
#   -d DUMPS   dumps in the per-dump scenario (default 100)
#   -e ROUNDS  rounds of (e), its seven measurements interleaved (default 7)
#   -k ROUNDS  rounds of (f), its commands alternating (default 10)
#   -F         (f) alone
#
# Prints each figure with the command that produced it:
#   (a) fixed cost of one scenario: 'anonremap run -e' of one mmap against a
#       tiny C program making the same mmap;
#   (b) cost of one step excluding its system call: a scenario of STEPS
#       'madvise advice=normal' steps against one of 1, minus the sum of
#       their duration_ns, divided by the extra steps;
#   (c) cost of one dump of a carveout with 20 VMAs: DUMPS dumps against none;
#   (d) the seed library (6 merge scenarios + 10 relocate ones, which skip on
#       a kernel without MREMAP_RELOCATE_ANON) against 'floor ROUNDS';
#       also the library with its dump steps taken out (what is left is
#       anonremap's own machinery: process, scenario process, IPC, JSON),
#       and the library against 'floor --inspect', which reads, raw, what
#       each of the scenarios' dumps reads.
#   (e) the duration_ns of the final mremap of mremap_unfaulted_to_faulted
#       (median of MOVES scenarios in one invocation) against
#       'floor --mremap MOVES'; also the same steps with no dump between
#       them, and two controls, the floor's loop with, before the timed
#       call, a pause as long as one dump (floor --mremap N --pause US), or
#       reading in-process what a dump reads (floor --mremap N --inspect):
#       a call after either costs more, in any program. And the floor with
#       each sample in a child, as the selftest harness runs tests (--fork),
#       with its parent writing 16 MiB before each fork (--pollute 16384), as
#       anonremap's own work between scenario processes does (its RSS is
#       about that): the caches a call finds warm are what it costs.
#   (f) the library against the kernel's own selftest binaries, Linux 7.2's
#       merge and mremap_test (built as check-upstream.sh builds them, from
#       relocate-kernel.sh's seed-patched tree in KERNEL_CACHE when there is
#       one, else from check-upstream.sh's CACHE): 'merge' against
#       'anonremap run -f ktap' of every scenario whose source is merge.c,
#       and 'mremap_test' (no -t) against 'anonremap run -f ktap -x perf' of
#       those from mremap_test.c (its perf_test_cases run only with -t 0 or
#       -t >= 1024); also each set as JSON, which takes the dumps KTAP does
#       not show. Each side's KTAP totals line; wall and CPU (user + system)
#       medians of ROUNDS rounds, one run of each command a round, in turn;
#       and the ratio library / selftest (goal: <= 1.5x the wall time).
# Exit status 0 unless something could not be measured; a missed goal is
# reported, not an error. ANONREMAP=path picks the binary.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
AR=${ANONREMAP:-$top/anonremap}
# (f) runs the selftests in their build directory: a relative path would not hold there
case $AR in /*) ;; *) AR=$(cd "$(dirname "$AR")" && pwd)/$(basename "$AR") ;; esac
runs=20 moves=200 steps=2000 dumps=100 erounds=7 krounds=10 only_f=0

while getopts r:n:s:d:e:k:Fh o; do
	case $o in
	r) runs=$OPTARG ;;
	n) moves=$OPTARG ;;
	s) steps=$OPTARG ;;
	d) dumps=$OPTARG ;;
	e) erounds=$OPTARG ;;
	k) krounds=$OPTARG ;;
	F) only_f=1 ;;
	*) sed -n '3,54s/^# \{0,1\}//p' "$0"; [ "$o" = h ]; exit 2 ;;
	esac
done

need() { # command package
	command -v "$1" >/dev/null 2>&1 && return 0
	echo "bench-overhead: '$1' is missing: apt-get install -y $2" >&2
	exit 2
}
need hyperfine hyperfine
need jq jq
need gcc gcc
need python3 python3
[ -x "$AR" ] || { echo "bench-overhead: $AR is not built (make -j2)" >&2; exit 2; }
# config.h is made by configure in the build directory, which is the
# binary's (a VPATH build, as make distcheck does, keeps it out of $top)
bld=$(dirname "$AR")
[ -f "$bld/config.h" ] || bld=$top
[ -f "$bld/config.h" ] || { echo "bench-overhead: no config.h next to $AR or in $top: run ./configure first" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sc=$top/scenarios
# shellcheck source=scripts/selftest-build.sh
. "$top/scripts/selftest-build.sh"

gcc -O2 -I"$bld" -I"$top/src" -o "$tmp/floor" "$top/tests/bench/floor.c"
# (a)'s counterpart: the carveout reservation and the one mmap of the scenario.
cat >"$tmp/one.c" <<'EOF'
#include <sys/mman.h>
int main(void)
{
	char *c = mmap(0, 1024 * 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return c == MAP_FAILED ||
	       mmap(c, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED;
}
EOF
gcc -O2 -o "$tmp/one" "$tmp/one.c"

# hyperfine: the wall medians in ms, one a line, in the order of the
# commands; the CPU time (user + system, mean, children included) goes to
# $tmp/NAME.cpu the same way.
hf() { # name command...
	local name=$1
	shift
	hyperfine -N -i -w 2 -r "$runs" --export-json "$tmp/$name.json" "$@" >/dev/null 2>"$tmp/$name.err" ||
		{ cat "$tmp/$name.err" >&2; exit 2; }
	jq -r '.results[] | (.user + .system) * 1000' "$tmp/$name.json" >"$tmp/$name.cpu"
	jq -r '.results[] | .median * 1000' "$tmp/$name.json"
}
cpu() { sed -n "$(($2 + 1))p" "$tmp/$1.cpu"; } # name index
ms() { awk -v x="$1" 'BEGIN { printf "%.2f ms", x }'; }
row() { # label name index wall
	printf '   %-58s %9.2f %9.2f\n' "$1" "$4" "$(cpu "$2" "$3")"
}
hdr() { printf '%-61s %9s %9s\n' "$1" "wall ms" "cpu ms"; }
goal() { # description condition
	if awk "BEGIN { exit !($2) }"; then echo "   goal met:    $1"; else echo "   goal missed: $1"; fi
}

# (f) the library against the kernel's selftest binaries, as check-upstream
# builds them. hyperfine times one run of each command a round, the commands
# in turn, so that the machine's drift falls on both sides alike.
selftests_vs_library() {
	local kcache=${KERNEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/anonremap/kernel}
	local ucache=${CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/anonremap/upstream}
	local src="" d
	die() {
		echo "bench-overhead: $*" >&2
		exit 2
	}
	# relocate-kernel.sh's tree is the one the scenarios cite (Linux 7.2 +
	# seed 008); else check-upstream.sh's pristine one, fetched once
	for d in "$kcache"/src-*/; do
		[ -f "$d/tools/testing/selftests/mm/merge.c" ] && src=${d%/}
	done
	if [ -z "$src" ]; then
		# shellcheck source=scripts/apt-private.sh
		. "$top/scripts/apt-private.sh"
		src=$(selftest_unpack "$ucache" "${UPSTREAM_SUITE:-unstable}" "${UPSTREAM_PKG:-linux-source-7.2}")
	fi
	selftest_build "$src" "$tmp/kst" merge mremap_test
	local mfiles tfiles nm nt
	# merge.c's scenarios: merge_*.json and every file whose source names merge.c
	mapfile -t mfiles < <({ ls "$sc"/merge_*.json; grep -l '"source": *"[^"]*/merge\.c' "$sc"/*.json; } | sort -u)
	mapfile -t tfiles < <(grep -l '"source": *"[^"]*/mremap_test\.c' "$sc"/*.json)
	nm=${#mfiles[@]} nt=${#tfiles[@]}
	local -a cmds=("./merge" "$AR run -f ktap ${mfiles[*]}" "$AR run ${mfiles[*]}"
		"./mremap_test" "$AR run -f ktap -x perf ${tfiles[*]}" "$AR run -x perf ${tfiles[*]}")
	# their KTAP totals, from a run outside the timing
	local tot=()
	tot+=("$( (cd "$tmp/kst" && ./merge 2>/dev/null) | grep '^# Totals' || true)")
	tot+=("$("$AR" run -f ktap "${mfiles[@]}" | grep '^# Totals' || true)")
	tot+=("$( (cd "$tmp/kst" && ./mremap_test 2>/dev/null) | grep '^# Totals' || true)")
	tot+=("$("$AR" run -f ktap -x perf "${tfiles[@]}" | grep '^# Totals' || true)")
	local k i
	: >"$tmp/f.wall"
	: >"$tmp/f.cpu"
	(cd "$tmp/kst" && hyperfine -N -i -w 1 -r 1 "${cmds[@]}" >/dev/null 2>&1) || true # warm-up
	for k in $(seq "$krounds"); do
		(cd "$tmp/kst" && hyperfine -N -i -r 1 --export-json "$tmp/f$k.json" "${cmds[@]}" >/dev/null 2>"$tmp/f.err") ||
			{ cat "$tmp/f.err" >&2; exit 2; }
		jq -r '[.results[] | .median * 1000] | @tsv' "$tmp/f$k.json" >>"$tmp/f.wall"
		jq -r '[.results[] | (.user + .system) * 1000] | @tsv' "$tmp/f$k.json" >>"$tmp/f.cpu"
	done
	colmed() { # file column (1-based)
		cut -f "$2" "$1" | sort -n | awk '{ v[NR] = $1 } END { printf "%.2f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
	}
	local w=() c=()
	for i in 1 2 3 4 5 6; do
		w+=("$(colmed "$tmp/f.wall" "$i")")
		c+=("$(colmed "$tmp/f.cpu" "$i")")
	done
	frow() { printf '   %-58s %9.2f %9.2f\n' "$1" "$2" "$3"; }
	ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
	echo "(f) the library against the kernel's selftest binaries, from $src"
	echo "   medians of $krounds rounds, each command once a round, in turn"
	hdr "   selftest / scenario files"
	frow "./merge" "${w[0]}" "${c[0]}"
	frow "anonremap run -f ktap <$nm merge.c files>" "${w[1]}" "${c[1]}"
	frow "anonremap run <the same $nm>, JSON (with the dumps)" "${w[2]}" "${c[2]}"
	frow "./mremap_test (no -t)" "${w[3]}" "${c[3]}"
	frow "anonremap run -f ktap -x perf <$nt mremap_test.c files>" "${w[4]}" "${c[4]}"
	frow "anonremap run -x perf <the same $nt>, JSON (with the dumps)" "${w[5]}" "${c[5]}"
	echo "   KTAP totals: merge: ${tot[0]#\# Totals: }"
	echo "                library, merge.c's: ${tot[1]#\# Totals: }"
	echo "                mremap_test: ${tot[2]#\# Totals: }"
	echo "                library, mremap_test.c's: ${tot[3]#\# Totals: }"
	local rm rmc rt rtc
	rm=$(ratio "${w[1]}" "${w[0]}") rmc=$(ratio "${c[1]}" "${c[0]}")
	rt=$(ratio "${w[4]}" "${w[3]}") rtc=$(ratio "${c[4]}" "${c[3]}")
	echo "   => merge.c: KTAP library ${rm}x merge's wall time, ${rmc}x its CPU;" \
		"JSON $(ratio "${w[2]}" "${w[0]}")x, $(ratio "${c[2]}" "${c[0]}")x"
	echo "   => mremap_test.c: KTAP library ${rt}x mremap_test's wall time, ${rtc}x its CPU;" \
		"JSON $(ratio "${w[5]}" "${w[3]}")x, $(ratio "${c[5]}" "${c[3]}")x"
	goal "merge.c's scenarios (KTAP) within 1.5x of merge's wall time: ${rm}x" "$rm <= 1.5"
	goal "mremap_test.c's scenarios (KTAP) within 1.5x of mremap_test's wall time: ${rt}x" "$rt <= 1.5"
}

echo "anonremap overhead: $AR ($("$AR" --version | head -1)), kernel $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "$only_f" = 1 ]; then
	echo
	selftests_vs_library
	exit 0
fi
echo "medians of $runs runs (hyperfine -N)"
echo

# (a) fixed cost
mapfile -t a < <(hf a "$tmp/one" "$AR --version" "$AR run -e 'mmap ptr at=carveout len=1p'" \
	"$AR run -f ktap -e 'mmap ptr at=carveout len=1p'")
hdr "(a) fixed cost of one scenario, process start to result"
row "tiny C program: carveout + the one mmap" a 0 "${a[0]}"
row "anonremap --version (start and exit only)" a 1 "${a[1]}"
row "anonremap run -e 'mmap ptr at=carveout len=1p'" a 2 "${a[2]}"
row "anonremap run -f ktap -e 'mmap ptr at=carveout len=1p'" a 3 "${a[3]}"
echo "   => fixed cost $(ms "$(awk -v x="${a[2]}" -v y="${a[0]}" 'BEGIN{print x-y}')") wall," \
	"$(ms "$(awk -v x="$(cpu a 2)" -v y="$(cpu a 0)" 'BEGIN{print x-y}')") CPU above the C program"
echo

# (b) one step, excluding its system call
gen_steps() { # count file
	python3 - "$1" "$2" <<'EOF'
import json, sys
n = int(sys.argv[1])
steps = [{"op": "mmap", "name": "ptr", "at": "carveout", "len": "1p", "prot": "rw"}]
steps += [{"op": "madvise", "region": "ptr", "advice": "normal"}] * n
json.dump({"anonremap": 1, "name": "steps%d" % n, "carveout": {"size": "1p"}, "steps": steps},
          open(sys.argv[2], "w"))
EOF
}
gen_steps 1 "$tmp/steps1.json"
gen_steps "$steps" "$tmp/stepsN.json"
mapfile -t b < <(hf b "$AR run $tmp/steps1.json" "$AR run $tmp/stepsN.json")
sum_ns() { "$AR" run "$1" | jq '[.scenarios[0].steps[].duration_ns // 0] | add'; }
s1=$(sum_ns "$tmp/steps1.json")
sN=$(sum_ns "$tmp/stepsN.json")
step_cost() { # t1 tN (ms): us a step, less the system calls
	awk -v t1="$1" -v tN="$2" -v s1="$s1" -v sN="$sN" -v n="$steps" \
		'BEGIN { printf "%.2f", ((tN - t1) * 1e3 - (sN - s1) / 1e3) / (n - 1) }'
}
per_step=$(step_cost "${b[0]}" "${b[1]}")
per_step_cpu=$(step_cost "$(cpu b 0)" "$(cpu b 1)")
sys_step=$(awk -v s1="$s1" -v sN="$sN" -v n="$steps" 'BEGIN { printf "%.2f", (sN - s1) / 1e3 / (n - 1) }')
hdr "(b) one step excluding its system call: 1 + $steps x 'madvise ptr advice=normal'"
row "anonremap run (1 madvise step)" b 0 "${b[0]}"
row "anonremap run ($steps madvise steps)" b 1 "${b[1]}"
echo "   sum of duration_ns: $sN ns ($steps steps), $s1 ns (1 step); ${sys_step} us a call"
echo "   => ${per_step} us a step outside its system call (wall); ${per_step_cpu} us of CPU"
goal "a step costs < 20 us outside its system call: ${per_step} us" "$per_step < 20"
echo

# (c) one dump of a carveout with 20 VMAs
gen_dumps() { # dumps file
	python3 - "$1" "$2" <<'EOF'
import json, sys
n = int(sys.argv[1])
# 20 one-page mappings, protections alternating: 20 VMAs that cannot merge
steps = [{"op": "mmap", "at": "carveout+%dp" % i, "len": "1p", "prot": "rw" if i % 2 == 0 else "r"}
         for i in range(20)]
steps.append({"op": "fault", "at": "carveout", "len": "1p"})
steps += [{"op": "dump"}] * n
json.dump({"anonremap": 1, "name": "dumps%d" % n, "carveout": {"size": "20p"}, "steps": steps},
          open(sys.argv[2], "w"))
EOF
}
gen_dumps 0 "$tmp/dumps0.json"
gen_dumps "$dumps" "$tmp/dumpsN.json"
nv=$("$AR" run "$tmp/dumpsN.json" | jq '.scenarios[0].dumps[0].vma_count')
mapfile -t c < <(hf c "$AR run $tmp/dumps0.json" "$AR run $tmp/dumpsN.json")
per_dump=$(awk -v x="${c[0]}" -v y="${c[1]}" -v n="$dumps" 'BEGIN { printf "%.3f", (y - x) / n }')
per_dump_cpu=$(awk -v x="$(cpu c 0)" -v y="$(cpu c 1)" -v n="$dumps" 'BEGIN { printf "%.3f", (y - x) / n }')
hdr "(c) one dump of a carveout with 20 VMAs ($nv VMAs in the dump, with the guards)"
row "anonremap run (20 mmaps, no dump)" c 0 "${c[0]}"
row "anonremap run (20 mmaps, $dumps dumps)" c 1 "${c[1]}"
echo "   => $(ms "$per_dump") a dump (wall), $(ms "$per_dump_cpu") of CPU"
echo

# (d) the seed library
six="mremap_unfaulted_to_faulted mremap_unfaulted_behind_faulted mremap_unfaulted_between_faulted
     mremap_unfaulted_between_faulted_unfaulted mremap_unfaulted_between_correctly_placed_faulted
     mremap_correct_placed_faulted"
lib6=$(for s in $six; do printf '%s ' "$sc/$s.json"; done)
lib16="$lib6$(printf '%s ' "$sc"/mremap_relocate_anon_*.json)"
nrel=$(find "$sc" -name 'mremap_relocate_anon_*.json' | wc -l)
rounds=10
# the same 16 with their dump steps taken out (the floor dumps nothing)
mkdir -p "$tmp/nodumps"
for f in $lib16; do
	jq '.steps |= map(select(.op != "dump"))' "$f" >"$tmp/nodumps/$(basename "$f")"
done
lib16nd=$(for f in $lib16; do printf '%s ' "$tmp/nodumps/$(basename "$f")"; done)
mapfile -t d < <(hf d "$tmp/floor 1" "$AR run -k $lib6" "$AR run -k $lib16" \
	"$tmp/floor $rounds" "$AR run -k -n $rounds $lib6" "$AR run -k $lib16nd" "$AR run -k -f ktap $lib16nd" \
	"$tmp/floor --inspect 1")
# shellcheck disable=SC2086 # a list of paths, as hyperfine gets it
st16=$("$AR" run -k $lib16 | jq -r '.summary | "\(.pass) pass, \(.skip) skip, \(.fail) fail"')
hdr "(d) the seed library (6 merge scenarios; +$nrel relocate ones: $st16)"
row "floor 1 (the 6 tests, a fork each)" d 0 "${d[0]}"
row "anonremap run -k <the 6>" d 1 "${d[1]}"
row "anonremap run -k <the 6 + $nrel relocate = $((6 + nrel))>" d 2 "${d[2]}"
row "floor $rounds" d 3 "${d[3]}"
row "anonremap run -k -n $rounds <the 6>" d 4 "${d[4]}"
row "anonremap run -k <the $((6 + nrel)), dump steps taken out>" d 5 "${d[5]}"
row "anonremap run -k -f ktap <the $((6 + nrel)), dump steps taken out>" d 6 "${d[6]}"
row "floor --inspect 1 (reading what each dump reads, raw)" d 7 "${d[7]}"
awk -v f="${d[0]}" -v a="${d[1]}" -v b="${d[2]}" -v n=$((6 + nrel)) -v f10="${d[3]}" -v a10="${d[4]}" -v r=$rounds 'BEGIN {
	printf "   per scenario: floor %.2f ms, anonremap %.2f ms (6), %.2f ms (%d, skips included)\n", f / 6, a / 6, b / n, n
	printf "   per round of 6 with -n %d: floor %.2f ms, anonremap %.2f ms\n", r, f10 / r, a10 / r
	printf "   => library %.1fx the floor (one invocation), %.1fx (%d rounds)\n", b / f, a10 / f10, r }'
awk -v f="${d[0]}" -v x="${d[5]}" -v k="${d[6]}" 'BEGIN {
	printf "   => without the dumps: %.1fx the floor (JSON), %.1fx (KTAP)\n", x / f, k / f }'
awk -v fi="${d[7]}" -v b="${d[2]}" 'BEGIN {
	printf "   => with them: %.1fx the floor that reads what the dumps read\n", b / fi }'
ratio=$(awk -v f="${d[0]}" -v b="${d[2]}" 'BEGIN { printf "%.2f", b / f }')
ratio_cpu=$(awk -v f="$(cpu d 0)" -v b="$(cpu d 2)" 'BEGIN { printf "%.2f", b / f }')
echo "   => CPU: library ${ratio_cpu}x the floor's"
goal "seed library within 1.5x of the floor: ${ratio}x" "$ratio <= 1.5"
echo

# (e) duration_ns of one mremap against the floor's
reps() { for _ in $(seq "$moves"); do printf '%s ' "$1"; done; }
python3 - "$tmp/nodump.json" <<'EOF'
import json, sys
steps = [{"op": "mmap", "name": "ptr", "at": "carveout+1p", "len": "5p", "prot": "rw"},
         {"op": "mmap", "name": "ptr2", "at": "carveout+7p", "len": "5p", "prot": "rw"},
         {"op": "mremap", "region": "ptr2", "to": "ptr2+1000p", "flags": ["MAYMOVE", "FIXED"]},
         {"op": "fault", "at": "ptr"},
         {"op": "mremap", "region": "ptr2", "to": "ptr+5p", "flags": ["MAYMOVE", "FIXED"]}]
json.dump({"anonremap": 1, "name": "unfaulted_to_faulted_nodump", "carveout": {"size": "30p"},
           "steps": steps}, open(sys.argv[1], "w"))
EOF
final_ns() { # scenario file
	# shellcheck disable=SC2046
	"$AR" run $(reps "$1") |
		jq '[.scenarios[] | [.steps[] | select(.op == "mremap")][-1].duration_ns] | sort | .[length / 2 | floor]'
}
pause_us=$(awk -v d="$per_dump" 'BEGIN { printf "%d", d * 1000 }')
# what anonremap holds and rewrites between two scenario processes: about its RSS
pollute_kb=16384
# ROUNDS rounds, the seven measurements interleaved in each, so that the
# machine's drift falls on all alike; each figure is the median of the
# rounds' medians, with the range of those medians.
fl=() ar=() nd=() fp=() fi=() ff=() fz=()
for _ in $(seq "$erounds"); do
	fl+=("$("$tmp/floor" --mremap "$moves")")
	ar+=("$(final_ns "$sc/mremap_unfaulted_to_faulted.json")")
	nd+=("$(final_ns "$tmp/nodump.json")")
	fp+=("$("$tmp/floor" --mremap "$moves" --pause "$pause_us")")
	fi+=("$("$tmp/floor" --mremap "$moves" --inspect)")
	ff+=("$("$tmp/floor" --mremap "$moves" --fork)")
	fz+=("$("$tmp/floor" --mremap "$moves" --fork --pollute "$pollute_kb")")
done
med() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { printf "%d", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
rng() { printf '%s\n' "$@" | sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%d-%d", lo, hi }'; }
e_fl=$(med "${fl[@]}") e_ar=$(med "${ar[@]}") e_nd=$(med "${nd[@]}") e_fp=$(med "${fp[@]}") e_fi=$(med "${fi[@]}")
e_ff=$(med "${ff[@]}") e_fz=$(med "${fz[@]}")
echo "(e) duration_ns of the final mremap of mremap_unfaulted_to_faulted: median of $erounds rounds' medians of $moves (range)"
printf '   %-58s %6s ns  (%s)\n' "floor --mremap $moves" "$e_fl" "$(rng "${fl[@]}")" \
	"anonremap run <mremap_unfaulted_to_faulted x $moves>" "$e_ar" "$(rng "${ar[@]}")" \
	"  the same steps without the dumps, x $moves" "$e_nd" "$(rng "${nd[@]}")" \
	"floor's loop, pausing ${pause_us} us (one dump) before the call" "$e_fp" "$(rng "${fp[@]}")" \
	"floor's loop, reading what a dump reads before the call" "$e_fi" "$(rng "${fi[@]}")" \
	"floor, each sample in a child (--fork)" "$e_ff" "$(rng "${ff[@]}")" \
	"  the parent writing $((pollute_kb / 1024)) MiB before each fork (--pollute)" "$e_fz" "$(rng "${fz[@]}")"
pct() { awk -v a="$1" -v f="$2" 'BEGIN { printf "%+.1f", (a - f) * 100 / f }'; }
dev=$(pct "$e_ar" "$e_fl")
echo "   => ${dev} % against the floor ($(pct "$e_nd" "$e_fl") % without the dumps);" \
	"$(pct "$e_ar" "$e_fp") % against the floor paused as long as a dump;" \
	"$(pct "$e_ar" "$e_fi") % against the floor reading what a dump reads;" \
	"without the dumps $(pct "$e_nd" "$e_ff") % against the forked floor," \
	"$(pct "$e_nd" "$e_fz") % against it with the parent's writes"
goal "duration_ns within 5 % of the floor (median): ${dev} %" "${dev#+} <= 5 && ${dev#+} >= -5"
echo
selftests_vs_library
