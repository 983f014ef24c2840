#!/usr/bin/env bats
# tr-infer: threshold-based causal model, reformatted traces, partial counts
# and merging, service dependency links.

load helper

# Fixtures are written with | for TAB.
fix() {
	tr '|' '\t' | mkfix "$1"
}

# "from to s v u q T" of one edge of a model table, or nothing.
edge() {
	awk -F'\t' -v a="$1" -v b="$2" '$1 == a && $2 == b { print $3, $4, $5, $6, $7 }'
}

# Mystery Machine (Scooby Figs. 4-5): B before C in trace 1, C before B in trace 2.
mm_traces() {
	fix mm.tr <<-'EOF'
	#tr/1
	T|1
	S|1|a||0|100|svc|A|server|
	S|1|b|a|10|20|svc|B|internal|
	S|1|c|a|40|20|svc|C|internal|
	T|2
	S|2|a||0|100|svc|A|server|
	S|2|b|a|50|20|svc|B|internal|
	S|2|c|a|10|20|svc|C|internal|
	EOF
}

# Scooby Fig. 13: A->B holds in 3 of 4 traces, B->C in 3, A->C in 2.
fig13_traces() {
	fix fig13.tr <<-'EOF'
	#tr/1
	T|t1
	S|t1|a||0|1|s|A||
	S|t1|b||2|1|s|B||
	S|t1|c||4|1|s|C||
	T|t2
	S|t2|c||0|1|s|C||
	S|t2|a||2|1|s|A||
	S|t2|b||4|1|s|B||
	T|t3
	S|t3|b||0|1|s|B||
	S|t3|c||2|1|s|C||
	S|t3|a||4|1|s|A||
	T|t4
	S|t4|a||0|1|s|A||
	S|t4|b||2|1|s|B||
	S|t4|c||4|1|s|C||
	EOF
}

# N traces (default 100) of R [0,100] calling B [10,20] then C [30,40]; in
# the first SKEW of them C starts at 15, before B ends (clock skew).
skew_traces() {
	awk -v n="${1:-100}" -v skew="${2:-3}" 'BEGIN {
		OFS = "\t"; print "#tr/1"
		for (i = 1; i <= n; i++) {
			c = i <= skew ? 15 : 30
			print "T", "t" i
			print "S", "t" i, "r", "", 0, 100, "front", "R", "server", ""
			print "S", "t" i, "b", "r", 10, 10, "back", "B", "client", ""
			print "S", "t" i, "c", "r", c, 10, "db", "C", "client", ""
		}
	}' | mkfix skew.tr
}

# Traces from a fixed pseudo-random generator: 1 to 12 spans of 6 names,
# start times that often tie, some repeated names.
random_traces() {
	awk -v n="$1" 'BEGIN {
		OFS = "\t"; print "#tr/1"; x = 12345
		for (i = 1; i <= n; i++) {
			print "T", "r" i
			x = (x * 1103515245 + 12345) % 2147483648; k = 1 + x % 12
			for (j = 1; j <= k; j++) {
				x = (x * 1103515245 + 12345) % 2147483648; op = "op" x % 6
				x = (x * 1103515245 + 12345) % 2147483648; st = x % 20
				x = (x * 1103515245 + 12345) % 2147483648; d = x % 10
				print "S", "r" i, "s" j, (j > 1 ? "s1" : ""), st, d, "svc" (x % 2), op, "", ""
			}
		}
	}' | mkfix "${2:-random.tr}"
}

@test "--help prints usage on stdout and exits 0" {
	run tr-infer --help
	expect_eq 0 "$status" status
	expect_like "usage:*" "$output"
	expect_contains '--threshold' "$output"
}

@test "--version names the tool" {
	run tr-infer --version
	expect_eq 0 "$status" status
	expect_like "tr-infer \(tr\) *" "$output"
}

@test "usage errors exit 2: unknown option, bad threshold, bad name field, bad count, bad format" {
	run tr-infer --no-such-option /dev/null
	expect_eq 2 "$status" status
	run tr-infer -t 's/T >=' /dev/null
	expect_eq 2 "$status" status
	expect_contains '--threshold' "$output"
	run tr-infer -t 'x > 1' /dev/null
	expect_eq 2 "$status" status
	run tr-infer --name service,colour /dev/null
	expect_eq 2 "$status" status
	run tr-infer --count spans /dev/null
	expect_eq 2 "$status" status
	run tr-infer -f xml /dev/null
	expect_eq 2 "$status" status
	run tr-infer -f jaeger-json /dev/null
	expect_eq 2 "$status" status
	run tr-infer --backtrace-depth -1 /dev/null
	expect_eq 2 "$status" status
	run tr-infer --reformat --partial /dev/null
	expect_eq 2 "$status" status
}

@test "a --threshold expression that does not parse ends with the try line" {
	run tr-infer -t 's/T >=' /dev/null
	expect_eq 2 "$status" status
	expect_output "tr-infer: --threshold: unexpected end of the expression at offset 6 in \"s/T >=\"
try 'tr-infer --help'"
}

@test "Mystery Machine example: B and C in both orders leave neither B->C nor C->B" {
	mm_traces
	run tr-infer "$BATS_TEST_TMPDIR/mm.tr"
	expect_eq 0 "$status" status
	expect_eq "from	to	s	v	u	q	T" "${lines[0]}"
	expect_empty "$(edge svc:B_E svc:C_S <<<"$output")"
	expect_empty "$(edge svc:C_E svc:B_S <<<"$output")"
	expect_empty "$(edge svc:B_S svc:C_S <<<"$output")"
	expect_empty "$(edge svc:C_S svc:B_S <<<"$output")"
	# What always holds stays: A starts before B and C, they end before A ends.
	expect_eq "2 0 0 0 2" "$(edge svc:A_S svc:B_S <<<"$output")"
	expect_eq "2 0 0 0 2" "$(edge svc:C_E svc:A_E <<<"$output")"
	# --all shows the dropped pair with its counts: s = 1, v = 1.
	run tr-infer --all "$BATS_TEST_TMPDIR/mm.tr"
	expect_eq "1 1 0 0 2 0" "$(awk -F'\t' '$1 == "svc:B_E" && $2 == "svc:C_S" { print $3, $4, $5, $6, $7, $8 }' <<<"$output")"
}

@test "transitivity failure (Scooby Fig. 13): s/T >= 0.75 keeps A->B and B->C, not A->C" {
	fig13_traces
	run tr-infer -t 's/T >= 0.75' "$BATS_TEST_TMPDIR/fig13.tr"
	expect_eq 0 "$status" status
	expect_eq "3 1 0 0 4" "$(edge s:A_E s:B_S <<<"$output")"
	expect_eq "3 1 0 0 4" "$(edge s:B_E s:C_S <<<"$output")"
	expect_empty "$(edge s:A_E s:C_S <<<"$output")"
	run tr-infer -t 's/T >= 0.75' --all "$BATS_TEST_TMPDIR/fig13.tr"
	expect_eq "2 2 0 0 4" "$(edge s:A_E s:C_S <<<"$output")"
	# The span view draws exactly the two edges, labelled s/T.
	run tr-infer -t 's/T >= 0.75' --dot --spans "$BATS_TEST_TMPDIR/fig13.tr"
	expect_eq 0 "$status" status
	expect_contains '"s:A" -> "s:B" [label="3/4"]' "$output"
	expect_contains '"s:B" -> "s:C" [label="3/4"]' "$output"
	expect_lacks '"s:A" -> "s:C"' "$output"
}

@test "clock skew: 3 skewed of 100 traces drop B_E->C_S by default, s/T >= 0.95 keeps it" {
	skew_traces 100 3
	run tr-infer "$BATS_TEST_TMPDIR/skew.tr"
	expect_eq 0 "$status" status
	expect_empty "$(edge back:B_E db:C_S <<<"$output")"
	run tr-infer -t 's/T >= 0.95' "$BATS_TEST_TMPDIR/skew.tr"
	expect_eq "97 3 0 0 100" "$(edge back:B_E db:C_S <<<"$output")"
	run tr-infer -t 's/T >= 0.98' "$BATS_TEST_TMPDIR/skew.tr"
	expect_empty "$(edge back:B_E db:C_S <<<"$output")"
	# The ratio form of the paper: s/(s+v) > 0.99 fails at 97/100.
	run tr-infer -t 's/(s+v) > 0.96' "$BATS_TEST_TMPDIR/skew.tr"
	expect_eq "97 3 0 0 100" "$(edge back:B_E db:C_S <<<"$output")"
}

@test "unknowns: a pair seen in fewer traces counts u, and s + v + u = T" {
	fix u.tr <<-'EOF'
	#tr/1
	T|1
	S|1|a||0|10|s|A||
	S|1|b||20|10|s|B||
	T|2
	S|2|a||0|10|s|A||
	T|3
	S|3|b||0|10|s|B||
	S|3|a||20|10|s|A||
	T|4
	S|4|a||0|10|s|A||
	S|4|b||10|10|s|B||
	EOF
	run tr-infer --all "$BATS_TEST_TMPDIR/u.tr"
	expect_eq 0 "$status" status
	# A_E -> B_S: success in 1, violation in 3 (B first) and 4 (same time, q), unknown in 2.
	expect_eq "1 2 1 1 4" "$(edge s:A_E s:B_S <<<"$output")"
	expect_eq "1 2 1 1 4" "$(edge s:B_S s:A_E <<<"$output")"
	# (s+u)/T is the paper's tolerant form: unknowns do not count against.
	run tr-infer -t '(s+u)/T >= 0.5' "$BATS_TEST_TMPDIR/u.tr"
	expect_eq "1 2 1 1 4" "$(edge s:A_E s:B_S <<<"$output")"
	run tr-infer -t 'q > 0' --all -f csv "$BATS_TEST_TMPDIR/u.tr"
	expect_eq "from,to,s,v,u,q,T,pass" "${lines[0]}"
	expect_contains 's:A_E,s:B_S,1,2,1,1,4,1' "$output"
}

@test "repeated names: --count traces needs every occurrence to agree, --count pairs counts occurrences" {
	fix rep.tr <<-'EOF'
	#tr/1
	T|1
	S|1|a1||0|1|s|A||
	S|1|b||2|1|s|B||
	S|1|a2||4|1|s|A||
	EOF
	run tr-infer --all "$BATS_TEST_TMPDIR/rep.tr"
	# A ends at 1 and at 5, B starts at 2: neither all before nor all after.
	expect_eq "0 1 0 1 1" "$(edge s:A_E s:B_S <<<"$output")"
	run tr-infer --all --count pairs "$BATS_TEST_TMPDIR/rep.tr"
	expect_eq "1 1 0 0 1" "$(edge s:A_E s:B_S <<<"$output")"
	# The two starts of A are one event: no pair of an event with itself.
	expect_empty "$(edge s:A_S s:A_S <<<"$output")"
	expect_eq "3 1 0 0 1" "$(edge s:A_S s:A_E <<<"$output")"
}

@test "--backtrace-depth 1 separates db:query under a from db:query under b" {
	fix bt.tr <<-'EOF'
	#tr/1
	T|1
	S|1|r||0|100|gw|GET|server|
	S|1|a|r|10|30|a|handle|server|
	S|1|q1|a|15|10|db|query|client|
	S|1|b|r|50|30|b|handle|server|
	S|1|q2|b|55|10|db|query|client|
	EOF
	run tr-infer "$BATS_TEST_TMPDIR/bt.tr"
	# One name for both: its end (25, 65) straddles b's start (50).
	expect_empty "$(edge db:query_E b:handle_S <<<"$output")"
	run tr-infer --backtrace-depth 1 "$BATS_TEST_TMPDIR/bt.tr"
	expect_eq 0 "$status" status
	# Every name gets its ancestors: a:handle is a:handle<gw:GET now.
	expect_eq "1 0 0 0 1" "$(edge 'db:query<a:handle_E' 'b:handle<gw:GET_S' <<<"$output")"
	expect_eq "1 0 0 0 1" "$(edge 'b:handle<gw:GET_S' 'db:query<b:handle_S' <<<"$output")"
	expect_empty "$(edge 'db:query<b:handle_E' 'b:handle<gw:GET_S' <<<"$output")"
	expect_lacks '	db:query_' "$output"
	run tr-infer --backtrace-depth 2 "$BATS_TEST_TMPDIR/bt.tr"
	expect_contains 'db:query<a:handle<gw:GET_E' "$output"
}

@test "--name chooses the nameID fields" {
	mm_traces
	run tr-infer --name operation "$BATS_TEST_TMPDIR/mm.tr"
	expect_eq "2 0 0 0 2" "$(edge A_S B_S <<<"$output")"
	run tr-infer --name kind,service "$BATS_TEST_TMPDIR/mm.tr"
	# B and C are both internal:svc: their events merge into one name.
	expect_eq "2 0 0 0 2" "$(edge server:svc_S internal:svc_S <<<"$output")"
}

# Trace 1 has a span without time; trace 2 has four events more.
no_time_traces() {
	fix nt.tr <<-'EOF'
	#tr/1
	T|1
	S|1|a||0|10|s|A||
	S|1|b|a|||s|B||tr.no_time=true
	T|2
	S|2|a||0|10|s|A||
	S|2|b|a|1|2|s|B||
	S|2|c|a|3|2|s|C||
	EOF
}

@test "spans without time have no events" {
	no_time_traces
	run tr-infer --all "$BATS_TEST_TMPDIR/nt.tr"
	expect_eq "1 0 1 0 2" "$(edge s:A_S s:B_S <<<"$output")"
}

@test "traces over --max-events are left out of T, counted (but for -q)" {
	no_time_traces
	run tr-infer --all --max-events 4 "$BATS_TEST_TMPDIR/nt.tr"
	expect_eq 0 "$status" status
	expect_contains '1 traces over --max-events' "$output"
	expect_eq "1 0 0 0 1" "$(edge s:A_S s:A_E <<<"$output")"
	expect_empty "$(edge s:A_S s:B_S <<<"$output")"
	run tr-infer -q --max-events 4 "$BATS_TEST_TMPDIR/nt.tr"
	expect_lacks 'max-events' "$output"
}

@test "json output holds T, the threshold and every edge" {
	mm_traces
	run tr-infer -f json "$BATS_TEST_TMPDIR/mm.tr"
	expect_eq 0 "$status" status
	expect_eq 2 "$(jq -r '.traces' <<<"$output")"
	expect_eq "v == 0" "$(jq -r '.threshold' <<<"$output")"
	expect_eq 11 "$(jq -r '.edges | length' <<<"$output")"
	expect_eq 2 "$(jq -r '.edges[] | select(.from == "svc:A_S" and .to == "svc:B_S") | .s' <<<"$output")"
	run tr-infer -f json --all "$BATS_TEST_TMPDIR/mm.tr"
	expect_eq 19 "$(jq -r '[.edges[] | select(.pass == false)] | length' <<<"$output")"
}

@test "--dot draws events with s/T labels" {
	mm_traces
	run tr-infer --dot "$BATS_TEST_TMPDIR/mm.tr"
	expect_eq 0 "$status" status
	expect_like 'digraph "causal model" {*' "$output"
	expect_contains '"svc:A_S" -> "svc:B_S" [label="2/2"]' "$output"
	expect_lacks '"svc:B_E" -> "svc:C_S"' "$output"
}

@test "--dot draws a model of more than 200 edges as its transitive reduction; a smaller one whole" {
	# 25 sequential children: 25 * 24 / 2 = 300 edges between them
	{
		printf '#tr/1\nT|1\nS|1|r||0|10000|svc|R|server|\n'
		for i in $(seq 1 25); do printf 'S|1|c%d|r|%d|10|svc|C%02d|internal|\n' "$i" $((i * 100)) "$i"; done
	} | tr '|' '\t' > "$BATS_TEST_TMPDIR/chain.tr"
	run tr-infer "$BATS_TEST_TMPDIR/chain.tr"
	expect_status 0
	expect_contains "$(printf 'svc:C01_E\tsvc:C25_S')" "$output" "the table"
	run tr-infer --dot "$BATS_TEST_TMPDIR/chain.tr"
	expect_status 0
	expect_contains '"svc:C01_E" -> "svc:C02_S"' "$output"
	expect_lacks '"svc:C01_E" -> "svc:C25_S"' "$output"
	expect_like '*// * edges that longer paths imply are left out (the table lists every edge)*' "$output"
	mm_traces
	run tr-infer --dot "$BATS_TEST_TMPDIR/mm.tr"
	expect_status 0
	expect_lacks '// ' "$output" "a model of a few edges"
}

@test "--reformat --reduce adds per-trace edges, transitively reduced, and drops them on a re-run" {
	fig13_traces
	run tr-infer -t 's/T >= 0.75' --reformat --reduce "$BATS_TEST_TMPDIR/fig13.tr"
	expect_eq 0 "$status" status
	expect_eq "#tr/1" "${lines[0]}"
	# Trace t1: A_S -> A_E -> B_S -> B_E -> C_S -> C_E, nothing implied.
	expect_eq "s:A_S>s:A_E s:A_E>s:B_S s:B_S>s:B_E s:B_E>s:C_S s:C_S>s:C_E " \
		"$(awk -F'\t' '$1 == "IE" && $2 == "t1" { print $3 ">" $4 }' <<<"$output" | tr '\n' ' ')"
	# Trace t2 has C first: the model's B_E -> C_S does not hold there.
	expect_eq "s:C_S>s:C_E s:A_S>s:A_E s:A_E>s:B_S s:B_S>s:B_E " \
		"$(awk -F'\t' '$1 == "IE" && $2 == "t2" { print $3 ">" $4 }' <<<"$output" | tr '\n' ' ')"
	# The spans pass through; IE records follow their trace's records.
	expect_num 12 "$(spans <<<"$output" | wc -l)"
	printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/once.tr"
	run tr-infer -t 's/T >= 0.75' --reformat --reduce "$BATS_TEST_TMPDIR/once.tr"
	expect_output "$(cat "$BATS_TEST_TMPDIR/once.tr")"
	# Standard input is read twice through a spool file.
	run sh -c "tr-infer -t 's/T >= 0.75' --reformat --reduce < '$BATS_TEST_TMPDIR/fig13.tr'"
	expect_output "$(cat "$BATS_TEST_TMPDIR/once.tr")"
}

@test "--reformat --reduce keeps an edge that no other path implies, drops one that is implied" {
	mm_traces
	run tr-infer --reformat --reduce "$BATS_TEST_TMPDIR/mm.tr"
	# A_S -> B_E holds but A_S -> B_S -> B_E implies it.
	expect_empty "$(awk -F'\t' '$1 == "IE" && $2 == "1" && $3 == "svc:A_S" && $4 == "svc:B_E"' <<<"$output")"
	expect_nonempty "$(awk -F'\t' '$1 == "IE" && $2 == "1" && $3 == "svc:A_S" && $4 == "svc:B_S"' <<<"$output")"
	expect_nonempty "$(awk -F'\t' '$1 == "IE" && $2 == "1" && $3 == "svc:B_E" && $4 == "svc:A_E"' <<<"$output")"
}

# "from>to" of the IE records of trace $1, on one line.
ie() {
	awk -F'\t' -v t="$1" '$1 == "IE" && $2 == t { printf "%s%s>%s", sep, $3, $4; sep = " " }'
}

@test "--reformat keeps every edge by default (Scooby 4.8): Fig. 13 at 0.75 and at 0.5 differ, --reduce makes them read the same" {
	fig13_traces
	f="$BATS_TEST_TMPDIR/fig13.tr"
	# s/T >= 0.75: A -> C fails (transitivity failure), and trace t1 says so
	expect_eq "s:A_S>s:A_E s:A_S>s:B_S s:A_S>s:B_E s:A_E>s:B_S s:A_E>s:B_E s:B_S>s:B_E s:B_S>s:C_S s:B_S>s:C_E s:B_E>s:C_S s:B_E>s:C_E s:C_S>s:C_E" \
		"$(tr-infer -t 's/T >= 0.75' --reformat "$f" | ie t1)"
	expect_eq "s:A_S>s:A_E s:A_S>s:B_S s:A_S>s:B_E s:A_S>s:C_S s:A_S>s:C_E s:A_E>s:B_S s:A_E>s:B_E s:A_E>s:C_S s:A_E>s:C_E s:B_S>s:B_E s:B_S>s:C_S s:B_S>s:C_E s:B_E>s:C_S s:B_E>s:C_E s:C_S>s:C_E" \
		"$(tr-infer -t 's/T >= 0.5' --reformat "$f" | ie t1)"
	# reduced, the two models give the same trace
	expect_eq "s:A_S>s:A_E s:A_E>s:B_S s:B_S>s:B_E s:B_E>s:C_S s:C_S>s:C_E" \
		"$(tr-infer -t 's/T >= 0.75' --reformat --reduce "$f" | ie t1)"
	expect_eq "s:A_S>s:A_E s:A_E>s:B_S s:B_S>s:B_E s:B_E>s:C_S s:C_S>s:C_E" \
		"$(tr-infer -t 's/T >= 0.5' --reformat --reduce "$f" | ie t1)"
	run tr-infer --reduce "$f"
	expect_eq 2 "$status" status
}

@test "a span's own start -> end edge is always there: zero duration, a repeated name that interleaves, also under --reduce" {
	f=$(fix own.tr <<-'EOF'
	#tr/1
	T|1
	S|1|r||0|20|svc|R||
	S|1|x|r|10|0|svc|X||
	S|1|y1|r|2|2|svc|Y||
	S|1|y2|r|6|2|svc|Y||
	EOF
	)
	# X starts and ends at 10 (q = 1); Y's second start comes after its
	# first end (interleaved): the counts say so, the edges stay
	run tr-infer "$f"
	expect_eq "0 1 0 1 1" "$(edge svc:X_S svc:X_E <<<"$output")"
	expect_eq "0 1 0 1 1" "$(edge svc:Y_S svc:Y_E <<<"$output")"
	expect_empty "$(edge svc:X_E svc:X_S <<<"$output")"
	run tr-infer --all "$f"
	expect_eq 0 "$(awk -F'\t' '$1 == "svc:X_E" && $2 == "svc:X_S" { print $8 }' <<<"$output")"
	expect_eq "svc:R_S>svc:Y_S svc:R_S>svc:Y_E svc:R_S>svc:X_S svc:R_S>svc:X_E svc:R_S>svc:R_E svc:Y_S>svc:Y_E svc:Y_S>svc:X_S svc:Y_S>svc:X_E svc:Y_S>svc:R_E svc:Y_E>svc:X_S svc:Y_E>svc:X_E svc:Y_E>svc:R_E svc:X_S>svc:X_E svc:X_S>svc:R_E svc:X_E>svc:R_E" \
		"$(tr-infer --reformat "$f" | ie 1)"
	# reduced: R_S -> R_E is implied through Y and X, and stays
	expect_eq "svc:R_S>svc:Y_S svc:R_S>svc:R_E svc:Y_S>svc:Y_E svc:Y_E>svc:X_S svc:X_S>svc:X_E svc:X_E>svc:R_E" \
		"$(tr-infer --reformat --reduce "$f" | ie 1)"
}

# 20 traces: 19 of A alone, one where B comes before A: A -> B never held.
never_held() {
	{
		printf '#tr/1\n'
		for i in $(seq 1 19); do printf 'T\t%s\nS\t%s\ta\t\t0\t1\tsvc\tA\t\t\n' "$i" "$i"; done
		printf 'T\t20\nS\t20\tb\t\t0\t1\tsvc\tB\t\t\nS\t20\ta\t\t5\t1\tsvc\tA\t\t\n'
	} >"$BATS_TEST_TMPDIR/never.tr"
}

@test "threshold: s/(s+v) >= 0.95 admits only edges seen to hold" {
	never_held
	run tr-infer -t 's/(s+v) >= 0.95' "$BATS_TEST_TMPDIR/never.tr"
	expect_output "from	to	s	v	u	q	T
svc:A_S	svc:A_E	20	0	0	0	20
svc:B_S	svc:A_S	1	0	19	0	20
svc:B_S	svc:A_E	1	0	19	0	20
svc:B_S	svc:B_E	1	0	19	0	20
svc:B_E	svc:A_S	1	0	19	0	20
svc:B_E	svc:A_E	1	0	19	0	20"
}

@test "threshold: (s+u)/T >= 0.95 admits an edge that never held" {
	never_held
	run tr-infer -t '(s+u)/T >= 0.95' "$BATS_TEST_TMPDIR/never.tr"
	expect_eq "0 1 19 0 20" "$(edge svc:A_E svc:B_S <<<"$output")"
}

@test "threshold: s/(s+v) >= 0.95 keeps a dependency 3 skewed traces in 100 contradict" {
	skew_traces 100 3
	run tr-infer -t 's/(s+v) >= 0.95' "$BATS_TEST_TMPDIR/skew.tr"
	expect_eq "97 3 0 0 100" "$(edge back:B_E db:C_S <<<"$output")"
}

@test "4 shards: --partial on each, --merge gives the bytes of one pass" {
	random_traces 400
	run tr-infer -t 's/T >= 0.2' --all "$BATS_TEST_TMPDIR/random.tr"
	expect_eq 0 "$status" status
	printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/one.tsv"
	expect_gt 100 "$(wc -l < "$BATS_TEST_TMPDIR/one.tsv")"
	for i in 0 1 2 3; do
		awk -F'\t' -v i=$i '/^#/ { print; next } $1 == "T" { n++ } n % 4 == i' \
			"$BATS_TEST_TMPDIR/random.tr" | tr-infer --partial > "$BATS_TEST_TMPDIR/p$i"
	done
	run tr-infer -t 's/T >= 0.2' --all --merge "$BATS_TEST_TMPDIR"/p0 "$BATS_TEST_TMPDIR"/p1 \
		"$BATS_TEST_TMPDIR"/p2 "$BATS_TEST_TMPDIR"/p3
	expect_eq 0 "$status" status
	expect_output "$(cat "$BATS_TEST_TMPDIR/one.tsv")"
	# Merging merges (a combiner), from stdin, gives the same again.
	tr-infer --merge --partial "$BATS_TEST_TMPDIR"/p0 "$BATS_TEST_TMPDIR"/p1 > "$BATS_TEST_TMPDIR/p01"
	run sh -c "cat '$BATS_TEST_TMPDIR/p2' '$BATS_TEST_TMPDIR/p3' '$BATS_TEST_TMPDIR/p01' | tr-infer -t 's/T >= 0.2' --all --merge"
	expect_output "$(cat "$BATS_TEST_TMPDIR/one.tsv")"
	# And so does --count pairs with --backtrace-depth.
	tr-infer --count pairs -d 1 --all "$BATS_TEST_TMPDIR/random.tr" > "$BATS_TEST_TMPDIR/one2.tsv"
	for i in 0 1 2 3; do
		awk -F'\t' -v i=$i '/^#/ { print; next } $1 == "T" { n++ } n % 4 == i' \
			"$BATS_TEST_TMPDIR/random.tr" | tr-infer --count pairs -d 1 --partial > "$BATS_TEST_TMPDIR/q$i"
	done
	run tr-infer --all --merge "$BATS_TEST_TMPDIR"/q0 "$BATS_TEST_TMPDIR"/q1 "$BATS_TEST_TMPDIR"/q2 "$BATS_TEST_TMPDIR"/q3
	expect_output "$(cat "$BATS_TEST_TMPDIR/one2.tsv")"
}

@test "--merge refuses partials made with other options, bad records and missing totals" {
	mm_traces
	tr-infer --partial "$BATS_TEST_TMPDIR/mm.tr" > "$BATS_TEST_TMPDIR/a"
	tr-infer --partial --name operation "$BATS_TEST_TMPDIR/mm.tr" > "$BATS_TEST_TMPDIR/b"
	run tr-infer --merge "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
	expect_eq 3 "$status" status
	expect_contains 'b:2: partial counts made with other' "$output"
	printf '#tr-infer-partial/2\tmodel\nIP\t\tx_S\ty_Q\t1\t1\t0\t0\n#end\t1\n' > "$BATS_TEST_TMPDIR/c"
	run tr-infer --merge "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/c"
	expect_eq 3 "$status" status
	expect_contains 'c:2: bad IP record' "$output"
	printf '#tr-infer-partial/2\tmodel\nS\tt\ta\t\t0\t1\ts\tA\t\t\n#end\t1\n' > "$BATS_TEST_TMPDIR/d"
	run tr-infer --merge "$BATS_TEST_TMPDIR/d"
	expect_eq 3 "$status" status
	expect_contains 'not a tr-infer --partial record' "$output"
	grep -v '^IT' "$BATS_TEST_TMPDIR/a" | awk -F'\t' -v OFS='\t' '$1 == "#end" { $2-- } { print }' > "$BATS_TEST_TMPDIR/e"
	run tr-infer --merge "$BATS_TEST_TMPDIR/e"
	expect_eq 3 "$status" status
	expect_contains 'do not add up' "$output"
}

# Three traces, the middle one bad (line 6).
bad_middle_trace() {
	fix bad.tr <<-'EOF'
	#tr/1
	T|1
	S|1|a||0|10|s|A||
	S|1|b|a|2|3|s|B||
	T|2
	S|2|a||zero|10|s|A||
	T|3
	S|3|a||0|10|s|A||
	S|3|b|a|2|3|s|B||
	EOF
}

@test "bad input: the message names file and line, exit 3" {
	bad_middle_trace
	run tr-infer "$BATS_TEST_TMPDIR/bad.tr"
	expect_eq 3 "$status" status
	expect_contains 'bad.tr:6:' "$output"
	expect_lacks 'from	to' "$output"
}

@test "bad input: -k models the good traces" {
	bad_middle_trace
	run tr-infer -k "$BATS_TEST_TMPDIR/bad.tr"
	expect_eq 3 "$status" status
	expect_eq "2 0 0 0 2" "$(edge s:A_S s:B_S <<<"$output")"
}

@test "a missing input file: message and exit 3, also with --reformat and --merge" {
	run tr-infer "$BATS_TEST_TMPDIR/none.tr"
	expect_eq 3 "$status" status
	expect_contains 'none.tr' "$output"
	run tr-infer --reformat "$BATS_TEST_TMPDIR/none.tr"
	expect_eq 3 "$status" status
	expect_contains 'none.tr' "$output"
	run tr-infer --merge "$BATS_TEST_TMPDIR/none.tr"
	expect_eq 3 "$status" status
	expect_contains 'none.tr' "$output"
}

@test "--reformat from stdin leaves no spooled copy behind, however the run ends" {
	mm_traces
	mkdir "$BATS_TEST_TMPDIR/tmp"
	export TMPDIR=$BATS_TEST_TMPDIR/tmp
	tr-infer --reformat < "$BATS_TEST_TMPDIR/mm.tr" > /dev/null
	expect_empty "$(ls -A "$TMPDIR")"
	# a write error (exit 4) and a bad trace (exit 3) end the second pass early
	run tr-infer --reformat -o /dev/full < "$BATS_TEST_TMPDIR/mm.tr"
	expect_eq 4 "$status" status
	expect_empty "$(ls -A "$TMPDIR")"
	{ cat "$BATS_TEST_TMPDIR/mm.tr"; printf 'S\tbad\tx\t\tnan\t1\ts\to\t\t\n'; } > "$BATS_TEST_TMPDIR/bad.tr"
	run tr-infer --reformat < "$BATS_TEST_TMPDIR/bad.tr"
	expect_eq 3 "$status" status
	expect_empty "$(ls -A "$TMPDIR")"
}

@test "--reformat reads standard input twice: a pipe, a file (opened again, not copied), a file read partly" {
	mm_traces
	f=$BATS_TEST_TMPDIR/mm.tr
	want=$(tr-infer --reformat "$f")
	expect_eq "$want" "$(cat "$f" | tr-infer --reformat)"
	# no copy: a temporary directory that does not exist is never needed
	expect_eq "$want" "$(TMPDIR=$BATS_TEST_TMPDIR/none tr-infer --reformat < "$f")"
	run sh -c "cat '$f' | TMPDIR='$BATS_TEST_TMPDIR/none' tr-infer --reformat"
	expect_eq 4 "$status" status
	# what was read of it before stays read
	{ printf 'X\tnot a record of a trace\n'; cat "$f"; } > "$BATS_TEST_TMPDIR/x.tr"
	expect_eq "$want" "$({ head -n 1 > /dev/null; tr-infer --reformat; } < "$BATS_TEST_TMPDIR/x.tr")"
	# and it is left at its end, as a copy would leave it
	expect_empty "$({ tr-infer --reformat > /dev/null; cat; } < "$f")"
}

@test "--merge -k skips a bad record, merges the rest and exits 3" {
	mm_traces
	tr-infer --partial "$BATS_TEST_TMPDIR/mm.tr" |
		awk -F'\t' -v OFS='\t' '$1 == "#end" { print "IP", "", "svc:A_S", "svc:B_S", "many", 1, 0, 0; $2++ } { print }' \
		> "$BATS_TEST_TMPDIR/a"
	run tr-infer -k --merge "$BATS_TEST_TMPDIR/a"
	expect_eq 3 "$status" status
	expect_contains 'a:18: bad IP record' "$output"
	expect_eq "2 0 0 0 2" "$(edge svc:A_S svc:B_S <<<"$output")"
}

@test "-o writes the model to a file" {
	mm_traces
	run tr-infer -o "$BATS_TEST_TMPDIR/model.tsv" "$BATS_TEST_TMPDIR/mm.tr"
	expect_eq 0 "$status" status
	expect_empty "$output"
	expect_eq "2 0 0 0 2" "$(edge svc:A_S svc:B_S < "$BATS_TEST_TMPDIR/model.tsv")"
}

# Links: a gateway server calls auth (split client/server halves), a leaf
# client to an uninstrumented db (peer.service), a producer/consumer pair
# through kafka, an internal span, and errors on both sides.
links_trace() {
	fix links.tr <<-'EOF'
	#tr/1
	T|1
	S|1|r||0|100|gateway|GET /|server|
	S|1|i|r|1|50|gateway|render|internal|
	S|1|c1|i|2|10|gateway|call auth|client||error=true
	S|1|c1:s|c1|3|8|auth|check|server|
	S|1|d|c1:s|4|2|auth|select|client||peer.service=postgres
	S|1|c2|i|20|10|gateway|call auth|client|
	S|1|s2|c2|21|8|auth|check|server|
	S|1|p|r|60|1|gateway|publish|producer||peer.service=kafka
	S|1|k|p|70|5|billing|consume|consumer||peer.service=kafka
	S|1|kx|k|71|3|billing|charge|client||error=true
	EOF
}

@test "--links: server spans link to their nearest remote ancestor, leaves to peer.service, messaging via the broker" {
	links_trace
	run tr-infer --links "$BATS_TEST_TMPDIR/links.tr"
	expect_eq 0 "$status" status
	expect_output "$(printf 'parent\tchild\tcalls\terrors\nauth\tpostgres\t1\t0\ngateway\tauth\t2\t0\ngateway\tkafka\t1\t0\nkafka\tbilling\t1\t0')"
}

@test "--links counts errors: a split server half inherits its client's error tag; error=false counts, as in Zipkin" {
	fix err.tr <<-'EOF'
	#tr/1
	T|1
	S|1|r||0|100|gateway|GET /|server|
	S|1|c1|r|2|10|gateway|call auth|client||error=true
	S|1|s1|c1|3|8|auth|check|server|
	S|1|c2|r|20|10|gateway|call auth|client|
	S|1|s2|c2|21|8|auth|check|server||error=false
	S|1|c3|r|40|10|gateway|call auth|client|
	S|1|s3|c3|41|8|auth|check|server||error=
	S|1|c4|r|60|10|gateway|call auth|client||error=true
	S|1|c4:s|c4|61|8|auth|check|server|
	EOF
	run tr-infer --links "$BATS_TEST_TMPDIR/err.tr"
	expect_eq 0 "$status" status
	# c1 passes its error to s1; s2's error=false and s3's empty error tag
	# count (Zipkin tests only that the key is there); c4:s is a shared
	# Zipkin span's server half: in Zipkin's model its parent id is not the
	# client's, so it does not inherit.
	expect_eq "gateway	auth	4	3" "${lines[1]}"
}

@test "--links formats: jaeger-json, json, csv, dot; the root server without a caller links nothing" {
	links_trace
	run tr-infer --links -f jaeger-json "$BATS_TEST_TMPDIR/links.tr"
	expect_eq 0 "$status" status
	expect_eq '{"parent":"auth","child":"postgres","callCount":1}' "$(jq -c '.[0]' <<<"$output")"
	expect_eq "auth>postgres=1 gateway>auth=2 gateway>kafka=1 kafka>billing=1" \
		"$(jq -r 'map(.parent + ">" + .child + "=" + (.callCount|tostring)) | join(" ")' <<<"$output")"
	run tr-infer --links -f json "$BATS_TEST_TMPDIR/links.tr"
	expect_eq '{"parent":"gateway","child":"auth","callCount":2,"errorCount":0}' "$(jq -c '.[1]' <<<"$output")"
	run tr-infer --links -f csv "$BATS_TEST_TMPDIR/links.tr"
	expect_eq "parent,child,calls,errors" "${lines[0]}"
	run tr-infer --links --dot "$BATS_TEST_TMPDIR/links.tr"
	expect_contains '"gateway" -> "auth" [label="2"]' "$output"
}

@test "--links: a client that names only the remote side backfills the hop from its remote ancestor" {
	fix bf.tr <<-'EOF'
	#tr/1
	T|1
	S|1|r||0|100|gateway|GET /|server|
	S|1|x|r|10|10|cache|get|client||peer.service=redis
	S|1|o|r|30|10|other|get||
	EOF
	run tr-infer --links "$BATS_TEST_TMPDIR/bf.tr"
	expect_output "$(printf 'parent\tchild\tcalls\terrors\ncache\tredis\t1\t0\ngateway\tcache\t1\t0')"
}

@test "--links: under a shared span's server half, a child of another service hangs under the client half" {
	fix sh.tr <<-'EOF'
	#tr/1
	T|1
	S|1|r||0|100|gw|GET|server|
	S|1|x|r|10|50|gw|call|client||peer.service=api
	S|1|x:s|x|11|40|api|handle|server|
	S|1|a|x:s|12|5|api|get|client||peer.service=db
	S|1|b|x:s|20|5|cache|get|client||peer.service=redis
	EOF
	run tr-infer --links "$BATS_TEST_TMPDIR/sh.tr"
	expect_output "$(printf 'parent\tchild\tcalls\terrors\napi\tdb\t1\t0\ncache\tredis\t1\t0\ngw\tapi\t1\t0\ngw\tcache\t1\t0')"
}

@test "--links: a messaging span without peer.service names its broker by messaging.system" {
	fix ms.tr <<-'EOF'
	#tr/1
	T|1
	S|1|p||0|5|shop|publish|producer||messaging.system=kafka
	S|1|c||10|5|mailer|process|consumer||messaging.system=kafka
	S|1|d||20|5|mailer|process|consumer|
	EOF
	run tr-infer --links "$BATS_TEST_TMPDIR/ms.tr"
	expect_output "$(printf 'parent\tchild\tcalls\terrors\nkafka\tmailer\t1\t0\nshop\tkafka\t1\t0')"
}

@test "--links --partial on shards and --merge give the links of one pass" {
	links_trace
	fix two.tr <<-'EOF'
	#tr/1
	T|2
	S|2|r||0|100|gateway|GET /|server|
	S|2|c|r|2|10|gateway|call auth|client||error=true
	S|2|s|c|3|8|auth|check|server|
	EOF
	cat "$BATS_TEST_TMPDIR/links.tr" "$BATS_TEST_TMPDIR/two.tr" > "$BATS_TEST_TMPDIR/both.tr"
	run tr-infer --links "$BATS_TEST_TMPDIR/both.tr"
	expect_eq "gateway	auth	3	1" "${lines[2]}"
	one="$output"
	tr-infer --links --partial "$BATS_TEST_TMPDIR/links.tr" > "$BATS_TEST_TMPDIR/l1"
	tr-infer --links --partial "$BATS_TEST_TMPDIR/two.tr" > "$BATS_TEST_TMPDIR/l2"
	grep -q '^IL' "$BATS_TEST_TMPDIR/l1"
	run tr-infer --links --merge "$BATS_TEST_TMPDIR/l1" "$BATS_TEST_TMPDIR/l2"
	expect_eq 0 "$status" status
	expect_output "$one"
}

# --- conformance data (needs tr-ingest) ---

need_ingest() {
	need_conformance
	command -v tr-ingest >/dev/null || skip "no tr-ingest yet"
}

@test "conformance: the Scooby authors' json_test.json gives the hand-counted s and q of every pair" {
	need_ingest
	tr-ingest "$CONF/mystery-machine-threshold/json_test.json" > "$BATS_TEST_TMPDIR/j.tr"
	run tr-infer --partial "$BATS_TEST_TMPDIR/j.tr"
	expect_eq 0 "$status" status
	expect_eq "IT		traces=2	skipped=0	name=service,operation	depth=0	count=traces" "${lines[1]}"
	# Trace 1: A [1,1001] B [10,210] C [300,900]; trace 2: B [700,1300]
	# D [500,10500] C [503,703]. Columns: a b c s(a->b) s(b->a) q.
	expected='DoA_S DoA_E 1 1 0 0
DoA_S DoB_S 1 1 0 0
DoA_S DoB_E 1 1 0 0
DoA_S DoC_S 1 1 0 0
DoA_S DoC_E 1 1 0 0
DoA_E DoB_S 1 0 1 0
DoA_E DoB_E 1 0 1 0
DoA_E DoC_S 1 0 1 0
DoA_E DoC_E 1 0 1 0
DoB_S DoB_E 2 2 0 0
DoB_S DoC_S 2 1 1 0
DoB_S DoC_E 2 2 0 0
DoB_S DoD_S 1 0 1 0
DoB_S DoD_E 1 1 0 0
DoB_E DoC_S 2 1 1 0
DoB_E DoC_E 2 1 1 0
DoB_E DoD_S 1 0 1 0
DoB_E DoD_E 1 1 0 0
DoC_S DoC_E 2 2 0 0
DoC_S DoD_S 1 0 1 0
DoC_S DoD_E 1 1 0 0
DoC_E DoD_S 1 0 1 0
DoC_E DoD_E 1 1 0 0
DoD_S DoD_E 1 1 0 0'
	got=$(awk -F'\t' '$1 == "IP" { sub(/^hello1:/, "", $3); sub(/^hello1:/, "", $4); print $3, $4, $5, $6, $7, $8 }' <<<"$output")
	expect_eq "$expected" "$got"
	# Default threshold: B_S -> C_E holds in both traces, B_S -> C_S in one only.
	run tr-infer "$BATS_TEST_TMPDIR/j.tr"
	expect_eq "2 0 0 0 2" "$(edge hello1:DoB_S hello1:DoC_E <<<"$output")"
	expect_empty "$(edge hello1:DoB_S hello1:DoC_S <<<"$output")"
	expect_eq "1 0 1 0 2" "$(edge hello1:DoA_S hello1:DoB_S <<<"$output")"
}

# "parent>child=calls/errors" of every link, on one line.
zlinks() {
	tr-ingest "$CONF/zipkin/$1" | tr-infer --links | awk -F'\t' 'NR > 1 { printf "%s%s>%s=%s/%s", sep, $1, $2, $3, $4; sep = " " }'
}

@test "conformance: Zipkin links of messaging.json go frontend -> rabbitmq -> backend" {
	need_ingest
	expect_eq "frontend>rabbitmq=1/0 rabbitmq>backend=1/0" "$(zlinks messaging.json)"
}

@test "conformance: Zipkin links of simple-db-p6, skew, ascend (uninstrumented db, shared spans)" {
	need_ingest
	expect_eq "bootifulmeters>app_db=4/0" "$(zlinks simple-db-p6.json)"
	expect_eq "servicea>serviceb=1/0" "$(zlinks skew.json)"
	expect_eq "mobile-gateway>auth-service=1/0 mobile-gateway>content-service=1/0" "$(zlinks ascend.json)"
}

@test "conformance: Zipkin links of messaging2.json: headless spans hang under the root" {
	need_ingest
	expect_eq "mobile-gateway>auth-service=1/0 mobile-gateway>transfer-service=2/0 rabbitmq>notification-service=1/0 transfer-service>rabbitmq=1/0" \
		"$(zlinks messaging2.json)"
}

@test "conformance: Zipkin links of messaging-kafka.json (errors on local spans are no link's)" {
	need_ingest
	expect_eq "kafka>servicea=4/0 kafka>serviceb=3/0 servicea>kafka=9/0" "$(zlinks messaging-kafka.json)"
}

@test "conformance: Zipkin links of a v1 batch" {
	need_ingest
	expect_eq "front-proxy>service1=1/0 service1>service2=1/0" "$(zlinks zipkin_v1_single_batch.json)"
}

@test "conformance: Zipkin links of yelp.json: children of a shared span with another endpoint hang under its client" {
	need_ingest
	# 668e is shared: client "unknown", server yelp_main/api_proxy; its
	# yelp-main children do not share the server's endpoint, so Zipkin puts
	# them under the client and backfills unknown -> yelp-main for each of
	# the 5 yelp-main client spans. Under f5f2 (server mobile_api, port
	# 31049) the mobile_api client to blt names no port: it hangs under the
	# yelp-main client half and backfills a second yelp-main -> mobile_api.
	expect_eq "mobile_api>blt=1/0 mobile_api>memcache=2/0 mobile_api>spectre=1/0 unknown>yelp-main=5/0 unknown>yelp_main/api_proxy=1/0 yelp-main>memcache=3/0 yelp-main>mobile_api=2/0 yelp-main>mysql=2/0" "$(zlinks yelp.json)"
}
