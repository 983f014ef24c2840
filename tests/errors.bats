#!/usr/bin/env bats
# Failures shown wherever a person looks: one rule for a failed span, read
# from every format (tr-format(5), FAILURES), in queries, tr-temporal's
# explanations and DOT graphs, timelines, tr-cp --summary and tr-report's
# Failures section; long-lived streams kept out of the slowest rankings.

load helper

ECO="${TR_SHARED:-$BATS_TEST_DIRNAME/../../shared}/ecosystem"
OTEL_TUI="$ECO/otel-tui/test_data.json"

# | for TAB.
fix() {
	tr '|' '\t' | mkfix "$1"
}

# Fail printing both when $1 (expected) is not $2 (actual).
same() {
	expect_eq "$1" "$2"
}

# Print $2 and fail unless it holds $1.
holds() {
	expect_contains "$1" "$2"
}

need_eco() {
	[ -f "$ECO/README.md" ] || skip "no ../shared/ecosystem beside the project"
}

# The span ids that failed and their messages, one "id<TAB>message" a line.
failures() {
	tr-aggregate 'From s In spans Where s.error Select s.span, s.error_message' "$1" | tail -n +2
}

# One span per failure source, and spans beside each that did not fail.
sources() {
	fix src.tr <<-'EOF'
	#tr/1
	T|t1
	S|t1|otel||1000|100|a|op|server||otel.status_code=ERROR|otel.status_description=deadline exceeded
	S|t1|ok|otel|1010|10|a|op|server||otel.status_code=OK|http.status_code=500
	S|t1|jtrue|otel|1020|10|a|op|internal||error=true
	S|t1|jfalse|otel|1030|10|a|op|internal||error=false
	S|t1|zipkin|otel|1040|10|a|op|client||error=connection reset
	S|t1|h500|otel|1050|10|a|op|server||http.status_code=503|http.status_text=Service Unavailable
	S|t1|h404s|otel|1060|10|a|op|server||http.response.status_code=404
	S|t1|h404c|otel|1070|10|a|op|client||http.response.status_code=404
	S|t1|hbad|otel|1075|10|a|op|client||http.status_code=none
	S|t1|g14|otel|1080|10|a|op|client||rpc.grpc.status_code=14
	S|t1|g0|otel|1090|10|a|op|client||rpc.grpc.status_code=0
	S|t1|exc|otel|1100|10|a|op|internal|
	L|t1|exc|1105|event=exception|exception.type=IOError|exception.message=disk full|exception.stacktrace=IOError: disk full%0A  at write (disk.js:3)
	S|t1|ot|otel|1110|10|a|op|internal|
	L|t1|ot|1115|event=error|error.kind=Timeout|message=no answer in 5 s
	S|t1|plain|otel|1120|10|a|op|internal|
	L|t1|plain|1125|event=retry
	EOF
}

@test "failure rule: each source fails its span, with the message as recorded" {
	f=$(sources)
	expected=$(printf '%s\t%s\n' otel 'deadline exceeded' jtrue 'error tag' zipkin 'connection reset' \
		h500 'HTTP 503 Service Unavailable' h404c 'HTTP 404' g14 'gRPC status 14' \
		exc 'IOError: disk full' ot 'Timeout: no answer in 5 s')
	run failures "$f"
	expect_status 0
	diff <(echo "$expected") <(echo "$output")
}

@test "failure rule: OK status, error=false, a server's 404, gRPC 0 and other events are not failures" {
	f=$(sources)
	run tr-aggregate 'From s In spans Where not s.error Select s.span, s.error_message' "$f"
	expect_status 0
	expected=$(printf 'ok\t\njfalse\t\nh404s\t\nhbad\t\ng0\t\nplain\t')
	diff <(echo "$expected") <(echo "$output" | tail -n +2)
}

@test "failure rule: a span with both an HTTP and a gRPC status shows the HTTP one" {
	f=$(fix both.tr <<-'EOF'
	T|t1
	S|t1|a||0|10|a|op|client||rpc.grpc.status_code=2|http.status_code=502
	EOF
	)
	run failures "$f"
	same "$(printf 'a\tHTTP 502')" "$output"
}

@test "failure rule: a message with TAB and LF stays one line" {
	f=$(fix ml.tr <<-'EOF'
	T|t1
	S|t1|a||0|10|a|op|server||otel.status_code=ERROR|otel.status_description=line one%0Aline%09two
	EOF
	)
	run failures "$f"
	same "$(printf 'a\tline one line two')" "$output"
}

@test "failure rule: an exception event counts for its own span only, wherever its L record is" {
	f=$(fix il.tr <<-'EOF'
	T|t1
	L|t1|b|15|event=exception|exception.message=late
	S|t1|a||0|100|a|op|server|
	L|t1|a|5|event=log|message=fine
	S|t1|b|a|10|10|a|op|internal|
	S|t1|c|a|30|10|a|op|internal|
	L|t1|c|35|event=log
	L|t1|a|50|event=log
	EOF
	)
	run failures "$f"
	same "$(printf 'b\tlate')" "$output"
}

@test "s.error_message on logs is a query error" {
	f=$(sources)
	run tr-aggregate 'From l In logs Select l.error_message' "$f"
	expect_status 2
	holds "logs have no field 'error_message'" "$output"
}

@test "OTLP export: status ERROR with its message fails the span; OK does not" {
	f=$(mkfix s.json <<-'EOF'
	{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"cart"}}]},
	 "scopeSpans":[{"spans":[
	  {"traceId":"01","spanId":"0a","name":"AddItem","kind":2,"startTimeUnixNano":"1000","endTimeUnixNano":"9000",
	   "status":{"code":2,"message":"14 UNAVAILABLE: name resolution failed"}},
	  {"traceId":"01","spanId":"0b","parentSpanId":"0a","name":"Get","kind":3,"startTimeUnixNano":"2000","endTimeUnixNano":"3000",
	   "status":{"code":1},"attributes":[{"key":"http.status_code","value":{"intValue":"500"}}]}]}]}]}
	EOF
	)
	run failures "$f"
	same "$(printf '0a\t14 UNAVAILABLE: name resolution failed')" "$output"
}

@test "OTLP export: an exception event fails its span with type and message" {
	f=$(mkfix e.json <<-'EOF'
	{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"api"}}]},
	 "scopeSpans":[{"spans":[
	  {"traceId":"01","spanId":"0a","name":"GET","kind":2,"startTimeUnixNano":"1000","endTimeUnixNano":"9000",
	   "events":[{"name":"exception","timeUnixNano":"5000","attributes":[
	     {"key":"exception.type","value":{"stringValue":"KeyError"}},
	     {"key":"exception.message","value":{"stringValue":"'user'"}}]}]}]}]}]}
	EOF
	)
	run failures "$f"
	same "$(printf "0a\tKeyError: 'user'")" "$output"
}

@test "Zipkin export: an error tag fails its span, its value the message" {
	f=$(mkfix z.json <<-'EOF'
	[{"traceId":"01","id":"0a","name":"get","kind":"SERVER","timestamp":1000,"duration":500,
	  "localEndpoint":{"serviceName":"web"},"tags":{"error":"upstream timed out"}},
	 {"traceId":"01","id":"0b","parentId":"0a","name":"query","kind":"CLIENT","timestamp":1100,"duration":100,
	  "localEndpoint":{"serviceName":"web"},"tags":{"http.status_code":"404"}}]
	EOF
	)
	expected=$(printf '0a\tupstream timed out\n0b\tHTTP 404')
	run failures "$f"
	diff <(echo "$expected") <(echo "$output")
}

@test "Jaeger export: error=true, a gRPC status and an OpenTracing error log" {
	f=$(mkfix j.json <<-'EOF'
	{"data":[{"traceID":"01","processes":{"p1":{"serviceName":"svc","tags":[]}},"spans":[
	 {"traceID":"01","spanID":"0a","operationName":"root","references":[],"startTime":1000,"duration":900,"processID":"p1",
	  "tags":[{"key":"error","type":"bool","value":true}],"logs":[]},
	 {"traceID":"01","spanID":"0b","operationName":"rpc","references":[{"refType":"CHILD_OF","traceID":"01","spanID":"0a"}],
	  "startTime":1100,"duration":100,"processID":"p1","tags":[{"key":"rpc.grpc.status_code","type":"int64","value":4}],"logs":[]},
	 {"traceID":"01","spanID":"0c","operationName":"work","references":[{"refType":"CHILD_OF","traceID":"01","spanID":"0a"}],
	  "startTime":1300,"duration":100,"processID":"p1","tags":[],
	  "logs":[{"timestamp":1350,"fields":[{"key":"event","type":"string","value":"error"},{"key":"message","type":"string","value":"lock lost"}]}]}]}]}
	EOF
	)
	expected=$(printf '0a\terror tag\n0b\tgRPC status 4\n0c\tlock lost')
	run failures "$f"
	diff <(echo "$expected") <(echo "$output")
}

# A request whose one downstream call failed.
failed_call() {
	fix fc.tr <<-'EOF'
	#tr/1
	T|t1
	S|t1|a||1000000|5000000|frontend|POST /cart|server|h1|http.status_code=500
	S|t1|b|a|1000100|4999000|frontend|CartService/AddItem|client|h1|rpc.grpc.status_code=14|grpc.error_message=14 UNAVAILABLE: Name resolution failed
	EOF
}

@test "tr-temporal --explain: a failed span's lines end with ERROR and its message" {
	f=$(failed_call)
	run tr-temporal --explain "$f"
	expect_status 0
	line=$(printf '%s\n' "$output" | grep -m1 '^    frontend:CartService/AddItem (client) = ')
	same "    frontend:CartService/AddItem (client) = 4999.0 ms (100.0%) [onpath] ERROR 14 UNAVAILABLE: Name resolution failed" "$line"
	holds "frontend:POST /cart on frontend@h1 = 5000.0 ms (100.0%), self 1.0 ms, from +0 µs ERROR HTTP 500" "$output"
}

@test "tr-temporal --explain: a span that did not fail has no ERROR" {
	f=$(fix ok.tr <<-'EOF'
	T|t1
	S|t1|a||0|1000|fe|GET|server|h1|http.status_code=404
	EOF
	)
	run tr-temporal --explain "$f"
	expect_status 0
	expect_lacks 'ERROR' "$output"
}

@test "tr-temporal --dot: a failed span's node has a double border, a fill and ✗ ERROR message" {
	f=$(failed_call)
	run tr-temporal --dot "$f"
	expect_status 0
	node=$(printf '%s\n' "$output" | grep 'CartService/AddItem (client)\\n')
	holds '\n✗ ERROR 14 UNAVAILABLE: Name resolution failed", peripheries=2, style=filled, fillcolor=mistyrose];' "$node"
}

@test "tr-cp --dot: failed spans are marked; a dashed (not analysed) one stays dashed" {
	f=$(fix fd.tr <<-'EOF'
	T|t1
	S|t1|a||1000000|5000000|frontend|POST /cart|server|h1|http.status_code=500
	S|t1|c|a|7000000|10|frontend|late|client|h1|error=true
	EOF
	)
	run tr-cp --dot "$f"
	expect_status 0
	holds '"t1/a" [label="frontend\nPOST /cart\n5 s · 100 %\ncp.self 5 s · 100 %\n✗ ERROR HTTP 500", color=red, penwidth=2, peripheries=2, style=filled, fillcolor=mistyrose];' "$output"
	holds '"t1/c" [label="frontend\nlate\n10 µs · <0.1 %\n✗ ERROR error tag", color=gray, peripheries=2, style="dashed,filled", fillcolor=mistyrose];' "$output"
}

@test "DOT: a long message is cut at 100 bytes with an ellipsis" {
	long=$(printf 'x%.0s' $(seq 150))
	f=$(printf 'T|t1\nS|t1|a||0|100|fe|GET|server|h1|otel.status_code=ERROR|otel.status_description=%s\n' "$long" | fix long.tr)
	run tr-cp --dot "$f"
	holds "✗ ERROR $(printf 'x%.0s' $(seq 100))…\"" "$output"
}

@test "tr-cp --svg: a failed span is outlined, its label starts with ✗, its tooltip has the message" {
	f=$(failed_call)
	run tr-cp --svg "$f"
	expect_status 0
	same 2 "$(printf '%s\n' "$output" | grep -c 'stroke="#b00000"')"
	holds '>✗ frontend: CartService/AddItem</text>' "$output"
	holds 'ERROR 14 UNAVAILABLE: Name resolution failed</title>' "$output"
}

@test "tr-cp --svg: a failed span's message is written on its row, after the critical sections" {
	f=$(failed_call)
	run tr-cp --svg "$f"
	expect_status 0
	msg=$(printf '%s\n' "$output" | grep -n '>ERROR 14 UNAVAILABLE: Name resolution failed</text>')
	[ -n "$msg" ] || { echo "$output"; false; }
	# drawn after the critical sections (solid rects of class cp), so not hidden by them
	section=$(printf '%s\n' "$output" | grep -n 'class="cp"' | head -n 1 | cut -d: -f1)
	expect_gt "$section" "${msg%%:*}" || { echo "message at line ${msg%%:*}, first section at $section"; false; }
}

@test "tr-cp --summary: spans and errors columns" {
	f=$(failed_call)
	run tr-cp --summary operation "$f"
	expect_status 0
	same "$(printf 'service\toperation\ttraces\tcp_us\tcp_pct\tcp_p50_us\tcp_p95_us\tcp_p99_us\tself_us\tself_pct\tspans\terrors')" "${lines[0]}"
	same "1	1" "$(printf '%s\n' "${lines[1]}" | cut -f11-)"
}

@test "tr-report: the Failures section counts failed spans per service, operation and message" {
	f=$(failed_call)
	run tr-report -o "$BATS_TEST_TMPDIR/r.html" "$f"
	expect_status 0
	h=$(cat "$BATS_TEST_TMPDIR/r.html")
	holds '<h2 id="failures">Failures</h2>' "$h"
	holds '2 failed spans of 2 (100.0%)' "$h"
	holds '<td>frontend</td><td>2</td><td>2</td><td>100.0%</td><td>t1</td>' "$h"
	holds '<td>frontend</td><td>CartService/AddItem</td><td>14 UNAVAILABLE: Name resolution failed</td><td>1</td><td>t1</td>' "$h"
	holds '<td>frontend</td><td>POST /cart</td><td>HTTP 500</td><td>1</td><td>t1</td>' "$h"
}

@test "tr-report: the latency and critical-path tables count failed spans" {
	f=$(failed_call)
	tr-report -q -o "$BATS_TEST_TMPDIR/r.html" "$f"
	lat=$(sed -n '/id="latency"/,/id="critical-path"/p' "$BATS_TEST_TMPDIR/r.html")
	holds '<td>frontend</td><td>CartService/AddItem</td><td>1</td><td>5 s</td><td>5 s</td><td>5 s</td><td>5 s</td><td>1</td>' "$lat"
	cp=$(sed -n '/id="critical-path"/,/id="causes"/p' "$BATS_TEST_TMPDIR/r.html")
	holds '<td>frontend</td><td>5 s</td><td>100.0%</td><td>2</td>' "$cp"
}

@test "tr-report: a report with no failure says 0 and has no tables of them" {
	f=$(fix ok.tr <<-'EOF'
	T|t1
	S|t1|a||0|1000|fe|GET|server|h1
	EOF
	)
	run tr-report -o "$BATS_TEST_TMPDIR/r.html" "$f"
	expect_status 0
	h=$(sed -n '/id="failures"/,/<h2 id="latency"/p' "$BATS_TEST_TMPDIR/r.html")
	holds '0 failed spans of 1 (0.0%)' "$h"
	expect_lacks 'Per service' "$h" || { echo "$h"; false; }
}

@test "tr-report --baseline: error rates before and after, per service, largest change first" {
	f=$(failed_call)
	b=$(fix base.tr <<-'EOF'
	T|b1
	S|b1|a||0|1000|frontend|POST /cart|server|h1
	S|b1|b|a|100|500|frontend|CartService/AddItem|client|h1
	T|b2
	S|b2|a||2000|1000|frontend|POST /cart|server|h1
	S|b2|b|a|2100|500|db|query|client|h1|error=true
	EOF
	)
	run tr-report -q --baseline "$b" -o "$BATS_TEST_TMPDIR/r.html" "$f"
	expect_status 0
	h=$(sed -n '/id="baseline"/,$p' "$BATS_TEST_TMPDIR/r.html")
	holds 'before 1 of 4 (25.0%), after 2 of 2 (100.0%).' "$h"
	rows=$(printf '%s\n' "$h" | grep -o '<tr><td>[a-z]*</td><td>[^<]*</td><td>[^<]*</td><td>[^<]*points</td>')
	# equal changes: by name
	expected='<tr><td>db</td><td>100.0%</td><td>-</td><td>-100.0 points</td>
<tr><td>frontend</td><td>0.0%</td><td>100.0%</td><td>+100.0 points</td>'
	diff <(echo "$expected") <(echo "$rows")
}

# A 40 s stream beside two requests.
with_stream() {
	fix st.tr <<-'EOF'
	#tr/1
	T|s1
	S|s1|a||0|40000000|flagd|flagd.evaluation.v1.Service/EventStream|server|h1
	T|r1
	S|r1|a||1000000|5000000|fe|POST|server|h1
	T|r2
	S|r2|a||2000000|1000000|fe|GET|server|h1
	EOF
}

@test "tr-report: long-lived streams are left out of the slowest requests, with one note" {
	f=$(with_stream)
	run tr-report -o "$BATS_TEST_TMPDIR/r.html" "$f"
	expect_status 0
	same "tr-report: left 1 long-lived streams out of the slowest requests and the percentile flame graphs (--keep-streams keeps them)" "$output"
	slow=$(sed -n '/id="slowest"/,/id="failures"/p' "$BATS_TEST_TMPDIR/r.html")
	expect_lacks 'EventStream' "$slow" || { echo "$slow"; false; }
	holds '<a href="#trace-r1">r1</a>' "$slow"
}

@test "tr-report --keep-streams ranks them; -q silences the note" {
	f=$(with_stream)
	run tr-report --keep-streams -o "$BATS_TEST_TMPDIR/r.html" "$f"
	expect_status 0
	expect_empty "$output"
	holds '<a href="#trace-s1">s1</a>' "$(cat "$BATS_TEST_TMPDIR/r.html")"
	run tr-report -q -o "$BATS_TEST_TMPDIR/r.html" "$f"
	expect_status 0
	expect_empty "$output"
}

@test "tr-cp --svg draws the slowest request, not a stream; --trace or --keep-streams draws it" {
	f=$(with_stream)
	run tr-cp --svg "$f"
	expect_status 0
	holds '<title>trace r1 · fe: POST · 5 s' "$output"
	holds 'tr-cp: left 1 long-lived streams out of the slowest trace (--keep-streams keeps them)' "$output"
	run tr-cp --svg --keep-streams "$f"
	holds '<title>trace s1 · ' "$output"
	run tr-cp --svg --trace s1 "$f"
	holds '<title>trace s1 · ' "$output"
}

@test "tr-cp --flame --percentile leaves streams out of the bands only" {
	f=$(with_stream)
	run tr-cp -q --flame --percentile 99 "$f"
	expect_status 0
	p99=$(printf '%s\n' "$output" | sed -n '/traces around p99/,$p')
	expect_lacks 'EventStream' "$p99" || { echo "$p99"; false; }
	holds 'EventStream' "$(printf '%s\n' "$output" | sed -n '/all traces/,/traces around p99/p')"
}

@test "--keep-streams without --svg or --flame is a usage error" {
	f=$(with_stream)
	run tr-cp --keep-streams "$f"
	expect_status 2
	same "tr-cp: --keep-streams goes with --svg and --flame" "${lines[0]}"
}

# An OTLP file of JSON lines: a metrics document, then one span.
with_metrics() {
	mkfix sig.json <<-'EOF'
	{"resourceMetrics":[]}
	{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"api"}}]},"scopeSpans":[{"spans":[{"traceId":"01","spanId":"0a","name":"GET","kind":2,"startTimeUnixNano":"1000","endTimeUnixNano":"9000"}]}]}]}
	EOF
}

@test "every tool notes the OTLP documents of other signals it skipped" {
	f=$(with_metrics)
	for t in tr-ingest tr-cp tr-temporal tr-infer tr-pag; do
		run bash -c "$t '$f' 2>&1 >/dev/null"
		same "$t: $f: skipped 1 OTLP metrics, logs or profiles documents (not traces)" "$output"
	done
}

@test "-q silences the note of skipped OTLP documents in every tool" {
	f=$(with_metrics)
	for t in tr-ingest tr-cp tr-temporal tr-infer tr-pag; do
		run bash -c "$t -q '$f' 2>&1 >/dev/null"
		same "" "$output"
		expect_status 0
	done
	run bash -c "tr-aggregate -q 'From s In spans Select COUNT' '$f' 2>&1 >/dev/null"
	same "" "$output"
	run tr-report -q -o "$BATS_TEST_TMPDIR/r.html" "$f"
	same "" "$output"
	expect_status 0
}

# Two requests, tagged by tr-cp.
two_tagged() {
	fix tt.tr <<-'EOF'
	T|t1
	S|t1|a||0|250000|fe|GET|server|h1|cp.self=200000|queue.wait_us=1500
	T|t2
	S|t2|a||0|1200|fe|GET|server|h1|cp.self=1200|queue.wait_us=20
	EOF
}

@test "--fail-if messages write durations in --units" {
	f=$(two_tagged)
	run tr-aggregate --units auto --fail-if 'p > 100ms' 'From s In spans GroupBy s.service Select s.service, MAX(s.duration) As p' "$f"
	expect_status 1
	same "tr-aggregate: fail-if p > 100ms: s.service=fe, p=250 ms" "${lines[0]}"
	run tr-aggregate --units ms --fail-if 'p > 100ms' 'From s In spans GroupBy s.service Select s.service, MAX(s.duration) As p' "$f"
	same "tr-aggregate: fail-if p > 100ms: s.service=fe, p=250" "${lines[0]}"
}

@test "--units: cp.self and *_us tags are durations; other tags are not" {
	f=$(two_tagged)
	run tr-aggregate --units auto 'From s In spans Select s.trace, s.tag["cp.self"], s.tag["queue.wait_us"], s.tag["cp.selfish"]' "$f"
	expect_status 0
	expected=$(printf 't1	200 ms	1.5 ms	
t2	1.2 ms	20 µs	')
	diff <(echo "$expected") <(echo "$output" | tail -n +2)
}

# The notes of tr-aggregate QUERY FILE, without its table.
notes() {
	tr-aggregate "$@" 2>&1 >/dev/null
}

@test "Where on a misspelt service or operation names the closest one the spans have" {
	f=$(sources)
	run notes 'From s In spans Where s.service = "b" Or "opp" = s.operation Select COUNT' "$f"
	expect_status 0
	expected=$(printf '%s\n' 'tr-aggregate: no span has service "b" (did you mean "a"?)' \
		'tr-aggregate: no span has operation "opp" (did you mean "op"?)')
	diff <(echo "$expected") <(echo "$output")
}

@test "a source filter's misspelt service gets the hint; a name far from all gets none; -q none" {
	f=$(sources)
	run notes 'From s In spans[service = "aa"] Select COUNT' "$f"
	same 'tr-aggregate: no span has service "aa" (did you mean "a"?)' "$output"
	run notes 'From s In spans Where s.service = "nothing-like-it" Select COUNT' "$f"
	same 'tr-aggregate: no span has service "nothing-like-it"' "$output"
	run notes -q 'From s In spans Where s.service = "aa" Select COUNT' "$f"
	same "" "$output"
	run tr-aggregate 'From s In spans Where s.service = "a" Select COUNT' "$f"
	same "$(printf 'COUNT\n14')" "$output"
}

@test "a Jaeger API error body is reported with its message, not as no trace" {
	f=$(mkfix api.json <<-'EOF'
	{"data":null,"total":0,"limit":0,"offset":0,"errors":[{"code":500,"msg":"service not found"}]}
	EOF
	)
	for t in tr-ingest tr-cp; do
		run bash -c "$t '$f' 2>&1 >/dev/null"
		expect_status 3
		same "$t: $f:1:1: the Jaeger query API answered with an error: service not found (code 500)" "$output"
	done
}

@test "a Jaeger API answer with traces and an error writes the traces and says the error" {
	f=$(mkfix api2.json <<-'EOF'
	{"data":[{"traceID":"01","processes":{"p1":{"serviceName":"svc","tags":[]}},"spans":[
	 {"traceID":"01","spanID":"0a","operationName":"root","references":[],"startTime":1000,"duration":900,"processID":"p1","tags":[],"logs":[]}]}],
	 "errors":[{"code":404,"msg":"trace not found","traceID":"02"}]}
	EOF
	)
	run tr-ingest "$f"
	expect_status 3
	same "tr-ingest: $f:1:1: the Jaeger query API answered with an error: trace not found (code 404), trace 02" "${lines[0]}"
	holds "$(printf 'S\t01\t0a\t')" "$output"
	run tr-ingest "$(mkfix ok.json <<< '{"data":[],"errors":null}')"
	expect_lacks 'answered with an error' "$output"
}

# --- the OpenTelemetry demo export (issue 29) ---

@test "otel-tui walk: the slowest request after the streams is the 5.01 s cart POST" {
	[ -f "$OTEL_TUI" ] || skip "no ../shared/ecosystem/otel-tui beside the project"
	run tr-report -o "$BATS_TEST_TMPDIR/r.html" "$OTEL_TUI"
	expect_status 0
	holds "left 3 long-lived streams out of the slowest requests" "$output"
	slow=$(sed -n '/id="slowest"/,/id="failures"/p' "$BATS_TEST_TMPDIR/r.html")
	first=$(printf '%s\n' "$slow" | grep -m1 '<tr><td><a href="#trace-' | sed 's/<[^>]*>/|/g; s/||*/|/g')
	same "|09f5d449f0603a515e4f802b6d84a19b|loadgenerator: POST|5.01 s|4|" "$first"
	expect_lacks 'flagd' "$slow" || { echo "$slow"; false; }
}

@test "otel-tui walk: --explain of the cart POST names the CartService call with the DNS error" {
	[ -f "$OTEL_TUI" ] || skip "no ../shared/ecosystem/otel-tui beside the project"
	run tr-temporal -q --explain -t 42a60545a48cfbdacf669252d09c5f76 "$OTEL_TUI"
	expect_status 0
	line=$(printf '%s\n' "$output" | grep -m1 'CartService/AddItem (client) = ')
	same "    frontend:grpc.oteldemo.CartService/AddItem (client) = 5004.8 ms (100.0%) [onpath] ERROR 14 UNAVAILABLE: Name resolution failed for target dns:cartservice:7070" "$line"
}

@test "otel-tui walk: tr-report's Failures section names cartservice's failures" {
	[ -f "$OTEL_TUI" ] || skip "no ../shared/ecosystem/otel-tui beside the project"
	tr-report -q -o "$BATS_TEST_TMPDIR/r.html" "$OTEL_TUI"
	fails=$(sed -n '/id="failures"/,/id="latency"/p' "$BATS_TEST_TMPDIR/r.html")
	holds '<td>frontend</td><td>grpc.oteldemo.CartService/AddItem</td><td>11</td><td>11</td><td>100.0%</td>' "$fails"
	holds '<td>14 UNAVAILABLE: Name resolution failed for target dns:cartservice:7070</td><td>3</td>' "$fails"
	holds 'lookup cartservice on 127.0.0.11:53: server misbehaving' "$fails"
}

# --- every failed span an export records is counted ---

# Failed spans by the rule of tr-format(5), counted in the export itself.
JQ_JAEGER='
def tag(k): [.tags[]? | select(.key == k) | .value | tostring][0];
def code(a; b): ((tag(a) // tag(b)) // "0") | (tonumber? // 0);
[.. | objects | select(has("spanID") and has("operationName")) | select(tag("otel.status_code") != "OK" and (
	tag("otel.status_code") == "ERROR"
	or ((tag("error") // "false") != "false")
	or code("http.response.status_code"; "http.status_code") >= (if tag("span.kind") == "client" then 400 else 500 end)
	or code("rpc.grpc.status_code"; "grpc.status_code") != 0
	or any(.logs[]?.fields[]?; .key == "event" and (.value == "exception" or .value == "error"))))] | length'
JQ_OTLP='
def attr(k): [.attributes[]? | select(.key == k) | .value | to_entries[0].value | tostring][0];
def code(a; b): ((attr(a) // attr(b)) // "0") | (tonumber? // 0);
def status: (.status.code // 0) | if . == 2 or . == "STATUS_CODE_ERROR" then "ERROR"
	elif . == 1 or . == "STATUS_CODE_OK" then "OK" else "" end;
def client: .kind == 3 or .kind == "SPAN_KIND_CLIENT";
[.[] | .. | objects | select(has("spanId") and has("name")) | select(status != "OK" and (
	status == "ERROR"
	or ((attr("error") // "false") != "false")
	or code("http.response.status_code"; "http.status_code") >= (if client then 400 else 500 end)
	or code("rpc.grpc.status_code"; "grpc.status_code") != 0
	or any(.events[]?; .name == "exception" or .name == "error")))] | length'
JQ_ZIPKIN='
def tag(k): (.tags // {})[k];
def code(a; b): ((tag(a) // tag(b)) // "0") | (tonumber? // 0);
[.[] | select(tag("otel.status_code") != "OK" and (
	tag("otel.status_code") == "ERROR"
	or (tag("error") != null and tag("error") != "false")
	or code("http.response.status_code"; "http.status_code") >= (if .kind == "CLIENT" then 400 else 500 end)
	or code("rpc.grpc.status_code"; "grpc.status_code") != 0
	or any(.annotations[]?; .value == "exception" or .value == "error")))] | length'

# "N failed spans of M" of tr-report's Failures section, for the file $1.
report_failed() {
	tr-report -q -o "$BATS_TEST_TMPDIR/r.html" "$1" || return
	grep -o '[0-9]* failed spans of' "$BATS_TEST_TMPDIR/r.html" | cut -d' ' -f1
}

# Each file $2... against the jq count of format $1; prints every mismatch.
check_counts() {
	local prog=$1 slurp=$2 f expected actual bad=0
	shift 2
	for f in "$@"; do
		expected=$(jq $slurp "$prog" "$f")
		actual=$(report_failed "$f")
		if [ "$expected" != "$actual" ]; then
			printf '%s: expected %s failed spans (jq), report says %s\n' "$f" "$expected" "$actual"
			bad=1
		fi
	done
	return $bad
}

@test "every failed span of the Jaeger exports and sample appears in the report's Failures count" {
	need_eco
	check_counts "$JQ_JAEGER" "" "$ECO/jaeger/trace_success.json" "$ECO/jaeger/log_tags_trace.json" \
		"$ECO/perses/authenticate_error_jaeger.json" "$ECO/perses/async_jaeger.json" \
		"$ECO/jaeger-ui/testTrace.json" "$ECO/jaeger-analytics-java/ui-trace.json" \
		"$SAMPLES/jaeger/hotrod.json"
	# the rule is not vacuous here
	same 23 "$(jq "$JQ_JAEGER" "$SAMPLES/jaeger/hotrod.json")"
}

@test "every failed span of the OTLP exports and sample appears in the report's Failures count" {
	need_eco
	check_counts "$JQ_OTLP" -s "$OTEL_TUI" "$ECO/jaeger/GetTrace.json" "$ECO/jaeger/db_traces_01.json" \
		"$ECO/perses/authenticate_error_otlp.json" "$ECO/perses/example_otlp.json" \
		"$ECO/grafana-oats/5b584103c6fc5ddf423cb2fb6552d0f0.json" "$SAMPLES/otlp/hotrod.json"
	same 147 "$(jq -s "$JQ_OTLP" "$OTEL_TUI")"
}

@test "every failed span of the Zipkin exports and sample appears in the report's Failures count" {
	need_eco
	check_counts "$JQ_ZIPKIN" "" "$ECO/zipkin/netflix.json" "$ECO/zipkin/test.json" \
		"$SAMPLES/zipkin/hotrod.json"
	same 23 "$(jq "$JQ_ZIPKIN" "$SAMPLES/zipkin/hotrod.json")"
}
