#!/usr/bin/env bats
# tr-cp and tr-temporal over tr-infer's happens-before edges (IE records,
# --model) instead of timing guesses for siblings.

load helper
bats_require_minimum_version 1.5.0

# Twenty traces of one shape: P [1000, 1100] calls A [1000, 1040], B from
# 1005 and C [1046, 1100]. B ends at 1045 in even traces, at 1055 in odd
# ones: C never waits for B, always for A. In t0, B ends just before C
# starts, and timing alone takes C to wait for B.
many() {
	awk 'BEGIN { OFS = "\t"; print "#tr/1"
		for (i = 0; i < 20; i++) { t = "t" i; b = i % 2 ? 55 : 45
			print "T", t
			print "S", t, "p", "", 1000, 100, "front", "P", "server", "h1"
			print "S", t, "a", "p", 1000, 40, "svc", "A", "client", "h1"
			print "S", t, "b", "p", 1005, b - 5, "svc", "B", "client", "h1"
			print "S", t, "c", "p", 1046, 54, "svc", "C", "client", "h1" } }' |
		mkfix many.tr
}

# t0 alone.
first() {
	awk -F'\t' 'NR == 1 || $2 == "t0"' "$1" | mkfix one.tr
}

# "span start end" for every C record.
sections() {
	awk -F'\t' '$1 == "C" { print $3, $4, $5 }'
}

@test "without edges the critical path takes the sibling that ended last before C: B" {
	f=$(first "$(many)")
	run bash -c "tr-cp --sections '$f' | awk -F'\t' '\$1 == \"C\" { print \$3, \$4, \$5 }'"
	expect_output "$(printf 'c 1046 1100\np 1045 1046\nb 1005 1045\np 1000 1005')"
}

@test "with the IE records of tr-infer --reformat, C waits for A, its model predecessor" {
	f=$(many)
	tr-infer --reformat "$f" > "$BATS_TEST_TMPDIR/ie.tr"
	run bash -c "tr-cp --trace t0 --sections '$BATS_TEST_TMPDIR/ie.tr' 2>/dev/null | awk -F'\t' '\$1 == \"C\" && \$2 == \"t0\" { print \$3, \$4, \$5 }'"
	expect_output "$(printf 'c 1046 1100\np 1040 1046\na 1000 1040')"
}

@test "with --model FILE, the same path; -v says which edges were used" {
	f=$(many)
	tr-infer "$f" > "$BATS_TEST_TMPDIR/model.tsv"
	one=$(first "$f")
	run --separate-stderr tr-cp -v --model "$BATS_TEST_TMPDIR/model.tsv" --sections "$one"
	expect_status 0
	expect_eq "$(printf 'c 1046 1100\np 1040 1046\na 1000 1040')" "$(printf '%s\n' "${lines[@]}" | sections)"
	expect_eq "tr-cp: happens-before edges: 0 traces by their IE records, 1 by --model $BATS_TEST_TMPDIR/model.tsv: 3 children waited for their model predecessors, 0 the edges do not name kept the timing guess" \
		"${stderr_lines[1]}"
}

@test "a model file's edge the trace contradicts is left out" {
	f=$(many)
	tr-infer "$f" > "$BATS_TEST_TMPDIR/model.tsv"
	# in t1' A ends after C starts: A_E -> C_S does not hold there, and C,
	# with no model predecessor left, waits for its parent only
	g=$(printf '#tr/1\nT\tx\nS\tx\tp\t\t1000\t100\tfront\tP\tserver\th1\nS\tx\ta\tp\t1000\t50\tsvc\tA\tclient\th1\nS\tx\tc\tp\t1046\t54\tsvc\tC\tclient\th1\n' | mkfix x.tr)
	run bash -c "tr-cp --model '$BATS_TEST_TMPDIR/model.tsv' --sections '$g' | awk -F'\t' '\$1 == \"C\" { print \$3, \$4, \$5 }'"
	expect_output "$(printf 'c 1046 1100\np 1000 1046')"
}

@test "--whatif on B, which C does not wait for by the model, changes nothing; without the model it does" {
	f=$(many)
	tr-infer "$f" > "$BATS_TEST_TMPDIR/model.tsv"
	one=$(first "$f")
	run tr-cp --model "$BATS_TEST_TMPDIR/model.tsv" --whatif 'service=svc,operation=B:scale=0' "$one"
	expect_eq "$(printf 't0\t100\t100\t0\t1')" "${lines[1]}"
	run tr-cp --whatif 'service=svc,operation=B:scale=0' "$one"
	expect_eq "$(printf 't0\t100\t95\t-5\t1')" "${lines[1]}"
	run tr-cp --model "$BATS_TEST_TMPDIR/model.tsv" --whatif 'service=svc,operation=A:scale=0.5' "$one"
	expect_eq "$(printf 't0\t100\t80\t-20\t1')" "${lines[1]}"
}

@test "a child the model does not name keeps the timing guess, and that is said" {
	f=$(many)
	tr-infer "$f" > "$BATS_TEST_TMPDIR/model.tsv"
	one=$(first "$f")
	sed 's/\tC\tclient/\tD\tclient/' "$one" > "$BATS_TEST_TMPDIR/d.tr"
	run --separate-stderr tr-cp --model "$BATS_TEST_TMPDIR/model.tsv" --sections "$BATS_TEST_TMPDIR/d.tr"
	expect_status 0
	expect_eq "$(printf 'c 1046 1100\np 1045 1046\nb 1005 1045\np 1000 1005')" "$(printf '%s\n' "${lines[@]}" | sections)"
	expect_eq "tr-cp: happens-before edges: 0 traces by their IE records, 1 by --model $BATS_TEST_TMPDIR/model.tsv: 2 children waited for their model predecessors, 1 the edges do not name kept the timing guess" \
		"$stderr"
}

@test "without edges every mode's output is that of the timing guess (IE records absent, no --model)" {
	f=$(many)
	tr-infer --reformat "$f" | grep -v '^IE' > "$BATS_TEST_TMPDIR/plain.tr"
	expect_eq "$(tr-cp --summary service "$f")" "$(tr-cp --summary service "$BATS_TEST_TMPDIR/plain.tr")"
	run --separate-stderr tr-cp -v --summary service "$f"
	expect_eq "" "$(printf '%s\n' "$stderr" | grep 'happens-before' || true)"
}

@test "a model file that is not one: file:line, exit 3, nothing written" {
	f=$(first "$(many)")
	printf 'from\tto\ts\tv\tu\tq\tT\nsvc:A_E\tsvc:C_S\t20\n' > "$BATS_TEST_TMPDIR/bad.tsv"
	run --separate-stderr tr-cp --model "$BATS_TEST_TMPDIR/bad.tsv" "$f"
	expect_status 3
	expect_eq "tr-cp: $BATS_TEST_TMPDIR/bad.tsv:2: not an edge of a tr-infer model (from_event to_event s v u q T)" "$stderr"
	expect_eq "" "$output"
	printf 'a\tb\n' > "$BATS_TEST_TMPDIR/bad.tsv"
	run --separate-stderr tr-cp --model "$BATS_TEST_TMPDIR/bad.tsv" "$f"
	expect_status 3
	expect_eq "tr-cp: $BATS_TEST_TMPDIR/bad.tsv:1: not a tr-infer model (its first line is not from, to, s, v, u, q, T)" "$stderr"
}

@test "a model file that cannot be read is said as such, not as an empty model: exit 3" {
	f=$(first "$(many)")
	run --separate-stderr tr-cp --model "$BATS_TEST_TMPDIR" "$f"
	expect_status 3
	expect_eq "tr-cp: $BATS_TEST_TMPDIR: Is a directory" "$stderr"
	expect_eq "" "$output"
}

@test "a model whose events match no span: exit 2, with the closest span name" {
	f=$(first "$(many)")
	printf 'from\tto\ts\tv\tu\tq\tT\nsvc:Aa_E\tsvc:Cc_S\t20\t0\t0\t0\t20\n' > "$BATS_TEST_TMPDIR/m.tsv"
	run --separate-stderr tr-cp --model "$BATS_TEST_TMPDIR/m.tsv" --summary service "$f"
	expect_status 2
	expect_eq "tr-cp: --model $BATS_TEST_TMPDIR/m.tsv: no span of the input is named as the model's events (its first: \"svc:Aa\"; the closest span name: \"svc:A\"; --name gives the fields)" "$stderr"
}

@test "an IE record naming an event no span of its trace has: file:line, the trace is bad (exit 3)" {
	f=$(first "$(many)")
	printf 'IE\tt0\tsvc:A_E\tsvc:Z_S\n' >> "$f"
	run --separate-stderr tr-cp "$f"
	expect_status 3
	expect_eq "tr-cp: $f:7: IE record names svc:Z_S, which no span of trace t0 has" "${stderr_lines[0]}"
}

@test "--name picks the model's fields: a model made with --name operation matches by operation" {
	f=$(many)
	tr-infer --name operation "$f" > "$BATS_TEST_TMPDIR/model.tsv"
	one=$(first "$f")
	run bash -c "tr-cp --name operation --model '$BATS_TEST_TMPDIR/model.tsv' --sections '$one' | awk -F'\t' '\$1 == \"C\" { print \$3, \$4, \$5 }'"
	expect_output "$(printf 'c 1046 1100\np 1040 1046\na 1000 1040')"
	run tr-cp --name colour --model "$BATS_TEST_TMPDIR/model.tsv" "$one"
	expect_status 2
}

@test "--name with a field it does not know is a usage error that lists tag:KEY too" {
	f=$(first "$(many)")
	run --separate-stderr tr-cp --name colour "$f"
	expect_status 2
	expect_contains "tr-cp: --name: not a list of service, operation, kind, host, tag:KEY: colour" "$stderr"
	run --separate-stderr tr-temporal --name colour "$f"
	expect_status 2
	expect_contains "tr-temporal: --name: not a list of service, operation, kind, host, tag:KEY: colour" "$stderr"
}

@test "--name tag:KEY names spans by a tag, as tr-infer --name does" {
	f=$(many)
	tr-infer --name service,tag:none "$f" > "$BATS_TEST_TMPDIR/model.tsv"
	run tr-cp --name service,tag:none --model "$BATS_TEST_TMPDIR/model.tsv" --summary service "$(first "$f")"
	expect_status 0
}

# The causes tr-temporal --explain gives for t0, "name delay" a line.
causes() {
	awk '/^  causes:/ { on = 1; next } /^  [a-z]/ { on = 0 }
		on { n = $0; sub(/.* = /, "", n); sub(/ .*/, "", n); print $1, n }'
}

@test "tr-temporal without edges: B, which ended just before C started, is a cause" {
	f=$(first "$(many)")
	run tr-temporal --explain "$f"
	expect_eq "$(printf 'svc:C 54\nsvc:A 40\nsvc:B 5\nfront:P 1')" "$(printf '%s\n' "${lines[@]}" | causes)"
}

@test "tr-temporal with --model: C waits for A, B is no cause, the gap is P's own" {
	f=$(many)
	tr-infer "$f" > "$BATS_TEST_TMPDIR/model.tsv"
	one=$(first "$f")
	run --separate-stderr tr-temporal -v --check --explain --model "$BATS_TEST_TMPDIR/model.tsv" "$one"
	expect_status 0
	expect_eq "$(printf 'svc:C 54\nsvc:A 40\nfront:P 6')" "$(printf '%s\n' "${lines[@]}" | causes)"
	expect_eq "    siblings ordered by tr-infer's happens-before edges: 3 children by the edges, 0 by timing (the edges do not name them)" \
		"${lines[${#lines[@]} - 1]}"
	expect_eq "tr-temporal: happens-before edges: 0 traces by their IE records, 1 by --model $BATS_TEST_TMPDIR/model.tsv: 3 children waited for their model predecessors, 0 the edges do not name kept the timing guess" \
		"${stderr_lines[0]}"
}

@test "tr-temporal with the IE records of tr-infer --reformat: the same causes" {
	f=$(many)
	tr-infer --reformat "$f" > "$BATS_TEST_TMPDIR/ie.tr"
	run tr-temporal -t t0 --explain "$BATS_TEST_TMPDIR/ie.tr"
	expect_eq "$(printf 'svc:C 54\nsvc:A 40\nfront:P 6')" "$(printf '%s\n' "${lines[@]}" | causes)"
}

@test "tr-temporal: a model file that is not one is exit 3; one that matches no span, exit 2" {
	f=$(first "$(many)")
	printf 'from\tto\n' > "$BATS_TEST_TMPDIR/bad.tsv"
	run --separate-stderr tr-temporal --model "$BATS_TEST_TMPDIR/bad.tsv" "$f"
	expect_status 3
	expect_eq "tr-temporal: $BATS_TEST_TMPDIR/bad.tsv:1: not a tr-infer model (its first line is not from, to, s, v, u, q, T)" "$stderr"
	printf 'from\tto\ts\tv\tu\tq\tT\nsvc:Ax_E\tsvc:Cx_S\t20\t0\t0\t0\t20\n' > "$BATS_TEST_TMPDIR/m.tsv"
	run --separate-stderr tr-temporal --model "$BATS_TEST_TMPDIR/m.tsv" "$f"
	expect_status 2
	expect_eq "tr-temporal: --model $BATS_TEST_TMPDIR/m.tsv: no span of the input is named as the model's events (its first: \"svc:Ax\"; the closest span name: \"svc:A\"; --name gives the fields)" "$stderr"
}

# Twenty traces: P calls get (attempt 1), whose timeout log at 1080 starts
# the retry at 1090 while get still runs to 1100, and other, which ends
# just before the retry in even traces and after it in odd ones.
timeouts() {
	awk 'BEGIN { OFS = "\t"; print "#tr/1"
		for (i = 0; i < 20; i++) { t = "t" i; x = i % 2 ? 1095 : 1085
			print "T", t
			print "S", t, "p", "", 1000, 200, "front", "P", "server", "h1"
			print "S", t, "a1", "p", 1000, 100, "svc", "get", "", "h1"
			print "L", t, "a1", 1080, "event=timeout"
			print "S", t, "x", "p", 1010, x - 1010, "svc", "other", "", "h1"
			print "S", t, "r", "p", 1090, 110, "svc", "retry", "", "h1" } }' | mkfix logs.tr
}

@test "--events logs: tr-infer learns that the retry starts after the timeout log" {
	f=$(timeouts)
	run bash -c "tr-infer --events logs '$f' | grep -E '@timeout.svc:retry_S|svc:get_E.svc:retry_S'"
	expect_output "$(printf 'svc:get@timeout\tsvc:retry_S\t20\t0\t0\t0\t20')"
	run bash -c "tr-infer '$f' | grep -c '@timeout'"
	expect_output 0
}

@test "--events logs on the samples: the timeout log of attempt 1 before attempt 2's start" {
	run bash -c "tr-infer --events logs --count pairs -t 's/(s+v) >= 0.8' --name service,operation,tag:retry.attempt '$SAMPLES/jaeger/hotrod.json' | grep '@timeout.driver:GetDriver:2_S'"
	expect_output "$(printf 'driver:GetDriver:1@timeout\tdriver:GetDriver:2_S\t27\t5\t29\t0\t46')"
}

@test "--events logs goes with the model and --reformat only" {
	run tr-infer --events logs --partial /dev/null
	expect_status 2
	expect_eq "tr-infer: --events logs goes with the model and --reformat, not --links, --partial, --merge" "${lines[0]}"
}

@test "tr-cp over an edge from a log event: the retry waits for get, still running, from its start back" {
	f=$(timeouts)
	tr-infer --events logs --reformat "$f" | awk -F'\t' 'NR == 1 || $2 == "t0"' > "$BATS_TEST_TMPDIR/t0.tr"
	run bash -c "tr-cp --sections '$BATS_TEST_TMPDIR/t0.tr' | awk -F'\t' '\$1 == \"C\" { print \$3, \$4, \$5 }'"
	expect_output "$(printf 'r 1090 1200\na1 1000 1090')"
	run bash -c "grep -v '^IE' '$BATS_TEST_TMPDIR/t0.tr' | tr-cp --sections | awk -F'\t' '\$1 == \"C\" { print \$3, \$4, \$5 }'"
	expect_output "$(printf 'r 1090 1200\np 1085 1090\nx 1010 1085\np 1000 1010')"
}

@test "tr-temporal over an edge from a log event: other is no cause" {
	f=$(timeouts)
	tr-infer --events logs --reformat "$f" | awk -F'\t' 'NR == 1 || $2 == "t0"' > "$BATS_TEST_TMPDIR/t0.tr"
	run tr-temporal --check --explain "$BATS_TEST_TMPDIR/t0.tr"
	expect_status 0
	expect_eq "$(printf 'svc:get 0.1\nsvc:retry 0.1')" "$(printf '%s\n' "${lines[@]}" | causes)"
}

@test "over edges, tr-cp tags each span with its slack: B could end 55 µs later, A and C not at all" {
	f=$(many)
	tr-infer "$f" > "$BATS_TEST_TMPDIR/model.tsv"
	one=$(first "$f")
	run bash -c "tr-cp --model '$BATS_TEST_TMPDIR/model.tsv' '$one' | tr-cp --model '$BATS_TEST_TMPDIR/model.tsv' |
		awk -F'\t' '\$1 == \"S\" { printf \"%s\", \$3; for (i = 11; i <= NF; i++) printf \" %s\", \$i; print \"\" }'"
	expect_output "$(printf 'p cp.self=6 cp.slack=0\na cp.self=40 cp.slack=0\nb cp.self=0 cp.slack=55\nc cp.self=54 cp.slack=0')"
	run bash -c "tr-cp '$one' | grep -c 'cp.slack=' || true"
	expect_output 0
}

@test "slack over a log event's edge: get may end as late as its parent's last child, the retry waits for its log only" {
	f=$(timeouts)
	tr-infer --events logs --reformat "$f" | awk -F'\t' 'NR == 1 || $2 == "t0"' > "$BATS_TEST_TMPDIR/t0.tr"
	run bash -c "tr-cp '$BATS_TEST_TMPDIR/t0.tr' | awk -F'\t' '\$1 == \"S\" { print \$3, \$NF }'"
	expect_output "$(printf 'p cp.slack=0\na1 cp.slack=100\nx cp.slack=115\nr cp.slack=0')"
}
