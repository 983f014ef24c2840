#!/usr/bin/env bats
# tr-ingest's output on every file of ../shared/conformance and samples/ is
# the same, byte for byte, as the checksums in tests/data/ingest_golden.txt
# (made by scripts/ingest-golden.sh; a line changes only with a reading
# changed on purpose, said in its commit).
load helper

@test "output and exit status on every conformance and sample file match the golden checksums" {
	need_conformance
	root=$BATS_TEST_DIRNAME/..
	shared=$(dirname "$CONF")
	n=0 bad=""
	while read -r want status path; do
		case $path in
		samples/*) f=$root/$path ;;
		*) f=$shared/$path ;;
		esac
		got=$(tr-ingest -k "$f" 2>/dev/null | sha256sum | cut -c1-16)
		st=$(tr-ingest -k -q "$f" >/dev/null 2>&1; echo $?)
		[ "$got $st" = "$want $status" ] || bad="$bad $path($got $st, want $want $status)"
		n=$((n + 1))
	done < "$BATS_TEST_DIRNAME/data/ingest_golden.txt"
	[ -z "$bad" ] || { echo "differ:$bad" >&2; false; }
	expect_ge 80 "$n"
}

@test "the golden list names every conformance and sample JSON file" {
	need_conformance
	a=$(cd "$(dirname "$CONF")" && find conformance -type f -name '*.json' | LC_ALL=C sort)
	b=$(cd "$BATS_TEST_DIRNAME/.." && find samples -type f -name '*.json' | LC_ALL=C sort)
	want=$(printf '%s\n%s\n' "$a" "$b" | LC_ALL=C sort)
	got=$(awk '{ print $3 }' "$BATS_TEST_DIRNAME/data/ingest_golden.txt" | LC_ALL=C sort)
	expect_eq "$want" "$got"
}
