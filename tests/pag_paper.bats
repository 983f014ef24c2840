#!/usr/bin/env bats
# tr-pag | tr-cp under SnailTrail's model (Hoffmann et al., NSDI 2018):
# hand-worked cases. A worker exists from its first to its last activity;
# a gap an incoming edge ends is waiting (Assumption 2), never critical;
# CP_e = c(e) * w(e) / (N * (te - ts)) (Eq. 3). Times in µs.
load helper
bats_require_minimum_version 1.5.0

tsv() { tr '|' '\t'; }

need_cp() { command -v tr-cp >/dev/null || skip "tr-cp is not built"; }

# CP of one summary row: summary, key, detail, window start.
cp_of() {
	awk -F'\t' -v s="$1" -v k="$2" -v d="$3" -v w="$4" \
		'$1 == w && $3 == s && $4 == k && $5 == d { print $6 }'
}

# The value read, or 0 when the row is absent.
or0() { local v; v=$(cat); echo "${v:-0}"; }

# A handle [0,30] on a calls B through callB [5,25]; B serve [10,20].
sync_call() {
	tsv <<'EOF' | mkfix sync.tr
#tr/1
T|t1
S|t1|h||0|30|A|handle|server|a
S|t1|c|h|5|20|A|callB|client|a
S|t1|s|c|10|10|B|serve|server|b
EOF
}

@test "a synchronous call, one window: N=1, handle 1/3, serve 1/3, request 1/6, response 1/6, unknown 0" {
	need_cp
	f=$(sync_call)
	run sh -c "tr-pag -P '$f' | tr-cp"
	expect_eq 0 "$status" status
	# one path: handle [0,5], request [5,10], serve [10,20], response [20,25], handle [25,30]
	expect_eq 1 "$(cp_of window paths 1 0 <<<"$output")"
	expect_eq 0.333333 "$(cp_of operation A handle 0 <<<"$output")"
	expect_eq 0.333333 "$(cp_of operation B serve 0 <<<"$output")"
	expect_eq 0.166667 "$(cp_of activity request '' 0 <<<"$output")"
	expect_eq 0.166667 "$(cp_of activity response '' 0 <<<"$output")"
	expect_eq 0 "$(cp_of activity unknown '' 0 <<<"$output" | or0)"
	expect_eq 0 "$(cp_of activity waiting '' 0 <<<"$output")"
	# b exists from 10 to 20 only: no idle time before or after
	expect_eq 0.333333 "$(cp_of worker B@b '' 0 <<<"$output")"
	expect_lacks 'property' "$output"
}

@test "a synchronous call in 10 us windows: [0,10] A and request 1/2; [10,20] serve 1; [20,30] response and A 1/2" {
	need_cp
	f=$(sync_call)
	run sh -c "tr-pag -P -w 10us '$f' | tr-cp"
	expect_eq 0 "$status" status
	expect_eq 0.5 "$(cp_of worker A@a '' 0 <<<"$output")"
	expect_eq 0.5 "$(cp_of activity request '' 0 <<<"$output")"
	expect_eq 0 "$(cp_of worker B@b '' 0 <<<"$output" | or0)"
	expect_eq 1 "$(cp_of operation B serve 10 <<<"$output")"
	expect_eq 0 "$(cp_of worker A@a '' 10 <<<"$output" | or0)"
	expect_eq 0.5 "$(cp_of activity response '' 20 <<<"$output")"
	expect_eq 0.5 "$(cp_of worker A@a '' 20 <<<"$output")"
	expect_eq 0 "$(cp_of worker B@b '' 20 <<<"$output" | or0)"
	expect_num 0 "$(awk -F'\t' '$3 == "window" && $6 != 1' <<<"$output" | wc -l)"
}

@test "an async call (the callee outlives its client): A 1 (handle 0.933 + fire 0.067), B 0, request 0, no response, no skew warning" {
	need_cp
	f=$(tsv <<'EOF' | mkfix async.tr
#tr/1
T|t1
S|t1|h||0|30|A|handle|server|a
S|t1|c|h|5|2|A|fire|client|a
S|t1|s|c|10|10|B|serve|server|b
EOF
)
	run sh -c "tr-pag -P '$f' | tr-cp"
	expect_eq 0 "$status" status
	expect_eq 1 "$(cp_of window paths 1 0 <<<"$output")"
	expect_eq 1 "$(cp_of worker A@a '' 0 <<<"$output")"
	expect_eq 0.933333 "$(cp_of operation A handle 0 <<<"$output")"
	expect_eq 0.0666667 "$(cp_of operation A fire 0 <<<"$output")"
	expect_eq 0 "$(cp_of worker B@b '' 0 <<<"$output")"
	expect_eq 0 "$(cp_of activity request '' 0 <<<"$output")"
	expect_eq 0 "$(cp_of activity response '' 0 <<<"$output" | or0)"
	expect_lacks 'skew' "$output"
	expect_lacks 'clamped' "$output"
}

@test "a callee without a client span makes its caller wait: handle 2/3, serve 1/3, unknown 0, hand-overs take no time" {
	need_cp
	f=$(tsv <<'EOF' | mkfix direct.tr
#tr/1
T|t1
S|t1|h||0|30|A|handle|server|a
S|t1|s|h|10|10|B|serve|server|b
EOF
)
	run tr-pag -P "$f"
	output=$(pag_named <<<"$output")
	grep -q $'\twaiting\t10\t20\t0\t0\tA\thandle\t' <<<"$output"
	grep -q $'\tspawn\t10\t10\t0\t1\t' <<<"$output"
	grep -q $'\tjoin\t20\t20\t1\t0\t' <<<"$output"
	run sh -c "tr-pag -P '$f' | tr-cp"
	expect_eq 0 "$status" status
	expect_eq 1 "$(cp_of window paths 1 0 <<<"$output")"
	expect_eq 0.666667 "$(cp_of operation A handle 0 <<<"$output")"
	expect_eq 0.333333 "$(cp_of operation B serve 0 <<<"$output")"
	expect_eq 0 "$(cp_of activity unknown '' 0 <<<"$output" | or0)"
}

@test "a parent fanning out children on other lanes is busy while it hands them over, waits only until a join" {
	# h hands s1 over at 10 and s2 at 12, then waits for both: [10,12] is
	# handing over (processing), [12,20] and [20,25] wait for a join
	f=$(tsv <<'EOF' | mkfix fan.tr
#tr/1
T|t1
S|t1|h||0|30|A|handle|server|a
S|t1|s1|h|10|10|B|serve|server|b
S|t1|s2|h|12|13|C|serve|server|c
EOF
)
	run tr-pag -P "$f"
	output=$(pag_named <<<"$output")
	expect_eq 0 "$status" status
	grep -q $'\tprocessing\t10\t12\t0\t0\tA\thandle\t' <<<"$output"
	grep -q $'\twaiting\t12\t20\t0\t0\tA\thandle\t' <<<"$output"
	grep -q $'\twaiting\t20\t25\t0\t0\tA\thandle\t' <<<"$output"
	expect_lacks 'property' "$output"
}

@test "the operator summary divides an operation's CP by its workers in the window (SnailTrail 4.2)" {
	need_cp
	# one path: X [0,19] on w0, R [19,22] on r1, R [22,25] on r2
	f=$(tsv <<'EOF' | mkfix op.pag
PW||0|w0|0
PW||1|r1|0
PW||2|r2|0
PE||0|1|processing|0|19|0|0|x|X
PE||1|2|message|19|19|0|1
PE||2|3|processing|19|22|1|1|r|R
PE||3|4|message|22|22|1|2
PE||4|5|processing|22|25|2|2|r|R
EOF
)
	run tr-cp "$f"
	expect_eq 0 "$status" status
	# R's workers sum to 0.24; two workers ran it: 0.12
	expect_eq 0.12 "$(cp_of worker r1 '' 0 <<<"$output")"
	expect_eq 0.12 "$(cp_of worker r2 '' 0 <<<"$output")"
	expect_eq 0.12 "$(cp_of operation r R 0 <<<"$output")"
	expect_eq 0.76 "$(cp_of operation x X 0 <<<"$output")"
}

@test "a reference into another trace is a message: publish 1/3, message 1/3, consume 1/3" {
	need_cp
	f=$(tsv <<'EOF' | mkfix xref.tr
#tr/1
T|t1
S|t1|p||0|5|A|publish|producer|a
T|t2
S|t2|c||10|5|B|consume|consumer|b
R|t2|c|follows_from|t1|p
EOF
)
	run tr-pag -P "$f"
	output=$(pag_named <<<"$output")
	grep -q $'\tmessage\t5\t10\t0\t1\tB\tconsume\tt2\tc$' <<<"$output"
	run sh -c "tr-pag -P '$f' | tr-cp"
	expect_eq 1 "$(cp_of window paths 1 0 <<<"$output")"
	expect_eq 0.333333 "$(cp_of operation A publish 0 <<<"$output")"
	expect_eq 0.333333 "$(cp_of activity message '' 0 <<<"$output")"
	expect_eq 0.333333 "$(cp_of operation B consume 0 <<<"$output")"
}

@test "--cp-part tags every span with its CP: handle 1/3, callB 0 (it waits), serve 1/3; in 10 us windows over its windows" {
	f=$(sync_call)
	run tr-pag -q --cp-part "$f"
	expect_eq 0 "$status" status
	grep -q $'^S\tt1\th\t\t0\t30\tA\thandle\tserver\ta\tcp.part=0.333333$' <<<"$output"
	grep -q $'^S\tt1\tc\th\t5\t20\tA\tcallB\tclient\ta\tcp.part=0$' <<<"$output"
	grep -q $'^S\tt1\ts\tc\t10\t10\tB\tserve\tserver\tb\tcp.part=0.333333$' <<<"$output"
	# handle works in [0,10] and [20,30], 0.5 of each; serve is all of [10,20]
	run tr-pag -q --cp-part -w 10us "$f"
	grep -q $'\thandle\tserver\ta\tcp.part=0.5$' <<<"$output"
	grep -q $'\tserve\tserver\tb\tcp.part=1$' <<<"$output"
	# a re-run replaces the tags, the graph after the traces as always
	tr-pag -q --cp-part "$f" > "$BATS_TEST_TMPDIR/once"
	tr-pag -q --cp-part "$BATS_TEST_TMPDIR/once" > "$BATS_TEST_TMPDIR/twice"
	cmp "$BATS_TEST_TMPDIR/once" "$BATS_TEST_TMPDIR/twice"
	expect_gt 0 "$(grep -c '^PE' "$BATS_TEST_TMPDIR/once")"
}

@test "--cp-part: a comment or foreign record holding a cp.part-like text passes through untouched; every span keeps its own value" {
	f=$(sync_call)
	{ printf '#tr/1\n# note\tcp.part=x\nX\t\tcp.part=y\n'; grep -v '^#tr' "$f"; } > "$BATS_TEST_TMPDIR/c.tr"
	run tr-pag -q --cp-part "$BATS_TEST_TMPDIR/c.tr"
	expect_eq 0 "$status" status
	grep -qx $'# note\tcp.part=x' <<<"$output"
	grep -qx $'X\t\tcp.part=y' <<<"$output"
	grep -q $'^S\tt1\th\t\t0\t30\tA\thandle\tserver\ta\tcp.part=0.333333$' <<<"$output"
	grep -q $'^S\tt1\tc\th\t5\t20\tA\tcallB\tclient\ta\tcp.part=0$' <<<"$output"
	grep -q $'^S\tt1\ts\tc\t10\t10\tB\tserve\tserver\tb\tcp.part=0.333333$' <<<"$output"
}

@test "a zero-length child on another worker is handed over before it is joined: no cycle, the parent's CP whole" {
	need_cp
	f=$(printf '#tr/1\nT|t1\nS|t1|p||1000|100|svc|parent|server|h1\nS|t1|c|p|1050|0|svc2|child||h2\n' | tsv |
		mkfix z.tr)
	run --separate-stderr sh -c "tr-pag -P -q -w 1s '$f' | tr-cp"
	expect_eq 0 "$status" status
	expect_empty "$stderr"
	expect_eq 1 "$(cp_of window paths 1 0 <<<"$output")"
	expect_eq 1 "$(cp_of operation svc parent 0 <<<"$output")"
}

@test "--cp-part: tr-aggregate groups cp.part like any tag" {
	command -v tr-aggregate >/dev/null || skip "tr-aggregate is not built"
	f=$(sync_call)
	run sh -c "tr-pag -q --cp-part '$f' | tr-aggregate 'From s In spans GroupBy s.service Select s.service, SUM(s.tag[\"cp.part\"])'"
	expect_eq 0 "$status" status
	grep -q $'^A\t0.333333' <<<"$output"
	grep -q $'^B\t0.333333' <<<"$output"
}

@test "tr-cp ends with the four summaries over the whole input: CP weighted by window length, time summed" {
	need_cp
	f=$(sync_call)
	run sh -c "tr-pag -P -w 10us '$f' | tr-cp"
	expect_eq 0 "$status" status
	# three 10 us windows: A 0.5, 0, 0.5 -> 1/3; the totals come last
	expect_eq 0.333333 "$(cp_of total.worker A@a '' 0 <<<"$output")"
	expect_eq 0.333333 "$(cp_of total.operation B serve 0 <<<"$output")"
	expect_eq 0.166667 "$(cp_of total.activity request '' 0 <<<"$output")"
	expect_eq 1 "$(cp_of total.window windows 3 0 <<<"$output")"
	# A's time is its busy time: handle's 10 us outside the call
	expect_eq "30 10" "$(awk -F'\t' '$3 == "total.worker" && $4 == "A@a" { print $2, $7 }' <<<"$output")"
	expect_contains 'total.channel' "$(tail -1 <<<"$output")"
	# one window: its rows are the totals, none written twice
	run sh -c "tr-pag -P '$f' | tr-cp"
	expect_lacks 'total.' "$output"
}

# Random well-formed traces: servers that call others synchronously (a
# client span nested in time), directly (a child without a client span) or
# asynchronously (a short client span whose callee runs later and longer).
random_traces() {
	awk -v seed="$1" -v ntr=40 '
	function rnd(n) { return int(rand() * n) }
	function span(tid, id, parent, start, dur, svc, op, kind) {
		printf "S\t%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\th%s\n", tid, id, parent, start, dur, svc, op, kind, svc
	}
	function serve(tid, pid, start, dur, depth,   id, t, k, n, cs, cd, svc, mode) {
		id = "s" (++nid); svc = "svc" rnd(5)
		span(tid, id, pid, start, dur, svc, "op" rnd(3), "server")
		if (depth >= 3 || dur < 20) return
		n = rnd(3); t = start + 1
		for (k = 0; k < n && t < start + dur - 10; k++) {
			cd = 2 + rnd(int((start + dur - t - 1) / 2)); if (t + cd > start + dur - 1) break
			mode = rnd(6)
			if (mode < 2) serve(tid, id, t, cd, depth + 1)
			else if (mode == 2) {
				cs = "c" (++nid); span(tid, cs, id, t, 2, svc, "fire", "client")
				serve(tid, cs, t + 3, cd + 5, depth + 1)
			} else {
				cs = "c" (++nid); span(tid, cs, id, t, cd, svc, "call", "client")
				if (cd > 2) serve(tid, cs, t + 1, cd - 2, depth + 1)
			}
			t += cd + 1 + rnd(5)
		}
	}
	BEGIN { srand(seed); print "#tr/1"
		for (i = 0; i < ntr; i++) { print "T\tt" i; serve("t" i, "", rnd(2000), 50 + rnd(400), 0) } }'
}

@test "random well-formed RPC traces satisfy Properties 1 and 2, and every window's CP sums to 1" {
	need_cp
	for seed in 1 2 3 4 5; do
		f=$(random_traces $seed | mkfix "r$seed.tr")
		expect_gt 100 "$(grep -c '^S' "$f")"
		run sh -c "tr-pag -P -w 100us '$f' 2>'$f.err' | tr-cp"
		expect_eq 0 "$status" status
		[ ! -s "$f.err" ] || { echo "seed $seed:"; cat "$f.err"; false; }
		expect_gt 15 "$(awk -F'\t' '$3 == "window"' <<<"$output" | wc -l)"
		expect_num 0 "$(awk -F'\t' '$3 == "window" && ($6 < 0.99999 || $6 > 1.00001)' <<<"$output" | wc -l)" ||
			{ echo "seed $seed"; false; }
	done
}

# The traces of a line-format file in a seeded random order (header first).
shuffle_traces() {
	awk -v seed="$1" 'BEGIN { srand(seed) } /^#/ { print; next }
		/^T\t/ { n++ } { block[n] = block[n] $0 "\n" }
		END { for (i = n; i > 1; i--) { j = 1 + int(rand() * i); t = block[i]; block[i] = block[j]; block[j] = t }
		      for (i = 1; i <= n; i++) printf "%s", block[i] }'
}

@test "tr-cp window by window (PM marks) gives what it gives over the whole graph, on traces in time order and shuffled" {
	need_cp
	for seed in 1 2 3 4 5; do
		f=$(random_traces $seed | mkfix "r$seed.tr")
		random_traces $seed | shuffle_traces $seed > "$f.shuffled"
		expect_num "$(grep -c '^T' "$f")" "$(grep -c '^T' "$f.shuffled")"
		for input in "$f" "$f.shuffled"; do
			for opt in "" -n; do
				tr-pag -P -q $opt -w 100us "$input" > "$input.pag"
				expect_gt 15 "$(grep -c '^PM' "$input.pag")"
				tr-cp < "$input.pag" > "$input.streamed"
				grep -v '^PM' "$input.pag" | tr-cp > "$input.whole"
				[ -s "$input.whole" ]
				cmp "$input.whole" "$input.streamed" || { echo "seed $seed $input $opt"; false; }
			done
		done
		cmp "$f.streamed" "$f.shuffled.streamed"	# the order of traces does not matter
	done
}

@test "PM marks: tr-pag writes edges in start order, each window's mark before its first edge" {
	f=$(random_traces 2 | mkfix r.tr)
	run sh -c "tr-pag -P -q -w 100us '$f'"
	expect_eq 0 "$status" status
	# every mark is a window start; no edge after a mark starts before it
	bad=$(awk -F'\t' '$1 == "PM" { if ($3 % 100 != 0 || $3 < m) print; m = $3 }
		$1 == "PE" && $6 < m { print }' <<<"$output")
	expect_empty "$bad"
	# an edge out of order after a mark is bad input for tr-cp, named
	g=$(printf 'PG\t\t100\t0\t0\t300\nPM\t\t100\nPE\t\t0\t1\tprocessing\t150\t160\t0\t0\nPM\t\t200\nPE\t\t2\t3\tprocessing\t50\t60\t0\t0\n' | mkfix late.pag)
	run tr-cp "$g"
	expect_eq 3 "$status" status
	expect_contains 'late.pag:5: PE record: starts at 50, before the PM mark 200 before it: its window is done' "$output"
	# and so is a mark that goes back
	g=$(printf 'PG\t\t100\t0\t0\t300\nPM\t\t200\nPM\t\t100\n' | mkfix back.pag)
	run tr-cp "$g"
	expect_eq 3 "$status" status
	expect_contains 'back.pag:3: PM record: mark 100 before the mark 200 before it' "$output"
}

@test "tr-cp writes the first windows' rows before its input ends" {
	need_cp
	# 3000 windows of 10 us, one edge each; the first 2000 go in, then the
	# input stays open: their rows (over 64 KB) must come out meanwhile
	awk 'BEGIN { print "PG\t\t10\t0\t0\t30000"; print "PW\t\t0\tw\t0"
		for (k = 0; k < 3000; k++) {
			printf "PM\t\t%d\n", k * 10
			printf "PE\t\t%d\t%d\tprocessing\t%d\t%d\t0\t0\ts\top\n", 2 * k, 2 * k + 1, k * 10, k * 10 + 5
		} }' > "$BATS_TEST_TMPDIR/all.pag"
	head -n 4002 "$BATS_TEST_TMPDIR/all.pag" > "$BATS_TEST_TMPDIR/first.pag"
	tail -n +4003 "$BATS_TEST_TMPDIR/all.pag" > "$BATS_TEST_TMPDIR/rest.pag"
	d=$BATS_TEST_TMPDIR
	mkfifo "$d/in"
	{ cat "$d/first.pag"; while [ ! -e "$d/go" ]; do sleep 0.1; done; cat "$d/rest.pag"; } > "$d/in" &
	writer=$!
	tr-cp < "$d/in" > "$d/out" &
	reader=$!
	for i in $(seq 100); do [ -s "$d/out" ] && break; sleep 0.1; done
	early=$(wc -c < "$d/out")
	touch "$d/go"
	wait $writer
	wait $reader
	expect_gt 0 "$early"
	# the same rows as over the whole input at once
	tr-cp "$BATS_TEST_TMPDIR/all.pag" | cmp - "$BATS_TEST_TMPDIR/out"
	expect_num 3000 "$(awk -F'\t' '$3 == "window"' "$BATS_TEST_TMPDIR/out" | wc -l)"
}
