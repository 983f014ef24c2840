/* pag.c - the program activity graph: its vertices, lanes and edges, its
 * line-format records (PG, PW, PO, PV, PE, PM), DOT output and durations. */
#include "pag/pag.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw/dot.h"
#include "core/format.h"
#include "core/table.h"

/* The activity types' names, with their lengths; each padded with NULs
 * to 12 bytes, so that a reader may compare the first 8 as a word and a
 * writer copy all 12 at once. */
#define TYPE(s) {s, sizeof s - 1}
static const struct {
	char name[12];
	uint8_t len;
} types[PAG_NTYPES] = {
	TYPE("processing"), TYPE("io"), TYPE("unknown"), TYPE("waiting"),
	TYPE("request"), TYPE("response"), TYPE("message"), TYPE("spawn"), TYPE("join")
};
#undef TYPE
static const char *const event_names[] = { "start", "end", "point", "begin", "finish" };

const char *
pag_type_name(int type)
{
	return type >= 0 && type < PAG_NTYPES ? types[type].name : "?";
}

int
pag_type_parse(const char *s, size_t n)
{
	for (int i = 0; i < PAG_NTYPES; i++)
		if (n == types[i].len && memcmp(types[i].name, s, n) == 0)
			return i;
	return -1;
}

/* The event a PV record names, or -1. */
static int
event_parse(const char *s, size_t n)
{
	for (int ev = 0; ev <= PAG_EV_FINISH; ev++)
		if (n == strlen(event_names[ev]) && memcmp(s, event_names[ev], n) == 0)
			return ev;
	return -1;
}

const char *
pag_event_name(int ev)
{
	return ev >= 0 && ev <= PAG_EV_FINISH ? event_names[ev] : "?";
}

/* ---- vertex numbers of records -> vertices, when reading window by window ---- */

/* The vertex of record vertex number id, or PAG_NONE. */
static uint32_t
vid_find(const u64map *m, uint32_t id)
{
	const int64_t *v = u64map_get(m, id);

	return v ? (uint32_t)*v : PAG_NONE;
}

static void
vid_put(u64map *m, uint32_t id, uint32_t v)
{
	int added;

	*u64map_put(m, id, &added) = v;
}

static void
vids_free(u64map *m)
{
	if (m)
		u64map_free(m);
	free(m);
}

/* ---- the graph ---- */

void
pag_graph_init(pag_graph *g)
{
	memset(g, 0, sizeof *g);
	g->work = pag_work_new();
}

void
pag_graph_free(pag_graph *g)
{
	arena_free(&g->mem);
	free(g->workers);
	strmap_free(&g->worker_ids);
	free(g->lanes);
	free(g->ops);
	strmap_free(&g->op_ids);
	strmap_free(&g->op_raw);
	free(g->opnum);
	free(g->spans);
	strmap_free(&g->span_ids);
	arena_free(&g->span_mem);
	free(g->edges);
	free(g->vtime);
	free(g->vlane);
	free(g->vevent);
	free(g->vspan);
	sb_free(&g->scratch[0]);
	sb_free(&g->scratch[1]);
	sb_free(&g->scratch[2]);
	vids_free(g->vids);
	vids_free(g->vids_spare);
	pag_work_free(g->work);
	memset(g, 0, sizeof *g);
}

uint32_t
pag_intern_worker(pag_graph *g, const char *name, size_t len)
{
	int added;
	strmap_slot *sl = strmap_intern(&g->worker_ids, &g->mem, name, len, &added);

	if (added) {
		GROW(g->workers, g->capworkers, g->nworkers + 1);
		g->workers[g->nworkers++] = sl->key;
	}
	return (uint32_t)sl->val;
}

uint32_t
pag_intern_op(pag_graph *g, const char *service, const char *operation)
{
	size_t ls = strlen(service), lo = strlen(operation);
	char key[512], *k = ls + lo + 2 <= sizeof key ? key : xmalloc(ls + lo + 2);
	int added;
	strmap_slot *sl;

	memcpy(k, service, ls);
	k[ls] = '\t';
	memcpy(k + ls + 1, operation, lo + 1);
	sl = strmap_intern(&g->op_ids, &g->mem, k, ls + lo + 1, &added);
	if (added) {
		GROW(g->ops, g->capops, g->nops + 1);
		g->ops[g->nops++] = (pag_op){arena_strndup(&g->mem, service, ls),
					     arena_strndup(&g->mem, operation, lo)};
	}
	if (k != key)
		free(k);
	return (uint32_t)sl->val;
}

uint32_t
pag_add_lane(pag_graph *g, uint32_t worker, uint32_t index)
{
	GROW(g->lanes, g->caplanes, g->nlanes + 1);
	g->lanes[g->nlanes] = (pag_lane){worker, index};
	return (uint32_t)g->nlanes++;
}

static void
grow_vertices(pag_graph *g, size_t need)
{
	size_t cap = g->capvertices;

	if (need <= cap)
		return;
	cap = cap ? cap : 1024;
	while (cap < need)
		cap *= 2;
	g->vtime = xrealloc(g->vtime, cap * sizeof *g->vtime);
	g->vlane = xrealloc(g->vlane, cap * sizeof *g->vlane);
	g->vevent = xrealloc(g->vevent, cap * sizeof *g->vevent);
	g->vspan = xrealloc(g->vspan, cap * sizeof *g->vspan);
	for (size_t i = g->capvertices; i < cap; i++) {
		g->vlane[i] = PAG_NONE;	/* not defined yet */
		g->vspan[i] = PAG_NONE;
	}
	g->capvertices = cap;
}

uint32_t
pag_add_vertex(pag_graph *g, uint32_t lane, int64_t t, int event, uint32_t span)
{
	uint32_t v = (uint32_t)g->nvertices++;

	grow_vertices(g, g->nvertices);
	g->vtime[v] = t;
	g->vlane[v] = lane;
	g->vevent[v] = (uint8_t)event;
	g->vspan[v] = span;
	return v;
}

void
pag_add_edge(pag_graph *g, uint32_t src, uint32_t dst, int type, uint32_t op, uint32_t span)
{
	pag_edge *e;

	GROW(g->edges, g->capedges, g->nedges + 1);
	e = &g->edges[g->nedges++];
	*e = (pag_edge){src, dst, g->vlane[src], g->vlane[dst], g->vtime[src], g->vtime[dst],
			op, span, (uint8_t)type};
}

/* ---- records ---- */

int
pag_is_record(const char *line, size_t len)
{
	return len >= 4 && line[0] == 'P' && strchr("GWOVEM", line[1]) && line[1] &&
	       line[2] == '\t' && line[3] == '\t';
}

#define MAXF 16
#define PAG_NUMBER_SLACK 4096
#define PAG_TIME_MAX TR_TIME_MAX	/* the spans' bound (trace.h) */

typedef struct rec_ctx {
	pag_graph *g;
	const char *where;
	tr_field f[MAXF];
	size_t nf;
	int quiet;		/* a trial: fail without a word (the general path says why) */
} rec_ctx;

/* A context for the fast paths' checks, which read only its graph: its
 * fields are not cleared, for each record that costs more than the check. */
static void
quiet_ctx(rec_ctx *c, pag_graph *g)
{
	c->g = g;
	c->where = NULL;
	c->nf = 0;
	c->quiet = 1;
}

static int __attribute__((format(printf, 2, 3)))
rec_fail(const rec_ctx *c, const char *fmt, ...)
{
	char what[200];
	va_list ap;

	if (c->quiet)
		return -1;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	if (c->where)
		tr_warn("%s: %.2s record: %s", c->where, c->f[0].s, what);
	else
		tr_warn("%.2s record: %s", c->f[0].s, what);
	return -1;
}

static int
rec_int(const rec_ctx *c, size_t i, const char *what, int64_t *v)
{
	if (i >= c->nf || parse_i64(c->f[i].s, c->f[i].len, v) < 0)
		return rec_fail(c, "bad %s", what);
	return 0;
}

/* The bounds of a record's numbers, once read: the general path and the
 * plain ones (read_plain_edge, read_plain_vertex) share them. */
static inline int
check_id(const rec_ctx *c, int64_t v, const char *what, uint32_t *id)
{
	*id = 0;	/* set either way: callers read it only on success */
	if (v < 0 || v >= INT32_MAX)
		return rec_fail(c, "out of range: %s", what);
	*id = (uint32_t)v;
	return 0;
}

/* A time (or window) in µs. Bounded so that the difference of any two and
 * the sums the reports make stay within int64: 2^61 µs is 73,000 years. */
static inline int
check_time(const rec_ctx *c, int64_t t, const char *what)
{
	if (t < -PAG_TIME_MAX || t > PAG_TIME_MAX)
		return rec_fail(c, "out of range: %s", what);
	return 0;
}

/* A vertex or lane number, which indexes arrays: numbers far beyond what
 * the records read so far can define would let a tiny file claim gigabytes. */
static inline int
check_number(const rec_ctx *c, int64_t v, const char *what, uint32_t *id)
{
	if (check_id(c, v, what, id) < 0)
		return -1;
	if (*id >= PAG_NUMBER_SLACK + 8 * c->g->nrecords)
		return rec_fail(c, "too large for the records before it: %s", what);
	return 0;
}

/* A vertex number. Renumbered ones (pag_graph_stream) index nothing: any
 * number will do, as it must for records in window order. */
static inline int
check_vertex_number(const rec_ctx *c, int64_t v, const char *what, uint32_t *id)
{
	return c->g->vids ? check_id(c, v, what, id) : check_number(c, v, what, id);
}

/* Field i as a number under 2^32, within the bounds check gives
 * (check_id, check_number or check_vertex_number). */
static int
rec_u32(const rec_ctx *c, size_t i, const char *what, uint32_t *id,
	int (*check)(const rec_ctx *, int64_t, const char *, uint32_t *))
{
	int64_t v;

	return rec_int(c, i, what, &v) < 0 ? -1 : check(c, v, what, id);
}

static int
rec_time(const rec_ctx *c, size_t i, const char *what, int64_t *t)
{
	return rec_int(c, i, what, t) < 0 ? -1 : check_time(c, *t, what);
}

/* Field i unescaped into scratch buffer k, valid until the next record. */
static const char *
rec_tmp(rec_ctx *c, size_t i, int k)
{
	strbuf *b = &c->g->scratch[k];

	sb_clear(b);
	if (i < c->nf) {
		sb_reserve(b, c->f[i].len + 1);
		b->len = tr_unescape(b->s, c->f[i].s, c->f[i].len);
		b->s[b->len] = '\0';
	}
	return b->s ? b->s : "";
}

static uint32_t
lane_of(pag_graph *g, uint32_t id)
{
	while (g->nlanes <= id) {
		char name[32];
		int n = snprintf(name, sizeof name, "lane%zu", g->nlanes);

		pag_add_lane(g, pag_intern_worker(g, name, (size_t)n), 0);
	}
	return id;
}

/* The graph's vertex for record vertex number v: itself, or (reading
 * window by window) its renumbered one, PAG_NONE when not met yet. */
static uint32_t
vertex_of(const pag_graph *g, uint32_t v)
{
	return g->vids ? vid_find(g->vids, v) : v;
}

/* Is vertex v, when already defined, at this lane and time? *found is
 * its graph vertex (PAG_NONE: not met yet). */
static int
check_vertex(const rec_ctx *c, uint32_t id, uint32_t lane, int64_t t, uint32_t *found)
{
	const pag_graph *g = c->g;
	uint32_t v = *found = vertex_of(g, id);

	if (v == PAG_NONE)
		return 0;

	if (v >= g->capvertices || g->vlane[v] == PAG_NONE || (g->vtime[v] == t && g->vlane[v] == lane))
		return 0;
	return rec_fail(c, "inconsistent vertex %u (lane %u, time %lld here; lane %u, time %lld before)",
			id, lane, (long long)t, g->vlane[v], (long long)g->vtime[v]);
}

/* Define vertex id, checked by check_vertex (found: the vertex it found):
 * a record changes the graph only once all of it is known to be good.
 * Returns the graph's vertex. */
static uint32_t
define_vertex(pag_graph *g, uint32_t id, uint32_t found, uint32_t lane, int64_t t)
{
	uint32_t v = g->vids ? found : id;

	if (g->vids && v == PAG_NONE) {
		v = (uint32_t)g->nvertices;
		vid_put(g->vids, id, v);
	}
	grow_vertices(g, (size_t)v + 1);
	if (g->nvertices <= v)
		g->nvertices = (size_t)v + 1;
	if (g->vlane[v] != PAG_NONE)
		return v;
	g->vlane[v] = lane;
	g->vtime[v] = t;
	g->vevent[v] = PAG_EV_POINT;
	g->vspan[v] = PAG_NONE;
	return v;
}

/* The seventh field of a PG record: "FROM,TO", the windows a shard owns
 * (tr-pag --own), on the window's boundaries. */
static int
read_own(rec_ctx *c, pag_graph *g)
{
	const tr_field *f = &c->f[6];
	const char *comma;
	int64_t own[2];

	g->has_own = 0;
	if (c->nf < 7 || !f->len)
		return 0;
	comma = memchr(f->s, ',', f->len);
	if (!comma || parse_i64(f->s, (size_t)(comma - f->s), &own[0]) < 0 ||
	    parse_i64(comma + 1, f->len - (size_t)(comma + 1 - f->s), &own[1]) < 0 || own[0] >= own[1])
		return rec_fail(c, "bad own range (FROM,TO, FROM before TO)");
	g->has_own = 1;
	g->own[0] = own[0];
	g->own[1] = own[1];
	return 0;
}

static int
read_header(rec_ctx *c)
{
	pag_graph *g = c->g;
	int64_t window, origin, start, end;

	/* a bad record changes nothing */
	int open = c->nf > 5 && c->f[5].len == 0;	/* written while the input was read */

	if (rec_time(c, 2, "window", &window) < 0 || rec_time(c, 3, "origin", &origin) < 0 ||
	    rec_time(c, 4, "start", &start) < 0 || (!open && rec_time(c, 5, "end", &end) < 0))
		return -1;
	if (open)
		end = start;
	if (window < 0)
		return rec_fail(c, "negative window");
	if (read_own(c, g) < 0)
		return -1;
	g->window = window;
	g->origin = origin;
	g->start = start;
	g->end = end;
	g->end_open = open;
	g->has_header = 1;
	return 0;
}

static int
read_lane(rec_ctx *c)
{
	pag_graph *g = c->g;
	uint32_t lane, index;
	const char *name;

	if (rec_u32(c, 2, "lane", &lane, check_number) < 0 ||
	    rec_u32(c, 4, "lane index", &index, check_id) < 0)
		return -1;
	name = rec_tmp(c, 3, 0);
	if (lane)	/* lanes before it that no record named yet: placeholders */
		lane_of(g, lane - 1);
	if (lane == g->nlanes)	/* no placeholder worker for a lane named now */
		pag_add_lane(g, pag_intern_worker(g, name, strlen(name)), index);
	else
		g->lanes[lane] = (pag_lane){pag_intern_worker(g, name, strlen(name)), index};
	return 0;
}

/* The spanref of a trace and span id ("" and "": none), one per span. */
static uint32_t
add_spanref(pag_graph *g, const char *trace_id, size_t lt, const char *span_id, size_t ls)
{
	strbuf *k = &g->scratch[2];
	strmap_slot *sl;
	int added;

	if (!lt && !ls)
		return PAG_NONE;
	sb_clear(k);
	sb_add(k, trace_id, lt);
	sb_addc(k, '\t');
	sb_add(k, span_id, ls);
	sl = strmap_put(&g->span_ids, k->s, k->len, &added);
	if (added) {
		/* the key, then the two ids each terminated */
		char *key = arena_alloc(&g->span_mem, 2 * (k->len + 1)), *ids = key + k->len + 1;

		memcpy(key, k->s, k->len);
		key[k->len] = '\0';
		memcpy(ids, key, k->len + 1);
		ids[lt] = '\0';
		sl->key = key;
		GROW(g->spans, g->capspans, g->nspans + 1);
		g->spans[g->nspans] = (pag_spanref){ids, ids + lt + 1};
		sl->val = (int64_t)g->nspans++;
	}
	return (uint32_t)sl->val;
}

/* Fields i and i + 1 (trace and span id) as a spanref. */
static uint32_t
rec_spanref(rec_ctx *c, size_t i)
{
	const char *t = rec_tmp(c, i, 0), *s = rec_tmp(c, i + 1, 1);

	return add_spanref(c->g, t, strlen(t), s, strlen(s));
}

static int
read_vertex(rec_ctx *c)
{
	pag_graph *g = c->g;
	uint32_t v, lane, found;
	int64_t t;
	int ev;

	if (rec_u32(c, 2, "vertex", &v, check_vertex_number) < 0 ||
	    rec_u32(c, 3, "lane", &lane, check_number) < 0 ||
	    rec_time(c, 4, "time", &t) < 0 || check_vertex(c, v, lane, t, &found) < 0)
		return -1;
	lane_of(g, lane);
	v = define_vertex(g, v, found, lane, t);
	if (c->nf > 5 && (ev = event_parse(c->f[5].s, c->f[5].len)) >= 0)
		g->vevent[v] = (uint8_t)ev;
	if (c->nf > 6 && !g->skip_spanrefs)
		g->vspan[v] = rec_spanref(c, 6);
	return 0;
}

/* The operation of fields 9 and 10, found by their bytes as written (one
 * hash per edge: no unescaping, no key to build) once it was met. */
static uint32_t
rec_op(rec_ctx *c)
{
	pag_graph *g = c->g;
	const char *raw = c->nf > 9 ? c->f[9].s : "";
	size_t len = c->nf > 10 ? (size_t)(c->f[10].s + c->f[10].len - raw) :
		     c->nf > 9 ? c->f[9].len : 0;
	int added;
	strmap_slot *sl = strmap_put_copy(&g->op_raw, &g->mem, raw, len, &added);

	if (added)
		sl->val = pag_intern_op(g, rec_tmp(c, 9, 0), rec_tmp(c, 10, 1));
	return (uint32_t)sl->val;
}

/* PO: an operation's number, before the first PE record that names it. */
static int
read_op(rec_ctx *c)
{
	pag_graph *g = c->g;
	uint32_t num, op;

	g->numbered = 1;	/* PE records give numbers now, even if this one is bad */
	if (rec_u32(c, 2, "operation", &num, check_number) < 0)
		return -1;
	op = pag_intern_op(g, rec_tmp(c, 3, 0), rec_tmp(c, 4, 1));
	if (num >= g->capopnum) {
		size_t had = g->capopnum;

		GROW(g->opnum, g->capopnum, (size_t)num + 1);
		memset(g->opnum + had, 0xff, (g->capopnum - had) * sizeof *g->opnum);
	}
	if (g->opnum[num] != PAG_NONE && g->opnum[num] != op)
		return rec_fail(c, "operation %u named twice, differently", num);
	g->opnum[num] = op;
	return 0;
}

/* A PE record's numbers, and the vertices its two numbers name when they
 * were met before (PAG_NONE: new). */
typedef struct edge_rec {
	uint32_t src, dst, sl, dl, op;
	int64_t t0, t1;
	int type;
	uint32_t vsrc, vdst;
} edge_rec;

/* What the fields alone cannot tell: is the edge right in the graph? */
static int
check_edge(rec_ctx *c, edge_rec *e)
{
	pag_graph *g = c->g;

	if (e->t1 < e->t0)
		return rec_fail(c, "edge goes back in time");
	if (e->src == e->dst)
		return rec_fail(c, "edge is a loop");
	if (!pag_type_is_comm(e->type) && e->sl != e->dl)
		return rec_fail(c, "worker activity between two lanes");
	if (check_vertex(c, e->src, e->sl, e->t0, &e->vsrc) < 0 ||
	    check_vertex(c, e->dst, e->dl, e->t1, &e->vdst) < 0)
		return -1;
	if (g->stream && g->has_mark && e->t0 < g->mark)
		return rec_fail(c, "starts at %lld, before the PM mark %lld before it: "
				"its window is done", (long long)e->t0, (long long)g->mark);
	if (g->numbered && e->op != PAG_NONE &&
	    (e->op >= g->capopnum || g->opnum[e->op] == PAG_NONE))
		return rec_fail(c, "operation %u has no PO record before it", e->op);
	return 0;
}

/* Add a checked edge; span is its spanref (PAG_NONE). */
static void
add_edge(pag_graph *g, const edge_rec *e, uint32_t op, uint32_t span)
{
	uint32_t src, dst;

	lane_of(g, e->sl > e->dl ? e->sl : e->dl);
	src = define_vertex(g, e->src, e->vsrc, e->sl, e->t0);
	dst = define_vertex(g, e->dst, e->vdst, e->dl, e->t1);
	pag_add_edge(g, src, dst, e->type, op, span);
	if (g->end_open && e->t1 > g->end)
		g->end = e->t1;
}

/* The operation of a numbered edge (PAG_NONE: none, the unknown one). */
static uint32_t
numbered_op(pag_graph *g, uint32_t num)
{
	return num == PAG_NONE ? pag_intern_op(g, "", "") : g->opnum[num];
}

static int
read_edge(rec_ctx *c)
{
	pag_graph *g = c->g;
	edge_rec e = {.op = PAG_NONE};

	if (rec_u32(c, 2, "source vertex", &e.src, check_vertex_number) < 0 ||
	    rec_u32(c, 3, "destination vertex", &e.dst, check_vertex_number) < 0)
		return -1;
	if (c->nf < 5 || (e.type = pag_type_parse(c->f[4].s, c->f[4].len)) < 0)
		return rec_fail(c, "bad activity type");
	if (rec_time(c, 5, "start", &e.t0) < 0 || rec_time(c, 6, "end", &e.t1) < 0 ||
	    rec_u32(c, 7, "source lane", &e.sl, check_number) < 0 ||
	    rec_u32(c, 8, "destination lane", &e.dl, check_number) < 0)
		return -1;
	/* in a graph with PO records: an operation number, empty for none */
	if (g->numbered && c->nf > 9 && c->f[9].len && rec_u32(c, 9, "operation", &e.op, check_id) < 0)
		return -1;
	if (check_edge(c, &e) < 0)
		return -1;
	/* the ids follow the operation: one field for its number, two for names */
	size_t ids = g->numbered ? 10 : 11;

	add_edge(g, &e, g->numbered ? numbered_op(g, e.op) : rec_op(c),
		 c->nf > ids && !g->skip_spanrefs ? rec_spanref(c, ids) : PAG_NONE);
	return 0;
}

/* What a number of a record is, for how its digits are best read. */
enum { NUM_SMALL, NUM_VERTEX, NUM_TIME };

/* Scan a number and the TAB after it (or the end of the line); NULL when
 * it is not one of at most 18 digits (the general path then says why).
 * Inline: a call per number cost more than the scan. Times (which may be
 * negative; no other number may) are read 8 digits at a time, vertex
 * numbers in one word, lanes and operations (a digit or two) bytewise. */
static inline __attribute__((always_inline)) const char *
scan_num(const char *p, const char *end, int kind, int64_t *v)
{
	int neg = kind == NUM_TIME && p < end && *p == '-';
	const char *q = p += neg;
	uint64_t x;

	/* x wraps past 19 digits: refused below */
	p = kind == NUM_TIME ? tr_scan_time_digits(p, end, &x) :
	    kind == NUM_VERTEX ? tr_scan_id_digits(p, end, &x) : tr_scan_digits(p, end, &x);
	if (p == q || p - q > 18 || (p < end && *p != '\t'))
		return NULL;
	*v = neg ? -(int64_t)x : (int64_t)x;
	return p < end ? p + 1 : p;
}

/* Scan an activity type and the TAB after it; NULL when it is not one.
 * By its first letter, then its first 8 bytes as a word: a call of
 * pag_type_parse after a byte loop to the TAB cost a tenth of reading an
 * edge record. */
static inline const char *
scan_type(const char *p, const char *end, int *type)
{
	uint64_t w, name, mask;

	if (end - p < 16)	/* room for the word loads; the times follow */
		return NULL;
	memcpy(&w, p, 8);
	for (int t = 0; t < PAG_NTYPES; t++) {
		size_t n = types[t].len;

		if (types[t].name[0] != p[0])
			continue;
		/* the name's first 8 bytes (fewer: the rest masked off; the
		 * first byte is the lowest), then the rest */
		memcpy(&name, types[t].name, 8);
		mask = n >= 8 ? ~0ULL : (1ULL << (8 * n)) - 1;
		if (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__ ? memcmp(p, types[t].name, n) != 0 :
		    (w ^ name) & mask || (n > 8 && memcmp(p + 8, types[t].name + 8, n - 8)))
			continue;
		if (p[n] != '\t')
			continue;
		*type = t;
		return p + n + 1;
	}
	return NULL;
}

/* The trace and span ids that end a record tr-pag writes. */
typedef struct plain_ids {
	const char *tid, *sid;	/* tid NULL: none, or not kept */
	size_t tlen, slen;
} plain_ids;

/* The ids from p to the end of the record, unless the graph keeps none or
 * the record has no field there (more: a TAB ended the field before p;
 * then they may be empty, as the general path counts fields); -1 when one
 * is escaped: the general path unescapes them. */
static int
find_plain_ids(const pag_graph *g, const char *p, const char *end, int more, plain_ids *ids)
{
	const char *tab, *stop;

	*ids = (plain_ids){NULL, NULL, 0, 0};
	if (g->skip_spanrefs || !more)
		return 0;
	if (memchr(p, '%', (size_t)(end - p)))
		return -1;
	tab = memchr(p, '\t', (size_t)(end - p));
	ids->tid = p;
	ids->tlen = (size_t)((tab ? tab : end) - p);
	ids->sid = tab ? tab + 1 : end;
	stop = memchr(ids->sid, '\t', (size_t)(end - ids->sid));
	ids->slen = (size_t)((stop ? stop : end) - ids->sid);
	return 0;
}

static uint32_t
plain_spanref(pag_graph *g, const plain_ids *ids)
{
	return ids->tid ? add_spanref(g, ids->tid, ids->tlen, ids->sid, ids->slen) : PAG_NONE;
}

/* The PE records tr-pag writes, numbered, read without splitting them into
 * fields first: most of a graph's bytes. -1 when the record is not plain
 * (ids to keep, anything odd): the general path reads it. */
static int
read_plain_edge(pag_graph *g, const char *line, size_t len)
{
	const char *p = line + 4, *end = line + len;
	int64_t v[6], op = -1;
	edge_rec e = {.op = PAG_NONE};
	rec_ctx quiet;

	/* src, dst, type, start, end, src lane, dst lane: v[0..5] the numbers */
	if (!(p = scan_num(p, end, NUM_VERTEX, &v[0])) || !(p = scan_num(p, end, NUM_VERTEX, &v[1])) ||
	    !(p = scan_type(p, end, &e.type)) || !(p = scan_num(p, end, NUM_TIME, &v[2])) ||
	    !(p = scan_num(p, end, NUM_TIME, &v[3])) || !(p = scan_num(p, end, NUM_SMALL, &v[4])) ||
	    !(p = scan_num(p, end, NUM_SMALL, &v[5])))
		return -1;
	int more = p < end;	/* an operation field, then maybe the ids */

	if (p < end && *p == '\t')
		p++;	/* an empty operation */
	else if (p < end && !(p = scan_num(p, end, NUM_SMALL, &op)))
		return -1;
	more = more && p[-1] == '\t';
	plain_ids ids;

	quiet_ctx(&quiet, g);
	if (find_plain_ids(g, p, end, more, &ids) < 0 ||
	    check_vertex_number(&quiet, v[0], "source vertex", &e.src) < 0 ||
	    check_vertex_number(&quiet, v[1], "destination vertex", &e.dst) < 0 ||
	    check_time(&quiet, v[2], "start") < 0 || check_time(&quiet, v[3], "end") < 0 ||
	    check_number(&quiet, v[4], "source lane", &e.sl) < 0 ||
	    check_number(&quiet, v[5], "destination lane", &e.dl) < 0 ||
	    (op >= 0 && check_id(&quiet, op, "operation", &e.op) < 0))
		return -1;
	e.t0 = v[2];
	e.t1 = v[3];
	if (check_edge(&quiet, &e) < 0)
		return -1;
	add_edge(g, &e, numbered_op(g, e.op), plain_spanref(g, &ids));
	return 0;
}

/* The PV records tr-pag writes, read as read_plain_edge reads edges. */
static int
read_plain_vertex(pag_graph *g, const char *line, size_t len)
{
	const char *p = line + 4, *end = line + len, *ev;
	int64_t v, lane, t;
	uint32_t vertex, lanenum, found;
	rec_ctx quiet;
	plain_ids ids;
	int event;

	if (!(p = scan_num(p, end, NUM_VERTEX, &v)) || !(p = scan_num(p, end, NUM_SMALL, &lane)) ||
	    !(p = scan_num(p, end, NUM_TIME, &t)))
		return -1;
	for (ev = p; p < end && *p != '\t'; p++)
		;
	event = event_parse(ev, (size_t)(p - ev));
	int more = p < end;	/* a TAB after the event: the ids, maybe empty */

	if (more)
		p++;
	quiet_ctx(&quiet, g);
	if (find_plain_ids(g, p, end, more, &ids) < 0 ||
	    check_vertex_number(&quiet, v, "vertex", &vertex) < 0 ||
	    check_number(&quiet, lane, "lane", &lanenum) < 0 || check_time(&quiet, t, "time") < 0 ||
	    check_vertex(&quiet, vertex, lanenum, t, &found) < 0)
		return -1;
	lane_of(g, lanenum);
	vertex = define_vertex(g, vertex, found, lanenum, t);
	if (event >= 0)
		g->vevent[vertex] = (uint8_t)event;
	if (ids.tid)
		g->vspan[vertex] = plain_spanref(g, &ids);
	return 0;
}

/* PM: no edge after this record starts before the mark. */
static int
read_mark(rec_ctx *c)
{
	pag_graph *g = c->g;
	int64_t t;

	if (rec_time(c, 2, "mark", &t) < 0)
		return -1;
	if (g->has_mark && t < g->mark)
		return rec_fail(c, "mark %lld before the mark %lld before it", (long long)t,
				(long long)g->mark);
	g->mark = t;
	g->has_mark = 1;
	g->nmarks++;
	return 0;
}

int
pag_read_record(pag_graph *g, const char *line, size_t len, const char *where)
{
	rec_ctx c;	/* fields past nf are never read: not cleared */

	g->nrecords++;
	if (line[1] == 'E' && g->numbered && read_plain_edge(g, line, len) == 0)
		return 0;
	if (line[1] == 'V' && read_plain_vertex(g, line, len) == 0)
		return 0;
	c.g = g;
	c.where = where;
	c.quiet = 0;
	c.nf = tr_split(line, len, c.f, MAXF);
	if (c.nf > MAXF)
		c.nf = MAXF;
	switch (line[1]) {
	case 'G': return read_header(&c);
	case 'W': return read_lane(&c);
	case 'O': return read_op(&c);
	case 'V': return read_vertex(&c);
	case 'E': return read_edge(&c);
	case 'M': return read_mark(&c);
	}
	return rec_fail(&c, "unknown record type");	/* a caller that skipped pag_is_record */
}

void
pag_read_finish(pag_graph *g)
{
	if (g->has_header || g->nedges == 0)
		return;
	g->start = g->edges[0].t0;
	g->end = g->edges[0].t1;
	for (size_t i = 1; i < g->nedges; i++) {
		if (g->edges[i].t0 < g->start)
			g->start = g->edges[i].t0;
		if (g->edges[i].t1 > g->end)
			g->end = g->edges[i].t1;
	}
}

void
pag_graph_stream(pag_graph *g)
{
	g->stream = 1;
	if (!g->vids)
		g->vids = xcalloc(1, sizeof *g->vids);
}

/* Is edge e in a window that starts at t or later (t a window's start)? */
static int
needed_from(const pag_edge *e, int64_t t)
{
	return e->t1 > e->t0 ? e->t1 > t : e->t0 >= t;
}

/* Keep only the spanrefs the edges and vertices left refer to, in a fresh
 * arena: what a graph read window by window holds stays bounded. */
static void
keep_spanrefs(pag_graph *g)
{
	pag_spanref *old = g->spans;
	size_t n = g->nspans;
	uint32_t *renum = xmalloc(n * sizeof *renum);
	arena old_mem = g->span_mem;

	memset(renum, 0xff, n * sizeof *renum);
	g->spans = NULL;
	g->nspans = g->capspans = 0;
	strmap_free(&g->span_ids);
	memset(&g->span_mem, 0, sizeof g->span_mem);
	for (size_t i = 0; i < g->nedges + g->nvertices; i++) {
		uint32_t *ref = i < g->nedges ? &g->edges[i].span : &g->vspan[i - g->nedges];

		if (*ref == PAG_NONE)
			continue;
		if (renum[*ref] == PAG_NONE) {
			const pag_spanref *r = &old[*ref];

			renum[*ref] = add_spanref(g, r->trace_id, strlen(r->trace_id), r->span_id,
						  strlen(r->span_id));
		}
		*ref = renum[*ref];
	}
	free(old);
	free(renum);
	arena_free(&old_mem);
}

/* The record numbers of the vertices a window keeps, renumbered. */
struct keep_ids {
	u64map *to;
	const uint32_t *renum;
	size_t nvertices;
};

static void
keep_id(void *ctx, uint64_t id, int64_t v)
{
	struct keep_ids *k = ctx;

	if ((uint64_t)v < k->nvertices && k->renum[v] != PAG_NONE)
		vid_put(k->to, (uint32_t)id, k->renum[v]);
}

void
pag_graph_drop_before(pag_graph *g, int64_t t)
{
	size_t cap = g->nvertices ? g->nvertices : 1, ne = 0, nv = 0;
	uint32_t *renum = xmalloc(cap * sizeof *renum), *kept = xmalloc(cap * sizeof *kept);
	u64map *old = g->vids;

	memset(renum, 0xff, cap * sizeof *renum);
	for (size_t i = 0; i < g->nedges; i++) {
		pag_edge e = g->edges[i];

		if (!needed_from(&e, t))
			continue;
		if (renum[e.src] == PAG_NONE)
			kept[nv] = e.src, renum[e.src] = (uint32_t)nv++;
		if (renum[e.dst] == PAG_NONE)
			kept[nv] = e.dst, renum[e.dst] = (uint32_t)nv++;
		e.src = renum[e.src];
		e.dst = renum[e.dst];
		g->edges[ne++] = e;
	}
	/* kept is in first-use order, not sorted: move through a copy */
	int64_t *time = xmalloc(cap * sizeof *time);
	uint32_t *lane = xmalloc(cap * sizeof *lane), *span = xmalloc(cap * sizeof *span);
	uint8_t *event = xmalloc(cap);

	for (size_t v = 0; v < nv; v++) {
		time[v] = g->vtime[kept[v]];
		lane[v] = g->vlane[kept[v]];
		span[v] = g->vspan[kept[v]];
		event[v] = g->vevent[kept[v]];
	}
	if (nv) {	/* a graph with no vertex yet has no arrays */
		memcpy(g->vtime, time, nv * sizeof *time);
		memcpy(g->vlane, lane, nv * sizeof *lane);
		memcpy(g->vspan, span, nv * sizeof *span);
		memcpy(g->vevent, event, nv);
	}
	for (size_t v = nv; v < g->nvertices; v++) {
		g->vlane[v] = PAG_NONE;	/* free again for define_vertex */
		g->vspan[v] = PAG_NONE;
	}
	if (old) {	/* record numbers of the vertices kept, in the spare map */
		struct keep_ids k = {g->vids_spare ? g->vids_spare : xcalloc(1, sizeof *k.to), renum,
				     g->nvertices};

		u64map_clear(k.to);
		u64map_each(old, keep_id, &k);
		g->vids = k.to;
		g->vids_spare = old;
	}
	g->nedges = ne;
	g->nvertices = nv;
	if (g->nspans)
		keep_spanrefs(g);
	free(renum);
	free(kept);
	free(time);
	free(lane);
	free(span);
	free(event);
}

static void
add_field(strbuf *b, const char *s)
{
	sb_addc(b, '\t');
	tr_escapes(b, s ? s : "", 0);
}

static void
flush_big(strbuf *b, tr_output *o)
{
	if (b->len >= 256 * 1024) {
		tr_output_sb(o, b);
		sb_clear(b);
	}
}

void
pag_put_header(strbuf *out, int64_t window, int64_t origin, int64_t start, const int64_t *end)
{
	pag_put_header_own(out, window, origin, start, end, NULL);
}

void
pag_put_header_own(strbuf *out, int64_t window, int64_t origin, int64_t start,
		   const int64_t *end, const int64_t *own)
{
	sb_adds(out, "PG\t\t");
	sb_addi(out, window);
	sb_addc(out, '\t');
	sb_addi(out, origin);
	sb_addc(out, '\t');
	sb_addi(out, start);
	sb_addc(out, '\t');
	if (end)
		sb_addi(out, *end);
	if (own) {
		sb_addc(out, '\t');
		sb_addi(out, own[0]);
		sb_addc(out, ',');
		sb_addi(out, own[1]);
	}
	sb_addc(out, '\n');
}

void
pag_put_lane(strbuf *out, size_t lane, const char *worker, uint32_t index)
{
	sb_adds(out, "PW\t\t");
	sb_addu(out, lane);
	add_field(out, worker);
	sb_addc(out, '\t');
	sb_addu(out, index);
	sb_addc(out, '\n');
}

void
pag_put_ids(strbuf *out, const char *trace_id, const char *span_id)
{
	add_field(out, trace_id);
	add_field(out, span_id);
}

void
pag_put_vertex(strbuf *out, uint32_t id, uint32_t lane, int64_t t, int event, const char *ids,
	       size_t idslen)
{
	sb_adds(out, "PV\t\t");
	sb_addu(out, id);
	sb_addc(out, '\t');
	sb_addu(out, lane);
	sb_addc(out, '\t');
	sb_addi(out, t);
	add_field(out, pag_event_name(event));
	sb_add(out, ids, idslen);
	sb_addc(out, '\n');
}

void
pag_put_op(strbuf *out, uint32_t op, const char *service, const char *operation)
{
	sb_adds(out, "PO\t\t");
	sb_addu(out, op);
	add_field(out, service);
	add_field(out, operation);
	sb_addc(out, '\n');
}

/* Decimal digits of v at p, then a tab; returns the end. */
static char *
put_num(char *p, uint64_t v)
{
	p = tr_put_u64(p, v);
	*p = '\t';
	return p + 1;
}

static char *
put_time(char *p, int64_t t)
{
	if (t < 0) {
		*p++ = '-';
		return put_num(p, (uint64_t)0 - (uint64_t)t);
	}
	return put_num(p, (uint64_t)t);
}

void
pag_put_edge(strbuf *out, uint32_t src, uint32_t dst, int type, int64_t t0, int64_t t1,
	     uint32_t src_lane, uint32_t dst_lane, uint32_t op, const char *ids, size_t idslen)
{
	static const char unknown[sizeof types[0].name] = "?";
	int known = type >= 0 && type < PAG_NTYPES;
	size_t tl = known ? types[type].len : 1;
	char *p;

	/* "PE", two tabs, 5 numbers of up to 10 digits, 2 of up to 20, 8
	 * tabs; the type's whole padded name is copied */
	sb_reserve(out, 4 + 5 * 11 + 2 * 21 + sizeof unknown + 1 + idslen + 1);
	p = out->s + out->len;
	memcpy(p, "PE\t\t", 4);
	p = put_num(p + 4, src);
	p = put_num(p, dst);
	/* a copy of a size the compiler knows is a move, not a call */
	memcpy(p, known ? types[type].name : unknown, sizeof unknown);
	p[tl] = '\t';
	char *t0s = p + tl + 1;

	p = put_time(t0s, t0);
	if (t0 >= 100000000 && t1 / 100000000 == t0 / 100000000) {
		/* the same digits above the last 8 as the start (an edge is
		 * shorter than 100 s): copied, not worked out again. At most
		 * 11 of them; 16 bytes are moved, the rest overwritten */
		size_t high = (size_t)(p - 1 - t0s) - 8;

		memmove(p, t0s, 16);
		p = tr_put_digits8(p + high, (uint32_t)(t1 % 100000000));
		*p++ = '\t';
	} else
		p = put_time(p, t1);
	p = put_num(p, src_lane);
	p = put_num(p, dst_lane);
	p = put_num(p, op) - 1;	/* the ids bring their own tabs */
	if (idslen)
		memcpy(p, ids, idslen);
	p += idslen;
	*p++ = '\n';
	*p = '\0';
	out->len = (size_t)(p - out->s);
}

void
pag_put_mark(strbuf *out, int64_t t)
{
	/* A window starting before the earliest time allowed (its first edge
	 * at -PAG_TIME_MAX) is marked there: still no edge before it, and a
	 * mark the reader takes. Readers align a mark to its window. */
	if (t < -PAG_TIME_MAX)
		t = -PAG_TIME_MAX;
	sb_adds(out, "PM\t\t");
	sb_addi(out, t);
	sb_addc(out, '\n');
}

static void
write_vertex(strbuf *out, strbuf *ids, const pag_graph *g, uint32_t v)
{
	const pag_spanref *r = g->vspan[v] == PAG_NONE ? NULL : &g->spans[g->vspan[v]];

	sb_clear(ids);
	pag_put_ids(ids, r ? r->trace_id : "", r ? r->span_id : "");
	pag_put_vertex(out, v, g->vlane[v], g->vtime[v], g->vevent[v], ids->s, ids->len);
}

static void
write_edge(strbuf *out, strbuf *ids, const pag_graph *g, const pag_edge *e, int with_ids)
{
	const pag_spanref *r = e->span == PAG_NONE ? NULL : &g->spans[e->span];

	sb_clear(ids);
	if (with_ids)
		pag_put_ids(ids, r ? r->trace_id : "", r ? r->span_id : "");
	pag_put_edge(out, e->src, e->dst, e->type, e->t0, e->t1, e->src_lane, e->dst_lane, e->op,
		     ids->s ? ids->s : "", ids->len);
}

/* Is vertex v one to write that is not written yet? Then it is, now. */
static int
vertex_due(uint8_t *written, const pag_graph *g, uint32_t v)
{
	if (written[v] || g->vlane[v] == PAG_NONE)	/* PAG_NONE: a number hand-written records skipped */
		return 0;
	written[v] = 1;
	return 1;
}

void
pag_write_records(const pag_graph *g, tr_output *o, int vertices)
{
	strbuf buf = {0}, *out = &buf, ids = {0};
	uint32_t *order = pag_edges_by_start(g);
	uint8_t *written = vertices ? xcalloc(g->nvertices ? g->nvertices : 1, 1) : NULL;
	int64_t window_end = 0;

	pag_put_header_own(out, g->window, g->origin, g->start, &g->end, g->has_own ? g->own : NULL);
	for (size_t i = 0; i < g->nlanes; i++)
		pag_put_lane(out, i, g->workers[g->lanes[i].worker], g->lanes[i].index);
	for (size_t i = 0; i < g->nops; i++)
		pag_put_op(out, (uint32_t)i, g->ops[i].service, g->ops[i].operation);
	/* in start order, so that a reader can finish each window once the
	 * next one's mark arrives, holding only the edges that reach on */
	for (size_t i = 0; i < g->nedges; i++) {
		const pag_edge *e = &g->edges[order[i]];

		if (g->window > 0 && (i == 0 || e->t0 >= window_end)) {
			int64_t ts = pag_window_start(g, e->t0);

			pag_put_mark(out, ts);
			window_end = ts + g->window;
		}
		if (vertices && vertex_due(written, g, e->src))
			write_vertex(out, &ids, g, e->src);
		if (vertices && vertex_due(written, g, e->dst))
			write_vertex(out, &ids, g, e->dst);
		write_edge(out, &ids, g, e, vertices);
		flush_big(out, o);
	}
	for (size_t v = 0; vertices && v < g->nvertices; v++)	/* on no edge */
		if (vertex_due(written, g, (uint32_t)v)) {
			write_vertex(out, &ids, g, (uint32_t)v);
			flush_big(out, o);
		}
	tr_output_sb(o, out);
	sb_free(out);
	sb_free(&ids);
	free(order);
	free(written);
}

/* ---- DOT: one cluster per worker, its lanes' vertices inside ---- */

/* The unit written after a duration in units (auto writes its own). */
static const char *
unit_name(int units)
{
	return units == TABLE_AUTO ? "" : units == TABLE_MS ? " ms" : units == TABLE_S ? " s" : " \xc2\xb5s";
}

void
pag_write_dot(const pag_graph *g, const pag_filter *f, tr_output *o, int units)
{
	char id[32], id2[32], label[160], d[40];
	strbuf buf = {0}, *out = &buf;
	uint8_t *shown = xcalloc(g->nvertices ? g->nvertices : 1, 1);	/* by a kept edge */
	uint8_t *has = xcalloc(g->nworkers ? g->nworkers : 1, 1);

	for (size_t i = 0; i < g->nedges; i++)
		if (pag_edge_passes(g, f, &g->edges[i])) {
			shown[g->edges[i].src] = shown[g->edges[i].dst] = 1;
			has[g->lanes[g->edges[i].src_lane].worker] = 1;
			has[g->lanes[g->edges[i].dst_lane].worker] = 1;
		}
	dot_begin(out, "pag", "LR");
	for (size_t w = 0; w < g->nworkers; w++) {
		if (!has[w])
			continue;
		snprintf(id, sizeof id, "cluster_%zu", w);
		dot_cluster_begin(out, id, g->workers[w]);
		for (size_t v = 0; v < g->nvertices; v++) {
			uint32_t lane = g->vlane[v];

			if (lane == PAG_NONE || g->lanes[lane].worker != w || !shown[v])
				continue;
			snprintf(id, sizeof id, "v%zu", v);
			table_duration(d, sizeof d, g->vtime[v] - g->start, units);
			snprintf(label, sizeof label, "#%u %s\n+%s%s", g->lanes[lane].index,
				 pag_event_name(g->vevent[v]), d, unit_name(units));
			sb_adds(out, "  ");
			dot_node(out, id, label, NULL);
		}
		dot_cluster_end(out);
	}
	for (size_t i = 0; i < g->nedges; i++) {
		const pag_edge *e = &g->edges[i];
		const pag_op *op = &g->ops[e->op];
		const char *attrs = e->type == PAG_WAITING ? "style=dashed, color=gray" :
				    e->type == PAG_UNKNOWN ? "color=gray" :
				    pag_type_is_comm(e->type) ? "color=blue, constraint=false" : NULL;

		if (!pag_edge_passes(g, f, e))
			continue;
		snprintf(id, sizeof id, "v%u", e->src);
		snprintf(id2, sizeof id2, "v%u", e->dst);
		table_duration(d, sizeof d, e->t1 - e->t0, units);
		snprintf(label, sizeof label, "%s %s%s%s%s", pag_type_name(e->type), d, unit_name(units),
			 *op->operation ? "\n" : "", op->operation);
		dot_edge(out, id, id2, label, attrs);
		flush_big(out, o);
	}
	dot_end(out);
	tr_output_sb(o, out);
	sb_free(out);
	free(shown);
	free(has);
}

/* ---- durations ---- */

