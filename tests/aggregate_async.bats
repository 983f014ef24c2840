#!/usr/bin/env bats
# tr-aggregate: happened-before on traces with async work (CONSUMER and
# FOLLOWS_FROM children, children that outlive their parents), MostRecent by
# the time a span ended, and happened-before joins on a subquery's rows (Q9).
# Hand-made traces and two conformance traces, with numbers worked out by
# hand.

load helper

fix() {
	tr '|' '\t' | mkfix "$1"
}

# Pairs a -> b where a starts after b has ended: never, under any rule that
# deserves the name.
INVERTED='From b In spans Join a In spans On a -> b Where a.start > b.end Select COUNT'
PAIRS='From b In spans Join a In spans On a -> b Select COUNT'

# root [0,100) calls p [5,20), which calls sync [6,12) and starts ff
# [15,90) FOLLOWS_FROM it (ff calls ffkid [16,80)) and producer prod
# [17,18), whose consumer cons runs [19,25); then root calls later
# [30,40) and next [45,50).
async_tree() {
	fix a.tr <<-'EOF'
	#tr/1
	T|h
	S|h|root||0|100|svc|root|server|
	S|h|p|root|5|15|svc|p|client|
	S|h|sync|p|6|6|svc|sync||
	S|h|ff|p|15|75|svc|ff||
	R|h|ff|follows_from|h|p
	S|h|ffkid|ff|16|64|svc|ffkid||
	S|h|prod|p|17|1|svc|prod|producer|
	S|h|cons|prod|19|6|svc|cons|consumer|
	S|h|later|root|30|10|svc|later|client|
	S|h|next|root|45|5|svc|next|client|
	EOF
}

before() {
	tr-aggregate --no-header "From b In spans[span = \"$1\"] Join a In spans On a -> b Select a.span" "$BATS_TEST_TMPDIR/a.tr" | sort | tr '\n' ' '
}

@test "a FOLLOWS_FROM or CONSUMER subtree is a branch of its own: it precedes none of its parent's later work" {
	async_tree
	# later: root (ancestor), p, sync and prod (returned with p at 20); not
	# ff, ffkid (running to 90 and 80), nor cons, which ended at 25 but
	# never returned
	expect_eq "p prod root sync " "$(before later)"
	expect_eq "later p prod root sync " "$(before next)"
	# inside the branch: p and sync came before it; prod ended at 18 but ff
	# began at 15, so the two overlap
	expect_eq "ff p root sync " "$(before ffkid)"
	expect_eq "p prod root sync " "$(before cons)"
	run tr-aggregate "$INVERTED" "$BATS_TEST_TMPDIR/a.tr"
	expect_output "$(printf 'COUNT\n0')"
}

@test "the parent's later work does not precede the async branch either (concurrent both ways)" {
	async_tree
	run tr-aggregate --no-header 'From a In spans[span = "later" or span = "next"]
		Join b In spans On a -> b Select a.span, b.span' "$BATS_TEST_TMPDIR/a.tr"
	expect_eq 0 "$status" status
	expect_output "$(printf 'later\tnext')"
}

@test "a child that outlives its parent was not waited for: its work does not return with the parent" {
	fix o.tr <<-'EOF'
	#tr/1
	T|o
	S|o|r||0|100|svc|r||
	S|o|x|r|0|10|svc|x||
	S|o|bg|x|5|20|svc|bg||
	S|o|y|r|12|3|svc|y||
	S|o|z|r|30|3|svc|z||
	EOF
	run tr-aggregate --no-header 'From b In spans Join a In spans On a -> b Where not (a.span == "r") Select a.span, b.span' "$BATS_TEST_TMPDIR/o.tr"
	expect_eq 0 "$status" status
	# x returned at 10, before y and z began; bg, called by x, ran to 25,
	# past x's end: nothing waited for it, so it precedes neither y nor z
	# (though it ended before z began); y returned at 15, before z
	expect_output "$(printf 'x\tbg\nx\ty\nx\tz\ny\tz')"
}

@test "--hb=tree is unchanged by async children: ancestry only" {
	async_tree
	run tr-aggregate --hb=tree "$PAIRS" "$BATS_TEST_TMPDIR/a.tr"
	# root: 8 descendants; p: 5; ff: 1; prod: 1
	expect_output "$(printf 'COUNT\n15')"
}

@test "Zipkin's kafka trace: no pair a -> b with a starting after b ended (10 before), 90 pairs" {
	need_conformance
	tr-ingest "$CONF/zipkin/messaging-kafka.json" > "$BATS_TEST_TMPDIR/k.tr"
	run tr-aggregate "$INVERTED" "$BATS_TEST_TMPDIR/k.tr"
	expect_eq 0 "$status" status
	expect_output "$(printf 'COUNT\n0')"
	# the 90 pairs are the 72 ancestor pairs (the sum of the depths) and 18
	# sequenced ones
	run tr-aggregate --no-header "$PAIRS" "$BATS_TEST_TMPDIR/k.tr"
	expect_output 90
	run tr-aggregate --no-header --hb=tree "$PAIRS" "$BATS_TEST_TMPDIR/k.tr"
	expect_output 72
	expect_eq 72 "$(tr-aggregate --no-header 'From s In spans Select SUM(s.depth)' "$BATS_TEST_TMPDIR/k.tr")"
	# the consumer poll e0473dc3 (in the first on-message's branch, at
	# 847007) no longer precedes the third on-message (from 675002)
	run tr-aggregate --no-header 'From b In spans[span = "d1b4806e7e9eed25"] Join a In spans On a -> b Select COUNT' "$BATS_TEST_TMPDIR/k.tr"
	expect_output 1
}

@test "Jaeger UI's tracegraph trace: the FOLLOWS_FROM consumer no longer precedes span-12 (a 460 ms inversion)" {
	need_conformance
	tr-ingest "$CONF/jaeger/tracegraph-testTrace.json" > "$BATS_TEST_TMPDIR/t.tr"
	run tr-aggregate "$INVERTED" "$BATS_TEST_TMPDIR/t.tr"
	expect_output "$(printf 'COUNT\n0')"
	run tr-aggregate --no-header "$PAIRS" "$BATS_TEST_TMPDIR/t.tr"
	expect_output 51
	# what precedes span-12 [331,341) ms: span-1, its ancestor, and the
	# children of span-1 that returned by 331 ms with their subtrees; span-6
	# (the producer, returned at 321 ms) but not span-7 (its consumer, from
	# 801 ms)
	run tr-aggregate --no-header 'From b In spans[span = "span-12"] Join a In spans On a -> b Select a.span' "$BATS_TEST_TMPDIR/t.tr"
	expect_eq "span-1 span-2 span-2_1 span-3 span-4 span-5 span-6 " "$(printf '%s\n' "$output" | sort | tr '\n' ' ')"
}

@test "MostRecent is the span that ended last; an ancestor counts from its start; ties go to the later in pre-order" {
	fix m.tr <<-'EOF'
	#tr/1
	T|m
	S|m|r||0|100|svc|r|server|
	S|m|x1|r|0|10|svc|x1|client|
	S|m|x2|r|2|3|svc|x2|client|
	S|m|y|r|12|50|svc|y|server|
	S|m|q|y|13|5|svc|q|client|
	T|n
	S|n|r||0|100|svc|r|server|
	S|n|x1|r|0|10|svc|x1|client|
	S|n|x2|r|2|8|svc|x2|client|
	S|n|q|r|12|5|svc|q|client|
	EOF
	# m: before q are r, y (ancestors, from 0 and 12), x1 (ended 10), x2
	# (ended 5): y; among the clients x1 ended last (pre-order gave x2)
	run tr-aggregate --no-header 'From q In spans[span = "q"]
		Join s In MostRecent(spans) On s -> q
		Join c In MostRecent(spans[kind = "client"]) On c -> q
		Select q.trace, s.span, c.span' "$BATS_TEST_TMPDIR/m.tr"
	expect_eq 0 "$status" status
	# n: x1 and x2 both ended at 10: the later in pre-order, x2
	expect_output "$(printf 'm\ty\tx1\nn\tx2\tx2')"
	run tr-aggregate --no-header 'From q In spans[span = "q" and trace = "m"]
		Join c In MostRecentN(2, spans[kind = "client"]) On c -> q Select c.span' "$BATS_TEST_TMPDIR/m.tr"
	expect_output "$(printf 'x2\nx1')"
	# First keeps pre-order: the first to begin
	run tr-aggregate --no-header 'From q In spans[span = "q" and trace = "m"]
		Join c In First(spans[kind = "client"]) On c -> q Select c.span' "$BATS_TEST_TMPDIR/m.tr"
	expect_output x1
}

# One request: root a [0,1000) logs "done" at 1000; two customer servers
# b [100,300) and d [400,700) each call mysql (c [150,250), e [450,650)); a
# mysql call f [800,950) FOLLOWS_FROM the root, a branch that never returns.
latencies() {
	fix q.tr <<-'EOF'
	#tr/1
	T|q
	S|q|a||0|1000|frontend|job|server|
	S|q|b|a|100|200|customer|get|server|
	S|q|c|b|150|100|mysql|select|client|
	S|q|d|a|400|300|customer|get|server|
	S|q|e|d|450|200|mysql|select|client|
	S|q|f|a|800|150|mysql|insert|client|
	R|q|f|follows_from|q|a
	L|q|a|1000|event=done
	EOF
}

Q8='From c In spans[service = "mysql"]
	Join s In MostRecent(spans[kind = "server"]) On s -> c
	Select c.span As span, c.end - s.start As latency'

@test "Q8 as a subquery: its rows, one per mysql call, from the most recent server" {
	latencies
	run tr-aggregate --no-header "$Q8" "$BATS_TEST_TMPDIR/q.tr"
	expect_eq 0 "$status" status
	# c: b (began 100, after a) -> 150; e: d (began 400; b ended at 300) ->
	# 250; f: d (returned to a at 700, before a started f at 800) -> 550
	expect_output "$(printf 'c\t150\ne\t250\nf\t550')"
}

@test "Q9: a happened-before join on a subquery's rows, each at the span its From bound" {
	latencies
	run tr-aggregate "From j In logs[event = \"done\"]
		Join m In ($Q8) On m -> j
		GroupBy j.trace Select j.trace, COUNT, AVG(m.latency)" "$BATS_TEST_TMPDIR/q.tr"
	expect_eq 0 "$status" status
	# c and e returned to a before "done"; f's branch never did
	expect_output "$(printf 'j.trace\tCOUNT\tAVG(m.latency)\nq\t2\t200')"
	# MostRecent over subquery rows: e's row (e ended at 650, c at 250)
	run tr-aggregate --no-header "From j In logs Join m In MostRecent(($Q8)) On m -> j Select m.span, m.latency" "$BATS_TEST_TMPDIR/q.tr"
	expect_output "$(printf 'e\t250')"
	# the other way: subquery rows in From, joined to what came before them
	run tr-aggregate --no-header "From m In ($Q8) Join s In spans[service = \"customer\"] On s -> m
		Select m.span, s.span" "$BATS_TEST_TMPDIR/q.tr"
	expect_output "$(printf 'c\tb\ne\tb\ne\td\nf\tb\nf\td')"
}

@test "a grouped subquery's rows have no place in the trace: -> on them is an error" {
	run tr-aggregate 'From j In spans Join m In (From s In spans GroupBy s.service Select s.service As svc) On m -> j Select j.span'
	expect_eq 2 "$status" status
	expect_contains 'no place in the trace' "$output"
	run tr-aggregate 'From x In (From s In spans Select s.span As id) Join m In (From y In (From s In spans GroupBy s.trace Select s.trace As t) Select y.t As t) On m -> x Select x.id'
	expect_eq 2 "$status" status
	expect_contains 'no place in the trace' "$output"
}
