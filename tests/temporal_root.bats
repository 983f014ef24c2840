#!/usr/bin/env bats
# tr-temporal: a root span's recorded queueing is treated as a called span's
# is, and the explicit evidence of a wait (queue.wait_us, enqueue and
# dequeue log events, the receive that delivered a message) wins over
# inference. Fixtures in µs; the expected answers worked out by hand under
# Zeno's rules (a wait on a resource goes back along its worker chain).

load helper

TAB=$'\t'

# S record: trace span parent start dur service op kind host [tags...]
s() {
	local IFS="$TAB"
	printf 'S\t%s\n' "$*"
}

# api@a, one worker, busy with two jobs of other traces: b1 [0,3000] and
# b2 [3000,5000]. $1: the records of trace req (after its T record).
busy_api() {
	printf '#tr/1\nT\tb1\n'
	s b1 j1 '' 0 3000 api 'batch 1' server a
	printf 'T\tb2\n'
	s b2 j2 '' 3000 2000 api 'batch 2' server a
	printf 'T\treq\n'
	printf '%s\n' "$1"
}

# The self time of cause $2 (span id, or trace/span) in role $3 of trace $1.
dself() {
	printf '%s\n' "$output" | awk -F'\t' -v t="$1" -v id="$2" -v role="$3" '
		$1 == "D" && $2 == t && ($4 == id || $3 "/" $4 == id) && $5 == role { print $6 }'
}

# The sum of trace $1's D records.
dtotal() {
	printf '%s\n' "$output" | awk -F'\t' -v t="$1" '$1 == "D" && $2 == t { s += $6 } END { print s + 0 }'
}

# req arrived at 1000 (queue.wait_us=4000 before its start at 5000) and
# waited behind b1's [1000,3000] and b2's [3000,5000]: the question is
# [1000,7000], 6000 µs: 2000 own work, 2000 + 2000 sequencing.
@test "a root's queue.wait_us: its wait is queueing behind the work on its resource" {
	f=$(busy_api "$(s req r '' 5000 2000 api 'GET /x' server a queue.wait_us=4000)" | mkfix roottag.tr)
	run tr-temporal -t req "$f"
	expect_eq 0 "$status" status
	expect_eq 2000 "$(dself req r onpath)"
	expect_eq 2000 "$(dself req b2/j2 sequencing)"
	expect_eq 2000 "$(dself req b1/j1 sequencing)"
	expect_eq 6000 "$(dtotal req)"
	run tr-temporal --check -t req "$f"
	expect_eq 0 "$status" status
}

# The same request called by web (client [0,8000] on host c; transit 0 by
# construction of the times): the same 4000 µs of queueing, the same causes.
@test "the same wait on a called server is split the same way (the rule the root follows)" {
	f=$(busy_api "$(s req w '' 0 8000 web 'GET /' server c
		s req wc w 0 8000 web 'GET /x' client c
		s req r wc 5000 2000 api 'GET /x' server a queue.wait_us=4000)" | mkfix childtag.tr)
	run tr-temporal --no-clock-offsets -t req "$f"
	expect_eq 0 "$status" status
	expect_eq 2000 "$(dself req b2/j2 sequencing)"
	expect_eq 2000 "$(dself req b1/j1 sequencing)"
	expect_eq 2000 "$(dself req r onpath)"
}

@test "a root's enqueue log before its start counts as its arrival" {
	f=$(busy_api "$(s req r '' 5000 2000 api 'GET /x' server a
		printf 'L\treq\tr\t1000\tevent=enqueue\n')" | mkfix rootenq.tr)
	run tr-temporal -t req "$f"
	expect_eq 0 "$status" status
	expect_eq 2000 "$(dself req b2/j2 sequencing)"
	expect_eq 2000 "$(dself req b1/j1 sequencing)"
	expect_eq 6000 "$(dtotal req)"
}

# Nothing recorded and no caller: nothing to infer an arrival from, the
# question starts at the root's start and the batch is not blamed.
@test "a root with no recorded wait is explained from its start (the control)" {
	f=$(busy_api "$(s req r '' 5000 2000 api 'GET /x' server a)" | mkfix rootplain.tr)
	run tr-temporal -t req "$f"
	expect_eq 0 "$status" status
	expect_eq 2000 "$(dself req r onpath)"
	expect_eq 2000 "$(dtotal req)"
	expect_empty "$(dself req b2/j2 sequencing)"
}

# The span starts when the request is received (1000) and logs a dequeue
# at 5000: it waited [1000,5000) behind b1 and b2, worked [5000,7000].
@test "a dequeue log: the wait ends there, not at the span's start" {
	f=$(busy_api "$(s req r '' 1000 6000 api 'GET /x' server a
		printf 'L\treq\tr\t5000\tevent=dequeue\n')" | mkfix rootdeq.tr)
	run tr-temporal -v -t req "$f"
	expect_eq 0 "$status" status
	expect_eq 2000 "$(dself req r onpath)"
	expect_eq 2000 "$(dself req b2/j2 sequencing)"
	expect_eq 2000 "$(dself req b1/j1 sequencing)"
	expect_eq 6000 "$(dtotal req)"
	expect_lacks 'capacity exceeded' "$output"
	run tr-temporal --check -t req "$f"
	expect_eq 0 "$status" status
}

# Own work [0,1000), an enqueue at 1000, queued behind b1 [1000,3000] and
# b2 [3000,5000], dequeued at 5000, own work [5000,7000]: 3000 own.
@test "an enqueue and a dequeue inside a span: the wait between them is queueing" {
	f=$({
		printf '#tr/1\nT\tb1\n'
		s b1 j1 '' 1000 2000 api 'batch 1' server a
		printf 'T\tb2\n'
		s b2 j2 '' 3000 2000 api 'batch 2' server a
		printf 'T\treq\n'
		s req r '' 0 7000 api 'GET /x' server a
		printf 'L\treq\tr\t1000\tevent=enqueue\n'
		printf 'L\treq\tr\t5000\tevent=dequeue\n'
	} | mkfix inspan.tr)
	run tr-temporal -t req "$f"
	expect_eq 0 "$status" status
	expect_eq 3000 "$(dself req r onpath)"
	expect_eq 2000 "$(dself req b2/j2 sequencing)"
	expect_eq 2000 "$(dself req b1/j1 sequencing)"
	expect_eq 7000 "$(dtotal req)"
}

# A called server that logs a dequeue: recorded evidence, so nothing is
# inferred (the same answer with --no-infer-queues).
@test "a dequeue on a called server wins over inference" {
	f=$(busy_api "$(s req w '' 0 8000 web 'GET /' server c
		s req wc w 0 8000 web 'GET /x' client c
		s req r wc 1000 6000 api 'GET /x' server a
		printf 'L\treq\tr\t5000\tevent=dequeue\n')" | mkfix childdeq.tr)
	for opt in --no-clock-offsets --no-infer-queues; do
		run tr-temporal "$opt" --no-clock-offsets -t req "$f"
		expect_eq 0 "$status" status
		expect_eq 2000 "$(dself req b2/j2 sequencing)"
		expect_eq 2000 "$(dself req b1/j1 sequencing)"
		expect_eq 2000 "$(dself req r onpath)"
	done
}

# OpenTelemetry's messaging spans: a "receive" consumer span [0,1000]
# delivers messages that "process" spans below it handle one after another
# on the consumer: p2's message arrived at 1000 and waited behind p1.
@test "a process span below a receive: its message arrived when the receive ended" {
	f=$({
		printf '#tr/1\nT\tpoll\n'
		s poll rc '' 0 1000 orders poll consumer k messaging.operation.type=receive
		s poll p1 rc 1000 3000 orders 'process order' consumer k messaging.operation.type=process
		s poll p2 rc 4000 2000 orders 'process order' consumer k messaging.operation.type=process
	} | mkfix receive.tr)
	for opt in --no-clock-offsets --no-infer-queues; do
		run tr-temporal "$opt" --span p2 "$f"
		expect_eq 0 "$status" status
		expect_eq 2000 "$(dself poll p2 onpath)"
		expect_eq 3000 "$(dself poll p1 sequencing)"
		expect_eq 5000 "$(dtotal poll)"
	done
	run tr-temporal --check --span p2 "$f"
	expect_eq 0 "$status" status
}

@test "a process span with its own queue.wait_us: the tag wins over the receive" {
	f=$({
		printf '#tr/1\nT\tpoll\n'
		s poll rc '' 0 1000 orders poll consumer k messaging.operation.type=receive
		s poll p1 rc 1000 3000 orders 'process order' consumer k messaging.operation.type=process
		s poll p2 rc 4000 2000 orders 'process order' consumer k messaging.operation.type=process queue.wait_us=1000
	} | mkfix receivetag.tr)
	run tr-temporal --span p2 "$f"
	expect_eq 0 "$status" status
	expect_eq 1000 "$(dself poll p1 sequencing)"
	expect_eq 3000 "$(dtotal poll)"
}

# OpenTelemetry's Java Kafka instrumentation records, on a consumer span,
# kafka.record.queue_time_ms: from the record's timestamp to the span's
# start. 4 ms before 5000: the message arrived at 1000, as in the first case.
@test "a consumer's kafka.record.queue_time_ms is its recorded wait" {
	f=$(busy_api "$(s req r '' 5000 2000 api 'process order' consumer a kafka.record.queue_time_ms=4)" | mkfix kafka.tr)
	for opt in --no-clock-offsets --no-infer-queues; do
		run tr-temporal "$opt" -t req "$f"
		expect_eq 0 "$status" status
		expect_eq 2000 "$(dself req r onpath)"
		expect_eq 2000 "$(dself req b2/j2 sequencing)"
		expect_eq 2000 "$(dself req b1/j1 sequencing)"
		expect_eq 6000 "$(dtotal req)"
	done
}
