#!/usr/bin/env bats
# The JSON the tools write (libjansson encodes it): valid JSON whatever bytes
# a name holds, and no hand-written string escaping left in the sources.
load helper

R=$'\357\277\275'	# U+FFFD, written for each byte that starts no UTF-8 character

# Two traces whose services hold bytes that are not UTF-8: a stray 0xff in
# the caller, a cut three-byte character at the end of the callee.
not_utf8() {
	printf '#tr/1\n'
	for t in t1 t2; do
		printf 'T\t%s\n' "$t"
		printf 'S\t%s\ta\t\t1767225600000000\t900\tw\377eb\tGET /\tserver\t\n' "$t"
		printf 'S\t%s\tb\ta\t1767225600000100\t300\tdb \342\202\tquery\tclient\t\n' "$t"
	done
}

# Fails, printing the text, unless stdin is one valid JSON document (or,
# with --lines, a valid JSON value on each line that starts with '{').
valid_json() {
	local text
	text=$(cat)
	if [ "${1:-}" = --lines ]; then
		printf '%s\n' "$text" | grep '^{' | python3 -c '
import sys, json
for line in sys.stdin.buffer:
    json.loads(line.decode("utf-8"))' && return 0
	else
		printf '%s' "$text" | python3 -c 'import sys, json; json.loads(sys.stdin.buffer.read().decode("utf-8"))' &&
			return 0
	fi
	echo "not valid JSON: $text"
	return 1
}

setup() {
	command -v python3 >/dev/null || skip "no python3 to check the JSON"
	f="$BATS_TEST_TMPDIR/bad.tr"
	not_utf8 > "$f"
}

@test "tr-cp --summary service -f json: a name that is not UTF-8 is valid JSON, U+FFFD a bad byte" {
	run tr-cp --summary service -f json "$f"
	expect_eq 0 "$status" status
	valid_json <<<"$output"
	expect_contains "\"service\": \"w${R}eb\"" "$output"
	expect_contains "\"db $R$R\"" "$output"
}

@test "tr-cp --whatif -f json: a name that is not UTF-8 is valid JSON" {
	run tr-cp --whatif "service=db $(printf '\342\202'):scale=0.5" -f json "$f"
	expect_eq 0 "$status" status
	valid_json <<<"$output"
}

@test "tr-infer -f json: events of a name that is not UTF-8 are valid JSON" {
	run tr-infer -f json "$f"
	expect_eq 0 "$status" status
	valid_json <<<"$output"
	expect_contains "\"from\":\"w${R}eb:GET /_S\"" "$output"
}

@test "tr-infer --links -f json: a service that is not UTF-8 is valid JSON" {
	run tr-infer --links -f json "$f"
	expect_eq 0 "$status" status
	valid_json <<<"$output"
	expect_output "[
{\"parent\":\"w${R}eb\",\"child\":\"db $R$R\",\"callCount\":2,\"errorCount\":0}
]"
}

@test "tr-infer --links -f jaeger-json: a service that is not UTF-8 is valid JSON" {
	run tr-infer --links -f jaeger-json "$f"
	expect_eq 0 "$status" status
	valid_json <<<"$output"
}

@test "tr-aggregate -f json: a key that is not UTF-8 is valid JSON" {
	run tr-aggregate -f json 'From s In spans GroupBy s.service Select s.service, COUNT' "$f"
	expect_eq 0 "$status" status
	valid_json <<<"$output"
}

@test "tr-temporal -f json: a name that is not UTF-8 is valid JSON" {
	run tr-temporal -f json "$f"
	expect_eq 0 "$status" status
	valid_json <<<"$output"
}

@test "tr-cp -f json over PAG records: a worker that is not UTF-8 is valid JSON on each line" {
	printf '#tr/1\nPG\t\t0\t0\t0\t5\nPW\t\t0\tw\377\t0\nPE\t\t1\t2\tprocessing\t0\t5\t0\t0\ta\342\202\tx\n' > "$f"
	run tr-cp -f json "$f"
	expect_eq 0 "$status" status
	valid_json --lines <<<"$output"
	expect_contains "\"key\":\"a$R$R\"" "$output"
}

@test "-f json: control characters are escaped as jansson escapes them" {
	printf '#tr/1\nT\tt1\nS\tt1\ta\t\t0\t9\tw%%0Ae\001\037\tGET\t\t\n' > "$f"
	run tr-aggregate -f json 'From s In spans Select s.service' "$f"
	expect_output '[
{"s.service":"w\ne\u0001\u001F"}
]'
}

@test "tr-ingest: a nested tag value is written as compact JSON, members in input order" {
	g=$(mkfix nested.json <<'J'
{"data":[{"traceID":"t1","spans":[{"traceID":"t1","spanID":"a","operationName":"op","startTime":1767225600000000,"duration":9,"processID":"p",
 "tags":[{"key":"k","type":"string","value":{"z":[1,2.5,-0.0,1e300,"\u00e9\n\u001f\"\\/"],"b":null,"c":{},"d":[],"e":true}}]}],
 "processes":{"p":{"serviceName":"web"}}}]}
J
	)
	run tr-ingest "$g"
	expect_eq 0 "$status" status
	expect_eq 'k={"z":[1,2.5,-0.0,1.0000000000000001e300,"é\n\u001F\"\\/"],"b":null,"c":{},"d":[],"e":true}' \
		"$(printf '%s\n' "$output" | awk -F'\t' '$1 == "S" { print $11 }')"
}

@test "tr-ingest: a name repeated in a nested tag value keeps its first place and its last value" {
	g=$(mkfix repeated.json <<'J'
{"data":[{"traceID":"t1","spans":[{"traceID":"t1","spanID":"a","operationName":"op","startTime":1767225600000000,"duration":9,"processID":"p",
 "tags":[{"key":"k","type":"string","value":{"a":[1],"b":2,"a":3}}]}],
 "processes":{"p":{"serviceName":"web"}}}]}
J
	)
	run tr-ingest "$g"
	expect_eq 0 "$status" status
	expect_eq 'k={"a":3,"b":2}' "$(printf '%s\n' "$output" | awk -F'\t' '$1 == "S" { print $11 }')"
}

@test "no hand-written JSON string escaping in src/: libjansson encodes every string" {
	cd "$BATS_TEST_DIRNAME/.."
	# the removed writers, and code that spells \u escapes itself
	run grep -rnE 'table_json_string|dump_real|\\\\u%0?4|'"'"'\\\\'"'"', *'"'"'u'"'"'' src
	expect_eq "" "$output" "hand-written JSON escaping"
	run grep -rlE '#include <jansson.h>' src
	expect_eq "src/lib/core/json.h" "$output" "the one header that includes jansson"
}

@test "the tools link libjansson" {
	command -v ldd >/dev/null || skip "no ldd"
	run ldd "$(command -v tr-cp)"
	expect_contains "libjansson" "$output"
}
