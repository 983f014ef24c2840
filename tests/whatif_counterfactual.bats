#!/usr/bin/env bats
# tr-cp --whatif rules that act off the request's own path: work removed
# (trace=ID:remove, service=X:remove), waits replaced by the baseline's
# (wait=baseline), predicted by re-laying the resources' timelines. The
# hand traces in tests/data/whatif_*.tr are in µs, the issue's cases in ms.

load helper

data="$BATS_TEST_DIRNAME/data"

# The row of trace $1 in the table tr-cp printed.
row_of() {
	printf '%s\n' "${lines[@]}" | awk -F'\t' -v id="$1" '$1 == id'
}

@test "(A) a call queued 9 ms behind another trace's job on a one-worker db: removing that trace predicts 9 ms less" {
	run tr-cp --whatif 'trace=B:remove' "$data/whatif_a.tr"
	expect_status 0
	expect_eq "$(printf 'R\t40000\t31000\t-9000\t0')" "$(row_of R)" "R's row"
	expect_eq "$(printf 'U\t5000\t5000\t0\t0')" "$(row_of U)" "the unrelated trace's row"
	expect_eq "" "$(row_of B)" "the removed trace is not reported"
}

@test "(A) removing an unrelated trace predicts no change" {
	run tr-cp --whatif 'trace=U:remove' "$data/whatif_a.tr"
	expect_status 0
	expect_eq "$(printf 'R\t40000\t40000\t0\t0')" "$(row_of R)" "R's row"
	expect_contains "no resource overlap found that the rules change" "$output"
}

@test "(B) two jobs ahead of a call, one removed: the call gains that job's share" {
	run tr-cp --whatif 'trace=B1:remove' "$data/whatif_b.tr"
	expect_status 0
	expect_eq "$(printf 'R\t40000\t36000\t-4000\t0')" "$(row_of R)" "R without the 4 ms job"
	expect_eq "$(printf 'B2\t9000\t5000\t-4000\t0')" "$(row_of B2)" "the other job, no longer queued"
	run tr-cp --whatif 'trace=B2:remove' "$data/whatif_b.tr"
	expect_eq "$(printf 'R\t40000\t35000\t-5000\t0')" "$(row_of R)" "R without the 5 ms job"
	expect_eq "$(printf 'B1\t4000\t4000\t0\t0')" "$(row_of B1)" "the job ahead of the removed one"
}

@test "(C) wait=baseline: waits that grew from 2 to 40 ms per call are predicted with the baseline's" {
	run tr-cp --whatif 'service=db:wait=baseline' --baseline "$data/whatif_c_baseline.tr" "$data/whatif_c.tr"
	expect_status 0
	# latency - wait + baseline wait: 60 - 40 + 2, 70 - 40 + 2
	expect_eq "$(printf 'R1\t60000\t22000\t-38000\t1')" "$(row_of R1)" "R1"
	expect_eq "$(printf 'R2\t70000\t32000\t-38000\t1')" "$(row_of R2)" "R2"
	expect_contains "mean wait per call of the baseline's spans of the same service and operation" "$output"
}

@test "service=X:remove removes that work in every trace, the job's whole trace with its root" {
	run tr-cp --whatif 'service=batch:remove' "$data/whatif_a.tr"
	expect_status 0
	expect_eq "$(printf 'R\t40000\t31000\t-9000\t0')" "$(row_of R)" "R's row"
	expect_contains "requests removed (their root span is), not reported: 1" "$output"
}

@test "service=X:remove takes the queue wait before each removed span too: nothing is left to wait for" {
	run tr-cp --whatif 'service=db:remove' "$data/whatif_a.tr"
	expect_status 0
	# R's 11 ms db call and the 9 ms it queued behind B's report
	expect_eq "$(printf 'R\t40000\t20000\t-20000\t1')" "$(row_of R)" "R's row"
	expect_eq "$(printf 'U\t5000\t5000\t0\t0')" "$(row_of U)" "U's row"
}

@test "a second call that comes earlier because the first got faster queues anew: behind work it had not met" {
	# db has one worker: B [0,10) ms, R's first call ready at 1 [10,15), C ready
	# at 5 [15,20), R's second call ready at 16 [20,25), R ends 5 ms later.
	# Without B: R's first call [1,6), C [6,11); R's second call comes 9 ms
	# sooner, at 7, and now waits for C: [11,16), R ends at 21 (one pass
	# said 17: the second call at its recorded time, finding the db free).
	run tr-cp --whatif 'trace=B:remove' "$data/whatif_e.tr"
	expect_status 0
	expect_eq "$(printf 'R\t30000\t21000\t-9000\t0')" "$(row_of R)" "R's row"
	expect_eq "$(printf 'C\t15000\t6000\t-9000\t0')" "$(row_of C)" "C's row"
	expect_contains "# ready times: resources and requests re-laid in turn to a fixed point (3 rounds)" "$output"
}

@test "a wait=baseline span no longer holds the work queued behind it" {
	# db has one worker: X's scan [0,40) ms; R's query ready at 1 [40,45);
	# U's report ready at 2 [45,50), behind both. R's query waits the
	# baseline's 2 ms: it starts at 3, and U waits for X alone: 5 ms less.
	run tr-cp --whatif 'service=db,operation=query:wait=baseline' --baseline "$data/whatif_c_baseline.tr" "$data/whatif_f.tr"
	expect_status 0
	expect_eq "$(printf 'R\t50000\t13000\t-37000\t1')" "$(row_of R)" "R: 50 - 39 + 2"
	expect_eq "$(printf 'U\t55000\t50000\t-5000\t0')" "$(row_of U)" "U, no longer behind R's query"
	expect_eq "$(printf 'X\t40000\t40000\t0\t0')" "$(row_of X)" "X, served first as before"
}

@test "with a counterfactual rule, scale acts on the work ahead in other traces too" {
	run tr-cp --whatif 'trace=U:remove' --whatif 'service=db,operation=report:scale=0.5' "$data/whatif_a.tr"
	expect_status 0
	# B's 9 ms job on the db takes 4.5: R's call starts 4.5 ms sooner
	expect_eq "$(printf 'R\t40000\t35500\t-4500\t0')" "$(row_of R)" "R's row"
}

@test "the table keeps its columns and quantiles; the assumptions follow it, in json too" {
	run tr-cp --whatif 'trace=B:remove' "$data/whatif_a.tr"
	expect_eq "$(printf 'trace_id\toriginal_us\tpredicted_us\tchange_us\tmatched')" "${lines[0]}" header
	expect_contains "$(printf 'p95\t40000\t31000')" "$output"
	expect_contains "# work-conserving: a resource (service@host) does not idle while work waits" "$output"
	expect_contains "# window: every trace of the input (3)" "$output"
	run bash -c "tr-cp --whatif 'trace=B:remove' -f json '$data/whatif_a.tr' | jq -r '.traces[0].predicted_us, (.assumptions | length)'"
	expect_eq "$(printf '31000\n5')" "$output"
}

@test "(D) the samples: removing the batch job predicts the slowest request within 5% of its latency less tr-temporal's batch delay" {
	tr-ingest "$BATS_TEST_DIRNAME/../samples/jaeger/hotrod.json" > "$BATS_TEST_TMPDIR/h.tr"
	slow=$(tr-aggregate --no-header 'From s In spans Where s.root Select s.trace OrderBy s.duration Desc Limit 1' "$BATS_TEST_TMPDIR/h.tr")
	delay=$(tr-temporal -t "$slow" "$BATS_TEST_TMPDIR/h.tr" |
		awk -F'\t' -v id="$slow" '$1 == "D" && $2 == id && $8 ~ /^batch:/ { t += $6 } END { print t + 0 }')
	expect_gt 500000 "$delay" "tr-temporal's batch delay"
	run tr-cp --whatif 'service=batch:remove' "$BATS_TEST_TMPDIR/h.tr"
	expect_status 0
	read -r _ orig pred _ <<<"$(row_of "$slow")"
	want=$((orig - delay))
	off=$((pred > want ? pred - want : want - pred))
	expect_le $((want * 5)) $((off * 100)) "predicted $pred, latency less the batch delay $want"
}

@test "a :remove or :wait=baseline rule that matches no span fails with the closest name" {
	run tr-cp --whatif 'service=dbb:remove' "$data/whatif_a.tr"
	expect_status 2
	expect_contains "tr-cp: --whatif 'service=dbb:remove': no analysed span has service \"dbb\" (did you mean \"db\"?)" "$output"
	run tr-cp --whatif 'service=db,operation=qery:wait=baseline' --baseline "$data/whatif_c_baseline.tr" "$data/whatif_c.tr"
	expect_status 2
	expect_contains "no analysed span of service \"db\" has operation \"qery\" (did you mean \"query\"?)" "$output"
}

@test "trace=ID:remove for an id no trace has fails with the closest id, or says none is close" {
	run tr-cp --whatif 'trace=Q:remove' "$data/whatif_a.tr"
	expect_status 2
	expect_contains "tr-cp: --whatif 'trace=Q:remove': no trace has id \"Q\" (did you mean \"R\"?)" "$output"
	run tr-cp --whatif 'trace=zzzzzzzzzzzz:remove' "$data/whatif_a.tr"
	expect_status 2
	expect_contains "tr-cp: --whatif 'trace=zzzzzzzzzzzz:remove': no trace has this id" "$output"
}

@test "wait=baseline without --baseline, and --baseline without it, are usage errors" {
	run tr-cp --whatif 'service=db:wait=baseline' "$data/whatif_c.tr"
	expect_status 2
	expect_contains "tr-cp: --whatif: wait=baseline needs --baseline FILE: the waits it is compared with" "$output"
	run tr-cp --whatif 'service=db:scale=2' --baseline "$data/whatif_c_baseline.tr" "$data/whatif_c.tr"
	expect_status 2
	expect_contains "tr-cp: --baseline goes with --whatif only for wait=baseline rules" "$output"
}

@test "bad counterfactual rules are usage errors" {
	run tr-cp --whatif 'service=db:wait=2ms' "$data/whatif_c.tr"
	expect_status 2
	expect_contains "tr-cp: --whatif: wait: only 'baseline' is known: '2ms'" "$output"
	run tr-cp --whatif 'trace=R:scale=2' "$data/whatif_c.tr"
	expect_status 2
	expect_contains "tr-cp: --whatif: expected 'trace=ID:remove', got 'trace=R:scale=2'" "$output"
}

@test "counterfactual rules refuse --partial and --merge: one shard cannot see the work in another" {
	run tr-cp --whatif 'trace=B:remove' --partial "$data/whatif_a.tr"
	expect_status 2
	expect_contains "needs every trace at once (work in one shard delays requests in another): not with --partial or --merge" "$output"
	run tr-cp --whatif 'trace=B:remove' --merge /dev/null
	expect_status 2
}

@test "--trace picks the requests reported; the work of every trace still delays them" {
	run tr-cp --whatif 'trace=B:remove' --trace R "$data/whatif_a.tr"
	expect_status 0
	expect_eq "$(printf 'R\t40000\t31000\t-9000\t0')" "$(row_of R)" "R's row"
	expect_eq "" "$(row_of U)" "a trace not picked is not reported"
}
