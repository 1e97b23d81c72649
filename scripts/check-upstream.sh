#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Cross-check the scenario library with the kernel's own selftests, built from
# Debian's linux-source package and run on this kernel. Prints a table,
# selftest by selftest: the selftest's verdict, anonremap's, and whether the
# scenario asserts the same VMA bounds. Exit 0 when every row agrees.
#
# The package is fetched with apt-get download under a private sources list
# and state directory (scripts/apt-private.sh: the archive is the one this
# machine's apt sources name): the system's apt configuration is left untouched.
#   UPSTREAM_PKG   (default linux-source-7.2)
#   UPSTREAM_SUITE (default unstable)
#   CACHE          (default ${XDG_CACHE_HOME:-$HOME/.cache}/anonremap/upstream)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
AR=${ANONREMAP:-$top/anonremap}
PKG=${UPSTREAM_PKG:-linux-source-7.2}
SUITE=${UPSTREAM_SUITE:-unstable}
CACHE=${CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/anonremap/upstream}
mkdir -p "$CACHE/lists/partial" "$CACHE/archives/partial" "$CACHE/build"

die() {
	echo "check-upstream: $*" >&2
	exit 2
}
# shellcheck source=scripts/apt-private.sh
. "$top/scripts/apt-private.sh"
deb=$(apt_cached_deb "$CACHE" "$SUITE" "$PKG")
src="$CACHE/src"
if [ ! -f "$src/.done" ]; then
	rm -rf "$src" && mkdir -p "$src"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$src" --wildcards './usr/src/*.tar.xz'
	tarball=$(ls "$src"/usr/src/*.tar.xz)
	tar -xJf "$tarball" -C "$src" --strip-components=1 --wildcards \
		'*/tools/testing/selftests/mm/*' '*/tools/testing/selftests/kselftest*.h' \
		'*/include/uapi/linux/fs.h'
	rm -rf "$src/usr"
	touch "$src/.done"
fi

# Build the three selftests. Debian 12's headers lack some constants: give
# them on the command line, and the package's own linux/fs.h for PROCMAP_QUERY.
inc="$CACHE/build/include"
mkdir -p "$inc/linux"
cp "$src/include/uapi/linux/fs.h" "$inc/linux/fs.h"
mm="$src/tools/testing/selftests/mm"
for t in merge mremap_test mremap_dontunmap; do
	gcc -O2 -w -I"$mm/.." -I"$inc" -DPR_SET_MEMORY_MERGE=67 -DPR_GET_MEMORY_MERGE=68 \
		-D__NR_mseal=462 "$mm/$t.c" "$mm/vm_util.c" "$mm/hugepage_settings.c" \
		-o "$CACHE/build/$t" -lm
done

out="$CACHE/run"
mkdir -p "$out"
for t in merge mremap_test mremap_dontunmap; do
	(cd "$CACHE/build" && timeout 600 "./$t" >"$out/$t.ktap" 2>&1) || true
done
# The whole library, slow cases included, as JSON.
"$AR" run -t 300 -k -o "$out/library.json" "$top"/scenarios/*.json || true
python3 "$top/scripts/upstream-table.py" --src "$mm" --selftests "$out" \
	--library "$out/library.json" --scenarios "$top/scenarios" --map "$top/tests/upstream-map.txt"
