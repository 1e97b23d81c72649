#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# relocate-kernel.sh: build Linux 7.2 with the project's port of the
# MREMAP_RELOCATE_ANON series (kernel/series) and its config (kernel/config),
# and print the bzImage's path on stdout. The build tree beside it (three
# directories up) serves as anonremap-vm's --kdir, and holds the ported
# selftests, built against its headers, in selftests/.
#
#   scripts/relocate-kernel.sh            build, or reuse the cached build
#   scripts/relocate-kernel.sh --key      print the cache key only
#   scripts/relocate-kernel.sh --tree     print the build tree only (builds)
#
# Debian's linux-source-7.2 is fetched with apt-get under a private apt
# configuration (scripts/apt-private.sh: the archive comes from this
# machine's apt sources) into ${XDG_CACHE_HOME:-$HOME/.cache}/anonremap/kernel.
# Each build lives in build-KEY there, KEY a hash of the source package's
# version, the patches in series order, the config fragment and this
# script's build recipe, so a second call builds nothing. The source tree
# is shared: the patches of the last build are reversed before the next
# series is applied, and a new key starts from a copy of the newest build
# of the same source and config, so an edit to mm/ rebuilds in seconds.
#
# Every option of kernel/config must survive 'make olddefconfig'; one that
# does not fails the build, naming it. A patch that does not apply, or a
# build that breaks, fails with exit 2 and kbuild's last lines.
#   KERNEL_PKG (default linux-source-7.2), KERNEL_SUITE (default unstable),
#   KERNEL_CACHE, JOBS (default: the CPUs), KERNEL_DIR (default kernel/: a
#   series and config of your own)
set -eu

me=relocate-kernel
top=$(cd "$(dirname "$0")/.." && pwd)
die() {
	echo "$me: $*" >&2
	exit 2
}
mode=build
case ${1:-} in
"") ;;
--key) mode=key ;;
--tree) mode=tree ;;
-h | --help) sed -n '3,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
*) die "unknown argument '$1' (see --help)" ;;
esac
# shellcheck source=scripts/apt-private.sh
. "$top/scripts/apt-private.sh"

PKG=${KERNEL_PKG:-linux-source-7.2}
SUITE=${KERNEL_SUITE:-unstable}
cache=${KERNEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/anonremap/kernel}
jobs=${JOBS:-$(nproc)}
kdir=${KERNEL_DIR:-$top/kernel}
# Bump when the way a tree is built changes, so that old builds are not reused.
recipe=2
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES

[ -f "$kdir/series" ] || die "no $kdir/series"
patches=$(grep -v '^[[:space:]]*\(#\|$\)' "$kdir/series")
for p in $patches; do [ -f "$kdir/$p" ] || die "kernel/series names $p, which is not in kernel/"; done

mkdir -p "$cache"
deb=$(apt_cached_deb "$cache/apt" "$SUITE" "$PKG")
version=$(dpkg-deb -f "$deb" Version)
confkey=$(printf '%s\n%s\n' "$version" "$recipe" | cat - "$kdir/config" | sha256sum | cut -c1-16)
key=$( (printf '%s\n%s\n' "$version" "$recipe"; cat "$kdir/config" "$kdir/series"
	for p in $patches; do cat "$kdir/$p"; done) | sha256sum | cut -c1-16)
[ "$mode" = key ] && { echo "$key"; exit 0; }

out="$cache/build-$key"
image="$out/arch/x86/boot/bzImage"
if [ -f "$out/.done" ] && [ -f "$image" ]; then
	echo "$me: cached: $out (key $key)" >&2
	if [ "$mode" = tree ]; then echo "$out"; else echo "$image"; fi
	exit 0
fi

for t in make gcc flex bison bc; do
	command -v "$t" >/dev/null 2>&1 || missing=1
done
[ -f /usr/include/libelf.h ] && [ -f /usr/include/openssl/ssl.h ] || missing=1
[ -z "${missing:-}" ] || sh "$top/scripts/setup.sh" build-essential flex bison bc libelf-dev libssl-dev xz-utils

# One build at a time: the source tree is shared.
exec 9>"$cache/lock"
flock 9

# The pristine source, unpacked once per version.
src="$cache/src-$version"
if [ ! -f "$src/.unpacked" ]; then
	echo "$me: unpacking $(basename "$deb") into $src" >&2
	rm -rf "$src" "$cache/unpack"
	mkdir -p "$cache/unpack" "$src"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$cache/unpack" --wildcards './usr/src/*.tar.xz'
	tar -xJf "$cache"/unpack/usr/src/*.tar.xz -C "$src" --strip-components=1
	rm -rf "$cache/unpack"
	mkdir -p "$src/.anonremap-applied"
	touch "$src/.unpacked"
fi

# Reverse what the last build applied, then apply this series.
applied="$src/.anonremap-applied"
log="$cache/build-$key.log"
: >"$log"
if [ -f "$applied/series" ]; then
	for p in $(tac "$applied/series"); do
		patch -d "$src" -p1 -R -s -f --no-backup-if-mismatch <"$applied/$p" >>"$log" 2>&1 ||
			die "cannot reverse $p of the last build in $src (remove $src to unpack it again): $(tail -n 5 "$log")"
	done
	rm -rf "$applied"
	mkdir -p "$applied"
fi
for p in $patches; do
	if ! patch -d "$src" -p1 -s -f --no-backup-if-mismatch <"$kdir/$p" >>"$log" 2>&1; then
		tail -n 20 "$log" >&2
		patch -d "$src" -p1 -R -s -f --no-backup-if-mismatch <"$kdir/$p" >/dev/null 2>&1 || true
		for q in $(tac "$applied/series" 2>/dev/null); do
			patch -d "$src" -p1 -R -s -f --no-backup-if-mismatch <"$applied/$q" >/dev/null 2>&1 || true
		done
		rm -rf "$applied" && mkdir -p "$applied"
		die "kernel/$p does not apply to $PKG $version (above)"
	fi
	cp "$kdir/$p" "$applied/$p"
	echo "$p" >>"$applied/series"
done

# A new key starts from the newest build of the same source and config.
rm -rf "$out"
seed=$(ls -td "$cache"/build-*/ 2>/dev/null | while read -r d; do
	[ "$(cat "$d/.confkey" 2>/dev/null)" = "$confkey" ] && [ -f "$d/.done" ] && echo "${d%/}" && break
done || true)
if [ -n "$seed" ]; then
	echo "$me: starting from $seed" >&2
	cp -a "$seed" "$out"
	rm -f "$out/.done"
else
	mkdir -p "$out"
fi
echo "$confkey" >"$out/.confkey"

echo "$me: configuring (tinyconfig + kernel/config)" >&2
{
	make -C "$src" O="$out" tinyconfig &&
		"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$kdir/config" &&
		make -C "$src" O="$out" olddefconfig
} >>"$log" 2>&1 || { tail -n 30 "$log" >&2; die "configuring failed (above; the whole log: $log)"; }
lost=$(grep -v '^[[:space:]]*\(#\|$\)' "$kdir/config" | while IFS= read -r l; do
	k=${l%%=*}
	case $l in
	*=n) ! grep -q "^$k=" "$out/.config" || echo "$l" ;;
	*) grep -qx "$l" "$out/.config" || echo "$l" ;;
	esac
done)
[ -z "$lost" ] || die "olddefconfig dropped options of kernel/config (add what they depend on): $(echo "$lost" | tr '\n' ' ')"

echo "$me: building bzImage and modules with $jobs jobs (log: $log)" >&2
t0=$(date +%s)
if ! make -C "$src" O="$out" -j"$jobs" bzImage modules >>"$log" 2>&1; then
	grep -E 'error|Error' "$log" | head -n 20 >&2 || true
	tail -n 30 "$log" >&2
	die "the kernel build failed (above; the whole log: $log)"
fi
make -C "$src" O="$out" headers >>"$log" 2>&1 || { tail -n 20 "$log" >&2; die "make headers failed"; }

# The series' selftests, against the tree's own headers: merge.c and
# mremap_test.c as check-upstream builds them, run in the guest by
# tests/vm/check-relocate.sh.
mm="$src/tools/testing/selftests/mm"
mkdir -p "$out/selftests"
for t in merge mremap_test; do
	gcc -O2 -w -I"$mm/.." -isystem "$out/usr/include" "$mm/$t.c" "$mm/vm_util.c" \
		"$mm/hugepage_settings.c" -o "$out/selftests/$t" -lm >>"$log" 2>&1 ||
		{ tail -n 20 "$log" >&2; die "building the $t selftest failed"; }
done
echo "$me: built in $(($(date +%s) - t0)) s: $out" >&2
touch "$out/.done"
if [ "$mode" = tree ]; then echo "$out"; else echo "$image"; fi
