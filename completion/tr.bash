# bash completion for the tr tools: tr-ingest, tr-cp, tr-pag, tr-infer,
# tr-temporal, tr-aggregate, tr-report (and any later tr-* tool).
#
# Options come from the tool's own --help, so they never go stale; values of
# -f/--format and a few other options are listed here; -t/--trace IDs are the
# trace ids of the line-format files already on the command line.
# Installed by 'make install' as PREFIX/share/bash-completion/completions/tr-*;
# or source it from ~/.bashrc.

# The options a tool's --help names.
_tr_options()
{
	"$1" --help 2>/dev/null |
		grep -oE -- '(^|[ ,])--?[a-zA-Z][a-zA-Z0-9-]*' |
		sed 's/^[ ,]//' | sort -u
}

# The output (or input) formats of -f/--format.
_tr_formats()
{
	case $1 in
	tr-ingest)	echo auto jaeger otlp zipkin zipkin1 zipkin2 ;;
	tr-cp)		echo tsv csv json ;;
	tr-aggregate)	echo tsv csv json crosstab ;;
	tr-infer)	# jaeger-json is the links' format only
		case " ${COMP_WORDS[*]} " in
		*" --links "*|*" -l "*) echo tsv csv json dot jaeger-json ;;
		*) echo tsv csv json dot ;;
		esac ;;
	tr-pag)		echo line dot pag-dot svg ;;
	tr-temporal)	echo line explain dot csv json ;;
	tr-report)	echo html md ;;
	esac
}

# Trace ids of the line-format files among the words: the first 10000 T
# records (a line-format file starts with #tr/1).
_tr_trace_ids()
{
	local w line
	for w in "${COMP_WORDS[@]:1}"; do
		[ -f "$w" ] && [ -r "$w" ] || continue
		IFS= read -r line < "$w" && [ "$line" = "#tr/1" ] || continue
		awk -F'\t' '$1 == "T" { print $2; if (++n == 10000) exit }' "$w"
	done
}

_tr_complete()
{
	local cmd=$1 cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local words=

	COMPREPLY=()
	case $cmd:$prev in
	*:-f|*:--format)		words=$(_tr_formats "$cmd") ;;
	tr-cp:--summary)		words="service operation" ;;
	tr-cp:--whatif)			words="service= operation=" ;;
	tr-cp:--trace|tr-temporal:-t|tr-temporal:--trace)
					words=$(_tr_trace_ids) ;;
	tr-infer:-c|tr-infer:--count)	words="traces pairs" ;;
	tr-infer:-n|*:--name)		words="service operation kind host service,operation" ;;
	tr-infer:--events)		words="spans logs" ;;
	tr-aggregate:--hb)		words="seq tree" ;;
	*:--units)			words="us ms s auto" ;;
	*:--percentile)			words="50,95,99 99" ;;
	tr-pag:--worker-key)		words="service service,host" ;;
	*:-o|*:--output|tr-aggregate:-Q|tr-aggregate:--query-file|*:--baseline|*:--model)
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return ;;
	*)
		if [[ $cur == -* ]]; then
			mapfile -t COMPREPLY < <(compgen -W "$(_tr_options "$cmd")" -- "$cur")
		else
			compopt -o filenames 2>/dev/null
			mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		fi
		return ;;
	esac
	mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
}

complete -F _tr_complete tr-ingest tr-cp tr-pag tr-infer tr-temporal tr-aggregate tr-report
