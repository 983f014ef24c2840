#!/bin/sh
# Group crash files by what went wrong: replay each through its target and
# print "signature<TAB>file" (the oracle message, or the sanitizer's error
# and the first frame in src/), one line per distinct signature with a count.
# usage: triage.sh BUILD TARGET FILE...
build=$1 t=$2
shift 2
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
for f in "$@"; do
	sig=$("$build/fuzz_$t" -timeout=60 "$f" 2>&1 |
		awk '/fuzz oracle failed|runtime error|ERROR: (Address|Leak|UndefinedBehavior)Sanitizer|ERROR: libFuzzer: (timeout|out-of-memory)/ && !w { w = $0; sub(/^.*(failed: |error: |ERROR: )/, "", w); sub(/ on address.*/, "", w) }
		     / in .* \/.*src\/lib\// && !fr { fr = $0; sub(/^.* in /, "", fr); sub(/ \/.*\/src\/lib\//, " ", fr) }
		     END { print w " @ " fr }')
	printf '%s\t%s\n' "$sig" "$f"
done | sort | awk -F'\t' '{ n[$1]++; if (!($1 in ex)) ex[$1] = $2 } END { for (s in n) printf "%d\t%s\t%s\n", n[s], s, ex[s] }' | sort -rn
