#!/usr/bin/env bats
# Clean behaviour in pipelines (issue 8): a closed pipe is quiet, a write
# error is a message and exit 4, -o FILE never leaves a partial file, the same
# input always gives the same bytes, and usage errors are exit 2.

load helper

LF_TOOLS="cp pag temporal infer aggregate"
ALL_TOOLS="ingest $LF_TOOLS"

# The arguments that make tool $1 write one line per span or trace as it goes.
args_of() {
	case $1 in
	aggregate) echo "From s In spans Select s.trace, s.span" ;;
	infer) echo "--reformat" ;;
	esac
}

# $1 traces of three spans each, line format.
many_traces() {
	awk -v n="$1" 'BEGIN { OFS = "\t"; print "#tr/1"
		for (i = 0; i < n; i++) {
			t = "t" i; s = 1000000 + i * 10
			print "T", t
			print "S", t, "a", "", s, 100, "frontend", "GET /", "server", "h1", "http.method=GET"
			print "S", t, "b", "a", s + 10, 50, "mysql", "SELECT", "client", "h1"
			print "S", t, "c", "b", s + 20, 20, "mysql", "SELECT", "server", "db"
		} }'
}

# The same as a Jaeger document.
many_traces_json() {
	awk -v n="$1" 'BEGIN { printf "{\"data\":[\n"
		for (i = 0; i < n; i++) {
			s = 1000000 + i * 10
			printf "%s{\"traceID\":\"t%d\",\"processes\":{\"p\":{\"serviceName\":\"frontend\"}},\"spans\":[", i ? "," : "", i
			printf "{\"spanID\":\"a\",\"operationName\":\"GET /\",\"startTime\":%d,\"duration\":100,\"processID\":\"p\"},", s
			printf "{\"spanID\":\"b\",\"operationName\":\"SELECT\",\"startTime\":%d,\"duration\":50,\"processID\":\"p\",\"references\":[{\"refType\":\"CHILD_OF\",\"spanID\":\"a\"}]}]}\n", s + 10
		}
		print "]}" }'
}

# Run tool $1 ($2: input file) with the remaining arguments.
run_tool() {
	local tool=$1 in=$2 a
	shift 2
	a=$(args_of $tool)
	if [ -n "$a" ] && [ $tool = aggregate ]; then
		"tr-$tool" "$@" "$a" "$in"
	else
		"tr-$tool" $a "$@" "$in"
	fi
}

# run_tool with a bound (status 124): a tool that opens its input twice
# waits forever on a pipe.
run_tool_bounded() {
	local tool=$1 in=$2 a
	shift 2
	a=$(args_of $tool)
	if [ -n "$a" ] && [ $tool = aggregate ]; then
		timeout 20 "tr-$tool" "$@" "$a" "$in"
	else
		timeout 20 "tr-$tool" $a "$@" "$in"
	fi
}

setup_file() {
	export BIG_TR=$BATS_FILE_TMPDIR/big.tr BIG_JSON=$BATS_FILE_TMPDIR/big.json
	# Under valgrind (make memcheck) a smaller input does.
	n=30000
	[ -z "$TR_MEMCHECK" ] || n=2000
	many_traces $n > "$BIG_TR"
	many_traces_json $n > "$BIG_JSON"
}

input_of() {
	if [ "$1" = ingest ]; then echo "$BIG_JSON"; else echo "$BIG_TR"; fi
}

@test "every tool: output into a closed pipe ends quietly (| head)" {
	for tool in $ALL_TOOLS; do
		in=$(input_of $tool)
		rc=0
		( set -o pipefail; run_tool $tool "$in" 2>"$BATS_TEST_TMPDIR/err" | head -n 1 >/dev/null ) || rc=$?
		# Killed by SIGPIPE (141) or stopped on EPIPE (4); never a message.
		expect_match '^(141|4|0)$' "$rc" "exit status of tr-$tool"
		[ ! -s "$BATS_TEST_TMPDIR/err" ] || { echo "tr-$tool: stderr: $(head -c 300 "$BATS_TEST_TMPDIR/err")"; false; }
	done
}

@test "every tool: SIGPIPE ignored by the caller: still quiet" {
	for tool in $ALL_TOOLS; do
		in=$(input_of $tool)
		rc=0
		( trap '' PIPE; set -o pipefail; run_tool $tool "$in" 2>"$BATS_TEST_TMPDIR/err" | head -n 1 >/dev/null ) || rc=$?
		[ ! -s "$BATS_TEST_TMPDIR/err" ] || { echo "tr-$tool (status $rc): stderr: $(head -c 300 "$BATS_TEST_TMPDIR/err")"; false; }
	done
}

@test "every tool: a full disk on stdout is exit 4 with a message" {
	for tool in $ALL_TOOLS; do
		rc=0
		run_tool $tool "$(input_of $tool)" >/dev/full 2>"$BATS_TEST_TMPDIR/err" || rc=$?
		expect_num 4 "$rc" || { echo "tr-$tool: status $rc"; false; }
		grep -q "^tr-$tool: .*No space left on device" "$BATS_TEST_TMPDIR/err" ||
			{ echo "tr-$tool: $(cat "$BATS_TEST_TMPDIR/err")"; false; }
	done
	[ -c /dev/full ]
}

@test "every tool: -o /dev/full is exit 4 and /dev/full stays a device" {
	for tool in $ALL_TOOLS; do
		rc=0
		run_tool $tool "$(input_of $tool)" -o /dev/full 2>"$BATS_TEST_TMPDIR/err" || rc=$?
		expect_num 4 "$rc" || { echo "tr-$tool: status $rc: $(cat "$BATS_TEST_TMPDIR/err")"; false; }
		grep -q "^tr-$tool: .*No space left on device" "$BATS_TEST_TMPDIR/err" ||
			{ echo "tr-$tool: $(cat "$BATS_TEST_TMPDIR/err")"; false; }
		[ -c /dev/full ] || { echo "tr-$tool replaced /dev/full: restore it with mknod -m 666 /dev/full c 1 7"; false; }
	done
}

@test "every tool: -o FILE writes the file whole and leaves no temporary file" {
	for tool in $ALL_TOOLS; do
		dir=$BATS_TEST_TMPDIR/$tool
		mkdir "$dir"
		run_tool $tool "$(input_of $tool)" -o "$dir/out" 2>/dev/null
		run_tool $tool "$(input_of $tool)" > "$dir/want" 2>/dev/null
		cmp -s "$dir/out" "$dir/want" || { echo "tr-$tool: -o FILE differs from stdout"; false; }
		expect_eq "$(printf 'out\nwant')" "$(ls "$dir")" || { echo "tr-$tool: left $(ls "$dir")"; false; }
	done
}

@test "every tool: a write error with -o leaves the old file untouched" {
	for tool in $ALL_TOOLS; do
		dir=$BATS_TEST_TMPDIR/$tool
		mkdir "$dir"
		echo old > "$dir/out"
		chmod 555 "$dir"
		rc=0
		run_tool $tool "$(input_of $tool)" -o "$dir/out" 2>"$BATS_TEST_TMPDIR/err" || rc=$?
		chmod 755 "$dir"
		if [ "$(id -u)" -ne 0 ]; then
			expect_num 4 "$rc" || { echo "tr-$tool: status $rc"; false; }
			expect_eq old "$(cat "$dir/out")" || { echo "tr-$tool: old file changed"; false; }
		fi
		expect_eq out "$(ls "$dir")" || { echo "tr-$tool: left $(ls "$dir")"; false; }
	done
}

# Start tool $1 writing -o $dir/out with stdin from a FIFO, give it half the
# input, stop it with signal $2 before the end. No out, no temporary file.
# (env --default-signal: a background job of a script starts with SIGINT
# ignored, and a user's ^C reaches a foreground tool with SIGINT default.)
interrupted() {
	local tool=$1 sig=$2 in dir pid a
	in=$(input_of $tool)
	dir=$BATS_TEST_TMPDIR/$tool.$sig
	mkdir "$dir"
	mkfifo "$BATS_TEST_TMPDIR/fifo.$tool.$sig"
	a=$(args_of $tool)
	if [ $tool = aggregate ]; then
		env --default-signal=INT,TERM tr-$tool -o "$dir/out" "$a" - < "$BATS_TEST_TMPDIR/fifo.$tool.$sig" 2>/dev/null &
	else
		env --default-signal=INT,TERM tr-$tool $a -o "$dir/out" - < "$BATS_TEST_TMPDIR/fifo.$tool.$sig" 2>/dev/null &
	fi
	pid=$!
	exec 7>"$BATS_TEST_TMPDIR/fifo.$tool.$sig"
	head -c $(($(wc -c < "$in") / 2)) "$in" >&7
	# The temporary file exists from the start; the FIFO stays open, so
	# the tool is waiting for more input when the signal comes.
	for i in $(seq 1 30); do
		[ -n "$(ls "$dir")" ] && break
		sleep 0.1
	done
	kill -$sig $pid
	exec 7>&-
	wait $pid || true
	[ -z "$(ls "$dir")" ] || { echo "tr-$tool killed by SIG$sig left: $(ls "$dir")"; return 1; }
}

@test "every tool: interrupted by SIGINT or SIGTERM, -o FILE leaves no partial file" {
	fails=
	for tool in $ALL_TOOLS; do
		for sig in INT TERM; do
			interrupted $tool $sig || fails="$fails $tool/$sig"
		done
	done
	[ -z "$fails" ] || { echo "left a file:$fails"; false; }
}

@test "every tool: the same input gives byte-identical output" {
	for tool in $ALL_TOOLS; do
		run_tool $tool "$(input_of $tool)" > "$BATS_TEST_TMPDIR/a" 2>/dev/null || true
		run_tool $tool "$(input_of $tool)" > "$BATS_TEST_TMPDIR/b" 2>/dev/null || true
		[ -s "$BATS_TEST_TMPDIR/a" ] || { echo "tr-$tool: no output"; false; }
		cmp "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b" || { echo "tr-$tool: output differs between runs"; false; }
	done
}

@test "tr-ingest: the samples give byte-identical output on every run, also zstd" {
	for f in "$SAMPLES"/*/*.json; do
		tr-ingest "$f" > "$BATS_TEST_TMPDIR/a"
		tr-ingest "$f" > "$BATS_TEST_TMPDIR/b"
		cmp "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
		zstd -q -c "$f" > "$BATS_TEST_TMPDIR/in.zst"
		tr-ingest "$BATS_TEST_TMPDIR/in.zst" > "$BATS_TEST_TMPDIR/c"
		cmp "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/c"
	done
}

@test "every tool: an unknown option is exit 2 with a pointer to --help on stderr, -h is exit 0 on stdout" {
	for tool in $ALL_TOOLS; do
		run "tr-$tool" --no-such-option
		expect_status 2 || { echo "tr-$tool --no-such-option: $status"; false; }
		expect_eq "try 'tr-$tool --help'" "${lines[1]}" || { echo "tr-$tool: $output"; false; }
		"tr-$tool" -h > "$BATS_TEST_TMPDIR/h" 2>"$BATS_TEST_TMPDIR/e"
		grep -q '^usage: ' "$BATS_TEST_TMPDIR/h" || { echo "tr-$tool -h: no usage on stdout"; false; }
		[ ! -s "$BATS_TEST_TMPDIR/e" ]
	done
}

@test "every tool: a missing input file is exit 3 naming the file" {
	for tool in $ALL_TOOLS; do
		rc=0
		run_tool $tool "$BATS_TEST_TMPDIR/nosuch" > /dev/null 2>"$BATS_TEST_TMPDIR/e" || rc=$?
		expect_num 3 "$rc" || { echo "tr-$tool: status $rc"; false; }
		grep -q "^tr-$tool: .*nosuch" "$BATS_TEST_TMPDIR/e" || { echo "tr-$tool: $(cat "$BATS_TEST_TMPDIR/e")"; false; }
	done
}

@test "every tool: a named pipe as input (<(...)) gives the same output as the file" {
	fails=
	for tool in $ALL_TOOLS; do
		in=$(input_of $tool)
		run_tool $tool "$in" > "$BATS_TEST_TMPDIR/want" 2>/dev/null || true
		rc=0
		mkfifo "$BATS_TEST_TMPDIR/fifo.$tool"
		cat "$in" > "$BATS_TEST_TMPDIR/fifo.$tool" &
		feeder=$!
		run_tool_bounded $tool "$BATS_TEST_TMPDIR/fifo.$tool" > "$BATS_TEST_TMPDIR/got" 2>/dev/null || rc=$?
		# Unblock and reap the feeder if the tool never opened the pipe again
		# (when the feeder is done, opening the pipe would wait the 5 s out).
		if kill -0 "$feeder" 2>/dev/null; then
			timeout 5 sh -c ": < '$BATS_TEST_TMPDIR/fifo.$tool'" 2>/dev/null || true
		fi
		wait $feeder 2>/dev/null || true
		if [ "$rc" -eq 124 ]; then
			fails="$fails tr-$tool(hangs)"
		elif ! cmp -s "$BATS_TEST_TMPDIR/got" "$BATS_TEST_TMPDIR/want"; then
			fails="$fails tr-$tool(differs)"
		fi
	done
	[ -z "$fails" ] || { echo "reading a named pipe:$fails"; false; }
}
