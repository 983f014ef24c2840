#!/usr/bin/env bats
# tr-report: one command from traces to a report a postmortem can paste,
# HTML or Markdown with its pictures beside it; and, where chromium is
# installed, the page as a browser shows it.

load helper
load render

# Two traces with a call between services (| for TAB).
small() {
	tr '|' '\t' <<-'EOF' | mkfix small.tr
	#tr/1
	T|t1
	S|t1|a||1767225600000000|100000|front|GET /|server|h1
	S|t1|b|a|1767225600010000|60000|db|query|client|h1
	T|t2
	S|t2|a||1767225601000000|50000|front|GET /|server|h1
	S|t2|b|a|1767225601010000|30000|db|query|client|h1
	EOF
}

@test "the HTML report has every section filled, its slowest requests linked to their timelines" {
	f=$(small)
	run tr-report -o "$BATS_TEST_TMPDIR/r.html" "$f"
	expect_eq 0 "$status" status
	expect_empty "$output"
	h=$(cat "$BATS_TEST_TMPDIR/r.html")
	expect_like "<!DOCTYPE html>*" "$h"
	for id in inputs slowest latency critical-path causes services timelines flame service-graph; do
		expect_contains "id=\"$id\"" "$h" || { echo "no section $id"; false; }
	done
	expect_contains '<td>2026-01-01 00:00:00 UTC to 2026-01-01 00:00:01 UTC (1.05 s)</td>' "$h"
	expect_contains '<a href="#trace-t1">t1</a>' "$h"
	expect_contains '<div class="pic" id="trace-t1">' "$h"
	expect_contains '<td>db</td><td>query</td><td>2</td><td>30 ms</td>' "$h"
	expect_contains '>Critical path, traces around p99 · ' "$h"
	expect_contains '>Calls between services</text>' "$h"
	expect_lacks 'id="baseline"' "$h"
}

@test "the HTML report is self-contained: no script, nothing fetched" {
	f=$(small)
	tr-report -o "$BATS_TEST_TMPDIR/r.html" "$f"
	run grep -Eci '<script|<link|src=|@import|url\(http' "$BATS_TEST_TMPDIR/r.html"
	expect_output 0
	# the only URLs are the SVG namespace's
	run grep -Eo 'https?://[^"]*' "$BATS_TEST_TMPDIR/r.html"
	expect_empty "$(printf '%s\n' "$output" | grep -v '^http://www.w3.org/2000/svg$')"
}

@test "tr-temporal's causes name the other trace that held the resource" {
	# t2's db call queued 80 ms behind the report query t1 ran on db-0
	tr '|' '\t' <<-'EOF' > "$BATS_TEST_TMPDIR/q.tr"
	#tr/1
	T|t1
	S|t1|a||0|100000|batch|job|server|h1
	S|t1|b|a|0|90000|db|report|server|db-0
	T|t2
	S|t2|a||10000|110000|front|GET /|server|h1
	S|t2|c|a|10000|100000|front|query|client|h1
	S|t2|b|c|90000|10000|db|query|server|db-0|queue.wait_us=80000
	EOF
	run tr-report --top 1 -o "$BATS_TEST_TMPDIR/r.html" "$BATS_TEST_TMPDIR/q.tr"
	expect_eq 0 "$status" status
	h=$(cat "$BATS_TEST_TMPDIR/r.html")
	expect_contains '<td>batch:report on db@db-0</td><td>sequencing</td><td>80 ms</td><td>t1</td>' "$h"
}

@test "-f md writes Markdown with every picture as an SVG file beside it" {
	f=$(small)
	run tr-report -f md -o "$BATS_TEST_TMPDIR/r.md" "$f"
	expect_eq 0 "$status" status
	md=$(cat "$BATS_TEST_TMPDIR/r.md")
	expect_like "# Trace report*" "$md"
	expect_contains '## Slowest requests' "$md"
	expect_contains '| db | query | 2 | 30 ms |' "$md"
	expect_contains '![timeline of trace t1](r-timeline-1.svg)' "$md"
	n=0
	for svg in $(grep -o '([a-z0-9-]*\.svg)' "$BATS_TEST_TMPDIR/r.md" | tr -d '()'); do
		head -c 5 "$BATS_TEST_TMPDIR/$svg" | grep -q '<svg' || { echo "missing $svg"; false; }
		n=$((n + 1))
	done
	expect_num 4 "$n" # two timelines, the flame graphs, the service graph
}

@test "-f md -o with a space in its name: the picture links still work (<...> destinations)" {
	f=$(small)
	run tr-report -f md -o "$BATS_TEST_TMPDIR/my report.md" "$f"
	expect_eq 0 "$status" status
	md=$(cat "$BATS_TEST_TMPDIR/my report.md")
	expect_contains '![timeline of trace t1](<my report-timeline-1.svg>)' "$md"
	[ -s "$BATS_TEST_TMPDIR/my report-timeline-1.svg" ]
}

@test "-f md without -o, a bad -f and a bad --top are usage errors" {
	f=$(small)
	run tr-report -f md "$f"
	expect_eq 2 "$status" status
	expect_eq 'tr-report: -f md writes its pictures beside the report: give -o FILE' "${lines[0]}"
	run tr-report -f pdf "$f"
	expect_eq 2 "$status" status
	run tr-report --top 0 "$f"
	expect_eq 2 "$status" status
}

@test "no trace with a timed root is nothing to report: exit 3, one line, no report" {
	f=$(printf '#tr/1\nT\tt1\n' | mkfix empty.tr)
	run tr-report -o "$BATS_TEST_TMPDIR/r.html" "$f"
	expect_eq 3 "$status" status
	expect_output "tr-report: 1 traces read, none with a timed root: nothing to report"
	[ ! -e "$BATS_TEST_TMPDIR/r.html" ]
}

@test "--baseline adds the comparison: the fault's service is named against a run without it" {
	trsim --traces 100 --seed 11 --fault off -o "$BATS_TEST_TMPDIR/base.json"
	trsim --traces 100 --seed 12 -o "$BATS_TEST_TMPDIR/incident.json"
	run tr-report --baseline "$BATS_TEST_TMPDIR/base.json" -o "$BATS_TEST_TMPDIR/r.html" \
		"$BATS_TEST_TMPDIR/incident.json"
	expect_eq 0 "$status" status
	h=$(cat "$BATS_TEST_TMPDIR/r.html")
	expect_contains 'id="baseline"' "$h"
	expect_contains 'the largest: mysql, ' "$h"
	expect_contains 'against 100 baseline traces: red more, blue less' "$h"
}

@test "the samples' report has every section filled" {
	[ -d "$SAMPLES/jaeger" ] || skip "no samples"
	run tr-report -o "$BATS_TEST_TMPDIR/r.html" "$SAMPLES"/jaeger/*.json
	expect_eq 0 "$status" status
	h=$(cat "$BATS_TEST_TMPDIR/r.html")
	expect_num 5 "$(grep -c '<div class="pic" id="trace-' "$BATS_TEST_TMPDIR/r.html")"
	expect_match '<td>(sequencing|onpath)</td>' "$h"
	expect_contains '>Calls between services</text>' "$h"
}

@test "a browser shows the report: not blank, its sections and trace ids in the page" {
	need_chromium
	f=$(small)
	tr-report -o "$BATS_TEST_TMPDIR/r.html" "$f"
	not_blank "$BATS_TEST_TMPDIR/r.html" 1100,1600
	run dom "$BATS_TEST_TMPDIR/r.html"
	for text in "Slowest requests" "Latency per operation" "Critical-path time per service" \
		"Top causes" "Service graph" "trace t1 · front: GET / · 100 ms"; do
		expect_contains "$text" "$output" || { echo "not in the page: $text"; false; }
	done
}

# An untagged queue: tb's query waits on db1's single worker behind ta's
# query, and no queue.wait_us or enqueue log says so.
untagged_queue() {
	tr '|' '\t' <<-'EOF' | mkfix queue.tr
	#tr/1
	T|ta
	S|ta|a||1767225600000000|20000|front|GET /a|server|h1
	S|ta|b|a|1767225600001000|18000|front|SELECT|client|h1
	S|ta|c|b|1767225600001500|17000|db|SELECT|server|db1
	T|tb
	S|tb|a||1767225600002000|40000|front|GET /b|server|h2
	S|tb|b|a|1767225600003000|38000|front|SELECT|client|h2
	S|tb|c|b|1767225600019000|21000|db|SELECT|server|db1
	EOF
}

@test "causes are tr-temporal's: an untagged queue names the trace it waited behind, not transit" {
	f=$(untagged_queue)
	run tr-temporal --explain --trace tb "$f"
	expect_contains '= 14.5 ms (36.2%) [sequencing] in trace ta' "$output"
	run tr-report -f md -o "$BATS_TEST_TMPDIR/r.md" "$f"
	expect_eq 0 "$status" status
	m=$(cat "$BATS_TEST_TMPDIR/r.md")
	expect_contains '| [tb](#trace-tb) | front:SELECT on db@db1 | sequencing | 14.5 ms | [ta](#trace-ta) |' "$m"
	expect_lacks '| [tb](#trace-tb) | request front → db:SELECT | transit | 16 ms |' "$m"
}

@test "--baseline opens with the likely cause: tr-cp --suspects' first service, first section" {
	trsim --traces 100 --seed 11 --fault off -o "$BATS_TEST_TMPDIR/base.json"
	trsim --traces 100 --seed 12 -o "$BATS_TEST_TMPDIR/incident.json"
	run tr-report -f md --baseline "$BATS_TEST_TMPDIR/base.json" -o "$BATS_TEST_TMPDIR/r.md" \
		"$BATS_TEST_TMPDIR/incident.json"
	expect_status 0
	first=$(tr-cp -q --suspects --baseline "$BATS_TEST_TMPDIR/base.json" "$BATS_TEST_TMPDIR/incident.json" |
		awk -F'\t' 'NR == 2 { print $2 }')
	section=$(grep -m1 '^## ' "$BATS_TEST_TMPDIR/r.md")
	said=$(grep -m1 '^Most likely' "$BATS_TEST_TMPDIR/r.md")
	if [ "$section" != "## Likely cause" ] || [ -z "$first" ] || [[ "$said" != "Most likely $first ("* ]]; then
		printf 'expected: ## Likely cause / Most likely %s (...\nactual:   %s / %s\n' "$first" "$section" "$said" >&2
		return 1
	fi
}

@test "--max-bytes holds for the baseline too: a larger baseline trace is bad input" {
	f=$(small)
	tr '|' '\t' <<-'EOF' > "$BATS_TEST_TMPDIR/base.tr"
	#tr/1
	T|b1
	S|b1|a||1767225600000000|100000|front|GET /|server|h1|k=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
	T|b2
	S|b2|a||1767225600000000|100000|front|GET /|server|h1
	EOF
	run tr-report --baseline "$BATS_TEST_TMPDIR/base.tr" --max-bytes 150 -o "$BATS_TEST_TMPDIR/r.html" "$f"
	expect_eq 3 "$status" status
	expect_like "*base.tr:2: trace b1: more than --max-bytes \(1 spans, 158 bytes read\): skipped" "$output"
}

@test "-k counts the skipped traces at the end; -q leaves the count out, the status still 3" {
	f=$( { cat "$(small)"; printf 'T\tbad\nS\tbad\tx\t\t1x0\t5\ts\to\t\t\n'; } | mkfix bad.tr)
	run tr-report -k -o "$BATS_TEST_TMPDIR/r.html" "$f"
	expect_eq 3 "$status" status
	expect_like "*tr-report: 2 traces read, 1 bad \(skipped\)" "$output"
	run tr-report -k -q -o "$BATS_TEST_TMPDIR/r.html" "$f"
	expect_eq 3 "$status" status
	expect_contains 'start: not an integer' "$output"
	expect_lacks 'bad (skipped)' "$output"
}

# n traces of a root and 5 calls; latencies ascending (asc) or descending.
latencies() {
	awk -v OFS='\t' -v n="$1" -v asc="$2" 'BEGIN { print "#tr/1"
		for (i = 0; i < n; i++) { t = "t" i; s = 1000000 + i * 100000; d = asc ? 1000 + i : 1000 + n - i
			print "T", t
			print "S", t, "a", "", sprintf("%d", s), d, "front", "GET /", "server", "h1"
			for (k = 0; k < 5; k++) print "S", t, "b" k, "a", sprintf("%d", s + 10 + k * 100), int(d / 10), "db", "query" k, "client", "h1" } }'
}

@test "the slowest requests are drawn once: ascending latencies take about as long as descending ones" {
	latencies 30000 1 > "$BATS_TEST_TMPDIR/asc.tr"
	latencies 30000 0 > "$BATS_TEST_TMPDIR/desc.tr"
	# CPU time, not wall time: a busy machine stretches the one, not the other
	# (bash's times: the user and system time of the subshell's children)
	ms() {
		local t
		t=$( { tr-report -o "$BATS_TEST_TMPDIR/r.html" "$1" || exit 1; times; } | tail -n 1) || return 1
		awk '{ n = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); n += a[1] * 60 + a[2] }
			printf "%d\n", n * 1000 }' <<< "$t"
	}
	desc=$(ms "$BATS_TEST_TMPDIR/desc.tr")
	asc=$(ms "$BATS_TEST_TMPDIR/asc.tr")
	echo "ascending $asc ms, descending $desc ms of CPU"
	# each new slowest trace redrawn: ascending took 5 times as long
	expect_lt "$((2 * desc + 200))" "$asc"
	grep -q 'trace-t29999' "$BATS_TEST_TMPDIR/r.html"
}
