#!/usr/bin/env bats
# tr-pag builds the graph as the traces are read: a span is placed once no
# trace still to come can start before it, the records go out window by
# window, and what is written is forgotten. Whatever it holds, the graph is
# the same. Times in µs.
load helper
bats_require_minimum_version 1.5.0

tsv() { tr '|' '\t'; }

need_cp() { command -v tr-cp >/dev/null || skip "tr-cp is not built"; }

# 200 simulated requests over about 10 s, in the line format.
sim() {
	trsim --seed 3 --traces 200 | tr-ingest > "$BATS_TEST_TMPDIR/sim.tr"
	printf '%s\n' "$BATS_TEST_TMPDIR/sim.tr"
}

# n one-span traces, one a second from 0 (ids t0, t1, ...).
spaced() {
	awk -v n="$1" 'BEGIN { OFS = "\t"; print "#tr/1"
		for (i = 0; i < n; i++) { print "T", "t" i; print "S", "t" i, "s", "", i * 1000000, 100, "svc", "op", "server", "h" } }'
}

@test "the graph written as the input is read is the graph of the whole input: the same tr-cp answer" {
	need_cp
	f=$(sim)
	for w in "" "-w 100ms" "-w 1s"; do
		held=$(tr-pag -P -q $w --hold 0 "$f" | tr-cp)
		for args in "--hold 1" "--hold 1 --lateness 200ms" "--hold 2000"; do
			streamed=$(tr-pag -P -q $w $args "$f" | tr-cp)
			expect_eq "$held" "$streamed"
		done
	done
	# the same edges, numbered and ordered as they were made
	expect_num "$(tr-pag -P -q -w 1s --hold 0 "$f" | grep -c '^PE')" "$(tr-pag -P -q -w 1s --hold 1 "$f" | grep -c '^PE')"
	# held whole, the header has the end; streamed, it is left empty
	tr-pag -P -q --hold 0 "$f" | grep -q $'^PG\t\t0\t0\t[0-9]*\t[0-9]*$'
	tr-pag -P -q --hold 1 "$f" | grep -q $'^PG\t\t0\t0\t[0-9]*\t$'
	# streamed, records come out among the traces, not after the last one
	# (the 10 s of the input are more than twice the lateness and a gap)
	out=$(tr-pag -q -w 1s --hold 1 --lateness 1s "$f")
	first_pe=$(grep -n -m1 '^PE' <<<"$out" | cut -d: -f1)
	last_t=$(grep -n '^T' <<<"$out" | tail -1 | cut -d: -f1)
	expect_lt "$last_t" "$first_pe"
	# and every trace still passes through unchanged
	diff <(grep -v '^P' <<<"$out") "$f"
}

@test "the first window's records come out while the input is still being read" {
	f=$(sim)
	out="$BATS_TEST_TMPDIR/out.pag"
	half=$(( $(wc -l < "$f") / 2 ))
	# the rest of the input is sent only once records came out: a tool that
	# waited for the end of its input would wait for ever (timeout: 124)
	run timeout 60 sh -c "{ head -n $half '$f'; while ! grep -q '^PM' '$out' 2>/dev/null; do sleep 0.1; done; tail -n +$((half + 1)) '$f'; } |
		tr-pag -P -q -w 1s --hold 1 --lateness 1s > '$out'"
	expect_eq 0 "$status" status
	expect_ge 8 "$(grep -c '^PM' "$out")"
}

@test "a trace that starts before spans already placed is left out of the graph, passed through, exit 3" {
	f=$({ spaced 30; printf 'T\tlate\nS\tlate\tl\t\t500000\t100\tsvc\top\tserver\th\n'; } | mkfix late.tr)
	run --separate-stderr tr-pag --hold 1 --lateness 1s -w 1s "$f"
	expect_eq 3 "$status" status
	expect_like "*tr-pag: trace late: starts * us before spans already in the graph \(the input is not in start order\): left out of the graph; --lateness or --hold take it*" "$stderr"
	grep -q $'^T\tlate$' <<<"$output"
	expect_num 0 "$(grep -c $'^PE\t.*\tlate\tl$' <<<"$output")"
	expect_gt 0 "$(grep -c $'^PE\t.*\tt29\ts$' <<<"$output")"
	# held (an input smaller than --hold), any order will do
	run --separate-stderr tr-pag --lateness 1s -w 1s "$f"
	expect_eq 0 "$status" status
	expect_gt 0 "$(grep -c $'^PE\t.*\tlate\tl$' <<<"$output")"
	# a lateness that covers it takes it too
	run --separate-stderr tr-pag --hold 1 --lateness 40s -w 1s "$f"
	expect_eq 0 "$status" status
}

@test "an idle stretch longer than --max-gap is no part of a lane; a window where nothing runs has no rows" {
	need_cp
	f=$(tsv <<'EOF' | mkfix idle.tr
#tr/1
T|t1
S|t1|a||0|10|svc|op|server|h
T|t2
S|t2|b||3000000|10|svc|op|server|h
EOF
)
	run tr-pag -P -w 1s "$f"
	expect_eq 0 "$status" status
	# two roots, two runs of svc's lane, and nothing in between
	expect_num 2 "$(awk -F'\t' '$1 == "PE"' <<<"$output" | wc -l)"
	run sh -c "tr-pag -P -q -w 1s '$f' | tr-cp"
	expect_eq "0 3000000 " "$(awk -F'\t' '$3 == "window" { print $1 }' <<<"$output" | tr '\n' ' ')"
	# svc called twice by fe, 3 s apart: its lane ends after a and begins
	# again with b (whose request enters it)
	g=$(tsv <<'EOF' | mkfix called.tr
#tr/1
T|t1
S|t1|r||0|3000020|fe|GET|server|hf
S|t1|c1|r|0|10|fe|call|client|hf
S|t1|a|c1|0|10|svc|op|server|h
S|t1|c2|r|3000000|10|fe|call|client|hf
S|t1|b|c2|3000000|10|svc|op|server|h
EOF
)
	run tr-pag -P -w 1s "$g"
	expect_eq 0 "$status" status
	expect_num 2 "$(awk -F'\t' '$1 == "PE" && $8 == 1 && $9 == 1' <<<"$output" | wc -l)"
	# fe's request runs all along: every window has a path from its start
	# to its end
	run sh -c "tr-pag -P -q -w 1s '$g' | tr-cp"
	expect_num 4 "$(awk -F'\t' '$3 == "window"' <<<"$output" | wc -l)"
	expect_num 0 "$(awk -F'\t' '$3 == "window" && ($6 < 0.99999 || $6 > 1.00001)' <<<"$output" | wc -l)"
	# a longer --max-gap keeps the gap: b's request ends it, so it waits
	run tr-pag -P -w 1s --max-gap 5s "$g"
	output=$(pag_named <<<"$output")
	grep -q $'\twaiting\t10\t3000000\t1\t1\tsvc\top\tt1\tb$' <<<"$output"
}

@test "a reference to a span whose windows are written, or that no trace has, makes no edge, and says so" {
	f=$({ spaced 12; printf 'T\tc\nS\tc\tc\t\t12000000\t100\tq\tconsume\tconsumer\thq\nR\tc\tc\tfollows_from\tt0\ts\n'; } | mkfix refs.tr)
	run --separate-stderr tr-pag -P --hold 1 --lateness 1s -w 1s "$f"
	expect_eq 0 "$status" status
	expect_contains 'tr-pag: 1 references to spans the graph does not hold (not in the input, or written and forgotten: --lateness): no message edge' "$stderr"
	expect_num 0 "$(grep -c $'\tmessage\t' <<<"$output")"
	# held whole, the message is there
	run --separate-stderr tr-pag -P -w 1s "$f"
	output=$(pag_named <<<"$output")
	expect_eq 0 "$status" status
	expect_lacks 'references' "$stderr"
	grep -q $'\tmessage\t100\t12000000\t0\t[0-9]*\tq\tconsume\tc\tc$' <<<"$output"
	# and a reference within the lateness is one
	f=$({ spaced 12; printf 'T\tc\nS\tc\tc\t\t11000300\t100\tq\tconsume\tconsumer\thq\nR\tc\tc\tfollows_from\tt11\ts\n'; } | mkfix near.tr)
	run --separate-stderr tr-pag -P --hold 1 --lateness 1s -w 1s "$f"
	output=$(pag_named <<<"$output")
	grep -q $'\tmessage\t11000100\t11000300\t0\t[0-9]*\tq\tconsume\tc\tc$' <<<"$output"
	# a span no trace has
	f=$({ spaced 2; printf 'T\tc\nS\tc\tc\t\t3000000\t100\tq\tconsume\tconsumer\thq\nR\tc\tc\tfollows_from\tnone\ts\n'; } | mkfix none.tr)
	run --separate-stderr tr-pag -P -w 1s "$f"
	expect_eq 0 "$status" status
	expect_contains 'tr-pag: 1 references to spans the graph does not hold' "$stderr"
}

@test "bad --lateness, --max-gap and --hold are usage errors" {
	f=$(spaced 2 | mkfix two.tr)
	for o in "--lateness 0" "--lateness x" "--max-gap -1s" "--hold x"; do
		run --separate-stderr tr-pag $o "$f"
		expect_eq 2 "$status" status
		expect_empty "$output"
	done
}
