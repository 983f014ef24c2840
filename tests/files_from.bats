#!/usr/bin/env bats
# --files-from LIST in every filter: the inputs a list names, read as if
# named on the command line (before the command line's own).
load helper

setup() {
	tr-ingest -q "$SAMPLES/jaeger/hotrod.json" > "$BATS_TEST_TMPDIR/h.tr"
	tr-ingest --split 2 -o "$BATS_TEST_TMPDIR/s" "$BATS_TEST_TMPDIR/h.tr"
	printf '%s\n\n%s\n' "$BATS_TEST_TMPDIR/s0.tr" "$BATS_TEST_TMPDIR/s1.tr" > "$BATS_TEST_TMPDIR/list"
}

# The commands compared, one a line (run by sh).
tools() {
	cat <<-'EOF'
	tr-infer
	tr-infer --links
	tr-cp --summary service
	tr-pag
	tr-temporal
	tr-aggregate 'From s In spans GroupBy s.service Select s.service, COUNT'
	EOF
}

@test "every filter reads the files --files-from LIST names as the same files on the command line" {
	while read -r cmd; do
		expected=$(sh -c "$cmd '$BATS_TEST_TMPDIR/s0.tr' '$BATS_TEST_TMPDIR/s1.tr'" 2>&1)
		actual=$(sh -c "$cmd --files-from '$BATS_TEST_TMPDIR/list'" 2>&1)
		diff <(echo "$expected") <(echo "$actual") || { echo "$cmd"; false; }
	done < <(tools)
}

@test "--files-from - reads the list on stdin, in every filter" {
	while read -r cmd; do
		expected=$(sh -c "$cmd '$BATS_TEST_TMPDIR/s0.tr' '$BATS_TEST_TMPDIR/s1.tr'" 2>&1)
		actual=$(sh -c "$cmd --files-from - < '$BATS_TEST_TMPDIR/list'" 2>&1)
		diff <(echo "$expected") <(echo "$actual") || { echo "$cmd"; false; }
	done < <(tools)
}

@test "the listed files come before the command line's" {
	printf '%s\n' "$BATS_TEST_TMPDIR/s1.tr" > "$BATS_TEST_TMPDIR/one"
	expected=$(tr-pag "$BATS_TEST_TMPDIR/s1.tr" "$BATS_TEST_TMPDIR/s0.tr")
	actual=$(tr-pag --files-from "$BATS_TEST_TMPDIR/one" "$BATS_TEST_TMPDIR/s0.tr")
	diff <(echo "$expected") <(echo "$actual")
}

@test "tr-report reads --files-from" {
	tr-report -o "$BATS_TEST_TMPDIR/a.html" "$BATS_TEST_TMPDIR/s0.tr" "$BATS_TEST_TMPDIR/s1.tr"
	tr-report -o "$BATS_TEST_TMPDIR/b.html" --files-from "$BATS_TEST_TMPDIR/list"
	cmp "$BATS_TEST_TMPDIR/a.html" "$BATS_TEST_TMPDIR/b.html"
}

@test "a missing list is bad input, exit 3, in every filter" {
	while read -r cmd; do
		run sh -c "$cmd --files-from '$BATS_TEST_TMPDIR/nolist'"
		expect_status 3 || { echo "$cmd: status $status: $output"; false; }
		expect_contains "$BATS_TEST_TMPDIR/nolist: No such file or directory" "$output" || { echo "$cmd: $output"; false; }
	done < <(tools)
}

@test "a list naming a missing file is bad input, exit 3" {
	echo "$BATS_TEST_TMPDIR/nothere.tr" > "$BATS_TEST_TMPDIR/bad"
	run tr-infer --files-from "$BATS_TEST_TMPDIR/bad"
	expect_status 3
	expect_contains 'nothere.tr' "$output"
}
