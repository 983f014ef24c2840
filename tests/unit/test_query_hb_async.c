/* test_query_hb_async.c - happened-before on random trees with async work:
 * CONSUMER and FOLLOWS_FROM children, children that outlive their parents,
 * spans without time, logs. On every tree -> is irreflexive, transitive and
 * antisymmetric, a proper ancestor precedes its descendants, pre-order is a
 * linear extension, and nothing in an async branch precedes what lies
 * outside it. On trees where no span starts before its parent (any clock
 * skew removed), a -> b never holds when a starts after b ends. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "query/query.h"

#define CHECK_NO_RNG
#include "check.h"

static unsigned long long rng = 0x9e3779b97f4a7c15ULL;

static unsigned
rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

/* A random trace. Causal ones start each span at or after its parent;
 * skewed ones anywhere. Durations often let a child outlive its parent;
 * times are small so that ties and touching intervals are common. */
static void
write_trace(FILE *f, int id, int n, int nlogs, int causal)
{
	int64_t start[64];

	fprintf(f, "T\tt%d\n", id);
	for (int i = 0; i < n; i++) {
		int parent = i == 0 || rnd(10) == 0 ? -1 : (int)rnd((unsigned)i);
		const char *kind = rnd(5) == 0 ? "consumer" : rnd(4) == 0 ? "producer" : "";
		char pid[16] = "";
		if (parent >= 0)
			snprintf(pid, sizeof pid, "s%03d", parent);
		start[i] = causal && parent >= 0 ? start[parent] + rnd(12) : rnd(40);
		if (rnd(15) == 0) {
			fprintf(f, "S\tt%d\ts%03d\t%s\t\t\tsvc\top\t%s\t\ttr.no_time=true\n", id, i, pid,
				kind);
			start[i] = causal && parent >= 0 ? start[parent] : 0;
		} else
			fprintf(f, "S\tt%d\ts%03d\t%s\t%lld\t%u\tsvc\top\t%s\t\n", id, i, pid,
				(long long)start[i], rnd(3) * rnd(9), kind);
		if (parent >= 0 && rnd(6) == 0)
			fprintf(f, "R\tt%d\ts%03d\tfollows_from\tt%d\ts%03d\n", id, i, id, parent);
	}
	for (int i = 0; i < nlogs; i++) {
		int s = (int)rnd((unsigned)n);
		fprintf(f, "L\tt%d\ts%03d\t%lld\tevent=e%d\n", id, s, (long long)start[s] + rnd(10), i);
	}
}

typedef struct node {
	int parent, timed;
	int64_t start, end;
	int async;		/* not waited for by its parent (see query_hb.c) */
} node;

static int
is_ancestor(const node *nd, int a, int b)
{
	for (int p = nd[b].parent; p >= 0; p = nd[p].parent)
		if (p == a)
			return 1;
	return 0;
}

/* The topmost async node on the path from a up to (not including) the
 * lowest common ancestor of a and b, or -1: a's work then cannot leave it. */
static int
async_below_lca(const node *nd, int a, int b)
{
	int top = -1;
	for (int x = a; x >= 0 && x != b && !is_ancestor(nd, x, b); x = nd[x].parent)
		if (nd[x].async)
			top = x;
	return top;
}

static void
facts(const tr_trace *t, node *nd)
{
	int ns = (int)t->nspans;

	for (int i = 0; i < ns; i++) {
		const tr_span *s = &t->spans[i];
		nd[i] = (node){s->parent, (s->flags & TR_SPAN_HAS_TIME) != 0, s->start,
			       s->start + s->duration, 0};
	}
	for (int i = 0; i < (int)t->nlogs; i++)
		nd[ns + i] = (node){t->logs[i].span, 1, t->logs[i].time, t->logs[i].time, 0};
	for (int i = 0; i < ns + (int)t->nlogs; i++) {
		int p = nd[i].parent;
		const tr_span *s = i < ns ? &t->spans[i] : NULL;
		/* roots with times are sequenced among themselves whatever their kind */
		nd[i].async = !nd[i].timed || (p >= 0 && (!nd[p].timed || nd[i].end > nd[p].end ||
			      (s && ((s->flags & TR_SPAN_FOLLOWS) || s->kind == TR_KIND_CONSUMER))));
	}
}

typedef struct tally {
	int irreflexive, transitive, antisymmetric, ancestry, order, time, async, relations;
	int async_pairs;
} tally;

static void
check_trace(tr_trace *t, int causal, tally *bad)
{
	arena mem = {0};
	int n = (int)t->nspans + (int)t->nlogs;
	node *nd = calloc((size_t)n, sizeof *nd);
	uint8_t *hb = calloc((size_t)n * (size_t)n, 1);
	query_hb_index *h = query_hb_build(t, 1, &mem);

	facts(t, nd);
	for (int a = 0; a < n; a++)
		for (int b = 0; b < n; b++)
			hb[a * n + b] = (uint8_t)query_hb_before(h, a, b, QUERY_HB_SEQ);
	for (int a = 0; a < n; a++) {
		bad->irreflexive += hb[a * n + a];
		for (int b = 0; b < n; b++) {
			int ab = hb[a * n + b];
			bad->relations += ab;
			if (a != b && is_ancestor(nd, a, b) && !ab)
				bad->ancestry++;
			int top = a != b ? async_below_lca(nd, a, b) : -1;
			if (top >= 0 && !is_ancestor(nd, a, b)) {
				bad->async_pairs++;
				bad->async += ab;
			}
			if (!ab)
				continue;
			bad->antisymmetric += hb[b * n + a];
			if (query_hb_order(h, a) >= query_hb_order(h, b))
				bad->order++;
			if (causal && nd[a].timed && nd[b].timed && nd[a].start > nd[b].end)
				bad->time++;
			for (int c = 0; c < n; c++)
				if (hb[b * n + c] && !hb[a * n + c])
					bad->transitive++;
		}
	}
	free(hb);
	free(nd);
	arena_free(&mem);
}

/* The two inversions of the old rule, by hand: a FOLLOWS_FROM child and a
 * CONSUMER outlive their parent, which ended before its later sibling. */
static void
check_by_hand(tr_trace *t)
{
	arena mem = {0};
	query_hb_index *h = query_hb_build(t, 0, &mem);
	int32_t root = tr_trace_find(t, "root"), p = tr_trace_find(t, "p");
	int32_t ff = tr_trace_find(t, "ff"), ffkid = tr_trace_find(t, "ffkid");
	int32_t cons = tr_trace_find(t, "cons"), sync = tr_trace_find(t, "sync");
	int32_t later = tr_trace_find(t, "later"), next = tr_trace_find(t, "next");

	CHECK(query_hb_before(h, p, later, QUERY_HB_SEQ));	/* p returned at 20 */
	CHECK(query_hb_before(h, sync, later, QUERY_HB_SEQ));	/* returned with p */
	CHECK(!query_hb_before(h, ff, later, QUERY_HB_SEQ));	/* [15, 90): a branch */
	CHECK(!query_hb_before(h, ffkid, later, QUERY_HB_SEQ));
	CHECK(!query_hb_before(h, cons, later, QUERY_HB_SEQ));	/* ended at 25: still no */
	CHECK(!query_hb_before(h, later, ff, QUERY_HB_SEQ));	/* concurrent both ways */
	CHECK(query_hb_before(h, p, ffkid, QUERY_HB_SEQ));	/* the call carries it */
	CHECK(query_hb_before(h, root, cons, QUERY_HB_SEQ));
	CHECK(query_hb_before(h, sync, ffkid, QUERY_HB_SEQ));	/* returned to p first */
	CHECK(query_hb_before(h, later, next, QUERY_HB_SEQ));
	CHECK(query_hb_before(h, p, next, QUERY_HB_SEQ));
	CHECK(!query_hb_before(h, ff, next, QUERY_HB_SEQ));
	/* MostRecent's key: an ancestor when it began, anything else when it ended */
	CHECK_EQ(query_hb_reached(h, root, later), 0);
	CHECK_EQ(query_hb_reached(h, p, later), 20);
	CHECK_EQ(query_hb_reached(h, later, p), 40);
	arena_free(&mem);
}

int
main(void)
{
	char path[] = "/tmp/test_query_hb_asyncXXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	int ntraces = 600;
	tally bad = {0};

	fprintf(f, "#tr/1\n");
	for (int i = 0; i < ntraces; i++)
		write_trace(f, i, 2 + (int)rnd(30), (int)rnd(6), i % 2 == 0);
	/* root [0,100): p [5,20) calls sync [6,12), then ff [15,90) FOLLOWS_FROM
	 * p (with ffkid [16,80)) and producer prod [17,18) with cons [19,25);
	 * later [30,40) and next [45,50) follow p */
	fprintf(f, "T\thand\n"
		"S\thand\troot\t\t0\t100\tsvc\troot\tserver\t\n"
		"S\thand\tp\troot\t5\t15\tsvc\tp\tclient\t\n"
		"S\thand\tsync\tp\t6\t6\tsvc\tsync\t\t\n"
		"S\thand\tff\tp\t15\t75\tsvc\tff\t\t\n"
		"R\thand\tff\tfollows_from\thand\tp\n"
		"S\thand\tffkid\tff\t16\t64\tsvc\tffkid\t\t\n"
		"S\thand\tprod\tp\t17\t1\tsvc\tprod\tproducer\t\n"
		"S\thand\tcons\tprod\t19\t6\tsvc\tcons\tconsumer\t\n"
		"S\thand\tlater\troot\t30\t10\tsvc\tlater\tclient\t\n"
		"S\thand\tnext\troot\t45\t5\tsvc\tnext\tclient\t\n");
	fclose(f);

	char *files[] = {path};
	tr_reader *r = tr_reader_new(files, 1);
	tr_trace *t;
	const char *line;
	size_t len;
	int seen = 0;
	for (;;) {
		enum tr_next k = tr_reader_next(r, &t, &line, &len);
		if (k == TR_EOF)
			break;
		if (k != TR_TRACE)
			continue;
		if (strcmp(t->trace_id, "hand") == 0) {
			check_by_hand(t);
			continue;
		}
		check_trace(t, atoi(t->trace_id + 1) % 2 == 0, &bad);
		seen++;
	}
	CHECK_EQ(seen, ntraces);
	CHECK_EQ(bad.irreflexive, 0);
	CHECK_EQ(bad.transitive, 0);
	CHECK_EQ(bad.antisymmetric, 0);
	CHECK_EQ(bad.ancestry, 0);
	CHECK_EQ(bad.order, 0);
	CHECK_EQ(bad.time, 0);
	CHECK_EQ(bad.async, 0);
	/* the trees have the shapes the properties are about */
	CHECK(bad.relations > 10000);
	CHECK(bad.async_pairs > 1000);
	tr_reader_free(r);
	unlink(path);
	printf("%d passed, %d failed (%d relations, %d pairs from async branches)\n", passed,
	       failed, bad.relations, bad.async_pairs);
	return failed != 0;
}
