#!/usr/bin/env bats
# The pictures as a person pastes them: every picture of docs/img, the
# report's, and tr-cp's (--svg, --flame, --dot through dot) of the samples
# and of the ecosystem exports in ../shared, checked in one headless
# Chromium page at 1,000 px: no text under 8 px, no text cut off by its
# picture's edges. Graphviz must lay out every DOT output within 5 s, and a
# trace of 30 to 50 spans must fit 1,000 px.

load helper
load render

ECOSYSTEM="$BATS_TEST_DIRNAME/../../shared/ecosystem"

# The inputs, as line-format files in $BATS_FILE_TMPDIR/in: the samples,
# and every ecosystem export tr-ingest reads (those it refuses are the
# foreign formats it must refuse).
setup_file() {
	local top="$BATS_TEST_DIRNAME/.." in="$BATS_FILE_TMPDIR/in" f name
	PATH="$top/build/bin:$PATH"
	mkdir -p "$in"
	for f in "$top"/samples/*/hotrod.json; do
		name=$(basename "$(dirname "$f")")
		tr-ingest -q "$f" > "$in/sample-$name.tr"
	done
	[ -d "$ECOSYSTEM" ] || return 0
	find "$ECOSYSTEM" -type f -name '*.json' | sort | while read -r f; do
		name=$(printf '%s' "${f#"$ECOSYSTEM"/}" | tr '/.' '__')
		tr-ingest -q "$f" > "$in/eco-$name.tr" 2>/dev/null && grep -q '^S' "$in/eco-$name.tr" ||
			rm -f "$in/eco-$name.tr"
	done
}

need_ecosystem() {
	[ -d "$ECOSYSTEM" ] || skip "../shared/ecosystem not there (the ecosystem exports)"
}

# The slowest request of a line-format file, as people look at first.
slowest() {
	tr-aggregate --no-header 'From s In spans Where s.root Select s.trace
		OrderBy s.duration Desc Limit 1' "$1"
}

# Each trace of 30 to 50 spans (of ids as the S records spell them).
mid_traces() {
	awk -F'\t' '$1 == "S" { n[$2]++ } END { for (t in n) if (n[t] >= 30 && n[t] <= 50) print t }' "$1" | sort
}

@test "tr-cp --dot: every trace of 30 to 50 spans in the samples and ecosystem exports renders at most 1,000 px wide" {
	command -v dot > /dev/null || skip "graphviz not installed"
	local wide="" n=0 f id pt
	for f in "$BATS_FILE_TMPDIR"/in/*.tr; do
		for id in $(mid_traces "$f"); do
			pt=$(tr-cp --dot --trace "$id" "$f" | dot -Tsvg | sed -n 's/^<svg width="\([0-9]*\)pt".*/\1/p')
			n=$((n + 1))
			# an SVG's pt is 4/3 px
			[ $((pt * 4)) -le 3000 ] || wide="$wide $(basename "$f"):$id:$((pt * 4 / 3))px"
		done
	done
	echo "$n traces drawn"
	expect_gt 0 "$n" "pictures checked"
	expect_eq "" "$wide" "traces wider than 1,000 px"
}

# The DOT every tool writes of f, one file each into dir.
dot_outputs() {
	local f=$1 dir=$2 id
	id=$(slowest "$f")
	tr-cp --dot "$f" > "$dir/cp.dot"
	tr-temporal --dot "$f" > "$dir/temporal.dot"
	tr-infer --links -f dot "$f" > "$dir/links.dot"
	tr-infer --dot "$f" > "$dir/causal.dot"
	tr-infer --dot --spans "$f" > "$dir/causal-spans.dot"
	tr-pag -q -f dot "$f" > "$dir/pag-summary.dot"
	tr-pag -q -f pag-dot "$f" > "$dir/pag.dot"
	if [ -n "$id" ]; then
		tr-cp --dot --trace "$id" "$f" > "$dir/cp-slowest.dot"
		tr-pag -q -f pag-dot --trace "$id" "$f" > "$dir/pag-slowest.dot"
	fi
}


@test "dot lays out every DOT output of the samples and ecosystem exports within 5 s" {
	command -v dot > /dev/null || skip "graphviz not installed"
	local slow="" f g base n=0
	for f in "$BATS_FILE_TMPDIR"/in/*.tr; do
		base="$BATS_TEST_TMPDIR/$(basename "$f" .tr)"
		mkdir -p "$base"
		dot_outputs "$f" "$base" 2>/dev/null
		for g in "$base"/*.dot; do
			[ -s "$g" ] || continue
			n=$((n + 1))
			timeout 5 dot -Tsvg "$g" > /dev/null 2> "$base/dot.err" ||
				slow="$slow $(basename "$f" .tr)/$(basename "$g") ($(head -c 200 "$base/dot.err" || true))"
		done
	done
	echo "$n DOT outputs laid out"
	expect_gt 0 "$n" "pictures checked"
	expect_eq "" "$slow" "DOT that dot refused or did not lay out within 5 s (its first words)"
}

# The pictures to look at, into $1: docs/img, the report's, and tr-cp's of
# each input's slowest trace and of all its traces.
gather_pictures() {
	local out=$1 top="$BATS_TEST_DIRNAME/.." f name id
	mkdir -p "$out/report"
	cp "$top"/docs/img/*.svg "$out/"
	tr-report -q "$top/samples/jaeger/hotrod.json" -f md -o "$out/report/report.md"
	for f in "$out"/report/*.svg; do mv "$f" "$out/report-$(basename "$f")"; done
	for f in "$BATS_FILE_TMPDIR"/in/*.tr; do
		name=$(basename "$f" .tr)
		id=$(slowest "$f")
		[ -n "$id" ] || continue
		tr-cp -q --svg "$f" > "$out/$name-timeline.svg" 2>/dev/null || rm -f "$out/$name-timeline.svg"
		tr-cp -q --flame --percentile 99 "$f" > "$out/$name-flame.svg" 2>/dev/null ||
			rm -f "$out/$name-flame.svg"
		tr-cp --dot --trace "$id" "$f" | dot -Tsvg > "$out/$name-cp.svg" 2>/dev/null
	done
}

# One HTML page holding every picture inline at most 1,000 px wide (as
# pasted into a page or an issue), and a script that writes what it finds
# into the page: a line a text under 8 px or cut off by its picture.
picture_page() {
	local dir=$1 page=$2 f
	{
		printf '<!DOCTYPE html><html><head><meta charset="utf-8"><style>'
		printf 'body{margin:0;width:1000px} div.pic{margin:0 0 20px 0} '
		printf 'div.pic>svg{display:block;max-width:1000px;height:auto}</style></head><body>\n'
		for f in "$dir"/*.svg; do
			printf '<div class="pic" data-name="%s">\n' "$(basename "$f")"
			# the SVG element itself: no XML prolog, doctype or comments
			sed -e '/^<?xml/d' -e '/^<!DOCTYPE/,/>$/d' -e '/^<!--.*-->$/d' "$f"
			printf '</div>\n'
		done
		cat <<-'EOF'
		<pre id="verdict"></pre>
		<script>
		const out = [];
		let pictures = 0, texts = 0;
		for (const div of document.querySelectorAll('div.pic')) {
			const svg = div.querySelector('svg');
			if (!svg) { out.push(div.dataset.name + ': no svg'); continue; }
			pictures++;
			const box = svg.getBoundingClientRect();
			for (const t of svg.querySelectorAll('text')) {
				const r = t.getBoundingClientRect();
				if (!t.textContent.trim() || r.width === 0) continue;
				texts++;
				const m = t.getScreenCTM();
				const px = parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b);
				const what = div.dataset.name + ': "' + t.textContent.trim().slice(0, 60) + '"';
				if (px < 8 - 0.01) out.push(what + ' renders at ' + px.toFixed(1) + ' px');
				if (r.left < box.left - 0.5 || r.right > box.right + 0.5 ||
				    r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5)
					out.push(what + ' is cut off: text ' + [r.left, r.right, r.top, r.bottom].map(v => v.toFixed(0)) +
						 ', picture ' + [box.left, box.right, box.top, box.bottom].map(v => v.toFixed(0)));
			}
		}
		out.push('checked ' + pictures + ' pictures, ' + texts + ' texts');
		document.getElementById('verdict').textContent = out.join('\n');
		</script></body></html>
		EOF
	} > "$page"
}

@test "in Chromium at 1,000 px, no picture's text renders under 8 px or is cut off by the picture's edges" {
	need_chromium
	command -v dot > /dev/null || skip "graphviz not installed"
	local dir="$BATS_TEST_TMPDIR/pictures" page="$BATS_TEST_TMPDIR/pictures.html"
	gather_pictures "$dir"
	picture_page "$dir" "$page"
	verdict=$(chromium_run --window-size=1000,800 --dump-dom "file://$page" |
		perl -0ne 'print $1 if /<pre id="verdict">(.*?)<\/pre>/s')
	echo "$verdict"
	n=$(ls "$dir"/*.svg | wc -l)
	expect_eq "checked $n pictures" "$(printf '%s\n' "$verdict" | sed -n 's/^\(checked [0-9]* pictures\),.*/\1/p')" \
		"pictures the page checked"
	expect_eq 1 "$(printf '%s\n' "$verdict" | grep -c .)" "lines of the verdict (one: no problem)"
}
