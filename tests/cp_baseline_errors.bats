#!/usr/bin/env bats
# tr-cp --summary --baseline: error rates before and after, per row, and
# whether they changed beyond chance (tr-cp(1), BASELINE).

load helper

# N traces of a web root calling db; with fail, db's span fails (error=true);
# with extra, a third service, cache, is called too.  usage: gen N FAIL EXTRA
gen() {
	awk -v n="$1" -v fail="$2" -v extra="$3" 'BEGIN {
		OFS = "\t"; print "#tr/1"
		for (i = 0; i < n; i++) {
			t = sprintf("t%03d", i); sec = sprintf("%.0f", 1767225600 + i)	# µs as text: awk prints no 16-digit integer
			print "T", t
			print "S", t, "a", "", sec "000000", 100000 + (i % 7) * 1000, "web", "GET /", "server", "h1"
			print "S", t, "b", "a", sec "010000", 50000 + (i % 5) * 1000, "db", "query", "client", "h1", "error=" (fail ? "true" : "false")
			if (extra)
				print "S", t, "c", "a", sec "070000", 1000, "cache", "get", "client", "h1"
		}
	}'
}

@test "baseline: a service whose spans start to fail has its error rate before and after, flagged" {
	gen 40 0 0 > "$BATS_TEST_TMPDIR/base.tr"
	gen 40 1 0 > "$BATS_TEST_TMPDIR/inc.tr"
	run tr-cp -q --summary service --baseline "$BATS_TEST_TMPDIR/base.tr" "$BATS_TEST_TMPDIR/inc.tr"
	expect_eq 0 "$status" status
	expect_eq "$(printf 'db\t0.00\t100.00\tyes\nweb\t0.00\t0.00\tno')" \
		"$(cut -f1,8,9,11 <<< "$output" | tail -n +2 | sort)" "service, error rates, flag"
}

@test "baseline: the error columns come after the latency columns, which stay as they were" {
	gen 40 0 0 > "$BATS_TEST_TMPDIR/base.tr"
	gen 40 1 0 > "$BATS_TEST_TMPDIR/inc.tr"
	run tr-cp -q --summary service --baseline "$BATS_TEST_TMPDIR/base.tr" "$BATS_TEST_TMPDIR/inc.tr"
	expect_eq "$(printf 'service\tbefore_us\tafter_us\tdiff_us\tdiff_pct\tz\tsignificant\terror_pct_before\terror_pct_after\terror_z\terror_significant')" \
		"${lines[0]}" header
	expect_eq "no no" "$(cut -f7 <<< "$output" | tail -n +2 | xargs)" "latency significant"
}

@test "baseline: the same error rates unchanged are not flagged, their z 0" {
	gen 40 1 0 > "$BATS_TEST_TMPDIR/base.tr"
	gen 40 1 0 > "$BATS_TEST_TMPDIR/inc.tr"
	run tr-cp -q --summary service --baseline "$BATS_TEST_TMPDIR/base.tr" "$BATS_TEST_TMPDIR/inc.tr"
	expect_eq "$(printf 'db\t100.00\t100.00\t0.00\tno')" "$(grep '^db' <<< "$output" | cut -f1,8-11)" db
}

@test "baseline: a service only one side has gets - for the other side's rate and the test" {
	gen 40 0 0 > "$BATS_TEST_TMPDIR/base.tr"
	gen 40 0 1 > "$BATS_TEST_TMPDIR/inc.tr"
	run tr-cp -q --summary operation --baseline "$BATS_TEST_TMPDIR/base.tr" "$BATS_TEST_TMPDIR/inc.tr"
	expect_eq "$(printf 'cache\tget\t-\t0.00\t-\tno')" "$(grep '^cache' <<< "$output" | cut -f1,2,9-12)" cache
}

@test "baseline: csv and json carry the error columns too" {
	gen 40 0 0 > "$BATS_TEST_TMPDIR/base.tr"
	gen 40 1 0 > "$BATS_TEST_TMPDIR/inc.tr"
	run tr-cp -q -f csv --summary service --baseline "$BATS_TEST_TMPDIR/base.tr" "$BATS_TEST_TMPDIR/inc.tr"
	expect_eq "db,0.00,100.00,yes" "$(grep '^db' <<< "$output" | cut -d, -f1,8,9,11)" csv
	run tr-cp -q -f json --summary service --baseline "$BATS_TEST_TMPDIR/base.tr" "$BATS_TEST_TMPDIR/inc.tr"
	expect_eq '"error_pct_before": "0.00", "error_pct_after": "100.00"' \
		"$(grep '"service": "db"' <<< "$output" | grep -o '"error_pct_before": "[^"]*", "error_pct_after": "[^"]*"')" json
}
