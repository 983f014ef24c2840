#!/usr/bin/env bats
# tr-infer --links: Zipkin's DependencyLinker on Zipkin's span tree (the
# marks tr-ingest leaves where that tree differs from tr's), Jaeger's rule for
# spans without a kind, and the differential corpus of ../shared/peers.

load helper
bats_require_minimum_version 1.5.0

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
	expect_eq "frontend>orders=1/0 orders>frontend=1/0" "$(links "$f")"
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
	expect_eq "api>pay=1/0" "$(links "$BATS_TEST_TMPDIR/base.tr")"
	# a shared span of no kind without its client half: Zipkin hangs it
	# under the root, and backfills the root's service -> its own
	{ cat "$BATS_TEST_TMPDIR/base.tr"; printf 'S\t1\tk\ts\t20\t5\tapi\tcall db\t\t\tpeer.service=db\ttr.zipkin_parent=\n'; } >"$BATS_TEST_TMPDIR/root.tr"
	expect_eq "api>db=1/0 api>pay=1/0 mail>api=1/0" "$(links "$BATS_TEST_TMPDIR/root.tr")"
	# a child whose endpoint is not the server half's hangs under the client
	# half x (api): x still has a child (x:s), and the hop api -> pay is
	# backfilled
	{ cat "$BATS_TEST_TMPDIR/base.tr"; printf 'S\t1\ta\tx:s\t14\t5\tpay\tget\tclient\t\tpeer.service=db\ttr.zipkin_parent=x\n'; } >"$BATS_TEST_TMPDIR/moved.tr"
	expect_eq "api>pay=2/0 pay>db=1/0" "$(links "$BATS_TEST_TMPDIR/moved.tr")"
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
	expect_eq "gw>api=1/0 gw>pay=1/0" "$(links "$f")"
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
	expect_eq "api>db=1/0 mail>api=1/0" "$(tr-ingest "$f" | links)"
}

@test "zipkin: two servers answer one client id: a child hangs under the half of its own service, which tr-ingest names x:s~2" {
	command -v tr-ingest >/dev/null || skip "no tr-ingest"
	f=$(mkfix two.json <<'J'
[{"traceId":"t1","id":"r","kind":"SERVER","name":"get","timestamp":100,"duration":90,"localEndpoint":{"serviceName":"gw"}},
 {"traceId":"t1","id":"x","parentId":"r","kind":"CLIENT","name":"call","timestamp":101,"duration":80,"localEndpoint":{"serviceName":"web"}},
 {"traceId":"t1","id":"x","parentId":"r","kind":"SERVER","name":"a","timestamp":102,"duration":70,"shared":true,"localEndpoint":{"serviceName":"api"}},
 {"traceId":"t1","id":"x","parentId":"r","kind":"SERVER","name":"p","timestamp":103,"duration":70,"shared":true,"localEndpoint":{"serviceName":"pay"}},
 {"traceId":"t1","id":"c","parentId":"x","kind":"CLIENT","name":"q","timestamp":104,"duration":5,"localEndpoint":{"serviceName":"pay"},"remoteEndpoint":{"serviceName":"db"}}]
J
)
	# c's remote ancestor is the pay half: no hop web -> pay from c
	expect_eq "pay>db=1/0 web>api=1/0 web>pay=1/0" "$(tr-ingest "$f" | links)"
}

# Issue 33's five spans: payment's client (failing) calls frontend, a span of
# no kind in frontend calls api, whose server half shares its id. Zipkin's
# tree hangs the span of no kind under the server half of its own endpoint,
# else under the client half.
five_spans() {
	mkfix "$1" <<J
[{"traceId":"t1","id":"a","kind":"SERVER","name":"pay","timestamp":100,"duration":90,"localEndpoint":{"serviceName":"payment"}},
 {"traceId":"t1","id":"b","parentId":"a","kind":"CLIENT","name":"call","timestamp":101,"duration":80,"localEndpoint":{"serviceName":"payment"},"remoteEndpoint":{"serviceName":"frontend"},"tags":{"error":"true"}},
 {"traceId":"t1","id":"b","parentId":"a","kind":"SERVER","name":"get","timestamp":102,"duration":70,"shared":true,"localEndpoint":{"serviceName":"frontend"}},
 {"traceId":"t1","id":"c","parentId":"b","name":"call api","timestamp":103,"duration":50,"localEndpoint":{"serviceName":"frontend"$2},"remoteEndpoint":{"serviceName":"api"}},
 {"traceId":"t1","id":"c","parentId":"b","kind":"SERVER","name":"handle","timestamp":104,"duration":40,"shared":true,"localEndpoint":{"serviceName":"api"}}]
J
}

@test "zipkin: a shared server half inherits the error of the client above its client half of no kind (payment>api 1 call, 1 error)" {
	command -v tr-ingest >/dev/null || skip "no tr-ingest"
	# c's endpoint is not the server half b's: c hangs under the client b;
	# c:s's parent id is c's (b), the failing client: both inherit its error
	f=$(five_spans five.json ',"ipv4":"10.0.0.9"')
	expected="frontend>api=1/1 payment>api=1/1 payment>frontend=2/0"
	diff <(echo "$expected") <(echo "$(tr-ingest "$f" | links)")
}

@test "zipkin: a client half of no kind under a server half passes no error on: its remote ancestor is that server" {
	command -v tr-ingest >/dev/null || skip "no tr-ingest"
	f=$(five_spans five.json '')
	expected="frontend>api=2/0 payment>frontend=1/0"
	diff <(echo "$expected") <(echo "$(tr-ingest "$f" | links)")
}

@test "zipkin: a shared server half does not inherit its own client half's error" {
	f=$(fix own.tr <<-'EOF'
	T|1
	S|1|r||0|100|gw|GET|server|
	S|1|x|r|10|50|gw|call|client||error=true|peer.service=api
	S|1|x:s|x|11|40|api|handle|server|
	EOF
	)
	expected="gw>api=1/0"
	diff <(echo "$expected") <(echo "$(links "$f")")
}

@test "conformance: SmartThings: a part of no kind that reuses a client's id is not in Zipkin's tree; guardian, not execution, calls platformapi" {
	f="$CONF/zipkin/smartthings-mobile-web-install.json"
	[ -f "$f" ] || skip "no ../shared/conformance beside the project"
	command -v tr-ingest >/dev/null || skip "no tr-ingest"
	# 98ffd568af9b79a0: CLIENT (guardian), a SERVER (platformapi) and a part
	# of no kind in platformapi; Zipkin keeps the client under that id
	got=" $(tr-ingest "$f" | links) "
	expect_contains ' guardian>platformapi=1/0 ' "$got"
	expect_lacks ' execution>platformapi=' "$got"
	expect_eq "|tr.zipkin_hidden=true" "$(tr-ingest "$f" | awk -F'\t' '$1 == "S" && $3 == "98ffd568af9b79a0" { print $9 "|" $NF }')"
}

@test "conformance: every case of ../shared/peers/zipkin-links gives Zipkin's own links" {
	[ -f "$PEERS/compare_links.py" ] || skip "no ../shared/peers beside the project"
	command -v python3 >/dev/null || skip "no python3"
	command -v tr-ingest >/dev/null || skip "no tr-ingest"
	run python3 "$PEERS/compare_links.py" -j 2 --show 3 "$PEERS/zipkin-links"
	expect_eq 0 "$status" status
	n=${lines[-1]%%/*}
	expect_eq "$n/$n agree" "${lines[-1]}"
}

# Spans without a kind: a gateway calls auth twice (once failing), auth calls
# db; gateway's own local span and an orphan link nothing.
kindless() {
	fix kindless.tr <<-'EOF'
	T|1
	S|1|r||0|100|gateway|GET /||
	S|1|l|r|1|90|gateway|render||
	S|1|a1|l|2|10|auth|check||
	S|1|d|a1|3|5|db|select||
	S|1|a2|l|20|10|auth|check|||error=true
	S|1|o|gone|30|5|cache|get||
	EOF
}

@test "jaeger: spans without a kind link parent service -> child service across services, with a note" {
	kindless
	run --separate-stderr tr-infer --links "$BATS_TEST_TMPDIR/kindless.tr"
	expect_eq 0 "$status" status
	expect_output "$(printf 'parent\tchild\tcalls\terrors\nauth\tdb\t1\t0\ngateway\tauth\t2\t1')"
	expect_eq "tr-infer: no span has a kind (or peer.service): links by Jaeger's rule, parent service -> child service (--links=zipkin for Zipkin's)" "$stderr"
	run --separate-stderr tr-infer --links -q "$BATS_TEST_TMPDIR/kindless.tr"
	expect_empty "$stderr"
	# Zipkin's rule asked for: no span is remote, no link, no note
	run --separate-stderr tr-infer --links=zipkin "$BATS_TEST_TMPDIR/kindless.tr"
	expect_output "$(printf 'parent\tchild\tcalls\terrors')"
	expect_empty "$stderr"
}

@test "jaeger: a span of no kind that names its remote service keeps Zipkin's rule by default: it is a client there" {
	f=$(fix peer.tr <<-'EOF'
	T|1
	S|1|r||0|100|orders|call frontend|||peer.service=frontend
	EOF
	)
	run --separate-stderr tr-infer --links "$f"
	expect_output "$(printf 'parent	child	calls	errors
orders	frontend	1	0')"
	expect_empty "$stderr"
}

@test "jaeger: --links=jaeger on spans with kinds; one span with a kind keeps Zipkin's rule by default" {
	f=$(fix kinds.tr <<-'EOF'
	T|1
	S|1|r||0|100|gw|GET|server|
	S|1|c|r|1|50|gw|call|client||peer.service=api
	S|1|c:s|c|2|40|api|handle|server||error=false
	EOF
	)
	expect_eq "gw>api=1/0" "$(links --links=jaeger "$f")"
	run --separate-stderr tr-infer --links "$f"
	expect_output "$(printf 'parent\tchild\tcalls\terrors\ngw\tapi\t1\t1')"
	expect_empty "$stderr"
	run tr-infer --links=otel "$f"
	expect_eq 2 "$status" status
}

@test "jaeger: --partial keeps both rules' counts and the kinds; --merge chooses as one pass would" {
	kindless
	f=$(fix kinded.tr <<-'EOF'
	T|2
	S|2|r||0|100|gw|GET|server|
	S|2|c|r|1|50|gw|call|client||peer.service=api
	EOF
	)
	tr-infer --links --partial "$BATS_TEST_TMPDIR/kindless.tr" >"$BATS_TEST_TMPDIR/a.p"
	expect_num 2 "$(grep -c '^IJ' "$BATS_TEST_TMPDIR/a.p")"
	expect_eq "$(printf 'IK\t\tspans=6\tkinds=0')" "$(grep '^IK' "$BATS_TEST_TMPDIR/a.p")"
	tr-infer --links --partial "$f" >"$BATS_TEST_TMPDIR/b.p"
	run --separate-stderr tr-infer --links --merge "$BATS_TEST_TMPDIR/a.p"
	expect_output "$(tr-infer --links -q "$BATS_TEST_TMPDIR/kindless.tr")"
	expect_contains 'no span has a kind' "$stderr"
	run --separate-stderr tr-infer --links --merge "$BATS_TEST_TMPDIR/a.p" "$BATS_TEST_TMPDIR/b.p"
	expect_output "$(cat "$BATS_TEST_TMPDIR/kindless.tr" "$f" | tr-infer --links)"
	expect_output "$(printf 'parent\tchild\tcalls\terrors\ngw\tapi\t1\t0')"
	expect_empty "$stderr"
	printf '#tr-infer-partial/2\tlinks\nIK\t\tspans=1\tkinds=2\n#end\t1\n' >"$BATS_TEST_TMPDIR/bad.p"
	run tr-infer --links --merge "$BATS_TEST_TMPDIR/bad.p"
	expect_eq 3 "$status" status
	expect_contains 'bad IK record' "$output"
}

@test "conformance: DeathStarBench (no span kinds) gives Jaeger's 11 parent -> child service links, with a note" {
	f="$CONF/jaeger/deathstarbench-traces-1695947455229.json.zst"
	[ -f "$f" ] || skip "no ../shared/conformance beside the project"
	command -v tr-ingest >/dev/null || skip "no tr-ingest"
	tr-ingest "$f" >"$BATS_TEST_TMPDIR/dsb.tr"
	run --separate-stderr tr-infer --links "$BATS_TEST_TMPDIR/dsb.tr"
	expect_eq 0 "$status" status
	expect_output "parent	child	calls	errors
compose-post-service	home-timeline-service	20	0
compose-post-service	media-service	20	0
compose-post-service	post-storage-service	20	0
compose-post-service	text-service	20	0
compose-post-service	unique-id-service	20	0
compose-post-service	user-service	20	0
compose-post-service	user-timeline-service	20	0
home-timeline-service	social-graph-service	20	0
nginx-web-server	compose-post-service	20	0
text-service	url-shorten-service	20	0
text-service	user-mention-service	20	0"
	expect_contains 'no span has a kind' "$stderr"
	run --separate-stderr tr-infer --links -f jaeger-json "$BATS_TEST_TMPDIR/dsb.tr"
	expect_num 11 "$(jq length <<<"$output")"
}
