#!/usr/bin/env bats
# tr-temporal: temporal provenance (Zeno). Fixtures are in µs; the issue's
# acceptance cases are in ms.

load helper
bats_require_minimum_version 1.5.0

TAB=$'\t'

# S record: trace span parent start dur service op kind host [tags...]
s() {
	local IFS="$TAB"
	printf 'S\t%s\n' "$*"
}

case1() {
	{
		printf '#tr/1\nT\tt1\n'
		s t1 a '' 0 5000 X A server x
		s t1 b a 0 4000 X B internal x
		s t1 c b 0 2000 X C internal x
	} | mkfix case1.tr
}

# Zeno Fig. 16: a join where critical-path analysis blames the wrong span.
case2() {
	{
		printf '#tr/1\nT\tt2\n'
		s t2 a '' 0 7000 svcx A server x
		s t2 c a 0 2000 svcx C internal x
		s t2 b a 2000 2000 svcx B internal x
		s t2 ce a 2000 4000 svcx callE client x
		s t2 e ce 2500 3000 svcy E server y queue.wait_us=0
	} | mkfix case2.tr
}

# Fig. 5d: an off-path cause in another trace, through a blocking receive.
case3() {
	{
		printf '#tr/1\nT\tt1\n'
		s t1 a '' 0 8000 app A server x
		s t1 b a 0 4000 app B internal x
		s t1 w a 4000 3000 app awaitCfg consumer x messaging.operation.type=receive
		printf 'R\tt1\tw\tfollows_from\tt2\tf\n'
		printf 'T\tt2\n'
		s t2 f '' 4000 2500 cfg F producer y
	} | mkfix case3.tr
}

# The Z1 incident: the storage read arrived at 1 ms and waited for 12 writes.
request_c() {
	printf 'T\tc\n'
	s c comp '' 0 14000 compute compute server c
	s c cl comp 0 13500 compute storage.read client c
	s c sv cl 12000 1000 storage storage.read server b queue.wait_us=11000
}

maintenance() {
	local k
	for k in $(seq 1 12); do
		printf 'T\tm%d\n' "$k"
		s "m$k" mc '' $(((k - 1) * 1000)) 1000 maintenance storage.write client m
		s "m$k" ms mc $(((k - 1) * 1000)) 1000 storage storage.write server b
	done
}

case4() {
	{ printf '#tr/1\n'; request_c; maintenance; } | mkfix case4.tr
}

case5() {
	{ printf '#tr/1\n'; request_c; } | mkfix case5.tr
}

# Value of tag $2 on span $1 of the line-format output in $output.
tag() {
	printf '%s\n' "$output" | awk -F'\t' -v id="$1" -v key="$2" '
		$1 == "S" && $3 == id { for (i = 11; i <= NF; i++) if (index($i, key "=") == 1) print substr($i, length(key) + 2) }'
}

# The self time of cause $2 (span id, or trace/span) in role $3 of trace $1.
dself() {
	printf '%s\n' "$output" | awk -F'\t' -v t="$1" -v id="$2" -v role="$3" '
		$1 == "D" && $2 == t && ($4 == id || $3 "/" $4 == id) && $5 == role { print $6 }'
}

# Invariants on line-format output: every span of an analysed trace is
# tagged, and the D records of each trace sum to its root's duration.
invariants() {
	printf '%s\n' "$1" | awk -F'\t' '
		$1 == "S" {
			d = ""; sf = ""
			for (i = 11; i <= NF; i++) {
				if ($i ~ /^tp\.delay=/) d = substr($i, 10)
				if ($i ~ /^tp\.self=/) sf = substr($i, 9)
			}
			if (d == "" || sf == "") { print "untagged span " $3; bad = 1 }
			if (sf + 0 > d + 0) { print "self > delay on " $3; bad = 1 }
			if ($4 == "" && !($2 in root)) root[$2] = $6
		}
		$1 == "D" { sum[$2] += $6; seen[$2] = 1 }
		END {
			for (t in root) if (sum[t] != root[t]) { print "trace " t ": D sum " sum[t] " != " root[t]; bad = 1 }
			exit bad
		}'
}

@test "-h prints usage on stdout and exits 0; --version names the tool" {
	run tr-temporal -h
	expect_eq 0 "$status" status
	expect_like "usage:*" "$output"
	run tr-temporal --version
	expect_eq 0 "$status" status
	expect_like "tr-temporal \(tr\) *" "$output"
}

@test "unknown option, bad window, bad capacity and bad format are usage errors (exit 2)" {
	run tr-temporal --no-such-option
	expect_eq 2 "$status" status
	run tr-temporal --window 0 /dev/null
	expect_eq 2 "$status" status
	run tr-temporal --capacity storage@b /dev/null
	expect_eq 2 "$status" status
	run tr-temporal --capacity storage@b=0 /dev/null
	expect_eq 2 "$status" status
	run tr-temporal -f xml /dev/null
	expect_eq 2 "$status" status
}

@test "case 1, linear chain: delay A 5 B 4 C 2 ms, self A 1 B 2 C 2 ms" {
	f=$(case1)
	run tr-temporal --check "$f"
	expect_eq 0 "$status" status
	expect_eq "5000 4000 2000" "$(tag a tp.delay) $(tag b tp.delay) $(tag c tp.delay)"
	expect_eq "1000 2000 2000" "$(tag a tp.self) $(tag b tp.self) $(tag c tp.self)"
	invariants "$output"
}

@test "case 2, join: preconditions share the delay in the order they were satisfied" {
	f=$(case2)
	run tr-temporal --check "$f"
	expect_eq 0 "$status" status
	expect_eq 2000 "$(dself t2 c onpath)"
	expect_eq 2000 "$(dself t2 b onpath)"
	# a critical-path answer would give E 3 ms and B nothing
	expect_eq 1500 "$(dself t2 e onpath)"
	expect_eq 500 "$(dself t2 ce transit)"
	expect_eq 1000 "$(dself t2 a onpath)"
	invariants "$output"
}

@test "case 3, off-path producer in another trace behind a blocking receive" {
	f=$(case3)
	run tr-temporal --check "$f"
	expect_eq 0 "$status" status
	expect_eq 4000 "$(dself t1 b onpath)"
	printf '%s\n' "$output" | grep -q "^D${TAB}t1${TAB}t2${TAB}f${TAB}offpath${TAB}2500${TAB}"
	expect_eq 500 "$(dself t1 w transit)"
	expect_eq 1000 "$(dself t1 a onpath)"
	expect_eq 0 "$(tag w tp.self)"
	invariants "$output"
}

@test "case 3 without the producer's trace: the receive's wait is its own time" {
	f=$(case3)
	grep -v "${TAB}t2${TAB}" "$f" | grep -v "^T${TAB}t2" > "$BATS_TEST_TMPDIR/alone.tr"
	run tr-temporal --check "$BATS_TEST_TMPDIR/alone.tr"
	expect_eq 0 "$status" status
	expect_eq 3000 "$(dself t1 w onpath)"
	invariants "$output"
}

@test "a consumer that processes a message starts at its arrival: no wait for the producer" {
	f=$(case3)
	sed 's/messaging.operation.type=receive/messaging.operation.type=process/' "$f" > "$BATS_TEST_TMPDIR/process.tr"
	run tr-temporal --check "$BATS_TEST_TMPDIR/process.tr"
	expect_eq 0 "$status" status
	# F ended after awaitCfg started: it cannot have delayed it
	expect_eq 3000 "$(dself t1 w onpath)"
	expect_eq "" "$(dself t1 t2/f offpath)"
	invariants "$output"
}

@test "case 4, queueing: 11 writes of other traces take 11 ms as one cause x 11" {
	f=$(case4)
	run tr-temporal --check "$f"
	expect_eq 0 "$status" status
	invariants "$output"
	expect_num 11 "$(printf '%s\n' "$output" | awk -F'\t' '$1 == "D" && $2 == "c" && $5 == "sequencing"' | wc -l)"
	expect_eq "" "$(dself c m1/ms sequencing)" # ended at the arrival: pruned
	expect_eq 1000 "$(dself c m2/ms sequencing)"
	expect_eq 1000 "$(dself c m12/ms sequencing)"
	expect_eq 1000 "$(dself c sv onpath)"
	expect_eq 500 "$(dself c comp onpath)"
	printf '%s\n' "$output" | grep -q "^D${TAB}c${TAB}c${TAB}sv${TAB}transit${TAB}1000${TAB}1000${TAB}request "
	printf '%s\n' "$output" | grep -q "^D${TAB}c${TAB}c${TAB}cl${TAB}transit${TAB}500${TAB}"
	run tr-temporal --explain -t c "$f"
	expect_eq 0 "$status" status
	expect_contains '11 × maintenance:storage.write on storage@b = 11.0 ms (78.6%)' "$output"
}

@test "-f json: the explained causes as an array of objects, durations in µs" {
	f=$(case4)
	run tr-temporal -f json -t c "$f"
	expect_eq 0 "$status" status
	expect_num 5 "$(printf '%s\n' "$output" | jq length)"
	expect_eq '["c","compute:compute",14000,"sequencing",11,11000]' \
		"$(printf '%s\n' "$output" | jq -c '.[0] | [.trace, .root, .duration, .role, .count, .self]')"
	expect_num 14000 "$(printf '%s\n' "$output" | jq '[.[].self] | add')"
	run tr-temporal -f json -t c --trace-file /dev/null "$(case1)"
	expect_eq 2 "$status" status
	expect_eq "[]" "$(printf '%s\n' "$output" | grep -v '^tr-temporal:')"
}

@test "-f csv --units ms: a header, one row per cause, durations in ms with µs decimals" {
	f=$(case4)
	run tr-temporal -f csv --units ms -t c "$f"
	expect_eq 0 "$status" status
	expect_eq "trace,root,duration,cause,role,count,self,share,cause_trace,cause_root" "${lines[0]}"
	expect_num 6 "${#lines[@]}"
	# a cause in other traces names one of them and its root operation
	expect_eq "c,compute:compute,14,maintenance:storage.write on storage@b,sequencing,11,11,78.57,m12,maintenance:storage.write" "${lines[1]}"
	printf '%s\n' "$output" | grep -qx "c,compute:compute,14,compute:compute on compute@c,onpath,1,0.5,3.57,c,compute:compute"
}

@test "--units: explain in µs or auto; auto refused with csv and json; the line format's tags stay µs" {
	f=$(case4)
	run tr-temporal --explain --units us -t c "$f"
	expect_eq 0 "$status" status
	expect_contains 'on storage@b = 11000 µs (78.6%)' "$output"
	run tr-temporal --explain --units auto -t c "$f"
	expect_contains 'trace c: compute:compute, 14 ms' "$output"
	expect_contains 'compute:compute on compute@c = 500 µs (3.6%)' "$output"
	run tr-temporal -f json --units auto "$f"
	expect_eq 2 "$status" status
	expect_like "tr-temporal: --units auto *" "${lines[0]}"
	run tr-temporal --units ms "$f"
	expect_eq 2 "$status" status
	run tr-temporal --explain --units hours "$f"
	expect_eq 2 "$status" status
	expect_contains 'us, ms, s or auto, not "hours"' "${lines[0]}"
}

@test "case 5, nothing in the input explains the queue: unexplained@storage@b" {
	f=$(case5)
	run tr-temporal --check "$f"
	expect_eq 0 "$status" status
	invariants "$output"
	printf '%s\n' "$output" | grep -q "^D${TAB}c${TAB}${TAB}${TAB}unexplained${TAB}11000${TAB}11000${TAB}unexplained@storage@b$"
}

@test "--check with no trace analysed fails, saying why; --allow-empty passes it" {
	printf '#tr/1\n' | mkfix empty.tr >/dev/null
	# no trace in the input at all: bad input, as in every tool
	run tr-temporal --check "$BATS_TEST_TMPDIR/empty.tr"
	expect_eq 3 "$status" status
	expect_output "tr-temporal: $BATS_TEST_TMPDIR/empty.tr: no trace in the input (--allow-empty accepts that)"
	run tr-temporal --check </dev/null
	expect_eq 3 "$status" status
	f=$(case1)
	# an id no trace has is a usage error (exit 2), whatever --check found
	run tr-temporal --check -t nosuch "$f"
	expect_eq 2 "$status" status
	expect_contains 'tr-temporal: --check: none of the 1 traces read was analysed' "$output"
	expect_contains 'tr-temporal: --trace nosuch: no trace has this id' "$output"
	# --allow-empty lets nothing analysed pass, not an id no trace has
	run tr-temporal --check --allow-empty -t nosuch "$f"
	expect_eq 2 "$status" status
	expect_like "*tr-temporal: --trace nosuch: no trace has this id" "$output"
	run tr-temporal --check --allow-empty "$BATS_TEST_TMPDIR/empty.tr"
	expect_eq 0 "$status" status
	# nor without --check: nothing read answers nothing
	run tr-temporal "$BATS_TEST_TMPDIR/empty.tr"
	expect_eq 3 "$status" status
	run tr-temporal --allow-empty "$BATS_TEST_TMPDIR/empty.tr"
	expect_eq 0 "$status" status
}

@test "blockers that come later in the input are found within the window" {
	f=$({ printf '#tr/1\n'; maintenance; request_c; } | mkfix late.tr)
	run tr-temporal --check -t c "$f"
	expect_eq 1000 "$(dself c m12/ms sequencing)"
	run tr-temporal --check -t c --window 1 "$f"
	expect_eq 0 "$status" status
	expect_eq "" "$(dself c m12/ms sequencing)"
	printf '%s\n' "$output" | grep -q "unexplained${TAB}11000"
}

@test "--trace-file names the traces to query; an id no trace has fails" {
	f=$(case1)
	printf '# ids\nt1\n' > "$BATS_TEST_TMPDIR/ids"
	run tr-temporal --explain --trace-file "$BATS_TEST_TMPDIR/ids" "$f"
	expect_eq 0 "$status" status
	expect_output "$(tr-temporal --explain -t t1 "$f")"
	expect_contains 't1' "$output"
	run tr-temporal --explain -t t1 -t t11 "$f"
	expect_eq 2 "$status" status
	expect_like "*tr-temporal: --trace t11: no trace has this id" "$output"
}

@test "--trace queries only the named trace; the others pass through untouched" {
	f=$(case4)
	run tr-temporal -t c "$f"
	expect_eq 0 "$status" status
	expect_eq c "$(printf '%s\n' "$output" | awk -F'\t' '$1 == "D" { print $2 }' | sort -u)"
	expect_num 3 "$(printf '%s\n' "$output" | grep -c "tp\.")"
	diff <(printf '%s\n' "$output" | grep "^[TSRL]${TAB}m7${TAB}") <(grep "^[TSRL]${TAB}m7${TAB}" "$f")
}

@test "a second run replaces its own tags and D records" {
	f=$(case4)
	tr-temporal "$f" > "$BATS_TEST_TMPDIR/once"
	tr-temporal "$BATS_TEST_TMPDIR/once" > "$BATS_TEST_TMPDIR/twice"
	cmp "$BATS_TEST_TMPDIR/once" "$BATS_TEST_TMPDIR/twice"
}

@test "records, tags and comments it does not own pass through in place" {
	f=$({
		printf '#tr/1\n# a comment\nT\tt1\n'
		s t1 a '' 0 5000 X A server x cp.crit=1 tp.delay=99
		printf 'L\tt1\ta\t10\tevent=hello\nZ\tt1\tfuture\trecord\n'
		printf 'T\tt9\n# between\n'
		s t9 r '' 0 10 Y R server y
	} | mkfix pass.tr)
	run tr-temporal "$f"
	expect_eq 0 "$status" status
	expect_eq "# a comment" "$(printf '%s\n' "$output" | sed -n 2p)"
	printf '%s\n' "$output" | grep -q "^Z${TAB}t1${TAB}future${TAB}record$"
	printf '%s\n' "$output" | grep -q "^L${TAB}t1${TAB}a${TAB}10${TAB}event=hello$"
	expect_eq 1 "$(tag a cp.crit)"
	expect_eq 5000 "$(tag a tp.delay)"
	# the comment stays between the two traces
	printf '%s\n' "$output" | awk '/^# between/ { c = NR } /^T\tt9/ { t = NR } /^S\tt1/ { s = NR } END { exit !(s < c && c < t) }'
}

@test "bad input: message with file and line, exit 3, good traces still out; -k goes on" {
	f=$({
		printf '#tr/1\n'
		request_c
		printf 'T\tbad\n'
		s bad x '' notanumber 5 X A server x
		printf 'T\tlater\n'
		s later y '' 0 10 X B server x
	} | mkfix bad.tr)
	run tr-temporal "$f"
	expect_eq 3 "$status" status
	expect_contains "tr-temporal: $f:7: start: not an integer" "$output"
	printf '%s\n' "$output" | grep -q "^S${TAB}c${TAB}comp${TAB}.*tp.delay=14000"
	run tr-temporal -k "$f"
	expect_eq 3 "$status" status
	printf '%s\n' "$output" | grep -q "^S${TAB}later${TAB}y${TAB}.*tp.delay=10"
}

@test "a trace whose root has no time passes through without tags" {
	f=$({ printf '#tr/1\nT\tn\n'; s n a '' '' '' X A server x tr.no_time=true; } | mkfix notime.tr)
	run tr-temporal -q "$f"
	expect_eq 0 "$status" status
	expect_eq "" "$(tag a tp.delay)"
	run tr-temporal "$f"
	expect_contains "tr-temporal: $f:2: trace n: its root span has no time: not analysed" "$output"
}

@test "--capacity: segments that find every worker busy are counted" {
	f=$({
		printf '#tr/1\n'
		request_c
		maintenance
		maintenance | sed 's/\tm\([0-9]*\)\t/\tn\1\t/; s/^T\tm/T\tn/'
	} | mkfix lanes.tr)
	run tr-temporal -v --check "$f"
	expect_eq 0 "$status" status
	expect_lacks 'found every worker busy' "$output"
	run tr-temporal -v --check --capacity storage@b=1 "$f"
	expect_eq 0 "$status" status
	expect_contains '12 segments found every worker busy' "$output"
	invariants "$(printf '%s\n' "$output" | grep -v '^tr-temporal:')"
}

@test "--resource-key splits a host into resources: no queue behind another thread" {
	f=$({ printf '#tr/1\n'; request_c | sed 's/queue.wait_us=11000/queue.wait_us=11000\tthread=t1/'; maintenance | sed 's/\(storage.write\tserver\tb\)$/\1\tthread=t2/'; } | mkfix threads.tr)
	run tr-temporal --check -t c "$f"
	expect_eq 1000 "$(dself c m12/ms sequencing)"
	run tr-temporal --check -t c -r thread "$f"
	expect_eq 0 "$status" status
	expect_eq "" "$(dself c m12/ms sequencing)"
	printf '%s\n' "$output" | grep -q "unexplained@storage@b/t1$"
	# a key no span has refines nothing: an error, with the closest key
	run tr-temporal --check -t c -r thraed "$f"
	expect_eq 2 "$status" status
	expect_contains 'tr-temporal: -r thraed: no span has a tag thraed (did you mean thread?)' "$output"
}

@test "--dot draws the folded provenance with dashed sequencing edges" {
	f=$(case4)
	run tr-temporal --dot -t c "$f"
	expect_eq 0 "$status" status
	expect_like "digraph *" "${lines[0]}"
	expect_contains '11 × maintenance:storage.write on storage@b' "$output"
	printf '%s\n' "$output" | grep -q 'style=dashed'
	# the root's node: its delay in a readable unit, all of the trace's
	expect_contains '\ndelay ' "$output"
	expect_contains ' · 100 %, self ' "$output"
	if command -v dot >/dev/null; then
		printf '%s\n' "$output" | dot -Tsvg >/dev/null
	fi
}

@test "-o writes the file and nothing on stdout" {
	f=$(case1)
	run tr-temporal -o "$BATS_TEST_TMPDIR/out.tr" "$f"
	expect_eq 0 "$status" status
	expect_empty "$output"
	grep -q "tp.delay=5000" "$BATS_TEST_TMPDIR/out.tr"
}

@test "case 6, simulated samples: the slowest trace names the injected batch job" {
	command -v tr-ingest >/dev/null || skip "tr-ingest not built yet"
	[ -f "$SAMPLES/jaeger/hotrod.json" ] || skip "no samples"
	# the samples record no queue waits (trsim's default, as real exports):
	# the queue behind the batch job is inferred
	tr-ingest "$SAMPLES/jaeger/hotrod.json" > "$BATS_TEST_TMPDIR/h.tr"
	run tr-temporal --check "$BATS_TEST_TMPDIR/h.tr"
	expect_eq 0 "$status" status
	invariants "$output"
	slow=$(printf '%s\n' "$output" | awk -F'\t' '$1 == "S" && $4 == "" && $7 == "frontend" { print $6, $2 }' | sort -n | tail -1 | cut -d' ' -f2)
	run tr-temporal --explain -t "$slow" "$BATS_TEST_TMPDIR/h.tr"
	expect_eq 0 "$status" status
	# the first cause (after the summary line) is the off-path ReportJob query holding mysql
	printf '%s\n' "$output" | sed -n 4p | grep -q "batch:SQL SELECT report on mysql@.*\[sequencing\]"
}

@test "conformance traces: every invariant holds on third-party data" {
	need_conformance
	command -v tr-ingest >/dev/null || skip "tr-ingest not built yet"
	for f in "$CONF"/jaeger-ui-critical-path/test*.json "$CONF"/crisp/*.json "$CONF"/zipkin/*.json "$CONF"/jaeger/*.json; do
		case "$f" in *expected*) continue ;; esac
		tr-ingest -k "$f" > "$BATS_TEST_TMPDIR/c.tr" 2>/dev/null || true
		run tr-temporal -q --check "$BATS_TEST_TMPDIR/c.tr"
		expect_status 0 || { echo "$f: $output"; false; }
		invariants "$output" || { echo "$f"; false; }
	done
}

@test "an enqueue log gives the arrival when there is no queue.wait_us tag" {
	f=$({ printf '#tr/1\n'; request_c | sed 's/\tqueue.wait_us=11000//'; printf 'L\tc\tsv\t1000\tevent=enqueue\n'; } | mkfix enqueue.tr)
	run tr-temporal --check "$f"
	expect_eq 0 "$status" status
	expect_eq 1000 "$(dself c sv transit)"
	expect_eq 11000 "$(printf '%s\n' "$output" | awk -F'\t' '$1 == "D" && $5 == "unexplained" { print $6 }')"
	# without either, the request is taken to need what its response needed
	# (0.5 ms): the rest of the wait, on an idle storage, is unexplained
	grep -v '^L' "$f" > "$BATS_TEST_TMPDIR/none.tr"
	run tr-temporal --check "$BATS_TEST_TMPDIR/none.tr"
	expect_eq 500 "$(dself c sv transit)"
	expect_eq 11500 "$(printf '%s\n' "$output" | awk -F'\t' '$1 == "D" && $5 == "unexplained" { print $6 }')"
	# --no-infer-queues: the server started work on arrival, the gap is transit
	run tr-temporal --check --no-infer-queues "$BATS_TEST_TMPDIR/none.tr"
	expect_eq 12000 "$(dself c sv transit)"
}

@test "a 100,000-deep chain of spans is analysed without recursion" {
	awk 'BEGIN { OFS = "\t"; print "#tr/1"; print "T", "deep"; n = 100000
		for (i = 0; i < n; i++) print "S", "deep", "s" i, (i ? "s" (i - 1) : ""), i, 2 * (n - i), "svc", "op", "internal", "h" }' > "$BATS_TEST_TMPDIR/deep.tr"
	run tr-temporal --check "$BATS_TEST_TMPDIR/deep.tr"
	expect_eq 0 "$status" status
	invariants "$output"
	expect_eq "200000 2" "$(tag s0 tp.delay) $(tag s99999 tp.delay)"
	run tr-temporal --explain "$BATS_TEST_TMPDIR/deep.tr"
	expect_eq 0 "$status" status
	expect_contains '[depth 99999] svc:op on svc@h = 2 µs' "$output"
}

@test "the clock pass hides no bad input: a directory as input is said in one line, exit 3" {
	mkdir "$BATS_TEST_TMPDIR/dir"
	run --separate-stderr tr-temporal "$BATS_TEST_TMPDIR/dir"
	expect_eq 3 "$status" status
	expect_eq "tr-temporal: $BATS_TEST_TMPDIR/dir: is a directory, not a file" "$stderr"
	run --separate-stderr tr-infer --reformat "$BATS_TEST_TMPDIR/dir"
	expect_eq 3 "$status" status
	expect_eq "tr-infer: $BATS_TEST_TMPDIR/dir: is a directory, not a file" "$stderr"
}

@test "the clock pass is quiet: a bad trace is told once, by the main pass" {
	printf 'T\tb\nS\tb\tx\t\t1x0\t50\ts\to\t\t\nT\tg\nS\tg\ta\t\t1\t5\ts\to\tserver\th\n' > "$BATS_TEST_TMPDIR/in.tr"
	run --separate-stderr tr-temporal -k "$BATS_TEST_TMPDIR/in.tr"
	expect_eq 3 "$status" status
	expect_num 1 "$(printf '%s\n' "$stderr" | grep -c 'start: not an integer')"
	run --separate-stderr tr-infer -k --reformat "$BATS_TEST_TMPDIR/in.tr"
	expect_num 1 "$(printf '%s\n' "$stderr" | grep -c 'start: not an integer')"
}

@test "--explain, csv and json with traces but none analysed: nothing to explain, exit 3; --allow-empty passes" {
	printf '#tr/1\nT\tt1\nS\tt1\ta\t\t\t\ts\to\tserver\th\n' > "$BATS_TEST_TMPDIR/untimed.tr"
	for f in --explain "-f csv" "-f json"; do
		run --separate-stderr tr-temporal $f "$BATS_TEST_TMPDIR/untimed.tr"
		expect_status 3 || { echo "$f: $status"; false; }
		expect_like "*tr-temporal: 1 traces read, none analysed \(no timed root\): nothing to explain" "$stderr"
		run tr-temporal -q $f --allow-empty "$BATS_TEST_TMPDIR/untimed.tr"
		expect_status 0
		expect_lacks 'nothing to explain' "$output"
	done
	# the line format passes such a trace through: not an error
	run tr-temporal -q "$BATS_TEST_TMPDIR/untimed.tr"
	expect_eq 0 "$status" status
}

@test "-v tells the RPCs that disagree with the offsets a cycle of hosts closed on" {
	{
		echo '#tr/1'
		n=0
		for r in "a b 0 1000 300 400" "a b 2000 1000 2300 400" "b c 0 1000 300 400" \
			"b c 2000 1000 2300 400" "a c 0 1000 5000 500"; do
			set -- $r
			n=$((n + 1))
			printf 'T\tr%d\nS\tr%d\tc\t\t%d\t%d\tsvc\tcall\tclient\t%s\nS\tr%d\ts\tc\t%d\t%d\tsvc\tserve\tserver\t%s\n' \
				$n $n "$3" "$4" "$1" $n "$5" "$6" "$2"
		done
	} > "$BATS_TEST_TMPDIR/cycle.tr"
	run --separate-stderr tr-temporal -v "$BATS_TEST_TMPDIR/cycle.tr"
	expect_eq 0 "$status" status
	expect_contains 'tr-temporal: clock of a: 1 RPCs disagree (transit varies, or a clock drifts)' "$stderr"
	expect_contains 'tr-temporal: clock of c: 1 RPCs disagree (transit varies, or a clock drifts)' "$stderr"
	expect_unlike "*clock of b: *disagree*" "$stderr"
}

@test "a root with 80,000 distinct children explains and draws in linear time" {
	awk 'BEGIN { OFS = "\t"; print "#tr/1"; print "T", "wide"; n = 80000
		print "S", "wide", "r", "", 0, 10 * n + 10, "svc", "root", "server", "h"
		for (i = 0; i < n; i++) print "S", "wide", "c" i, "r", 10 * i + 5, 5, "svc", "op" i, "internal", "h" }' \
		> "$BATS_TEST_TMPDIR/wide.tr"
	run timeout 5 tr-temporal --explain "$BATS_TEST_TMPDIR/wide.tr"
	expect_eq 0 "$status" status
	expect_num 160000 "$(printf '%s\n' "$output" | grep -c 'svc:op[0-9]* on svc@h = 5 µs')"
	run timeout 5 tr-temporal --dot --min-share 0 "$BATS_TEST_TMPDIR/wide.tr"
	expect_eq 0 "$status" status
	expect_num 80000 "$(printf '%s\n' "$output" | grep -c 'svc:op[0-9]* on svc@h.ndelay')"
}
