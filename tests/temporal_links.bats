#!/usr/bin/env bats
# tr-temporal: spans explained by the traces they link to, or that link to
# them (a link means the linking span waited for the linked work while
# they overlap). Fixtures are in µs.

load helper
bats_require_minimum_version 1.5.0

TAB=$'\t'

rec() {
	local IFS="$TAB"
	printf '%s\n' "$*"
}

# A request whose 5,000 ms leaf waits for a job done in trace k1; $1 says
# where the link is: "out" (the leaf links to the job), "in" (the job links
# to the leaf), "none"; $2 moves the job in time (µs).
linked_case() {
	local shift=${2:-0}
	{
		printf '#tr/1\n'
		rec T w1
		rec S w1 r '' 1000000 5000300 gateway 'POST /cart' server gw
		rec S w1 l r 1000100 5000000 gateway 'await job' internal gw
		[ "$1" = out ] && rec R w1 l link k1 k0
		rec T k1
		rec S k1 k0 '' $((1000200 + shift)) 4999700 worker 'process job' server wk
		rec S k1 k1 k0 $((1000300 + shift)) 4999000 db query client wk
		[ "$1" = in ] && rec R k1 k0 link w1 l
	} | mkfix "linked-$1-$shift.tr"
}

# The "links:" line naming trace $2 in explain output $1, its share alone.
linked_share() {
	printf '%s\n' "$1" | sed -n "s/^    work in linked trace $2 .*= .* (\([0-9.]*\)%).*/\1/p"
}

at_least_99() {
	awk -v p="$1" 'BEGIN { exit !(p != "" && p + 0 >= 99) }' ||
		{ echo "share of the linked trace: '$1', expected at least 99"; return 1; }
}

@test "temporal links: a leaf linking to the trace doing the work gives it at least 99% of the delay" {
	f=$(linked_case out)
	run tr-temporal --explain -t w1 "$f"
	expect_status 0
	line=$(printf '%s\n' "$output" | grep '^    work in linked trace')
	expect_eq "    work in linked trace k1 (worker:process job) = 4999.7 ms (100.0%), waited for by gateway:await job" "$line" "links line"
	at_least_99 "$(linked_share "$output" k1)"
}

@test "temporal links: the linked trace's causes are named with their trace and its root" {
	f=$(linked_case out)
	run tr-temporal --explain -t w1 "$f"
	line=$(printf '%s\n' "$output" | grep '^    db:query')
	expect_eq "    db:query (client) = 4999.0 ms (100.0%) [linked] in trace k1 (worker:process job)" "$line" "cause line"
}

@test "temporal links: a consumer's link is a message from its producer, not a wait of the producer for it" {
	f=$(linked_case in)
	g=$(sed "/^S${TAB}k1${TAB}k0${TAB}/s/${TAB}server${TAB}/${TAB}consumer${TAB}/" "$f" | mkfix consumer.tr)
	run tr-temporal --explain -t w1 "$g"
	expect_status 0
	expect_eq 0 "$(printf '%s\n' "$output" | grep -c 'linked')" "linked causes"
}

@test "temporal links: a link from the worker's span to the waiting span is followed as well" {
	f=$(linked_case in)
	run tr-temporal --explain -t w1 "$f"
	expect_status 0
	at_least_99 "$(linked_share "$output" k1)"
}

@test "temporal links: the span that started later does not wait for the one that links to it" {
	f=$(linked_case in)
	run tr-temporal --explain -t k1 "$f"
	summary=$(printf '%s\n' "$output" | grep '^  summary')
	expect_eq "  summary: other traces 0 µs (0.0%), own work 4999.7 ms (100.0%), network 0 µs (0.0%), unexplained 0 µs (0.0%)" "$summary" summary
}

@test "temporal links: the assumptions say what a followed link means" {
	f=$(linked_case out)
	run tr-temporal --explain -t w1 "$f"
	expect_eq 1 "$(printf '%s\n' "$output" | grep -c '^    a link means the linking span waited for the linked work while they overlap')"
}

@test "temporal links: a link to a trace that does not overlap in time explains nothing" {
	f=$(linked_case out 7000000)
	g=$(linked_case none 7000000)
	run tr-temporal --explain -t w1 "$f"
	expect_status 0
	expect_output "$(tr-temporal --explain -t w1 "$g")"
}

@test "temporal links: a link to a trace not in the input is one note, and not followed" {
	f=$(linked_case out)
	g=$(grep -v "^[TS]${TAB}k1" "$f" | mkfix alone.tr)
	run tr-temporal --explain "$g"
	expect_status 0
	expect_eq "    note: gateway:await job links to trace k1, which is not in the input (or further than -w/2 traces away): not followed" \
		"$(printf '%s\n' "$output" | grep 'note:')" note
	expect_eq "  summary: other traces 0 µs (0.0%), own work 5000.3 ms (100.0%), network 0 µs (0.0%), unexplained 0 µs (0.0%)" \
		"$(printf '%s\n' "$output" | grep '^  summary')" summary
}

@test "temporal links: the line format's D records give the linked trace's causes the role linked" {
	f=$(linked_case out)
	run tr-temporal -t w1 "$f"
	expect_eq "D${TAB}w1${TAB}k1${TAB}k1${TAB}linked${TAB}4999000${TAB}4999000${TAB}db:query (client)" \
		"$(printf '%s\n' "$output" | grep "^D${TAB}w1${TAB}k1${TAB}k1")" "D record"
}

@test "temporal links: the annotation of a followed link keeps every invariant (--check)" {
	for dir in out in; do
		f=$(linked_case $dir)
		run tr-temporal --check "$f"
		expect_eq 0 "$status" "--check exit status, link $dir"
	done
}

@test "temporal links: otel-tui's load generator leaf of 5,008 ms is explained by the trace it is linked from" {
	eco="${TR_SHARED:-$BATS_TEST_DIRNAME/../../shared}/ecosystem/otel-tui/test_data.json"
	[ -f "$eco" ] || skip "no ../shared/ecosystem/otel-tui beside the project"
	run tr-temporal --explain -q -t 09f5d449f0603a515e4f802b6d84a19b "$eco"
	expect_status 0
	expect_eq "    work in linked trace 42a60545a48cfbdacf669252d09c5f76 (frontend:HTTP POST) = 5005.2 ms (99.9%), waited for by frontend:POST" \
		"$(printf '%s\n' "$output" | grep '^    work in linked trace')" "links line"
	at_least_99 "$(linked_share "$output" 42a60545a48cfbdacf669252d09c5f76)"
}

@test "report links: tr-report names the linked trace a slow request's time went to, under its causes" {
	f=$(linked_case out)
	run tr-report -q "$f"
	expect_status 0
	expect_eq "Slow request w1: work in linked trace k1 (worker:process job), 5 s." \
		"$(printf '%s\n' "$output" | sed -n 's/<[^>]*>//g; /^Slow request/p')" "linked line"
}

@test "report links: a report without links across traces has no linked line" {
	f=$(linked_case none)
	run tr-report -q "$f"
	expect_status 0
	expect_eq 0 "$(printf '%s\n' "$output" | grep -c 'linked trace')" "linked lines"
}

@test "cp links: --dot draws a dashed edge labelled link from the linking span to the linked one" {
	f=$(linked_case out)
	run tr-cp --dot "$f"
	expect_status 0
	expect_eq '  "w1/l" -> "k1/k0" [label="link", style=dashed, constraint=false];' \
		"$(printf '%s\n' "$output" | grep 'label="link"')" "link edge"
}

@test "cp links: --dot --trace draws the trace linked to the one asked for in a cluster of its own" {
	f=$(linked_case in)
	run tr-cp --dot --trace w1 "$f"
	expect_status 0
	expect_eq $'  subgraph "cluster_w1" {\n  subgraph "cluster_k1" {' \
		"$(printf '%s\n' "$output" | grep 'subgraph')" clusters
	expect_eq '  "k1/k0" -> "w1/l" [label="link", style=dashed, constraint=false];' \
		"$(printf '%s\n' "$output" | grep 'label="link"')" "link edge"
}

@test "cp links: --dot draws no edge to a linked trace that is not in the input" {
	f=$(linked_case out)
	g=$(grep -v "^[TS]${TAB}k1" "$f" | mkfix alone.tr)
	run tr-cp --dot "$g"
	expect_status 0
	expect_eq 0 "$(printf '%s\n' "$output" | grep -c -- '->.*link')" "link edges"
}

@test "cp links: --svg draws the linked trace below the slowest, marked as another trace, on one time axis" {
	f=$(linked_case out)
	run tr-cp --svg "$f"
	expect_status 0
	expect_eq "trace w1 and 1 linked trace" "$(printf '%s\n' "$output" | sed -n '2s/<title>\(.*\)<\/title>/\1/p')" title
	expect_eq "another trace, joined by a link: k1 · worker: process job" \
		"$(printf '%s\n' "$output" | grep -o 'another trace[^<]*')" banner
	# both pictures put 0 of the axis at the same x and 5 s at the same x
	expect_eq 2 "$(printf '%s\n' "$output" | grep -c '>5 s</text>')" "5 s ticks"
	expect_eq 1 "$(printf '%s\n' "$output" | grep -o '<text x="[0-9.]*"[^>]*>5 s</text>' | sort -u | wc -l)" "one x for the 5 s tick"
}

@test "cp links: --svg of a trace without links is the picture of that trace alone" {
	f=$(linked_case out)
	g=$(grep -v "^R" "$f" | mkfix unlinked.tr)
	run tr-cp --svg "$g"
	expect_status 0
	expect_eq 0 "$(printf '%s\n' "$output" | grep -c 'another trace')" banners
	expect_eq 1 "$(printf '%s\n' "$output" | grep -c '<svg')" "svg elements"
}

@test "cp links: --svg holds the trace a slower linked one replaces as the slowest, and draws it below" {
	f=$(linked_case out)
	g=$(sed "s/^\(S${TAB}k1${TAB}k0${TAB}${TAB}[0-9]*${TAB}\)4999700/\16000000/" "$f" | mkfix slower.tr)
	run tr-cp --svg "$g"
	expect_status 0
	expect_eq "trace k1 and 1 linked trace" "$(printf '%s\n' "$output" | sed -n '2s/<title>\(.*\)<\/title>/\1/p')" title
	expect_eq "another trace, joined by a link: w1 · gateway: POST /cart" \
		"$(printf '%s\n' "$output" | grep -o 'another trace[^<]*')" banner
}
