#!/usr/bin/env bats
# tr-temporal --from EVENT --to EVENT: Zeno's T-QUERY, the delay between
# two causally related events of one trace; and a question about a server
# span that includes the queue before it (its inferred arrival).

load helper

TAB=$'\t'

# S record: trace span parent start dur service op kind host [tags...]
s() {
	local IFS="$TAB"
	printf 'S\t%s\n' "$*"
}

# A calls B; B's first call to C times out at 5.3 ms (B logs event=timeout
# at 5.4 ms) and B retries: the retry's server span C arrives at 6.5 ms and
# waits on single-worker c@c-1 behind trace job's batch call, to 14.9 ms,
# then works 4 ms. A also runs an audit of its own that no one waits for.
retry() {
	printf '#tr/1\nT\treq\n'
	s req A '' 0 20000 a 'GET /' server a-1
	s req Ac A 100 19800 a 'call b' client a-1
	s req D A 150 15000 a audit internal a-1
	s req B Ac 200 19600 b 'POST /b' server b-1
	s req C1c B 300 5000 b 'call c' client b-1
	printf 'L\treq\tB\t5400\tevent=timeout\n'
	s req Cc B 6000 13500 b 'call c' client b-1
	s req C Cc 15000 4000 c 'GET /c' server c-1
	printf 'T\tjob\n'
	s job J '' 5000 10200 batch job client bt-1
	s job JS J 5050 9850 c 'POST /c/batch' server c-1
}

# The D records' self times of the last run: "role self label" per line.
causes() {
	printf '%s\n' "$output" | awk -F'\t' '$1 == "D" { print $5, $6, $8 }'
}

@test "tquery: from a timeout log to the retry's end, C's work and the batch call it queued behind" {
	f=$(retry | mkfix r.tr)
	run tr-temporal --from B:log=timeout --to C:end "$f"
	expect_status 0
	expect_eq "sequencing 8400 batch:POST /c/batch on c@c-1
onpath 4000 c:GET /c on c@c-1
onpath 600 b:POST /b on b@b-1
transit 500 request b → c:GET /c
unexplained 100 unexplained@c@c-1" "$(causes | sort -k2,2nr)"
}

@test "tquery: the shares add up to the delay between the events, 100 %" {
	f=$(retry | mkfix r.tr)
	run tr-temporal -f csv --check --from B:log=timeout --to C:end "$f"
	expect_status 0
	expect_eq "13600 100.00" "$(printf '%s\n' "$output" |
		awk -F, 'NR > 1 { s += $7; p += $8; d = $3 } END { printf "%d %.2f\n", s, p }')"
}

@test "tquery: --explain names the two events and the interval" {
	f=$(retry | mkfix r.tr)
	run tr-temporal --explain --from B:log=timeout --to C:end "$f"
	expect_status 0
	expect_eq "trace req: B:log=timeout to C:end, 13.6 ms" "${lines[0]}"
}

@test "tquery: a span named service:operation when one span has it" {
	f=$(retry | mkfix r.tr)
	run tr-temporal -f csv --from 'b:POST /b:log=timeout' --to 'c:GET /c:end' "$f"
	expect_status 0
	expect_eq 6 "${#lines[@]}" rows
	run tr-temporal --explain --from 'b:call c:end' --to C:end "$f"
	expect_status 2
	expect_contains 'tr-temporal: --from b:call c:end: several spans are b:call c: name one by its id' "$output"
}

@test "tquery: events that are not causally related exit 3 and say so on one line" {
	f=$(retry | mkfix r.tr)
	run tr-temporal --explain --from D:start --to C:end "$f"
	expect_status 3
	expect_eq "tr-temporal: --from D:start --to C:end: not causally related (trace req: no path of causes leads from the first to the second)" "$output"
	run tr-temporal --explain --from C:start --to B:log=timeout "$f"
	expect_status 3
	expect_contains "not causally related (trace req: the first event is the later one)" "$output"
}

@test "tquery: an end before its own span's start is a usage error" {
	f=$(retry | mkfix r.tr)
	run tr-temporal --from C:end --to C:start "$f"
	expect_status 2
	expect_eq "tr-temporal: --from C:end --to C:start: backwards: the span's start comes first" "${lines[0]}"
}

@test "tquery: an event that does not exist exits 2 with the closest span" {
	f=$(retry | mkfix r.tr)
	run tr-temporal --explain --from Cx:end --to C:end "$f"
	expect_status 2
	expect_eq "tr-temporal: --from Cx:end: no trace has span Cx (did you mean Cc?)" "$output"
	run tr-temporal --explain --from B:log=tmo --to C:end "$f"
	expect_status 2
	expect_eq "tr-temporal: --from B:log=tmo: span B has no log event=tmo" "$output"
	run tr-temporal --explain --from J:start --to C:end "$f"
	expect_status 2
	expect_eq "tr-temporal: --from J:start --to C:end: no trace has both events" "$output"
}

@test "tquery: --from alone, a bad event, or with --span is a usage error" {
	f=$(retry | mkfix r.tr)
	run tr-temporal --from C:end "$f"
	expect_status 2
	expect_eq "tr-temporal: --from and --to go together: the delay between two events" "${lines[0]}"
	run tr-temporal --from C:middle --to C:end "$f"
	expect_status 2
	expect_eq "tr-temporal: --from C:middle: not SPAN:start, SPAN:end or SPAN:log=NAME (SPAN: an id, or service:operation)" "${lines[0]}"
	run tr-temporal --span C --from C:start --to C:end "$f"
	expect_status 2
	expect_eq "tr-temporal: --from and --to ask about two events: not with --span, --end-to-end or --baseline" "${lines[0]}"
}

@test "tquery: a server span's question includes its inferred queue, from its arrival" {
	f=$(retry | mkfix r.tr)
	run tr-temporal --span C "$f"
	expect_status 0
	expect_eq "sequencing 8400 batch:POST /c/batch on c@c-1
onpath 4000 c:GET /c on c@c-1
unexplained 100 unexplained@c@c-1" "$(causes | sort -k2,2nr)"
	# --from C:start asks the same question
	run tr-temporal -f csv --span C "$f"
	local span_csv="$output"
	run tr-temporal -f csv --from C:start --to C:end "$f"
	expect_eq "$span_csv" "$output"
}

@test "tquery: the sample's 610 ms mysql call explains its queue, not 9 ms" {
	[ -f "$SAMPLES/jaeger/hotrod.json" ] || skip "no samples/jaeger/hotrod.json"
	tr-ingest "$SAMPLES/jaeger/hotrod.json" > "$BATS_TEST_TMPDIR/h.tr"
	run tr-temporal --explain --span 853f8dfaec34fbaa "$BATS_TEST_TMPDIR/h.tr"
	expect_status 0
	expect_eq "trace dcb7c2cec5e04f913de8ab40d630e220: mysql:SQL SELECT, 609.8 ms" "${lines[0]}"
	expect_eq "    batch:SQL SELECT report on mysql@mysql-0 = 585.8 ms (96.1%) [sequencing] in trace 88f0cff9b402ef333a7a28f173c896d2 (batch:ReportJob)" "${lines[3]}"
	run tr-temporal -f csv --from 853f8dfaec34fbaa:start --to 853f8dfaec34fbaa:end "$BATS_TEST_TMPDIR/h.tr"
	expect_status 0
	expect_eq "609794 100" "$(printf '%s\n' "$output" |
		awk -F, 'NR > 1 { s += $7; p += $8 } END { printf "%d %.0f\n", s, p }')"
}
