/* test_infer.c - the causal model's counts against a brute-force transcription
 * of the definitions (Scooby §4.2-4.3) on random traces with ties and
 * repeated names, in both counting modes; reformatted traces (each name's
 * own start -> end always there) and their transitive reduction by closure;
 * nameID fields. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "infer/infer.h"
#include "infer/infer_impl.h"

#define CHECK_NO_RNG
#include "check.h"

#define NTRACES 60
#define MAXSPANS 9
#define NNAMES 4

typedef struct gspan { int name; long start, end; } gspan;
typedef struct gtrace { int n; gspan s[MAXSPANS]; } gtrace;

static unsigned long rng = 42;
static int
rnd(int n)
{
	rng = rng * 6364136223846793005UL + 1442695040888963407UL;
	return (int)((rng >> 33) % (unsigned long)n);
}

static void
generate(gtrace *g, int ntraces)
{
	for (int i = 0; i < ntraces; i++) {
		g[i].n = rnd(MAXSPANS) + (i % 7 == 0 ? 0 : 1);	/* some empty traces */
		for (int j = 0; j < g[i].n; j++) {
			g[i].s[j].name = rnd(NNAMES);
			g[i].s[j].start = rnd(12);	/* small range: many ties */
			g[i].s[j].end = g[i].s[j].start + rnd(5);
		}
	}
}

/* Write the traces as line format (flat: every span a root) and read them back. */
static char *
write_file(const gtrace *g, int ntraces)
{
	static char path[64];

	strcpy(path, "/tmp/test_infer.XXXXXX");
	FILE *f = fdopen(mkstemp(path), "w");
	fputs("#tr/1\n", f);
	for (int i = 0; i < ntraces; i++) {
		fprintf(f, "T\tt%d\n", i);
		for (int j = 0; j < g[i].n; j++)
			fprintf(f, "S\tt%d\ts%d\t\t%ld\t%ld\tsvc\to%d\t\t\n", i, j,
				g[i].s[j].start, g[i].s[j].end - g[i].s[j].start, g[i].s[j].name);
	}
	fclose(f);
	return path;
}

static void
feed(infer *m, char *path)
{
	tr_reader *r = tr_reader_new(&path, 1);
	tr_trace *t;
	const char *line;
	size_t len;
	enum tr_next n;

	while ((n = tr_reader_next(r, &t, &line, &len)) != TR_EOF)
		if (n == TR_TRACE)
			infer_add_trace(m, t);
	tr_reader_free(r);
}

static long
event_time(const gspan *s, int ev)
{
	return ev ? s->end : s->start;
}

/* The oracle for one ordered pair of events (name a, ev x) -> (name b, ev y). */
static void
oracle(const gtrace *g, int ntraces, int pairs, int a, int x, int b, int y,
       unsigned long *c, unsigned long *s, unsigned long *sr, unsigned long *q)
{
	*c = *s = *sr = *q = 0;
	for (int i = 0; i < ntraces; i++) {
		long amin = 1L << 40, amax = -1, bmin = 1L << 40, bmax = -1;
		unsigned long ls = 0, lr = 0, lq = 0;

		for (int j = 0; j < g[i].n; j++) {
			if (g[i].s[j].name == a) {
				long t = event_time(&g[i].s[j], x);
				amin = t < amin ? t : amin;
				amax = t > amax ? t : amax;
			}
			if (g[i].s[j].name == b) {
				long t = event_time(&g[i].s[j], y);
				bmin = t < bmin ? t : bmin;
				bmax = t > bmax ? t : bmax;
			}
			for (int k = 0; k < g[i].n; k++) {
				if (g[i].s[j].name != a || g[i].s[k].name != b)
					continue;
				long ta = event_time(&g[i].s[j], x), tb = event_time(&g[i].s[k], y);
				ls += ta < tb;
				lr += tb < ta;
				lq += ta == tb;
			}
		}
		if (amax < 0 || bmax < 0)
			continue;
		(*c)++;
		if (pairs) {
			*s += ls;
			*sr += lr;
			*q += lq;
		} else if (amax < bmin) {
			(*s)++;
		} else if (bmax < amin) {
			(*sr)++;
		} else {
			(*q)++;
		}
	}
}

/* The id of the nameID "svc:oN" (or "oN" when short), -1 when never seen. */
static int
lookup_name(const infer *m, int op, int short_name)
{
	char buf[32];

	snprintf(buf, sizeof buf, "%so%d", short_name ? "" : "svc:", op);
	strmap_slot *s = strmap_get(&m->names, buf, strlen(buf));
	return s ? (int)s->val : -1;
}

static void
test_counts(int pairs)
{
	gtrace g[NTRACES];
	infer_opts o = { .fields = { INFER_SERVICE, INFER_OPERATION }, .nfields = 2,
			 .count = pairs ? INFER_COUNT_PAIRS : INFER_COUNT_TRACES };

	generate(g, NTRACES);
	char *path = write_file(g, NTRACES);
	infer *m = infer_new(&o);
	feed(m, path);
	unlink(path);
	CHECK_EQ(infer_traces(m), NTRACES);

	for (int a = 0; a < NNAMES; a++)
	for (int x = 0; x < 2; x++)
	for (int b = 0; b < NNAMES; b++)
	for (int y = 0; y < 2; y++) {
		if (a == b && x == y)
			continue;
		unsigned long c, s, sr, q;
		oracle(g, NTRACES, pairs, a, x, b, y, &c, &s, &sr, &q);
		int ia = lookup_name(m, a, 0), ib = lookup_name(m, b, 0);
		if (ia < 0 || ib < 0) {
			CHECK_EQ(c, 0);
			continue;
		}
		uint32_t ea = 2 * (uint32_t)ia + (uint32_t)x, eb = 2 * (uint32_t)ib + (uint32_t)y;
		pair_rec *r = infer_pair(m, ea < eb ? ea : eb, ea < eb ? eb : ea);
		unsigned long ms = ea < eb ? r->s_ab : r->s_ba, mr = ea < eb ? r->s_ba : r->s_ab;
		CHECK(r->c == c && ms == s && mr == sr && r->q == q);
		if (!pairs)
			CHECK_EQ(r->s_ab + r->s_ba + r->q, r->c);	/* s + v + u = T */
	}
	infer_free(m);
}

/* Reformatted traces: the IE records must be exactly the model edges the
 * trace agrees with and each name's own start -> end; reduced, minus those
 * implied by a longer path but a name's own. */
static void
test_reformat(int reduce)
{
	gtrace g[NTRACES];
	infer_opts o = { .fields = { INFER_OPERATION }, .nfields = 1 };
	char err[128];
	size_t errpos;

	generate(g, NTRACES);
	char *path = write_file(g, NTRACES);
	infer *m = infer_new(&o);
	CHECK_EQ(infer_set_threshold(m, "s/T >= 0.1", err, sizeof err, &errpos), 0);
	feed(m, path);
	infer_apply_threshold(m);

	tr_reader *rd = tr_reader_new(&path, 1);
	tr_trace *t;
	const char *line;
	size_t len;
	strbuf out = {0};
	int i = 0;
	enum tr_next n;
	while ((n = tr_reader_next(rd, &t, &line, &len)) != TR_EOF) {
		if (n != TR_TRACE)
			continue;
		sb_clear(&out);
		infer_reformat_trace(m, t, reduce, &out);

		/* The oracle: events of the trace with first/last time. */
		int ne = 0, ev[2 * NNAMES];
		long first[2 * NNAMES], last[2 * NNAMES];
		for (int j = 0; j < g[i].n; j++)
			for (int x = 0; x < 2; x++) {
				int e = 2 * g[i].s[j].name + x, k;
				long tm = event_time(&g[i].s[j], x);
				for (k = 0; k < ne && ev[k] != e; k++)
					;
				if (k == ne) {
					ev[ne] = e;
					first[ne] = last[ne] = tm;
					ne++;
				}
				first[k] = tm < first[k] ? tm : first[k];
				last[k] = tm > last[k] ? tm : last[k];
			}
		int adj[2 * NNAMES][2 * NNAMES] = {{0}}, reach[2 * NNAMES][2 * NNAMES];
		for (int a = 0; a < ne; a++)
			for (int b = 0; b < ne; b++) {
				if (ev[b] == ev[a] + 1 && !(ev[a] & 1)) {
					adj[a][b] = 1;	/* a name's own start -> end */
					continue;
				}
				if (a == b || !(last[a] < first[b]))
					continue;
				int ia = lookup_name(m, ev[a] / 2, 1), ib = lookup_name(m, ev[b] / 2, 1);
				uint32_t ea = 2 * (uint32_t)ia + (uint32_t)(ev[a] & 1);
				uint32_t eb = 2 * (uint32_t)ib + (uint32_t)(ev[b] & 1);
				pair_rec *r = infer_pair(m, ea < eb ? ea : eb, ea < eb ? eb : ea);
				adj[a][b] = (r->pass >> (ea < eb ? 0 : 1)) & 1;
			}
		memcpy(reach, adj, sizeof reach);
		for (int k = 0; k < ne; k++)
			for (int a = 0; a < ne; a++)
				for (int b = 0; b < ne; b++)
					reach[a][b] |= reach[a][k] && reach[k][b];
		strbuf want = {0};
		int nwant = 0;
		for (int a = 0; a < ne; a++)
			for (int b = 0; b < ne; b++) {
				if (!adj[a][b])
					continue;
				int implied = 0;
				for (int c = 0; c < ne; c++)
					implied |= c != a && c != b && reach[a][c] && reach[c][b];
				if (reduce && implied && !(ev[b] == ev[a] + 1 && !(ev[a] & 1)))
					continue;
				nwant++;
				char rec[64];
				snprintf(rec, sizeof rec, "\to%d_%c\to%d_%c\n", ev[a] / 2,
					 ev[a] & 1 ? 'E' : 'S', ev[b] / 2, ev[b] & 1 ? 'E' : 'S');
				CHECK(strstr(out.s ? out.s : "", rec) != NULL);
				sb_adds(&want, rec);
			}
		int ngot = 0;
		for (size_t k = 0; k < out.len; k++)
			ngot += out.s[k] == '\n';
		CHECK_EQ(ngot, nwant);
		sb_free(&want);
		i++;
	}
	CHECK_EQ(i, NTRACES);
	sb_free(&out);
	tr_reader_free(rd);
	unlink(path);
	infer_free(m);
}

static void
test_fields(void)
{
	infer_opts o = {0};
	strbuf b = {0};

	CHECK_EQ(infer_parse_fields("service,operation", &o), 0);
	CHECK_EQ(o.nfields, 2);
	CHECK_EQ(infer_parse_fields("host,kind,service,operation", &o), 0);
	CHECK_EQ(o.nfields, 4);
	infer_fields_text(&o, &b);
	CHECK_STR(b.s, "host,kind,service,operation");
	CHECK(infer_parse_fields("service,", &o) < 0);
	CHECK(infer_parse_fields("", &o) < 0);
	CHECK(infer_parse_fields("colour", &o) < 0);
	CHECK(infer_parse_fields("service,service,service,service,service", &o) < 0);
	sb_free(&b);
}

int
main(void)
{
	test_fields();
	for (int round = 0; round < 5; round++) {
		test_counts(0);
		test_counts(1);
		test_reformat(0);
		test_reformat(1);
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
