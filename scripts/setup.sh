#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Install every Debian package anonremap needs to build and test, or the
# packages named as arguments (scripts/setup-vm.sh names QEMU's).
# Idempotent: installs only what is missing, runs apt-get update at most once.
set -eu

PACKAGES="build-essential autoconf automake libtool pkg-config
libcjson-dev libproc2-dev zlib1g-dev procps
bats bats-assert bats-support jq mandoc valgrind strace hyperfine"
[ $# -gt 0 ] && PACKAGES="$*"

missing=""
for p in $PACKAGES; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "setup: installing:$missing" >&2
$SUDO apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
