#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The whole Bats suite again, against the ASan+UBSan build: any sanitizer
# report aborts that anonremap run with a non-zero status, which fails a test.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
: "${ANONREMAP_SAN:=$here/../anonremap-san}"
[ -x "$ANONREMAP_SAN" ] || { echo "anonremap-san is not built (make anonremap-san)" >&2; exit 99; }
ANONREMAP=$ANONREMAP_SAN
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:exitcode=99
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=99
ANONREMAP_SANITIZED=1
export ANONREMAP ASAN_OPTIONS UBSAN_OPTIONS ANONREMAP_SANITIZED
exec "${BATS:-bats}" --tap "$here"/bats/*.bats
