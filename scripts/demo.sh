#!/bin/sh
# make demo: the main job on the samples, step by step, as a newcomer runs it.
# usage: scripts/demo.sh BINDIR
set -eu
PATH=$(cd "$1" && pwd):$PATH
export PATH
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/demo
mkdir -p "$out"
step() { printf '\n== %s\n$ %s\n' "$1" "$2"; sh -c "$2"; }

step "Ingest the simulated HotROD export (Jaeger JSON) into the line format" \
	"tr-ingest -v '$top/samples/jaeger/hotrod.json' > '$out/hotrod.tr'"
slowest=$(awk -F'\t' '$1 == "S" && $4 == "" { print $6, $2 }' "$out/hotrod.tr" | sort -nr | awk 'NR == 1 { print $2 }')
step "Where does critical-path time go, by service?" \
	"tr-cp --summary service '$out/hotrod.tr' | column -t"
step "What if mysql answered twice as fast?" \
	"tr-cp --whatif 'service=mysql:scale=0.5' '$out/hotrod.tr' | tail -4"
step "Why was the slowest request ($slowest) slow? Causes in other traces included" \
	"tr-temporal --explain -t $slowest '$out/hotrod.tr' | sed -n '1,8p'"
step "Which services call which (Zipkin's dependency rules)" \
	"tr-infer --links '$out/hotrod.tr' | column -t"
step "Which service is critical in each 1 s window (SnailTrail)" \
	"tr-pag -q -P --window 1s '$out/hotrod.tr' | tr-cp > '$out/cp.tsv'; { head -1 '$out/cp.tsv'; awk -F'\t' '\$3 == \"channel\"' '$out/cp.tsv' | sort -t\"\$(printf '\t')\" -k6,6gr | head -3; } | column -t"
step "A CI gate: p99 of the frontend under 1.5 s?" \
	"tr-aggregate --fail-if 'p99 > 1500000' 'From s In spans Where s.service = \"frontend\" and s.parent = null GroupBy s.service Select s.service, COUNT, P99(s.duration) As p99' '$out/hotrod.tr' && echo gate passed"
step "The critical path of the slowest trace as a graph" \
	"tr-cp --dot --trace $slowest '$out/hotrod.tr' > '$out/slowest-cp.dot' && echo wrote build/demo/slowest-cp.dot"
