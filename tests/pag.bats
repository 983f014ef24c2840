#!/usr/bin/env bats
# tr-pag: the program activity graph; with tr-cp: critical participation.
load helper

# Fixtures are written with | for TAB.
tsv() { tr '|' '\t'; }

need_cp() { command -v tr-cp >/dev/null || skip "tr-cp is not built"; }
need_ingest() { command -v tr-ingest >/dev/null || skip "tr-ingest is not built"; }

# The issue's example as spans: B's handler (b1 is its own time after the
# call) calls A, whose server span is a1; A then runs a2 of another trace.
example() {
	tsv <<'EOF' | mkfix example.tr
#tr/1
T|t1
S|t1|s1||0|5|b|handle|server|hb
S|t1|c1|s1|0|3|b|call|client|hb
S|t1|a1|c1|0|2|a|a1|server|ha
T|t2
S|t2|a2||2|3|a|a2|internal|ha
EOF
}

# The same example as hand-written PAG records.
example_pag() {
	tsv <<EOF | mkfix example.pag
#tr/1
PG||$1|$2|0|5
PW||0|A|0
PW||1|B|0
PE||1|2|processing|0|2|0|0|a|a1
PE||2|3|processing|2|5|0|0|a|a2
PE||4|5|waiting|0|3|1|1|b|wait
PE||5|6|processing|3|5|1|1|b|b1
PE||2|5|message|2|3|0|1
EOF
}

# CP of one summary row: window start, summary, key, detail.
cp_of() {
	awk -F'\t' -v s="$1" -v k="$2" -v d="$3" -v w="$4" \
		'$1 == w && $3 == s && $4 == k && $5 == d { print $6 }'
}

@test "tr-pag -h prints usage on stdout and exits 0" {
	run tr-pag -h
	expect_eq 0 "$status" status
	expect_like "usage:*" "$output"
}

@test "tr-pag --version names the tool" {
	run tr-pag --version
	expect_eq 0 "$status" status
	expect_like "tr-pag \(tr\) *" "$output"
}

@test "tr-pag: unknown option, bad window, bad format are usage errors (2)" {
	run tr-pag --bogus
	expect_eq 2 "$status" status
	run tr-pag --window 5parsecs /dev/null
	expect_eq 2 "$status" status
	expect_contains "--window: not a duration over 0 (1s, 250ms, 10us): 5parsecs" "$output"
	run tr-pag --window 0 /dev/null
	expect_eq 2 "$status" status
	run tr-pag -f png /dev/null
	expect_eq 2 "$status" status
	expect_contains '-f: unknown format "png" (line, dot, pag-dot, svg)' "$output"
}

@test "tr-pag passes traces through and appends traceless PG PW PV PE records" {
	f=$(example)
	run tr-pag "$f"
	output=$(pag_named <<<"$output")
	expect_eq 0 "$status" status
	# the traces come out unchanged
	diff <(grep -v '^P' <<<"$output") "$f"
	# every PAG record has an empty trace field
	expect_gt 0 "$(grep -c '^P' <<<"$output")"
	expect_num 0 "$(grep '^P' <<<"$output" | awk -F'\t' '$2 != ""' | wc -l)"
	grep -q $'^PG\t\t0\t0\t0\t5$' <<<"$output"
	# workers b and a (no worker for the untraced clients that send the
	# roots' requests): lanes numbered as they are first needed
	expect_num 2 "$(grep -c '^PW' <<<"$output")"
	grep -q $'^PW\t\t0\tb@hb\t0$' <<<"$output"
	grep -q $'^PW\t\t1\ta@ha\t0$' <<<"$output"
	# a1's processing, the call's wait, request and response
	grep -q $'^PE\t\t[0-9]*\t[0-9]*\tprocessing\t0\t2\t1\t1\ta\ta1\tt1\ta1$' <<<"$output"
	grep -q $'\twaiting\t0\t3\t0\t0\tb\tcall\tt1\tc1$' <<<"$output"
	grep -q $'\trequest\t0\t0\t0\t1\ta\ta1\tt1\ta1$' <<<"$output"
	grep -q $'\tresponse\t2\t3\t1\t0\ta\ta1\tt1\ta1$' <<<"$output"
}

@test "tr-pag --pag-only writes the header and the graph only; -n leaves out vertices" {
	f=$(example)
	run tr-pag -P "$f"
	expect_eq 0 "$status" status
	expect_num 1 "$(grep -vc '^P' <<<"$output")"
	expect_eq "#tr/1" "${lines[0]}"
	run tr-pag -P -n "$f"
	expect_num 0 "$(grep -c '^PV' <<<"$output")"
	expect_num 7 "$(grep -c '^PE' <<<"$output")"
	# -n: only what tr-cp reads, no span ids on the edges
	expect_num 0 "$(awk -F'\t' '$1 == "PE" && NF != 10' <<<"$output" | wc -l)"
}

@test "tr-pag names each operation once, in a PO record before its first edge; PE records give its number" {
	f=$(example)
	run tr-pag -P "$f"
	expect_eq 0 "$status" status
	# one PO record per operation (none for the unknown activity: this
	# graph has none)
	expect_num 4 "$(grep -c '^PO' <<<"$output")"
	expect_num 4 "$(grep '^PO' <<<"$output" | cut -f3 | sort -u | wc -l)"
	grep -q $'^PO\t\t[0-9]*\ta\ta1$' <<<"$output"
	expect_num 0 "$(grep -c $'^PO\t\t[0-9]*\t\t$' <<<"$output")"
	# every number an edge gives was named before it
	run awk -F'\t' '$1 == "PO" { named[$3] = 1 } $1 == "PE" && !($10 in named) { n++ } END { print n + 0 }' <<<"$output"
	expect_output 0
}

@test "PAG records by number: an operation with no PO record before it, or named twice, is bad input; names in place still read" {
	need_cp
	# numbered: op 1 is "svc op"; the same graph with the names in place
	numbered=$(tsv <<'EOF' | mkfix numbered.pag
PO||1|svc|op
PE||0|1|processing|0|3|0|0|1
PE||1|2|processing|3|5|0|0|
EOF
)
	named=$(tsv <<'EOF' | mkfix named.pag
PE||0|1|processing|0|3|0|0|svc|op
PE||1|2|processing|3|5|0|0
EOF
)
	run tr-cp "$numbered"
	expect_eq 0 "$status" status
	expect_output "$(tr-cp "$named")"
	grep -q $'\toperation\tsvc\top\t' <<<"$output"
	# bad ones, and a bad edge in a numbered graph named as in any other
	while IFS='#' read -r records want; do
		f=$(printf "$records" | mkfix bad.pag)
		run tr-cp "$f"
		expect_status 3 || { echo "$records: status $status"; false; }
		expect_contains "tr-cp: $f:2: $want" "$output" || { echo "$records: $output"; false; }
	done <<'EOF'
PO\t\t1\tsvc\top\nPE\t\t0\t1\tprocessing\t0\t3\t0\t0\t2\n#PE record: operation 2 has no PO record before it
PO\t\t1\tsvc\top\nPO\t\t1\tsvc\tother\n#PO record: operation 1 named twice, differently
PO\t\t1\tsvc\top\nPE\t\t0\t1\tprocessing\t5\t3\t0\t0\t1\n#PE record: edge goes back in time
EOF
}

@test "tr-pag: PE times agree with PV times of the vertices they join" {
	f=$(example)
	run tr-pag -P "$f"
	bad=$(awk -F'\t' '$1 == "PV" { t[$3] = $5 }
		$1 == "PE" && (t[$3] != $6 || t[$4] != $7) { n++ } END { print n + 0 }' <<<"$output")
	expect_num 0 "$bad"
}

@test "tr-pag: overlapping requests of one worker take separate lanes, freed lanes are reused" {
	f=$(tsv <<'EOF' | mkfix lanes.tr
#tr/1
T|t1
S|t1|r1||0|10|fe|GET|server|h
S|t1|n1|r1|1|3|fe|parse|internal|h
T|t2
S|t2|r2||2|10|fe|GET|server|h
T|t3
S|t3|r3||11|5|fe|GET|server|h
EOF
)
	run tr-pag -P "$f"
	expect_eq 0 "$status" status
	expect_num 2 "$(grep -c $'^PW\t\t[0-9]*\tfe@h\t' <<<"$output")"
	# lane of each span's start vertex: r1, its child n1 and r3 on 0, r2 on
	# fe's second lane, 1
	lanes=$(awk -F'\t' '$1 == "PV" && $6 == "start" { print $8 "=" $4 }' <<<"$output" | sort | tr '\n' ' ')
	expect_eq "n1=0 r1=0 r2=1 r3=0 " "$lanes"
	# no two worker activities of one lane overlap, and a lane runs from a
	# root's start to its last activity: lane 0 [0,10] and [11,16] (the
	# idle time before the root r3 is no part of it), lane 1 [2,12]
	run awk -F'\t' '$1 == "PE" && $5 !~ /request|response|message|spawn|join/ {
		if ($8 in end && $6 < end[$8]) bad++; end[$8] = $7; sum[$8] += $7 - $6 }
		END { print sum[0] + 0, sum[1] + 0, bad + 0 }' <<<"$output"
	expect_output "15 10 0"
}

@test "tr-pag --worker-key adds a tag to what makes a worker" {
	f=$(tsv <<'EOF' | mkfix threads.tr
#tr/1
T|t1
S|t1|r1||0|10|fe|GET|server|h|thread.id=1
S|t1|r2||0|10|fe|GET|server|h|thread.id=2
EOF
)
	run tr-pag -P "$f"
	expect_num 2 "$(grep -c $'^PW\t\t[0-9]*\tfe@h\t' <<<"$output")"
	run tr-pag -P --worker-key service,host,thread.id "$f"
	expect_eq 0 "$status" status
	expect_eq "fe@h/1 fe@h/2 " "$(grep '^PW' <<<"$output" | cut -f4 | sort | tr '\n' ' ')"
	# a tag no span has would merge the threads unnoticed: an error
	run tr-pag -P --worker-key service,host,thread_id "$f"
	expect_eq 2 "$status" status
	expect_contains 'tr-pag: --worker-key thread_id: no span has a tag thread_id (did you mean thread.id?)' "$output"
}

@test "tr-pag: a client span whose callee is not traced is io, not waiting" {
	f=$(tsv <<'EOF' | mkfix io.tr
#tr/1
T|t1
S|t1|r||0|10|driver|find|server|h
S|t1|c|r|2|5|driver|GetDriver|client|h
EOF
)
	run tr-pag -P "$f"
	output=$(pag_named <<<"$output")
	grep -q $'\tio\t2\t7\t0\t0\tdriver\tGetDriver\t' <<<"$output"
	expect_num 0 "$(grep -c $'\twaiting\t' <<<"$output")"
}

# The example from spans: a2 is the root of another trace, an entry at 2
# that no edge enters (its sender is not traced); nothing leads from a1 to
# a2. One longest path: handle -> call -> a1 -> response -> handle; a2
# [2,5] starts after the window does and is on none (Def. 7).
# CP = time on paths / (N * 5).
@test "tr-pag: the example from spans over [0,5]: N=1, a1 0.4, response 0.2, handle 0.4, a2 (a later root) 0" {
	need_cp
	f=$(example)
	run sh -c "tr-pag -P '$f' | tr-cp"
	expect_eq 0 "$status" status
	expect_eq 1 "$(cp_of window paths 1 0 <<<"$output")"
	expect_eq 0.4 "$(cp_of operation a a1 0 <<<"$output")"
	expect_eq 0 "$(cp_of operation a a2 0 <<<"$output")"
	expect_eq 0.2 "$(cp_of activity response '' 0 <<<"$output")"
	expect_eq 0.4 "$(cp_of operation b handle 0 <<<"$output")"
	expect_eq 0 "$(cp_of activity waiting '' 0 <<<"$output")"
}

@test "tr-pag: the example from spans in the window [1,4]: N=1, a1 1/3, response 1/3, handle 1/3, a2 0" {
	need_cp
	f=$(example)
	run sh -c "tr-pag -P --window 3us --origin 1us '$f' | tr-cp"
	expect_eq 0 "$status" status
	expect_eq 1 "$(cp_of window paths 1 1 <<<"$output")"
	expect_eq 0.333333 "$(cp_of operation a a1 1 <<<"$output")"
	expect_eq 0 "$(cp_of operation a a2 1 <<<"$output")"
	expect_eq 0.333333 "$(cp_of activity response '' 1 <<<"$output")"
	expect_eq 0.333333 "$(cp_of operation b handle 1 <<<"$output")"
}

@test "tr-cp over hand-written PAG records: the issue's example, windows [0,5] and [1,4]" {
	need_cp
	f=$(example_pag 5 0)
	run tr-cp "$f"
	expect_eq 0 "$status" status
	expect_eq 1 "$(cp_of window paths 2 0 <<<"$output")"
	expect_eq 0.4 "$(cp_of operation a a1 0 <<<"$output")"
	expect_eq 0.3 "$(cp_of operation a a2 0 <<<"$output")"
	expect_eq 0.1 "$(cp_of channel A B 0 <<<"$output")"
	expect_eq 0.2 "$(cp_of operation b b1 0 <<<"$output")"
	expect_eq 0.7 "$(cp_of worker A '' 0 <<<"$output")"
	expect_eq 0 "$(cp_of activity waiting '' 0 <<<"$output")"
	f=$(example_pag 3 1)
	run tr-cp "$f"
	expect_eq 1 "$(cp_of window paths 2 1 <<<"$output")"
	expect_eq 0.333333 "$(cp_of operation a a1 1 <<<"$output")"
	expect_eq 0.166667 "$(cp_of channel A B 1 <<<"$output")"
	expect_eq 0.166667 "$(cp_of operation b b1 1 <<<"$output")"
}

@test "tr-cp: an activity straddling window boundaries is cut into each window" {
	need_cp
	f=$(tsv <<'EOF' | mkfix straddle.tr
#tr/1
T|t1
S|t1|r||5|30|svc|long|server|h
T|t2
S|t2|q||12|6|svc2|short|server|h2
EOF
)
	run sh -c "tr-pag -P --window 10us '$f' | tr-cp"
	expect_eq 0 "$status" status
	# long runs [5,35]: 5 us in [0,10], 10 in [10,20] and [20,30], 5 in [30,40]
	times=$(awk -F'\t' '$3 == "operation" && $5 == "long" { printf "%s:%s ", $1, $7 }' <<<"$output")
	expect_eq "0:5 10:10 20:10 30:5 " "$times"
	# every window's CP sums to 1
	expect_num 0 "$(awk -F'\t' '$3 == "window" && $6 != 1' <<<"$output" | wc -l)"
	# in [10,20] short [12,18] leads nowhere after 18: long is all of it
	expect_eq 1 "$(cp_of operation svc long 10 <<<"$output")"
	expect_eq 0 "$(cp_of operation svc2 short 10 <<<"$output")"
	# in [0,10] long [5,10] is the only activity: all of it (the window's
	# longest path is 5 us; no source idles before it)
	expect_eq 1 "$(cp_of operation svc long 0 <<<"$output")"
	expect_eq 1 "$(cp_of window paths 1 0 <<<"$output")"
}

@test "tr-cp: a window with no span has no rows, nor one with no edge" {
	need_cp
	f=$(tsv <<'EOF' | mkfix gap.tr
#tr/1
T|t1
S|t1|r||0|10|svc|op|server|h
T|t2
S|t2|r||30|10|svc|op|server|h
EOF
)
	run sh -c "tr-pag -P --window 10us '$f' | tr-cp"
	expect_eq 0 "$status" status
	# the idle time before the request that comes at 30 is no part of the
	# graph: neither waiting nor unknown
	expect_eq "0 30 " "$(awk -F'\t' '$3 == "window" { print $1 }' <<<"$output" | tr '\n' ' ')"
	expect_num 0 "$(grep -c -E $'\t(unknown|waiting)\t' <<<"$output")"
	expect_lacks 'property 1' "$output"
	expect_eq 1 "$(cp_of operation svc op 30 <<<"$output")"
	g=$(tsv <<'EOF' | mkfix gap.pag
PG||10|0|0|40
PE||0|1|processing|0|10|0|0|svc|op
PE||2|3|processing|30|40|0|0|svc|op
EOF
)
	run tr-cp "$g"
	expect_eq 0 "$status" status
	expect_eq "0 30 " "$(awk -F'\t' '$3 == "window" { print $1 }' <<<"$output" | tr '\n' ' ')"
}

@test "tr-pag warns about property 1 (a vertex only a wait enters) with counts" {
	f=$(tsv <<'EOF' | mkfix p1.pag
PE||0|1|processing|0|2|0|0
PE||1|2|waiting|2|4|0|0
PE||2|3|processing|4|6|0|0
PE||4|5|processing|0|6|1|1
EOF
)
	run tr-pag -P "$f"
	expect_eq 0 "$status" status
	expect_like "*property 1: 1 vertices in 1 of 1 windows*; e.g. at 4 us on lane0*" "$output"
	expect_lacks 'property 2' "$output"
	run tr-pag -q -P "$f"
	expect_lacks 'property 1' "$output"
}

@test "tr-pag: property 1 from spans names the span to look at" {
	# the consumer starts before its producer: the message is dropped as
	# skew, and nothing enters the consumer's start
	f=$(tsv <<'EOF' | mkfix p1.tr
#tr/1
T|t1
S|t1|r||0|30|A|handle|server|a
S|t1|p|r|10|5|A|send|producer|a
S|t1|c|p|8|4|B|receive|consumer|b
EOF
)
	run tr-pag -P "$f"
	expect_eq 0 "$status" status
	expect_contains 'tr-pag: property 1: 1 vertices in 1 of 1 windows have no incoming edge a critical path can use (missing instrumentation?); e.g. at 8 us on B@b, trace t1 span c' "$output"
	expect_contains '1 communication edges dropped: they arrive before they leave (clock skew)' "$output"
}

@test "tr-pag warns about property 2 (every worker waits, no message in flight)" {
	f=$(tsv <<'EOF' | mkfix p2.pag
PE||0|1|processing|0|2|0|0
PE||1|2|waiting|2|4|0|0
PE||2|3|processing|4|6|0|0
PE||4|5|processing|0|1|1|1
PE||5|6|waiting|1|5|1|1
PE||6|7|processing|5|6|1|1
EOF
)
	run tr-pag -P "$f"
	expect_like "*property 2: 1 times \(2 us\) in 1 of 1 windows*; e.g. at 2 us on lane1*" "$output"
	# with a message in flight over [2,4] it holds
	printf 'PE\t\t1\t2\tmessage\t2\t4\t0\t0\n' >> "$f"
	run tr-pag -P "$f"
	expect_lacks 'property 2' "$output"
}

@test "tr-pag: a PAG without traces is read back, checked and written again" {
	f=$(example_pag 5 0)
	run tr-pag -P -n "$f"
	expect_eq 0 "$status" status
	expect_num 5 "$(grep -c '^PE' <<<"$output")"
	grep -q $'^PG\t\t5\t0\t0\t5$' <<<"$output"
}

@test "tr-pag on its own output rebuilds the graph instead of doubling it" {
	f=$(example)
	tr-pag --window 1s "$f" > "$BATS_TEST_TMPDIR/once"
	tr-pag --window 1s "$BATS_TEST_TMPDIR/once" > "$BATS_TEST_TMPDIR/twice"
	cmp "$BATS_TEST_TMPDIR/once" "$BATS_TEST_TMPDIR/twice"
}

@test "tr-pag -o writes the file; nothing on stdout" {
	f=$(example)
	run tr-pag -P -o "$BATS_TEST_TMPDIR/out.tr" "$f"
	expect_eq 0 "$status" status
	expect_empty "$output"
	expect_num 7 "$(grep -c '^PE' "$BATS_TEST_TMPDIR/out.tr")"
}

@test "tr-pag -f pag-dot draws every vertex and edge, one cluster per worker" {
	f=$(example)
	run tr-pag -f pag-dot "$f"
	expect_eq 0 "$status" status
	expect_like "digraph *" "${lines[0]}"
	expect_num 2 "$(grep -c 'subgraph "cluster_' <<<"$output")" # a, b
	grep -q 'label="a@ha"' <<<"$output"
	expect_lacks '#tr/1' "$output"
	if command -v dot >/dev/null; then
		dot -Tsvg <<<"$output" >/dev/null
	fi
	# --trace keeps t2's activities: a2 alone (an entry: no edge enters it)
	run tr-pag -f pag-dot --trace t2 "$f"
	expect_eq 0 "$status" status
	expect_num 1 "$(grep -c 'subgraph "cluster_' <<<"$output")"
	expect_num 1 "$(grep -c -- '->' <<<"$output")"
	# --from/--to keep what overlaps [3,4]: a2 and b's handle after the call
	run tr-pag -f pag-dot --from 3 --to 4 "$f"
	expect_num 2 "$(grep -c -- '->' <<<"$output")"
	grep -q 'processing 3 µs\\na2' <<<"$output"
	grep -q 'processing 2 µs\\nhandle' <<<"$output"
}

@test "tr-pag pictures: durations in a readable unit, --units sets it, and goes with dot and pag-dot only" {
	f=$(example)
	run tr-pag -q -f pag-dot --units ms --from 3 --to 4 "$f"
	expect_eq 0 "$status" status
	grep -q 'processing 0.003 ms\\na2' <<<"$output" || { echo "$output"; false; }
	run tr-pag -q --dot --units us "$f"
	grep -q '"w1" \[label="a@ha\\nCP 0.4\\ntime 5 µs"' <<<"$output" || { echo "$output"; false; }
	run tr-pag -q --units ms "$f"
	expect_eq 2 "$status" status
	expect_eq "tr-pag: --units goes with -f dot and pag-dot: the records are µs" "${lines[0]}"
}

@test "tr-pag --dot draws workers and channels weighted by CP, --top N keeps the N most critical" {
	f=$(example)
	run tr-pag -q --dot "$f"
	expect_eq 0 "$status" status
	expect_eq 'digraph "critical participation" {' "${lines[0]}"
	# a: a1 0.4 (a2 0); b: handle 0.4, busy 2 us of its 5; a -> b carries
	# the response, 0.2
	grep -q '"w1" \[label="a@ha\\nCP 0.4\\ntime 5 µs"' <<<"$output"
	grep -q '"w0" \[label="b@hb\\nCP 0.4\\ntime 2 µs"' <<<"$output"
	grep -q '"w1" -> "w0" \[label="CP 0.2\\n1 µs"' <<<"$output"
	run tr-pag -q --dot --top 1 "$f"
	expect_num 1 "$(grep -c '\[label=' <<<"$output")"
	grep -q 'b@hb' <<<"$output"
	if command -v dot >/dev/null; then
		tr-pag -q --dot "$f" | dot -Tsvg >/dev/null
	fi
}

@test "tr-pag --worker keeps the activities on, to or from one worker; a name nobody has is a usage error" {
	f=$(example)
	run tr-pag -q -f pag-dot --worker b@hb "$f"
	expect_eq 0 "$status" status
	# b's three activities, the request and response with a
	expect_num 5 "$(grep -c -- '->' <<<"$output")"
	run tr-pag -q --dot --worker b@h "$f"
	expect_eq 2 "$status" status
	expect_contains 'tr-pag: --worker b@h: no worker has this name (did you mean b@hb?)' "$output"
	run tr-pag -q --dot --trace t9 "$f"
	expect_eq 2 "$status" status
	expect_contains '--trace t9: no trace has this id' "$output"
	run tr-pag -q --dot --from 100 "$f"
	expect_eq 2 "$status" status
	expect_contains 'no activity is within --from 100' "$output"
}

@test "tr-pag -f svg draws each summary's CP over the windows" {
	f=$(example)
	run tr-pag -q -f svg -w 1us "$f"
	expect_eq 0 "$status" status
	expect_eq '<?xml version="1.0" encoding="UTF-8"?>' "${lines[0]}"
	expect_contains '(5 windows over 5 us from 0 us)' "$output"
	for t in "activity type" "worker (stragglers)" "operation (per worker)" "communication"; do
		expect_contains ">$t</text>" "$output" || { echo "no panel $t"; false; }
	done
	# one line per key with its CP over all and its time; 5 points each
	expect_contains '>CP 0.300  time 3 us  a a2</text>' "$output"
	expect_gt 4 "$(grep -c '<polyline' <<<"$output")"
	expect_num 5 "$(grep -o 'points="[^"]*"' <<<"$output" | head -1 | tr ' ' '\n' | wc -l)"
	if command -v python3 >/dev/null; then
		python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.stdin)' <<<"$output"
	fi
}

@test "tr-pag -f svg is well-formed XML whatever the names hold: <, &, quotes, control characters" {
	command -v python3 >/dev/null || skip "no python3 to parse the XML"
	printf '#tr/1\nT\tt1\nS\tt1\ta\t\t0\t30\ts<v&"%%01x\th\x01op\tserver\th1\nS\tt1\tb\ta\t5\t20\ts<v&"%%01x\tcall\tclient\th1\nS\tt1\tc\tb\t10\t10\tdb\tq\tserver\th2\n' |
		mkfix x.tr > /dev/null
	run tr-pag -q -f svg "$BATS_TEST_TMPDIR/x.tr"
	expect_eq 0 "$status" status
	python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.stdin)' <<<"$output"
	expect_contains 's&lt;v&amp;&quot;x@h1' "$output"
}

@test "tr-pag --dot and -f svg of spans none of which has a time: exit 3, one line, no empty picture" {
	printf '#tr/1\nT\tt1\nS\tt1\ta\t\t\t\tA\th\tserver\ta\n' | mkfix notime.tr > /dev/null
	for f in dot svg; do
		run tr-pag -q -f $f "$BATS_TEST_TMPDIR/notime.tr"
		expect_eq 3 "$status" status
		expect_output "tr-pag: nothing to draw: no span has a start and a duration"
	done
}

@test "tr-pag --dot on the samples renders in under 10 s" {
	need_ingest
	[ -f "$SAMPLES/jaeger/hotrod.json" ] || skip "no samples"
	command -v dot >/dev/null || skip "no graphviz"
	SECONDS=0
	tr-ingest "$SAMPLES/jaeger/hotrod.json" | tr-pag -q --dot | dot -Tsvg > "$BATS_TEST_TMPDIR/pag.svg"
	expect_lt 10 "$SECONDS"
	grep -q '<svg' "$BATS_TEST_TMPDIR/pag.svg"
}

@test "tr-pag -f pag-dot of an input too large to draw draws the slowest request, and names it" {
	need_ingest
	[ -f "$SAMPLES/jaeger/hotrod.json" ] || skip "no samples"
	tr-ingest -q "$SAMPLES/jaeger/hotrod.json" > "$BATS_TEST_TMPDIR/h.tr"
	slowest=$(awk -F'\t' '$1 == "S" && $4 == "" && $6 > d && $8 !~ /Stream$/ { d = $6; id = $2 } END { print id }' "$BATS_TEST_TMPDIR/h.tr")
	run tr-pag -f pag-dot "$BATS_TEST_TMPDIR/h.tr"
	expect_status 0
	expect_contains "tr-pag: -f pag-dot: " "$output"
	expect_contains "edges are more than a picture can show; drawing the slowest request, $slowest (" "$output"
	run tr-pag -q -f pag-dot "$BATS_TEST_TMPDIR/h.tr"
	expect_lacks "more than a picture can show" "$output" "-q"
	expect_eq "$(tr-pag -q -f pag-dot --trace "$slowest" "$BATS_TEST_TMPDIR/h.tr")" "$output" "the picture of --trace $slowest"
}

@test "tr-pag: a response that skew sends back in time is clamped to leave when it arrives" {
	# serve [5,13] fits in call [0,10] (8 <= 10 us): a synchronous call
	# whose server clock runs 3+ us ahead
	f=$(tsv <<'EOF' | mkfix skew.tr
#tr/1
T|t1
S|t1|c||0|10|a|call|client|ha
S|t1|s|c|5|8|b|serve|server|hb
EOF
)
	run tr-pag -P "$f"
	output=$(pag_named <<<"$output")
	expect_eq 0 "$status" status
	expect_like "*1 requests or responses clamped*clock skew*" "$output"
	expect_lacks 'dropped' "$output"
	# the response leaves serve at 10, the client's end, and takes no time
	grep -q $'\tresponse\t10\t10\t1\t0\tb\tserve\tt1\ts$' <<<"$output"
	grep -q $'\tprocessing\t5\t10\t1\t1\tb\tserve\t' <<<"$output"
	expect_lacks 'property 1' "$output"
	run tr-pag -q -P "$f"
	expect_lacks 'clamped' "$output"
}

@test "tr-pag: a client whose callee starts after it ended or runs longer is async: no wait, no response, no warning" {
	f=$(tsv <<'EOF' | mkfix async.tr
#tr/1
T|t1
S|t1|c||0|10|a|call|client|ha
S|t1|s|c|2|12|b|serve|server|hb
EOF
)
	run tr-pag -P "$f"
	output=$(pag_named <<<"$output")
	expect_eq 0 "$status" status
	expect_lacks 'skew' "$output"
	expect_num 0 "$(grep -c $'\tresponse\t' <<<"$output")"
	expect_num 0 "$(grep -c $'\twaiting\t' <<<"$output")"
	grep -q $'\tprocessing\t0\t10\t0\t0\ta\tcall\t' <<<"$output"
	grep -q $'\trequest\t0\t2\t0\t1\tb\tserve\t' <<<"$output"
}

@test "tr-pag: a child run on its parent's worker after the parent ended is handed over: the gap before it waits" {
	f=$(tsv <<'EOF' | mkfix after.tr
#tr/1
T|t1
S|t1|a||0|10|svc|op|server|h
S|t1|b|a|12|10|svc|later|internal|h
EOF
)
	run tr-pag -P "$f"
	output=$(pag_named <<<"$output")
	grep -q $'\tspawn\t10\t12\t0\t0\tsvc\tlater\tt1\tb$' <<<"$output"
	grep -q $'\twaiting\t10\t12\t0\t0\tsvc\tlater\tt1\tb$' <<<"$output"
	expect_num 0 "$(grep -c $'\tunknown\t[0-9]*\t[0-9]*\t0\t0' <<<"$output")"
}

@test "tr-pag --unknown-threshold gives short gaps to the activity before them" {
	# x starts before its parent p (skew): nothing enters the gap [10,12]
	# after a on svc's lane
	f=$(tsv <<'EOF' | mkfix gaps.tr
#tr/1
T|t1
S|t1|a||0|10|svc|op|server|h
T|t2
S|t2|p||20|10|other|run|internal|h2
S|t2|x|p|12|5|svc|later|internal|h
EOF
)
	run tr-pag -P "$f"
	grep -q $'\tunknown\t10\t12\t0\t0\t' <<<"$output"
	run tr-pag -P --unknown-threshold 5us "$f"
	output=$(pag_named <<<"$output")
	expect_num 0 "$(grep -c $'\tunknown\t[0-9]*\t[0-9]*\t0\t0' <<<"$output")"
	grep -q $'\tprocessing\t10\t12\t0\t0\tsvc\top\tt1\ta$' <<<"$output"
}

@test "tr-pag: the idle time before a root is no part of its lane: neither waiting nor unknown" {
	f=$(tsv <<'EOF' | mkfix wait.tr
#tr/1
T|t1
S|t1|a||0|10|svc|op|server|h
T|t2
S|t2|b||12|10|svc|op|server|h
EOF
)
	run tr-pag -P "$f"
	output=$(pag_named <<<"$output")
	expect_eq 0 "$status" status
	# b is an entry: no request, no edge over [10,12]; its lane's run
	# begins again at 12
	expect_num 0 "$(grep -c -E $'\t(waiting|unknown|request)\t' <<<"$output")"
	expect_num 2 "$(grep -c $'^PE\t' <<<"$output")"
	grep -q $'\tprocessing\t12\t22\t0\t0\tsvc\top\tt2\tb$' <<<"$output"
	expect_lacks 'property' "$output"
}

@test "tr-pag: a bad trace is reported with file:line, exit 3, the good ones still out with -k" {
	f=$(tsv <<'EOF' | mkfix bad.tr
#tr/1
T|t1
S|t1|a||0|10|svc|op|server|h
T|t2
S|t2|b||zero|10|svc|op|server|h
T|t3
S|t3|c||20|10|svc|op|server|h
EOF
)
	run tr-pag -k -P "$f"
	expect_eq 3 "$status" status
	expect_contains 'bad.tr:5:' "$output"
	grep -q $'\tt1\ta$' <<<"$output"
	grep -q $'\tt3\tc$' <<<"$output"
	expect_num 0 "$(grep -c $'\tt2\t' <<<"$output")"
}

@test "tr-pag: spans alike but for their host, or for an '@' moved between service and host, keep their own workers" {
	# many hosts for one service and operation (the worker cache must
	# not take one for another), then "a@b" on host "c" and "a" on "b@c",
	# which make the same worker name, and a service with a TAB in it
	for i in $(seq 0 299); do
		printf 'T\tt%d\nS\tt%d\ts\t\t%d\t5\tsvc\tGET\tserver\th%d\n' "$i" "$i" $((i * 10)) "$i"
	done > "$BATS_TEST_TMPDIR/hosts.tr"
	printf 'T\tu1\nS\tu1\ts\t\t5000\t5\ta@b\top\tserver\tc\nT\tu2\nS\tu2\ts\t\t5010\t5\ta\top\tserver\tb@c\n' \
		>> "$BATS_TEST_TMPDIR/hosts.tr"
	printf 'T\tu3\nS\tu3\ts\t\t5020\t5\ta%%09b\top\tserver\tc\nT\tu4\nS\tu4\ts\t\t5030\t5\ta\tb%%09op\tserver\tc\n' \
		>> "$BATS_TEST_TMPDIR/hosts.tr"
	run tr-pag -P -q -w 1s "$BATS_TEST_TMPDIR/hosts.tr"
	expect_eq 0 "$status" status
	pw=$(grep '^PW' <<<"$output" | cut -f4 | sort -u)
	expect_num 300 "$(grep -c '^svc@h[0-9]*$' <<<"$pw")"
	for i in 0 7 150 299; do grep -qx "svc@h$i" <<<"$pw"; done
	grep -qx 'a@b@c' <<<"$pw"	# one worker for both: the name is the key
	grep -qx 'a%09b@c' <<<"$pw"
	grep -qx 'a@c' <<<"$pw"
}

@test "tr-pag does not keep span tags it does not read, but refuses a bad one as every tool does" {
	need_cp
	f=$(tsv <<'EOF' | mkfix badtag.tr
#tr/1
T|t1
S|t1|a||0|10|svc|op|server|h|ok=1|a very long tag that has no equals sign in it at all
EOF
)
	run tr-cp "$f"
	expect_eq 3 "$status" status
	want=$(grep 'field 12' <<<"$output")
	expect_contains 'badtag.tr:3: field 12: expected key=value, got "a very long tag that has no equals sign "' "$want"
	run tr-pag -P "$f"
	expect_eq 3 "$status" status
	expect_eq "$want" "$(grep 'field 12' <<<"$output" | sed 's/^tr-pag/tr-cp/')"
	# the same with a worker key naming a tag: then tags are read
	run tr-pag -P --worker-key service,ok "$f"
	expect_eq 3 "$status" status
	expect_eq "$want" "$(grep 'field 12' <<<"$output" | sed 's/^tr-pag/tr-cp/')"
}

@test "tr-pag: a bad PAG record is bad input (exit 3)" {
	f=$(tsv <<'EOF' | mkfix bad.pag
PE||0|1|processing|5|3|0|0
EOF
)
	run tr-pag -P "$f"
	expect_eq 3 "$status" status
	expect_contains 'PE record: edge goes back in time' "$output"
	need_cp
	run tr-cp "$f"
	expect_eq 3 "$status" status
}

@test "tr-pag: a lane number far beyond the records before it is bad input; vertex numbers are free" {
	# Lane numbers index arrays: a two-line file must not claim gigabytes.
	# Vertex numbers are renumbered as read (records in window order use
	# them in any order), so a large one costs nothing.
	f=$(tsv <<'EOF' | mkfix huge.pag
PE||0|1|processing|0|3|0|0
PE||1|1166666666|processing|3|5|0|0
EOF
)
	run tr-pag -P "$f"
	expect_eq 0 "$status" status
	expect_num 2 "$(grep -c '^PE' <<<"$output")"
	run tr-cp "$f"
	expect_eq 0 "$status" status
	f=$(printf 'PW\t\t4000000000\tw\t0\n' | mkfix lane.pag)
	run tr-pag -P "$f"
	expect_eq 3 "$status" status
	expect_like "*PW record: *lane*" "$output"
	f=$(printf 'PW\t\t4000\tw\t0\nPE\t\t0\t1\tprocessing\t0\t3\t4000\t4000\n' | mkfix sparse.pag)
	run tr-pag -P "$f"
	expect_eq 0 "$status" status
}

@test "--max-windows: more windows is a usage error for tr-pag, bad input for tr-cp" {
	need_cp
	f=$(example_pag 1 0)	# 1 us windows over [0, 5]: 6 windows
	run tr-cp --max-windows 5 "$f"
	expect_eq 3 "$status" status
	expect_contains 'the graph has 6 windows of 1 us, more than --max-windows 5: no critical participation computed' "$output"
	expect_lacks 'window'$'\tpaths' "$output"
	run tr-cp --max-windows 6 "$f"
	expect_eq 0 "$status" status
	run tr-cp --max-windows 0 "$f"
	expect_eq 0 "$status" status
	run tr-cp --max-windows x "$f"
	expect_eq 2 "$status" status
	run tr-pag -P --max-windows 5 -o "$BATS_TEST_TMPDIR/out.pag" "$f"
	expect_eq 2 "$status" status
	expect_contains '6 windows of 1 us, more than --max-windows 5: choose a longer --window' "$output"
	[ ! -e "$BATS_TEST_TMPDIR/out.pag" ]
	run tr-pag -P --max-windows 5 -w 2us "$f"
	expect_eq 0 "$status" status
	# an origin no span time can have would make windows no record can hold
	f=$(printf '#tr/1\nT\tt1\nS\tt1\ta\t\t-2305843009213693952\t10\tsvc\top\tserver\th\n' | mkfix far.tr)
	run tr-pag -P --max-windows 0 -w 1us --origin 9000000000000000000 "$f"
	expect_eq 2 "$status" status
	expect_contains '--origin 9000000000000000000: beyond the times a span can have' "$output"
	# a stream of spans (nothing held) stops at the limit, saying so
	run tr-pag -P --hold 1 --max-windows 5 -o "$BATS_TEST_TMPDIR/out2.pag" "$(example)"
	expect_eq 0 "$status" status
	f=$(awk 'BEGIN { OFS = "\t"; print "#tr/1"
		for (i = 0; i < 20; i++) { print "T", "t" i; print "S", "t" i, "s", "", i * 1000000, 10, "svc", "op", "server", "h" } }' | mkfix many.tr)
	run tr-pag -P --hold 1 --lateness 1s -w 1s --max-windows 5 -o "$BATS_TEST_TMPDIR/out3.pag" "$f"
	expect_eq 2 "$status" status
	expect_contains 'more than --max-windows 5 windows of 1000000 us: choose a longer --window' "$output"
	[ ! -e "$BATS_TEST_TMPDIR/out3.pag" ]
	# an edge written past its header's end, across more windows than
	# allowed, is refused at once, not computed window by window
	f=$(printf 'PG\t\t10\t0\t0\t30\nPM\t\t0\nPE\t\t0\t1\tprocessing\t0\t20\t0\t0\nPE\t\t1\t2\tprocessing\t20\t100000000000\t0\t0\n' | mkfix past.pag)
	run timeout 20 tr-cp --max-windows 1000 "$f"
	expect_eq 3 "$status" status
	expect_contains 'the graph has more than 1000 windows of 10 us (--max-windows): no critical participation computed after them' "$output"
}

@test "a bad PAG record changes nothing and is reported with its file and line" {
	need_cp
	f=$(example_pag 1 0)
	want=$(tr-cp "$f")
	printf 'PG\t\t7\n' >> "$f"	# a window but no origin: bad, the first header stays
	run tr-cp "$f"
	expect_eq 3 "$status" status
	expect_contains "tr-cp: $f:10: PG record: bad origin" "$output"
	expect_eq "$want" "$(tr-cp "$f" 2>/dev/null)"
	# An edge whose destination conflicts defines not even its source: vertex
	# 7 stays free for the good edge after it.
	f=$(example_pag 1 0)
	printf 'PE\t\t7\t2\tmessage\t1\t4\t1\t1\n' >> "$f"
	printf 'PE\t\t7\t8\tprocessing\t0\t1\t0\t0\n' >> "$f"
	run tr-cp "$f"
	expect_eq 3 "$status" status
	expect_contains "tr-cp: $f:10: PE record: inconsistent vertex 2 (lane 1, time 4 here; lane 0, time 2 before)" "$output"
	expect_num 1 "$(printf '%s\n' "$output" | grep -c 'record:')"
	# line numbers past 9, 99, 109: every bad one named where it is
	f=$(awk 'BEGIN { OFS = "\t"; for (i = 1; i <= 130; i++)
		if (i == 20 || i == 100 || i == 109 || i == 110) print "PE", "", 1000 + 2 * i, 1001 + 2 * i, "processing", 9, 1, 0, 0
		else print "PE", "", 2 * i, 2 * i + 1, "processing", i, i + 1, 0, 0 }' | mkfix lines.pag)
	run tr-cp "$f"
	expect_eq 3 "$status" status
	expect_eq "lines.pag:20 lines.pag:100 lines.pag:109 lines.pag:110 " "$(grep -o 'lines.pag:[0-9]*' <<<"$output" | tr '\n' ' ')"
}

@test "every bad PAG record is named with what is wrong, also one that is too short" {
	need_cp
	for rec in 'PW||0|w' 'PV||0' 'PE||0|1' 'PG||x' 'PO||x'; do
		f=$(printf '%s\n' "$rec" | tr '|' '\t' | mkfix short.pag)
		run tr-cp "$f"
		expect_status 3 || { echo "$rec: status $status"; false; }
		expect_contains "tr-cp: $f:1: ${rec:0:2} record: bad " "$output" || { echo "$rec: $output"; false; }
	done
}

@test "PAG times beyond 2^61 us are bad input; sums of long edges saturate, never overflow" {
	need_cp
	f=$(printf 'PE\t\t0\t1\tprocessing\t0\t2305843009213693953\t0\t0\n' | mkfix far.pag)
	run tr-cp "$f"
	expect_eq 3 "$status" status
	expect_contains "$f:1: PE record: out of range: end" "$output"
	f=$(for l in 0 1 2; do
		printf 'PE\t\t%d\t%d\tprocessing\t-2305843009213693952\t2305843009213693952\t%d\t%d\n' \
			$((2 * l)) $((2 * l + 1)) $l $l
	done | mkfix long.pag)
	run tr-cp "$f"
	expect_eq 0 "$status" status
	expect_eq 9223372036854775807 "$(printf '%s\n' "$output" | awk -F'\t' '$3 == "activity" { print $7 }')"
}

@test "tr-cp over PAG records: csv and json formats" {
	need_cp
	f=$(example_pag 5 0)
	run tr-cp -f csv "$f"
	grep -q '^start_us,end_us,summary,key,detail,cp,time_us,edges,workers$' <<<"$output"
	grep -q '^0,5,operation,a,a1,0.4,2,1,1$' <<<"$output"
	run tr-cp -f json "$f"
	grep -q '^{"start_us":0,"end_us":5,"summary":"operation","key":"a","detail":"a1","cp":0.4,' <<<"$output"
}

@test "tr-cp --units over PAG records: the activities' time in ms, the window's bounds in µs" {
	need_cp
	f=$(example_pag 5 0)
	run tr-cp -f csv --units ms "$f"
	expect_eq 0 "$status" status
	grep -q '^start_us,end_us,summary,key,detail,cp,time_ms,edges,workers$' <<<"$output"
	grep -q '^0,5,operation,a,a1,0.4,0.002,1,1$' <<<"$output"
	run tr-cp -f json --units s "$f"
	grep -q '^{"start_us":0,"end_us":5,"summary":"operation","key":"a","detail":"a1","cp":0.4,"time_s":0.000002,' <<<"$output"
}

@test "tr-pag | tr-cp on the simulated samples: every window's CP sums to 1" {
	need_ingest
	need_cp
	[ -f "$SAMPLES/jaeger/hotrod.json" ] || skip "no samples"
	run sh -c "tr-ingest '$SAMPLES/jaeger/hotrod.json' | tr-pag -P -q --window 1s | tr-cp"
	expect_eq 0 "$status" status
	expect_ge 2 "$(awk -F'\t' '$3 == "window"' <<<"$output" | wc -l)"
	expect_num 0 "$(awk -F'\t' '$3 == "window" && ($6 < 0.99999 || $6 > 1.00001)' <<<"$output" | wc -l)"
	# the mysql queue behind the batch job shows as customer -> mysql requests
	grep -q $'\tchannel\tcustomer@customer-[01]\tmysql@mysql-0\t' <<<"$output"
}

@test "tr-pag | tr-cp on the conformance traces: every window's CP sums to 1" {
	need_conformance
	need_ingest
	need_cp
	for f in "$CONF"/zipkin/messaging2.json "$CONF"/zipkin/smartthings-oauth-authorization.json \
		 "$CONF"/jaeger/tracegraph-testTrace.json "$CONF"/crisp/11.json; do
		run sh -c "tr-ingest '$f' | tr-pag -P -q | tr-cp"
		expect_eq 0 "$status" status
		expect_num 1 "$(awk -F'\t' '$3 == "window"' <<<"$output" | wc -l)"
		expect_num 0 "$(awk -F'\t' '$3 == "window" && ($6 < 0.99999 || $6 > 1.00001)' <<<"$output" | wc -l)"
	done
}

@test "tr-pag: a 100,000-deep trace stays on one lane" {
	f=$(awk 'BEGIN { N = 100000; OFS = "\t"; print "#tr/1"; print "T", "deep"
		for (i = 0; i < N; i++) print "S", "deep", "s" i, (i ? "s" (i - 1) : ""), i, 2 * (N - i), "svc", "op", "server", "h" }' |
		mkfix deep.tr)
	run tr-pag -v -P -n "$f"
	expect_eq 0 "$status" status
	expect_contains '1 workers, 1 lanes, 200000 vertices, 199999 edges' "$output"
}

@test "tr-pag: 100,000 concurrent spans take 100,000 lanes" {
	f=$(awk 'BEGIN { N = 100000; OFS = "\t"; print "#tr/1"; print "T", "wide"
		print "S", "wide", "root", "", 0, 2000, "fe", "root", "server", "h0"
		for (i = 0; i < N; i++) print "S", "wide", "c" i, "root", i % 100, 1000, "svc", "op", "internal", "h" }' |
		mkfix wide.tr)
	run tr-pag -v -P -n "$f"
	expect_eq 0 "$status" status
	expect_contains '2 workers, 100001 lanes' "$output"
}

@test "tr-pag refuses a window so short that there would be more than a million windows" {
	f=$(tsv <<'EOF2' | mkfix far.tr
#tr/1
T|t1
S|t1|a||0|10|svc|op|server|h
S|t1|b||100000000|10|svc|op|server|h
EOF2
)
	run tr-pag -P --window 1us "$f"
	expect_eq 2 "$status" status
	expect_contains '100000011 windows of 1 us, more than --max-windows 1000000' "$output"
	run tr-pag -P --window 1ms "$f"
	expect_eq 0 "$status" status
}

@test "tr-pag: a span at the earliest time allowed, in windows that start before it, reads back into tr-cp" {
	f=$(tsv <<'EOF2' | mkfix early.tr
#tr/1
T|t1
S|t1|a||-2305843009213693952|4604|svc|op|server|h
EOF2
)
	run tr-pag -P --window 10us "$f"
	expect_eq 0 "$status" status
	expect_contains 'PM		-2305843009213693952' "$output"
	# every window, the first one too: as tr-cp computes it without marks
	tr-pag -P -q --window 10us "$f" | tr-cp > "$BATS_TEST_TMPDIR/marked"
	tr-pag -P -q --window 10us "$f" | grep -v '^PM' | tr-cp > "$BATS_TEST_TMPDIR/whole"
	cmp "$BATS_TEST_TMPDIR/marked" "$BATS_TEST_TMPDIR/whole"
	grep -q "^-2305843009213693960	-2305843009213693950	window	" "$BATS_TEST_TMPDIR/marked"
}

@test "tr-pag reading ahead: a bad trace before a missing file stops at the bad trace, as reading in turn does" {
	# -o FILE: tr-pag reads on a second thread, which reaches the missing
	# file before the bad trace is taken
	{
		printf '#tr/1\n'
		for i in $(seq 1 20); do
			printf 'T\tt%d\nS\tt%d\ta\t\t%d\t10\tsvc\top\tserver\th\n' "$i" "$i" "$((i * 100))"
		done
		printf 'T\tbad\nS\tbad\ta\t\tnot-a-time\t10\tsvc\top\tserver\th\n'
		for i in $(seq 21 25); do
			printf 'T\tt%d\nS\tt%d\ta\t\t%d\t10\tsvc\top\tserver\th\n' "$i" "$i" "$((i * 100))"
		done
	} > "$BATS_TEST_TMPDIR/f.tr"
	run tr-pag -P -o "$BATS_TEST_TMPDIR/out" "$BATS_TEST_TMPDIR/f.tr" "$BATS_TEST_TMPDIR/missing.tr"
	expect_eq 3 "$status" status
	expect_contains 'f.tr:43: start: not an integer' "$output"
	expect_lacks 'missing.tr' "$output"
	# with -k the bad trace is said first, then the missing file ends the run
	run tr-pag -k -P -o "$BATS_TEST_TMPDIR/out" "$BATS_TEST_TMPDIR/f.tr" "$BATS_TEST_TMPDIR/missing.tr"
	expect_eq 3 "$status" status
	expect_contains 'f.tr:43: start: not an integer' "${lines[0]}"
	expect_contains 'missing.tr' "${lines[1]}"
}

@test "tr-cp: windows that last no time (spans without durations) are said; a graph of nothing else exits 3" {
	f=$(tsv <<'EOF2' | mkfix timeless.tr
#tr/1
T|t1
S|t1|a||1000|0|svc|op|server|h
EOF2
)
	run sh -c "tr-pag -P -q -n '$f' | tr-cp"
	expect_eq 3 "$status" status
	expect_contains 'no window of the graph lasts any time (spans without durations?): no critical participation to share' "$output"
	# records by hand: a window of one zero-length edge, then one that lasts
	printf '#tr/1\nPG\t\t1000\t0\t1000\t5300\nPW\t\t0\tsvc@h\t0\nPO\t\t1\tsvc\top\nPE\t\t5\t6\tprocessing\t1000\t1000\t0\t0\t1\nPE\t\t7\t8\tprocessing\t5000\t5300\t0\t0\t1\n' > "$BATS_TEST_TMPDIR/some.pag"
	run tr-cp "$BATS_TEST_TMPDIR/some.pag"
	expect_eq 0 "$status" status
	expect_contains '1 of 2 windows last no time: their critical participation is 0' "$output"
	# a graph without edges: nothing to compute
	printf '#tr/1\nPG\t\t1000\t0\t0\t10\nPW\t\t0\tsvc@h\t0\n' > "$BATS_TEST_TMPDIR/none.pag"
	run tr-cp "$BATS_TEST_TMPDIR/none.pag"
	expect_eq 3 "$status" status
	expect_contains 'tr-cp: the graph has no edge: no critical participation to compute' "$output"
}

@test "PAG records: a refused PO record still numbers the PE records after it, which then name no operation" {
	printf '#tr/1\nPG\t\t1000\t0\t0\t10\nPW\t\t0\tsvc@h\t0\nPO\t\t99999\ts\top\nPE\t\t0\t1\tprocessing\t0\t10\t0\t0\t99999\n' > "$BATS_TEST_TMPDIR/po.pag"
	run tr-cp "$BATS_TEST_TMPDIR/po.pag"
	expect_eq 3 "$status" status
	expect_contains 'po.pag:4: PO record: too large for the records before it: operation' "$output"
	expect_contains 'po.pag:5: PE record: operation 99999 has no PO record before it' "$output"
	expect_lacks '99999	' "$output"
}

@test "PAG records: read plainly or field by field, a record ending in an empty field gives the same graph" {
	# a lane written +0 is not plain: the general path reads that record
	for lane in 0 +0; do
		printf '#tr/1\nPG\t\t0\t0\t0\t10\nPW\t\t0\tsvc@h\t0\nPV\t\t0\t0\t0\tstart\tt0\ts0\nPV\t\t0\t%s\t0\tstart\t\nPV\t\t1\t0\t10\tend\tt0\ts0\nPO\t\t1\ts\to\nPE\t\t0\t1\tprocessing\t0\t10\t0\t%s\t1\t\nPE\t\t1\t2\tunknown\t10\t20\t0\t%s\t\n' \
			"$lane" "$lane" "$lane" > "$BATS_TEST_TMPDIR/v$lane.pag"
		tr-pag -P "$BATS_TEST_TMPDIR/v$lane.pag" > "$BATS_TEST_TMPDIR/out$lane"
	done
	cmp "$BATS_TEST_TMPDIR/out0" "$BATS_TEST_TMPDIR/out+0"
	grep -q "^PV		0	0	0	start		$" "$BATS_TEST_TMPDIR/out0"
}
