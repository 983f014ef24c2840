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
