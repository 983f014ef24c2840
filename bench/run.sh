#!/bin/sh
# make bench: generate seeded simulated inputs, time every tool and pipeline next
# to its peer, write bench/RESULTS.md. Wall time is the median of RUNS runs;
# peak RSS is the largest of them (GNU time's %M). Inputs live in bench/data/
# (not tracked) and are reused while the simulator and seed are the same.
# usage: bench/run.sh BINDIR
set -eu
bin=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
data=${BENCH_DATA:-$here/data}
runs=${RUNS:-3}
traces=${BENCH_TRACES:-24000}	# about 1 million spans
seed=7
mkdir -p "$data"
PATH="$bin:$PATH"
export PATH LC_ALL=C

[ -x /usr/bin/time ] || { echo "bench: needs GNU time (apt-get install time)" >&2; exit 1; }

. "$here/data.sh"
spans1=$(grep -c '^S' "$data/1m.tr")
spans5=$(grep -c '^S' "$data/5m.tr")

results=$here/RESULTS.md.tmp
rows=$(mktemp)
trap 'rm -f "$rows" "$rows.t" "$results"' EXIT

# measure LABEL INPUT SPANS RUNS COMMAND: median wall seconds, max RSS.
measure() {
	label=$1 input=$2 spans=$3 n=$4
	shift 4
	: > "$rows.t"
	i=0
	while [ $i -lt "$n" ]; do
		/usr/bin/time -f '%e %M' -o "$rows.t.1" sh -c "$*" > /dev/null
		cat "$rows.t.1" >> "$rows.t"
		i=$((i + 1))
	done
	bytes=$(wc -c < "$input")
	sort -n "$rows.t" | awk -v label="$label" -v bytes="$bytes" -v spans="$spans" -v n="$n" '
		{ t[NR] = $1; if ($2 > rss) rss = $2 }
		END {
			med = t[int((NR + 1) / 2)]; if (med <= 0) med = 0.01
			printf "| %s | %.2f | %.1f | %.0f | %.0f | %d |\n", label, med, bytes / med / 1e6,
				spans / med, rss / 1024, n
		}' | tee -a "$rows"
}

echo "| command | wall s (median) | MB/s of input | spans/s | peak RSS MB | runs |" > "$rows.h"
echo "|---|---:|---:|---:|---:|---:|" >> "$rows.h"

J=$data/1m.jaeger.json Z=$data/1m.zipkin.json T=$data/1m.tr T5=$data/5m.tr
measure "cat jaeger.json > /dev/null (I/O floor)" "$J" "$spans1" "$runs" "cat '$J'"
measure "zstd -d jaeger.json.zst (I/O floor)" "$data/1m.jaeger.json.zst" "$spans1" "$runs" "zstd -dc '$data/1m.jaeger.json.zst'"
measure "tr-ingest jaeger.json" "$J" "$spans1" "$runs" "tr-ingest '$J'"
measure "tr-ingest -j 2 jaeger.json" "$J" "$spans1" "$runs" "tr-ingest -j 2 '$J'"
measure "tr-ingest jaeger.json.zst" "$data/1m.jaeger.json.zst" "$spans1" "$runs" "tr-ingest '$data/1m.jaeger.json.zst'"
measure "tr-ingest zipkin.json" "$Z" "$spans1" "$runs" "tr-ingest '$Z'"
if command -v jq > /dev/null && [ "${BENCH_JQ:-1}" = 1 ]; then
	measure "jq -c '.data[].spans[]' jaeger.json (peer)" "$J" "$spans1" 1 "jq -c '.data[].spans[]' '$J'"
	measure "jq group-by service count (peer of tr-aggregate)" "$J" "$spans1" 1 \
		"jq -c '[.data[] | .processes as \$p | .spans[] | \$p[.processID].serviceName] | group_by(.) | map({(.[0]): length}) | add' '$J'"
fi
measure "cat 1m.tr > /dev/null (line-format floor)" "$T" "$spans1" "$runs" "cat '$T'"
# Every filter that has landed, on the line format alone, then end to end.
for tool in "tr-cp" "tr-cp --summary service" "tr-pag --window 1s" "tr-infer" "tr-infer --links" \
	"tr-aggregate 'From s In spans GroupBy s.service Select s.service, COUNT, AVG(s.duration), P99(s.duration)'" \
	"tr-temporal"; do
	name=${tool%% *}
	command -v "$name" > /dev/null || continue
	measure "$tool < 1m.tr" "$T" "$spans1" "$runs" "$tool < '$T'"
	measure "$tool < 5m.tr" "$T5" "$spans5" 1 "$tool < '$T5'"
done
for pipe in "tr-cp --summary service" "tr-infer" \
	"tr-aggregate 'From s In spans GroupBy s.service Select s.service, COUNT, AVG(s.duration), P99(s.duration)'"; do
	name=${pipe%% *}
	command -v "$name" > /dev/null || continue
	measure "tr-ingest jaeger.json | $pipe" "$J" "$spans1" "$runs" "tr-ingest '$J' | $pipe"
done

{
	echo "# Benchmark results"
	echo
	echo "Made by \`make bench\` (bench/run.sh) on $(date -u +%Y-%m-%d): $(nproc) cores,"
	echo "$(awk -F': *' '/model name/ { print $2; exit }' /proc/cpuinfo),"
	echo "$(free -g | awk '/Mem:/ { print $2 }') GiB memory; $(uname -sr)."
	echo "Inputs from the project's simulator, seed $seed, $traces requests:"
	echo "$spans1 spans ($(($(wc -c < "$J") / 1000000)) MB of Jaeger JSON, $(($(wc -c < "$Z") / 1000000)) MB of Zipkin JSON,"
	echo "$(($(wc -c < "$T") / 1000000)) MB of line format); the 5M line-format input is five copies"
	echo "with distinct trace ids ($spans5 spans). Shared machines are noisy: compare ratios within one run."
	echo
	cat "$rows.h" "$rows"
	echo
	if [ -f "$here/NOTES.md" ]; then cat "$here/NOTES.md"; fi
} > "$results"
mv "$results" "$here/RESULTS.md"
echo "bench: wrote $here/RESULTS.md"
