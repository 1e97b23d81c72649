#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Quick start 1: set everything up, build, and run a bundled scenario,
# printing its JSON result. Extra arguments go to 'anonremap run'.
set -eu
cd "$(dirname "$0")/.."
sh scripts/build.sh
[ $# -gt 0 ] || set -- mremap_unfaulted_to_faulted
exec ./anonremap run "$@"
