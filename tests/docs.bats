#!/usr/bin/env bats
# The walkthrough, docs/postmortem.md: every command in a block marked
# "<!-- check -->" still prints what the document shows, and the pictures in
# docs/img/ are drawn from what the tools print now. Needs no graphviz: the
# "dot -Tsvg" commands run only where dot is installed.

load helper

top="$BATS_TEST_DIRNAME/.."
doc="$top/docs/postmortem.md"

# Split the checked blocks of a markdown file into DIR/NNN.cmd and DIR/NNN.out:
# in a block, "$ " starts a command, "> " continues it, other lines are the
# output of the command before them.
extract() {
	mkdir -p "$2"
	awk -v dir="$2" '
	function open_case() {
		if (f != "") { close(f ".cmd"); close(f ".out") }
		f = sprintf("%s/%03d", dir, ++n)
		printf "" > (f ".out")
	}
	$0 == "<!-- check -->" { armed = 1; next }
	armed && /^```/ { armed = 0; inblock = 1; next }
	inblock && /^```/ { inblock = 0; next }
	!inblock { next }
	/^\$ / { open_case(); print substr($0, 3) > (f ".cmd"); incmd = 1; next }
	incmd && /^> / { print substr($0, 3) > (f ".cmd"); next }
	f != "" { incmd = 0; print > (f ".out") }
	' "$1"
}

# Run the extracted commands in order in a scratch directory that has the
# samples, as a reader runs them from the top of a clone; each one's stdout
# and stderr go to NNN.got.
walk() {
	local cases=$1 work=$2 c
	mkdir -p "$work"
	ln -s "$top/samples" "$work/samples"
	for c in "$cases"/*.cmd; do
		if [[ $(head -1 "$c") == "dot "* ]] && ! command -v dot >/dev/null; then
			continue
		fi
		(cd "$work" && bash "$c") > "${c%.cmd}.got" 2>&1 || true
	done
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
	[ "$n" -ge 20 ]
}

@test "every command of the walkthrough prints what docs/postmortem.md shows" {
	command -v column >/dev/null || skip "column(1) is missing (bsdextrautils)"
	cases=$BATS_TEST_TMPDIR/cases
	extract "$doc" "$cases"
	walk "$cases" "$BATS_TEST_TMPDIR/work"
	bad=0 ran=0
	for c in "$cases"/*.cmd; do
		[ -e "${c%.cmd}.got" ] || continue
		ran=$((ran + 1))
		if ! diff -u "${c%.cmd}.out" "${c%.cmd}.got" > "${c%.cmd}.diff"; then
			echo "--- \$ $(cat "$c")"
			cat "${c%.cmd}.diff"
			bad=$((bad + 1))
		fi
	done
	echo "$ran commands run, $bad differ"
	[ "$ran" -ge 20 ]
	[ "$bad" -eq 0 ]
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
	[ "$n" -eq 4 ]
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
	[ "$n" -eq 4 ]
}

@test "every picture the walkthrough shows is committed in docs/img" {
	n=0
	for svg in $(grep -o '](img/[a-z-]*\.svg)' "$doc" | tr -d '()]'); do
		[ -s "$top/docs/$svg" ] || { echo "docs/$svg missing"; false; }
		n=$((n + 1))
	done
	[ "$n" -eq 4 ]
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
	[ "$differ" -eq 1 ]
}
