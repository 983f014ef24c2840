#!/bin/sh
# A short, repeatable fuzzing run for CI: every target mutates its seed and
# regression corpora for a fixed number of runs from a fixed seed, so the
# same build explores the same inputs every time; a failure is a real bug,
# never noise. New inputs go to a scratch directory, removed at the end.
# usage: smoke.sh BUILD RUNS TARGET...
build=$1 runs=$2
shift 2
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
scratch=$(mktemp -d "${TMPDIR:-/tmp}/tr-fuzz-smoke.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT INT TERM
fails=0
for t in "$@"; do
	dirs=
	for d in fuzz/seed/$t fuzz/regress/$t; do [ -d "$d" ] && dirs="$dirs $d"; done
	dict=
	case $t in
	ingest_*)
		for d in fuzz/seed/ingest fuzz/regress/ingest; do [ -d "$d" ] && dirs="$dirs $d"; done
		dict=-dict=fuzz/ingest.dict;;
	esac
	mkdir -p "$scratch/$t"
	if "$build/fuzz_$t" -seed=1 -runs="$runs" -close_fd_mask=2 -rss_limit_mb=2048 \
		-timeout=20 -max_len=65536 $dict -artifact_prefix="$scratch/" \
		"$scratch/$t" $dirs >"$scratch/log" 2>&1; then
		echo "fuzz-smoke: $t: $runs runs, no crash"
	else
		fails=$((fails + 1))
		echo "fuzz-smoke: $t: FAILED"
		grep -E 'ERROR|SUMMARY|oracle|runtime error|#[0-9]+ .* in ' "$scratch/log" | head -20
		for f in "$scratch"/crash-* "$scratch"/oom-* "$scratch"/timeout-* "$scratch"/leak-*; do
			[ -f "$f" ] && echo "fuzz-smoke: the input, base64:" && base64 "$f" | head -40
		done
		rm -f "$scratch"/crash-* "$scratch"/oom-* "$scratch"/timeout-* "$scratch"/leak-*
	fi
done
[ "$fails" -eq 0 ]
