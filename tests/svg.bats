#!/usr/bin/env bats
# tr-cp's pictures: the timeline of a trace (--svg), flame graphs of
# critical-path time (--flame, --percentile) and the comparison with a
# baseline (--baseline), as SVG text and, where chromium is installed, as
# a browser shows them.

load helper
load render

# Fixtures are written with | for TAB. t1 (100 ms): a's critical path runs
# through c (cache) and b (db, 60 ms); d (audit) and its child e overlap b
# and are off the path. t2 is faster.
two_traces() {
	tr '|' '\t' <<-'EOF' | mkfix two.tr
	#tr/1
	T|t1
	S|t1|a||1000000|100000|front|GET /|server|h1
	S|t1|c|a|1005000|2000|cache|get|client|h1
	S|t1|b|a|1010000|60000|db|query|client|h1
	S|t1|d|a|1020000|10000|audit|log|client|h1
	S|t1|e|d|1021000|5000|audit|write|client|h1
	T|t2
	S|t2|a||2000000|50000|front|GET /|server|h1
	S|t2|b|a|2010000|30000|db|query|client|h1
	EOF
}

@test "--svg draws the slowest trace: title with id, root operation and latency; ticks; critical shares" {
	f=$(two_traces)
	run tr-cp --svg "$f"
	expect_eq 0 "$status" status
	expect_like "<svg *" "$output"
	expect_contains 'width="1000"' "$output"
	expect_contains '<title>trace t1 · front: GET / · 100 ms</title>' "$output"
	expect_contains '>20 ms</text>' "$output" # an axis tick
	expect_contains '>60% · 60 ms</text>' "$output" # db's share of the path, beside it
	expect_lacks 'trace t2' "$output"
}

@test "--svg rows follow the tree: parents before children, children by start" {
	f=$(two_traces)
	run tr-cp --svg --min-share 0 "$f"
	expect_eq 0 "$status" status
	rows=$(printf '%s\n' "$output" | grep -o '>[a-z]*: [a-zA-Z /]*[^<]*</text>' | sed 's/^>//; s/<.*//' | grep -v '^trace')
	expect_eq "front: GET /,cache: get,db: query,audit: log (+1)," "$(printf '%s\n' "$rows" | head -4 | tr '\n' ',')"
}

@test "--svg folds a subtree with nothing on the critical path" {
	f=$(two_traces)
	run tr-cp --svg "$f"
	expect_contains '>audit: log (+1)</text>' "$output"
	expect_lacks '>audit: write</text>' "$output"
	expect_contains '1 folded' "$output"
}

@test "--svg --min-share folds more" {
	f=$(two_traces)
	run tr-cp --svg --min-share 0.9 "$f"	# everything under the root holds 62%
	expect_eq 0 "$status" status
	expect_contains '>front: GET / (+4)</text>' "$output"
}

@test "--svg --trace draws the trace asked for" {
	f=$(two_traces)
	run tr-cp --svg --trace t2 "$f"
	expect_eq 0 "$status" status
	expect_contains '<title>trace t2 · front: GET / · 50 ms</title>' "$output"
}

@test "--svg --trace with an id no trace has exits 2" {
	f=$(two_traces)
	run tr-cp --svg --trace nope "$f"
	expect_eq 2 "$status" status
}

@test "--svg options: --min-share and --width are checked, and go with their modes" {
	f=$(two_traces)
	run tr-cp --svg --min-share -1 "$f"
	expect_eq 2 "$status" status
	run tr-cp --svg --width 100 "$f"
	expect_eq 2 "$status" status
	run tr-cp --summary service --min-share 0.1 "$f"
	expect_eq 2 "$status" status
	run tr-cp --svg --dot "$f"
	expect_eq 2 "$status" status
	run tr-cp --svg --width 1600 "$f"
	expect_eq 0 "$status" status
	expect_contains 'width="1600"' "$output"
}

@test "--svg with no trace that has a timed root exits 3 with one line" {
	f=$(printf '#tr/1\nT\tt1\n' | mkfix empty.tr)
	run tr-cp --svg "$f"
	expect_eq 3 "$status" status
	expect_output 'tr-cp: --svg: no trace with a timed root to draw'
}

@test "--flame with no incident trace that has a timed root exits 3 with one line" {
	f=$(printf '#tr/1\nT\tt1\nS\tt1\ta\t\t\t\tfront\tGET /\tserver\th\n' | mkfix untimed.tr)
	run tr-cp --flame "$f"
	expect_eq 3 "$status" status
	expect_output "tr-cp: --flame: no trace with a timed root to draw"
	base=$(two_traces)
	run tr-cp --flame --baseline "$base" "$f"
	expect_eq 3 "$status" status
	expect_output "tr-cp: --flame: no trace with a timed root to draw"
}

@test "--baseline with no incident trace that has a timed root exits 3 with one line" {
	f=$(printf '#tr/1\nT\tt1\nS\tt1\ta\t\t\t\tfront\tGET /\tserver\th\n' | mkfix untimed.tr)
	base=$(two_traces)
	run tr-cp --summary service --baseline "$base" "$f"
	expect_eq 3 "$status" status
	expect_output "tr-cp: --baseline: no trace with a timed root to compare"
}

@test "--flame or --baseline with a --trace that picks nothing exits 2, a selector matching nothing" {
	base=$(two_traces)
	run tr-cp --summary service --baseline "$base" --trace nosuch "$base"
	expect_eq 2 "$status" status
	expect_lacks 'no trace with a timed root' "$output"
	run tr-cp --flame --trace nosuch "$base"
	expect_eq 2 "$status" status
}

# n traces of 31 spans, their latencies ascending (dir 1) or descending.
ordered() {
	awk -v n="$1" -v dir="$2" 'BEGIN {
		print "#tr/1"
		for (i = 0; i < n; i++) {
			d = dir > 0 ? 1000 + i : 1000 + n - i
			print "T\tt" i
			printf "S\tt%d\tr\t\t%d\t%d\tfront\tGET /\tserver\th1\n", i, i * 100000, d * 31
			for (j = 0; j < 30; j++)
				printf "S\tt%d\ts%d\tr\t%d\t%d\tsvc%d\top%d\tclient\th1\n", i, j, i * 100000 + j * d, d, j % 5, j
		}
	}'
}

@test "--svg draws the slowest trace once: ascending latencies take no longer than descending ones" {
	ordered 5000 1 > "$BATS_TEST_TMPDIR/asc.tr"
	ordered 5000 -1 > "$BATS_TEST_TMPDIR/desc.tr"
	t0=$(date +%s%N)
	tr-cp --svg "$BATS_TEST_TMPDIR/desc.tr" > "$BATS_TEST_TMPDIR/desc.svg"
	t1=$(date +%s%N)
	tr-cp --svg "$BATS_TEST_TMPDIR/asc.tr" > "$BATS_TEST_TMPDIR/asc.svg"
	t2=$(date +%s%N)
	desc=$(( (t1 - t0) / 1000000 )) asc=$(( (t2 - t1) / 1000000 ))
	echo "ascending $asc ms, descending $desc ms"
	# redrawing every new slowest trace took 10 times as long
	expect_le "$(( 2 * desc + 250 ))" "$asc"
	grep -q 'trace t4999 ' "$BATS_TEST_TMPDIR/asc.svg"
	grep -q 'trace t0 ' "$BATS_TEST_TMPDIR/desc.svg"
}

# A trace of 1,001 spans: a root calling 10 services in turn, each calling
# 99 operations in turn, all on the critical path.
thousand() {
	awk 'BEGIN {
		OFS = "\t"; print "#tr/1"; print "T", "big"
		print "S", "big", "r", "", 0, 1000000, "front", "GET /", "server", "h"
		for (i = 0; i < 10; i++) {
			print "S", "big", "s" i, "r", i * 100000, 99000, "service-" i, "handle request number " i, "server", "h"
			for (j = 0; j < 99; j++)
				print "S", "big", "s" i "-" j, "s" i, i * 100000 + j * 1000, 900, "backend-" i, "a rather long operation name, longer than its column " j, "client", "h"
		}
	}' | mkfix big.tr
}

@test "a 1,000-span trace is drawn 1,000 px wide, a row a span, labels cut to their column" {
	f=$(thousand)
	run tr-cp --svg "$f"
	expect_eq 0 "$status" status
	expect_contains 'width="1000"' "$output"
	expect_num 1001 "$(printf '%s\n' "$output" | grep -c 'class="off"')"
	# every label ends in an ellipsis where its name is longer than the column
	expect_num 0 "$(printf '%s\n' "$output" | grep -c 'longer than its column [0-9]*</text>')"
	expect_ge 990 "$(printf '%s\n' "$output" | grep -c '…</text>')"
}

# Traces t1..t100 of latency i ms, each a root and one db call of i/2 ms.
hundred() {
	awk 'BEGIN {
		OFS = "\t"; print "#tr/1"
		for (i = 1; i <= 100; i++) {
			print "T", "t" i
			print "S", "t" i, "a", "", i * 1000000, i * 1000, "front", "GET /", "server", "h"
			print "S", "t" i, "b", "a", i * 1000000, i * 500, "db", "query", "client", "h"
		}
	}' | mkfix hundred.tr
}

@test "--flame draws critical-path time per trace: frames by service and operation, callers below" {
	f=$(two_traces)
	run tr-cp --flame "$f"
	expect_eq 0 "$status" status
	expect_like "<svg *" "$output"
	expect_contains '>Critical path, all traces · 2 traces · 75 ms of critical path per trace</text>' "$output"
	expect_contains '<title>db: query&#10;45 ms per trace on the critical path (60.0%)</title>' "$output"
	# db's frame sits one row above front's
	fy=$(printf '%s\n' "$output" | grep -B0 '<title>front: GET /' | sed 's/.* y="\([0-9.]*\)".*/\1/')
	dy=$(printf '%s\n' "$output" | grep -B0 '<title>db: query' | sed 's/.* y="\([0-9.]*\)".*/\1/')
	expect_eq 17 "$(awk -v a="$fy" -v b="$dy" 'BEGIN { print a - b }')"
}

@test "--flame: a frame's label carries its time per trace when it fits; a time axis runs under the frames" {
	f=$(two_traces)
	run tr-cp --flame "$f"
	expect_eq 0 "$status" status
	expect_contains '>front: GET / 75 ms</text>' "$output"
	expect_contains '>db: query 45 ms</text>' "$output"
	expect_contains 'class="tick">0</text>' "$output"
	expect_contains 'class="tick">70 ms</text>' "$output"
	# cache's frame (1 ms of 75, 13 px) is too narrow for a label
	expect_lacks '">cache: get' "$output"
}

@test "--flame --percentile adds a graph for the traces around each percentile" {
	f=$(hundred)
	run tr-cp --flame --percentile 50,99 "$f"
	expect_eq 0 "$status" status
	expect_contains '>Critical path, traces around p50 · 2 traces · 50.5 ms of critical path per trace</text>' "$output"
	expect_contains '>Critical path, traces around p99 · 2 traces · 99.5 ms of critical path per trace</text>' "$output"
	for bad in 0 101 50, x 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17; do
		run tr-cp --flame --percentile "$bad" "$f"
		expect_eq 2 "$status" status
	done
	run tr-cp --summary service --percentile 50 "$f"
	expect_eq 2 "$status" status
}

@test "the folded stacks stay available beside the flame graph" {
	f=$(two_traces)
	run tr-cp --folded "$f"
	expect_eq 0 "$status" status
	expect_contains 'front:GET /;db:query 90000' "$output"
}

# trsim runs: the fault off and on, seeds apart.
sim() {
	local out="$BATS_TEST_TMPDIR/$1.json"
	shift
	trsim --traces 100 "$@" -o "$out"
	printf '%s\n' "$out"
}

@test "--baseline: the fault's service (mysql) is the largest difference, against a run without it" {
	base=$(sim base --seed 11 --fault off)
	incident=$(sim incident --seed 12 --fault on)
	run tr-cp --summary service --baseline "$base" "$incident"
	expect_eq 0 "$status" status
	expect_eq "$(printf 'service\tbefore_us\tafter_us\tdiff_us\tdiff_pct\tz\tsignificant\terror_pct_before\terror_pct_after\terror_z\terror_significant')" "${lines[0]}" header
	expect_like 'mysql'$'\t*' "${lines[1]}"
	expect_eq yes "$(cut -f7 <<< "${lines[1]}")" "mysql significant"
	expect_like "tr-cp: --baseline: *the largest: mysql, *" "${lines[-1]}"
}

@test "--baseline names nothing when the two runs differ only in their seed" {
	base=$(sim base --seed 11 --fault off)
	other=$(sim other --seed 12 --fault off)
	run tr-cp --summary operation --baseline "$base" "$other"
	expect_eq 0 "$status" status
	expect_lacks $'\tyes' "$output"
	expect_like "*nothing differs beyond the baseline's spread" "${lines[-1]}"
}

@test "--baseline names nothing for other seed pairs of realistic runs (skewed clocks, no queue tags)" {
	for seeds in "21 22" "41 42"; do
		set -- $seeds
		base=$(sim "b$1" --seed "$1" --fault off)
		other=$(sim "o$2" --seed "$2" --fault off)
		for key in service operation; do
			run tr-cp --summary "$key" --baseline "$base" "$other"
			expect_eq 0 "$status" status
			expect_like "*nothing differs beyond the baseline's spread" "${lines[-1]}"
		done
	done
}

@test "--baseline: a recorded queue wait counts for the service waited for, not the caller's gap" {
	# the caller waits 40 ms before db runs; db says it queued for 30 of them
	tr '|' '\t' <<-'EOF' > "$BATS_TEST_TMPDIR/q.tr"
	#tr/1
	T|t1
	S|t1|a||0|50000|front|GET /|server|h1
	S|t1|b|a|40000|10000|db|query|server|h2|queue.wait_us=30000
	T|t2
	S|t2|a||100000|50000|front|GET /|server|h1
	S|t2|b|a|140000|10000|db|query|server|h2|queue.wait_us=30000
	EOF
	run tr-cp --summary service --baseline "$BATS_TEST_TMPDIR/q.tr" -q "$BATS_TEST_TMPDIR/q.tr"
	expect_eq 0 "$status" status
	expect_contains 'db'$'\t40000'$'\t40000'$'\t0' "$output"
	expect_contains 'front'$'\t10000'$'\t10000'$'\t0' "$output"
}

@test "--baseline: a client's own time counts for the server it called, skew and no queue tag notwithstanding" {
	# db's clock runs 5 ms ahead: its span overhangs the client's end, and
	# the analysis clamps it; the client's 15 ms uncovered are waiting for db
	tr '|' '\t' <<-'EOF' > "$BATS_TEST_TMPDIR/rpc.tr"
	#tr/1
	T|t1
	S|t1|a||0|50000|front|GET /|server|h1
	S|t1|c|a|5000|40000|front|query|client|h1
	S|t1|d|c|20000|30000|db|query||h2
	T|t2
	S|t2|a||100000|50000|front|GET /|server|h1
	S|t2|c|a|105000|40000|front|query|client|h1
	S|t2|d|c|120000|30000|db|query||h2
	EOF
	run tr-cp --summary service --baseline "$BATS_TEST_TMPDIR/rpc.tr" -q "$BATS_TEST_TMPDIR/rpc.tr"
	expect_eq 0 "$status" status
	expect_contains 'db'$'\t40000'$'\t40000'$'\t0' "$output"
	expect_contains 'front'$'\t10000'$'\t10000'$'\t0' "$output"
	run tr-cp --summary operation --baseline "$BATS_TEST_TMPDIR/rpc.tr" -q "$BATS_TEST_TMPDIR/rpc.tr"
	expect_contains 'db'$'\tquery'$'\t40000' "$output"
	expect_lacks 'front'$'\tquery' "$output"
}

@test "--baseline: on recorded queue tags too (trsim --hints), the fault's service is the largest difference" {
	base=$(sim base --seed 11 --fault off --hints)
	incident=$(sim incident --seed 12 --fault on --hints)
	run tr-cp --summary service --baseline "$base" "$incident"
	expect_eq 0 "$status" status
	expect_like 'mysql'$'\t*' "${lines[1]}"
	expect_like "tr-cp: --baseline: *: 1 differ; the largest: mysql, *" "${lines[-1]}"
}

@test "--baseline with a tag key is refused" {
	f=$(two_traces)
	run tr-cp --summary http.method --baseline "$f" "$f"
	expect_eq 2 "$status" status
}

@test "--baseline with a mode without a comparison is refused" {
	f=$(two_traces)
	run tr-cp --dot --baseline "$f" "$f"
	expect_eq 2 "$status" status
}

@test "--baseline without spread is refused, its message counting the traces with a timed root" {
	f=$(two_traces)
	one=$(printf '#tr/1\nT\tt1\nS\tt1\ta\t\t0\t10\tfront\tGET /\tserver\th\n' | mkfix one.tr)
	run tr-cp --summary service --baseline "$one" "$f"
	expect_eq 3 "$status" status
	expect_output "tr-cp: $one: --baseline: 1 of 1 traces has a timed root; a baseline needs at least 2 to have a spread"
	# three traces read, one of them with a timed root: the message counts that one
	three=$(printf '#tr/1\nT\tt1\nS\tt1\ta\t\t0\t10\tfront\tGET /\tserver\th\nT\tt2\nS\tt2\ta\t\t\t\tfront\tGET /\tserver\th\nT\tt3\nS\tt3\ta\t\t\t\tfront\tGET /\tserver\th\n' | mkfix three.tr)
	run tr-cp --flame --baseline "$three" "$f"
	expect_eq 3 "$status" status
	expect_output "tr-cp: $three: --baseline: 1 of 3 traces have a timed root; a baseline needs at least 2 to have a spread"
}

@test "--baseline: a missing baseline file exits 3" {
	f=$(two_traces)
	run tr-cp --summary service --baseline "$BATS_TEST_TMPDIR/missing.tr" "$f"
	expect_eq 3 "$status" status
}

@test "--flame --baseline is differential: red where a frame's own time grew, blue where it shrank" {
	f=$(two_traces)
	tr '|' '\t' <<-'EOF' > "$BATS_TEST_TMPDIR/before.tr"
	#tr/1
	T|t1
	S|t1|a||0|50000|front|GET /|server|h1
	S|t1|b|a|10000|10000|db|query|client|h1
	T|t2
	S|t2|a||100000|50000|front|GET /|server|h1
	S|t2|b|a|110000|10000|db|query|client|h1
	EOF
	run tr-cp --flame --baseline "$BATS_TEST_TMPDIR/before.tr" "$f"
	expect_eq 0 "$status" status
	expect_contains 'against 2 baseline traces: red more, blue less' "$output"
	# db's own time went from 10 to 45 ms per trace: the reddest frame
	expect_contains 'fill="#ff2d2d"' "$(printf '%s\n' "$output" | grep '<title>db: query')"
	# front's own time went from 40 to 28.5 ms (t1's c and d aside): blue
	expect_like '*fill="#[0-9a-f][0-9a-f][0-9a-f][0-9a-f]ff"*' "$(printf '%s\n' "$output" | grep '<title>front: GET /')"
}

@test "--flame --baseline prints each frame's change in its label when it fits, and always in its tooltip" {
	f=$(two_traces)
	tr '|' '\t' <<-'EOF' > "$BATS_TEST_TMPDIR/before.tr"
	#tr/1
	T|t1
	S|t1|a||0|50000|front|GET /|server|h1
	S|t1|b|a|10000|10000|db|query|client|h1
	T|t2
	S|t2|a||100000|50000|front|GET /|server|h1
	S|t2|b|a|110000|10000|db|query|client|h1
	EOF
	run tr-cp --flame --baseline "$BATS_TEST_TMPDIR/before.tr" "$f"
	expect_eq 0 "$status" status
	expect_contains '>db: query 45 ms +35 ms</text>' "$output"
	expect_contains '>front: GET / 75 ms -11 ms</text>' "$output"
	# cache's frame (1 ms of 75) has no room for a label: its tooltip says it
	expect_contains '<title>cache: get&#10;1 ms per trace on the critical path (1.3%)&#10;baseline 0 µs per trace; its own time +1 ms</title>' "$output"
	expect_lacks '">cache: get' "$output"
}

@test "a browser shows the timeline and the flame graph: not blank, the text there" {
	need_chromium
	f=$(two_traces)
	tr-cp --svg "$f" > "$BATS_TEST_TMPDIR/t.svg"
	tr-cp --flame --percentile 99 "$f" > "$BATS_TEST_TMPDIR/f.svg"
	not_blank "$BATS_TEST_TMPDIR/t.svg"
	not_blank "$BATS_TEST_TMPDIR/f.svg"
	run dom "$BATS_TEST_TMPDIR/t.svg"
	expect_contains 'trace t1 · front: GET / · 100 ms' "$output"
}

@test "the pictures the tools draw for docs/img are what they draw now (make docs)" {
	[ -f "$SAMPLES/jaeger/hotrod.json" ] || skip "no samples"
	top="$BATS_TEST_DIRNAME/.."
	tr-ingest -q "$SAMPLES/jaeger/hotrod.json" > "$BATS_TEST_TMPDIR/h.tr"
	slow=$(tr-aggregate 'From s In spans Where s.root Select s.trace, s.duration' "$BATS_TEST_TMPDIR/h.tr" |
		sort -k2nr | awk 'NR == 1 { print $1 }')
	tr-cp --svg --trace "$slow" "$BATS_TEST_TMPDIR/h.tr" > "$BATS_TEST_TMPDIR/timeline.svg"
	tr-cp --flame --percentile 99 "$BATS_TEST_TMPDIR/h.tr" > "$BATS_TEST_TMPDIR/flame.svg"
	cmp "$top/docs/img/slowest-timeline.svg" "$BATS_TEST_TMPDIR/timeline.svg" ||
		{ echo "docs/img/slowest-timeline.svg is stale: run make docs"; false; }
	cmp "$top/docs/img/flame-p99.svg" "$BATS_TEST_TMPDIR/flame.svg" ||
		{ echo "docs/img/flame-p99.svg is stale: run make docs"; false; }
	tr-pag -q -f svg -w 250ms "$BATS_TEST_TMPDIR/h.tr" > "$BATS_TEST_TMPDIR/summaries.svg"
	cmp "$top/docs/img/snailtrail-summaries.svg" "$BATS_TEST_TMPDIR/summaries.svg" ||
		{ echo "docs/img/snailtrail-summaries.svg is stale: run make docs"; false; }
	grep -q '](docs/img/slowest-timeline.svg)' "$top/README.md"
	grep -q '](docs/img/snailtrail-summaries.svg)' "$top/README.md"
}

@test "tr-cp(1) DIAGNOSTICS lists the pictures' and the baseline's messages" {
	command -v man >/dev/null || skip "man(1) is missing"
	page=$(MANWIDTH=1000 man -l "$BATS_TEST_DIRNAME/../man/tr-cp.1" 2>/dev/null | sed -n '/^DIAGNOSTICS/,/^EXAMPLES/p')
	expect_contains 'tr-cp: --svg: no trace with a timed root to draw' "$page"
	expect_contains 'tr-cp: --flame: no trace with a timed root to draw' "$page"
	expect_contains 'tr-cp: --baseline: no trace with a timed root to compare' "$page"
	expect_contains '--baseline: n of m traces have a timed root; a baseline needs at least 2 to have a spread' "$page"
	expect_contains 'tr-cp: --baseline: n incident against m baseline traces, critical-path time per request' "$page"
	expect_contains "nothing differs beyond the baseline's spread" "$page"
}
