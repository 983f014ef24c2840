#!/usr/bin/env bats
# tr-cp --suspects: the services most likely to have caused an incident,
# on hand-made incidents (tests/suspects_gen.awk), each recorded with span
# kinds and again without (kinds inferred from process boundaries).

load helper
bats_require_minimum_version 1.5.0

GEN="$BATS_TEST_DIRNAME/suspects_gen.awk"

# gen NAME VAR=VALUE...: a window of traces from the generator.
gen() {
	local name=$1 args=()
	shift
	for a in "$@"; do args+=(-v "$a"); done
	awk "${args[@]}" -f "$GEN" > "$BATS_TEST_TMPDIR/$name"
	printf '%s\n' "$BATS_TEST_TMPDIR/$name"
}

# The ranking's column COL of row ROW (1: the first suspect).
cell() {
	awk -F'\t' -v row="$1" -v col="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		NR == row + 1 { print $c[col] }'
}

# suspects KINDS BASEVARS -- INCVARS: run the ranking, stdout in $output.
rank() {
	local kinds=$1 base=() inc=()
	shift
	while [ "$1" != "--" ]; do base+=("$1"); shift; done
	shift
	inc=("$@")
	local b i
	b=$(gen base.tr seed=1 kinds="$kinds" "${base[@]}")
	i=$(gen inc.tr seed=2 kinds="$kinds" "${inc[@]}")
	run tr-cp -q --suspects --baseline "$b" "$i"
	expect_status 0
}

network_delay() {
	rank "$1" -- net_b=20
	expect_eq B "$(cell 1 service <<< "$output")" "first suspect"
	expect_eq "calls into it slower" "$(cell 1 evidence <<< "$output")" "its evidence"
}

@test "suspects: a network delay into B names B, calls into it slower (kinds recorded)" {
	network_delay 1
}

@test "suspects: a network delay into B names B, calls into it slower (no kinds)" {
	network_delay 0
}

starved_caller() {
	rank "$1" -- starve_a=3 starve_gap=5
	expect_eq A "$(cell 1 service <<< "$output")" "first suspect"
	expect_eq "callee slower, caller starved" "$(cell 1 evidence <<< "$output")" "its evidence"
}

@test "suspects: a CPU-starved caller names the caller, not its callees (kinds recorded)" {
	starved_caller 1
}

@test "suspects: a CPU-starved caller names the caller, not its callees (no kinds)" {
	starved_caller 0
}

wrapper_span() {
	rank "$1" wrapper=1 -- wrapper=1 x_slow=200
	expect_eq X "$(cell 1 service <<< "$output")" "first suspect"
	if grep -q "^[0-9]*	G	" <<< "$output"; then
		echo "the gateway, whose handler span only waits, is named: $output" >&2
		return 1
	fi
}

@test "suspects: a wrapper span beside the gateway's call is waiting, the callee is named (kinds recorded)" {
	wrapper_span 1
}

@test "suspects: a wrapper span beside the gateway's call is waiting, the callee is named (no kinds)" {
	wrapper_span 0
}

@test "suspects: a handler span with a child of its own is work, not a wrapper: the gateway is named" {
	# The same windows with the handler span given a child: it no longer
	# only waits, so its growth is the gateway's own work. (This is what
	# every wrapper would be taken for without the rule.)
	local f
	for f in base inc; do
		if [ $f = base ]; then gen $f.tr seed=1 kinds=1 wrapper=1 > /dev/null
		else gen $f.tr seed=2 kinds=1 wrapper=1 x_slow=200 > /dev/null; fi
		awk -F'\t' -v OFS='\t' '{ print } $1 == "S" && $3 == "Gw" { $3 = "Gw.k"; $4 = "Gw"; $6 = 1; print }' \
			"$BATS_TEST_TMPDIR/$f.tr" > "$BATS_TEST_TMPDIR/$f-kid.tr"
	done
	run tr-cp -q --suspects --baseline "$BATS_TEST_TMPDIR/base-kid.tr" "$BATS_TEST_TMPDIR/inc-kid.tr"
	expect_status 0
	grep -q "^[0-9]*	G	" <<< "$output" || { echo "G not named: $output" >&2; return 1; }
}

span_loss() {
	b=$(gen base.tr seed=1 kinds="$1")
	i=$(gen inc.tr seed=2 kinds="$1" loss=0.2)
	run tr-cp --suspects --baseline "$b" "$i"
	expect_status 0
	expect_eq "rank	service	score	evidence	delay_ms	errors_before	errors_after	confidence" \
		"$(head -n 1 <<< "$output")" "table"
	expect_eq 1 "$(grep -c '^rank' <<< "$output")" "rows"
	grep -q 'nothing stands out' <<< "$output" || { echo "no verdict: $output" >&2; return 1; }
	grep -q 'differ in span completeness' <<< "$output" || { echo "no warning: $output" >&2; return 1; }
}

@test "suspects: 20% of spans lost, latencies unchanged: nothing stands out, with a completeness warning (kinds recorded)" {
	span_loss 1
}

@test "suspects: 20% of spans lost, latencies unchanged: nothing stands out, with a completeness warning (no kinds)" {
	span_loss 0
}

new_service() {
	rank "$1" -- newsvc=1
	expect_eq N "$(cell 1 service <<< "$output")" "first suspect"
	expect_eq "new service" "$(cell 1 evidence <<< "$output")" "its evidence"
}

@test "suspects: a slow service new in the incident is named (kinds recorded)" {
	new_service 1
}

@test "suspects: a slow service new in the incident is named (no kinds)" {
	new_service 0
}

unreachable() {
	rank "$1" -- unreach=0.5
	expect_eq D "$(cell 1 service <<< "$output")" "first suspect"
	expect_eq "errors rose, unreachable" "$(cell 1 evidence <<< "$output")" "its evidence"
}

@test "suspects: failed calls with no server span name the callee, unreachable (kinds recorded)" {
	unreachable 1
}

@test "suspects: failed calls with no server span name the callee, unreachable (no kinds)" {
	unreachable 0
}

@test "suspects: the baseline given as the incident: nothing stands out" {
	b=$(gen base.tr seed=1 kinds=1 net_b=20)
	run tr-cp --suspects --baseline "$b" "$b"
	expect_status 0
	expect_eq 1 "$(grep -c '^[0-9r]' <<< "$output")" "rows"
	grep -q 'nothing stands out' <<< "$output"
}

@test "suspects: two fault-free windows: nothing stands out" {
	b=$(gen base.tr seed=1 kinds=0 n=200)
	i=$(gen inc.tr seed=7 kinds=0 n=200)
	run tr-cp -q --suspects --baseline "$b" "$i"
	expect_status 0
	expect_eq "rank	service	score	evidence	delay_ms	errors_before	errors_after	confidence" "$output" "output"
}

@test "suspects: -f csv and -f json name the same columns" {
	b=$(gen base.tr seed=1)
	i=$(gen inc.tr seed=2 net_b=20)
	run tr-cp -q --suspects -f csv --baseline "$b" "$i"
	expect_status 0
	expect_eq "rank,service,score,evidence,delay_ms,errors_before,errors_after,confidence" \
		"$(head -n 1 <<< "$output")" "csv header"
	run tr-cp -q --suspects -f json --baseline "$b" "$i"
	expect_status 0
	expect_eq B "$(jq -r '.[0].service' <<< "$output")" "json first service"
	expect_eq 1 "$(jq -r '.[0].rank' <<< "$output")" "json rank"
}

@test "suspects: --units us gives the delay column in µs" {
	b=$(gen base.tr seed=1)
	i=$(gen inc.tr seed=2 net_b=20)
	run tr-cp -q --suspects --units us --baseline "$b" "$i"
	expect_status 0
	expect_eq "delay_us" "$(head -n 1 <<< "$output" | cut -f5)" "header"
}

@test "suspects: -v states the assumptions and counts inferred kinds" {
	b=$(gen base.tr seed=1 kinds=0)
	i=$(gen inc.tr seed=2 kinds=0 net_b=20)
	run tr-cp -v --suspects --baseline "$b" "$i"
	expect_status 0
	grep -q 'span kinds inferred from process boundaries' <<< "$output" || { echo "$output" >&2; return 1; }
	grep -q 'likely cause: B (calls into it slower' <<< "$output" || { echo "$output" >&2; return 1; }
}

@test "suspects: without --baseline is a usage error" {
	b=$(gen base.tr seed=1)
	run tr-cp --suspects "$b"
	expect_eq 2 "$status" "status"
	grep -q -- '--suspects needs --baseline' <<< "$output"
}

@test "suspects: an empty baseline exits 3 naming it" {
	b=$(gen base.tr seed=1)
	: > "$BATS_TEST_TMPDIR/empty.tr"
	run tr-cp --suspects --baseline "$BATS_TEST_TMPDIR/empty.tr" "$b"
	expect_eq 3 "$status" "status"
	grep -q 'empty.tr' <<< "$output" || { echo "$output" >&2; return 1; }
}

@test "suspects: a foreign baseline exits 3 naming it" {
	b=$(gen base.tr seed=1)
	printf 'service,count\nA,1\n' > "$BATS_TEST_TMPDIR/t.csv"
	run tr-cp --suspects --baseline "$BATS_TEST_TMPDIR/t.csv" "$b"
	expect_eq 3 "$status" "status"
	grep -q 't.csv:1:' <<< "$output" || { echo "$output" >&2; return 1; }
}

@test "suspects: a missing baseline exits non-zero naming it" {
	b=$(gen base.tr seed=1)
	run tr-cp --suspects --baseline "$BATS_TEST_TMPDIR/nope.tr" "$b"
	expect_num_ne 0 "$status"
	grep -q 'nope.tr' <<< "$output" || { echo "$output" >&2; return 1; }
}

@test "suspects: an empty incident exits 3" {
	b=$(gen base.tr seed=1)
	: > "$BATS_TEST_TMPDIR/empty.tr"
	run tr-cp --suspects --baseline "$b" "$BATS_TEST_TMPDIR/empty.tr"
	expect_eq 3 "$status" "status"
}

@test "suspects: no service in common exits 3 and says so" {
	b=$(gen base.tr seed=1)
	sed 's/\t\([A-Z]\)\t\(serve\|call\|GET\)/\tother\1\t\2/' "$b" > "$BATS_TEST_TMPDIR/other.tr"
	run tr-cp --suspects --baseline "$b" "$BATS_TEST_TMPDIR/other.tr"
	expect_eq 3 "$status" "status"
	grep -q 'no service in common' <<< "$output" || { echo "$output" >&2; return 1; }
}

@test "suspects: reads Jaeger JSON compressed with zstd, as the benchmark gives it" {
	command -v zstd >/dev/null || skip "no zstd"
	trsim --seed 1 --traces 150 --fault off | zstd -q > "$BATS_TEST_TMPDIR/base.json.zst"
	trsim --seed 2 --traces 150 --fault on | zstd -q > "$BATS_TEST_TMPDIR/inc.json.zst"
	run tr-cp -q --suspects --baseline "$BATS_TEST_TMPDIR/base.json.zst" -f tsv "$BATS_TEST_TMPDIR/inc.json.zst"
	expect_status 0
	# the batch job holds the one mysql connection: calls into mysql wait
	expect_eq mysql "$(cell 1 service <<< "$output")" "first suspect"
}

wrapper_explain() {
	i=$(gen inc.tr seed=2 kinds="$1" wrapper=1 x_slow=200)
	slow=$(awk -F'\t' '$1 == "S" && $4 == "" { print $6, $2 }' "$i" | sort -n | tail -n 1 | cut -d' ' -f2)
	run tr-temporal --explain -t "$slow" "$i"
	expect_status 0
	first=$(sed -n '/^  causes:/{n;p;q}' <<< "$output" | sed 's/^ *//; s/ = .*//')
	expect_eq "X:serve X on X@X-host" "$first" "first cause"
	if grep -q 'G:handler' <<< "$output"; then
		echo "the wrapper span is named: $output" >&2
		return 1
	fi
	grep -q '1 wrapper spans (childless, covering a sibling call of their process) taken as waiting' <<< "$output" ||
		{ echo "no assumption line: $output" >&2; return 1; }
}

@test "temporal: the slowest request's first cause is the callee, not the gateway's wrapper span (kinds recorded)" {
	wrapper_explain 1
}

@test "temporal: the slowest request's first cause is the callee, not the gateway's wrapper span (no kinds)" {
	wrapper_explain 0
}

@test "temporal --baseline: the batch job holding mysql is a new cause of the slow requests, in another trace" {
	trsim --traces 150 --seed 11 --fault off -o "$BATS_TEST_TMPDIR/base.json"
	trsim --traces 150 --seed 12 -o "$BATS_TEST_TMPDIR/inc.json"
	run --separate-stderr tr-temporal --baseline "$BATS_TEST_TMPDIR/base.json" "$BATS_TEST_TMPDIR/inc.json"
	expect_status 0
	expect_eq "cause,role,before_us,after_us,diff_us,change,requests_before,requests_after,traces" \
		"$(head -n 1 <<< "$output")" "header"
	row=$(sed -n 2p <<< "$output")
	expect_eq "batch: new" \
		"$(cut -d, -f1 <<< "$row" | cut -d: -f1): $(cut -d, -f6 <<< "$row")" "first cause's service and change"
	expect_contains "the largest growth: batch:" "$stderr"
}

@test "temporal --baseline: a slower callee behind a wrapper span grew, the wrapper is not a cause" {
	b=$(gen base.tr seed=1 kinds=0 wrapper=1)
	i=$(gen inc.tr seed=2 kinds=0 wrapper=1 x_slow=200)
	run tr-temporal -q --baseline "$b" -f json "$i"
	expect_status 0
	expect_eq "X:serve X on X@X-host grew" "$(jq -r '.[0] | "\(.cause) \(.change)"' <<< "$output")" "first cause"
	expect_eq 0 "$(jq '[.[] | select(.cause | startswith("G:handler"))] | length' <<< "$output")" "wrapper named"
}

@test "temporal --baseline: --band picks the percentile" {
	b=$(gen base.tr seed=1)
	i=$(gen inc.tr seed=2 x_slow=200)
	run tr-temporal -q --baseline "$b" --band 50 -f json "$i"
	expect_status 0
	expect_eq 31 "$(jq -r '.[0].requests_after' <<< "$output")" "requests in the band (60 - 30 + 1)"
}

@test "temporal --baseline: --band P% is the P-th percentile, as --band P" {
	b=$(gen base.tr seed=1)
	i=$(gen inc.tr seed=2 x_slow=200)
	run tr-temporal -q --baseline "$b" --band 50% -f json "$i"
	expect_status 0
	expect_eq 31 "$(jq -r '.[0].requests_after' <<< "$output")" "requests in the band (60 - 30 + 1)"
}

@test "temporal: --band over 100% is a usage error" {
	run tr-temporal --baseline /dev/null --band 101% /dev/null
	expect_eq 2 "$status" "status"
	expect_output "tr-temporal: --band: not a number from 0 to 100: 101%
try 'tr-temporal --help'"
}

@test "temporal: --band without --baseline is a usage error" {
	i=$(gen inc.tr seed=2 x_slow=200)
	run tr-temporal --band 50 "$i"
	expect_eq 2 "$status" "status"
}

@test "temporal --baseline: with --explain or -t is a usage error" {
	b=$(gen base.tr seed=1)
	run tr-temporal --baseline "$b" --explain "$b"
	expect_eq 2 "$status" "status"
	run tr-temporal --baseline "$b" -t t00001 "$b"
	expect_eq 2 "$status" "status"
}

@test "temporal --baseline: no root operation in common exits 3 and says so" {
	b=$(gen base.tr seed=1)
	sed 's/\tGET \//\tPOST \//' "$b" > "$BATS_TEST_TMPDIR/other.tr"
	run tr-temporal --baseline "$b" "$BATS_TEST_TMPDIR/other.tr"
	expect_eq 3 "$status" "status"
	grep -q 'no root operation in common' <<< "$output" || { echo "$output" >&2; return 1; }
}

@test "temporal --baseline: an empty baseline exits 3 naming it" {
	b=$(gen base.tr seed=1)
	: > "$BATS_TEST_TMPDIR/empty.tr"
	run tr-temporal --baseline "$BATS_TEST_TMPDIR/empty.tr" "$b"
	expect_eq 3 "$status" "status"
	grep -q 'empty.tr' <<< "$output" || { echo "$output" >&2; return 1; }
}

@test "temporal: every annotation of a window with wrapper spans passes --check" {
	i=$(gen inc.tr seed=2 kinds=0 wrapper=1 x_slow=200)
	run tr-temporal --check "$i"
	expect_eq 0 "$status" "status"
}

@test "suspects: windows recorded with different clock skew are told apart" {
	trsim --seed 1 --traces 100 --fault off --clock-skew 0 -o "$BATS_TEST_TMPDIR/s0.json"
	trsim --seed 2 --traces 100 --fault off --clock-skew 20000 -o "$BATS_TEST_TMPDIR/s20.json"
	run tr-cp --suspects --baseline "$BATS_TEST_TMPDIR/s0.json" "$BATS_TEST_TMPDIR/s20.json"
	expect_status 0
	grep -q 'the windows differ in clock skew' <<< "$output" || { echo "no warning: $output" >&2; return 1; }
}

@test "suspects: windows recorded with the same clock skew are not told apart" {
	trsim --seed 1 --traces 100 --fault off --clock-skew 0 -o "$BATS_TEST_TMPDIR/s0.json"
	trsim --seed 3 --traces 100 --fault off --clock-skew 0 -o "$BATS_TEST_TMPDIR/s0b.json"
	run tr-cp --suspects --baseline "$BATS_TEST_TMPDIR/s0.json" "$BATS_TEST_TMPDIR/s0b.json"
	expect_status 0
	if grep -q 'clock skew' <<< "$output"; then echo "warned: $output" >&2; return 1; fi
}

# calls NAME SEED DOWN PEERS: A's two calls "HTTP GET" into B and into C;
# DOWN: C does not answer (no server span, the client fails fast);
# PEERS: the clients name their peer (server.address).
calls() {
	awk -v seed="$2" -v down="$3" -v peers="$4" 'BEGIN {
		srand(seed); print "#tr/1"
		for (i = 0; i < 200; i++) {
			id = sprintf("c%04d", i); t = 1767225600000000 + i * 100000
			print "T\t" id
			printf "S\t%s\troot\t\t%.0f\t%.0f\tA\tserve A\tserver\ta-host\n", id, t, 30000
			n = split("B C", callee, " ")
			at = t + 1000
			for (k = 1; k <= n; k++) {
				c = callee[k]; w = int(4000 * (0.9 + 0.2 * rand())); tag = peers ? "\tserver.address=" tolower(c) : ""
				if (c == "C" && down) {
					printf "S\t%s\tcl%s\troot\t%.0f\t%.0f\tA\tHTTP GET\tclient\ta-host%s\terror=true\n", id, c, at, 300, tag
					continue
				}
				printf "S\t%s\tcl%s\troot\t%.0f\t%.0f\tA\tHTTP GET\tclient\ta-host%s\n", id, c, at, w + 600, tag
				printf "S\t%s\tsv%s\tcl%s\t%.0f\t%.0f\t%s\tserve\tserver\t%s-host\n", id, c, c, at + 300, w, c, tolower(c)
				at += w + 1000
			}
		}
	}' > "$BATS_TEST_TMPDIR/$1"
	printf '%s\n' "$BATS_TEST_TMPDIR/$1"
}

@test "suspects: a down callee among calls of one generic operation is named by the peer the clients name" {
	b=$(calls base.tr 1 0 1)
	i=$(calls inc.tr 2 1 1)
	run tr-cp -q --suspects --baseline "$b" "$i"
	expect_status 0
	expect_eq C "$(cell 1 service <<< "$output")" "first suspect"
	expect_eq "errors rose, unreachable" "$(cell 1 evidence <<< "$output")" "its evidence"
}

@test "suspects: with no peer named, a generic operation's failed calls are not pinned on a callee it also calls" {
	b=$(calls base.tr 1 0 0)
	i=$(calls inc.tr 2 1 0)
	run tr-cp -q --suspects --baseline "$b" "$i"
	expect_status 0
	if grep -q "^[0-9]*	B	" <<< "$output"; then echo "B named: $output" >&2; return 1; fi
}
