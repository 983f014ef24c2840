# eval/report.awk - eval/RESULTS.md from the lines of eval/case.sh:
#   ID SYSTEM FAULT VARIANT TARGET EXPECTED NAMED TOP1 TOP3
function pct(a, b) { return b ? sprintf("%d %%", int(100 * a / b + 0.5)) : "-" }
function cell(k) { return k in n ? sprintf("%d/%d, %d/%d", t1[k], n[k], t3[k], n[k]) : "" }
function add(k) { n[k]++; t1[k] += $8; t3[k] += $9 }
BEGIN {
	nf = split("delay cpu slow down error throw", F, " ")
	nv = split("plain nokinds wrapper nostatus", V, " ")
	ns = split("hotrod shop", S, " ")
	KIND["delay"] = KIND["cpu"] = KIND["slow"] = KIND["down"] = "resource"
	KIND["error"] = KIND["throw"] = "code"
}
{
	add($3 SUBSEP $4); add($3); add($4); add($2 SUBSEP $3); add("all")
	if (!$8)
		miss[++nm] = sprintf("| %s | %s | %s |", $1, $6, $7)
}
END {
	print "# Fault-injection suite: results"
	print ""
	printf "`make eval` ran %d cases: `tr-cp -q --suspects --baseline BASE -f tsv INCIDENT` on\n", n["all"]
	print "traces of `trsim --system hotrod|shop --inject FAULT:SERVICE` (see eval/README.md)."
	print "A case is right at top-1 when the first service named is the one the fault"
	print "was injected into, at top-3 when it is among the first three. Without status"
	print "(`nostatus`) an error or throw leaves no evidence, and only naming no one"
	print "(the header alone) is right."
	print ""
	printf "Overall: top-1 %d/%d (%s), top-3 %d/%d (%s).\n", t1["all"], n["all"], pct(t1["all"], n["all"]),
		t3["all"], n["all"], pct(t3["all"], n["all"])
	print ""
	print "## Top-1 and top-3 by fault type and variant"
	print ""
	print "Each cell: top-1 right/cases, top-3 right/cases."
	print ""
	printf "| fault | kind |"; for (j = 1; j <= nv; j++) printf " %s |", V[j]; print " all |"
	printf "|---|---|"; for (j = 1; j <= nv; j++) printf "---|"; print "---|"
	for (i = 1; i <= nf; i++) {
		printf "| %s | %s |", F[i], KIND[F[i]]
		for (j = 1; j <= nv; j++) printf " %s |", cell(F[i] SUBSEP V[j])
		print " " cell(F[i]) " |"
	}
	printf "| all | |"; for (j = 1; j <= nv; j++) printf " %s |", cell(V[j]); print " " cell("all") " |"
	print ""
	print "## Top-1 by system"
	print ""
	printf "| fault |"; for (s = 1; s <= ns; s++) printf " %s |", S[s]; print ""
	printf "|---|"; for (s = 1; s <= ns; s++) printf "---|"; print ""
	for (i = 1; i <= nf; i++) {
		printf "| %s |", F[i]
		for (s = 1; s <= ns; s++) printf " %s |", cell(S[s] SUBSEP F[i])
		print ""
	}
	print ""
	print "## Acceptance"
	print ""
	print "| check | cells below 90 % top-1 |"
	print "|---|---|"
	for (i = 1; i <= nf; i++)
		for (j = 1; j <= nv; j++) {
			k = F[i] SUBSEP V[j]
			if (KIND[F[i]] == "code" && V[j] == "nostatus")
				silent = silent sprintf(" %s %s", F[i], pct(t1[k], n[k]))
			else if (t1[k] < 0.9 * n[k])
				low[KIND[F[i]]] = low[KIND[F[i]]] sprintf(" %s/%s %s;", F[i], V[j], pct(t1[k], n[k]))
		}
	printf "| resource faults (delay, cpu, slow, down), every variant | %s |\n", "resource" in low ? low["resource"] : "none"
	printf "| code faults (error, throw) with status | %s |\n", "code" in low ? low["code"] : "none"
	printf "| code faults without status: nothing named |%s |\n", silent
	print ""
	print "## Misses (top-1)"
	print ""
	if (!nm) { print "None."; exit }
	print "| case (system-fault-target-variant) | truth | named (first three) |"
	print "|---|---|---|"
	for (m = 1; m <= nm; m++) print miss[m]
}
