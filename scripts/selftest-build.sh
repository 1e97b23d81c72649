# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
# Sourced, not run: building the kernel's mm selftests the one way this
# project does (check-upstream.sh, bench-overhead.sh). The caller defines
# die() and has sourced scripts/apt-private.sh.
#
#   selftest_unpack CACHE SUITE PKG   the selftests' sources from PKG's .deb
#                                     into CACHE/src (once; .done-4 names the .deb:
#                                     the number goes up when the set of
#                                     files taken grows);
#                                     prints CACHE/src
#   selftest_build SRC OUT TEST...    builds each TEST (merge, mremap_test,
#                                     ...) of SRC/tools/testing/selftests/mm
#                                     as OUT/TEST
#
# SRC may also be relocate-kernel.sh's whole, seed-patched tree
# (KERNEL_CACHE/src-VERSION), whose selftests use MREMAP_RELOCATE_ANON.

selftest_unpack() { # CACHE SUITE PKG
	_deb=$(apt_cached_deb "$1" "$2" "$3")
	_src="$1/src"
	# the mark names the .deb: another UPSTREAM_PKG in the same CACHE unpacks anew
	if [ "$(cat "$_src/.done-4" 2>/dev/null)" != "$(basename "$_deb")" ]; then
		rm -rf "$_src" && mkdir -p "$_src"
		dpkg-deb --fsys-tarfile "$_deb" | tar -x -C "$_src" --wildcards './usr/src/*.tar.xz'
		tar -xJf "$(ls "$_src"/usr/src/*.tar.xz)" -C "$_src" --strip-components=1 --wildcards \
			'*/tools/testing/selftests/mm/*' '*/tools/testing/selftests/kselftest*.h' \
			'*/tools/testing/selftests/pidfd/*' '*/tools/testing/selftests/clone3/*' \
			'*/include/uapi/linux/fs.h' '*/include/uapi/linux/userfaultfd.h' '*/mm/gup_test.h'
		rm -rf "${_src:?}/usr"
		basename "$_deb" >"$_src/.done-4"
	fi
	echo "$_src"
}

# Debian 12's headers lack some constants: they are given on the command
# line, and the source's own linux/fs.h for PROCMAP_QUERY. The RELOCATE_ANON
# flags are the seed series' (never mainline; unused by a pristine tree).
selftest_build() { # SRC OUT TEST...
	_src=$1 _out=$2
	shift 2
	_mm="$_src/tools/testing/selftests/mm"
	mkdir -p "$_out/include/linux"
	cp "$_src/include/uapi/linux/fs.h" "$_out/include/linux/fs.h"
	# uffd-unit-tests needs this kernel's UFFDIO_MOVE, newer than Debian 12's headers
	cp "$_src/include/uapi/linux/userfaultfd.h" "$_out/include/linux/userfaultfd.h"
	for _t; do
		_extra=
		case $_t in uffd-*) _extra="$_mm/uffd-common.c" ;; esac
		gcc -O2 -w -I"$_mm/.." -I"$_out/include" -DPR_SET_MEMORY_MERGE=67 -DPR_GET_MEMORY_MERGE=68 \
			-DPR_SET_MDWE=65 -DPR_GET_MDWE=66 -DPR_MDWE_REFUSE_EXEC_GAIN=1 -DPR_MDWE_NO_INHERIT=2 \
			-D__NR_mseal=462 -DMREMAP_RELOCATE_ANON=8 -DMREMAP_MUST_RELOCATE_ANON=16 \
			-DMADV_GUARD_INSTALL=102 -DMADV_GUARD_REMOVE=103 -DMAP_DROPPABLE=0x08 -DPKEY_UNRESTRICTED=0 '-D__packed=__attribute__((__packed__))' \
			"$_mm/$_t.c" $_extra "$_mm/vm_util.c" "$_mm/hugepage_settings.c" -o "$_out/$_t" -lm -lpthread ||
			die "cannot build $_mm/$_t.c"
	done
}
