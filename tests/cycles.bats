#!/usr/bin/env bats
# No call cycle between the files of the library: scripts/cycles.sh computes
# the file-level call graph from the symbols each object defines and uses
# (nm), and every cycle it finds must be one of scripts/cycles.known.
# scripts/layers.sh checks, from the same symbols, that calls go down a
# stack of layers: core/ below everything, and the layers of ingest/.

load helper

top="$BATS_TEST_DIRNAME/.."
objs="$TR_BIN/../lib"

# Compile C source from stdin into DIR/NAME.o.  usage: obj DIR NAME
obj() {
	mkdir -p "$1"
	cat > "$1/$2.c"
	cc -c -o "$1/$2.o" "$1/$2.c"
}

@test "the library has no call cycle between files beyond the known ones" {
	[ -d "$objs" ] || skip "no objects in $objs (build the library first)"
	run sh "$top/scripts/cycles.sh" "$objs"
	known=$(grep -v '^#' "$top/scripts/cycles.known" | grep -v '^$' || true)
	new=$(printf '%s\n' "$output" | grep -vxF -e "$known" | grep -v '^$' || true)
	expect_eq "" "$new" "cycles not in scripts/cycles.known"
}

@test "every cycle scripts/cycles.known lists is still there (untied ones leave the list)" {
	[ -d "$objs" ] || skip "no objects in $objs (build the library first)"
	run sh "$top/scripts/cycles.sh" "$objs"
	known=$(grep -v '^#' "$top/scripts/cycles.known" | grep -v '^$' || true)
	[ -z "$known" ] && return 0
	gone=$(printf '%s\n' "$known" | grep -vxF -e "$output" || true)
	expect_eq "" "$gone" "listed cycles that no longer exist"
}

@test "cycles.sh prints a two-file cycle and exits 1" {
	d=$BATS_TEST_TMPDIR/o
	echo 'int b(int); int a(int x) { return x ? b(x - 1) : 0; }' | obj "$d" a
	echo 'int a(int); int b(int x) { return a(x); }' | obj "$d" b
	echo 'int a(int); int c(int x) { return a(x); }' | obj "$d" c
	run sh "$top/scripts/cycles.sh" "$d"
	expect_status 1
	expect_output "a.c b.c"
}

@test "cycles.sh finds a cycle through three files and one in a subfolder" {
	d=$BATS_TEST_TMPDIR/o
	echo 'int b(int); int a(int x) { return b(x); }' | obj "$d" a
	echo 'int c(int); int b(int x) { return c(x); }' | obj "$d/sub" b
	echo 'int a(int); int c(int x) { return a(x); }' | obj "$d" c
	echo 'int e(int); int d(int x) { return e(x); }' | obj "$d" d
	echo 'int d(int); int e(int x) { return d(x); }' | obj "$d/sub" e
	run sh "$top/scripts/cycles.sh" "$d"
	expect_status 1
	expect_output "a.c c.c sub/b.c
d.c sub/e.c"
}

@test "cycles.sh prints nothing and exits 0 for calls in one direction" {
	d=$BATS_TEST_TMPDIR/o
	echo 'int b(int); int a(int x) { return b(x); }' | obj "$d" a
	echo 'int b(int x) { return x; }' | obj "$d" b
	run sh "$top/scripts/cycles.sh" "$d"
	expect_status 0
	expect_output ""
}

@test "cycles.sh on a missing directory says so in one line and exits 4" {
	run sh "$top/scripts/cycles.sh" "$BATS_TEST_TMPDIR/none"
	expect_status 4
	expect_output "cycles.sh: $BATS_TEST_TMPDIR/none: no such directory"
}

# The layers of ingest/, top first, as ingest.c lists them.
ingest_layers=(
	'ingest/ingest ingest/lines'
	'ingest/parallel ingest/files ingest/crew ingest/prescan'
	'ingest/walk ingest/element'
	'ingest/jaeger ingest/otlp ingest/zipkin ingest/detect'
	'ingest/batch ingest/merge ingest/zipkin_merge ingest/copies ingest/context'
	'ingest/jtree'
)

@test "within ingest/ calls go down the layers: a converter calls no driver and not the public layer" {
	[ -d "$objs" ] || skip "no objects in $objs (build the library first)"
	run sh "$top/scripts/layers.sh" "$objs" "${ingest_layers[@]}"
	expect_eq "" "$output" "calls up the layers of ingest/"
	expect_status 0
}

@test "every file of ingest/ has its place in the layers" {
	listed=$(printf '%s\n' "${ingest_layers[@]}" | tr ' ' '\n' | sort)
	present=$(cd "$top/src/lib" && ls ingest/*.c | sed 's/\.c$//' | sort)
	expect_eq "$present" "$listed" "the files of ingest/ against the layers listed"
}

@test "core/ calls nothing above it (the reader converts exports through its hook)" {
	[ -d "$objs" ] || skip "no objects in $objs (build the library first)"
	above=$(cd "$objs" && ls *.o */*.o | grep -v '^core/' | sed 's/\.o$//' | tr '\n' ' ')
	run sh "$top/scripts/layers.sh" "$objs" "$above" 'core/*'
	expect_eq "" "$output" "calls from core/ up"
}

@test "the library's layers: analyses over the read loop, over ingest/, over core/" {
	[ -d "$objs" ] || skip "no objects in $objs (build the library first)"
	run sh "$top/scripts/layers.sh" "$objs" 'cp/* pag/* temporal/* infer/* query/* report/* draw/*' \
		'filter where exports offsets clock' 'ingest/*' 'core/*'
	expect_eq "" "$output" "calls up the library's layers"
	expect_status 0
}

@test "every file of src/lib/ has its place in the library's layers" {
	present=$(cd "$top/src/lib" && ls *.c */*.c | sed 's/\.c$//' |
		grep -Ev '^(cp|pag|temporal|infer|query|report|draw|ingest|core)/|^(filter|where|exports|offsets|clock)$' || true)
	expect_eq "" "$present" "files of src/lib/ in no layer"
}

@test "no file of src/lib/core/ includes a header from outside core/" {
	found=$(grep -n '#include "' "$top"/src/lib/core/*.[ch] | grep -v '#include "core/' || true)
	expect_eq "" "$found" "includes in src/lib/core/ of headers above it"
}

@test "layers.sh prints a call up the layers and exits 1; calls down and within a layer pass" {
	d=$BATS_TEST_TMPDIR/o
	echo 'int b(int); int a(int x) { return b(x); }' | obj "$d" a
	echo 'int c(int); int a(int); int b(int x) { return x ? c(x) : a(x); }' | obj "$d/sub" b
	echo 'int c(int x) { return x; }' | obj "$d/sub" c
	run sh "$top/scripts/layers.sh" "$d" 'a' 'sub/*'
	expect_status 1
	expect_output "sub/b.c -> a.c: a"
	run sh "$top/scripts/layers.sh" "$d" 'a sub/b' 'sub/c'
	expect_status 0
	expect_output ""
}

@test "layers.sh on a missing object says so in one line and exits 4" {
	d=$BATS_TEST_TMPDIR/o
	echo 'int a(int x) { return x; }' | obj "$d" a
	run sh "$top/scripts/layers.sh" "$d" 'a' 'none'
	expect_status 4
	expect_output "layers.sh: $d/none.o: no such object"
}
