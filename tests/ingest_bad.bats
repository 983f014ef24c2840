#!/usr/bin/env bats
# tr-ingest on bad input: clear messages, exit 3, nothing of a broken trace,
# every good trace still out with -k.
load helper
bats_require_minimum_version 1.5.0

two_traces() {
	mkfix two.json <<'J'
{"data":[
{"traceID":"good","spans":[{"spanID":"a","operationName":"o","startTime":1,"duration":2}]},
{"traceID":"bad","spans":[{"spanID":"b","operationName":"o","startTime":"soon","duration":2}]},
{"traceID":"good2","spans":[{"spanID":"c","operationName":"o","startTime":3,"duration":2}]}
]}
J
}

@test "a wrong type stops at the broken trace: earlier traces whole, nothing of it, exit 3" {
	run tr-ingest "$(two_traces)"
	expect_eq 3 "$status" status
	expect_contains 'two.json:3:1: "startTime" is not an integer' "$output"
	expect_contains $'T\tgood' "$output"
	expect_lacks $'\tbad' "$output"
	expect_lacks 'good2' "$output"
}

@test "-k skips the broken trace, writes every good one and reports the count" {
	run tr-ingest -k "$(two_traces)"
	expect_eq 3 "$status" status
	expect_contains $'T\tgood\n' "$output"
	expect_contains $'T\tgood2' "$output"
	expect_lacks $'\tbad' "$output"
	expect_contains '1 broken traces skipped' "$output"
}

@test "malformed JSON is reported at its line and column" {
	f=$(mkfix bad.json <<'J'
{"data":[
{"traceID":"t","spans":[{"spanID":"a" "operationName":"o"}]}
]}
J
)
	run tr-ingest "$f"
	expect_eq 3 "$status" status
	expect_like "*bad.json:2:*:*" "$output"
	expect_lacks $'S\t' "$output"
}

@test "a file truncated inside a trace keeps the traces before it whole" {
	env=$(two_traces)
	head -c 120 "$env" > "$BATS_TEST_TMPDIR/cut.json"
	run tr-ingest -k "$BATS_TEST_TMPDIR/cut.json"
	expect_eq 3 "$status" status
	expect_contains 'unexpected end of input' "$output"
	expect_contains $'S\tgood\ta' "$output"
	expect_lacks $'\tbad' "$output"
}

@test "a truncated Zipkin file writes none of its traces: any of them may be incomplete" {
	printf '[{"traceId":"a","id":"1","name":"x","timestamp":1,"duration":1},{"traceId":"a","id":"2"' > "$BATS_TEST_TMPDIR/z.json"
	run tr-ingest "$BATS_TEST_TMPDIR/z.json"
	expect_eq 3 "$status" status
	expect_lacks $'S\t' "$output"
}

@test "a truncated zstd stream is an error" {
	env=$(two_traces)
	zstd -q -c "$env" | head -c 60 > "$BATS_TEST_TMPDIR/cut.zst"
	run tr-ingest "$BATS_TEST_TMPDIR/cut.zst"
	expect_eq 3 "$status" status
	expect_contains 'cut.zst' "$output"
}

@test "an unknown document, a JSON scalar and binary garbage are errors" {
	echo '{"hello":"world"}' > "$BATS_TEST_TMPDIR/u.json"
	run tr-ingest "$BATS_TEST_TMPDIR/u.json"
	expect_eq 3 "$status" status
	expect_contains 'u.json:1:1: not a Jaeger, Zipkin or OTLP document' "$output"
	echo 42 > "$BATS_TEST_TMPDIR/n.json"
	run tr-ingest "$BATS_TEST_TMPDIR/n.json"
	expect_eq 3 "$status" status
	head -c 3000 /bin/sh > "$BATS_TEST_TMPDIR/bin"
	run tr-ingest "$BATS_TEST_TMPDIR/bin"
	expect_eq 3 "$status" status
	expect_contains 'not JSON' "$output"
}

@test "empty input, or an export of no span, is an error (exit 3, one line)" {
	run --separate-stderr tr-ingest < /dev/null
	expect_eq 3 "$status" status
	expect_eq "tr-ingest: <stdin>: no span in the input (--allow-empty accepts that)" "$stderr"
	printf '{"data":[]}\n' > "$BATS_TEST_TMPDIR/none.json"
	run --separate-stderr tr-ingest -o "$BATS_TEST_TMPDIR/none.tr" "$BATS_TEST_TMPDIR/none.json"
	expect_eq 3 "$status" status
	expect_eq "tr-ingest: $BATS_TEST_TMPDIR/none.json: no span in the input (--allow-empty accepts that)" "$stderr"
	[ ! -e "$BATS_TEST_TMPDIR/none.tr" ]
}

@test "--allow-empty: empty input, or an export of no span, gives the header and nothing else" {
	printf '{"data":[]}\n' > "$BATS_TEST_TMPDIR/none.json"
	run tr-ingest --allow-empty < /dev/null
	expect_eq 0 "$status" status
	expect_output "#tr/1"
	run tr-ingest --allow-empty "$BATS_TEST_TMPDIR/none.json"
	expect_eq 0 "$status" status
	expect_output "#tr/1"
}

@test "invalid UTF-8 inside a string is an error in that trace" {
	printf '{"traceID":"t","spans":[{"spanID":"a","operationName":"\xff\xfe","startTime":1,"duration":1}]}' > "$BATS_TEST_TMPDIR/u8.json"
	run tr-ingest "$BATS_TEST_TMPDIR/u8.json"
	expect_eq 3 "$status" status
	expect_contains 'u8.json:1:' "$output"
}

@test "-f forces the format: an OTLP reader refuses a Jaeger file" {
	run tr-ingest -f otlp "$(two_traces)"
	expect_eq 3 "$status" status
	expect_contains 'not a Jaeger, Zipkin or OTLP document of the format given with -f' "$output"
}

@test "usage errors exit 2" {
	run tr-ingest --bogus
	expect_eq 2 "$status" status
	run tr-ingest -f yaml x
	expect_eq 2 "$status" status
	expect_contains '-f: unknown format "yaml"' "$output"
}

@test "--help exits 0 with the usage on stdout" {
	run tr-ingest --help
	expect_eq 0 "$status" status
	expect_like "usage:*" "$output"
}

@test "a missing file exits 3" {
	run tr-ingest /nonexistent.json
	expect_eq 3 "$status" status
	expect_contains 'tr-ingest: /nonexistent.json: No such file or directory' "$output"
	expect_num 1 "$(printf '%s\n' "$output" | grep -vc '^#tr/1$')"
}

@test "a write error (full disk) is reported with exit 4" {
	[ -w /dev/full ] || skip "no /dev/full"
	run tr-ingest -k -o /dev/full "$(two_traces)"
	expect_eq 4 "$status" status
	[ -c /dev/full ]
	run sh -c "tr-ingest -k '$(two_traces)' > /dev/full"
	expect_eq 4 "$status" status
	expect_contains 'write error' "$output"
}

@test "-o leaves no partial file when the run fails" {
	run tr-ingest -o "$BATS_TEST_TMPDIR/out.tr" "$(two_traces)"
	expect_eq 3 "$status" status
	run tr-ingest -o "$BATS_TEST_TMPDIR/out2.tr" /nonexistent
	expect_eq 3 "$status" status
	[ ! -e "$BATS_TEST_TMPDIR/out2.tr" ]
	expect_empty "$(ls "$BATS_TEST_TMPDIR" | grep tmp)"
}

@test "a closed pipe ends the run quietly" {
	for i in $(seq 1 3000); do printf '{"traceID":"t%d","spans":[{"spanID":"a","operationName":"o","startTime":1,"duration":2}]}\n' $i; done > "$BATS_TEST_TMPDIR/many.jsonl"
	run sh -c "tr-ingest '$BATS_TEST_TMPDIR/many.jsonl' 2>&1 >/dev/null | head -1; tr-ingest '$BATS_TEST_TMPDIR/many.jsonl' 2>'$BATS_TEST_TMPDIR/err' | head -1"
	expect_output "#tr/1"
	[ ! -s "$BATS_TEST_TMPDIR/err" ]
}

@test "parent cycles, self-parents and missing parents are kept and reported with -v" {
	f=$(mkfix cyc.json <<'J'
{"traceID":"t","spans":[
 {"spanID":"a","operationName":"o","startTime":1,"duration":9,"references":[{"refType":"CHILD_OF","spanID":"b"}]},
 {"spanID":"b","operationName":"o","startTime":2,"duration":1,"references":[{"refType":"CHILD_OF","spanID":"a"}]},
 {"spanID":"c","operationName":"o","startTime":3,"duration":1,"references":[{"refType":"CHILD_OF","spanID":"c"}]},
 {"spanID":"d","operationName":"o","startTime":4,"duration":1,"references":[{"refType":"CHILD_OF","spanID":"gone"}]}]}
J
)
	run tr-ingest -v "$f"
	expect_eq 0 "$status" status
	expect_num 4 "$(printf '%s\n' "$output" | grep -c $'^S\t')"
	expect_contains 'trace t: 4 spans, 3 roots, 1 with a missing parent, 1 self-parents, 1 parent cycles cut' "$output"
}

@test "--max-spans turns an oversized trace into a counted skip, never a silent cut" {
	f=$(mkfix big.json <<'J'
{"traceID":"t","spans":[{"spanID":"a","startTime":1,"duration":2},{"spanID":"b","startTime":1,"duration":2}]}
J
)
	run tr-ingest --max-spans 1 "$f"
	expect_eq 3 "$status" status
	expect_contains 'trace t has 2 spans, more than --max-spans 1: skipped' "$output"
	expect_lacks $'S\t' "$output"
}

@test "--max-bytes turns an oversized JSON trace into an error" {
	run tr-ingest --max-bytes 50 "$(two_traces)"
	expect_eq 3 "$status" status
	expect_contains 'larger than --max-bytes 50' "$output"
}

@test "CRLF line endings in JSON are fine" {
	printf '{"traceID":"t",\r\n"spans":[{"spanID":"a","startTime":1,"duration":2}]}\r\n' > "$BATS_TEST_TMPDIR/crlf.json"
	run tr-ingest "$BATS_TEST_TMPDIR/crlf.json"
	expect_eq 0 "$status" status
	expect_eq $'S\tt\ta\t\t1\t2\t\t\t\t' "${lines[2]}"
}

@test "-j N stops at the same broken trace as one thread, and -k writes the same good ones" {
	f=$(mkfix many.json <<'J'
{"data":[
{"traceID":"t1","spans":[{"spanID":"a","startTime":1,"duration":2}]},
{"traceID":"t2","spans":[{"spanID":"a","startTime":1,"duration":2}]},
{"traceID":"bad","spans":[{"spanID":"a","startTime":1,"duration":-2}]},
{"traceID":"t4","spans":[{"spanID":"a","startTime":1,"duration":2}]},
{"traceID":"t5","spans":[{"spanID":"a","startTime":1,"duration":2 ]},
{"traceID":"t6","spans":[{"spanID":"a","startTime":1,"duration":2}]}
]}
J
)
	# With -v, so that the counts must agree too.
	one=$(tr-ingest -v "$f" 2>&1; echo "status $?")
	expect_contains 'status 3' "$one"
	expect_contains $'T\tt2' "$one"
	expect_lacks $'T\tt4' "$one"
	expect_contains '2 traces, 2 spans written; 1 broken traces skipped' "$one"
	expect_eq "$one" "$(tr-ingest -v -j 4 "$f" 2>&1; echo "status $?")"
	onek=$(tr-ingest -k -v "$f" 2>&1; echo "status $?")
	expect_contains $'T\tt4' "$onek"
	expect_lacks $'T\tt6' "$onek"
	expect_contains '3 traces, 3 spans written; 2 broken traces skipped' "$onek"
	expect_eq "$onek" "$(tr-ingest -k -v -j 4 "$f" 2>&1; echo "status $?")"
}

@test "-j N prints the same messages as one thread: a cut after a broken trace, a bad value after the data" {
	# JSON Lines in two zstd frames, the second cut: without -k the broken
	# trace stops the file, and the cut is not told, however far threads read.
	{
		echo '{"traceID":"t1","spans":[{"spanID":"a","startTime":1,"duration":2}]}'
		echo '{"traceID":"bad","spans":[{"spanID":"a","startTime":1,"duration":-2}]}'
	} | zstd -q -c > "$BATS_TEST_TMPDIR/jl.zst"
	for i in $(seq 3 60); do
		echo "{\"traceID\":\"t$i\",\"spans\":[{\"spanID\":\"a\",\"startTime\":1,\"duration\":2}]}"
	done | zstd -q -c > "$BATS_TEST_TMPDIR/rest.zst"
	head -c $(($(wc -c < "$BATS_TEST_TMPDIR/rest.zst") / 2)) "$BATS_TEST_TMPDIR/rest.zst" >> "$BATS_TEST_TMPDIR/jl.zst"
	printf '{"data":[{"traceID":"a","spans":[{"spanID":"x","startTime":1,"duration":-1}]}],\n"total": NaN}\n' |
		mkfix after.json
	for f in "$BATS_TEST_TMPDIR/jl.zst" "$BATS_TEST_TMPDIR/after.json"; do
		for k in "" -k; do
			one=$(tr-ingest $k -v "$f" 2>&1; echo "status $?")
			expect_contains 'status 3' "$one"
			expect_eq "$one" "$(tr-ingest $k -v -j 4 "$f" 2>&1; echo "status $?")" ||
				{ echo "$f $k: -j 4 differs from: $one"; false; }
		done
	done
	run tr-ingest -k -v "$BATS_TEST_TMPDIR/jl.zst"
	expect_contains 'truncated zstd stream' "$output"
}

@test "-j takes 1 to 256 threads" {
	run tr-ingest -j 0 /dev/null
	expect_eq 2 "$status" status
	run tr-ingest -j x /dev/null
	expect_eq 2 "$status" status
}

@test "a bare Jaeger trace that is cut off or over --max-bytes counts as one broken trace" {
	f=$(printf '{"traceID":"t1","spans":[{"spanID":"a","startTime":1,"duration":2},{"spanID":"b"' | mkfix cut.json)
	run tr-ingest -v "$f"
	expect_eq 3 "$status" status
	expect_contains '0 traces, 0 spans written; 1 broken traces skipped' "$output"
	f=$(printf '{"traceID":"t1","spans":[{"spanID":"a","startTime":1,"duration":2}]}\n' | mkfix bare.json)
	run tr-ingest -v --max-bytes 30 "$f"
	expect_eq 3 "$status" status
	expect_contains "tr-ingest: $f:1:25: JSON value larger than --max-bytes 30" "$output"
	expect_contains '0 traces, 0 spans written; 1 broken traces skipped' "$output"
}
