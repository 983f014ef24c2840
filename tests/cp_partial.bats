#!/usr/bin/env bats
# tr-cp --partial and --merge: --summary and --folded over shards by trace
# add up to the output of one pass, byte for byte; bad partials are errors.
load helper
bats_require_minimum_version 1.5.0

# Three requests of two services, the first two in one shard, the third in
# another (shards by trace).
shards() {
	cat > "$BATS_TEST_TMPDIR/all.tr" <<-EOF
	#tr/1
	T	r1
	S	r1	a		0	900	web	GET /a	server	h
	S	r1	b	a	100	500	db	query	client	h
	T	r2
	S	r2	a		0	300	web	GET /b	server	h
	S	r2	b	a	50	200	db	query	client	h
	T	r3
	S	r3	a		0	1000	web	GET /a	server	h
	S	r3	b	a	10	900	db	query	client	h
	S	r3	c	b	20	100	cache	get	client	h
	EOF
	awk -F'\t' 'NR == 1 || $2 == "r1" || $2 == "r2"' "$BATS_TEST_TMPDIR/all.tr" > "$BATS_TEST_TMPDIR/s0.tr"
	awk -F'\t' 'NR == 1 || $2 == "r3"' "$BATS_TEST_TMPDIR/all.tr" > "$BATS_TEST_TMPDIR/s1.tr"
}

@test "--summary service --partial per shard, then --merge: the table of one pass" {
	shards
	tr-cp --summary service --partial "$BATS_TEST_TMPDIR/s0.tr" > "$BATS_TEST_TMPDIR/p0"
	tr-cp --summary service --partial "$BATS_TEST_TMPDIR/s1.tr" > "$BATS_TEST_TMPDIR/p1"
	expected=$(tr-cp --summary service "$BATS_TEST_TMPDIR/all.tr")
	run tr-cp --summary service --merge "$BATS_TEST_TMPDIR/p0" "$BATS_TEST_TMPDIR/p1"
	expect_status 0
	diff <(echo "$expected") <(echo "$output")
}

@test "--summary operation -f json --merge from stdin: the JSON of one pass" {
	shards
	expected=$(tr-cp --summary operation -f json "$BATS_TEST_TMPDIR/all.tr")
	run sh -c "{ tr-cp --summary operation --partial '$BATS_TEST_TMPDIR/s0.tr'; tr-cp --summary operation --partial '$BATS_TEST_TMPDIR/s1.tr'; } | tr-cp --summary operation -f json --merge"
	expect_status 0
	diff <(echo "$expected") <(echo "$output")
}

@test "the partial of --summary holds each group's totals and per-trace values" {
	shards
	run tr-cp --summary service --partial "$BATS_TEST_TMPDIR/s0.tr"
	expect_status 0
	expected=$(printf '#tr-cp-partial/2\tsummary key=service\nG\tweb\t\t500\t500\t2\t0\t100:1,400:1\nG\tdb\t\t700\t700\t2\t0\t200:1,500:1\n#end\t2')
	diff <(echo "$expected") <(echo "$output")
}

@test "--summary --merge --partial combines partials into one that merges to the same table" {
	shards
	tr-cp --summary service --partial "$BATS_TEST_TMPDIR/s0.tr" > "$BATS_TEST_TMPDIR/p0"
	tr-cp --summary service --partial "$BATS_TEST_TMPDIR/s1.tr" > "$BATS_TEST_TMPDIR/p1"
	tr-cp --summary service --merge --partial "$BATS_TEST_TMPDIR/p0" > "$BATS_TEST_TMPDIR/c0"
	expected=$(tr-cp --summary service "$BATS_TEST_TMPDIR/all.tr")
	run tr-cp --summary service --merge "$BATS_TEST_TMPDIR/c0" "$BATS_TEST_TMPDIR/p1"
	diff <(echo "$expected") <(echo "$output")
}

@test "a tag key: --summary TAG partials merge to the table of one pass" {
	shards
	sed -i 's/\tserver\th$/\tserver\th\tzone=a/' "$BATS_TEST_TMPDIR"/s[01].tr "$BATS_TEST_TMPDIR/all.tr"
	for k in 0 1; do tr-cp --summary zone --partial "$BATS_TEST_TMPDIR/s$k.tr" > "$BATS_TEST_TMPDIR/p$k"; done
	expected=$(tr-cp --summary zone "$BATS_TEST_TMPDIR/all.tr")
	run tr-cp --summary zone --merge "$BATS_TEST_TMPDIR/p0" "$BATS_TEST_TMPDIR/p1"
	diff <(echo "$expected") <(echo "$output")
}

@test "--folded of each shard, then --folded --merge: the stacks of one pass" {
	shards
	tr-cp --folded --partial "$BATS_TEST_TMPDIR/s0.tr" > "$BATS_TEST_TMPDIR/f0"
	tr-cp --folded "$BATS_TEST_TMPDIR/s1.tr" > "$BATS_TEST_TMPDIR/f1"
	diff <(tr-cp --folded "$BATS_TEST_TMPDIR/s0.tr") "$BATS_TEST_TMPDIR/f0"
	expected=$(tr-cp --folded "$BATS_TEST_TMPDIR/all.tr")
	run tr-cp --folded --merge "$BATS_TEST_TMPDIR/f0" "$BATS_TEST_TMPDIR/f1"
	expect_status 0
	diff <(echo "$expected") <(echo "$output")
}

@test "a partial of another --summary key is bad input naming file:line" {
	shards
	tr-cp --summary service --partial "$BATS_TEST_TMPDIR/s0.tr" > "$BATS_TEST_TMPDIR/p0"
	run tr-cp --summary operation --merge "$BATS_TEST_TMPDIR/p0"
	expect_status 3
	expect_output "tr-cp: $BATS_TEST_TMPDIR/p0:1: a partial made for something else (another query, other options)"
}

@test "bad --summary partial records are bad input naming file:line, nothing written" {
	h=$(printf '#tr-cp-partial/2\tsummary key=service')
	while IFS='|' read -r rec want; do
		printf '%s\n%s\n#end\t1\n' "$h" "$rec" | tr '~' '\t' > "$BATS_TEST_TMPDIR/bad"
		run --separate-stderr tr-cp --summary service --merge "$BATS_TEST_TMPDIR/bad"
		expect_status 3 || { echo "$rec: status $status"; false; }
		expect_empty "$output" || { echo "$rec wrote: $output"; false; }
		expect_eq "tr-cp: $BATS_TEST_TMPDIR/bad:2: $want" "$stderr" || { echo "$rec: $stderr"; false; }
	done <<-'EOF'
	G~web~~1~1~1~0|not a tr-cp --summary partial record (want G and 7 fields)
	X~web~~1~1~1~0~1:1|not a tr-cp --summary partial record (want G and 7 fields)
	G~web~~x~1~1~0~1:1|bad critical-path or self time
	G~web~~1~~1~0~1:1|bad critical-path or self time
	G~web~~1~1~1~2~1:1|bad count of spans or errors
	G~web~~1~1~-1~0~1:1|bad count of spans or errors
	G~web~~1~1~1~0~|bad list of per-trace critical-path times
	G~web~~1~1~1~0~1:0|bad list of per-trace critical-path times
	G~web~~1~1~1~0~1|bad list of per-trace critical-path times
	G~web~~1~1~1~0~1:1,|bad list of per-trace critical-path times
	G~web~~1~1~1~0~a:1|bad list of per-trace critical-path times
	EOF
}

@test "bad folded lines are bad input naming file:line" {
	while IFS='|' read -r line want; do
		printf 'web:GET;db:query 5\n%s\n' "$line" > "$BATS_TEST_TMPDIR/bad"
		run tr-cp --folded --merge "$BATS_TEST_TMPDIR/bad"
		expect_status 3 || { echo "$line: status $status"; false; }
		expect_output "tr-cp: $BATS_TEST_TMPDIR/bad:2: $want" || { echo "$line: $output"; false; }
	done <<-'EOF'
	web:GET|not a folded stack (want "frame;frame... value")
	web:GET 0|bad value after the stack (want a count of µs above 0)
	web:GET -3|bad value after the stack (want a count of µs above 0)
	web:GET 3x|bad value after the stack (want a count of µs above 0)
	web:GET;db:query 9223372036854775807|the stack's total overflows 64 bits
	EOF
}

@test "--partial and --merge go with --summary and --flame (--baseline too), --folded and --whatif only" {
	for args in "--partial" "--merge" "--suspects --baseline - --merge" "--dot --merge" "--svg --partial"; do
		run tr-cp $args /dev/null
		expect_status 2 || { echo "$args: status $status: $output"; false; }
		expect_like "tr-cp: --partial and --merge go with --summary and --flame (with --baseline too), --folded and --whatif*" "$output" || { echo "$args: $output"; false; }
	done
}

@test "--ranks goes with --flame --percentile or --summary --baseline, and --merge; --bands with them and --partial" {
	for args in "--flame --ranks --merge" "--flame --percentile 50 --ranks" "--flame --percentile 50 --ranks --partial" "--flame --bands x --partial" "--flame --percentile 50 --bands x" "--flame --percentile 50 --bands x --merge" "--summary service --ranks --merge" "--summary service --baseline - --ranks" "--summary service --bands x --partial" "--summary service --baseline x --bands x"; do
		run tr-cp $args /dev/null
		expect_status 2 || { echo "$args: status $status: $output"; false; }
		expect_like "tr-cp: --ranks goes with --flame --percentile or --summary --baseline, and --merge; --bands with them and --partial*" "$output" || { echo "$args: $output"; false; }
	done
}

@test "--summary --baseline and --flame --baseline: --merge takes --baseline -, --partial a baseline shard" {
	for mode in "--summary service" --flame; do
		run tr-cp $mode --baseline /dev/null --merge /dev/null
		expect_status 2
		expect_like "tr-cp: --merge: the baseline is in the partials (give --baseline -)*" "$output"
		run tr-cp $mode --baseline - --partial /dev/null
		expect_status 2
		expect_like "tr-cp: --partial: --baseline names the baseline's shard (not -)*" "$output"
	done
}


# The Jaeger sample in 3 shards by trace (tr-ingest --split 3), in $d.
sample_shards() {
	d=$BATS_TEST_TMPDIR
	tr-ingest -q "$BATS_TEST_DIRNAME/../samples/jaeger/hotrod.json" > "$d/h.tr"
	tr-ingest --split 3 -o "$d/shard" "$d/h.tr"
}

RULE='service=mysql:scale=0.5'

@test "--whatif --partial per shard, then --merge: byte-identical to one pass over the shards" {
	sample_shards
	for k in 0 1 2; do tr-cp --whatif "$RULE" --whatif 'service=route:minus=1ms' --partial "$d/shard$k.tr" > "$d/w$k"; done
	tr-cp --whatif "$RULE" --whatif 'service=route:minus=1ms' "$d"/shard[012].tr > "$d/one"
	run tr-cp --whatif "$RULE" --whatif 'service=route:minus=1ms' --merge "$d/w0" "$d/w1" "$d/w2"
	expect_status 0
	expect_eq "$(cat "$d/one")" "$output"
}

@test "--whatif --merge: the quantiles of one pass over the unsharded input, and its rows" {
	sample_shards
	for k in 0 1 2; do tr-cp --whatif "$RULE" --partial "$d/shard$k.tr" > "$d/w$k"; done
	tr-cp --whatif "$RULE" "$d/h.tr" > "$d/one"
	tr-cp --whatif "$RULE" --merge "$d/w0" "$d/w1" "$d/w2" > "$d/merged"
	expect_eq "$(sed -n '/^quantile/,$p' "$d/one")" "$(sed -n '/^quantile/,$p' "$d/merged")"
	expect_eq "$(sort "$d/one")" "$(sort "$d/merged")"
	expect_eq 4 "$(grep -c '^p[0-9]*	\|^quantile' "$d/merged")"
}

@test "--whatif --merge -f json --units ms from stdin: the JSON of one pass" {
	sample_shards
	expected=$(tr-cp --whatif "$RULE" -f json --units ms "$d"/shard[012].tr)
	run sh -c "for k in 0 1 2; do tr-cp --whatif '$RULE' --partial '$d/shard'\$k.tr; done | tr-cp --whatif '$RULE' -f json --units ms --merge"
	expect_status 0
	expect_eq "$expected" "$output"
}

@test "--whatif --merge --partial combines partials into one that merges to the same table" {
	sample_shards
	for k in 0 1 2; do tr-cp --whatif "$RULE" --partial "$d/shard$k.tr" > "$d/w$k"; done
	tr-cp --whatif "$RULE" --merge --partial "$d/w0" "$d/w1" > "$d/c01"
	run tr-cp --whatif "$RULE" --merge "$d/c01" "$d/w2"
	expect_status 0
	expect_eq "$(tr-cp --whatif "$RULE" "$d"/shard[012].tr)" "$output"
}

@test "the --whatif partial holds each trace's latencies, each rule's counts, in the frame" {
	shards
	run tr-cp --whatif 'service=db:scale=0.5' --partial "$BATS_TEST_TMPDIR/s0.tr"
	expect_status 0
	expect_eq "$(printf '#tr-cp-partial/2\twhatif overlap-allowance=0.01 rules=service=db:scale=0.5\nT\tr1\t900\t650\t1\nT\tr2\t300\t200\t1\nR\t0\t2\t0\t0\n#end\t3')" "$output"
}

@test "a --whatif rule no shard matches: said at the merge, exit 2; a shard's partial is not failed" {
	shards
	run tr-cp --whatif 'service=cache:scale=2' --partial "$BATS_TEST_TMPDIR/s0.tr"
	expect_status 0
	echo "$output" > "$BATS_TEST_TMPDIR/w0"
	run --separate-stderr tr-cp --whatif 'service=cache:scale=2' --merge "$BATS_TEST_TMPDIR/w0"
	expect_status 2
	expect_eq "tr-cp: --whatif 'service=cache:scale=2': no analysed span of the partials matches it" "$stderr"
	tr-cp --whatif 'service=cache:scale=2' --partial "$BATS_TEST_TMPDIR/s1.tr" > "$BATS_TEST_TMPDIR/w1"
	run tr-cp --whatif 'service=cache:scale=2' --merge "$BATS_TEST_TMPDIR/w0" "$BATS_TEST_TMPDIR/w1"
	expect_status 0
}

@test "a --whatif merge with other rules is bad input naming file:line, nothing written" {
	shards
	tr-cp --whatif 'service=db:scale=0.5' --partial "$BATS_TEST_TMPDIR/s0.tr" > "$BATS_TEST_TMPDIR/w0"
	run --separate-stderr tr-cp --whatif 'service=db:scale=0.6' --merge "$BATS_TEST_TMPDIR/w0"
	expect_status 3
	expect_empty "$output"
	expect_eq "tr-cp: $BATS_TEST_TMPDIR/w0:1: a partial made for something else (another query, other options)" "$stderr"
}

@test "--flame --partial per shard, then --merge: the SVG of one pass over the shards" {
	sample_shards
	for k in 0 1 2; do tr-cp --flame --partial "$d/shard$k.tr" > "$d/f$k"; done
	tr-cp --flame --width 700 "$d"/shard[012].tr > "$d/one.svg"
	run tr-cp --flame --width 700 --merge "$d/f0" "$d/f1" "$d/f2"
	expect_status 0
	expect_eq "$(cat "$d/one.svg")" "$output"
}

@test "--flame --merge: the frames of one pass over the unsharded input, in the shards' order" {
	sample_shards
	for k in 0 1 2; do tr-cp --flame --partial "$d/shard$k.tr" > "$d/f$k"; done
	tr-cp --flame "$d/h.tr" > "$d/one.svg"
	tr-cp --flame --merge "$d/f0" "$d/f1" "$d/f2" > "$d/merged.svg"
	expect_eq "$(sort "$d/one.svg")" "$(sort "$d/merged.svg")"
}

@test "--flame --merge --partial combines partials; a shard of no trace merges as none" {
	sample_shards
	for k in 0 1 2; do tr-cp --flame --partial "$d/shard$k.tr" > "$d/f$k"; done
	tr-cp --flame --partial --allow-empty /dev/null > "$d/none"
	expect_eq "$(printf '#tr-cp-partial/2\tflame overlap-allowance=0.01\nT\t0\n#end\t1')" "$(cat "$d/none")"
	tr-cp --flame --merge --partial "$d/f0" "$d/none" "$d/f1" > "$d/c01"
	run tr-cp --flame --merge "$d/c01" "$d/f2"
	expect_status 0
	expect_eq "$(tr-cp --flame "$d"/shard[012].tr)" "$output"
	run tr-cp --flame --merge "$d/none"
	expect_status 3
	expect_output "tr-cp: --flame: no trace with a timed root to draw"
}

@test "bad --whatif and --flame partials are bad input naming file:line, nothing written" {
	shards
	b=$BATS_TEST_TMPDIR
	tr-cp --whatif 'service=db:scale=0.5' --partial "$b/s0.tr" > "$b/w0"
	tr-cp --flame --partial "$b/s0.tr" > "$b/f0"
	tr-cp --flame --overlap-allowance 0.2 --partial "$b/s0.tr" > "$b/f02"
	: > "$b/empty"
	head -n 2 "$b/w0" > "$b/wcut"
	head -n 3 "$b/f0" > "$b/fcut"
	sed '1s|partial/2|partial/1|' "$b/w0" > "$b/wv1"
	sed '$s/3/4/' "$b/w0" > "$b/wcount"
	sed '4s/^R.*/X/' "$b/w0" > "$b/wbad"
	while IFS='|' read -r mode file want; do
		run --separate-stderr tr-cp $mode --merge "$b/$file"
		expect_status 3 || { echo "$mode $file: status $status"; false; }
		expect_empty "$output" || { echo "$mode $file wrote: $output"; false; }
		expect_eq "tr-cp: $b/$want" "$stderr" || { echo "$mode $file: $stderr"; false; }
	done <<-'EOF'
	--whatif service=db:scale=0.5|empty|empty:1: an empty file, not a partial
	--flame|empty|empty:1: an empty file, not a partial
	--whatif service=db:scale=0.5|wcut|wcut:3: the partial has no end mark: it was cut short
	--flame|fcut|fcut:4: the partial has no end mark: it was cut short
	--whatif service=db:scale=0.5|f0|f0:1: a partial made for something else (another query, other options)
	--flame|w0|w0:1: a partial made for something else (another query, other options)
	--flame|f02|f02:1: a partial made for something else (another query, other options)
	--whatif service=db:scale=0.5|wv1|wv1:1: a partial of format 1, this tr-cp merges format 2: make it again
	--whatif service=db:scale=0.5|wcount|wcount:5: the end mark counts 4 records, 3 were read
	--whatif service=db:scale=0.5|wbad|wbad:4: not a tr-cp --whatif partial record (want T, a trace id and three counts, or R)
	EOF
}

@test "bad --whatif and --flame partial records are bad input naming file:line" {
	while IFS='|' read -r mode made rec want; do
		printf '#tr-cp-partial/2\t%s\n%s\n#end\t1\n' "$made" "$rec" | tr '~' '\t' > "$BATS_TEST_TMPDIR/bad"
		run --separate-stderr tr-cp $mode --merge "$BATS_TEST_TMPDIR/bad"
		expect_status 3 || { echo "$rec: status $status"; false; }
		expect_eq "tr-cp: $BATS_TEST_TMPDIR/bad:2: $want" "$stderr" || { echo "$rec: $stderr"; false; }
	done <<-'EOF'
	--whatif service=db:scale=2|whatif overlap-allowance=0.01 rules=service=db:scale=2|T~r1~10~x~0|not a tr-cp --whatif partial record (want T, a trace id and three counts, or R)
	--whatif service=db:scale=2|whatif overlap-allowance=0.01 rules=service=db:scale=2|T~r1~-1~5~0|not a tr-cp --whatif partial record (want T, a trace id and three counts, or R)
	--whatif service=db:scale=2|whatif overlap-allowance=0.01 rules=service=db:scale=2|R~1~0~0~0|bad R record (want R, a rule's index and three counts)
	--flame|flame overlap-allowance=0.01|N~0~web~GET~5|bad parent (want - or the index of an earlier node)
	--flame|flame overlap-allowance=0.01|N~-~web~GET~-5|bad critical-path time (want a count of µs)
	--flame|flame overlap-allowance=0.01|T~x|bad count of traces
	--flame|flame overlap-allowance=0.01|X~1|not a tr-cp --flame partial record (want T and a count per graph, or N, 3 fields and a time per graph)
	EOF
}

# --flame --percentile in two phases over the sample's 3 shards, in $d:
# phase 1 r$k, the bands, phase 2 p$k.
two_phases() {
	sample_shards
	for k in 0 1 2; do tr-cp --flame --percentile "$1" --partial "$d/shard$k.tr" > "$d/r$k"; done
	tr-cp --flame --percentile "$1" --merge --ranks "$d/r0" "$d/r1" "$d/r2" > "$d/bands"
	for k in 0 1 2; do tr-cp --flame --percentile "$1" --bands "$d/bands" --partial "$d/shard$k.tr" > "$d/p$k"; done
}

@test "--flame --percentile in two phases (ranks, then stacks per band): the SVG of one pass over the shards" {
	two_phases 50,95,99
	tr-cp --flame --percentile 50,95,99 "$d"/shard[012].tr > "$d/one.svg"
	run tr-cp --flame --percentile 50,95,99 --merge "$d/p0" "$d/p1" "$d/p2"
	expect_status 0
	expect_eq "$(cat "$d/one.svg")" "$output"
	expect_eq "$(tr-cp --flame --percentile 50,95,99 "$d/h.tr" | sort)" "$(echo "$output" | sort)"
}

@test "phase 1 holds each trace's latency, stream mark and id; the bands each banded trace's bands" {
	shards
	run tr-cp --flame --percentile 50 --partial "$BATS_TEST_TMPDIR/all.tr"
	expect_status 0
	expect_eq "$(printf '#tr-cp-partial/2\tflame-ranks overlap-allowance=0.01 keep-streams=0\nL\t900\t0\tr1\nL\t300\t0\tr2\nL\t1000\t0\tr3\n#end\t3')" "$output"
	echo "$output" > "$BATS_TEST_TMPDIR/r"
	run tr-cp --flame --percentile 50,99 --merge --ranks "$BATS_TEST_TMPDIR/r"
	expect_status 0
	expect_eq "$(printf '#tr-cp-partial/2\tflame-bands overlap-allowance=0.01 keep-streams=0 percentiles=50,99\nB\tr1\t1\nB\tr3\t2\n#end\t2')" "$output"
}

@test "bad phase-1 partials and bands files are bad input naming file:line" {
	two_phases 50,99
	b=$BATS_TEST_TMPDIR
	head -n 2 "$d/bands" > "$b/bcut"
	while IFS='|' read -r args file want; do
		run --separate-stderr tr-cp $args "$b/$file"
		expect_status 3 || { echo "$args $file: status $status"; false; }
		expect_empty "$output" || { echo "$args $file wrote: $output"; false; }
		expect_eq "tr-cp: $b/$want" "$stderr" || { echo "$args $file: $stderr"; false; }
	done <<-'EOF'
	--flame --percentile 50,99 --merge --ranks|p0|p0:1: a partial made for something else (another query, other options)
	--flame --percentile 50,99 --merge|r0|r0:1: a partial made for something else (another query, other options)
	--flame --percentile 50,95 --partial --bands|bands|bands:1: a partial made for something else (another query, other options)
	--flame --percentile 50,99 --partial --bands|bcut|bcut:3: the partial has no end mark: it was cut short
	--flame --percentile 50,99 --keep-streams --merge|p0|p0:1: a partial made for something else (another query, other options)
	EOF
	printf '#tr-cp-partial/2\tflame-ranks overlap-allowance=0.01 keep-streams=0\nL\tx\t0\tr1\n#end\t1\n' > "$b/bad"
	run tr-cp --flame --percentile 50 --merge --ranks "$b/bad"
	expect_status 3
	expect_output "tr-cp: $b/bad:2: not a tr-cp --flame --percentile phase-1 record (want L, a latency, 0 or 1 and a trace id)"
}

# --summary KEY --baseline in two phases over shards, in $d: an incident of
# about 300 traces and a baseline of 200 (more than 64: the batches double), each
# in 3 shards by trace; phase 1 r$k, the bands, phase 2 p$k (shard k of
# each side in one run).
baseline_phases() {
	d=$BATS_TEST_TMPDIR
	trsim --seed 3 --traces 300 -o "$d/inc.json"
	trsim --seed 4 --traces 200 -o "$d/base.json"
	tr-ingest --split 3 -o "$d/i" "$d/inc.json"
	tr-ingest --split 3 -o "$d/b" "$d/base.json"
	for k in 0 1 2; do tr-cp --summary "$1" --baseline "$d/b$k.tr" --partial "$d/i$k.tr" > "$d/r$k"; done
	tr-cp --summary "$1" --baseline - --merge --ranks "$d/r0" "$d/r1" "$d/r2" > "$d/bands"
	for k in 0 1 2; do tr-cp --summary "$1" --baseline "$d/b$k.tr" --bands "$d/bands" --partial "$d/i$k.tr" > "$d/p$k"; done
	cat "$d"/b[012].tr > "$d/base.tr"
}

@test "--summary service --baseline in two phases: the table and the verdict of one pass over the shards" {
	baseline_phases service
	tr-cp --summary service --baseline "$d/base.tr" "$d"/i[012].tr > "$d/one" 2> "$d/one.err"
	run --separate-stderr tr-cp --summary service --baseline - --merge "$d/p0" "$d/p1" "$d/p2"
	expect_status 0
	expect_eq "$(cat "$d/one")" "$output"
	expect_eq "$(grep '^tr-cp: --baseline: ' "$d/one.err")" "$stderr"
}

@test "--summary operation --baseline -f json in two phases, merged in any order: the JSON of one pass" {
	baseline_phases operation
	expected=$(tr-cp --summary operation -f json --baseline "$d/base.tr" "$d"/i[012].tr 2> /dev/null)
	run --separate-stderr tr-cp --summary operation -f json --baseline - --merge "$d/p2" "$d/p0" "$d/p1"
	expect_status 0
	expect_eq "$expected" "$output"
}

@test "--summary --baseline phase 2 merges through a combiner and from stdin" {
	baseline_phases service
	tr-cp --summary service --baseline - --merge --partial "$d/p0" "$d/p2" > "$d/c02"
	run --separate-stderr sh -c "cat '$d/c02' '$d/p1' | tr-cp --summary service --baseline - --merge"
	expect_status 0
	expect_eq "$(tr-cp --summary service --baseline "$d/base.tr" "$d"/i[012].tr 2> /dev/null)" "$output"
}

@test "--summary --baseline phase 1 holds each side's count and first trace; the bands each shard's first place" {
	shards
	run tr-cp --summary service --baseline "$BATS_TEST_TMPDIR/s0.tr" --partial "$BATS_TEST_TMPDIR/s1.tr"
	expect_status 0
	expect_eq "$(printf '#tr-cp-partial/2\tbaseline-ranks key=service overlap-allowance=0.01\nT\t0\t1\tr3\nT\t1\t2\tr1\n#end\t2')" "$output"
	echo "$output" > "$BATS_TEST_TMPDIR/r1"
	tr-cp --summary service --baseline "$BATS_TEST_TMPDIR/s1.tr" --partial "$BATS_TEST_TMPDIR/s0.tr" > "$BATS_TEST_TMPDIR/r0"
	run tr-cp --summary service --baseline - --merge --ranks "$BATS_TEST_TMPDIR/r0" "$BATS_TEST_TMPDIR/r1"
	expect_status 0
	expect_eq "$(printf '#tr-cp-partial/2\tbaseline-bands key=service overlap-allowance=0.01\nN\t3\t3\nO\t0\t0\t2\tr1\nO\t1\t0\t1\tr3\nO\t0\t2\t1\tr3\nO\t1\t1\t2\tr1\n#end\t5')" "$output"
}

@test "--summary --baseline phase 2: each side's shard is found by its first trace, whatever it is paired with" {
	baseline_phases service
	tr-cp --summary service --baseline "$d/b2.tr" --bands "$d/bands" --partial "$d/i0.tr" > "$d/x0"
	tr-cp --summary service --baseline "$d/b0.tr" --bands "$d/bands" --partial "$d/i2.tr" > "$d/x2"
	run --separate-stderr tr-cp --summary service --baseline - --merge "$d/x0" "$d/p1" "$d/x2"
	expect_status 0
	expect_eq "$(tr-cp --summary service --baseline "$d/base.tr" "$d"/i[012].tr 2> /dev/null)" "$output"
}

@test "--summary --baseline: a shard phase 1 did not count, given twice, or missing is bad input, nothing written" {
	baseline_phases service
	awk '/^T/ { n++ } n < 10' "$d/b0.tr" > "$d/short.tr"
	run --separate-stderr tr-cp -q --summary service --baseline "$d/short.tr" --bands "$d/bands" --partial "$d/i0.tr"
	expect_status 3
	expect_empty "$output"
	expect_like "tr-cp: $d/bands: this shard has 9 baseline traces, phase 1 counted * (it ran over another shard)" "$stderr"
	first=$(awk -F'\t' '$1 == "T" { print $2; exit }' "$d/i0.tr")
	awk -F'\t' -v t="$first" '$2 != t' "$d/i0.tr" > "$d/odd.tr"
	run --separate-stderr tr-cp -q --summary service --baseline "$d/b0.tr" --bands "$d/bands" --partial "$d/odd.tr"
	expect_status 3
	expect_like "tr-cp: $d/bands: trace *, the first of this shard's incident traces, is the first of no shard there (phase 1 ran over other shards)" "$stderr"
	run --separate-stderr tr-cp --summary service --baseline - --merge --ranks "$d/r0" "$d/r1" "$d/r0"
	expect_status 3
	expect_empty "$output"
	expect_like "tr-cp: $d/r0:2: the incident shard whose first trace is * was given before: give each shard once" "$stderr"
	run --separate-stderr tr-cp --summary service --baseline - --merge "$d/p0" "$d/p2"
	expect_status 3
	expect_empty "$output"
	expect_like "tr-cp: --baseline --merge: the partials hold * of the * incident traces phase 1 counted: a shard is missing or was given twice" "$stderr"
}

@test "--summary percentiles over shards are exact: per-trace values, no sketch, the table of one pass" {
	d=$BATS_TEST_TMPDIR
	trsim --seed 5 --traces 400 | tr-ingest -q > "$d/all.tr"
	tr-ingest --split 4 -o "$d/s" "$d/all.tr"
	for key in service operation; do
		for k in 0 1 2 3; do tr-cp -q --summary $key --partial "$d/s$k.tr" > "$d/p$k"; done
		run --separate-stderr tr-cp --summary $key --merge "$d/p3" "$d/p1" "$d/p0" "$d/p2"
		expect_status 0
		expect_eq "$(tr-cp -q --summary $key "$d/all.tr")" "$output" "--summary $key"
		expect_empty "$stderr"
		expect_contains "p99" "$(head -n 1 <<< "$output")"
	done
}

# --flame --baseline over N shards of each side, in $d: an incident of 300
# traces and a baseline of 200 by trsim, i$k.tr and b$k.tr; the partials
# p$k (shard k of each side in one run); base.tr, the baseline's shards one
# after the other, inc.tr the incident's.
flame_baseline_shards() {
	d=$BATS_TEST_TMPDIR
	trsim --seed 3 --traces 300 -o "$d/inc.json"
	trsim --seed 4 --traces 200 -o "$d/base.json"
	rm -f "$d"/i*.tr "$d"/b*.tr "$d"/p[0-9]*
	tr-ingest --split "$1" -o "$d/i" "$d/inc.json"
	tr-ingest --split "$1" -o "$d/b" "$d/base.json"
	for ((k = 0; k < $1; k++)); do
		tr-cp -q --flame --baseline "$d/b$k.tr" --partial "$d/i$k.tr" > "$d/p$k"
		parts+=("$d/p$k"); bases+=("$d/b$k.tr"); incs+=("$d/i$k.tr")
	done
	cat "${bases[@]}" > "$d/base.tr"
}

@test "--flame --baseline over 1, 2 and 4 shards: --baseline - --merge writes the SVG of one pass over the shards" {
	for n in 1 2 4; do
		parts=() bases=() incs=()
		flame_baseline_shards $n
		run --separate-stderr tr-cp --flame --baseline - --merge "${parts[@]}"
		expect_status 0
		expect_eq "$(tr-cp -q --flame --baseline "$d/base.tr" "${incs[@]}")" "$output" "$n shards"
		expect_contains "Differential critical-path flame graph" "$output"
	done
}

@test "--flame --baseline --merge: the frames of one pass over the unsharded inputs, in the shards' order" {
	parts=() bases=() incs=()
	flame_baseline_shards 2
	tr-ingest -q "$d/base.json" > "$d/b.tr"
	tr-cp --flame --baseline - --merge "${parts[@]}" > "$d/merged.svg"
	expect_eq "$(tr-cp -q --flame --baseline "$d/b.tr" "$d/inc.json" | sort)" "$(sort "$d/merged.svg")"
}

@test "--flame --baseline --merge --partial combines partials, and merges from stdin" {
	parts=() bases=() incs=()
	flame_baseline_shards 4
	tr-cp --flame --baseline - --merge --partial "$d/p0" "$d/p1" > "$d/c01"
	run --separate-stderr sh -c "cat '$d/c01' '$d/p2' '$d/p3' | tr-cp --flame --baseline - --merge"
	expect_status 0
	expect_eq "$(tr-cp -q --flame --baseline "$d/base.tr" "${incs[@]}")" "$output"
}

# Frames only one side has, met first in different shards: the baseline
# has db in shard 0 and cache in shard 1, the incident queue in shard 0
# and cache, then log, in shard 1.
frames_apart() {
	d=$BATS_TEST_TMPDIR
	printf '%s\n' '#tr/1' \
		'T	b1' 'S	b1	a		0	900	web	GET	server	h' 'S	b1	b	a	100	500	db	query	client	h' \
		'T	b2' 'S	b2	a		0	800	web	GET	server	h' 'S	b2	b	a	100	400	db	query	client	h' > "$d/b0.tr"
	printf '%s\n' '#tr/1' \
		'T	b3' 'S	b3	a		0	700	web	GET	server	h' 'S	b3	b	a	50	300	cache	get	client	h' > "$d/b1.tr"
	printf '%s\n' '#tr/1' \
		'T	i1' 'S	i1	a		0	990	web	GET	server	h' 'S	i1	b	a	100	900	queue	put	client	h' > "$d/i0.tr"
	printf '%s\n' '#tr/1' \
		'T	i2' 'S	i2	a		0	950	web	GET	server	h' 'S	i2	b	a	10	300	cache	get	client	h' \
		'S	i2	c	a	400	900	log	write	client	h' > "$d/i1.tr"
	cat "$d/b0.tr" "$d/b1.tr" > "$d/base.tr"
	tr-cp --flame --baseline "$d/b0.tr" --partial "$d/i0.tr" > "$d/p0"
	tr-cp --flame --baseline "$d/b1.tr" --partial "$d/i1.tr" > "$d/p1"
}

@test "--flame --baseline: the partial holds the baseline's tree (T 1), then the incident's (T 0), each in its own order" {
	frames_apart
	expect_eq "$(printf '%s\n' '#tr-cp-partial/2	flame-baseline overlap-allowance=0.01' \
		'T	1	1' 'N	-	web	GET	400' 'N	0	cache	get	300' \
		'T	0	1' 'N	-	web	GET	100' 'N	0	log	write	550' 'N	0	cache	get	300' '#end	7')" "$(cat "$d/p1")"
}

# The SVG draws the frames in the order made: the baseline's (db, drawn
# only where the incident spends time, then cache from its shard 1), then
# the incident's others (queue, log); a merge taking each partial's two
# trees in turn would make queue before cache.
@test "--flame --baseline --merge: frames one side has, met in other shards, come in the order of one pass" {
	frames_apart
	run --separate-stderr tr-cp --flame --baseline - --merge "$d/p0" "$d/p1"
	expect_status 0
	expect_eq "$(tr-cp --flame --baseline "$d/base.tr" "$d/i0.tr" "$d/i1.tr" 2> /dev/null)" "$output"
	expect_eq "cache queue log" "$(grep -o '<title>[a-z]*:' <<< "$output" | sed 's/<title>//; s/://' | awk '$0 != "web" && !seen[$0]++' | tr '\n' ' ' | sed 's/ $//')"
}

@test "--flame --baseline --merge: no incident trace, or a baseline of fewer than 2, is bad input, nothing written" {
	frames_apart
	tr-cp --flame --baseline "$d/b1.tr" --partial --allow-empty /dev/null > "$d/none"
	run --separate-stderr tr-cp --flame --baseline - --merge "$d/none"
	expect_status 3
	expect_empty "$output"
	expect_eq "tr-cp: --flame: no trace with a timed root to draw" "$stderr"
	run --separate-stderr tr-cp --flame --baseline - --merge "$d/p1"
	expect_status 3
	expect_empty "$output"
	expect_eq "tr-cp: --baseline --merge: 1 baseline traces have a timed root; a baseline needs at least 2 to have a spread" "$stderr"
}

# --flame --percentile P --baseline in two phases over N shards of each
# side (flame_baseline_shards), in $d: phase 1 r$k, the bands, phase 2 q$k.
flame_baseline_phases() {
	flame_baseline_shards "$1"
	rparts=() qparts=()
	for ((k = 0; k < $1; k++)); do
		tr-cp -q --flame --percentile "$2" --baseline "$d/b$k.tr" --partial "$d/i$k.tr" > "$d/r$k"
		rparts+=("$d/r$k")
	done
	tr-cp --flame --percentile "$2" --baseline - --merge --ranks "${rparts[@]}" > "$d/bands"
	for ((k = 0; k < $1; k++)); do
		tr-cp -q --flame --percentile "$2" --baseline "$d/b$k.tr" --bands "$d/bands" --partial "$d/i$k.tr" > "$d/q$k"
		qparts+=("$d/q$k")
	done
}

@test "--flame --percentile --baseline in two phases over 1, 2 and 4 shards: the SVG of one pass over the shards" {
	for n in 1 2 4; do
		parts=() bases=() incs=()
		flame_baseline_phases $n 50,95,99
		run --separate-stderr tr-cp --flame --percentile 50,95,99 --baseline - --merge "${qparts[@]}"
		expect_status 0
		expect_eq "$(tr-cp -q --flame --percentile 50,95,99 --baseline "$d/base.tr" "${incs[@]}")" "$output" "$n shards"
	done
}

@test "--flame --percentile --baseline phase 1 names each trace's side; the bands rank each side among its own" {
	frames_apart
	run tr-cp --flame --percentile 50 --baseline "$d/base.tr" --partial "$d/i0.tr" "$d/i1.tr"
	expect_status 0
	expect_eq "$(printf '%s\n' '#tr-cp-partial/2	flame-baseline-ranks overlap-allowance=0.01 keep-streams=0' \
		'L	1	900	0	b1' 'L	1	800	0	b2' 'L	1	700	0	b3' 'L	0	990	0	i1' 'L	0	950	0	i2' '#end	5')" "$output"
	echo "$output" > "$d/r"
	run tr-cp --flame --percentile 50,99 --baseline - --merge --ranks "$d/r"
	expect_status 0
	expect_eq "$(printf '%s\n' '#tr-cp-partial/2	flame-baseline-bands overlap-allowance=0.01 keep-streams=0 percentiles=50,99' \
		'B	1	b1	2' 'B	1	b2	1' 'B	0	i1	3' 'B	0	i2	1' '#end	4')" "$output"
}

@test "bad --flame --baseline partial records are bad input naming file:line" {
	while IFS='|' read -r rec want; do
		printf '#tr-cp-partial/2\tflame-baseline overlap-allowance=0.01\n%s\n#end\t1\n' "$rec" | tr '~' '\t' > "$BATS_TEST_TMPDIR/bad"
		run --separate-stderr tr-cp --flame --baseline - --merge "$BATS_TEST_TMPDIR/bad"
		expect_status 3 || { echo "$rec: status $status"; false; }
		expect_empty "$output"
		expect_eq "tr-cp: $BATS_TEST_TMPDIR/bad:2: $want" "$stderr" || { echo "$rec: $stderr"; false; }
	done <<-'EOF2'
	N~-~web~GET~5|a node before its side's T record
	T~0~1|the sides mixed up (want T 1, the baseline's tree, then T 0, the incident's, in each partial)
	T~2~1|the sides mixed up (want T 1, the baseline's tree, then T 0, the incident's, in each partial)
	T~1~x|bad count of traces
	T~1|not a tr-cp --flame --baseline partial record (want T, 0 or 1 and a count per graph, or N, 3 fields and a time per graph)
	EOF2
}

@test "--summary --baseline --merge: a shard missing and another given twice in its place, as many traces, is told" {
	d=$BATS_TEST_TMPDIR
	trsim --seed 3 --traces 300 | tr-ingest > "$d/inc.tr"
	trsim --seed 4 --traces 200 | tr-ingest > "$d/base.tr"
	tr-ingest --split-time 4 -o "$d/i" "$d/inc.tr"	# runs in order, as even as can be
	tr-ingest --split-time 4 -o "$d/b" "$d/base.tr"
	expect_eq "$(grep -c '^T' "$d/i1.tr")" "$(grep -c '^T' "$d/i2.tr")" "incident traces in shards 1 and 2"
	expect_eq "$(grep -c '^T' "$d/b1.tr")" "$(grep -c '^T' "$d/b2.tr")" "baseline traces in shards 1 and 2"
	for k in 0 1 2 3; do tr-cp --summary service --baseline "$d/b$k.tr" --partial "$d/i$k.tr" > "$d/r$k"; done
	tr-cp --summary service --baseline - --merge --ranks "$d"/r[0-3] > "$d/bands"
	for k in 0 1 2 3; do
		tr-cp -q --summary service --baseline "$d/b$k.tr" --bands "$d/bands" --partial "$d/i$k.tr" > "$d/p$k"
	done
	run --separate-stderr tr-cp --summary service --baseline - --merge "$d/p0" "$d/p1" "$d/p1" "$d/p3"
	expect_status 3
	expect_empty "$output"
	expect_like "tr-cp: --baseline --merge: the incident traces from place * are in two partials: a shard was given twice" "$stderr"
	run --separate-stderr tr-cp --summary service --baseline - --merge "$d/p0" "$d/p1" "$d/p2" "$d/p3"
	expect_status 0
}
