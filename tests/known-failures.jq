# SPDX-License-Identifier: GPL-2.0-or-later
# The scenarios of a result document (anonremap run -f json) that may fail
# on the kernel it was made on: those tagged fails-without:FEATURE where the
# result's kernel.features.FEATURE is false. A selftest whose expectation
# needs a newer kernel fails on an older one, in C as in its scenario; that
# failure is kernel behaviour, recorded, and not an error of the library.
# (May, not must: a kernel can lack the feature and still pass for another
# reason, as 6.1 keeps anon_and_page_offset_mismatch_memfd's VMAs apart
# because it merges no moved CoW-faulted file VMA with an unfaulted one.)
# One name a line (with the variant, as the result names it).
.kernel.features as $f
| .scenarios[]
| select([(.scenario.tags // [])[] | strings | select(startswith("fails-without:"))
	| ltrimstr("fails-without:") | select($f[.] == false)] | length > 0)
| .name
