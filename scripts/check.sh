#!/bin/sh
# Run the unit tests and the bats suites; end with one summary line
# ("N passed, N failed, N skipped") and a non-zero status on any failure.
# usage: check.sh BINDIR UNIT...
bindir=$1
shift
fail=0
units_ok=0
for t in "$@"; do
	if "$t" >/dev/null 2>"$t.log"; then
		units_ok=$((units_ok + 1))
	else
		echo "unit test failed: $t" >&2
		cat "$t.log" >&2
		fail=$((fail + 1))
	fi
done
out=${TMPDIR:-/tmp}/tr-check.$$
{ TR_BIN=$bindir bats --tap tests; echo $? > "$out.status"; } | tee "$out"
status=$(cat "$out.status")
rm -f "$out.status"
passed=$(grep -c '^ok ' "$out" | tr -d ' ')
skipped=$(grep -c '^ok .* # skip' "$out" | tr -d ' ')
failed=$(grep -c '^not ok ' "$out" | tr -d ' ')
rm -f "$out"
passed=$((passed - skipped + units_ok))
failed=$((failed + fail))
echo "$passed passed, $failed failed, $skipped skipped"
[ "$status" -eq 0 ] && [ "$failed" -eq 0 ]
