#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Install what scripts/anonremap-vm needs to boot a kernel under QEMU:
# qemu-system-x86 (qemu-system-x86_64), busybox-static (the guest's shell and
# tools) and cpio (the initramfs). Idempotent: installs only what is missing,
# runs apt-get update at most once.
set -eu

PACKAGES="qemu-system-x86 busybox-static cpio"

missing=""
for p in $PACKAGES; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "setup-vm: installing:$missing" >&2
$SUDO apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
