/* test_cp.c - the critical path against a direct transcription of Jaeger
 * UI's recursive algorithm on random trees, and the invariants tr-cp(1)
 * promises: cp.self sums to the root's duration, sections tile the root,
 * a what-if with scale 1 predicts the original latency. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp/cp.h"

#define CHECK_NO_RNG
#include "check.h"

/* Read the single trace in text (line format) into a reader. */
static tr_reader *
read_text(const char *text, tr_trace **t)
{
	static char path[] = "/tmp/test_cp.XXXXXX";
	char *files[1];
	const char *line;
	size_t len;

	strcpy(path, "/tmp/test_cp.XXXXXX");
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	fputs(text, f);
	fclose(f);
	files[0] = path;
	tr_reader *r = tr_reader_new(files, 1);
	enum tr_next n = tr_reader_next(r, t, &line, &len);

	remove(path);
	if (n != TR_TRACE) {
		fprintf(stderr, "no trace in:\n%s", text);
		exit(1);
	}
	return r;
}

/* --- the oracle: Jaeger UI's computeCriticalPath, recursive, on small trees --- */

typedef struct oracle {
	const tr_trace *t;
	const cp_trace *c;	/* only its clamped windows and states are used */
	cp_section sec[4096];
	size_t nsec;
} oracle;

/* findLastFinishingChildSpan: children in (start, id) order, the first
 * with the greatest end (below before, when given) wins. */
static int32_t
lfc(const oracle *o, int32_t p, int64_t before, int have_before)
{
	int32_t best = -1;
	int64_t max = -1;

	for (int32_t k = o->t->spans[p].first_child; k >= 0; k = o->t->spans[k].next_sibling) {
		if (o->c->state[k] == CP_OFF)
			continue;
		int64_t e = o->c->end[k];
		if (have_before && !(e < before))
			continue;
		if (e > max) {
			max = e;
			best = k;
		}
	}
	return best;
}

static void
push(oracle *o, int32_t s, int64_t a, int64_t b)
{
	if (a != b && o->nsec < 4096)
		o->sec[o->nsec++] = (cp_section){s, a, b};
}

static void
jaeger(oracle *o, int32_t s, int64_t returning, int have_returning)
{
	int32_t k = lfc(o, s, returning, have_returning);
	int64_t end = have_returning ? returning : o->c->end[s];

	if (k >= 0) {
		push(o, s, o->c->end[k], end);
		jaeger(o, k, 0, 0);
	} else {
		push(o, s, o->c->start[s], end);
		if (o->t->spans[s].parent >= 0)
			jaeger(o, o->t->spans[s].parent, o->c->start[s], 1);
	}
}

/* --- random traces --- */

static unsigned long long rng = 88172645463325252ULL;

static int64_t
rnd(int64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return n > 0 ? (int64_t)(rng % (unsigned long long)n) : 0;
}

static void
random_trace(strbuf *b, int n)
{
	int64_t start[64], end[64];
	static const char *const kinds[] = {"", "server", "client", "producer", "consumer", "internal"};

	sb_clear(b);
	sb_adds(b, "#tr/1\nT\tr\n");
	start[0] = 1000;
	end[0] = 1000 + 1 + rnd(200);
	sb_addf(b, "S\tr\ts0\t\t%lld\t%lld\tsvc\top0\t\t\n", (long long)start[0],
		(long long)(end[0] - start[0]));
	for (int i = 1; i < n; i++) {
		int p = (int)rnd(i);
		int64_t len = end[p] - start[p];

		/* mostly inside the parent, sometimes over its edges or outside */
		start[i] = start[p] - 5 + rnd(len + 10);
		end[i] = start[i] + (rnd(4) ? rnd(len / 2 + 2) : rnd(3));
		/* now and then a second root: every root is analysed */
		if (i > 1 && !rnd(15))
			sb_addf(b, "S\tr\ts%d\t\t%lld\t%lld\tsvc%d\top%d\t\t\n", i,
				(long long)start[i], (long long)(end[i] - start[i]), i % 3, i % 4);
		else
			sb_addf(b, "S\tr\ts%d\ts%d\t%lld\t%lld\tsvc%d\top%d\t%s\t\n", i, p,
				(long long)start[i], (long long)(end[i] - start[i]), i % 3, i % 4,
				kinds[rnd(6) ? 0 : rnd(6)]);
		if (!rnd(10))
			sb_addf(b, "R\tr\ts%d\tfollows_from\tr\ts%d\n", i, p);
	}
}

static void
test_against_jaeger(void)
{
	strbuf b = {0};
	cp_trace c;
	int agree = 1;

	cp_trace_init(&c, 0);
	for (int round = 0; round < 3000 && agree; round++) {
		tr_trace *t;

		random_trace(&b, 1 + (int)rnd(40));
		tr_reader *r = read_text(b.s, &t);
		static oracle o;

		CHECK_EQ(cp_trace_run(&c, t), 0);
		o.t = t;
		o.c = &c;
		o.nsec = 0;
		for (size_t r = 0; r < t->nroots; r++)	/* the current UI: every root */
			if (c.state[t->roots[r]] != CP_OFF)
				jaeger(&o, t->roots[r], 0, 0);
		agree = o.nsec == c.nsec;
		for (size_t i = 0; agree && i < c.nsec; i++)
			agree = o.sec[i].span == c.sec[i].span && o.sec[i].start == c.sec[i].start &&
				o.sec[i].end == c.sec[i].end;
		if (!agree)
			fprintf(stderr, "differs from Jaeger UI on:\n%s", b.s);
		tr_reader_free(r);
	}
	CHECK(agree);
	cp_trace_free(&c);
	sb_free(&b);
}

/* Sum of cp.self == the roots' durations; each root's sections tile
 * [root start, root end) going back in time, root after root; cp.self is
 * never negative; at allowance 0 each span's sections add up to its
 * cp.self; a what-if with scale 1 changes nothing. */
static void
test_invariants(double allowance)
{
	strbuf b = {0};
	cp_trace c;
	int ok_sum = 1, ok_tile = 1, ok_self = 1, ok_whatif = 1;
	char err[100];
	cp_whatif *w = cp_whatif_new(CP_TSV);

	cp_whatif_add_rule(w, "service=svc1:scale=1", err, sizeof err);
	int64_t *persec = xcalloc(64, sizeof *persec);

	cp_trace_init(&c, allowance);
	for (int round = 0; round < 3000; round++) {
		tr_trace *t;

		random_trace(&b, 1 + (int)rnd(60));
		tr_reader *r = read_text(b.s, &t);
		int64_t sum = 0, at;

		cp_trace_run(&c, t);
		for (size_t i = 0; i < t->nspans; i++) {
			sum += c.self[i];
			ok_self &= c.self[i] >= 0;
		}
		ok_sum &= sum == c.path_length;
		memset(persec, 0, 64 * sizeof *persec);
		size_t i = 0;
		for (size_t r = 0; r < t->nroots; r++) {
			int32_t root = t->roots[r];

			if (c.state[root] == CP_OFF)
				continue;
			for (at = c.end[root]; i < c.nsec && at > c.start[root]; i++) {
				ok_tile &= c.sec[i].end == at && c.sec[i].start < at;
				at = c.sec[i].start;
				persec[c.sec[i].span] += c.sec[i].end - c.sec[i].start;
			}
			ok_tile &= at == c.start[root];
		}
		ok_tile &= i == c.nsec;
		if (allowance == 0)
			for (size_t i = 0; i < t->nspans; i++)
				ok_self &= persec[i] == c.self[i];
		/* scale 1 changes nothing: the roots' span stays the same */
		int64_t lo = INT64_MAX, hi = INT64_MIN;
		for (size_t r = 0; r < t->nroots; r++)
			if (c.state[t->roots[r]] != CP_OFF) {
				lo = c.start[t->roots[r]] < lo ? c.start[t->roots[r]] : lo;
				hi = c.end[t->roots[r]] > hi ? c.end[t->roots[r]] : hi;
			}
		ok_whatif &= cp_whatif_predict(w, t, &c) == hi - lo;
		if (!(ok_sum && ok_tile && ok_self && ok_whatif)) {
			fprintf(stderr, "allowance %g: invariant broken on:\n%s", allowance, b.s);
			tr_reader_free(r);
			break;
		}
		tr_reader_free(r);
	}
	CHECK(ok_sum);
	CHECK(ok_tile);
	CHECK(ok_self);
	CHECK(ok_whatif);
	free(persec);
	cp_whatif_free(w);
	cp_trace_free(&c);
	sb_free(&b);
}

/* CRISP's rule: an overlap inside the allowance is sequential only when no
 * third event of the siblings falls in the overlap. */
static void
test_third_event(void)
{
	cp_trace c;
	tr_trace *t;
	tr_reader *r;

	cp_trace_init(&c, 0.01);
	/* B [10,210] and C [209,309] overlap by 1 us, D [0,209]... no third event: sequential */
	r = read_text("S\tx\tA\t\t0\t1000\ts\ta\t\t\n"
		      "S\tx\tB\tA\t10\t200\ts\tb\t\t\n"
		      "S\tx\tC\tA\t209\t100\ts\tc\t\t\n", &t);
	cp_trace_run(&c, t);
	CHECK_EQ(c.self[tr_trace_find(t, "B")], 200);
	CHECK_EQ(c.self[tr_trace_find(t, "A")], 700);
	tr_reader_free(r);
	/* a sibling E ending at 209 inside the overlap window: B is parallel */
	r = read_text("S\tx\tA\t\t0\t1000\ts\ta\t\t\n"
		      "S\tx\tB\tA\t10\t200\ts\tb\t\t\n"
		      "S\tx\tC\tA\t209\t100\ts\tc\t\t\n"
		      "S\tx\tE\tA\t100\t109\ts\te\t\t\n", &t);
	cp_trace_run(&c, t);
	CHECK_EQ(c.self[tr_trace_find(t, "B")], 0);
	CHECK_EQ(c.self[tr_trace_find(t, "E")], 109);
	tr_reader_free(r);
	cp_trace_free(&c);
}

static void
test_percentile_and_self(void)
{
	int64_t v[20];
	tr_trace *t;
	tr_reader *r;

	for (int i = 0; i < 20; i++)
		v[i] = i + 1;
	CHECK_EQ(cp_percentile(v, 10, 50), 5);
	CHECK_EQ(cp_percentile(v, 10, 95), 10);
	CHECK_EQ(cp_percentile(v, 20, 95), 19);
	CHECK_EQ(cp_percentile(v, 20, 99), 20);
	CHECK_EQ(cp_percentile(v, 1, 50), 1);
	CHECK_EQ(cp_percentile(v, 0, 50), 0);
	/* children [10,40] and [30,60] overlap; [90,120] sticks out: covered 50 + 10 */
	r = read_text("S\tx\tA\t\t0\t100\ts\ta\t\t\n"
		      "S\tx\tB\tA\t10\t30\ts\tb\t\t\n"
		      "S\tx\tC\tA\t30\t30\ts\tc\t\t\n"
		      "S\tx\tD\tA\t90\t30\ts\td\t\t\n", &t);
	CHECK_EQ(cp_conventional_self(t, tr_trace_find(t, "A")), 40);
	CHECK_EQ(cp_conventional_self(t, tr_trace_find(t, "D")), 30);
	tr_reader_free(r);
}

int
main(void)
{
	tr_setprogname("test_cp");
	test_against_jaeger();
	test_invariants(0);
	test_invariants(0.01);
	test_invariants(0.3);
	test_third_event();
	test_percentile_and_self();
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
