#!/usr/bin/env bats
# tr-ingest: every input format to the line format.
load helper

jaeger_env() {
	mkfix env.json <<'J'
{"data":[{"traceID":"t1","spans":[
 {"traceID":"t1","spanID":"b","operationName":"child","references":[{"refType":"CHILD_OF","traceID":"t1","spanID":"a"}],
  "startTime":1500,"duration":200,"tags":[{"key":"span.kind","type":"string","value":"client"}],"logs":[],"processID":"p2"},
 {"traceID":"t1","spanID":"a","operationName":"root","references":[],"startTime":1000,"duration":1000,
  "tags":[],"logs":[{"timestamp":1100,"fields":[{"key":"event","type":"string","value":"hello"}]}],"processID":"p1"}],
 "processes":{"p1":{"serviceName":"front","tags":[{"key":"hostname","type":"string","value":"h1"}]},
              "p2":{"serviceName":"back","tags":[{"key":"ip","type":"string","value":"10.0.0.2"}]}}}],
 "total":0,"limit":0,"offset":0,"errors":null}
J
}

@test "jaeger envelope: spans sorted by start, parent from CHILD_OF, service and host from the process" {
	run tr-ingest "$(jaeger_env)"
	expect_eq 0 "$status" status
	expect_eq "#tr/1" "${lines[0]}"
	expect_eq $'T\tt1' "${lines[1]}"
	expect_eq $'S\tt1\ta\t\t1000\t1000\tfront\troot\t\th1\tprocess.hostname=h1' "${lines[2]}"
	expect_eq $'L\tt1\ta\t1100\tevent=hello' "${lines[3]}"
	expect_eq $'S\tt1\tb\ta\t1500\t200\tback\tchild\tclient\t10.0.0.2\tspan.kind=client\tprocess.ip=10.0.0.2' "${lines[4]}"
	expect_num 5 "${#lines[@]}"
}

@test "jaeger: a bare trace object and the UI's data-as-object give the same records as the envelope" {
	env=$(jaeger_env)
	jq '.data[0]' "$env" > "$BATS_TEST_TMPDIR/bare.json"
	jq '{data: .data[0]}' "$env" > "$BATS_TEST_TMPDIR/obj.json"
	a=$(tr-ingest "$env"); b=$(tr-ingest "$BATS_TEST_TMPDIR/bare.json"); c=$(tr-ingest "$BATS_TEST_TMPDIR/obj.json")
	expect_eq "$b" "$a"
	expect_eq "$c" "$a"
}

@test "jaeger: spans inherit the trace's traceID and accept an inline process" {
	f=$(mkfix inline.json <<'J'
{"traceID":"T9","spans":[{"spanID":"s1","operationName":"op","startTime":5,"duration":1,
 "process":{"serviceName":"svc","tags":[{"key":"host.name","type":"string","value":"box"}]}}]}
J
)
	run tr-ingest "$f"
	expect_eq 0 "$status" status
	expect_eq $'S\tT9\ts1\t\t5\t1\tsvc\top\t\tbox\tprocess.host.name=box' "${lines[2]}"
}

@test "jaeger: every tag type keeps its exact value" {
	f=$(mkfix tags.json <<'J'
{"data":[{"traceID":"t","spans":[{"spanID":"s","operationName":"o","startTime":1,"duration":2,"processID":"p",
 "tags":[{"key":"s","type":"string","value":"x y"},{"key":"b","type":"bool","value":true},
         {"key":"i","type":"int64","value":-42},{"key":"big","type":"int64","value":"9223372036854775807"},
         {"key":"f","type":"float64","value":0.1},{"key":"bin","type":"binary","value":"AAAwOQ=="}]}],
 "processes":{"p":{"serviceName":"svc"}}}]}
J
)
	run tr-ingest "$f"
	expect_eq 0 "$status" status
	expect_eq $'S\tt\ts\t\t1\t2\tsvc\to\t\t\ts=x y\tb=true\ti=-42\tbig=9223372036854775807\tf=0.1\tbin=AAAwOQ==' "${lines[2]}"
}

@test "jaeger: null, [] and missing arrays are all empty" {
	f=$(mkfix empties.json <<'J'
{"data":[{"traceID":"t","spans":[
 {"spanID":"a","operationName":"o","startTime":1,"duration":2,"references":null,"tags":null,"logs":null},
 {"spanID":"b","operationName":"o","startTime":2,"duration":2,"references":[],"tags":[],"logs":[]},
 {"spanID":"c","operationName":"o","startTime":3,"duration":2}],"processes":null}]}
J
)
	run tr-ingest "$f"
	expect_eq 0 "$status" status
	expect_eq $'a\t\t b\t\t c\t\t ' "$(printf '%s\n' "${lines[@]}" | spans | cut -f3,4,7 | tr '\n' ' ')"
}

@test "jaeger: the nested parent copy of an old UI export is never followed" {
	f=$(mkfix old.json <<'J'
{"data":[{"traceID":"t","spans":[
 {"spanID":"a","operationName":"root","startTime":1,"duration":10,"references":[],"depth":0,"hasChildren":true,"childSpanIds":["b"]},
 {"spanID":"b","operationName":"kid","startTime":2,"duration":3,"relativeStartTime":1,
  "references":[{"refType":"CHILD_OF","traceID":"t","spanID":"a",
     "span":{"spanID":"a","operationName":"root","startTime":1,"duration":10,"references":[]}}]}]}]}
J
)
	run tr-ingest "$f"
	expect_eq 0 "$status" status
	expect_num 2 "$(printf '%s\n' "${lines[@]}" | grep -c '^S')"
	expect_eq $'S\tt\tb\ta\t2\t3\t\tkid\t\t' "${lines[3]}"
}

@test "jaeger: a FOLLOWS_FROM parent and references the tree cannot hold become R records" {
	f=$(mkfix refs.json <<'J'
{"data":[{"traceID":"t","spans":[
 {"spanID":"a","operationName":"root","startTime":1,"duration":10},
 {"spanID":"b","operationName":"async","startTime":2,"duration":30,"references":[{"refType":"FOLLOWS_FROM","traceID":"t","spanID":"a"}]},
 {"spanID":"c","operationName":"x","startTime":3,"duration":1,"references":[
   {"refType":"CHILD_OF","traceID":"other","spanID":"z"},{"refType":"CHILD_OF","traceID":"t","spanID":"a"}]}]}]}
J
)
	run tr-ingest "$f"
	expect_eq 0 "$status" status
	expect_eq $'S\tt\tb\ta\t2\t30\t\tasync\t\t' "${lines[3]}"
	expect_eq $'R\tt\tb\tfollows_from\tt\ta' "${lines[4]}"
	expect_eq $'S\tt\tc\ta\t3\t1\t\tx\t\t' "${lines[5]}"
	expect_eq $'R\tt\tc\tchild_of\tother\tz' "${lines[6]}"
}

@test "jaeger JSON Lines: one trace per line" {
	env=$(jaeger_env)
	{ jq -c '.data[0]' "$env"; jq -c '.data[0] | .traceID = "t2" | .spans[].traceID = "t2"' "$env"; } > "$BATS_TEST_TMPDIR/l.jsonl"
	run tr-ingest "$BATS_TEST_TMPDIR/l.jsonl"
	expect_eq 0 "$status" status
	expect_num 2 "$(printf '%s\n' "${lines[@]}" | grep -c '^T')"
	expect_eq $'T\tt2' "${lines[5]}"
}

otlp_doc() {
	mkfix otlp.json <<'J'
{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"api"}},
  {"key":"host.name","value":{"stringValue":"node7"}},{"key":"pid","value":{"intValue":"12"}}]},
 "scopeSpans":[{"scope":{"name":"lib","version":"1.0"},"spans":[
  {"traceId":"0AF7651916CD43DD8448EB211C80319C","spanId":"B7AD6B7169203331","parentSpanId":"",
   "name":"GET /x","kind":2,"startTimeUnixNano":"1700000000000001999","endTimeUnixNano":1700000000250003000,
   "attributes":[{"key":"http.status_code","value":{"intValue":500}},{"key":"ok","value":{"boolValue":false}},
                 {"key":"ratio","value":{"doubleValue":0.25}},{"key":"list","value":{"arrayValue":{"values":[{"stringValue":"a"}]}}}],
   "events":[{"timeUnixNano":"1700000000100000000","name":"retry","attributes":[{"key":"n","value":{"intValue":"2"}}]}],
   "links":[{"traceId":"00000000000000000000000000000001","spanId":"0000000000000002","attributes":[{"key":"why","value":{"stringValue":"batch"}}]}],
   "status":{"code":2,"message":"boom"}},
  {"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"c7ad6b7169203331","parentSpanId":"b7ad6b7169203331",
   "name":"db","kind":"SPAN_KIND_CLIENT","startTimeUnixNano":"1700000000010000000","endTimeUnixNano":"1700000000020000000"}]}]}]}
J
}

@test "otlp: ids lower-cased, nanoseconds to µs as Jaeger converts them, kind, status, resource attributes" {
	run tr-ingest "$(otlp_doc)"
	expect_eq 0 "$status" status
	expect_eq $'T\t0af7651916cd43dd8448eb211c80319c' "${lines[1]}"
	expect_eq $'S\t0af7651916cd43dd8448eb211c80319c\tb7ad6b7169203331\t\t1700000000000001\t250001\tapi\tGET /x\tserver\tnode7\totel.scope.name=lib\totel.scope.version=1.0\thttp.status_code=500\tok=false\tratio=0.25\tlist=["a"]\tspan.kind=server\totel.status_code=ERROR\terror=true\totel.status_description=boom\tprocess.host.name=node7\tprocess.pid=12' "${lines[2]}"
	expect_eq $'R\t0af7651916cd43dd8448eb211c80319c\tb7ad6b7169203331\tlink\t00000000000000000000000000000001\t0000000000000002\twhy=batch' "${lines[3]}"
	expect_eq $'L\t0af7651916cd43dd8448eb211c80319c\tb7ad6b7169203331\t1700000000100000\tevent=retry\tn=2' "${lines[4]}"
	expect_eq $'c7ad6b7169203331\tb7ad6b7169203331\t1700000000010000\t10000\tclient' "$(echo "${lines[5]}" | cut -f3,4,5,6,9)"
}

@test "otlp: the api_v3 {\"result\": ...} wrapper and JSON Lines give the same spans" {
	doc=$(otlp_doc)
	jq '{result: .}' "$doc" > "$BATS_TEST_TMPDIR/v3.json"
	jq -c '.' "$doc" > "$BATS_TEST_TMPDIR/one.jsonl"
	expect_eq "$(tr-ingest "$BATS_TEST_TMPDIR/v3.json")" "$(tr-ingest "$doc")"
	expect_eq "$(tr-ingest "$BATS_TEST_TMPDIR/one.jsonl")" "$(tr-ingest "$doc")"
}

zipkin2_doc() {
	mkfix z2.json <<'J'
[{"traceId":"AB","id":"2","parentId":"1","kind":"SERVER","name":"get","timestamp":110,"duration":80,"shared":true,
  "localEndpoint":{"serviceName":"backend","ipv4":"10.0.0.2"},"tags":{"http.path":"/api"}},
 {"traceId":"ab","id":"1","kind":"SERVER","name":"get /","timestamp":100,"duration":200,
  "localEndpoint":{"serviceName":"frontend","ipv4":"10.0.0.1"}},
 {"traceId":"ab","id":"3","parentId":"2","name":"query","timestamp":120,"duration":20,
  "localEndpoint":{"serviceName":"backend","ipv4":"10.0.0.2"},"annotations":[{"timestamp":125,"value":"cache miss"}]},
 {"traceId":"ab","id":"2","parentId":"1","kind":"CLIENT","name":"get","timestamp":105,"duration":100,
  "localEndpoint":{"serviceName":"frontend","ipv4":"10.0.0.1"},"remoteEndpoint":{"serviceName":"backend","port":8080}},
 {"traceId":"ab","id":"4","parentId":"1","name":"lost","localEndpoint":{"serviceName":"frontend"}}]
J
}

@test "zipkin v2: a shared span id is split into a client span and its server child" {
	run tr-ingest "$(zipkin2_doc)"
	expect_eq 0 "$status" status
	expect_eq $'S\tab\t1\t\t100\t200\tfrontend\tget /\tserver\t10.0.0.1\tspan.kind=server' "${lines[2]}"
	expect_eq $'S\tab\t2\t1\t105\t100\tfrontend\tget\tclient\t10.0.0.1\tspan.kind=client\tpeer.service=backend\tpeer.port=8080' "${lines[3]}"
	expect_eq $'S\tab\t2:s\t2\t110\t80\tbackend\tget\tserver\t10.0.0.2\tspan.kind=server\thttp.path=/api' "${lines[4]}"
	expect_eq $'S\tab\t3\t2:s\t120\t20\tbackend\tquery\t\t10.0.0.2' "${lines[5]}"
	expect_eq $'L\tab\t3\t125\tevent=cache miss' "${lines[6]}"
}

@test "zipkin v2: a span without timestamp and duration is kept and flagged, never given a time" {
	run tr-ingest "$(zipkin2_doc)"
	expect_eq $'S\tab\t4\t1\t\t\tfrontend\tlost\t\t\ttr.no_time=true' "${lines[7]}"
}

@test "zipkin v2: a list of traces gives the same records as a flat list" {
	doc=$(zipkin2_doc)
	jq '[.]' "$doc" > "$BATS_TEST_TMPDIR/traces.json"
	expect_eq "$(tr-ingest "$BATS_TEST_TMPDIR/traces.json")" "$(tr-ingest "$doc")"
}

@test "zipkin v1: cs/sr/ss/cr annotations become a client span and a server span" {
	f=$(mkfix v1.json <<'J'
[{"traceId":"a1","id":"a1","name":"checkout","timestamp":1000,"duration":500,
  "annotations":[{"timestamp":1000,"value":"cs","endpoint":{"serviceName":"web","ipv4":"10.1.1.1"}},
                 {"timestamp":1050,"value":"sr","endpoint":{"serviceName":"shop","ipv4":"10.1.1.2"}},
                 {"timestamp":1100,"value":"queued","endpoint":{"serviceName":"shop","ipv4":"10.1.1.2"}},
                 {"timestamp":1450,"value":"ss","endpoint":{"serviceName":"shop","ipv4":"10.1.1.2"}},
                 {"timestamp":1500,"value":"cr","endpoint":{"serviceName":"web","ipv4":"10.1.1.1"}}],
  "binaryAnnotations":[{"key":"http.path","value":"/buy","endpoint":{"serviceName":"shop"}},
                       {"key":"sa","value":true,"endpoint":{"serviceName":"shop","ipv4":"10.1.1.2","port":80}}]}]
J
)
	run tr-ingest "$f"
	expect_eq 0 "$status" status
	expect_eq $'S\ta1\ta1\t\t1000\t500\tweb\tcheckout\tclient\t10.1.1.1\tspan.kind=client\thttp.path=/buy\tpeer.service=shop\tpeer.ipv4=10.1.1.2\tpeer.port=80' "${lines[2]}"
	expect_eq $'S\ta1\ta1:s\ta1\t1050\t400\tshop\tcheckout\tserver\t10.1.1.2\tspan.kind=server\thttp.path=/buy' "${lines[3]}"
	expect_eq $'L\ta1\ta1:s\t1100\tevent=queued' "${lines[4]}"
}

@test "zstd input is detected by its magic number" {
	env=$(jaeger_env)
	zstd -q -c "$env" > "$BATS_TEST_TMPDIR/env.json.zst"
	expect_eq "$(tr-ingest "$env")" "$(tr-ingest "$BATS_TEST_TMPDIR/env.json.zst")"
}

@test "-z compresses the output" {
	env=$(jaeger_env)
	tr-ingest -z "$env" > "$BATS_TEST_TMPDIR/out.zst"
	expect_eq "$(tr-ingest "$env")" "$(zstd -dc "$BATS_TEST_TMPDIR/out.zst")"
}

@test "TAB, LF, CR and % in values and = in keys are escaped and round-trip" {
	f=$(mkfix esc.json <<'J'
{"traceID":"t","spans":[{"spanID":"s","operationName":"a\tb","startTime":1,"duration":1,
 "tags":[{"key":"k=1","type":"string","value":"x\ny\rz%25 é"}]}]}
J
)
	run tr-ingest "$f"
	expect_eq $'S\tt\ts\t\t1\t1\t\ta%09b\t\t\tk%3D1=x%0Ay%0Dz%2525 é' "${lines[2]}"
}

@test "an identical duplicate span is dropped and counted; a different one gets a new id" {
	f=$(mkfix dup.json <<'J'
{"traceID":"t","spans":[{"spanID":"s","operationName":"a","startTime":1,"duration":1},
 {"spanID":"s","operationName":"a","startTime":1,"duration":1},
 {"spanID":"s","operationName":"b","startTime":2,"duration":1}]}
J
)
	run tr-ingest "$f"
	expect_eq 0 "$status" status
	expect_eq $'T\tt\ttr.dropped_duplicates=1' "${lines[1]}"
	expect_eq $'S\tt\ts\t\t1\t1\t\ta\t\t' "${lines[2]}"
	expect_eq $'S\tt\ts~2\t\t2\t1\t\tb\t\t\ttr.renamed_from=s' "${lines[3]}"
	expect_num 4 "${#lines[@]}"
}

@test "-o writes the file whole, and the same input always gives the same bytes" {
	env=$(jaeger_env)
	tr-ingest -o "$BATS_TEST_TMPDIR/o.tr" "$env"
	expect_eq "$(tr-ingest "$env")" "$(cat "$BATS_TEST_TMPDIR/o.tr")"
	expect_eq "$(tr-ingest "$env" | cksum)" "$(tr-ingest "$env" | cksum)"
	expect_empty "$(ls "$BATS_TEST_TMPDIR" | grep tmp)"
}

@test "stdin is read when no file or - is given" {
	env=$(jaeger_env)
	expect_eq "$(tr-ingest "$env")" "$(tr-ingest < "$env")"
	expect_eq "$(tr-ingest "$env")" "$(tr-ingest - < "$env")"
}

@test "files are read in order" {
	env=$(jaeger_env)
	expect_num 2 "$(tr-ingest "$env" "$(zipkin2_doc)" | grep -c '^T')"
}

@test "the samples' Jaeger, Zipkin and OTLP exports give the same spans" {
	# Zipkin has no "internal" kind: a local span has none.
	key() { tr-ingest "$1" | awk -F'\t' '$1 == "S" { print $5, $6, $7, tolower($8), ($9 == "internal" ? "" : $9) }' | sort; }
	j=$(key "$SAMPLES/jaeger/hotrod.json")
	expect_nonempty "$j"
	expect_eq "$(key "$SAMPLES/zipkin/hotrod.json")" "$j"
	expect_eq "$(key "$SAMPLES/otlp/hotrod.json")" "$j"
	# and the same tree shape: each span's depth below its root
	depth() { tr-ingest "$1" | awk -F'\t' '$1 == "S" { d[$3] = ($4 == "" ? 0 : d[$4] + 1); print $5, d[$3] }' | sort; }
	expect_eq "$(depth "$SAMPLES/otlp/hotrod.json")" "$(depth "$SAMPLES/jaeger/hotrod.json")"
	# Zipkin's too where no span was lost: in the samples, a lost server span's
	# children name its id, which Zipkin's client half shares, so they hang
	# one level deeper there than as Jaeger's orphans
	trsim --hints --seed 1 --traces 45 > "$BATS_TEST_TMPDIR/j.json"
	trsim --hints --seed 1 --traces 45 --format zipkin > "$BATS_TEST_TMPDIR/z.json"
	expect_eq "$(depth "$BATS_TEST_TMPDIR/z.json")" "$(depth "$BATS_TEST_TMPDIR/j.json")"
	expect_ne "$(depth "$SAMPLES/zipkin/hotrod.json")" "$(depth "$SAMPLES/jaeger/hotrod.json")"
}

@test "-j N parses on N threads and writes the same bytes as one thread" {
	for n in 2 3 8; do
		expect_eq "$(tr-ingest "$SAMPLES/jaeger/hotrod.json" | cksum)" "$(tr-ingest -j $n "$SAMPLES/jaeger/hotrod.json" | cksum)"
	done
	# formats that are not walked trace by trace are read as with one thread
	expect_eq "$(tr-ingest "$SAMPLES/zipkin/hotrod.json" | cksum)" "$(tr-ingest -j 2 "$SAMPLES/zipkin/hotrod.json" | cksum)"
}
