#!/usr/bin/env bats
# Every tool walked the way a user trips over it: a raw export instead of the
# line format (plain and .zst), an empty input, a .tr cut off mid-line, a
# selector that matches nothing, an unknown trace id. Each gives the status
# tr(7) documents and exactly one line on stderr; none exits 0 with an empty
# or copied-through result. A tool without such an option is named as such.

load helper
bats_require_minimum_version 1.5.0

TAB=$'\t'

# Two requests of a Jaeger query-API export: frontend calls mysql.
export_json() {
	cat > "$BATS_TEST_TMPDIR/x.json" <<-'EOF'
	{"data":[
	 {"traceID":"aaaa000000000001","spans":[
	  {"traceID":"aaaa000000000001","spanID":"0000000000000001","operationName":"GET /dispatch",
	   "references":[],"startTime":1700000000000000,"duration":10000,"processID":"p1",
	   "tags":[{"key":"span.kind","type":"string","value":"server"}]},
	  {"traceID":"aaaa000000000001","spanID":"0000000000000002","operationName":"SELECT",
	   "references":[{"refType":"CHILD_OF","traceID":"aaaa000000000001","spanID":"0000000000000001"}],
	   "startTime":1700000000001000,"duration":6000,"processID":"p2",
	   "tags":[{"key":"span.kind","type":"string","value":"client"},
	           {"key":"db.system","type":"string","value":"mysql"}]}],
	  "processes":{"p1":{"serviceName":"frontend","tags":[{"key":"hostname","type":"string","value":"fe-1"}]},
	               "p2":{"serviceName":"mysql","tags":[{"key":"hostname","type":"string","value":"db-1"}]}}},
	 {"traceID":"aaaa000000000002","spans":[
	  {"traceID":"aaaa000000000002","spanID":"0000000000000003","operationName":"GET /dispatch",
	   "references":[],"startTime":1700000000020000,"duration":8000,"processID":"p1",
	   "tags":[{"key":"span.kind","type":"string","value":"server"}]},
	  {"traceID":"aaaa000000000002","spanID":"0000000000000004","operationName":"SELECT",
	   "references":[{"refType":"CHILD_OF","traceID":"aaaa000000000002","spanID":"0000000000000003"}],
	   "startTime":1700000000021000,"duration":2000,"processID":"p2",
	   "tags":[{"key":"span.kind","type":"string","value":"client"}]}],
	  "processes":{"p1":{"serviceName":"frontend","tags":[{"key":"hostname","type":"string","value":"fe-1"}]},
	               "p2":{"serviceName":"mysql","tags":[{"key":"hostname","type":"string","value":"db-1"}]}}}
	]}
	EOF
	printf '%s\n' "$BATS_TEST_TMPDIR/x.json"
}

# Each line-format tool as a user runs it, with its usual arguments.
filters() {
	printf '%s\n' tr-cp 'tr-cp --summary service' tr-pag tr-temporal tr-infer 'tr-infer --links' \
		'tr-aggregate From s In spans GroupBy s.service Select s.service, COUNT'
}

# Run "$1" (a line of filters: a tool, options, and for tr-aggregate the
# query as the rest of the line) with the remaining arguments (options are
# taken after the query too).
tool() {
	local line=$1
	shift
	case $line in
	tr-aggregate*) run --separate-stderr tr-aggregate "${line#tr-aggregate }" "$@" ;;
	*) # shellcheck disable=SC2086
	   run --separate-stderr $line "$@" ;;
	esac
}

# Exactly one line on stderr, matching the extended regex $1.
one_line() {
	expect_num 1 "${#stderr_lines[@]}" "lines on stderr" || { echo "stderr: $stderr"; return 1; }
	expect_match "$1" "$stderr" stderr
}

@test "a raw export, plain and .zst, is analysed by every tool as tr-ingest's output would be; never copied through" {
	x=$(export_json)
	zstd -q -o "$x.zst" "$x"
	run tr-ingest "$x"
	expect_eq 0 "$status" status
	expect_num 4 "$(grep -c "^S$TAB" <<<"$output")"
	tr-ingest "$x" > "$BATS_TEST_TMPDIR/x.tr"
	while read -r t; do
		for f in "$x" "$x.zst"; do
			tool "$t" "$f"
			expect_status 0 || { echo "$t $f: status $status: $stderr"; false; }
			[ -n "$output" ] || { echo "$t $f: no output"; false; }
			expect_lacks '"traceID"' "$output" || { echo "$t $f: the export was copied through"; false; }
			want=$output
			tool "$t" "$BATS_TEST_TMPDIR/x.tr"
			expect_output "$want" || { echo "$t $f: not as on tr-ingest's output"; false; }
		done
	done < <(filters)
}

@test "an empty input: exit 3, one line naming it, nothing on stdout, in every tool" {
	: > "$BATS_TEST_TMPDIR/empty.tr"
	run --separate-stderr tr-ingest "$BATS_TEST_TMPDIR/empty.tr"
	expect_eq 3 "$status" status
	one_line "^tr-ingest: .*/empty.tr: no span in the input \(--allow-empty accepts that\)$"
	while read -r t; do
		tool "$t" "$BATS_TEST_TMPDIR/empty.tr"
		expect_status 3 || { echo "$t: status $status"; false; }
		one_line "^${t%% *}: .*/empty.tr: no trace in the input \(--allow-empty accepts that\)$"
		[ -z "$output" ] || { echo "$t wrote: $output"; false; }
	done < <(filters)
	# an empty pipe too
	while read -r t; do
		tool "$t" - < /dev/null
		expect_eq 3 "$status" status
		one_line "^${t%% *}: <stdin>: no trace in the input"
	done < <(filters)
}

@test "an empty input: --allow-empty accepts it in every tool" {
	: > "$BATS_TEST_TMPDIR/empty.tr"
	while read -r t; do
		tool "$t" --allow-empty "$BATS_TEST_TMPDIR/empty.tr"
		expect_status 0 || { echo "$t --allow-empty: status $status"; false; }
		expect_empty "$stderr"
	done < <(filters)
}

@test "a .tr cut off mid-line: exit 3, one line naming the cut trace, the whole traces still out" {
	x=$(export_json)
	tr-ingest "$x" > "$BATS_TEST_TMPDIR/full.tr"
	# cut inside the last record's last field: what is left still parses
	head -c -3 "$BATS_TEST_TMPDIR/full.tr" > "$BATS_TEST_TMPDIR/cut.tr"
	while read -r t; do
		tool "$t" "$BATS_TEST_TMPDIR/cut.tr"
		expect_status 3 || { echo "$t: status $status"; false; }
		one_line "^${t%% *}: .*/cut.tr:[0-9]+: trace aaaa000000000002: the input broke off before its end, it may be incomplete: skipped$"
		expect_lacks 'aaaa000000000002' "$output" || { echo "$t wrote the cut trace"; false; }
	done < <(filters)
	# the filters still write the whole trace
	tool tr-cp "$BATS_TEST_TMPDIR/cut.tr"
	expect_num 2 "$(grep -c "^S${TAB}aaaa000000000001" <<<"$output")"
	# tr-ingest's input is an export: one cut off mid-document
	head -c 900 "$x" > "$BATS_TEST_TMPDIR/cut.json"
	run --separate-stderr tr-ingest "$BATS_TEST_TMPDIR/cut.json"
	expect_eq 3 "$status" status
	one_line "^tr-ingest: .*/cut.json:[0-9]+:[0-9]+: "
	# and a cut .tr given to tr-ingest (which reads the line format, to
	# regroup and shard it) is refused as the filters refuse it
	run --separate-stderr tr-ingest "$BATS_TEST_TMPDIR/cut.tr"
	expect_eq 3 "$status" status
	one_line "^tr-ingest: .*/cut.tr:[0-9]+: trace aaaa000000000002: the input broke off before its end, it may be incomplete: skipped$"
}

@test "a selector that matches nothing: exit 2 (under a gate too), one line with the closest name, in every tool that has one" {
	x=$(export_json)
	tr-ingest "$x" > "$BATS_TEST_TMPDIR/x.tr"
	f=$BATS_TEST_TMPDIR/x.tr
	run --separate-stderr tr-cp --whatif 'service=mysqll:scale=0.5' "$f"
	expect_eq 2 "$status" status
	one_line 'mysqll.*did you mean "?mysql"?\?'
	run --separate-stderr tr-cp --summary servcie "$f"
	expect_eq 2 "$status" status
	one_line "servcie.*did you mean service\?"
	expect_empty "$output"
	run --separate-stderr tr-pag --worker-key service,zone "$f"
	expect_eq 2 "$status" status
	one_line "^tr-pag: --worker-key .*zone"
	run --separate-stderr tr-temporal -r lokc "$f"
	expect_eq 2 "$status" status
	one_line "^tr-temporal: -r lokc"
	run --separate-stderr tr-aggregate 'From s In spans GroupBy s.tag["db.sytem"] Select s.tag["db.sytem"], COUNT' "$f"
	expect_eq 2 "$status" status
	one_line "db.sytem.*did you mean db.system\?"
	run --separate-stderr tr-aggregate --fail-if 'COUNT > 1' 'From s In spans[service = "mysqll"] Select COUNT' "$f"
	expect_eq 2 "$status" status
	# the closest name, then the gate's verdict
	expect_num 2 "${#stderr_lines[@]}" || { echo "want two lines on stderr, got: $stderr"; false; }
	expect_eq 'tr-aggregate: no span has service "mysqll" (did you mean "mysql"?)' "${stderr_lines[0]}" || { echo "$stderr"; false; }
	expect_like "tr-aggregate: fail-if COUNT > 1: the query matched no row: the gate fails*" "${stderr_lines[1]}" || { echo "$stderr"; false; }
	# tr-ingest's one selector is the format it is told to read
	run --separate-stderr tr-ingest -f zipkin "$x"
	expect_eq 3 "$status" status
	one_line "not a Jaeger, Zipkin or OTLP document of the format given with -f"
	# tr-infer has no selector: its names and thresholds are checked as syntax
	run --separate-stderr tr-infer --name service,zone "$f"
	expect_eq 2 "$status" status
}

@test "an unknown trace id: exit 2, one line with the closest id, in every tool that takes one" {
	x=$(export_json)
	tr-ingest "$x" > "$BATS_TEST_TMPDIR/x.tr"
	f=$BATS_TEST_TMPDIR/x.tr
	for t in 'tr-cp' 'tr-cp --dot' 'tr-cp --summary service' 'tr-temporal' 'tr-temporal --explain'; do
		tool "$t" --trace aaaa000000000003 "$f"
		expect_status 2 || { echo "$t: status $status"; false; }
		one_line "aaaa000000000003.*no trace has this id.*aaaa00000000000[12]"
	done
	# the other tools select traces through the query language
	run --separate-stderr tr-aggregate --fail-if 'COUNT > 0' 'From s In spans Where s.trace = "aaaa000000000003"
		Select COUNT' "$f"
	expect_eq 1 "$status" status
	one_line "the query matched no row"
}

@test "tr-report walked the same way: an export in (plain, .zst), an empty input, a cut .tr" {
	x=$(export_json)
	zstd -q -o "$x.zst" "$x"
	for f in "$x" "$x.zst"; do
		run --separate-stderr tr-report "$f"
		expect_eq 0 "$status" status
		expect_contains '<html' "$output"
		expect_contains 'GET /dispatch' "$output"
		expect_lacks '"traceID"' "$output"
	done
	: > "$BATS_TEST_TMPDIR/empty.tr"
	run --separate-stderr tr-report -o "$BATS_TEST_TMPDIR/r.html" "$BATS_TEST_TMPDIR/empty.tr"
	expect_eq 3 "$status" status
	one_line "^tr-report: .*/empty.tr: no trace in the input \(--allow-empty accepts that\)$"
	[ ! -e "$BATS_TEST_TMPDIR/r.html" ]
	run --separate-stderr tr-report --allow-empty "$BATS_TEST_TMPDIR/empty.tr"
	expect_eq 0 "$status" status
	expect_contains 'none: no trace in the input' "$output"
	tr-ingest "$x" | head -c -3 > "$BATS_TEST_TMPDIR/cut.tr"
	run --separate-stderr tr-report "$BATS_TEST_TMPDIR/cut.tr"
	expect_eq 3 "$status" status
	one_line "^tr-report: .*/cut.tr:[0-9]+: trace aaaa000000000002: the input broke off before its end"
	expect_empty "$output"
}
