#!/usr/bin/env bats
# What tr-ingest takes as input: directories, many files on several threads,
# gzip and the Collector's framed zstd, and the same trace in two inputs.
load helper

# jaeger_file ID SPAN...: a query-API file holding trace ID with root span
# "a" and, for each further name, a child of it.
jaeger_file() {
	local id=$1 spans="" sep=""
	shift
	for s in a "$@"; do
		ref=""
		[ "$s" = a ] || ref=',"references":[{"refType":"CHILD_OF","traceID":"'$id'","spanID":"a"}]'
		spans="$spans$sep"'{"traceID":"'$id'","spanID":"'$s'","operationName":"op-'$s'","startTime":1000,"duration":10,"processID":"p1"'$ref'}'
		sep=,
	done
	printf '{"data":[{"traceID":"%s","spans":[%s],"processes":{"p1":{"serviceName":"svc"}}}]}\n' "$id" "$spans"
}

@test "a directory: its trace files, sorted by path, subdirectories included, other files ignored" {
	d=$BATS_TEST_TMPDIR/d
	mkdir -p "$d/b/c" "$d/a"
	jaeger_file t3 > "$d/b/c/x.json"
	jaeger_file t1 > "$d/a/z.json"
	jaeger_file t2 > "$d/b/a.jsonl"
	jaeger_file t9 > "$d/.hidden.json"
	echo 'not a trace' > "$d/README.md"
	run tr-ingest "$d"
	expect_eq 0 "$status" status
	expect_eq "t1 t2 t3 " "$(printf '%s\n' "$output" | awk -F'\t' '$1 == "T" { print $2 }' | tr '\n' ' ')"
}

@test "a directory holding no trace file is an error naming it" {
	mkdir -p "$BATS_TEST_TMPDIR/empty"
	echo hello > "$BATS_TEST_TMPDIR/empty/notes.txt"
	run tr-ingest "$BATS_TEST_TMPDIR/empty"
	expect_eq 3 "$status" status
	expect_contains "tr-ingest: $BATS_TEST_TMPDIR/empty: no trace files under it" "$output"
}

@test "-j 2 over many files writes the bytes and messages of -j 1, with and without -k" {
	d=$BATS_TEST_TMPDIR/many
	mkdir -p "$d"
	for i in $(seq -w 1 40); do jaeger_file "t$i" b c > "$d/f$i.json"; done
	printf '{"data":[{"traceID":"bad","spans":[{"spanID":7}]}]}' > "$d/f20b.json"
	for k in "" -k; do
		tr-ingest $k -v -j 1 "$d" > "$BATS_TEST_TMPDIR/o1" 2> "$BATS_TEST_TMPDIR/e1" && s1=0 || s1=$?
		tr-ingest $k -v -j 2 "$d" > "$BATS_TEST_TMPDIR/o2" 2> "$BATS_TEST_TMPDIR/e2" && s2=0 || s2=$?
		expect_num 3 "$s1"
		expect_num 3 "$s2"
		cmp "$BATS_TEST_TMPDIR/o1" "$BATS_TEST_TMPDIR/o2"
		cmp "$BATS_TEST_TMPDIR/e1" "$BATS_TEST_TMPDIR/e2"
	done
	# -k wrote every good trace; without it the run stopped at the bad file.
	expect_num 40 "$(grep -c '^T' "$BATS_TEST_TMPDIR/o1")"
	expect_num 20 "$(tr-ingest -j 2 "$d" 2>/dev/null | grep -c '^T')"
}

@test "gzip input, also several members one after the other, reads like the plain file" {
	jaeger_file t1 b > "$BATS_TEST_TMPDIR/a.json"
	jaeger_file t2 > "$BATS_TEST_TMPDIR/b.json"
	gzip -c "$BATS_TEST_TMPDIR/a.json" > "$BATS_TEST_TMPDIR/x.json.gz"
	gzip -c "$BATS_TEST_TMPDIR/b.json" >> "$BATS_TEST_TMPDIR/x.json.gz"
	expect_eq "$(tr-ingest "$BATS_TEST_TMPDIR/a.json" "$BATS_TEST_TMPDIR/b.json")" "$(tr-ingest "$BATS_TEST_TMPDIR/x.json.gz")"
	tr-ingest -v "$BATS_TEST_TMPDIR/x.json.gz" 2>&1 >/dev/null | grep -q 'x.json.gz: Jaeger query API (JSON Lines), gzip: ok'
}

@test "a cut gzip file: exit 3, the cut named, nothing of the cut trace written" {
	for i in 1 2 3 4 5 6; do jaeger_file "t$i" b c d e; done > "$BATS_TEST_TMPDIR/a.json"
	gzip -c "$BATS_TEST_TMPDIR/a.json" | head -c 300 > "$BATS_TEST_TMPDIR/cut.json.gz"
	run tr-ingest -k "$BATS_TEST_TMPDIR/cut.json.gz"
	expect_eq 3 "$status" status
	expect_contains 'cut.json.gz: truncated gzip stream' "$output"
	# Every trace written is whole: five spans each.
	expect_num "$((5 * $(printf '%s\n' "$output" | grep -c '^T')))" "$(printf '%s\n' "$output" | grep -c '^S')"
}

@test "the Collector's zstd framing (4-byte length, then a frame) reads like the plain lines" {
	command -v zstd >/dev/null || skip "no zstd"
	f=$BATS_TEST_TMPDIR/framed.zst
	: > "$f"
	for i in 1 2 3; do
		jaeger_file "t$i" b > "$BATS_TEST_TMPDIR/m"
		zstd -q -c "$BATS_TEST_TMPDIR/m" > "$BATS_TEST_TMPDIR/m.zst"
		n=$(wc -c < "$BATS_TEST_TMPDIR/m.zst")
		printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $((n >> 24 & 255)) $((n >> 16 & 255)) $((n >> 8 & 255)) $((n & 255)))" >> "$f"
		cat "$BATS_TEST_TMPDIR/m.zst" >> "$f"
		cat "$BATS_TEST_TMPDIR/m" >> "$BATS_TEST_TMPDIR/plain.json"
	done
	expect_eq "$(tr-ingest "$BATS_TEST_TMPDIR/plain.json")" "$(tr-ingest "$f")"
	tr-ingest -v "$f" 2>&1 >/dev/null | grep -q 'zstd, length-prefixed frames: ok'
	head -c $(($(wc -c < "$f") - 5)) "$f" > "$BATS_TEST_TMPDIR/cut.zst"
	run tr-ingest "$BATS_TEST_TMPDIR/cut.zst"
	expect_eq 3 "$status" status
	expect_num 2 "$(printf '%s\n' "$output" | grep -c '^T')"
}

@test "the same trace in two inputs is written once, its spans counted once" {
	jaeger_file t1 b > "$BATS_TEST_TMPDIR/a.json"
	cp "$BATS_TEST_TMPDIR/a.json" "$BATS_TEST_TMPDIR/again.json"
	run tr-ingest -v "$BATS_TEST_TMPDIR/a.json" "$BATS_TEST_TMPDIR/again.json"
	expect_eq 0 "$status" status
	expect_num 1 "$(printf '%s\n' "$output" | grep -c '^T')"
	expect_num 2 "$(printf '%s\n' "$output" | grep -c '^S')"
	expect_contains '2 files, 1 traces, 2 spans written; 0 broken traces skipped, 2 duplicate spans dropped' "$output"
	expect_contains '1 traces met again: 1 wholly written before, 0 with new spans' "$output"
}

@test "new spans of a trace already written: a second group, with a warning" {
	jaeger_file t1 > "$BATS_TEST_TMPDIR/a.json"
	jaeger_file t1 b > "$BATS_TEST_TMPDIR/b.json"
	run tr-ingest "$BATS_TEST_TMPDIR/a.json" "$BATS_TEST_TMPDIR/b.json"
	expect_eq 0 "$status" status
	expect_num 2 "$(printf '%s\n' "$output" | grep -c '^S')"
	expect_contains 'b.json: trace t1: 1 spans more after the trace was written; written as a second group' "$output"
}

@test "new spans of a trace already written: --no-merge writes both whole" {
	jaeger_file t1 > "$BATS_TEST_TMPDIR/a.json"
	jaeger_file t1 b > "$BATS_TEST_TMPDIR/b.json"
	run tr-ingest --no-merge "$BATS_TEST_TMPDIR/a.json" "$BATS_TEST_TMPDIR/b.json"
	expect_num 3 "$(printf '%s\n' "$output" | grep -c '^S')"
}

@test "-j 2 merges a repeated trace exactly as -j 1 does" {
	for i in 1 2 3 4 5; do jaeger_file "t$i" b; done > "$BATS_TEST_TMPDIR/a.json"
	jaeger_file t3 b > "$BATS_TEST_TMPDIR/b.json"
	a=$(tr-ingest -j 1 "$BATS_TEST_TMPDIR/a.json" "$BATS_TEST_TMPDIR/b.json" "$BATS_TEST_TMPDIR/a.json")
	b=$(tr-ingest -j 2 "$BATS_TEST_TMPDIR/a.json" "$BATS_TEST_TMPDIR/b.json" "$BATS_TEST_TMPDIR/a.json")
	expect_eq "$b" "$a"
	expect_num 5 "$(printf '%s\n' "$a" | grep -c '^T')"
}

@test "a Jaeger span list (jaeger-anonymizer) groups its spans by trace" {
	in=$(mkfix list.json <<'JSON'
[{"traceID":"t1","spanID":"a","operationName":"root","startTime":1,"duration":9,"process":{"serviceName":"s1"}},
 {"traceID":"t2","spanID":"x","operationName":"other","startTime":1,"duration":9,"process":{"serviceName":"s2"}},
 {"traceID":"t1","spanID":"b","operationName":"child","startTime":2,"duration":3,"process":{"serviceName":"s1"},
  "references":[{"refType":"CHILD_OF","traceID":"t1","spanID":"a"}]}]
JSON
)
	run tr-ingest "$in"
	expect_eq 0 "$status" status
	expect_eq "Tt1 St1a St1b Tt2 St2x " "$(printf '%s\n' "$output" | awk -F'\t' '$1 != "#tr/1" { print $1 $2 $3 }' | tr '\n' ' ')"
}

@test "Tempo's batches and its v2 trace wrapper read as OTLP" {
	span='{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708","name":"GET","startTimeUnixNano":"1000","endTimeUnixNano":"5000"}'
	res='{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"web"}}]},"scopeSpans":[{"spans":['$span']}]}'
	a=$(printf '{"batches":[%s]}' "$res" | tr-ingest)
	b=$(printf '{"trace":{"resourceSpans":[%s]}}' "$res" | tr-ingest)
	c=$(printf '{"resourceSpans":[%s]}' "$res" | tr-ingest)
	expect_num 1 "$(printf '%s\n' "$a" | grep -c '^S')"
	expect_eq "$c" "$a"
	expect_eq "$c" "$b"
}

@test "the line format given to tr-ingest is named, not taken for broken JSON" {
	run tr-ingest < <(printf '#tr/1\nT\tt1\n')
	expect_eq 3 "$status" status
	expect_contains 'looks like the tr line format already' "$output"
}

@test "OTLP metrics and logs alone: no traces, exit 3" {
	run tr-ingest < <(printf '{"resourceMetrics":[]}\n{"resourceLogs":[]}\n')
	expect_eq 3 "$status" status
	expect_contains 'holds 2 OTLP metrics, logs or profiles documents and no traces' "$output"
}

@test "Zipkin and OTLP files written trace by trace give the bytes of a pipe, held to the end" {
	for fmt in zipkin otlp; do
		trsim --seed 5 --traces 30 --format $fmt -o "$BATS_TEST_TMPDIR/s.json"
		a=$(tr-ingest "$BATS_TEST_TMPDIR/s.json" | sha256sum)
		b=$(tr-ingest < "$BATS_TEST_TMPDIR/s.json" | sha256sum)
		expect_eq "$a" "$b" "$fmt read from a pipe"
	done
	# Spans of all traces interleaved, in reverse: nothing is whole before the end.
	trsim --seed 5 --traces 30 --format zipkin | jq -c 'reverse' > "$BATS_TEST_TMPDIR/r.json"
	expect_eq "$(tr-ingest < "$BATS_TEST_TMPDIR/r.json" | sha256sum)" "$(tr-ingest "$BATS_TEST_TMPDIR/r.json" | sha256sum)"
}

@test "a Zipkin trace whose spans are far apart in a file is written whole, once" {
	in=$(mkfix far.json <<'JSON'
[{"traceId":"00000000000000a1","id":"a","name":"root","timestamp":100,"duration":50,"localEndpoint":{"serviceName":"s"}},
 {"traceId":"00000000000000b1","id":"b","name":"other","timestamp":100,"duration":50,"localEndpoint":{"serviceName":"s"}},
 {"traceId":"00000000000000c1","id":"c","name":"other","timestamp":100,"duration":50,"localEndpoint":{"serviceName":"s"}},
 {"traceId":"000000000000000000000000000000a1","id":"d","parentId":"a","name":"child","timestamp":110,"duration":5,"localEndpoint":{"serviceName":"s"}}]
JSON
)
	run tr-ingest "$in"
	expect_eq 0 "$status" status
	expect_eq "00000000000000a1 00000000000000b1 00000000000000c1 " "$(printf '%s\n' "$output" | awk -F'\t' '$1 == "T" { print $2 }' | tr '\n' ' ')"
	expect_num 2 "$(printf '%s\n' "$output" | awk -F'\t' '$1 == "S" && $2 == "00000000000000a1"' | wc -l)"
}

@test "a bad span early in a Zipkin file still spoils its trace's later spans" {
	in=$(mkfix bad.json <<'JSON'
[{"traceId":"00000000000000a1","id":"a","name":"root","timestamp":"soon","duration":50},
 {"traceId":"00000000000000b1","id":"b","name":"other","timestamp":100,"duration":50},
 {"traceId":"00000000000000a1","id":"d","parentId":"a","name":"child","timestamp":110,"duration":5}]
JSON
)
	run tr-ingest -k "$in"
	expect_eq 3 "$status" status
	expect_num 0 "$(printf '%s\n' "$output" | grep -c $'^S\t00000000000000a1')"
	expect_num 1 "$(printf '%s\n' "$output" | grep -c $'^S\t00000000000000b1')"
}

@test "a directory: a link to a directory is not followed (no loop), a link to a file is read" {
	d=$BATS_TEST_TMPDIR/links
	mkdir -p "$d/a"
	jaeger_file t1 > "$d/a/x.json"
	ln -s . "$d/a/loop"
	ln -s .. "$d/a/up"
	ln -s ../a/x.json "$d/a/y.json"
	run timeout 20 tr-ingest -v "$d"
	expect_eq 0 "$status" status
	expect_num 1 "$(printf '%s\n' "$output" | grep -c '^T')"
	expect_contains '2 files, 1 traces' "$output"
}

@test "a file that cannot be opened: named, exit 3; -k goes on and every good trace is written" {
	jaeger_file t1 > "$BATS_TEST_TMPDIR/a.json"
	jaeger_file t2 > "$BATS_TEST_TMPDIR/c.json"
	run tr-ingest -k "$BATS_TEST_TMPDIR/a.json" "$BATS_TEST_TMPDIR/missing.json" "$BATS_TEST_TMPDIR/c.json"
	expect_eq 3 "$status" status
	expect_contains "tr-ingest: $BATS_TEST_TMPDIR/missing.json: No such file or directory" "$output"
	expect_num 2 "$(printf '%s\n' "$output" | grep -c '^T')"
}

@test "a file that cannot be opened: without -k, exit 3 after the traces before it" {
	jaeger_file t1 > "$BATS_TEST_TMPDIR/a.json"
	jaeger_file t2 > "$BATS_TEST_TMPDIR/c.json"
	run tr-ingest "$BATS_TEST_TMPDIR/a.json" "$BATS_TEST_TMPDIR/missing.json" "$BATS_TEST_TMPDIR/c.json"
	expect_eq 3 "$status" status
	expect_eq t1 "$(printf '%s\n' "$output" | awk -F'\t' '$1 == "T" { print $2 }')"
}

@test "-j 2 prints the messages of -j 1, in their order, also with -v and --max-spans" {
	for i in 1 2 3 4 5 6 7 8; do jaeger_file "t$i" b c; done > "$BATS_TEST_TMPDIR/one.json"
	mkdir -p "$BATS_TEST_TMPDIR/dir"
	# Each file: a trace of its own, and one of one.json with a span more.
	for i in 1 2 3 4 5 6; do { jaeger_file "d$i" b; jaeger_file "t$i" b c d; } > "$BATS_TEST_TMPDIR/dir/f$i.json"; done
	for args in "-v" "-v -k --max-spans 2"; do
		for in in "$BATS_TEST_TMPDIR/one.json" "$BATS_TEST_TMPDIR/dir" "$BATS_TEST_TMPDIR/one.json $BATS_TEST_TMPDIR/dir"; do
			tr-ingest $args -j 1 $in > "$BATS_TEST_TMPDIR/o1" 2> "$BATS_TEST_TMPDIR/e1" || true
			tr-ingest $args -j 2 $in > "$BATS_TEST_TMPDIR/o2" 2> "$BATS_TEST_TMPDIR/e2" || true
			cmp "$BATS_TEST_TMPDIR/o1" "$BATS_TEST_TMPDIR/o2"
			cmp "$BATS_TEST_TMPDIR/e1" "$BATS_TEST_TMPDIR/e2"
		done
	done
	# The comparisons above held what writing a trace says (here: a trace
	# met again with a span more) in its place among the files' lines.
	tr-ingest -j 2 "$BATS_TEST_TMPDIR/one.json" "$BATS_TEST_TMPDIR/dir" 2>&1 >/dev/null | grep -c 'written as a second group' | grep -qx 6
}

@test "a bare document over --max-bytes in all it keeps stops the file" {
	jaeger_file t1 b c d | jq -c '.data[0]' > "$BATS_TEST_TMPDIR/bare.json"
	size=$(wc -c < "$BATS_TEST_TMPDIR/bare.json")
	run tr-ingest --max-bytes $((size - 20)) "$BATS_TEST_TMPDIR/bare.json"
	expect_eq 3 "$status" status
	expect_contains 'bare.json:1:1: JSON value larger than --max-bytes' "$output"
	expect_num 0 "$(printf '%s\n' "$output" | grep -c '^S')"
	expect_num 4 "$(tr-ingest --max-bytes $((size + 20)) "$BATS_TEST_TMPDIR/bare.json" | grep -c '^S')"
}

@test "a Zipkin v1 span whose end is beyond int64 from its start has no time, not a wrapped one" {
	in=$(mkfix v1.json <<'JSON'
[{"traceId":"00000000000000a1","id":"a","name":"x","annotations":[{"timestamp":-10,"value":"cs","endpoint":{"serviceName":"c"}},{"timestamp":9223372036854775807,"value":"cr","endpoint":{"serviceName":"c"}}]}]
JSON
)
	run tr-ingest "$in"
	expect_eq 0 "$status" status
	expect_contains 'tr.no_time=true' "$output"
}
