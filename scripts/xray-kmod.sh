#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# xray-kmod.sh: build kmod/anonremap_xray.ko for a guest kernel. The one place
# that knows how; scripts/anonremap-vm --xray and tests/vm/xray.sh call it.
#
#   scripts/xray-kmod.sh --debian VERSION [--release REL] [--image]
#   scripts/xray-kmod.sh --kdir DIR
#
# --debian VERSION: Debian's linux-headers-REL-amd64 (with its -common half
# and linux-kbuild) from the suite anonremap-vm boots that VERSION from (6.1:
# bookworm; 6.12: trixie; 7.3: experimental; others: unstable), fetched with apt-get under a
# private sources list and state directory into
# ${XDG_CACHE_HOME:-$HOME/.cache}/anonremap/xray/debian-NAME. REL defaults to
# the ABI linux-headers-amd64 points at; anonremap-vm passes the release of
# the image it boots. --image also fetches linux-image-REL and prints its
# vmlinuz (tests/vm/xray.sh boots it).
# Debian unstable's headers need a newer gcc and glibc than Debian 12 has;
# where they are missing, the build runs kbuild's tools on unstable's own libc6
# and compiles with the host's gcc minus the options it lacks (kmod/README):
# a module for a throwaway test guest only, and "note=" says so.
#
# --kdir DIR: a kernel tree you built (make modules_prepare done), or any
# headers directory make -C DIR M=... accepts.
#
# Built modules are cached under .../anonremap/xray/modules/REL/, keyed by the
# kernel release, the module's sources and (for --kdir) the tree's .config and
# Module.symvers: a second call costs nothing.
#
# Output (stdout), one key=value a line: ko=PATH, release=REL, vermagic=...,
# kernel=VMLINUZ (--image), note=... (an experimental build). Progress and
# errors go to stderr. Exit status: 0 built (or cached); 2 the module could
# not be built, with the reason (the last lines of kbuild's log included).
# Needs: make, gcc (gcc-12 for Debian's 6.1), apt-get and dpkg for --debian.
set -eu

me=xray-kmod
top=$(cd "$(dirname "$0")/.." && pwd)
die() {
	echo "$me: $*" >&2
	exit 2
}
debian="" release="" kdir="" image=0
while [ $# -gt 0 ]; do
	case $1 in
	--debian) [ $# -ge 2 ] || die "$1 needs an argument"; debian=$2; shift 2 ;;
	--debian=*) debian=${1#*=}; shift ;;
	--release) [ $# -ge 2 ] || die "$1 needs an argument"; release=$2; shift 2 ;;
	--release=*) release=${1#*=}; shift ;;
	--kdir) [ $# -ge 2 ] || die "$1 needs an argument"; kdir=$2; shift 2 ;;
	--kdir=*) kdir=${1#*=}; shift ;;
	--image) image=1; shift ;;
	-h | --help) sed -n '3,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
[ -n "$debian" ] || [ -n "$kdir" ] || die "give --debian VERSION or --kdir DIR"
[ -z "$debian" ] || [ -z "$kdir" ] || die "give --debian or --kdir, not both"
for t in make gcc; do
	command -v $t >/dev/null 2>&1 || die "$t not found: install Debian's build-essential (scripts/setup.sh)"
done

# Not a sub-make of whoever called us (make check): no inherited flags,
# jobserver or "Entering directory" lines.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
cache=${XDG_CACHE_HOME:-$HOME/.cache}/anonremap/xray
work=$(mktemp -d "${TMPDIR:-/tmp}/xray-kmod.XXXXXX")
trap 'rm -rf "$work"' EXIT

# ---------------------------------------------------------------------------
# --debian: headers (and kbuild, and on request the image) of one ABI, under a
# private apt configuration (scripts/apt-private.sh).
# shellcheck source=scripts/apt-private.sh
. "$top/scripts/apt-private.sh"
fetch_debian() { # VERSION: sets rel, hdr, common, kbuild, kernel, d, APT
	case $1 in
	6.1 | 6.1.*) name=6.1; suites="bookworm bookworm-updates bookworm-security" ;;
	6.12 | 6.12.*) name=6.12; suites="trixie trixie-updates trixie-security" ;;
	# 7.3's release candidates are in experimental only; unstable, which
	# experimental builds on, gives the libc6 of its kbuild tools
	7.3 | 7.3.*) name=7.3; suites="experimental unstable" ;;
	*) name=unstable; suites=unstable ;;
	esac
	d="$cache/debian-$name"
	# shellcheck disable=SC2086 # the suites, one a word
	apt_private "$d" $suites
	deps() { # PACKAGE: its Depends, one name a line
		# shellcheck disable=SC2086
		apt-cache $APT show "$1" 2>/dev/null | sed -n 's/^Depends: //p' | head -n 1 | tr ',|' '\n\n' |
			sed 's/(.*//; s/ //g'
	}
	rel=$release
	[ -n "$rel" ] || rel=$(deps linux-headers-amd64 | sed -n 's/^linux-headers-\(.*-amd64\)$/\1/p' | sort -V | tail -n 1)
	[ -n "$rel" ] || die "no linux-headers-*-amd64 in Debian $suites"
	root="$d/root-$rel"
	get() { # PACKAGE...: download and unpack into $root
		for p; do
			# shellcheck disable=SC2086
			(cd "$d" && apt-get -qq $APT download "$p" >"$work/apt.log" 2>&1) ||
				die "apt-get download $p failed (Debian $suites): $(tail -n 1 "$work/apt.log")"
			dpkg -x "$(ls -t "$d/${p}_"*.deb | head -n 1)" "$root" || die "dpkg -x $p failed"
			rm -f "$d/${p}_"*.deb
		done
	}
	# .done: an older cache with both halves
	if [ ! -f "$root/.headers-done" ] && [ ! -f "$root/.done" ]; then
		echo "$me: fetching linux-headers-$rel (Debian $suites) into $root" >&2
		mkdir -p "$root"
		# shellcheck disable=SC2086
		apt-cache $APT show "linux-headers-$rel" >/dev/null 2>&1 ||
			die "Debian $suites has no linux-headers-$rel (the image may be newer or older than the headers in the archive: remove $(dirname "$cache")/vm/debian-$1 to fetch the image again)"
		# shellcheck disable=SC2046 # package names, one a word
		get "linux-headers-$rel" $(deps "linux-headers-$rel" | grep -E -- '^linux-(headers-.*-common|kbuild-.*)$' | tr '\n' ' ')
		touch "$root/.headers-done"
	fi
	kernel=""
	if [ "$image" = 1 ]; then
		if [ ! -f "$root/.image-done" ] && [ ! -f "$root/.done" ]; then
			echo "$me: fetching linux-image-$rel (Debian $suites) into $root" >&2
			# shellcheck disable=SC2046
			get "linux-image-$rel" $(deps "linux-image-$rel" | grep -E -- "^linux-binary-" | tr '\n' ' ')
			touch "$root/.image-done"
		fi
		kernel=$(ls "$root"/boot/vmlinuz-* "$root"/usr/lib/modules/*/vmlinuz 2>/dev/null | head -n 1)
		[ -n "$kernel" ] || die "no vmlinuz in $root"
	fi
	hdr="$root/usr/src/linux-headers-$rel"
	[ -d "$hdr" ] || die "no $hdr (remove $root to fetch again)"
	common=$(cd "$root/usr/src" && ls -d "$PWD"/linux-headers-*-common | head -n 1)
	kbuild=$(cd -P "$hdr/scripts" && cd .. && pwd)
}

note="" kernel=""
if [ -n "$debian" ]; then
	fetch_debian "$debian"
	key="debian:$rel"
else
	[ -d "$kdir" ] || die "--kdir: no directory '$kdir'"
	kdir=$(cd "$kdir" && pwd)
	rel=""
	[ ! -f "$kdir/Makefile" ] || rel=$(make -s --no-print-directory -C "$kdir" kernelrelease 2>/dev/null | tail -n 1 || true)
	[ -n "$rel" ] || rel=$(cat "$kdir/include/config/kernel.release" 2>/dev/null || true)
	case $rel in *[[:space:]/]*) rel="" ;; esac
	[ -n "$rel" ] || die "$kdir is not a configured kernel tree ('make kernelrelease' says nothing; run make modules_prepare there)"
	[ -f "$kdir/Module.symvers" ] ||
		echo "$me: warning: $kdir has no Module.symvers (build the kernel first): modpost cannot check symbols" >&2
	key="kdir:$kdir:$(cat "$kdir/.config" "$kdir/Module.symvers" 2>/dev/null | md5sum | cut -d' ' -f1)"
fi
key="$key:$(cat "$top/kmod/anonremap_xray.c" "$top/kmod/Kbuild" | md5sum | cut -d' ' -f1)"
mdir="$cache/modules/$rel"
ko="$mdir/anonremap_xray.ko"

if [ -f "$ko" ] && [ "$(cat "$mdir/key" 2>/dev/null)" = "$key" ]; then
	note=$(cat "$mdir/note" 2>/dev/null || true)
else
	mk=""
	if [ -n "$kdir" ]; then
		mk="make -C $kdir"
	elif ! ldd "$kbuild/scripts/basic/fixdep" 2>&1 | grep -q 'not found' &&
		command -v "$(sed -n 's/^CC = .*\$(CROSS_COMPILE)\(.*\)$/x86_64-linux-gnu-\1/p' "$hdr/.kernelvariables" 2>/dev/null || echo gcc)" >/dev/null 2>&1; then
		# The headers' own compiler and kbuild tools work here (Debian 12's
		# 6.1 on Debian 12). Their Makefile includes the common half by its
		# absolute /usr/src path: point make at the unpacked one.
		mk="make -C $hdr -f $common/Makefile"
	else
		# Debian unstable's kernel on an older host: run kbuild's tools on
		# unstable's own libc6 (its loader, --library-path), compile with the
		# host's gcc minus the options it lacks, skip BTF (no vmlinux).
		kcc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\([^ ]*\).*/\1/p' "$hdr/.config")
		note="experimental build: the host's gcc for the kernel's $kcc, kbuild tools on Debian unstable's libc6; for a test guest only (kmod/README)"
		echo "$me: $note" >&2
		glibc="$d/glibc"
		if [ ! -f "$glibc/.done" ]; then
			rm -rf "$glibc"
			# shellcheck disable=SC2086
			(cd "$d" && apt-get -qq $APT download libc6 >/dev/null 2>&1) || die "apt-get download libc6 (Debian unstable) failed"
			dpkg -x "$(ls -t "$d"/libc6_*.deb | head -n 1)" "$glibc" && rm -f "$d"/libc6_*.deb && touch "$glibc/.done"
		fi
		G="$glibc/usr/lib/x86_64-linux-gnu"
		cp -a "$kbuild" "$work/kbuild"
		find "$work/kbuild" -type f -perm -u+x | while read -r b; do
			if ldd "$b" 2>&1 | grep -q 'not found'; then
				mv "$b" "$b.elf"
				printf '#!/bin/sh\nexec %s/ld-linux-x86-64.so.2 --library-path %s %s.elf "$@"\n' "$G" "$G" "$b" >"$b"
				chmod 755 "$b"
			fi
		done
		mkdir -p "$work/hdr"
		(cd "$hdr" && tar -c --exclude=./vmlinux --exclude=./scripts --exclude=./tools .) | tar -x -C "$work/hdr"
		ln -s "$work/kbuild/scripts" "$work/hdr/scripts"
		ln -s "$work/kbuild/tools" "$work/hdr/tools"
		mkdir -p "$work/bin"
		cat >"$work/bin/cc" <<-'EOS'
		#!/bin/sh
		# the host's gcc, minus the options of newer gcc that it lacks
		for a; do
			shift
			case $a in
			-fmin-function-alignment=*) set -- "$@" "-falign-functions=${a#*=}" ;;
			-fzero-init-padding-bits=* | -fdiagnostics-show-context* | -fms-anonymous-structs | \
				-Wno-unterminated-string-initialization | -Wno-default-const-init-unsafe | \
				-Wflex-array-member-not-at-end) ;;
			*) set -- "$@" "$a" ;;
			esac
		done
		exec gcc "$@"
		EOS
		chmod 755 "$work/bin/cc"
		mk="make -C $work/hdr -f $common/Makefile KBUILD_OUTPUT=$work/hdr CC=$work/bin/cc"
	fi
	mkdir -p "$work/kmod"
	cp "$top/kmod/anonremap_xray.c" "$top/kmod/Kbuild" "$top/kmod/Makefile" "$work/kmod/"
	echo "$me: building anonremap_xray.ko for $rel" >&2
	if ! $mk M="$work/kmod" modules >"$work/kbuild.log" 2>&1 || [ ! -f "$work/kmod/anonremap_xray.ko" ]; then
		tail -n 25 "$work/kbuild.log" | sed "s/^/$me: kbuild: /" >&2
		die "anonremap_xray.ko does not build for $rel (kbuild's log above)"
	fi
	# The module's own warnings (the kernel headers' are not ours to fix).
	grep 'anonremap_xray\.c:[0-9]*:[0-9]*: warning:' "$work/kbuild.log" | sed "s/^/$me: kbuild: /" >&2 || true
	mkdir -p "$mdir"
	cp "$work/kmod/anonremap_xray.ko" "$ko.tmp" && mv -f "$ko.tmp" "$ko"
	cp "$work/kbuild.log" "$mdir/kbuild.log"
	printf '%s\n' "$note" >"$mdir/note"
	printf '%s\n' "$key" >"$mdir/key"
fi
vermagic=$(modinfo -F vermagic "$ko" 2>/dev/null || strings "$ko" | sed -n 's/^vermagic=//p')
case "$vermagic" in
"$rel "*) ;;
*) die "the module built for $rel says vermagic '$vermagic'" ;;
esac
echo "ko=$ko"
echo "release=$rel"
echo "vermagic=$vermagic"
[ -z "$kernel" ] || echo "kernel=$kernel"
[ -z "$note" ] || echo "note=$note"
exit 0
