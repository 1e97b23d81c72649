#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Bug reports: self-contained results, --report, replay, diff and show.

load helper

setup() {
	R="$BATS_TEST_TMPDIR/r.json"
	REP="$BATS_TEST_TMPDIR/rep.json"
	"$AR" run -o "$R" --report "$REP" mremap_unfaulted_to_faulted >/dev/null
}

@test "a result is self-contained: version, command line, date, settings, features, config" {
	J="$R"
	jq_true '.version | test("^[0-9]+\\.[0-9]+\\.[0-9]+$")'
	jq_true '.command_line | index("mremap_unfaulted_to_faulted") != null'
	jq_true '.date | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z$")'
	jq_true '.settings | has("thp_enabled") and has("thp_defrag") and has("overcommit_memory")'
	jq_true '.probe.mremap_relocate_anon | has("supported") and has("detail")'
	jq_true '.kernel.features | has("mremap_relocate_anon")'
	jq_true '.scenarios[0].scenario.steps | length > 0'
	if [ -r /proc/config.gz ]; then
		jq_true '.config | has("CONFIG_TRANSPARENT_HUGEPAGE") and has("CONFIG_USERFAULTFD") and has("CONFIG_KSM")'
	else
		jq_true '.config.error | test("config")'
	fi
}

@test "config: read in-process through zlib for a JSON result or report, not at all for text or KTAP" {
	[ -r /proc/config.gz ] || skip "no /proc/config.gz"
	local bin="$BATS_TEST_TMPDIR/bin" log="$BATS_TEST_TMPDIR/gzip.log" tr="$BATS_TEST_TMPDIR/trace"
	mkdir -p "$bin"
	# a gzip that says it ran: anonremap must never need one. (LeakSanitizer
	# cannot work under ptrace: strace runs of the sanitizer build skip it.)
	printf '#!/bin/sh\necho ran >>"%s"\nexit 1\n' "$log" >"$bin/gzip"
	chmod +x "$bin/gzip"
	PATH="$bin:$PATH" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -e trace=openat,execve -o "$tr" \
		"$AR" run -f ktap -e 'mmap ptr at=carveout len=1p' >/dev/null
	! grep -q 'config.gz' "$tr" || fail "-f ktap read the kernel config: $(grep config.gz "$tr")"
	PATH="$bin:$PATH" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -e trace=openat,execve -o "$tr" \
		"$AR" run -f text -o "$BATS_TEST_TMPDIR/t.txt" -e 'mmap ptr at=carveout len=1p'
	! grep -q 'config.gz' "$tr" || fail "-f text read the kernel config: $(grep config.gz "$tr")"
	J="$BATS_TEST_TMPDIR/j.json"
	PATH="$bin:$PATH" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -e trace=openat,execve -o "$tr" \
		"$AR" run -e 'mmap ptr at=carveout len=1p' >"$J"
	grep -q '"/proc/config.gz"' "$tr" || fail "a JSON result did not read /proc/config.gz"
	[ "$(grep -c 'execve(' "$tr")" -eq 1 ] || fail "anonremap ran a program: $(grep 'execve(' "$tr")"
	[ ! -e "$log" ] || fail "gzip ran"
	jq_true '.kernel.features | has("mremap_relocate_anon") and has("userfaultfd")'
	# every option the result names says what the configuration itself says
	local opts name want
	opts="$(jq -r '.config | keys[]' "$J")"
	[ "$(wc -l <<<"$opts")" -ge 20 ] || fail "only $(wc -l <<<"$opts") options: $opts"
	for name in $opts; do
		want="$(gzip -dc /proc/config.gz | sed -n "s/^$name=//p")"
		if [ -z "$want" ]; then
			gzip -dc /proc/config.gz | grep -qx "# $name is not set" || fail "$name: not in the config"
			want="not set"
		fi
		assert_jq ".config.$name" "$want"
	done
	# -f ktap with -R: the report has everything
	"$AR" run -f ktap -R "$BATS_TEST_TMPDIR/rep.json" -e 'mmap ptr at=carveout len=1p' >/dev/null
	J="$BATS_TEST_TMPDIR/rep.json"
	jq_true '.config | has("CONFIG_KSM")'
	jq_true '.probe.userfaultfd | has("supported")'
}

@test "--report: one JSON file with the text summary first" {
	J="$REP"
	assert_jq 'keys_unsorted[0]' summary_text
	jq_true '.summary_text | test("mremap_unfaulted_to_faulted: pass")'
	jq_true '.summary_text | test("MREMAP_RELOCATE_ANON")'
	jq_true '.summary_text | test("\\|-----")'
	run "$AR" show "$REP"
	assert_success
	assert_line --partial "mremap_unfaulted_to_faulted: pass"
	run "$AR" show -f ktap "$REP"
	assert_success
	assert_line "ok 1 mremap_unfaulted_to_faulted"
}

@test "replay: a report made here replays the same (exit 0)" {
	run "$AR" replay "$REP"
	assert_success
	assert_line "mremap_unfaulted_to_faulted: same"
	run "$AR" replay -f json "$R"
	assert_success
	echo "$output" | jq -e '.same == true and (.scenarios[0].differences | length) == 0'
}

@test "replay: edited bounds, errno and page state replay as different, and are named" {
	jq '.scenarios[0].dumps[2].vmas[1].rel = "carveout+1p..carveout+12p"
	    | .scenarios[0].steps[3].errno = "EPERM"
	    | .scenarios[0].dumps[1].vmas[1].pages_state = "xx..."' "$R" >"$BATS_TEST_TMPDIR/e.json"
	run "$AR" replay "$BATS_TEST_TMPDIR/e.json"
	assert_failure 1
	assert_line "mremap_unfaulted_to_faulted: DIFFERENT"
	assert_line --partial "step 3 (mremap): errno: recorded EPERM, now null"
	assert_line --partial "vma: recorded carveout+1p..carveout+12p rw-p, now absent"
	assert_line --partial "pages_state of carveout+1p..carveout+6p rw-p: recorded xx..., now x...."
}

@test "replay: an expectation whose outcome changed is named" {
	jq '.scenarios[0].expectations[0].ok = false' "$R" >"$BATS_TEST_TMPDIR/e.json"
	run "$AR" replay "$BATS_TEST_TMPDIR/e.json"
	assert_failure 1
	assert_line --partial "expectation at step 8 (vma): ok: recorded false, now true"
}

@test "replay and diff say when the kernels differ in features" {
	jq '.kernel.features.mremap_relocate_anon = true | .kernel.release = "7.9.0-patched"' "$R" >"$BATS_TEST_TMPDIR/k.json"
	run "$AR" replay "$BATS_TEST_TMPDIR/k.json"
	assert_line "the kernels differ:"
	assert_line --partial "kernel features: mremap_relocate_anon: recorded true, now false"
	run "$AR" diff "$R" "$BATS_TEST_TMPDIR/k.json"
	assert_line --partial "mremap_relocate_anon: A false, B true"
}

@test "diff: plain against a relocate variant shows the errno difference" {
	cat >"$BATS_TEST_TMPDIR/v.json" <<'JSON'
{ "anonremap": 1, "name": "v",
  "params": { "extra": [] },
  "variants": { "plain": {}, "relocate": { "params": { "extra": ["MUST_RELOCATE_ANON"] } } },
  "carveout": { "size": "30p" },
  "steps": [
    { "op": "mmap", "name": "ptr", "at": "carveout+1p", "len": "5p" },
    { "op": "mmap", "name": "ptr2", "at": "carveout+20p", "len": "5p" },
    { "op": "fault", "region": "ptr2" },
    { "op": "mremap", "region": "ptr2", "to": "ptr+5p", "flags": ["MAYMOVE", "FIXED", "$extra"], "may_fail": true },
    { "op": "dump" }
  ] }
JSON
	"$AR" run -o "$BATS_TEST_TMPDIR/a.json" "$BATS_TEST_TMPDIR/v.json[plain]" >/dev/null
	"$AR" run -o "$BATS_TEST_TMPDIR/b.json" "$BATS_TEST_TMPDIR/v.json[relocate]" >/dev/null
	supported=$("$AR" probe | jq -r '.features.mremap_relocate_anon.supported')
	run "$AR" diff "$BATS_TEST_TMPDIR/a.json" "$BATS_TEST_TMPDIR/b.json"
	assert_failure 1
	assert_line --partial "== A v[plain] (pass) | B v[relocate] (pass)"
	if [ "$supported" = false ]; then
		assert_line --partial "step 3 (mremap): errno: A null, B EINVAL"
		# plain moved ptr2 next to ptr; the refused move left it where it was
		assert_output --partial "only in"
	fi
	run "$AR" diff -f json "$BATS_TEST_TMPDIR/a.json" "$BATS_TEST_TMPDIR/b.json"
	assert_failure 1
	echo "$output" | jq -e '.same == false and (.scenarios[0].vma_counts | length) == 1'
}

@test "diff: merged on one side, split on the other is called out" {
	jq '.scenarios[0].dumps[2].vmas[1].rel = "carveout+1p..carveout+6p"
	    | .scenarios[0].dumps[2].vmas |= (.[0:2] + [{"rel": "carveout+6p..carveout+11p", "perms": "rw-p", "pages_state": "....."}] + .[2:])
	    | .scenarios[0].dumps[2].vma_count = 5' "$R" >"$BATS_TEST_TMPDIR/split.json"
	run "$AR" diff "$R" "$BATS_TEST_TMPDIR/split.json"
	assert_failure 1
	assert_output --partial "one VMA in A, split in B"
	assert_line --partial "A 4 VMAs, B 5 VMAs (+1)"
}

@test "diff: timing only when asked, with a tolerance" {
	jq '.scenarios[0].steps[3].duration_ns *= 100' "$R" >"$BATS_TEST_TMPDIR/slow.json"
	run "$AR" diff "$R" "$BATS_TEST_TMPDIR/slow.json"
	assert_success
	run "$AR" diff --timing=0.5 "$R" "$BATS_TEST_TMPDIR/slow.json"
	assert_failure 1
	assert_line --partial "step 3 (mremap): duration_ns"
}

@test "malformed, truncated or wrong-version result files: exit 2 with a clear error" {
	head -c 300 "$R" >"$BATS_TEST_TMPDIR/trunc.json"
	jq '.anonremap = 7' "$R" >"$BATS_TEST_TMPDIR/ver.json"
	jq 'del(.scenarios[0].steps)' "$R" >"$BATS_TEST_TMPDIR/nosteps.json"
	printf '{"anonremap": 1, "steps": []}' >"$BATS_TEST_TMPDIR/scenario.json"
	for cmd in replay show diff; do
		pre=()
		[ "$cmd" = diff ] && pre=("$R")
		run "$AR" "$cmd" "${pre[@]}" "$BATS_TEST_TMPDIR/trunc.json"
		assert_failure 2
		assert_output --regexp "trunc.json:[0-9]+:[0-9]+: invalid JSON: (unexpected end of input|unterminated string)"
		run "$AR" "$cmd" "${pre[@]}" "$BATS_TEST_TMPDIR/ver.json"
		assert_failure 2
		assert_output --partial "unsupported format version"
		run "$AR" "$cmd" "${pre[@]}" "$BATS_TEST_TMPDIR/nosteps.json"
		assert_failure 2
		assert_output --partial "nosteps.json: .scenarios[0].steps: missing"
		run "$AR" "$cmd" "${pre[@]}" "$BATS_TEST_TMPDIR/scenario.json"
		assert_failure 2
		assert_output --partial "not a result"
	done
	run "$AR" diff /nonexistent "$R"
	assert_failure 2
	assert_output --partial "cannot open"
}
