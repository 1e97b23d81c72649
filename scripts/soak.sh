#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Long runs (issue 8): the whole library ROUNDS times in one invocation,
# watched from outside, then one library run under valgrind.
#
#   scripts/soak.sh [-n ROUNDS] [-i SECONDS] [-g KIB] [-V] [-s] [-l DIR]
#
#   -n ROUNDS   rounds of 'anonremap run --repeat' (default 50)
#   -i SECONDS  sampling interval (default 1)
#   -g KIB      allowed RSS growth, last quarter of the samples against the
#               first quarter, medians (default 2048)
#   -V          skip the valgrind run
#   -s          skip the soak (valgrind only)
#   -l DIR      keep the samples, the results and valgrind's log in DIR
#
# The soak runs
#   anonremap run --repeat ROUNDS -k -x slow -x perf -o FILE scenarios/*.json
# in a session of its own (setsid), and every interval samples its VmRSS, its
# open descriptors (/proc/PID/fd) and the processes of its session: the
# scenario processes and their forks (each scenario process leads a process
# group of its own, but stays in anonremap's session), zombies counted apart.
# At the end it asserts: no descriptor growth (the most seen in the last
# quarter of the samples is no more than in the first quarter), RSS growth
# within -g, no process of the session left after anonremap exits, and none
# of the scenario pids in the result alive.
#
# valgrind then runs one library round:
#   valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect
#            --error-exitcode=99 --trace-children=no --child-silent-after-fork=yes
#            anonremap run -k -x slow -x perf -o FILE scenarios/*.json
# The scenario processes are forks of anonremap: they run under valgrind too,
# silent. Its errors and leak summary are printed.
#
# Exit status: 0 all held, 1 an assertion or valgrind failed, 2 usage or a
# missing tool. ANONREMAP=path picks the binary.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
AR=${ANONREMAP:-$top/anonremap}
rounds=50 interval=1 growth_kib=2048 do_valgrind=1 do_soak=1 keep=

while getopts n:i:g:Vsl:h o; do
	case $o in
	n) rounds=$OPTARG ;;
	i) interval=$OPTARG ;;
	g) growth_kib=$OPTARG ;;
	V) do_valgrind= ;;
	s) do_soak= ;;
	l) keep=$OPTARG ;;
	*) sed -n '3,37s/^# \{0,1\}//p' "$0"; [ "$o" = h ]; exit 2 ;;
	esac
done

need() { # command package
	command -v "$1" >/dev/null 2>&1 && return 0
	echo "soak: '$1' is missing: apt-get install -y $2" >&2
	exit 2
}
need jq jq
need setsid util-linux
need ps procps
[ -n "$do_valgrind" ] && need valgrind valgrind
[ -x "$AR" ] || { echo "soak: $AR is not built (make -j2)" >&2; exit 2; }

if [ -n "$keep" ]; then
	mkdir -p "$keep"
	out=$keep
else
	out=$(mktemp -d)
	trap 'rm -rf "$out"' EXIT
fi
status=0
fail() { echo "FAIL: $*"; status=1; }
excl=(-x slow -x perf)
lib=("$top"/scenarios/*.json)

echo "soak: $AR ($("$AR" --version | head -1)), kernel $(uname -r), ${#lib[@]} scenario files, excluding slow and perf"

# Processes of session $1 other than $1 itself: "pid stat" lines.
session_procs() {
	ps -e -o pid=,sid=,stat= | awk -v s="$1" '$2 == s && $1 != s { print $1, $3 }'
}

if [ -n "$do_soak" ]; then
	setsid "$AR" run --repeat "$rounds" -k "${excl[@]}" -o "$out/soak.json" "${lib[@]}" \
		>"$out/soak.stdout" 2>"$out/soak.stderr" &
	apid=$!
	echo "t_s rss_kib fds procs zombies" >"$out/samples.txt"
	t0=$(date +%s.%N)
	while kill -0 "$apid" 2>/dev/null; do
		rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$apid/status" 2>/dev/null || true)
		fds=$(find "/proc/$apid/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l || true)
		procs=$(session_procs "$apid")
		np=$(printf '%s' "$procs" | grep -c . || true)
		nz=$(printf '%s\n' "$procs" | awk '$2 ~ /^Z/' | grep -c . || true)
		# a sample taken as the process exits is incomplete: drop it
		if [ -n "$rss" ] && [ "$fds" -gt 0 ] && grep -q '^State:.*[RSD]' "/proc/$apid/status" 2>/dev/null; then
			echo "$(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { printf "%.1f", a - b }') $rss $fds $np $nz" \
				>>"$out/samples.txt"
		fi
		sleep "$interval"
	done
	rc=0
	wait "$apid" || rc=$?
	t1=$(date +%s.%N)
	sleep 0.5 # let the kernel reap whatever the subreaper left
	left=$(session_procs "$apid")
	# a zombie here is a child anonremap never waited for, now init's
	[ -z "$left" ] || ps -e -o pid=,ppid=,sid=,stat=,etime=,args= | awk -v s="$apid" '$3 == s' >"$out/left.txt"

	n=$(($(wc -l <"$out/samples.txt") - 1))
	echo
	echo "soak: $rounds rounds in $(awk -v a="$t1" -v b="$t0" 'BEGIN { printf "%.1f", a - b }') s, exit $rc, $n samples every ${interval} s"
	if [ -s "$out/soak.json" ]; then
		jq -r '"  last round: \(.summary.pass) pass, \(.summary.fail) fail, \(.summary.skip) skip, \(.summary.error) error; earlier rounds: \(.earlier_rounds | length)"' "$out/soak.json"
	else
		fail "no result written ($(head -c 300 "$out/soak.stderr"))"
	fi
	[ "$rc" -le 1 ] || fail "anonremap exit $rc: $(head -c 300 "$out/soak.stderr")"
	if [ "$n" -lt 4 ]; then
		fail "only $n samples: too short a run to judge"
	else
		# first quarter against last quarter
		awk -v q=$(((n + 3) / 4)) -v n="$n" -v g="$growth_kib" '
		NR == 1 { next }
		{ i = NR - 1; rss[i] = $2; fd[i] = $3; pr[i] = $4; zo[i] = $5 }
		function med(a, lo, hi,   k, m, t, j, x) {
			m = 0
			for (k = lo; k <= hi; k++) t[++m] = a[k]
			for (j = 2; j <= m; j++) { x = t[j]; k = j - 1; while (k > 0 && t[k] > x) { t[k + 1] = t[k]; k-- } t[k + 1] = x }
			return t[int((m + 1) / 2)]
		}
		function mx(a, lo, hi,   k, v) { v = a[lo]; for (k = lo; k <= hi; k++) if (a[k] > v) v = a[k]; return v }
		END {
			printf "  %-22s %8s %8s %8s %14s %14s\n", "", "first", "last", "max", "1st-qtr med", "last-qtr med"
			printf "  %-22s %8d %8d %8d %14d %14d\n", "VmRSS (KiB)", rss[1], rss[n], mx(rss, 1, n), med(rss, 1, q), med(rss, n - q + 1, n)
			printf "  %-22s %8d %8d %8d %14d %14d\n", "open fds", fd[1], fd[n], mx(fd, 1, n), med(fd, 1, q), med(fd, n - q + 1, n)
			printf "  %-22s %8d %8d %8d %14d %14d\n", "session processes", pr[1], pr[n], mx(pr, 1, n), med(pr, 1, q), med(pr, n - q + 1, n)
			printf "  %-22s %8d %8d %8d %14d %14d\n", "zombies", zo[1], zo[n], mx(zo, 1, n), med(zo, 1, q), med(zo, n - q + 1, n)
			bad = 0
			if (mx(fd, n - q + 1, n) > mx(fd, 1, q)) { print "FAIL: descriptors grow: at most " mx(fd, 1, q) " in the first quarter, " mx(fd, n - q + 1, n) " in the last"; bad = 1 }
			if (med(rss, n - q + 1, n) - med(rss, 1, q) > g) { print "FAIL: RSS grows by " med(rss, n - q + 1, n) - med(rss, 1, q) " KiB (allowed " g ")"; bad = 1 }
			if (mx(pr, n - q + 1, n) > mx(pr, 1, q) + 1) { print "FAIL: session processes grow: " mx(pr, 1, q) " -> " mx(pr, n - q + 1, n); bad = 1 }
			if (mx(zo, 1, n) > 1) { print "FAIL: up to " mx(zo, 1, n) " zombies at once" ; bad = 1 }
			exit bad
		}' "$out/samples.txt" || status=1
	fi
	if [ -n "$left" ]; then
		fail "processes of anonremap's session left 0.5 s after it exited (pid ppid sid stat etime args):"
		sed 's/^ */    /' "$out/left.txt"
	else
		echo "  after exit: no process of its session left"
	fi
	if [ -s "$out/soak.json" ]; then
		pids=$(jq -r '[.scenarios[] | .pid, (.steps[]?.pid)] | map(select(. != null)) | unique | .[]' "$out/soak.json")
		alive=
		for p in $pids; do
			# alive and still ours (same session): a reused pid is someone else's
			if [ -d "/proc/$p" ] && [ "$(ps -o sid= -p "$p" 2>/dev/null | tr -d ' ')" = "$apid" ]; then
				alive="$alive $p"
			fi
		done
		echo "  scenario pids in the result: $(echo "$pids" | grep -c . || true), alive: ${alive:-none}"
		[ -z "$alive" ] || fail "scenario processes alive after exit:$alive"
	fi
fi

if [ -n "$do_valgrind" ]; then
	echo
	echo "valgrind: one library run (-x slow -x perf)"
	vrc=0
	t0=$(date +%s)
	valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=99 \
		--trace-children=no --child-silent-after-fork=yes --log-file="$out/valgrind.log" \
		"$AR" run -k "${excl[@]}" -o "$out/valgrind.json" "${lib[@]}" \
		>"$out/valgrind.stdout" 2>"$out/valgrind.stderr" || vrc=$?
	echo "  exit $vrc after $(($(date +%s) - t0)) s"
	if [ -s "$out/valgrind.json" ]; then
		jq -r '"  result: \(.summary.pass) pass, \(.summary.fail) fail, \(.summary.skip) skip, \(.summary.error) error"' "$out/valgrind.json"
		jq -r '.scenarios[] | select(.status == "error" or .status == "fail") | "    \(.status): \(.name): \(.reason)"' "$out/valgrind.json" | head -20
		if jq -e '.summary.fail + .summary.error > 0' "$out/valgrind.json" >/dev/null; then
			echo "  (the scenario processes are forks of anonremap, so they run on valgrind's"
			echo "   CPU too, and valgrind's mremap wrapper refuses moves it cannot track: judge"
			echo "   the scenarios by a native run, valgrind only by its own report)"
		fi
	fi
	grep -E 'ERROR SUMMARY|definitely lost|indirectly lost|possibly lost|still reachable|All heap blocks' "$out/valgrind.log" |
		sed 's/^==[0-9]*== */  /'
	if [ "$vrc" = 99 ] || grep -qE 'ERROR SUMMARY: [1-9]' "$out/valgrind.log"; then
		fail "valgrind reports errors or leaks; the first ones:"
		awk '/^==[0-9]+== (Invalid|Conditional|Use of|Syscall param|Mismatched|[0-9,]+ (\([0-9,]+ direct, [0-9,]+ indirect\) )?bytes in .* (definitely|indirectly) lost)/ { p = 1; k = 0 }
			p { print; if (++k > 25 || /^==[0-9]+== $/) p = 0 }' "$out/valgrind.log" | head -60
	elif [ "$vrc" -eq 3 ] && [ -s "$out/valgrind.json" ] &&
		jq -e '[.scenarios[] | select(.status == "error") | .reason |
			test("scenario process [0-9]+ (exited|killed)")] | all' "$out/valgrind.json" >/dev/null; then
		# exit 3 for scenario processes that died: valgrind runs them too
		echo "  (exit 3: scenario processes died under valgrind, as above, not anonremap)"
	elif [ "$vrc" -ne 0 ] && [ "$vrc" -ne 1 ]; then
		fail "anonremap under valgrind exited $vrc: $(head -c 300 "$out/valgrind.stderr")"
	fi
fi
[ -z "$keep" ] || echo "samples, results and logs kept in $keep"
exit $status
