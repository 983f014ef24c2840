#!/usr/bin/env bats
# tr-cp reproduces Fig. 2 and Fig. 3 of the SnailTrail paper (Hoffmann et
# al., NSDI 2018, shared/papers/snailtrail-critical-participation.txt).
#
# The text rendering of the paper has the figures' captions and text but
# not their drawings, so each graph below is rebuilt by hand from what the
# text says of it, and the values the text gives are checked as it states
# them; every other value is derived by hand from the definitions, in the
# comments. One time unit of the figures (their vertical lines) is 10 µs.
#
# Definitions used (§3): a snapshot cuts every edge to the window [ts, te]
# (Def. 5, 6: a vertex outside it becomes a copy at ts or te); a transient
# critical path runs from the window's start to its end and uses no
# waiting edge (Def. 7, §4.1), so all have length te - ts; c(e) is the
# number of them through e, c1(src) * c2(dst) with c1 the paths from the
# start to a vertex and c2 those from a vertex to the end (Def. 8,
# Algorithm 2); CP_e = c(e) * w(e) / (N * (te - ts)) (Eq. 3), and the CP
# of a window sums to 1 (Eq. 5).
#
# tr-cp reports CP by summary (tr-cp(1)): every worker activity here has
# its own operation (service = worker, operation = the paper's "(x,y)"),
# so an operation row is that activity's CP; a communication activity is
# read from its channel, or from its type where two share a channel. N is
# the detail of the window row, te - ts its time_us; c(e) is recovered from
# a row as cp * N * (te - ts) / w(e).
load helper

# Fixtures are written with | for TAB.
tsv() { tr '|' '\t'; }

need_cp() { command -v tr-cp >/dev/null || skip "tr-cp is not built"; }

# CP of one summary row: summary, key, detail, window start.
cp_of() {
	awk -F'\t' -v s="$1" -v k="$2" -v d="$3" -v w="$4" \
		'$1 == w && $3 == s && $4 == k && $5 == d { print $6 }'
}

# N, the number of transient critical paths of the window starting at $1.
paths_of() {
	awk -F'\t' -v w="$1" '$1 == w && $3 == "window" && $4 == "paths" { print $5 }'
}

# c(e) of one summary row (summary, key, detail, window start), recovered
# from its CP by Eq. 3: c = CP * N * (te - ts) / w(e); 3 significant digits,
# so 5.99999 from a CP printed as 0.111111 reads 6.
c_of() {
	awk -F'\t' -v s="$1" -v k="$2" -v d="$3" -v w="$4" '
		$1 == w && $3 == "window" && $4 == "paths" { n = $5; t = $7 }
		$1 == w && $3 == s && $4 == k && $5 == d { printf "%.3g\n", $6 * n * t / $7 }'
}

# Fig. 2a: two workers, w1 and w2; the snapshot [ts, te] is 5 units long
# (te - ts = 5 in the text), here [100, 150] of windows of 50 µs. What the
# text fixes: (b,g) starts before ts and is cut to (b',g'); N = 6; (d',i')
# lies on 2 paths and (g',h') on all 6, each of weight 1 (CP 0.066 = 2/30
# and 0.2 = 6/30 with N * (te - ts) = 30). A graph that does all this:
#
#                     ts                  te
#   w1:   a-------b.............c-d-----------e
#                     \        /    \
#   w2:   f---------------g---h-------i-------j
#   µs    70      90      110     130     150
#
# (a dash is processing, dots a wait; the diagonals are (b,g), a request,
# (h,c), its response, and (d,i), a message)
#
# w1 calls w2 at b and waits for the response at c; w2 takes the request
# at g after its own work (f,g), answers at h; w1 then sends a message at d
# that w2 takes at i. (g,h) and (d,i) take 1 unit, as the CPs the text
# gives require; (h,c) and (c,d) half a unit each, so that g, h, c, d, i
# fit after ts + 1 and before te. In [100,150], b, f, e and j become copies b', f'
# (at 100), e', j' (at 150). Paths start at b' and f' (c1(g) = 2) and
# leave h either along w2 to i, j' or back to w1 by (h,c):
#   c2(i) = 1, c2(d) = 2 (to e' and by (d,i) to i), c2(h) = c2(i) + c2(c) = 3
#   N = c1(g) * c2(h) = 6; c(g,h) = 2 * 3 = 6; c(d,i) = c1(d) * c2(i) = 2 * 1 = 2
# The six: f'|b' -> g -> h -> i -> j', -> h -> c -> d -> e', -> h -> c -> d -> i -> j'.
fig2() {
	tsv <<'EOF' | mkfix fig2.pag
#tr/1
# Fig. 2a; vertices 1-5 a b c d e on w1, 6-10 f g h i j on w2
PG||50|0|70|160
PW||0|w1|0
PW||1|w2|0
PV||1|0|70|point
PV||2|0|90|point
PV||3|0|125|point
PV||4|0|130|point
PV||5|0|160|point
PV||6|1|70|point
PV||7|1|110|point
PV||8|1|120|point
PV||9|1|140|point
PV||10|1|160|point
PE||1|2|processing|70|90|0|0|w1|(a,b)
PE||2|3|waiting|90|125|0|0|w1|(b,c)
PE||3|4|processing|125|130|0|0|w1|(c,d)
PE||4|5|processing|130|160|0|0|w1|(d,e)
PE||6|7|processing|70|110|1|1|w2|(f,g)
PE||7|8|processing|110|120|1|1|w2|(g,h)
PE||8|9|processing|120|140|1|1|w2|(h,i)
PE||9|10|processing|140|160|1|1|w2|(i,j)
PE||2|7|request|90|110|0|1|w2|(b,g)
PE||8|3|response|120|125|1|0|w2|(h,c)
PE||4|9|message|130|140|0|1|w2|(d,i)
EOF
}

@test "Fig. 2: the snapshot [ts,te] has N = 6 transient critical paths; (d',i') is on 2 with CP 0.0667, (g',h') on all 6 with CP 0.2" {
	need_cp
	f=$(fig2)
	run tr-cp "$f"
	expect_eq 0 "$status" status
	expect_eq 6 "$(paths_of 100 <<<"$output")"
	# te - ts = 5 units
	expect_eq "50 50" "$(awk -F'\t' '$1 == 100 && $3 == "window" { print $2 - $1, $7 }' <<<"$output")"
	# (g',h'): c = 6, CP = 6 * 1 / (6 * 5) = 0.2
	expect_eq 0.2 "$(cp_of operation w2 '(g,h)' 100 <<<"$output")"
	expect_eq 6 "$(c_of operation w2 '(g,h)' 100 <<<"$output")"
	# (d',i'), the only message: c = 2, CP = 2 * 1 / 30 = 1/15 (the paper
	# prints 0.066, cut after three digits)
	expect_eq 0.0666667 "$(cp_of activity message '' 100 <<<"$output")"
	expect_eq 2 "$(c_of activity message '' 100 <<<"$output")"
}

# Every other activity of [100,150], by hand (c1 * c2, then c * w / 300 µs):
#   (b',g') request  10 µs  c = 1 * 3 = 3   CP 30/300  = 0.1
#   (f',g)           10 µs  c = 1 * 3 = 3   CP 0.1
#   (h,i)            20 µs  c = 2 * 1 = 2   CP 40/300  = 0.133333
#   (h,c) response    5 µs  c = 2 * 2 = 4   CP 20/300  = 0.0666667
#   (c,d)             5 µs  c = 2 * 2 = 4   CP 0.0666667
#   (d,e')           20 µs  c = 2 * 1 = 2   CP 0.133333
#   (i,j')           10 µs  c = 4 * 1 = 4   CP 40/300  = 0.133333  (c1(i) = c1(h) + c1(d))
#   (b',c) waiting   25 µs  on no path      CP 0
# Sum 300/300 = 1 (Eq. 5). Workers: w1 (c,d) + (d,e') = 0.2; w2 the rest of
# processing, 170/300 = 0.566667. Channel w1 -> w2: (b',g') + (d',i') = 0.166667.
@test "Fig. 2: (b,g) straddling ts is cut to (b',g'); every activity's CP as derived by hand; the window sums to 1" {
	need_cp
	f=$(fig2)
	run tr-cp "$f"
	expect_eq 0 "$status" status
	# Def. 5: (b,g) [90,110] keeps its 10 µs in the window, (f,g) [70,110] too
	expect_eq 10 "$(awk -F'\t' '$1 == 100 && $3 == "activity" && $4 == "request" { print $7 }' <<<"$output")"
	expect_eq 0.1 "$(cp_of activity request '' 100 <<<"$output")"
	expect_eq 10 "$(awk -F'\t' '$1 == 100 && $5 == "(f,g)" { print $7 }' <<<"$output")"
	expect_eq 0.1 "$(cp_of operation w2 '(f,g)' 100 <<<"$output")"
	expect_eq 0.133333 "$(cp_of operation w2 '(h,i)' 100 <<<"$output")"
	expect_eq 0.0666667 "$(cp_of activity response '' 100 <<<"$output")"
	expect_eq 0.0666667 "$(cp_of operation w1 '(c,d)' 100 <<<"$output")"
	expect_eq 0.133333 "$(cp_of operation w1 '(d,e)' 100 <<<"$output")"
	expect_eq 0.133333 "$(cp_of operation w2 '(i,j)' 100 <<<"$output")"
	expect_eq 0 "$(cp_of activity waiting '' 100 <<<"$output")"
	expect_eq 4 "$(c_of operation w2 '(i,j)' 100 <<<"$output")"
	expect_eq 4 "$(c_of activity response '' 100 <<<"$output")"
	expect_eq 3 "$(c_of activity request '' 100 <<<"$output")"
	expect_eq 0.2 "$(cp_of worker w1 '' 100 <<<"$output")"
	expect_eq 0.566667 "$(cp_of worker w2 '' 100 <<<"$output")"
	expect_eq 0.166667 "$(cp_of channel w1 w2 100 <<<"$output")"
	expect_eq 0.0666667 "$(cp_of channel w2 w1 100 <<<"$output")"
	expect_eq 1 "$(cp_of window paths 6 100 <<<"$output")"
	# the snapshot holds these nine activities and the wait, and no others
	expect_eq 10 "$(awk -F'\t' '$1 == 100 && $3 == "window" { print $8 }' <<<"$output")"
}

# Fig. 3: a snapshot with three workers; every path runs from a start s_i
# to an end e_i. What the text fixes: (a,b) and (c,d) take 3 units, longer
# than any other activity, and each is followed by a wait, so they are on
# no path (c = 0); (x,u), (u,v) and (v,z) are on 6, 9 and 6 paths and rank
# top three by CP; one path (red in the figure) takes (u,v) but neither
# (x,u) nor (v,z). A graph that does all this, every other activity 1 unit:
#
#   w1:   s1------a-----------------------b.......r1------e1
#                     \                       /
#   w2:   s2------p-------x-------u-------v-------z-------e2
#                             /                       \
#   w3:   s3------q-------c-----------------------d.......e3
#   µs    0       10      20      30      40      50      60
#
# (dashes are processing, dots a wait; the diagonals are messages (a,x),
# (c,u), (v,r1) and (z,e3))
#
# The waits end where a message comes in (Assumption 2). Paths from the
# starts: c1(x) = c1(p) + c1(a) = 2, c1(u) = c1(x) + c1(c) = 3 = c1(v) = c1(z).
# Paths to the ends: c2(z) = 2 (to e2, and to e3 by (z,e3)), c2(v) = c2(z) +
# c2(r1) = 3 = c2(u) = c2(x); c2(b) = c2(d) = 0 (only a wait leaves them).
#   N = c1(e1) + c1(e2) + c1(e3) = 3 + 3 + 3 = 9
#   c(x,u) = 2 * 3 = 6, c(u,v) = 3 * 3 = 9, c(v,z) = 3 * 2 = 6, c(a,b) = c(c,d) = 0
# The red path: s3 q c u v r1 e1.
fig3() {
	tsv <<'EOF' | mkfix fig3.pag
#tr/1
# Fig. 3; vertices 1-5 s1 a b r1 e1 on w1, 6-12 s2 p x u v z e2 on w2, 13-17 s3 q c d e3 on w3
PG||0|0|0|60
PW||0|w1|0
PW||1|w2|0
PW||2|w3|0
PV||1|0|0|point
PV||2|0|10|point
PV||3|0|40|point
PV||4|0|50|point
PV||5|0|60|point
PV||6|1|0|point
PV||7|1|10|point
PV||8|1|20|point
PV||9|1|30|point
PV||10|1|40|point
PV||11|1|50|point
PV||12|1|60|point
PV||13|2|0|point
PV||14|2|10|point
PV||15|2|20|point
PV||16|2|50|point
PV||17|2|60|point
PE||1|2|processing|0|10|0|0|w1|(s1,a)
PE||2|3|processing|10|40|0|0|w1|(a,b)
PE||3|4|waiting|40|50|0|0|w1|(b,r1)
PE||4|5|processing|50|60|0|0|w1|(r1,e1)
PE||6|7|processing|0|10|1|1|w2|(s2,p)
PE||7|8|processing|10|20|1|1|w2|(p,x)
PE||8|9|processing|20|30|1|1|w2|(x,u)
PE||9|10|processing|30|40|1|1|w2|(u,v)
PE||10|11|processing|40|50|1|1|w2|(v,z)
PE||11|12|processing|50|60|1|1|w2|(z,e2)
PE||13|14|processing|0|10|2|2|w3|(s3,q)
PE||14|15|processing|10|20|2|2|w3|(q,c)
PE||15|16|processing|20|50|2|2|w3|(c,d)
PE||16|17|waiting|50|60|2|2|w3|(d,e3)
PE||2|8|message|10|20|0|1|w2|(a,x)
PE||15|9|message|20|30|2|1|w2|(c,u)
PE||10|4|message|40|50|1|0|w1|(v,r1)
PE||11|17|message|50|60|1|2|w3|(z,e3)
EOF
}

@test "Fig. 3: (x,u), (u,v), (v,z) lie on 6, 9, 6 transient critical paths, (a,b) and (c,d) on none (N = 9)" {
	need_cp
	f=$(fig3)
	run tr-cp "$f"
	expect_eq 0 "$status" status
	expect_eq 9 "$(paths_of 0 <<<"$output")"
	expect_eq 6 "$(c_of operation w2 '(x,u)' 0 <<<"$output")"
	expect_eq 9 "$(c_of operation w2 '(u,v)' 0 <<<"$output")"
	expect_eq 6 "$(c_of operation w2 '(v,z)' 0 <<<"$output")"
	expect_eq 0 "$(c_of operation w1 '(a,b)' 0 <<<"$output")"
	expect_eq 0 "$(c_of operation w3 '(c,d)' 0 <<<"$output")"
	# the same as CP, c * 1 unit / (9 paths * 6 units)
	expect_eq 0.111111 "$(cp_of operation w2 '(x,u)' 0 <<<"$output")"
	expect_eq 0.166667 "$(cp_of operation w2 '(u,v)' 0 <<<"$output")"
	expect_eq 0.111111 "$(cp_of operation w2 '(v,z)' 0 <<<"$output")"
	expect_eq 0 "$(cp_of operation w1 '(a,b)' 0 <<<"$output")"
	expect_eq 0 "$(cp_of operation w3 '(c,d)' 0 <<<"$output")"
}

# Every other activity, by hand: each is 1 unit on c1 * c2 = 3 paths
# ((s1,a) 1 * 3, (a,x) 1 * 3, (s2,p) 1 * 3, (p,x) 1 * 3, (s3,q) 1 * 3,
# (q,c) 1 * 3, (c,u) 1 * 3, (v,r1) 3 * 1, (r1,e1) 3 * 1, (z,e2) 3 * 1,
# (z,e3) 3 * 1): CP 3/54 = 0.0555556 each; 11 * 3 + 6 + 9 + 6 = 54, so the
# window sums to 1. Workers: w2 (3+3+6+9+6+3)/54 = 0.555556, w1 and w3
# 6/54 = 0.111111 each, though all three process 5 or 6 units of 6.
@test "Fig. 3: CP ranks (u,v), (x,u), (v,z) top three where conventional profiling ranks (a,b) and (c,d) first; every activity's CP as derived by hand" {
	need_cp
	f=$(fig3)
	run tr-cp "$f"
	expect_eq 0 "$status" status
	# operation rows come by CP, highest first: (u,v), then (v,z) and (x,u)
	top=$(awk -F'\t' '$3 == "operation" { print $5 }' <<<"$output" | head -3 | tr '\n' ' ')
	expect_eq "(u,v) (v,z) (x,u) " "$top"
	expect_num 0 "$(awk -F'\t' '$3 == "operation" && $5 != "(u,v)" && $5 != "(x,u)" && $5 != "(v,z)" && $6 >= 0.111111' <<<"$output" | wc -l)"
	# by duration (conventional profiling) (a,b) and (c,d) come first, 3 units each
	conv=$(awk -F'\t' '$3 == "operation" { print $7, $5 }' <<<"$output" | LC_ALL=C sort -k1,1nr -k2 | head -3 | tr '\n' ' ')
	expect_eq "30 (a,b) 30 (c,d) 10 (p,x) " "$conv"
	for op in '(s2,p)' '(p,x)' '(z,e2)'; do
		expect_eq 0.0555556 "$(cp_of operation w2 "$op" 0 <<<"$output")"
	done
	for op in '(s1,a)' '(r1,e1)'; do
		expect_eq 0.0555556 "$(cp_of operation w1 "$op" 0 <<<"$output")"
	done
	for op in '(s3,q)' '(q,c)'; do
		expect_eq 0.0555556 "$(cp_of operation w3 "$op" 0 <<<"$output")"
	done
	expect_eq 0.0555556 "$(cp_of channel w1 w2 0 <<<"$output")"
	expect_eq 0.0555556 "$(cp_of channel w3 w2 0 <<<"$output")"
	expect_eq 0.0555556 "$(cp_of channel w2 w1 0 <<<"$output")"
	expect_eq 0.0555556 "$(cp_of channel w2 w3 0 <<<"$output")"
	expect_eq 0 "$(cp_of activity waiting '' 0 <<<"$output")"
	expect_eq 0.555556 "$(cp_of worker w2 '' 0 <<<"$output")"
	expect_eq 0.111111 "$(cp_of worker w1 '' 0 <<<"$output")"
	expect_eq 0.111111 "$(cp_of worker w3 '' 0 <<<"$output")"
	expect_eq 1 "$(cp_of window paths 9 0 <<<"$output")"
}

# Appendix A.2: without Property 1 (every vertex after the start has an
# incoming edge a path can use) and Property 2 (never do all workers wait
# while no message is in flight) transient critical paths are ill-defined;
# tr-pag checks both when it reads PAG records back.
@test "Figs. 2 and 3 as written satisfy the paper's Properties 1 and 2: tr-pag reads them back without a warning" {
	for f in "$(fig2)" "$(fig3)"; do
		run tr-pag -P "$f"
		expect_eq 0 "$status" status
		expect_lacks 'property' "$output"
		expect_num "$(grep -c '^PE' "$f")" "$(grep -c '^PE' <<<"$output")"
	done
}
