#!/bin/sh
# Sourced by bench/run.sh and scripts/scale-demo.sh: makes (once) the seeded
# simulated inputs in $data: 1M spans as Jaeger and Zipkin JSON and as line
# format, and 5M spans of line format (five copies, distinct trace ids).
: "${data:?}" "${traces:=24000}" "${seed:=7}"
mkdir -p "$data"
gen() {	# gen FORMAT FILE
	[ -s "$2" ] || trsim --seed "$seed" --traces "$traces" --format "$1" -o "$2"
}
gen jaeger "$data/1m.jaeger.json"
gen zipkin "$data/1m.zipkin.json"
[ -s "$data/1m.tr" ] || tr-ingest -o "$data/1m.tr" "$data/1m.jaeger.json"
[ -s "$data/1m.jaeger.json.zst" ] || zstd -q -3 -T2 -o "$data/1m.jaeger.json.zst" "$data/1m.jaeger.json"
if [ ! -s "$data/5m.tr" ]; then
	for k in 1 2 3 4 5; do
		awk -F'\t' -v OFS='\t' -v k=$k 'NR > 1 || k == 1 { if ($0 !~ /^#/) $2 = $2 "-" k; print }' "$data/1m.tr"
	done > "$data/5m.tr.tmp" && mv "$data/5m.tr.tmp" "$data/5m.tr"
fi
