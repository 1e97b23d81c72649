# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
# Sourced, not run: the one place that makes a private apt configuration for
# fetching Debian packages of other suites (kernels, headers, sources)
# without touching the system's apt state. The archive addresses come from
# the machine's own apt sources, never from a host name written here.
#
#   apt_private DIR SUITE...   writes DIR/sources.list, sets $APT (options
#                              for apt-get/apt-cache) and runs 'update' at
#                              most once a day (stale lists do offline)
#   apt_archive_uri KIND       the machine's Debian archive: KIND 'main'
#                              (the suite of this release) or 'security'
#   apt_private_download DIR PKG   PKG's .deb into DIR (after apt_private)
#   apt_cached_deb DIR SUITE PKG   PKG's .deb in DIR, fetched only if absent
#
# The caller defines die().

# Every deb URI of the system's sources with its suites, one "URI SUITE" a
# line, from one-line (.list) and deb822 (.sources) files alike.
# APT_SOURCES (tests): the files to read instead of /etc/apt's.
apt_sources_pairs() {
	for f in ${APT_SOURCES:-/etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources}; do
		[ -r "$f" ] || continue
		awk '
		function flush() { if (deb && uris != "" && suites != "") {
			n = split(uris, u, " "); m = split(suites, s, " ")
			for (i = 1; i <= n; i++) for (j = 1; j <= m; j++) print u[i], s[j] }
			deb = 0; uris = ""; suites = "" }
		/^[ \t]*#/ { next }
		/^deb[ \t]/ { sub(/\[[^]]*\][ \t]*/, ""); print $2, $3; next }
		/^[ \t]*$/ { flush(); next }
		/^Types:/ { deb = ($0 ~ /[ \t]deb([ \t]|$)/) }
		/^URIs:/ { sub(/^URIs:[ \t]*/, ""); uris = $0 }
		/^Suites:/ { sub(/^Suites:[ \t]*/, ""); suites = $0 }
		END { flush() }' "$f"
	done
}

apt_archive_uri() { # main|security
	code=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
	[ -n "$code" ] || code=bookworm
	case $1 in
	security) want="$code-security" ;;
	*) want=$code ;;
	esac
	uri=$(apt_sources_pairs | awk -v s="$want" '$2 == s { print $1; exit }')
	[ -n "$uri" ] || die "no '$want' suite in this machine's apt sources (/etc/apt/sources.list*)"
	echo "${uri%/}"
}

apt_private() { # DIR SUITE...
	_d=$1
	shift
	mkdir -p "$_d/lists/partial" "$_d/archives/partial"
	_main=$(apt_archive_uri main)
	_sec=""
	for _s; do
		case $_s in
		*-security)
			[ -n "$_sec" ] || _sec=$(apt_archive_uri security)
			echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $_sec $_s main" ;;
		*) echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $_main $_s main" ;;
		esac
	done >"$_d/sources.list.new"
	mv "$_d/sources.list.new" "$_d/sources.list"
	_sandbox=root
	[ "$(id -u)" -eq 0 ] || _sandbox=$(id -un)
	APT="-o Dir::Etc::SourceList=$_d/sources.list -o Dir::Etc::SourceParts=/dev/null
	     -o Dir::State::Lists=$_d/lists -o Dir::Cache=$_d -o Dir::Cache::archives=$_d/archives
	     -o Dir::State::status=/dev/null -o APT::Sandbox::User=$_sandbox -o Debug::NoLocking=1"
	if [ -z "$(find "$_d/lists" -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null | head -n 1)" ]; then
		# shellcheck disable=SC2086
		if ! apt-get -qq $APT update >"$_d/update.log" 2>&1; then
			[ -n "$(find "$_d/lists" -maxdepth 1 -name '*Packages*' | head -n 1)" ] ||
				die "apt-get update ($*) failed: $(tail -n 2 "$_d/update.log" | tr '\n' ' ')"
			echo "apt-private: apt-get update ($*) failed; using the lists of $(date -r "$_d/lists" +%F)" >&2
		fi
	fi
}

# apt_private_download DIR PACKAGE: the .deb's path on stdout (cached).
apt_private_download() {
	_have=$(ls -t "$1/$2"_*.deb 2>/dev/null | head -n 1)
	if [ -z "$_have" ]; then
		# shellcheck disable=SC2086
		(cd "$1" && apt-get -qq $APT download "$2") >&2 || die "apt-get download $2 failed"
		_have=$(ls -t "$1/$2"_*.deb | head -n 1)
	fi
	echo "$_have"
}

# apt_cached_deb DIR SUITE PACKAGE: the path of PACKAGE's .deb in DIR on
# stdout: the one already there, else fetched from SUITE (apt_private's
# update runs only then). Callers run it in $(...): APT stays theirs.
apt_cached_deb() {
	_have=$(ls -t "$1/$3"_*.deb 2>/dev/null | head -n 1)
	if [ -z "$_have" ]; then
		mkdir -p "$1"
		apt_private "$1" "$2"
		_have=$(apt_private_download "$1" "$3")
	fi
	echo "$_have"
}
