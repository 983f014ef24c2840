#!/usr/bin/env bats
# tr-aggregate --emit-every: a grouped table per window of time, written once
# the input's time has passed the window (plus --lateness), while the input
# still streams. Hand-made traces with the windows worked out by hand.

load helper
bats_require_minimum_version 1.5.0

fix() {
	tr '|' '\t' | mkfix "$1"
}

# w1 starts at 0.1 s and calls db at 1.2 s; w2 starts at 1.5 s; w3 at 0.9 s,
# after w2 in the input.
windows() {
	fix w.tr <<-'EOF'
	#tr/1
	T|w1
	S|w1|a||100000|50|front|GET|server|h1
	S|w1|b|a|1200000|10|db|Q|client|h1
	T|w2
	S|w2|a||1500000|10|front|GET|server|h1
	T|w3
	S|w3|a||900000|10|front|GET|server|h1
	EOF
}

Q='From s In spans GroupBy s.service Select s.service, COUNT'

@test "--emit-every: a row is in the window of its From span's start; a late row is left out, counted, exit 3" {
	windows
	run --separate-stderr tr-aggregate --emit-every 1s "$Q" "$BATS_TEST_TMPDIR/w.tr"
	expect_status 3
	# after w2 the input's time is 1.5 s: window 0 closes; w3's row (0.9 s)
	# comes after it closed; w1's db span is in the window of 1 s
	expected=$(printf '%s\n' 'window|s.service|COUNT' '0|front|1' '1000000|db|1' '1000000|front|1' | tr '|' '\t')
	diff <(echo "$expected") <(echo "$output")
	expect_eq "tr-aggregate: rows left out of the windows: 1 after their window closed (--lateness), 0 without a time" "$stderr"
}

@test "--lateness: a window waits that long after its end, in the input's time, for late rows" {
	windows
	run --separate-stderr tr-aggregate --emit-every 1s --lateness 1s "$Q" "$BATS_TEST_TMPDIR/w.tr"
	expect_status 0
	expected=$(printf '%s\n' 'window|s.service|COUNT' '0|front|2' '1000000|db|1' '1000000|front|1' | tr '|' '\t')
	diff <(echo "$expected") <(echo "$output")
	expect_eq "" "$stderr"
}

@test "--emit-every: the rows of a trace without time are in no window: counted, exit 3" {
	windows
	printf 'T\tw4\nS\tw4\ta\t\t\t\tfront\tGET\tserver\th1\n' >>"$BATS_TEST_TMPDIR/w.tr"
	run --separate-stderr tr-aggregate --emit-every 1s --lateness 1s "$Q" "$BATS_TEST_TMPDIR/w.tr"
	expect_status 3
	expect_num 4 "${#lines[@]}"
	expect_eq "tr-aggregate: rows left out of the windows: 0 after their window closed (--lateness), 1 without a time" "$stderr"
}

@test "--emit-every: json is one array a window, csv has the window column, a crosstab a table a window" {
	windows
	run --separate-stderr tr-aggregate -f json --emit-every 1s --lateness 1s "$Q" "$BATS_TEST_TMPDIR/w.tr"
	expected='[
{"window":0, "s.service":"front", "COUNT":2}
]
[
{"window":1000000, "s.service":"db", "COUNT":1},
{"window":1000000, "s.service":"front", "COUNT":1}
]'
	diff <(echo "$expected") <(echo "$output")
	run --separate-stderr tr-aggregate -f csv --emit-every 1s --lateness 1s "$Q" "$BATS_TEST_TMPDIR/w.tr"
	diff <(printf 'window,s.service,COUNT\n0,front,2\n1000000,db,1\n1000000,front,1\n') <(echo "$output")
	run --separate-stderr tr-aggregate -f crosstab --emit-every 1s --lateness 1s \
		'From s In spans GroupBy s.service, s.host Select s.service, s.host, COUNT' "$BATS_TEST_TMPDIR/w.tr"
	expected=$(printf '%s\n' 'window|s.service|h1|total' '0|front|2|2' '0|total|2|2' \
		'window|s.service|h1|total' '1000000|db|1|1' '1000000|front|1|1' '1000000|total|2|2' | tr '|' '\t')
	diff <(echo "$expected") <(echo "$output")
}

@test "--emit-every: --fail-if judges every window's rows" {
	windows
	run --separate-stderr tr-aggregate --emit-every 1s --lateness 1s --fail-if 'COUNT > 1' "$Q" "$BATS_TEST_TMPDIR/w.tr"
	expect_status 1
	expect_like "tr-aggregate: fail-if COUNT > 1: s.service=front, COUNT=2*" "$stderr"
}

@test "--emit-every: an input with no row fails the gate" {
	windows
	run --separate-stderr tr-aggregate --emit-every 1s --fail-if 'COUNT > 1' \
		'From s In spans[service = "nosuch"] GroupBy s.service Select s.service, COUNT' "$BATS_TEST_TMPDIR/w.tr"
	expect_eq 2 "$status" status	# no row, and a service no span has
	expect_output "$(printf 'window\ts.service\tCOUNT')"
	expect_contains 'the query matched no row: the gate fails' "$stderr"
}

@test "--emit-every on the sample equals GroupBy bucket(s.start, 1s) with no row left out" {
	[ -f "$SAMPLES/jaeger/hotrod.json" ] || skip "no samples/jaeger/hotrod.json"
	tr-ingest "$SAMPLES/jaeger/hotrod.json" >"$BATS_TEST_TMPDIR/hotrod.tr"
	run --separate-stderr tr-aggregate --emit-every 1s 'From s In spans GroupBy s.service
		Select s.service, COUNT, SUM(s.duration)' "$BATS_TEST_TMPDIR/hotrod.tr"
	expect_status 0
	expect_eq "" "$stderr"
	expect_num 21 "${#lines[@]}"
	diff <(printf '%s\n' "$output" | sed 1d) <(tr-aggregate --no-header 'From s In spans
		GroupBy bucket(s.start, 1s) As w, s.service Select w, s.service, COUNT, SUM(s.duration)' "$BATS_TEST_TMPDIR/hotrod.tr")
}

@test "--emit-every writes each window while the input still streams: (cat f; sleep 5) | tr-aggregate" {
	[ -f "$SAMPLES/jaeger/hotrod.json" ] || skip "no samples/jaeger/hotrod.json"
	tr-ingest "$SAMPLES/jaeger/hotrod.json" >"$BATS_TEST_TMPDIR/hotrod.tr"
	out="$BATS_TEST_TMPDIR/out"
	( (cat "$BATS_TEST_TMPDIR/hotrod.tr"; sleep 5) | tr-aggregate --emit-every 1s "$Q" >"$out" ) &
	job=$!
	# the first window (1767225600000000) is out long before the 5 s are up
	for _ in $(seq 40); do
		grep -q '^1767225600000000	' "$out" 2>/dev/null && break
		sleep 0.1
	done
	kill -0 "$job"	# the input has not ended
	first=$(grep -c '^1767225600000000	' "$out")
	wait "$job"
	expect_num 6 "$first" || { cat "$out"; false; }
	expect_num 7 "$(grep -c '^1767225602000000	' "$out")"
}

@test "--emit-every and --lateness: bad values and the combinations they do not go with" {
	windows
	f="$BATS_TEST_TMPDIR/w.tr"
	run tr-aggregate --emit-every 0 "$Q" "$f"
	expect_status 2
	expect_like "tr-aggregate: --emit-every: not a duration over 0 \(1s, 250ms, 10us\): 0*" "$output"
	run tr-aggregate --emit-every 1s --lateness -1s "$Q" "$f"
	expect_status 2
	expect_like "tr-aggregate: --lateness: not a duration \(1s, 250ms, 10us\): -1s*" "$output"
	run tr-aggregate --lateness 1s "$Q" "$f"
	expect_status 2
	expect_like "tr-aggregate: --lateness is for --emit-every*" "$output"
	run tr-aggregate --emit-every 1s 'From s In spans Select s.service' "$f"
	expect_status 2
	expect_like "tr-aggregate: --emit-every needs a query with GroupBy or an aggregate*" "$output"
	for o in --partial --merge; do
		run tr-aggregate --emit-every 1s $o "$Q" "$f"
		expect_status 2
		expect_like "tr-aggregate: --emit-every does not go with --partial or --merge*" "$output"
	done
}
