#!/bin/sh
# Sourced by bench/run.sh: the sharded pipeline of docs/scale-out.md on
# 5m.tr with 4 local shards, against one pass over the same file. Counted in
# CPU seconds (user + system, GNU time), not wall time: in a real run the
# mappers run on other hosts, so what sharding costs is the work added, not
# the time on this one. Needs $T5 (the input), $tmp (scratch) and $shrows
# (the file its table rows are appended to).

# cpu COMMAND: user + system seconds of sh -c COMMAND, or "failed" (its
# stderr on ours).
cpu() {
	if /usr/bin/time -f '%U %S' -o "$tmp/cpu" sh -c "$1" > /dev/null 2> "$tmp/cpu.err"; then
		tail -n 1 "$tmp/cpu" | awk '{ printf "%.2f\n", $1 + $2 }'
	else
		echo "bench: sharded: failed: $1" >&2
		cat "$tmp/cpu.err" >&2
		echo failed
	fi
}

# shard_row LABEL ONE_PASS MAPPER MERGE: one pass over $T5, then MAPPER
# ({} the shard) on each of the 4 shards and MERGE over their partials
# ({} the partials); a row of CPU seconds and the ratio.
shard_row() {
	one=$(cpu "$2 '$T5'")
	maps=0
	for k in 0 1 2 3; do
		m=$(cpu "$(printf '%s' "$3" | sed "s|{}|'$tmp/shard$k.tr'|") > '$tmp/part$k'")
		[ "$m" = failed ] && { maps=failed; break; }
		maps=$(echo "$maps $m" | awk '{ printf "%.2f", $1 + $2 }')
	done
	merge=failed
	[ "$maps" != failed ] &&
		merge=$(cpu "$(printf '%s' "$4" | sed "s|{}|'$tmp'/part[0-3]|")")
	echo "$1|$one|$maps|$merge" | awk -F'|' -v shuffle="$split" '{
		if ($2 == "failed" || $3 == "failed" || $4 == "failed") {
			printf "| %s | %s | %s | %s | failed | failed |\n", $1, $2, $3, $4; next }
		printf "| %s | %.2f | %.2f | %.2f | %.2f | %.2f |\n", $1, $2, $3, $4,
			($3 + $4) / $2, ($3 + $4 + shuffle) / $2
	}' | tee -a "$shrows"
}

# flame_percentile_row: tr-cp --flame --percentile in its two phases, the
# CPU of both phases' mappers and of both merges summed.
flame_percentile_row() {
	f="tr-cp --flame --percentile 50,99"
	one=$(cpu "$f '$T5'")
	maps=0 merge=failed
	for k in 0 1 2 3; do
		m=$(cpu "$f --partial '$tmp/shard$k.tr' > '$tmp/rank$k'")
		[ "$m" = failed ] && { maps=failed; break; }
		maps=$(echo "$maps $m" | awk '{ printf "%.2f", $1 + $2 }')
	done
	[ "$maps" != failed ] && merge=$(cpu "$f --merge --ranks '$tmp'/rank[0-3] > '$tmp/bands'")
	for k in 0 1 2 3; do
		[ "$maps" = failed ] || [ "$merge" = failed ] && break
		m=$(cpu "$f --bands '$tmp/bands' --partial '$tmp/shard$k.tr' > '$tmp/part$k'")
		[ "$m" = failed ] && { maps=failed; break; }
		maps=$(echo "$maps $m" | awk '{ printf "%.2f", $1 + $2 }')
	done
	if [ "$maps" != failed ] && [ "$merge" != failed ]; then
		m=$(cpu "$f --merge '$tmp'/part[0-3]")
		merge=$(echo "$merge $m" | awk '$2 == "failed" { print "failed"; next } { printf "%.2f", $1 + $2 }')
	fi
	echo "$f (two phases)|$one|$maps|$merge" | awk -F'|' -v shuffle="$split" '{
		if ($2 == "failed" || $3 == "failed" || $4 == "failed") {
			printf "| %s | %s | %s | %s | failed | failed |\n", $1, $2, $3, $4; next }
		printf "| %s | %.2f | %.2f | %.2f | %.2f | %.2f |\n", $1, $2, $3, $4,
			($3 + $4) / $2, ($3 + $4 + shuffle) / $2
	}' | tee -a "$shrows"
	rm -f "$tmp"/rank[0-3] "$tmp/bands"
}

: > "$shrows"
split=$(cpu "tr-ingest --split 4 -o '$tmp/shard' '$T5'")
if [ "$split" = failed ]; then
	echo "| tr-ingest --split 4 | failed | | | | |" >> "$shrows"
else
	echo "| tr-ingest --split 4 (the shuffle, once for every analysis) | | $split | | | |" >> "$shrows"
	shard_row "tr-infer" "tr-infer" "tr-infer --partial {}" "tr-infer --merge {}"
	shard_row "tr-infer --links" "tr-infer --links" "tr-infer --links --partial {}" "tr-infer --links --merge {}"
	shard_row "tr-cp --summary service" "tr-cp --summary service" "tr-cp --summary service --partial {}" \
		"tr-cp --summary service --merge {}"
	shard_row "tr-cp --folded" "tr-cp --folded" "tr-cp --folded {}" "tr-cp --folded --merge {}"
	shard_row "tr-cp --flame" "tr-cp --flame" "tr-cp --flame --partial {}" "tr-cp --flame --merge {}"
	w="--whatif 'service=mysql:scale=0.5'"
	shard_row "tr-cp $w" "tr-cp $w" "tr-cp $w --partial {}" "tr-cp $w --merge {}"
	flame_percentile_row
	q='From s In spans GroupBy s.service Select s.service, COUNT, P99(s.duration)'
	shard_row "tr-aggregate (exact percentiles)" "tr-aggregate \"$q\"" \
		"tr-aggregate --partial --exact-percentiles \"$q\" {}" "tr-aggregate --merge \"$q\" {}"
fi
rm -f "$tmp"/shard[0-3].tr "$tmp"/part[0-3] "$tmp/cpu" "$tmp/cpu.err"
