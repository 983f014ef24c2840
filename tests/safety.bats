#!/usr/bin/env bats
# Data safety (tr(7), DATA SAFETY): an output file is replaced only by a
# complete result, bad inputs are skipped whole with -k and fatal without it
# after every good trace before them is out, gates fail closed, partials are
# validated, sums cannot wrap, near-miss records are reported.

load helper
bats_require_minimum_version 1.5.0

setup() {
	good="$BATS_TEST_TMPDIR/good.tr"
	trsim --hints --seed 3 --traces 12 | tr-ingest > "$good"
	printf 'a,b,c\n1,2,3\n' > "$BATS_TEST_TMPDIR/bad.csv"
	bad="$BATS_TEST_TMPDIR/bad.csv"
	missing="$BATS_TEST_TMPDIR/missing.tr"
	out="$BATS_TEST_TMPDIR/out"
	printf 'previous result\n' > "$out"
}

# The number of T records (traces) in a line-format stream.
traces_in() {
	grep -c '^T	' || true
}

# $out must still hold what setup put there.
out_kept() {
	local got
	got=$(cat "$out")
	if [ "$got" != "previous result" ]; then
		echo "expected -o FILE kept as 'previous result', got:"
		head -3 "$out"
		return 1
	fi
}

AGG_Q='From s In spans GroupBy s.service Select s.service, COUNT'

# --- row 1: an output file is replaced only by a complete result ---

@test "tr-cp -o FILE on bad input leaves FILE as it was (exit 3)" {
	run tr-cp -o "$out" "$bad"
	echo "$output"
	expect_status 3
	out_kept
}

@test "tr-pag -o FILE on bad input leaves FILE as it was (exit 3)" {
	run tr-pag -o "$out" "$bad"
	echo "$output"
	expect_status 3
	out_kept
}

@test "tr-infer -o FILE on bad input leaves FILE as it was (exit 3)" {
	run tr-infer -o "$out" "$bad"
	echo "$output"
	expect_status 3
	out_kept
}

@test "tr-aggregate -o FILE on bad input leaves FILE as it was (exit 3)" {
	run tr-aggregate -o "$out" "$AGG_Q" "$bad"
	echo "$output"
	expect_status 3
	out_kept
}

@test "tr-temporal -o FILE on bad input leaves FILE as it was, not a header alone (exit 3)" {
	run tr-temporal -o "$out" "$bad"
	echo "$output"
	expect_status 3
	out_kept
}

@test "tr-cp -o FILE stopped by bad input after good traces leaves FILE as it was" {
	run tr-cp -o "$out" "$good" "$bad"
	echo "$output"
	expect_status 3
	out_kept
}

@test "tr-cp -k -o FILE skips the bad input and writes the good traces (exit 3)" {
	run tr-cp -k -o "$out" "$bad" "$good"
	echo "$output"
	expect_status 3
	expected=$(traces_in < "$good")
	actual=$(traces_in < "$out")
	diff <(echo "$expected") <(echo "$actual")
}

# --- row 2: a missing, unreadable or directory input is bad input, in order ---

@test "tr-cp: a missing file after good input keeps the good traces on stdout (exit 3)" {
	expected=$(traces_in < "$good")
	run tr-cp "$good" "$missing"
	expect_status 3
	actual=$(printf '%s\n' "$output" | traces_in)
	diff <(echo "$expected") <(echo "$actual")
	expect_contains 'missing.tr: No such file or directory' "$output"
}

@test "tr-pag: a missing file after good input keeps the good traces on stdout (exit 3)" {
	expected=$(traces_in < "$good")
	run tr-pag "$good" "$missing"
	expect_status 3
	actual=$(printf '%s\n' "$output" | traces_in)
	diff <(echo "$expected") <(echo "$actual")
}

@test "tr-temporal: a missing file after good input keeps the analysed traces (exit 3)" {
	expected=$(tr-temporal "$good" | traces_in)
	run tr-temporal "$good" "$missing"
	expect_status 3
	actual=$(printf '%s\n' "$output" | traces_in)
	echo "expected $expected traces, got $actual"
	expect_gt 0 "$actual"
	diff <(echo "$expected") <(echo "$actual")
}

@test "tr-cp -k: a missing first file is skipped and the good one written (exit 3)" {
	expected=$(traces_in < "$good")
	run tr-cp -k "$missing" "$good"
	expect_status 3
	actual=$(printf '%s\n' "$output" | traces_in)
	diff <(echo "$expected") <(echo "$actual")
	expect_contains 'missing.tr: No such file or directory' "$output"
}

@test "tr-infer --reformat -k: a missing file is skipped, not fatal before the first pass" {
	expected=$(traces_in < "$good")
	run tr-infer --reformat -k "$missing" "$good"
	expect_status 3
	actual=$(printf '%s\n' "$output" | traces_in)
	diff <(echo "$expected") <(echo "$actual")
}

@test "tr-cp: an unreadable file after good input is bad input (exit 3)" {
	[ "$(id -u)" -ne 0 ] || skip "root reads any file"
	cp "$good" "$BATS_TEST_TMPDIR/locked.tr"
	chmod 000 "$BATS_TEST_TMPDIR/locked.tr"
	run tr-cp "$good" "$BATS_TEST_TMPDIR/locked.tr"
	expect_status 3
	expect_contains 'locked.tr: Permission denied' "$output"
}

# --- row 16: a directory as input is bad input, exit 3 ---

@test "tr-cp: a directory as input is bad input (exit 3), after the good traces" {
	mkdir "$BATS_TEST_TMPDIR/dir"
	expected=$(traces_in < "$good")
	run tr-cp "$good" "$BATS_TEST_TMPDIR/dir"
	echo "$output" | tail -2
	expect_status 3
	expect_contains 'dir: is a directory, not a file' "$output"
	actual=$(printf '%s\n' "$output" | traces_in)
	diff <(echo "$expected") <(echo "$actual")
}

@test "tr-temporal: a directory as input is bad input (exit 3)" {
	mkdir "$BATS_TEST_TMPDIR/dir"
	run tr-temporal "$BATS_TEST_TMPDIR/dir"
	echo "$output"
	expect_status 3
}

# --- row 17: -o keeps the file's mode and a symbolic link ---

@test "-o FILE keeps the mode of the file it replaces" {
	chmod 640 "$out"
	run tr-cp -o "$out" "$good"
	expect_status 0
	expected=640
	actual=$(stat -c %a "$out")
	diff <(echo "$expected") <(echo "$actual")
}

@test "-o LINK writes the link's target and keeps the link" {
	ln -s out "$BATS_TEST_TMPDIR/link"
	run tr-cp -o "$BATS_TEST_TMPDIR/link" "$good"
	expect_status 0
	[ -L "$BATS_TEST_TMPDIR/link" ] || { echo "the link was replaced by a file"; false; }
	expected=$(traces_in < "$good")
	actual=$(traces_in < "$out")
	diff <(echo "$expected") <(echo "$actual")
}

# --- row 9: a span record whose TABs became spaces is reported ---

@test "a span record with spaces for TABs is bad input, not a traceless line (exit 3)" {
	awk 'NR == 3 { gsub(/\t/, " ") } { print }' "$good" > "$BATS_TEST_TMPDIR/sp.tr"
	run --separate-stderr tr-cp "$BATS_TEST_TMPDIR/sp.tr"
	echo "$stderr"
	expect_status 3
	expect_contains 'sp.tr:3: a record with spaces for TABs (type S): fields are separated by TAB' "$stderr"
	expect_lacks 'S ' "$output" || { echo "the broken record was passed through"; false; }
}

@test "-k: the trace of a span record with spaces for TABs is skipped whole, with a warning" {
	awk 'NR == 3 { gsub(/\t/, " ") } { print }' "$good" > "$BATS_TEST_TMPDIR/sp.tr"
	expected=$(( $(traces_in < "$good") - 1 ))
	run --separate-stderr tr-cp -k "$BATS_TEST_TMPDIR/sp.tr"
	echo "$stderr"
	expect_status 3
	actual=$(printf '%s\n' "$output" | traces_in)
	diff <(echo "$expected") <(echo "$actual")
	expect_like "*sp.tr:2: trace *: a record of it is broken \(told above\): skipped*" "$stderr"
}

# --- row 10: one trace id in two groups is reported, never two traces ---

@test "a trace id met again after its group ended (cat a.tr a.tr) is bad input" {
	cat "$good" "$good" > "$BATS_TEST_TMPDIR/twice.tr"
	expected=$(traces_in < "$good")
	run --separate-stderr tr-cp "$BATS_TEST_TMPDIR/twice.tr"
	echo "$stderr"
	expect_status 3
	expect_contains "met again after its group at $BATS_TEST_TMPDIR/twice.tr:2 ended" "$stderr"
	actual=$(printf '%s\n' "$output" | traces_in)
	diff <(echo "$expected") <(echo "$actual")
}

@test "-k: a trace id in two files is written once, the second group skipped with a warning" {
	expected=$(traces_in < "$good")
	run --separate-stderr tr-cp -k "$good" "$good"
	expect_status 3
	actual=$(printf '%s\n' "$output" | traces_in)
	diff <(echo "$expected") <(echo "$actual")
	n=$(grep -c 'met again after its group' <<<"$stderr")
	diff <(echo "$expected") <(echo "$n")
}

# --- row 4: gates fail closed on nulls ---

@test "--fail-if: a misspelt tag inside an aggregate is exit 2 with the closest tag, not a pass" {
	tr-cp "$good" > "$BATS_TEST_TMPDIR/cp.tr"
	run --separate-stderr tr-aggregate --fail-if 'total > 5' \
		'From s In spans Select SUM(s.tag["cp.slf"]) AS total' "$BATS_TEST_TMPDIR/cp.tr"
	echo "$stderr"
	expect_status 2
	expected='tr-aggregate: fail-if: tag cp.slf: no span has a tag cp.slf (did you mean cp.self?)'
	diff <(echo "$expected") <(echo "$stderr")
}

@test "--fail-if: the same query with the tag spelt right is judged (exit 1)" {
	tr-cp "$good" > "$BATS_TEST_TMPDIR/cp.tr"
	run tr-aggregate --fail-if 'total > 5' \
		'From s In spans Select SUM(s.tag["cp.self"]) AS total' "$BATS_TEST_TMPDIR/cp.tr"
	echo "$output"
	expect_status 1
}

# --- row 16: exit statuses ---

@test "--fail-if: a GroupBy typo under a gate that holds is exit 2, not 1" {
	run --separate-stderr tr-aggregate --fail-if 'n > 5' \
		'From s In spans GroupBy s.tag["servce"] Select COUNT AS n' "$good"
	echo "$stderr"
	expect_status 2
	expect_contains 'GroupBy servce: no span has a tag servce' "$stderr"
}

@test "tr-temporal --check -t ID no trace has is exit 2 (usage), not 1" {
	run --separate-stderr tr-temporal --check -t unknown "$good"
	echo "$stderr"
	expect_status 2
	expect_contains '--trace unknown: no trace has this id' "$stderr"
}

@test "tr-temporal -c naming a resource no span uses is exit 2" {
	run --separate-stderr tr-temporal -c unknown=2 "$good"
	echo "$stderr"
	expect_status 2
	expect_contains '-c unknown: no span uses a resource unknown' "$stderr"
}

@test "tr-temporal -c naming a resource a span uses is accepted" {
	res=$(tr-temporal -f explain "$good" | grep -o 'mysql@[a-z0-9-]*' | head -1)
	expect_nonempty "$res"
	run tr-temporal -c "$res=1" "$good"
	expect_status 0
}

# --- row 5: partials are validated ---

@test "tr-aggregate --merge: an empty partial is exit 3 at file:line" {
	: > "$BATS_TEST_TMPDIR/empty.part"
	tr-aggregate --partial "$AGG_Q" "$good" > "$BATS_TEST_TMPDIR/a.part"
	run tr-aggregate --merge "$AGG_Q" "$BATS_TEST_TMPDIR/a.part" "$BATS_TEST_TMPDIR/empty.part"
	echo "$output"
	expect_status 3
	expected="tr-aggregate: $BATS_TEST_TMPDIR/empty.part:1: an empty file, not a partial"
	diff <(echo "$expected") <(echo "$output")
}

@test "tr-aggregate --merge: a partial cut at a line boundary is exit 3, nothing written" {
	tr-aggregate --partial "$AGG_Q" "$good" | head -n 3 > "$BATS_TEST_TMPDIR/cut.part"
	run tr-aggregate --merge -o "$out" "$AGG_Q" "$BATS_TEST_TMPDIR/cut.part"
	echo "$output"
	expect_status 3
	expected="tr-aggregate: $BATS_TEST_TMPDIR/cut.part:4: the partial has no end mark: it was cut short"
	diff <(echo "$expected") <(echo "$output")
	out_kept
}

@test "tr-aggregate --merge: partials one after the other (cat) merge as two" {
	tr-aggregate --partial "$AGG_Q" "$good" > "$BATS_TEST_TMPDIR/a.part"
	expected=$(tr-aggregate --merge "$AGG_Q" "$BATS_TEST_TMPDIR/a.part" "$BATS_TEST_TMPDIR/a.part")
	expect_contains 'frontend	' "$expected"
	run sh -c "cat '$BATS_TEST_TMPDIR/a.part' '$BATS_TEST_TMPDIR/a.part' | tr-aggregate --merge '$AGG_Q' -"
	echo "$output"
	expect_status 0
	diff <(echo "$expected") <(echo "$output")
}

@test "tr-aggregate --merge: a partial of format 1 is refused, make it again" {
	printf '#tr-aggregate-partial/1\tFrom s In spans\nG\tsx\t1\n' > "$BATS_TEST_TMPDIR/old.part"
	run tr-aggregate --merge "$AGG_Q" "$BATS_TEST_TMPDIR/old.part"
	expect_status 3
	expect_contains 'old.part:1: a partial of format 1, this tr-aggregate merges format 2: make it again' "$output"
}

@test "tr-infer --merge: an empty partial is exit 3 at file:line" {
	: > "$BATS_TEST_TMPDIR/empty.part"
	tr-infer --partial "$good" > "$BATS_TEST_TMPDIR/a.part"
	run tr-infer --merge "$BATS_TEST_TMPDIR/a.part" "$BATS_TEST_TMPDIR/empty.part"
	echo "$output"
	expect_status 3
	expect_contains 'empty.part:1: an empty file, not a partial' "$output"
}

@test "tr-infer --merge: a partial cut at a line boundary is exit 3" {
	tr-infer --partial "$good" | head -n 5 > "$BATS_TEST_TMPDIR/cut.part"
	run tr-infer --merge "$BATS_TEST_TMPDIR/cut.part"
	echo "$output"
	expect_status 3
	expect_contains 'cut.part:6: the partial has no end mark: it was cut short' "$output"
}

@test "tr-infer -k --merge: a cut partial is refused too, not merged in part" {
	tr-infer --partial "$good" | head -n 5 > "$BATS_TEST_TMPDIR/cut.part"
	run tr-infer -k --merge "$BATS_TEST_TMPDIR/cut.part"
	expect_status 3
	expect_contains 'nothing written' "$output"
}

# --- row 6: sums of durations cannot wrap ---

# Six traces of one span of 2^61 - 693 µs: their sum is past 2^63.
huge_durations() {
	{
		printf '#tr/1\n'
		for t in 1 2 3 4 5 6; do
			printf 'T\tt%d\nS\tt%d\ta\t\t0\t2305843009213693000\tsvc\top\tserver\th\n' $t $t
		done
	} > "$BATS_TEST_TMPDIR/huge.tr"
}

@test "tr-cp --summary: durations summed past 2^63 are an error (exit 3), never negative" {
	huge_durations
	run tr-cp --summary service "$BATS_TEST_TMPDIR/huge.tr"
	echo "$output"
	expect_status 3
	expect_lacks '-4611686018427393616' "$output"
	expected='tr-cp: --summary: durations add up past 2^63 us: absurd span durations'
	diff <(echo "$expected") <(echo "$output")
}

@test "tr-cp --flame: durations summed past 2^63 are an error (exit 3)" {
	huge_durations
	run tr-cp --flame "$BATS_TEST_TMPDIR/huge.tr"
	expect_status 3
	expect_contains '--flame: durations add up past 2^63 us' "$output"
}

@test "tr-aggregate --units s: a SUM past 2^63 us is written positive" {
	huge_durations
	run tr-aggregate --no-header --units s 'From s In spans Select SUM(s.duration) AS d' "$BATS_TEST_TMPDIR/huge.tr"
	expect_status 0
	expected=13835058055282.16
	diff <(echo "$expected") <(echo "$output")
}

# --- row 17: polish ---

@test "-o FILE: a run killed with SIGKILL leaves no FILE.tmp* behind" {
	rm -f "$out"
	tr-cp -o "$out" < <(cat "$good"; sleep 3) &
	pid=$!
	sleep 1
	kill -9 "$pid"
	wait "$pid" || true
	left=$(ls "$BATS_TEST_TMPDIR" | grep '^out' || true)
	[ -z "$left" ] || { echo "left behind: $left"; false; }
}

@test "converting an export: a run killed with SIGKILL leaves no tr-export.* in TMPDIR" {
	mkdir "$BATS_TEST_TMPDIR/tmp"
	trsim --traces 3 > "$BATS_TEST_TMPDIR/ex.json"
	TMPDIR="$BATS_TEST_TMPDIR/tmp" tr-cp > /dev/null < <(cat "$BATS_TEST_TMPDIR/ex.json"; sleep 3) &
	pid=$!
	sleep 1
	kill -9 "$pid"
	wait "$pid" || true
	left=$(ls -A "$BATS_TEST_TMPDIR/tmp")
	[ -z "$left" ] || { echo "left behind: $left"; false; }
}

@test "converting an export: a write error names the temporary file" {
	trsim --traces 3 > "$BATS_TEST_TMPDIR/ex.json"
	mkdir "$BATS_TEST_TMPDIR/tmp"
	run --separate-stderr sh -c "trap '' XFSZ; ulimit -f 1; TMPDIR='$BATS_TEST_TMPDIR/tmp' tr-cp '$BATS_TEST_TMPDIR/ex.json' > /dev/null"
	echo "$stderr"
	expect_status 4
	expect_like "tr-cp: $BATS_TEST_TMPDIR/tmp/tr-export.*: write error: File too large" "$stderr"
}

@test "tr-ingest: an input with no span writes nothing on stdout, not even the header (exit 3)" {
	echo '{"data":[]}' > "$BATS_TEST_TMPDIR/none.json"
	run --separate-stderr tr-ingest "$BATS_TEST_TMPDIR/none.json"
	expect_status 3
	expected=''
	diff <(echo "$expected") <(echo "$output")
}

@test "--help > /dev/full is a write error, exit 4, in every tool" {
	for tool in cp pag infer aggregate temporal ingest report; do
		rc=0
		"tr-$tool" --help > /dev/full 2>"$BATS_TEST_TMPDIR/err" || rc=$?
		expect_num 4 "$rc" || { echo "tr-$tool: exit $rc"; false; }
		grep -q "^tr-$tool: standard output: write error: " "$BATS_TEST_TMPDIR/err" ||
			{ echo "tr-$tool: $(cat "$BATS_TEST_TMPDIR/err")"; false; }
	done
}

@test "'N traces read, M bad' counts the bad traces in N" {
	{ cat "$good"; printf 'T\tbad\nS\tbad\ta\t\tx\t1\ts\to\t\t\n'; } > "$BATS_TEST_TMPDIR/in.tr"
	n=$(traces_in < "$good")
	run --separate-stderr tr-cp -k "$BATS_TEST_TMPDIR/in.tr"
	expect_status 3
	expected="tr-cp: $((n + 1)) traces read, 1 bad"
	actual=$(tail -1 <<<"$stderr")
	diff <(echo "$expected") <(echo "$actual")
}

# --- row 15: tr-report -f md replaces the report and its pictures together ---

@test "tr-report -f md: a picture that cannot be written leaves the old report and its pictures as they were" {
	d="$BATS_TEST_TMPDIR/rep"
	mkdir "$d"
	tr-report -f md --top 2 -o "$d/r.md" "$good"
	rm "$d/r-timeline-1.svg"
	mkdir "$d/r-timeline-1.svg"	# makes the third picture fail
	expected=$(cd "$d" && md5sum r.md r-flame.svg r-services.svg)
	trsim --hints --seed 9 --traces 12 | tr-ingest > "$BATS_TEST_TMPDIR/other.tr"
	run tr-report -f md --top 2 -o "$d/r.md" "$BATS_TEST_TMPDIR/other.tr"
	echo "$output"
	expect_status 4
	actual=$(cd "$d" && md5sum r.md r-flame.svg r-services.svg)
	diff <(echo "$expected") <(echo "$actual")
	left=$(ls -A "$d" | grep tmp || true)
	[ -z "$left" ] || { echo "left behind: $left"; false; }
}

@test "tr-report -f md: the timelines of an earlier, larger --top are removed" {
	d="$BATS_TEST_TMPDIR/rep"
	mkdir "$d"
	tr-report -f md --top 4 -o "$d/r.md" "$good"
	[ -f "$d/r-timeline-4.svg" ]
	run tr-report -f md --top 2 -o "$d/r.md" "$good"
	expect_status 0
	expected=$(printf '%s\n' r-flame.svg r-services.svg r-timeline-1.svg r-timeline-2.svg r.md)
	actual=$(ls "$d")
	diff <(echo "$expected") <(echo "$actual")
}

@test "a pipe read twice (tr-infer --reformat): SIGKILL leaves no tr-spool.* in TMPDIR" {
	mkdir "$BATS_TEST_TMPDIR/tmp"
	TMPDIR="$BATS_TEST_TMPDIR/tmp" tr-infer --reformat > /dev/null < <(cat "$good"; sleep 3) &
	pid=$!
	sleep 1
	kill -9 "$pid"
	wait "$pid" || true
	left=$(ls -A "$BATS_TEST_TMPDIR/tmp")
	[ -z "$left" ] || { echo "left behind: $left"; false; }
}

@test "--fail-if: a Where comparing with a service no span has is exit 2 with the closest name, also when rows matched and the gate holds" {
	f=$(tr-ingest "$SAMPLES/jaeger/hotrod.json" | mkfix h.tr)
	run --separate-stderr tr-aggregate -q --fail-if 'n > 100000' \
		'From s In spans Where s.service = "mysqll" Or s.service = "redis" Select COUNT As n' "$f"
	expect_eq 2 "$status" status
	expect_contains 'no span has service "mysqll" (did you mean "mysql"?)' "$stderr"
}

@test "a trace's records after its group ended, with no T record of their own, are met again too, and what is written reads back" {
	f=$(printf '#tr/1\nT\ta\nS\ta\tx\t\t1\t1\ts\to\t\t\nS\tb\ty\t\t1\t1\ts\to\t\t\nS\ta\tz\t\t1\t1\ts\to\t\t\n' | mkfix again.tr)
	run --separate-stderr tr-cp -k "$f"
	expect_eq 3 "$status" status
	expect_contains "again.tr:5: trace a: met again after its group at $f:2 ended" "$stderr"
	printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/out.tr"
	run tr-cp "$BATS_TEST_TMPDIR/out.tr"
	expect_eq 0 "$status" status
}

# A run whose verdict says it answered nothing (a selector that matched
# nothing, nothing to draw) leaves an existing -o FILE as it was.
answered_nothing_keeps() {
	local out=$BATS_TEST_TMPDIR/keep.out
	echo precious > "$out"
	run "$@" -o "$out"
	expect_ne 0 "$status" "status of $*"
	expect_eq precious "$(cat "$out")" "-o FILE after $*"
}

@test "-o FILE stays as it was: tr-cp --svg --trace an id no trace has" {
	f=$(tr-ingest "$SAMPLES/jaeger/hotrod.json" | mkfix h.tr)
	answered_nothing_keeps tr-cp --svg --trace nosuch "$f"
}

@test "-o FILE stays as it was: tr-cp --summary a tag no span has" {
	f=$(tr-ingest "$SAMPLES/jaeger/hotrod.json" | mkfix h.tr)
	answered_nothing_keeps tr-cp --summary nosuchtag "$f"
}

@test "-o FILE stays as it was: tr-cp --svg with no timed root to draw" {
	f=$(printf '#tr/1\nT\tx\nS\tx\ta\t\t\t\tsvc\top\t\t\n' | mkfix untimed.tr)
	answered_nothing_keeps tr-cp --svg "$f"
}

@test "-o FILE stays as it was: tr-temporal -t an id no trace has" {
	f=$(tr-ingest "$SAMPLES/jaeger/hotrod.json" | mkfix h.tr)
	answered_nothing_keeps tr-temporal -f explain -t nosuch "$f"
}

@test "-o FILE stays as it was: tr-temporal --span a span no trace has" {
	f=$(tr-ingest "$SAMPLES/jaeger/hotrod.json" | mkfix h.tr)
	answered_nothing_keeps tr-temporal -f dot --span nosuch "$f"
}
