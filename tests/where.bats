#!/usr/bin/env bats
# --where EXPR means one thing in every tool (tr(7), WHERE): the traces
# with a span for which EXPR holds, kept whole. Each tool's output with
# --where is the same, byte for byte, as its output on the input filtered
# beforehand with awk (two passes: the trace ids a span qualifies, then
# every record of those traces), for three filters: an operation glob, the
# root's duration and a tag.

load helper
bats_require_minimum_version 1.5.0

setup_file() {
	tr-ingest "$BATS_TEST_DIRNAME/../samples/jaeger/hotrod.json" > "$BATS_FILE_TMPDIR/all.tr"
}

ALL() { printf '%s\n' "$BATS_FILE_TMPDIR/all.tr"; }

# The records of the traces one of whose S records passes the awk test
# (over $0 and the fields, TAB-separated), and every traceless line.
prefilter() {
	awk -F'\t' "FNR == NR { if (\$1 == \"S\" && ($1)) keep[\$2] = 1; next }
		/^#/ || NF < 2 || (\$2 in keep)" "$(ALL)" "$(ALL)" > "$BATS_TEST_TMPDIR/pre.tr"
}

# The trace ids whose root span (no parent; the earliest, then the least
# span id) passes the awk test over its duration d.
prefilter_root() {
	awk -F'\t' "FNR == NR { if (\$1 == \"S\" && \$4 == \"\" && (!(\$2 in st) || \$5 < st[\$2] ||
			(\$5 == st[\$2] && \$3 < id[\$2]))) { st[\$2] = \$5; id[\$2] = \$3; dur[\$2] = \$6 }
			next }
		FNR == 1 { for (t in dur) { d = dur[t]; if ($1) keep[t] = 1 } }
		/^#/ || NF < 2 || (\$2 in keep)" "$(ALL)" "$(ALL)" > "$BATS_TEST_TMPDIR/pre.tr"
}

GLOB='operation ~ "HTTP GET /c*"'
GLOB_AWK='$8 ~ /^HTTP GET \/c/'
ROOT='root_duration > 700ms'
ROOT_AWK='d > 700000'
TAG='tag["error"] = true'
TAG_AWK='$0 ~ /\terror=true(\t|$)/'

# The tool's standard output with --where EXPR on the whole input, against
# its output on the prefiltered file (both on standard input: tr-report
# names its input).  usage: same TOOL-ARGS... -- EXPR
same() {
	local expr=${*: -1} args=("${@:1:$#-2}") want got
	want=$("${args[@]}" < "$BATS_TEST_TMPDIR/pre.tr") || return 1
	got=$("${args[@]}" --where "$expr" < "$(ALL)") || return 1
	[ -n "$want" ] || { echo "no output to compare"; return 1; }
	expect_eq "$want" "$got" "${args[*]} --where '$expr'"
}

# Each filter keeps some traces and drops others, or the tests prove nothing.
@test "each awk filter keeps some of the traces and drops others" {
	local all kept
	all=$(grep -c '^T' "$(ALL)")
	for f in "$GLOB_AWK" "$TAG_AWK"; do
		prefilter "$f"
		kept=$(grep -c '^T' "$BATS_TEST_TMPDIR/pre.tr")
		expect_gt 0 "$kept" "traces $f keeps"
		expect_lt "$all" "$kept" "traces $f keeps"
	done
	prefilter_root "$ROOT_AWK"
	kept=$(grep -c '^T' "$BATS_TEST_TMPDIR/pre.tr")
	expect_gt 0 "$kept" "traces the root filter keeps"
	expect_lt "$all" "$kept" "traces the root filter keeps"
}

@test "tr-cp --where on an operation glob is the awk pre-filter" {
	prefilter "$GLOB_AWK"
	same tr-cp -- "$GLOB"
}

@test "tr-cp --where on the root's duration is the awk pre-filter" {
	prefilter_root "$ROOT_AWK"
	same tr-cp -- "$ROOT"
}

@test "tr-cp --where on a tag is the awk pre-filter" {
	prefilter "$TAG_AWK"
	same tr-cp -- "$TAG"
}

@test "tr-cp --summary service --where on an operation glob is the awk pre-filter" {
	prefilter "$GLOB_AWK"
	same tr-cp --summary service -- "$GLOB"
}

@test "tr-cp --summary service --where on the root's duration is the awk pre-filter" {
	prefilter_root "$ROOT_AWK"
	same tr-cp --summary service -- "$ROOT"
}

@test "tr-cp --summary service --where on a tag is the awk pre-filter" {
	prefilter "$TAG_AWK"
	same tr-cp --summary service -- "$TAG"
}

@test "tr-pag --where on an operation glob is the awk pre-filter" {
	prefilter "$GLOB_AWK"
	same tr-pag -- "$GLOB"
}

@test "tr-pag --where on the root's duration is the awk pre-filter" {
	prefilter_root "$ROOT_AWK"
	same tr-pag -- "$ROOT"
}

@test "tr-pag --where on a tag is the awk pre-filter" {
	prefilter "$TAG_AWK"
	same tr-pag -- "$TAG"
}

@test "tr-temporal --where on an operation glob is the awk pre-filter" {
	prefilter "$GLOB_AWK"
	same tr-temporal -- "$GLOB"
}

@test "tr-temporal --where on the root's duration is the awk pre-filter" {
	prefilter_root "$ROOT_AWK"
	same tr-temporal -- "$ROOT"
}

@test "tr-temporal --where on a tag is the awk pre-filter" {
	prefilter "$TAG_AWK"
	same tr-temporal -- "$TAG"
}

@test "tr-temporal --explain --where on an operation glob is the awk pre-filter" {
	prefilter "$GLOB_AWK"
	same tr-temporal --explain -- "$GLOB"
}

@test "tr-temporal --explain --where on the root's duration is the awk pre-filter" {
	prefilter_root "$ROOT_AWK"
	same tr-temporal --explain -- "$ROOT"
}

@test "tr-temporal --explain --where on a tag is the awk pre-filter" {
	prefilter "$TAG_AWK"
	same tr-temporal --explain -- "$TAG"
}

@test "tr-infer --where on an operation glob is the awk pre-filter" {
	prefilter "$GLOB_AWK"
	same tr-infer -- "$GLOB"
}

@test "tr-infer --where on the root's duration is the awk pre-filter" {
	prefilter_root "$ROOT_AWK"
	same tr-infer -- "$ROOT"
}

@test "tr-infer --where on a tag is the awk pre-filter" {
	prefilter "$TAG_AWK"
	same tr-infer -- "$TAG"
}

@test "tr-infer --links --where on an operation glob is the awk pre-filter" {
	prefilter "$GLOB_AWK"
	same tr-infer --links -- "$GLOB"
}

@test "tr-infer --links --where on the root's duration is the awk pre-filter" {
	prefilter_root "$ROOT_AWK"
	same tr-infer --links -- "$ROOT"
}

@test "tr-infer --links --where on a tag is the awk pre-filter" {
	prefilter "$TAG_AWK"
	same tr-infer --links -- "$TAG"
}

@test "tr-infer --reformat --where on an operation glob is the awk pre-filter" {
	prefilter "$GLOB_AWK"
	same tr-infer --reformat -- "$GLOB"
}

@test "tr-infer --reformat --where on the root's duration is the awk pre-filter" {
	prefilter_root "$ROOT_AWK"
	same tr-infer --reformat -- "$ROOT"
}

@test "tr-infer --reformat --where on a tag is the awk pre-filter" {
	prefilter "$TAG_AWK"
	same tr-infer --reformat -- "$TAG"
}

@test "tr-aggregate --where on an operation glob is the awk pre-filter" {
	prefilter "$GLOB_AWK"
	same tr-aggregate 'From s In spans GroupBy s.service Select s.service, COUNT, P99(s.duration) As p99' -- "$GLOB"
}

@test "tr-aggregate --where on the root's duration is the awk pre-filter" {
	prefilter_root "$ROOT_AWK"
	same tr-aggregate 'From s In spans GroupBy s.service Select s.service, COUNT, P99(s.duration) As p99' -- "$ROOT"
}

@test "tr-aggregate --where on a tag is the awk pre-filter" {
	prefilter "$TAG_AWK"
	same tr-aggregate 'From s In spans GroupBy s.service Select s.service, COUNT, P99(s.duration) As p99' -- "$TAG"
}

@test "tr-report --where on an operation glob is the awk pre-filter" {
	prefilter "$GLOB_AWK"
	same tr-report -- "$GLOB"
}

@test "tr-report --where on the root's duration is the awk pre-filter" {
	prefilter_root "$ROOT_AWK"
	same tr-report -- "$ROOT"
}

@test "tr-report --where on a tag is the awk pre-filter" {
	prefilter "$TAG_AWK"
	same tr-report -- "$TAG"
}

@test "--where under -v says how many traces it kept" {
	run --separate-stderr tr-cp --summary service -v --where 'root_duration > 700ms' "$(ALL)"
	expect_eq 0 "$status" status
	expect_eq "tr-cp: 46 traces read, 0 bad
tr-cp: --where kept 13 of 46 traces" "$stderr" stderr
}

@test "--where keeping no trace fails with exit 2 and writes no -o file" {
	run tr-temporal --where 'duration > 1h' -o "$BATS_TEST_TMPDIR/out.tr" "$(ALL)"
	expect_eq 2 "$status" status
	expect_output "tr-temporal: --where duration > 1h: none of the 46 traces has a span where it holds"
	[ ! -e "$BATS_TEST_TMPDIR/out.tr" ]
}

@test "--where comparing a misspelt service with = names the closest service" {
	run tr-infer --where 'service = "frontnd"' "$(ALL)"
	expect_eq 2 "$status" status
	expect_output 'tr-infer: --where service = "frontnd": none of the 46 traces has a span where it holds
tr-infer: --where: no span has service "frontnd" (did you mean "frontend"?)'
}

@test "--where with an expression that does not parse is a usage error" {
	run tr-aggregate --where 'duration >' 'From s In spans Select COUNT' "$(ALL)"
	expect_eq 2 "$status" status
	expect_output "tr-aggregate: --where: unexpected end of the expression at offset 10 in \"duration >\"
try 'tr-aggregate --help'"
}

@test "--where naming an unknown field is a usage error that points to tr(7)" {
	run tr-pag --where 'sevice = "x"' "$(ALL)"
	expect_eq 2 "$status" status
	expect_output "tr-pag: --where: unknown field 'sevice' (tr(7), WHERE, lists them) at offset 0 in \"sevice = \"x\"\"
try 'tr-pag --help'"
}

@test "--where with --merge is a usage error: partial results hold no traces" {
	for tool in "tr-infer --merge" "tr-cp --summary service --merge" "tr-aggregate --merge"; do
		run $tool --where 'service = "frontend"' /dev/null
		expect_eq 2 "$status" "$tool status"
		expect_eq "${tool%% *}: --where goes with traces: not with --merge" "${lines[0]}" "$tool"
	done
}

@test "tr-ingest refuses --where: it writes every trace it reads" {
	run tr-ingest --where 'service = "x"' "$SAMPLES/jaeger/hotrod.json"
	expect_status 2
	expect_eq "tr-ingest: --where goes with the filters: tr-ingest ... | tr-cp --where EXPR" "${lines[0]}"
}

@test "tr-cp --where with --baseline is a usage error: it would filter one side only" {
	run tr-cp --suspects --baseline "$SAMPLES/jaeger/hotrod.json" --where 'service = "mysql"' "$SAMPLES/jaeger/hotrod.json"
	expect_status 2
	expect_eq "tr-cp: --where filters one input: not with --baseline" "${lines[0]}"
}

@test "a --trace id that --where dropped is said so, not 'no trace has this id'" {
	f=$(ALL)
	id=$(awk -F'\t' '$1 == "T" { print $2; exit }' "$f")
	for t in "tr-cp --svg" "tr-temporal -f explain"; do
		run $t --trace "$id" --where "trace != \"$id\"" "$f"
		expect_status 2
		expect_contains "--trace $id: no trace --where kept has this id" "$output" "$t"
	done
}
