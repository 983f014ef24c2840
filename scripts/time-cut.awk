# time-cut.awk: cut a line-format file into N files by time, as an exporter
# that writes one file per time window does: a span goes to the window its
# start falls in, a log or reference record with its span, so that a trace
# that runs across a cut is in two files. Every file gets a T record when a
# trace's run of records in it starts. Used by scripts/check-scale.sh.
# usage: awk -F'\t' -v n=N -v prefix=P -f time-cut.awk FILE FILE
BEGIN { OFS = "\t" }
FNR == 1 { pass++ }
pass == 1 && $1 == "S" && $5 != "" {
	if (lo == "" || $5 + 0 < lo) lo = $5 + 0
	if (hi == "" || $5 + 0 > hi) hi = $5 + 0
	start[$2 SUBSEP $3] = $5 + 0
	next
}
pass == 1 { next }
/^#/ || $1 == "T" { next }
{
	k = $2 SUBSEP $3
	w = (k in start) ? int((start[k] - lo) * n / (hi - lo + 1)) : 0
	f = prefix w ".tr"
	if (!(f in begun)) { print "#tr/1" > f; begun[f] = 1 }
	if (last[f] != $2) { print "T", $2 > f; last[f] = $2 }
	print > f
}
