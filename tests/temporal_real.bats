#!/usr/bin/env bats
# tr-temporal on data as real instrumentation records it: no queue tags,
# skewed host clocks, µs overlaps, lost parents, children that overshoot.
# The cases of issue 18; fixtures in µs, the issue's numbers in ms.

load helper

TAB=$'\t'

# S record: trace span parent start dur service op kind host [tags...]
s() {
	local IFS="$TAB"
	printf 'S\t%s\n' "$*"
}

# The Z1 incident (Zeno §2): a storage read from compute waits behind the
# writes of a maintenance job on single-worker storage@b. $1: tags of the
# server span; $2: µs added to every time on host b (its clock's offset);
# $3: the server span's start; $4: a span record added to the request.
z1() {
	local tags="$1" skew="${2:-0}" svstart="${3:-12000}" k
	printf '#tr/1\nT\tc\n'
	[ -n "${4:-}" ] && printf '%s\n' "$4"
	s c comp '' 0 14000 compute compute server c
	s c cl comp 0 13500 compute storage.read client c
	s c sv cl $((svstart + skew)) $((13000 - svstart)) storage storage.read server b $tags
	for k in $(seq 1 12); do
		printf 'T\tm%d\n' "$k"
		s "m$k" mc '' $(((k - 1) * 1000)) 1000 maintenance storage.write client m
		s "m$k" ms mc $(((k - 1) * 1000 + skew)) 1000 storage storage.write server b
	done
}

# Issue case A: web GET /feed calls ranker POST /rank, whose server waits
# behind 8 batch calls on ranker@rk-1 that overlap by 2 µs. $1: µs added to
# every time on rk-1; $2: "idle" leaves the batch out (the control);
# $3: "calls" adds three earlier, unqueued web → ranker calls.
case_a() {
	local skew="${1:-0}" idle="${2:-}" calls="${3:-}" k b=100000
	printf '#tr/1\n'
	if [ "$calls" = calls ]; then
		for k in 1 2 3; do
			local t=$((k * 20000))
			printf 'T\tearly%d\n' "$k"
			s "early$k" w '' $t 3000 web 'GET /feed' server web-1
			s "early$k" wc w $((t + 400)) 2200 web 'POST /rank' client web-1
			s "early$k" r wc $((t + 700 + skew)) 1600 ranker 'POST /rank' server rk-1
		done
	fi
	printf 'T\tfeed\n'
	s feed w '' $b 15000 web 'GET /feed' server web-1
	s feed wc w $((b + 400)) 13900 web 'POST /rank' client web-1
	s feed r wc $((b + 12000 + skew)) 2000 ranker 'POST /rank' server rk-1
	[ "$idle" = idle ] && return
	printf 'T\tbatch-rescore\n'
	s batch-rescore j '' $((b + 600)) 11600 batch rescore internal bt-1
	for k in $(seq 0 7); do
		local st=$((b + 800 + k * 1400))
		s batch-rescore "bc$k" j $((st - 100)) 1602 batch 'POST /rank/batch' client bt-1
		s batch-rescore "bs$k" "bc$k" $((st + skew)) 1402 ranker 'POST /rank/batch' server rk-1
	done
}

# Issue case C: an advisory lock inside profile's PUT, held by trace T2.
# $1: a span record added to the PUT's trace.
case_c() {
	printf '#tr/1\nT\tput\n'
	[ -n "${1:-}" ] && printf '%s\n' "$1"
	s put p '' 0 10000 profile 'PUT /users/42' server p-1
	s put l p 7000 1000 profile 'advisory lock' internal p-1 lock=user-42
	printf 'L\tput\tl\t1000\tevent=enqueue\n'
	printf 'T\tT2\n'
	s T2 h '' 800 6200 profile 'advisory lock' internal p-1 lock=user-42
	printf 'T\tT3\n'
	s T3 o '' 1000 5500 profile 'advisory lock' internal p-1 lock=user-7
}

# The self time of cause $2 (span id, or trace/span) in role $3 of trace $1.
dself() {
	printf '%s\n' "$output" | awk -F'\t' -v t="$1" -v id="$2" -v role="$3" '
		$1 == "D" && $2 == t && ($4 == id || $3 "/" $4 == id) && $5 == role { print $6 }'
}

# The total self time of trace $1's causes in role $2 (whose label matches $3).
dsum() {
	printf '%s\n' "$output" | awk -F'\t' -v t="$1" -v role="$2" -v pat="${3:-}" '
		$1 == "D" && $2 == t && $5 == role && index($8, pat) { n++; s += $6 } END { print n + 0, s + 0 }'
}

# D records of each trace sum to its root's duration (the longest root that
# is not an orphan; in a trace whose root was lost, the longest orphan), and
# --check passes.
sums_to_duration() {
	run tr-temporal --check "$1"
	expect_status 0
	printf '%s\n' "$output" | awk -F'\t' '
		$1 == "S" { k = $2 SUBSEP $3; id[k] = 1; trace[k] = $2; par[k] = $4; dur[k] = $6 }
		$1 == "D" { sum[$2] += $6 }
		END {
			for (k in par) {
				t = trace[k]
				if (par[k] == "") { if (!(t in root) || dur[k] > root[t]) root[t] = dur[k] }
				else if (!((t SUBSEP par[k]) in id) && dur[k] > orphan[t]) orphan[t] = dur[k]
			}
			for (t in sum) {
				want = (t in root) ? root[t] : orphan[t]
				if (sum[t] != want) { print "trace " t ": " sum[t] " != " want; bad = 1 }
			}
			exit bad
		}'
}

@test "Z1 with a queue tag: 11 maintenance writes, 11 ms (78.6%)" {
	f=$(z1 queue.wait_us=11000 | mkfix z1tag.tr)
	run tr-temporal --explain -t c "$f"
	expect_eq 0 "$status" status
	expect_contains '11 × maintenance:storage.write on storage@b = 11.0 ms (78.6%)' "$output"
	sums_to_duration "$f"
}

# Without the tag the request is taken to need what its own response needed
# (0.5 ms, transit the same both ways), so it arrived at 0.5 ms and queued
# behind the second half of the first write as well: 12 writes, 11.5 ms. The
# issue's "the same 11 ms" needs the 1 ms request transit only the tag gave.
@test "Z1 without a queue tag: queueing inferred, the maintenance writes named, not transit" {
	f=$(z1 '' | mkfix z1.tr)
	run tr-temporal --explain -t c "$f"
	expect_eq 0 "$status" status
	expect_contains '12 × maintenance:storage.write on storage@b = 11.5 ms (82.1%) [sequencing]' "$output"
	expect_contains 'request compute → storage:storage.read = 0.5 ms (3.6%) [transit]' "$output"
	sums_to_duration "$f"
	# --no-infer-queues: the server started work on arrival, the gap is transit
	run tr-temporal --no-infer-queues -t c "$f"
	expect_eq "0 0" "$(dsum c sequencing)"
	expect_eq 12000 "$(dself c sv transit)"
}

@test "Z1 with storage's clock 0.6 ms ahead: the offset is found, the answer the same" {
	f=$(z1 '' 600 | mkfix z1skew.tr)
	run tr-temporal -t c "$f"
	expect_eq 0 "$status" status
	expect_eq "12 11500" "$(dsum c sequencing maintenance)"
	expect_eq "0 0" "$(dsum c unexplained)"
	sums_to_duration "$f"
	run tr-temporal -v -t c "$f"
	expect_contains 'tr-temporal: clock of b: +0.600 ms against m, from 12 RPCs' "$output"
}

@test "the clock pass reads standard input twice: a pipe, a file, a file read partly" {
	f=$(z1 '' 600 | mkfix z1stdin.tr)
	want=$(tr-temporal -t c "$f")
	expect_eq "$want" "$(cat "$f" | tr-temporal -t c)"
	expect_eq "$want" "$(tr-temporal -t c < "$f")"
	# opened again from its start: what was read of it before stays read
	expect_eq "$want" "$({ head -n 1 > /dev/null; tr-temporal -t c; } < "$f")"
	{ printf 'X\tnot a record of a trace\n'; cat "$f"; } > "$BATS_TEST_TMPDIR/x.tr"
	expect_eq "$want" "$({ head -n 1 > /dev/null; tr-temporal -t c; } < "$BATS_TEST_TMPDIR/x.tr")"
	# and it is left at its end, as a copy would leave it
	expect_empty "$({ tr-temporal -t c > /dev/null; cat; } < "$f")"
}

@test "a large input's clock pass, scanned as two halves at once, finds what one pass finds" {
	# 40,000 requests (over 8 MiB): web calls a server on one of five hosts
	# with clocks off by 0 to 4 ms; hosts the first half never calls only
	# come in the second
	awk 'BEGIN { OFS = "\t"; print "#tr/1"; n = 40000
		for (i = 0; i < n; i++) {
			t = "t" i; s = i * 100; h = (i * 7) % 5; if (i > n / 2 + 100) h += 5 * (i % 2)
			print "T", t
			print "S", t, "w", "", s, 3000, "web", "GET /", "server", "web-1", "pad=" sprintf("%0120d", i)
			print "S", t, "c", "w", s + 100, 2500, "web", "call", "client", "web-1"
			print "S", t, "v", "c", s + 400 + 1000 * (h % 5) + (i % 3), 1800, "api", "serve", "server", "api-" h
		} }' > "$BATS_TEST_TMPDIR/big.tr"
	expect_gt "$((8 << 20))" "$(wc -c < "$BATS_TEST_TMPDIR/big.tr")"
	run tr-temporal -v "$BATS_TEST_TMPDIR/big.tr"
	expect_eq 0 "$status" status
	one=$output
	expect_like "*clock of api-4: * ms against web-1, from * RPCs*" "$one"
	expect_contains 'clock of api-9: ' "$one"
	# an empty second input: the full pass (the scan takes the line format only)
	: > "$BATS_TEST_TMPDIR/empty"
	run tr-temporal -v "$BATS_TEST_TMPDIR/big.tr" "$BATS_TEST_TMPDIR/empty"
	expect_eq 0 "$status" status
	expect_output "$one"
}

@test "Z1 with the read starting 1 µs before the last write ends: no second worker" {
	f=$(z1 queue.wait_us=10999 0 11999 | mkfix z1overlap.tr)
	run tr-temporal -v -t c "$f"
	expect_eq 0 "$status" status
	expect_eq "11 10999" "$(dsum c sequencing maintenance)"
	expect_eq "0 0" "$(dsum c unexplained)"
	expect_lacks 'capacity exceeded' "$output"
	sums_to_duration "$f"
}

@test "a lock wait on an internal span with -r lock blames the holder, 7 ms" {
	f=$({
		printf '#tr/1\nT\tr\n'
		s r txn '' 0 12000 db txn server d
		s r up txn 8000 2000 db UPDATE internal d lock=row-1
		printf 'L\tr\tup\t1000\tevent=enqueue\n'
		printf 'T\th\n'
		s h hu '' 500 7500 db UPDATE internal d lock=row-1
	} | mkfix lock.tr)
	run tr-temporal -r lock -t r "$f"
	expect_eq 0 "$status" status
	expect_eq 7000 "$(dself r h/hu sequencing)"
	expect_eq 2000 "$(dself r up onpath)"
	expect_eq 3000 "$(dself r txn onpath)"
	sums_to_duration "$f"
}

@test "an orphan fragment that starts before the request: the request is explained" {
	f=$(z1 queue.wait_us=11000 0 12000 "$(s c frag gone -200 200 cache get server c)" | mkfix orphan.tr)
	run tr-temporal -t c "$f"
	expect_eq 0 "$status" status
	expect_eq "11 11000" "$(dsum c sequencing maintenance)"
	expect_eq 14000 "$(printf '%s\n' "$output" | awk -F'\t' '$1 == "D" && $2 == "c" { s += $6 } END { print s }')"
	sums_to_duration "$f"
}

@test "a child that ends 1 µs after its parent is clamped and kept with its subtree" {
	f=$({
		printf '#tr/1\nT\tk\n'
		s k p '' 0 10000 app handle server a
		s k c p 1000 9001 app step internal a
		s k g c 2000 3000 app inner internal a
	} | mkfix overshoot.tr)
	run tr-temporal -t k "$f"
	expect_eq 0 "$status" status
	expect_eq 6000 "$(dself k c onpath)"
	expect_eq 3000 "$(dself k g onpath)"
	expect_eq 1000 "$(dself k p onpath)"
	sums_to_duration "$f"
}

@test "case A: the batch job on ranker@rk-1 is the cause, 11.2 ms (74.7%), not request transit" {
	f=$(case_a | mkfix a.tr)
	run tr-temporal --explain -t feed "$f"
	expect_eq 0 "$status" status
	expect_contains '8 × batch:POST /rank/batch on ranker@rk-1 = 11.2 ms (74.7%) [sequencing]' "$output"
	expect_lacks 'request web → ranker:POST /rank = 11' "$output"
	run tr-temporal -t feed "$f"
	expect_eq "8 11200" "$(dsum feed sequencing 'POST /rank/batch')"
	expect_eq batch-rescore "$(printf '%s\n' "$output" | awk -F'\t' '$1 == "D" && $5 == "sequencing" { print $3 }' | sort -u)"
	expect_eq "1 100" "$(dsum feed unexplained)"
	expect_eq 2000 "$(dself feed r onpath)"
	expect_eq "2 600" "$(dsum feed transit)"
	expect_eq 1100 "$(dself feed w onpath)"
	sums_to_duration "$f"
}

@test "case A control: ranker idle before the call, no other trace is blamed" {
	f=$(case_a 0 idle | mkfix aidle.tr)
	run tr-temporal -t feed "$f"
	expect_eq 0 "$status" status
	expect_eq "0 0" "$(dsum feed sequencing)"
	expect_eq "0 0" "$(dsum feed offpath)"
	expect_eq "1 11300" "$(dsum feed unexplained)"
	sums_to_duration "$f"
}

@test "case B: earlier calls and rk-1's clock +5 ms, -0.3 ms, +25 ms: the same answer" {
	for skew in 5000 -300 25000; do
		f=$(case_a "$skew" '' calls | mkfix "b$skew.tr")
		run tr-temporal -t feed "$f"
		expect_eq 0 "$status" status
		expect_eq "8 11200" "$(dsum feed sequencing 'POST /rank/batch')" || { echo "skew $skew"; false; }
		expect_eq "1 100" "$(dsum feed unexplained)"
		expect_eq 2000 "$(dself feed r onpath)"
		expect_eq "2 600" "$(dsum feed transit)"
		sums_to_duration "$f"
		run tr-temporal -v -t feed "$f"
		expect_contains "clock of rk-1: $(awk -v s="$skew" 'BEGIN { printf "%+.3f", s / 1000 }') ms against " "$output"
	done
}

@test "case C: -r lock blames T2, the lock's holder, 6 ms (60%); T3 on another lock is absent" {
	f=$(case_c | mkfix c.tr)
	run tr-temporal -r lock -t put "$f"
	expect_eq 0 "$status" status
	expect_eq 6000 "$(dself put T2/h sequencing)"
	expect_num 0 "$(printf '%s\n' "$output" | awk -F'\t' '$1 == "D" && $2 == "put" && $3 == "T3"' | wc -l)"
	expect_eq 3000 "$(dself put p onpath)"
	expect_eq 1000 "$(dself put l onpath)"
	run tr-temporal --explain -r lock -t put "$f"
	expect_contains 'profile:advisory lock on profile@p-1/user-42 = 6.0 ms (60.0%) [sequencing]' "$output"
	sums_to_duration "$f"
}

@test "case C: a lost-parent redis GET at -0.4 ms leaves PUT the root; D records sum to 10 ms" {
	f=$(case_c "$(s put rg lost -400 100 redis GET server r-1)" | mkfix corphan.tr)
	run tr-temporal -r lock -t put "$f"
	expect_eq 0 "$status" status
	expect_eq 10000 "$(printf '%s\n' "$output" | awk -F'\t' '$1 == "D" && $2 == "put" { s += $6 } END { print s }')"
	expect_eq 6000 "$(dself put T2/h sequencing)"
	sums_to_duration "$f"
}

@test "case C: an internal child ending 3 µs after its parent is kept and clamped" {
	f=$(case_c "$(s put rd p 9500 503 profile render internal p-1)" | mkfix cclamp.tr)
	run tr-temporal -r lock -t put "$f"
	expect_eq 0 "$status" status
	expect_eq 500 "$(dself put rd onpath)"
	expect_eq 2500 "$(dself put p onpath)"
	sums_to_duration "$f"
}

@test "case C: a -t id no trace has exits 2 with a message" {
	f=$(case_c | mkfix c.tr)
	run tr-temporal -r lock -t nosuch "$f"
	expect_eq 2 "$status" status
	expect_contains 'tr-temporal: --trace nosuch: no trace has this id' "$output"
}

@test "control: a request slow from its own work blames its own spans, no other trace" {
	f=$({
		printf '#tr/1\nT\tself\n'
		s self w '' 0 10000 web 'GET /report' server w-1
		s self cpu w 500 9000 web render internal w-1
		printf 'T\tother\n'
		s other o '' 0 9000 web 'GET /other' server w-2
	} | mkfix own.tr)
	run tr-temporal -t self "$f"
	expect_eq 0 "$status" status
	expect_eq 9000 "$(dself self cpu onpath)"
	expect_eq 1000 "$(dself self w onpath)"
	expect_num 0 "$(printf '%s\n' "$output" | awk -F'\t' '$1 == "D" && $3 != "self"' | wc -l)"
	sums_to_duration "$f"
}

@test "--explain for a postmortem: summary line, other trace's id and root, offsets, assumptions" {
	f=$(case_a 5000 '' calls | mkfix b.tr)
	run tr-temporal --explain -t feed "$f"
	expect_eq 0 "$status" status
	expect_eq "  summary: other traces 11.2 ms (74.7%), own work 3.1 ms (20.7%), network 0.6 ms (4.0%), unexplained 0.1 ms (0.7%)" "${lines[1]}"
	expect_contains '[sequencing] in trace batch-rescore (batch:rescore)' "$output"
	expect_contains '8 × batch:POST /rank/batch on ranker@rk-1 = 11.2 ms (74.7%), self 11.2 ms, from +0.8 ms [sequencing]' "$output"
	expect_like "*    queueing inferred on ranker@rk-1: *\(Zeno §3.2\)*" "$output"
	expect_contains '    clock offsets applied: rk-1 +5.000 ms' "$output"
	expect_contains '    workers inferred from overlaps (no -c): ranker@rk-1: 1' "$output"
	# with -c the capacity is given, not inferred; without inference no queue is claimed
	run tr-temporal --explain -c ranker@rk-1=1 --no-infer-queues --no-clock-offsets -t feed "$f"
	expect_lacks 'workers inferred' "$output"
	expect_lacks 'queueing inferred' "$output"
	expect_lacks 'clock offsets applied' "$output"
}

@test "--explain folds repeated on-path calls into one node with a count" {
	f=$({
		printf '#tr/1\nT\tfan\n'
		s fan r '' 0 10000 front dispatch server f-1
		for k in 0 1 2; do
			s fan "c$k" r $((1000 + k * 3000)) 2000 front GetDriver client f-1
			s fan "s$k" "c$k" $((1100 + k * 3000)) 1800 driver GetDriver server d-1
		done
	} | mkfix fan.tr)
	run tr-temporal --explain "$f"
	expect_eq 0 "$status" status
	expect_contains '      3 × front:GetDriver (client) = 6.0 ms (60.0%)' "$output"
	sums_to_duration "$f"
}

@test "--dot: title names the top cause, edges as wide as their delay, --min-share prunes" {
	f=$(case_a | mkfix a.tr)
	run tr-temporal --dot -t feed "$f"
	expect_eq 0 "$status" status
	expect_contains 'top cause: 8 × batch:POST /rank/batch on ranker@rk-1, 11.2 ms (74.7%)' "$output"
	expect_contains 'penwidth=4.7, style=dashed' "$output"
	# the 0.1 ms unexplained gap is under the default 1 %
	expect_lacks 'unexplained@' "$output"
	expect_contains '1 nodes under 1% of the delay left out (--min-share)' "$output"
	run tr-temporal --dot --min-share 0 -t feed "$f"
	expect_contains 'unexplained@ranker@rk-1' "$output"
	run tr-temporal --dot --min-share 50% -t feed "$f"
	expect_lacks 'request web' "$output"
	run tr-temporal --dot --min-share 0.5 -t feed "$f"
	expect_lacks 'request web' "$output"
	run tr-temporal --min-share 0.05 "$f"
	expect_eq 2 "$status" status
	run tr-temporal --dot --min-share 101% "$f"
	expect_eq 2 "$status" status
}

@test "--min-share: a bare number over 1, once a percentage, is a usage error asking for N%" {
	f=$(case_a | mkfix a.tr)
	run tr-temporal --dot --min-share 5 -t feed "$f"
	expect_eq 2 "$status" status
	expect_eq "tr-temporal: --min-share 5: a share is a fraction from 0 to 1; write 5% for a percentage" "${lines[0]}"
	expect_eq "try 'tr-temporal --help'" "${lines[1]}"
}

@test "--span explains one span: why did this call take 13.6 ms" {
	f=$(case_a | mkfix a.tr)
	run tr-temporal --explain --span r "$f"
	expect_eq 0 "$status" status
	# the server span's question runs from its inferred arrival: its queue too
	expect_eq 'trace feed: ranker:POST /rank, 13.3 ms' "${lines[0]}"
	run tr-temporal --span wc "$f"
	expect_eq 0 "$status" status
	expect_eq 13900 "$(printf '%s\n' "$output" | awk -F'\t' '$1 == "D" { s += $6 } END { print s }')"
	expect_eq "8 11200" "$(dsum feed sequencing 'POST /rank/batch')"
	# a span no trace has answered nothing: an error that says so
	run tr-temporal --span nosuch "$f"
	expect_eq 2 "$status" status
	expect_contains 'tr-temporal: --span nosuch: no trace has this span' "$output"
}

@test "--end-to-end: a short poll root does not hide the processing it started" {
	f=$({
		printf '#tr/1\nT\tasync\n'
		s async poll '' 0 26 app poll consumer q-1
		s async work poll 30 60000 app process internal q-1
	} | mkfix async.tr)
	run tr-temporal -t async "$f"
	expect_eq 26 "$(printf '%s\n' "$output" | awk -F'\t' '$1 == "D" { s += $6 } END { print s }')"
	run tr-temporal --check --end-to-end -t async "$f"
	expect_eq 0 "$status" status
	expect_eq 60030 "$(printf '%s\n' "$output" | awk -F'\t' '$1 == "D" { s += $6 } END { print s }')"
	expect_eq 60000 "$(dself async work onpath)"
}

@test "-v reports overruns of a given capacity beyond the 10 µs tolerance only" {
	f=$(case_a | mkfix a.tr)
	run tr-temporal -v -c ranker@rk-1=1 -t feed "$f"
	expect_eq 0 "$status" status
	expect_lacks 'capacity exceeded' "$output"
	f=$({ printf '#tr/1\nT\tx\n'; s x a '' 0 1000 db q server d-1; printf 'T\ty\n'; s y b '' 500 1000 db q server d-1; } | mkfix over.tr)
	run tr-temporal -v -c db@d-1=1 "$f"
	expect_contains 'tr-temporal: capacity exceeded on db@d-1: 1 segments found every worker busy' "$output"
}

@test "samples with every queue tag removed: the slowest request still names the batch job (>= 40 %)" {
	[ -f "$SAMPLES/jaeger/hotrod.json" ] || skip "no samples"
	tr-ingest "$SAMPLES/jaeger/hotrod.json" | sed 's/\tqueue\.wait_us=[0-9]*//' > "$BATS_TEST_TMPDIR/h.tr"
	! grep -q 'queue\.wait_us' "$BATS_TEST_TMPDIR/h.tr"
	sums_to_duration "$BATS_TEST_TMPDIR/h.tr"
	slow=$(awk -F'\t' '$1 == "S" && $4 == "" && $7 == "frontend" { print $6, $2 }' "$BATS_TEST_TMPDIR/h.tr" | sort -n | tail -1 | cut -d' ' -f2)
	run tr-temporal -f json -t "$slow" "$BATS_TEST_TMPDIR/h.tr"
	expect_eq 0 "$status" status
	share=$(printf '%s\n' "$output" | jq '[.[] | select(.role == "sequencing" and (.cause | startswith("batch:"))) | .share] | add // 0')
	awk -v s="$share" 'BEGIN { exit !(s + 0 >= 40) }'
}

@test "a consumer that starts late queued behind the other work of its single worker" {
	f=$({
		printf '#tr/1\nT\tord\n'
		s ord api '' 0 1000 shop order server a-1
		s ord pub api 200 300 shop 'publish orders' producer a-1
		s ord con pub 6000 2000 billing 'process orders' consumer b-1
		printf 'T\tbig\n'
		s big job '' 400 5600 billing reindex internal b-1
	} | mkfix consumer.tr)
	run tr-temporal --end-to-end -t ord "$f"
	expect_eq 0 "$status" status
	# the message was there at 0.5 ms; billing@b-1 ran the reindex until 6.0
	expect_eq 5500 "$(dself ord big/job sequencing)"
	expect_eq 2000 "$(dself ord con onpath)"
	expect_eq 8000 "$(printf '%s\n' "$output" | awk -F'\t' '$1 == "D" && $2 == "ord" { s += $6 } END { print s }')"
	run tr-temporal --end-to-end --no-infer-queues -t ord "$f"
	expect_eq "" "$(dself ord big/job sequencing)"
}
