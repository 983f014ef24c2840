#!/usr/bin/env bats
# The line format across tools: order does not matter, records pass through.
load helper

# trace, span and the tags in namespace $1 of every S record, sorted.
results() {
	awk -F'\t' -v ns="$1" '$1 == "S" { r = $2 " " $3; for (i = 11; i <= NF; i++) if (index($i, ns) == 1) r = r " " $i; print r }' | sort
}

@test "sorted input gives every filter the same per-span results as grouped input" {
	tr-ingest "$SAMPLES/jaeger/hotrod.json" > "$BATS_TEST_TMPDIR/h.tr"
	sort "$BATS_TEST_TMPDIR/h.tr" > "$BATS_TEST_TMPDIR/sorted.tr"
	expect_ne T "$(head -1 "$BATS_TEST_TMPDIR/sorted.tr" | cut -c1)"
	a=$(tr-cp "$BATS_TEST_TMPDIR/h.tr" | results cp.)
	expect_num 1809 "$(printf '%s\n' "$a" | grep -c 'cp.self=')"
	expect_eq "$(tr-cp "$BATS_TEST_TMPDIR/sorted.tr" | results cp.)" "$a"
	# tr-temporal's clock offsets too: they do not depend on the order the
	# traces come in (the samples' hosts have skewed clocks)
	a=$(tr-temporal "$BATS_TEST_TMPDIR/h.tr" | results tp.)
	expect_eq "$(tr-temporal "$BATS_TEST_TMPDIR/sorted.tr" | results tp.)" "$a"
	expect_eq "$(tr-temporal -v "$BATS_TEST_TMPDIR/sorted.tr" 2>&1 >/dev/null | grep 'clock of' | sort)" \
		"$(tr-temporal -v "$BATS_TEST_TMPDIR/h.tr" 2>&1 >/dev/null | grep 'clock of' | sort)"
}

@test "filters compose: ingest | cp | temporal | aggregate sees every tool's tags" {
	run sh -c "tr-ingest '$SAMPLES/jaeger/hotrod.json' | tr-cp | tr-temporal |
		tr-aggregate 'From s In spans Where s.root Select COUNT, SUM(s.tag[\"cp.self\"]), SUM(s.tag[\"tp.self\"]), SUM(s.duration)'"
	expect_eq 0 "$status" status
	# one row: 65 roots (the 44 requests and the batch job whose root was
	# kept, and 20 spans whose parent was lost, 13 of them in the request whose
	# root was lost); the tags of both tools are on every root
	expect_num 2 "$(printf '%s\n' "$output" | wc -l)"
	expect_eq 65 "$(printf '%s\n' "$output" | tail -1 | cut -f1)"
	expect_nonempty "$(printf '%s\n' "$output" | tail -1 | cut -f2)"
	expect_nonempty "$(printf '%s\n' "$output" | tail -1 | cut -f3)"
}

@test "a re-run replaces a filter's own tags instead of adding them again" {
	tr-ingest "$SAMPLES/jaeger/hotrod.json" | tr-cp --sections > "$BATS_TEST_TMPDIR/once.tr"
	tr-cp --sections "$BATS_TEST_TMPDIR/once.tr" > "$BATS_TEST_TMPDIR/twice.tr"
	cmp "$BATS_TEST_TMPDIR/once.tr" "$BATS_TEST_TMPDIR/twice.tr"
}

@test "records and tags a filter does not own pass through unchanged, in order" {
	f=$(printf '#tr/1\n# a comment\nT\tt\tmine=1\nS\tt\ta\t\t0\t10\ts\to\t\t\tx=%%09y\nZ\tt\tfuture\trecord\nQ\t\ttraceless\n' | mkfix in.tr)
	run tr-cp "$f"
	expect_eq 0 "$status" status
	expect_eq "# a comment" "${lines[1]}"
	expect_contains $'T\tt\tmine=1' "$output"
	expect_contains $'S\tt\ta\t\t0\t10\ts\to\t\t\tx=%09y\tcp.self=10' "$output"
	expect_contains $'Z\tt\tfuture\trecord' "$output"
	expect_contains $'Q\t\ttraceless' "$output"
}
