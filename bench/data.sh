#!/bin/sh
# Sourced by bench/run.sh and scripts/scale-demo.sh: makes (once) the seeded
# simulated inputs in $data:
#   1m.jaeger.json 1m.zipkin.json 1m.otlp.json  1M spans ($traces requests)
#   1m.jaeger.json.zst, 1m.tr                   the same, zstd / line format
#   5m.tr                                       five copies, distinct trace ids
#   5m-later.tr                                 five copies one after the other
#                                               in time: each window as busy as in 1m.tr
#   100k.jaeger.json 100k.zipkin.json 100k.otlp.json 100k.tr
#                                               2400 requests, about 100k spans
#   20k.base.tr 20k.incident.tr                 20,000 requests each, without and
#                                               with the fault (tr-cp --suspects)
#   100k.jaeger.d/NNNN/tNNNNN.json              100k.jaeger.json split into one
#                                               file per trace, in 300-file subdirectories
# Each file is made only when missing, through a temporary name, so an
# interrupted run leaves nothing half-written behind.
: "${data:?}" "${traces:=24000}" "${seed:=7}"
mkdir -p "$data"
# The inputs are kept while the simulator writes the same bytes: a short run
# of it is their fingerprint. When it differs (the simulator changed), every
# input is made again, so that no result is measured on another simulator's data.
stamp=$(trsim --seed "$seed" --traces 20 | cksum)
if [ "$(cat "$data/simulator.stamp" 2>/dev/null)" != "$stamp" ]; then
	rm -rf "$data"/1m.* "$data"/5m* "$data"/100k.* "$data"/20k.*
	printf '%s\n' "$stamp" > "$data/simulator.stamp"
fi
gen() {	# gen FORMAT FILE [TRACES]
	[ -s "$2" ] || { trsim --seed "$seed" --traces "${3:-$traces}" --format "$1" -o "$2.tmp" &&
		mv "$2.tmp" "$2"; }
}
gen jaeger "$data/1m.jaeger.json"
gen zipkin "$data/1m.zipkin.json"
gen otlp "$data/1m.otlp.json"
[ -s "$data/1m.tr" ] || tr-ingest -o "$data/1m.tr" "$data/1m.jaeger.json"
[ -s "$data/1m.jaeger.json.zst" ] || zstd -q -3 -T2 -o "$data/1m.jaeger.json.zst" "$data/1m.jaeger.json"
if [ ! -s "$data/5m.tr" ]; then
	for k in 1 2 3 4 5; do
		awk -F'\t' -v OFS='\t' -v k=$k 'NR > 1 || k == 1 { if ($0 !~ /^#/) $2 = $2 "-" k; print }' "$data/1m.tr"
	done > "$data/5m.tr.tmp" && mv "$data/5m.tr.tmp" "$data/5m.tr"
fi
# 5m.tr packs five times the work into 1m.tr's time range; tools that keep
# only a window's work need inputs whose windows are as busy as 1m.tr's but
# five times as many: copy k starts where copy k-1 ended (rounded up to a
# second), span starts (S field 5) and log times (L field 4) shifted; %.0f
# because mawk's %d stops at 2^31.
if [ ! -s "$data/5m-later.tr" ]; then
	shift=$(awk -F'\t' '$1 == "S" { e = $5 + $6; if (lo == "" || $5 < lo) lo = $5; if (e > hi) hi = e }
		END { printf "%.0f", (int((hi - lo) / 1e6) + 1) * 1e6 }' "$data/1m.tr")
	for k in 0 1 2 3 4; do
		awk -F'\t' -v OFS='\t' -v k=$k -v d="$shift" 'NR > 1 || k == 0 {
			if ($0 !~ /^#/) $2 = $2 "-" k
			if ($1 == "S") $5 = sprintf("%.0f", $5 + k * d)
			if ($1 == "L") $4 = sprintf("%.0f", $4 + k * d)
			print }' "$data/1m.tr"
	done > "$data/5m-later.tr.tmp" && mv "$data/5m-later.tr.tmp" "$data/5m-later.tr"
fi

# The small inputs: the same simulation, a tenth of the requests. Peak RSS on
# them against the 1M files shows whether memory grows with the input, and
# tr-ingest on the split directory against the one file shows what many small
# files cost. The count is fixed, not a fraction of $traces.
gen jaeger "$data/100k.jaeger.json" 2400
gen zipkin "$data/100k.zipkin.json" 2400
gen otlp "$data/100k.otlp.json" 2400
[ -s "$data/100k.tr" ] || tr-ingest -o "$data/100k.tr" "$data/100k.jaeger.json"

# tr-cp --suspects: a fault-free window and one with the fault, 20,000
# requests each (batch ReportJob traces come on top).
for w in base:off:8 incident:on:9; do
	f="$data/20k.${w%%:*}.tr"
	rest=${w#*:}
	[ -s "$f" ] || { trsim --seed "${rest#*:}" --traces 20000 --fault "${rest%%:*}" | tr-ingest -o "$f.tmp" &&
		mv "$f.tmp" "$f"; }
done

# trsim writes Jaeger as '{"data":[' on the first line, one trace per line
# (each but the last ending in a comma) and the envelope's other keys on the
# last line (sim/README.md). So each middle line, comma dropped, is one trace:
# wrap it as {"data":[TRACE]} in its own file. Zero-padded names keep sorted
# order equal to input order; subdirectories of 300 files make tr-ingest
# recurse. Checked: the layout, and that every trace got its file.
if [ ! -d "$data/100k.jaeger.d" ]; then
	rm -rf "$data/100k.jaeger.d.tmp"
	mkdir "$data/100k.jaeger.d.tmp"
	awk -v dir="$data/100k.jaeger.d.tmp" '
		NR == 1 { if ($0 != "{\"data\":[") exit 1; next }
		/^\],"total"/ { done = 1; exit }
		{
			n++
			sub(/,$/, "")
			sub_dir = sprintf("%s/%04d", dir, int((n - 1) / 300) + 1)
			if (n % 300 == 1) system("mkdir -p \"" sub_dir "\"")
			f = sprintf("%s/t%05d.json", sub_dir, n)
			print "{\"data\":[" $0 "]}" > f
			close(f)
		}
		END { if (!done || n == 0) exit 1 }' "$data/100k.jaeger.json" || {
		echo "bench: $data/100k.jaeger.json is not one Jaeger trace per line; cannot split it" >&2
		exit 1
	}
	[ "$(find "$data/100k.jaeger.d.tmp" -name '*.json' | wc -l)" -eq "$(grep -c '^T' "$data/100k.tr")" ] || {
		echo "bench: splitting $data/100k.jaeger.json lost traces" >&2
		exit 1
	}
	mv "$data/100k.jaeger.d.tmp" "$data/100k.jaeger.d"
fi
