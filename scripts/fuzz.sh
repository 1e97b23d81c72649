#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A fuzzing session: build the harnesses of tests/fuzz/ with clang and
# libFuzzer (ASan + UBSan), run them, and keep what they found.
#
#   scripts/fuzz.sh [--time SECONDS] [--jobs N] [--build-only] [--no-merge]
#                   [--merge-only] [--full-merge] [HARNESS...]
#
# HARNESS is scenario, textform, expr, procparsers or result (default: all five);
# each runs for SECONDS (default 600), N at a time (default 1). Packages:
# apt-get install -y clang libclang-rt-14-dev (libFuzzer), and a configured
# tree (config.h in the top build dir: $BUILD_DIR, default the source dir).
#
# Each harness starts from its minimized corpus tests/fuzz/corpus/HARNESS,
# its crash inputs tests/fuzz/crashes/HARNESS and seeds: scenarios/*.json,
# tests/data/ (maps and smaps captures), tests/fuzz/seeds/HARNESS/, the
# address expressions of the scenario library and this shell's own
# /proc/self/maps and smaps. It stops at the first crash, hang (-timeout=10),
# leak or sanitizer report and saves that input as
# tests/fuzz/crashes/HARNESS/crash-SHA1 (or leak-, timeout-, oom-): keep it,
# even once the bug is fixed; make check replays it. At the end the corpus
# is minimized (-merge=1) into tests/fuzz/corpus/HARNESS, files named by
# their SHA1 as libFuzzer names them. That merge keeps every covered edge but
# not libFuzzer's hit-count features (-use_counters=0): a fifth of the files
# for the same coverage; --full-merge keeps them all. The full working corpus
# stays in $FUZZ_WORK for the next session. --merge-only: no fuzzing, only
# the merge of what $FUZZ_WORK and tests/fuzz/corpus hold.
#
# Objects, binaries, the working corpora and logs go to $FUZZ_WORK (default
# build-fuzz/ in the source dir). Exit 0 when no harness found anything.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${BUILD_DIR:-$src}" && pwd)
work=${FUZZ_WORK:-$src/build-fuzz}
CC=${FUZZ_CC:-clang}
all=(scenario textform expr procparsers result)
time=600 jobs=1 build_only=0 merge=1 fuzz=1 counters=0
harnesses=()

usage() {
	sed -n '5,10p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

while (($#)); do
	case $1 in
	--time | -t) time=${2:?}; shift ;;
	--time=*) time=${1#*=} ;;
	--jobs | -j) jobs=${2:?}; shift ;;
	--jobs=*) jobs=${1#*=} ;;
	--build-only) build_only=1 ;;
	--no-merge) merge=0 ;;
	--merge-only) fuzz=0 ;;
	--full-merge) counters=1 ;;
	-h | --help) usage ;;
	-*) echo "fuzz.sh: unknown option $1" >&2; usage ;;
	*)
		h=${1#fuzz_}
		[[ " ${all[*]} " == *" $h "* ]] || { echo "fuzz.sh: no harness '$1' (${all[*]})" >&2; exit 2; }
		harnesses+=("$h") ;;
	esac
	shift
done
((${#harnesses[@]})) || harnesses=("${all[@]}")
[[ $time =~ ^[0-9]+$ && $jobs =~ ^[1-9][0-9]*$ ]] || usage
[[ -f $build/config.h ]] || { echo "fuzz.sh: no config.h in $build: run ./configure (or set BUILD_DIR)" >&2; exit 2; }
command -v "$CC" >/dev/null || { echo "fuzz.sh: no $CC: apt-get install -y clang libclang-rt-14-dev" >&2; exit 2; }

mkdir -p "$work/obj" "$work/bin"

# --- build ---------------------------------------------------------------
# The library's sources (everything in src/ but main.c) into one archive,
# instrumented for coverage; each harness links what it needs from it.
san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
# (the escaped quotes make SCENARIODIR a C string; a path with spaces is not supported)
# shellcheck disable=SC2089,SC2090
cflags="-g -O1 -std=gnu11 $san -DSCENARIODIR=\"$src/scenarios\" -I$build -I$src/src $(pkg-config --cflags libcjson libproc2 zlib 2>/dev/null || true)"
# zlib: report.c (config.gz), which the result harness links
libs="$(pkg-config --libs libcjson libproc2 zlib 2>/dev/null || echo -lcjson -lproc2 -lz)"

# shellcheck disable=SC2317 # run by xargs
compile() { # SRC.c OBJ.o
	[[ $2 -nt $1 && $2 -nt $src/src/anonremap.h && $2 -nt $build/config.h ]] && return 0
	echo "  CC      ${1#"$src"/}"
	# shellcheck disable=SC2086,SC2090
	$CC $cflags -fsanitize=fuzzer-no-link -c "$1" -o "$2"
}
export -f compile
# shellcheck disable=SC2090
export CC cflags src build

# One build at a time: several sessions may share $work.
exec 9>"$work/.build.lock"
flock 9

# The sources of libanonremap.a as Makefile.am lists them (else src/*.c but main.c)
mapfile -t lsrc < <(sed -n '/^libanonremap_a_SOURCES *=/,/[^\\]$/p' "$src/Makefile.am" |
	grep -oE 'src/[A-Za-z0-9_-]+\.c' | sed "s|^|$src/|")
if ! ((${#lsrc[@]})); then
	for c in "$src"/src/*.c; do
		[[ $c == */main.c ]] || lsrc+=("$c")
	done
fi
objs=()
pending=()
for c in "${lsrc[@]}"; do
	o=$work/obj/$(basename "${c%.c}").o
	objs+=("$o")
	pending+=("$c" "$o")
done
# shellcheck disable=SC2016 # $0 and $1 are for bash -c
printf '%s\0' "${pending[@]}" | xargs -0 -n2 -P"$(nproc)" bash -c 'compile "$0" "$1"'
lib=$work/libanonremap-fuzz.a
newer() { # TARGET DEP...: true when a DEP is newer than TARGET (or no TARGET)
	local t=$1 d
	shift
	[[ -e $t ]] || return 0
	for d; do [[ $d -nt $t ]] && return 0; done
	return 1
}
if newer "$lib" "${objs[@]}"; then
	rm -f "$lib"
	ar rcs "$lib" "${objs[@]}"
fi
for h in "${harnesses[@]}"; do
	newer "$work/bin/fuzz_$h" "$src/tests/fuzz/fuzz_$h.c" "$lib" || continue
	echo "  CCLD    fuzz_$h"
	# shellcheck disable=SC2086,SC2090
	$CC $cflags -fsanitize=fuzzer -DANONREMAP_LIBFUZZER "$src/tests/fuzz/fuzz_$h.c" "$lib" $libs \
		-o "$work/bin/fuzz_$h"
done
flock -u 9
((build_only)) && exit 0

# --- seeds ---------------------------------------------------------------
seed() { # HARNESS: fill $work/seeds/HARNESS
	local h=$1 d=$work/seeds/$1
	rm -rf "$d"
	mkdir -p "$d"
	if [[ -d $src/tests/fuzz/seeds/$h ]]; then
		cp "$src/tests/fuzz/seeds/$h"/* "$d"/
	fi
	case $h in
	scenario) cp "$src"/scenarios/*.json "$d"/ ;;
	textform) cp "$src"/tests/data/* "$d"/ ;;
	expr)
		# every distinct size or address string of the library, one a file
		grep -ohE '"(at|to|len|old_len|new_len|offset|start|end|vma|from|size|guard|align)": *"[^"]*"' \
			"$src"/scenarios/*.json | sed -E 's/^"[a-z_]+": *"//; s/"$//' | sort -u |
			awk -v d="$d" '{ f = sprintf("%s/lib-%04d", d, NR); printf "%s", $0 > f; close(f) }' ;;
	procparsers)
		cp "$src"/tests/data/* "$d"/
		cat /proc/self/maps >"$d/self-maps" || true
		cat /proc/self/smaps >"$d/self-smaps" || true ;;
	result) ;; # tests/fuzz/seeds/result: small real results (anonremap run -f json)
	esac
}

maxlen() {
	case $1 in
	scenario | textform | procparsers | result) echo 65536 ;;
	expr) echo 4096 ;;
	esac
}

# --- run -----------------------------------------------------------------
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

run_one() { # HARNESS: fuzz, then minimize; the status of the fuzzing run
	local h=$1 bin=$work/bin/fuzz_$1 corpus=$work/corpus/$1 keep=$src/tests/fuzz/corpus/$1
	local crashes=$src/tests/fuzz/crashes/$1 log=$work/$1.log rc=0 dict=()
	mkdir -p "$corpus" "$keep" "$crashes"
	seed "$h"
	[[ -f $src/tests/fuzz/$h.dict ]] && dict=(-dict="$src/tests/fuzz/$h.dict")
	local opts=(-max_len="$(maxlen "$h")" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048
		-print_final_stats=1 "${dict[@]}")
	if ((fuzz)); then
		echo "fuzz_$h: ${time}s, log $log"
		# the working corpus first: new inputs go there; the rest are read
		(cd "$work" && "$bin" "${opts[@]}" -max_total_time="$time" -artifact_prefix="$crashes/" \
			"$corpus" "$keep" "$crashes" "$work/seeds/$h") >"$log" 2>&1 || rc=$?
	fi
	if ((merge)); then
		local m=$work/merge-$h
		rm -rf "$m"
		mkdir -p "$m"
		if (cd "$work" && "$bin" "${opts[@]}" -merge=1 -use_counters="$counters" "$m" \
			"$corpus" "$keep" "$work/seeds/$h") \
			>"$work/$h-merge.log" 2>&1; then
			rm -f "$keep"/*
			cp "$m"/* "$keep"/ 2>/dev/null || true
		else
			echo "fuzz_$h: merge failed, corpus kept as it was; see $work/$h-merge.log" >&2
		fi
	fi
	local last
	last=$(grep -E '^#[0-9]+' "$log" 2>/dev/null | tail -n 1 || true)
	((fuzz)) && echo "fuzz_$h: status $rc; $last"
	echo "fuzz_$h: corpus tests/fuzz/corpus/$h: $(find "$keep" -type f | wc -l) files," \
		"$(du -sb --apparent-size "$keep" | cut -f1) bytes"
	if ((rc)); then
		grep -E 'ERROR: |SUMMARY: |runtime error|Test unit written' "$log" | head -n 20 >&2 || true
	fi
	return "$rc"
}

status=0
running=0
for h in "${harnesses[@]}"; do
	run_one "$h" &
	running=$((running + 1))
	if ((running >= jobs)); then
		wait -n || status=1
		running=$((running - 1))
	fi
done
while ((running > 0)); do
	wait -n || status=1
	running=$((running - 1))
done
((status)) && echo "fuzz.sh: something was found: see tests/fuzz/crashes/ and $work/*.log" >&2
exit "$status"
