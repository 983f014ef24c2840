#!/bin/sh
# eval/run.sh BINDIR [OUT] - the fault-injection suite of tr-cp --suspects
# (make eval).  Runs every case of eval/cases.sh with eval/case.sh, EVAL_JOBS
# at a time (default 2), and writes the table of results to OUT (default
# eval/RESULTS.md) with eval/report.awk.
set -eu

bin=$(cd "$1" && pwd)
out=${2:-eval/RESULTS.md}
here=$(cd "$(dirname "$0")" && pwd)
PATH=$bin:$PATH
export PATH
if ! tr-cp --help | grep -q -- --suspects; then
	echo "eval: $bin/tr-cp has no --suspects" >&2
	exit 1
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/tr-eval.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
sh "$here/cases.sh" > "$work/cases"
xargs -P "${EVAL_JOBS:-2}" -L 1 sh "$here/case.sh" "$work" < "$work/cases"
while read -r id _; do
	cat "$work/$id.res"
done < "$work/cases" > "$work/results.tsv"
awk -F'\t' -f "$here/report.awk" "$work/results.tsv" > "$work/RESULTS.md"
mv "$work/RESULTS.md" "$out"
awk -F'\t' '{ n++; t1 += $8; t3 += $9 } END { printf "eval: %d cases, top-1 %d, top-3 %d; table in %s\n", n, t1, t3, OUT }' \
	OUT="$out" "$work/results.tsv"
