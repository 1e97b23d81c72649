#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The test definition's one step (anonremap.yaml): run the kselftest
# collection 'anonremap' with the kernel's run_kselftest.sh and report each
# scenario as a LAVA test case, from the runner's own result lines:
#   ok N selftests: anonremap: NAME               pass
#   ok N selftests: anonremap: NAME # SKIP ...    skip
#   not ok N selftests: anonremap: NAME ...       fail
# Outside LAVA (no lava-test-case) it prints 'NAME RESULT' lines instead.
# The runner's whole output is kept in ./output/anonremap.ktap.
#   -d DIR   the installed collection (default /opt/kselftests/anonremap)
#   -u URL   fetch kselftest.tar.gz from URL and unpack it into DIR first
#   -a ARGS  more arguments for run_kselftest.sh (split at spaces)
#   -k FILE  run nothing: report the results of the runner output in FILE
#            (make check-lava reads a direct run with it, with this parser)
# Plain POSIX sh and busybox tools: test images are often small.
set -u
dir=/opt/kselftests/anonremap url="" args="" ktap=""
while getopts d:u:a:k: o; do
	case $o in
	d) dir=$OPTARG ;;
	u) url=$OPTARG ;;
	a) args=$OPTARG ;;
	k) ktap=$OPTARG ;;
	*) echo "usage: $0 [-d DIR] [-u URL] [-a RUNNER-ARGS] [-k KTAP-FILE]" >&2; exit 2 ;;
	esac
done
# The runner's result line of each test, as a test case: NAME RESULT.
verdicts() { # KTAP-FILE
	awk '
	/^(not )?ok [0-9]+ selftests: anonremap: / {
		res = ($1 == "not") ? "fail" : "pass"
		sub(/^(not )?ok [0-9]+ selftests: anonremap: /, "")
		if (res == "pass" && $0 ~ / # SKIP/) res = "skip"
		print $1, res
	}' "$1"
}

report() { # NAME RESULT
	if command -v lava-test-case >/dev/null 2>&1; then
		lava-test-case "$1" --result "$2"
	else
		echo "$1 $2"
	fi
}

fetch() { # URL FILE
	if command -v wget >/dev/null 2>&1; then
		wget -q -O "$2" "$1"
	else
		curl -fsSL -o "$2" "$1"
	fi
}
if [ -n "$ktap" ]; then
	verdicts "$ktap"
	exit
fi
out=$(pwd)/output
mkdir -p "$out"
if [ -n "$url" ]; then
	mkdir -p "$dir"
	if ! fetch "$url" "$out/kselftest.tar.gz" || ! tar -xzf "$out/kselftest.tar.gz" -C "$dir"; then
		echo "anonremap-lava: cannot fetch and unpack $url into $dir" >&2
		report anonremap-install fail
		exit 0
	fi
fi
if [ ! -x "$dir/run_kselftest.sh" ] || ! grep -q '^anonremap:' "$dir/kselftest-list.txt" 2>/dev/null; then
	echo "anonremap-lava: no kselftest collection 'anonremap' in $dir" \
		"(make kselftest-install DESTDIR=$dir, or give -u URL)" >&2
	report anonremap-install fail
	exit 0
fi

# A pipe, not a file: the runner appends its tests' output to /dev/stdout.
# shellcheck disable=SC2086 # RUNNER_ARGS are words
(cd "$dir" && ./run_kselftest.sh -c anonremap $args) 2>&1 | tee "$out/anonremap.ktap"
verdicts "$out/anonremap.ktap" >"$out/results.txt"
while read -r name res; do
	report "$name" "$res"
done <"$out/results.txt"
