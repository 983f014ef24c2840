#!/usr/bin/env bats
# tr-ingest --shard K/N and --split N: the shuffle by trace; the line format
# as input, a trace met in several inputs regrouped; --files-from.
load helper

# lines FILE ID:SPAN:START...: a line-format file, one T record and S
# records for each ID in the order given (a T record whenever the id changes).
lines() {
	local f=$1 last="" id span start
	shift
	printf '#tr/1\n' > "$f"
	for a in "$@"; do
		IFS=: read -r id span start <<< "$a"
		[ "$id" = "$last" ] || printf 'T\t%s\n' "$id" >> "$f"
		last=$id
		printf 'S\t%s\t%s\t\t%s\t10\tsvc\top\tserver\th\n' "$id" "$span" "$start" >> "$f"
	done
}

# The documented shard of a trace id: 64-bit FNV-1a of its bytes, modulo N,
# computed here in the shell's wrapping 64-bit arithmetic.
fnv_shard() {
	local id=$1 n=$2 h=-3750763034362895579 i c
	for ((i = 0; i < ${#id}; i++)); do
		printf -v c '%d' "'${id:i:1}"
		h=$(((h ^ c) * 1099511628211))
	done
	# unsigned h mod n, from the signed value
	echo $(((((h >> 1) & 0x7fffffffffffffff) % n * 2 + (h & 1)) % n))
}

ids() {
	awk -F'\t' '$1 == "T" { print $2 }'
}

@test "--shard K/N keeps the traces whose id hashes to K (FNV-1a modulo N)" {
	args=()
	for i in $(seq 1 40); do args+=("trace$i:s1:100"); done
	lines "$BATS_TEST_TMPDIR/in.tr" "${args[@]}"
	expected=$(for i in $(seq 1 40); do [ "$(fnv_shard "trace$i" 3)" = 1 ] && echo "trace$i"; done || true)
	run tr-ingest --shard 1/3 "$BATS_TEST_TMPDIR/in.tr"
	expect_status 0
	actual=$(printf '%s\n' "$output" | ids)
	diff <(echo "$expected") <(echo "$actual")
	expect_nonempty "$expected"
}

@test "--split N -o PREFIX writes PREFIX0.tr to PREFIX<N-1>.tr, each the same as --shard K/N" {
	args=()
	for i in $(seq 1 30); do args+=("t$i:a:$i" "t$i:b:$((i + 1))"); done
	lines "$BATS_TEST_TMPDIR/in.tr" "${args[@]}"
	run tr-ingest --split 4 -o "$BATS_TEST_TMPDIR/part" "$BATS_TEST_TMPDIR/in.tr"
	expect_status 0
	for k in 0 1 2 3; do
		expected=$(tr-ingest --shard "$k/4" "$BATS_TEST_TMPDIR/in.tr")
		diff <(echo "$expected") "$BATS_TEST_TMPDIR/part$k.tr"
	done
	[ ! -e "$BATS_TEST_TMPDIR/part4.tr" ]
}

@test "the shards of --split hold every trace once, with all its records" {
	args=()
	for i in $(seq 1 30); do args+=("t$i:a:$i" "t$i:b:$((i + 1))"); done
	lines "$BATS_TEST_TMPDIR/in.tr" "${args[@]}"
	tr-ingest --split 3 -o "$BATS_TEST_TMPDIR/p" "$BATS_TEST_TMPDIR/in.tr"
	expected=$(grep -v '^#' "$BATS_TEST_TMPDIR/in.tr" | sort)
	actual=$(cat "$BATS_TEST_TMPDIR"/p[012].tr | grep -v '^#' | sort)
	diff <(echo "$expected") <(echo "$actual")
}

@test "a trace cut across two inputs comes out as one group holding both pieces" {
	lines "$BATS_TEST_TMPDIR/a.tr" x:root:1 y:r:1 x:c1:2
	lines "$BATS_TEST_TMPDIR/b.tr" x:c2:3 z:r:4
	run tr-ingest --shard 0/1 "$BATS_TEST_TMPDIR/a.tr" "$BATS_TEST_TMPDIR/b.tr"
	expect_status 0
	expected=$(printf '#tr/1\nT\tx\nS\tx\troot\t\t1\t10\tsvc\top\tserver\th\nS\tx\tc1\t\t2\t10\tsvc\top\tserver\th\nS\tx\tc2\t\t3\t10\tsvc\top\tserver\th\nT\ty\nS\ty\tr\t\t1\t10\tsvc\top\tserver\th\nT\tz\nS\tz\tr\t\t4\t10\tsvc\top\tserver\th')
	diff <(echo "$expected") <(echo "$output")
}

@test "the line format is read without --shard: a trace in two inputs is one group" {
	lines "$BATS_TEST_TMPDIR/a.tr" x:root:1
	lines "$BATS_TEST_TMPDIR/b.tr" x:c2:3
	run tr-ingest "$BATS_TEST_TMPDIR/a.tr" "$BATS_TEST_TMPDIR/b.tr"
	expect_status 0
	diff <(echo x) <(printf '%s\n' "$output" | ids)
	expect_num 2 "$(printf '%s\n' "$output" | grep -c '^S')"
}

@test "an input given twice: its spans are written once" {
	lines "$BATS_TEST_TMPDIR/a.tr" x:root:1 x:c:2
	run tr-ingest --shard 0/1 "$BATS_TEST_TMPDIR/a.tr" "$BATS_TEST_TMPDIR/a.tr"
	expect_status 0
	diff "$BATS_TEST_TMPDIR/a.tr" <(printf '%s\n' "$output")
}

@test "a trace in two groups of one input is one group" {
	lines "$BATS_TEST_TMPDIR/a.tr" x:root:1 y:r:1 x:c:2
	run tr-ingest "$BATS_TEST_TMPDIR/a.tr"
	expect_status 0
	diff <(printf 'x\ny\n') <(printf '%s\n' "$output" | ids)
}

@test "an export is converted and sharded: the same as converting, then sharding" {
	tr-ingest "$SAMPLES"/jaeger/hotrod.json > "$BATS_TEST_TMPDIR/all.tr" 2>/dev/null || skip "no JSON sample"
	expected=$(tr-ingest --shard 1/2 "$BATS_TEST_TMPDIR/all.tr")
	run tr-ingest --shard 1/2 "$SAMPLES"/jaeger/hotrod.json
	expect_status 0
	diff <(echo "$expected") <(echo "$output")
}

@test "--split with -z writes PREFIXK.tr.zst" {
	lines "$BATS_TEST_TMPDIR/a.tr" x:root:1 y:r:2
	tr-ingest -z --split 2 -o "$BATS_TEST_TMPDIR/p" "$BATS_TEST_TMPDIR/a.tr"
	expected=$(tr-ingest --shard 0/2 "$BATS_TEST_TMPDIR/a.tr")
	diff <(echo "$expected") <(zstd -dc "$BATS_TEST_TMPDIR/p0.tr.zst")
}

@test "--files-from FILE reads the inputs it lists, one a line" {
	lines "$BATS_TEST_TMPDIR/a.tr" x:root:1
	lines "$BATS_TEST_TMPDIR/b.tr" y:root:1
	printf '%s\n\n%s\n' "$BATS_TEST_TMPDIR/a.tr" "$BATS_TEST_TMPDIR/b.tr" > "$BATS_TEST_TMPDIR/list"
	run tr-ingest --files-from "$BATS_TEST_TMPDIR/list"
	expect_status 0
	diff <(printf 'x\ny\n') <(printf '%s\n' "$output" | ids)
}

@test "--files-from - reads the list on stdin, one converter for every file" {
	lines "$BATS_TEST_TMPDIR/a.tr" x:root:1
	lines "$BATS_TEST_TMPDIR/b.tr" x:c:2
	run tr-ingest --files-from - <<< "$BATS_TEST_TMPDIR/a.tr
$BATS_TEST_TMPDIR/b.tr"
	expect_status 0
	diff <(echo x) <(printf '%s\n' "$output" | ids)
}

@test "--files-from with JSON exports converts them as the command line does" {
	ls "$SAMPLES"/jaeger/hotrod.json "$SAMPLES"/otlp/hotrod.json > "$BATS_TEST_TMPDIR/list" || skip "no JSON sample"
	expected=$(tr-ingest "$SAMPLES"/jaeger/hotrod.json "$SAMPLES"/otlp/hotrod.json 2>&1)
	run tr-ingest --files-from "$BATS_TEST_TMPDIR/list"
	diff <(echo "$expected") <(echo "$output")
}

@test "bad --shard values are usage errors" {
	for v in 4/4 x 1 -1/2 1/0 0/65537; do
		run tr-ingest --shard "$v" /dev/null
		expect_status 2 || { echo "--shard $v: status $status: $output"; false; }
		expect_contains 'tr-ingest: --shard: K/N' "$output"
	done
}

@test "--split without -o is a usage error" {
	run tr-ingest --split 2 /dev/null
	expect_status 2
	expect_contains 'tr-ingest: --split: -o PREFIX names the outputs' "$output"
}

@test "--split 0 and --shard with --split are usage errors" {
	run tr-ingest --split 0 -o x /dev/null
	expect_status 2
	expect_contains "--split: not a count from 1 to 1000: 0" "$output"
	run tr-ingest --shard 0/2 --split 2 -o x /dev/null
	expect_status 2
	expect_contains '--shard and --split: one of them' "$output"
}

@test "a bad record in a line-format input is bad input naming file:line, and no output is left" {
	lines "$BATS_TEST_TMPDIR/a.tr" x:root:1
	printf 'S\tx\tbad\t\tnotatime\t10\tsvc\top\tserver\th\n' >> "$BATS_TEST_TMPDIR/a.tr"
	run tr-ingest --split 2 -o "$BATS_TEST_TMPDIR/p" "$BATS_TEST_TMPDIR/a.tr"
	expect_status 3
	expect_like "tr-ingest: $BATS_TEST_TMPDIR/a.tr:4: *" "$output"
	[ ! -e "$BATS_TEST_TMPDIR/p0.tr" ]
}

@test "--files-from naming a missing file is bad input" {
	echo "$BATS_TEST_TMPDIR/nothere.tr" > "$BATS_TEST_TMPDIR/list"
	run tr-ingest --shard 0/2 --files-from "$BATS_TEST_TMPDIR/list"
	expect_status 3
	expect_contains 'nothere.tr' "$output"
}

@test "a missing --files-from list is bad input" {
	run tr-ingest --files-from "$BATS_TEST_TMPDIR/nolist"
	expect_status 3
	expect_output "tr-ingest: $BATS_TEST_TMPDIR/nolist: No such file or directory"
}

@test "a shard with no trace of the input is written, with its header only" {
	lines "$BATS_TEST_TMPDIR/a.tr" x:root:1
	tr-ingest --split 8 -o "$BATS_TEST_TMPDIR/p" "$BATS_TEST_TMPDIR/a.tr"
	expect_num 8 "$(cat "$BATS_TEST_TMPDIR"/p*.tr | grep -c '^#tr/1')"
	expect_num 1 "$(cat "$BATS_TEST_TMPDIR"/p*.tr | grep -c '^T')"
}

@test "an empty line-format input is an error unless --allow-empty" {
	printf '#tr/1\n' > "$BATS_TEST_TMPDIR/e.tr"
	run tr-ingest --shard 0/2 "$BATS_TEST_TMPDIR/e.tr"
	expect_status 3
	run tr-ingest --shard 0/2 --allow-empty "$BATS_TEST_TMPDIR/e.tr"
	expect_status 0
	expect_output "#tr/1"
}

@test "--split 1000 writes 1000 outputs" {
	lines "$BATS_TEST_TMPDIR/a.tr" x:root:1 y:r:2
	mkdir "$BATS_TEST_TMPDIR/o"
	run tr-ingest --split 1000 -o "$BATS_TEST_TMPDIR/o/p" "$BATS_TEST_TMPDIR/a.tr"
	expect_status 0
	expect_num 1000 "$(ls "$BATS_TEST_TMPDIR/o" | wc -l)"
}

@test "--split 1001 is a usage error" {
	lines "$BATS_TEST_TMPDIR/a.tr" x:root:1 y:r:2
	mkdir "$BATS_TEST_TMPDIR/o"
	run tr-ingest --split 1001 -o "$BATS_TEST_TMPDIR/o/p" "$BATS_TEST_TMPDIR/a.tr"
	expect_status 2
}

@test "the line format on a pipe: refused with a hint, read with --shard 0/1" {
	lines "$BATS_TEST_TMPDIR/a.tr" x:root:1 y:r:2 x:c:3
	run tr-ingest < "$BATS_TEST_TMPDIR/a.tr"
	expect_status 3
	expect_contains 'looks like the tr line format already: tr-ingest reads it from a pipe with --shard 0/1; the other tools read it directly' "$output"
	run sh -c "cat '$BATS_TEST_TMPDIR/a.tr' | tr-ingest --shard 0/1"
	expect_status 0
	diff <(printf 'x\ny\n') <(printf '%s\n' "$output" | ids)
}
