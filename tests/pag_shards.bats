#!/usr/bin/env bats
# tr-pag over shards by time: each shard holds its windows' traces and a
# halo around them, writes (through tr-cp) a partial of the windows it owns
# (tr-pag --own), and tr-pag --merge writes the table of one pass, totals
# included (tr-pag(1), Shards by time). A halo too small is told. The
# shards are cut by tr-ingest --split-time N --window D --halo DURATION.

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
# HALO_S seconds (tr-ingest --split-time --window), each shard's partial p0 ...
shards() {
	tr-ingest --split-time "$1" --window 1s --halo "$2s" -o run "$one"
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
	expect_like "tr-pag: p*:*: the window from * to * differs from another shard's: a halo too small, or other clock offsets?" "$stderr"
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

# starts: each trace's start (its earliest span's), "id start", by id
starts() {
	awk -F'\t' '$1 == "S" && $5 != "" && (!($2 in t) || $5 + 0 < t[$2]) { t[$2] = $5 + 0 }
		END { for (id in t) printf "%s %.0f\n", id, t[id] }' "$one" | sort
}

@test "time shards own whole windows, end to end, from the first start's window past the last span's" {
	tr-ingest --split-time 4 --window 1s --halo 6s -o run "$one"
	local first last
	first=$(starts | awk '{ print $2 }' | sort -n | head -1)
	last=$(awk -F'\t' '$1 == "S" && $5 != "" { print $5 }' "$one" | sort -n | tail -1)
	expect_eq $((first / SEC * SEC)) "$(cut -d, -f1 run0.own)" "the first shard's FROM"
	for i in 0 1 2; do
		expect_eq "$(cut -d, -f2 "run$i.own")" "$(cut -d, -f1 "run$((i + 1)).own")" "shard $i's TO"
	done
	expect_eq 0 "$(cat run?.own | tr , '\n' | awk -v s=$SEC '$1 % s' | wc -l)" "on window boundaries"
	expect_gt "$last" "$(cut -d, -f2 run3.own)" "the last shard's TO"
	expect_eq 1 "$(cat run?.own | awk -F, '{ print $2 - $1 }' | sort -u | wc -l)" "as many windows each"
}

@test "a time shard holds every line of the traces starting from FROM less the halo to TO plus it, in order" {
	tr-ingest --split-time 4 --window 1s --halo 2s -o run "$one"
	for i in 0 1 2 3; do
		local from to
		IFS=, read -r from to < "run$i.own"
		starts | awk -v a=$((from - 2 * SEC)) -v b=$((to + 2 * SEC)) '$2 >= a && $2 < b { print $1 }' > ids
		expect_eq "$(printf '#tr/1\n'; awk -F'\t' 'NR == FNR { keep[$1]; next } $2 in keep' ids "$one")" \
			"$(cat "run$i.tr")" "shard $i"
	done
}

@test "time shards with -z are the same shards, compressed" {
	tr-ingest --split-time 2 --window 1s --halo 6s -o run "$one"
	tr-ingest --split-time 2 --window 1s --halo 6s -z -o z "$one"
	expect_eq "$(cat run1.tr)" "$(zstd -dc z1.tr.zst)"
	expect_eq "$(cat run1.own)" "$(cat z1.own)"
}

@test "--window needs a halo with a unit, and a halo with a unit needs --window" {
	run -2 tr-ingest --split-time 2 --window 1s --halo 6 -o run "$one"
	expect_contains "tr-ingest: --window: the halo is a duration with its unit (--halo 6s)" "$output"
	run -2 tr-ingest --split-time 2 --window 1s -o run "$one"
	expect_contains "tr-ingest: --window: the halo is a duration with its unit (--halo 6s)" "$output"
	run -2 tr-ingest --split-time 2 --halo 6s -o run "$one"
	expect_contains "tr-ingest: --halo DURATION goes with --window D (time shards)" "$output"
	run -2 tr-ingest --window 1s --halo 6s -o run "$one"
	expect_contains "tr-ingest: --window goes with --split-time" "$output"
}

@test "time shards read one line-format file, not standard input, and write nothing else" {
	run -2 tr-ingest --split-time 2 --window 1s --halo 6s -o run - < "$one"
	expect_contains "not standard input" "$output"
	trsim --seed 7 --traces 3 > raw.json
	run -2 tr-ingest --split-time 2 --window 1s --halo 6s -o run raw.json
	expect_contains "tr-ingest: --split-time: raw.json: not the line format (tr-ingest it first)" "$output"
	expect_eq "raw.json" "$(ls)"
}

@test "an S record whose start is not a time is bad input at file:line, no shard written" {
	printf '#tr/1\nT\tab\nS\tab\t1\t\t12x\t3\tsvc\top\t\t\n' > bad.tr
	run -3 tr-ingest --split-time 2 --window 1s --halo 6s -o run bad.tr
	expect_eq "tr-ingest: bad.tr:3: an S record's start is not a whole number of microseconds: 12x" "$output"
	expect_eq "bad.tr" "$(ls)"
}

@test "the last time shard owns the windows of a span still running after the last start" {
	printf '#tr/1\nT\ta\nS\ta\ts1\t\t0\t10000000\tsvc\tstream\tserver\th1\nT\tb\nS\tb\ts2\t\t1000000\t1000\tsvc\tget\tserver\th1\nT\tc\nS\tc\ts3\t\t2000000\t1000\tsvc\tget\tserver\th1\n' > long.tr
	tr-ingest --split-time 2 --window 1s --halo 20s -o long long.tr
	expect_eq "0,2000000" "$(cat long0.own)" "shard 0"
	expect_eq "2000000,11000000" "$(cat long1.own)" "shard 1: up to the window past the stream's end"
	tr-pag -P -w 1s long.tr 2> /dev/null | tr-cp > one
	for i in 0 1; do tr-pag -P -w 1s --own "$(cat "long$i.own")" "long$i.tr" 2> /dev/null | tr-cp > "p$i"; done
	run tr-pag --merge p0 p1
	expect_status 0
	expect_output "$(cat one)"
}
