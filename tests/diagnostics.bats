#!/usr/bin/env bats
# The messages about input are documented: each man page's DIAGNOSTICS lists,
# one a line in its no-fill blocks and in full ("tool: file:line: what"),
# every message its sources can print (bad input, skipped traces, summaries),
# and lists nothing they cannot print. The texts are taken from the sources,
# with the place each printing function puts before them, so a new message
# without documentation, a documented one that is gone, or a place shown
# wrong fails here.

load helper

top="$BATS_TEST_DIRNAME/.."

# Each man page and the sources whose messages it lists.
pages() {
	cd "$top" || return
	printf '%s\n' \
		"man/tr-format.5 src/lib/core/reader.c src/lib/core/trace.c src/lib/core/io.c src/lib/filter.c src/lib/offsets.c src/lib/pag/pag.c src/lib/pag/pagcp.c src/lib/clock.c src/lib/core/partial.c" \
		"man/tr-ingest.1 $(echo src/lib/ingest/*.c) src/lib/core/io.c src/lib/core/shard.c src/lib/core/halo.c src/tr-ingest.c src/lib/clock.c src/lib/core/partial.c" \
		"man/tr-infer.1 src/lib/infer/infer_partial.c src/lib/core/partial.c src/tr-infer.c src/lib/core/io.c src/lib/where.c src/lib/offsets.c" \
		"man/tr-aggregate.1 src/lib/query/query_agg.c src/lib/query/query_eval.c src/lib/query/query_names.c src/lib/core/partial.c src/tr-aggregate.c src/lib/core/io.c src/lib/where.c" \
		"man/tr-temporal.1 src/lib/temporal/temporal.c src/lib/temporal/temporal_query.c src/lib/temporal/temporal_event.c src/tr-temporal.c src/lib/where.c src/lib/infer/hb.c" \
		"man/tr-report.1 src/lib/report/report_partial.c src/lib/report/report_phase2.c src/lib/core/partial.c src/lib/where.c"
}

# The calls that print a message or make its text, and the place the
# function that prints it puts before it (printf formats).
CALLS='(ig_fail|scan_error|scan_error_at|PARSE_FAIL|rec_fail|tr_warn|tr_trace_warn|violation)\(|tr_die\(TR_EXIT_INPUT|sb_addf\(&s->msg|snprintf\((in->err|what|err),'
place_of() {
	case $1 in
	PARSE_FAIL | 'snprintf(what' | 'snprintf(err') echo '%s:%llu: ' ;;
	ig_fail | scan_error | scan_error_at) echo '%s:%llu:%llu: ' ;;
	rec_fail) echo '%s: %.2s record: ' ;;
	'snprintf(in->err') echo '%s: ' ;;
	tr_trace_warn) echo '%s:%llu: trace %s: ' ;;
	violation) echo '%s:%llu: trace %s: invariant broken: ' ;;
	*) echo '' ;;	# tr_warn, tr_die, sb_addf: the literal is the whole format
	esac
}

# Literals that are not messages: the formats of the printing functions
# themselves (their messages come through place_of), and the guard of
# pag_read_record for a caller that skipped pag_is_record.
not_messages() {
	printf '%s\n' '%s:%llu: trace %.80s: %s' 'trace %.80s: %s' '%s: %.2s record: %s' \
		'%.2s record: %s' 'invariant broken: %s' 'unknown record type'
}

# "call<TAB>literal" for every string literal of those calls in the C files
# given, as the C source spells it minus the quotes; adjacent literals are
# joined, as the compiler joins them. A call whose statement does not end
# within its file is an error. (Definitions start in column 0 and #define
# lines with '#': neither is a call.)
message_literals() {
	local text
	text=$(awk -v calls="$CALLS" '
		FNR == 1 && call { print "unterminated call at " where > "/dev/stderr"; bad = 1; call = 0 }
		{ line = $0; sub(/\/\*.*\*\/[ \t]*$/, "", line); sub(/\/\/.*$/, "", line) }
		!call && line !~ /^[A-Za-z_#]/ && match(line, calls) {
			call = 1; text = ""; where = FILENAME ":" FNR
			name = substr(line, RSTART, RLENGTH); sub(/[(,]$/, "", name)
		}
		call { text = text line; if (line ~ /;[ \t]*$/) { print name "\t" text; call = 0 } }
		END { if (call) print "unterminated call at " where > "/dev/stderr"; exit bad || call }' "$@") ||
		return 1
	printf '%s\n' "$text" | sed -E 's/([^\\])"[[:space:]]*"/\1/g' |
		awk -F'\t' '{ s = substr($0, length($1) + 2); while (match(s, /"(\\.|[^"\\])*"/)) {
			print $1 "\t" substr(s, RSTART + 1, RLENGTH - 2); s = substr(s, RSTART + RLENGTH) } }' |
		sed 's/\\"/"/g'
}

# A full message format (place and literal) as an anchored extended regular
# expression: the tool's name first; a printf conversion matches one word,
# as the placeholders of the man pages are (file, line, N, id, text).
format_regex() {
	sed -E 's/%%/%/g; s/%[-+ #0-9.*]*(hh|h|ll|l|z|j|t)?[diouxXcsfgeEp]/\x01/g' |
		sed -E 's/[][\.*^$(){}+?|]/\\&/g; s/\x01/[^ ]+/g; s/^/^[a-z-]+: /; s/$/$/'
}

# The regexes of the messages the sources $2... can print, one a line.
# Formats with no letters of their own ("%s:%llu: %s") are not messages.
printable() {
	local call literal
	shift
	message_literals "$@" | while IFS=$'\t' read -r call literal; do
		not_messages | grep -qxF -- "$literal" && continue
		printf '%s\n' "$literal" | sed -E 's/%[-+ #0-9.*]*(hh|h|ll|l|z|j|t)?[a-zA-Z]//g' |
			grep -q '[A-Za-z]' || continue
		printf '%s%s\n' "$(place_of "$call")" "$literal"
	done | format_regex | sort -u
}

# The message lines of a man page: the no-fill lines of DIAGNOSTICS, roff
# escapes undone.
listed_messages() {
	sed -n '/^\.SH DIAGNOSTICS/,/^\.SH /p' "$1" |
		awk '/^\.nf/ { nf = 1; next } /^\.fi/ { nf = 0; next } nf && !/^\./' |
		sed -E 's/\\f[IBRP]//g; s/\\&//g; s/\\-/-/g; s/\\e/\\/g; s/^[[:space:]]+//'
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

@test "every man page lists every message of its sources under DIAGNOSTICS, place included" {
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

@test "the check sees the messages, their places, and catches what is missing, extra or misplaced" {
	cd "$top"
	# It must see the messages it checks: dozens of them.
	expect_ge 50 "$(printable x src/lib/ingest/*.c | wc -l)"
	expect_ge 12 "$(printable x src/lib/core/trace.c | wc -l)"
	# The place comes from the function that prints the literal.
	printable x src/lib/core/trace.c | grep -qxF '^[a-z-]+: [^ ]+:[^ ]+: empty span id$'
	printable x src/lib/core/io.c | grep -qxF '^[a-z-]+: [^ ]+: truncated zstd stream$'
	printable x src/lib/pag/pag.c | grep -qxF '^[a-z-]+: [^ ]+: [^ ]+ record: edge is a loop$'
	# Adjacent literals are one message.
	printable x src/lib/pag/pagcp.c | grep -qF 'than can be counted: no critical participation computed$'
	# A message the page lacks.
	src=$(printf 'static int f(ingest *g)\n{\n\treturn ig_fail(g, "span %%zu: no such\\"thing\\"",\n\t\t1);\n}\n' |
		mkfix fake.c)
	expect_eq '^[a-z-]+: [^ ]+:[^ ]+:[^ ]+: span [^ ]+: no such"thing"$' "$(unlisted man/tr-ingest.1 "$src")"
	# Listed lines nothing prints: every line of the page, against one message.
	expect_ge 8 "$(unprintable_listed man/tr-infer.1 "$src" | wc -l)"
	# A listed line with its place shown wrong matches nothing.
	printf '.SH DIAGNOSTICS\n.nf\ntr-ingest: \\fIfile\\fP: span 3: no such"thing"\n.fi\n.SH SEE ALSO\n' > "$BATS_TEST_TMPDIR/t.1"
	expect_eq '^[a-z-]+: [^ ]+:[^ ]+:[^ ]+: span [^ ]+: no such"thing"$' "$(unlisted "$BATS_TEST_TMPDIR/t.1" "$src")"
	# A call whose statement never ends, also when another file follows.
	printf 'void f(void)\n{\n\ttr_warn("never ends"\n' > "$BATS_TEST_TMPDIR/open.c"
	run message_literals "$BATS_TEST_TMPDIR/open.c" "$src"
	expect_num_ne 0 "$status"
	expect_contains "unterminated call at $BATS_TEST_TMPDIR/open.c:3" "$output"
}
