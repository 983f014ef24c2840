#!/usr/bin/env bats
# tr-ingest on Zipkin input cleans a trace up as Zipkin does before showing
# it: spans reported in parts are merged (zipkin2.internal.Trace.merge), a
# zero-padded 128-bit trace id is its 64-bit id, "shared" on a client means
# nothing; and a SERVER child of a shared span hangs under the half in its
# own service. Each fixture is made in the test; netflix.json is read from
# ../shared/ecosystem.

load helper

ECO="${TR_SHARED:-$BATS_TEST_DIRNAME/../../shared}/ecosystem"

# The S records' trace, id, parent, start, duration, service, name, kind.
ids() {
	awk -F'\t' -v OFS='\t' '$1 == "S" { print $2, $3, $4, $5, $6, $7, $8, $9 }'
}

@test "zipkin merge: late annotations and tags without kind or endpoint join the span that has them" {
	f=$(mkfix late.json <<'J'
[{"traceId":"t1","id":"a","kind":"CLIENT","name":"get","timestamp":100,"duration":50,
  "localEndpoint":{"serviceName":"web"},"remoteEndpoint":{"serviceName":"db"},"tags":{"k":"1"}},
 {"traceId":"t1","id":"a","name":"get","timestamp":120,
  "annotations":[{"timestamp":120,"value":"retry"}],"tags":{"late":"yes"}}]
J
)
	run tr-ingest "$f"
	expect_eq 0 "$status" status
	expect_num 1 "$(printf '%s\n' "$output" | grep -c '^S')"
	expect_eq $'S\tt1\ta\t\t100\t50\tweb\tget\tclient\t\tspan.kind=client\tk=1\tpeer.service=db\tlate=yes' "${lines[2]}"
	expect_eq $'L\tt1\ta\t120\tevent=retry' "${lines[3]}"
	expect_lacks '~2' "$output"
	expect_lacks 'tr.renamed_from' "$output"
}

@test "zipkin merge: a duration reported apart from the timestamp gives the span both" {
	f=$(mkfix dur.json <<'J'
[{"traceId":"t1","id":"a","kind":"SERVER","name":"get","timestamp":100,"localEndpoint":{"serviceName":"web"}},
 {"traceId":"t1","id":"a","duration":40,"localEndpoint":{"serviceName":"web"}}]
J
)
	run tr-ingest "$f"
	expect_eq 0 "$status" status
	expect_eq $'S\tt1\ta\t\t100\t40\tweb\tget\tserver\t\tspan.kind=server' "${lines[2]}"
	expect_num 3 "${#lines[@]}"
}

@test "zipkin merge: a name of \"unknown\" or empty gives way to another part's name" {
	f=$(mkfix name.json <<'J'
[{"traceId":"t1","id":"a","name":"unknown","kind":"CLIENT","timestamp":100,"duration":5,"localEndpoint":{"serviceName":"web"}},
 {"traceId":"t1","id":"a","name":"get /cart","tags":{"x":"1"}},
 {"traceId":"t1","id":"b","name":"","kind":"SERVER","timestamp":200,"duration":5,"localEndpoint":{"serviceName":"web"}},
 {"traceId":"t1","id":"b","name":"put","tags":{"y":"1"}}]
J
)
	run tr-ingest "$f"
	expect_eq 0 "$status" status
	expect_eq $'t1\ta\t\t100\t5\tweb\tget /cart\tclient\nt1\tb\t\t200\t5\tweb\tput\tserver' "$(tr-ingest "$f" | ids)"
}

@test "zipkin merge: tags are the union, a later part's value wins; annotations sorted, each once" {
	f=$(mkfix union.json <<'J'
[{"traceId":"t1","id":"a","kind":"CLIENT","name":"get","timestamp":100,"duration":50,
  "localEndpoint":{"serviceName":"web"},"remoteEndpoint":{"serviceName":"db"},
  "tags":{"error":"false","k":"1"},"annotations":[{"timestamp":140,"value":"z"},{"timestamp":110,"value":"b"}]},
 {"traceId":"t1","id":"a","remoteEndpoint":{"serviceName":"cache"},
  "tags":{"error":"true"},"annotations":[{"timestamp":110,"value":"b"},{"timestamp":110,"value":"a"}]}]
J
)
	run tr-ingest "$f"
	expect_eq 0 "$status" status
	# error: the later part's value; peer.service: the remote endpoint
	# Zipkin fills only while unknown, so the first part's
	expect_eq $'S\tt1\ta\t\t100\t50\tweb\tget\tclient\t\tspan.kind=client\terror=true\tk=1\tpeer.service=db' "${lines[2]}"
	expect_eq $'L\tt1\ta\t110\tevent=a' "${lines[3]}"
	expect_eq $'L\tt1\ta\t110\tevent=b' "${lines[4]}"
	expect_eq $'L\tt1\ta\t140\tevent=z' "${lines[5]}"
	expect_num 6 "${#lines[@]}"
}

@test "zipkin merge: parts with different shared flags are not merged" {
	# Neither has a kind or an endpoint: only "shared" tells them apart.
	f=$(mkfix shared.json <<'J'
[{"traceId":"t1","id":"a","name":"call","timestamp":100,"duration":50},
 {"traceId":"t1","id":"a","name":"call","timestamp":110,"duration":30,"shared":true}]
J
)
	expect_eq $'t1\ta\t\t100\t50\t\tcall\t\nt1\ta:s\ta\t110\t30\t\tcall\t' "$(tr-ingest "$f" | ids)"
}

@test "zipkin merge: parts from another local service or address are not merged" {
	f=$(mkfix endpoint.json <<'J'
[{"traceId":"t1","id":"a","name":"get","timestamp":100,"duration":50,
  "localEndpoint":{"serviceName":"web","ipv4":"10.0.0.1"}},
 {"traceId":"t1","id":"a","tags":{"x":"1"},"localEndpoint":{"serviceName":"Web","ipv4":"10.0.0.1"}},
 {"traceId":"t1","id":"a","tags":{"y":"1"},"localEndpoint":{"serviceName":"other"}},
 {"traceId":"t1","id":"a","tags":{"z":"1"},"localEndpoint":{"serviceName":"web","ipv4":"10.0.0.2"}}]
J
)
	run tr-ingest "$f"
	expect_eq 0 "$status" status
	# "Web" is web (Zipkin lower-cases service names); "other" and
	# 10.0.0.2 are other hosts: two more spans, renamed as before
	expect_num 3 "$(printf '%s\n' "$output" | grep -c '^S')"
	expect_contains $'S\tt1\ta\t\t100\t50\tweb\tget\t\t10.0.0.1\tx=1\n' "$output"
	expect_num 2 "$(printf '%s\n' "$output" | grep -c 'tr.renamed_from=a')"
}

@test "zipkin merge: a CLIENT and a SERVER of one host stay two spans: client and server half" {
	# Zipkin's merge would fold them into one CLIENT span and lose the server.
	f=$(mkfix halves.json <<'J'
[{"traceId":"t1","id":"a","kind":"CLIENT","name":"call","timestamp":100,"duration":50,"localEndpoint":{"serviceName":"web"}},
 {"traceId":"t1","id":"a","kind":"SERVER","name":"call","timestamp":110,"duration":30,"localEndpoint":{"serviceName":"web"}}]
J
)
	expect_eq $'t1\ta\t\t100\t50\tweb\tcall\tclient\nt1\ta:s\ta\t110\t30\tweb\tcall\tserver' "$(tr-ingest "$f" | ids)"
}

@test "zipkin merge: identical copies among the parts are counted as dropped duplicates" {
	f=$(mkfix dups.json <<'J'
[{"traceId":"t1","id":"a","kind":"CLIENT","name":"get","timestamp":100,"localEndpoint":{"serviceName":"web"}},
 {"traceId":"t1","id":"a","kind":"CLIENT","name":"get","timestamp":100,"localEndpoint":{"serviceName":"web"}},
 {"traceId":"t1","id":"a","duration":20},
 {"traceId":"t1","id":"b","name":"same","timestamp":1,"duration":2},
 {"traceId":"t1","id":"b","name":"same","timestamp":1,"duration":2}]
J
)
	run tr-ingest "$f"
	expect_eq 0 "$status" status
	expect_eq $'T\tt1\ttr.dropped_duplicates=2' "${lines[1]}"
	expect_eq $'t1\tb\t\t1\t2\t\tsame\t\nt1\ta\t\t100\t20\tweb\tget\tclient' "$(tr-ingest "$f" | ids)"
}

@test "zipkin merge: v1 spans reported in parts are merged too" {
	f=$(mkfix v1parts.json <<'J'
[{"traceId":"t1","id":"a","name":"get",
  "annotations":[{"timestamp":100,"value":"cs","endpoint":{"serviceName":"web"}},
                 {"timestamp":150,"value":"cr","endpoint":{"serviceName":"web"}}]},
 {"traceId":"t1","id":"a","name":"get",
  "binaryAnnotations":[{"key":"http.status","value":"200","endpoint":{"serviceName":"web"}}]}]
J
)
	run tr-ingest -f zipkin1 "$f"
	expect_eq 0 "$status" status
	expect_eq $'S\tt1\ta\t\t100\t50\tweb\tget\tclient\t\tspan.kind=client\thttp.status=200' "${lines[2]}"
	expect_num 3 "${#lines[@]}"
}

@test "zipkin: a 128-bit trace id whose high 64 bits are zero is the same trace as its 64-bit form" {
	f=$(mkfix ids.json <<'J'
[{"traceId":"0000000000000000ABCDEF0123456789","id":"a","kind":"SERVER","name":"root","timestamp":100,"duration":50,"localEndpoint":{"serviceName":"web"}},
 {"traceId":"abcdef0123456789","id":"b","parentId":"a","name":"child","timestamp":110,"duration":10,"localEndpoint":{"serviceName":"web"}},
 {"traceId":"0000000000000001abcdef0123456789","id":"c","name":"other","timestamp":120,"duration":10},
 {"traceId":"00000000000000000000000000000000","id":"d","name":"zero","timestamp":130,"duration":10}]
J
)
	run tr-ingest "$f"
	expect_eq 0 "$status" status
	expect_eq $'abcdef0123456789\n0000000000000001abcdef0123456789\n00000000000000000000000000000000' "$(printf '%s\n' "$output" | grep '^T' | cut -f2)"
	expect_eq $'abcdef0123456789\ta\t\nabcdef0123456789\tb\ta' "$(tr-ingest "$f" | ids | head -2 | cut -f1-3)"
}

@test "zipkin: a broken span under the padded trace id spoils its 64-bit trace" {
	f=$(mkfix badid.json <<'J'
[{"traceId":"abcdef0123456789","id":"a","name":"root","timestamp":100,"duration":50},
 {"traceId":"0000000000000000abcdef0123456789","id":"b","parentId":"a","name":"bad","timestamp":110,"duration":-1},
 {"traceId":"1234","id":"c","name":"good","timestamp":1,"duration":1}]
J
)
	run tr-ingest -k -q "$f"
	expect_eq 3 "$status" status
	expect_eq 1234 "$(printf '%s\n' "$output" | grep '^T' | cut -f2)"
}

@test "zipkin: \"shared\" on a CLIENT span is ignored: the shared SERVER is still its server half" {
	f=$(mkfix client.json <<'J'
[{"traceId":"t1","id":"a","kind":"CLIENT","name":"call","timestamp":100,"duration":50,"shared":true,"localEndpoint":{"serviceName":"web"}},
 {"traceId":"t1","id":"a","kind":"SERVER","name":"call","timestamp":110,"duration":30,"shared":true,"localEndpoint":{"serviceName":"api"}}]
J
)
	run tr-ingest "$f"
	expect_eq 0 "$status" status
	expect_eq $'t1\ta\t\t100\t50\tweb\tcall\tclient\nt1\ta:s\ta\t110\t30\tapi\tcall\tserver' "$(tr-ingest "$f" | ids)"
	expect_lacks 'tr.renamed_from' "$output"
}

@test "zipkin: a SERVER child of a shared span hangs under the half in its own service" {
	f=$(mkfix child.json <<'J'
[{"traceId":"t1","id":"a","kind":"CLIENT","name":"call","timestamp":100,"duration":50,"localEndpoint":{"serviceName":"web"}},
 {"traceId":"t1","id":"a","kind":"SERVER","name":"call","timestamp":110,"duration":30,"shared":true,"localEndpoint":{"serviceName":"api"}},
 {"traceId":"t1","id":"b","parentId":"a","kind":"SERVER","name":"inner","timestamp":115,"duration":10,"localEndpoint":{"serviceName":"api"}},
 {"traceId":"t1","id":"c","parentId":"a","kind":"SERVER","name":"loop","timestamp":120,"duration":10,"localEndpoint":{"serviceName":"web"}}]
J
)
	expect_eq $'a\t\na:s\ta\nb\ta:s\nc\ta' "$(tr-ingest "$f" | ids | cut -f2,3)"
}

@test "otlp spans read with zipkin ones are left alone: no merge, no trace-id shortening" {
	# One JSON Lines file: an OTLP document, then a Zipkin list, one batch.
	f=$(mkfix mixed.jsonl <<'J'
{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"web"}}]},"scopeSpans":[{"spans":[{"traceId":"0000000000000000abcdef0123456789","spanId":"00000000000000aa","name":"get","startTimeUnixNano":"1000","endTimeUnixNano":"2000"},{"traceId":"0000000000000000abcdef0123456789","spanId":"00000000000000aa","name":"","startTimeUnixNano":"1000","endTimeUnixNano":"3000"}]}]}]}
[{"traceId":"0000000000000000abcdef0123456789","id":"b","kind":"CLIENT","name":"get","timestamp":1,"duration":2},{"traceId":"0000000000000000abcdef0123456789","id":"b","tags":{"x":"1"}}]
J
)
	run tr-ingest "$f"
	expect_eq 0 "$status" status
	expect_eq $'0000000000000000abcdef0123456789\nabcdef0123456789' "$(printf '%s\n' "$output" | grep '^T' | cut -f2)"
	expect_eq $'0000000000000000abcdef0123456789\t00000000000000aa\n0000000000000000abcdef0123456789\t00000000000000aa~2\nabcdef0123456789\tb' "$(tr-ingest "$f" | ids | cut -f1,2)"
}

@test "ecosystem netflix.json: the 6 spans Zipkin shows, late fragments merged into their client span" {
	f="$ECO/zipkin/netflix.json"
	[ -f "$f" ] || skip "no ../shared/ecosystem/zipkin/netflix.json beside the project"
	run tr-ingest "$f"
	expect_eq 0 "$status" status
	expect_num 6 "$(printf '%s\n' "$output" | grep -c '^S')"
	expect_lacks '~' "$output"
	# 6c59056709a0b1e4: the client span keeps its time and gains both
	# fragments' annotations and tags; the session_logs server is its half
	c=$(printf '%s\n' "$output" | awk -F'\t' '$1 == "S" && $3 == "6c59056709a0b1e4"')
	expect_eq $'67fae42571535f60:s\t1516781775742000\t8000\tapi\t/m/n/2.6.1\tclient' "$(printf '%s\n' "$c" | cut -f4-9)"
	expect_contains $'\tsalp.niws.data.rest_client_name=session-logs-client' "$c"
	expect_contains $'\tsalp.hystrix.data.hystrix.cmd_name=PDS_REPORT_LOG' "$c"
	expect_eq $'event=salp.hystrix\nevent=salp.niws' "$(printf '%s\n' "$output" | awk -F'\t' '$1 == "L" && $3 == "6c59056709a0b1e4" { print $5 }')"
	expect_eq '6c59056709a0b1e4 session_logs' "$(printf '%s\n' "$output" | awk -F'\t' '$1 == "S" && $3 == "6c59056709a0b1e4:s" { print $4, $7 }')"
}

# The S records' id and their tr.zipkin_* tags.
zmarks() {
	awk -F'\t' '$1 == "S" { m = ""; for (i = 11; i <= NF; i++) if ($i ~ /^tr\.zipkin_/) m = m " " $i; print $3 m }'
}

@test "zipkin merge: a CLIENT without local endpoint and an unflagged SERVER part of its id are one span, as in Zipkin" {
	f=$(mkfix noendpoint.json <<'J'
[{"traceId":"t1","id":"a","kind":"CLIENT","name":"call","timestamp":100,"duration":50},
 {"traceId":"t1","id":"a","kind":"SERVER","localEndpoint":{"serviceName":"api"},"tags":{"x":"1"}}]
J
)
	run tr-ingest "$f"
	expect_eq 0 "$status" status
	expect_eq $'t1\ta\t\t100\t50\tapi\tcall\tclient' "$(printf '%s\n' "$output" | ids)"
	expect_contains $'\tx=1' "$output"
}

@test "zipkin tree: a child whose local endpoint is not the shared server's (port included) is marked with Zipkin's parent, the client half" {
	f=$(mkfix port.json <<'J'
[{"traceId":"t1","id":"a","kind":"CLIENT","name":"call","timestamp":100,"duration":50,"localEndpoint":{"serviceName":"web"}},
 {"traceId":"t1","id":"a","kind":"SERVER","name":"call","timestamp":110,"duration":30,"shared":true,"localEndpoint":{"serviceName":"api","port":81}},
 {"traceId":"t1","id":"b","parentId":"a","name":"same","timestamp":112,"duration":5,"localEndpoint":{"serviceName":"api","port":81}},
 {"traceId":"t1","id":"c","parentId":"a","name":"noport","timestamp":115,"duration":5,"localEndpoint":{"serviceName":"api"}}]
J
)
	# tr hangs both under the server half; Zipkin only b
	expect_eq $'a\t\na:s\ta\nb\ta:s\nc\ta:s' "$(tr-ingest "$f" | ids | cut -f2,3)"
	expect_eq $'a\na:s\nb\nc tr.zipkin_parent=a' "$(tr-ingest "$f" | zmarks)"
}

@test "zipkin tree: a shared span of no kind and no client half hangs under the root; a shared SERVER keeps its parent unmarked" {
	f=$(mkfix headless.json <<'J'
[{"traceId":"t1","id":"r","kind":"SERVER","name":"root","timestamp":100,"duration":50,"localEndpoint":{"serviceName":"web"}},
 {"traceId":"t1","id":"l","parentId":"r","name":"local","timestamp":101,"duration":40,"localEndpoint":{"serviceName":"web"}},
 {"traceId":"t1","id":"k","parentId":"l","name":"call db","timestamp":102,"duration":5,"shared":true,"localEndpoint":{"serviceName":"api"},"remoteEndpoint":{"serviceName":"db"}},
 {"traceId":"t1","id":"s","parentId":"l","kind":"SERVER","name":"srv","timestamp":110,"duration":5,"shared":true,"localEndpoint":{"serviceName":"api"}}]
J
)
	expect_eq $'r\t\nl\tr\nk\tl\ns\tl' "$(tr-ingest "$f" | ids | cut -f2,3)"
	expect_eq $'r\nl\nk tr.zipkin_parent=\ns' "$(tr-ingest "$f" | zmarks)"
}

@test "zipkin tree: an unflagged SERVER part with the endpoint of the shared server of its id is marked hidden: Zipkin keeps the later one" {
	f=$(mkfix twin.json <<'J'
[{"traceId":"t1","id":"a","kind":"CLIENT","name":"call","timestamp":100,"duration":50,"localEndpoint":{"serviceName":"web"}},
 {"traceId":"t1","id":"a","kind":"SERVER","localEndpoint":{"serviceName":"api"},"tags":{"error":"late"}},
 {"traceId":"t1","id":"a","kind":"SERVER","name":"get","timestamp":110,"duration":30,"shared":true,"localEndpoint":{"serviceName":"api"}}]
J
)
	run tr-ingest "$f"
	expect_eq 0 "$status" status
	# both halves are written; the part without time is the one Zipkin loses
	expect_eq $'a\na:s~2\na:s tr.zipkin_hidden=true' "$(printf '%s\n' "$output" | zmarks)"
	expect_contains $'\terror=late' "$(printf '%s\n' "$output" | grep $'\ta:s\t')"
}
