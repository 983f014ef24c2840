#!/usr/bin/env bats
# tr-infer --links: Zipkin's DependencyLinker on Zipkin's span tree (the
# marks tr-ingest leaves where that tree differs from tr's), Jaeger's rule for
# spans without a kind, and the differential corpus of ../shared/peers.

load helper

PEERS="${TR_SHARED:-$BATS_TEST_DIRNAME/../../shared}/peers"

# Tiny line-format fixtures with '|' for TAB.
fix() {
	tr '|' '\t' | mkfix "$1"
}

# "parent>child=calls/errors" of every link, on one line.
links() {
	tr-infer --links "$@" | awk -F'\t' 'NR > 1 { printf "%s%s>%s=%s/%s", sep, $1, $2, $3, $4; sep = " " }'
}

@test "zipkin: the first parentless span is the root; a CLIENT root that adopts the other roots has children and is skipped" {
	f=$(fix root.tr <<-'EOF'
	T|1
	S|1|c||0|300|orders|call db|client||peer.service=db
	S|1|s||5|200|frontend|get /|server|
	S|1|k|s|50|10|frontend|call orders|client||peer.service=orders
	EOF
	)
	# s hangs under c, whose service calls it; c names the link through s
	[ "$(links "$f")" = "frontend>orders=1/0 orders>frontend=1/0" ]
}

@test "zipkin: tr.zipkin_parent moves a span in Zipkin's tree: empty to the root, else to the span named" {
	fix base.tr <<-'EOF'
	T|1
	S|1|r||0|100|mail|get /|server|
	S|1|c|r|5|60||call api|client||peer.ipv4=10.0.0.1
	S|1|s|c|10|50|api|get /api|server|
	S|1|x|s|12|30|api|call pay|client||peer.service=pay
	S|1|x:s|x|13|20|pay|handle|server|
	EOF
	[ "$(links "$BATS_TEST_TMPDIR/base.tr")" = "api>pay=1/0" ]
	# a shared span of no kind without its client half: Zipkin hangs it
	# under the root, and backfills the root's service -> its own
	{ cat "$BATS_TEST_TMPDIR/base.tr"; printf 'S\t1\tk\ts\t20\t5\tapi\tcall db\t\t\tpeer.service=db\ttr.zipkin_parent=\n'; } >"$BATS_TEST_TMPDIR/root.tr"
	[ "$(links "$BATS_TEST_TMPDIR/root.tr")" = "api>db=1/0 api>pay=1/0 mail>api=1/0" ]
	# a child whose endpoint is not the server half's hangs under the client
	# half x (api): x still has a child (x:s), and the hop api -> pay is
	# backfilled
	{ cat "$BATS_TEST_TMPDIR/base.tr"; printf 'S\t1\ta\tx:s\t14\t5\tpay\tget\tclient\t\tpeer.service=db\ttr.zipkin_parent=x\n'; } >"$BATS_TEST_TMPDIR/moved.tr"
	[ "$(links "$BATS_TEST_TMPDIR/moved.tr")" = "api>pay=2/0 pay>db=1/0" ]
}

@test "zipkin: a span marked tr.zipkin_hidden links nothing; a second server half (x:s~2) does not inherit the client's error" {
	f=$(fix twins.tr <<-'EOF'
	T|1
	S|1|r||0|100|gw|GET|server|
	S|1|x|r|10|50|gw|call|client||error=true
	S|1|x:s|x|||api||server||tr.no_time=true|error=late|tr.zipkin_hidden=true
	S|1|x:s~2|x|11|40|api|handle|server||tr.renamed_from=x:s
	S|1|x:s~3|x|11|40|pay|handle|server||tr.renamed_from=x:s
	EOF
	)
	[ "$(links "$f")" = "gw>api=1/0 gw>pay=1/0" ]
}

@test "zipkin: ingest and links agree with Zipkin on the shapes it reads its own way" {
	command -v tr-ingest >/dev/null || skip "no tr-ingest"
	# 081: a span of no kind flagged shared hangs under the root (mail),
	# so Zipkin backfills mail -> api
	f=$(mkfix shared.json <<'J'
[{"traceId":"t1","id":"r","kind":"SERVER","name":"get","timestamp":100,"duration":90,"localEndpoint":{"serviceName":"mail"}},
 {"traceId":"t1","id":"c","parentId":"r","kind":"CLIENT","name":"call","timestamp":101,"duration":80,"localEndpoint":{"ipv4":"10.0.0.1"}},
 {"traceId":"t1","id":"s","parentId":"c","kind":"SERVER","name":"get","timestamp":102,"duration":70,"localEndpoint":{"serviceName":"api"}},
 {"traceId":"t1","id":"k","parentId":"s","name":"call db","timestamp":103,"duration":5,"shared":true,"localEndpoint":{"serviceName":"api"},"remoteEndpoint":{"serviceName":"db"}}]
J
)
	[ "$(tr-ingest "$f" | links)" = "api>db=1/0 mail>api=1/0" ]
}

@test "conformance: every case of ../shared/peers/zipkin-links gives Zipkin's own links" {
	[ -f "$PEERS/compare_links.py" ] || skip "no ../shared/peers beside the project"
	command -v python3 >/dev/null || skip "no python3"
	command -v tr-ingest >/dev/null || skip "no tr-ingest"
	run python3 "$PEERS/compare_links.py" -j 2 --show 3 "$PEERS/zipkin-links"
	[ "$status" -eq 0 ]
	n=${lines[-1]%%/*}
	[ "${lines[-1]}" = "$n/$n agree" ]
}
