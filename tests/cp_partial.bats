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
	expected=$(printf '#tr-cp-partial/1\tsummary\tservice\nG\tweb\t\t500\t500\t2\t0\t100:1,400:1\nG\tdb\t\t700\t700\t2\t0\t200:1,500:1')
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
	expect_output "tr-cp: $BATS_TEST_TMPDIR/p0:1: a partial of another --summary key (want operation)"
}

@test "bad --summary partial records are bad input naming file:line, nothing written" {
	h=$(printf '#tr-cp-partial/1\tsummary\tservice')
	while IFS='|' read -r rec want; do
		printf '%s\n%s\n' "$h" "$rec" | tr '~' '\t' > "$BATS_TEST_TMPDIR/bad"
		run --separate-stderr tr-cp --summary service --merge "$BATS_TEST_TMPDIR/bad"
		expect_status 3 || { echo "$rec: status $status"; false; }
		[ -z "$output" ] || { echo "$rec wrote: $output"; false; }
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

@test "--partial and --merge go with --summary and --folded only" {
	for args in "--partial" "--merge" "--whatif service=web:scale=0.5 --partial" "--summary service --baseline /dev/null --merge" "--dot --merge"; do
		run tr-cp $args /dev/null
		expect_status 2 || { echo "$args: status $status: $output"; false; }
		expect_like "tr-cp: --partial and --merge go with --summary \(no --baseline\) and --folded*" "$output" || { echo "$args: $output"; false; }
	done
}
