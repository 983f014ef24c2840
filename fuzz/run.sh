#!/bin/sh
# Fuzz one target for a number of seconds; go on past crashes (fork mode) so
# that one known bug does not hide the next. Every crash is kept in
# BUILD/crashes/TARGET/; the status is non-zero, and BUILD/TARGET.failed
# exists, when this run found one.
# usage: run.sh BUILD TARGET SECONDS
build=$1 t=$2 secs=$3
corpus=$build/corpus/$t crashes=$build/crashes/$t
mkdir -p "$corpus" "$crashes"
seeds=
for d in fuzz/seed/$t fuzz/regress/$t; do [ -d "$d" ] && seeds="$seeds $d"; done
dict=
case $t in
ingest_*)
	for d in fuzz/seed/ingest fuzz/regress/ingest; do [ -d "$d" ] && seeds="$seeds $d"; done
	dict=-dict=fuzz/ingest.dict;;
esac
[ -f "fuzz/$t.dict" ] && dict=-dict=fuzz/$t.dict
before=$(ls "$crashes" | wc -l)
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Stderr of the target is closed (-close_fd_mask=2: the library's messages
# about bad input); libFuzzer and the sanitizers keep reporting.
"$build/fuzz_$t" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
	-close_fd_mask=2 -rss_limit_mb=2048 -timeout=20 -max_len=65536 \
	$dict -max_total_time="$secs" -artifact_prefix="$crashes/" \
	"$corpus" $seeds >"$build/$t.log" 2>&1
after=$(ls "$crashes" | wc -l)
units=$(ls "$corpus" | wc -l)
execs=$(grep -o '^#[0-9]*' "$build/$t.log" | tail -1 | tr -d '#')
echo "fuzz: $t: ${secs}s, ${execs:-0} runs, corpus $units, $((after - before)) new crashes ($after in $crashes)"
if [ "$after" -gt "$before" ]; then
	touch "$build/$t.failed"
	exit 1
fi
rm -f "$build/$t.failed"
