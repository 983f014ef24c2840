# Shared by every bats suite: where the binaries and the shared data are.
# TR_BIN is set by 'make check'; running bats by hand falls back to build/bin.
: "${TR_BIN:=$BATS_TEST_DIRNAME/../build/bin}"
PATH="$TR_BIN:$PATH"
export PATH

# Third-party conformance data lives beside the project, never inside it.
CONF="${TR_SHARED:-$BATS_TEST_DIRNAME/../../shared}/conformance"
SAMPLES="$BATS_TEST_DIRNAME/../samples"
FIX="$BATS_TEST_DIRNAME/fixtures"

need_conformance() {
	[ -d "$CONF" ] || skip "no ../shared/conformance beside the project"
}

# Write stdin to a file in the test's own temporary directory and print its path.
mkfix() {
	local f="$BATS_TEST_TMPDIR/$1"
	cat > "$f"
	printf '%s\n' "$f"
}

# The S records of a line-format stream, tags cut off (fields 1-10).
spans() {
	awk -F'\t' -v OFS='\t' '$1 == "S" { NF = 10; print }'
}

# PAG records as a test reads them: each PE record's operation number
# replaced by the service and operation its PO record names, so that an
# edge can be looked for by its names.
pag_named() {
	awk -F'\t' -v OFS='\t' '$1 == "PO" { op[$3] = $4 OFS $5 }
		$1 == "PE" && NF >= 10 { $10 = $10 == "" ? OFS : op[$10] } { print }'
}

# Compare an expected value with an actual one; on a difference, print both
# as a diff (expected lines "-", actual "+") and fail. A third argument names
# what was compared.  usage: expect_eq EXPECTED ACTUAL [WHAT]
expect_eq() {
	[ "$1" = "$2" ] && return 0
	echo "${3:-value} differs (-expected +actual):"
	diff -u <(printf '%s\n' "$1") <(printf '%s\n' "$2") | tail -n +3
	return 1
}

# expect_eq on the output of the last 'run'.  usage: expect_output EXPECTED
expect_output() {
	expect_eq "$1" "$output" output
}

# The last 'run' exited with status EXPECTED; otherwise print the status and
# what the command wrote.  usage: expect_status EXPECTED
expect_status() {
	[ "$status" -eq "$1" ] && return 0
	echo "exit status: expected $1, actual $status"
	printf 'output:\n%s\n' "$output"
	[ -z "${stderr-}" ] || printf 'stderr:\n%s\n' "$stderr"
	return 1
}

# ACTUAL is not UNEXPECTED.  usage: expect_ne UNEXPECTED ACTUAL [WHAT]
expect_ne() {
	[ "$1" != "$2" ] && return 0
	printf '%s is, and should not be:\n%s\n' "${3:-value}" "$2"
	return 1
}

# ACTUAL is empty, or not.  usage: expect_empty ACTUAL [WHAT]
expect_empty() {
	expect_eq "" "$1" "${2:-value}"
}
expect_nonempty() {
	[ -n "$1" ] && return 0
	echo "${2:-value} is empty"
	return 1
}

# Integer comparisons: ACTUAL OP BOUND, printing both on a failure.
# usage: expect_num EXPECTED ACTUAL [WHAT] (equal), expect_num_ne,
# expect_ge MIN ACTUAL, expect_gt, expect_le MAX ACTUAL, expect_lt
expect_int_() {
	[ "$3" "$1" "$2" ] 2>/dev/null && return 0
	local op
	case $1 in -eq) op='=' ;; -ne) op='not' ;; -ge) op='>=' ;; -gt) op='>' ;; -le) op='<=' ;; -lt) op='<' ;; esac
	printf '%s: expected %s %s, actual %s\n' "${4:-value}" "$op" "$2" "$3"
	return 1
}
expect_num() { expect_int_ -eq "$@"; }
expect_num_ne() { expect_int_ -ne "$@"; }
expect_ge() { expect_int_ -ge "$@"; }
expect_gt() { expect_int_ -gt "$@"; }
expect_le() { expect_int_ -le "$@"; }
expect_lt() { expect_int_ -lt "$@"; }

# ACTUAL holds the text TEXT, or does not.  usage: expect_contains TEXT ACTUAL [WHAT]
expect_contains() {
	[[ $2 == *"$1"* ]] && return 0
	printf '%s does not contain:\n%s\nactual:\n%s\n' "${3:-value}" "$1" "$2"
	return 1
}
expect_lacks() {
	[[ $2 != *"$1"* ]] && return 0
	printf '%s contains, and should not:\n%s\nactual:\n%s\n' "${3:-value}" "$1" "$2"
	return 1
}

# ACTUAL matches the glob PATTERN (quoted when passed), or does not.
# usage: expect_like PATTERN ACTUAL [WHAT]
expect_like() {
	[[ $2 == $1 ]] && return 0
	printf '%s does not match the pattern:\n%s\nactual:\n%s\n' "${3:-value}" "$1" "$2"
	return 1
}
expect_unlike() {
	[[ $2 != $1 ]] && return 0
	printf '%s matches, and should not, the pattern:\n%s\nactual:\n%s\n' "${3:-value}" "$1" "$2"
	return 1
}

# ACTUAL matches the extended regular expression REGEX.
# usage: expect_match REGEX ACTUAL [WHAT]
expect_match() {
	[[ $2 =~ $1 ]] && return 0
	printf '%s does not match the regular expression:\n%s\nactual:\n%s\n' "${3:-value}" "$1" "$2"
	return 1
}

# FILE exists.  usage: expect_file FILE
expect_file() {
	[ -e "$1" ] && return 0
	echo "no file $1"
	return 1
}
