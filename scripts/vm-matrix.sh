#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The scenario library (minus the tags slow and perf) on several kernels:
# Debian's 6.1, 7.2 and 7.3 images booted by scripts/anonremap-vm, 7.2 with the
# project's port of the relocate series (kernel/, built and cached by
# scripts/relocate-kernel.sh), and the host's own kernel run directly. Writes a markdown table, scenario x kernel with
# pass, fail or skip, to stdout (and DIR/matrix.md), each kernel's result to
# DIR/results/, and for every scenario whose outcome differs between two
# kernels the 'anonremap diff' of the two to DIR/diff/NAME.A--B.txt.
#
#   scripts/vm-matrix.sh --out DIR [--debian V]... [--kernel IMAGE]... [--relocate] [--no-host]
#
# Without --debian, --kernel, --relocate or --host: --debian 6.1 --host
# --debian 7.2 --relocate --debian 7.3.
# Other options: --all (slow and perf too), --timeout S (per VM, default 1800),
# --no-xray (by default each VM loads the x-ray module, anonremap-vm --xray:
# for --debian from Debian's headers, for --kernel when the image lies in its
# built tree, so the xray_* scenarios run there).
# Exit 0 when every kernel gave a result, 1 when one did not (tool error). A
# kernel report in a guest's log (anonremap-vm's exit 5) is listed under the
# table and on stderr, as kernel behaviour, not an error.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
AR=${ANONREMAP:-$top/anonremap}
out="" cols="" host_given=0 excl="-x slow -x perf" vmtimeout=1800 xray=1

usage() {
	sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'
}
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=$2; shift 2 ;;
	--out=*) out=${1#*=}; shift ;;
	--debian) cols="$cols debian:$2"; shift 2 ;;
	--debian=*) cols="$cols debian:${1#*=}"; shift ;;
	--kernel) cols="$cols kernel:$2"; shift 2 ;;
	--kernel=*) cols="$cols kernel:${1#*=}"; shift ;;
	--host) cols="$cols host:"; host_given=1; shift ;;
	--relocate) cols="$cols relocate:"; shift ;;
	--no-host) host_given=-1; shift ;;
	--all) excl=""; shift ;;
	--no-xray) xray=0; shift ;;
	--timeout) vmtimeout=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) echo "vm-matrix: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
	esac
done
[ -n "$out" ] || { echo "vm-matrix: give --out DIR" >&2; exit 2; }
if [ -z "$cols" ]; then
	cols="debian:6.1 host: debian:7.2 relocate: debian:7.3"
	[ "$host_given" = -1 ] && cols="debian:6.1 debian:7.2 relocate: debian:7.3"
fi
[ -x "$AR" ] || sh "$top/scripts/build.sh"
command -v jq >/dev/null 2>&1 || { echo "vm-matrix: jq is needed (scripts/setup.sh)" >&2; exit 2; }
mkdir -p "$out/results" "$out/diff"
rm -f "$out/results"/*.json "$out/diff"/*.txt

# One result per kernel: results/K.json, labels in $out/labels (file<TAB>label),
# kernel reports anonremap-vm found (its exit 5) in $out/reports.
: >"$out/labels"
: >"$out/reports"
status=0
k=0
for c in $cols; do
	k=$((k + 1))
	kind=${c%%:*}
	arg=${c#*:}
	if [ "$kind" = relocate ]; then
		arg=$(sh "$top/scripts/relocate-kernel.sh") || { echo "vm-matrix: relocate-kernel.sh failed" >&2; status=1; continue; }
	fi
	res="$out/results/$k.json"
	t0=$(date +%s)
	rc=0
	case $kind in
	host)
		# shellcheck disable=SC2086
		"$AR" run -f json -k -t 300 $excl -o "$res" "$top"/scenarios/*.json >/dev/null 2>"$out/results/$k.stderr" || rc=$?
		;;
	debian | kernel | relocate)
		# the x-ray module for the xray_* scenarios: Debian's headers, or
		# the tree the image was built in (else they skip, saying why)
		sel="--debian $arg --xray"
		if [ "$kind" != debian ]; then
			sel="--kernel $arg"
			kd=$(dirname "$arg")
			[ -f "$kd/../../../.config" ] && [ -f "$kd/../../../Makefile" ] && sel="$sel --xray"
		fi
		[ "$xray" = 1 ] || sel=$(echo "$sel" | sed 's/ --xray//')
		# shellcheck disable=SC2086
		"$top/scripts/anonremap-vm" $sel --anonremap "$AR" --timeout "$vmtimeout" \
			--log "$out/results/$k.console.log" \
			-- run -f json -k -t 300 $excl -o "$res" "$top"/scenarios/*.json \
			>/dev/null 2>"$out/results/$k.stderr" || rc=$?
		;;
	esac
	t1=$(date +%s)
	if [ -s "$res" ] && jq -e .scenarios "$res" >/dev/null 2>&1; then
		label=$(jq -r .kernel.release "$res")
		[ "$kind" = host ] && label="$label (host)"
		[ "$kind" = kernel ] && label="$label ($(basename "$arg"))"
		[ "$kind" = relocate ] && label="$label (relocate series)"
		printf '%s\t%s\n' "$res" "$label" >>"$out/labels"
		echo "vm-matrix: $kind $arg: $label, exit $rc, $((t1 - t0)) s" >&2
		if [ "$rc" = 5 ]; then
			# the kernel logged a report: kernel behaviour, not a tool error
			grep 'kernel report' "$out/results/$k.stderr" | sed 's/^anonremap-vm: /vm-matrix:   /' >&2
			printf '%s\t%s\n' "$label" "$(grep 'kernel report' "$out/results/$k.stderr" |
				sed 's/^anonremap-vm: kernel report[^:]*: //' | sort -u | tr '\n' ';' | sed 's/;$//')" >>"$out/reports"
		elif [ "$rc" -gt 1 ] && [ "$rc" -ne 4 ]; then
			status=1
		fi
	else
		echo "vm-matrix: $kind $arg: no result (exit $rc); see $out/results/$k.stderr" >&2
		sed 's/^/vm-matrix:   /' "$out/results/$k.stderr" | tail -n 5 >&2
		status=1
	fi
done

# The table: one row a scenario (variants included), one column a kernel.
cut -f 1 "$out/labels" | while read -r f; do
	jq -r --arg f "$f" '.scenarios[] | [$f, .name, .status, (.reason // "" | gsub("[\t\n]"; " "))] | @tsv' "$f"
done >"$out/all.tsv"
{
	printf '| scenario |'
	cut -f 2 "$out/labels" | while IFS= read -r l; do printf ' %s |' "$l"; done
	printf '\n|---|'
	cut -f 2 "$out/labels" | while IFS= read -r l; do printf -- '---|'; done
	printf '\n'
	awk -F '\t' '
		NR == FNR { files[++nf] = $1; next }
		{ if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 } st[$1, $2] = $3 }
		END {
			for (i = 1; i <= n; i++) {
				s = order[i]; row = "| " s " |"; d = 0; first = ""
				for (j = 1; j <= nf; j++) {
					v = ((files[j], s) in st) ? st[files[j], s] : "-"
					if (j == 1) first = v; else if (v != first) d = 1
					row = row " " v " |"
				}
				if (d) { sub(/^\| [^|]* \|/, "| **" s "** |", row) }
				print row
			}
		}' "$out/labels" "$out/all.tsv"
	printf '| *total pass/fail/skip* |'
	cut -f 1 "$out/labels" | while read -r f; do
		printf ' %s |' "$(jq -r '.summary | "\(.pass)/\(.fail)/\(.skip)"' "$f")"
	done
	printf '\n\nScenarios in **bold** have a different outcome on some kernel: '
	printf 'their anonremap diff is in %s/diff/.\n' "$out"
	if [ -s "$out/reports" ]; then
		printf '\nKernel reports in the guest'"'"'s log (anonremap-vm exit 5; console logs in %s/results/):\n\n' "$out"
		while IFS='	' read -r l r; do printf -- '- %s: %s\n' "$l" "$r"; done <"$out/reports"
	fi
} >"$out/matrix.md"

# Differing outcomes: anonremap diff of each pair of kernels that disagree.
one() { # RESULT NAME -> the result with that scenario only
	jq --arg n "$2" '.scenarios |= map(select(.name == $n))' "$1"
}
awk -F '\t' '
	NR == FNR { files[++nf] = $1; next }
	{ if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 } st[$1, $2] = $3 }
	END {
		for (i = 1; i <= n; i++)
			for (a = 1; a <= nf; a++)
				for (b = a + 1; b <= nf; b++)
					if (((files[a], order[i]) in st) && ((files[b], order[i]) in st) &&
					    st[files[a], order[i]] != st[files[b], order[i]])
						print order[i] "\t" files[a] "\t" files[b]
	}' "$out/labels" "$out/all.tsv" >"$out/differ.tsv"
lab() { awk -F '\t' -v f="$1" '$1 == f { print $2 }' "$out/labels"; }
while IFS='	' read -r name a b; do
	la=$(lab "$a" | sed 's/ .*//')
	lb=$(lab "$b" | sed 's/ .*//')
	file="$out/diff/$(printf '%s' "$name" | tr '[]/' '___').$la--$lb.txt"
	one "$a" "$name" >"$out/a.json"
	one "$b" "$name" >"$out/b.json"
	{
		echo "# $name: $(lab "$a") against $(lab "$b")"
		"$AR" diff "$out/a.json" "$out/b.json" || true
	} >"$file"
done <"$out/differ.tsv"
rm -f "$out/a.json" "$out/b.json"

cat "$out/matrix.md"
if [ -s "$out/differ.tsv" ]; then
	printf '\nOutcomes that differ (reason on the kernel where the scenario did not pass):\n\n'
	cut -f 1 "$out/differ.tsv" | awk '!seen[$0]++' | while IFS= read -r name; do
		awk -F '\t' -v n="$name" '$2 == n && $3 != "pass" { print $1 "\t" $3 "\t" $4 }' "$out/all.tsv" |
			while IFS='	' read -r f st reason; do
				printf -- '- %s on %s: %s%s\n' "$name" "$(lab "$f")" "$st" "${reason:+: $reason}"
			done
	done
fi
exit "$status"
