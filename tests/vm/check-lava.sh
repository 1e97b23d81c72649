#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make check-lava: the LAVA test definition (contrib/lava/anonremap.yaml)
# under a real dispatcher. For each kernel (Debian's 6.1, then Linux 7.2 with
# the relocate port, scripts/relocate-kernel.sh, cached):
#
#  1. the kselftest collection (scripts/kselftest-install.sh) run directly,
#     by the kernel's run_kselftest.sh in scripts/anonremap-vm;
#  2. the same collection in an initramfs (anonremap-vm --initrd), booted by
#     lava-run (Debian's lava-dispatcher) on a QEMU device whose dictionary is
#     lava-server's own qemu.jinja2 (contrib/lava/qemu-device.jinja2), with
#     the job contrib/lava/qemu-job.yaml and the test definition taken from a
#     git repository of contrib/lava/;
#  3. from LAVA's own result output (the lava-run log's results): the job
#     passed, every scenario of kselftest-list.txt has exactly one result,
#     and each scenario's pass, fail or skip is the direct run's (so the
#     three counts are the same).
#
# Installs lava-dispatcher (scripts/setup.sh) when lava-run is missing; the
# device-type templates come from lava-server's .deb, fetched, not installed
# (scripts/apt-private.sh). TAP on stdout, ending "N passed, M failed";
# everything kept in ${CHECK_LAVA_OUT:-check-lava.out}.
#   CHECK_LAVA_KERNELS ("debian-6.1 relocate"), VM_TIMEOUT (per boot, 1800 s)
set -eu
export LC_ALL=C # one order for sort and cmp
top=$(cd "$(dirname "$0")/../.." && pwd)
me=check-lava
AR=${ANONREMAP:-$top/anonremap}
out=${CHECK_LAVA_OUT:-$PWD/check-lava.out}
kernels=${CHECK_LAVA_KERNELS:-debian-6.1 relocate}
vmt=${VM_TIMEOUT:-1800}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/anonremap/lava
PY=/usr/bin/python3 # Debian's: python3-yaml and python3-jinja2 come with lava-dispatcher
die() {
	echo "$me: $*" >&2
	exit 2
}
for k in $kernels; do
	case $k in
	debian-[0-9]* | relocate) ;;
	*) die "CHECK_LAVA_KERNELS: debian-VERSION or relocate, not '$k'" ;;
	esac
done
[ -x "$AR" ] || sh "$top/scripts/build.sh"
if ! command -v qemu-system-x86_64 >/dev/null 2>&1 || ! command -v cpio >/dev/null 2>&1 ||
	{ [ ! -x /bin/busybox ] && [ ! -x /usr/bin/busybox ]; }; then
	sh "$top/scripts/setup-vm.sh"
fi
command -v jq >/dev/null 2>&1 || sh "$top/scripts/setup.sh"
if ! command -v lava-run >/dev/null 2>&1 || ! command -v git >/dev/null 2>&1; then
	sh "$top/scripts/setup.sh" lava-dispatcher git
fi
rm -rf "$out"
mkdir -p "$out"

# shellcheck source=tests/vm/tap.sh
. "$top/tests/vm/tap.sh"

# lava-server's device-type templates, from its .deb (this machine's suite).
# shellcheck source=scripts/apt-private.sh
. "$top/scripts/apt-private.sh"
# shellcheck disable=SC1091 # the machine's
suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
deb=$(apt_cached_deb "$cache/apt" "$suite" lava-server)
templates="$cache/$(basename "$deb" .deb)"
if [ ! -f "$templates/.done" ]; then
	rm -rf "$templates" && mkdir -p "$templates"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$templates" --strip-components=5 \
		./usr/share/lava-server/device-types/base.jinja2 ./usr/share/lava-server/device-types/qemu.jinja2
	if [ ! -f "$templates/qemu.jinja2" ] || [ ! -f "$templates/base.jinja2" ]; then
		die "$deb has no usr/share/lava-server/device-types/qemu.jinja2 and base.jinja2"
	fi
	touch "$templates/.done"
fi
"$PY" - "$top/contrib/lava" "$templates" "$out/device.yaml" <<'EOF'
import sys
import jinja2
env = jinja2.Environment(loader=jinja2.FileSystemLoader(sys.argv[1:3]),
                         trim_blocks=True, autoescape=False)
with open(sys.argv[3], "w") as f:
    f.write(env.get_template("qemu-device.jinja2").render())
EOF
ok "the QEMU device dictionary renders with $(basename "$deb")'s qemu.jinja2"

# The collection, and the test definition in a git repository of its own, as
# a lab takes it from anonremap's repository.
ks="$out/kselftest"
ANONREMAP="$AR" sh "$top/scripts/kselftest-install.sh" "$ks" 2>"$out/kselftest-install.err" || diag "$out/kselftest-install.err"
repo="$out/testdef"
mkdir -p "$repo/contrib"
cp -R "$top/contrib/lava" "$repo/contrib/"
(cd "$repo" && git init -q && git add -A &&
	git -c user.name=check-lava -c user.email=check-lava@localhost commit -q -m 'anonremap test definition') ||
	die "cannot make the test definition's git repository"

for k in $kernels; do
	allow="" skip=""
	case $k in
	debian-*)
		kargs="--debian ${k#debian-}"
		# the real 6.1 bug handle_uprobe_upon_merged_vma shows (README,
		# "A kernel matrix"; make check-vm asserts it): not this check's
		[ "$k" != debian-6.1 ] || allow="BUG: Bad rss-counter state"
		;;
	relocate)
		if ! image=$(sh "$top/scripts/relocate-kernel.sh" 2>"$out/relocate-kernel.err"); then
			diag "$out/relocate-kernel.err"
			notok "relocate-kernel.sh builds the patched kernel"
			continue
		fi
		kargs="--kernel $image"
		# the perf scenarios' 1 and 2 GiB moves take minutes in this debug
		# kernel under TCG, twice over: left out, as check-relocate does
		skip=$(ANONREMAP_SCENARIO_DIR="$top/scenarios" "$AR" list -f json |
			jq -r '[.[] | select(.tags | index("perf")) | .file] | unique[] | sub(".*/"; "") |
				"-S anonremap:" + sub("\\.json$"; "")' | tr '\n' ' ')
		;;
	esac
	kout="$out/$k"
	mkdir -p "$kout"
	# the scenarios this kernel runs: the collection's, but those skipped
	sed -n 's/^anonremap://p' "$ks/kselftest-list.txt" | sort >"$kout/names.txt"
	for n in $skip; do # -S anonremap:NAME ...
		[ "$n" = -S ] || grep -vx "${n#anonremap:}" "$kout/names.txt" >"$kout/names.tmp" || true
		[ "$n" = -S ] || mv "$kout/names.tmp" "$kout/names.txt"
	done
	want=$(wc -l <"$kout/names.txt")

	# 1. The direct run.
	rc=0
	# shellcheck disable=SC2086 # kargs are words
	"$top/scripts/anonremap-vm" $kargs ${allow:+--allow-splat "$allow"} --anonremap "$AR" --timeout "$vmt" \
		--log "$kout/direct.console.log" --tree "$ks" --exec "$ks/run_kselftest.sh" -- -c anonremap $skip >"$kout/direct.ktap" 2>"$kout/direct.stderr" || rc=$?
	"$top/contrib/lava/anonremap-lava.sh" -k "$kout/direct.ktap" | sort >"$kout/direct.txt"
	echo "# $k direct: $(cut -d' ' -f2 "$kout/direct.txt" | sort | uniq -c | tr '\n' ' ') (exit $rc)"
	# shellcheck disable=SC2016 # '$allow' is inside double quotes
	check "$k: the direct run_kselftest.sh -c anonremap ends, no kernel report${allow:+ but '$allow'}, every scenario once" \
		sh -c "[ $rc -ne 2 ] && [ $rc -ne 3 ] && [ $rc -ne 5 ] && [ \$(wc -l <'$kout/direct.txt') -eq $want ]"

	# 2. The LAVA job.
	# shellcheck disable=SC2086
	kernel=$("$top/scripts/anonremap-vm" $kargs --anonremap "$AR" --tree "$ks" --initrd "$kout/initrd.gz" 2>"$kout/initrd.err") ||
		{ diag "$kout/initrd.err"; notok "$k: anonremap-vm --initrd writes the initramfs"; continue; }
	sed -e "s|@KERNEL_URL@|file://$kernel|" -e "s|@RAMDISK_URL@|file://$kout/initrd.gz|" \
		-e "s|@TESTDEF_REPO@|$repo|" -e "s|@KSELFTEST_PATH@|/usr/libexec/anonremap-vm/tree|" \
		-e "s|@RUNNER_ARGS@|$skip|" \
		"$top/contrib/lava/qemu-job.yaml" >"$kout/job.yaml"
	t0=$(date +%s)
	lrc=0
	timeout -s KILL "$vmt" lava-run --job-id "anonremap-$$-$k" --output-dir "$kout/lava" \
		--device "$out/device.yaml" "$kout/job.yaml" >"$kout/lava.log" 2>&1 || lrc=$?
	"$PY" "$top/tests/vm/lava-results.py" "$kout/lava.log" >"$kout/lava-results.txt" || true
	job=$(awk '$1 == "lava" && $2 == "job" { print $3 }' "$kout/lava-results.txt")
	check "$k: lava-run boots the kernel and runs the test definition, job ${job:-without a result} (exit $lrc, $(($(date +%s) - t0)) s)" \
		test "$job" = pass

	# 3. LAVA's results against the direct run.
	awk '$1 ~ /_anonremap$/ { print $2, $3 }' "$kout/lava-results.txt" | sort >"$kout/lava.txt"
	echo "# $k LAVA: $(cut -d' ' -f2 "$kout/lava.txt" | sort | uniq -c | tr '\n' ' ')"
	cut -d' ' -f1 "$kout/lava.txt" >"$kout/lava-names.txt"
	diff "$kout/names.txt" "$kout/lava-names.txt" | diag || true
	check "$k: every scenario of kselftest-list.txt has exactly one LAVA result, but those left out ($(wc -l <"$kout/lava.txt") of $want)" \
		cmp -s "$kout/names.txt" "$kout/lava-names.txt"
	diff "$kout/direct.txt" "$kout/lava.txt" | diag || true
	check "$k: each scenario's LAVA result (pass, fail, skip) is the direct run's" \
		sh -c "[ -s '$kout/lava.txt' ] && cmp -s '$kout/direct.txt' '$kout/lava.txt'"
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
