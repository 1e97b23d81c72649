#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make check-vm: the quick part of the scenario library, run inside Debian's
# 6.1 kernel booted under QEMU by scripts/anonremap-vm --xray (the x-ray
# module built for it and loaded, so the xray_* scenarios run for real). 6.1
# has no PROCMAP_QUERY, so this runs anonremap's /proc/PID/maps fallback on a
# real kernel. Each scenario's status must be the one recorded in
# tests/vm/expected-6.1.txt ("name<TAB>pass|fail|skip"): some selftest
# expectations do not hold on 6.1 (VMA merging changed since), and those are
# recorded as fail, kernel behaviour. A tool error always fails the test:
# anonremap's exit 2 or 3, a status "error", a crash, a hung or silent guest,
# missing or unreadable output. Then tests/vm/xray.sh (VM_XRAY=0 skips it):
# the x-ray module's own checks in a second boot, among them that reading the
# x-ray leaves /proc/PID/maps and pagemap byte-identical.
#
#   tests/vm/check-vm.sh            compare with the expected file
#   tests/vm/check-vm.sh --update   run, and rewrite the expected statuses
#
# Then four short boots, stress in the guest and --exec (VM_STRESS=0 skips
# them), and one of Debian's 7.3 with the x-ray (VM_73=0 skips it): see the
# end of this file.
#
# Environment: ANONREMAP (the binary), VM_DEBIAN (default 6.1),
# VM_EXPECTED (default tests/vm/expected-$VM_DEBIAN.txt), VM_TIMEOUT (600 s).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
AR=${ANONREMAP:-$top/anonremap}
DEBIAN=${VM_DEBIAN:-6.1}
EXPECTED=${VM_EXPECTED:-$top/tests/vm/expected-$DEBIAN.txt}
update=0
[ "${1:-}" = --update ] && update=1

[ -x "$AR" ] || sh "$top/scripts/build.sh"
if ! command -v qemu-system-x86_64 >/dev/null 2>&1 || ! command -v cpio >/dev/null 2>&1 ||
	{ [ ! -x /bin/busybox ] && [ ! -x /usr/bin/busybox ]; }; then
	sh "$top/scripts/setup-vm.sh"
fi
command -v jq >/dev/null 2>&1 || sh "$top/scripts/setup.sh"

names=$(grep -v '^#' "$EXPECTED" | cut -f 1 | sed 's/\[.*//' | awk 'NF && !seen[$0]++')
tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-vm.XXXXXX")
keep=0
trap '[ "$keep" = 1 ] || rm -rf "$tmp"' EXIT
result="$tmp/result.json"

t0=$(date +%s)
rc=0
# shellcheck disable=SC2086
ANONREMAP_VM_VERBOSE=1 "$top/scripts/anonremap-vm" --debian "$DEBIAN" --xray --anonremap "$AR" \
	--timeout "${VM_TIMEOUT:-600}" --log "$tmp/console.log" \
	-- run -f json -k -t 120 -o "$result" $names >"$tmp/stdout" 2>"$tmp/stderr" || rc=$?
t1=$(date +%s)
sed 's/^/# /' "$tmp/stderr"
echo "# anonremap-vm --debian $DEBIAN: exit $rc after $((t1 - t0)) s"

pass=0 fail=0 i=0
ok() {
	i=$((i + 1))
	pass=$((pass + 1))
	echo "ok $i $*"
}
notok() {
	i=$((i + 1))
	fail=$((fail + 1))
	echo "not ok $i $*"
}
case $rc in
0 | 1 | 4) ok "anonremap-vm exit $rc" ;;
3) notok "anonremap-vm exit 3: the guest hung, crashed or sent nothing back, or anonremap failed (tool error)" ;;
*) notok "anonremap-vm exit $rc: a usage error or an invalid scenario (tool error)" ;;
esac
if [ -s "$result" ] && jq -e '.scenarios | length > 0' "$result" >/dev/null 2>&1; then
	ok "result $(jq -r '.kernel.release' "$result"): $(jq -r '.summary | "\(.pass) pass, \(.fail) fail, \(.skip) skip, \(.error) error"' "$result")"
	jq -r '.scenarios[] | "\(.name)\t\(.status)\t\(.reason // "")"' "$result" >"$tmp/actual.txt"
else
	notok "no result came back (missing or not JSON)"
	: >"$tmp/actual.txt"
fi

if [ "$update" = 1 ]; then
	if [ "$fail" -ne 0 ]; then
		echo "not updating $EXPECTED: the run had tool errors" >&2
		keep=1
		echo "$pass passed, $fail failed"
		exit 1
	fi
	{
		grep '^#' "$EXPECTED" || true
		cut -f 1,2 "$tmp/actual.txt"
	} >"$tmp/expected.new"
	mv "$tmp/expected.new" "$EXPECTED"
	echo "# wrote $EXPECTED"
fi

# Every expected line must be there with its status; nothing unexpected.
while IFS='	' read -r name want; do
	case $name in '#'* | '') continue ;; esac
	got=$(awk -F '\t' -v n="$name" '$1 == n { print $2; exit }' "$tmp/actual.txt")
	reason=$(awk -F '\t' -v n="$name" '$1 == n { print $3; exit }' "$tmp/actual.txt")
	if [ -z "$got" ]; then
		notok "$name: expected $want, missing from the result"
	elif [ "$got" = error ]; then
		notok "$name: error (tool error): $reason"
	elif [ "$got" = "$want" ]; then
		ok "$name: $got${reason:+ # $reason}"
	else
		notok "$name: expected $want, got $got${reason:+: $reason}"
	fi
done <"$EXPECTED"
awk -F '\t' 'NR == FNR { if ($1 !~ /^#/) want[$1] = 1; next } !($1 in want) { print $1 "\t" $2 }' \
	"$EXPECTED" "$tmp/actual.txt" >"$tmp/unexpected.txt"
while IFS='	' read -r name got; do
	notok "$name: $got, not in $(basename "$EXPECTED")"
done <"$tmp/unexpected.txt"

if [ "$fail" -ne 0 ]; then
	keep=1
	echo "# kept for inspection: $tmp (console.log: the guest's kernel log)"
	sed 's/^/# stdout: /' "$tmp/stdout" | head -n 20
fi

# The x-ray module's own checks (tests/vm/xray.sh), 6.1 only: its counts join ours.
if [ "${VM_XRAY:-1}" != 0 ] && [ "$update" = 0 ] && [ "$DEBIAN" = 6.1 ]; then
	t0=$(date +%s)
	xrc=0
	ANONREMAP="$AR" sh "$top/tests/vm/xray.sh" >"$tmp/xray.log" 2>&1 || xrc=$?
	t1=$(date +%s)
	sed 's/^/# xray.sh: /' "$tmp/xray.log" | grep -E '^# xray.sh: (not ok|# guest)|failed$' || true
	x=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$tmp/xray.log" | tail -n 1)
	if [ -n "$x" ] && [ "$xrc" = 0 ]; then
		ok "tests/vm/xray.sh: $x, $((t1 - t0)) s"
	else
		keep=1
		cp "$tmp/xray.log" "$tmp/xray.kept.log"
		notok "tests/vm/xray.sh: exit $xrc${x:+, $x} (log: $tmp/xray.kept.log)"
	fi
fi
# Issue 12's VM pieces and --exec, four short boots (VM_STRESS=0 skips them).
if [ "${VM_STRESS:-1}" != 0 ] && [ "$update" = 0 ]; then
	# 1. The x-ray invariant exercised with the test switch --xray-all-moves
	# (a moved faulted VMA breaks it on a kernel without the series), so the
	# check, the reproducer and the minimizer run for real; the reproducers
	# come back through --out.
	s="$tmp/stress"
	t0=$(date +%s)
	src=0
	"$top/scripts/anonremap-vm" --debian "$DEBIAN" --xray --anonremap "$AR" \
		--timeout "${VM_TIMEOUT:-600}" -- \
		stress --seed 7 --steps 60 --reclaim --xray-all-moves --out "$s" -o "$s.json" \
		>"$tmp/stress.out" 2>"$tmp/stress.err" || src=$?
	t1=$(date +%s)
	sed 's/^/# stress: /' "$tmp/stress.err" | grep -E 'seed|broke|minimized|kernel report|anonremap-vm: [^k ]' || true
	if [ "$src" = 1 ] && jq -e '.stress.violation.invariant == "xray"' "$s.json" >/dev/null 2>&1; then
		ok "stress --xray-all-moves in the guest: the x-ray invariant broke, as it must without the series (exit 1, $((t1 - t0)) s)"
	else
		notok "stress --xray-all-moves in the guest: exit $src, invariant $(jq -r '.stress.violation.invariant' "$s.json" 2>/dev/null), expected exit 1 and xray"
	fi
	if jq -e '.stress.invariants.xray | startswith("checked")' "$s.json" >/dev/null 2>&1; then
		ok "stress: invariant xray $(jq -r '.stress.invariants.xray' "$s.json")"
	else
		notok "stress: invariant xray not checked with the module loaded: $(jq -r '.stress.invariants.xray' "$s.json" 2>/dev/null)"
	fi
	min="$s/stress-7-min.json"
	if [ -f "$s/stress-7.json" ] && [ -f "$min" ] &&
		[ "$(jq -r '.stress.violation.minimized' "$s.json" 2>/dev/null)" = "$min" ] &&
		jq -e '(.steps | length) <= 8 and .steps[-1].folios_linear == true and .requires == ["xray"]' "$min" >/dev/null 2>&1; then
		ok "stress --out: both reproducers came back to the host (the minimized one: $(jq '.steps | length' "$min") steps, ending in expect folios_linear)"
	else
		notok "stress --out: reproducers missing or wrong under $s: $(ls "$s" 2>&1 | tr '\n' ' ')"
	fi
	if jq -e '.stress.violation.minimized_replay | startswith("failed")' "$s.json" >/dev/null 2>&1; then
		ok "stress: the minimized reproducer fails when replayed in the guest ($(jq -r '.stress.violation.minimized_replay' "$s.json"))"
	else
		notok "stress: the minimized reproducer did not fail when replayed: $(jq -r '.stress.violation.minimized_replay' "$s.json" 2>/dev/null)"
	fi

	# 2. A real stress run with --reclaim: swap (the 512M anonremap-vm gives
	# stress --reclaim by default, no --swap) and a memory cgroup are
	# there, pages really go out to swap and come back, nothing breaks; the
	# x-ray invariant is skipped, saying why (no relocating move on 6.1). A
	# kernel-log line that --allow-splat allows leaves the exit status alone.
	r="$tmp/reclaim"
	t0=$(date +%s)
	src=0
	ANONREMAP_VM_KMSG="WARNING: anonremap-vm-test: allowed marker" \
		"$top/scripts/anonremap-vm" --debian "$DEBIAN" --xray --anonremap "$AR" \
		--timeout "${VM_TIMEOUT:-600}" --allow-splat 'anonremap-vm-test: allowed' -- \
		stress --seed 42 --time 8 --reclaim --check-every 16 --out "$r" -o "$r.json" \
		>"$tmp/reclaim.out" 2>"$tmp/reclaim.err" || src=$?
	t1=$(date +%s)
	grep 'kernel report' "$tmp/reclaim.err" | sed 's/^/# reclaim: /' || true
	if [ "$src" = 0 ] && jq -e '.stress.violation == null and .stress.ops > 0' "$r.json" >/dev/null 2>&1; then
		ok "stress --reclaim in the guest: $(jq -r '.stress | "\(.ops) operations, \(.pageouts) pageouts"' "$r.json"), no invariant broke ($((t1 - t0)) s)"
	else
		notok "stress --reclaim in the guest: exit $src, violation $(jq -c '.stress.violation' "$r.json" 2>/dev/null)"
	fi
	if jq -e '.stress.reclaim.swap_devices >= 1 and .stress.reclaim.cgroup != null and .stress.reclaim.swapped_out_pages > 0 and .stress.reclaim.swapped_in_pages > 0' "$r.json" >/dev/null 2>&1; then
		ok "stress --reclaim: swap ($(jq -r '.stress.reclaim.swap_devices' "$r.json") zram device) and a memory.high cgroup; $(jq -r '.stress.reclaim | "\(.swapped_out_pages) pages swapped out, \(.swapped_in_pages) in"' "$r.json")"
	else
		notok "stress --reclaim: no swap, no cgroup, or nothing swapped: $(jq -c '.stress.reclaim' "$r.json" 2>/dev/null)"
	fi
	if [ "$DEBIAN" != 6.1 ] || jq -e '.stress.invariants.xray | test("^skipped: the x-ray is loaded, but no move can relocate here: .*EINVAL")' "$r.json" >/dev/null 2>&1; then
		ok "stress: invariant xray $(jq -r '.stress.invariants.xray' "$r.json")"
	else
		notok "stress: invariant xray: $(jq -r '.stress.invariants.xray' "$r.json" 2>/dev/null)"
	fi
	if grep -q 'kernel report (allowed by --allow-splat): WARNING: anonremap-vm-test' "$tmp/reclaim.err" && [ "$src" = 0 ]; then
		ok "kernel-log scan: an allowed report is printed, the exit status stays anonremap's"
	else
		notok "kernel-log scan: the allowed test line was not reported, or changed the exit status ($src)"
	fi

	# 3. Pages really swapped out (pageout with --swap: 'w' in pages_state)
	# and back in intact. And a kernel report that is not allowed makes it
	# exit 5: on 6.1 a real one, merge.c's handle_uprobe_upon_merged_vma
	# (its expectations hold, but 6.1 lacks the fix that selftest came with
	# and logs "BUG: Bad rss-counter state"); elsewhere a /dev/kmsg line.
	cat >"$tmp/swap_pageout.json" <<-'EOS'
	{"anonremap": 1, "name": "swap_pageout", "description": "8 pages paged out to zram swap, then read back",
	 "steps": [
	  {"op": "mmap", "name": "ptr", "at": "carveout+1p", "len": "8p", "prot": "rw"},
	  {"op": "fault", "region": "ptr", "len": "8p", "pattern": 7},
	  {"op": "madvise", "region": "ptr", "len": "8p", "advice": "pageout"},
	  {"op": "dump", "label": "swapped"},
	  {"op": "verify", "region": "ptr", "len": "8p", "pattern": 7}]}
	EOS
	if [ "$DEBIAN" = 6.1 ]; then
		kmsg="" also=handle_uprobe_upon_merged_vma want='BUG: Bad rss-counter state'
	else
		kmsg="BUG: anonremap-vm-test: not allowed" also="" want='BUG: anonremap-vm-test'
	fi
	t0=$(date +%s)
	src=0
	ANONREMAP_VM_KMSG="$kmsg" "$top/scripts/anonremap-vm" --debian "$DEBIAN" --swap 64M --anonremap "$AR" \
		--timeout "${VM_TIMEOUT:-600}" -- run -f json -o "$tmp/swap.json" "$tmp/swap_pageout.json" $also \
		>"$tmp/swap.out" 2>"$tmp/swap.err" || src=$?
	t1=$(date +%s)
	grep 'kernel report' "$tmp/swap.err" | sed 's/^/# swap: /' || true
	st=$(jq -r '.scenarios[0].dumps[0].vmas[] | select(.region == "ptr") | "\(.pages_state) \(.swap_pages)"' "$tmp/swap.json" 2>/dev/null || true)
	if [ "$st" = "wwwwwwww 8" ] && [ "$(jq -r '.scenarios[0].status' "$tmp/swap.json")" = pass ]; then
		ok "--swap: 8 pages paged out show as 'w' ($st swapped), and read back intact ($((t1 - t0)) s)"
	else
		notok "--swap: pages_state/swap_pages '$st', status $(jq -r '.scenarios[0].status' "$tmp/swap.json" 2>/dev/null)"
	fi
	if [ "$src" = 5 ] && grep -q "kernel report: $want" "$tmp/swap.err" &&
		grep -q 'exit 5: .*anonremap itself exited 0' "$tmp/swap.err"; then
		ok "kernel-log scan: a report not allowed ($want${also:+, logged by $also}) is printed and makes the exit status 5"
	else
		notok "kernel-log scan: exit $src; $(grep 'kernel report\|exit 5' "$tmp/swap.err" | head -n 2 | tr '\n' ' ')"
	fi

	# 4. --exec: PROGRAM's ARGS are its own, passed as given, even a word
	# that names a file where anonremap-vm runs (run_kselftest.sh -c
	# anonremap, from a build tree that holds ./anonremap).
	mkdir -p "$tmp/execdir"
	: >"$tmp/execdir/anonremap"
	src=0
	(cd "$tmp/execdir" && "$top/scripts/anonremap-vm" --debian "$DEBIAN" --anonremap "$AR" \
		--timeout "${VM_TIMEOUT:-600}" --exec /bin/sh -- -c 'echo "$1" | tr / _' sh anonremap) \
		>"$tmp/exec.out" 2>"$tmp/exec.err" || src=$?
	# (tr: a guest path in the output would be mapped back to the host's)
	if [ "$src" = 0 ] && [ "$(cat "$tmp/exec.out")" = anonremap ]; then
		ok "--exec: PROGRAM's ARGS reach it as given ('anonremap', with ./anonremap a file)"
	else
		notok "--exec: exit $src, PROGRAM printed '$(head -c 200 "$tmp/exec.out")'"
	fi
fi
# 5. Debian's 7.3 (VM_73=0 skips it), with the separate anonymous page
# offset: the probe says anon_pgoff, anon_and_page_offset_mismatch_memfd
# passes (it fails on 6.18 and 7.2, as merge.c's own test does), and the
# x-ray module built for 7.3 shows each VMA's anon_pgoff and names it as the
# reason the two VMAs did not merge.
if [ "${VM_73:-1}" != 0 ] && [ "$update" = 0 ]; then
	t0=$(date +%s)
	src=0
	"$top/scripts/anonremap-vm" --debian 7.3 --xray --anonremap "$AR" --timeout "${VM_TIMEOUT:-600}" -- \
		run -X -f json -o "$tmp/73.json" anon_and_page_offset_mismatch_memfd \
		>"$tmp/73.out" 2>"$tmp/73.err" || src=$?
	t1=$(date +%s)
	rel=$(jq -r '.kernel.release' "$tmp/73.json" 2>/dev/null || true)
	if [ "$src" = 0 ] && jq -e '.kernel.features.anon_pgoff == true and .scenarios[0].status == "pass"' "$tmp/73.json" >/dev/null 2>&1; then
		ok "Debian $rel: anon_pgoff, and anon_and_page_offset_mismatch_memfd passes ($((t1 - t0)) s)"
	else
		notok "Debian 7.3: exit $src, anon_pgoff $(jq -c '.kernel.features.anon_pgoff' "$tmp/73.json" 2>/dev/null), status $(jq -r '.scenarios[0].status' "$tmp/73.json" 2>/dev/null); $(tail -n 3 "$tmp/73.err" | tr '\n' ' ')"
	fi
	# the final dump: ptr (file page 0, unfaulted) at carveout, ptr2 (file
	# page 5, faulted at carveout+10p) at carveout+5p
	got=$(jq -r '.scenarios[0].dumps[-1] as $d
		| [($d.vmas[] | select(.rel == "carveout..carveout+5p" or .rel == "carveout+5p..carveout+10p")
			| "\(.rel) \(.xray.vm_pgoff) \(.xray.anon_pgoff)"), ($d.non_merges[] | "\(.at): \(.why)")] | join("; ")' \
		"$tmp/73.json" 2>/dev/null || true)
	c=$(jq -r '.scenarios[0].carveout.start' "$tmp/73.json" 2>/dev/null || echo 0)
	want=$(printf 'carveout..carveout+5p 0x0 0x%x; carveout+5p..carveout+10p 0x5 0x%x; carveout+5p: anon_pgoff not contiguous: 0x%x + 5 != 0x%x' \
		$((c / 4096)) $((c / 4096 + 10)) $((c / 4096)) $((c / 4096 + 10)))
	if [ "$got" = "$want" ]; then
		ok "x-ray on 7.3: anon_pgoff of each VMA (where it was first faulted), and the reason they stay apart: $got"
	else
		notok "x-ray on 7.3: got '$got', want '$want'"
	fi
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
