#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/vm/xray.sh: the x-ray module (kmod/) on a real kernel. Builds
# anonremap_xray.ko for Debian 12's 6.1 kernel (or for --kdir), boots that
# kernel under QEMU with an initramfs of its own (busybox, anonremap,
# tests/unit/test_xray, the module), insmods the module and checks what the
# x-ray shows for the merge.c cases:
#   - an unfaulted VMA moved has its pgoff updated (pgoff == new start);
#   - a faulted VMA moved keeps its pgoff, and its folios keep their indices:
#     consistent with pgoff (rmap) but not linear at the new place;
#   - a forked VMA has an anon_vma_chain of 2, rooted at the parent's anon_vma;
#   - the merged result of mremap_unfaulted_to_faulted has linear folios;
#   - the non-merges are explained in the kernel's terms;
#   - reading the x-ray changes nothing: /proc/PID/maps and pagemap are
#     byte-identical before and after each read.
#
# How the guest drives it: each case is 'anonremap run -e STEP... -e pause';
# the guest's init waits for the "paused: pid P, carveout LO-HI" line on
# anonremap's stderr, snapshots maps and pagemap, reads the x-ray through
# debugfs with the shell (control + data) and through src/xray.c
# (test_xray --live: the race-free request-on-the-data-file path), snapshots
# again, and sends SIGCONT. The results come back as a tar stream over the
# second serial port (ttyS1), never scraped from the console; the checks run
# on the host.
#
#   tests/vm/xray.sh                       Debian 12's linux-image-6.1.0-*-amd64
#   tests/vm/xray.sh --kdir DIR --kernel IMAGE   a kernel you built (DIR: its tree)
#   tests/vm/xray.sh --debian unstable     Debian unstable's kernel (7.2 today):
#                                          experimental, see kmod/README
#   tests/vm/xray.sh --kernel IMAGE --ko FILE    a module built elsewhere for IMAGE
#   tests/vm/xray.sh --capture DIR         also copy the raw records to DIR
#   tests/vm/xray.sh --keep                keep the work directory
#
# Environment: ANONREMAP (binary; default the build tree's), TOP_BUILDDIR
# (where make built anonremap and tests/unit/test_xray), XRAY_ACCEL (kvm or
# tcg; default tcg), XRAY_TIMEOUT (seconds for the whole guest run, default
# 900), QEMU. The module is built by scripts/xray-kmod.sh, which fetches
# Debian's packages with apt-get under a private sources list into
# ${XDG_CACHE_HOME:-$HOME/.cache}/anonremap/xray and caches the module by
# kernel release.
# Needs: qemu-system-x86, busybox-static, cpio, gcc-12, make (scripts/setup-vm.sh
# installs the first three). Output: TAP-like lines, then "N passed, N failed".
set -eu

me=xray.sh
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${TOP_BUILDDIR:-$top}
AR=${ANONREMAP:-$build/anonremap}
kdir="" kernel="" ko="" capture="" keep=0 debian=6.1
while [ $# -gt 0 ]; do
	case $1 in
	--kdir) kdir=$2; shift 2 ;;
	--kernel) kernel=$2; shift 2 ;;
	--ko) ko=$2; shift 2 ;;
	--debian) debian=$2; shift 2 ;;
	--capture) capture=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	-h | --help) sed -n '3,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "$me: unknown option $1" >&2; exit 2 ;;
	esac
done
case $debian in 6.1 | unstable) ;; *) echo "$me: --debian 6.1 or unstable" >&2; exit 2 ;; esac
if [ -n "$ko" ]; then
	[ -n "$kernel" ] && [ -z "$kdir" ] || { echo "$me: --ko goes with --kernel (and without --kdir)" >&2; exit 2; }
elif [ -n "$kdir" ] || [ -n "$kernel" ]; then
	[ -n "$kdir" ] && [ -n "$kernel" ] || { echo "$me: --kdir and --kernel go together" >&2; exit 2; }
fi

die() {
	echo "$me: $*" >&2
	echo "0 passed, 1 failed"
	exit 1
}

QEMU=${QEMU:-qemu-system-x86_64}
need=""
command -v "$QEMU" >/dev/null 2>&1 || need="$need qemu-system-x86"
command -v cpio >/dev/null 2>&1 || need="$need cpio"
[ -x /bin/busybox ] && ! ldd /bin/busybox >/dev/null 2>&1 || need="$need busybox-static"
if [ -n "$need" ]; then
	echo "$me: installing:$need" >&2
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need >/dev/null ||
		die "cannot install$need"
fi
[ -x "$AR" ] || (cd "$build" && make -s anonremap) || die "no anonremap binary at $AR"
(cd "$build" && make -s tests/unit/test_xray) || die "cannot build tests/unit/test_xray in $build"
TX=$build/tests/unit/test_xray

work=$(mktemp -d "${TMPDIR:-/tmp}/xray-vm.XXXXXX")
qpid=""
cleanup() {
	[ -z "$qpid" ] || kill -KILL "$qpid" 2>/dev/null || true
	if [ "$keep" = 1 ]; then echo "# work directory kept: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

# ---------------------------------------------------------------------------
# The module: built (or taken from the cache) by scripts/xray-kmod.sh, the one
# place that knows how; anonremap-vm --xray uses it too.
mkdir -p "$work/kmod"
note=""
if [ -n "$ko" ]; then
	rel="(prebuilt module)"
	cp "$ko" "$work/kmod/anonremap_xray.ko" || die "cannot read $ko"
else
	if [ -n "$kdir" ]; then
		kargs="--kdir $kdir"
	else
		kargs="--debian $debian --image"
	fi
	# shellcheck disable=SC2086
	sh "$top/scripts/xray-kmod.sh" $kargs >"$work/kmod.out" 2>"$work/kmod.err" || {
		sed 's/^/# /' "$work/kmod.err"
		die "the module does not build$([ -z "$kdir" ] || echo " for $kdir")"
	}
	sed 's/^/# /' "$work/kmod.err"
	rel=$(sed -n 's/^release=//p' "$work/kmod.out")
	[ -n "$kdir" ] || kernel=$(sed -n 's/^kernel=//p' "$work/kmod.out")
	n=$(sed -n 's/^note=//p' "$work/kmod.out")
	[ -z "$n" ] || note=" ($n)"
	cp "$(sed -n 's/^ko=//p' "$work/kmod.out")" "$work/kmod/anonremap_xray.ko"
fi
[ -r "$kernel" ] || die "no kernel image $kernel"
vermagic=$(modinfo -F vermagic "$work/kmod/anonremap_xray.ko" 2>/dev/null || strings "$work/kmod/anonremap_xray.ko" | sed -n 's/^vermagic=//p')

# ---------------------------------------------------------------------------
# The initramfs.
r="$work/root"
mkdir -p "$r/bin" "$r/proc" "$r/sys" "$r/dev" "$r/tmp" "$r/out" "$r/usr/bin" "$r/scen"
cp /bin/busybox "$r/bin/busybox"
copy_exec() { # SRC DEST
	mkdir -p "$r$(dirname "$2")"
	cp -L "$1" "$r$2"
	ldd "$1" 2>/dev/null | while read -r a b c _; do
		case "$a $b $c" in
		*"=> /"*) mkdir -p "$r$(dirname "$c")"; [ -e "$r$c" ] || cp -L "$c" "$r$c" ;;
		/*) mkdir -p "$r$(dirname "$a")"; [ -e "$r$a" ] || cp -L "$a" "$r$a" ;;
		esac
	done
}
copy_exec "$AR" /usr/bin/anonremap
copy_exec "$TX" /usr/bin/test_xray
cp "$work/kmod/anonremap_xray.ko" "$r/anonremap_xray.ko"
cp "$top"/scenarios/mremap_relocate_anon_faulted_after_unfaulted.json "$r/scen/"

cat >"$r/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/usr/bin:/bin ANONREMAP_SCENARIO_DIR=/scen
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug
exec </dev/console >/dev/console 2>&1
O=/out
X=/sys/kernel/debug/anonremap-xray
log() { echo "xray-guest: $*"; echo "$*" >>$O/guest.log; }
uname -r >$O/uname
test_xray --available >$O/available.before 2>&1
insmod /anonremap_xray.ko >$O/insmod.log 2>&1
echo $? >$O/insmod.rc
test_xray --available >$O/available.after 2>&1
ls -l $X >$O/debugfs.ls 2>&1

snap() { # PID LO HI FILE: maps, and the pagemap of the whole reserved area
	cat /proc/$1/maps >$4.maps
	dd if=/proc/$1/pagemap bs=8 skip=$(($2 / 4096)) count=$((($3 - $2) / 4096)) 2>/dev/null >$4.pagemap
}
xread() { # PID LO HI OUT [folios]: through control + data, as a person would
	echo "$1 $2 $3 ${5:-}" >$X/control || log "control write failed for $*"
	cat $X/data >$4 2>$4.err || log "data read failed for $*"
}

run_case() { # NAME STEP...: run to the pause step, read, go on
	name=$1
	shift
	n=$#
	for s; do set -- "$@" -e "$s"; done
	shift $n
	anonremap run -f json -t 300 "$@" >$O/$name.json 2>$O/$name.err &
	apid=$!
	i=0
	while ! grep -q 'paused: pid' $O/$name.err 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt 600 ] || ! kill -0 $apid 2>/dev/null; then
			log "$name: never paused"
			wait $apid
			echo $? >$O/$name.rc
			return
		fi
		sleep 0.1
	done
	line=$(grep -m1 'paused: pid' $O/$name.err)
	pid=$(echo "$line" | sed 's/.*paused: pid \([0-9]*\),.*/\1/')
	lo=$(echo "$line" | sed 's/.*carveout \(0x[0-9a-f]*\)-.*/\1/')
	hi=$(echo "$line" | sed 's/.*carveout 0x[0-9a-f]*-\(0x[0-9a-f]*\);.*/\1/')
	echo "$pid $lo $hi" >$O/$name.target
	# The reserved area: the carveout and its 64 MiB guards.
	rlo=$(printf '0x%x' $((lo - 0x4000000)))
	rhi=$(printf '0x%x' $((hi + 0x4000000)))
	case $name in *ksm*)
		# ksmd merges the identical pages in two passes: wait for it.
		i=0
		while [ "$(cat /sys/kernel/mm/ksm/pages_shared)" = 0 ] && [ $i -lt 300 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		echo 0 >/sys/kernel/mm/ksm/run
		;;
	esac
	snap $pid $rlo $rhi $O/$name.before
	xread $pid $rlo $rhi $O/$name.xray folios
	xread $pid $lo $hi $O/$name.nofolios
	test_xray --live $pid $lo $hi >$O/$name.live 2>&1
	echo $? >$O/$name.live.rc
	ppid=$(cut -d' ' -f4 /proc/$pid/stat)
	if [ "$(cat /proc/$ppid/comm)" = anonremap ] && [ "$ppid" != "$apid" ]; then
		# forked: the parent scenario process too
		xread $ppid $lo $hi $O/$name.parent.xray folios
		test_xray --live $ppid $lo $hi >$O/$name.parent.live 2>&1
	fi
	snap $pid $rlo $rhi $O/$name.after
	kill -CONT $pid
	wait $apid
	echo $? >$O/$name.rc
	log "$name: pid $pid carveout $lo-$hi, anonremap exit $(cat $O/$name.rc)"
}

echo 1000 >/sys/kernel/mm/ksm/pages_to_scan
echo 20 >/sys/kernel/mm/ksm/sleep_millisecs
cat /sys/kernel/mm/transparent_hugepage/enabled >$O/thp.enabled
if [ "$(cat $O/insmod.rc)" = 0 ]; then
	run_case unfaulted_move \
		"mmap ptr at=carveout+1p len=5p prot=rw" \
		"mremap ptr to=ptr+1000p flags=maymove,fixed" \
		pause
	run_case faulted_move \
		"mmap ptr at=carveout+1p len=5p prot=rw" \
		"fault at=ptr len=5p" \
		"mremap ptr to=ptr+1000p flags=maymove,fixed" \
		pause
	run_case forked \
		"mmap ptr at=carveout+1p len=5p prot=rw" \
		"fault at=ptr len=5p" \
		fork \
		"fault at=ptr len=2p" \
		pause
	run_case forked_target_vma \
		"mmap ptr at=carveout+1p len=5p prot=rw" \
		"fault at=ptr" \
		fork \
		"fault at=ptr len=5p" \
		"mmap ptr2 at=ptr+5p len=5p prot=rw" \
		pause
	run_case unfaulted_to_faulted \
		"mmap ptr at=carveout+1p len=5p prot=rw" \
		"mmap ptr2 at=carveout+7p len=5p prot=rw" \
		"mremap ptr2 to=ptr2+1000p flags=maymove,fixed" \
		"fault at=ptr" \
		"mremap ptr2 to=ptr+5p flags=maymove,fixed" \
		"expect vma=ptr start=ptr end=ptr+10p" \
		pause
	run_case faulted_to_faulted \
		"mmap ptr at=carveout+1p len=5p prot=rw" \
		"mmap ptr2 at=carveout+20p len=5p prot=rw" \
		"fault at=ptr" \
		"fault at=ptr2" \
		"mremap ptr2 to=ptr+5p flags=maymove,fixed" \
		"mprotect at=ptr+7p len=1p prot=r" \
		pause
	echo 1 >/sys/kernel/mm/ksm/run
	run_case ksm_uffd_zero \
		"mmap ptr at=carveout+1p len=4p prot=rw" \
		"madvise ptr advice=mergeable" \
		"fault at=ptr len=4p" \
		"mmap ptr2 at=carveout+10p len=2p prot=rw" \
		"userfaultfd ptr2" \
		"mmap ptr3 at=ptr2+2p len=2p prot=rw" \
		"mmap ptr4 at=carveout+20p len=2p prot=rw" \
		"fault at=ptr4" \
		"fault at=ptr4+1p access=read" \
		pause
	run_case thp \
		"carveout size=16m align=pmd" \
		"mmap ptr at=carveout len=2m prot=rw" \
		"madvise ptr advice=hugepage" \
		"fault ptr len=2m" \
		"mremap ptr to=carveout+4m flags=maymove,fixed" \
		"mremap at=carveout+4m+1p old_len=1p to=carveout+8m flags=maymove,fixed" \
		pause
	anonremap run -f json mremap_relocate_anon_faulted_after_unfaulted >$O/relocate.json 2>$O/relocate.err
	echo $? >$O/relocate.rc
	rmmod anonremap_xray >$O/rmmod.log 2>&1
	echo $? >$O/rmmod.rc
fi
dmesg >$O/dmesg
stty -F /dev/ttyS1 raw -echo -ixon -ixoff 115200
echo end >$O/end
tar -c -f - -C $O . >/dev/ttyS1
sync
sleep 0.5
poweroff -f
EOF
chmod 755 "$r/init"
(cd "$r" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet | gzip -1 >"$work/initrd.gz")

# ---------------------------------------------------------------------------
# QEMU.
accel=${XRAY_ACCEL:-}
qemu_run() { # ACCEL TIMEOUT APPEND
	cpu=max
	[ "$1" = kvm ] && cpu=host
	: >"$work/result.tar"
	timeout -s KILL "$2" "$QEMU" -nodefaults -no-user-config -display none -no-reboot -monitor none \
		-accel "$1" -cpu $cpu -m 1G -smp 2 -kernel "$kernel" -initrd "$work/initrd.gz" \
		-chardev file,id=con,path="$work/console.log" -serial chardev:con \
		-chardev file,id=res,path="$work/result.tar" -serial chardev:res \
		-append "console=ttyS0,115200 panic=-1 rdinit=/init $3" </dev/null >"$work/qemu.out" 2>&1
}
# TCG unless told: KVM is not usable on every machine this runs on (nested).
[ -n "$accel" ] || accel=tcg
t0=$(date +%s)
qemu_run "$accel" "${XRAY_TIMEOUT:-900}" "" || true
t1=$(date +%s)
mkdir -p "$work/out"
tar -x -f "$work/result.tar" -C "$work/out" 2>/dev/null || true
O=$work/out
echo "# guest: $(cat "$O/uname" 2>/dev/null || echo '?') under QEMU ($accel), $((t1 - t0)) s; module vermagic: $vermagic$note"
if [ ! -f "$O/end" ]; then
	keep=1
	tail -n 20 "$work/console.log" | sed 's/^/# console: /'
	die "the guest sent no result back (timeout, crash or panic; console: $work/console.log)"
fi

# ---------------------------------------------------------------------------
# Checks, on the host.
pass=0 fail=0 i=0
ok() { i=$((i + 1)); pass=$((pass + 1)); echo "ok $i - $*"; }
notok() { i=$((i + 1)); fail=$((fail + 1)); echo "not ok $i - $*"; }
check() { # DESCRIPTION COMMAND...
	d=$1
	shift
	if "$@"; then ok "$d"; else notok "$d"; fi
}
# The record of the VMA starting at ADDR, or nothing.
vma() { grep "^vma start=$2 " "$O/$1" || true; }
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p"; }
hex() { printf '0x%x' "$1"; }
show() { sed 's/^/#   /'; }

check "insmod anonremap_xray.ko on $(cat "$O/uname")" [ "$(cat "$O/insmod.rc")" = 0 ]
sed 's/^/# insmod: /' "$O/insmod.log"
sed 's/^/# before insmod: /' "$O/available.before"
check "xray_available() after insmod" grep -q '^available' "$O/available.after"
sed 's/^/# /' "$O/debugfs.ls"

for c in unfaulted_move faulted_move forked forked_target_vma unfaulted_to_faulted faulted_to_faulted \
	ksm_uffd_zero thp; do
	if [ ! -s "$O/$c.target" ]; then
		notok "$c: the scenario never reached its pause step"
		sed 's/^/#   /' "$O/$c.err" 2>/dev/null || true
		continue
	fi
	set -- $(cat "$O/$c.target")
	eval "pid_$c=$1 lo_$c=$2 hi_$c=$3"
	check "$c: the x-ray is complete (end record) and anonremap exit $(cat "$O/$c.rc")" \
		grep -q '^end vmas=' "$O/$c.xray"
	check "$c: reading the x-ray left /proc/PID/maps byte-identical" cmp -s "$O/$c.before.maps" "$O/$c.after.maps"
	check "$c: reading the x-ray left /proc/PID/pagemap of the reserved area ($(($(wc -c <"$O/$c.before.pagemap") / 8)) pages) byte-identical" \
		cmp -s "$O/$c.before.pagemap" "$O/$c.after.pagemap"
	check "$c: src/xray.c read the live module (xray_read)" [ "$(cat "$O/$c.live.rc")" = 0 ]
done

# 1. An unfaulted VMA moved: pgoff follows it.
lo=$lo_unfaulted_move
new=$(hex $((lo + 1001 * 4096)))
rec=$(vma unfaulted_move.xray "$new")
echo "# unfaulted_move, the moved VMA:"; echo "$rec" | show
check "unfaulted VMA moved to carveout+1001p: pgoff updated to its new start ($(hex $((new / 4096))))" \
	[ "$(echo "$rec" | field pgoff)" = "$(hex $((new / 4096)))" ]
check "unfaulted VMA moved: no anon_vma, chain 0" [ "$(echo "$rec" | field anon_vma)/$(echo "$rec" | field chain)" = "-/0" ]

# 2. A faulted VMA moved: pgoff and folio indices stay; not linear at the new place.
lo=$lo_faulted_move
old=$(hex $((lo + 4096)))
new=$(hex $((lo + 1001 * 4096)))
rec=$(vma faulted_move.xray "$new")
echo "# faulted_move, the moved VMA and its folios:"
awk -v s="vma start=$new " 'index($0, s) == 1 { p = 1; print; next } /^vma / { p = 0 } p' "$O/faulted_move.xray" | show
check "faulted VMA moved to carveout+1001p: pgoff kept ($(hex $((old / 4096))), the old start)" \
	[ "$(echo "$rec" | field pgoff)" = "$(hex $((old / 4096)))" ]
folios=$(awk -v s="vma start=$new " 'index($0, s) == 1 { p = 1; next } /^vma / { p = 0 } p && /^folio /' "$O/faulted_move.xray")
check "faulted VMA moved: 5 present folios" [ "$(echo "$folios" | grep -c '^folio ')" = 5 ]
bad=0 k=0
for a in $(echo "$folios" | field addr); do
	want=$(hex $((old / 4096 + k)))
	got=$(echo "$folios" | grep "addr=$a " | field index)
	[ "$got" = "$want" ] || bad=$((bad + 1))
	[ "$(echo "$folios" | grep "addr=$a " | field linear_ok)" = 1 ] || bad=$((bad + 1))
	[ "$got" != "$(hex $((a / 4096)))" ] || bad=$((bad + 1))
	k=$((k + 1))
done
check "faulted VMA moved: each folio->index is the old address's (pgoff + offset, as rmap needs), not new address / page size" [ $bad = 0 ]
check "faulted VMA moved: folios_linear false, pgoff_linear false (src/xray.c)" \
	grep -q "^VMA $new-.*\"pgoff_linear\":false.*\"folios_linear\":false" "$O/faulted_move.live"

# 3. Forked: the child's VMA has a chain of 2, rooted at the parent's anon_vma.
lo=$lo_forked
a=$(hex $((lo + 4096)))
crec=$(vma forked.xray "$a")
prec=$(vma forked.parent.xray "$a")
echo "# forked: child, then parent:"; { echo "$crec"; echo "$prec"; } | show
check "forked VMA (child): anon_vma_chain length 2" [ "$(echo "$crec" | field chain)" = 2 ]
check "forked VMA (parent): anon_vma_chain length 1" [ "$(echo "$prec" | field chain)" = 1 ]
check "forked: the child's anon_vma differs from the parent's, its root is the parent's anon_vma" \
	[ "$(echo "$crec" | field anon_vma)" != "$(echo "$prec" | field anon_vma)" -a \
	"$(echo "$crec" | field anon_vma_root)" = "$(echo "$prec" | field anon_vma)" ]
check "forked: pages still shared with the parent map the parent's anon_vma, unCOWed pages the child's" \
	sh -c "grep -q '^folio addr=$a .*anon_vma=$(echo "$crec" | field anon_vma) ' '$O/forked.xray' &&
	       grep -q '^folio addr=$(hex $((a + 2 * 4096))) .*anon_vma=$(echo "$prec" | field anon_vma) ' '$O/forked.xray'"

# 4. forked_target_vma: the chain is why it does not merge.
lo=$lo_forked_target_vma
ex=$(grep "^EXPLAIN $(hex $((lo + 4096)))-" "$O/forked_target_vma.live" || true)
echo "# forked_target_vma: $ex"
check "forked_target_vma: explained as \"anon_vma_chain of the lower VMA has 2 entries (forked)\"" \
	sh -c "echo '$ex' | grep -q 'anon_vma_chain of the lower VMA has 2 entries (forked)'"

# 5. mremap_unfaulted_to_faulted: merged, linear.
lo=$lo_unfaulted_to_faulted
a=$(hex $((lo + 4096)))
rec=$(vma unfaulted_to_faulted.xray "$a")
echo "# unfaulted_to_faulted, the merged VMA:"
awk -v s="vma start=$a " 'index($0, s) == 1 { p = 1; print; next } /^vma / { p = 0 } p' "$O/unfaulted_to_faulted.xray" | show
check "mremap_unfaulted_to_faulted: one VMA of 10 pages" [ "$(echo "$rec" | field end)" = "$(hex $((lo + 11 * 4096)))" ]
check "mremap_unfaulted_to_faulted: folios_linear and pgoff_linear (src/xray.c)" \
	grep -q "^VMA $a-.*\"pgoff_linear\":true.*\"folios_linear\":true" "$O/unfaulted_to_faulted.live"

# 6. Two faulted VMAs side by side: pgoff and anon_vma explain it.
lo=$lo_faulted_to_faulted
ex=$(grep "^EXPLAIN $(hex $((lo + 4096)))-" "$O/faulted_to_faulted.live" || true)
echo "# faulted_to_faulted: $ex"
check "two faulted VMAs moved side by side: \"pgoff not contiguous\" and \"anon_vma differs\"" \
	sh -c "echo '$ex' | grep -q 'pgoff not contiguous: .* + 5 != ' && echo '$ex' | grep -q 'anon_vma differs'"
ex=$(grep "^EXPLAIN $(hex $((lo + 6 * 4096)))-" "$O/faulted_to_faulted.live" || true)
echo "# faulted_to_faulted, after mprotect of one page: $ex"
check "an mprotect()ed page: \"vm_flags differ\" (lower only: wr)" \
	sh -c "echo '$ex' | grep -q 'vm_flags differ: .*lower only: wr'"

# 7. KSM, userfaultfd and the zero page.
lo=$lo_ksm_uffd_zero
a=$(hex $((lo + 4096)))
echo "# ksm_uffd_zero: the KSM'd VMA, the uffd-registered one and its neighbour, a half-read one:"
grep -E "^(vma|folio|walk) " "$O/ksm_uffd_zero.xray" | awk -v a="$a" -v b="$(hex $((lo + 25 * 4096)))" \
	'/^vma / { split($2, s, "="); p = (s[2] >= a && s[2] < b) } p' | show
check "KSM: the 4 identical pages of a VM_MERGEABLE VMA are KSM folios (ksm=1, no anon_vma)" \
	[ "$(grep "^folio addr=0x[0-9a-f]* .*ksm=1 " "$O/ksm_uffd_zero.xray" | grep -c "anon_vma=- ")" = 4 ]
check "KSM: the VMA is named mergeable (vmflags mg)" sh -c "echo '$(vma ksm_uffd_zero.xray "$a")' | grep -q 'vmflags=[a-z,]*mg'"
a=$(hex $((lo + 10 * 4096)))
check "userfaultfd: the registered VMA has uffd=1 and a uffd_ctx" \
	sh -c "echo '$(vma ksm_uffd_zero.xray "$a")' | grep -q 'uffd=1 uffd_ctx=[0-9a-f]\{16\} '"
ex=$(grep "^EXPLAIN $a-" "$O/ksm_uffd_zero.live" || true)
echo "# ksm_uffd_zero: $ex"
check "userfaultfd: explained as \"uffd context differs\"" sh -c "echo '$ex' | grep -q 'uffd context differs (lower: attached, upper: none)'"
a=$(hex $((lo + 20 * 4096)))
check "zero page: a written then a read page count as anon=1 zero=1" \
	grep -q "^walk start=$a .* present=2 anon=1 zero=1 " "$O/ksm_uffd_zero.xray"

# 8. A THP moved, then one page of it moved away: one folio over 3 VMAs.
lo=$lo_thp
echo "# thp (transparent_hugepage/enabled: $(cat "$O/thp.enabled")): the folio records:"
grep '^folio ' "$O/thp.xray" | show
if grep -q 'order=9 ' "$O/thp.xray"; then
	idx=$(hex $((lo / 4096)))
	check "THP moved: 3 records (2 VMAs at the new place, 1 page moved away) of one order-9 folio, index = the old start" \
		[ "$(grep -c "^folio .* index=$idx subpage=[0-9]* .*order=9 ksm=0 large=1 linear_ok=1 " "$O/thp.xray")" = 3 ]
	check "THP moved: the runs are subpage 0 (1 page), 1 (1 page, elsewhere), 2 (510 pages)" \
		sh -c "grep -q '^folio addr=$(hex $((lo + 0x400000))) nr=1 index=$idx subpage=0 ' '$O/thp.xray' &&
		       grep -q '^folio addr=$(hex $((lo + 0x800000))) nr=1 index=$idx subpage=1 ' '$O/thp.xray' &&
		       grep -q '^folio addr=$(hex $((lo + 0x400000 + 2 * 4096))) nr=510 index=$idx subpage=2 ' '$O/thp.xray'"
else
	ok "THP moved # SKIP the guest gave no THP"
fi

# 9. Relocation needs the series.
rrc=$(cat "$O/relocate.rc" 2>/dev/null || echo '?')
reason=$(grep -o '"reason":[[:space:]]*"[^"]*"' "$O/relocate.json" 2>/dev/null | head -n 1)
echo "# relocate scenario on $(cat "$O/uname"): exit $rrc, $reason"
check "mremap_relocate_anon_faulted_after_unfaulted is skipped on a kernel without the series (exit 4)" [ "$rrc" = 4 ]

check "rmmod anonremap_xray" [ "$(cat "$O/rmmod.rc" 2>/dev/null)" = 0 ]
if grep -E 'WARNING:|BUG:|Oops|general protection|list_del corruption|refcount_t' "$O/dmesg" >"$work/bad" 2>/dev/null; then
	notok "the guest's kernel log has warnings"
	show <"$work/bad"
else
	ok "no kernel warning, BUG or oops in the guest's log"
fi
grep anonremap_xray "$O/dmesg" | show

if [ -n "$capture" ]; then
	mkdir -p "$capture"
	for f in "$O"/*.xray "$O"/*.nofolios "$O"/*.live; do
		[ -f "$f" ] && cp "$f" "$capture/"
	done
	echo "# raw records copied to $capture"
fi
[ "$fail" = 0 ] || keep=1
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
