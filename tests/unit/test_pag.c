/* test_pag.c - the PAG library: records, lanes, windows, path counts, CP,
 * the instrumentation properties. Hand-checked examples from the issue. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pag/pag.h"

#include "check.h"

#define NEAR(a, b) check_near((a), (b), 1e-9, #a, #b, __FILE__, __LINE__)

static void
feed(pag_graph *g, const char *line)
{
	if (pag_read_record(g, line, strlen(line), "test") < 0) {
		fprintf(stderr, "bad record: %s\n", line);
		exit(2);
	}
}

/* What one run over the windows saw. */
#define MAXW 8
typedef struct seen {
	size_t nwin;
	int64_t ts[MAXW], te[MAXW];
	double log2n[MAXW], sum[MAXW];
	double cp[MAXW][64];	/* by graph edge */
	pag_violations v[MAXW];
} seen;

static void
collect(void *ctx, const pag_graph *g, const pag_snap *s)
{
	seen *x = ctx;
	double cp[256];
	pag_count n;
	size_t w = x->nwin++;

	if (w >= MAXW || s->nedges > 256)
		return;
	pag_snap_cp(g, s, cp, &n);
	x->ts[w] = s->ts;
	x->te[w] = s->te;
	x->log2n[w] = pag_count_log2(n);
	for (size_t i = 0; i < s->nedges; i++) {
		x->sum[w] += cp[i];
		if (s->edge[i] < 64)
			x->cp[w][s->edge[i]] = cp[i];
	}
	pag_snap_check(g, s, NULL, &x->v[w]);
}

/* Worker A: a1 [0,2], a2 [2,5]; worker B: waiting [0,3], b1 [3,5]; a message
 * from A at 2 reaches B at 3. Edges 0..4: a1, a2, wait, b1, msg. */
static void
example_graph(pag_graph *g, int64_t window, int64_t origin)
{
	char pg[64];

	pag_graph_init(g);
	snprintf(pg, sizeof pg, "PG\t\t%lld\t%lld\t0\t5", (long long)window, (long long)origin);
	feed(g, pg);
	feed(g, "PW\t\t0\tA\t0");
	feed(g, "PW\t\t1\tB\t0");
	feed(g, "PE\t\t1\t2\tprocessing\t0\t2\t0\t0\ta\ta1");
	feed(g, "PE\t\t2\t3\tprocessing\t2\t5\t0\t0\ta\ta2");
	feed(g, "PE\t\t4\t5\twaiting\t0\t3\t1\t1\tb\twait");
	feed(g, "PE\t\t5\t6\tprocessing\t3\t5\t1\t1\tb\tb1");
	feed(g, "PE\t\t2\t5\tmessage\t2\t3\t0\t1");
	pag_read_finish(g);
}

static void
test_example_whole_window(void)
{
	pag_graph g;
	seen x = {0};

	example_graph(&g, 5, 0);
	pag_windows(&g, collect, &x);
	CHECK_EQ(x.nwin, 1);
	CHECK_EQ(x.ts[0], 0);
	CHECK_EQ(x.te[0], 5);
	NEAR(x.log2n[0], 1);	/* N = 2 */
	NEAR(x.cp[0][0], 0.4);
	NEAR(x.cp[0][1], 0.3);
	NEAR(x.cp[0][2], 0);	/* waiting is never critical */
	NEAR(x.cp[0][3], 0.2);
	NEAR(x.cp[0][4], 0.1);
	NEAR(x.sum[0], 1);
	CHECK_EQ(x.v[0].no_input, 0);
	CHECK_EQ(x.v[0].all_waiting, 0);
	pag_graph_free(&g);
}

static void
test_example_projected_window(void)
{
	pag_graph g;
	seen x = {0};

	example_graph(&g, 3, 1);	/* windows [-2,1], [1,4], [4,7] */
	pag_windows(&g, collect, &x);
	CHECK_EQ(x.nwin, 3);
	CHECK_EQ(x.ts[1], 1);
	CHECK_EQ(x.te[1], 4);
	NEAR(x.log2n[1], 1);
	NEAR(x.cp[1][0], 1.0 / 3);
	NEAR(x.cp[1][1], 1.0 / 3);
	NEAR(x.cp[1][3], 1.0 / 6);
	NEAR(x.cp[1][4], 1.0 / 6);
	for (size_t w = 0; w < x.nwin; w++)
		NEAR(x.sum[w], 1);
	/* [-2,1]: only a1's and the wait's first unit: a1 takes it all */
	NEAR(x.cp[0][0], 1);
	pag_graph_free(&g);
}

/* A chain of k diamonds: 2^k paths from the first vertex to the last. */
static void
diamond_chain(pag_graph *g, int k)
{
	char line[128];
	uint32_t v = 0;

	pag_graph_init(g);
	for (int i = 0; i < k; i++) {
		int64_t t = 2 * i;
		/* v -> up -> next and v -> down -> next, up and down on lanes 1 and 2 */
		snprintf(line, sizeof line, "PE\t\t%u\t%u\trequest\t%lld\t%lld\t0\t1", v, v + 1,
			 (long long)t, (long long)t + 1);
		feed(g, line);
		snprintf(line, sizeof line, "PE\t\t%u\t%u\trequest\t%lld\t%lld\t0\t2", v, v + 2,
			 (long long)t, (long long)t + 1);
		feed(g, line);
		snprintf(line, sizeof line, "PE\t\t%u\t%u\tresponse\t%lld\t%lld\t1\t0", v + 1, v + 3,
			 (long long)t + 1, (long long)t + 2);
		feed(g, line);
		snprintf(line, sizeof line, "PE\t\t%u\t%u\tresponse\t%lld\t%lld\t2\t0", v + 2, v + 3,
			 (long long)t + 1, (long long)t + 2);
		feed(g, line);
		v += 3;
	}
	pag_read_finish(g);
}

typedef struct big {
	double log2n, sum;
} big;

static void
big_window(void *ctx, const pag_graph *g, const pag_snap *s)
{
	big *b = ctx;
	double *cp = malloc(s->nedges * sizeof *cp);
	pag_count n;

	pag_snap_cp(g, s, cp, &n);
	b->log2n = pag_count_log2(n);
	for (size_t i = 0; i < s->nedges; i++)
		b->sum += cp[i];
	free(cp);
}

static void
test_more_paths_than_64_bits(void)
{
	int sizes[] = {70, 20000};	/* 2^20000 is beyond long double too */

	for (size_t i = 0; i < 2; i++) {
		pag_graph g;
		big b = {0};

		diamond_chain(&g, sizes[i]);
		pag_windows(&g, big_window, &b);
		NEAR(b.log2n, sizes[i]);
		CHECK_NEAR(b.sum, 1, 1e-9);	/* CP of a diamond chain sums to 1 */
		pag_graph_free(&g);
	}
}

static void
test_counts(void)
{
	pag_count a = pag_count_of(3), b = pag_count_of(5);
	char buf[64];

	NEAR(pag_count_ratio(pag_count_add(a, b), pag_count_of(8)), 1);
	NEAR(pag_count_ratio(pag_count_mul(a, b), pag_count_of(15)), 1);
	pag_count_format(buf, sizeof buf, pag_count_of(6));
	CHECK_STR(buf, "6");
	pag_count p = pag_count_of(1);
	for (int i = 0; i < 3000; i++)
		p = pag_count_mul(p, pag_count_of(2));
	pag_count_format(buf, sizeof buf, p);	/* 2^3000 = 1.23023e+903 */
	CHECK_EQ(strncmp(buf, "1.23023e+903", 12), 0);
	CHECK_EQ(pag_count_of(0).m, 0);
	CHECK_EQ(pag_count_ratio(pag_count_of(0), a), 0);
}

/* Property 1: a vertex inside the window that only a waiting edge enters.
 * Property 2: both lanes wait over [2,4] and no message is in flight. */
static void
test_properties(void)
{
	pag_graph g;
	seen x = {0};

	pag_graph_init(&g);
	feed(&g, "PE\t\t0\t1\tprocessing\t0\t2\t0\t0");
	feed(&g, "PE\t\t1\t2\twaiting\t2\t4\t0\t0");
	feed(&g, "PE\t\t2\t3\tprocessing\t4\t6\t0\t0");
	feed(&g, "PE\t\t4\t5\tprocessing\t0\t1\t1\t1");
	feed(&g, "PE\t\t5\t6\twaiting\t1\t5\t1\t1");
	feed(&g, "PE\t\t6\t7\tprocessing\t5\t6\t1\t1");
	pag_read_finish(&g);
	pag_windows(&g, collect, &x);
	CHECK_EQ(x.nwin, 1);
	CHECK_EQ(x.v[0].no_input, 2);	/* vertices 2 and 6: out of the blue */
	CHECK_EQ(x.v[0].all_waiting, 1);
	CHECK_EQ(x.v[0].all_waiting_us, 2);
	/* no path crosses the window: the longest ones (Def. 7) are lane 0's
	 * two processing stretches of 2 */
	NEAR(x.log2n[0], 1);
	NEAR(x.sum[0], 1);
	pag_graph_free(&g);

	/* a message in flight over [2,4] keeps property 2 */
	pag_graph_init(&g);
	feed(&g, "PE\t\t0\t1\tprocessing\t0\t2\t0\t0");
	feed(&g, "PE\t\t1\t2\twaiting\t2\t4\t0\t0");
	feed(&g, "PE\t\t4\t5\tprocessing\t0\t1\t1\t1");
	feed(&g, "PE\t\t5\t6\twaiting\t1\t5\t1\t1");
	feed(&g, "PE\t\t1\t2\tmessage\t2\t4\t0\t0");
	feed(&g, "PE\t\t2\t3\tprocessing\t4\t6\t0\t0");
	feed(&g, "PE\t\t6\t7\tprocessing\t5\t6\t1\t1");
	pag_read_finish(&g);
	memset(&x, 0, sizeof x);
	pag_windows(&g, collect, &x);
	CHECK_EQ(x.v[0].all_waiting, 0);
	CHECK_EQ(x.v[0].no_input, 1);	/* only vertex 6 */
	pag_graph_free(&g);

	/* a wait that goes on past the window's end is no violation there */
	pag_graph_init(&g);
	feed(&g, "PG\t\t10\t0\t0\t20");
	feed(&g, "PE\t\t0\t1\tprocessing\t0\t5\t0\t0");
	feed(&g, "PE\t\t1\t2\twaiting\t5\t15\t0\t0");
	feed(&g, "PE\t\t3\t2\tresponse\t12\t15\t1\t0");
	feed(&g, "PE\t\t4\t3\tprocessing\t0\t12\t1\t1");
	pag_read_finish(&g);
	memset(&x, 0, sizeof x);
	pag_windows(&g, collect, &x);
	CHECK_EQ(x.nwin, 2);
	CHECK_EQ(x.v[0].no_input, 0);
	CHECK_EQ(x.v[1].no_input, 0);
	NEAR(x.sum[0], 1);
	NEAR(x.sum[1], 1);
	pag_graph_free(&g);
}

/* A window with no activity at all is skipped; the others still sum to 1. */
static void
test_empty_window(void)
{
	pag_graph g;
	seen x = {0};

	pag_graph_init(&g);
	feed(&g, "PG\t\t10\t0\t0\t40");
	feed(&g, "PE\t\t0\t1\tprocessing\t0\t10\t0\t0");
	feed(&g, "PE\t\t2\t3\tprocessing\t30\t40\t0\t0");
	pag_read_finish(&g);
	pag_windows(&g, collect, &x);
	CHECK_EQ(x.nwin, 2);
	CHECK_EQ(x.ts[0], 0);
	CHECK_EQ(x.ts[1], 30);
	NEAR(x.sum[0], 1);
	NEAR(x.sum[1], 1);
	pag_graph_free(&g);
}

/* An edge over several windows is cut at each boundary (Definition 5). */
static void
test_projection(void)
{
	pag_graph g;
	seen x = {0};

	pag_graph_init(&g);
	feed(&g, "PG\t\t10\t0\t5\t35");
	feed(&g, "PE\t\t0\t1\tprocessing\t5\t35\t0\t0");
	feed(&g, "PE\t\t2\t3\tprocessing\t10\t20\t1\t1");
	feed(&g, "PE\t\t3\t4\tprocessing\t20\t20\t1\t1");	/* zero length: window [20,30] */
	pag_read_finish(&g);
	pag_windows(&g, collect, &x);
	CHECK_EQ(x.nwin, 4);
	CHECK_EQ(x.ts[0], 0);
	CHECK_EQ(x.ts[3], 30);
	NEAR(x.cp[0][0], 1);	/* [5,10]: the only activity */
	NEAR(x.cp[1][0], 0.5);	/* [10,20]: two parallel lanes, one path each */
	NEAR(x.cp[1][1], 0.5);
	NEAR(x.cp[2][0], 1);	/* [20,30] */
	NEAR(x.cp[2][2], 0);
	for (size_t w = 0; w < x.nwin; w++)
		NEAR(x.sum[w], 1);
	pag_graph_free(&g);
}

static void
test_bad_records(void)
{
	pag_graph g;
	const char *bad[] = {
		"PE\t\t0\t1\tprocessing\t5\t3\t0\t0",	/* back in time */
		"PE\t\t0\t1\tsleeping\t0\t3\t0\t0",	/* unknown type */
		"PE\t\t0\t1\tprocessing\t0\t3\t0\t1",	/* worker activity across lanes */
		"PE\t\t0\t1\tprocessing\tx\t3\t0\t0",
		"PE\t\t0\t0\tprocessing\t0\t0\t0\t0",	/* loop */
		"PW\t\t-1\tA\t0",
	};

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		pag_graph_init(&g);
		CHECK(pag_read_record(&g, bad[i], strlen(bad[i]), "test") < 0, "read: %s", bad[i]);
		pag_graph_free(&g);
	}
	pag_graph_init(&g);
	feed(&g, "PE\t\t0\t1\tprocessing\t0\t3\t0\t0");
	{
		const char *moved = "PE\t\t1\t2\tprocessing\t4\t5\t0\t0";	/* vertex 1 was at 3 */

		CHECK(pag_read_record(&g, moved, strlen(moved), "test") < 0);
	}
	pag_graph_free(&g);
	CHECK(pag_is_record("PE\t\t1", 5) && !pag_is_record("PE\tt1\t1", 7) && !pag_is_record("P\t\t", 3));
}

/* Edges as tr-pag writes them read back the same, whatever the numbers'
 * lengths (digits are written eight at a time and read as words); a
 * number with a stray byte inside is bad input, in either form. */
static void
test_edge_numbers(void)
{
	static const int64_t times[] = {
		0, 9, 10, 99, 100, 12345678, 99999999, 100000000, 100000001, 1767225600051203,
		9999999999999999, 10000000000000000, 999999999999999999, -1, -99999999,
		-1767225600051203,
	};
	const size_t n = sizeof times / sizeof times[0];
	strbuf out = {0};
	char want[160];

	/* ends near and across the 10^8 boundaries: the end shares the start's
	 * digits above the last 8 or not */
	static const int64_t lengths[] = {0, 7, 1, 99999999, 100000000, 12345678901};
	for (size_t i = 0; i < n; i++)
		for (size_t d = 0; d < sizeof lengths / sizeof lengths[0]; d++) {
			int64_t t0 = times[i], t1 = t0 + lengths[d] + (int64_t)i * 7;
			uint32_t src = (uint32_t)(i * 1234567u), dst = src + 1, op = (uint32_t)(i * 11);

			sb_clear(&out);
			pag_put_edge(&out, src, dst, PAG_PROCESSING, t0, t1, (uint32_t)i, (uint32_t)i, op,
				     "", 0);
			snprintf(want, sizeof want,
				 "PE\t\t%u\t%u\tprocessing\t%lld\t%lld\t%zu\t%zu\t%u\n", src, dst,
				 (long long)t0, (long long)t1, i, i, op);
			CHECK_STR(out.s, want);
		}
	for (size_t i = 0; i < n; i++) {
		pag_graph g;
		char line[160];

		pag_graph_init(&g);
		feed(&g, "PO\t\t3\tsvc\top");
		snprintf(line, sizeof line, "PE\t\t1\t2\tprocessing\t%lld\t%lld\t0\t0\t3",
			 (long long)times[i], (long long)times[i] + 5);
		feed(&g, line);
		CHECK_EQ(g.nedges, 1);
		CHECK_EQ(g.edges[0].t0, times[i]);
		CHECK_EQ(g.edges[0].t1, times[i] + 5);
		CHECK_STR(g.ops[g.edges[0].op].operation, "op");
		pag_graph_free(&g);
	}
	static const char *const bad[] = {
		"PE\t\t1\t2\tprocessing\t17672256000512x3\t1767225600051300\t0\t0\t3",
		"PE\t\t1\t2\tprocessing\t1767225600051203\t17672256:0051300\t0\t0\t3",
		"PE\t\t1\t2\tprocessing\t1767225600051203\t1767225600051300\t0\t0\t3x",
		"PE\t\t1\t2\tprocessing\t1767225600051203\t1767225600051300\t0\t0\t4",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		pag_graph g;

		pag_graph_init(&g);
		feed(&g, "PO\t\t3\tsvc\top");
		CHECK(pag_read_record(&g, bad[i], strlen(bad[i]), "test") < 0 && g.nedges == 0, "read: %s",
		      bad[i]);
		pag_graph_free(&g);
	}
	/* span ids after the number, kept: plain, escaped (the general path), none */
	{
		pag_graph g;

		pag_graph_init(&g);
		feed(&g, "PO\t\t3\tsvc\top");
		feed(&g, "PE\t\t1\t2\tprocessing\t0\t5\t0\t0\t3\ttr1\tsp1");
		feed(&g, "PE\t\t2\t3\tprocessing\t5\t6\t0\t0\t3\tt%091\ts");
		feed(&g, "PE\t\t3\t4\tunknown\t6\t7\t0\t0\t\t\t");
		CHECK_EQ(g.nedges, 3);
		CHECK_EQ(g.nspans, 2);
		CHECK(strcmp(g.spans[g.edges[0].span].trace_id, "tr1") == 0 &&
		      strcmp(g.spans[g.edges[0].span].span_id, "sp1") == 0);
		CHECK(strcmp(g.spans[g.edges[1].span].trace_id, "t\t1") == 0 &&
		      strcmp(g.spans[g.edges[1].span].span_id, "s") == 0);
		CHECK_EQ(g.edges[2].span, PAG_NONE);
		CHECK_EQ(*g.ops[g.edges[2].op].service, '\0');
		pag_graph_free(&g);
	}
	/* vertices likewise: ids plain, escaped, none; the event by name */
	{
		pag_graph g;
		const char *bad = "PV\t\t2\t0\t6\tend\tx\ty";	/* vertex 2 moved */

		pag_graph_init(&g);
		feed(&g, "PV\t\t0\t0\t0\tstart\ttr1\tsp1");
		feed(&g, "PV\t\t1\t0\t5\tend\tt%091\ts");
		feed(&g, "PV\t\t2\t0\t5\tpoint\t\t");
		CHECK_EQ(g.nvertices, 3);
		CHECK_EQ(g.nspans, 2);
		CHECK_EQ(g.vevent[0], PAG_EV_START);
		CHECK_EQ(g.vevent[1], PAG_EV_END);
		CHECK_EQ(g.vevent[2], PAG_EV_POINT);
		CHECK(strcmp(g.spans[g.vspan[0]].span_id, "sp1") == 0 &&
		      strcmp(g.spans[g.vspan[1]].trace_id, "t\t1") == 0 && g.vspan[2] == PAG_NONE);
		CHECK_EQ(g.vtime[1], 5);
		CHECK_EQ(g.vlane[1], 0);
		CHECK(pag_read_record(&g, bad, strlen(bad), "test") < 0 && g.nspans == 2);
		pag_graph_free(&g);
	}
	sb_free(&out);
}

/* ---- building from spans ---- */

static void
trace_of(tr_trace *t, const char *id, const char *const *lines, size_t n)
{
	static const char *const files[] = {"test"};

	memset(t, 0, sizeof *t);
	t->trace_id = id;
	t->files = files;
	for (size_t i = 0; i < n; i++) {
		GROW(t->recs, t->caprecs, t->nrecs + 1);
		t->recs[t->nrecs++] = (tr_record){arena_strndup(&t->mem, lines[i], strlen(lines[i])),
						  (uint32_t)strlen(lines[i]), 0, i + 1, -1};
	}
	if (tr_trace_parse(t) < 0)
		exit(2);
}

static void
build(pag_graph *g, const char *const *t1, size_t n1, const char *const *t2, size_t n2)
{
	pag_build_opts o = {.vertices = 1};	/* and span ids on the edges */
	pag_builder *b = pag_builder_new(&o);
	tr_trace t;
	strbuf out = {0};

	trace_of(&t, "t1", t1, n1);
	CHECK_EQ(pag_builder_add(b, &t, &out), 0);
	tr_trace_free(&t);
	if (t2) {
		trace_of(&t, "t2", t2, n2);
		CHECK_EQ(pag_builder_add(b, &t, &out), 0);
		tr_trace_free(&t);
	}
	pag_builder_finish(b, &out);
	pag_builder_free(b);
	/* the graph is what its records read back as */
	pag_graph_init(g);
	for (size_t at = 0; at < out.len;) {
		const char *line = out.s + at, *nl = memchr(line, '\n', out.len - at);

		CHECK_EQ(pag_read_record(g, line, (size_t)(nl - line), "built"), 0);
		at = (size_t)(nl - out.s) + 1;
	}
	pag_read_finish(g);
	sb_free(&out);
}

/* The example as spans: B's handler calls A (a1); A then runs a2, the root
 * of another trace: an entry at 2 that no edge enters, so nothing leads from
 * a1 to a2, and the window's one longest path is B's call through a1. */
static void
test_example_from_spans(void)
{
	static const char *const t1[] = {
		"S\tt1\ts1\t\t0\t5\tb\thandle\tserver\thb",
		"S\tt1\tc1\ts1\t0\t3\tb\tcall\tclient\thb",
		"S\tt1\ta1\tc1\t0\t2\ta\ta1\tserver\tha",
	};
	static const char *const t2[] = {"S\tt2\ta2\t\t2\t3\ta\ta2\tinternal\tha"};
	pag_graph g;
	seen x = {0};
	double a1 = 0, a2 = 0, msg = 0, b1 = 0;

	build(&g, t1, 3, t2, 1);
	CHECK_EQ(g.nlanes, 2);	/* a, b: no lane for the clients */
	g.window = 3;
	g.origin = 1;
	pag_windows(&g, collect, &x);
	CHECK_EQ(x.nwin, 3);
	CHECK_EQ(x.ts[1], 1);
	NEAR(x.log2n[1], 0);
	for (size_t i = 0; i < g.nedges; i++) {
		const pag_op *op = &g.ops[g.edges[i].op];

		if (strcmp(op->operation, "a1") == 0 && g.edges[i].type == PAG_PROCESSING)
			a1 += x.cp[1][i];
		if (strcmp(op->operation, "a2") == 0)
			a2 += x.cp[1][i];
		if (g.edges[i].type == PAG_RESPONSE)
			msg += x.cp[1][i];
		if (strcmp(op->operation, "handle") == 0)
			b1 += x.cp[1][i];
	}
	NEAR(a1, 1.0 / 3);
	NEAR(a2, 0);
	NEAR(msg, 1.0 / 3);
	NEAR(b1, 1.0 / 3);
	NEAR(x.sum[1], 1);
	pag_graph_free(&g);

	/* the whole window [0,5] */
	build(&g, t1, 3, t2, 1);
	memset(&x, 0, sizeof x);
	pag_windows(&g, collect, &x);
	NEAR(x.log2n[0], 0);
	NEAR(x.sum[0], 1);
	a1 = b1 = 0;
	for (size_t i = 0; i < g.nedges; i++) {
		if (strcmp(g.ops[g.edges[i].op].operation, "a1") == 0 && g.edges[i].type == PAG_PROCESSING)
			a1 += x.cp[0][i];
		if (strcmp(g.ops[g.edges[i].op].operation, "handle") == 0)
			b1 += x.cp[0][i];
	}
	NEAR(a1, 0.4);
	NEAR(b1, 0.4);
	pag_graph_free(&g);
}

/* Two overlapping requests on one worker take two lanes; a nested child
 * stays on its parent's lane; a third request reuses the freed lane 0. */
static void
test_lanes(void)
{
	static const char *const t1[] = {
		"S\tt1\tr1\t\t0\t10\tfe\tGET\tserver\th",
		"S\tt1\tr2\t\t2\t10\tfe\tGET\tserver\th",
		"S\tt1\tr3\t\t11\t5\tfe\tGET\tserver\th",
		"S\tt1\tn1\tr1\t1\t3\tfe\tparse\tinternal\th",
		"S\tt1\tx1\t\t3\t1\tdb\tq\tserver\th",	/* another service: another worker */
	};
	pag_graph g;

	build(&g, t1, 5, NULL, 0);
	CHECK_EQ(g.nworkers, 2);	/* fe, db */
	CHECK_EQ(g.nlanes, 3);	/* fe#0, fe#1, db#0 */
	for (size_t v = 0; v < g.nvertices; v++) {
		const pag_spanref *r = g.vspan[v] == PAG_NONE ? NULL : &g.spans[g.vspan[v]];

		if (!r)
			continue;
		if (!strcmp(r->span_id, "r1") || !strcmp(r->span_id, "n1") || !strcmp(r->span_id, "r3"))
			CHECK_EQ(g.lanes[g.vlane[v]].index, 0);
		if (!strcmp(r->span_id, "r2"))
			CHECK_EQ(g.lanes[g.vlane[v]].index, 1);
	}
	/* every lane runs from a root's start to its last activity without a
	 * hole; lanes are numbered as first needed: fe#0 [0,10] and [11,16]
	 * (r3, a root, begins a run), fe#1 [2,12], db#0 [3,4] */
	for (size_t l = 0; l < g.nlanes; l++) {
		static const int64_t want[] = {15, 10, 1};
		int64_t sum = 0;

		for (size_t i = 0; i < g.nedges; i++)
			if (!pag_type_is_comm(g.edges[i].type) && g.edges[i].src_lane == l)
				sum += g.edges[i].t1 - g.edges[i].t0;
		CHECK_EQ(sum, want[l]);
	}
	pag_graph_free(&g);
}

static void
test_durations(void)
{
	int64_t v;

	CHECK_EQ(parse_duration("1s", &v), 0);
	CHECK_EQ(v, 1000000);
	CHECK_EQ(parse_duration("250ms", &v), 0);
	CHECK_EQ(v, 250000);
	CHECK_EQ(parse_duration("10us", &v), 0);
	CHECK_EQ(v, 10);
	CHECK_EQ(parse_duration("7", &v), 0);
	CHECK_EQ(v, 7);
	CHECK_EQ(parse_duration("2m", &v), 0);
	CHECK_EQ(v, 120000000);
	CHECK_EQ(parse_duration("1.5s", &v), 0);
	CHECK_EQ(v, 1500000);
	CHECK(parse_duration("s", &v) < 0);
	CHECK(parse_duration("5 parsecs", &v) < 0);
	CHECK(parse_duration("-1s", &v) < 0);
}

/* Every activity is of one type, and on a worker or on a channel: so the
 * activity summary, and the worker and channel summaries together, sum to 1
 * in every window and over the whole input (a weighted mean of windows). */
static void
test_summary_sums(void)
{
	static const int64_t windows[][2] = {{5, 0}, {3, 1}, {1, 0}, {2, 1}};

	for (size_t k = 0; k < sizeof windows / sizeof windows[0]; k++) {
		pag_graph g;
		pag_summary s;
		double act = 0, wc = 0, *per = NULL, *perwc = NULL;

		example_graph(&g, windows[k][0], windows[k][1]);
		pag_summarise(&g, NULL, &s);
		for (size_t i = 0; i < s.cap[PAG_SUM_ACTIVITY]; i++)
			act += s.total[PAG_SUM_ACTIVITY][i];
		for (size_t i = 0; i < s.cap[PAG_SUM_WORKER]; i++)
			wc += s.total[PAG_SUM_WORKER][i];
		for (size_t i = 0; i < s.cap[PAG_SUM_CHANNEL]; i++)
			wc += s.total[PAG_SUM_CHANNEL][i];
		NEAR(act, 1);
		NEAR(wc, 1);
		per = xcalloc(s.nwindows, sizeof *per);
		perwc = xcalloc(s.nwindows, sizeof *perwc);
		for (size_t j = 0; j < s.nsamples; j++) {
			const pag_sample *x = &s.samples[j];

			if (x->summary == PAG_SUM_ACTIVITY)
				per[x->window] += x->cp;
			else if (x->summary == PAG_SUM_WORKER || x->summary == PAG_SUM_CHANNEL)
				perwc[x->window] += x->cp;
		}
		for (size_t w = 0; w < s.nwindows; w++) {
			NEAR(per[w], 1);
			NEAR(perwc[w], 1);
		}
		free(per);
		free(perwc);
		pag_summary_free(&s);
		pag_graph_free(&g);
	}
}

/* The CP of a span over its windows: the example's a1 [0,2] is 0.4 of the
 * one window [0,5]; in windows of 1 it is all of [0,1] and [1,2]. */
static void
test_span_cp(void)
{
	static const char *const t1[] = {
		"S\tt1\th\t\t0\t30\tA\thandle\tserver\ta",
		"S\tt1\tc\th\t5\t20\tA\tcallB\tclient\ta",
		"S\tt1\ts\tc\t10\t10\tB\tserve\tserver\tb",
	};
	pag_graph g;
	double part[3];

	build(&g, t1, 3, NULL, 0);
	CHECK_EQ(g.nspans, 3);
	pag_span_cp(&g, part);
	NEAR(part[0], 1.0 / 3);	/* spans in start order: h, c, s */
	NEAR(part[1], 0);	/* it only waits */
	NEAR(part[2], 1.0 / 3);
	g.window = 10;
	pag_span_cp(&g, part);
	NEAR(part[0], 0.5);	/* [0,10] and [20,30], half of each */
	NEAR(part[2], 1);
	pag_graph_free(&g);
}

/* The example graph read window by window: edges in start order with PM
 * marks, vertex numbers large and in no order (they are renumbered), each
 * window computed at the mark after it and forgotten. The same windows,
 * path counts and CP sums as over the whole graph. */
static void
test_window_by_window(void)
{
	static const char *const records[] = {
		"PG\t\t1\t0\t0\t5", "PW\t\t0\tA\t0", "PW\t\t1\tB\t0",
		"PM\t\t0",
		"PE\t\t905\t904\tprocessing\t0\t2\t0\t0\ta\ta1",
		"PE\t\t902\t901\twaiting\t0\t3\t1\t1\tb\twait",
		"PM\t\t2",
		"PE\t\t904\t903\tprocessing\t2\t5\t0\t0\ta\ta2",
		"PE\t\t904\t901\tmessage\t2\t3\t0\t1",
		"PM\t\t3",
		"PE\t\t901\t900\tprocessing\t3\t5\t1\t1\tb\tb1",
	};
	pag_graph whole, g;
	seen all = {0}, part = {0};
	int64_t done = INT64_MIN;
	size_t most = 0;

	example_graph(&whole, 1, 0);
	pag_windows(&whole, collect, &all);
	pag_graph_init(&g);
	pag_graph_stream(&g);
	for (size_t i = 0; i < sizeof records / sizeof records[0]; i++) {
		feed(&g, records[i]);
		if (records[i][1] != 'M')
			continue;
		most = g.nedges > most ? g.nedges : most;
		pag_windows_between(&g, done, g.mark, collect, &part);
		pag_graph_drop_before(&g, g.mark);
		done = g.mark;
	}
	pag_read_finish(&g);
	pag_windows_between(&g, done, INT64_MAX, collect, &part);
	CHECK_EQ(all.nwin, 5);
	CHECK_EQ(part.nwin, all.nwin);
	for (size_t w = 0; w < all.nwin && w < part.nwin; w++) {
		CHECK_EQ(part.ts[w], all.ts[w]);
		CHECK_EQ(part.te[w], all.te[w]);
		NEAR(part.log2n[w], all.log2n[w]);
		NEAR(part.sum[w], all.sum[w]);
	}
	CHECK_EQ(most, 3);	/* at mark 3: wait, a2 and msg (a1 went at mark 2) */
	CHECK(g.nedges == 2 && g.nvertices == 4);	/* a2 (reaching on) and b1 */
	pag_graph_free(&whole);
	pag_graph_free(&g);
}

/* Activity type names: whole names only; a NUL in the field is not the
 * end of a name (the table pads them with NULs). */
static void
test_type_names(void)
{
	for (int i = 0; i < PAG_NTYPES; i++) {
		const char *name = pag_type_name(i);

		CHECK_EQ(pag_type_parse(name, strlen(name)), i);
		CHECK(pag_type_parse(name, strlen(name) - 1) != i);
	}
	/* each written as its name, and read back as itself */
	for (int i = 0; i < PAG_NTYPES; i++) {
		strbuf out = {0};
		char want[96];
		pag_graph g;

		pag_put_edge(&out, 1, 2, i, 1767225600051203, 1767225600051300, 0, 0, 0, "", 0);
		snprintf(want, sizeof want, "PE\t\t1\t2\t%s\t1767225600051203\t1767225600051300\t0\t0\t0\n",
			 pag_type_name(i));
		CHECK_STR(out.s, want);
		pag_graph_init(&g);
		feed(&g, "PO\t\t0\tsvc\top");
		out.s[out.len - 1] = '\0';
		feed(&g, out.s);
		CHECK_EQ(g.nedges, 1);
		CHECK_EQ(g.edges[0].type, i);
		pag_graph_free(&g);
		sb_free(&out);
	}
	/* near misses, in a graph with PO records, where edges are read by
	 * the fast path: refused as the field-by-field path refuses them
	 * (one lane: a type read wrongly would make an edge) */
	static const char *const near[] = {"processinX", "processingg", "Processing", "ioo", "i",
					   "respons", "requestt", "requesx", "spawn ", "unknowns",
					   "waitinG", "message1", "r", ""};
	for (size_t i = 0; i < sizeof near / sizeof near[0]; i++) {
		char line[96];
		int n = snprintf(line, sizeof line,
				 "PE\t\t0\t1\t%s\t1767225600051203\t1767225600051300\t0\t0\t0", near[i]);
		pag_graph g;

		pag_graph_init(&g);
		feed(&g, "PO\t\t0\tsvc\top");
		CHECK(pag_read_record(&g, line, (size_t)n, "test") < 0 && g.nedges == 0, "read: %s",
		      near[i]);
		pag_graph_free(&g);
	}
	CHECK_EQ(pag_type_parse("io\0", 3), -1);
	CHECK_EQ(pag_type_parse("waiting\0", 8), -1);
	CHECK_EQ(pag_type_parse("processingx", 11), -1);
	CHECK_EQ(pag_type_parse("processing\0\0", 12), -1);
	CHECK_EQ(pag_type_parse("", 0), -1);
}

int
main(void)
{
	tr_setprogname("test_pag");
	test_type_names();
	test_example_whole_window();
	test_example_projected_window();
	test_more_paths_than_64_bits();
	test_counts();
	test_properties();
	test_empty_window();
	test_projection();
	test_bad_records();
	test_edge_numbers();
	test_example_from_spans();
	test_lanes();
	test_durations();
	test_summary_sums();
	test_span_cp();
	test_window_by_window();
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
