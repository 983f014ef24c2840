#!/usr/bin/env bats
# tr-aggregate: Pivot Tracing's queries (Q1, Q2, Q6, Q7, Q8, Q9, Fig. 1a,
# Fig. 1c's crosstab, Fig. 8g's conditional probabilities)
# adapted to spans, on the simulated HotROD sample; and Jaeger UI's trace
# statistics reproduced by one query on conformance traces, against numbers
# worked out by hand.

load helper

hotrod() {
	[ -f "$SAMPLES/jaeger/hotrod.json" ] || skip "no samples/jaeger/hotrod.json"
	tr-ingest "$SAMPLES/jaeger/hotrod.json" > "$BATS_TEST_TMPDIR/hotrod.tr"
}

# The table as TAB-separated text from |-separated lines.
table() {
	tr '|' '\t'
}

@test "Q1: per-service count, average and maximum duration" {
	hotrod
	run tr-aggregate 'From s In spans GroupBy s.service
		Select s.service, COUNT, AVG(s.duration), MAX(s.duration)' "$BATS_TEST_TMPDIR/hotrod.tr"
	expect_eq 0 "$status" status
	expect_output "$(table <<-'EOF'
	s.service|COUNT|AVG(s.duration)|MAX(s.duration)
	analytics|45|3086.5333333333333|4988
	batch|3|479249.6666666667|719761
	customer|88|205507.625|731249
	driver|560|26117.864285714284|362934
	frontend|624|98799.20032051283|1183677
	mysql|46|24606.978260869564|688528
	route|443|39605.27990970654|59796
	EOF
	)"
	# the counts and maxima, recomputed with awk from the line format
	expect_eq "$(awk -F'\t' '$1 == "S" { n[$7]++; if ($6 > m[$7]) m[$7] = $6 } END { for (s in n) print s, n[s], m[s] }' "$BATS_TEST_TMPDIR/hotrod.tr" | sort)" \
		"$(printf '%s\n' "$output" | awk -F'\t' 'NR > 1 { print $1, $2, $4 }')"
}

@test "Q2: mysql time per customer, known only at the request's first span (First)" {
	hotrod
	run tr-aggregate 'From s In spans[service = "mysql"]
		Join r In First(spans[service = "frontend" and kind = "server"]) On r -> s
		GroupBy r.tag["customer.id"]
		Select r.tag["customer.id"] As customer, COUNT, SUM(s.duration) As mysql_us' "$BATS_TEST_TMPDIR/hotrod.tr"
	expect_eq 0 "$status" status
	expect_output "$(table <<-'EOF'
	customer|COUNT|mysql_us
	123|11|110997
	392|17|161344
	567|6|60610
	731|8|83747
	EOF
	)"
}

@test "Q6: caller x callee counts (MostRecent client before each server span)" {
	hotrod
	run tr-aggregate 'From callee In spans[kind = "server"]
		Join caller In MostRecent(spans[kind = "client"]) On caller -> callee
		GroupBy caller.service, callee.service
		Select caller.service, callee.service, COUNT' "$BATS_TEST_TMPDIR/hotrod.tr"
	expect_eq 0 "$status" status
	expect_output "$(table <<-'EOF'
	caller.service|callee.service|COUNT
	batch|mysql|1
	customer|mysql|45
	frontend|customer|43
	frontend|driver|45
	EOF
	)"
	# the same pairs through parent ids, with awk
	expect_eq "$(awk -F'\t' '$1 == "S" { k[$2 " " $3] = $9; sv[$2 " " $3] = $7; par[$2 " " $3] = $2 " " $4 }
		END { for (x in k) if (k[x] == "server" && k[par[x]] == "client") c[sv[par[x]] "\t" sv[x]]++
		      for (z in c) print z "\t" c[z] }' "$BATS_TEST_TMPDIR/hotrod.tr" | sort)" "$(printf '%s\n' "$output" | sed 1d)"
}

@test "Fig. 1a: a time series of mysql load with bucket()" {
	hotrod
	run tr-aggregate 'From s In spans[service = "mysql"]
		GroupBy bucket(s.start - 1767225600000000, 1s) As t
		Select t, COUNT, SUM(s.duration) As mysql_us' "$BATS_TEST_TMPDIR/hotrod.tr"
	expect_eq 0 "$status" status
	expect_output "$(table <<-'EOF'
	t|COUNT|mysql_us
	0|15|148473
	1000000|12|799346
	2000000|19|184102
	EOF
	)"
}

@test "Fig. 1c: Q1 as a crosstab, service by host, with row and column totals" {
	hotrod
	run tr-aggregate -f crosstab 'From s In spans GroupBy s.service, s.host
		Select s.service, s.host, SUM(s.duration) As busy' "$BATS_TEST_TMPDIR/hotrod.tr"
	expect_status 0
	expected=$(table <<-'EOF'
	s.service|analytics-0|batch-0|customer-0|customer-1|driver-0|driver-1|frontend-0|frontend-1|mysql-0|route-0|route-1|route-2|total
	analytics|138894||||||||||||138894
	batch||1437749|||||||||||1437749
	customer|||11707724|6376947|||||||||18084671
	driver|||||6782050|7843954|||||||14626004
	frontend|||||||25287500|36363201|||||61650701
	mysql|||||||||1131921||||1131921
	route||||||||||6238616|5871985|5434538|17545139
	total|138894|1437749|11707724|6376947|6782050|7843954|25287500|36363201|1131921|6238616|5871985|5434538|114615079
	EOF
	)
	diff <(echo "$expected") <(echo "$output")
	# the row totals are Q1's sums per service, the corner the sum of all
	# durations, recomputed with awk from the line format
	diff <(printf '%s\n' "$output" | awk -F'\t' 'NR > 1 { print $1, $NF }') \
	     <(awk -F'\t' '$1 == "S" { n[$7] += $6; all += $6 } END { for (s in n) print s, n[s] | "sort"; close("sort"); print "total", all }' "$BATS_TEST_TMPDIR/hotrod.tr")
	# a total of averages is the average of its rows: Q1's AVG per service
	run tr-aggregate -f crosstab 'From s In spans GroupBy s.service, s.host
		Select s.service, s.host, AVG(s.duration)' "$BATS_TEST_TMPDIR/hotrod.tr"
	diff <(printf '%s\n' "$output" | awk -F'\t' 'NR > 1 && $1 != "total" { print $1 "\t" $NF }') \
	     <(tr-aggregate --no-header 'From s In spans GroupBy s.service Select s.service, AVG(s.duration)' "$BATS_TEST_TMPDIR/hotrod.tr")
}

# HDFS reads (§6.1): a StressTest client's DoNextOp, the NameNode's
# GetBlockLocations with the block's three replicas, and the
# DataTransferProtocol of the DataNode read. Clients take the first of the
# replicas in one static order, A D B C E F (HDFS-6268); the last read is
# local (client B reads its own replica).
hdfs() {
	printf '%s\n' 'G B,A,C A' 'H D,C,E D' 'G C,B,E B' 'H E,D,A A' 'G C,E,B B' 'H E,C,D D' \
		'G C,E,A A' 'H F,C,E C' 'B B,F,C B' | awk -v OFS='\t' 'BEGIN { print "#tr/1" }
		{ t = "b" NR; split($2, r, ","); print "T", t
		  print "S", t, "st", "", 1000, 900, "stress", "DoNextOp", "client", $1
		  print "S", t, "gl", "st", 1100, 100, "namenode", "GetBlockLocations", "server", "nn",
			"replicas=[\"" r[1] "\",\"" r[2] "\",\"" r[3] "\"]"
		  print "S", t, "dn", "st", 1300, 400, "datanode", "DataTransferProtocol", "server", $3 }' \
		>"$BATS_TEST_TMPDIR/hdfs.tr"
}

Q7_FROM='From DNop In spans[operation = "DataTransferProtocol"]
	Join getloc In spans[operation = "GetBlockLocations"] On getloc -> DNop
	Join st In spans[operation = "DoNextOp"] On st -> getloc
	Where st.host != DNop.host'

@test "Fig. 8g: P(chosen | hosted) per DataNode as one query, local reads left out" {
	hdfs
	run tr-aggregate "$Q7_FROM
		GroupBy each(getloc.tag[\"replicas\"]) As replica
		Select replica, COUNT As hosted, SUM(DNop.host = replica) As chosen,
		       AVG(DNop.host = replica) As p" "$BATS_TEST_TMPDIR/hdfs.tr"
	expect_status 0
	# A is read whenever it holds a replica; C only when none of A D B does
	expected=$(table <<-'EOF'
	replica|hosted|chosen|p
	A|3|3|1
	B|3|2|0.6666666666666666
	C|7|1|0.14285714285714285
	D|3|2|0.6666666666666666
	E|7|0|0
	F|1|0|0
	EOF
	)
	diff <(echo "$expected") <(echo "$output")
}

@test "Fig. 8g: P(row host chosen | it and the column host hold replicas) as a crosstab" {
	hdfs
	run tr-aggregate -f crosstab "$Q7_FROM
		GroupBy each(getloc.tag[\"replicas\"]) As hosted, each(getloc.tag[\"replicas\"]) As other
		Select hosted, other, AVG(DNop.host = hosted) As p_chosen" "$BATS_TEST_TMPDIR/hdfs.tr"
	expect_status 0
	# row A: always chosen; row D: always, but never beside A (and beside E
	# once with A too); the diagonal and the row totals are P(chosen |
	# hosted); each column total is 1/3: one of a read's three replicas is read
	expected=$(table <<-'EOF'
	hosted|A|B|C|D|E|F|total
	A|1|1|1|1|1||1
	B|0|0.6666666666666666|0.6666666666666666||1||0.6666666666666666
	C|0|0|0.14285714285714285|0|0.16666666666666666|1|0.14285714285714285
	D|0||1|0.6666666666666666|0.6666666666666666||0.6666666666666666
	E|0|0|0|0|0|0|0
	F|||0||0|0|0
	total|0.3333333333333333|0.3333333333333333|0.3333333333333333|0.3333333333333333|0.3333333333333333|0.3333333333333333|0.3333333333333333
	EOF
	)
	diff <(echo "$expected") <(echo "$output")
}

@test "Q8: time from the request's server span to each mysql call (MostRecent)" {
	hotrod
	run tr-aggregate 'From c In spans[service = "mysql"]
		Join s In MostRecent(spans[kind = "server" and service != "mysql"]) On s -> c
		GroupBy s.service, s.operation
		Select s.service, s.operation, COUNT, AVG(c.start - s.start) As before_mysql,
		       MAX(c.end - s.start) As until_mysql_done' "$BATS_TEST_TMPDIR/hotrod.tr"
	expect_eq 0 "$status" status
	# MostRecent is the ancestor that started last: the customer's server span,
	# unless its host's clock puts it before the root (19 requests); 2 queries
	# lost their way to the root with a lost customer span
	expect_output "$(table <<-'EOF'
	s.service|s.operation|COUNT|before_mysql|until_mysql_done
	customer|HTTP GET /customer|24|251642.625|714721
	frontend|HTTP GET /dispatch|19|144799.68421052632|705277
	EOF
	)"
	# Q8 as in the paper: one raw row per request, no aggregation
	run tr-aggregate --no-header 'From c In spans[service = "mysql"]
		Join s In MostRecent(spans[kind = "server" and service != "mysql"]) On s -> c
		Select c.trace, c.end - s.start' "$BATS_TEST_TMPDIR/hotrod.tr"
	expect_num 43 "${#lines[@]}"
	expect_eq 714721 "$(printf '%s\n' "$output" | awk -F'\t' '$2 > m { m = $2 } END { print m }')"
}

@test "Q9: two-level aggregation through a subquery (busy time per trace, then per service)" {
	hotrod
	run tr-aggregate 'From x In (From s In spans[kind = "server"]
			GroupBy s.trace, s.service
			Select s.trace As trace, s.service As service, SUM(s.duration) As busy)
		GroupBy x.service Select x.service, COUNT, AVG(x.busy), MAX(x.busy)' "$BATS_TEST_TMPDIR/hotrod.tr"
	expect_eq 0 "$status" status
	expect_output "$(table <<-'EOF'
	x.service|COUNT|AVG(x.busy)|MAX(x.busy)
	customer|43|243073.90697674418|731249
	driver|45|164395.13333333333|362934
	frontend|44|568664.6818181818|1183677
	mysql|46|24606.978260869564|688528
	EOF
	)"
}

@test "Q7: a join with a Where across two variables (GetDriver slower than its redis lookup)" {
	hotrod
	# redis is not instrumented in the sample: the lookup is the driver's
	# FindDriverIDs client span, so both sides are on the same driver host
	run tr-aggregate 'From s In spans[service = "driver" and operation = "GetDriver"]
		Join r In First(spans[service = "driver" and operation = "FindDriverIDs"]) On r -> s
		Where s.duration > r.duration
		GroupBy s.host, r.host
		Select s.host, r.host, COUNT' "$BATS_TEST_TMPDIR/hotrod.tr"
	expect_eq 0 "$status" status
	expect_output "$(table <<-'EOF'
	s.host|r.host|COUNT
	driver-0|driver-0|20
	driver-1|driver-1|22
	EOF
	)"
}

@test "the CI gate on the sample: p99 of frontend's /dispatch over 1s fails the build" {
	hotrod
	q='From s In spans[service = "frontend" and kind = "server"] GroupBy s.operation Select s.operation, P99(s.duration) As p99'
	run tr-aggregate --fail-if 'p99 > 1s' "$q" "$BATS_TEST_TMPDIR/hotrod.tr"
	expect_eq 1 "$status" status
	expect_contains 'fail-if p99 > 1s: s.operation=HTTP GET /dispatch, p99=1183677' "$output"
	run tr-aggregate --fail-if 'p99 > 1.5s' "$q" "$BATS_TEST_TMPDIR/hotrod.tr"
	expect_eq 0 "$status" status
}

@test "sharded --partial/--merge on the sample equals one pass for exact aggregates" {
	hotrod
	q='From s In spans GroupBy s.service Select s.service, COUNT, SUM(s.duration), MIN(s.self), MAX(s.self), AVG(s.duration)'
	awk -F'\t' -v d="$BATS_TEST_TMPDIR" 'NR == 1 { for (i = 0; i < 3; i++) print > (d "/shard" i ".tr"); next }
		$1 == "T" { n++ } { print > (d "/shard" (n % 3) ".tr") }' "$BATS_TEST_TMPDIR/hotrod.tr"
	for i in 0 1 2; do
		tr-aggregate --partial "$q" "$BATS_TEST_TMPDIR/shard$i.tr" > "$BATS_TEST_TMPDIR/p$i"
	done
	run tr-aggregate --merge "$q" "$BATS_TEST_TMPDIR/p0" "$BATS_TEST_TMPDIR/p1" "$BATS_TEST_TMPDIR/p2"
	expect_eq 0 "$status" status
	expect_output "$(tr-aggregate "$q" "$BATS_TEST_TMPDIR/hotrod.tr")"
}

# Jaeger UI's trace statistics table: count, total, avg, min, max, self
# total/avg/min/max and % of trace (self total over the trace's duration,
# rounded to two decimals as the UI shows it); times here in µs.
STATS='Select KEY, COUNT, SUM(s.duration) As total, AVG(s.duration) As avg,
	MIN(s.duration) As min, MAX(s.duration) As max, SUM(s.self) As self_total,
	AVG(s.self) As self_avg, MIN(s.self) As self_min, MAX(s.self) As self_max,
	round(SUM(s.self) * 10000 / MAX(s.trace_duration)) / 100 As percent'

stats() {
	printf 'From s In spans GroupBy %s\n%s' "$1" "${STATS//KEY/$1}"
}

@test "Jaeger UI trace statistics by service: tracegraph testTrace (hand-computed)" {
	need_conformance
	# 11 spans over 1 s. service1's self: span-1 390 ms minus its five
	# children (33+66+37+20+10 ms) = 224 ms; span-3 66-20 = 46; span-12 10
	# minus [331,340) = 1; the leaves their durations. span-7 (service2) is
	# FOLLOWS_FROM span-6: not subtracted from span-6.
	tr-ingest "$CONF/jaeger/tracegraph-testTrace.json" > "$BATS_TEST_TMPDIR/t.tr"
	run tr-aggregate "$(stats s.service)" "$BATS_TEST_TMPDIR/t.tr"
	expect_eq 0 "$status" status
	expect_output "$(table <<-'EOF'
	s.service|COUNT|total|avg|min|max|self_total|self_avg|self_min|self_max|percent
	service1|8|573000|71625|8000|390000|378000|47250|1000|224000|37.8
	service2|3|238000|79333.33333333333|18000|200000|220000|73333.33333333333|2000|200000|22
	EOF
	)"
}

@test "Jaeger UI trace statistics by operation: tracegraph testTrace (hand-computed)" {
	need_conformance
	tr-ingest "$CONF/jaeger/tracegraph-testTrace.json" > "$BATS_TEST_TMPDIR/t.tr"
	run tr-aggregate "$(stats s.operation)" "$BATS_TEST_TMPDIR/t.tr"
	expect_eq 0 "$status" status
	expect_output "$(table <<-'EOF'
	s.operation|COUNT|total|avg|min|max|self_total|self_avg|self_min|self_max|percent
	op1|2|410000|205000|20000|390000|226000|113000|2000|224000|22.6
	op2|3|88000|29333.333333333332|18000|37000|88000|29333.333333333332|18000|37000|8.8
	op3|2|266000|133000|66000|200000|246000|123000|46000|200000|24.6
	op4|1|20000|20000|20000|20000|20000|20000|20000|20000|2
	op6|1|10000|10000|10000|10000|1000|1000|1000|1000|0.1
	op7|2|17000|8500|8000|9000|17000|8500|8000|9000|1.7
	EOF
	)"
}

@test "Jaeger UI trace statistics: otlp2jaeger multi trace (hand-computed)" {
	need_conformance
	# main [0,176321) > info [3000,176150) > ohboy.do [38000,84460) and
	# [85000,156355): self main 3171, info 173150-46460-71355 = 55335.
	tr-ingest "$CONF/jaeger/otlp2jaeger-multi-out.json" > "$BATS_TEST_TMPDIR/m.tr"
	run tr-aggregate "$(stats s.service)" "$BATS_TEST_TMPDIR/m.tr"
	expect_eq 0 "$status" status
	expect_output "$(table <<-'EOF'
	s.service|COUNT|total|avg|min|max|self_total|self_avg|self_min|self_max|percent
	example-trace|4|467286|116821.5|46460|176321|176321|44080.25|3171|71355|100
	EOF
	)"
	run tr-aggregate "$(stats s.operation)" "$BATS_TEST_TMPDIR/m.tr"
	expect_output "$(table <<-'EOF'
	s.operation|COUNT|total|avg|min|max|self_total|self_avg|self_min|self_max|percent
	info|1|173150|173150|173150|173150|55335|55335|55335|55335|31.38
	main|1|176321|176321|176321|176321|3171|3171|3171|3171|1.8
	ohboy.do|2|117815|58907.5|46460|71355|117815|58907.5|46460|71355|66.82
	EOF
	)"
}
