#!/usr/bin/env bats
# tr-pag and tr-cp: a root's request is an entry with no sender (SnailTrail,
# Defs. 5-8, Eq. 3): no worker stands for the untraced clients.
load helper

tsv() { tr '|' '\t'; }

need_cp() { command -v tr-cp >/dev/null || skip "tr-cp is not built"; }

# CP of one summary row: window start, summary, key, detail.
cp_of() {
	awk -F'\t' -v s="$1" -v k="$2" -v d="$3" -v w="$4" \
		'$1 == w && $3 == s && $4 == k && $5 == d { print $6 }'
}

# The sum of one summary's CP in the window starting at w.
cp_sum() {
	awk -F'\t' -v s="$1" -v w="$2" '$1 == w && $3 == s { c += $6 } END { printf "%.6g\n", c }'
}

# One request: A [0,10] calls B [2,8]; an unrelated root E [3,6] runs inside it.
inside() {
	tsv <<'EOF' | mkfix inside.tr
#tr/1
T|t1
S|t1|a||0|10|A|handle|server|ha
S|t1|c|a|2|6|A|call|client|ha
S|t1|b|c|2|6|B|serve|server|hb
T|t2
S|t2|e||3|3|E|job|server|he
EOF
}

@test "tr-pag: no worker stands for the clients; a root's start is entered by no edge" {
	f=$(inside)
	run tr-pag -P "$f"
	expect_eq 0 "$status" status
	expect_lacks '(clients)' "$output"
	# the three lanes (A, B, E), no fourth
	expect_num 3 "$(grep -c '^PW' <<<"$output")"
	# E's start (vertex of its first edge) is no edge's end
	e0=$(awk -F'\t' '$1 == "PE" && $10 == "E" { print $3; exit }' <<<"$output")
	expect_num 0 "$(awk -F'\t' -v v="$e0" '$1 == "PE" && $4 == v' <<<"$output" | wc -l)"
}

@test "tr-cp: A calls B, an unrelated span runs inside: N = 1, the request's activities sum to 1" {
	need_cp
	f=$(inside)
	run sh -c "tr-pag -P '$f' | tr-cp"
	expect_eq 0 "$status" status
	expect_eq 1 "$(cp_of window paths 1 0 <<<"$output")"
	expect_eq 1 "$(cp_sum worker 0 <<<"$output")" "the workers' CP"
	expect_eq 0 "$(cp_of worker E@he '' 0 <<<"$output")"
	expect_eq 0.4 "$(cp_of worker A@ha '' 0 <<<"$output")"
	expect_eq 0.6 "$(cp_of worker B@hb '' 0 <<<"$output")"
	expect_eq 1 "$(cp_sum activity 0 <<<"$output")" "activities' CP"
}

@test "tr-cp: a window where nothing runs has no rows" {
	need_cp
	f=$(tsv <<'EOF' | mkfix gap.tr
#tr/1
T|t1
S|t1|r||0|10|svc|op|server|h
T|t2
S|t2|r||30|10|svc|op|server|h
EOF
)
	run sh -c "tr-pag -P --window 10us '$f' | tr-cp"
	expect_eq 0 "$status" status
	expect_eq "0 30 " "$(awk -F'\t' '$3 == "window" { printf "%s ", $1 }' <<<"$output")"
	expect_empty "$(awk -F'\t' '$1 == 10 || $1 == 20' <<<"$output")"
	expect_eq 1 "$(cp_of operation svc op 0 <<<"$output")"
	expect_eq 1 "$(cp_of operation svc op 30 <<<"$output")"
}

@test "tr-cp: separate requests in one window: the longest of them are its critical paths" {
	need_cp
	# x [1,4] and y [5,8] on different workers, nothing joins them:
	# two longest paths of 3 us, each half of the window's CP
	f=$(tsv <<'EOF' | mkfix apart.tr
#tr/1
T|t1
S|t1|x||1|3|X|jobx|server|h1
T|t2
S|t2|y||5|3|Y|joby|server|h2
T|t3
S|t3|z||6|1|Z|short|server|h3
EOF
)
	run sh -c "tr-pag -P --window 10us '$f' | tr-cp"
	expect_eq 0 "$status" status
	expect_eq 1 "$(cp_of window paths 2 0 <<<"$output")"
	expect_eq 0.5 "$(cp_of worker X@h1 '' 0 <<<"$output")"
	expect_eq 0.5 "$(cp_of worker Y@h2 '' 0 <<<"$output")"
	expect_eq 0 "$(cp_of worker Z@h3 '' 0 <<<"$output")"
}

@test "tr-cp: job after job at low concurrency ranks the services, not a source" {
	need_cp
	# every 100 ms a job: front [t, t+30ms] calls db [t+5ms, t+25ms]
	f=$(awk 'BEGIN {
		print "#tr/1"
		for (i = 0; i < 20; i++) {
			t = i * 100000
			printf "T\tj%d\n", i
			printf "S\tj%d\tf\t\t%d\t30000\tfront\tjob\tserver\thf\n", i, t
			printf "S\tj%d\tc\tf\t%d\t20000\tfront\tquery\tclient\thf\n", i, t + 5000
			printf "S\tj%d\td\tc\t%d\t20000\tdb\tquery\tserver\thd\n", i, t + 5000
		}
	}' | mkfix jobs.tr)
	run sh -c "tr-pag -P --window 1s '$f' | tr-cp"
	expect_eq 0 "$status" status
	ranked=$(awk -F'\t' '$1 == 0 && $3 == "worker" { printf "%s=%s ", $4, $6 }' <<<"$output")
	expect_eq "db@hd=0.666667 front@hf=0.333333 " "$ranked"
	# busy time: 10 jobs of 30 ms less their 20 ms calls in the window,
	# not the 0.93 s its lane lives
	expect_eq 100000 "$(awk -F'\t' '$1 == 0 && $3 == "worker" && $4 == "front@hf" { print $7 }' <<<"$output")"
}

@test "tr-pag: a root's start is no property-1 violation" {
	f=$(inside)
	run tr-pag -P "$f"
	expect_eq 0 "$status" status
	expect_lacks 'property 1' "$output"
}
