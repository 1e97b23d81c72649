#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make check: replay the fuzzing regression inputs under ASan and UBSan.
# tests/fuzz/replay-HARNESS is a fuzz harness (tests/fuzz/fuzz_HARNESS.c)
# built with gcc and tests/fuzz/replay_main.c instead of libFuzzer; it runs
# every file of tests/fuzz/corpus/HARNESS (the minimized corpus of
# scripts/fuzz.sh) and tests/fuzz/crashes/HARNESS (inputs that once crashed,
# hung or leaked). A sanitizer report, a leak or an abort fails the test.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=${TOP_SRCDIR:-$here/..}
bld=${TOP_BUILDDIR:-$src}
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export ASAN_OPTIONS UBSAN_OPTIONS

fail=0
total=0
for h in scenario textform expr procparsers result; do
	bin=$bld/tests/fuzz/replay-$h
	if [ ! -x "$bin" ]; then
		echo "FAIL $h: $bin is not built (make check builds it)"
		fail=1
		continue
	fi
	line="$h:"
	for kind in corpus crashes; do
		dir=$src/tests/fuzz/$kind/$h
		# git keeps no empty directory: no crash input yet is fine
		if [ ! -d "$dir" ]; then
			line="$line $kind 0"
			continue
		fi
		out=$("$bin" "$dir" 2>&1)
		rc=$?
		n=$(printf '%s\n' "$out" | sed -n 's/^\([0-9][0-9]*\) inputs replayed$/\1/p' | tail -n 1)
		if [ "$rc" -ne 0 ] || [ -z "$n" ]; then
			printf '%s\n' "$out" | tail -n 40
			echo "FAIL $h: replay of $dir exited $rc"
			fail=1
			n=${n:-?}
		elif [ "$kind" = corpus ] && [ "$n" -eq 0 ]; then
			echo "FAIL $h: $dir is empty (run scripts/fuzz.sh)"
			fail=1
		fi
		line="$line $kind $n"
		[ "$n" = "?" ] || total=$((total + n))
	done
	echo "$line"
done
echo "$total inputs replayed under ASan+UBSan"
exit $fail
