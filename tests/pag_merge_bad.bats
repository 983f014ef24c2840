#!/usr/bin/env bats
# tr-pag --merge refuses a partial whose records do not hang together: each
# window's rows, workers and pairs follow that window's own XW record.

load helper
bats_require_minimum_version 1.5.0

setup_file() {
	cd "$BATS_FILE_TMPDIR" || return
	trsim --seed 7 --traces 200 | tr-ingest > one.tr
	tr-ingest --split-time 2 --window 1s --halo 6s -o run one.tr
	for i in 0 1; do
		tr-pag -P -w 1s --own "$(cat "run$i.own")" "run$i.tr" 2> /dev/null | tr-cp > "p$i"
	done
}

setup() {
	cd "$BATS_FILE_TMPDIR" || return
}

@test "a partial whose first window lost its XW record is refused, not merged into the partial before it" {
	local xw end
	xw=$(grep -n -m1 '^XW' p1 | cut -d: -f1)
	end=$(awk -F'\t' '$1 == "#end" { print $2 - 1 }' p1)
	sed "${xw}d; s/^#end\t.*/#end\t$end/" p1 > "$BATS_TEST_TMPDIR/p1"
	run tr-pag --merge p0 "$BATS_TEST_TMPDIR/p1"
	expect_status 3
	expect_contains "tr-pag: $BATS_TEST_TMPDIR/p1:$xw: bad XN record" "$output"
}

@test "a partial that holds one window twice is refused, not merged twice" {
	local xw
	xw=$(grep -n -m1 '^XW' p1 | cut -d: -f1)
	# the XW line twice, the end mark counting it
	awk -F'\t' -v OFS='\t' -v at="$xw" '{ print } NR == at { print }' p1 |
		awk -F'\t' -v OFS='\t' '$1 == "#end" { $2++ } { print }' > "$BATS_TEST_TMPDIR/p1"
	run tr-pag --merge p0 "$BATS_TEST_TMPDIR/p1"
	expect_status 3
	expect_contains "tr-pag: $BATS_TEST_TMPDIR/p1:$((xw + 1)): the window from" "$output"
	expect_contains "not after the one before it" "$output"
}

@test "the two partials whole merge" {
	run tr-pag --merge p0 p1
	expect_status 0
	expect_ge 10 "$(grep -c window <<< "$output")" "windows"
}
