#!/usr/bin/env bats
# tr-ingest --clock-offsets --partial and --merge: the evidence behind the
# clock offsets of each shard, merged and solved once, gives the O records
# of one pass (tr-ingest(1)). The simulator's hosts run clocks up to 20 ms
# apart.

load helper
bats_require_minimum_version 1.5.0

TAB=$'\t'

setup_file() {
	trsim --seed 3 --traces 300 --clock-skew 20000 | tr-ingest > "$BATS_FILE_TMPDIR/one.tr"
	tr-ingest --clock-offsets "$BATS_FILE_TMPDIR/one.tr" > "$BATS_FILE_TMPDIR/one.O"
}

one=
setup() {
	one=$BATS_FILE_TMPDIR/one.tr
	cd "$BATS_TEST_TMPDIR" || return
}

# partials N HALO: the input cut into N runs in its order (with HALO traces
# of the neighbours), a partial of each: p0 ... p<N-1>.
partials() {
	tr-ingest --split-time "$1" --halo "$2" -o run "$one"
	for i in $(seq 0 $(($1 - 1))); do
		tr-ingest --clock-offsets --partial "run$i.tr" > "p$i"
	done
}

# The partials of N runs merged: the O records of one pass, byte for byte.
merged_is_one_pass() {
	partials "$1" 0
	tr-ingest --clock-offsets --merge $(seq -f 'p%g' 0 $(($1 - 1))) > merged
	expect_eq "$(cat "$BATS_FILE_TMPDIR/one.O")" "$(cat merged)" "offsets merged from $1 shards"
}

@test "the input has offsets to estimate: hosts on skewed clocks" {
	expect_ge 6 "$(grep -c '^O' "$BATS_FILE_TMPDIR/one.O")"
	expect_ne 0 "$(awk -F'\t' '$1 == "O" && $4 != 0' "$BATS_FILE_TMPDIR/one.O" | wc -l)" "hosts moved"
}

@test "--clock-offsets --merge of 1 partial writes the O records of one pass" {
	merged_is_one_pass 1
}

@test "--clock-offsets --merge of 2 shards' partials writes the O records of one pass" {
	merged_is_one_pass 2
}

@test "--clock-offsets --merge of 4 shards' partials writes the O records of one pass" {
	merged_is_one_pass 4
}

@test "--merge reads the partials one after the other on standard input" {
	partials 4 0
	expect_eq "$(cat "$BATS_FILE_TMPDIR/one.O")" "$(cat p0 p1 p2 p3 | tr-ingest --clock-offsets --merge)"
}

@test "a halo trace's RPCs count in the shard that owns it only" {
	partials 4 20
	expect_eq "$(cat "$BATS_FILE_TMPDIR/one.O")" "$(tr-ingest --clock-offsets --merge p0 p1 p2 p3)"
	expect_ne "$(cat p1)" "$(tr-ingest --clock-offsets --partial <(sed 's/\ttr.halo=true//' run1.tr))" \
		"the partial of the run with its halo counted"
}

@test "shards by trace id merge to the same offsets, hosts in the order of one pass over the shards" {
	tr-ingest --split 2 -o s "$one"
	tr-ingest --clock-offsets --partial s0.tr > q0
	tr-ingest --clock-offsets --partial s1.tr > q1
	tr-ingest --clock-offsets --merge q0 q1 > merged
	expect_eq "$(sort "$BATS_FILE_TMPDIR/one.O")" "$(sort merged)"
	expect_eq "$(tr-ingest --clock-offsets s0.tr s1.tr)" "$(cat merged)"
}

@test "a partial holds H and P records in a frame" {
	partials 1 0
	expect_eq "#tr-ingest-partial/2${TAB}clock-offsets" "$(head -1 p0)"
	expect_eq "#end${TAB}$(($(wc -l < p0) - 2))" "$(tail -1 p0)"
	expect_eq "" "$(sed '1d;$d' p0 | awk -F'\t' '!($1 == "H" && NF == 3) && !($1 == "P" && NF == 15)')"
}

@test "partials as --clock-offsets=FILE give a filter the estimate of one pass" {
	partials 2 0
	cat p0 p1 > clocks.part
	expect_eq "$(tr-temporal -w 40 "$one" | cksum)" \
		"$(tr-temporal -w 40 --clock-offsets=clocks.part "$one" | cksum)"
}

@test "--clock-offsets=FILE read through a pipe: partials and O records alike, the file is opened once" {
	partials 2 0
	cat p0 p1 > clocks.part
	tr-ingest --clock-offsets "$one" > clocks.o
	expect_eq "$(tr-temporal -w 40 --clock-offsets=clocks.part "$one" | cksum)" \
		"$(tr-temporal -w 40 --clock-offsets=<(cat clocks.part) "$one" | cksum)" "partials"
	expect_eq "$(tr-temporal -w 40 --clock-offsets=clocks.o "$one" | cksum)" \
		"$(tr-temporal -w 40 --clock-offsets=<(cat clocks.o) "$one" | cksum)" "O records"
}

@test "--merge of an empty file is bad input at file:line" {
	: > empty
	run -3 tr-ingest --clock-offsets --merge empty
	expect_output "tr-ingest: empty:1: an empty file, not a partial"
}

@test "--merge of a partial cut at a line boundary is bad input, nothing written" {
	partials 2 0
	head -n 3 p1 > cut
	run -3 --separate-stderr tr-ingest --clock-offsets --merge p0 cut
	expect_eq "tr-ingest: cut:4: the partial has no end mark: it was cut short" "$stderr"
	expect_output ""
}

@test "--merge of O records is not a partial" {
	run -3 tr-ingest --clock-offsets --merge "$BATS_FILE_TMPDIR/one.O"
	expect_output "tr-ingest: $BATS_FILE_TMPDIR/one.O:1: not a tr-ingest --partial file (its first line is not #tr-ingest-partial/2)"
}

@test "--merge of a bad clock record says file:line" {
	printf '#tr-ingest-partial/2\tclock-offsets\nH\ta\tx\n#end\t1\n' > bad
	run -3 tr-ingest --clock-offsets --merge bad
	expect_output "tr-ingest: bad:2: not a clock record (H host calls, or P host host and two sides of six numbers)"
}

@test "--partial and --merge go with --clock-offsets" {
	run -2 tr-ingest --partial "$one"
	expect_contains "--partial and --merge go with --clock-offsets" "$output"
}
