#!/usr/bin/env bats
# One argument vocabulary (core/args.h): every tool says a bad value in one
# form, then the try line, and exits 2; a share is a fraction or N% in
# every tool that takes one.

load helper
bats_require_minimum_version 1.5.0

tr1() {
	printf '#tr/1\nT\tt1\nS\tt1\ta\t\t1000\t100\tfront\tGET /\tserver\th1\nS\tt1\tb\ta\t1010\t50\tdb\tquery\tclient\th1\n' |
		mkfix t.tr
}

@test "an unknown -f value names the choices in one form in every tool, then the try line" {
	local t want
	for t in tr-cp tr-pag tr-infer tr-aggregate tr-report tr-temporal tr-ingest; do
		run --separate-stderr "$t" -f nosuch Q /dev/null
		expect_eq 2 "$status" "$t status"
		[[ "${stderr_lines[0]}" == "$t: -f: unknown format \"nosuch\" ("*")" ]] ||
			{ echo "$t: ${stderr_lines[0]}"; false; }
		expect_eq "try '$t --help'" "${stderr_lines[1]}" "$t try line"
	done
}

@test "a close misspelling of a choice gets the name it was meant for" {
	run --separate-stderr tr-infer -f jsn /dev/null
	expect_eq 2 "$status" status
	expect_eq 'tr-infer: -f: unknown format "jsn" (tsv, csv, json, dot, jaeger-json): did you mean json?' \
		"${stderr_lines[0]}"
}

@test "a count out of its range says the range" {
	run --separate-stderr tr-report --top 101 /dev/null
	expect_eq 2 "$status" status
	expect_eq "tr-report: --top: not a count from 1 to 100: 101" "${stderr_lines[0]}"
	expect_eq "try 'tr-report --help'" "${stderr_lines[1]}"
}

@test "a count of no upper bound says its least value" {
	run --separate-stderr tr-cp --max-spans -1 /dev/null
	expect_eq 2 "$status" status
	expect_eq "tr-cp: --max-spans: not a count of 0 or more: -1" "${stderr_lines[0]}"
}

@test "a duration names its units" {
	run --separate-stderr tr-pag --lateness 5parsecs /dev/null
	expect_eq 2 "$status" status
	expect_eq "tr-pag: --lateness: not a duration over 0 (1s, 250ms, 10us): 5parsecs" "${stderr_lines[0]}"
}

@test "a real number out of its range says the range" {
	run --separate-stderr tr-cp --svg --width 300 /dev/null
	expect_eq 2 "$status" status
	expect_eq "tr-cp: --width: not a number from 400 to 100000: 300" "${stderr_lines[0]}"
}

@test "--min-share: a fraction and N% are the same share in tr-cp" {
	f=$(tr1)
	run tr-cp --svg --min-share 0.5 "$f"
	expect_eq 0 "$status" status
	frac=$output
	run tr-cp --svg --min-share 50% "$f"
	expect_eq "$frac" "$output" "--min-share 50%"
}

@test "--min-share: a fraction and N% are the same share in tr-report" {
	f=$(tr1)
	tr-report --min-share 0.5 -o "$BATS_TEST_TMPDIR/a.html" "$f"
	tr-report --min-share 50% -o "$BATS_TEST_TMPDIR/b.html" "$f"
	expect_eq "$(cat "$BATS_TEST_TMPDIR/a.html")" "$(cat "$BATS_TEST_TMPDIR/b.html")" "report"
}

@test "--min-share: a fraction and N% are the same share in tr-temporal" {
	f=$(tr1)
	run tr-temporal --dot --min-share 0.5 "$f"
	expect_eq 0 "$status" status
	frac=$output
	run tr-temporal --dot --min-share 50% "$f"
	expect_eq "$frac" "$output" "--min-share 50%"
}

@test "--min-share over 1 (or 100%) is a usage error in every tool that takes it" {
	local t
	for t in "tr-cp --svg" "tr-report" "tr-temporal --dot"; do
		run $t --min-share 101% /dev/null
		expect_eq 2 "$status" "$t status"
		expect_contains "--min-share: not a share from 0 to 1 (or 0% to 100%): 101%" "$output" "$t"
	done
}

@test "a bare number over 1 is no share in any tool: the message says to write N%" {
	local t
	for t in "tr-cp --svg" "tr-report" "tr-temporal --dot"; do
		run $t --min-share 5 /dev/null
		expect_eq 2 "$status" "$t status"
		expect_contains "--min-share 5: a share is a fraction from 0 to 1; write 5% for a percentage" "$output" "$t"
	done
}
