#!/usr/bin/env bats
# tr-report's service graph: the calls tr-infer --links counts, laid out by
# call direction with labels clear of the boxes and failures on the calls.

load helper

ECO="${TR_SHARED:-$BATS_TEST_DIRNAME/../../shared}/ecosystem"

# The service graph's SVG out of a report (stdin).
graph_svg() {
	awk '/<svg /{buf=""; on=1} on{buf=buf $0 "\n"}
		/<\/svg>/{if (on && buf ~ /<title>Service graph<\/title>/) printf "%s", buf; on=0}'
}

# The calls the graph draws, one a line: "parent child calls errors", sorted.
graph_calls() {
	sed -n 's|^<g class="call"><title>\(.*\) → \(.*\): \([0-9]*\) calls, \([0-9]*\) errors</title>$|\1\t\2\t\3\t\4|p' |
		LC_ALL=C sort
}

# tr-infer --links's, in the same form.
links_calls() {
	tr-infer --links "$1" | tail -n +2 | LC_ALL=C sort
}

# The report of a line-format file, its service graph to stdout.
report_graph() {
	tr-report -q -o "$BATS_TEST_TMPDIR/r.html" "$1" && graph_svg < "$BATS_TEST_TMPDIR/r.html"
}

# Overlaps of a label with a box, one a line: a label (class "edge": its
# box from its anchor, 6.5 px a character, 10 px high) meeting a box (rect
# class "cp"), or its anchor inside one.
label_overlaps() {
	awk '
	function attr(s, name,   m) {
		if (match(s, " " name "=\"[^\"]*\"")) { m = substr(s, RSTART + length(name) + 3, RLENGTH - length(name) - 4); return m + 0 }
		return ""
	}
	/<rect / && /class="cp"/ { n++; bx[n] = attr($0, "x"); by[n] = attr($0, "y"); bw[n] = attr($0, "width"); bh[n] = attr($0, "height") }
	/<text / && /class="[^"]*edge/ {
		x = attr($0, "x"); y = attr($0, "y"); t = $0; sub(/^<text[^>]*>/, "", t); sub(/<\/text>.*/, "", t)
		nl++; lx[nl] = x; ly[nl] = y; lw[nl] = 6.5 * length(t); lt[nl] = t
	}
	END {
		for (i = 1; i <= nl; i++) for (j = 1; j <= n; j++) {
			inside = lx[i] >= bx[j] && lx[i] <= bx[j] + bw[j] && ly[i] >= by[j] && ly[i] <= by[j] + bh[j]
			meets = lx[i] < bx[j] + bw[j] && lx[i] + lw[i] > bx[j] && ly[i] - 10 < by[j] + bh[j] && ly[i] > by[j]
			if (inside || meets) print "label " lt[i] " at " lx[i] "," ly[i] " meets the box at " bx[j] "," by[j]
		}
		if (!nl) print "no label"
	}'
}

# Points of calls' paths (ends and control points) strictly inside a box,
# one a line: a call drawn through a service's box.
paths_through_boxes() {
	awk '
	function attr(s, name) {
		if (match(s, " " name "=\"[^\"]*\"")) return substr(s, RSTART + length(name) + 3, RLENGTH - length(name) - 4) + 0
		return ""
	}
	/^<g class="call">/ { call = $0; sub(/^<g class="call"><title>/, "", call); sub(/<\/title>.*/, "", call) }
	/^<path d="M/ && call != "" { d = $0; sub(/^<path d="/, "", d); sub(/".*/, "", d); gsub(/[MC]/, "", d); np[call] = split(d, pts, / +/); for (i = 1; i <= np[call]; i++) pt[call, i] = pts[i] }
	/^<\/g>/ { call = "" }
	/<rect / && /class="cp"/ { n++; bx[n] = attr($0, "x"); by[n] = attr($0, "y"); bw[n] = attr($0, "width"); bh[n] = attr($0, "height") }
	END {
		for (c in np) for (i = 1; i <= np[c]; i++) {
			split(pt[c, i], xy, ","); x = xy[1] + 0; y = xy[2] + 0
			for (j = 1; j <= n; j++)
				if (x > bx[j] + 0.5 && x < bx[j] + bw[j] - 0.5 && y > by[j] + 0.5 && y < by[j] + bh[j] - 0.5)
					print c " passes " x "," y " inside the box at " bx[j] "," by[j]
		}
	}'
}

# The y of each box's top by its service name.
box_tops() {
	awk '/<rect / && /class="cp"/ { match($0, / y="[^"]*"/); y = substr($0, RSTART + 4, RLENGTH - 5) }
		/^<text / && !/class=/ && y != "" { t = $0; sub(/^<text[^>]*>/, "", t); sub(/<\/text>.*/, "", t); print t "\t" y; y = "" }'
}

# skip (in the test itself: otel runs in a subshell) without the export
need_otel() {
	[ -f "$ECO/otel-tui/test_data.json" ] || skip "no ../shared/ecosystem/otel-tui beside the project"
}

otel() {
	tr-ingest -q -o "$BATS_TEST_TMPDIR/otel.tr" "$ECO/otel-tui/test_data.json"
	printf '%s\n' "$BATS_TEST_TMPDIR/otel.tr"
}

sample() {
	tr-ingest -q -o "$BATS_TEST_TMPDIR/$1.tr" "$SAMPLES/$1/hotrod.json"
	printf '%s\n' "$BATS_TEST_TMPDIR/$1.tr"
}

@test "report graph: on the OpenTelemetry demo export every call and count is tr-infer --links's" {
	need_otel
	f=$(otel)
	expect_eq "$(links_calls "$f")" "$(report_graph "$f" | graph_calls)" "calls (parent child calls errors)"
}

@test "report graph: on each sample every call and count is tr-infer --links's" {
	for fmt in jaeger otlp zipkin; do
		f=$(sample $fmt)
		expect_eq "$(links_calls "$f")" "$(report_graph "$f" | graph_calls)" "$fmt calls"
	done
}

@test "report graph: frontend calls route as often as tr-infer --links says, and nothing draws frontend to analytics" {
	f=$(sample jaeger)
	calls=$(report_graph "$f" | graph_calls)
	expect_eq "$(links_calls "$f" | awk -F'\t' '$1 == "frontend" && $2 == "route"')" \
		"$(awk -F'\t' '$1 == "frontend" && $2 == "route"' <<< "$calls")" "frontend -> route"
	expect_eq "$(links_calls "$f" | awk -F'\t' '$1 == "frontend" && $2 == "analytics"')" \
		"$(awk -F'\t' '$1 == "frontend" && $2 == "analytics"' <<< "$calls")" "frontend -> analytics"
}

@test "report graph: no call label meets a service's box, on the demo export and the samples" {
	need_otel
	for f in $(otel) $(sample jaeger) $(sample zipkin); do
		expect_eq "" "$(report_graph "$f" | label_overlaps)" "overlaps in $(basename "$f")"
	done
}

@test "report graph: no call is drawn through a service's box, on the demo export and the samples" {
	need_otel
	for f in $(otel) $(sample jaeger) $(sample zipkin); do
		svg=$(report_graph "$f")
		expect_like "*<path d=\"M*<g class=\"call\">*" "$svg" "call paths in $f"
		expect_eq "" "$(paths_through_boxes <<< "$svg")" "calls through boxes in $(basename "$f")"
	done
}

@test "report graph: callers are drawn above their callees" {
	f=$(sample jaeger)
	tops=$(report_graph "$f" | box_tops)
	top() { awk -F'\t' -v s="$1" '$1 == s { print $2 }' <<< "$tops"; }
	for call in frontend:customer customer:mysql frontend:kafka kafka:analytics driver:redis; do
		(( $(top "${call%%:*}" | cut -d. -f1) < $(top "${call##*:}" | cut -d. -f1) )) ||
			{ echo "$call: caller at $(top "${call%%:*}"), callee at $(top "${call##*:}")"; false; }
	done
}

@test "report graph: services that call each other in a cycle are put in different ranks" {
	f=$(tr '|' '\t' <<-'EOF' | mkfix cycle.tr
	#tr/1
	T|t1
	S|t1|a||1767225600000000|100000|a|GET /|server|h1
	S|t1|b|a|1767225600010000|60000|b|call|server|h2|peer.service=a
	S|t1|c|b|1767225600020000|30000|a|back|server|h1|peer.service=b
	EOF
	)
	svg=$(report_graph "$f")
	expect_eq "$(printf 'a\tb\t1\t0\nb\ta\t1\t0')" "$(graph_calls <<< "$svg")" "calls"
	tops=$(box_tops <<< "$svg" | cut -f2 | sort -u | wc -l)
	expect_eq 2 "$tops" "ranks"
}

@test "report graph: a call with errors is red and dashed, its label counting them" {
	need_otel
	f=$(otel)
	svg=$(report_graph "$f")
	call=$(awk '/<title>frontend-proxy → frontend:/,/<\/g>/' <<< "$svg")
	expect_like '*stroke="#c0392b"*stroke-dasharray="6,3"*' "$call" "a failing call"
	expect_contains '>75 (20 errors)</text>' "$call" "a failing call"
	ok=$(awk '/<title>frontend → adservice:/,/<\/g>/' <<< "$svg")
	expect_lacks 'stroke-dasharray' "$ok" "a call without failures"
	expect_contains '>9</text>' "$ok" "a call without failures"
}
