#!/bin/sh
# Replay the seed and regression corpora through their fuzz targets, each
# file once, no fuzzing. Prints every failing file and ends with a count.
# usage: regress.sh BUILD_DIR TARGET...
build=$1
shift
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
log=${TMPDIR:-/tmp}/tr-fuzz-regress.$$
runs=0
fails=0
for t in "$@"; do
	dirs="fuzz/seed/$t fuzz/regress/$t"
	case $t in ingest_*) dirs="$dirs fuzz/seed/ingest fuzz/regress/ingest";; esac
	for d in $dirs; do
		[ -d "$d" ] || continue
		for f in "$d"/*; do
			[ -f "$f" ] || continue
			runs=$((runs + 1))
			if ! "$build/fuzz_$t" -close_fd_mask=2 -timeout=60 -rss_limit_mb=2048 "$f" >"$log" 2>&1; then
				fails=$((fails + 1))
				echo "fuzz-regress: FAILED: $t $f"
				grep -E 'ERROR|SUMMARY|oracle|runtime error|#[0-9]+ ' "$log" | head -20
			fi
		done
	done
done
rm -f "$log"
echo "fuzz-regress: $runs inputs, $fails failed"
[ "$fails" -eq 0 ]
