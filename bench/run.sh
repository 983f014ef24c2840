#!/bin/sh
# make bench: generate seeded simulated inputs, time every tool and pipeline next
# to its peer, write bench/RESULTS.md. Wall time is the median of RUNS runs;
# peak RSS is the largest of them (GNU time's %M). Inputs live in bench/data/
# (not tracked) and are reused while the simulator and seed are the same.
# usage: bench/run.sh BINDIR [PARSE_FLOOR]
#   PARSE_FLOOR: the parse-floor program (bench/parse_floor.c); by default
#   BINDIR/../bench/parse-floor, where make bench builds it. Its rows are left
#   out when it is missing.
# Environment: RUNS (3), BENCH_JQ (1; 0 leaves out the jq peers, which take
# about 7 GB and several minutes), BENCH_SIZES (1; 0 leaves out the size
# tests at full size), BENCH_DATA, BENCH_TRACES.
set -eu
bin=$(cd "$1" && pwd)
floor=${2:-$bin/../bench/parse-floor}
here=$(cd "$(dirname "$0")" && pwd)
data=${BENCH_DATA:-$here/data}
runs=${RUNS:-3}
traces=${BENCH_TRACES:-24000}	# about 1 million spans
seed=7
mkdir -p "$data"
PATH="$bin:$PATH"
export PATH LC_ALL=C

[ -x /usr/bin/time ] || { echo "bench: needs GNU time (apt-get install time)" >&2; exit 1; }

started=$(date +%s)
. "$here/data.sh"
spans1=$(grep -c '^S' "$data/1m.tr")
spans5=$(grep -c '^S' "$data/5m.tr")
spans100k=$(grep -c '^S' "$data/100k.tr")

results=$here/RESULTS.md.tmp
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$results"' EXIT
rows=$tmp/rows		# the table's rows
values=$tmp/values	# LABEL TAB median-seconds TAB MB/s TAB peak-RSS-MB, for the computed lines

# size FILE|DIR: bytes of input (a directory: of every file under it).
size() {
	if [ -d "$1" ]; then find "$1" -type f -exec cat {} + | wc -c; else wc -c < "$1"; fi
}

# measure LABEL INPUT SPANS RUNS COMMAND: median wall seconds, max RSS. A
# command that fails gives a "failed" row with its first line of stderr, and
# the run goes on: a row can be written before the feature it measures lands
# (tr-ingest DIR), and jq can be killed for memory.
measure() {
	label=$1 input=$2 spans=$3 n=$4
	shift 4
	: > "$tmp/times"
	i=0
	while [ $i -lt "$n" ]; do
		if ! /usr/bin/time -f '%e %M' -o "$tmp/time" sh -c "$*" > /dev/null 2> "$tmp/err"; then
			# time writes "Command exited with non-zero status N" or
			# "Command terminated by signal N" above the numbers. The
			# message loses the data directory, which is this machine's.
			why=$(sed -n '1{s/.*non-zero status/exit/;s/.*terminated by //;p;}' "$tmp/time")
			msg=$(head -n 1 "$tmp/err" | tr '|' '/' | awk -v p="$data/" '
				{ while ((k = index($0, p)) > 0) $0 = substr($0, 1, k - 1) substr($0, k + length(p)); print }')
			echo "bench: $label: failed ($why)" >&2
			cat "$tmp/err" >&2
			printf '| %s | failed (%s)%s | | | | %d |\n' "$label" "$why" "${msg:+: $msg}" $((i + 1)) | tee -a "$rows"
			return 0
		fi
		tail -n 1 "$tmp/time" >> "$tmp/times"
		i=$((i + 1))
	done
	bytes=$(size "$input")
	sort -n "$tmp/times" | awk -v label="$label" -v bytes="$bytes" -v spans="$spans" -v n="$n" -v values="$values" '
		{ t[NR] = $1; if ($2 > rss) rss = $2 }
		END {
			med = t[int((NR + 1) / 2)]; if (med <= 0) med = 0.01
			printf "| %s | %.2f | %.1f | %.0f | %.0f | %d |\n", label, med, bytes / med / 1e6,
				spans / med, rss / 1024, n
			printf "%s\t%.2f\t%.1f\t%.0f\n", label, med, bytes / med / 1e6, rss / 1024 >> values
		}' | tee -a "$rows"
}

: > "$rows"
: > "$values"
J=$data/1m.jaeger.json Z=$data/1m.zipkin.json O=$data/1m.otlp.json
T=$data/1m.tr T5=$data/5m.tr T5L=$data/5m-later.tr D=$data/100k.jaeger.d
ndir=$(find "$D" -type f -name '*.json' | wc -l)
jq=0
if command -v jq > /dev/null && [ "${BENCH_JQ:-1}" = 1 ]; then jq=1; fi
[ -x "$floor" ] || echo "bench: no parse floor program $floor (make bench builds it); its rows are left out" >&2

# tr-ingest, one format after another: the I/O floor, the parser alone
# (libyajl, no conversion), tr-ingest single-threaded, the jq peer. jq holds
# the whole document in memory, so it runs once.
measure "cat jaeger.json > /dev/null (I/O floor)" "$J" "$spans1" "$runs" "cat '$J'"
measure "zstd -d jaeger.json.zst (I/O floor)" "$data/1m.jaeger.json.zst" "$spans1" "$runs" "zstd -dc '$data/1m.jaeger.json.zst'"
ingest_rows() {	# ingest_rows FORMAT FILE JQ_FILTER
	if [ -x "$floor" ]; then
		measure "parse floor (yajl alone) $1.json" "$2" "$spans1" "$runs" "'$floor' '$2'"
	fi
	measure "tr-ingest -j 1 $1.json" "$2" "$spans1" "$runs" "tr-ingest -j 1 '$2'"
	if [ $jq = 1 ]; then
		measure "jq -c '$3' $1.json (peer)" "$2" "$spans1" 1 "jq -c '$3' '$2'"
	fi
}
ingest_rows jaeger "$J" '.data[].spans[]'
ingest_rows zipkin "$Z" '.[]'
ingest_rows otlp "$O" '.resourceSpans[].scopeSpans[].spans[]'
if [ $jq = 1 ]; then
	measure "jq group-by service count (peer of tr-aggregate)" "$J" "$spans1" 1 \
		"jq -c '[.data[] | .processes as \$p | .spans[] | \$p[.processID].serviceName] | group_by(.) | map({(.[0]): length}) | add' '$J'"
fi
measure "tr-ingest jaeger.json.zst" "$data/1m.jaeger.json.zst" "$spans1" "$runs" "tr-ingest '$data/1m.jaeger.json.zst'"
# Threads: the one big file, and the same kind of traces as many small files
# (a directory tree tr-ingest walks), against -j 1 of each.
measure "tr-ingest -j 2 jaeger.json" "$J" "$spans1" "$runs" "tr-ingest -j 2 '$J'"
measure "tr-ingest -j 1 100k.jaeger.d/ ($ndir one-trace files)" "$D" "$spans100k" "$runs" "tr-ingest -j 1 '$D'"
measure "tr-ingest -j 2 100k.jaeger.d/ ($ndir one-trace files)" "$D" "$spans100k" "$runs" "tr-ingest -j 2 '$D'"
# Peak RSS against input size: the same simulation with a tenth of the
# requests. A streaming ingester shows the same peak RSS here as on 1M spans.
for fmt in jaeger zipkin otlp; do
	measure "tr-ingest -j 1 100k.$fmt.json (RSS against size)" "$data/100k.$fmt.json" "$spans100k" "$runs" \
		"tr-ingest -j 1 '$data/100k.$fmt.json'"
done
# The same without the memory of written traces (8 bytes a span, to merge a
# trace met again): what is left is independent of the input's size.
for fmt in jaeger zipkin; do
	measure "tr-ingest --no-merge 100k.$fmt.json" "$data/100k.$fmt.json" "$spans100k" "$runs" \
		"tr-ingest --no-merge '$data/100k.$fmt.json'"
	measure "tr-ingest --no-merge $fmt.json" "$data/1m.$fmt.json" "$spans1" "$runs" \
		"tr-ingest --no-merge '$data/1m.$fmt.json'"
done

measure "cat 1m.tr > /dev/null (line-format floor)" "$T" "$spans1" "$runs" "cat '$T'"
# Every filter that has landed, on the line format alone, then end to end.
for tool in "tr-cp" "tr-cp --summary service" "tr-pag --window 1s" "tr-infer" "tr-infer --links" \
	"tr-aggregate 'From s In spans GroupBy s.service Select s.service, COUNT, AVG(s.duration), P99(s.duration)'" \
	"tr-temporal"; do
	name=${tool%% *}
	command -v "$name" > /dev/null || continue
	measure "$tool < 1m.tr" "$T" "$spans1" "$runs" "$tool < '$T'"
	# tr-pag streams its input in start order: 5m.tr's copies start over
	# at the same time range, 5m-later.tr's follow each other
	case $name in
	tr-pag) measure "$tool < 5m-later.tr" "$T5L" "$spans5" 1 "$tool < '$T5L'" ;;
	*) measure "$tool < 5m.tr" "$T5" "$spans5" 1 "$tool < '$T5'" ;;
	esac
done
# tr-temporal reads its input twice (the clock pass): from a file argument
# it rereads the file, from stdin it copies it first. Without the clock
# pass and the inferred queues, the one-pass analysis as before.
if command -v tr-temporal > /dev/null; then
	measure "tr-temporal 1m.tr" "$T" "$spans1" "$runs" "tr-temporal '$T'"
	measure "tr-temporal 5m.tr" "$T5" "$spans5" 1 "tr-temporal '$T5'"
	measure "tr-temporal --no-clock-offsets --no-infer-queues < 1m.tr" "$T" "$spans1" "$runs" \
		"tr-temporal --no-clock-offsets --no-infer-queues < '$T'"
fi
# SnailTrail end to end: the activity graph, then CP per 1 s window. Peak
# RSS on 5M spans against 1M shows whether memory follows the input: on
# 5m-later.tr (five copies one after another in time) every window holds as
# much as on 1m.tr, so a tool that keeps only a window's work has the same
# RSS on both. 5m.tr's five copies cover the same time range one after the
# other, so tr-pag must hold it whole (--hold 0): what holding costs.
for n in 1m 5m-later 5m; do
	case $n in
	1m) in=$T sp=$spans1 r=$runs hold= ;;
	5m) in=$T5 sp=$spans5 r=1 hold=" --hold 0" ;;
	*) in=$T5L sp=$spans5 r=1 hold= ;;
	esac
	measure "tr-pag -P -q -n -w 1s$hold < $n.tr | tr-cp" "$in" "$sp" "$r" \
		"tr-pag -P -q -n -w 1s$hold < '$in' | tr-cp > /dev/null"
done
# tr-cp alone on tr-pag's records (made by this build, so not kept with the
# data): it computes each window at the PM mark after it, so its memory is
# one window's work, the same on 1m.tr and on 5m-later.tr.
if tr-pag -P -q -n -w 1s < "$T" > "$tmp/1m.pag" && tr-pag -P -q -n -w 1s < "$T5L" > "$tmp/5m-later.pag"; then
	measure "tr-cp < 1m.pag" "$tmp/1m.pag" "$spans1" "$runs" "tr-cp < '$tmp/1m.pag' > /dev/null"
	measure "tr-cp < 5m-later.pag" "$tmp/5m-later.pag" "$spans5" 1 "tr-cp < '$tmp/5m-later.pag' > /dev/null"
fi
rm -f "$tmp/1m.pag" "$tmp/5m-later.pag"
for pipe in "tr-cp --summary service" "tr-infer" \
	"tr-aggregate 'From s In spans GroupBy s.service Select s.service, COUNT, AVG(s.duration), P99(s.duration)'"; do
	name=${pipe%% *}
	command -v "$name" > /dev/null || continue
	measure "tr-ingest jaeger.json | $pipe" "$J" "$spans1" "$runs" "tr-ingest '$J' | $pipe"
done
# tr-cp --suspects: 20,000 incident against 20,000 baseline requests (target:
# under 1 s and 200 MB), next to tr-cp --summary service reading the same two
# files one after the other.
if tr-cp --help | grep -q -- --suspects; then
	B20=$data/20k.base.tr I20=$data/20k.incident.tr
	s20=$(( $(grep -c '^S' "$B20") + $(grep -c '^S' "$I20") ))
	measure "tr-cp --suspects --baseline 20k.base.tr 20k.incident.tr" "$I20" "$s20" "$runs" \
		"tr-cp -q --suspects --baseline '$B20' '$I20'"
	measure "tr-cp --summary service 20k.base.tr 20k.incident.tr (reading floor)" "$I20" "$s20" "$runs" \
		"tr-cp --summary service '$B20' '$I20'"
fi
# tr-report: the whole report from the export, next to tr-ingest alone on
# the same file (the report reads the export twice: its own pass, then
# tr-temporal's over the slowest requests).
if command -v tr-report > /dev/null; then
	measure "tr-ingest jaeger.json (for tr-report)" "$J" "$spans1" "$runs" "tr-ingest '$J'"
	measure "tr-report jaeger.json -o report.html" "$J" "$spans1" "$runs" "tr-report -o '$tmp/report.html' '$J'"
fi

# The sharded pipeline against one pass, in CPU seconds (bench/sharded.sh).
shrows=$tmp/shrows
if tr-ingest --help | grep -q -- --split; then
	echo "bench: the sharded pipeline on 5m.tr, 4 shards" >&2
	. "$here/sharded.sh"
fi

# computed: the lines under the table, from the rows' values; "n/a" where a
# row is missing or failed.
computed() {
	awk -F'\t' -v jq=$jq -v ndir="$ndir" -v spans1="$spans1" -v q="'" '
		{ t[$1] = $2; mbs[$1] = $3; rss[$1] = $4 }
		function over(a, b) { return (a in t) && (b in t) ? sprintf("%.2f s / %.2f s = %.2f×", t[a], t[b], t[a] / t[b]) : "n/a (a row failed or is left out)" }
		function times(a, b) { return (a in t) && (b in t) ? sprintf("%.1f×", t[a] / t[b]) : "n/a" }
		function target(fmt, min,   l) {
			l = "tr-ingest -j 1 " fmt ".json"
			if (!(l in t)) return fmt " n/a"
			return sprintf("%s %.1f MB/s (≥ %d: %s)", fmt, mbs[l], min, mbs[l] >= min ? "met" : "not met")
		}
		function nomerge(fmt,   a, b) {
			a = "tr-ingest --no-merge 100k." fmt ".json"; b = "tr-ingest --no-merge " fmt ".json"
			return (a in rss) && (b in rss) ? sprintf("%s %d → %d", fmt, rss[a], rss[b]) : fmt " n/a"
		}
		function mem(fmt,   a, b) {
			a = "tr-ingest -j 1 100k." fmt ".json (RSS against size)"; b = "tr-ingest -j 1 " fmt ".json"
			return (a in rss) && (b in rss) ? sprintf("%s %d → %d", fmt, rss[a], rss[b]) : fmt " n/a"
		}
		END {
			d = "100k.jaeger.d/ (" ndir " one-trace files)"
			print "Computed from the rows above:"
			print ""
			print "- tr-ingest single-threaded: " target("jaeger", 150) ", " target("zipkin", 120) ", " target("otlp", 120)
			print "- tr-ingest time over the parse floor: jaeger " times("tr-ingest -j 1 jaeger.json", "parse floor (yajl alone) jaeger.json") \
				", zipkin " times("tr-ingest -j 1 zipkin.json", "parse floor (yajl alone) zipkin.json") \
				", otlp " times("tr-ingest -j 1 otlp.json", "parse floor (yajl alone) otlp.json")
			if (jq)
				print "- jq time over tr-ingest -j 1: jaeger " times("jq -c " q ".data[].spans[]" q " jaeger.json (peer)", "tr-ingest -j 1 jaeger.json") \
					", zipkin " times("jq -c " q ".[]" q " zipkin.json (peer)", "tr-ingest -j 1 zipkin.json") \
					", otlp " times("jq -c " q ".resourceSpans[].scopeSpans[].spans[]" q " otlp.json (peer)", "tr-ingest -j 1 otlp.json")
			a = "tr-pag -P -q -n -w 1s < 1m.tr | tr-cp"; b = "tr-pag -P -q -n -w 1s --hold 0 < 5m.tr | tr-cp"
			c = "tr-pag -P -q -n -w 1s < 5m-later.tr | tr-cp"
			print "- tr-pag | tr-cp: " ((a in t) ? sprintf("%.2f M spans/s on 1M spans", spans1 / t[a] / 1e6) : "n/a") \
				", peak RSS MB 1M → 5M spans later in time (windows as busy, streamed): " \
				((a in rss) && (c in rss) ? sprintf("%d → %d", rss[a], rss[c]) : "n/a") \
				", 5M spans over the same time, held whole (--hold 0): " \
				((b in rss) ? sprintf("%d", rss[b]) : "n/a")
			a = "tr-cp < 1m.pag"; b = "tr-cp < 5m-later.pag"
			print "- tr-cp alone on the records of tr-pag, peak RSS MB 1M → 5M spans later in time: " \
				((a in rss) && (b in rss) ? sprintf("%d → %d", rss[a], rss[b]) : "n/a")
			print "- -j 1 / -j 2, one file (jaeger.json): " over("tr-ingest -j 1 jaeger.json", "tr-ingest -j 2 jaeger.json")
			print "- -j 1 / -j 2, a directory of " ndir " one-trace files: " over("tr-ingest -j 1 " d, "tr-ingest -j 2 " d)
			print "- peak RSS MB of tr-ingest -j 1, 100k spans → 1M spans: " mem("jaeger") ", " mem("zipkin") ", " mem("otlp")
			print "- the same with --no-merge: " nomerge("jaeger") ", " nomerge("zipkin")
			print "- tr-report over tr-ingest alone, jaeger.json (≤ 2× wanted): " \
				over("tr-report jaeger.json -o report.html", "tr-ingest jaeger.json (for tr-report)")
		}' "$values"
}

# The size tests of tests/reliability.bats at full size (make check runs them
# smaller): chains of 1,000,000 spans, traces of 2,000,000, values of 100 MB.
sizes="not run (BENCH_SIZES=0)"
if [ "${BENCH_SIZES:-1}" = 1 ]; then
	if command -v bats > /dev/null; then
		echo "bench: size tests of tests/reliability.bats at full size (TR_BIG=1)" >&2
		if TR_BIN=$bin TR_BIG=1 bats -f 'in make bench' "$here/../tests/reliability.bats" > "$tmp/sizes" 2>&1; then
			sizes="$(grep -c '^ok' "$tmp/sizes") passed"
		else
			sizes="FAILED: $(grep '^not ok' "$tmp/sizes" | sed 's/^not ok [0-9]* //' | paste -sd';' -)"
			cat "$tmp/sizes" >&2
		fi
	else
		sizes="not run (no bats)"
	fi
fi

mb() { echo $(($(size "$1") / 1000000)); }
{
	echo "# Benchmark results"
	echo
	elapsed=$(($(date +%s) - started))
	echo "Made by \`make bench\` (bench/run.sh) on $(date -u +%Y-%m-%d), in $((elapsed / 60)) min $((elapsed % 60)) s: $(nproc) cores,"
	echo "$(awk -F': *' '/model name/ { print $2; exit }' /proc/cpuinfo),"
	echo "$(free -g | awk '/Mem:/ { print $2 }') GiB memory; $(uname -sr)."
	echo "Inputs from the project's simulator, seed $seed, $traces requests:"
	echo "$spans1 spans ($(mb "$J") MB of Jaeger JSON, $(mb "$Z") MB of Zipkin JSON, $(mb "$O") MB of OTLP JSON,"
	echo "$(mb "$T") MB of line format); the 5M line-format input is five copies"
	echo "with distinct trace ids ($spans5 spans); the 100k inputs are 2400 requests,"
	echo "$spans100k spans ($(mb "$data/100k.jaeger.json") MB of Jaeger JSON), and 100k.jaeger.d/ is that file"
	echo "split into one file per trace. Shared machines are noisy: compare ratios within one run."
	echo
	echo "| command | wall s (median) | MB/s of input | spans/s | peak RSS MB | runs |"
	echo "|---|---:|---:|---:|---:|---:|"
	cat "$rows"
	echo
	computed
	if [ -s "$shrows" ]; then
		echo
		echo "The sharded pipeline of docs/scale-out.md on 5m.tr ($spans5 spans) with 4 local"
		echo "shards, in CPU seconds (user + system): one pass over the file; the 4 mappers"
		echo "(each on its shard, writing a partial) and the merge of their partials; the"
		echo "mappers and the merge over one pass (wanted: ≤ 1.15); the same with the shuffle"
		echo "(\`tr-ingest --split 4\`, made once and shared by every analysis) added."
		echo
		echo "| analysis | one pass CPU s | 4 mappers CPU s | merge CPU s | (mappers + merge) / one pass | with the shuffle |"
		echo "|---|---:|---:|---:|---:|---:|"
		cat "$shrows"
	fi
	echo "- size tests of tests/reliability.bats at full size (TR_BIG=1): $sizes"
	echo
	if [ -f "$here/NOTES.md" ]; then cat "$here/NOTES.md"; fi
} > "$results"
mv "$results" "$here/RESULTS.md"
echo "bench: wrote $here/RESULTS.md in $(($(date +%s) - started)) s"
