#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Install anonremap as a kselftest collection named 'anonremap', in the layout
# the kernel's 'make -C tools/testing/selftests install' writes, so that a
# kernel CI fleet (KernelCI, LKFT: test-definitions' kselftest.yaml) runs it
# with 'run_kselftest.sh -c anonremap' as it runs any other collection:
#
#   DIR/run_kselftest.sh           the kernel's own (Linux 7.2)
#   DIR/kselftest/runner.sh ...    the kernel's own, with ktap_helpers.sh,
#                                  prefix.pl and module.sh
#   DIR/kselftest-list.txt         anonremap:NAME, one scenario a line
#   DIR/anonremap/NAME             one test program a scenario: runs it with
#                                  'anonremap run --format=ktap'; exit 0 pass,
#                                  4 skip (KSFT_SKIP), else fail
#   DIR/anonremap/settings         the collection's timeout
#   DIR/anonremap/bin/anonremap    the binary
#   DIR/anonremap/scenarios/       the scenario library
#
#   scripts/kselftest-install.sh DIR            install into DIR
#   scripts/kselftest-install.sh --tarball FILE DIR
#                                  install into DIR, then pack DIR as
#                                  FILE (a gzip'd tar of DIR's contents, as
#                                  the kernel's gen_tar packs kselftest.tar.gz)
#
# The runner files come from Debian's linux-source-7.2, fetched once with
# scripts/apt-private.sh (the archive this machine's apt sources name) into
# the cache relocate-kernel.sh uses, so the two share one download.
#   ANONREMAP (the binary, default the build tree's), KSELFTEST_TIMEOUT
#   (seconds a scenario, default 300), KERNEL_CACHE, UPSTREAM_PKG,
#   UPSTREAM_SUITE
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
me=kselftest-install
AR=${ANONREMAP:-$top/anonremap}
PKG=${UPSTREAM_PKG:-linux-source-7.2}
SUITE=${UPSTREAM_SUITE:-unstable}
cache=${KERNEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/anonremap/kernel}
timeout=${KSELFTEST_TIMEOUT:-300}

die() {
	echo "$me: $*" >&2
	exit 2
}
tarball=""
while [ $# -gt 0 ]; do
	case $1 in
	--tarball) [ $# -ge 2 ] || die "--tarball needs a file"; tarball=$2; shift 2 ;;
	--tarball=*) tarball=${1#*=}; shift ;;
	-h | --help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option $1 (see --help)" ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] && [ -n "$1" ] || die "usage: $me [--tarball FILE] DIR (make kselftest-install DESTDIR=DIR)"
dest=$1
[ -x "$AR" ] || die "no anonremap binary at $AR: build it first (make)"

# shellcheck source=scripts/apt-private.sh
. "$top/scripts/apt-private.sh"
deb=$(apt_cached_deb "$cache/apt" "$SUITE" "$PKG")
runner="$cache/kselftest-runner-$(basename "$deb" .deb)"
if [ ! -f "$runner/.done" ]; then
	rm -rf "$runner" "$runner.tmp" && mkdir -p "$runner.tmp"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$runner.tmp" --wildcards './usr/src/*.tar.xz'
	tar -xJf "$runner.tmp"/usr/src/*.tar.xz -C "$runner.tmp" --strip-components=4 --wildcards \
		'*/tools/testing/selftests/run_kselftest.sh' '*/tools/testing/selftests/kselftest/*'
	rm -rf "$runner.tmp/usr"
	[ -f "$runner.tmp/run_kselftest.sh" ] && [ -f "$runner.tmp/kselftest/runner.sh" ] ||
		die "$deb has no tools/testing/selftests/run_kselftest.sh and kselftest/runner.sh"
	touch "$runner.tmp/.done"
	mv "$runner.tmp" "$runner"
fi

mkdir -p "$dest/kselftest" "$dest/anonremap/bin" "$dest/anonremap/scenarios"
cp "$runner/run_kselftest.sh" "$dest/"
cp "$runner"/kselftest/* "$dest/kselftest/"
chmod 755 "$dest/run_kselftest.sh" "$dest/kselftest/prefix.pl"
cp "$AR" "$dest/anonremap/bin/anonremap"
cp "$top"/scenarios/*.json "$dest/anonremap/scenarios/"
# the runner's own limit a minute later, so that anonremap's timeout, which
# reports what the scenario was doing, comes first
echo "timeout=$((timeout + 60))" >"$dest/anonremap/settings"
list="$dest/kselftest-list.txt"
[ -f "$list" ] && grep -v '^anonremap:' "$list" >"$list.tmp" || : >"$list.tmp"
for f in "$top"/scenarios/*.json; do
	name=$(basename "$f" .json)
	cat >"$dest/anonremap/$name" <<EOF
#!/bin/sh
# kselftest anonremap:$name, from anonremap's scenario library: every
# variant of scenarios/$name.json as KTAP. Exit 0 pass, 4 skip (with the
# reason in its '# SKIP' line), 1 a failed expectation, 2 an invalid
# scenario, 3 the scenario process died or timed out.
cd "\$(dirname "\$0")" || exit 1
exec ./bin/anonremap run --format=ktap -t $timeout scenarios/$name.json
EOF
	chmod 755 "$dest/anonremap/$name"
	echo "anonremap:$name" >>"$list.tmp"
done
mv "$list.tmp" "$list"
echo "$me: $(grep -c '^anonremap:' "$list") tests in $dest (run_kselftest.sh -c anonremap)" >&2
if [ -n "$tarball" ]; then
	tar -czf "$tarball.tmp" -C "$dest" .
	mv "$tarball.tmp" "$tarball"
	echo "$me: $tarball" >&2
fi
