#!/usr/bin/env bats
# tr-report --partial and --merge: the slowest requests of shards by trace,
# merged, are those of one pass over the shards one after the other, ties
# in the order of that pass; bad partials are errors, nothing written.
load helper
bats_require_minimum_version 1.5.0

# The sample incident split by trace into $1 shards s0.tr... (one may hold
# no trace); prints the shards' paths in order.
split_samples() {
	local d=$BATS_TEST_TMPDIR
	[ -f "$SAMPLES/jaeger/hotrod.json" ] || skip "no samples/jaeger/hotrod.json"
	tr-ingest "$SAMPLES/jaeger/hotrod.json" > "$d/all.tr"
	tr-ingest --split "$1" -o "$d/s" "$d/all.tr"
	for ((k = 0; k < $1; k++)); do printf '%s\n' "$d/s$k.tr"; done
}

# Phase 1 over the shards given, then the merge, into $BATS_TEST_TMPDIR/chosen;
# the options of both in the array opts.
opts=()
partials_merged() {
	local d=$BATS_TEST_TMPDIR f parts=()
	for f in "$@"; do
		tr-report --partial --allow-empty "${opts[@]}" "$f" > "$f.part"
		parts+=("$f.part")
	done
	tr-report --merge "${opts[@]}" "${parts[@]}" > "$d/chosen"
}

# The trace ids of the page's slowest requests, in the page's order.
page_slowest() {
	grep -o 'href="#trace-[^"]*"' "$1" | awk '!seen[$0]++' | sed 's/^href="#trace-//; s/"$//'
}

@test "with 1, 2 and 4 shards --merge chooses the slowest of one pass, byte for byte" {
	local n
	for n in 1 2 4; do
		mapfile -t shards < <(split_samples "$n")
		partials_merged "${shards[@]}"
		tr-report --partial "${shards[@]}" | tr-report --merge > "$BATS_TEST_TMPDIR/one"
		expect_eq "$(cat "$BATS_TEST_TMPDIR/one")" "$(cat "$BATS_TEST_TMPDIR/chosen")" "$n shards"
	done
}

@test "the chosen traces are the page's slowest requests, in its order" {
	mapfile -t shards < <(split_samples 4)
	partials_merged "${shards[@]}"
	tr-report -q -o "$BATS_TEST_TMPDIR/page.html" "${shards[@]}"
	expect_eq "$(page_slowest "$BATS_TEST_TMPDIR/page.html")" \
		"$(grep '^C' "$BATS_TEST_TMPDIR/chosen" | cut -f4)"
	expect_eq 5 "$(grep -c '^C' "$BATS_TEST_TMPDIR/chosen")" "--top's default"
}

@test "a shard with no trace merges as none" {
	local d=$BATS_TEST_TMPDIR
	mapfile -t shards < <(split_samples 2)
	printf '#tr/1\n' > "$d/none.tr"
	partials_merged "${shards[0]}" "$d/none.tr" "${shards[1]}"
	cp "$d/chosen" "$d/with"
	partials_merged "${shards[@]}"
	expect_eq "$(cat "$d/chosen")" "$(cat "$d/with")"
	run tr-report --partial --allow-empty "$d/none.tr"
	expect_status 0
	expect_output "$(printf '#tr-report-partial/2\tslowest top=5 keep-streams=0\nN\t0\n#end\t1')"
}

# Four requests of one service: a, b and c take 5 ms, d 7 ms.
ties() {
	local d=$BATS_TEST_TMPDIR id lat
	printf '#tr/1\n' > "$d/ab.tr"
	printf '#tr/1\n' > "$d/cd.tr"
	for id in a:5000:ab b:5000:ab c:5000:cd d:7000:cd; do
		IFS=: read -r id lat f <<< "$id"
		printf 'T\t%s\nS\t%s\tr\t\t0\t%s\tweb\tGET\tserver\th\n' "$id" "$id" "$lat" >> "$d/$f.tr"
	done
}

@test "ties at the last place go to the earlier trace of the pass, in one pass and merged" {
	local d=$BATS_TEST_TMPDIR
	ties
	opts=(--top 2)
	partials_merged "$d/ab.tr" "$d/cd.tr"
	expect_eq "$(printf 'd\na')" "$(grep '^C' "$d/chosen" | cut -f4)" merged
	tr-report -q --top 2 -o "$d/page.html" "$d/ab.tr" "$d/cd.tr"
	expect_eq "$(printf 'd\na')" "$(page_slowest "$d/page.html")" "one pass"
}

@test "--top and --keep-streams are in what a partial is made for" {
	local d=$BATS_TEST_TMPDIR
	ties
	tr-report --partial --top 2 "$d/ab.tr" > "$d/p"
	run tr-report --merge --top 2 "$d/p"
	expect_status 0
	expect_output "$(printf '#tr-report-partial/2\tchosen top=2 keep-streams=0\nC\t5000\t1\ta\nC\t5000\t2\tb\n#end\t2')"
	run tr-report --merge "$d/p"
	expect_status 3
	expect_output "tr-report: $d/p:1: a partial made for something else (another query, other options)"
}

@test "bad partials are errors, file:line, nothing written" {
	local d=$BATS_TEST_TMPDIR
	ties
	tr-report --partial "$d/ab.tr" > "$d/good"
	tr-report --merge "$d/good" > "$d/chosen"
	: > "$d/empty"
	head -n 2 "$d/good" > "$d/cut"
	sed '1s|/2|/1|' "$d/good" > "$d/old"
	printf 'S\t1\t1\tx\n' > "$d/rec"
	{ head -n 1 "$d/good"; printf 'N\t2\nS\t1\t3\tx\n#end\t2\n'; } > "$d/place"
	while IFS='|' read -r file what; do
		run tr-report --merge -o "$d/out" "$d/good" "$d/$file"
		expect_status 3
		expect_output "tr-report: $d/$file:$what"
		[ ! -e "$d/out" ] || { echo "$file: wrote $d/out"; false; }
	done <<-'EOF'
	empty|1: an empty file, not a partial
	cut|3: the partial has no end mark: it was cut short
	old|1: a partial of format 1, this tr-report merges format 2: make it again
	chosen|1: a partial made for something else (another query, other options)
	rec|1: not a tr-report --partial file (its first line is not #tr-report-partial/2)
	place|3: bad S record (want S, a latency, a place from 1 to the partial's count of traces and a trace id)
	EOF
}

@test "--partial and --merge refuse what has no partial form" {
	run tr-report --partial --baseline /dev/null /dev/null
	expect_status 2
	expect_like "tr-report: --partial and --merge: -f md and --baseline have no partial form*" "$output"
	run tr-report --partial --merge /dev/null
	expect_status 2
	expect_like "tr-report: --partial and --merge: one at a time*" "$output"
}
