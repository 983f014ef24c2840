#!/usr/bin/env bats
# trsim records what real instrumentation records: no queue tags, per-host
# clock offsets, µs-level overlaps, lost spans, an uninstrumented service and
# one without span kinds; --hints records the simulated truth instead.
load helper

# A small simulation in the line format: sim FILE [trsim options...]
sim() {
	local f=$BATS_TEST_TMPDIR/$1
	shift
	trsim --seed 1 --traces 60 "$@" | tr-ingest -q > "$f"
	printf '%s\n' "$f"
}

# Server spans whose client parent started later (the two hosts' clocks differ).
servers_before_clients() {
	awk -F'\t' '$1 == "S" { k = $2 " " $3; st[k] = $5; kind[k] = $9; par[k] = $2 " " $4 }
		END { for (s in kind) if (kind[s] == "server" && kind[par[s]] == "client" && st[s] < st[par[s]]) n++
		      print n + 0 }' "$1"
}

# Spans whose parent id names no span of their trace.
orphans() {
	awk -F'\t' '$1 == "S" { seen[$2 " " $3] = 1; if ($4 != "") want[$2 " " $4]++ }
		END { for (p in want) if (!seen[p]) n += want[p]; print n + 0 }' "$1"
}

# "count max" of the overlaps (µs) between consecutive spans of mysql@mysql-0,
# which has one connection: one query at a time.
mysql_overlaps() {
	awk -F'\t' '$1 == "S" && $7 == "mysql" && $9 == "server" { printf "%.0f %.0f\n", $5, $5 + $6 }' "$1" | sort -n |
		awk 'NR > 1 && prev > $1 { n++; if (prev - $1 > m) m = prev - $1 } { prev = $2 } END { print n + 0, m + 0 }'
}

@test "default: no queue.wait_us tag and no enqueue log in any format" {
	for fmt in jaeger zipkin otlp; do
		trsim --seed 1 --traces 60 --format $fmt > "$BATS_TEST_TMPDIR/s.json"
		! grep -q 'queue.wait_us' "$BATS_TEST_TMPDIR/s.json"
		! grep -qi 'enqueue' "$BATS_TEST_TMPDIR/s.json"
	done
	f=$(sim t.tr)
	expect_gt 2000 "$(awk -F'\t' '$1 == "S"' "$f" | wc -l)"
	! grep -q 'queue.wait_us' "$f"
	expect_num 0 "$(awk -F'\t' '$1 == "L"' "$f" | grep -vc 'event=timeout')"
}

@test "default: host clocks differ, so some server spans start before their client spans" {
	f=$(sim t.tr)
	expect_gt 0 "$(servers_before_clients "$f")"
	# one offset per host: mysql-0's spans keep their order, one query at a time
	# up to the overlap noise
	read -r n max <<<"$(mysql_overlaps "$f")"
	expect_le 5 "$max"
	f=$(sim noskew.tr --clock-skew 0)
	expect_num 0 "$(servers_before_clients "$f")"
}

@test "default: back-to-back queries on mysql's one connection overlap by 1-5 µs" {
	f=$(sim t.tr)
	read -r n max <<<"$(mysql_overlaps "$f")"
	expect_gt 0 "$n"
	expect_ge 1 "$max"
	expect_le 5 "$max"
	read -r n max <<<"$(mysql_overlaps "$(sim wide.tr --overlap 40)")"
	expect_gt 5 "$max"
	expect_le 40 "$max"
	read -r n max <<<"$(mysql_overlaps "$(sim none.tr --overlap 0)")"
	expect_num 0 "$n"
}

@test "default: route's spans have no kind, every other service's have one" {
	f=$(sim t.tr)
	expect_num 0 "$(awk -F'\t' '$1 == "S" && $7 == "route" && $9 != ""' "$f" | wc -l)"
	expect_gt 500 "$(awk -F'\t' '$1 == "S" && $7 == "route"' "$f" | wc -l)"
	expect_num 0 "$(awk -F'\t' '$1 == "S" && $7 != "route" && $9 == ""' "$f" | wc -l)"
	# and in the Jaeger JSON itself: no span.kind tag on those spans
	trsim --seed 1 --traces 5 | jq -e '[.data[] | .processes as $p | .spans[]
		| select($p[.processID].serviceName == "route") | .tags[] | select(.key == "span.kind")]
		| length == 0' >/dev/null
	f=$(sim kinds.tr --kindless driver)
	expect_num 0 "$(awk -F'\t' '$1 == "S" && $7 == "driver" && $9 != ""' "$f" | wc -l)"
	expect_num 0 "$(awk -F'\t' '$1 == "S" && $7 == "route" && $9 == ""' "$f" | wc -l)"
}

@test "default: redis records no spans; its callers still name it as peer.service" {
	f=$(sim t.tr)
	expect_num 0 "$(awk -F'\t' '$1 == "S" && $7 == "redis"' "$f" | wc -l)"
	grep -q $'\tpeer.service=redis' "$f"
}

@test "--uninstrumented none: redis records its spans" {
	f=$(sim all.tr --uninstrumented none --span-loss 0)
	expect_num 60 "$(awk -F'\t' '$1 == "S" && $7 == "redis"' "$f" | wc -l)"
}

@test "default: some spans are lost, leaving others without their parent" {
	f=$(sim t.tr)
	expect_gt 0 "$(orphans "$f")"
	g=$(sim kept.tr --span-loss 0)
	expect_num 0 "$(orphans "$g")"
	lost=$(( $(grep -c '^S' "$g") - $(grep -c '^S' "$f") ))
	# 1 % of about 2,400 spans
	expect_ge 8 "$lost"
	expect_le 50 "$lost"
	expect_gt "$(orphans "$f")" "$(orphans "$(sim many.tr --span-loss 0.2)")"
}

@test "--hints restores every hint: queue tags, one clock, no overlap, no loss, all kinds, redis" {
	f=$(sim h.tr --hints)
	expect_gt 0 "$(grep -c 'queue.wait_us=' "$f")"
	expect_num 0 "$(awk -F'\t' '$1 == "S" && $7 == "mysql" && !/queue.wait_us=/' "$f" | wc -l)"
	expect_num 0 "$(servers_before_clients "$f")"
	expect_eq "0 0" "$(mysql_overlaps "$f")"
	expect_num 0 "$(orphans "$f")"
	expect_num 0 "$(awk -F'\t' '$1 == "S" && $9 == ""' "$f" | wc -l)"
	expect_num 60 "$(awk -F'\t' '$1 == "S" && $7 == "redis"' "$f" | wc -l)"
	# --queue-tags alone adds the tag and changes nothing else
	a=$(sim q.tr --queue-tags)
	expect_num "$(awk -F'\t' '$1 == "S" && ($7 == "mysql" || $7 == "route")' "$a" | wc -l)" "$(grep -c 'queue.wait_us=' "$a")"
	expect_eq "$(cksum < "$(sim d.tr)")" "$(sed 's/\tqueue.wait_us=[0-9]*//' "$a" | cksum)"
}

@test "--hints writes the bytes trsim wrote before it had a recorder" {
	# sha256 of the samples trsim --seed 1 --traces 45 made before instrumentation was modelled
	expect_eq 7ccaee3901e8b3c5 "$(trsim --hints --seed 1 --traces 45 | sha256sum | cut -c1-16)"
	expect_eq df0d7e10ec697046 "$(trsim --hints --seed 1 --traces 45 --format zipkin | sha256sum | cut -c1-16)"
	expect_eq b848914a44a51e94 "$(trsim --hints --seed 1 --traces 45 --format otlp | sha256sum | cut -c1-16)"
}

@test "each knob changes only what it models: no span lost moves, no clock changes a duration" {
	S() { grep '^S' "$1" | sort; }
	S "$(sim d.tr)" > "$BATS_TEST_TMPDIR/default"
	# every recorded span is in the run that loses none, byte for byte
	S "$(sim kept.tr --span-loss 0)" > "$BATS_TEST_TMPDIR/kept"
	expect_num 0 "$(comm -23 "$BATS_TEST_TMPDIR/default" "$BATS_TEST_TMPDIR/kept" | wc -l)"
	expect_gt "$(wc -l < "$BATS_TEST_TMPDIR/default")" "$(wc -l < "$BATS_TEST_TMPDIR/kept")"
	# one clock: the same spans with the same durations, other start times
	S "$(sim c0.tr --clock-skew 0)" > "$BATS_TEST_TMPDIR/c0"
	expect_eq "$(cut -f2-4,6- "$BATS_TEST_TMPDIR/c0" | sort)" "$(cut -f2-4,6- "$BATS_TEST_TMPDIR/default" | sort)"
	! cmp -s "$BATS_TEST_TMPDIR/default" "$BATS_TEST_TMPDIR/c0"
}

@test "the same seed and options give identical bytes" {
	for fmt in jaeger zipkin otlp; do
		for opts in "" "--hints" "--span-loss 0.3 --clock-skew 25000 --kindless mysql"; do
			# shellcheck disable=SC2086
			a=$(trsim --seed 4 --traces 30 --format $fmt $opts | sha256sum)
			# shellcheck disable=SC2086
			expect_eq "$(trsim --seed 4 --traces 30 --format $fmt $opts | sha256sum)" "$a"
		done
	done
}

@test "another seed gives other bytes" {
	for fmt in jaeger zipkin otlp; do
		expect_ne "$(trsim --seed 5 --traces 30 --format $fmt | sha256sum)" "$(trsim --seed 4 --traces 30 --format $fmt | sha256sum)"
	done
}

@test "the three formats record the same spans, lost ones and clock offsets included" {
	key() { trsim --seed 2 --traces 40 --format "$1" | tr-ingest -q |
		awk -F'\t' '$1 == "S" { print $5, $6, $7, tolower($8), ($9 == "internal" ? "" : $9) }' | sort; }
	j=$(key jaeger)
	expect_nonempty "$j"
	expect_eq "$(key zipkin)" "$j"
	expect_eq "$(key otlp)" "$j"
}

@test "bad realism options are usage errors" {
	run trsim --span-loss 1.5
	expect_eq 2 "$status" status
	expect_eq 'trsim: expected a probability from 0 to 1 after: --span-loss' "${lines[0]}"
	run trsim --kindless nosuch
	expect_eq 2 "$status" status
	expect_eq 'trsim: unknown service for --kindless: nosuch' "${lines[0]}"
	run trsim --uninstrumented
	expect_eq 2 "$status" status
	run trsim --clock-skew 3600000001
	expect_eq 2 "$status" status
	expect_contains 'more than an hour' "${lines[0]}"
}
