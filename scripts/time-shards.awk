# time-shards.awk: cut a line-format file into N shards by trace start time,
# for tr-pag --own: shard K owns the windows from FROM to TO (window-aligned,
# origin 0, written to PREFIX K.own as "FROM,TO") and holds every trace that
# starts from FROM - HALO to TO + HALO (µs); a trace's start is its earliest
# span's. Lines before the first trace go to every shard. Used by
# scripts/check-scale.sh and tests/pag_shards.bats.
# usage: awk -F'\t' -v n=N -v window=W -v halo=H -v prefix=P -f time-shards.awk FILE FILE
BEGIN { OFS = "\t" }
FNR == 1 { pass++ }
pass == 1 && $1 == "S" && $5 != "" {
	if (!($2 in start) || $5 + 0 < start[$2]) start[$2] = $5 + 0
	if (lo == "" || $5 + 0 < lo) lo = $5 + 0
	if (hi == "" || $5 + 0 > hi) hi = $5 + 0
	next
}
pass == 1 { next }
FNR == 1 {	# the own ranges: n runs of whole windows over the starts
	from = lo - lo % window
	step = int((hi - from) / n / window + 1) * window
	for (k = 0; k < n; k++) {
		a[k] = from + k * step
		b[k] = a[k] + step
		printf "%.0f,%.0f\n", a[k], b[k] > (prefix k ".own")
		print "#tr/1" > (prefix k ".tr")
	}
}
$0 == "#tr/1" { next }
{
	if (!($2 in start)) next
	t = start[$2]
	for (k = 0; k < n; k++)
		if (t >= a[k] - halo && t < b[k] + halo)
			print > (prefix k ".tr")
}
