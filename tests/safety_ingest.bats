#!/usr/bin/env bats
# Data safety on the way in and in queries: what fails its integrity check
# is never written, odd encodings and file kinds are read or skipped, and a
# query cannot blow up.
load helper
bats_require_minimum_version 1.5.0

# A small Jaeger export of n traces (default 4), three spans each.
small_export() {
	local n=${1:-4}
	printf '{"data":[\n'
	for i in $(seq 1 "$n"); do
		[ "$i" -gt 1 ] && printf ',\n'
		printf '{"traceID":"t%d","spans":[' "$i"
		printf '{"spanID":"a","operationName":"GET /%d","startTime":1767225600000000,"duration":900,"processID":"p1"},' "$i"
		printf '{"spanID":"b","operationName":"db","references":[{"refType":"CHILD_OF","spanID":"a"}],"startTime":1767225600000100,"duration":300,"processID":"p2"},'
		printf '{"spanID":"c","operationName":"cache","references":[{"refType":"CHILD_OF","spanID":"a"}],"startTime":1767225600000500,"duration":50,"processID":"p2"}'
		printf '],"processes":{"p1":{"serviceName":"web"},"p2":{"serviceName":"store"}}}'
	done
	printf '\n]}\n'
}

# Run a command line ($2) for at most 20 s under an address-space limit of
# $1 KB; not under AddressSanitizer (ASAN_OPTIONS set, as make check-asan
# does), whose shadow memory needs terabytes of address space: there only
# the time is limited.
limited() {
	if [ -n "${ASAN_OPTIONS+set}" ]; then
		timeout 20 bash -c "$2"
	else
		timeout 20 bash -c "ulimit -v $1; $2"
	fi
}

# Flip one bit of file $1 at byte $2, bit $3, in place.
flip_bit() {
	local b
	b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	printf "$(printf '\\%03o' $((b ^ (1 << $3))))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# ---- row 3: nothing that failed its integrity check is written ----

@test "a gzip member that fails its CRC: exit 3, the byte offset named, no trace of it written" {
	small_export > "$BATS_TEST_TMPDIR/e.json"
	gzip -n -c "$BATS_TEST_TMPDIR/e.json" > "$BATS_TEST_TMPDIR/e.json.gz"
	n=$(wc -c < "$BATS_TEST_TMPDIR/e.json.gz")
	flip_bit "$BATS_TEST_TMPDIR/e.json.gz" $((n - 6)) 0	# the CRC-32 of the trailer
	run tr-ingest "$BATS_TEST_TMPDIR/e.json.gz"
	echo "$output"
	expect_status 3
	expect_like "*e.json.gz: gzip: incorrect data check: byte *, in the member from byte 0: nothing from there on is read*" "$output"
	expect_lacks $'T\t' "$output"
}

@test "a zstd frame that fails its checksum: exit 3, the byte offset named, no trace of it written" {
	small_export > "$BATS_TEST_TMPDIR/e.json"
	zstd -q -c "$BATS_TEST_TMPDIR/e.json" > "$BATS_TEST_TMPDIR/e.json.zst"
	n=$(wc -c < "$BATS_TEST_TMPDIR/e.json.zst")
	flip_bit "$BATS_TEST_TMPDIR/e.json.zst" $((n - 2)) 3	# the content checksum
	run tr-ingest "$BATS_TEST_TMPDIR/e.json.zst"
	echo "$output"
	expect_status 3
	expect_like "*e.json.zst: zstd: *: byte *, in the frame from byte 0: nothing from there on is read*" "$output"
	expect_lacks $'T\t' "$output"
}

@test "a failed check on a pipe: the same, read through a copy" {
	small_export > "$BATS_TEST_TMPDIR/e.json"
	gzip -n -c "$BATS_TEST_TMPDIR/e.json" > "$BATS_TEST_TMPDIR/e.gz"
	n=$(wc -c < "$BATS_TEST_TMPDIR/e.gz")
	flip_bit "$BATS_TEST_TMPDIR/e.gz" $((n - 6)) 0
	run tr-ingest < <(cat "$BATS_TEST_TMPDIR/e.gz")
	echo "$output"
	expect_status 3
	expect_contains '<stdin>: gzip: incorrect data check: byte ' "$output"
	expect_lacks $'T\t' "$output"
	# and a good one through a pipe reads as the file does
	gzip -n -c "$BATS_TEST_TMPDIR/e.json" > "$BATS_TEST_TMPDIR/good.gz"
	diff <(tr-ingest "$BATS_TEST_TMPDIR/e.json") <(cat "$BATS_TEST_TMPDIR/good.gz" | tr-ingest)
}

@test "a bad member after good ones: the good members' traces are written, none of the bad one's" {
	small_export 2 > "$BATS_TEST_TMPDIR/a.json"
	small_export 3 | sed 's/"t\([0-9]\)"/"u\1"/' > "$BATS_TEST_TMPDIR/b.json"
	gzip -n -c "$BATS_TEST_TMPDIR/a.json" > "$BATS_TEST_TMPDIR/x.json.gz"
	start=$(wc -c < "$BATS_TEST_TMPDIR/x.json.gz")
	gzip -n -c "$BATS_TEST_TMPDIR/b.json" >> "$BATS_TEST_TMPDIR/x.json.gz"
	n=$(wc -c < "$BATS_TEST_TMPDIR/x.json.gz")
	flip_bit "$BATS_TEST_TMPDIR/x.json.gz" $((n - 6)) 0
	run tr-ingest -k "$BATS_TEST_TMPDIR/x.json.gz"
	echo "$output"
	expect_status 3
	expect_contains "in the member from byte $start: nothing from there on is read" "$output"
	expected=$(tr-ingest "$BATS_TEST_TMPDIR/a.json" | grep '^T')
	diff <(echo "$expected") <(printf '%s\n' "$output" | grep '^T')
}

@test "the other tools read an export that fails its check as tr-ingest does: exit 3, nothing of it" {
	small_export 700 > "$BATS_TEST_TMPDIR/e.json"
	gzip -n -c "$BATS_TEST_TMPDIR/e.json" > "$BATS_TEST_TMPDIR/e.json.gz"
	n=$(wc -c < "$BATS_TEST_TMPDIR/e.json.gz")
	flip_bit "$BATS_TEST_TMPDIR/e.json.gz" $((n - 6)) 0
	run tr-cp "$BATS_TEST_TMPDIR/e.json.gz"
	echo "$output"
	expect_status 3
	expect_contains 'e.json.gz: gzip: incorrect data check: byte ' "$output"
	expect_lacks $'T\t' "$output"
}

# 300 single-bit flips each of a gzip and a zstd export: every run exits 3
# with nothing written, or writes exactly the original's traces. The
# flipped copies are made by one python3 run (a few processes per run of
# the tool keep the sweep short).
sweep() {
	local z=$1 orig=$BATS_TEST_TMPDIR/orig.tr o=$BATS_TEST_TMPDIR/out.tr bad= st
	command -v python3 >/dev/null || skip "no python3 to flip bits"
	tr-ingest -o "$orig" "$BATS_TEST_TMPDIR/e.json"
	mkdir "$BATS_TEST_TMPDIR/flips"
	python3 - "$BATS_TEST_TMPDIR/e.json.$z" "$BATS_TEST_TMPDIR/flips" <<'PY'
import sys
data = open(sys.argv[1], 'rb').read()
for i in range(1, 301):
    at, bit = (i * 7919) % len(data), (i * 31) % 8
    b = bytearray(data)
    b[at] ^= 1 << bit
    open('%s/%d-%d.%s' % (sys.argv[2], at, bit, sys.argv[1].rsplit('.', 1)[1]), 'wb').write(b)
PY
	for f in "$BATS_TEST_TMPDIR"/flips/*; do
		rm -f "$o"
		tr-ingest -q -o "$o" "$f" 2>/dev/null && st=0 || st=$?
		if [ "$st" -eq 0 ]; then
			cmp -s "$o" "$orig" || bad="$bad ${f##*/}: exit 0, traces differ;"
		elif [ "$st" -eq 3 ]; then
			[ ! -e "$o" ] || bad="$bad ${f##*/}: exit 3 but traces written;"
		else
			bad="$bad ${f##*/}: exit $st;"
		fi
	done
	expect_ge 290 "$(ls "$BATS_TEST_TMPDIR/flips" | wc -l)"
	[ -z "$bad" ] || { echo "expected: exit 3 and nothing, or the original; got (byte-bit):$bad"; false; }
}

# The export is larger than one read (256 KiB decoded): before the check,
# what a bad member decoded to was written before its end was reached.
@test "corruption sweep: 300 single-bit flips of a gzip export, each refused whole or read as the original" {
	small_export 700 > "$BATS_TEST_TMPDIR/e.json"
	gzip -n -c "$BATS_TEST_TMPDIR/e.json" > "$BATS_TEST_TMPDIR/e.json.gz"
	sweep gz
}

@test "corruption sweep: 300 single-bit flips of a zstd export, each refused whole or read as the original" {
	small_export 700 > "$BATS_TEST_TMPDIR/e.json"
	zstd -q -c "$BATS_TEST_TMPDIR/e.json" > "$BATS_TEST_TMPDIR/e.json.zst"
	sweep zst
}

# ---- row 12: a UTF-8 byte-order mark and zstd skippable frames ----

@test "a UTF-8 byte-order mark before an export is skipped: the traces are those of the file without it" {
	small_export 2 > "$BATS_TEST_TMPDIR/e.json"
	{ printf '\357\273\277'; cat "$BATS_TEST_TMPDIR/e.json"; } > "$BATS_TEST_TMPDIR/bom.json"
	expected=$(tr-ingest "$BATS_TEST_TMPDIR/e.json")
	run tr-ingest "$BATS_TEST_TMPDIR/bom.json"
	expect_status 0
	diff <(echo "$expected") <(echo "$output")
}

@test "the other tools read an export with a byte-order mark as an export" {
	small_export 2 > "$BATS_TEST_TMPDIR/e.json"
	{ printf '\357\273\277'; cat "$BATS_TEST_TMPDIR/e.json"; } > "$BATS_TEST_TMPDIR/bom.json"
	expected=$(tr-cp "$BATS_TEST_TMPDIR/e.json")
	run tr-cp "$BATS_TEST_TMPDIR/bom.json"
	expect_status 0
	diff <(echo "$expected") <(echo "$output")
}

@test "after a byte-order mark, an error's column counts from the first character" {
	printf '\357\273\277{"data":[{"traceID":"t","spans":[{"spanID":"a","startTime":"x","duration":1}]}]}\n' |
		mkfix bom.json > /dev/null
	run tr-ingest "$BATS_TEST_TMPDIR/bom.json"
	expect_status 3
	expect_contains 'bom.json:1:10: "startTime" is not an integer' "$output" || { echo "got: $output"; false; }
}

@test "a zstd skippable frame first (as pzstd writes) is skipped, the export read" {
	small_export 2 > "$BATS_TEST_TMPDIR/e.json"
	{ printf 'P*M\030\004\000\000\000abcd'; zstd -q -c "$BATS_TEST_TMPDIR/e.json"; } > "$BATS_TEST_TMPDIR/e.json.zst"
	expected=$(tr-ingest "$BATS_TEST_TMPDIR/e.json")
	run tr-ingest "$BATS_TEST_TMPDIR/e.json.zst"
	expect_status 0
	diff <(echo "$expected") <(echo "$output")
}

@test "pzstd's output reads like the plain file" {
	command -v pzstd >/dev/null || skip "no pzstd"
	small_export 2 > "$BATS_TEST_TMPDIR/e.json"
	pzstd -q -c "$BATS_TEST_TMPDIR/e.json" > "$BATS_TEST_TMPDIR/p.json.zst"
	expected=$(tr-ingest "$BATS_TEST_TMPDIR/e.json")
	run tr-ingest "$BATS_TEST_TMPDIR/p.json.zst"
	expect_status 0
	diff <(echo "$expected") <(echo "$output")
}

# ---- row 14: only regular files are read from directories ----

@test "a FIFO named *.json inside a directory is skipped with a note, the other files read" {
	mkdir "$BATS_TEST_TMPDIR/d"
	small_export 2 > "$BATS_TEST_TMPDIR/d/a.json"
	mkfifo "$BATS_TEST_TMPDIR/d/b.json"
	expected=$(tr-ingest "$BATS_TEST_TMPDIR/d/a.json")
	run --separate-stderr timeout 10 tr-ingest "$BATS_TEST_TMPDIR/d"
	expect_status 0 || { echo "status $status (124: it blocked) $stderr"; false; }
	diff <(echo "$expected") <(echo "$output")
	expect_contains 'd/b.json: a FIFO, not a regular file: skipped' "$stderr" || { echo "got: $stderr"; false; }
}

@test "a device named *.json inside a directory (a link to /dev/zero) is skipped with a note" {
	mkdir "$BATS_TEST_TMPDIR/d"
	small_export 2 > "$BATS_TEST_TMPDIR/d/a.json"
	ln -s /dev/zero "$BATS_TEST_TMPDIR/d/z.json"
	run --separate-stderr timeout 10 tr-ingest "$BATS_TEST_TMPDIR/d"
	expect_status 0 || { echo "status $status (124: it never ended) $stderr"; false; }
	expect_contains 'd/z.json: a character device, not a regular file: skipped' "$stderr" || { echo "got: $stderr"; false; }
}

@test "a FIFO named on the command line is read" {
	small_export 2 > "$BATS_TEST_TMPDIR/e.json"
	mkfifo "$BATS_TEST_TMPDIR/f.json"
	cat "$BATS_TEST_TMPDIR/e.json" > "$BATS_TEST_TMPDIR/f.json" &
	expected=$(tr-ingest "$BATS_TEST_TMPDIR/e.json")
	run timeout 10 tr-ingest "$BATS_TEST_TMPDIR/f.json"
	wait
	expect_status 0
	diff <(echo "$expected") <(echo "$output")
}

# ---- row 13: bytes that are not UTF-8 never reach JSON or SVG output ----

# A trace whose service and operations hold bytes that are not UTF-8: a
# stray 0xff, a cut two-byte character, a surrogate, U+FFFE, a cut
# three-byte one at the end of a field.
not_utf8_trace() {
	printf '#tr/1\nT\tt1\n'
	printf 'S\tt1\ta\t\t1767225600000000\t900\tw\377eb\tGET \303( /x\355\240\200\357\277\276\t\t\n'
	printf 'S\tt1\tb\ta\t1767225600000100\t300\tstore\tdb \342\202\t\t\n'
}

@test "-f json: a byte that is not UTF-8 is written as U+FFFD, the document valid JSON" {
	command -v python3 >/dev/null || skip "no python3 to check the JSON"
	not_utf8_trace > "$BATS_TEST_TMPDIR/bad.tr"
	run tr-aggregate -f json 'From s In spans Select s.service, s.operation' "$BATS_TEST_TMPDIR/bad.tr"
	expect_status 0
	printf '%s' "$output" | python3 -c 'import sys, json; json.loads(sys.stdin.buffer.read().decode("utf-8"))' ||
		{ echo "not valid JSON: $output"; false; }
	r=$'\357\277\275'	# U+FFFD, one a byte that starts no character
	expect_eq '{"s.service":"w'$r'eb", "s.operation":"GET '$r'( /x'$r$r$r$'\357\277\276''"},' \
		"$(printf '%s\n' "$output" | sed -n 2p)"
}

@test "SVG: a byte that is not UTF-8 (or U+FFFE) is written as U+FFFD, the picture well-formed XML" {
	command -v python3 >/dev/null || skip "no python3 to check the XML"
	not_utf8_trace > "$BATS_TEST_TMPDIR/bad.tr"
	run tr-cp --svg --min-share 0 "$BATS_TEST_TMPDIR/bad.tr"
	expect_status 0
	printf '%s' "$output" | python3 -c 'import sys, xml.dom.minidom as m; m.parseString(sys.stdin.buffer.read())' ||
		{ echo "not well-formed XML: $output"; false; }
	expect_contains $'w\357\277\275eb' "$output" || { echo "no U+FFFD for the 0xff of w?eb: $output"; false; }
}

# ---- row 11: a regular expression cannot blow up ----

regex_query() {
	printf 'From s In spans Where s.operation =~ "%s" Select s.span' "$1"
}

@test "=~ with stacked + is a usage error at once, not memory without end" {
	not_utf8_trace > "$BATS_TEST_TMPDIR/t.tr"
	run limited 1000000 "tr-aggregate '$(regex_query 'a++++++++++++++++++++++++++++++++++++++++')' '$BATS_TEST_TMPDIR/t.tr'"
	echo "$output"
	expect_status 2
	expect_contains 'regular expression too large once its repetitions are expanded' "$output"
}

@test "=~ with nested counts over the bound is a usage error" {
	not_utf8_trace > "$BATS_TEST_TMPDIR/t.tr"
	run limited 1000000 "tr-aggregate '$(regex_query '(a{1,200}){1,200}')' '$BATS_TEST_TMPDIR/t.tr'"
	echo "$output"
	expect_status 2
	expect_contains 'regular expression too large' "$output"
}

@test "=~ with nested counts under the bound runs" {
	not_utf8_trace > "$BATS_TEST_TMPDIR/t.tr"
	run tr-aggregate "$(regex_query '^GET .{0,1000}$')" "$BATS_TEST_TMPDIR/t.tr"
	expect_status 0
	diff <(printf 's.span\na\n') <(echo "$output")
}

@test "=~ with a back-reference is a usage error" {
	not_utf8_trace > "$BATS_TEST_TMPDIR/t.tr"
	run tr-aggregate "$(regex_query '(a)\\1')" "$BATS_TEST_TMPDIR/t.tr"
	echo "$output"
	expect_status 2
	expect_like "*back-references*are not supported*" "$output"
}

# ---- row 8: refusing a trace over --max-spans costs no more than the limit ----

# A Jaeger export: one trace of $1 spans (13 MB for 100000), then a small one.
huge_trace_export() {
	python3 -c '
import sys
n = int(sys.argv[1])
w = sys.stdout.write
w("{\"data\":[{\"traceID\":\"big\",\"spans\":[")
w(",".join("{\"spanID\":\"s%d\",\"operationName\":\"op\",\"startTime\":1767225600000000,\"duration\":5,\"tags\":[{\"key\":\"k\",\"type\":\"string\",\"value\":\"v\"}]}" % i for i in range(n)))
w("]},\n{\"traceID\":\"small\",\"spans\":[{\"spanID\":\"a\",\"startTime\":1767225600000000,\"duration\":5}]}]}\n")
' "$1"
}

@test "--max-spans stops a Jaeger trace's growth as it is read: refused under a memory limit far below its size" {
	command -v python3 >/dev/null || skip "no python3 to write the export"
	huge_trace_export 100000 > "$BATS_TEST_TMPDIR/huge.json"
	# the whole trace converted takes about 9 times its 13 MB; 60 MB of address space is far less
	run limited 60000 "tr-ingest -k --max-spans 1000 '$BATS_TEST_TMPDIR/huge.json'"
	echo "$output"
	expect_status 3
	expect_contains 'huge.json:1:10: trace with more than --max-spans 1000 spans: skipped' "$output"
	expect_contains $'T\tsmall' "$output"
	expect_lacks $'\tbig' "$output"
}

@test "--max-spans while reading: -j 2 gives the same output and messages as one thread" {
	command -v python3 >/dev/null || skip "no python3 to write the export"
	huge_trace_export 3000 > "$BATS_TEST_TMPDIR/huge.json"
	one=$(tr-ingest -k --max-spans 1000 "$BATS_TEST_TMPDIR/huge.json" 2>&1; echo "status $?")
	two=$(tr-ingest -k -j 2 --max-spans 1000 "$BATS_TEST_TMPDIR/huge.json" 2>&1; echo "status $?")
	diff <(echo "$one") <(echo "$two")
	expect_like "*trace with more than --max-spans 1000 spans: skipped*status 3" "$one"
}

@test "--max-spans counts only the spans array: a trace at the limit is written whole" {
	command -v python3 >/dev/null || skip "no python3 to write the export"
	huge_trace_export 1000 > "$BATS_TEST_TMPDIR/huge.json"
	run tr-ingest --max-spans 1000 "$BATS_TEST_TMPDIR/huge.json"
	expect_status 0
	expect_num 1000 "$(printf '%s\n' "$output" | grep -c $'^S\tbig')"
}

@test "tr-ingest's default limits are a million spans and 128 MiB" {
	run tr-ingest --help
	expect_contains '(default 1000000; 0: none)' "$output"
	expect_contains '(default 128 MiB; 0: none)' "$output"
}

# ---- row 7: times in a unit other than the format's own ----

@test "Jaeger times in nanoseconds are refused, the unit suspected named" {
	f=$(echo '{"data":[{"traceID":"t","spans":[{"spanID":"a","startTime":1767225600000000000,"duration":250000000}]}]}' | mkfix jns.json)
	run tr-ingest "$f"
	expect_status 3
	expect_contains 'jns.json:1:10: span a: starts in the year 57971 read in microseconds: the times look like nanoseconds (tr-ingest --time-unit ns converts them)' "$output" || { echo "got: $output"; false; }
	expect_lacks $'S\t' "$output"
}

@test "--time-unit ns converts Jaeger times in nanoseconds" {
	f=$(echo '{"data":[{"traceID":"t","spans":[{"spanID":"a","startTime":1767225600000000000,"duration":250000000,"logs":[{"timestamp":1767225600000001000,"fields":[]}]}]}]}' | mkfix jns.json)
	run tr-ingest --time-unit ns "$f"
	expect_status 0
	diff <(printf 'S\tt\ta\t\t1767225600000000\t250000\t\t\t\t\nL\tt\ta\t1767225600000001\n') <(printf '%s\n' "$output" | grep -E '^(S|L)')
}

@test "OTLP *UnixNano fields holding microseconds are refused" {
	f=$(echo '{"resourceSpans":[{"resource":{},"scopeSpans":[{"spans":[{"traceId":"0102","spanId":"0a","name":"x","startTimeUnixNano":"1767225600000000","endTimeUnixNano":"1767225600000500"}]}]}]}' | mkfix otus.json)
	run tr-ingest "$f"
	expect_status 3
	expect_contains 'span 0a: starts in the year 1970 read in nanoseconds: the times look like microseconds (tr-ingest --time-unit us converts them)' "$output" || { echo "got: $output"; false; }
}

@test "--time-unit us reads OTLP *UnixNano fields holding microseconds" {
	f=$(echo '{"resourceSpans":[{"resource":{},"scopeSpans":[{"spans":[{"traceId":"0102","spanId":"0a","name":"x","startTimeUnixNano":"1767225600000000","endTimeUnixNano":"1767225600000500"}]}]}]}' | mkfix otus.json)
	run tr-ingest --time-unit us "$f"
	expect_status 0
	diff <(printf 'S\t0102\t0a\t\t1767225600000000\t500\t\tx\t\t\n') <(printf '%s\n' "$output" | grep '^S')
}

@test "Zipkin times in milliseconds are refused" {
	f=$(echo '[{"traceId":"a1","id":"b2","name":"x","timestamp":1767225600000,"duration":3,"localEndpoint":{"serviceName":"w"}}]' | mkfix zms.json)
	run tr-ingest "$f"
	expect_status 3
	expect_contains 'span b2: starts in the year 1970 read in microseconds: the times look like milliseconds (tr-ingest --time-unit ms converts them)' "$output" || { echo "got: $output"; false; }
}

@test "--time-unit ms reads Zipkin times in milliseconds" {
	f=$(echo '[{"traceId":"a1","id":"b2","name":"x","timestamp":1767225600000,"duration":3,"localEndpoint":{"serviceName":"w"}}]' | mkfix zms.json)
	run tr-ingest --time-unit ms "$f"
	expect_status 0
	diff <(printf 'S\ta1\tb2\t\t1767225600000000\t3000\tw\tx\t\t\n') <(printf '%s\n' "$output" | grep '^S' | cut -f1-10)
}

@test "small times that fit no unit (test data: start 1) are taken as they are" {
	f=$(echo '{"data":[{"traceID":"t","spans":[{"spanID":"a","startTime":1,"duration":2}]}]}' | mkfix small.json)
	run tr-ingest "$f"
	expect_status 0
	expect_contains $'S\tt\ta\t\t1\t2' "$output"
}

@test "--time-unit takes ns, us, ms or s: another is a usage error" {
	run tr-ingest --time-unit hours /dev/null
	expect_status 2
	expect_contains '--time-unit: unknown time unit "hours" (ns, us, ms, s)' "$output"
}
