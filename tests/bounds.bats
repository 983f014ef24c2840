#!/usr/bin/env bats
# Span times lie within ±2^61 µs (tr-format(5)): beyond is bad input, in the
# line format and in the exports tr-ingest reads, so that no tool's µs
# arithmetic overflows.
load helper

two_far_spans() {
	printf 'T\tt\nS\tt\ta\t\t-9000000000000000000\t10\tsvc\top\tserver\th1\nS\tt\tb\ta\t9000000000000000000\t10\tsvc\top\tclient\th2\n' |
		mkfix far.tr
}

@test "spans at ±9e18 us: each tool says so in one line and exits 3" {
	local f
	f=$(two_far_spans)
	for tool in tr-temporal tr-cp tr-pag tr-report; do
		run "$tool" "$f"
		expect_status 3 || { echo "$tool: $status: $output"; false; }
		expect_contains "$tool: $f:2: span time beyond 2^61 microseconds" "$output" || { echo "$tool: $output"; false; }
	done
}

@test "tr-ingest: a Jaeger span starting beyond 2^61 us is a broken trace" {
	f=$(mkfix far.json <<'J'
{"data":[{"traceID":"t","spans":[{"spanID":"a","operationName":"o","startTime":9000000000000000000,"duration":2}]}]}
J
	)
	run tr-ingest "$f"
	expect_eq 3 "$status" status
	expect_like "*far.json:*: span a: time beyond 2^61 microseconds*" "$output"
}

@test "tr-ingest: a Zipkin span ending beyond 2^61 us is a broken trace" {
	f=$(mkfix far.json <<'J'
[{"traceId":"t","id":"a","name":"o","timestamp":2305843009213693000,"duration":1000}]
J
	)
	run tr-ingest "$f"
	expect_eq 3 "$status" status
	expect_contains ': span a: time beyond 2^61 microseconds' "$output"
}

@test "tr-ingest: a span at 2^61 us less its duration is good" {
	f=$(mkfix near.json <<'J'
[{"traceId":"t","id":"a","name":"o","timestamp":2305843009213692952,"duration":1000}]
J
	)
	# the year 75039 in µs looks like nanoseconds: --time-unit us says it is not
	run tr-ingest --time-unit us "$f"
	expect_eq 0 "$status" status
	# (OTLP's unsigned nanoseconds stay below 2^64 ns, 1.8e16 us: always within.)
	expect_contains $'\t2305843009213692952\t1000\t' "$output"
}
