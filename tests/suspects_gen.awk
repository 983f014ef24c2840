# Hand-made incidents for tr-cp --suspects (tests/suspects.bats): n traces
# of one small system, in the line format, with a fault switched on by a
# variable. Times in µs, each work and gap drawn within ±10 % of its mean.
#
#   G  GET /       the gateway: calls A, then X
#   A  a           calls B, C and D        X  x   calls B (and N: newsvc)
#
# Variables (all optional): seed, n (traces), kinds (1: record span kinds),
# wrapper (1: G writes a childless handler span beside its call to X),
# net_b (ms added to the request and reply gaps of every call into B),
# starve_a (A's own work times this), starve_gap (ms added to the gaps of
# A's calls), x_slow (ms added to X's own work), loss (share of spans
# lost), newsvc (1: X also calls N, a service of newsvc_ms), unreach (share
# of traces whose call from A to D fails with no server span).
function jitter(ms) { return int(ms * 1000 * (0.9 + 0.2 * rand())) }
function emit(id, parent, start, dur, svc, op, kind, tags) {
	if (loss > 0 && rand() < loss)
		return
	printf "S\t%s\t%s\t%s\t%.0f\t%.0f\t%s\t%s\t%s\t%s%s\n", tid, id, parent, start, dur, svc, op,
		kinds ? kind : "", svc "-host", tags
}
# A call from caller (span cspan) to callee: the client span, the server
# span with work ms of its own, and the gaps; returns the call's end.
function call(cspan, caller, callee, at, work, gap,    cid, sid, g1, g2, w, end) {
	cid = cspan "." callee "c"; sid = cspan "." callee "s"
	g1 = jitter(gap / 2); g2 = jitter(gap / 2); w = jitter(work)
	end = at + g1 + w + g2
	emit(cid, cspan, at, end - at, caller, "call " callee, "client", "")
	emit(sid, cid, at + g1, w, callee, "serve " callee, "server", "")
	return end
}
function trace(i,    t, a0, a1, at, gA, gx, gb, aend, xend, xs, xid, wend, nid) {
	tid = sprintf("t%05d", i)
	t = 1767225600000000 + i * 1000000
	print "T\t" tid
	gA = 1 + starve_gap; gb = 1 + 2 * net_b
	# A's server span: its own work, then its three calls, then more work
	a0 = t + 1000 + jitter(1 / 2)
	at = a0 + jitter(2 * starve_a)
	at = call("A", "A", "B", at, 5, (1 + starve_gap) + 2 * net_b)
	at = call("A", "A", "C", at, 4, 1 + starve_gap)
	if (unreach > 0 && rand() < unreach) {
		emit("A.Dc", "A", at, jitter(1), "A", "call D", "client", "\terror=true")
		at += jitter(1)
	} else
		at = call("A", "A", "D", at, 3, 1 + starve_gap)
	aend = at + jitter(2 * starve_a)
	emit("Gc", "G", t + 1000, aend + 500 - (t + 1000), "G", "call A", "client", "")
	emit("A", "Gc", a0, aend - a0, "A", "serve A", "server", "")
	# X's server span: its own work, its call into B, N when new
	xs = aend + 1000
	xid = "X"
	at = xs + jitter(3 + x_slow)
	at = call(xid, "X", "B", at, 5, 1 + 2 * net_b)
	if (newsvc)
		at = call(xid, "X", "N", at, newsvc_ms, 1)
	xend = at + jitter(1)
	wend = xend + 400
	emit("Gx", "G", xs - 400, wend - (xs - 400), "G", "call X", "client", "")
	emit(xid, "Gx", xs, xend - xs, "X", "serve X", "server", "")
	if (wrapper)
		emit("Gw", "G", xs - 600, wend - 50 - (xs - 600), "G", "handler", "internal", "")
	emit("G", "", t, wend + 500 - t, "G", "GET /", "server", "")
}
BEGIN {
	srand(seed ? seed : 1)
	if (!n) n = 60
	if (!starve_a) starve_a = 1
	if (!newsvc_ms) newsvc_ms = 30
	print "#tr/1"
	for (i = 0; i < n; i++)
		trace(i)
}
