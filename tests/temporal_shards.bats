#!/usr/bin/env bats
# tr-temporal over contiguous shards with a halo (tr-ingest --split-time
# --halo) and the clock evidence of every shard (--clock-offsets=FILE of
# partials): the shards' outputs one after the other are one pass's
# output (docs/scale-out.md). The simulator's hosts run clocks up to 20 ms
# apart, so offsets estimated per shard would differ.

load helper
bats_require_minimum_version 1.5.0

W=40	# tr-temporal's window: a halo of W/2 suffices

setup_file() {
	trsim --seed 5 --traces 300 --clock-skew 20000 | tr-ingest > "$BATS_FILE_TMPDIR/one.tr"
	tr-temporal -w "$W" "$BATS_FILE_TMPDIR/one.tr" > "$BATS_FILE_TMPDIR/one.tp"
}

one=
setup() {
	one=$BATS_FILE_TMPDIR/one.tr
	cd "$BATS_TEST_TMPDIR" || return
}

# sharded N HALO [OPTION...]: tr-temporal on N runs with HALO traces of
# halo and the merged clock evidence, the outputs one after the other (the
# header line of the first only).
sharded() {
	local n=$1 halo=$2 i
	shift 2
	tr-ingest --split-time "$n" --halo "$halo" -o run "$one"
	for i in $(seq 0 $((n - 1))); do
		tr-ingest --clock-offsets --partial "run$i.tr"
	done > clocks.part
	for i in $(seq 0 $((n - 1))); do
		tr-temporal -w "$W" --clock-offsets=clocks.part "$@" "run$i.tr" > "out$i"
	done
	cat out0
	for i in $(seq 1 $((n - 1))); do
		tail -n +2 "out$i"
	done
}

@test "the input's clocks are skewed: offsets per shard differ from the whole input's" {
	tr-ingest --split-time 4 -o run "$one"
	expect_ne "$(tr-ingest --clock-offsets "$one")" "$(tr-ingest --clock-offsets run1.tr)"
}

@test "tr-temporal over 2 time shards with a halo of half the window is one pass" {
	expect_eq "$(cat "$BATS_FILE_TMPDIR/one.tp")" "$(sharded 2 $((W / 2)))"
}

@test "tr-temporal over 4 time shards with a halo of half the window is one pass" {
	expect_eq "$(cat "$BATS_FILE_TMPDIR/one.tp")" "$(sharded 4 $((W / 2)))"
}

@test "tr-temporal -f csv over 4 time shards is one pass, the header row once" {
	expect_eq "$(tr-temporal -w "$W" -f csv "$one")" "$(sharded 4 $((W / 2)) -f csv)"
}

@test "a halo too small changes the traces at the cuts" {
	expect_ne "$(cat "$BATS_FILE_TMPDIR/one.tp")" "$(sharded 4 2)" "4 shards with a halo of 2"
}

@test "the shard's own clock offsets alone change the result" {
	tr-ingest --split-time 4 --halo $((W / 2)) -o run "$one"
	tr-temporal -w "$W" run2.tr > own
	tr-ingest --clock-offsets --partial run*.tr > clocks.part
	expect_ne "$(tr-temporal -w "$W" --clock-offsets=clocks.part run2.tr)" "$(cat own)"
}

@test "--split-time cuts the traces in order into even runs, each with its halo tagged" {
	tr-ingest --split-time 4 --halo 5 -o run "$one"
	expect_eq "$(grep '^T' "$one" | cut -f2)" \
		"$(cat run*.tr | awk -F'\t' '$1 == "T" && $NF != "tr.halo=true" { print $2 }')" "own traces"
	expect_eq 308 "$(grep -c '^T' "$one")" "traces in the input"
	expect_eq "77 77 77 77" "$(echo $(for i in 0 1 2 3; do
		awk -F'\t' '$1 == "T" && $NF != "tr.halo=true"' "run$i.tr" | wc -l; done))" "own traces a run"
	expect_eq "5 10 10 5" "$(echo $(for i in 0 1 2 3; do grep -c 'tr.halo=true$' "run$i.tr"; done))" "halo"
	expect_eq "$(grep '^T' "$one" | sed -n '73,77p;155,159p' | cut -f2)" \
		"$(awk -F'\t' '$1 == "T" && $NF == "tr.halo=true" { print $2 }' run1.tr)" \
		"the halo of run 1: the 5 traces before it and the 5 after"
}

@test "tr-temporal writes nothing of a halo trace" {
	tr-ingest --split-time 2 --halo 5 -o run "$one"
	expect_eq "" "$(tr-temporal -w "$W" run1.tr | grep 'tr.halo' || true)"
	expect_eq "$(awk -F'\t' '$1 == "T" && $NF != "tr.halo=true"' run1.tr | wc -l)" \
		"$(tr-temporal -w "$W" run1.tr | grep -c '^T')"
}

@test "--split-time reads one line-format file, and needs -o" {
	run -2 tr-ingest --split-time 2 "$one"
	expect_contains "--split-time: -o PREFIX names the outputs" "$output"
	run -2 tr-ingest --split-time 2 -o run < "$one"
	expect_contains "--split-time: one file (it is read twice), not standard input" "$output"
	run -2 tr-ingest --halo 3 -o run "$one"
	expect_contains "--halo goes with --split-time" "$output"
}

@test "a halo shorter than half the window is said at file:line, exit 3, the output still written" {
	tr-ingest --split-time 4 --halo 2 -o run "$one"
	tr-ingest --clock-offsets --partial run*.tr > clocks.part
	run --separate-stderr tr-temporal -w "$W" --clock-offsets=clocks.part run1.tr
	expect_status 3
	expect_like "tr-temporal: run1.tr:*: trace *: a halo of 2 traces before the shard's own is less than half the window (-w $W): the traces near the cut may be explained otherwise than in one pass*" "$stderr"
	expect_contains "a halo of 2 traces after the shard's own" "$stderr"
	expect_eq "$(awk -F'\t' '$1 == "T" && $NF != "tr.halo=true"' run1.tr | wc -l)" \
		"$(grep -c '^T' <<< "$output")" "the shard's own traces written"
}

@test "a halo of half the window is not said" {
	tr-ingest --split-time 4 --halo $((W / 2)) -o run "$one"
	tr-ingest --clock-offsets --partial run*.tr > clocks.part
	run --separate-stderr tr-temporal -w "$W" --clock-offsets=clocks.part run1.tr
	expect_status 0
	expect_eq "" "$stderr" "stderr"
}

@test "a shard cut again keeps its halo traces halo, tagged once: each trace is still owned once" {
	tr-ingest --split-time 3 --halo 5 -o run "$one"
	tr-ingest --split-time 20 --halo 5 -o sub run1.tr	# a few traces a shard: halos overlap
	expect_eq 0 "$(cat sub?.tr sub??.tr | grep -c 'tr.halo=true.*tr.halo=true')" "T records tagged twice"
	expect_eq "$(awk -F'\t' '$1 == "T" && $NF != "tr.halo=true" { print $2 }' run1.tr)" \
		"$(cat sub?.tr sub??.tr | awk -F'\t' '$1 == "T" && $NF != "tr.halo=true" { print $2 }')" \
		"the traces the shards own"
}

@test "--split-time of a file with no trace says so, exit 3, and writes no shard; --allow-empty lets it pass" {
	printf '#tr/1\n' > none.tr
	run --separate-stderr tr-ingest --split-time 2 --halo 3 -o run none.tr
	expect_status 3
	expect_eq "tr-ingest: none.tr: no trace in the input (--allow-empty accepts that)" "$stderr"
	expect_eq "" "$(ls run*.tr 2> /dev/null)" "shards written"
	run --separate-stderr tr-ingest --split-time 2 --window 1s --halo 6s -o slice none.tr
	expect_status 3
	expect_eq "" "$(ls slice* 2> /dev/null)" "time shards written"
	run tr-ingest --allow-empty --split-time 2 --halo 3 -o run none.tr
	expect_status 0
}
