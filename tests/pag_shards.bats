#!/usr/bin/env bats
# tr-pag over shards by time: each shard holds its windows' traces and a
# halo around them, writes (through tr-cp) a partial of the windows it owns
# (tr-pag --own), and tr-pag --merge writes the table of one pass, totals
# included (tr-pag(1), Shards by time). A halo too small is told.

load helper
bats_require_minimum_version 1.5.0

SEC=1000000
TAB=$'\t'

setup_file() {
	trsim --seed 7 --traces 600 | tr-ingest > "$BATS_FILE_TMPDIR/one.tr"
	tr-pag -P -w 1s "$BATS_FILE_TMPDIR/one.tr" 2> /dev/null | tr-cp > "$BATS_FILE_TMPDIR/one.cp"
}

one=
setup() {
	one=$BATS_FILE_TMPDIR/one.tr
	cd "$BATS_TEST_TMPDIR" || return
}

# shards N HALO_S: the input cut by time into N shards with a halo of
# HALO_S seconds (scripts/time-shards.awk), each shard's partial p0 ...
shards() {
	awk -F'\t' -v n="$1" -v window=$SEC -v halo=$(($2 * SEC)) -v prefix=run \
		-f "$BATS_TEST_DIRNAME/../scripts/time-shards.awk" "$one" "$one"
	for i in $(seq 0 $(($1 - 1))); do
		tr-pag -P -w 1s --own "$(cat "run$i.own")" "run$i.tr" 2> /dev/null | tr-cp > "p$i"
	done
}

@test "the one-pass table has windows and totals to merge" {
	expect_ge 20 "$(awk -F'\t' '$3 == "window"' "$BATS_FILE_TMPDIR/one.cp" | wc -l)" "windows"
	expect_ge 10 "$(awk -F'\t' '$3 ~ /^total\./' "$BATS_FILE_TMPDIR/one.cp" | wc -l)" "total rows"
}

@test "tr-pag --merge of 2 time shards with a 6 s halo is one pass's table" {
	shards 2 6
	expect_eq "$(cat "$BATS_FILE_TMPDIR/one.cp")" "$(tr-pag --merge p0 p1)"
}

@test "tr-pag --merge of 4 time shards with a 6 s halo is one pass's table" {
	shards 4 6
	expect_eq "$(cat "$BATS_FILE_TMPDIR/one.cp")" "$(tr-pag --merge p0 p1 p2 p3)"
}

@test "--merge reads the partials on standard input, in any order" {
	shards 4 6
	expect_eq "$(cat "$BATS_FILE_TMPDIR/one.cp")" "$(cat p2 p0 p3 p1 | tr-pag --merge)"
}

@test "a shard's partial holds the windows it owns and digests of its neighbours'" {
	shards 4 6
	expect_eq "#tr-pag-partial/2${TAB}cp" "$(head -1 p1)"
	expect_eq "XO	$(tr , '\t' < run1.own)	$SEC	0" "$(sed -n 2p p1)"
	expect_eq 8 "$(grep -c '^XW' p1)" "owned windows"
	expect_eq 10 "$(grep -c '^XD' p1)" "digests: the owned windows and one each side"
}

@test "a halo too small is told at file:line, nothing merged" {
	shards 4 0
	run -3 --separate-stderr tr-pag --merge p0 p1 p2 p3
	expect_like "tr-pag: p*:*: the window from * to * differs from another shard's: a halo too small?" "$stderr"
	expect_output ""
}

@test "two partials owning a window is an error at file:line" {
	shards 2 6
	run -3 tr-pag --merge p0 p1 p0
	expect_like "tr-pag: p0:2: the windows from * to *: another partial owns some of them" "$output"
}

@test "a shard missing between two others is an error" {
	shards 4 6
	run -3 tr-pag --merge p0 p2 p3
	expect_eq "tr-pag: no partial owns the windows from $(cut -d, -f1 run1.own) to $(cut -d, -f1 run2.own): a shard missing?" "$output"
}

@test "a partial cut short is an error, nothing merged" {
	shards 2 6
	head -n 20 p1 > cut
	run -3 --separate-stderr tr-pag --merge p0 cut
	expect_eq "tr-pag: cut:21: the partial has no end mark: it was cut short" "$stderr"
	expect_output ""
}

@test "--own needs --window and -P, and window boundaries" {
	run -2 tr-pag -w 1s --own 0,2000000 "$one"
	expect_contains "--own goes with --window and -P" "$output"
	run -2 tr-pag -P -w 1s --own 500000,2000000 "$one"
	expect_contains "--own: 500000 is not on a window boundary" "$output"
	run -2 tr-pag -P -w 1s --own 3000000,2000000 "$one"
	expect_contains "FROM must come before TO" "$output"
}

@test "a graph without --own is written as before: a PG record of six fields" {
	expect_eq 6 "$(tr-pag -P -w 1s "$one" 2> /dev/null | awk -F'\t' '$1 == "PG" { print NF }')"
	expect_eq 7 "$(tr-pag -P -w 1s --own 0,$SEC "$one" 2> /dev/null | awk -F'\t' '$1 == "PG" { print NF }')"
}
