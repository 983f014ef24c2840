#!/usr/bin/env bats
# The command-line conventions of tr(7), checked on every tool: each test
# walks every tr-* binary in TR_BIN and names the ones that break the rule.
# Exit statuses: 0 ok, 1 a finding, 2 usage, 3 bad input, 4 I/O or system.

load helper

top="$BATS_TEST_DIRNAME/.."

tools() {
	local b
	for b in "$TR_BIN"/tr-*; do
		[ -x "$b" ] && basename "$b"
	done
}

# Arguments a tool needs before its files to run at all.
need_args() {
	case $1 in
	tr-aggregate) printf '%s\n' 'From s In spans GroupBy s.service Select s.service, COUNT' ;;
	esac
}

# Run tool $1 with its needed arguments, then the rest; $out_ is stdout,
# $err_ stderr, $rc_ the exit status.
invoke() {
	local t=$1 args=()
	shift
	mapfile -t args < <(need_args "$t")
	rc_=0
	"$t" "$@" "${args[@]}" > "$BATS_TEST_TMPDIR/out" 2> "$BATS_TEST_TMPDIR/err" < "${STDIN:-/dev/null}" || rc_=$?
	out_=$(cat "$BATS_TEST_TMPDIR/out")
	err_=$(cat "$BATS_TEST_TMPDIR/err")
}

# Options go before the tool's needed arguments (tr-aggregate QUERY FILE).
invoke_files() {
	local t=$1 args=()
	shift
	mapfile -t args < <(need_args "$t")
	local opts=() files=()
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do opts+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	files=("$@")
	rc_=0
	"$t" "${opts[@]}" "${args[@]}" "${files[@]}" > "$BATS_TEST_TMPDIR/out" 2> "$BATS_TEST_TMPDIR/err" < "${STDIN:-/dev/null}" || rc_=$?
	out_=$(cat "$BATS_TEST_TMPDIR/out")
	err_=$(cat "$BATS_TEST_TMPDIR/err")
}

# Name a tool that broke the rule (and how it was run), with the exit status
# and the first line of stderr it gave; the test lists them all at its end.
broke() {
	fail="$fail
$1: exit $rc_, stderr: ${err_%%$'\n'*}"
}

# A good input for each tool: JSON for tr-ingest, the line format otherwise.
good_input() {
	if [ "$1" = tr-ingest ]; then
		mkfix good.json <<'EOF'
{"data":[{"traceID":"t1","spans":[
 {"traceID":"t1","spanID":"a","operationName":"GET /","references":[],"startTime":1000,"duration":100,"tags":[],"logs":[],"processID":"p1"},
 {"traceID":"t1","spanID":"b","operationName":"query","references":[{"refType":"CHILD_OF","traceID":"t1","spanID":"a"}],"startTime":1010,"duration":50,"tags":[],"logs":[],"processID":"p2"}],
 "processes":{"p1":{"serviceName":"front","tags":[]},"p2":{"serviceName":"db","tags":[]}}}]}
EOF
	else
		printf '#tr/1\nT\tt1\nS\tt1\ta\t\t1000\t100\tfront\tGET /\tserver\th1\nS\tt1\tb\ta\t1010\t50\tdb\tquery\tclient\th1\n' |
			mkfix good.tr
	fi
}

# The good trace t1, then t2 broken on line 5 (JSON: line 3, a negative
# duration: malformed JSON cannot be read past), then t3 good.
bad_input() {
	if [ "$1" = tr-ingest ]; then
		mkfix bad.json <<'EOF'
{"data":[
 {"traceID":"t1","spans":[{"traceID":"t1","spanID":"a","operationName":"GET /","references":[],"startTime":1000,"duration":100,"processID":"p1"}],"processes":{"p1":{"serviceName":"front"}}},
 {"traceID":"t2","spans":[{"traceID":"t2","spanID":"a","operationName":"GET /","references":[],"startTime":1500,"duration":-5,"processID":"p1"}],"processes":{"p1":{"serviceName":"front"}}},
 {"traceID":"t3","spans":[{"traceID":"t3","spanID":"a","operationName":"GET /","references":[],"startTime":2000,"duration":100,"processID":"p1"}],"processes":{"p1":{"serviceName":"front"}}}
]}
EOF
	else
		printf '%s\n' '#tr/1' 'T	t1' 'S	t1	a		1000	100	front	GET /	server	h1' \
		    'T	t2' 'S	t2	a		oops	100	front	GET /	server	h1' \
		    'T	t3' 'S	t3	a		2000	100	front	GET /	server	h1' | mkfix bad.tr
	fi
}

@test "every tool has a binary and a man page with NAME, SYNOPSIS, DESCRIPTION, OPTIONS, EXIT STATUS, EXAMPLES, SEE ALSO" {
	fail=""
	for src in "$top"/src/tr-*.c; do
		t=$(basename "$src" .c)
		[ -x "$TR_BIN/$t" ] || fail="$fail $t(no binary)"
		m="$top/man/$t.1"
		[ -f "$m" ] || { fail="$fail $t(no man page)"; continue; }
		for sec in NAME SYNOPSIS DESCRIPTION OPTIONS 'EXIT STATUS' EXAMPLES 'SEE ALSO'; do
			grep -qx "\.SH \"\{0,1\}$sec\"\{0,1\}" "$m" || fail="$fail $t(no $sec)"
		done
	done
	[ -z "$fail" ] || { echo "broken:$fail"; false; }
	expect_ge 6 "$(tools | wc -l)"
}

@test "every man page renders without warnings (groff -ww)" {
	command -v groff >/dev/null || skip "groff is not installed"
	fail=""
	for m in "$top"/man/*.[157]; do
		w=$(groff -man -ww -Tutf8 "$m" 2>&1 >/dev/null)
		[ -z "$w" ] || { echo "$m: $w"; fail="$fail $(basename "$m")"; }
	done
	[ -z "$fail" ] || { echo "warnings:$fail"; false; }
}

@test "every man page passes mandoc -T lint at level warning" {
	command -v mandoc >/dev/null || skip "mandoc is not installed"
	fail=""
	for m in "$top"/man/*.[157]; do
		w=$(mandoc -T lint -W warning "$m" 2>&1)
		[ -z "$w" ] || { echo "$w"; fail="$fail $(basename "$m")"; }
	done
	[ -z "$fail" ] || { echo "warnings:$fail"; false; }
}

@test "every long option in a tool's --help is documented in its man page" {
	fail=""
	for t in $(tools); do
		for o in $("$t" --help | grep -o -- '--[a-z][a-z0-9-]*' | sort -u); do
			grep -qF -- "$(printf '%s' "$o" | sed 's/-/\\-/g')" "$top/man/$t.1" || fail="$fail $t:$o"
		done
	done
	[ -z "$fail" ] || { echo "undocumented:$fail"; false; }
}

@test "-h and --help print usage on stdout, nothing on stderr, and exit 0" {
	fail=""
	for t in $(tools); do
		for h in -h --help; do
			invoke "$t" "$h"
			[ "$rc_" -eq 0 ] && [ -z "$err_" ] && [[ $out_ == "usage: $t "* ]] || broke "$t$h"
		done
	done
	[ -z "$fail" ] || { echo "broken:$fail"; false; }
}

@test "every tool's help lists -h, --version, -o, -k, -q, -v" {
	fail=""
	for t in $(tools); do
		help=$("$t" --help)
		for o in '-h, --help' '--version' '-o ' '-k, --keep-going' '-q, --quiet' '-v, --verbose'; do
			grep -qF -- "$o" <<<"$help" || fail="$fail $t($o)"
		done
	done
	[ -z "$fail" ] || { echo "missing:$fail"; false; }
}

@test "--version prints 'tr-xxx (tr) VERSION' on stdout and exits 0" {
	fail=""
	for t in $(tools); do
		invoke "$t" --version
		[ "$rc_" -eq 0 ] && [[ $out_ =~ ^$t\ \(tr\)\ [0-9]+\.[0-9]+\.[0-9]+$ ]] || broke "$t"
	done
	[ -z "$fail" ] || { echo "broken:$fail"; false; }
}

@test "--help fits 80 columns, and every tool's option descriptions start in column 27" {
	fail=""
	for t in $(tools); do
		"$t" --help > "$BATS_TEST_TMPDIR/help"
		# After the first option line: an option, alone or with its
		# description in column 27, or a description's next line.
		awk 'function alone(l) { return l ~ /^ +-[^ ]+( [^ ]+)*$/ }
		     function described(l) {
			return substr(l, 1, 26) ~ /^ +-[^ ]+( [^ ]+)*  +$/ && substr(l, 27, 1) != " "
		     }
		     length($0) > 80 { bad = 1 }
		     /^  -/ { opts = 1 }
		     function more(l) { return substr(l, 1, 26) ~ /^ +$/ && substr(l, 27, 1) != " " }
		     opts && !more($0) && !alone($0) && !described($0) { bad = 1 }
		     END { exit bad }' "$BATS_TEST_TMPDIR/help" || fail="$fail $t"
	done
	[ -z "$fail" ] || { echo "misaligned:$fail"; false; }
}

@test "every report: -f json is one JSON document, -f csv a header and rows of as many fields" {
	f=$(good_input tr-cp)
	fail="" n=0
	while IFS='|' read -r t args; do
		[ -x "$TR_BIN/$t" ] || continue
		n=$((n + 1))
		read -ra a <<<"$args"
		"$t" "${a[@]}" -f json "$f" > "$BATS_TEST_TMPDIR/json" || fail="$fail $t${args:+ $args}(json)"
		jq -e 'type == "array" or type == "object"' "$BATS_TEST_TMPDIR/json" > /dev/null ||
			fail="$fail $t${args:+ $args}(json)"
		"$t" "${a[@]}" -f csv "$f" > "$BATS_TEST_TMPDIR/csv" || fail="$fail $t${args:+ $args}(csv)"
		awk -F, 'NR == 1 { n = NF } NF != n || NF < 2 { bad = 1 } END { exit bad || NR < 2 }' \
			"$BATS_TEST_TMPDIR/csv" || fail="$fail $t${args:+ $args}(csv)"
	done <<-'EOF'
	tr-cp|--summary service
	tr-cp|--summary operation --units ms
	tr-infer|
	tr-infer|--links
	tr-temporal|
	EOF
	[ -z "$fail" ] || { echo "broken:$fail"; false; }
	expect_num 5 "$n"
}

@test "an unknown option exits 2 with one 'tr-xxx: ' line naming it, then 'try', and nothing on stdout" {
	fail=""
	for t in $(tools); do
		invoke "$t" --no-such-option
		[ "$rc_" -eq 2 ] && [ -z "$out_" ] &&
			[ "$err_" = "$t: unknown option --no-such-option
try '$t --help'" ] || broke "$t"
	done
	[ -z "$fail" ] || { echo "broken:$fail"; false; }
}

@test "a mistyped long option is answered with the closest one (did you mean --verbose?)" {
	fail=""
	for t in $(tools); do
		invoke "$t" --verbsoe
		[ "$rc_" -eq 2 ] && [[ $err_ == "$t: unknown option --verbsoe (did you mean --verbose?)"* ]] ||
			broke "$t"
	done
	[ -z "$fail" ] || { echo "broken:$fail"; false; }
}

@test "usage errors of getopt are one line each: unknown short option, missing argument, ambiguous, an argument to a flag" {
	fail=""
	for t in $(tools); do
		invoke "$t" -Z
		[ "$rc_" -eq 2 ] && [[ $err_ == "$t: unknown option -Z"$'\n'"try '$t --help'" ]] || broke "$t:-Z"
		"$t" -v -o > "$BATS_TEST_TMPDIR/out" 2> "$BATS_TEST_TMPDIR/err" < /dev/null && rc_=0 || rc_=$?
		err_=$(cat "$BATS_TEST_TMPDIR/err")
		[ "$rc_" -eq 2 ] && [[ $err_ == "$t: option -o needs an argument"$'\n'* ]] || broke "$t:-o"
		"$t" -v --output > "$BATS_TEST_TMPDIR/out" 2> "$BATS_TEST_TMPDIR/err" < /dev/null && rc_=0 || rc_=$?
		err_=$(cat "$BATS_TEST_TMPDIR/err")
		[ "$rc_" -eq 2 ] && [[ $err_ == "$t: option --output needs an argument"$'\n'* ]] || broke "$t:--output"
		invoke "$t" --max
		[ "$rc_" -eq 2 ] && [[ $err_ == "$t: option --max is ambiguous: --max-"*", --max-"* ]] || broke "$t:--max"
		invoke "$t" --quiet=yes
		[ "$rc_" -eq 2 ] && [[ $err_ == "$t: option --quiet takes no argument"$'\n'* ]] || broke "$t:--quiet="
	done
	[ -z "$fail" ] || { echo "broken:$fail"; false; }
}

@test "a bad -f/--format value exits 2 with a 'tr-xxx: ' message" {
	fail=""
	for t in $(tools); do
		f=$(good_input "$t")
		for o in -f --format; do
			invoke_files "$t" "$o" no-such-format -- "$f"
			[ "$rc_" -eq 2 ] && [ -z "$out_" ] && [[ $err_ == "$t: "* ]] || broke "$t$o"
		done
	done
	[ -z "$fail" ] || { echo "broken:$fail"; false; }
}

@test "stdin is read when no file is given and for -, with the output of a named file" {
	fail=""
	for t in $(tools); do
		f=$(good_input "$t")
		invoke_files "$t" -- "$f"
		[ "$rc_" -eq 0 ] && [ -n "$out_" ] || { broke "$t(file)"; continue; }
		want=${out_//"$f"/-}	# a report that names its inputs names stdin "-"
		STDIN=$f invoke_files "$t" --
		[ "$rc_" -eq 0 ] && [ "$out_" = "$want" ] || broke "$t(stdin)"
		STDIN=$f invoke_files "$t" -- -
		[ "$rc_" -eq 0 ] && [ "$out_" = "$want" ] || broke "$t(-)"
	done
	[ -z "$fail" ] || { echo "broken:$fail"; false; }
}

@test "-o FILE (and --output FILE where the help offers it) write the output there, nothing on stdout" {
	fail=""
	for t in $(tools); do
		f=$(good_input "$t")
		invoke_files "$t" -- "$f"
		want=$out_
		long=
		"$t" --help | grep -q -- '-o, --output' && long=--output
		for o in -o $long; do
			rm -f "$BATS_TEST_TMPDIR/o"
			invoke_files "$t" "$o" "$BATS_TEST_TMPDIR/o" -- "$f"
			[ "$rc_" -eq 0 ] && [ -z "$out_" ] && [ "$(cat "$BATS_TEST_TMPDIR/o")" = "$want" ] ||
				broke "$t$o"
		done
	done
	[ -z "$fail" ] || { echo "broken:$fail"; false; }
}

@test "an -o FILE that cannot be written exits 4 with a 'tr-xxx: FILE: ' message" {
	fail=""
	for t in $(tools); do
		f=$(good_input "$t")
		invoke_files "$t" -o "$BATS_TEST_TMPDIR/no/such/dir/out" -- "$f"
		[ "$rc_" -eq 4 ] && [[ $err_ == "$t: $BATS_TEST_TMPDIR/no/such/dir/out: "* ]] || broke "$t"
	done
	[ -z "$fail" ] || { echo "broken:$fail"; false; }
}

@test "a missing input file exits 3 with a 'tr-xxx: FILE: ' message" {
	fail=""
	for t in $(tools); do
		invoke_files "$t" -- "$BATS_TEST_TMPDIR/missing"
		[ "$rc_" -eq 3 ] && [[ $err_ == "$t: $BATS_TEST_TMPDIR/missing: "* ]] || broke "$t"
	done
	[ -z "$fail" ] || { echo "broken:$fail"; false; }
}

@test "a bad record exits 3 with a 'tr-xxx: FILE:LINE:' message" {
	fail=""
	for t in $(tools); do
		f=$(bad_input "$t")
		line=5
		[ "$t" = tr-ingest ] && line=3
		invoke_files "$t" -- "$f"
		[ "$rc_" -eq 3 ] && grep -q "^$t: $f:$line:" <<<"$err_" || broke "$t"
	done
	[ -z "$fail" ] || { echo "broken:$fail"; false; }
}

@test "a filter writes the good traces before a bad one, and with -k the ones after it too" {
	n=0 fail=""
	for t in $(tools); do
		invoke_files "$t" -- "$(good_input "$t")"
		[[ $out_ == "#tr/1"* ]] || continue	# a report, not a filter
		n=$((n + 1))
		f=$(bad_input "$t")
		invoke_files "$t" -- "$f"
		[ "$rc_" -eq 3 ] && grep -q "^T	t1" <<<"$out_" && ! grep -q "	t2	" <<<"$out_" ||
			broke "$t"
		invoke_files "$t" -k -- "$f"
		[ "$rc_" -eq 3 ] && grep -q "^T	t1" <<<"$out_" && grep -q "^T	t3" <<<"$out_" &&
			! grep -q "	t2	" <<<"$out_" || broke "$t(-k)"
	done
	[ -z "$fail" ] || { echo "broken:$fail"; false; }
	expect_ge 4 "$n"
}

@test "-q keeps stderr empty on good input" {
	fail=""
	for t in $(tools); do
		f=$(good_input "$t")
		invoke_files "$t" -q -- "$f"
		[ "$rc_" -eq 0 ] && [ -z "$err_" ] || broke "$t(-q)"
	done
	[ -z "$fail" ] || { echo "broken:$fail"; false; }
}

@test "-v adds a 'tr-xxx: ' summary on stderr" {
	fail=""
	for t in $(tools); do
		f=$(good_input "$t")
		invoke_files "$t" -v -- "$f"
		[ "$rc_" -eq 0 ] && [[ $err_ == "$t: "* ]] || broke "$t(-v)"
	done
	[ -z "$fail" ] || { echo "broken:$fail"; false; }
}

@test "the walk itself catches a tool that breaks a convention" {
	# A fake tool that exits 1 on an unknown option: the check used above must fail.
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	printf '#!/bin/sh\necho "tr-fake: bad option" >&2\nexit 1\n' > "$BATS_TEST_TMPDIR/bin/tr-fake"
	chmod +x "$BATS_TEST_TMPDIR/bin/tr-fake"
	TR_BIN=$BATS_TEST_TMPDIR/bin PATH=$BATS_TEST_TMPDIR/bin:$PATH
	expect_eq tr-fake "$(tools)"
	invoke tr-fake --no-such-option
	! { [ "$rc_" -eq 2 ] && [ -z "$out_" ] && [[ $err_ == "tr-fake: "* ]]; }
}

# The tests' own convention: a failing comparison says what it expected and
# what it got, so every comparison goes through an expect_ helper of
# helper.bash. A bare [ ] or [[ ]] comparison as an assertion (alone on its
# line, or with an '|| { echo ...; false; }') prints nothing of its operands.
@test "no test asserts with a bare [ ] or [[ ]] comparison" {
	local bare='^\s*\[\[? (.* (=|==|!=|=~|-eq|-ne|-ge|-gt|-le|-lt) .*|-[zn] [^]]*)(\]\]?\s*(#.*)?|\|\| \{ .*(false|return 1); \})$'
	# the pattern finds each old form, and leaves a condition alone
	expect_num 5 "$(printf '\t%s\n' \
		'[ "$(cut -f2 "$f")" = "a" ]' \
		'[ -z "$(grep -v x "$f")" ]' \
		'[ "$status" -eq 0 ]' \
		'[[ "$output" == *"x"* ]] || { echo "$output"; false; }' \
		'[ "$output" = "x" ]  # a comment' \
		'[ -n "$TR_SHARED" ] || skip "no data"' \
		'[ "$t" = tr-ingest ] && line=3' | grep -cE "$bare")"
	cd "$top/tests"
	run grep -nE "$bare" *.bats
	expect_output ""
}

@test "expect_eq, failing, prints the expected and the actual value as a diff" {
	run expect_eq "$(printf 'a\nb')" "$(printf 'a\nc')" list
	expect_status 1
	expect_output "list differs (-expected +actual):
@@ -1,2 +1,2 @@
 a
-b
+c"
}

@test "expect_status, failing, prints the status and the output" {
	run sh -c 'echo out; exit 3'
	run expect_status 0
	expect_status 1
	expect_output "exit status: expected 0, actual 3
output:
out"
}

@test "expect_ge, failing, prints the bound and the actual number" {
	run expect_ge 5 3 spans
	expect_status 1
	expect_output "spans: expected >= 5, actual 3"
}

@test "expect_contains, failing, prints the text looked for and the actual value" {
	run expect_contains needle haystack
	expect_status 1
	expect_output "value does not contain:
needle
actual:
haystack"
}

@test "expect_like, failing, prints the pattern and the actual value" {
	run expect_like 'tr-*: bad' 'trx: bad'
	expect_status 1
	expect_output "value does not match the pattern:
tr-*: bad
actual:
trx: bad"
}
