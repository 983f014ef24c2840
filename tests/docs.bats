#!/usr/bin/env bats
# The documents run: every command in a block marked "<!-- check -->" of the
# README, the walkthrough (docs/postmortem.md) and the other docs/ pages still
# prints what the document shows, and every command in a block marked
# "<!-- run -->" still runs (exit status 0; its output is not shown). The
# pictures in docs/img/ are drawn from what the tools print now. Needs no
# graphviz: the commands that pipe into dot run only where it is installed.

load helper

top="$BATS_TEST_DIRNAME/.."
doc="$top/docs/postmortem.md"

# Split the checked and run blocks of a markdown file into DIR/NNN.cmd and
# DIR/NNN.out (DIR/NNN.run marks a command of a run block): in a block, "$ "
# starts a command, "> " continues it, other lines are the output of the
# command before them.
extract() {
	mkdir -p "$2"
	awk -v dir="$2" '
	function open_case() {
		if (f != "") { close(f ".cmd"); close(f ".out") }
		f = sprintf("%s/%03d", dir, ++n)
		printf "" > (f ".out")
		if (mode == "run") { printf "" > (f ".run"); close(f ".run") }
	}
	$0 == "<!-- check -->" { armed = 1; mode = "check"; next }
	$0 == "<!-- run -->" { armed = 1; mode = "run"; next }
	armed && /^```/ { armed = 0; inblock = 1; next }
	inblock && /^```/ { inblock = 0; next }
	!inblock { next }
	/^\$ / { open_case(); print substr($0, 3) > (f ".cmd"); incmd = 1; next }
	incmd && /^> / { print substr($0, 3) > (f ".cmd"); next }
	f != "" { incmd = 0; print > (f ".out") }
	' "$1"
}

# Why a command is not run here, if it is not: a picture piped into graphviz
# where dot is missing, or an option this build of tr-cp does not have yet.
not_run() {
	if grep -qE '(^|\| *)dot ' "$1" && ! command -v dot >/dev/null; then
		echo "graphviz is not installed"
	elif grep -q -- '--suspects' "$1" && ! tr-cp --help | grep -q -- --suspects; then
		echo "tr-cp has no --suspects in this build"
	fi
}

# Run the extracted commands in order in one bash, as a reader runs them from
# the top of a clone (a variable one command sets is there for the next), in
# a scratch directory that has the samples; each one's stdout and stderr go
# to NNN.got and its exit status to NNN.rc. Commands not run are listed in
# DIR/not-run with the reason.
walk() {
	local cases=$1 work=$2 c why
	mkdir -p "$work"
	ln -s "$top/samples" "$work/samples"
	ln -s "$top/scripts" "$work/scripts"
	: > "$cases/not-run"
	{
		echo "cd '$work' || exit 1"
		for c in "$cases"/*.cmd; do
			why=$(not_run "$c")
			if [ -n "$why" ]; then
				echo "$(head -1 "$c"): $why" >> "$cases/not-run"
				continue
			fi
			printf '{\n%s\n} > %q 2>&1; echo $? > %q\n' "$(cat "$c")" "${c%.cmd}.got" "${c%.cmd}.rc"
		done
	} > "$cases/session.sh"
	bash "$cases/session.sh" < /dev/null > /dev/null 2>&1 || true
}

# Compare what each command run printed with what the document shows (a
# run block's command: that it exited 0); print a diff for each one that
# differs, then "N commands run, M differ". Fails when one differs.
compare() {
	local cases=$1 c bad=0 ran=0
	for c in "$cases"/*.cmd; do
		[ -e "${c%.cmd}.got" ] || continue
		ran=$((ran + 1))
		if [ -e "${c%.cmd}.run" ]; then
			[ "$(cat "${c%.cmd}.rc")" = 0 ] && continue
			echo "--- \$ $(cat "$c")"
			echo "expected exit status 0, got $(cat "${c%.cmd}.rc"):"
			cat "${c%.cmd}.got"
			bad=$((bad + 1))
		elif ! diff -u "${c%.cmd}.out" "${c%.cmd}.got" > "${c%.cmd}.diff"; then
			echo "--- \$ $(cat "$c")"
			cat "${c%.cmd}.diff"
			bad=$((bad + 1))
		fi
	done
	sed 's/^/not run: /' "$cases/not-run"
	echo "$ran commands run, $bad differ"
	RAN=$ran
	expect_num 0 "$bad"
}

# The graphviz title of a node or edge id, as it appears in the SVG.
svg_escape() {
	sed -e 's/&/\&amp;/g' -e 's/-/\&#45;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g'
}

@test "the walkthrough has checked commands for every step: ingest, critical path, what-if, causal model, provenance, gate" {
	extract "$doc" "$BATS_TEST_TMPDIR/cases"
	all=$(cat "$BATS_TEST_TMPDIR"/cases/*.cmd)
	for want in 'tr-ingest ' 'tr-cp --summary' 'tr-cp --whatif' 'tr-infer hotrod.tr' \
	    'tr-temporal --explain' 'tr-aggregate --fail-if' 'tr-cp --dot --trace' \
	    'tr-infer --links -f dot' 'tr-infer --dot' 'tr-temporal --dot'; do
		grep -qF -- "$want" <<<"$all" || { echo "no checked command with '$want'"; false; }
	done
	n=$(ls "$BATS_TEST_TMPDIR"/cases/*.cmd | wc -l)
	expect_ge 20 "$n"
}

@test "every command of the walkthrough prints what docs/postmortem.md shows" {
	command -v column >/dev/null || skip "column(1) is missing (bsdextrautils)"
	cases=$BATS_TEST_TMPDIR/cases
	extract "$doc" "$cases"
	walk "$cases" "$BATS_TEST_TMPDIR/work"
	compare "$cases"
	expect_ge 20 "$RAN"
}

@test "the walkthrough's graphviz commands render every picture as SVG" {
	command -v dot >/dev/null || skip "graphviz is not installed"
	cases=$BATS_TEST_TMPDIR/cases
	extract "$doc" "$cases"
	walk "$cases" "$BATS_TEST_TMPDIR/work"
	for svg in $(grep -o 'img/[a-z-]*\.svg' "$doc"); do
		f=$BATS_TEST_TMPDIR/work/${svg#img/}
		grep -q '<svg' "$f" || { echo "$svg: not rendered"; false; }
	done
}

@test "the DOT files in docs/img are what the walkthrough's commands print now" {
	cases=$BATS_TEST_TMPDIR/cases
	extract "$doc" "$cases"
	walk "$cases" "$BATS_TEST_TMPDIR/work"
	n=0
	for svg in $(grep -o 'img/[a-z-]*\.svg' "$doc"); do
		name=${svg#img/}
		name=${name%.svg}
		[ -s "$BATS_TEST_TMPDIR/work/$name.dot" ] || { echo "no command writes $name.dot"; false; }
		cmp "$top/docs/img/$name.dot" "$BATS_TEST_TMPDIR/work/$name.dot" ||
			{ echo "docs/img/$name.dot is stale: run make docs"; false; }
		n=$((n + 1))
	done
	expect_num 4 "$n"
}

@test "every SVG in docs/img is rendered from its DOT file: same graph, nodes and edges" {
	n=0
	for dotf in "$top"/docs/img/*.dot; do
		svg=${dotf%.dot}.svg
		[ -s "$svg" ] || { echo "$svg missing: run make docs"; false; }
		title=$(sed -n '1s/^digraph "\(.*\)" {$/\1/p' "$dotf" | svg_escape)
		grep -qF "<!-- Title: $title Pages:" "$svg" || { echo "$svg: not the graph of $dotf"; false; }
		# Every node and edge id of the DOT file is a <title> in the SVG, and
		# the SVG has no others.
		awk -F'"' '/^ *"[^"]*" -> "/ { print $2 "->" $4; print $2; print $4; next }
		    /^ *"[^"]*" \[/ || /^ *subgraph "/ { print $2 }' "$dotf" |
			svg_escape | sort -u > "$BATS_TEST_TMPDIR/want"
		sed -n 's/^<title>\(.*\)<\/title>$/\1/p' "$svg" | grep -vxF "$title" | sort -u > "$BATS_TEST_TMPDIR/got"
		[ -s "$BATS_TEST_TMPDIR/want" ]
		diff -u "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got" ||
			{ echo "$svg is stale: run make docs"; false; }
		n=$((n + 1))
	done
	expect_num 4 "$n"
}

@test "every picture the walkthrough shows is committed in docs/img" {
	n=0
	for svg in $(grep -o '](img/[a-z-]*\.svg)' "$doc" | tr -d '()]'); do
		[ -s "$top/docs/$svg" ] || { echo "docs/$svg missing"; false; }
		n=$((n + 1))
	done
	expect_num 4 "$n"
}

@test "a changed output in the document is caught" {
	command -v column >/dev/null || skip "column(1) is missing (bsdextrautils)"
	sed 's/^customer  mysql      45     0$/customer  mysql      44     0/' "$doc" > "$BATS_TEST_TMPDIR/doc.md"
	! cmp -s "$doc" "$BATS_TEST_TMPDIR/doc.md"
	cases=$BATS_TEST_TMPDIR/cases
	extract "$BATS_TEST_TMPDIR/doc.md" "$cases"
	walk "$cases" "$BATS_TEST_TMPDIR/work"
	differ=0
	for c in "$cases"/*.cmd; do
		[ -e "${c%.cmd}.got" ] || continue
		cmp -s "${c%.cmd}.out" "${c%.cmd}.got" || differ=$((differ + 1))
	done
	expect_num 1 "$differ"
}

@test "every command of the README prints what README.md shows" {
	command -v column >/dev/null || skip "column(1) is missing (bsdextrautils)"
	cases=$BATS_TEST_TMPDIR/cases
	extract "$top/README.md" "$cases"
	walk "$cases" "$BATS_TEST_TMPDIR/work"
	compare "$cases"
	expect_ge 8 "$RAN"
}

@test "the README's steps cover the slowest id, why, picture, report, baseline and the gate" {
	extract "$top/README.md" "$BATS_TEST_TMPDIR/cases"
	all=$(cat "$BATS_TEST_TMPDIR"/cases/*.cmd)
	for want in 'tr-ingest ' 'slow=$(tr-aggregate --no-header' 'tr-temporal --explain -t "$slow"' \
	    'tr-cp --svg --trace "$slow"' '| dot -Tsvg' 'tr-report ' 'tr-cp --summary service --baseline' \
	    'tr-cp --suspects --baseline' 'tr-aggregate --fail-if'; do
		grep -qF -- "$want" <<<"$all" || { echo "no checked command with '$want'"; false; }
	done
}

@test "the README's steps reach an answer on an ecosystem export in place of the samples" {
	eco=${TR_SHARED:-$top/../shared}/ecosystem
	[ -f "$eco/jaeger-ui/testTrace.json" ] || skip "no ../shared/ecosystem beside the project"
	sed "s|samples/jaeger/hotrod.json|$eco/jaeger-ui/testTrace.json|g" "$top/README.md" > "$BATS_TEST_TMPDIR/README.md"
	cases=$BATS_TEST_TMPDIR/cases
	extract "$BATS_TEST_TMPDIR/README.md" "$cases"
	walk "$cases" "$BATS_TEST_TMPDIR/work"
	bad=0
	for c in "$cases"/*.cmd; do
		[ -e "${c%.cmd}.rc" ] || continue
		grep -q -- '--fail-if\|--suspects' "$c" && continue	# a verdict, or not in every build
		rc=$(cat "${c%.cmd}.rc")
		[ "$rc" = 0 ] || { echo "exit status $rc: $(cat "$c")"; cat "${c%.cmd}.got"; bad=$((bad + 1)); }
	done
	expect_num 0 "$bad"
	work=$BATS_TEST_TMPDIR/work
	expected=84b3fad94c6112edd6af3347d06f6f1d
	actual=$(head -1 "$(grep -l -- '--explain' "$cases"/*.cmd | sed 's/cmd$/got/')")
	echo "expected: trace $expected: ..."
	echo "actual:   $actual"
	expect_like "trace $expected: *" "$actual"
	grep -q '<svg' "$work/slowest.svg"
	grep -q '<html' "$work/report.html"
}

@test "every command of the other docs/ pages prints what the page shows" {
	command -v column >/dev/null || skip "column(1) is missing (bsdextrautils)"
	bad=0 pages=0
	for md in "$top"/docs/*.md; do
		[ "$md" = "$doc" ] && continue
		grep -qx '<!-- check -->' "$md" || continue
		name=$(basename "$md" .md)
		cases=$BATS_TEST_TMPDIR/$name
		extract "$md" "$cases"
		walk "$cases" "$BATS_TEST_TMPDIR/work-$name"
		echo "== docs/$name.md"
		compare "$cases" || bad=$((bad + 1))
		pages=$((pages + 1))
	done
	echo "$pages pages, $bad differ"
	expect_ge 8 "$pages"
	expect_num 0 "$bad"
}

@test "every docs/ page with commands marks them checked, or says they are recipes" {
	bad=0
	for md in "$top/README.md" "$top"/docs/*.md; do
		# A "$ " command in a fenced block that no marker arms.
		awk -v f="${md#"$top"/}" '
		$0 == "<!-- check -->" || $0 == "<!-- run -->" { armed = 1; next }
		/^```/ { if (inblock) { inblock = 0 } else { inblock = 1; checked = armed } armed = 0; next }
		inblock && !checked && /^\$ / { print f ": not checked: " $0; n++ }
		END { exit n > 0 }' "$md" || bad=$((bad + 1))
	done
	expect_num 0 "$bad"
}

@test "the README is a front page: at most 200 lines" {
	n=$(wc -l < "$top/README.md")
	echo "README.md: $n lines"
	expect_le 200 "$n"
}

@test "the README states build/bin on PATH and names every package its commands use" {
	for want in 'build/bin:$PATH' 'make install' 'make check' 'make demo' graphviz bsdextrautils \
	    libyajl-dev libzstd-dev zlib1g-dev bats jq zstd LICENSE; do
		grep -qF -- "$want" "$top/README.md" || { echo "README.md does not name $want"; false; }
	done
}

# The relative links of a markdown file, one a line: [text](target) outside
# code spans, without a scheme, minus any #anchor.
links() {
	sed 's/`[^`]*`//g' "$1" | grep -o '\]([^)]*)' | sed -e 's/^](//' -e 's/)$//' -e 's/#.*//' | grep -v '^[a-z]*:' | grep -v '^$'
}

@test "every link in README.md, HACKING.md and docs/ resolves to a file of the repository" {
	bad=0 n=0
	for md in "$top/README.md" "$top/HACKING.md" "$top"/docs/*.md; do
		[ -e "$md" ] || continue
		for l in $(links "$md"); do
			n=$((n + 1))
			[ -e "$(dirname "$md")/$l" ] || { echo "${md#"$top"/}: $l does not exist"; bad=$((bad + 1)); }
		done
	done
	echo "$n links, $bad broken"
	expect_ge 20 "$n"
	expect_num 0 "$bad"
}

@test "a broken link is caught" {
	printf 'see [x](docs/nothing-here.md) and [y](README.md)\n' > "$BATS_TEST_TMPDIR/t.md"
	expect_eq "$(printf 'docs/nothing-here.md\nREADME.md')" "$(links "$BATS_TEST_TMPDIR/t.md")"
	[ ! -e "$top/docs/nothing-here.md" ]
}

@test "no document speaks of the machine it was built or measured on" {
	! grep -nE 'this (2-core |build )?machine|on a (shared |loaded )?2-core|build machine|was run here|build host' \
		"$top/README.md" "$top/HACKING.md" "$top"/docs/*.md "$top"/man/*
}

@test "every docs/ page a man page points to exists" {
	n=0 bad=0
	for p in $(grep -oh 'docs/[a-z-]*\.md' "$top"/man/* | sort -u); do
		n=$((n + 1))
		[ -f "$top/$p" ] || { echo "a man page names $p, which does not exist"; bad=$((bad + 1)); }
	done
	echo "$n pages named, $bad missing"
	expect_ge 6 "$n"
	expect_num 0 "$bad"
}
