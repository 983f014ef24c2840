#!/usr/bin/env bats
# tr-cp: critical paths, sections, summaries, folded stacks, DOT, what-if.

load helper

# Fixtures are written with | for TAB.
fix() {
	tr '|' '\t' | mkfix "$1"
}

# "span_id cp.self" for every S record of a line-format stream.
selfs() {
	awk -F'\t' '$1 == "S" { v = "-"; for (i = 11; i <= NF; i++) if ($i ~ /^cp\.self=/) v = substr($i, 9); print $3, v }'
}

# "span_id start end" for every C record.
sections() {
	awk -F'\t' '$1 == "C" { print $3, $4, $5 }'
}

# Jaeger UI's test1: C [1,101] with children D [20,40] and E [50,60].
jaeger_test1() {
	fix t1.tr <<-'EOF'
	#tr/1
	T|t1
	S|t1|C||1|100|svc|op C||
	S|t1|D|C|20|20|svc|op D||
	S|t1|E|C|50|10|svc|op E||
	EOF
}

@test "--help prints usage on stdout and exits 0" {
	run tr-cp --help
	expect_eq 0 "$status" status
	expect_like "usage:*" "$output"
	expect_contains '--overlap-allowance' "$output"
}

@test "--version names the tool" {
	run tr-cp --version
	expect_eq 0 "$status" status
	expect_like "tr-cp \(tr\) *" "$output"
}

@test "usage errors exit 2: unknown option, bad allowance, bad format, bad rule, mixed modes" {
	run tr-cp --no-such-option
	expect_eq 2 "$status" status
	run tr-cp --sumary service /dev/null
	expect_eq 2 "$status" status
	expect_output "tr-cp: unknown option --sumary (did you mean --summary?)
try 'tr-cp --help'"
	run tr-cp --overlap-allowance -1 /dev/null
	expect_eq 2 "$status" status
	expect_contains '--overlap-allowance' "$output"
	run tr-cp --overlap-allowance 0.1x /dev/null
	expect_eq 2 "$status" status
	run tr-cp --summary service -f xml /dev/null
	expect_eq 2 "$status" status
	run tr-cp --whatif 'operation=x:scale=2' /dev/null
	expect_eq 2 "$status" status
	run tr-cp --whatif 'service=x:scale=fast' /dev/null
	expect_eq 2 "$status" status
	run tr-cp --folded --dot /dev/null
	expect_eq 2 "$status" status
	run tr-cp --sections --summary service /dev/null
	expect_eq 2 "$status" status
}

@test "cp.self: exclusive time on the path, summing to the root's duration" {
	f=$(jaeger_test1)
	run tr-cp "$f"
	expect_eq 0 "$status" status
	expect_eq "C 70 D 20 E 10 " "$(tr-cp "$f" | selfs | tr '\n' ' ')"
}

@test "--sections writes C records in Jaeger UI's order, walking back in time" {
	f=$(jaeger_test1)
	run bash -c "tr-cp --overlap-allowance 0 --sections '$f' | awk -F'\t' '\$1==\"C\" { print \$3, \$4, \$5 }'"
	expect_eq 0 "$status" status
	expect_eq "C 60 101" "${lines[0]}"
	expect_eq "E 50 60" "${lines[1]}"
	expect_eq "C 40 50" "${lines[2]}"
	expect_eq "D 20 40" "${lines[3]}"
	expect_eq "C 1 20" "${lines[4]}"
	expect_num 5 "${#lines[@]}"
}

@test "records and tags it does not own pass through (tr-pag's cp.part too); a re-run replaces its own cp.self" {
	f=$(fix in.tr <<-'EOF'
	#tr/1
	# a comment
	T|t1|tr.source=a.json
	S|t1|C||1|100|svc|op C|server|h1|http.method=GET|cp.self=999|cp.part=0.25
	L|t1|C|5|event=x
	S|t1|D|C|20|20|svc|op D|client|h1
	R|t1|D|link|other|zz
	X|t1|future record
	C|t1|C|0|1
	Z||a traceless record
	EOF
	)
	tr-cp --sections "$f" > "$BATS_TEST_TMPDIR/once"
	tr-cp --sections "$BATS_TEST_TMPDIR/once" > "$BATS_TEST_TMPDIR/twice"
	cmp "$BATS_TEST_TMPDIR/once" "$BATS_TEST_TMPDIR/twice"
	grep -q '^# a comment$' "$BATS_TEST_TMPDIR/once"
	grep -q $'^T\tt1\ttr.source=a.json$' "$BATS_TEST_TMPDIR/once"
	grep -q $'^S\tt1\tC\t\t1\t100\tsvc\top C\tserver\th1\thttp.method=GET\tcp.part=0.25\tcp.self=80$' "$BATS_TEST_TMPDIR/once"
	grep -q $'^L\tt1\tC\t5\tevent=x$' "$BATS_TEST_TMPDIR/once"
	grep -q $'^R\tt1\tD\tlink\tother\tzz$' "$BATS_TEST_TMPDIR/once"
	grep -q $'^X\tt1\tfuture record$' "$BATS_TEST_TMPDIR/once"
	grep -q $'^Z\t\ta traceless record$' "$BATS_TEST_TMPDIR/once"
	expect_num 1 "$(grep -c $'^T\t' "$BATS_TEST_TMPDIR/once")"
	! grep -q 'cp.old\|999' "$BATS_TEST_TMPDIR/once"
	expect_num 3 "$(grep -c $'^C\t' "$BATS_TEST_TMPDIR/once")"
}

@test "a FOLLOWS_FROM child blocks its parent, as in the current Jaeger UI" {
	f=$(fix ff.tr <<-'EOF'
	S|f|A||0|100|svc|a||
	S|f|B|A|10|20|svc|b||
	S|f|Z|A|50|50|svc|z||
	R|f|Z|follows_from|f|A
	S|f|Y|Z|60|30|svc|y||
	EOF
	)
	# Z ends last: A waits for it; B ended before Z started
	expect_eq "A 30 B 20 Z 20 Y 30 " "$(tr-cp "$f" | selfs | tr '\n' ' ')"
}

@test "a CONSUMER child of a PRODUCER does not block it; a CLIENT child does" {
	f=$(fix pc.tr <<-'EOF'
	S|p|P||0|100|svc|send|producer|
	S|p|Q|P|10|80|svc|recv|consumer|
	S|p|K|Q|20|50|svc|work||
	S|s|P||0|100|svc|send|producer|
	S|s|Q|P|10|80|svc|call|client|
	EOF
	)
	expect_eq "P 100 Q 0 K 0 P 20 Q 80 " "$(tr-cp "$f" | selfs | tr '\n' ' ')"
}

@test "a child outside its parent is dropped with its subtree; a longer child is clamped" {
	f=$(fix out.tr <<-'EOF'
	S|o|A||10|20|svc|a||
	S|o|B|A|40|40|svc|b||
	S|o|C|B|50|10|svc|c||
	S|o|D|A|1|4|svc|d||
	S|l|A||10|20|svc|a||
	S|l|B|A|5|30|svc|b||
	EOF
	)
	expect_eq "A 20 B 0 C 0 D 0 A 0 B 20 " "$(tr-cp "$f" | selfs | tr '\n' ' ')"
	run bash -c "tr-cp --sections --overlap-allowance 0 '$f' 2>/dev/null | awk -F'\t' '\$1==\"C\" { print \$2, \$3, \$4, \$5 }'"
	expect_eq "o A 10 30" "${lines[0]}"
	expect_eq "l B 10 30" "${lines[1]}"
	# what the tree lost is said on stderr (-q: not)
	run tr-cp "$f"
	expect_contains 'tr-cp: 2 spans in 1 traces lie wholly outside their parent' "$output"
	run tr-cp -q "$f"
	expect_lacks 'outside their parent' "$output"
}

@test "several roots: each is analysed, earliest (then lowest id) first, as in the current Jaeger UI" {
	f=$(fix roots.tr <<-'EOF'
	S|m|b||0|50|svc|b||
	S|m|a||0|40|svc|a||
	S|m|c||10|90|svc|c||
	S|m|c1|c|20|10|svc|c1||
	EOF
	)
	expect_eq "a 40 b 50 c 80 c1 10 " "$(tr-cp "$f" | selfs | sort | tr '\n' ' ')"
	expect_eq "a 0 40 b 0 50 c 30 100 c1 20 30 c 10 20 " "$(tr-cp --sections "$f" | sections | tr '\n' ' ')"
}

@test "a missing parent makes an orphan root, analysed like any other root" {
	f=$(fix orphan.tr <<-'EOF'
	S|x|R||10|100|svc|root||
	S|x|K|R|20|10|svc|kid||
	S|x|O|gone|30|5|svc|orphan||
	S|y|R||10|100|svc|root||
	S|y|O|gone|5|20|svc|orphan||
	EOF
	)
	expect_eq "R 90 K 10 O 5 R 100 O 20 " "$(tr-cp "$f" | selfs | tr '\n' ' ')"
}

@test "zero-duration spans: no empty sections, a zero root still gets tags" {
	f=$(fix zero.tr <<-'EOF'
	S|z|A||0|100|svc|a||
	S|z|B|A|30|0|svc|b||
	S|z|C|A|100|0|svc|c||
	S|z|D|A|40|20|svc|d||
	S|e|Z||5|0|svc|z||
	EOF
	)
	expect_eq "A 80 B 0 C 0 D 20 Z 0 " "$(tr-cp "$f" | selfs | tr '\n' ' ')"
	# B is on the path (after D, before A's start) but its section is empty
	expect_eq "A 60 100 D 40 60 A 30 40 A 0 30 " "$(tr-cp --sections --overlap-allowance 0 "$f" | sections | tr '\n' ' ')"
}

@test "equal end times: the earlier start wins, then the lower span id" {
	f=$(fix tie.tr <<-'EOF'
	S|t|A||0|100|svc|a||
	S|t|L|A|20|60|svc|long||
	S|t|S|A|50|30|svc|short||
	S|u|A||0|100|svc|a||
	S|u|y|A|20|60|svc|y||
	S|u|x|A|20|60|svc|x||
	EOF
	)
	expect_eq "A 40 L 60 S 0 A 40 y 0 x 60 " "$(tr-cp "$f" | selfs | tr '\n' ' ')"
}

@test "--overlap-allowance: a 1 us overlap is sequential by default, parallel at 0" {
	f=$(fix ov.tr <<-'EOF'
	S|v|A||0|1000|S1|O1||
	S|v|B|A|10|200|S2|O2||
	S|v|C|A|209|100|S3|O3||
	S|v|D|A|308|300|S4|O4||
	EOF
	)
	expect_eq "A 400 B 200 C 100 D 300 " "$(tr-cp "$f" | selfs | tr '\n' ' ')"
	# at 0, C overlaps D and is skipped; B ended before D started
	expect_eq "A 500 B 200 C 0 D 300 " "$(tr-cp --overlap-allowance 0 "$f" | selfs | tr '\n' ' ')"
	# 1 us is not below 0.0005 of 1000 us
	expect_eq "A 500 B 200 C 0 D 300 " "$(tr-cp --overlap-allowance 0.0005 "$f" | selfs | tr '\n' ' ')"
	expect_eq "A 400 B 200 C 100 D 300 " "$(tr-cp --overlap-allowance 0.0011 "$f" | selfs | tr '\n' ' ')"
}

@test "overlapping critical siblings longer than their parent: the overlap goes to the earlier one" {
	# C ends last; B overlaps C's start by 5 us (allowed); A ends before B
	# starts. CRISP's rule would give R 1000-98-500-405 = -3; the sections
	# give B [100,595): B loses the overlap and R keeps its 2 us.
	f=$(fix excess.tr <<-'EOF'
	S|e|R||0|1000|svc|r||
	S|e|A|R|0|98|svc|a||
	S|e|B|R|100|500|svc|b||
	S|e|C|R|595|405|svc|c||
	EOF
	)
	expect_eq "R 2 A 98 B 495 C 405 " "$(tr-cp "$f" | selfs | tr '\n' ' ')"
	expect_eq "C 595 1000 B 100 595 R 98 100 A 0 98 " "$(tr-cp --sections "$f" | sections | tr '\n' ' ')"
}

@test "an allowed overlap never makes the sum exceed the root's duration" {
	# A's children tile it with 5 us overlaps: CRISP would give A 0 and sum to 1005.
	f=$(fix tile.tr <<-'EOF'
	S|w|A||0|1000|svc|a||
	S|w|B|A|0|505|svc|b||
	S|w|C|A|500|500|svc|c||
	EOF
	)
	expect_eq "A 0 B 500 C 500 " "$(tr-cp "$f" | selfs | tr '\n' ' ')"
	# sections never overlap: B's is cut where C's starts
	expect_eq "C 500 1000 B 0 500 " "$(tr-cp --sections "$f" | sections | tr '\n' ' ')"
}

@test "a 100,000-deep chain works and sums to the root's duration" {
	f="$BATS_TEST_TMPDIR/deep.tr"
	awk 'BEGIN { OFS = "\t"; n = 100000
		for (i = 0; i < n; i++) print "S", "deep", "s" i, i ? "s" (i - 1) : "", 1000 + i, 2 * (n - i), "svc", "op", "", "" }' > "$f"
	tr-cp "$f" > "$BATS_TEST_TMPDIR/deep.out"
	# each span has 1 us before and 1 us after its child; the last is 2 us long
	expect_eq "100000 200000 100000" "$(selfs < "$BATS_TEST_TMPDIR/deep.out" | awk '{ s += $2; if ($2 == 2) twos++ } END { print NR, s, twos }')"
}

@test "a 1,000,000-span trace works and sums to the root's duration" {
	f="$BATS_TEST_TMPDIR/wide.tr"
	awk 'BEGIN { OFS = "\t"; srand(7); n = 1000000
		print "S", "wide", "r", "", 0, 10000000, "svc", "root", "", ""
		for (i = 1; i < n; i++) {
			p = i < 1000 ? "r" : "s" int(rand() * 999 + 1)
			print "S", "wide", "s" i, p, int(rand() * 9000000), int(rand() * 3000000), "svc", "op" (i % 7), "", ""
		} }' > "$f"
	tr-cp "$f" > "$BATS_TEST_TMPDIR/wide.out"
	expect_eq "1000000 10000000" "$(selfs < "$BATS_TEST_TMPDIR/wide.out" | awk '{ s += $2 } END { print NR, s }')"
}

@test "a trace with no timed root passes through without cp tags" {
	f=$(fix notime.tr <<-'EOF'
	S|n|A||||svc|a|||tr.no_time=true|cp.self=5
	EOF
	)
	run tr-cp "$f"
	expect_eq 0 "$status" status
	expect_eq "$(printf 'S\tn\tA\t\t\t\tsvc\ta\t\t\ttr.no_time=true')" "${lines[2]}"
}

@test "bad input: FILE:LINE message, exit 3, good traces still out; -k goes on" {
	f=$(fix bad.tr <<-'EOF'
	T|g1
	S|g1|A||0|10|svc|a||
	T|b
	S|b|A||zero|10|svc|a||
	T|g2
	S|g2|A||0|20|svc|a||
	EOF
	)
	run tr-cp "$f"
	expect_eq 3 "$status" status
	expect_contains "tr-cp: $f:4: start: not an integer" "$output"
	expect_contains $'g1\tA\t\t0\t10\tsvc\ta\t\t\tcp.self=10' "$output"
	run tr-cp -k "$f"
	expect_eq 3 "$status" status
	expect_contains $'g2\tA\t\t0\t20\tsvc\ta\t\t\tcp.self=20' "$output"
	run tr-cp /no/such/file
	expect_eq 3 "$status" status
}

@test "-o writes the output to a file" {
	f=$(jaeger_test1)
	tr-cp -o "$BATS_TEST_TMPDIR/out.tr" "$f"
	grep -q 'cp.self=70' "$BATS_TEST_TMPDIR/out.tr"
}

# Two traces: fe spends 60 and 40 us on the path; db 40 and 160.
summary_fix() {
	fix sum.tr <<-'EOF'
	S|s1|F||0|100|fe|GET|server|
	S|s1|D|F|20|40|db|select|server|
	S|s1|E|F|30|20|db|insert|server|
	S|s2|F||0|200|fe|GET|server|
	S|s2|D|F|20|160|db|select|server||zone=b
	EOF
}

@test "--summary service: totals, shares, nearest-rank percentiles, conventional self time" {
	f=$(summary_fix)
	run tr-cp --summary service "$f"
	expect_eq 0 "$status" status
	expect_eq "$(printf 'service\ttraces\tcp_us\tcp_pct\tcp_p50_us\tcp_p95_us\tcp_p99_us\tself_us\tself_pct\tspans\terrors')" "${lines[0]}"
	# db: 40 + 160 on the path; self time 40 + 20 + 160 (insert runs inside select)
	expect_eq "$(printf 'db\t2\t200\t66.67\t40\t160\t160\t220\t68.75\t3\t0')" "${lines[1]}"
	expect_eq "$(printf 'fe\t2\t100\t33.33\t40\t60\t60\t100\t31.25\t2\t0')" "${lines[2]}"
	expect_num 3 "${#lines[@]}"
}

@test "--summary operation and a tag key; -f csv and -f json" {
	f=$(summary_fix)
	run tr-cp --summary operation "$f"
	expect_eq "$(printf 'db\tselect\t2\t200\t66.67\t40\t160\t160\t200\t62.50\t2\t0')" "${lines[1]}"
	expect_eq "$(printf 'fe\tGET\t2\t100\t33.33\t40\t60\t60\t100\t31.25\t2\t0')" "${lines[2]}"
	expect_eq "$(printf 'db\tinsert\t1\t0\t0.00\t0\t0\t0\t20\t6.25\t1\t0')" "${lines[3]}"
	# spans without the tag make the group with the empty value
	run tr-cp --summary zone "$f"
	expect_eq 0 "$status" status
	expect_eq "$(printf 'zone\ttraces\tcp_us\tcp_pct\tcp_p50_us\tcp_p95_us\tcp_p99_us\tself_us\tself_pct\tspans\terrors')" "${lines[0]}"
	expect_eq "$(printf 'b\t1\t160\t53.33\t160\t160\t160\t160\t50.00\t1\t0')" "${lines[1]}"
	expect_eq "$(printf '\t2\t140\t46.67\t40\t100\t100\t160\t50.00\t4\t0')" "${lines[2]}"
	run tr-cp --summary service -f csv "$f"
	expect_eq "service,traces,cp_us,cp_pct,cp_p50_us,cp_p95_us,cp_p99_us,self_us,self_pct,spans,errors" "${lines[0]}"
	expect_eq "db,2,200,66.67,40,160,160,220,68.75,3,0" "${lines[1]}"
	run bash -c "tr-cp --summary operation -f json '$f' | jq -c '.[0]'"
	expect_eq 0 "$status" status
	expect_output '{"service":"db","operation":"select","traces":2,"cp_us":200,"cp_pct":66.67,"cp_p50_us":40,"cp_p95_us":160,"cp_p99_us":160,"self_us":200,"self_pct":62.5,"spans":2,"errors":0}'
}

@test "--summary --units: columns named for the unit, values in ms, s or a unit each" {
	f=$(summary_fix)
	run tr-cp --summary service --units ms "$f"
	expect_eq 0 "$status" status
	expect_eq "$(printf 'service\ttraces\tcp_ms\tcp_pct\tcp_p50_ms\tcp_p95_ms\tcp_p99_ms\tself_ms\tself_pct\tspans\terrors')" "${lines[0]}"
	expect_eq "$(printf 'db\t2\t0.2\t66.67\t0.04\t0.16\t0.16\t0.22\t68.75\t3\t0')" "${lines[1]}"
	run tr-cp --summary service --units auto "$f"
	expect_eq "$(printf 'service\ttraces\tcp\tcp_pct\tcp_p50\tcp_p95\tcp_p99\tself\tself_pct\tspans\terrors')" "${lines[0]}"
	expect_eq "$(printf 'db\t2\t200 µs\t66.67\t40 µs\t160 µs\t160 µs\t220 µs\t68.75\t3\t0')" "${lines[1]}"
	run bash -c "tr-cp --summary service -f json --units s '$f' | jq -c '.[1] | [.cp_s, .self_s]'"
	expect_output "[0.0001,0.0001]"
	run tr-cp --summary service -f csv --units auto "$f"
	expect_eq 2 "$status" status
	run tr-cp --folded --units ms "$f"
	expect_eq 2 "$status" status
	expect_eq 'tr-cp: --units goes with --summary, --whatif, --suspects, --dot and PAG records' "${lines[0]}"
	run tr-cp --units ms "$f"
	expect_eq 2 "$status" status
	expect_contains 'tr-cp: --units: no table was written' "$output"
}

@test "--folded: critical-path time per call path, summed over traces" {
	f=$(summary_fix)
	run tr-cp --folded "$f"
	expect_eq 0 "$status" status
	expect_eq "fe:GET 100" "${lines[0]}"
	expect_eq "fe:GET;db:select 200" "${lines[1]}"
	expect_num 2 "${#lines[@]}"
}

@test "--dot draws the span tree with the critical path in red; --trace picks" {
	f=$(summary_fix)
	run bash -c "tr-cp --dot --trace s1 '$f'"
	expect_eq 0 "$status" status
	expect_eq 'digraph "tr-cp" {' "${lines[0]}"
	expect_contains '"s1/F" -> "s1/D" [label="40 µs · 40 %", color=red, penwidth=2]' "$output"
	expect_contains '"s1/F" -> "s1/E" []' "$output"
	expect_lacks 's2/' "$output"
	tr-cp --dot "$f" | dot -Tsvg > /dev/null
}

@test "--dot: durations in a readable unit with their share of the trace; --units sets the unit" {
	f=$(summary_fix)
	run tr-cp --dot --trace s1 "$f"
	expect_eq 0 "$status" status
	expect_contains '"s1/F" [label="fe\nGET\n100 µs · 100 %\ncp.self 60 µs · 60 %", color=red, penwidth=2];' "$output"
	run tr-cp --dot --trace s1 --units ms "$f"
	expect_eq 0 "$status" status
	expect_contains '"s1/D" [label="db\nselect\n0.04 ms · 40 %\ncp.self 0.04 ms · 40 %"' "$output"
	expect_contains 'label="trace s1\ncritical path 0.1 ms";' "$output"
}

@test "--dot: like siblings fold into one node with their count, total and longest; their children merge by name" {
	f=$(fix fan.tr <<-'EOF'
	S|t|r||0|1000|fe|GET|server|
	S|t|a|r|0|100|fe|call|client|
	S|t|a1|a|10|80|be|work|server|
	S|t|b|r|100|300|fe|call|client|
	S|t|b1|b|110|280|be|work|server|
	S|t|c|r|400|600|fe|call|client|
	S|t|c1|c|410|580|be|work|server|
	EOF
	)
	run tr-cp --dot "$f"
	expect_eq 0 "$status" status
	expect_eq 3 "$(printf '%s\n' "$output" | grep -v -e '->' | grep -c '\[label="')" "nodes"
	expect_contains '"t/a" [label="×3 fe\ncall\ntotal 1 ms · 100 %\nmax 600 µs\ncp.self 60 µs · 6.0 %\n3 of 3 on the path", color=red, penwidth=2];' "$output"
	expect_contains '"t/a1" [label="×3 be\nwork\ntotal 940 µs · 94 %\nmax 580 µs' "$output"
	expect_contains '"t/a" -> "t/a1" [label="940 µs · 94 %", color=red, penwidth=2];' "$output"
}

@test "--dot: a fold of like siblings keeps a failure's mark, with how many of them failed" {
	f=$(fix fanerr.tr <<-'EOF'
	S|t|r||0|1000|fe|GET|server|
	S|t|a|r|0|100|fe|call|client|
	S|t|b|r|100|300|fe|call|client||error=true
	S|t|c|r|400|600|fe|call|client|
	EOF
	)
	run tr-cp --dot "$f"
	expect_eq 0 "$status" status
	expect_contains '"t/a" [label="×3 fe\ncall\n' "$output"
	expect_contains '\n✗ ERROR error tag\n1 of 3 failed", color=red, penwidth=2, peripheries=2, style=filled, fillcolor=mistyrose];' "$output"
}

@test "--dot: consecutive siblings under 1 % of the trace fold into one node, what they call hidden; a failed one stays" {
	f=$(fix minor.tr <<-'EOF'
	S|t|r||0|100000|fe|GET|server|
	S|t|a|r|0|90000|fe|big|client|
	S|t|b|r|90000|100|fe|one|client|
	S|t|b1|b|90010|50|be|inner|server|
	S|t|c|r|90100|200|fe|two|client|
	S|t|d|r|90300|300|fe|three|client||error=true
	EOF
	)
	run tr-cp --dot "$f"
	expect_eq 0 "$status" status
	expect_contains '"t/b" [label="×2 calls of fe and others\neach under 1 %\ntotal 300 µs · 0.3 %' "$output"
	expect_lacks '"t/b1"' "$output"
	expect_contains '"t/d" [label="fe\nthree\n300 µs · 0.3 %' "$output"
	expect_contains 'ERROR error tag' "$output"
}

@test "a selector that matches nothing fails: --summary key, --trace id, with the closest name" {
	f=$(summary_fix)
	run tr-cp --summary servcie "$f"
	expect_eq 2 "$status" status
	expect_output "tr-cp: --summary servcie: no span has a tag servcie (did you mean service?)"
	run tr-cp --summary zon "$f"
	expect_eq 2 "$status" status
	expect_output "tr-cp: --summary zon: no span has a tag zon (did you mean zone?)"
	run tr-cp --dot --trace nosuch "$f"
	expect_eq 2 "$status" status
	expect_like "*tr-cp: --trace nosuch: no trace has this id" "$output"
	# a truncated id: the one met that shares its start
	fix long.tr <<-'EOF'
	S|4bf92f3577b34da6a3ce929d0e0e4736|a||0|10|svc|op||
	EOF
	run tr-cp --summary service --trace 4bf92f3577b34da6a3ce929d0e0e47 "$BATS_TEST_TMPDIR/long.tr"
	expect_eq 2 "$status" status
	expect_like "*--trace 4bf92f3577b34da6a3ce929d0e0e47: no trace has this id \(did you mean 4bf92f3577b34da6a3ce929d0e0e4736\?\)" "$output"
}

@test "--trace and --trace-file pick the traces every mode analyses; the others pass untouched" {
	f=$(summary_fix)
	printf '# the slow one\n  s2  \n\n' > "$BATS_TEST_TMPDIR/ids"
	run tr-cp --summary service --trace-file "$BATS_TEST_TMPDIR/ids" "$f"
	expect_eq 0 "$status" status
	expect_eq "$(printf 'db\t1\t160\t80.00\t160\t160\t160\t160\t80.00\t1\t0')" "${lines[1]}"
	# line format: s1 is written as it came, without cp tags
	run bash -c "tr-cp --trace s2 '$f' | awk -F'\t' '\$1 == \"S\" { print \$2, \$3, (NF > 10 ? \$NF : \"-\") }'"
	expect_eq "s1 F -" "${lines[0]}"
	expect_eq "s2 F cp.self=40" "${lines[3]}"
	printf 's1\tx\n' > "$BATS_TEST_TMPDIR/bad"
	run tr-cp --trace-file "$BATS_TEST_TMPDIR/bad" "$f"
	expect_eq 2 "$status" status
	expect_contains "bad:1: a TAB inside a trace id" "$output"
	run tr-cp --trace-file "$BATS_TEST_TMPDIR/none" "$f"
	expect_eq 2 "$status" status
}

@test "--whatif: sequential children shorten the trace, a parallel one does not" {
	f=$(fix w.tr <<-'EOF'
	S|seq|fe||0|100|fe|GET||
	S|seq|x|fe|10|50|x|q||
	S|seq|y|fe|60|30|y|q||
	S|par|fe||0|100|fe|GET||
	S|par|x|fe|10|50|x|q||
	S|par|y|fe|10|80|y|q||
	EOF
	)
	run tr-cp --whatif 'service=x:scale=0.5' "$f"
	expect_eq 0 "$status" status
	expect_eq "$(printf 'trace_id\toriginal_us\tpredicted_us\tchange_us\tmatched')" "${lines[0]}"
	expect_eq "$(printf 'seq\t100\t75\t-25\t1')" "${lines[1]}"
	expect_eq "$(printf 'par\t100\t100\t0\t1')" "${lines[2]}"
	expect_eq "$(printf 'quantile\toriginal_us\tpredicted_us')" "${lines[3]}"
	expect_eq "$(printf 'p50\t100\t75')" "${lines[4]}"
	expect_eq "$(printf 'p95\t100\t100')" "${lines[5]}"
	run tr-cp --whatif 'service=fe,operation=GET:scale=2' "$f"
	expect_eq "$(printf 'seq\t100\t120\t20\t1')" "${lines[1]}"
	run tr-cp --whatif 'service=x,operation=other:scale=0' "$f"
	expect_eq 2 "$status" status
	expect_eq "$(printf 'seq\t100\t100\t0\t0')" "${lines[1]}"
	run bash -c "tr-cp --whatif 'service=x:scale=0.5' -f json '$f' | jq -c '.quantiles[0]'"
	expect_output '{"quantile":"p50","original_us":100,"predicted_us":75}'
	run tr-cp --whatif 'service=x:scale=0.5' --units ms "$f"
	expect_eq "$(printf 'trace_id\toriginal_ms\tpredicted_ms\tchange_ms\tmatched')" "${lines[0]}"
	expect_eq "$(printf 'seq\t0.1\t0.075\t-0.025\t1')" "${lines[1]}"
	run bash -c "tr-cp --whatif 'service=x:scale=0.5' --units auto '$f' | tail -3"
	expect_eq "$(printf 'p50\t100 µs\t75 µs')" "${lines[0]}"
}

@test "--whatif: a join waits for all the calls before it, not only the one that ended last" {
	# C follows A and B (both ended before it started). Halving A moves
	# A's end to 60, but B still ends at 105: C starts at 105 plus the 10 us
	# it left after the last of them, as before.
	f=$(fix join.tr <<-'EOF'
	S|j|P||0|200|p|run||
	S|j|A|P|10|100|a|call||
	S|j|B|P|10|95|b|call||
	S|j|C|P|120|30|c|next||
	EOF
	)
	run tr-cp --whatif 'service=a:scale=0.5' "$f"
	expect_eq 0 "$status" status
	expect_eq "$(printf 'j\t200\t195\t-5\t1')" "${lines[1]}"
	# both halved: B ends at 10 + 48 (47.5 rounded), A at 60, C at 70
	run tr-cp --whatif 'service=a:scale=0.5' --whatif 'service=b:scale=0.5' "$f"
	expect_eq 0 "$status" status
	expect_eq "$(printf 'j\t200\t150\t-50\t2')" "${lines[1]}"
}

@test "--whatif: a recorded queue wait is not the service's work and is not scaled" {
	# front's client waits 60 us before db's server starts: 50 of them in a
	# queue (tag, or an enqueue log), 10 its own. Halving front saves 5 us.
	f=$(fix q.tr <<-'EOF'
	S|t|C||0|100|front|call|client|
	S|t|S|C|60|40|db|query|server||queue.wait_us=50
	S|l|C||0|100|front|call|client|
	S|l|S|C|60|40|db|query|server|
	L|l|S|10|event=enqueue
	S|n|C||0|100|front|call|client|
	S|n|S|C|60|40|db|query|server|
	EOF
	)
	run tr-cp --whatif 'service=front:scale=0.5' "$f"
	expect_eq 0 "$status" status
	expect_eq "$(printf 't\t100\t95\t-5\t1')" "${lines[1]}"
	expect_eq "$(printf 'l\t100\t95\t-5\t1')" "${lines[2]}"
	expect_eq "$(printf 'n\t100\t70\t-30\t1')" "${lines[3]}"
}

@test "--whatif: a blocking receive waits for its message: its time is not scaled" {
	f=$(fix recv.tr <<-'EOF'
	S|r|W||0|100|worker|poll|consumer||messaging.operation.type=receive
	S|p|W||0|100|worker|handle|consumer|
	EOF
	)
	run tr-cp --whatif 'service=worker:scale=0.5' "$f"
	expect_eq 0 "$status" status
	expect_eq "$(printf 'r\t100\t100\t0\t1')" "${lines[1]}"
	expect_eq "$(printf 'p\t100\t50\t-50\t1')" "${lines[2]}"
}

@test "--whatif minus=D: a span's own time shortened by D, never below zero" {
	# P's own time is 40 us (20 before K, 20 after); minus 20 halves both.
	f=$(fix minus.tr <<-'EOF'
	S|m|P||0|100|p|run||
	S|m|K|P|20|60|k|work||
	S|x|L||0|100|k|leaf||
	EOF
	)
	run tr-cp --whatif 'service=p:minus=20' "$f"
	expect_eq 0 "$status" status
	expect_eq "$(printf 'm\t100\t80\t-20\t1')" "${lines[1]}"
	run tr-cp --whatif 'service=p:minus=1s' "$f"
	expect_eq "$(printf 'm\t100\t60\t-40\t1')" "${lines[1]}"
	# the first rule that matches a span applies: k's leaf loses 30 us, K 0.5
	run tr-cp --whatif 'service=k,operation=leaf:minus=0.03ms' --whatif 'service=k:scale=0.5' "$f"
	expect_eq "$(printf 'm\t100\t70\t-30\t1')" "${lines[1]}"
	expect_eq "$(printf 'x\t100\t70\t-30\t1')" "${lines[2]}"
	run tr-cp --whatif 'service=p:minus=-5ms' "$f"
	expect_eq 2 "$status" status
	expect_contains 'minus: not a duration' "$output"
}

@test "--whatif: a rule that matches no span fails with the closest name" {
	f=$(fix typo.tr <<-'EOF'
	S|t|R||0|100|mysql|query||
	EOF
	)
	run tr-cp --whatif 'service=mysqll:scale=0.5' "$f"
	expect_eq 2 "$status" status
	expect_contains 'tr-cp: --whatif '\''service=mysqll:scale=0.5'\'': no analysed span has service "mysqll" (did you mean "mysql"?)' "$output"
	run tr-cp --whatif 'service=mysql,operation=qurey:scale=0.5' "$f"
	expect_eq 2 "$status" status
	expect_contains 'no analysed span of service "mysql" has operation "qurey" (did you mean "query"?)' "$output"
	run tr-cp -v --whatif 'service=mysql:scale=0.5' "$f"
	expect_eq 0 "$status" status
	expect_contains "--whatif 'service=mysql:scale=0.5': 1 spans" "$output"
	# a consumer of a producer is not analysed: a rule for it matches nothing
	fix async.tr <<-'EOF'
	S|a|P||0|100|web|send|producer|
	S|a|Q|P|10|80|analytics|process|consumer|
	EOF
	run tr-cp --whatif 'service=analytics:scale=0.5' "$BATS_TEST_TMPDIR/async.tr"
	expect_eq 2 "$status" status
	expect_contains 'no analysed span has service "analytics"' "$output"
	expect_contains 'its 1 spans lie outside the analysed trees' "$output"
	run tr-cp --whatif 'service=analytics,operation=process:scale=0.5' "$BATS_TEST_TMPDIR/async.tr"
	expect_eq 2 "$status" status
	# a rule every span of which an earlier rule takes applies nowhere
	run tr-cp --whatif 'service=web:scale=0.5' --whatif 'service=web,operation=send:scale=2' "$BATS_TEST_TMPDIR/async.tr"
	expect_eq 2 "$status" status
	expect_contains "--whatif 'service=web,operation=send:scale=2': an earlier rule takes every span it matches (1)" "$output"
	run tr-cp --whatif 'service=web:scale=1e7' "$BATS_TEST_TMPDIR/async.tr"
	expect_eq 2 "$status" status
	expect_contains 'scale: not a number from 0 to 1e6' "$output"
}

@test "--whatif minus=D takes D off the stretches it scales, also while siblings run" {
	# P's stretches: 10 before B, 10 between B's end and C, a tail of 20.
	f=$(fix run.tr <<-'EOF'
	S|r|P||0|120|fe|run||
	S|r|A|P|0|50|a|x||
	S|r|B|P|10|20|b|x||
	S|r|C|P|40|60|c|x||
	EOF
	)
	run tr-cp --whatif 'service=fe:minus=20' "$f"
	expect_eq 0 "$status" status
	expect_eq "$(printf 'r\t120\t100\t-20\t1')" "${lines[1]}"
}

@test "--whatif with several roots predicts the trace from its earliest start to its latest end" {
	f=$(fix roots2.tr <<-'EOF'
	S|m|a||0|100|fe|a||
	S|m|b||10|300|fe|b||
	S|m|d|b|20|200|db|q||
	EOF
	)
	run tr-cp --whatif 'service=db:scale=0.5' "$f"
	expect_eq 0 "$status" status
	expect_eq "$(printf 'm\t310\t210\t-100\t1')" "${lines[1]}"
}

@test "PAG records go to critical participation, reported at the end; other lines pass" {
	f=$(fix pag.tr <<-'EOF'
	#tr/1
	PG||10|0|0|5
	PW||0|A|0
	PW||1|B|0
	PE||1|2|processing|0|2|0|0|a|a1
	PE||2|3|processing|2|5|0|0|a|a2
	PE||4|5|waiting|0|3|1|1|b|wait
	PE||5|6|processing|3|5|1|1|b|b1
	PE||2|5|message|2|3|0|1
	Z||kept
	T|t1
	S|t1|s1||0|5|b|handle|server|hb
	EOF
	)
	run tr-cp "$f"
	expect_eq 0 "$status" status
	expect_num 0 "$(grep -c '^P[GWVE]' <<<"$output")"
	grep -q $'^Z\t\tkept$' <<<"$output"
	grep -q $'cp.self=5$' <<<"$output"
	# the report comes after the traces
	expect_like '*cp.self=5*'$'\nstart_us\tend_us\tsummary\tkey\tdetail\tcp\ttime_us\tedges\tworkers\n*' "$output"
	grep -q $'^0\t10\tworker\tA\t\t0.7\t' <<<"$output"
	run tr-cp -f csv "$f"
	grep -q '^0,10,worker,A,,0.7,' <<<"$output"
}

@test "conformance: Jaeger UI's 9 critical-path cases give exactly its sections" {
	need_conformance
	command -v tr-ingest > /dev/null || skip "tr-ingest not built yet"
	# every testN.json there (9 today), further cases included
	[ -f "$CONF/jaeger-ui-critical-path/test9.json" ]
	for json in "$CONF"/jaeger-ui-critical-path/test[0-9]*.json; do
		case $json in *.expected.json) continue ;; esac
		n=${json##*/test}; n=${n%.json}
		got=$(tr-ingest "$json" |
			tr-cp --overlap-allowance 0 --sections | sections)
		want=$(jq -r '.[] | "\(.spanID) \(.sectionStart) \(.sectionEnd)"' \
			"$CONF/jaeger-ui-critical-path/test$n.expected.json")
		expect_eq "$want" "$got" || { echo "test$n: got [$got] want [$want]"; false; }
	done
}

@test "conformance: CRISP's 12 cases give its exclusive time per operation" {
	need_conformance
	command -v tr-ingest > /dev/null || skip "tr-ingest not built yet"
	# every N.json there (12 today), CRISP's further cases included
	[ -f "$CONF/crisp/12.json" ]
	for json in "$CONF"/crisp/[0-9]*.json; do
		n=${json##*/}
		got=$(tr-ingest "$json" | tr-cp |
			awk -F'\t' '$1 == "S" { for (i = 11; i <= NF; i++) if ($i ~ /^cp\.self=/) s["[" $7 "] " $8] += substr($i, 9) }
				END { for (k in s) print k "=" s[k] }' | sort)
		want=$(jq -r '(.testing | if type == "array" then .[0] else .opTimeExclusive end) |
			to_entries[] | "\(.key)=\(.value)"' "$json" | sort)
		# every listed operation must match; unlisted ones are off the path
		missing=$(comm -23 <(echo "$want") <(echo "$got"))
		[ -z "$missing" ] || { echo "crisp $n: expected but not found: $missing"; echo "got: $got"; false; }
	done
}

@test "peers: Jaeger UI's own critical path and statistics on 300 traces; only FOLLOWS_FROM-first cases differ" {
	peers="${TR_SHARED:-$BATS_TEST_DIRNAME/../../shared}/peers"
	[ -f "$peers/compare_cp.py" ] || skip "no ../shared/peers beside the project"
	command -v python3 >/dev/null || skip "python3 is missing"
	run python3 "$peers/compare_cp.py" -j 2 --show 0 "$peers/jaeger-ui"
	echo "$output" | tail -4
	# The UI, given the raw file, takes a span's first reference as its
	# parent; tr takes the first CHILD_OF, as Jaeger's query service
	# reorders them. Every other case must agree.
	differ=$(sed -n 's/^[0-9]* disagree: //p' <<<"$output")
	expect_lacks '...' "$differ"
	n=0
	for c in $differ; do
		awk -F'\t' -v c="$c" '$1 == c && $2 ~ /(^|,)follows_from_first(,|$)/ { ok = 1 } END { exit !ok }' \
			"$peers/jaeger-ui/MANIFEST.tsv" || { echo "case $c differs without follows_from_first"; false; }
		n=$((n + 1))
	done
	expect_le 18 "$n"
	expect_match 'critical path: (29[4-9]|300)/300 agree' "$output"
}
