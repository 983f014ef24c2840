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
	expect_output "$(printf '#tr-report-partial/2\tpage top=5 keep-streams=0\nN\t0\nF\t%s\nA\t0\t0\t0\t0\n#end\t3' "$d/none.tr")"
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
	{ head -n 1 "$d/good"; printf 'N\t2\nS\t1\t3\tx\t0\tweb: GET\n#end\t2\n'; } > "$d/place"
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
	place|3: bad S record (want S, a latency, a place from 1 to the partial's count of traces, a trace id, a count of failed spans, a root)
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

# A page less the sections --merge --page does not build (critical path,
# causes, timelines): from their heading to the next section's.
page_sums() {
	sed '/<h2 id="critical-path"/,/<h2 id="services"/{/<h2 id="services"/!d}; /<h2 id="timelines"/,$d' "$1"
}

@test "with 1, 2 and 4 shards and one with no trace, --merge --page is one pass's page but three sections" {
	local d=$BATS_TEST_TMPDIR n
	printf '#tr/1\n' > "$d/none.tr"
	for n in 1 2 4; do
		mapfile -t shards < <(split_samples "$n")
		shards+=("$d/none.tr")
		for f in "${shards[@]}"; do tr-report --partial --allow-empty "$f" > "$f.part"; done
		tr-report --merge --page -o "$d/merged.html" "${shards[@]/%/.part}"
		tr-report -q --allow-empty -o "$d/one.html" "${shards[@]}"
		expect_eq "$(page_sums "$d/one.html")" "$(page_sums "$d/merged.html")" "$n shards"
		expect_eq 5 "$(page_sums "$d/merged.html" | grep -c '<h2 ')" "sections compared"
		expect_eq 3 "$(grep -c '<p>Not built from partials: ' "$d/merged.html")" "sections said missing"
		expect_eq 1 "$(grep -c '<h2 id="critical-path"' "$d/merged.html")" "its heading kept"
	done
}

@test "--merge --page: bad partials are errors, file:line, nothing written" {
	local d=$BATS_TEST_TMPDIR
	ties
	tr-report --partial "$d/ab.tr" > "$d/good"
	tr-report --partial --top 2 "$d/cd.tr" > "$d/top2"
	tr-report --merge "$d/good" > "$d/chosen"
	: > "$d/empty"
	head -n 4 "$d/good" > "$d/cut"
	{ head -n 2 "$d/good"; printf 'X\tq\tweb\t\t\t1\t0\t\n#end\t2\n'; } > "$d/kind"
	{ head -n 2 "$d/good"; printf 'D\tweb\tGET\t5000\t0\n#end\t2\n'; } > "$d/zero"
	while IFS='|' read -r file what; do
		run tr-report --merge --page -o "$d/out" "$d/good" "$d/$file"
		expect_status 3
		expect_output "tr-report: $d/$file:$what"
		[ ! -e "$d/out" ] || { echo "$file: wrote $d/out"; false; }
	done <<-'EOF'
	empty|1: an empty file, not a partial
	cut|5: the partial has no end mark: it was cut short
	top2|1: a partial made for something else (another query, other options)
	chosen|1: a partial made for something else (another query, other options)
	kind|3: not a tr-report --partial record (want N, F, A, T, S, V, D, X or a tr-infer --links record, with its fields)
	zero|3: not a tr-report --partial record (want N, F, A, T, S, V, D, X or a tr-infer --links record, with its fields)
	EOF
}

@test "--page is only for --merge" {
	run tr-report --page /dev/null
	expect_status 2
	expect_like "tr-report: --page: only with --merge*" "$output"
}
