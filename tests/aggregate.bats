#!/usr/bin/env bats
# tr-aggregate: the query language on hand-made traces whose answers are
# worked out by hand; errors; formats; --fail-if; --explain; --partial/--merge.

load helper
bats_require_minimum_version 1.5.0

# Fixtures are written with | for TAB.
fix() {
	tr '|' '\t' | mkfix "$1"
}

# Two requests. t1: frontend a [1000,2000) calls customer b [1100,1300)
# (which calls mysql c [1150,1250), with a log "lock" at 1160), then redis
# d [1400,1700) and e [1500,1800) in parallel. t2: frontend a [5000,7000)
# calls mysql b [5100,5600), then redis c [5700,5800) that fails.
two_requests() {
	fix f.tr <<-'EOF'
	#tr/1
	T|t1
	S|t1|a||1000|1000|frontend|GET /dispatch|server|h1|customer=alice
	S|t1|b|a|1100|200|customer|GET /customer|server|h2
	S|t1|c|b|1150|100|mysql|SELECT|client|h2|sql.rows=3
	S|t1|d|a|1400|300|redis|GET|client|h3
	S|t1|e|a|1500|300|redis|GET|client|h3
	L|t1|c|1160|event=lock
	T|t2
	S|t2|a||5000|2000|frontend|GET /dispatch|server|h1|customer=bob
	S|t2|b|a|5100|500|mysql|SELECT|client|h2
	S|t2|c|a|5700|100|redis|GET|client|h3|error=true
	EOF
}

@test "group by service: count, sum, avg, min, max, exact integers" {
	two_requests
	run tr-aggregate 'From s In spans GroupBy s.service
		Select s.service, COUNT, SUM(s.duration), AVG(s.duration), MIN(s.duration), MAX(s.duration)' "$BATS_TEST_TMPDIR/f.tr"
	expect_eq 0 "$status" status
	expect_eq "$(printf 's.service\tCOUNT\tSUM(s.duration)\tAVG(s.duration)\tMIN(s.duration)\tMAX(s.duration)')" "${lines[0]}"
	expect_eq "$(printf 'customer\t1\t200\t200\t200\t200')" "${lines[1]}"
	expect_eq "$(printf 'frontend\t2\t3000\t1500\t1000\t2000')" "${lines[2]}"
	expect_eq "$(printf 'mysql\t2\t600\t300\t100\t500')" "${lines[3]}"
	expect_eq "$(printf 'redis\t3\t700\t233.33333333333334\t100\t300')" "${lines[4]}"
	expect_num 5 "${#lines[@]}"
}

@test "self time is the duration its children do not cover (overlaps once)" {
	two_requests
	# t1 a: 1000 - (200 + [1400,1800) = 400) = 400; t2 a: 2000 - 600 = 1400; b in t1: 100
	run tr-aggregate 'From s In spans[service = "frontend" or service = "customer"]
		Select s.trace, s.span, s.self' "$BATS_TEST_TMPDIR/f.tr"
	expect_eq 0 "$status" status
	expect_eq "$(printf 't1\ta\t400')" "${lines[1]}"
	expect_eq "$(printf 't1\tb\t100')" "${lines[2]}"
	expect_eq "$(printf 't2\ta\t1400')" "${lines[3]}"
}

@test "percentiles are nearest-rank and exact without --merge" {
	fix p.tr <<-'EOF'
	#tr/1
	T|p
	S|p|r||0|1000|svc|root||
	S|p|1|r|1|10|svc|op||
	S|p|2|r|2|20|svc|op||
	S|p|3|r|3|30|svc|op||
	S|p|4|r|4|40|svc|op||
	S|p|5|r|5|50|svc|op||
	EOF
	run tr-aggregate --no-header 'From s In spans[operation = "op"]
		Select P50(s.duration), P90(s.duration), P99(s.duration), PERCENTILE(s.duration, 20), PERCENTILE(s.duration, 21)' "$BATS_TEST_TMPDIR/p.tr"
	expect_eq 0 "$status" status
	expect_output "$(printf '30\t50\t50\t10\t20')"
}

@test "sums of integers stay exact beyond 2^53" {
	fix big.tr <<-'EOF'
	#tr/1
	T|b
	S|b|1||0|10|svc|op|||n=9007199254740993
	S|b|2||0|10|svc|op|||n=9007199254740993
	S|b|3||0|10|svc|op|||n=1
	EOF
	run tr-aggregate --no-header 'From s In spans Select SUM(s.tag["n"]), COUNT' "$BATS_TEST_TMPDIR/big.tr"
	expect_eq 0 "$status" status
	expect_output "$(printf '18014398509481987\t3')"
}

@test "a missing tag is null: comparisons false, aggregates skip it" {
	two_requests
	run tr-aggregate --no-header 'From s In spans Where s.tag["sql.rows"] > 0 or s.tag["nosuch"] == 1
		Select COUNT, COUNT(s.tag["customer"]), SUM(s.tag["sql.rows"]), MAX(s.tag["nosuch"])' "$BATS_TEST_TMPDIR/f.tr"
	expect_eq 0 "$status" status
	expect_output "$(printf '1\t0\t3\t')"
	run tr-aggregate --no-header 'From s In spans[tag["customer"] == null] Select COUNT' "$BATS_TEST_TMPDIR/f.tr"
	expect_output "6"
}

@test "First picks the request's root: redis time per customer (Q2 form)" {
	two_requests
	run tr-aggregate 'From s In spans[service = "redis"]
		Join r In First(spans[parent = null]) On r -> s
		GroupBy r.tag["customer"]
		Select r.tag["customer"] As customer, COUNT, SUM(s.duration) As redis' "$BATS_TEST_TMPDIR/f.tr"
	expect_eq 0 "$status" status
	expect_output "$(printf 'customer\tCOUNT\tredis\nalice\t2\t600\nbob\t1\t100')"
}

@test "happened-before joins: every pair with --hb=seq, ancestry with --hb=tree" {
	two_requests
	run tr-aggregate --no-header 'From s In spans Join p In spans On p -> s Select s.trace, p.span, s.span' "$BATS_TEST_TMPDIR/f.tr"
	expect_eq 0 "$status" status
	# b ended (1300) before d (1400) and e started, so b and c precede them; d
	# and e overlap; in t2 b ended (5600) before c (5700).
	expect_output "$(printf 't1\ta\tb\nt1\ta\tc\nt1\tb\tc\nt1\ta\td\nt1\tb\td\nt1\tc\td\nt1\ta\te\nt1\tb\te\nt1\tc\te\nt2\ta\tb\nt2\ta\tc\nt2\tb\tc')"
	run tr-aggregate --hb=tree --no-header 'From s In spans Join p In spans On p -> s Select s.trace, p.span, s.span' "$BATS_TEST_TMPDIR/f.tr"
	expect_output "$(printf 't1\ta\tb\nt1\ta\tc\nt1\tb\tc\nt1\ta\td\nt1\ta\te\nt2\ta\tb\nt2\ta\tc')"
}

@test "MostRecent picks the latest preceding server: latency per request (Q8 form)" {
	two_requests
	run tr-aggregate 'From resp In spans[service = "mysql"]
		Join req In MostRecent(spans[kind = "server"]) On req -> resp
		Select resp.trace, req.span, resp.end - req.start As latency' "$BATS_TEST_TMPDIR/f.tr"
	expect_eq 0 "$status" status
	expect_output "$(printf 'resp.trace\treq.span\tlatency\nt1\tb\t150\nt2\ta\t600')"
}

@test "FirstN keeps the first N in pre-order, MostRecentN the N that ended last, oldest first; On can point either way" {
	two_requests
	run tr-aggregate --no-header 'From s In spans[span = "e" and trace = "t1"]
		Join p In FirstN(2, spans) On p -> s Select p.span' "$BATS_TEST_TMPDIR/f.tr"
	expect_output "$(printf 'a\nb')"
	run tr-aggregate --no-header 'From s In spans[span = "e" and trace = "t1"]
		Join p In MostRecentN(2, spans) On p -> s Select p.span' "$BATS_TEST_TMPDIR/f.tr"
	# c ended at 1250, b at 1300; a, an ancestor, counts from its start (1000)
	expect_output "$(printf 'c\nb')"
	# the spans that come after b in t1
	run tr-aggregate --no-header 'From s In spans[span = "b" and trace = "t1"]
		Join n In spans On s -> n Select n.span' "$BATS_TEST_TMPDIR/f.tr"
	expect_output "$(printf 'c\nd\ne')"
}

@test "a Where across two variables filters joined rows (Q7 form)" {
	two_requests
	run tr-aggregate --no-header 'From s In spans[kind = "client"]
		Join r In First(spans[parent = null]) On r -> s
		Where s.host != r.host and s.duration * 5 > r.duration
		GroupBy s.service Select s.service, COUNT' "$BATS_TEST_TMPDIR/f.tr"
	expect_eq 0 "$status" status
	# t1: d, e (300 * 5 > 1000); c is 100 * 5; t2: b (500 * 5 > 2000)
	expect_output "$(printf 'mysql\t1\nredis\t2')"
}

@test "a subquery as a source: two-level aggregation (Q9 form)" {
	two_requests
	run tr-aggregate 'From x In (From s In spans[kind = "client"]
			GroupBy s.trace, s.service
			Select s.trace As trace, s.service As service, SUM(s.duration) As busy)
		GroupBy x.service Select x.service, COUNT, AVG(x.busy), MAX(x.busy)' "$BATS_TEST_TMPDIR/f.tr"
	expect_eq 0 "$status" status
	expect_output "$(printf 'x.service\tCOUNT\tAVG(x.busy)\tMAX(x.busy)\nmysql\t2\t300\t500\nredis\t2\t350\t600')"
}

@test "bucket() makes a time series; a GroupBy As name is a Select column" {
	two_requests
	run tr-aggregate 'From s In spans GroupBy bucket(s.start, 2000) As t Select t, COUNT, SUM(s.duration) As busy' "$BATS_TEST_TMPDIR/f.tr"
	expect_eq 0 "$status" status
	expect_output "$(printf 't\tCOUNT\tbusy\n0\t5\t1900\n4000\t3\t2600')"
}

@test "logs are a relation: events joined to spans and ordered by ->" {
	two_requests
	run tr-aggregate --no-header 'From l In logs[event = "lock"] Join s In spans On l -> s Select l.span, l.service, s.span' "$BATS_TEST_TMPDIR/f.tr"
	expect_eq 0 "$status" status
	expect_output "$(printf 'c\tmysql\td\nc\tmysql\te')"
	run tr-aggregate --no-header 'From l In logs Join r In First(spans[root]) On r -> l Select l.time - r.start' "$BATS_TEST_TMPDIR/f.tr"
	expect_output "160"
}

@test "glob, regex, duration literals, error and root fields, keywords in any case" {
	two_requests
	run tr-aggregate --no-header 'from s in spans where s.operation ~ "GET*" and s.service =~ "^(redis|front)" and s.duration >= 0.1ms groupby s.service select s.service, count, count(distinct s.error), count(distinct s.root)' "$BATS_TEST_TMPDIR/f.tr"
	expect_eq 0 "$status" status
	# one redis span failed; frontend spans are all roots
	expect_output "$(printf 'frontend\t2\t1\t1\nredis\t3\t2\t1')"
	run tr-aggregate --no-header 'From s In spans[error] Select s.trace, s.span' "$BATS_TEST_TMPDIR/f.tr"
	expect_output "$(printf 't2\tc')"
}

@test "a GroupBy tag no span has fails (exit 2) with the closest tag key" {
	f=$(printf 'S\tt\ta\t\t0\t10\tweb\tGET\t\t\tzone=eu\nS\tt\tb\ta\t1\t5\tdb\tq\t\t\n' | mkfix z.tr)
	run --separate-stderr tr-aggregate 'From s In spans GroupBy s.tag["zon"] Select s.tag["zon"], COUNT' "$f"
	expect_eq 2 "$status" status
	expect_eq "tr-aggregate: GroupBy zon: no span has a tag zon (did you mean zone?)" "$stderr"
}

@test "a GroupBy tag some spans have is fine" {
	f=$(printf 'S\tt\ta\t\t0\t10\tweb\tGET\t\t\tzone=eu\nS\tt\tb\ta\t1\t5\tdb\tq\t\t\n' | mkfix z.tr)
	run tr-aggregate 'From s In spans GroupBy s.tag["zone"] Select s.tag["zone"], COUNT' "$f"
	expect_eq 0 "$status" status
	expect_output "$(printf 's.tag["zone"]\tCOUNT\n\t1\neu\t1')"
	# a Where that keeps no row is the gate's business, not this check's
	run tr-aggregate 'From s In spans Where s.service = "none" GroupBy s.tag["zon"] Select COUNT' "$f"
	expect_eq 0 "$status" status
}

@test "--format csv and json, --no-header" {
	two_requests
	run tr-aggregate -f csv 'From s In spans[service = "redis"] GroupBy s.operation Select s.operation As "op, quoted", COUNT As n, AVG(s.duration) As avg' "$BATS_TEST_TMPDIR/f.tr"
	expect_status 2 # As takes a name, not a string
	run --separate-stderr tr-aggregate -f csv 'From s In spans[service = "redis"] GroupBy s.tag["x"] Select s.tag["x"], COUNT As n, AVG(s.duration) As avg' "$BATS_TEST_TMPDIR/f.tr"
	expect_output "$(printf '"s.tag[""x""]",n,avg\n,3,233.33333333333334')"
	# no span has the tag x: the one group of nulls answers nothing
	expect_eq 2 "$status" status
	expect_eq "tr-aggregate: GroupBy x: no span has a tag x" "$stderr"
	run tr-aggregate -f json 'From s In spans GroupBy s.service Select s.service As service, COUNT As n, MAX(s.tag["sql.rows"]) As rows' "$BATS_TEST_TMPDIR/f.tr"
	expect_eq 0 "$status" status
	expect_eq "[" "${lines[0]}"
	expect_eq '{"service":"customer", "n":1, "rows":null},' "${lines[1]}"
	expect_eq '{"service":"mysql", "n":2, "rows":3},' "${lines[3]}"
	expect_eq "]" "${lines[5]}"
	run tr-aggregate --no-header -f tsv 'From s In spans GroupBy s.service Select s.service, COUNT' "$BATS_TEST_TMPDIR/f.tr"
	expect_eq "$(printf 'customer\t1')" "${lines[0]}"
}

@test "an empty input is an error (exit 3, one line, no table)" {
	printf '#tr/1\n' | mkfix e.tr >/dev/null
	run --separate-stderr tr-aggregate 'From s In spans GroupBy s.service Select s.service, COUNT' "$BATS_TEST_TMPDIR/e.tr"
	expect_eq 3 "$status" status
	expect_output ""
	expect_eq "tr-aggregate: $BATS_TEST_TMPDIR/e.tr: no trace in the input (--allow-empty accepts that)" "$stderr"
}

@test "--allow-empty on an empty input gives the header ([] in json), a global aggregate one row" {
	printf '#tr/1\n' | mkfix e.tr >/dev/null
	run tr-aggregate --allow-empty 'From s In spans GroupBy s.service Select s.service, COUNT' "$BATS_TEST_TMPDIR/e.tr"
	expect_eq 0 "$status" status
	expect_output "$(printf 's.service\tCOUNT')"
	run tr-aggregate --allow-empty -f json 'From s In spans Select s.span' "$BATS_TEST_TMPDIR/e.tr"
	expect_output "[]"
	# aggregates without GroupBy: one row, also over no rows
	run tr-aggregate --allow-empty 'From s In spans Select COUNT, SUM(s.duration)' "$BATS_TEST_TMPDIR/e.tr"
	expect_output "$(printf 'COUNT\tSUM(s.duration)\n0\t')"
}

@test "--fail-if: exit 1 and one line per failing row" {
	two_requests
	run tr-aggregate --fail-if 'p99 > 250ms / 1000' 'From s In spans GroupBy s.service
		Select s.service, P99(s.duration) As p99' "$BATS_TEST_TMPDIR/f.tr"
	expect_eq 1 "$status" status
	expect_num 3 "$(printf '%s\n' "$output" | grep -c '^tr-aggregate: fail-if')"
	printf '%s\n' "$output" | grep -qx 'tr-aggregate: fail-if p99 > 250ms / 1000: s.service=mysql, p99=500'
}

@test "--fail-if: exit 0 when no row fails" {
	two_requests
	run tr-aggregate --fail-if 'P99(s.duration) > 5s' 'From s In spans GroupBy s.service
		Select s.service, P99(s.duration)' "$BATS_TEST_TMPDIR/f.tr"
	expect_eq 0 "$status" status
}

@test "--fail-if with -q: exit 1 and no line" {
	two_requests
	run tr-aggregate -q --fail-if 'COUNT >= 3' 'From s In spans GroupBy s.service Select s.service, COUNT' "$BATS_TEST_TMPDIR/f.tr"
	expect_eq 1 "$status" status
	! printf '%s\n' "$output" | grep -q fail-if
}

@test "--fail-if on an empty input fails as bad input (exit 3), saying no trace was read (a file of no trace, an empty pipe)" {
	printf '#tr/1\n' | mkfix e.tr >/dev/null
	q='From s In spans GroupBy s.service Select s.service, P99(s.duration) As p99'
	run tr-aggregate --fail-if 'p99 > 1ms' "$q" "$BATS_TEST_TMPDIR/e.tr"
	expect_eq 3 "$status" status
	expect_output "tr-aggregate: $BATS_TEST_TMPDIR/e.tr: no trace in the input (--allow-empty accepts that)"
	run tr-aggregate -q --fail-if 'p99 > 1ms' "$q" </dev/null
	expect_eq 3 "$status" status
	expect_output "tr-aggregate: <stdin>: no trace in the input (--allow-empty accepts that)"
}

@test "--fail-if on a query that matches no row fails, saying so: grouped, raw, and COUNT 0 without GroupBy" {
	two_requests
	f="$BATS_TEST_TMPDIR/f.tr"
	# a name no span has: the gate fails, and the misspelling is an error (2)
	run tr-aggregate --fail-if 'p99 > 1ms' 'From s In spans[service = "mysqll"] GroupBy s.operation
		Select s.operation, P99(s.duration) As p99' "$f"
	expect_eq 2 "$status" status
	expect_contains 'tr-aggregate: fail-if p99 > 1ms: the query matched no row: the gate fails (--allow-empty lets it pass)' "$output"
	run tr-aggregate --fail-if 'd > 1s' 'From s In spans Where s.duration > 1s Select s.span, s.duration As d' "$f"
	expect_eq 1 "$status" status
	expect_contains 'the query matched no row' "$output"
	# the one row of an aggregate over nothing is written, and judged as none
	run tr-aggregate --fail-if 'COUNT > 100' 'From s In spans[service = "mysqll"] Select COUNT' "$f"
	expect_eq 2 "$status" status
	expect_eq 0 "${lines[1]}"
	expect_contains 'the query matched no row' "$output"
	# the same gate over rows that exist holds
	run tr-aggregate --fail-if 'COUNT > 100' 'From s In spans[service = "mysql"] Select COUNT' "$f"
	expect_eq 0 "$status" status
	expect_output "$(printf 'COUNT\n2')"
}

@test "--allow-empty: no trace or no row passes the gate; a failing row still fails" {
	two_requests
	printf '#tr/1\n' | mkfix e.tr >/dev/null
	q='From s In spans[service = "mysqll"] GroupBy s.service Select s.service, P99(s.duration) As p99'
	run tr-aggregate --allow-empty --fail-if 'p99 > 1ms' "$q" "$BATS_TEST_TMPDIR/e.tr"
	expect_eq 0 "$status" status
	expect_output "$(printf 's.service\tp99')"
	run tr-aggregate --allow-empty --fail-if 'p99 > 1ms' "$q" "$BATS_TEST_TMPDIR/f.tr"
	expect_eq 0 "$status" status
	run tr-aggregate --allow-empty --fail-if 'p99 > 100' 'From s In spans GroupBy s.service
		Select s.service, P99(s.duration) As p99' "$BATS_TEST_TMPDIR/f.tr"
	expect_eq 1 "$status" status
	expect_contains 'fail-if p99 > 100: s.service=frontend' "$output"
}

@test "--fail-if never passes on bad input: a bad trace, a file that is no trace format (exit 3)" {
	two_requests
	printf 'service,p99\nmysql,1\n' | mkfix t.csv >/dev/null
	q='From s In spans GroupBy s.service Select s.service, P99(s.duration) As p99'
	run tr-aggregate --allow-empty --fail-if 'p99 > 1s' "$q" "$BATS_TEST_TMPDIR/t.csv"
	expect_eq 3 "$status" status
	printf 'S|t9|x||1|-5|a|b|||\n' | tr '|' '\t' | mkfix bad.tr >/dev/null
	run tr-aggregate -k --fail-if 'p99 > 1s' "$q" "$BATS_TEST_TMPDIR/f.tr" "$BATS_TEST_TMPDIR/bad.tr"
	expect_eq 3 "$status" status
}

@test "--merge: a gate over partials with no group fails, --allow-empty passes it" {
	printf '#tr/1\n' | mkfix e.tr >/dev/null
	q='From s In spans GroupBy s.service Select s.service, COUNT'
	run tr-aggregate --partial "$q" "$BATS_TEST_TMPDIR/e.tr"
	expect_eq 3 "$status" status
	tr-aggregate --partial --allow-empty "$q" "$BATS_TEST_TMPDIR/e.tr" > "$BATS_TEST_TMPDIR/e.part"
	run tr-aggregate --merge --fail-if 'COUNT > 5' "$q" "$BATS_TEST_TMPDIR/e.part"
	expect_eq 1 "$status" status
	expect_contains 'the query matched no row' "$output"
	run tr-aggregate --merge --allow-empty --fail-if 'COUNT > 5' "$q" "$BATS_TEST_TMPDIR/e.part"
	expect_eq 0 "$status" status
}

@test "--fail-if on raw rows and a bad --fail-if expression" {
	two_requests
	run tr-aggregate --fail-if 'd > 1500' 'From s In spans Select s.span, s.duration As d' "$BATS_TEST_TMPDIR/f.tr"
	expect_eq 1 "$status" status
	printf '%s\n' "$output" | grep -qx 'tr-aggregate: fail-if d > 1500: s.span=a, d=2000'
	run tr-aggregate --fail-if 'nosuch > 1' 'From s In spans Select s.span' "$BATS_TEST_TMPDIR/f.tr"
	expect_eq 2 "$status" status
	expect_contains "fail-if:1:1: no result column 'nosuch'" "$output"
}

@test "syntax errors: line:column, the line, a caret under the error; exit 2" {
	two_requests
	run tr-aggregate 'From s In spans
GroupBy s.service
Select s.service, COUNT, AVG(s.duraton)' "$BATS_TEST_TMPDIR/f.tr"
	expect_eq 2 "$status" status
	expect_like "tr-aggregate: query:3:30: unknown field 'duraton'*" "${lines[0]}"
	expect_eq "    Select s.service, COUNT, AVG(s.duraton)" "${lines[1]}"
	expect_eq "                                 ^" "${lines[2]}"
	run tr-aggregate 'From s In spans Select' "$BATS_TEST_TMPDIR/f.tr"
	expect_eq 2 "$status" status
	expect_like "*query:1:23: unexpected end of the expression" "${lines[0]}"
	run tr-aggregate 'From s In spans Where (s.duration > 1 Select s.span' "$BATS_TEST_TMPDIR/f.tr"
	expect_eq 2 "$status" status
	expect_like "*query:1:39: expected '\)'" "${lines[0]}"
	run tr-aggregate 'Select s.span' "$BATS_TEST_TMPDIR/f.tr"
	expect_eq 2 "$status" status
	expect_like "*query:1:1: expected From" "${lines[0]}"
}

@test "a query syntax error ends with the try line, as every usage error" {
	two_requests
	run tr-aggregate 'Select s.span' "$BATS_TEST_TMPDIR/f.tr"
	expect_eq 2 "$status" status
	expect_output "tr-aggregate: query:1:1: expected From
    Select s.span
    ^
try 'tr-aggregate --help'"
}

@test "a --fail-if syntax error ends with the try line, as every usage error" {
	two_requests
	run tr-aggregate --fail-if 'n >' 'From s In spans Select COUNT AS n' "$BATS_TEST_TMPDIR/f.tr"
	expect_eq 2 "$status" status
	expect_output "tr-aggregate: fail-if:1:4: unexpected end of the expression
    n >
       ^
try 'tr-aggregate --help'"
}

@test "a query too deep to evaluate is an error, however it grows (exit 2)" {
	two_requests
	# A 100,000-term chain from a file: one level of syntax, a very tall tree.
	awk 'BEGIN { printf "From s In spans Select s.duration"; for (i = 0; i < 100000; i++) printf " + 1"; print "" }' > "$BATS_TEST_TMPDIR/chain.q"
	run tr-aggregate -Q "$BATS_TEST_TMPDIR/chain.q" "$BATS_TEST_TMPDIR/f.tr"
	expect_eq 2 "$status" status
	expect_contains 'nested too deeply' "${lines[0]}"
	awk 'BEGIN { printf "From s In spans Select "; for (i = 0; i < 100000; i++) printf "-"; print "s.duration" }' > "$BATS_TEST_TMPDIR/neg.q"
	run tr-aggregate -Q "$BATS_TEST_TMPDIR/neg.q" "$BATS_TEST_TMPDIR/f.tr"
	expect_eq 2 "$status" status
	expect_contains 'nested too deeply' "${lines[0]}"
	# Up to the bound, it evaluates.
	run tr-aggregate "From s In spans Select s.duration$(printf ' + 1%.0s' $(seq 150))" "$BATS_TEST_TMPDIR/f.tr"
	expect_eq 0 "$status" status
}

@test "unknown names, type errors and misplaced aggregates are errors, never crashes" {
	two_requests
	check() {
		run tr-aggregate "$1" "$BATS_TEST_TMPDIR/f.tr"
		[ "$status" -eq 2 ] || return 1
		expect_contains "$2" "$output" || { echo "got: $output"; return 1; }
	}
	check 'From s In spans Select x.span' "unknown variable 'x'"
	check 'From s In spans Select s.nosuch' "unknown field 'nosuch'"
	check 'From s In spans Where s.service > 3 Select s.span' "cannot compare a string with a number"
	check 'From s In spans Where s.duration == "long" Select s.span' "cannot compare a number with a string"
	check 'From s In spans Select s.service + 1' "arithmetic needs numbers"
	check 'From s In spans Select SUM(s.service)' "sum needs numbers, not a string"
	check 'From s In spans Where COUNT > 1 Select s.span' "COUNT is an aggregate: only in Select"
	check 'From s In spans Select s.span, COUNT' "s.span in Select is neither a GroupBy key nor inside an aggregate"
	check 'From s In spans GroupBy s.service Select s.host, COUNT' "neither a GroupBy key"
	check 'From s In spans[s.service = "x"] Select s.span' "a source filter names bare fields"
	check 'From s In spans Join s In spans On s -> s Select s.span' "variable 's' is already bound"
	check 'From s In spans Join r In spans On s -> s Select s.span' "On must relate r"
	check 'From s In spans Join r In spans Select s.span' "expected On"
	check 'From s In logs Select s.self' "logs have no field 'self'"
	check 'From s In spans Select s.event' "spans have no field 'event'"
	check 'From s In spans Select s.tag' 'tag needs a key'
	check 'From s In spans Select PERCENTILE(s.duration, 101)' "p a number from 0 to 100"
	check 'From s In spans Select nofn(s.duration)' "unknown function nofn"
	check 'From s In spans Where s.service =~ "(" Select s.span' "bad regular expression"
	check 'From x In (From s In spans GroupBy s.service Select s.service As id) Join r In spans On r -> x Select x.id' "no place in the trace"
	check 'From s In spans Select s.span trailing' "unexpected 'trailing' after the query"
	check 'From s In spans Where s.duration > 10 kg Select s.span' "expected Join, Where, GroupBy or Select"
	check 'From s In spans Where s.duration > 10kg Select s.span' "unknown unit 'kg'"
}

@test "bad input: the reader's message, exit 3, good traces still out" {
	two_requests
	{ cat "$BATS_TEST_TMPDIR/f.tr"; printf 'T\tt3\nS\tt3\tx\t\tsoon\t5\tsvc\top\t\t\nT\tt4\nS\tt4\ty\t\t10\t5\tsvc\top\t\t\n'; } | mkfix bad.tr >/dev/null
	run tr-aggregate 'From s In spans Select s.trace, s.span' "$BATS_TEST_TMPDIR/bad.tr"
	expect_eq 3 "$status" status
	expect_contains 'bad.tr:14: start: not an integer' "$output"
	expect_num 8 "$(printf '%s\n' "$output" | grep -c "^t[12]	")"
	run tr-aggregate -k 'From s In spans GroupBy s.service Select s.service, COUNT' "$BATS_TEST_TMPDIR/bad.tr"
	expect_eq 3 "$status" status
	printf '%s\n' "$output" | grep -qx "$(printf 'svc\t1')"
	printf '%s\n' "$output" | grep -qx "$(printf 'redis\t3')"
	run tr-aggregate 'From s In spans Select s.span' "$BATS_TEST_TMPDIR/nosuch.tr"
	expect_eq 3 "$status" status
}

@test "--max-rows-per-trace skips a trace whose joins blow up (exit 3)" {
	two_requests
	run tr-aggregate --max-rows-per-trace 3 -k 'From s In spans Join p In spans On p -> s GroupBy s.trace Select s.trace, COUNT' "$BATS_TEST_TMPDIR/f.tr"
	expect_eq 3 "$status" status
	expect_like "*tr-aggregate: $BATS_TEST_TMPDIR/f.tr:[0-9]*: trace t1: more than 3 join rows \(--max-rows-per-trace\): skipped*" "$output"
	printf '%s\n' "$output" | grep -qx "$(printf 't2\t3')"
	! printf '%s\n' "$output" | grep -q "^t1	"
	run tr-aggregate --max-rows-per-trace 0 'From s In spans Join p In spans On p -> s GroupBy s.trace Select s.trace, COUNT' "$BATS_TEST_TMPDIR/f.tr"
	expect_eq 0 "$status" status
	expect_output "$(printf 's.trace\tCOUNT\nt1\t9\nt2\t3')"
}

# Block reads (Pivot Tracing's Q5): a client's DoNextOp, then the NameNode's
# GetBlockLocations with the replicas of the block as a JSON array tag.
block_reads() {
	fix r.tr <<-'EOF'
	#tr/1
	T|r1
	S|r1|c||0|100|client|DoNextOp|client|hostA
	S|r1|g|c|10|20|namenode|GetBlockLocations|server|nn|replicas=["dn1","dn2","dn3"]
	T|r2
	S|r2|c||0|100|client|DoNextOp|client|hostB
	S|r2|g|c|10|20|namenode|GetBlockLocations|server|nn|replicas=["dn2","dn3","dn4"]
	T|r3
	S|r3|c||0|100|client|DoNextOp|client|hostA
	S|r3|g|c|10|20|namenode|GetBlockLocations|server|nn|replicas=["dn3","dn1","dn5"]
	EOF
}

@test "GroupBy each(list): one row per value of a JSON array tag (Q5)" {
	block_reads
	run tr-aggregate 'From getloc In spans[operation = "GetBlockLocations"]
		Join st In spans[operation = "DoNextOp"] On st -> getloc
		GroupBy st.host, each(getloc.tag["replicas"])
		Select st.host, each(getloc.tag["replicas"]), COUNT' "$BATS_TEST_TMPDIR/r.tr"
	expect_eq 0 "$status" status
	expect_output "$(printf '%s\n' 'st.host|each(getloc.tag["replicas"])|COUNT' \
		'hostA|dn1|2' 'hostA|dn2|1' 'hostA|dn3|2' 'hostA|dn5|1' 'hostB|dn2|1' 'hostB|dn3|1' 'hostB|dn4|1' | tr '|' '\t')"
	# As names the key; two lists give every pair of their values
	run tr-aggregate --no-header 'From g In spans[trace = "r1" and service = "namenode"]
		GroupBy each(g.tag["replicas"]) As a, each(g.tag["replicas"]) As b
		Where true Select COUNT' "$BATS_TEST_TMPDIR/r.tr"
	expect_status 2 # Where comes before GroupBy
	run tr-aggregate --no-header 'From g In spans[trace = "r1" and service = "namenode"]
		GroupBy each(g.tag["replicas"]) As a, each(g.tag["replicas"]) As b
		Select a, b, COUNT' "$BATS_TEST_TMPDIR/r.tr"
	expect_num 9 "${#lines[@]}"
	expect_eq "$(printf 'dn1\tdn2\t1')" "${lines[1]}"
}

@test "an each() key's As name in an aggregate's argument is the list value of the row's group" {
	block_reads
	# r1's client reads from dn2, r2's from dn3, r3's from dn3: per replica,
	# how often it was hosted and how often the one read
	awk -F'\t' -v OFS='\t' '{ print } $1 == "S" && $3 == "g" { print "S", $2, "d", "c", 40, 20, "datanode", "read", "server", $2 == "r1" ? "dn2" : "dn3" }' \
		"$BATS_TEST_TMPDIR/r.tr" >"$BATS_TEST_TMPDIR/d.tr"
	run tr-aggregate --no-header 'From d In spans[service = "datanode"]
		Join g In spans[operation = "GetBlockLocations"] On g -> d
		GroupBy each(g.tag["replicas"]) As replica
		Select replica, COUNT, SUM(d.host = replica) As chosen, AVG(d.host = replica) As p' "$BATS_TEST_TMPDIR/d.tr"
	expect_status 0
	expected=$(printf '%s\n' 'dn1|2|0|0' 'dn2|2|1|0.5' 'dn3|3|2|0.6666666666666666' 'dn4|1|0|0' 'dn5|1|0|0' | tr '|' '\t')
	diff <(echo "$expected") <(echo "$output")
}

@test "a plain GroupBy key's As name in an aggregate's argument; --partial then --merge equals one pass" {
	two_requests
	q='From s In spans GroupBy s.trace As t, s.service As svc
		Select t, svc, SUM(s.service = svc and s.trace = t) As same, COUNT'
	run tr-aggregate --no-header "$q" "$BATS_TEST_TMPDIR/f.tr"
	expect_status 0
	# every row is in its own group: same = COUNT
	expect_eq "" "$(printf '%s\n' "$output" | awk -F'\t' '$3 != $4')"
	expect_num 7 "${#lines[@]}"
	tr-aggregate --partial "$q" "$BATS_TEST_TMPDIR/f.tr" >"$BATS_TEST_TMPDIR/p"
	diff <(echo "$output") <(tr-aggregate --no-header --merge "$q" "$BATS_TEST_TMPDIR/p")
}

@test "a GroupBy key's name is no field in Where, in GroupBy, outside an aggregate over rows, nor when unnamed" {
	run tr-aggregate 'From s In spans Where v = "x" GroupBy each(s.tag["l"]) As v Select v, COUNT' /dev/null
	expect_status 2
	expect_contains "'v' needs a variable: v.v" "$output"
	run tr-aggregate 'From s In spans GroupBy s.service As a, a Select a, COUNT' /dev/null
	expect_status 2
	expect_contains "'a' needs a variable: v.a" "$output"
	# a Select column over rows must be a key: a + 1 is computed over groups
	run tr-aggregate --no-header 'From s In spans GroupBy s.depth As d Select d + 1, COUNT' /dev/null
	expect_status 3 # parsed; no trace in /dev/null
	run tr-aggregate 'From s In spans GroupBy each(s.tag["l"]) Select SUM(s.service = l)' /dev/null
	expect_status 2
	expect_contains "'l' needs a variable: v.l" "$output"
}

@test "-f crosstab: rows by the first column, columns by the second, empty cells empty, totals last" {
	two_requests
	run tr-aggregate -f crosstab 'From s In spans GroupBy s.service, s.trace
		Select s.service, s.trace, SUM(s.duration) As busy' "$BATS_TEST_TMPDIR/f.tr"
	expect_status 0
	expected=$(printf '%s\n' 's.service|t1|t2|total' 'customer|200||200' 'frontend|1000|2000|3000' \
		'mysql|100|500|600' 'redis|600|100|700' 'total|1900|2600|4500' | tr '|' '\t')
	diff <(echo "$expected") <(echo "$output")
}

@test "-f crosstab: a total is the value over its rows (P50 of all their durations), not a sum of cells" {
	two_requests
	run tr-aggregate -f crosstab 'From s In spans GroupBy s.service, s.trace
		Select s.service, s.trace, P50(s.duration)' "$BATS_TEST_TMPDIR/f.tr"
	expect_status 0
	# redis: 300 300 100 -> 300; t1: 100 200 300 300 1000 -> 300; all
	# eight durations: 100 100 200 300 300 500 1000 2000 -> 300
	expected=$(printf '%s\n' 's.service|t1|t2|total' 'customer|200||200' 'frontend|1000|2000|1000' \
		'mysql|100|500|100' 'redis|300|100|300' 'total|300|500|300' | tr '|' '\t')
	diff <(echo "$expected") <(echo "$output")
}

@test "-f crosstab with --units ms, and after --merge of partials as in one pass" {
	two_requests
	q='From s In spans GroupBy s.service, s.trace Select s.service, s.trace, COUNT(DISTINCT s.host) As hosts'
	run tr-aggregate -f crosstab "$q" "$BATS_TEST_TMPDIR/f.tr"
	expect_status 0
	expect_eq "$(printf 'total\t3\t3\t3')" "${lines[5]}"
	awk -F'\t' -v d="$BATS_TEST_TMPDIR" '$1 == "T" { n++ } { print > (d "/part" (n % 2)) }' "$BATS_TEST_TMPDIR/f.tr"
	tr-aggregate --partial "$q" "$BATS_TEST_TMPDIR/part0" >"$BATS_TEST_TMPDIR/p0"
	tr-aggregate --partial "$q" "$BATS_TEST_TMPDIR/part1" >"$BATS_TEST_TMPDIR/p1"
	diff <(echo "$output") <(tr-aggregate -f crosstab --merge "$q" "$BATS_TEST_TMPDIR/p0" "$BATS_TEST_TMPDIR/p1")
	run tr-aggregate -f crosstab --units ms 'From s In spans GroupBy s.service, s.trace
		Select s.service, s.trace, SUM(s.duration)' "$BATS_TEST_TMPDIR/f.tr"
	expect_eq "$(printf 'frontend\t1\t2\t3')" "${lines[2]}" || { echo "$output"; false; }
}

@test "-f crosstab: --fail-if judges the cells, not the totals" {
	two_requests
	q='From s In spans GroupBy s.service, s.trace Select s.service, s.trace, SUM(s.duration) As busy'
	run --separate-stderr tr-aggregate -f crosstab --fail-if 'busy > 1500' "$q" "$BATS_TEST_TMPDIR/f.tr"
	expect_status 1
	expect_eq "tr-aggregate: fail-if busy > 1500: s.service=frontend, s.trace=t2, busy=2000" "$stderr"
	# frontend's total, 3000, is no cell
	run tr-aggregate -f crosstab --fail-if 'busy > 2500' "$q" "$BATS_TEST_TMPDIR/f.tr"
	expect_status 0
}

@test "-f crosstab needs two GroupBy keys, Select row, column, value, no OrderBy or Limit, a header" {
	two_requests
	f="$BATS_TEST_TMPDIR/f.tr"
	for q in 'From s In spans GroupBy s.service Select s.service, COUNT' \
		 'From s In spans GroupBy s.service, s.trace Select s.service, COUNT' \
		 'From s In spans GroupBy s.service, s.trace, s.host Select s.service, s.trace, COUNT' \
		 'From s In spans GroupBy s.service, s.trace Select s.service, s.service, COUNT' \
		 'From s In spans GroupBy s.service, s.trace Select s.service, COUNT, s.trace'; do
		run tr-aggregate -f crosstab "$q" "$f"
		expect_status 2 || { echo "$q: $status"; false; }
		expect_eq "tr-aggregate: -f crosstab needs two GroupBy keys and Select row key, column key, value" "${lines[0]}"
	done
	run tr-aggregate -f crosstab 'From s In spans GroupBy s.service, s.trace Select s.service, s.trace, COUNT OrderBy COUNT' "$f"
	expect_status 2
	expect_eq "tr-aggregate: -f crosstab sorts its rows and columns by their keys: no OrderBy or Limit" "${lines[0]}"
	run tr-aggregate -f crosstab --no-header 'From s In spans GroupBy s.service, s.trace Select s.service, s.trace, COUNT' "$f"
	expect_status 2
	expect_like "tr-aggregate: -f crosstab has its header line: --no-header does not go with it*" "$output"
}

@test "each() reads JSON arrays as tr-format writes them; another value is one value, [] and null none" {
	fix e.tr <<-'EOF'
	#tr/1
	T|e
	S|e|a||0|10|svc|a|||l=["d\u00e9 \"x\"",7,true,null,[1,"]"],{"k":"v"}]
	S|e|b||0|10|svc|b|||l=plain
	S|e|c||0|10|svc|c|||l=[]
	S|e|d||0|10|svc|d||
	S|e|f||0|10|svc|f|||l=["unclosed"
	EOF
	run tr-aggregate --no-header 'From s In spans GroupBy s.span, each(s.tag["l"]) As v Select s.span, v, COUNT' "$BATS_TEST_TMPDIR/e.tr"
	expect_eq 0 "$status" status
	# a: a string unescaped, a number, a boolean, null, nested text as
	# written; b and f: the text itself; c and d: no rows (sorted by key:
	# null, numbers, strings, booleans)
	expect_output "$(printf '%s\n' 'a||1' 'a|7|1' 'a|[1,"]"]|1' 'a|dé "x"|1' 'a|{"k":"v"}|1' 'a|true|1' \
		'b|plain|1' 'f|["unclosed"|1' | tr '|' '\t')"
}

@test "each() is a GroupBy key only" {
	run tr-aggregate 'From s In spans Where each(s.tag["l"]) = "x" Select s.span' /dev/null
	expect_eq 2 "$status" status
	expect_contains 'each(list) is a GroupBy key' "$output"
	run tr-aggregate 'From s In spans GroupBy s.service Select each(s.tag["l"]), COUNT' /dev/null
	expect_eq 2 "$status" status
	expect_contains 'each(list) is a GroupBy key' "$output"
	run tr-aggregate 'From s In spans GroupBy each(s.tag["l"] Select COUNT' /dev/null
	expect_eq 2 "$status" status
	expect_contains "expected ')' after each(list" "$output"
}

@test "--explain prints the parsed query and the rows of each join" {
	two_requests
	run tr-aggregate --explain 'From s In spans[service = "redis"] Join r In First(spans[parent = null]) On r -> s
		GroupBy r.tag["customer"] Select r.tag["customer"], SUM(s.duration)' "$BATS_TEST_TMPDIR/f.tr"
	expect_eq 0 "$status" status
	printf '%s\n' "$output" | grep -qx 'From s In spans\[service == "redis"\]'
	printf '%s\n' "$output" | grep -qx 'Join r In First(spans\[parent == null\]) On r -> s'
	printf '%s\n' "$output" | grep -qx 'from s: 3 candidates'
	printf '%s\n' "$output" | grep -qx 'join r: 2 candidates, 3 rows after the join'
	printf '%s\n' "$output" | grep -qx 'groups: 2'
}

@test "-o writes the table to a file, -Q reads the query from a file" {
	two_requests
	printf 'From s In spans # every span\nGroupBy s.service\nSelect s.service, COUNT\n' | mkfix q.txt >/dev/null
	run tr-aggregate -Q "$BATS_TEST_TMPDIR/q.txt" -o "$BATS_TEST_TMPDIR/out.tsv" "$BATS_TEST_TMPDIR/f.tr"
	expect_eq 0 "$status" status
	expect_empty "$output"
	grep -qx "$(printf 'redis\t3')" "$BATS_TEST_TMPDIR/out.tsv"
}

@test "-h and --version exit 0; an unknown option, -f value or --hb value exits 2" {
	run tr-aggregate -h
	expect_eq 0 "$status" status
	expect_like "usage: tr-aggregate*" "${lines[0]}"
	run tr-aggregate --version
	expect_eq 0 "$status" status
	expect_like "tr-aggregate \(tr\) *" "$output"
	run tr-aggregate --bogus
	expect_eq 2 "$status" status
	run tr-aggregate -f xml 'From s In spans Select s.span'
	expect_eq 2 "$status" status
	run tr-aggregate --hb=lamport 'From s In spans Select s.span'
	expect_eq 2 "$status" status
}

@test "reads stdin when no file is given or -" {
	two_requests
	run sh -c "tr-aggregate --no-header 'From s In spans Select COUNT' < '$BATS_TEST_TMPDIR/f.tr'"
	expect_output "8"
	run sh -c "tr-aggregate --no-header 'From s In spans Select COUNT' - < '$BATS_TEST_TMPDIR/f.tr'"
	expect_output "8"
}

@test "--partial then --merge equals one pass (exact aggregates, sketch percentiles)" {
	two_requests
	q='From s In spans GroupBy s.service Select s.service, COUNT, SUM(s.duration), MIN(s.duration), MAX(s.duration), AVG(s.duration), COUNT(DISTINCT s.operation), COUNT(DISTINCT s.trace)'
	awk -F'\t' 'NR == 1 || $2 == "t1"' "$BATS_TEST_TMPDIR/f.tr" > "$BATS_TEST_TMPDIR/a.tr"
	awk -F'\t' 'NR == 1 || $2 == "t2"' "$BATS_TEST_TMPDIR/f.tr" > "$BATS_TEST_TMPDIR/b.tr"
	tr-aggregate --partial "$q" "$BATS_TEST_TMPDIR/a.tr" > "$BATS_TEST_TMPDIR/a.part"
	tr-aggregate --partial "$q" "$BATS_TEST_TMPDIR/b.tr" > "$BATS_TEST_TMPDIR/b.part"
	run tr-aggregate --merge "$q" "$BATS_TEST_TMPDIR/a.part" "$BATS_TEST_TMPDIR/b.part"
	expect_eq 0 "$status" status
	expect_output "$(tr-aggregate "$q" "$BATS_TEST_TMPDIR/f.tr")"
	# a partial of another query is refused
	run tr-aggregate --merge 'From s In spans GroupBy s.host Select s.host, COUNT' "$BATS_TEST_TMPDIR/a.part"
	expect_eq 3 "$status" status
	expect_contains 'a.part:1: a partial made for something else (another query, other options)' "$output"
	run tr-aggregate --partial 'From s In spans Select s.span' "$BATS_TEST_TMPDIR/a.tr"
	expect_eq 2 "$status" status
}

@test "merged percentiles are within the sketch's 1% relative error" {
	# 1..1000 µs in two shards
	awk 'BEGIN { print "#tr/1"; for (t = 0; t < 2; t++) { printf "T\ts%d\n", t
		for (i = 1; i <= 500; i++) printf "S\ts%d\tx%d\t\t0\t%d\tsvc\top\t\t\n", t, i, t * 500 + i } }' > "$BATS_TEST_TMPDIR/n.tr"
	q='From s In spans GroupBy s.service Select s.service, P50(s.duration), P90(s.duration), P99(s.duration)'
	awk -F'\t' 'NR == 1 || $2 == "s0"' "$BATS_TEST_TMPDIR/n.tr" > "$BATS_TEST_TMPDIR/a.tr"
	awk -F'\t' 'NR == 1 || $2 == "s1"' "$BATS_TEST_TMPDIR/n.tr" > "$BATS_TEST_TMPDIR/b.tr"
	tr-aggregate --partial "$q" "$BATS_TEST_TMPDIR/a.tr" > "$BATS_TEST_TMPDIR/a.part"
	tr-aggregate --partial "$q" "$BATS_TEST_TMPDIR/b.tr" > "$BATS_TEST_TMPDIR/b.part"
	run tr-aggregate --no-header "$q" "$BATS_TEST_TMPDIR/n.tr"
	expect_output "$(printf 'svc\t500\t900\t990')"
	run --separate-stderr tr-aggregate --no-header --merge "$q" "$BATS_TEST_TMPDIR/a.part" "$BATS_TEST_TMPDIR/b.part"
	expect_eq 0 "$status" status
	echo "$output" | awk -F'\t' '{ e[1] = 500; e[2] = 900; e[3] = 990
		for (i = 1; i <= 3; i++) { d = $(i + 1) - e[i]; if (d < 0) d = -d; if (d > 0.01 * e[i] || $(i + 1) == "") exit 1 } }'
}

# Three requests: a root of 900 us, a root of 300 us with children reaching
# to 1000 us, and a root without time.
latency_traces() {
	fix lat.tr <<-'EOF'
	#tr/1
	T|r1
	S|r1|a||0|900|web|GET /a|server|
	S|r1|b|a|100|200|db|q|client|
	T|r2
	S|r2|a||0|300|web|GET /b|server|
	S|r2|c|a|200|800|mail|send|producer|
	T|r3
	S|r3|a||||web|GET /c|server||tr.no_time=true
	T|r4
	S|r4|a||0|500|web|GET /a|server|
	EOF
}

@test "OrderBy ... Desc Limit N: the slowest requests, nulls last, ties in input order" {
	latency_traces
	run tr-aggregate 'From s In spans Where s.root Select s.trace, s.duration OrderBy s.duration Desc Limit 3' "$BATS_TEST_TMPDIR/lat.tr"
	expect_eq 0 "$status" status
	expect_output "$(printf 's.trace\ts.duration\nr1\t900\nr4\t500\nr2\t300')"
	# ascending: the untimed root's null comes last either way
	run tr-aggregate --no-header 'From s In spans Where s.root Select s.trace OrderBy s.duration' "$BATS_TEST_TMPDIR/lat.tr"
	expect_output "$(printf 'r2\nr4\nr1\nr3')"
	# equal keys keep their input order; a second key breaks the tie
	run tr-aggregate --no-header 'From s In spans Where s.root Select s.trace OrderBy s.operation' "$BATS_TEST_TMPDIR/lat.tr"
	expect_output "$(printf 'r1\nr4\nr2\nr3')"
	run tr-aggregate --no-header 'From s In spans Where s.root Select s.trace OrderBy s.operation, s.duration Asc' "$BATS_TEST_TMPDIR/lat.tr"
	expect_output "$(printf 'r4\nr1\nr2\nr3')"
}

@test "a trace's latency: root_duration is its root span's, trace_duration first start to last end" {
	latency_traces
	run tr-aggregate --no-header 'From s In spans Where s.root Select s.trace, s.root_duration, s.trace_duration OrderBy s.trace_duration Desc' "$BATS_TEST_TMPDIR/lat.tr"
	expect_eq 0 "$status" status
	# r2's root lasts 300 us, its producer's message 1000 us from the start
	expect_output "$(printf 'r2\t300\t1000\nr1\t900\t900\nr4\t500\t500\nr3\t\t')"
}

@test "Limit N Per x: N rows for each value of x, raw and grouped" {
	latency_traces
	run tr-aggregate --no-header 'From s In spans Where s.root Select s.operation, s.trace OrderBy s.duration Desc Limit 1 Per s.operation' "$BATS_TEST_TMPDIR/lat.tr"
	expect_output "$(printf 'GET /a\tr1\nGET /b\tr2\nGET /c\tr3')"
	# as found, without OrderBy
	run tr-aggregate --no-header 'From s In spans Select s.service, s.trace Limit 1 Per s.service' "$BATS_TEST_TMPDIR/lat.tr"
	expect_output "$(printf 'web\tr1\ndb\tr1\nmail\tr2')"
	two_requests
	run tr-aggregate --no-header 'From s In spans GroupBy s.service, s.operation Select s.service, s.operation, COUNT As n OrderBy n Desc Limit 1 Per s.service' "$BATS_TEST_TMPDIR/f.tr"
	expect_output "$(printf 'redis\tGET\t3\nfrontend\tGET /dispatch\t2\nmysql\tSELECT\t2\ncustomer\tGET /customer\t1')"
}

@test "OrderBy an aggregate by its As name or by an expression not selected; Limit without OrderBy" {
	two_requests
	run tr-aggregate 'From s In spans GroupBy s.service Select s.service, P99(s.duration) As p99 OrderBy p99 Desc Limit 2' "$BATS_TEST_TMPDIR/f.tr"
	expect_output "$(printf 's.service\tp99\nfrontend\t2000\nmysql\t500')"
	# ordered by a hidden column: COUNT is not written
	run tr-aggregate --no-header 'From s In spans GroupBy s.service Select s.service OrderBy COUNT Desc, s.service' "$BATS_TEST_TMPDIR/f.tr"
	expect_output "$(printf 'redis\nfrontend\nmysql\ncustomer')"
	run tr-aggregate -f json 'From s In spans Where s.root Select s.trace OrderBy s.duration Desc Limit 1' "$BATS_TEST_TMPDIR/f.tr"
	expect_output "$(printf '[\n{"s.trace":"t2"}\n]')"
	run tr-aggregate --no-header 'From s In spans Select s.span Limit 2' "$BATS_TEST_TMPDIR/f.tr"
	expect_output "$(printf 'a\nb')"
}

@test "OrderBy with a plain Limit keeps the best N of many rows (memory bounded by N)" {
	{
		printf '#tr/1\n'
		for i in $(seq 1 600); do printf 'S\tt%d\ta\t\t0\t%d\tweb\tGET\t\t\n' "$i" $(( (i * 7919) % 1000 )); done
	} > "$BATS_TEST_TMPDIR/many.tr"
	want=$(awk -F'\t' '$1 == "S" { print $2 "\t" $6 }' "$BATS_TEST_TMPDIR/many.tr" | sort -t$'\t' -k2,2nr -k1,1 | head -5)
	run tr-aggregate --no-header 'From s In spans Select s.trace, s.duration OrderBy s.duration Desc, s.trace Limit 5' "$BATS_TEST_TMPDIR/many.tr"
	expect_eq 0 "$status" status
	expect_output "$want"
}

@test "OrderBy and Limit errors: Limit 0, in a subquery, a row column of a grouped query" {
	two_requests
	run tr-aggregate 'From s In spans Select s.trace Limit 0' "$BATS_TEST_TMPDIR/f.tr"
	expect_eq 2 "$status" status
	expect_contains 'Limit takes a whole number of rows, 1 or more' "$output"
	run tr-aggregate 'From r In (From s In spans Select s.trace Limit 1) Select COUNT' "$BATS_TEST_TMPDIR/f.tr"
	expect_eq 2 "$status" status
	expect_contains 'OrderBy and Limit belong to the outermost query' "$output"
	run tr-aggregate 'From s In spans GroupBy s.service Select s.service OrderBy s.duration' "$BATS_TEST_TMPDIR/f.tr"
	expect_eq 2 "$status" status
	expect_contains 'neither a GroupBy key nor inside an aggregate' "$output"
}

@test "--fail-if with Limit judges the rows written" {
	latency_traces
	run tr-aggregate --fail-if 'd > 600' 'From s In spans Where s.root Select s.trace, s.duration As d OrderBy d Limit 2' "$BATS_TEST_TMPDIR/lat.tr"
	expect_eq 0 "$status" status
	run tr-aggregate --fail-if 'd > 600' 'From s In spans Where s.root Select s.trace, s.duration As d OrderBy d Desc Limit 2' "$BATS_TEST_TMPDIR/lat.tr"
	expect_eq 1 "$status" status
}

@test "--units ms|s|auto: duration columns (fields, keys, SUM/MIN/MAX/AVG/percentiles of them) converted; counts, starts and other expressions as computed" {
	two_requests
	f="$BATS_TEST_TMPDIR/f.tr"
	q='From s In spans[service = "frontend"] GroupBy s.service
		Select s.service, COUNT, AVG(s.duration), MAX(s.duration) As top, MIN(s.self),
		       MAX(s.start), SUM(s.duration) / COUNT As mean'
	run tr-aggregate "$q" "$f"
	expect_eq "$(printf 'frontend\t2\t1500\t2000\t400\t5000\t1500')" "${lines[1]}"
	run tr-aggregate --units ms "$q" "$f"
	expect_eq "$(printf 's.service\tCOUNT\tAVG(s.duration)\ttop\tMIN(s.self)\tMAX(s.start)\tmean')" "${lines[0]}"
	expect_eq "$(printf 'frontend\t2\t1.5\t2\t0.4\t5000\t1500')" "${lines[1]}"
	run tr-aggregate --units s -f json "$q" "$f"
	expect_contains '"AVG(s.duration)":0.0015, "top":0.002, "MIN(s.self)":0.0004, "MAX(s.start)":5000, "mean":1500}' "$output"
	run tr-aggregate --units auto "$q" "$f"
	expect_eq "$(printf 'frontend\t2\t1.5 ms\t2 ms\t400 µs\t5000\t1500')" "${lines[1]}"
	# raw rows: a duration field, and a key that is one
	run tr-aggregate --units ms 'From s In spans[service = "redis"] Select s.span, s.duration, s.end' "$f"
	expect_eq "$(printf 'd\t0.3\t1700')" "${lines[1]}"
	run tr-aggregate --units ms 'From s In spans GroupBy s.duration Select s.duration, COUNT
		OrderBy s.duration Desc Limit 1' "$f"
	expect_eq "$(printf '2\t1')" "${lines[1]}"
	# the gate compares µs whatever the units; its message writes them in the units
	run tr-aggregate --units s --fail-if 'top > 1500' "$q" "$f"
	expect_eq 1 "$status" status
	expect_contains 'top=0.002' "$output"
}

@test "--units auto is refused with csv and json" {
	two_requests
	run tr-aggregate --units auto -f csv 'From s In spans Select s.duration' "$BATS_TEST_TMPDIR/f.tr"
	expect_eq 2 "$status" status
	expect_contains '--units auto writes text for people' "$output"
}

@test "an unknown --units unit is a usage error" {
	two_requests
	run tr-aggregate --units min 'From s In spans Select s.duration' "$BATS_TEST_TMPDIR/f.tr"
	expect_eq 2 "$status" status
	expect_contains '--units: us, ms, s or auto, not "min"' "$output"
}

# Two shards of the two_requests traces, by trace.
two_shards() {
	two_requests
	awk -F'\t' 'NR == 1 || $2 == "t1"' "$BATS_TEST_TMPDIR/f.tr" > "$BATS_TEST_TMPDIR/a.tr"
	awk -F'\t' 'NR == 1 || $2 == "t2"' "$BATS_TEST_TMPDIR/f.tr" > "$BATS_TEST_TMPDIR/b.tr"
}

pq='From s In spans GroupBy s.service Select s.service, COUNT, P50(s.duration), P90(s.duration) As p90, SUM(s.duration)'

@test "--partial --exact-percentiles then --merge: the table of one pass, byte for byte" {
	two_shards
	tr-aggregate --partial --exact-percentiles "$pq" "$BATS_TEST_TMPDIR/a.tr" > "$BATS_TEST_TMPDIR/a.part"
	tr-aggregate --partial --exact-percentiles "$pq" "$BATS_TEST_TMPDIR/b.tr" > "$BATS_TEST_TMPDIR/b.part"
	expected=$(tr-aggregate "$pq" "$BATS_TEST_TMPDIR/f.tr")
	run --separate-stderr tr-aggregate --merge "$pq" "$BATS_TEST_TMPDIR/a.part" "$BATS_TEST_TMPDIR/b.part"
	expect_status 0
	diff <(echo "$expected") <(echo "$output")
	expect_empty "$stderr"
}

@test "--merge reads the partials on stdin when no file is given" {
	two_shards
	tr-aggregate --partial "$pq" "$BATS_TEST_TMPDIR/a.tr" > "$BATS_TEST_TMPDIR/a.part"
	tr-aggregate --partial "$pq" "$BATS_TEST_TMPDIR/b.tr" > "$BATS_TEST_TMPDIR/b.part"
	expected=$(tr-aggregate --merge "$pq" "$BATS_TEST_TMPDIR/a.part" "$BATS_TEST_TMPDIR/b.part" 2>/dev/null)
	run --separate-stderr sh -c "cat '$BATS_TEST_TMPDIR/a.part' '$BATS_TEST_TMPDIR/b.part' | tr-aggregate --merge '$pq'"
	expect_status 0
	diff <(echo "$expected") <(echo "$output")
}

@test "--merge --partial combines partials into one that merges to the same table" {
	two_shards
	for e in "" --exact-percentiles; do
		tr-aggregate --partial $e "$pq" "$BATS_TEST_TMPDIR/a.tr" > "$BATS_TEST_TMPDIR/a.part"
		tr-aggregate --partial $e "$pq" "$BATS_TEST_TMPDIR/b.tr" > "$BATS_TEST_TMPDIR/b.part"
		expected=$(tr-aggregate --merge "$pq" "$BATS_TEST_TMPDIR/a.part" "$BATS_TEST_TMPDIR/b.part" 2>/dev/null)
		tr-aggregate --merge --partial "$pq" "$BATS_TEST_TMPDIR/a.part" > "$BATS_TEST_TMPDIR/c.part"
		actual=$(tr-aggregate --merge "$pq" "$BATS_TEST_TMPDIR/c.part" "$BATS_TEST_TMPDIR/b.part" 2>/dev/null)
		diff <(echo "$expected") <(echo "$actual") || { echo "with '$e'"; false; }
	done
}

@test "a combiner keeps exact percentiles exact: the table of one pass" {
	two_shards
	tr-aggregate --partial --exact-percentiles "$pq" "$BATS_TEST_TMPDIR/a.tr" > "$BATS_TEST_TMPDIR/a.part"
	tr-aggregate --partial --exact-percentiles "$pq" "$BATS_TEST_TMPDIR/b.tr" > "$BATS_TEST_TMPDIR/b.part"
	cat "$BATS_TEST_TMPDIR/a.part" "$BATS_TEST_TMPDIR/b.part" | tr-aggregate --merge --partial "$pq" > "$BATS_TEST_TMPDIR/c.part"
	expected=$(tr-aggregate "$pq" "$BATS_TEST_TMPDIR/f.tr")
	run tr-aggregate --merge "$pq" "$BATS_TEST_TMPDIR/c.part"
	diff <(echo "$expected") <(echo "$output")
}

@test "percentiles merged from sketches are marked (approx) in the TSV and CSV header and the JSON keys, and said on stderr" {
	two_shards
	tr-aggregate --partial "$pq" "$BATS_TEST_TMPDIR/a.tr" > "$BATS_TEST_TMPDIR/a.part"
	run --separate-stderr tr-aggregate --merge "$pq" "$BATS_TEST_TMPDIR/a.part"
	diff <(printf 's.service\tCOUNT\tP50(s.duration) (approx)\tp90 (approx)\tSUM(s.duration)\n') <(head -1 <<< "$output")
	diff <(printf 'tr-aggregate: P50(s.duration): from the sketches of the partials, within 1 percent of the exact value (--exact-percentiles in --partial makes it exact)\ntr-aggregate: P90(s.duration): from the sketches of the partials, within 1 percent of the exact value (--exact-percentiles in --partial makes it exact)\n') <(echo "$stderr")
	run --separate-stderr tr-aggregate -f csv --merge "$pq" "$BATS_TEST_TMPDIR/a.part"
	diff <(echo 's.service,COUNT,P50(s.duration) (approx),p90 (approx),SUM(s.duration)') <(head -1 <<< "$output")
	run --separate-stderr tr-aggregate -f json --merge "$pq" "$BATS_TEST_TMPDIR/a.part"
	expect_contains '"P50(s.duration) (approx)":' "$output"
	expect_contains '"p90 (approx)":' "$output"
}

@test "exact partials merged with a sketched one: the percentile is from the sketch, marked" {
	two_shards
	tr-aggregate --partial --exact-percentiles "$pq" "$BATS_TEST_TMPDIR/a.tr" > "$BATS_TEST_TMPDIR/a.part"
	tr-aggregate --partial "$pq" "$BATS_TEST_TMPDIR/b.tr" > "$BATS_TEST_TMPDIR/b.part"
	run --separate-stderr tr-aggregate --merge "$pq" "$BATS_TEST_TMPDIR/a.part" "$BATS_TEST_TMPDIR/b.part"
	expect_status 0
	expect_contains 'P50(s.duration) (approx)' "$(head -1 <<< "$output")" || { echo "$output"; false; }
}

@test "bad exact percentile states are bad input naming file:line" {
	q='From s In spans GroupBy s.service Select s.service, P50(s.duration)'
	printf '#tr/1\nT\tt\nS\tt\ta\t\t0\t5\tsvc\top\t\t\n' > "$BATS_TEST_TMPDIR/one.tr"
	h=$(tr-aggregate --partial "$q" "$BATS_TEST_TMPDIR/one.tr" | head -1)
	for state in '2,=,5:1' '1,=,5:2' '1,=,x:1' '1,=,5:0' '1,=,5' '1,=,5:1,' '2,=,5:1,nan:1'; do
		printf '%s\nG\tssvc\t%s\n#end\t1\n' "$h" "$state" > "$BATS_TEST_TMPDIR/bad.part"
		run tr-aggregate --merge "$q" "$BATS_TEST_TMPDIR/bad.part"
		expect_status 3 || { echo "state $state: status $status: $output"; false; }
		expect_output "tr-aggregate: $BATS_TEST_TMPDIR/bad.part:2: bad state of P50(s.duration) in field 3" || { echo "state $state: $output"; false; }
	done
	printf '%s\nG\tssvc\t%s\n#end\t1\n' "$h" '3,=,5:2,7:1' > "$BATS_TEST_TMPDIR/good.part"
	run tr-aggregate --no-header --merge "$q" "$BATS_TEST_TMPDIR/good.part"
	expect_output "$(printf 'svc\t5')"
}

@test "--exact-percentiles without --partial is a usage error" {
	run tr-aggregate --exact-percentiles 'From s In spans Select COUNT' /dev/null
	expect_status 2
	expect_like "tr-aggregate: --exact-percentiles: only with --partial*" "$output"
}
