#!/usr/bin/env bats
# The messages for bad input are documented: every message text the library
# can print for a line-format input is listed in tr-format(5) DIAGNOSTICS,
# every one tr-ingest can print in tr-ingest(1) DIAGNOSTICS. The texts are
# taken from the sources, so a new message without documentation fails here.

load helper

top="$BATS_TEST_DIRNAME/.."

# Every string literal of the message calls in the C files given, one a line,
# as the C source spells it minus the quotes (calls may span lines).
message_literals() {
	awk '/(ig_fail|scan_error|PARSE_FAIL|rec_fail|tr_warn)\(|sb_addf\(&s->msg|snprintf\(in->err/ { call = 1; text = "" }
	     call { text = text $0; if ($0 ~ /;[ \t]*$/) { print text; call = 0 } }' "$@" |
		grep -oE '"(\\.|[^"\\])*"' | sed 's/^"//; s/"$//; s/\\"/"/g'
}

# A literal as an extended regular expression: printf conversions match
# anything, the leading "%s: " / "%s:%llu:%llu: " place prefixes are dropped.
# Literals that are nothing but conversions and punctuation print nothing.
literal_regex() {
	sed -E 's/%[-+ #0-9.*]*(hh|h|ll|l|z|j|t)?[diouxXcsfgeEp]/\x01/g' |
		sed -E 's/^(\x01:)*\x01: //' |
		grep -vE '^[^A-Za-z]*$' |
		sed -E 's/[][\.*^$(){}+?|]/\\&/g; s/\x01/.*/g'
}

# The text of a man page's DIAGNOSTICS section, roff escapes undone.
diagnostics_text() {
	sed -n '/^\.SH DIAGNOSTICS/,/^\.SH /p' "$1" |
		sed -E 's/\\f[IBRP]//g; s/\\&//g; s/\\-/-/g; s/\\\(lq|\\\(rq/"/g; s/\\e/\\/g'
}

# Print each message regex of the sources $2... that man page $1 lacks.
undocumented() {
	local man=$1 text re
	shift
	text=$(diagnostics_text "$man")
	[ -n "$text" ] || { echo "no DIAGNOSTICS in $man"; return; }
	message_literals "$@" | literal_regex | sort -u | while IFS= read -r re; do
		printf '%s\n' "$text" | grep -qE -- "$re" || printf '%s\n' "$re"
	done
}

@test "every message of the line-format reader and the PAG reader is listed in tr-format(5)" {
	run undocumented "$top/man/tr-format.5" "$top"/src/lib/reader.c "$top"/src/lib/trace.c \
		"$top"/src/lib/io.c "$top"/src/lib/pag.c "$top"/src/lib/pagcp.c
	[ "$status" -eq 0 ]
	[ -z "$output" ] || { echo "not in tr-format(5) DIAGNOSTICS:"; echo "$output"; false; }
}

@test "every message of tr-ingest's converters is listed in tr-ingest(1)" {
	run undocumented "$top/man/tr-ingest.1" "$top"/src/lib/ingest*.c
	[ "$status" -eq 0 ]
	[ -z "$output" ] || { echo "not in tr-ingest(1) DIAGNOSTICS:"; echo "$output"; false; }
}

@test "the check finds the messages and catches one the man page lacks" {
	# It must see the messages it checks: dozens of them in each source set.
	[ "$(message_literals "$top"/src/lib/ingest*.c | literal_regex | sort -u | wc -l)" -ge 40 ]
	[ "$(message_literals "$top"/src/lib/trace.c | literal_regex | sort -u | wc -l)" -ge 12 ]
	message_literals "$top"/src/lib/io.c | grep -qx 'truncated zstd stream'
	src=$(printf 'static int f(ingest *g)\n{\n\treturn ig_fail(g, "span %%zu: no such\\"thing\\"",\n\t\t1);\n}\n' |
		mkfix fake.c)
	run undocumented "$top/man/tr-ingest.1" "$src"
	[ "$output" = 'span .*: no such"thing"' ]
}
