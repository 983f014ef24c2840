#!/usr/bin/env bats
# Every filter reads a Jaeger, Zipkin or OTLP export directly, as
# `tr-ingest FILE | tool` would read it; a file that is neither an export nor
# the line format is one message and exit 3, never copied to the output.

load helper
bats_require_minimum_version 1.5.0

TAB=$'\t'

# Each filter with the arguments it is run with here, one a line.
filters() {
	printf '%s\n' tr-cp 'tr-cp --summary service' tr-pag tr-temporal tr-infer 'tr-infer --links' 'tr-infer --reformat' \
		"tr-aggregate${TAB}From s In spans GroupBy s.service Select s.service, COUNT, P99(s.duration)"
}

# Run filter line $1 (words, a query after a TAB) on the rest of the arguments.
filter() {
	local line=$1 query
	shift
	case $line in
	*"$TAB"*) query=${line#*"$TAB"}; set -- "$query" "$@"; line=${line%%"$TAB"*} ;;
	esac
	# shellcheck disable=SC2086
	$line "$@"
}

# The exports used here: small real ones of each format.
exports() {
	printf '%s\n' "$CONF/zipkin/yelp.json" "$CONF/zipkin/zipkin_v1_single_batch.json" \
		"$CONF/jaeger/integration-example_trace.json" "$CONF/otlp/trace.json"
}

@test "each filter reads an export (Zipkin v1 and v2, Jaeger, OTLP) as it reads tr-ingest's output of it" {
	need_conformance
	while read -r f; do
		while read -r tool; do
			want=$(tr-ingest "$f" | filter "$tool")
			got=$(filter "$tool" "$f")
			[ -n "$want" ] || { echo "$tool: nothing for $f"; false; }
			expect_eq "$want" "$got" || { echo "$tool $f differs"; false; }
		done < <(filters)
	done < <(exports)
}

@test "a compressed export (.zst, .gz) and one on standard input read the same" {
	need_conformance
	f="$CONF/zipkin/yelp.json"
	zstd -q -c "$f" > "$BATS_TEST_TMPDIR/yelp.json.zst"
	gzip -c "$f" > "$BATS_TEST_TMPDIR/yelp.json.gz"
	while read -r tool; do
		want=$(tr-ingest "$f" | filter "$tool")
		expect_eq "$want" "$(filter "$tool" "$BATS_TEST_TMPDIR/yelp.json.zst")"
		expect_eq "$want" "$(filter "$tool" "$BATS_TEST_TMPDIR/yelp.json.gz")"
		expect_eq "$want" "$(filter "$tool" < "$f")"
		expect_eq "$want" "$(filter "$tool" - < "$BATS_TEST_TMPDIR/yelp.json.zst")"
	done < <(filters)
}

@test "a Jaeger .json.zst export of many traces reads as tr-ingest's output of it" {
	need_conformance
	f="$CONF/jaeger/deathstarbench-traces-1695947455229.json.zst"
	while read -r tool; do
		expect_eq "$(tr-ingest "$f" | filter "$tool")" "$(filter "$tool" "$f")"
	done < <(filters)
}

@test "-v names each export's shape in one line" {
	need_conformance
	run tr-cp -v "$CONF/zipkin/yelp.json"
	expect_eq 0 "$status" status
	expect_contains "tr-cp: $CONF/zipkin/yelp.json: an export (Zipkin), converted as tr-ingest converts it: 1 traces" "$output"
	f="$CONF/jaeger/deathstarbench-traces-1695947455229.json.zst"
	run tr-temporal -v -o "$BATS_TEST_TMPDIR/out" "$f"
	expect_eq 0 "$status" status
	n=$(tr-ingest "$f" | grep -c "^T$TAB")
	expect_eq "tr-temporal: $f: an export (Jaeger query API, zstd), converted as tr-ingest converts it: $n traces" "${lines[0]}"
}

@test "-v on the line format names no export" {
	need_conformance
	tr-ingest "$CONF/zipkin/yelp.json" > "$BATS_TEST_TMPDIR/yelp.tr"
	run tr-pag -v -o "$BATS_TEST_TMPDIR/out" "$BATS_TEST_TMPDIR/yelp.tr"
	expect_eq 0 "$status" status
	expect_lacks 'an export' "$output"
	run tr-cp -o "$BATS_TEST_TMPDIR/out" "$CONF/zipkin/yelp.json"
	expect_empty "$output"
}

@test "exports and line-format files mix in one run, in order" {
	need_conformance
	printf '#tr/1\nT\tlocal\nS\tlocal\ta\t\t1000\t500\tsvc\top\tserver\th\n' | mkfix local.tr >/dev/null
	printf '#tr/1\nT\tlocal2\nS\tlocal2\ta\t\t2000\t500\tsvc\top\tserver\th\n' | mkfix local2.tr >/dev/null
	# (a trace id once only: one met again after its group ended is bad input)
	a="$BATS_TEST_TMPDIR/local.tr" b="$BATS_TEST_TMPDIR/local2.tr"
	y="$CONF/zipkin/yelp.json" j="$CONF/jaeger/integration-example_trace.json"
	while read -r tool; do
		want=$({ cat "$a"; tr-ingest "$y"; cat "$b"; tr-ingest "$j"; } | filter "$tool")
		expect_eq "$want" "$(filter "$tool" "$a" "$y" "$b" "$j")"
	done < <(filters)
}

@test "an export with a broken trace: the good ones are read, the bad one named, exit 3 (-k as tr-ingest -k)" {
	mkfix broken.json >/dev/null <<-'EOF'
	[{"traceId":"a1","id":"01","name":"get","timestamp":1000,"duration":50,"localEndpoint":{"serviceName":"web"}},
	 {"traceId":"b2","id":"02","name":"get","timestamp":"soon","duration":50,"localEndpoint":{"serviceName":"web"}}]
	EOF
	f="$BATS_TEST_TMPDIR/broken.json"
	while read -r tool; do
		run filter "$tool" -k "$f"
		expect_eq 3 "$status" status
		expect_like "*$f:*:*: *" "$output"
		want=$(tr-ingest -k "$f" 2>/dev/null | filter "$tool" -k 2>/dev/null)
		expect_eq "$want" "$(filter "$tool" -k "$f" 2>/dev/null)"
		expect_lacks 'soon' "$want"
	done < <(filters)
}

@test "tr-infer --reformat -k on an export: both passes skip the broken trace and read the rest" {
	mkfix broken-first.json >/dev/null <<-'EOF'
	[{"traceId":"a1","id":"01","name":"get","timestamp":"soon","duration":50,"localEndpoint":{"serviceName":"web"}},
	 {"traceId":"b2","id":"02","name":"get","timestamp":1000,"duration":50,"localEndpoint":{"serviceName":"web"}},
	 {"traceId":"b2","id":"03","parentId":"02","name":"q","timestamp":1010,"duration":20,"localEndpoint":{"serviceName":"db"}}]
	EOF
	f="$BATS_TEST_TMPDIR/broken-first.json"
	run tr-infer --reformat -k "$f"
	expect_eq 3 "$status" status
	want=$(tr-ingest -k "$f" 2>/dev/null | tr-infer --reformat -k 2>/dev/null)
	expect_eq "$want" "$(tr-infer --reformat -k "$f" 2>/dev/null)"
	# the model learnt from b2: its edges are there
	expect_contains $'\nIE\tb2\t' "$want"
}

@test "a file that is neither the line format nor an export: one message, exit 3, nothing of it written" {
	printf 'service,count\nmysql,2\n' | mkfix table.csv >/dev/null
	printf 's.service\tCOUNT\nmysql\t2\n' | mkfix report.tsv >/dev/null
	printf '\n\n\177ELF\001\002\003\n' | mkfix prog.bin >/dev/null
	printf '{"spans": 3}\n' | mkfix other.json >/dev/null
	while read -r tool; do
		for f in table.csv report.tsv prog.bin other.json; do
			run --separate-stderr filter "$tool" "$BATS_TEST_TMPDIR/$f"
			expect_status 3 || { echo "$tool $f: $status"; false; }
			expect_num 1 "${#stderr_lines[@]}" || { echo "$tool $f: $stderr"; false; }
			expect_like "${tool%%[ $TAB]*}: $BATS_TEST_TMPDIR/$f:[0-9]*: *" "$stderr"
			expect_lacks 'mysql' "$output"
			expect_lacks 'ELF' "$output"
			expect_lacks 'spans' "$output"
		done
		run --separate-stderr filter "$tool" "$BATS_TEST_TMPDIR/table.csv"
		expect_eq "${tool%%[ $TAB]*}: $BATS_TEST_TMPDIR/table.csv:1: neither the tr line format nor a Jaeger, Zipkin or OTLP export: it starts \"service,count\"" "$stderr"
		run --separate-stderr filter "$tool" "$BATS_TEST_TMPDIR/prog.bin"
		expect_eq "${tool%%[ $TAB]*}: $BATS_TEST_TMPDIR/prog.bin:3: neither the tr line format nor a Jaeger, Zipkin or OTLP export: binary data" "$stderr"
	done < <(filters)
}

@test "with -k a file that is neither is skipped and the other files are read" {
	need_conformance
	printf 'service,count\n' | mkfix table.csv >/dev/null
	while read -r tool; do
		run --separate-stderr filter "$tool" -k "$BATS_TEST_TMPDIR/table.csv" "$CONF/zipkin/yelp.json"
		expect_eq 3 "$status" status
		expect_output "$(tr-ingest "$CONF/zipkin/yelp.json" | filter "$tool")"
	done < <(filters)
}

@test "the line format is read as before: no header, a comment first, CRLF, blank lines, an empty file" {
	body="T${TAB}t1
S${TAB}t1${TAB}a${TAB}${TAB}1000${TAB}500${TAB}svc${TAB}op${TAB}server${TAB}h"
	printf '#tr/1\n%s\n' "$body" | mkfix plain.tr >/dev/null
	printf '%s\n' "$body" | mkfix bare.tr >/dev/null
	printf '# made by hand\n%s\n' "$body" | mkfix comment.tr >/dev/null
	printf '%s\n' "$body" | sed 's/$/\r/' | mkfix crlf.tr >/dev/null
	printf '\n\n#tr/1\n%s\n' "$body" | mkfix blank.tr >/dev/null
	: | mkfix empty.tr >/dev/null
	while read -r tool; do
		want=$(filter "$tool" "$BATS_TEST_TMPDIR/plain.tr")
		for f in bare crlf blank; do
			expect_eq "$want" "$(filter "$tool" "$BATS_TEST_TMPDIR/$f.tr")" || { echo "$tool $f"; false; }
		done
		got=$(filter "$tool" "$BATS_TEST_TMPDIR/comment.tr")
		[ "$got" = "$want" ] || [ "$got" = "$(printf '# made by hand\n%s' "$want")" ] ||
			expect_eq "$(printf '#tr/1\n# made by hand\n%s' "${want#*$'\n'}")" "$got"
		# an empty file holds no trace: an error, unless allowed
		run filter "$tool" "$BATS_TEST_TMPDIR/empty.tr"
		expect_eq 3 "$status" status
		expect_like "*empty.tr: no trace in the input \(--allow-empty accepts that\)" "$output"
		run filter "$tool" --allow-empty "$BATS_TEST_TMPDIR/empty.tr"
		expect_eq 0 "$status" status
	done < <(filters)
}
