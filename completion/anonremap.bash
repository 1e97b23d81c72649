# SPDX-License-Identifier: GPL-2.0-or-later
# bash completion for anonremap. Every name comes from 'anonremap names',
# that is from the tool's own op and flag tables, so it cannot drift.

_anonremap_names()
{
	"${ANONREMAP_BIN:-anonremap}" names "$@" 2>/dev/null
}

# Complete the last word of a text-form step: an op, a field, or a value.
_anonremap_step()
{
	local step=$1 words last op field prefix IFS=$' \t\n'
	read -r -a words <<< "$step"
	[[ -z $step || $step == *" " ]] && words+=("")
	last=${words[${#words[@]}-1]}
	prefix=${step%"$last"}
	if [[ ${#words[@]} -le 1 ]]; then
		compgen -W "$(_anonremap_names ops)" -- "$last" | sed "s|^|$prefix|"
		return
	fi
	op=${words[0]}
	if [[ $last == *=* ]]; then
		field=${last%%=*}
		local val=${last#*=} head="" lists=""
		case $field in
		flags) case $op in
			mremap) lists=mremap-flags ;;
			mlock) lists=mlock-flags ;;
			mlockall) lists=mlockall-flags ;;
			userfaultfd) lists=uffd-flags ;;
			*) lists=mmap-flags ;;
			esac ;;
		prot) lists=prot ;;
		advice) lists=advice ;;
		option) lists=prctl ;;
		mode) lists=uffd-modes ;;
		features) lists=uffd-features ;;
		*) return ;;
		esac
		if [[ $val == *,* ]]; then
			head=${val%,*},
			val=${val##*,}
		fi
		compgen -W "$(_anonremap_names -s "$lists" | tr 'A-Z' 'a-z')" -- "$val" |
			sed "s|^|$prefix$field=$head|"
		return
	fi
	compgen -W "$(_anonremap_names fields "$op" | sed 's/$/=/')" -- "$last" | sed "s|^|$prefix|"
}

_anonremap()
{
	local cur prev cmd i
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	for ((i = 1; i < COMP_CWORD; i++)); do
		[[ ${COMP_WORDS[i]} != -* ]] && { cmd=${COMP_WORDS[i]}; break; }
	done
	if [[ -z $cmd ]]; then
		COMPREPLY=($(compgen -W "$(_anonremap_names commands) --help --version --maps-parse" -- "$cur"))
		return
	fi
	case $prev in
	-e|--execute)
		local IFS=$'\n'
		COMPREPLY=($(_anonremap_step "${cur#[\'\"]}"))
		compopt -o nospace 2>/dev/null
		return ;;
	-f|--format)
		COMPREPLY=($(compgen -W "json text ktap" -- "$cur"))
		return ;;
	-o|--output)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	esac
	case $cmd in
	run|check)
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "$("${ANONREMAP_BIN:-anonremap}" "$cmd" --help 2>/dev/null |
				grep -oE -- '--[a-z-]+' | sort -u)" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$(_anonremap_names scenarios)" -- "$cur") $(compgen -f -- "$cur"))
		fi ;;
	names)
		COMPREPLY=($(compgen -W "$(_anonremap_names kinds)" -- "$cur")) ;;
	maps)
		COMPREPLY=($(compgen -W "$(ls /proc | grep -E '^[0-9]+$')" -- "$cur")) ;;
	*)
		COMPREPLY=($(compgen -W "$("${ANONREMAP_BIN:-anonremap}" "$cmd" --help 2>/dev/null |
			grep -oE -- '--[a-z-]+' | sort -u)" -- "$cur")) ;;
	esac
}
complete -F _anonremap anonremap
