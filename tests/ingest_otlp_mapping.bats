#!/usr/bin/env bats
# tr-ingest on OTLP as protobuf's JSON mapping writes it (Tempo, Jaeger's
# api_v3 gateway, Grafana) beside the OTLP/JSON spec's own form: base64 ids,
# zero values left out, enums as names, arrays and key-value lists as values.
# Tiny fixtures first, one behaviour each; then the real files of
# ../shared/ecosystem (read there, never copied).
load helper

ECO="${TR_SHARED:-$BATS_TEST_DIRNAME/../../shared}/ecosystem"

need_ecosystem() {
	[ -d "$ECO" ] || skip "no ../shared/ecosystem beside the project"
}

# Field $1 of the S record of span $2 in the line format on stdin.
sfield() {
	awk -F'\t' -v n="$1" -v id="$2" '$1 == "S" && $3 == id { print $n }'
}

# The value of tag $1 of the first record of type $2 (default S) on stdin.
tag() {
	awk -F'\t' -v k="$1" -v t="${2:-S}" '$1 == t { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) { print substr($i, length(k) + 2); exit } }'
}

# ---- ids ----

@test "ids: Tempo's base64 trace and span ids are decoded to lower-case hex" {
	f=$(mkfix t.json <<'J'
{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"O6VWCcPN5JZJzXfR+dzZNg==","spanId":"Sc130fnc2TY=","name":"a","startTimeUnixNano":"1000","endTimeUnixNano":"2000"}]}]}]}
J
	)
	run tr-ingest "$f"
	expect_eq 0 "$status" status
	expect_eq $'T\t3ba55609c3cde49649cd77d1f9dcd936' "${lines[1]}"
	expect_eq $'3ba55609c3cde49649cd77d1f9dcd936\t49cd77d1f9dcd936' "$(cut -f2,3 <<<"${lines[2]}")"
}

@test "ids: a base64 parentSpanId is decoded and names its parent" {
	f=$(mkfix t.json <<'J'
{"resourceSpans":[{"scopeSpans":[{"spans":[
 {"traceId":"AAAAAAAAAAAAAAAAAAAAAQ==","spanId":"AAAAAAAAAAE=","name":"root","startTimeUnixNano":"1000","endTimeUnixNano":"9000"},
 {"traceId":"AAAAAAAAAAAAAAAAAAAAAQ==","spanId":"AAAAAAAAAAI=","parentSpanId":"AAAAAAAAAAE=","name":"child","startTimeUnixNano":"2000","endTimeUnixNano":"3000"}]}]}]}
J
	)
	out=$(tr-ingest "$f")
	expect_eq 0000000000000001 "$(sfield 4 0000000000000002 <<<"$out")"
	expect_eq 00000000000000000000000000000001 "$(sfield 2 0000000000000002 <<<"$out")"
}

@test "ids: base64 link trace and span ids are decoded" {
	f=$(mkfix t.json <<'J'
{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"AAAAAAAAAAAAAAAAAAAAAQ==","spanId":"AAAAAAAAAAE=","name":"a","startTimeUnixNano":"1000","endTimeUnixNano":"2000",
 "links":[{"traceId":"O6VWCcPN5JZJzXfR+dzZNg==","spanId":"Sc130fnc2TY="}]}]}]}]}
J
	)
	expect_eq $'link\t3ba55609c3cde49649cd77d1f9dcd936\t49cd77d1f9dcd936' "$(tr-ingest "$f" | grep '^R' | cut -f4-6)"
}

@test "ids: URL-safe base64 ids are decoded like standard ones" {
	f=$(mkfix t.json <<'J'
{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"-_-_-_-_-_-_-_-_-_-_-w==","spanId":"-_-_-_-_-_8=","name":"a","startTimeUnixNano":"1000","endTimeUnixNano":"2000"}]}]}]}
J
	)
	expect_eq $'fbffbffbffbffbffbffbffbffbffbffb\tfbffbffbffbffbff' "$(tr-ingest "$f" | grep '^S' | cut -f2,3)"
}

@test "ids: 32 and 16 hex digits stay hex, upper case lower-cased" {
	f=$(mkfix t.json <<'J'
{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"5B8EFFF798038103D269B633813FC60C","spanId":"00F067AA0BA902B7","name":"a","startTimeUnixNano":"1000","endTimeUnixNano":"2000"}]}]}]}
J
	)
	expect_eq $'5b8efff798038103d269b633813fc60c\t00f067aa0ba902b7' "$(tr-ingest "$f" | grep '^S' | cut -f2,3)"
}

@test "ids: twelve characters without '=' are not a base64 span id: kept as text, lower-cased" {
	f=$(mkfix t.json <<'J'
{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"ABCDEF012345","name":"a","startTimeUnixNano":"1000","endTimeUnixNano":"2000"}]}]}]}
J
	)
	expect_eq abcdef012345 "$(tr-ingest "$f" | grep '^S' | cut -f3)"
}

@test "ids: base64 of a trace id's length given as a span id is not decoded" {
	f=$(mkfix t.json <<'J'
{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"O6VWCcPN5JZJzXfR+dzZNg==","name":"a","startTimeUnixNano":"1000","endTimeUnixNano":"2000"}]}]}]}
J
	)
	expect_eq 'o6vwccpn5jzjzxfr+dzzng==' "$(tr-ingest "$f" | grep '^S' | cut -f3)"
}

@test "ids: text that is not exactly base64 of 16 bytes is kept as text, lower-cased" {
	# a character outside the alphabet; bits set past the last byte
	for id in 'O6VWCcPN5JZJzXfR.dzZNg==' 'O6VWCcPN5JZJzXfR+dzZNh=='; do
		printf '{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"%s","spanId":"00f067aa0ba902b7","name":"a","startTimeUnixNano":"1000","endTimeUnixNano":"2000"}]}]}]}\n' "$id" > "$BATS_TEST_TMPDIR/t.json"
		expect_eq "$(tr 'A-Z' 'a-z' <<<"$id")" "$(tr-ingest "$BATS_TEST_TMPDIR/t.json" | grep '^S' | cut -f2)"
	done
}

@test "ids: odd ids (sid1, a 16-digit trace id) are kept as text, lower-cased" {
	f=$(mkfix t.json <<'J'
{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"ABCDEF0123456789","spanId":"SID1","name":"a","startTimeUnixNano":"1000","endTimeUnixNano":"2000",
 "links":[{"traceId":"TID1","spanId":"sid9"}]}]}]}]}
J
	)
	out=$(tr-ingest "$f")
	expect_eq $'abcdef0123456789\tsid1' "$(grep '^S' <<<"$out" | cut -f2,3)"
	expect_eq $'tid1\tsid9' "$(grep '^R' <<<"$out" | cut -f5,6)"
}

@test "ids: a span that fails marks its base64-named trace broken: no half trace is written" {
	f=$(mkfix t.json <<'J'
{"resourceSpans":[{"scopeSpans":[{"spans":[
 {"traceId":"AAAAAAAAAAAAAAAAAAAAAQ==","spanId":"AAAAAAAAAAE=","name":"good","startTimeUnixNano":"1000","endTimeUnixNano":"2000"},
 {"traceId":"AAAAAAAAAAAAAAAAAAAAAQ==","spanId":"AAAAAAAAAAI=","name":["bad"],"startTimeUnixNano":"1000","endTimeUnixNano":"2000"},
 {"traceId":"AAAAAAAAAAAAAAAAAAAAAg==","spanId":"AAAAAAAAAAM=","name":"other","startTimeUnixNano":"1000","endTimeUnixNano":"2000"}]}]}]}
J
	)
	run tr-ingest -k -q "$f"
	expect_eq 3 "$status" status
	expect_num 1 "$(printf '%s\n' "${lines[@]}" | grep -c '^S')"
	expect_contains $'S\t00000000000000000000000000000002\t0000000000000003\t' "$output"
	expect_lacks 'good' "$output"
}

# ---- zero values left out ----

@test "zero values: no startTimeUnixNano and no endTimeUnixNano is a span at 0 lasting 0" {
	f=$(mkfix t.json <<'J'
{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"00000000000000000000000000000001","spanId":"0000000000000002","name":"foobar"}]}]}]}
J
	)
	run tr-ingest "$f"
	expect_eq 0 "$status" status
	expect_eq $'0\t0' "$(cut -f5,6 <<<"${lines[2]}")"
}

@test "zero values: null times are 0 as well" {
	f=$(mkfix t.json <<'J'
{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"00000000000000000000000000000001","spanId":"0000000000000002","startTimeUnixNano":null,"endTimeUnixNano":null}]}]}]}
J
	)
	expect_eq $'0\t0' "$(tr-ingest "$f" | grep '^S' | cut -f5,6)"
}

@test "zero values: a start time without an end time is an end (0) before the start: the trace is broken" {
	f=$(mkfix t.json <<'J'
{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"00000000000000000000000000000001","spanId":"0000000000000002","startTimeUnixNano":"5000"}]}]}]}
J
	)
	run tr-ingest "$f"
	expect_eq 3 "$status" status
	expect_contains 'span 0000000000000002: ends before it starts' "$output"
}

@test "zero values: an event without timeUnixNano is at 0" {
	f=$(mkfix t.json <<'J'
{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"00000000000000000000000000000001","spanId":"0000000000000002","startTimeUnixNano":"1000","endTimeUnixNano":"2000",
 "events":[{"name":"boot"}]}]}]}]}
J
	)
	expect_eq $'0\tevent=boot' "$(tr-ingest "$f" | grep '^L' | cut -f4,5)"
}

@test "zero values: no kind is unspecified: empty kind column and no span.kind tag" {
	f=$(mkfix t.json <<'J'
{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"00000000000000000000000000000001","spanId":"0000000000000002","startTimeUnixNano":"1000","endTimeUnixNano":"2000"}]}]}]}
J
	)
	out=$(tr-ingest "$f" | grep '^S')
	expect_eq "" "$(cut -f9 <<<"$out")"
	expect_lacks 'span.kind' "$out"
}

@test "zero values: parentSpanId \"\" or absent is a root" {
	f=$(mkfix t.json <<'J'
{"resourceSpans":[{"scopeSpans":[{"spans":[
 {"traceId":"00000000000000000000000000000001","spanId":"0000000000000002","parentSpanId":"","startTimeUnixNano":"1000","endTimeUnixNano":"2000"},
 {"traceId":"00000000000000000000000000000001","spanId":"0000000000000003","startTimeUnixNano":"1000","endTimeUnixNano":"2000"}]}]}]}
J
	)
	expect_eq '[][]' "$(tr-ingest "$f" | awk -F'\t' '$1 == "S" { printf "[%s]", $4 }')"
}

@test "zero values: an attribute without a value is empty text, one without a key has an empty key" {
	f=$(mkfix t.json <<'J'
{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"00000000000000000000000000000001","spanId":"0000000000000002","startTimeUnixNano":"1000","endTimeUnixNano":"2000",
 "attributes":[{"key":"k"},{"key":"n","value":null},{"value":{"stringValue":"v"}}]}]}]}]}
J
	)
	expect_eq $'k=\tn=\t=v' "$(tr-ingest "$f" | grep '^S' | cut -f11-)"
}

@test "zero values: an empty resource gives an empty service and host and no process tags" {
	f=$(mkfix t.json <<'J'
{"resourceSpans":[{"resource":{},"scopeSpans":[{"scope":{},"spans":[{"traceId":"00000000000000000000000000000001","spanId":"0000000000000002","name":"op","startTimeUnixNano":"1000","endTimeUnixNano":"2000"}]}]}]}
J
	)
	expect_eq $'\top\t\t' "$(tr-ingest "$f" | grep '^S' | cut -f7-)"
}

@test "zero values: no status, an empty status and STATUS_CODE_UNSET tag nothing" {
	for st in '' ',"status":{}' ',"status":{"code":"STATUS_CODE_UNSET"}' ',"status":{"code":0}'; do
		printf '{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"00000000000000000000000000000001","spanId":"0000000000000002","startTimeUnixNano":"1000","endTimeUnixNano":"2000"%s}]}]}]}\n' "$st" > "$BATS_TEST_TMPDIR/t.json"
		expect_eq "" "$(tr-ingest "$BATS_TEST_TMPDIR/t.json" | grep '^S' | cut -f11-)"
	done
}

# ---- enums as names and as numbers ----

@test "enums: every span kind by name and by number gives the same kind column and span.kind tag" {
	names=(UNSPECIFIED INTERNAL SERVER CLIENT PRODUCER CONSUMER)
	want=('' internal server client producer consumer)
	for k in 0 1 2 3 4 5; do
		for v in "$k" "\"SPAN_KIND_${names[$k]}\""; do
			printf '{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"00000000000000000000000000000001","spanId":"0000000000000002","kind":%s,"startTimeUnixNano":"1000","endTimeUnixNano":"2000"}]}]}]}\n' "$v" > "$BATS_TEST_TMPDIR/t.json"
			out=$(tr-ingest "$BATS_TEST_TMPDIR/t.json" | grep '^S')
			expect_eq "${want[$k]}" "$(cut -f9 <<<"$out")" || { echo "kind $v: $out"; false; }
			expect_eq "${want[$k]}" "$(tag span.kind <<<"$out")"
		done
	done
}

@test "enums: status ERROR by name and by number gives error=true and otel.status_code=ERROR" {
	for c in 2 '"STATUS_CODE_ERROR"'; do
		printf '{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"00000000000000000000000000000001","spanId":"0000000000000002","startTimeUnixNano":"1000","endTimeUnixNano":"2000","status":{"code":%s,"message":"m"}}]}]}]}\n' "$c" > "$BATS_TEST_TMPDIR/t.json"
		expect_eq $'otel.status_code=ERROR\terror=true\totel.status_description=m' "$(tr-ingest "$BATS_TEST_TMPDIR/t.json" | grep '^S' | cut -f11-)"
	done
}

@test "enums: status OK by name and by number gives otel.status_code=OK" {
	for c in 1 '"STATUS_CODE_OK"'; do
		printf '{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"00000000000000000000000000000001","spanId":"0000000000000002","startTimeUnixNano":"1000","endTimeUnixNano":"2000","status":{"code":%s}}]}]}]}\n' "$c" > "$BATS_TEST_TMPDIR/t.json"
		expect_eq 'otel.status_code=OK' "$(tr-ingest "$BATS_TEST_TMPDIR/t.json" | grep '^S' | cut -f11-)"
	done
}

@test "enums: an unknown kind name is an error of its trace" {
	f=$(mkfix t.json <<'J'
{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"00000000000000000000000000000001","spanId":"0000000000000002","kind":"SPAN_KIND_WHATEVER","startTimeUnixNano":"1000","endTimeUnixNano":"2000"}]}]}]}
J
	)
	run tr-ingest "$f"
	expect_eq 3 "$status" status
	expect_contains 'unknown span kind' "$output"
}

# ---- int64 as strings or numbers ----

@test "int64: times and intValue as JSON strings or as numbers give the same records" {
	f=$(mkfix s.json <<'J'
{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"00000000000000000000000000000001","spanId":"0000000000000002","startTimeUnixNano":"1700000000000000000","endTimeUnixNano":"1700000000000250000",
 "attributes":[{"key":"n","value":{"intValue":"-42"}}],"events":[{"timeUnixNano":"1700000000000100000"}]}]}]}]}
J
	)
	g=$(mkfix n.json <<'J'
{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"00000000000000000000000000000001","spanId":"0000000000000002","startTimeUnixNano":1700000000000000000,"endTimeUnixNano":1700000000000250000,
 "attributes":[{"key":"n","value":{"intValue":-42}}],"events":[{"timeUnixNano":1700000000000100000}]}]}]}]}
J
	)
	a=$(tr-ingest "$f")
	expect_eq "$(tr-ingest "$g")" "$a"
	expect_eq $'1700000000000000\t250\tn=-42' "$(grep '^S' <<<"$a" | cut -f5,6,11)"
}

# ---- attribute values ----

@test "values: arrayValue is a compact JSON array of the plain values" {
	f=$(mkfix t.json <<'J'
{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"00000000000000000000000000000001","spanId":"0000000000000002","startTimeUnixNano":"1000","endTimeUnixNano":"2000",
 "attributes":[{"key":"a","value":{"arrayValue":{"values":[{"stringValue":"x"},{"intValue":"7"},{"boolValue":true},{"doubleValue":0.5},{"bytesValue":"AAE="},{}]}}}]}]}]}]}
J
	)
	expect_eq '["x",7,true,0.5,"AAE=",null]' "$(tr-ingest "$f" | tag a)"
}

@test "values: kvlistValue is a JSON object, keys sorted, a repeated key keeping its last value" {
	f=$(mkfix t.json <<'J'
{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"00000000000000000000000000000001","spanId":"0000000000000002","startTimeUnixNano":"1000","endTimeUnixNano":"2000",
 "attributes":[{"key":"m","value":{"kvlistValue":{"values":[{"key":"b","value":{"intValue":1}},{"key":"a","value":{"stringValue":"x"}},{"key":"b","value":{"intValue":2}}]}}}]}]}]}]}
J
	)
	expect_eq '{"a":"x","b":2}' "$(tr-ingest "$f" | tag m)"
}

@test "values: arrays and key-value lists nest" {
	f=$(mkfix t.json <<'J'
{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"00000000000000000000000000000001","spanId":"0000000000000002","startTimeUnixNano":"1000","endTimeUnixNano":"2000",
 "attributes":[{"key":"n","value":{"arrayValue":{"values":[{"arrayValue":{"values":[{"intValue":"1"}]}},{"kvlistValue":{"values":[{"key":"k","value":{"arrayValue":{}}}]}}]}}}]}]}]}]}
J
	)
	expect_eq '[[1],{"k":[]}]' "$(tr-ingest "$f" | tag n)"
}

@test "values: empty arrayValue and kvlistValue are [] and {}" {
	f=$(mkfix t.json <<'J'
{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"00000000000000000000000000000001","spanId":"0000000000000002","startTimeUnixNano":"1000","endTimeUnixNano":"2000",
 "attributes":[{"key":"a","value":{"arrayValue":{}}},{"key":"m","value":{"kvlistValue":{"values":[]}}}]}]}]}]}
J
	)
	expect_eq $'a=[]\tm={}' "$(tr-ingest "$f" | grep '^S' | cut -f11-)"
}

@test "values: strings in an array are JSON-escaped and the value reads back with jq" {
	command -v jq >/dev/null || skip "jq is not installed"
	f=$(mkfix t.json <<'J'
{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"00000000000000000000000000000001","spanId":"0000000000000002","startTimeUnixNano":"1000","endTimeUnixNano":"2000",
 "attributes":[{"key":"a","value":{"arrayValue":{"values":[{"stringValue":"q\"b\\n\nt\tc\u0001é"}]}}}]}]}]}]}
J
	)
	v=$(tr-ingest "$f" | tag a)
	expect_eq '["q\"b\\n\nt\tc\u0001é"]' "$v"
	expect_eq "$(printf 'q"b\\n\nt\tc\001é')" "$(jq -r '.[0]' <<<"$v")"
}

@test "values: int64 in an array keeps every digit" {
	f=$(mkfix t.json <<'J'
{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"00000000000000000000000000000001","spanId":"0000000000000002","startTimeUnixNano":"1000","endTimeUnixNano":"2000",
 "attributes":[{"key":"a","value":{"arrayValue":{"values":[{"intValue":"9223372036854775807"},{"intValue":-9007199254740993}]}}}]}]}]}]}
J
	)
	expect_eq '[9223372036854775807,-9007199254740993]' "$(tr-ingest "$f" | tag a)"
}

@test "values: a double proto3 JSON writes as a string (NaN) stays that text, a JSON string in an array" {
	f=$(mkfix t.json <<'J'
{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"00000000000000000000000000000001","spanId":"0000000000000002","startTimeUnixNano":"1000","endTimeUnixNano":"2000",
 "attributes":[{"key":"d","value":{"doubleValue":"NaN"}},{"key":"a","value":{"arrayValue":{"values":[{"doubleValue":"Infinity"},{"doubleValue":1e300}]}}}]}]}]}]}
J
	)
	expect_eq $'d=NaN\ta=["Infinity",1e+300]' "$(tr-ingest "$f" | grep '^S' | cut -f11-)"
}

@test "values: a bytesValue attribute is its base64 text as given" {
	f=$(mkfix t.json <<'J'
{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"00000000000000000000000000000001","spanId":"0000000000000002","startTimeUnixNano":"1000","endTimeUnixNano":"2000",
 "attributes":[{"key":"blob","value":{"bytesValue":"AAAwOQ=="}}]}]}]}]}
J
	)
	expect_eq 'AAAwOQ==' "$(tr-ingest "$f" | tag blob)"
}

@test "values: an intValue that is not an integer inside an array fails its trace" {
	f=$(mkfix t.json <<'J'
{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"00000000000000000000000000000001","spanId":"0000000000000002","startTimeUnixNano":"1000","endTimeUnixNano":"2000",
 "attributes":[{"key":"a","value":{"arrayValue":{"values":[{"intValue":"x"}]}}}]}]}]}]}
J
	)
	run tr-ingest "$f"
	expect_eq 3 "$status" status
	expect_contains 'intValue is not an integer' "$output"
}

@test "values: resource, scope, event and link attributes are written the same way" {
	f=$(mkfix t.json <<'J'
{"resourceSpans":[{"resource":{"attributes":[{"key":"r","value":{"arrayValue":{"values":[{"stringValue":"x"}]}}}]},
 "scopeSpans":[{"scope":{"name":"s","attributes":[{"key":"c","value":{"arrayValue":{"values":[{"stringValue":"x"}]}}}]},
 "spans":[{"traceId":"00000000000000000000000000000001","spanId":"0000000000000002","startTimeUnixNano":"1000","endTimeUnixNano":"2000",
  "events":[{"timeUnixNano":"1500","attributes":[{"key":"e","value":{"arrayValue":{"values":[{"stringValue":"x"}]}}}]}],
  "links":[{"traceId":"00000000000000000000000000000009","spanId":"0000000000000009","attributes":[{"key":"l","value":{"arrayValue":{"values":[{"stringValue":"x"}]}}}]}]}]}]}]}
J
	)
	out=$(tr-ingest "$f")
	expect_eq '["x"]' "$(tag process.r <<<"$out")"
	expect_eq '["x"]' "$(tag otel.scope.c <<<"$out")"
	expect_eq '["x"]' "$(tag e L <<<"$out")"
	expect_eq '["x"]' "$(tag l R <<<"$out")"
}

# ---- document shapes ----

@test "shapes: Tempo's {\"batches\": ...} is read as resourceSpans" {
	f=$(mkfix t.json <<'J'
{"batches":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"svc"}}]},"scopeSpans":[{"spans":[{"traceId":"AAAAAAAAAAAAAAAAAAAAAQ==","spanId":"AAAAAAAAAAE=","name":"a","startTimeUnixNano":"1000","endTimeUnixNano":"2000"}]}]}]}
J
	)
	run tr-ingest -f otlp "$f"
	expect_eq 0 "$status" status
	expect_eq $'00000000000000000000000000000001\t0000000000000001\tsvc' "$(cut -f2,3,7 <<<"${lines[2]}")"
}

@test "shapes: the pre-1.0 instrumentationLibrarySpans and instrumentationLibrary are scopeSpans and scope" {
	f=$(mkfix t.json <<'J'
{"batches":[{"instrumentationLibrarySpans":[{"instrumentationLibrary":{"name":"lib","version":"2"},"spans":[{"traceId":"AAAAAAAAAAAAAAAAAAAAAQ==","spanId":"AAAAAAAAAAE=","name":"a","startTimeUnixNano":"1000","endTimeUnixNano":"2000"}]}]}]}
J
	)
	expect_eq $'otel.scope.name=lib\totel.scope.version=2' "$(tr-ingest "$f" | grep '^S' | cut -f11-)"
}

# ---- real files (../shared/ecosystem, expected S from its README) ----

@test "kiali responseTrace.json (Tempo, base64 ids, kind names): 8 spans of trace 3ba55609…" {
	need_ecosystem
	out=$(tr-ingest "$ECO/kiali/responseTrace.json")
	expect_num 8 "$(grep -c '^S' <<<"$out")"
	expect_eq $'T\t3ba55609c3cde49649cd77d1f9dcd936' "$(grep '^T' <<<"$out")"
	# O6VWCcPN5JZJzXfR+dzZNg== / Sc130fnc2TY=
	expect_eq client "$(sfield 9 49cd77d1f9dcd936 <<<"$out")"
	expect_eq istio-ingressgateway.istio-system "$(sfield 7 49cd77d1f9dcd936 <<<"$out")"
}

@test "grafana-oats trace_by_id.json (Tempo): 3 spans, server, internal, producer; an array resource attribute" {
	need_ecosystem
	out=$(tr-ingest "$ECO/grafana-oats/trace_by_id.json")
	expect_num 3 "$(grep -c '^S' <<<"$out")"
	expect_eq 077bd30f2f8154b5948dc04724f89ff5 "$(grep '^T' <<<"$out" | cut -f2)"
	expect_eq 'server internal producer ' "$(awk -F'\t' '$1 == "S" { printf "%s ", $9 }' <<<"$out")"
	expect_like '\["*' "$(tag process.process.command_args <<<"$out")"
}

@test "grafana-oats tempo_trace_response.json: 2 spans, all-zero base64 ids decoded, two roots" {
	need_ecosystem
	out=$(tr-ingest "$ECO/grafana-oats/tempo_trace_response.json")
	expect_num 2 "$(grep -c '^S' <<<"$out")"
	expect_eq $'T\t00000000000000000000000000000000' "$(grep '^T' <<<"$out")"
	expect_eq '0000000000000000 0000000000000001 ' "$(awk -F'\t' '$1 == "S" && $4 == "" { printf "%s ", $3 }' <<<"$out")"
}

@test "grafana-oats collector JSON Lines: 82 spans in 5 traces" {
	need_ecosystem
	out=$(tr-ingest "$ECO/grafana-oats/5b584103c6fc5ddf423cb2fb6552d0f0.json")
	expect_num 82 "$(grep -c '^S' <<<"$out")"
	expect_num 5 "$(grep -c '^T' <<<"$out")"
}

@test "otel-tui test_data.json (spans, metrics and logs): 547 spans in 141 traces" {
	need_ecosystem
	# The metrics and logs lines are not trace documents; -k goes past them.
	out=$(tr-ingest -k -q "$ECO/otel-tui/test_data.json" 2>/dev/null) || true
	expect_num 547 "$(grep -c '^S' <<<"$out")"
	expect_num 141 "$(grep -c '^T' <<<"$out")"
}

@test "jaeger GetTrace.json (api_v3, no times, empty resource): 1 span at 0, no service, status ERROR" {
	need_ecosystem
	run tr-ingest "$ECO/jaeger/GetTrace.json"
	expect_eq 0 "$status" status
	expect_eq $'S\t00000000000000000000000000000001\t0000000000000002\t\t0\t0\t\tfoobar\tserver\t\tspan.kind=server\totel.status_code=ERROR\terror=true' "${lines[2]}"
}

@test "jaeger db_traces_01.json: 2 spans, 4 link records, 4 events" {
	need_ecosystem
	out=$(tr-ingest "$ECO/jaeger/db_traces_01.json")
	expect_num 2 "$(grep -c '^S' <<<"$out")"
	expect_num 4 "$(grep -c '^R' <<<"$out")"
	expect_num 4 "$(grep -c '^L' <<<"$out")"
	expect_eq 00000000000000010000000000000000 "$(grep '^T' <<<"$out" | cut -f2)"
}

@test "jaeger-ui otlp2jaeger-in-error.json (resource without attributes): 1 span, empty service" {
	need_ecosystem
	out=$(tr-ingest "$ECO/jaeger-ui/otlp2jaeger-in-error.json")
	expect_num 1 "$(grep -c '^S' <<<"$out")"
	expect_eq $'e127af99e3b3e074\t' "$(grep '^S' <<<"$out" | cut -f3,7)"
}

@test "perses OTLP files: 3, 3, 2 and 2 spans; base64 ids decoded" {
	need_ecosystem
	for fc in authenticate_error_otlp:3 example_otlp:3 pushbytes_no_root_span_otlp:2 pushbytes_incomplete_otlp:2; do
		expect_num "${fc#*:}" "$(tr-ingest "$ECO/perses/${fc%:*}.json" | grep -c '^S')"
	done
	out=$(tr-ingest "$ECO/perses/authenticate_error_otlp.json")
	# HbsI5l8tlR19CSvMReI2Tw== / RDmSeSCV3dE=
	expect_eq 1dbb08e65f2d951d7d092bcc45e2364f "$(grep '^T' <<<"$out" | cut -f2)"
	expect_eq get-inventory "$(sfield 8 443992792095ddd1 <<<"$out")"
	expect_eq 26dad4a0e2b0dd9a440dd5ff203a24a4 "$(grep '^T' <<<"$(tr-ingest "$ECO/perses/pushbytes_incomplete_otlp.json")" | cut -f2)"
}

@test "perses example_otlp.json: upper-case hex trace id lower-cased, span ids sid1… and link tid1 kept" {
	need_ecosystem
	out=$(tr-ingest "$ECO/perses/example_otlp.json")
	expect_eq $'T\t5b8efff798038103d269b633813fc60c' "$(grep '^T' <<<"$out")"
	expect_eq 'sid1< sid2<sid1 sid3<sid2 ' "$(awk -F'\t' '$1 == "S" { printf "%s<%s ", $3, $4 }' <<<"$out")"
	expect_eq $'sid3\tlink\ttid1\tsid1' "$(grep '^R' <<<"$out" | cut -f3-6)"
	expect_eq client "$(sfield 9 sid2 <<<"$out")"
	expect_contains $'otel.status_code=ERROR\terror=true\totel.status_description=Forbidden' "$(grep $'^S\t[^\t]*\tsid2' <<<"$out")"
}

@test "a scope that does not convert loses its traces, counted; the others are written" {
	in=$(mkfix scope.json <<'JSON'
{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"web"}}]},"scopeSpans":[
 {"spans":[{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708","name":"root","startTimeUnixNano":"1000","endTimeUnixNano":"5000"},
           {"traceId":"1102030405060708090a0b0c0d0e0f10","spanId":"1102030405060708","name":"other","startTimeUnixNano":"1000","endTimeUnixNano":"5000"}]},
 {"scope":{"name":5},"spans":[{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0202030405060708","parentSpanId":"0102030405060708","name":"child","startTimeUnixNano":"2000","endTimeUnixNano":"3000"}]}]}]}
JSON
)
	run tr-ingest -k "$in"
	expect_eq 3 "$status" status
	expect_contains '"name" is not a string' "$output"
	expect_contains '1 traces, 1 spans written; 1 broken traces skipped' "$output"
	expect_num 0 "$(printf '%s\n' "$output" | grep -c $'^S\t01020304')"
}

@test "an array attribute holding a stray object keeps every element" {
	in=$(mkfix strobj.json <<'JSON'
{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708","name":"root","startTimeUnixNano":"1000","endTimeUnixNano":"5000",
 "attributes":[{"key":"arr","value":{"arrayValue":{"values":[{"stringValue":"x"},{"stringValue":{"a":1}}]}}}]}]}]}]}
JSON
)
	run tr-ingest "$in"
	expect_eq 0 "$status" status
	expect_contains 'arr=["x",{"a":1}]' "$output"
}
