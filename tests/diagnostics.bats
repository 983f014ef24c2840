#!/usr/bin/env bats
# The messages about input are documented: each man page's DIAGNOSTICS lists,
# one a line in its no-fill blocks, every message its sources can print (bad
# input, skipped traces, summaries), and lists nothing they cannot print. The
# texts are taken from the sources, so a new message without documentation,
# or a documented one that is gone, fails here.

load helper

top="$BATS_TEST_DIRNAME/.."

# Each man page and the sources whose messages it lists.
pages() {
	cd "$top" || return
	printf '%s\n' \
		"man/tr-format.5 src/lib/reader.c src/lib/trace.c src/lib/io.c src/lib/filter.c src/lib/pag.c src/lib/pagcp.c" \
		"man/tr-ingest.1 $(echo src/lib/ingest*.c) src/lib/io.c" \
		"man/tr-infer.1 src/lib/infer_partial.c src/tr-infer.c" \
		"man/tr-aggregate.1 src/lib/query_agg.c src/lib/query_eval.c" \
		"man/tr-temporal.1 src/lib/temporal.c src/lib/temporal_query.c"
}

# Message texts the tools cannot print, as literal_regex gives them: the
# guard of pag_read_record for a caller that skipped pag_is_record.
unprintable() {
	printf '%s\n' 'unknown record type'
}

# The calls that print a message or make its text.
CALLS='(ig_fail|scan_error|scan_error_at|PARSE_FAIL|rec_fail|tr_warn|tr_trace_warn|violation)\(|tr_die\(TR_EXIT_INPUT|sb_addf\(&s->msg|snprintf\((in->err|what|err),'

# Every string literal of those calls in the C files given, one a line, as
# the C source spells it minus the quotes; adjacent literals are joined, as
# the compiler joins them. A call whose statement does not end is an error.
message_literals() {
	local text
	text=$(awk -v calls="$CALLS" '
		{ line = $0; sub(/\/\*.*\*\/[ \t]*$/, "", line); sub(/\/\/.*$/, "", line) }
		!call && line ~ calls { call = 1; text = ""; where = FILENAME ":" FNR }
		call { text = text line; if (line ~ /;[ \t]*$/) { print text; call = 0 } }
		END { if (call) { print "unterminated call at " where > "/dev/stderr"; exit 1 } }' "$@") ||
		return 1
	printf '%s\n' "$text" | sed -E 's/([^\\])"[[:space:]]*"/\1/g' |
		grep -oE '"(\\.|[^"\\])*"' | sed 's/^"//; s/"$//; s/\\"/"/g'
}

# A literal as an anchored extended regular expression: printf conversions
# match anything; a leading place ("%s: ", "%s:%llu:%llu: ") and a tool
# prefix may or may not be shown. Literals with no letters print nothing.
literal_regex() {
	sed -E 's/%[-+ #0-9.*]*(hh|h|ll|l|z|j|t)?[diouxXcsfgeEp]/\x01/g' |
		sed -E 's/^(\x01:)*\x01: //' |
		grep -E '[A-Za-z]' |
		sed -E 's/[][\.*^$(){}+?|]/\\&/g; s/\x01/.*/g; s/^/^(.*: )?/; s/$/$/'
}

# The message lines of a man page: the no-fill lines of DIAGNOSTICS, roff
# escapes undone.
listed_messages() {
	sed -n '/^\.SH DIAGNOSTICS/,/^\.SH /p' "$1" |
		awk '/^\.nf/ { nf = 1; next } /^\.fi/ { nf = 0; next } nf && !/^\./' |
		sed -E 's/\\f[IBRP]//g; s/\\&//g; s/\\-/-/g; s/\\e/\\/g; s/^[[:space:]]+//'
}

# The regexes of the messages sources $2... can print, one a line.
printable() {
	shift
	message_literals "$@" | literal_regex | sort -u | grep -vxF -f <(unprintable | literal_regex)
}

# Print each printable message that man page $1 does not list.
unlisted() {
	local listed re
	listed=$(listed_messages "$1")
	[ -n "$listed" ] || { echo "no DIAGNOSTICS list in $1"; return; }
	printable "$@" | while IFS= read -r re; do
		printf '%s\n' "$listed" | grep -qE -- "$re" || printf '%s\n' "$re"
	done
}

# Print each line man page $1 lists that no message of its sources matches.
unprintable_listed() {
	local res line
	res=$(printable "$@")
	listed_messages "$1" | while IFS= read -r line; do
		printf '%s\n' "$line" | grep -qE -f <(printf '%s\n' "$res") || printf '%s\n' "$line"
	done
}

@test "every man page lists every message of its sources under DIAGNOSTICS" {
	fail=
	while read -r man srcs; do
		for f in $man $srcs; do
			[ -f "$top/$f" ] || fail="$fail
no file $f"
		done
		# shellcheck disable=SC2086
		[ "$(cd "$top" && printable "$man" $srcs | wc -l)" -gt 0 ] || fail="$fail
$man: no messages found in $srcs"
		# shellcheck disable=SC2086
		missing=$(cd "$top" && unlisted "$man" $srcs)
		[ -z "$missing" ] || fail="$fail
$man lacks:
$missing"
	done < <(pages)
	[ -z "$fail" ] || { echo "$fail"; false; }
}

@test "every message a man page lists under DIAGNOSTICS is one its sources print" {
	fail=
	while read -r man srcs; do
		# shellcheck disable=SC2086
		extra=$(cd "$top" && unprintable_listed "$man" $srcs)
		[ -z "$extra" ] || fail="$fail
$man lists what nothing prints:
$extra"
	done < <(pages)
	[ -z "$fail" ] || { echo "$fail"; false; }
}

@test "the check sees the messages and catches one missing, one extra and an unterminated call" {
	cd "$top"
	# It must see the messages it checks: dozens of them.
	[ "$(printable x src/lib/ingest*.c | wc -l)" -ge 50 ]
	[ "$(printable x src/lib/trace.c | wc -l)" -ge 12 ]
	printable x src/lib/io.c | grep -qxF '^(.*: )?truncated zstd stream$'
	# Adjacent literals are one message.
	printable x src/lib/pagcp.c | grep -qF 'than can be counted: no critical participation computed$'
	# A message the page lacks.
	src=$(printf 'static int f(ingest *g)\n{\n\treturn ig_fail(g, "span %%zu: no such\\"thing\\"",\n\t\t1);\n}\n' |
		mkfix fake.c)
	[ "$(unlisted man/tr-ingest.1 "$src")" = '^(.*: )?span .*: no such"thing"$' ]
	# A listed line nothing prints: every line of the page, against one message.
	[ "$(unprintable_listed man/tr-infer.1 "$src" | wc -l)" -ge 8 ]
	# A call whose statement never ends.
	printf 'void f(void)\n{\n\ttr_warn("never ends"\n' > "$BATS_TEST_TMPDIR/open.c"
	run message_literals "$BATS_TEST_TMPDIR/open.c"
	[ "$status" -ne 0 ]
	[[ "$output" == *"unterminated call at $BATS_TEST_TMPDIR/open.c:3"* ]]
}
