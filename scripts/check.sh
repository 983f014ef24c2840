#!/bin/sh
# Run the unit tests and the bats suites quietly: one line per suite as it
# ends, then every failure in full, then one summary line
# ("N passed, N failed, N skipped", which CI reads); non-zero status on any
# failure. The suites run CHECK_JOBS (2) at a time, each file in one bats;
# CHECK_SUITES (tests/*.bats) chooses the files.
# usage: check.sh BINDIR UNIT...
#        check.sh --suite BINDIR DIR FILE.bats   (one suite: what the first runs)

# One suite: its TAP into DIR/NAME.tap, its exit status into DIR/NAME.status,
# one line on standard output.
if [ "$1" = --suite ]; then
	name=$(basename "$4" .bats)
	start=$(date +%s)
	TR_BIN=$2 bats --tap "$4" > "$3/$name.tap" 2>&1
	echo $? > "$3/$name.status"
	ok=$(grep -c '^ok ' "$3/$name.tap")
	skip=$(grep -c '^ok .* # skip' "$3/$name.tap")
	bad=$(grep -c '^not ok ' "$3/$name.tap")
	echo "$name: $((ok - skip)) passed, $bad failed, $skip skipped ($(($(date +%s) - start)) s)"
	exit 0
fi
bindir=$1
shift
jobs=${CHECK_JOBS:-2}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tr-check.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
units_ok=0
for t in "$@"; do
	if "$t" >/dev/null 2>"$t.log"; then
		units_ok=$((units_ok + 1))
	else
		fail=$((fail + 1))
		echo "$t" >> "$tmp/units.failed"
	fi
done
echo "unit tests: $units_ok passed, $fail failed"

ls ${CHECK_SUITES:-tests/*.bats} | xargs -P "$jobs" -n 1 sh "$0" --suite "$bindir" "$tmp"

# The failures in full: each failing unit test's stderr, each failing bats
# test's TAP lines (its name and the diagnostics bats prints under it).
if [ -f "$tmp/units.failed" ]; then
	while read -r t; do
		echo "--- unit test failed: $t"
		cat "$t.log"
	done < "$tmp/units.failed"
fi
passed=$units_ok
failed=$fail
skipped=0
for f in "$tmp"/*.tap; do
	[ -f "$f" ] || continue
	name=$(basename "$f" .tap)
	ok=$(grep -c '^ok ' "$f")
	skip=$(grep -c '^ok .* # skip' "$f")
	bad=$(grep -c '^not ok ' "$f")
	passed=$((passed + ok - skip))
	skipped=$((skipped + skip))
	failed=$((failed + bad))
	if [ "$bad" -gt 0 ] || [ "$(cat "$tmp/$name.status")" -ne 0 ]; then
		echo "--- $name:"
		awk '/^not ok / { show = 1 } /^ok / { show = 0 } show || !/^(ok |#|1\.\.)/' "$f"
		[ "$bad" -gt 0 ] || failed=$((failed + 1))	# bats failed outside a test
	fi
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
