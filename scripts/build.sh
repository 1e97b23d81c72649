#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Set up (packages), configure and build anonremap in the source tree.
set -eu
cd "$(dirname "$0")/.."
sh scripts/setup.sh
[ -x configure ] || autoreconf -fi >/dev/null
[ -f Makefile ] || ./configure -q
make -s -j"$(nproc)" >/dev/null
