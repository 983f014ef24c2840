/* test_query_hb.c - happened-before over span trees: on random trees, ->
 * is irreflexive and transitive, agrees with its definition evaluated the
 * slow way, and pre-order is a linear extension of it (First). Async
 * children have their own test (test_query_hb_async.c). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "query/query.h"

#define CHECK_NO_RNG
#include "check.h"

static unsigned long long rng = 88172645463325252ULL;

static unsigned
rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

/* Write a random trace: spans with random parents (a few roots), times that
 * often tie or touch, some spans without time, some logs. */
static void
write_trace(FILE *f, int id, int n, int nlogs)
{
	fprintf(f, "T\tt%d\n", id);
	for (int i = 0; i < n; i++) {
		int parent = i == 0 || rnd(8) == 0 ? -1 : (int)rnd((unsigned)i);
		char pid[16] = "";
		if (parent >= 0)
			snprintf(pid, sizeof pid, "s%03d", parent);
		/* one draw per statement: the order of a call's arguments is the
		 * compiler's, and the traces must not depend on it */
		if (rnd(12) == 0) {
			fprintf(f, "S\tt%d\ts%03d\t%s\t\t\tsvc\top\t\t\ttr.no_time=true\n", id, i, pid);
		} else {
			unsigned start = rnd(30), a = rnd(4), b = rnd(6);

			fprintf(f, "S\tt%d\ts%03d\t%s\t%u\t%u\tsvc\top\t\t\n", id, i, pid, start, a * b);
		}
	}
	for (int i = 0; i < nlogs; i++) {
		unsigned span = rnd((unsigned)n), time = rnd(40);

		fprintf(f, "L\tt%d\ts%03u\t%u\tevent=e%d\n", id, span, time, i);
	}
}

/* Node facts for the slow definition. */
typedef struct node {
	int parent, timed, is_log, idx;
	int64_t start, end;
} node;

static int
key_less(const node *a, const node *b)
{
	int64_t sa = a->timed ? a->start : INT64_MAX, sb = b->timed ? b->start : INT64_MAX;
	if (sa != sb)
		return sa < sb;
	if (a->is_log != b->is_log)
		return a->is_log < b->is_log;
	return a->idx < b->idx;
}

/* Does v's parent (the trace, for a root) wait for it? These trees have
 * no async links: it must have a time, and end by its parent's end. */
static int
joined(const node *nd, int v)
{
	int p = nd[v].parent;
	return nd[v].timed && (p < 0 || (nd[p].timed && nd[v].end <= nd[p].end));
}

/* a -> b by the definition: a a proper ancestor of b; or x ancestor-or-self
 * of a and y of b, siblings, x joined and before y in sibling order, x
 * ended before y started, and every node from a up to x (x excluded)
 * joined, so that a's work returned with x. */
static int
slow_hb(const node *nd, int a, int b, int tree_only)
{
	for (int p = nd[b].parent; p >= 0; p = nd[p].parent)
		if (p == a)
			return 1;
	if (tree_only)
		return 0;
	int returns = 1;	/* a's work reaches x */
	for (int x = a; x >= 0 && returns; returns = joined(nd, x), x = nd[x].parent)
		for (int y = b; y >= 0; y = nd[y].parent)
			if (x != y && nd[x].parent == nd[y].parent && joined(nd, x) && nd[y].timed &&
			    nd[x].end <= nd[y].start && key_less(&nd[x], &nd[y]))
				return 1;
	return 0;
}

static long nrelated;	/* pairs related by ->, over the random traces */

static void
check_trace(tr_trace *t)
{
	arena mem = {0};
	int ns = (int)t->nspans, n = ns + (int)t->nlogs;
	node *nd = calloc((size_t)n, sizeof *nd);
	query_hb_index *h = query_hb_build(t, 1, &mem);
	int bad_irr = 0, bad_trans = 0, bad_def = 0, bad_order = 0, bad_tree = 0, nrel = 0;

	for (int i = 0; i < ns; i++) {
		const tr_span *s = &t->spans[i];
		nd[i] = (node){s->parent, (s->flags & TR_SPAN_HAS_TIME) != 0, 0, i, s->start,
			       s->start + s->duration};
	}
	for (int i = 0; i < (int)t->nlogs; i++)
		nd[ns + i] = (node){t->logs[i].span, 1, 1, i, t->logs[i].time, t->logs[i].time};
	for (int a = 0; a < n; a++) {
		if (query_hb_before(h, a, a, QUERY_HB_SEQ))
			bad_irr++;
		for (int b = 0; b < n; b++) {
			int hb = query_hb_before(h, a, b, QUERY_HB_SEQ);
			nrel += hb;
			if (hb != slow_hb(nd, a, b, 0))
				bad_def++;
			if (query_hb_before(h, a, b, QUERY_HB_TREE) != slow_hb(nd, a, b, 1))
				bad_tree++;
			if (hb && query_hb_order(h, a) >= query_hb_order(h, b))
				bad_order++;
			if (!hb)
				continue;
			for (int c = 0; c < n; c++)
				if (query_hb_before(h, b, c, QUERY_HB_SEQ) &&
				    !query_hb_before(h, a, c, QUERY_HB_SEQ))
					bad_trans++;
		}
	}
	CHECK_EQ(bad_irr, 0);
	CHECK_EQ(bad_trans, 0);
	CHECK_EQ(bad_def, 0);
	CHECK_EQ(bad_tree, 0);
	CHECK_EQ(bad_order, 0);
	nrelated += nrel;	/* over all traces: the relation is not empty */
	free(nd);
	arena_free(&mem);
}

int
main(void)
{
	char path[] = "/tmp/test_query_hbXXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	int ntraces = 150;

	fprintf(f, "#tr/1\n");
	for (int i = 0; i < ntraces; i++)
		write_trace(f, i, 2 + (int)rnd(30), (int)rnd(8));
	/* a chain 3000 deep: the index climbs it without recursion */
	fprintf(f, "T\tdeep\n");
	for (int i = 0; i < 3000; i++) {
		if (i)
			fprintf(f, "S\tdeep\td%04d\td%04d\t%d\t%d\tsvc\top\t\t\n", i, i - 1, i, 6000 - 2 * i);
		else
			fprintf(f, "S\tdeep\td%04d\t\t0\t6000\tsvc\top\t\t\n", i);
	}
	fprintf(f, "S\tdeep\tlate\td0000\t5999\t1\tsvc\top\t\t\n");
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
		seen++;
		if (strcmp(t->trace_id, "deep") != 0) {
			check_trace(t);
			continue;
		}
		arena mem = {0};
		query_hb_index *h = query_hb_build(t, 0, &mem);
		int32_t top = tr_trace_find(t, "d0000"), bottom = tr_trace_find(t, "d2999");
		int32_t late = tr_trace_find(t, "late"), mid = tr_trace_find(t, "d1500");
		CHECK(query_hb_before(h, top, bottom, QUERY_HB_SEQ));
		CHECK(!query_hb_before(h, bottom, top, QUERY_HB_SEQ));
		/* d0001 = [1, 5999) ends as "late" starts: it and all under it (each
		 * within its parent) precede it */
		CHECK(query_hb_before(h, bottom, late, QUERY_HB_SEQ));
		CHECK(query_hb_before(h, mid, late, QUERY_HB_SEQ));
		CHECK(!query_hb_before(h, mid, late, QUERY_HB_TREE));
		arena_free(&mem);
	}
	CHECK_EQ(seen, ntraces + 1);
	CHECK(nrelated > 0);
	tr_reader_free(r);
	unlink(path);
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
