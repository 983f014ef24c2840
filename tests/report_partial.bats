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

# A chosen file less its O records (they name the shards) and its end mark.
chosen_traces() {
	grep -v '^O	\|^#end' "$1"
}

@test "with 1, 2 and 4 shards --merge chooses the slowest of one pass, byte for byte" {
	local n d=$BATS_TEST_TMPDIR
	for n in 1 2 4; do
		mapfile -t shards < <(split_samples "$n")
		partials_merged "${shards[@]}"
		tr-report --partial "${shards[@]}" | tr-report --merge > "$d/one"
		expect_eq "$(chosen_traces "$d/one")" "$(chosen_traces "$d/chosen")" "$n shards"
		expect_eq "$n" "$(grep -c '^O' "$d/chosen")" "a shard's first trace each"
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
	expect_output "$(printf '#tr-report-partial/2\tchosen top=2 keep-streams=0\nC\t5000\t1\ta\nC\t5000\t2\tb\nO\ta\t0\t2\t38ce7851aa1d2d84\nQ\t50,95,99\nB\ta\t1\nB\tb\t7\n#end\t6')"
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
	kind|3: not a tr-report --partial record (want N, O, Q, F, A, T, S, V, D, X, L, P, G, W, K, Y or a tr-infer --links record, with its fields)
	zero|3: not a tr-report --partial record (want N, O, Q, F, A, T, S, V, D, X, L, P, G, W, K, Y or a tr-infer --links record, with its fields)
	EOF
}

@test "--page is only for --merge" {
	run tr-report --page /dev/null
	expect_status 2
	expect_like "tr-report: --page: only with --merge*" "$output"
}

# Phase 1 over the shards given, the merge, phase 2, into $f.part2 each;
# the options of all in the array opts.
phase2() {
	local f
	partials_merged "$@"
	for f in "$@"; do
		tr-report --partial --allow-empty --chosen "$BATS_TEST_TMPDIR/chosen" "${opts[@]}" \
			"$f" > "$f.part2"
	done
}

@test "with 1, 2 and 4 shards and one with no trace, phase 2's --merge --page is one pass's page, byte for byte" {
	local d=$BATS_TEST_TMPDIR n
	printf '#tr/1\n' > "$d/none.tr"
	for n in 1 2 4; do
		mapfile -t shards < <(split_samples "$n")
		shards+=("$d/none.tr")
		phase2 "${shards[@]}"
		tr-report --merge --page -o "$d/merged.html" "${shards[@]/%/.part2}"
		tr-report -q --allow-empty -o "$d/one.html" "${shards[@]}"
		expect_eq "$(cat "$d/one.html")" "$(cat "$d/merged.html")" "$n shards"
		expect_eq 0 "$(grep -c '<p>Not built from partials: ' "$d/merged.html")" "sections said missing"
		expect_eq 5 "$(grep -c '<div class="pic" id="trace-' "$d/merged.html")" "timelines"
		expect_eq 4 "$(grep -c 'class="h">Critical path, ' "$d/merged.html")" \
			"flame graphs: every trace's and three percentiles'"
		expect_ge 10 "$(grep -c '<td>sequencing</td>\|<td>onpath</td>' "$d/merged.html")" "causes"
	done
}

@test "phase 2 draws the flame graphs of --percentile's bands, --keep-streams and the timelines of --min-share as one pass" {
	local d=$BATS_TEST_TMPDIR
	opts=(--top 3 --percentile 10,60,90,100 --keep-streams --min-share 0.1)
	mapfile -t shards < <(split_samples 3)
	phase2 "${shards[@]}"
	tr-report --merge --page "${opts[@]}" -o "$d/merged.html" "${shards[@]/%/.part2}"
	tr-report -q "${opts[@]}" -o "$d/one.html" "${shards[@]}"
	expect_eq "$(cat "$d/one.html")" "$(cat "$d/merged.html")"
	expect_eq 5 "$(grep -c 'class="h">Critical path, ' "$d/merged.html")" "flame graphs"
	expect_eq 3 "$(grep -c '<div class="pic" id="trace-' "$d/merged.html")" "timelines"
}

@test "phase 2 sends the neighbours within tr-temporal's window of the chosen, as one pass explains them" {
	local d=$BATS_TEST_TMPDIR k
	trsim --traces 2600 --seed 3 | tr-ingest > "$d/big.tr"
	tr-ingest --split 3 -o "$d/b" "$d/big.tr"
	opts=(--top 2)
	phase2 "$d/b0.tr" "$d/b1.tr" "$d/b2.tr"
	tr-report --merge --page --top 2 -o "$d/merged.html" "$d"/b?.tr.part2
	tr-report -q --top 2 -o "$d/one.html" "$d"/b?.tr
	expect_eq "$(cat "$d/one.html")" "$(cat "$d/merged.html")"
	# the traces sent: those within 1000 places of a chosen one's
	expect_eq "$(for k in 0 1 2; do grep '^T' "$d/b$k.tr"; done | awk -v places="$(grep '^C' "$d/chosen" | cut -f3 | paste -sd,)" '
		BEGIN { n = split(places, p, ",") }
		{ for (i = 1; i <= n; i++) if (NR + 1000 >= p[i] && NR <= p[i] + 1000) { print $2; next } }')" \
		"$(cat "$d"/b?.tr.part2 | grep '^Y	T%09' | sed 's/^Y	T%09//')" "neighbours"
	expect_ge 3 "$(grep -c '^KP' "$d/b0.tr.part2")" "clock evidence"
}

@test "phase 2 over a shard that is not one of its chosen file's is an error" {
	local d=$BATS_TEST_TMPDIR
	ties
	tr-report --partial "$d/ab.tr" > "$d/one-ab"
	tr-report --merge "$d/one-ab" > "$d/chosen-ab"
	run tr-report --partial --chosen "$d/chosen-ab" -o "$d/out" "$d/cd.tr"
	expect_status 3
	expect_output "tr-report: $d/chosen-ab: trace c, the first of this shard, is the first of no shard there: give phase 2 the chosen file of its own phase 1"
	[ ! -e "$d/out" ] || { echo "wrote $d/out"; false; }
}

@test "--merge --page: a slowest trace without its timeline, bad W and Y records are errors" {
	local d=$BATS_TEST_TMPDIR
	ties
	tr-report --partial "$d/cd.tr" > "$d/one-cd"
	tr-report --merge "$d/one-cd" > "$d/chosen-cd"
	tr-report --partial --chosen "$d/chosen-cd" "$d/cd.tr" > "$d/two-cd-all"
	{ grep -v '^W	d	\|^#end' "$d/two-cd-all"; printf '#end\t%s\n' "$(grep -vc '^W	d	\|^#' "$d/two-cd-all")"; } > "$d/two-cd"
	run tr-report --merge --page -o "$d/out" "$d/two-cd"
	expect_status 3
	expect_output "tr-report: the partials hold no timeline of trace d, one of the slowest: give phase 2 the chosen file of these partials' shards"
	[ ! -e "$d/out" ] || { echo "wrote $d/out"; false; }
	{ head -n 3 "$d/two-cd"; printf 'W\tc\n#end\t3\n'; } > "$d/badw"
	run tr-report --merge --page -o "$d/out" "$d/badw"
	expect_status 3
	expect_output "tr-report: $d/badw:4: not a tr-report --partial record (want N, O, Q, F, A, T, S, V, D, X, L, P, G, W, K, Y or a tr-infer --links record, with its fields)"
	{ head -n 3 "$d/two-cd"; printf 'W\tc\t\n#end\t3\n'; } > "$d/emptyw"
	run tr-report --merge --page -o "$d/out" "$d/emptyw"
	expect_status 3
	expect_output "tr-report: $d/emptyw:4: bad W record (want W, a trace id and its timeline)"
	{ head -n 3 "$d/two-cd"; printf 'Y\tT\tc\n#end\t3\n'; } > "$d/tabby"
	run tr-report --merge --page -o "$d/out" "$d/tabby"
	expect_status 3
	expect_output "tr-report: $d/tabby:4: bad Y record (want Y and a line of a trace, escaped)"
}

@test "the chosen file's bands are those tr-cp --merge --ranks gives" {
	local d=$BATS_TEST_TMPDIR f
	mapfile -t shards < <(split_samples 2)
	partials_merged "${shards[@]}"
	for f in "${shards[@]}"; do tr-cp -q --flame --percentile 50,95,99 --partial "$f"; done |
		tr-cp --flame --percentile 50,95,99 --merge --ranks > "$d/bands"
	expect_eq "$(grep '^B' "$d/bands")" "$(grep '^B' "$d/chosen")"
	expect_eq 1 "$(grep -c '^B' "$d/chosen" | awk '{ print ($1 > 2) }')" "some traces in bands"
}

@test "--merge --page: partials of two phases or of other percentiles are errors, file:line" {
	local d=$BATS_TEST_TMPDIR
	ties
	tr-report --partial "$d/ab.tr" > "$d/one"
	tr-report --partial "$d/cd.tr" > "$d/one-cd"
	tr-report --merge "$d/one" "$d/one-cd" > "$d/chosen"
	tr-report --partial --chosen "$d/chosen" "$d/ab.tr" > "$d/two"
	tr-report --partial --chosen "$d/chosen" "$d/cd.tr" > "$d/two-cd"
	tr-report --partial --percentile 90 "$d/cd.tr" > "$d/p90"
	tr-report --merge --percentile 90 "$d/p90" > "$d/chosen90"
	tr-report --partial --percentile 90 --chosen "$d/chosen90" "$d/cd.tr" > "$d/two90"
	run tr-report --merge --page -o "$d/out" "$d/two" "$d/one"
	expect_status 3
	expect_output "tr-report: $d/one:3: a partial of phase 1 after one of phase 2: give the partials of one phase"
	run tr-report --merge --page -o "$d/out" "$d/one" "$d/two-cd"
	expect_status 3
	expect_output "tr-report: $d/two-cd:3: a partial of phase 2 after one of phase 1: give the partials of one phase"
	run tr-report --merge --page -o "$d/out" "$d/two" "$d/two90"
	expect_status 3
	expect_output "tr-report: $d/two90:3: a partial for other percentiles (90, not 50,95,99): give the --percentile its phase 2 was given"
	[ ! -e "$d/out" ] || { echo "wrote $d/out"; false; }
	{ head -n 3 "$d/one"; printf 'GT\t1\t1\t1\t1\n#end\t3\n'; } > "$d/flame1"
	run tr-report --merge --page -o "$d/out" "$d/flame1"
	expect_status 3
	expect_output "tr-report: $d/flame1:4: a flame graph record in a partial of phase 1"
	{ head -n 3 "$d/two"; printf 'P\tweb\t\tx\n#end\t3\n'; } > "$d/badp"
	run tr-report --merge --page -o "$d/out" "$d/badp"
	expect_status 3
	expect_output "tr-report: $d/badp:4: bad P record (want P and a count of traces, or P, a service, an operation and µs)"
	{ head -n 3 "$d/one"; printf 'L\t-1\t2\ta\n#end\t3\n'; } > "$d/badl"
	run tr-report --merge -o "$d/out" "$d/badl"
	expect_status 3
	expect_output "tr-report: $d/badl:4: bad L record (want L, a latency, 0 or 1 and a trace id)"
}

@test "--chosen: the merge's output for the same options, only with --partial" {
	local d=$BATS_TEST_TMPDIR
	ties
	tr-report --partial "$d/ab.tr" > "$d/one"
	tr-report --merge "$d/one" > "$d/chosen"
	sed 's/^Q\t.*/Q\t90/' "$d/chosen" > "$d/q90"
	run tr-report --partial --chosen "$d/q90" -o "$d/out" "$d/ab.tr"
	expect_status 3
	expect_output "tr-report: $d/q90:5: chosen for other percentiles (90, not 50,95,99): give the --percentile the merge was given"
	{ head -n 1 "$d/chosen"; printf 'S\t1\n#end\t1\n'; } > "$d/rec"
	run tr-report --partial --chosen "$d/rec" -o "$d/out" "$d/ab.tr"
	expect_status 3
	expect_output "tr-report: $d/rec:2: not a tr-report --merge record (want C, O, Q or B, with its fields)"
	run tr-report --partial --chosen "$d/one" -o "$d/out" "$d/ab.tr"
	expect_status 3
	expect_output "tr-report: $d/one:1: a partial made for something else (another query, other options)"
	[ ! -e "$d/out" ] || { echo "wrote $d/out"; false; }
	run tr-report --chosen "$d/chosen" "$d/ab.tr"
	expect_status 2
	expect_like "tr-report: --chosen: only with --partial*" "$output"
}

@test "phase 2 over a shard holding other traces than phase 1's, though it starts alike, is an error; -o is kept" {
	local d=$BATS_TEST_TMPDIR
	tr-ingest --split 2 -o "$d/s" "$SAMPLES/jaeger/hotrod.json"
	for i in 0 1; do tr-report --partial "$d/s$i.tr" > "$d/q$i"; done
	tr-report --merge "$d/q0" "$d/q1" > "$d/chosen"
	# shard 1 with its last trace swapped for shard 0's first: as many traces
	n=$(grep -c '^T' "$d/s1.tr")
	{ awk -F'\t' -v n="$n" '$1 == "T" { k++ } k < n' "$d/s1.tr"
	  awk -F'\t' '$1 == "T" { k++ } k == 1' "$d/s0.tr"; } > "$d/odd.tr"
	echo keep > "$d/out"
	run --separate-stderr tr-report --partial --chosen "$d/chosen" -o "$d/out" "$d/odd.tr"
	expect_status 3
	expect_like "tr-report: $d/chosen: this shard holds other traces than phase 1's shard whose first trace is * (22 here, 22 there): give phase 2 the shards of its own phase 1" "$stderr"
	expect_eq keep "$(cat "$d/out")" "the -o file"
}

@test "phase 2's --merge --page refuses a shard given twice or missing" {
	local d=$BATS_TEST_TMPDIR
	tr-ingest --split 2 -o "$d/s" "$SAMPLES/jaeger/hotrod.json"
	for i in 0 1; do tr-report --partial "$d/s$i.tr" > "$d/q$i"; done
	tr-report --merge "$d/q0" "$d/q1" > "$d/chosen"
	for i in 0 1; do tr-report --partial --chosen "$d/chosen" "$d/s$i.tr" > "$d/t$i"; done
	run --separate-stderr tr-report --merge --page "$d/t0" "$d/t0"
	expect_status 3
	expect_empty "$output"
	expect_eq "tr-report: --merge --page: the traces from place 0 are in two partials: a shard was given twice" "$stderr"
	run --separate-stderr tr-report --merge --page "$d/t1"
	expect_status 3
	expect_eq "tr-report: --merge --page: the traces from place 0 are in none: a shard is missing" "$stderr"
	run tr-report --merge --page "$d/t0" "$d/t1"
	expect_status 0
}
