#!/usr/bin/env bats
# Every tr-cp partial is checked whole before anything is merged: an empty
# file, a partial cut at a line boundary (no end mark), one made for
# another query, rules or options, and one of another format version are
# bad input (exit 3, "tr-cp: file:line: what", nothing written), for each
# kind: --summary, --whatif, --flame, --flame --percentile's phase 1, bands
# and phase 2, --summary --baseline's phase 1, bands and phase 2, and
# --flame --baseline, and --flame --percentile --baseline's phase 1, bands
# and phase 2.
load helper
bats_require_minimum_version 1.5.0

RULE='service=db:scale=0.5'

# Two shards by trace of three requests, in $d.
setup() {
	d=$BATS_TEST_TMPDIR
	printf '%s\n' '#tr/1' \
		'T	r1' 'S	r1	a		0	900	web	GET /a	server	h' 'S	r1	b	a	100	500	db	query	client	h' \
		'T	r2' 'S	r2	a		0	300	web	GET /b	server	h' 'S	r2	b	a	50	200	db	query	client	h' > "$d/s0.tr"
	printf '%s\n' '#tr/1' \
		'T	r3' 'S	r3	a		0	1000	web	GET /a	server	h' 'S	r3	b	a	10	900	db	query	client	h' > "$d/s1.tr"
}

# kind KIND: $d/good, a whole partial of KIND; $d/other, one of the same
# kind made for something else; use, the command that reads a partial
# (the file goes last).
kind() {
	local made other
	case $1 in
	summary) made=(--summary service --partial) other=(--summary operation --partial)
		use=(--summary service --merge) ;;
	whatif) made=(--whatif "$RULE" --partial) other=(--whatif 'service=db:scale=0.6' --partial)
		use=(--whatif "$RULE" --merge) ;;
	flame) made=(--flame --partial) other=(--flame --overlap-allowance 0.2 --partial)
		use=(--flame --merge) ;;
	flame-ranks) made=(--flame --percentile 50 --partial) other=(--flame --percentile 50 --keep-streams --partial)
		use=(--flame --percentile 50 --merge --ranks) ;;
	flame-bands | flame-phase2)
		tr-cp --flame --percentile 50 --partial "$d/s0.tr" > "$d/r0"
		tr-cp --flame --percentile 50 --merge --ranks "$d/r0" > "$d/bands"
		tr-cp --flame --percentile 99 --merge --ranks "$d/r0" > "$d/bands99"
		if [ "$1" = flame-bands ]; then
			cp "$d/bands" "$d/good"; cp "$d/bands99" "$d/other"
			use=(--flame --percentile 50 --partial "$d/s0.tr" --bands)
			return
		fi
		made=(--flame --percentile 50 --bands "$d/bands" --partial)
		other=(--flame --percentile 99 --bands "$d/bands99" --partial)
		use=(--flame --percentile 50 --merge) ;;
	flame-baseline) made=(--flame --baseline "$d/s0.tr" --partial)
		other=(--flame --baseline "$d/s0.tr" --overlap-allowance 0.2 --partial)
		use=(--flame --baseline - --merge) ;;
	pbase-ranks) made=(--flame --percentile 50 --baseline "$d/s0.tr" --partial)
		other=(--flame --percentile 50 --keep-streams --baseline "$d/s0.tr" --partial)
		use=(--flame --percentile 50 --baseline - --merge --ranks) ;;
	pbase-bands | pbase-phase2)
		tr-cp --flame --percentile 50 --baseline "$d/s0.tr" --partial "$d/s0.tr" > "$d/r0"
		tr-cp --flame --percentile 50 --baseline - --merge --ranks "$d/r0" > "$d/bands"
		tr-cp --flame --percentile 99 --baseline - --merge --ranks "$d/r0" > "$d/bands99"
		if [ "$1" = pbase-bands ]; then
			cp "$d/bands" "$d/good"; cp "$d/bands99" "$d/other"
			use=(--flame --percentile 50 --baseline "$d/s0.tr" --partial "$d/s0.tr" --bands)
			return
		fi
		made=(--flame --percentile 50 --baseline "$d/s0.tr" --bands "$d/bands" --partial)
		other=(--flame --percentile 99 --baseline "$d/s0.tr" --bands "$d/bands99" --partial)
		use=(--flame --percentile 50 --baseline - --merge) ;;
	baseline-ranks) made=(--summary service --baseline "$d/s0.tr" --partial)
		other=(--summary operation --baseline "$d/s0.tr" --partial)
		use=(--summary service --baseline - --merge --ranks) ;;
	baseline-bands | baseline-phase2)
		tr-cp --summary service --baseline "$d/s0.tr" --partial "$d/s0.tr" > "$d/r0"
		tr-cp --summary service --baseline - --merge --ranks "$d/r0" > "$d/bands"
		tr-cp --summary operation --baseline "$d/s0.tr" --partial "$d/s0.tr" > "$d/r0op"
		tr-cp --summary operation --baseline - --merge --ranks "$d/r0op" > "$d/bandsop"
		if [ "$1" = baseline-bands ]; then
			cp "$d/bands" "$d/good"; cp "$d/bandsop" "$d/other"
			use=(--summary service --baseline "$d/s0.tr" --partial "$d/s0.tr" --bands)
			return
		fi
		made=(--summary service --baseline "$d/s0.tr" --bands "$d/bands" --partial)
		other=(--summary operation --baseline "$d/s0.tr" --bands "$d/bandsop" --partial)
		use=(--summary service --baseline - --merge) ;;
	esac
	tr-cp "${made[@]}" "$d/s0.tr" > "$d/good"
	tr-cp "${other[@]}" "$d/s0.tr" > "$d/other"
}

# refused KIND FILE WHERE: reading FILE as a partial of KIND fails at
# FILE:WHERE, exit 3, nothing written.
refused() {
	run --separate-stderr tr-cp "${use[@]}" "$d/$1"
	expect_status 3
	expect_empty "$output"
	expect_eq "tr-cp: $d/$1:$2" "$stderr"
}

empty() {
	kind "$1"
	: > "$d/empty"
	refused empty "1: an empty file, not a partial"
}

cut_short() {
	kind "$1"
	head -n -1 "$d/good" > "$d/cut"
	refused cut "$(($(wc -l < "$d/cut") + 1)): the partial has no end mark: it was cut short"
}

made_for_else() {
	kind "$1"
	refused other "1: a partial made for something else (another query, other options)"
}

other_version() {
	kind "$1"
	sed '1s|-partial/2|-partial/1|' "$d/good" > "$d/v1"
	refused v1 "1: a partial of format 1, this tr-cp merges format 2: make it again"
}

@test "the partials are whole: each kind merges as made" {
	for k in summary whatif flame flame-ranks flame-bands flame-phase2 baseline-ranks baseline-bands baseline-phase2 flame-baseline pbase-ranks pbase-bands pbase-phase2; do
		kind $k
		run tr-cp "${use[@]}" "$d/good"
		expect_status 0 || { echo "$k: $output"; false; }
	done
}

@test "--summary: an empty partial is bad input" { empty summary; }
@test "--summary: a partial cut short is bad input" { cut_short summary; }
@test "--summary: a partial of another key is bad input" { made_for_else summary; }
@test "--summary: a partial of another version is bad input" { other_version summary; }
@test "--whatif: an empty partial is bad input" { empty whatif; }
@test "--whatif: a partial cut short is bad input" { cut_short whatif; }
@test "--whatif: a partial of other rules is bad input" { made_for_else whatif; }
@test "--whatif: a partial of another version is bad input" { other_version whatif; }
@test "--flame: an empty partial is bad input" { empty flame; }
@test "--flame: a partial cut short is bad input" { cut_short flame; }
@test "--flame: a partial of another overlap allowance is bad input" { made_for_else flame; }
@test "--flame: a partial of another version is bad input" { other_version flame; }
@test "--flame --percentile phase 1: an empty partial is bad input" { empty flame-ranks; }
@test "--flame --percentile phase 1: a partial cut short is bad input" { cut_short flame-ranks; }
@test "--flame --percentile phase 1: a partial of other options is bad input" { made_for_else flame-ranks; }
@test "--flame --percentile phase 1: a partial of another version is bad input" { other_version flame-ranks; }
@test "--flame --percentile --bands: an empty bands file is bad input" { empty flame-bands; }
@test "--flame --percentile --bands: a bands file cut short is bad input" { cut_short flame-bands; }
@test "--flame --percentile --bands: bands of other percentiles are bad input" { made_for_else flame-bands; }
@test "--flame --percentile --bands: bands of another version are bad input" { other_version flame-bands; }
@test "--flame --percentile phase 2: an empty partial is bad input" { empty flame-phase2; }
@test "--flame --percentile phase 2: a partial cut short is bad input" { cut_short flame-phase2; }
@test "--flame --percentile phase 2: a partial of other percentiles is bad input" { made_for_else flame-phase2; }
@test "--flame --percentile phase 2: a partial of another version is bad input" { other_version flame-phase2; }
@test "--baseline phase 1: an empty partial is bad input" { empty baseline-ranks; }
@test "--baseline phase 1: a partial cut short is bad input" { cut_short baseline-ranks; }
@test "--baseline phase 1: a partial of another key is bad input" { made_for_else baseline-ranks; }
@test "--baseline phase 1: a partial of another version is bad input" { other_version baseline-ranks; }
@test "--baseline --bands: an empty bands file is bad input" { empty baseline-bands; }
@test "--baseline --bands: a bands file cut short is bad input" { cut_short baseline-bands; }
@test "--baseline --bands: bands of another key are bad input" { made_for_else baseline-bands; }
@test "--baseline --bands: bands of another version are bad input" { other_version baseline-bands; }
@test "--baseline phase 2: an empty partial is bad input" { empty baseline-phase2; }
@test "--baseline phase 2: a partial cut short is bad input" { cut_short baseline-phase2; }
@test "--baseline phase 2: a partial of another key is bad input" { made_for_else baseline-phase2; }
@test "--baseline phase 2: a partial of another version is bad input" { other_version baseline-phase2; }
@test "--flame --baseline: an empty partial is bad input" { empty flame-baseline; }
@test "--flame --baseline: a partial cut short is bad input" { cut_short flame-baseline; }
@test "--flame --baseline: a partial of another overlap allowance is bad input" { made_for_else flame-baseline; }
@test "--flame --baseline: a partial of another version is bad input" { other_version flame-baseline; }
@test "--flame --percentile --baseline phase 1: an empty partial is bad input" { empty pbase-ranks; }
@test "--flame --percentile --baseline phase 1: a partial cut short is bad input" { cut_short pbase-ranks; }
@test "--flame --percentile --baseline phase 1: a partial of other options is bad input" { made_for_else pbase-ranks; }
@test "--flame --percentile --baseline phase 1: a partial of another version is bad input" { other_version pbase-ranks; }
@test "--flame --percentile --baseline --bands: an empty bands file is bad input" { empty pbase-bands; }
@test "--flame --percentile --baseline --bands: a bands file cut short is bad input" { cut_short pbase-bands; }
@test "--flame --percentile --baseline --bands: bands of other percentiles are bad input" { made_for_else pbase-bands; }
@test "--flame --percentile --baseline --bands: bands of another version are bad input" { other_version pbase-bands; }
@test "--flame --percentile --baseline phase 2: an empty partial is bad input" { empty pbase-phase2; }
@test "--flame --percentile --baseline phase 2: a partial cut short is bad input" { cut_short pbase-phase2; }
@test "--flame --percentile --baseline phase 2: a partial of other percentiles is bad input" { made_for_else pbase-phase2; }
@test "--flame --percentile --baseline phase 2: a partial of another version is bad input" { other_version pbase-phase2; }

@test "--flame --percentile --baseline: phase 1's partials and bands without their sides, or with them where none are wanted, are bad input" {
	tr-cp --flame --percentile 50 --partial "$d/s0.tr" > "$d/plain"
	tr-cp --flame --percentile 50 --baseline "$d/s0.tr" --partial "$d/s1.tr" > "$d/sides"
	tr-cp --flame --percentile 50 --merge --ranks "$d/plain" > "$d/plainbands"
	tr-cp --flame --percentile 50 --baseline - --merge --ranks "$d/sides" > "$d/sidebands"
	while IFS='|' read -r args file; do
		run --separate-stderr tr-cp $args "$d/$file"
		expect_status 3 || { echo "$args $file: status $status"; false; }
		expect_empty "$output"
		expect_eq "tr-cp: $d/$file:1: a partial made for something else (another query, other options)" "$stderr"
	done <<-EOF
	--flame --percentile 50 --baseline - --merge --ranks|plain
	--flame --percentile 50 --merge --ranks|sides
	--flame --percentile 50 --baseline $d/s0.tr --partial $d/s1.tr --bands|plainbands
	--flame --percentile 50 --partial $d/s1.tr --bands|sidebands
	EOF
	sed '2s/^L\t1\t/L\t2\t/' "$d/sides" > "$d/side2"
	run --separate-stderr tr-cp --flame --percentile 50 --baseline - --merge --ranks "$d/side2"
	expect_status 3
	expect_eq "tr-cp: $d/side2:2: not a tr-cp --flame --percentile --baseline phase-1 record (want L, 0 or 1, a latency, 0 or 1 and a trace id)" "$stderr"
	sed '2s/^B\t1\t/B\t/' "$d/sidebands" > "$d/noside"
	run --separate-stderr tr-cp --flame --percentile 50 --baseline "$d/s0.tr" --partial "$d/s1.tr" --bands "$d/noside"
	expect_status 3
	expect_empty "$output"
	expect_eq "tr-cp: $d/noside:2: not a tr-cp --flame --baseline bands record (want B, 0 or 1, a trace id and its bands)" "$stderr"
}

@test "--flame --baseline: a partial without its baseline, or merged without one, is bad input" {
	kind flame-baseline
	tr-cp --flame --partial "$d/s0.tr" > "$d/plain"
	refused plain "1: a partial made for something else (another query, other options)"
	run --separate-stderr tr-cp --flame --merge "$d/good"
	expect_status 3
	expect_empty "$output"
	expect_eq "tr-cp: $d/good:1: a partial made for something else (another query, other options)" "$stderr"
}

@test "--flame --baseline: a partial with the sides mixed up (the incident's tree first) is bad input" {
	kind flame-baseline
	{ head -n 1 "$d/good"; sed -n '/^T\t0/,/^#end/p' "$d/good" | grep -v '^#end'
	  sed -n '/^T\t1/,/^T\t0/p' "$d/good" | grep -v '^T.0'; tail -n 1 "$d/good"; } > "$d/mixed"
	expect_eq "$(sort "$d/good")" "$(sort "$d/mixed")"
	refused mixed "2: the sides mixed up (want T 1, the baseline's tree, then T 0, the incident's, in each partial)"
}

@test "--flame --baseline: a partial holding the baseline's tree only is bad input, at the next partial or at the end" {
	kind flame-baseline
	{ sed '/^T\t0/,$d' "$d/good"; echo "#end	$(($(sed '/^T\t0/,$d' "$d/good" | wc -l) - 1))"; } > "$d/half"
	run --separate-stderr tr-cp "${use[@]}" "$d/half" "$d/good"
	expect_status 3
	expect_empty "$output"
	expect_eq "tr-cp: $d/good:2: the sides mixed up (want T 1, the baseline's tree, then T 0, the incident's, in each partial)" "$stderr"
	run --separate-stderr tr-cp "${use[@]}" "$d/good" "$d/half"
	expect_status 3
	expect_empty "$output"
	expect_eq "tr-cp: --flame --baseline --merge: the last partial holds the baseline's tree and not the incident's: it is not a whole partial" "$stderr"
}

@test "--folded has no frame to check: its partial is the folded text, a line cut within is refused" {
	tr-cp --folded "$d/s0.tr" > "$d/f0"
	printf 'web:GET /a;db:query' > "$d/cut"
	run --separate-stderr tr-cp --folded --merge "$d/f0" "$d/cut"
	expect_status 3
	expect_empty "$output"
	expect_eq "tr-cp: $d/cut:1: bad value after the stack (want a count of µs above 0)" "$stderr"
}
