#!/usr/bin/env bats
# tr-ingest on the real export files of ../shared/ecosystem (read there,
# never copied): each gives the span count its README's "expected S" column
# says, and the foreign ones ("—") are rejected with one line naming what
# they look like.
load helper

ECO="${TR_SHARED:-$BATS_TEST_DIRNAME/../../shared}/ecosystem"

need_ecosystem() {
	[ -f "$ECO/README.md" ] || skip "no ../shared/ecosystem beside the project"
}

# "file<TAB>expected" for each row of the README's table; expected is the
# first number in the "(expected S)" parentheses, or "-" for a dash.
expected_counts() {
	awk -F'|' '$2 ~ /`/ && $7 ~ /\(/ {
		f = $2; gsub(/[ `†]/, "", f)
		e = $7; sub(/^[^(]*\(/, "", e); sub(/\).*/, "", e); gsub(/\*/, "", e)
		if (e ~ /^—/) e = "-"; else { match(e, /[0-9]+/); e = substr(e, RSTART, RLENGTH) }
		print f "\t" e
	}' "$ECO/README.md"
}

@test "every ecosystem file gives the README's expected span count, or is rejected when it says —" {
	need_ecosystem
	n=0 bad=""
	while IFS="$(printf '\t')" read -r f want; do
		# Zipkin itself merges netflix.json's two late fragments into their
		# span: 6 spans, as Zipkin shows them (the README counts objects).
		[ "$f" = zipkin/netflix.json ] && want=6
		got=$(tr-ingest "$ECO/$f" 2>"$BATS_TEST_TMPDIR/err" | grep -c "^S" || true)
		status=$(tr-ingest "$ECO/$f" >/dev/null 2>&1; echo $?)
		if [ "$want" = - ]; then
			[ "$status" -eq 3 ] && [ "$got" -eq 0 ] && grep -q 'looks like\|no traces' "$BATS_TEST_TMPDIR/err" ||
				bad="$bad $f(status $status, $got spans: $(head -c 200 "$BATS_TEST_TMPDIR/err"))"
		else
			[ "$status" -eq 0 ] && [ "$got" -eq "$want" ] ||
				bad="$bad $f(status $status, $got spans, want $want: $(head -c 200 "$BATS_TEST_TMPDIR/err"))"
		fi
		n=$((n + 1))
	done < <(expected_counts)
	[ -z "$bad" ] || { echo "wrong:$bad" >&2; false; }
	expect_num 31 "$n"
}

@test "Tempo search result: rejected, naming it and /api/traces/<id>" {
	need_ecosystem
	run tr-ingest "$ECO/kiali/responseAmbient.json"
	expect_eq 3 "$status" status
	expect_like "tr-ingest: $ECO/kiali/responseAmbient.json:1:1: looks like a Tempo search result*/api/traces/<id>*" "$output"
}

@test "AWS X-Ray and Datadog payloads: rejected, naming them" {
	need_ecosystem
	run tr-ingest "$ECO/otelcol-contrib/serverSample.txt"
	expect_eq 3 "$status" status
	expect_contains 'looks like an AWS X-Ray' "$output"
	run tr-ingest "$ECO/dd-trace-py/test_multi_trace.json"
	expect_eq 3 "$status" status
	expect_contains 'looks like a Datadog agent payload' "$output"
}

@test "Collector file exporter with metrics and logs: spans read, the rest counted in one note, exit 0" {
	need_ecosystem
	run tr-ingest "$ECO/otel-tui/test_data.json"
	expect_eq 0 "$status" status
	expect_num 547 "$(printf '%s\n' "$output" | grep -c '^S')"
	expect_num 1 "$(printf '%s\n' "$output" | grep -c '^tr-ingest: .*skipped 56 OTLP metrics, logs or profiles documents (not traces)$')"
}

@test "-v names the format detected for each file" {
	need_ecosystem
	for pair in "kiali/responseTrace.json:Tempo trace (batches)" "jaeger/trace_success.json:Jaeger span list" \
		"jaeger/GetTrace.json:Jaeger api_v3 (OTLP)" "perses/async_jaeger.json:Jaeger trace" \
		"grafana-oats/5b584103c6fc5ddf423cb2fb6552d0f0.json:OTLP JSON (JSON Lines)" \
		"otelcol/zipkin_v1_multiple_batches.json:Zipkin"; do
		f=${pair%%:*} name=${pair#*:}
		tr-ingest -v "$ECO/$f" 2>&1 >/dev/null | grep -qxF "tr-ingest: $ECO/$f: $name: ok" ||
			{ echo "$f: not named $name" >&2; false; }
	done
}
