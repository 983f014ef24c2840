#!/bin/sh
# Print the checksum of tr-ingest's output and its exit status for every
# file of ../shared/conformance and samples/: tests/ingest_golden.bats compares
# the current tr-ingest with tests/data/ingest_golden.txt, made by this script.
# After a change to the reading that is meant, regenerate the file and say in
# the commit which lines changed and why.
# usage: scripts/ingest-golden.sh TR-INGEST > tests/data/ingest_golden.txt
set -eu
ingest=$1
cd "$(dirname "$0")/.."
{
	find ../shared/conformance -type f -name '*.json'
	find samples -type f -name '*.json'
} | LC_ALL=C sort | while read -r f; do
	set +e
	sum=$("$ingest" -k "$f" 2>/dev/null | sha256sum | cut -c1-16)
	status=$("$ingest" -k -q "$f" >/dev/null 2>&1; echo $?)
	set -e
	echo "$sum $status ${f#../shared/}"
done
