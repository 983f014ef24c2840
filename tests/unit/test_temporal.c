/* test_temporal.c - the invariants of temporal provenance on random traces:
 * every query's self times add up to its interval (the root's duration,
 * and a wait recorded before it), no vertex is
 * annotated twice, every call's interval lies within its caller's (the
 * library counts broken ones in tp_stats.violations), and the output's D
 * records say the same. Random trees with skew, queues (tags, enqueue and
 * dequeue events, Kafka queue times), blocking receives,
 * messages across traces and shared resources, in several windows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "temporal/temporal.h"
#include "core/trace.h"
#include "core/util.h"

#include "check.h"

static const char *const kinds[] = {"server", "client", "internal", "producer", "consumer", ""};
static const char *const services[] = {"front", "db", "cache", "queue"};

/* One random trace as line-format records, one string per record. */
static size_t
random_trace(int id, char lines[][512], int64_t base)
{
	int64_t start[40], end[40];
	size_t n = 0;
	int nspans = (int)range(1, 30);

	snprintf(lines[n++], 512, "T\tt%d", id);
	for (int i = 0; i < nspans; i++) {
		int parent = i ? (int)range(0, i - 1) : -1;
		const char *kind = kinds[range(0, 5)];
		int64_t ps = parent >= 0 ? start[parent] : base + range(0, 50000);
		int64_t pe = parent >= 0 ? end[parent] : ps + range(1000, 100000);

		start[i] = ps + range(-200, (pe - ps) * 3 / 4 + 1);	/* some skew */
		end[i] = start[i] + range(0, (pe - start[i]) + 300);
		if (i == 0)
			end[i] = pe;
		char pid[16] = "";
		if (parent >= 0)
			snprintf(pid, sizeof pid, "s%d", parent);
		int n0 = snprintf(lines[n], 512, "S\tt%d\ts%d\t%s\t%lld\t%lld\t%s\t%s\t%s\th%d",
				  id, i, pid, (long long)start[i], (long long)(end[i] - start[i]),
				  services[range(0, 3)], i % 2 ? "op" : "work", kind, (int)range(0, 1));
		if (range(0, 3) == 0)
			n0 += snprintf(lines[n] + n0, 512 - (size_t)n0, "\tqueue.wait_us=%lld",
				       (long long)range(0, 20000));
		if (!strcmp(kind, "consumer") && i > 0 && range(0, 3) == 0)
			n0 += snprintf(lines[n] + n0, 512 - (size_t)n0, "\tkafka.record.queue_time_ms=%lld",
				       (long long)range(0, 20));
		if (!strcmp(kind, "consumer") && range(0, 1))
			snprintf(lines[n] + n0, 512 - (size_t)n0, "\tmessaging.operation.type=receive");
		n++;
		/* queue events below the root (whose interval the check reads
		 * from its tags): dequeues within the span or not, enqueues
		 * before, inside or after it */
		if (i > 0 && range(0, 5) == 0)
			snprintf(lines[n++], 512, "L\tt%d\ts%d\t%lld\tevent=dequeue", id, i,
				 (long long)range(start[i] - 100, end[i] + 100));
		if (i > 0 && range(0, 5) == 0)
			snprintf(lines[n++], 512, "L\tt%d\ts%d\t%lld\tevent=enqueue", id, i,
				 (long long)range(start[i] - 5000, end[i]));
		if (range(0, 6) == 0 && id > 0)
			snprintf(lines[n++], 512, "R\tt%d\ts%d\tfollows_from\tt%d\ts%d",
				 id, i, (int)range(0, id - 1), (int)range(0, 5));
		else if (range(0, 8) == 0 && i > 1)
			snprintf(lines[n++], 512, "R\tt%d\ts%d\tfollows_from\t\ts%d",
				 id, i, (int)range(0, i - 1));
	}
	return n;
}

/* The interval a query on the root explains: its duration, and a wait
 * its queue.wait_us records before it (not of a blocking receive, whose
 * message arrives at its end). */
static int64_t
recorded_wait(const char *record)
{
	const char *q = strstr(record, "\tqueue.wait_us=");

	if (!q || strstr(record, "messaging.operation.type=receive"))
		return 0;
	return atoll(q + strlen("\tqueue.wait_us="));
}

/* Sum of D self per trace must equal the interval of its root, from its S record. */
static void
check_output(const strbuf *out, int ntraces)
{
	int64_t *sum = xcalloc((size_t)ntraces, sizeof *sum);
	int64_t *root = xcalloc((size_t)ntraces, sizeof *root);
	char *copy = xstrdup(out->s ? out->s : "");
	int roots = 0;

	for (char *line = strtok(copy, "\n"); line; line = strtok(NULL, "\n")) {
		char *f[8] = {0};
		int nf = 0;
		int64_t wait = recorded_wait(line);

		for (char *p = line; nf < 8; nf++) {
			f[nf] = p;
			p = strchr(p, '\t');
			if (!p)
				break;
			*p++ = '\0';
		}
		if (nf < 5)
			continue;
		int id = atoi(f[1] + 1);
		if (!strcmp(f[0], "S") && !*f[3] && !strcmp(f[2], "s0")) {
			root[id] = atoll(f[5]) + wait;
			roots++;
		} else if (!strcmp(f[0], "D"))
			sum[id] += atoll(f[5]);
	}
	for (int i = 0; i < ntraces; i++)
		CHECK(sum[i] == root[i], "trace t%d: D records sum to %lld, the root's interval is %lld",
		      i, (long long)sum[i], (long long)root[i]);
	CHECK(roots == ntraces, "%d roots for %d traces", roots, ntraces);
	free(sum);
	free(root);
	free(copy);
}

/* Random trace id of the round into t; -1 when it does not parse. */
static int
load_random(tr_trace *t, int id, char lines[][512])
{
	static char tid[16];
	size_t n = random_trace(id, lines, (int64_t)id * 20000);

	tr_trace_reset(t);
	snprintf(tid, sizeof tid, "t%d", id);
	t->trace_id = arena_strndup(&t->mem, tid, strlen(tid));	/* tp_add_trace keeps it */
	GROW(t->recs, t->caprecs, n);
	for (size_t i = 0; i < n; i++) {
		t->recs[i].line = arena_strndup(&t->mem, lines[i], strlen(lines[i]));
		t->recs[i].len = (uint32_t)strlen(lines[i]);
		t->recs[i].file = 0;
		t->recs[i].lineno = i + 1;
	}
	t->nrecs = n;
	return tr_trace_parse(t);
}

/* One round of random traces; with real, as real data is read: per-host
 * clock offsets from a first pass, and queueing inferred. */
static void
run_round(uint64_t seed, size_t window, int ntraces, int real, int end_to_end)
{
	static char lines[200][512];
	static const char *files[] = {"<random>"};
	tp_opts o = {.format = 0, .window = window, .check = 1, .quiet = 1, .infer_queues = real,
		     .end_to_end = end_to_end};
	tr_clock *clk = real ? tr_clock_new() : NULL;
	strbuf out = {0};
	tr_trace t = {0};

	t.files = files;
	rng_state = seed;
	for (int id = 0; clk && id < ntraces; id++)
		if (load_random(&t, id, lines) == 0)
			tr_clock_add_trace(clk, &t);
	if (clk)
		tr_clock_solve(clk);
	o.clock = clk;
	temporal *tp = tp_new(&o);
	rng_state = seed;
	for (int id = 0; id < ntraces; id++) {
		if (load_random(&t, id, lines) < 0) {
			CHECK(0, "seed %llu: trace %d does not parse", (unsigned long long)seed, id);
			continue;
		}
		tp_add_trace(tp, &t, &out);
	}
	tp_finish(tp, &out);
	const tp_stats *st = tp_stats_get(tp);
	CHECK(st->violations == 0, "seed %llu window %zu real %d: %zu invariant violations",
	      (unsigned long long)seed, window, real, st->violations);
	CHECK(st->analysed == (size_t)ntraces, "seed %llu: %zu of %d analysed",
	      (unsigned long long)seed, st->analysed, ntraces);
	if (!end_to_end)	/* else the interval runs on to the last end below the root */
		check_output(&out, ntraces);
	sb_free(&out);
	tr_trace_free(&t);
	tp_free(tp);
	tr_clock_free(clk);
}

/* The Z1 incident by hand: the sum holds, and the blockers are named. */
static void
test_queue_behind_other_traces(void)
{
	static const char *files[] = {"<z1>"};
	tp_opts o = {.format = 0, .window = 100, .check = 1, .quiet = 1};
	temporal *tp = tp_new(&o);
	strbuf out = {0};
	tr_trace t = {0};
	char line[16][256];

	t.files = files;
	for (int k = 1; k <= 12; k++) {
		char tid[16];

		tr_trace_reset(&t);
		snprintf(tid, sizeof tid, "m%d", k);
		t.trace_id = arena_strndup(&t.mem, tid, strlen(tid));
		snprintf(line[0], 256, "S\tm%d\tms\t\t%d\t1000\tstorage\twrite\tserver\tb", k, (k - 1) * 1000);
		GROW(t.recs, t.caprecs, 1);
		t.recs[0] = (tr_record){.line = arena_strndup(&t.mem, line[0], strlen(line[0])),
					.len = (uint32_t)strlen(line[0])};
		t.nrecs = 1;
		CHECK(tr_trace_parse(&t) == 0, "m%d parses", k);
		tp_add_trace(tp, &t, &out);
	}
	tr_trace_reset(&t);
	t.trace_id = "c";
	snprintf(line[0], 256, "S\tc\tcomp\t\t0\t14000\tcompute\tcompute\tserver\tc");
	snprintf(line[1], 256, "S\tc\tcl\tcomp\t0\t13500\tcompute\tread\tclient\tc");
	snprintf(line[2], 256, "S\tc\tsv\tcl\t12000\t1000\tstorage\tread\tserver\tb\tqueue.wait_us=11000");
	GROW(t.recs, t.caprecs, 3);
	for (int i = 0; i < 3; i++)
		t.recs[i] = (tr_record){.line = arena_strndup(&t.mem, line[i], strlen(line[i])),
					.len = (uint32_t)strlen(line[i])};
	t.nrecs = 3;
	CHECK(tr_trace_parse(&t) == 0, "c parses");
	tp_add_trace(tp, &t, &out);
	tp_finish(tp, &out);
	CHECK(tp_stats_get(tp)->violations == 0, "no violations");
	CHECK(strstr(out.s, "D\tc\tm12\tms\tsequencing\t1000\t1000\tstorage:write on storage@b\n") != NULL,
	      "m12 blocks c");
	CHECK(strstr(out.s, "D\tc\tm1\tms\t") == NULL, "m1 ended at the arrival: pruned");
	CHECK(strstr(out.s, "D\tc\tc\tsv\ttransit\t1000\t") != NULL, "request transit 1 ms");
	sb_free(&out);
	tr_trace_free(&t);
	tp_free(tp);
}

/* The resources of a what-if re-laid with nothing changed: no queue moves,
 * whatever the recorded segments (random ready times, overlaps). */
static void
test_relay_unchanged_moves_nothing(void)
{
	tp_wseg seg[200];

	for (int round = 0; round < 50; round++) {
		size_t n = (size_t)range(1, 200);

		for (size_t i = 0; i < n; i++) {
			int64_t start = range(0, 100000), dur = range(0, 20000);
			int64_t ready = start - range(0, 30000);

			seg[i] = (tp_wseg){(int32_t)range(0, 3), ready, start, dur, dur, ready, -1, 7};
		}
		CHECK_EQ(tp_whatif_relay(seg, n), (size_t)0);
		for (size_t i = 0; i < n; i++)
			CHECK_EQ(seg[i].shift, (int64_t)0);
	}
}

/* One worker: a call that now comes first is served first (first come,
 * first served, not the recorded order), and a segment whose wait the
 * rule gives starts then and holds the worker. */
static void
test_relay_first_come_and_given_wait(void)
{
	/* recorded: A ready 0 [0,10); B ready 5 [10,15); C ready 12 [15,20) */
	tp_wseg seg[3] = {
		{0, 0, 0, 10, 10, 0, -1, 0},
		{0, 5, 10, 5, 5, 5, -1, 0},
		{0, 12, 15, 5, 5, 2, -1, 0},	/* C now comes at 2 */
	};

	tp_whatif_relay(seg, 3);
	CHECK_EQ(seg[2].shift, (int64_t)(3 - 8));	/* waited 3, now 8: [10,15) */
	CHECK_EQ(seg[1].shift, (int64_t)(5 - 10));	/* behind C now: [15,20) */
	/* A's wait given: 0 then it starts at 30, holding the worker past B */
	seg[0] = (tp_wseg){0, 0, 0, 10, 10, 30, 0, 0};
	seg[2] = (tp_wseg){0, 12, 15, 5, 5, 12, -1, 0};
	tp_whatif_relay(seg, 3);
	CHECK_EQ(seg[1].shift, (int64_t)5);	/* B no longer behind A: [5,10) */
	CHECK_EQ(seg[2].shift, (int64_t)3);	/* C at 12: [12,17) */
}

int
main(void)
{
	tr_setprogname("test_temporal");
	test_queue_behind_other_traces();
	test_relay_unchanged_moves_nothing();
	test_relay_first_come_and_given_wait();
	for (uint64_t seed = 1; seed <= 40; seed++)
		for (int real = 0; real <= 1; real++) {
			run_round(seed, seed % 4 == 0 ? 1 : seed % 4 == 1 ? 3 : 64, 120, real, 0);
			run_round(seed, seed % 4 == 0 ? 1 : 64, 120, real, 1);
		}
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
