#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make check-deb (issue 21): build the Debian packages from the release
# tarball with Debian's own tools, check them with lintian, and use what
# they install as a user would, from a clean directory tree:
#
#   1. make dist-gzip, unpack, dpkg-buildpackage -b -us -uc;
#   2. lintian: no error and no warning (an override must say why, in
#      debian/*.lintian-overrides);
#   3. dpkg -x both packages into an empty tree; from there, anonremap list
#      finds the library, a scenario runs by name, the man pages render,
#      anonremap-vm answers --help from its /usr/bin link;
#   4. DKMS builds the x-ray module from the package's /usr/src against
#      Debian 12's 6.1 headers (fetched by scripts/xray-kmod.sh's private
#      apt, unpacked, not installed), in a DKMS tree of its own.
#
# Nothing is installed into the system but the build tools (scripts/setup.sh).
# Prints "check-deb: ok" and exits 0 when every step holds; else exits 1
# with the step that failed.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bld=${TOP_BUILDDIR:-$top}
me=check-deb
fail() {
	echo "$me: FAIL: $*" >&2
	exit 1
}
sh "$top/scripts/setup.sh" debhelper dh-dkms dkms lintian dpkg-dev gcc-12 make
tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-deb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# 1. the packages, from what make dist ships (debian/ must be in it)
(cd "$bld" && make -s dist-gzip >/dev/null) || fail "make dist-gzip"
ver=$(sed -n 's/^PACKAGE_VERSION = //p' "$bld/Makefile")
tar -xzf "$bld/anonremap-$ver.tar.gz" -C "$tmp"
src="$tmp/anonremap-$ver"
[ -f "$src/debian/control" ] || fail "debian/ is not in anonremap-$ver.tar.gz"
echo "$me: dpkg-buildpackage -b -us -uc in $src" >&2
(cd "$src" && unset MAKEFLAGS MFLAGS MAKELEVEL && dpkg-buildpackage -b -us -uc >"$tmp/build.log" 2>&1) ||
	{ tail -n 30 "$tmp/build.log" >&2; fail "dpkg-buildpackage"; }
arch=$(dpkg --print-architecture)
deb="$tmp/anonremap_${ver}_$arch.deb"
dkmsdeb="$tmp/anonremap-xray-dkms_${ver}_all.deb"
[ -f "$deb" ] && [ -f "$dkmsdeb" ] || fail "dpkg-buildpackage made $(ls "$tmp"/*.deb 2>/dev/null | tr '\n' ' ')"

# 2. lintian, on the .changes (both packages)
lintian --fail-on error,warning --display-info "$tmp/anonremap_${ver}_$arch.changes" >"$tmp/lintian.log" 2>&1 ||
	{ cat "$tmp/lintian.log" >&2; fail "lintian"; }
echo "$me: lintian: no error, no warning ($(grep -c '^[IP]:' "$tmp/lintian.log" || true) info or pedantic tags)" >&2

# 3. installed into a clean tree, used from there
root="$tmp/root"
dpkg -x "$deb" "$root"
dpkg -x "$dkmsdeb" "$root"
ar="$root/usr/bin/anonremap"
[ -x "$ar" ] || fail "no /usr/bin/anonremap in the package"
for f in usr/share/man/man1/anonremap.1.gz usr/share/man/man5/anonremap-scenario.5.gz \
	usr/share/bash-completion/completions/anonremap usr/share/anonremap/scenarios/mremap_unfaulted_to_faulted.json \
	usr/share/doc/anonremap/copyright usr/src/anonremap-xray-$ver/dkms.conf; do
	[ -e "$root/$f" ] || fail "no /$f in the packages"
done
n=$(ls "$root/usr/share/anonremap/scenarios"/*.json | wc -l)
[ "$n" -eq "$(ls "$top/scenarios"/*.json | wc -l)" ] || fail "$n scenarios installed, $(ls "$top/scenarios"/*.json | wc -l) in the tree"
# the library is found from the installed binary's own place, not from here
env -u ANONREMAP_SCENARIO_DIR "$ar" list >"$tmp/list" || fail "anonremap list"
grep -q '^mremap_unfaulted_to_faulted ' "$tmp/list" || fail "anonremap list does not list mremap_unfaulted_to_faulted: $(head -n 3 "$tmp/list")"
[ "$(wc -l <"$tmp/list")" -ge "$n" ] || fail "anonremap list printed $(wc -l <"$tmp/list") lines for $n files"
(cd / && env -u ANONREMAP_SCENARIO_DIR "$ar" run -f json mremap_unfaulted_to_faulted) >"$tmp/run.json" ||
	fail "anonremap run mremap_unfaulted_to_faulted (exit $?)"
[ "$(jq -r '.scenarios[0].status' "$tmp/run.json")" = pass ] || fail "the scenario did not pass: $(jq -c '.scenarios[0] | {status, reason}' "$tmp/run.json")"
zcat "$root/usr/share/man/man1/anonremap.1.gz" | mandoc -Tutf8 2>/dev/null | grep -q 'anonremap run' ||
	fail "anonremap.1 does not render"
"$root/usr/bin/anonremap-vm" --help >"$tmp/vm-help" 2>&1 || fail "anonremap-vm --help: $(head -n 3 "$tmp/vm-help")"
grep -q -- '--kernel' "$tmp/vm-help" || fail "anonremap-vm --help says nothing of --kernel"
echo "$me: installed tree: list ($n scenarios), run by name (pass), man page, anonremap-vm --help" >&2

# 4. DKMS against Debian 12's 6.1 headers. xray-kmod.sh fetches and unpacks
# them (and builds the module its own way, which also proves the headers).
out=$(sh "$top/scripts/xray-kmod.sh" --debian 6.1) || fail "scripts/xray-kmod.sh --debian 6.1"
rel=$(echo "$out" | sed -n 's/^release=//p')
hroot=${XDG_CACHE_HOME:-$HOME/.cache}/anonremap/xray/debian-6.1/root-$rel
hdr="$hroot/usr/src/linux-headers-$rel"
common=$(ls -d "$hroot"/usr/src/linux-headers-*-common | head -n 1)
[ -d "$hdr" ] && [ -d "$common" ] || fail "no unpacked headers for $rel under $hroot"
# unpacked, the headers' Makefile names its -common half by its /usr/src
# path: kmod/Makefile takes that half as KSRC (dkms passes the environment on)
mkdir -p "$tmp/dkms"
KSRC=$common dkms build -m anonremap-xray -v "$ver" -k "$rel" \
	--sourcetree "$root/usr/src" --dkmstree "$tmp/dkms" --kernelsourcedir "$hdr" >"$tmp/dkms.log" 2>&1 ||
	{ tail -n 30 "$tmp/dkms.log" >&2; cat "$tmp/dkms"/anonremap-xray/"$ver"/build/make.log >&2 2>/dev/null || true; fail "dkms build"; }
ko=$(find "$tmp/dkms/anonremap-xray/$ver/$rel" -name 'anonremap_xray.ko*' | head -n 1)
[ -n "$ko" ] || fail "dkms build made no anonremap_xray.ko: $(tail -n 5 "$tmp/dkms.log")"
vm=$(modinfo -F vermagic "$ko")
case $vm in "$rel "*) ;; *) fail "the module's vermagic is '$vm', not for $rel" ;; esac
echo "$me: dkms build against Debian's $rel headers: $(basename "$ko"), vermagic $vm" >&2
echo "$me: ok"
