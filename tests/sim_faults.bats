#!/usr/bin/env bats
# trsim --system: table-driven systems with a fault injected into one
# service.  Each fault acts through the simulated mechanics (messages,
# work, refused connections) and shows only as real instrumentation
# records it; the instrumentation variants take evidence away.
load helper

# The traces before (B) and after (A) a fault 10 s into 400 requests, in
# the line format: run NAME SYSTEM FAULT:SVC [trsim options...]
run_fault() {
	local name=$1 sys=$2 inj=$3
	shift 3
	for w in before after; do
		trsim --system "$sys" --inject "$inj" --fault-start 10000 --traces 400 \
			--seed 7 --window $w "$@" | tr-ingest -q > "$BATS_TEST_TMPDIR/$name.$w.tr"
	done
}

# Mean duration in µs of the spans of SERVICE of KIND (client spans: only
# those calling PEER when given) in FILE.
mean() {
	awk -F'\t' -v svc="$2" -v kind="$3" -v peer="$4" '
		$1 == "S" && $7 == svc && $9 == kind && (peer == "" || index($0, "\tpeer.service=" peer "\t")) {
			n++; d += $6 }
		END { printf "%d\n", n ? d / n : -1 }' "$1"
}

# How much the mean grew from before to after, in µs: grew NAME SERVICE KIND [PEER]
grew() {
	local b a
	b=$(mean "$BATS_TEST_TMPDIR/$1.before.tr" "$2" "$3" "$4")
	a=$(mean "$BATS_TEST_TMPDIR/$1.after.tr" "$2" "$3" "$4")
	if [ "$b" -lt 0 ] || [ "$a" -lt 0 ]; then
		echo "no $3 span of $2${4:+ calling $4} before or after" >&2
		echo none
		return
	fi
	echo $((a - b))
}

# Fails with both values printed unless LO <= VALUE <= HI.
between() {
	local what=$1 v=$2 lo=$3 hi=$4
	if [ "$v" = none ] || [ "$v" -lt "$lo" ] || [ "$v" -gt "$hi" ]; then
		echo "$what: expected $lo..$hi, got $v"
		return 1
	fi
}

# Spans of SERVICE of KIND in FILE that record an error.
errors() {
	awk -F'\t' -v svc="$2" -v kind="$3" '$1 == "S" && $7 == svc && $9 == kind && /\terror=true(\t|$)/' "$1" | wc -l
}

@test "delay into mysql: callers' client spans into it grow, its server spans do not" {
	run_fault d hotrod delay:mysql
	between "customer->mysql client growth (µs)" "$(grew d customer client mysql)" 18000 26000
	between "mysql server growth (µs)" "$(grew d mysql server)" -1500 1500
}

@test "delay into customer: its own outgoing calls are delayed too" {
	run_fault d hotrod delay:customer
	between "customer->mysql client growth (µs)" "$(grew d customer client mysql)" 18000 26000
	between "mysql server growth (µs)" "$(grew d mysql server)" -1500 1500
	between "frontend->customer client growth (µs)" "$(grew d frontend client customer)" 36000 52000
}

@test "cpu on customer: its own work and its client spans grow, the callee's server spans do not" {
	run_fault c hotrod cpu:customer
	between "customer server growth (µs)" "$(grew c customer server)" 60000 200000
	between "customer->mysql client growth (µs)" "$(grew c customer client mysql)" 2000 6000
	between "mysql server growth (µs)" "$(grew c mysql server)" -1500 1500
}

@test "slow fraud: its server spans grow by its own extra work, its callees' do not" {
	run_fault s shop slow:fraud
	between "fraud server growth (µs)" "$(grew s fraud server)" 20000 40000
	between "payment->fraud client growth (µs)" "$(grew s payment client fraud)" 20000 40000
	between "risk-model server growth (µs)" "$(grew s risk-model server)" -2000 2000
}

@test "error on customer: about half its server spans fail after the start, latency unchanged" {
	run_fault e hotrod error:customer
	local b a n
	b=$(errors "$BATS_TEST_TMPDIR/e.before.tr" customer server)
	a=$(errors "$BATS_TEST_TMPDIR/e.after.tr" customer server)
	n=$(awk -F'\t' '$1 == "S" && $7 == "customer" && $9 == "server"' "$BATS_TEST_TMPDIR/e.after.tr" | wc -l)
	between "customer server errors before" "$b" 0 5
	between "customer server errors after, of $n" "$a" $((n * 4 / 10)) $((n * 6 / 10))
	between "customer server growth (µs)" "$(grew e customer server)" -3000 3000
	# the responses say so, and some callers fail too
	grep -q $'\tcustomer\tHTTP GET /customer\tserver\t.*\thttp.status_code=500' "$BATS_TEST_TMPDIR/e.after.tr"
	expect_gt 10 "$(errors "$BATS_TEST_TMPDIR/e.after.tr" frontend server)"
	# an error, not an exception
	run grep -c 'event=exception' "$BATS_TEST_TMPDIR/e.after.tr"
	expect_output 0 || { echo "expected 0 exception events, got $output"; false; }
}

@test "throw on pricing: its failed spans carry an exception event" {
	run_fault t shop throw:pricing
	local ex
	ex=$(awk -F'\t' '$1 == "L" && /event=exception/ && /exception.type=IllegalStateException/' "$BATS_TEST_TMPDIR/t.after.tr" | wc -l)
	between "exception events after" "$ex" 100 100000
	expect_num 0 "$(grep -c 'event=exception' "$BATS_TEST_TMPDIR/t.before.tr")"
	expect_ge "$ex" "$(errors "$BATS_TEST_TMPDIR/t.after.tr" pricing server)"
}

@test "down route: no route server span, callers' client spans fail fast" {
	run_fault r hotrod down:route
	expect_num 0 "$(awk -F'\t' '$1 == "S" && $7 == "route"' "$BATS_TEST_TMPDIR/r.after.tr" | wc -l)"
	expect_gt 1000 "$(awk -F'\t' '$1 == "S" && $7 == "route"' "$BATS_TEST_TMPDIR/r.before.tr" | wc -l)"
	local calls failed
	calls=$(awk -F'\t' '$1 == "S" && $9 == "client" && /\tpeer.service=route\t/' "$BATS_TEST_TMPDIR/r.after.tr" | wc -l)
	failed=$(awk -F'\t' '$1 == "S" && $9 == "client" && /\tpeer.service=route\t/ && /\terror=true/' "$BATS_TEST_TMPDIR/r.after.tr" | wc -l)
	expect_gt 1000 "$calls" "client spans into route"
	expect_num "$calls" "$failed" "failed client spans into route"
	between "frontend->route client mean after (µs)" "$(mean "$BATS_TEST_TMPDIR/r.after.tr" frontend client route)" 400 5000
}

@test "no span names the fault: injected runs carry no tag the baseline lacks" {
	run_fault n shop slow:fraud --span-loss 0
	keys() { awk -F'\t' '$1 == "S" { for (i = 11; i <= NF; i++) { sub(/=.*/, "", $i); print $i } }' "$1" | sort -u; }
	diff <(keys "$BATS_TEST_TMPDIR/n.before.tr") <(keys "$BATS_TEST_TMPDIR/n.after.tr")
	run grep -ciE 'fault|inject|slow' "$BATS_TEST_TMPDIR/n.after.tr"
	expect_output 0 || { echo "expected no line naming the fault, got $output"; false; }
}

@test "--window before and after split one run's traces at the fault's start" {
	local all b a
	all=$(trsim --system shop --inject cpu:auth --fault-start 5000 --traces 200 | jq '.data | length')
	b=$(trsim --system shop --inject cpu:auth --fault-start 5000 --traces 200 --window before | jq '.data | length')
	a=$(trsim --system shop --inject cpu:auth --fault-start 5000 --traces 200 --window after | jq '.data | length')
	expect_num 200 "$all" "traces of the whole run"
	expect_num 200 "$((b + a))" "traces before and after"
	expect_gt 50 "$b" "traces before"
	expect_gt 50 "$a" "traces after"
	# every root of before starts before 5 s after the epoch, every root of after from then on
	trsim --system shop --inject cpu:auth --fault-start 5000 --traces 200 --window before --clock-skew 0 |
		jq -e '[.data[].spans[] | select(.references == []) | .startTime] | max < 1767225605000000' >/dev/null
	trsim --system shop --inject cpu:auth --fault-start 5000 --traces 200 --window after --clock-skew 0 |
		jq -e '[.data[].spans[] | select(.references == []) | .startTime] | min >= 1767225605000000' >/dev/null
}

@test "--kindless all: no span has a kind" {
	trsim --system shop --traces 30 --kindless all | tr-ingest -q > "$BATS_TEST_TMPDIR/k.tr"
	expect_gt 1000 "$(awk -F'\t' '$1 == "S"' "$BATS_TEST_TMPDIR/k.tr" | wc -l)"
	expect_num 0 "$(awk -F'\t' '$1 == "S" && $9 != ""' "$BATS_TEST_TMPDIR/k.tr" | wc -l)"
	run grep -c 'span.kind' <(trsim --system shop --traces 30 --kindless all)
	expect_output 0 || { echo "expected no span.kind tag, got $output"; false; }
}

@test "--no-status: no error, status code or exception in any format" {
	for fmt in jaeger zipkin otlp; do
		trsim --system hotrod --traces 60 --inject throw:customer --no-status --format $fmt > "$BATS_TEST_TMPDIR/s.json"
		run grep -cE '"error"|status_code|exception|"code":2' "$BATS_TEST_TMPDIR/s.json"
		expect_output 0 || { echo "$fmt: expected no error evidence, got $output lines"; false; }
		# the same run with status records them
		trsim --system hotrod --traces 60 --inject throw:customer --format $fmt | grep -q exception
	done
}

@test "--wrapper-spans: the gateway's childless handler span beside its one call covers >= 90 % of the request" {
	trsim --system shop --traces 50 --wrapper-spans --span-loss 0 | tr-ingest -q > "$BATS_TEST_TMPDIR/w.tr"
	run awk -F'\t' '$1 == "S" { dur[$3] = $6; st[$3] = $5; par[$3] = $4; name[$3] = $8; kids[$4]++ }
		END { for (s in name) if (name[s] ~ / handler$/) {
			n++; p = par[s]
			if (par[p] != "" || kids[s] || kids[p] != 2 || dur[s] < 0.9 * dur[p] || st[s] < st[p]) bad++ }
			print n + 0, bad + 0 }' "$BATS_TEST_TMPDIR/w.tr"
	expect_output "50 0" || { echo "expected 50 0 (wrappers, bad ones), got $output"; false; }
}

@test "shop: 24 services, 7 on the longest chain of calls, shared callees and a database" {
	trsim --system shop --traces 100 --span-loss 0 | tr-ingest -q > "$BATS_TEST_TMPDIR/shop.tr"
	expect_num 24 "$(awk -F'\t' '$1 == "S" { print $7 }' "$BATS_TEST_TMPDIR/shop.tr" | sort -u | wc -l)"
	# server spans on the longest chain of server spans
	run awk -F'\t' '$1 == "S" { par[$3] = $4; kind[$3] = $9 }
		END { for (s in kind) if (kind[s] == "server") { d = 0; for (p = s; p != ""; p = par[p]) if (kind[p] == "server") d++; if (d > m) m = d }
		      print m }' "$BATS_TEST_TMPDIR/shop.tr"
	expect_num 7 "$output" || { echo "expected depth 7, got $output"; false; }
	# services calling pricing, and postgres
	expect_ge 3 "$(awk -F'\t' '$1 == "S" && $9 == "client" && /\tpeer.service=pricing\t/ { print $7 }' "$BATS_TEST_TMPDIR/shop.tr" | sort -u | wc -l)"
	expect_ge 3 "$(awk -F'\t' '$1 == "S" && $9 == "client" && /\tpeer.service=postgres\t/ { print $7 }' "$BATS_TEST_TMPDIR/shop.tr" | sort -u | wc -l)"
	grep -q $'\tdb.system=postgresql' "$BATS_TEST_TMPDIR/shop.tr"
}

@test "--system: same options give the same bytes in every format, another seed others" {
	for fmt in jaeger zipkin otlp; do
		a=$(trsim --system shop --traces 40 --inject down:pricing --seed 3 --format $fmt | sha256sum)
		expect_eq "$(trsim --system shop --traces 40 --inject down:pricing --seed 3 --format $fmt | sha256sum)" "$a"
		expect_ne "$(trsim --system shop --traces 40 --inject down:pricing --seed 4 --format $fmt | sha256sum)" "$a"
	done
}

@test "--system: the three formats agree" {
	key() { trsim --system shop --traces 30 --inject throw:auth --format "$1" | tr-ingest -q |
		awk -F'\t' '$1 == "S" { print $5, $6, $7, tolower($8), $9 }' | sort; }
	j=$(key jaeger)
	diff <(echo "$j") <(key zipkin)
	diff <(echo "$j") <(key otlp)
}

@test "bad --system, --inject and --window options are usage errors" {
	run trsim --system nosuch
	expect_status 2
	expect_eq "trsim: unknown system (hotrod, shop): nosuch" "${lines[0]}"
	run trsim --system shop --inject melt:auth
	expect_status 2
	expect_eq "trsim: unknown fault (delay, cpu, slow, error, throw, down): melt" "${lines[0]}"
	run trsim --system shop --inject delay:mysql
	expect_status 2
	expect_eq "trsim: unknown service for --inject: mysql" "${lines[0]}"
	run trsim --system shop --inject delay
	expect_status 2
	expect_eq "trsim: --inject takes FAULT:SERVICE: delay" "${lines[0]}"
	run trsim --inject delay:mysql
	expect_status 2
	expect_eq "trsim: --inject, --fault-start, --window and --wrapper-spans need --system" "${lines[0]}"
	run trsim --system hotrod --fault off
	expect_status 2
	expect_like "trsim: --fault is the HotROD model's batch job*" "${lines[0]}"
	run trsim --system hotrod --window during
	expect_status 2
	expect_eq "trsim: --window takes all, before or after: during" "${lines[0]}"
	run trsim --system hotrod --kindless batch
	expect_status 2
	expect_eq "trsim: unknown service for --kindless: batch" "${lines[0]}"
}

@test "with one clock, every span lies within its parent, whatever the fault" {
	for f in delay:pricing cpu:web slow:postgres error:auth throw:fraud down:inventory; do
		trsim --system shop --inject "$f" --fault-start 2000 --traces 80 --wrapper-spans \
			--clock-skew 0 --overlap 0 --span-loss 0 | tr-ingest -q > "$BATS_TEST_TMPDIR/c.tr"
		run awk -F'\t' '$1 == "S" { st[$3] = $5; en[$3] = $5 + $6; par[$3] = $4; n++ }
			END { for (s in par) if (par[s] != "" && (st[s] < st[par[s]] || en[s] > en[par[s]])) bad++
			      print n + 0, bad + 0 }' "$BATS_TEST_TMPDIR/c.tr"
		expect_gt 3000 "${output% *}" "$f: spans"
		expect_eq 0 "${output#* }" "$f: spans outside their parent"
	done
}

@test "a fault changes no trace that ended before it started" {
	# traces ended 5 s after the epoch, with and without the fault that starts then
	ended() {
		trsim --system shop "$@" --fault-start 5000 --traces 200 --clock-skew 0 --overlap 0 |
			jq -c '.data[] | select([.spans[] | .startTime + .duration] | max < 1767225605000000)'
	}
	ended > "$BATS_TEST_TMPDIR/none"
	expect_gt 80 "$(wc -l < "$BATS_TEST_TMPDIR/none")"
	for f in delay:pricing cpu:web slow:postgres error:auth throw:fraud down:inventory; do
		ended --inject "$f" | diff "$BATS_TEST_TMPDIR/none" - > /dev/null ||
			{ echo "$f changed traces that ended before it started"; false; }
	done
}
