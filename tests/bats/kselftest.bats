# SPDX-License-Identifier: GPL-2.0-or-later
# make kselftest-install: anonremap as a kselftest collection, run by the
# kernel's own run_kselftest.sh on this kernel, against a direct run.

load helper

TOP="$BATS_TEST_DIRNAME/../.."

setup_file() {
	export KS="$BATS_FILE_TMPDIR/ks"
	# the release build: a program the runner starts cannot have ASan's
	# runtime first in its library list, so the sanitized one aborts there
	export KAR="${TOP_BUILDDIR:-$TOP}/anonremap"
	ANONREMAP="$KAR" sh "$TOP/scripts/kselftest-install.sh" --tarball "$BATS_FILE_TMPDIR/kselftest.tar.gz" "$KS" \
		2>"$BATS_FILE_TMPDIR/install.err"
	# the slow ones (2 GiB and 1 GiB moves) are left to the VM and the fleets
	export SLOW
	SLOW=$(ANONREMAP_SCENARIO_DIR="$TOP/scenarios" "$KAR" list -f json |
		jq -r '[.[] | select(.tags | index("slow")) | .file] | unique[] | sub(".*/"; "") | sub("\\.json$"; "")')
	skips=""
	for n in $SLOW; do skips="$skips -S anonremap:$n"; done
	# a pipe, as under LAVA: the runner appends its tests' output to /dev/stdout
	# shellcheck disable=SC2086
	(cd "$KS" && ./run_kselftest.sh -c anonremap $skips | cat) >"$BATS_FILE_TMPDIR/ks.tap" 2>&1 || true
	"$KAR" run -k -x slow -o "$BATS_FILE_TMPDIR/direct.json" "$TOP"/scenarios/*.json >/dev/null 2>&1 || true
}

@test "kselftest-install: the kernel's runner and one executable test a scenario in kselftest-list.txt" {
	grep -q 'Run installed kselftest tests' "$KS/run_kselftest.sh"
	grep -q 'BASE_DIR must be set before sourcing' "$KS/kselftest/runner.sh"
	[ -f "$KS/kselftest/ktap_helpers.sh" ]
	n=$(ls "$TOP"/scenarios/*.json | wc -l)
	[ "$(grep -c '^anonremap:' "$KS/kselftest-list.txt")" -eq "$n" ]
	[ "$(sort -u "$KS/kselftest-list.txt" | wc -l)" -eq "$n" ]
	while IFS=: read -r c t; do
		[ "$c" = anonremap ] && [ -x "$KS/anonremap/$t" ] && [ -f "$KS/anonremap/scenarios/$t.json" ] ||
			fail "$c:$t: no test program or scenario"
	done <"$KS/kselftest-list.txt"
	[ -x "$KS/anonremap/bin/anonremap" ]
	grep -qx 'timeout=360' "$KS/anonremap/settings"
}

@test "kselftest: run_kselftest.sh -l lists the collection" {
	run "$KS/run_kselftest.sh" -l
	assert_success
	assert_line 'anonremap:mremap_unfaulted_to_faulted'
	[ "$(grep -c '^anonremap:' <<<"$output")" -eq "$(ls "$TOP"/scenarios/*.json | wc -l)" ]
}

# the verdict of each scenario file in the direct run, as kselftest reads
# anonremap's exit status: skip when every variant skipped, fail when one
# failed or erred, else pass
direct_verdicts() {
	jq -r '.scenarios | group_by(.file)[] |
		(.[0].file | sub(".*/"; "") | sub("\\.json$"; "")) + " " +
		(if all(.status == "skip") then "skip"
		 elif any(.status == "fail" or .status == "error") then "fail"
		 else "pass" end)' "$BATS_FILE_TMPDIR/direct.json" | sort
}

@test "kselftest: every scenario once, with the verdict a direct run gives" {
	tap="$BATS_FILE_TMPDIR/ks.tap"
	grep -q '^TAP version 13' "$tap"
	# the runner's result lines read by the LAVA test definition's parser
	got=$(sh "$TOP/contrib/lava/anonremap-lava.sh" -k "$tap" | sort)
	want=$(direct_verdicts)
	[ "$(wc -l <<<"$want")" -eq "$(($(ls "$TOP"/scenarios/*.json | wc -l) - $(wc -w <<<"$SLOW")))" ]
	if [ "$got" != "$want" ]; then
		# what each scenario that differs printed under the runner, to say why
		local d n
		d=$(diff <(echo "$want") <(echo "$got") || true)
		for n in $(sed -n 's/^[<>] \([^ ]*\) .*/\1/p' <<<"$d" | sort -u); do
			d+=$'\n'"--- $n under run_kselftest.sh:"$'\n'"$(awk -v n="$n" '
				$0 ~ "^# selftests: anonremap: " n "$" { on = 1 }
				on { print }
				on && / selftests: anonremap: / && /^(not )?ok / { exit }' "$tap" | head -40)"
		done
		fail "$d"
	fi
	# each once
	[ "$(cut -d' ' -f1 <<<"$got" | sort -u | wc -l)" -eq "$(wc -l <<<"$got")" ]
	# every fail is a known failure (tests/known-failures.jq)
	[ -z "$(comm -23 <(grep ' fail$' <<<"$want" | cut -d' ' -f1) <(jq -r -f "$TOP/tests/known-failures.jq" "$BATS_FILE_TMPDIR/direct.json" | sort -u))" ]
	grep -q "^# Totals: pass:$(grep -c ' pass$' <<<"$want") fail:$(grep -c ' fail$' <<<"$want") xfail:0 xpass:0 skip:$(grep -c ' skip$' <<<"$want") error:0" "$tap"
}

@test "kselftest: a skipped scenario says # SKIP, and its KTAP underneath gives anonremap's reason" {
	[ "$("$KAR" probe | jq -r .features.mremap_relocate_anon.supported)" = false ] ||
		skip "this kernel supports MREMAP_RELOCATE_ANON: its scenarios do not skip"
	tap="$BATS_FILE_TMPDIR/ks.tap"
	grep -q '^ok [0-9]* selftests: anonremap: mremap_relocate_anon_faulted_after_faulted # SKIP$' "$tap"
	grep -q '^# ok 1 mremap_relocate_anon_faulted_after_faulted # SKIP requires mremap_relocate_anon: mremap(MREMAP_MUST_RELOCATE_ANON) returned EINVAL on ' "$tap"
}

@test "kselftest: a failing scenario is 'not ok' with anonremap's exit status" {
	mkdir -p "$BATS_TEST_TMPDIR/ks"
	cp -a "$KS/." "$BATS_TEST_TMPDIR/ks/"
	k="$BATS_TEST_TMPDIR/ks"
	jq '.steps += [{"op": "expect", "vma": "ptr", "start": "ptr", "end": "ptr+1p"}]' \
		"$k/anonremap/scenarios/mremap_unfaulted_to_faulted.json" >"$k/x.json"
	mv "$k/x.json" "$k/anonremap/scenarios/mremap_unfaulted_to_faulted.json"
	run --separate-stderr sh -c "cd '$k' && ./run_kselftest.sh -t anonremap:mremap_unfaulted_to_faulted | cat"
	assert_line 'not ok 1 selftests: anonremap: mremap_unfaulted_to_faulted # exit=1'
	assert_line --regexp '^# not ok 1 mremap_unfaulted_to_faulted'
}

@test "kselftest-tarball: the install directory packed, the runner at its top" {
	run tar -tzf "$BATS_FILE_TMPDIR/kselftest.tar.gz"
	assert_success
	assert_line './run_kselftest.sh'
	assert_line './kselftest/runner.sh'
	assert_line './kselftest-list.txt'
	assert_line './anonremap/bin/anonremap'
	assert_line './anonremap/mremap_unfaulted_to_faulted'
}

@test "kselftest-install: no directory is a usage error (exit 2)" {
	run sh "$TOP/scripts/kselftest-install.sh"
	assert_failure 2
	assert_output --partial 'usage: kselftest-install [--tarball FILE] DIR'
}
