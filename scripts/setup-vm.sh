#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Install what scripts/anonremap-vm needs to boot a kernel under QEMU:
# qemu-system-x86 (qemu-system-x86_64), busybox-static (the guest's shell and
# tools) and cpio (the initramfs). Idempotent: installs only what is missing,
# runs apt-get update at most once.
set -eu

exec sh "$(dirname "$0")/setup.sh" qemu-system-x86 busybox-static cpio
