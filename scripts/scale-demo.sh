#!/bin/sh
# make scale-demo: shard the 5M-span input by trace, run the mappers with GNU
# parallel, merge, and check the result is byte-identical to one pass; for
# tr-infer (causal model and links) and tr-aggregate. The same commands run
# across machines with parallel --sshlogin, or as a Hadoop Streaming job
# (README, "Scale-out").
# usage: scripts/scale-demo.sh BINDIR [SHARDS]
set -eu
bin=$(cd "$1" && pwd)
shards=${2:-4}
top=$(cd "$(dirname "$0")/.." && pwd)
data=${BENCH_DATA:-$top/bench/data}
PATH="$bin:$PATH"
export PATH LC_ALL=C
if ! command -v parallel > /dev/null; then
	if [ "$(id -u)" = 0 ]; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq parallel > /dev/null
	else
		echo "scale-demo: needs GNU parallel (apt-get install parallel)" >&2
		exit 1
	fi
fi
. "$top/bench/data.sh"
work=$data/shards
rm -rf "$work"
mkdir -p "$work"

# Shard by trace: the n-th trace seen goes to shard n mod SHARDS, whole.
awk -F'\t' -v n="$shards" -v dir="$work" '
	/^#/ { next }
	{ if (!($2 in part)) part[$2] = seen++ % n; print > (dir "/part" part[$2] ".tr") }' "$data/5m.tr"

now() { date +%s.%N; }
query='From s In spans GroupBy s.service Select s.service, COUNT, SUM(s.duration), AVG(s.duration), MAX(s.duration)'
status=0
check() {	# check NAME SINGLE_CMD MAPPER REDUCER
	name=$1 single=$2 mapper=$3 reducer=$4
	t0=$(now)
	sh -c "$single" < "$data/5m.tr" > "$work/$name.single"
	t1=$(now)
	parallel -j 2 "$mapper < {} > {}.$name.partial" ::: "$work"/part*.tr
	sh -c "$reducer \"\$@\"" sh "$work"/part*.tr.$name.partial > "$work/$name.merged"
	t2=$(now)
	if cmp -s "$work/$name.single" "$work/$name.merged"; then
		same="identical"
	else
		same="DIFFERENT"
		status=1
	fi
	awk -v a="$t0" -v b="$t1" -v c="$t2" -v name="$name" -v n="$shards" -v same="$same" 'BEGIN {
		printf "%-10s one pass %6.2f s   %d shards on 2 cores %6.2f s   speed-up %.2f   %s\n",
			name, b - a, n, c - b, (b - a) / (c - b), same }'
}
echo "scale-demo: $(grep -c '^S' "$data/5m.tr") spans in $shards shards of $(ls "$work" | wc -l) files"
check model "tr-infer" "tr-infer --partial" "tr-infer --merge"
check links "tr-infer --links" "tr-infer --links --partial" "tr-infer --links --merge"
check aggregate "tr-aggregate '$query'" "tr-aggregate --partial '$query'" "tr-aggregate --merge '$query'"
exit $status
