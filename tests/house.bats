#!/usr/bin/env bats
# The shape of the sources (HACKING.md): thin tools, short functions, and
# options a user can find. Functions are found in BSD style: the name at
# the start of a line, "{" and "}" alone in column 0.

load helper

top="$BATS_TEST_DIRNAME/.."

# "file:line: name length" for every function of the C files given whose
# body is longer than $1 lines.
long_functions() {
	local max=$1
	shift
	awk -v max="$max" '
		/^[A-Za-z_][A-Za-z0-9_]*\(/ { name = $0; sub(/\(.*/, "", name) }
		/^\{/ { start = FNR }
		/^\}/ && start { n = FNR - start - 1; if (n > max) print FILENAME ":" start ": " name " " n; start = 0 }
	' "$@" | sed "s|^$top/||"
}

@test "every tool's source is at most 300 lines" {
	local f long=
	for f in "$top"/src/tr-*.c; do
		[ "$(wc -l < "$f")" -le 300 ] || long="$long ${f#"$top"/} $(wc -l < "$f")"
	done
	expect_eq "" "$long" "tools over 300 lines"
}

@test "no tool's main is over 80 lines" {
	expect_eq "" "$(long_functions 80 "$top"/src/tr-*.c | grep ': main ' || true)" "mains over 80 lines"
}

@test "no function in src/ is over 100 lines" {
	run long_functions 100 $(find "$top/src" -name '*.c' | sort)
	expect_eq 0 "$status" status
	expect_eq "" "$output" "functions over 100 lines"
}

@test "the function-length check finds a long function" {
	{ printf 'int\nf(void)\n{\n'; for i in $(seq 101); do printf '\tx();\n'; done; printf '}\n'; } \
		> "$BATS_TEST_TMPDIR/long.c"
	expect_eq "$BATS_TEST_TMPDIR/long.c:3: f 101" "$(long_functions 100 "$BATS_TEST_TMPDIR/long.c")"
}

# The short options of tool $1: its getopt_long string, without ':'.
short_options() {
	grep -o 'getopt_long(argc, argv, "[^"]*"' "$top/src/$1.c" | head -1 |
		sed 's/.*"\(.*\)"/\1/' | tr -d ':'
}

@test "every short option a tool accepts is in its --help" {
	local t c missing=
	for t in $(cd "$top/src" && ls tr-*.c | sed 's/\.c$//'); do
		local help opts
		help=$("$t" --help)
		opts=$(short_options "$t")
		[ -n "$opts" ] || missing="$missing $t:no-getopt-string"
		for c in $(printf '%s' "$opts" | fold -w1); do
			printf '%s\n' "$help" | grep -qE "^  -$c[, ]" || missing="$missing $t:-$c"
		done
	done
	expect_eq "" "$missing" "short options not in --help"
}

@test "a long-only option is coded past the characters, never as a letter getopt would take" {
	local t c bad=
	for t in $(cd "$top/src" && ls tr-*.c | sed 's/\.c$//'); do
		local opts
		opts=$(short_options "$t")
		for c in $(grep -oE '\{"[a-z-]+", *[a-z_]+, *NULL, *'"'"'.'"'" "$top/src/$t.c" |
			   sed -E "s/.*'(.)'/\1/"); do
			case $opts in *"$c"*) ;; *) bad="$bad $t:'$c'" ;; esac
		done
	done
	expect_eq "" "$bad" "long options coded as letters that are no short option"
}
