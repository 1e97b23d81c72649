#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# --help, the man pages and the bash completion in step with the tool's own
# op, field, flag and command tables (read through 'anonremap names').
load helper

SRC="${TOP_SRCDIR:-$BATS_TEST_DIRNAME/../..}"
MAN1="$SRC/man/anonremap.1"
MAN5="$SRC/man/anonremap-scenario.5"
MANVM="$SRC/man/anonremap-vm.1"
COMPLETION="$SRC/completion/anonremap.bash"
MANDOC="$(command -v "${MANDOC:-mandoc}" || true)"

# names KIND...: the tool's table, one name a line.
names() {
	"$AR" names "$@" 2>/dev/null
}

# man_plain PAGE: the page as plain text (one long line a paragraph, so that
# nothing is hyphenated); without mandoc, the source with escapes stripped.
man_plain() {
	if [[ -x "$MANDOC" ]]; then
		"$MANDOC" -Tascii -Owidth=400 "$1" | col -b
	else
		sed -E 's/\\f(\[[^]]*\]|\(..|.)//g; s/\\\(dq/"/g; s/\\-/-/g; s/\\&//g; s/\\e/\\/g' "$1"
	fi
}

# man_names PAGE: the words the page sets in bold or italic (names, not
# prose), one a line; without mandoc, every word of the page.
man_names() {
	if [[ -x "$MANDOC" ]] && command -v perl >/dev/null; then
		"$MANDOC" -Tascii -Owidth=400 "$1" | perl -ne '
			s/(.)\x08\1/\x01$1/g;   # bold: X^HX
			s/_\x08(.)/\x01$1/g;    # italic: _^HX
			while (/((?:\x01.)+)/g) {
				(my $w = $1) =~ s/\x01//g;
				print "$_\n" for grep { length } split /[^A-Za-z0-9_]+/, $w;
			}'
	else
		man_plain "$1" | tr -cs 'A-Za-z0-9_' '\n'
	fi
}

# missing_from LIST_FILE WORDS_FILE: the names of LIST_FILE that are not a
# line of WORDS_FILE.
missing_from() {
	grep -vxF -f "$2" "$1" || true
}

# complete WORD...: run the completion for the command line WORD... (the last
# word is the one being completed); COMPREPLY one a line on stdout.
complete_words() {
	ANONREMAP_BIN="$AR" C="$COMPLETION" bash -c '
		source "$C"
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		_anonremap
		printf "%s\n" "${COMPREPLY[@]}"' complete "$@"
}

setup() {
	[[ -f "$MAN1" ]] || fail "missing $MAN1"
	[[ -f "$MAN5" ]] || fail "missing $MAN5"
	[[ -f "$COMPLETION" ]] || fail "missing $COMPLETION"
	T="$BATS_TEST_TMPDIR"
}

# --- the tables ----------------------------------------------------------

@test "docs: names lists every kind it is asked for, and nothing empty" {
	local k
	for k in commands ops fields mmap-flags mremap-flags prot advice prctl features scenarios; do
		run_ar names "$k"
		assert_success
		[[ -n "$output" ]] || fail "names $k is empty"
	done
	run_ar names nosuchkind
	assert_equal "$status" 2
}

# --- --help --------------------------------------------------------------

@test "docs: every op is listed in run --help, and nothing else" {
	names ops | sort >"$T/ops"
	[[ -s "$T/ops" ]] || fail "names ops is empty"
	run_ar run --help
	assert_success
	printf '%s\n' "$output" | sed -n '/^Ops/,$p' | sed -nE 's/^  ([a-z_]+)( .*)?$/\1/p' | sort >"$T/help-ops"
	run diff -u "$T/ops" "$T/help-ops"
	assert_success
}

@test "docs: the fields run --help lists for each op are the table's" {
	local op want got
	run_ar run --help
	assert_success
	printf '%s\n' "$output" >"$T/help"
	for op in $(names ops); do
		want="$(names fields "$op" | grep -vx comment | sort | tr '\n' ' ')"
		# the op's "fields:" line and any continuation lines
		got="$(awk -v op="$op" '
			/^  [a-z_]+( |$)/ { on = ($1 == op); f = 0; next }
			on && /^ +fields:/ { f = 1 }
			on && f { print }' "$T/help" | sed 's/fields://; s/(none)//' | tr -s ' \t' '\n\n' |
			grep -v '^$' | sort | tr '\n' ' ')"
		[[ "$got" == "$want" ]] || fail "run --help fields of $op: '$got', table: '$want'"
	done
}

@test "docs: the ops section of run --help stays indented" {
	run_ar run --help
	assert_success
	run bash -c 'sed -n "/^Ops/,\$p" <<<"$1" | sed 1d | grep -vE "^ |^$"' _ "$output"
	assert_output ''
}

@test "docs: every command works with --help" {
	local c
	for c in $(names commands); do
		run_ar "$c" --help
		[[ "$status" == 0 ]] || fail "anonremap $c --help exited $status"
		[[ "$output" == *"Usage: anonremap $c"* ]] || fail "anonremap $c --help: no usage line"
	done
}

@test "docs: anonremap --help lists every command once" {
	local c n
	run_ar --help
	assert_success
	for c in $(names commands); do
		n="$(grep -cE "^  $c( |$)" <<<"$output" || true)"
		[[ "$c" == run ]] && continue # two usage lines: files and -e
		[[ "$n" == 1 ]] || fail "anonremap --help lists '$c' $n times"
	done
}

@test "docs: every command of --help is a command of the table" {
	run_ar --help
	assert_success
	printf '%s\n' "$output" | sed -n '/^Commands:/,/^$/p' | sed -nE 's/^  ([a-z]+) .*/\1/p' | sort -u >"$T/help-cmds"
	names commands | sort >"$T/cmds"
	run diff -u "$T/cmds" "$T/help-cmds"
	assert_success
}

# --- man pages -----------------------------------------------------------

@test "docs: every op appears in anonremap-scenario.5" {
	names ops >"$T/ops"
	man_names "$MAN5" | sort -u >"$T/words"
	run missing_from "$T/ops" "$T/words"
	assert_output ''
}

@test "docs: every field appears in anonremap-scenario.5" {
	names fields >"$T/fields"
	[[ -s "$T/fields" ]] || fail "names fields is empty"
	man_names "$MAN5" | sort -u >"$T/words"
	run missing_from "$T/fields" "$T/words"
	assert_output ''
}

@test "docs: every mremap flag appears in anonremap-scenario.5" {
	local f short missing=""
	man_plain "$MAN5" >"$T/plain"
	for f in $(names mremap-flags); do
		short="${f#MREMAP_}"
		grep -qwE "(MREMAP_)?$short" "$T/plain" || missing+=" $f"
	done
	[[ -z "$missing" ]] || fail "mremap flags missing from anonremap-scenario.5:$missing"
}

@test "docs: every requirement (feature) appears in anonremap-scenario.5" {
	names features >"$T/features"
	man_names "$MAN5" | sort -u >"$T/words"
	run missing_from "$T/features" "$T/words"
	assert_output ''
}

@test "docs: every command has a section in anonremap.1" {
	local c missing=""
	for c in $(names commands); do
		grep -qiE "^\.(SS|SH|Ss|Sh)[[:space:]]+\"?(anonremap[[:space:]]+)?$c\"?[[:space:]]*$" "$MAN1" ||
			missing+=" $c"
	done
	[[ -z "$missing" ]] || fail "commands without a section in anonremap.1:$missing"
}

@test "docs: every long option of every --help appears in anonremap.1" {
	local c o missing=""
	man_plain "$MAN1" >"$T/plain"
	{
		"$AR" --help
		for c in $(names commands); do
			"$AR" "$c" --help
		done
	} 2>/dev/null | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u >"$T/opts"
	[[ -s "$T/opts" ]] || fail "no long options found in --help"
	while read -r o; do
		grep -qE -- "(^|[^a-z-])$o([^a-z0-9-]|$)" "$T/plain" || missing+=" $o"
	done <"$T/opts"
	[[ -z "$missing" ]] || fail "long options missing from anonremap.1:$missing"
}

@test "docs: each command's long options appear in its own section of anonremap.1" {
	local c o missing=""
	for c in $(names commands); do
		# the section: from ".SS c" to the next section heading
		awk -v c="$c" '
			/^\.(SS|SH) / { on = ($0 ~ "^\\.SS[ \t]+\"?(anonremap[ \t]+)?" c "\"?[ \t]*$") ; next }
			on { print }' "$MAN1" |
			sed -E 's/\\f(\[[^]]*\]|\(..|.)//g; s/\\-/-/g; s/\\&//g' >"$T/sect"
		for o in $("$AR" "$c" --help 2>/dev/null | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
			case "$o" in --help | --usage | --version) continue ;; esac
			grep -qE -- "(^|[^a-z-])$o([^a-z0-9-]|$)" "$T/sect" || missing+=" $c:$o"
		done
	done
	[[ -z "$missing" ]] || fail "options missing from their command's section of anonremap.1:$missing"
}

@test "docs: mandoc -Tlint -W warning finds nothing in the three pages" {
	[[ -x "$MANDOC" ]] || skip "mandoc is not installed"
	run "$MANDOC" -Tlint -W warning "$MAN1" "$MAN5" "$MANVM"
	assert_output ''
}

@test "docs: every long option of anonremap-vm --help is in anonremap-vm.1" {
	[[ -x "$MANDOC" ]] || skip "mandoc is not installed"
	local o missing=""
	"$MANDOC" -Tascii "$MANVM" | col -b >"$BATS_TEST_TMPDIR/vm.txt"
	for o in $("$SRC/scripts/anonremap-vm" --help 2>&1 | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
		grep -qE -- "(^|[^a-z-])$o([^a-z0-9-]|$)" "$BATS_TEST_TMPDIR/vm.txt" || missing+=" $o"
	done
	[[ -n "$("$SRC/scripts/anonremap-vm" --help 2>&1 | grep -oE -- '--[a-z]+' | head -n 1)" ]] || fail "no options in --help"
	[[ -z "$missing" ]] || fail "anonremap-vm options missing from anonremap-vm.1:$missing"
}

# --- bash completion -----------------------------------------------------

@test "completion: the script parses" {
	run bash -n "$COMPLETION"
	assert_success
	run bash -c 'source "$1" && complete -p anonremap' _ "$COMPLETION"
	assert_success
	assert_output --partial '_anonremap'
}

@test "completion: commands at position 1" {
	run --separate-stderr complete_words anonremap ''
	assert_success
	local c
	for c in $(names commands); do
		assert_line "$c"
	done
	run --separate-stderr complete_words anonremap she
	assert_output 'shell'
}

@test "completion: ops after -e (every op for an empty word)" {
	run --separate-stderr complete_words anonremap run -e ''
	assert_success
	assert_output "$(names ops)"
	run --separate-stderr complete_words anonremap run -e 'mre'
	assert_output 'mremap'
	run --separate-stderr complete_words anonremap run --execute 'mpr'
	assert_output 'mprotect'
}

@test "completion: an empty word after -e prints nothing on stderr" {
	run --separate-stderr complete_words anonremap run -e ''
	assert_success
	assert_equal "$stderr" ''
}

@test "completion: mremap flags after flags=" {
	run --separate-stderr complete_words anonremap run -e 'mremap ptr flags=ma'
	assert_success
	assert_output 'mremap ptr flags=maymove'
	# after a comma, the next flag of the list
	run --separate-stderr complete_words anonremap run -e 'mremap ptr flags=maymove,fi'
	assert_output 'mremap ptr flags=maymove,fixed'
	# every mremap flag for an empty value
	run --separate-stderr complete_words anonremap run -e 'mremap ptr flags='
	assert_output "$(names -s mremap-flags | tr 'A-Z' 'a-z' | sed 's/^/mremap ptr flags=/')"
	# mmap's flags are mmap flags
	run --separate-stderr complete_words anonremap run -e 'mmap ptr flags=fixed_n'
	assert_output 'mmap ptr flags=fixed_noreplace'
}

@test "completion: fields after an op" {
	local op
	for op in mremap mmap expect; do
		run --separate-stderr complete_words anonremap run -e "$op ptr "
		assert_success
		assert_output "$(names fields "$op" | sed "s/^/$op ptr /; s/\$/=/")"
	done
	run --separate-stderr complete_words anonremap run -e 'mremap ptr2 to=ptr+5p fl'
	assert_output 'mremap ptr2 to=ptr+5p flags='
}

@test "completion: bundled scenario names after run" {
	mkdir "$T/empty"
	cd "$T/empty" # no file names mixed in
	names scenarios | sort >"$T/want"
	[[ -s "$T/want" ]] || fail "names scenarios is empty"
	run --separate-stderr complete_words anonremap run ''
	assert_success
	printf '%s\n' "$output" | grep -v '^$' | sort >"$T/got"
	run diff -u "$T/want" "$T/got"
	assert_success
	run --separate-stderr complete_words anonremap run mremap_unfaulted_to
	assert_output 'mremap_unfaulted_to_faulted'
}

@test "completion: options of run after a dash" {
	run --separate-stderr complete_words anonremap run --ke
	assert_success
	assert_output '--keep-going'
	run --separate-stderr complete_words anonremap run -f ''
	assert_output $'json\ntext\nktap'
}

@test "completion: the kinds after names are the kinds names accepts" {
	run_ar names nosuchkind
	assert_equal "$status" 2
	sed -n 's/.*one of: *//p' <<<"$stderr" | tr -s ' ' '\n' | grep -v '^$' | sort >"$T/kinds"
	[[ -s "$T/kinds" ]] || fail "names does not list its kinds: $stderr"
	run --separate-stderr complete_words anonremap names ''
	assert_success
	printf '%s\n' "$output" | sort >"$T/got"
	run diff -u "$T/kinds" "$T/got"
	assert_success
}
