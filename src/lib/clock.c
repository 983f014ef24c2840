/* clock.c - per-host clock offsets from RPC timings. See clock.h. */
#include "clock.h"
#include "exports.h"
#include "core/format.h"
#include "core/halo.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the RPCs of one direction between two hosts said. */
typedef struct rpc_side {
	size_t n;
	int64_t lo, hi;		/* the intersection of the RPCs' offset intervals */
	int64_t min_slack;	/* the least client time the server does not cover */
	int64_t mid2;		/* that RPC's middle, doubled (exact in µs) */
	int64_t min_req;	/* the least server start - client start */
} rpc_side;

/* Two hosts a < b (by name); side[0]: a called b, side[1]: b called a.
 * theta: b's clock less a's, once solved. */
typedef struct host_pair {
	int32_t a, b;
	rpc_side side[2];
	int64_t theta;
	size_t disagreeing;
} host_pair;

typedef struct clock_host {
	const char *name;
	int64_t offset;
	int32_t reference;	/* the host of its set whose clock it is given in:
				 * one that never moved (offset 0) */
	int32_t via;		/* the pair that set its offset, -1 */
	size_t calls;		/* RPCs it made: the reference is the busiest caller */
	size_t disagreeing;	/* RPCs of all its pairs whose intervals do not
				 * meet, or do not meet the offsets set */
	size_t given_rpcs;	/* tr_clock_set's: the RPCs of an offset read */
} clock_host;

struct tr_clock {
	arena mem;
	strmap host_ids, pair_ids;
	clock_host *hosts;
	size_t nhosts, caphosts;
	host_pair *pairs;
	size_t npairs, cappairs;
};

tr_clock *
tr_clock_new(void)
{
	return xcalloc(1, sizeof(tr_clock));
}

static int32_t
host_id(tr_clock *c, const char *name)
{
	int added;
	strmap_slot *s = strmap_intern(&c->host_ids, &c->mem, name, strlen(name), &added);

	if (added) {
		GROW(c->hosts, c->caphosts, c->nhosts + 1);
		c->hosts[c->nhosts++] = (clock_host){.name = s->key, .reference = -1, .via = -1};
	}
	return (int32_t)s->val;
}

static host_pair *
pair_of(tr_clock *c, int32_t a, int32_t b, int create)
{
	int added;
	int32_t k[2] = {a, b};
	strmap_slot *s = strmap_get(&c->pair_ids, (const char *)k, sizeof k);

	if (s)
		return &c->pairs[s->val];
	if (!create)
		return NULL;
	s = strmap_intern(&c->pair_ids, &c->mem, k, sizeof k, &added);
	GROW(c->pairs, c->cappairs, c->npairs + 1);
	host_pair *p = &c->pairs[c->npairs++];
	memset(p, 0, sizeof *p);
	p->a = a;
	p->b = b;
	return p;
}

/* The times and host of one side of an RPC: all the clock needs of a span. */
typedef struct rpc_end {
	const char *host;
	int64_t start, end;
} rpc_end;

static void
note_rpc(tr_clock *c, const rpc_end *cl, const rpc_end *sv)
{
	int32_t x = host_id(c, cl->host), y = host_id(c, sv->host);
	int flip = strcmp(cl->host, sv->host) > 0;
	host_pair *p = flip ? pair_of(c, y, x, 1) : pair_of(c, x, y, 1);
	rpc_side *d = &p->side[flip];
	int64_t lo = sv->end - cl->end, hi = sv->start - cl->start;

	int64_t slack = hi - lo;	/* transit both ways plus any queueing */

	if (d->n == 0) {
		d->lo = lo;
		d->hi = hi;
		d->min_slack = slack;
		d->mid2 = lo + hi;
		d->min_req = hi;
	} else {
		d->lo = lo > d->lo ? lo : d->lo;
		d->hi = hi < d->hi ? hi : d->hi;
		/* ties go to the lower estimate: the answer must not depend on
		 * the order the traces come in (a sorted file, -j) */
		if (slack < d->min_slack || (slack == d->min_slack && lo + hi < d->mid2)) {
			d->min_slack = slack;
			d->mid2 = lo + hi;
		}
		d->min_req = hi < d->min_req ? hi : d->min_req;
	}
	d->n++;
	c->hosts[x].calls++;
}

void
tr_clock_add_trace(tr_clock *c, const tr_trace *t)
{
	if (tr_trace_is_halo(t))	/* the shard that owns it counts its RPCs */
		return;
	for (size_t i = 0; i < t->nspans; i++) {
		const tr_span *s = &t->spans[i];

		if (s->kind != TR_KIND_SERVER || s->parent < 0 || (s->flags & TR_SPAN_FOLLOWS))
			continue;
		const tr_span *p = &t->spans[s->parent];
		if (p->kind != TR_KIND_CLIENT || !*s->host || !*p->host || strcmp(s->host, p->host) == 0 ||
		    !(s->flags & TR_SPAN_HAS_TIME) || !(p->flags & TR_SPAN_HAS_TIME))
			continue;
		note_rpc(c, &(rpc_end){p->host, p->start, tr_span_end(p)},
			 &(rpc_end){s->host, s->start, tr_span_end(s)});
	}
}

static int64_t
half_floor(int64_t v)
{
	return v >= 0 ? v / 2 : -((-v + 1) / 2);
}

/* b's clock less a's, from both directions (side 1 in a's terms is
 * negated): [lo, hi] holds every offset all RPCs allow (lo > hi: they
 * disagree), est the estimate. */
static void
solve_pair(host_pair *p, int64_t *lo_out, int64_t *hi_out)
{
	const rpc_side *f = &p->side[0], *r = &p->side[1];
	int64_t lo = INT64_MIN, hi = INT64_MAX, est;

	if (f->n) {
		lo = f->lo;
		hi = f->hi;
	}
	if (r->n) {	/* b called a: its interval for a's clock less b's, negated */
		lo = -r->hi > lo ? -r->hi : lo;
		hi = -r->lo < hi ? -r->lo : hi;
	}
	/* the least delayed RPC of either direction: the least queueing */
	if (f->n && (!r->n || f->min_slack <= r->min_slack))
		est = half_floor(f->mid2);
	else
		est = -half_floor(r->mid2);
	if (lo <= hi)
		est = est < lo ? lo : est > hi ? hi : est;
	else
		p->disagreeing = f->n + r->n;
	p->theta = est;
	*lo_out = lo;
	*hi_out = hi;
}

static size_t
pair_rpcs(const host_pair *p)
{
	return p->side[0].n + p->side[1].n;
}

/* Pairs with the most RPCs first: the best evidence fixes offsets first.
 * Ties by the hosts' names, not by which pair was met first: the offsets
 * must not depend on the order of the traces. */
static int
pair_order_cmp(const tr_clock *c, int32_t x, int32_t y)
{
	const host_pair *p = &c->pairs[x], *q = &c->pairs[y];
	size_t a = pair_rpcs(p), b = pair_rpcs(q);
	int k;

	if (a != b)
		return a > b ? -1 : 1;
	if ((k = strcmp(c->hosts[p->a].name, c->hosts[q->a].name)) != 0)
		return k;
	return strcmp(c->hosts[p->b].name, c->hosts[q->b].name);
}

static void
sort_pairs(int32_t *order, size_t n, const tr_clock *c)
{
	for (size_t i = 1; i < n; i++) {	/* insertion sort: few host pairs */
		int32_t x = order[i];
		size_t j = i;

		while (j > 0 && pair_order_cmp(c, order[j - 1], x) > 0) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = x;
	}
}

/* Put b's set of hosts in a's clock so that b - a lies in [lo, hi], closest
 * to theta when the pair is strong (two RPCs or more), else moving b's set
 * as little as possible: clocks stay as recorded unless the data says not.
 * The set that called less moves (callers are nearer the user's clock). A
 * set's id is a host of it that never moved: the merged set keeps the id
 * of the set that stayed. */
static void
merge_sets(tr_clock *c, int32_t *set, const host_pair *p, int64_t lo, int64_t hi)
{
	int32_t a = p->a, b = p->b;
	int64_t theta = p->theta;
	size_t calls_a = 0, calls_b = 0;

	for (size_t i = 0; i < c->nhosts; i++) {
		calls_a += set[i] == set[a] ? c->hosts[i].calls : 0;
		calls_b += set[i] == set[b] ? c->hosts[i].calls : 0;
	}
	if (calls_b > calls_a) {	/* move a's set: the same pair seen from b */
		int32_t t = a;
		int64_t l = lo;

		a = b;
		b = t;
		theta = -theta;
		lo = -hi;
		hi = -l;
	}
	int64_t now = c->hosts[b].offset - c->hosts[a].offset, want;
	if (pair_rpcs(p) >= 2 || lo > hi)
		want = theta;
	else
		want = now < lo ? lo : now > hi ? hi : now;
	int64_t delta = want - now;
	int32_t from = set[b];
	for (size_t i = 0; i < c->nhosts; i++)
		if (set[i] == from) {
			c->hosts[i].offset += delta;
			set[i] = set[a];
		}
	c->hosts[b].via = (int32_t)(p - c->pairs);
}

void
tr_clock_solve(tr_clock *c)
{
	int32_t *set = xcalloc(c->nhosts + 1, sizeof *set);
	int32_t *order = xcalloc(c->npairs + 1, sizeof *order);

	for (size_t i = 0; i < c->nhosts; i++) {
		set[i] = (int32_t)i;
		c->hosts[i].offset = 0;
		c->hosts[i].via = -1;
	}
	for (size_t i = 0; i < c->npairs; i++)
		order[i] = (int32_t)i;
	sort_pairs(order, c->npairs, c);
	for (size_t k = 0; k < c->npairs; k++) {
		host_pair *p = &c->pairs[order[k]];
		int64_t lo, hi;

		p->disagreeing = 0;
		solve_pair(p, &lo, &hi);
		if (set[p->a] != set[p->b])
			merge_sets(c, set, p, lo, hi);
		else {	/* a cycle: the offsets are set; does this pair agree? */
			int64_t d = c->hosts[p->b].offset - c->hosts[p->a].offset;

			if (lo <= hi && (d < lo || d > hi))
				p->disagreeing = pair_rpcs(p);
		}
	}
	for (size_t i = 0; i < c->nhosts; i++) {	/* the host of its set that never moved */
		c->hosts[i].reference = set[i];
		c->hosts[i].disagreeing = 0;
	}
	/* a pair that closed a cycle is no host's via pair: count every pair */
	for (size_t i = 0; i < c->npairs; i++) {
		c->hosts[c->pairs[i].a].disagreeing += c->pairs[i].disagreeing;
		c->hosts[c->pairs[i].b].disagreeing += c->pairs[i].disagreeing;
	}
	free(set);
	free(order);
}

int64_t
tr_clock_offset(const tr_clock *c, const char *host)
{
	strmap_slot *s = c ? strmap_get(&c->host_ids, host, strlen(host)) : NULL;

	return s ? c->hosts[s->val].offset : 0;
}

int64_t
tr_clock_min_transit(const tr_clock *c, const char *client_host, const char *server_host)
{
	strmap_slot *x = c ? strmap_get(&c->host_ids, client_host, strlen(client_host)) : NULL;
	strmap_slot *y = c ? strmap_get(&c->host_ids, server_host, strlen(server_host)) : NULL;

	if (!x || !y || x->val == y->val)
		return -1;
	int flip = strcmp(client_host, server_host) > 0;
	const host_pair *p = flip ? pair_of((tr_clock *)c, (int32_t)y->val, (int32_t)x->val, 0)
				  : pair_of((tr_clock *)c, (int32_t)x->val, (int32_t)y->val, 0);
	if (!p || !p->side[flip].n)
		return -1;
	int64_t t = p->side[flip].min_req - (c->hosts[y->val].offset - c->hosts[x->val].offset);
	return t > 0 ? t : 0;
}

size_t
tr_clock_nhosts(const tr_clock *c)
{
	return c ? c->nhosts : 0;
}

void
tr_clock_host_get(const tr_clock *c, size_t i, tr_clock_host *h)
{
	const clock_host *x = &c->hosts[i];
	const host_pair *p = x->via >= 0 ? &c->pairs[x->via] : NULL;

	h->host = x->name;
	h->reference = c->hosts[x->reference >= 0 ? x->reference : (int32_t)i].name;
	h->offset = x->offset;
	h->rpcs = p ? pair_rpcs(p) : x->given_rpcs;
	h->disagreeing = x->disagreeing;
}

void
tr_clock_set(tr_clock *c, const char *host, int64_t offset, size_t rpcs)
{
	int32_t i = host_id(c, host);	/* may move c->hosts */

	c->hosts[i].offset = offset;
	c->hosts[i].given_rpcs = rpcs;
}

void
tr_clock_free(tr_clock *c)
{
	if (!c)
		return;
	strmap_free(&c->host_ids);
	strmap_free(&c->pair_ids);
	free(c->hosts);
	free(c->pairs);
	arena_free(&c->mem);
	free(c);
}

/* The light first pass.
 *
 * The clock needs five fields of a span (its id, parent, kind, host and
 * times); the full parse (every tag split and unescaped, a span tree per
 * trace) is most of what a pass costs. An input in the line format whose
 * traces are grouped (a T record, then its records) is scanned for those
 * fields, with every check by which the full parse could reject a trace.
 * On anything it cannot vouch for (an export, a record outside its group,
 * a bad or cut record, a parent cycle, a trace over a limit) it gives up
 * and the full pass runs instead: the offsets are the same either way. */

typedef struct scan_span {
	const char *id, *parent_id, *host;
	int64_t start, end;
	int32_t parent;
	uint8_t kind, timed, follows;
} scan_span;

/* An R or L record: the span it names must be in the trace; a
 * follows_from reference (ref_span set) may make that span's parent link
 * FOLLOWS_FROM. */
typedef struct scan_owner {
	const char *span_id;
	const char *ref_trace, *ref_span;
} scan_owner;

typedef struct scan {
	tr_clock *c;
	size_t max_spans, max_bytes;
	arena mem;		/* the open trace's fields, unescaped */
	strbuf group_id;	/* its id as the records write it */
	const char *trace_id;	/* unescaped */
	int open;
	int halo;		/* the open trace is a halo trace (core/halo.h) */
	size_t span_recs, bytes;
	scan_span *spans;
	size_t nspans, capspans;
	scan_owner *owners;
	size_t nowners, capowners;
	strmap ids;
	int esc;		/* the record being scanned holds a '%' */
	int32_t *rpcs;		/* server spans of the trace's RPCs */
	size_t caprpcs;
} scan;

#define SCAN_MAX_FIELDS 4096	/* as the full parse allows */

/* Split a record: the first n fields into f, every later one (a tag) must
 * be key=value. Returns the field count; 0 when a tag is not. */
static size_t
scan_fields(const char *line, size_t len, tr_field *f, size_t n)
{
	const char *p = line, *end = line + len;
	size_t i = 0;
	tr_scan tabs;

	tr_scan_init(&tabs, line, end, '\t');
	for (;;) {
		const char *tab = tr_scan_next(&tabs);
		const char *e = tab ? tab : end;

		if (i < n)
			f[i] = (tr_field){p, (size_t)(e - p)};
		else if (!tr_find(p, e, '='))
			return 0;
		i++;
		if (!tab)
			return i;
		p = tab + 1;
	}
}

/* A field, unescaped as the full parse unescapes it, in the trace's arena;
 * sc->esc: the record holds a '%' (most hold none: nothing to look for). */
static const char *
scan_text(scan *sc, const tr_field *f)
{
	char *s = arena_strndup(&sc->mem, f->s, f->len);

	if (sc->esc && memchr(s, '%', f->len))
		tr_unescape(s, s, f->len);
	return s;
}

static int
scan_span_record(scan *sc, const char *line, size_t len)
{
	tr_field f[TR_SPAN_FIELDS];
	size_t nf = scan_fields(line, len, f, TR_SPAN_FIELDS);
	int64_t start = 0, dur = 0;
	int kind;

	if (nf < TR_SPAN_FIELDS || nf > SCAN_MAX_FIELDS || !f[2].len)
		return -1;
	if (f[4].len || f[5].len) {
		if (parse_i64(f[4].s, f[4].len, &start) < 0 || parse_i64(f[5].s, f[5].len, &dur) < 0 ||
		    dur < 0 || start < -TR_TIME_MAX || start > TR_TIME_MAX || dur > TR_TIME_MAX - start)
			return -1;
	}
	if ((kind = tr_kind_parse(f[8].s, f[8].len)) < 0)
		return -1;
	GROW(sc->spans, sc->capspans, sc->nspans + 1);
	sc->spans[sc->nspans++] = (scan_span){
		.id = scan_text(sc, &f[2]), .parent_id = scan_text(sc, &f[3]),
		.host = scan_text(sc, &f[9]), .start = start, .end = start + dur, .parent = -1,
		.kind = (uint8_t)kind, .timed = f[4].len || f[5].len};
	return 0;
}

/* R and L records: checked as the full parse checks them; the span each
 * names is kept, and for a follows_from reference what it refers to. */
static int
scan_owner_record(scan *sc, const char *line, size_t len)
{
	tr_field f[6];
	size_t need = line[0] == 'R' ? 6 : 4;
	size_t nf = scan_fields(line, len, f, need);
	int64_t time;
	scan_owner o = {0};

	if (nf < need || nf > SCAN_MAX_FIELDS)
		return -1;
	if (line[0] == 'L' && parse_i64(f[3].s, f[3].len, &time) < 0)
		return -1;
	o.span_id = scan_text(sc, &f[2]);
	if (line[0] == 'R' && strcmp(scan_text(sc, &f[3]), "follows_from") == 0) {
		o.ref_trace = f[4].len ? scan_text(sc, &f[4]) : sc->trace_id;
		o.ref_span = scan_text(sc, &f[5]);
	}
	GROW(sc->owners, sc->capowners, sc->nowners + 1);
	sc->owners[sc->nowners++] = o;
	return 0;
}

/* One record of the open trace; -1 when the full parse would reject it. */
static int
scan_record(scan *sc, const char *line, size_t len)
{
	tr_field f[2];

	if (memchr(line, '\0', len))
		return -1;
	if (len < 2 || line[1] != '\t')
		return 0;	/* a record type the parse does not own */
	sc->esc = memchr(line, '%', len) != NULL;
	switch (line[0]) {
	case 'S': return scan_span_record(sc, line, len);
	case 'R':
	case 'L': return scan_owner_record(sc, line, len);
	case 'T': {
		size_t nf = scan_fields(line, len, f, 2);
		return nf && nf <= SCAN_MAX_FIELDS ? 0 : -1;
	}
	default: return 0;
	}
}

static int32_t
scan_find(const scan *sc, const char *id)
{
	strmap_slot *s = strmap_get(&sc->ids, id, strlen(id));

	return s ? (int32_t)s->val : -1;
}

/* Span ids unique, R and L records naming spans of the trace, parents
 * linked; -1 when the full parse would reject the trace. */
static int
scan_link(scan *sc)
{
	int added;

	strmap_clear(&sc->ids);
	for (size_t i = 0; i < sc->nspans; i++) {
		const char *id = sc->spans[i].id;
		strmap_slot *s = strmap_put(&sc->ids, id, strlen(id), &added);

		if (!added)
			return -1;
		s->val = (int64_t)i;
	}
	for (size_t i = 0; i < sc->nspans; i++) {
		scan_span *x = &sc->spans[i];

		x->parent = *x->parent_id ? scan_find(sc, x->parent_id) : -1;
		if (x->parent == (int32_t)i)
			x->parent = -1;	/* its own parent: a root */
	}
	for (size_t i = 0; i < sc->nowners; i++) {
		const scan_owner *o = &sc->owners[i];
		int32_t k = scan_find(sc, o->span_id);

		if (k < 0)
			return -1;
		scan_span *x = &sc->spans[k];
		if (o->ref_span && x->parent >= 0 && strcmp(o->ref_trace, sc->trace_id) == 0 &&
		    strcmp(o->ref_span, x->parent_id) == 0)
			x->follows = 1;
	}
	return 0;
}

/* Does a parent link close a cycle? The full parse cuts one link of it, at
 * a span that depends on the sort order: left to it. */
static int
scan_cycle(scan *sc)
{
	uint8_t *state = arena_alloc(&sc->mem, sc->nspans + 1);	/* 0 new, 1 on path, 2 done */

	memset(state, 0, sc->nspans + 1);
	for (size_t i = 0; i < sc->nspans; i++) {
		int32_t j = (int32_t)i;

		while (j >= 0 && state[j] == 0) {
			state[j] = 1;
			j = sc->spans[j].parent;
		}
		if (j >= 0 && state[j] == 1)
			return 1;
		for (j = (int32_t)i; j >= 0 && state[j] == 1; j = sc->spans[j].parent)
			state[j] = 2;
	}
	return 0;
}

/* The order of the full parse's spans (start, then id): the order RPCs are
 * noted in, which names the hosts in the order -v lists them. */
static int
rpc_before(const scan *sc, int32_t a, int32_t b)
{
	const scan_span *x = &sc->spans[a], *y = &sc->spans[b];

	if (x->start != y->start)
		return x->start < y->start;
	return strcmp(x->id, y->id) < 0;
}

/* The RPCs of the trace, as tr_clock_add_trace notes them. */
static void
scan_note_rpcs(scan *sc)
{
	size_t n = 0;

	GROW(sc->rpcs, sc->caprpcs, sc->nspans + 1);
	for (size_t i = 0; i < sc->nspans; i++) {
		const scan_span *s = &sc->spans[i];
		const scan_span *p = s->parent >= 0 ? &sc->spans[s->parent] : NULL;

		if (s->kind != TR_KIND_SERVER || !p || s->follows || p->kind != TR_KIND_CLIENT ||
		    !*s->host || !*p->host || strcmp(s->host, p->host) == 0 || !s->timed || !p->timed)
			continue;
		size_t j = n++;	/* insertion sort: a trace has few RPCs */
		while (j > 0 && rpc_before(sc, (int32_t)i, sc->rpcs[j - 1])) {
			sc->rpcs[j] = sc->rpcs[j - 1];
			j--;
		}
		sc->rpcs[j] = (int32_t)i;
	}
	for (size_t k = 0; k < n; k++) {
		const scan_span *s = &sc->spans[sc->rpcs[k]], *p = &sc->spans[s->parent];

		note_rpc(sc->c, &(rpc_end){p->host, p->start, p->end},
			 &(rpc_end){s->host, s->start, s->end});
	}
}

static int
scan_end_trace(scan *sc)
{
	sc->open = 0;
	if (scan_link(sc) < 0 || scan_cycle(sc))
		return -1;
	if (!sc->halo)	/* the shard that owns it counts its RPCs */
		scan_note_rpcs(sc);
	return 0;
}

/* A T record opens a trace (its id as written, and unescaped). */
static int
scan_begin_trace(scan *sc, const char *tid, size_t tidlen, const char *line, size_t len)
{
	char *id;

	arena_reset(&sc->mem);
	sc->nspans = sc->nowners = sc->span_recs = sc->bytes = 0;
	sb_clear(&sc->group_id);
	sb_add(&sc->group_id, tid, tidlen);
	id = arena_alloc(&sc->mem, tidlen + 1);
	tr_unescape(id, tid, tidlen);
	sc->trace_id = id;
	sc->open = 1;
	sc->halo = len > 1 && line[0] == 'T' && line[1] == '\t' && tr_line_is_halo(line, len);
	return scan_record(sc, line, len);
}

/* One line of the input, grouped as the reader groups it; -1: give up. */
static int
scan_line(scan *sc, const char *line, size_t len)
{
	if (len == 0 || line[0] == '#')
		return 0;	/* the header, a comment line: passed through */
	const char *tab = memchr(line, '\t', len);
	const char *tid = tab ? tab + 1 : line + len;
	const char *tend = tab ? memchr(tid, '\t', len - (size_t)(tid - line)) : NULL;
	size_t tidlen = (size_t)((tend ? tend : line + len) - tid);
	int owned = (len == 1 || line[1] == '\t') && strchr("SRLT", line[0]);
	int is_t = len > 1 && line[0] == 'T' && line[1] == '\t';

	if (!tab || tidlen == 0 || memchr(tid, '\r', tidlen))
		return owned ? -1 : 0;	/* a bad record, or a line of no trace */
	int same = sc->open && tidlen == sc->group_id.len && memcmp(tid, sc->group_id.s, tidlen) == 0;
	if (sc->open && (!same || is_t) && scan_end_trace(sc) < 0)
		return -1;
	if (same && !is_t) {
		sc->span_recs += len > 1 && line[0] == 'S' && line[1] == '\t';
		sc->bytes += len + 1;
		if (sc->span_recs > sc->max_spans || sc->bytes > sc->max_bytes)
			return -1;
		return scan_record(sc, line, len);
	}
	if (is_t)
		return scan_begin_trace(sc, tid, tidlen, line, len);
	return -1;	/* a record outside its trace's group */
}

/* Does every input start as the line format does (its header line)? */
static int
scan_inputs_fit(char **files, int nfiles)
{
	for (int i = 0; i < nfiles; i++) {
		/* one that cannot be read is the reader's to tell, as bad input */
		tr_input *in = tr_path_is_dir(files[i]) ? NULL : tr_input_try_open(files[i]);
		size_t n = 0;

		if (!in)
			return 0;
		const char *p = tr_input_peek(in, 4, &n);
		int fit = n >= 4 && memcmp(p, "#tr/", 4) == 0;

		tr_input_close(in);
		if (!fit)
			return 0;
	}
	return 1;
}

/* The lines of in, scanned; 0 when the scan gives up. */
static int
scan_lines(scan *sc, tr_input *in)
{
	char *line;
	size_t len;
	int ok = 1;

	while (ok && (line = tr_input_line(in, &len))) {
		if (tr_input_line_cut(in))
			ok = 0;	/* the last record may have lost its end */
		while (len && line[len - 1] == '\r')
			line[--len] = '\0';
		if (ok && scan_line(sc, line, len) < 0)
			ok = 0;
	}
	if (ok && tr_input_error(in))
		ok = 0;
	tr_input_close(in);
	return ok;
}

static int
scan_file(scan *sc, const char *file)
{
	return scan_lines(sc, tr_input_open(file));
}

static void
scan_free(scan *sc)
{
	arena_free(&sc->mem);
	sb_free(&sc->group_id);
	strmap_free(&sc->ids);
	free(sc->spans);
	free(sc->owners);
	free(sc->rpcs);
}

/* What the RPCs of e said, added to d's: the order they come in does not
 * matter (note_rpc). */
static void
merge_side(rpc_side *d, const rpc_side *e)
{
	if (!e->n)
		return;
	if (!d->n) {
		*d = *e;
		return;
	}
	d->lo = e->lo > d->lo ? e->lo : d->lo;
	d->hi = e->hi < d->hi ? e->hi : d->hi;
	if (e->min_slack < d->min_slack || (e->min_slack == d->min_slack && e->mid2 < d->mid2)) {
		d->min_slack = e->min_slack;
		d->mid2 = e->mid2;
	}
	d->min_req = e->min_req < d->min_req ? e->min_req : d->min_req;
	d->n += e->n;
}

/* The RPCs o noted, noted in c after its own: hosts new to c are numbered
 * in the order o met them, as one pass over both inputs would. */
static void
merge_clock(tr_clock *c, const tr_clock *o)
{
	int32_t *ids = xmalloc((o->nhosts + 1) * sizeof *ids);

	for (size_t i = 0; i < o->nhosts; i++) {
		ids[i] = host_id(c, o->hosts[i].name);
		c->hosts[ids[i]].calls += o->hosts[i].calls;
	}
	for (size_t i = 0; i < o->npairs; i++) {
		const host_pair *q = &o->pairs[i];
		host_pair *p = pair_of(c, ids[q->a], ids[q->b], 1);

		merge_side(&p->side[0], &q->side[0]);
		merge_side(&p->side[1], &q->side[1]);
	}
	free(ids);
}

/* The lines of bytes [off, off + len) of a file, from a line start, to
 * the end of the trace open there. */
static int
scan_range(scan *sc, const char *file, uint64_t off, uint64_t len)
{
	int ok = scan_lines(sc, tr_input_open_range(file, off, len));

	if (ok && sc->open)
		ok = scan_end_trace(sc) == 0;
	return ok;
}

/* A large file is scanned as two halves at once (two cores), cut before a
 * T record: a trace's group never spans the cut, and where its group ends
 * the scan is the same whichever half it is in. */
enum { SCAN_SPLIT_MIN = 8 << 20, SCAN_SPLIT_LOOK = 16 << 20 };

/* Where the second half starts: a T record near the middle; 0 for none. */
static uint64_t
scan_split(const char *file)
{
	int64_t size = tr_regular_file_size(file);

	if (size < SCAN_SPLIT_MIN)
		return 0;
	uint64_t mid = (uint64_t)size / 2, at = mid, cut = 0;
	tr_input *in = tr_input_open_range(file, mid, SCAN_SPLIT_LOOK);
	size_t len;
	char *line = tr_input_line(in, &len);	/* the rest of a line cut at mid */

	for (; line && !tr_input_line_cut(in); line = tr_input_line(in, &len)) {
		if (at > mid && len > 1 && line[0] == 'T' && line[1] == '\t') {
			cut = at;
			break;
		}
		at += len + 1;
	}
	tr_input_close(in);
	return cut;
}

typedef struct scan_half {
	scan sc;
	const char *file;
	uint64_t off;
	int ok;
} scan_half;

static void *
scan_second_half(void *arg)
{
	scan_half *h = arg;

	h->ok = scan_range(&h->sc, h->file, h->off, UINT64_MAX);
	return NULL;
}

static int
scan_halves(scan *sc, const char *file, uint64_t cut)
{
	scan_half h = {.sc = {.max_spans = sc->max_spans, .max_bytes = sc->max_bytes,
			      .c = tr_clock_new()}, .file = file, .off = cut};
	pthread_t th;
	int threaded = pthread_create(&th, NULL, scan_second_half, &h) == 0;
	int ok = scan_range(sc, file, 0, cut);

	if (threaded)
		pthread_join(th, NULL);
	else
		scan_second_half(&h);
	if (ok && h.ok)
		merge_clock(sc->c, h.sc.c);
	tr_clock_free(h.sc.c);
	scan_free(&h.sc);
	return ok && h.ok;
}

/* The light pass over the inputs; NULL when it gave up. */
static tr_clock *
scan_inputs(char **files, int nfiles, size_t max_spans, size_t max_bytes)
{
	scan sc = {.max_spans = max_spans ? max_spans : TR_DEFAULT_MAX_SPANS,
		   .max_bytes = max_bytes ? max_bytes : TR_DEFAULT_MAX_BYTES};
	int ok = nfiles > 0 && scan_inputs_fit(files, nfiles);
	uint64_t cut;

	sc.c = tr_clock_new();
	if (ok && nfiles == 1 && (cut = scan_split(files[0])) > 0)
		ok = scan_halves(&sc, files[0], cut);
	else {
		for (int i = 0; ok && i < nfiles; i++)
			ok = scan_file(&sc, files[i]);
		if (ok && sc.open)
			ok = scan_end_trace(&sc) == 0;
	}
	scan_free(&sc);
	if (ok)
		return sc.c;
	tr_clock_free(sc.c);
	return NULL;
}

tr_clock *
tr_clock_from_inputs(char **files, int nfiles, char *const *names, size_t max_spans,
		     size_t max_bytes, int flags)
{
	tr_clock *c = tr_clock_gather(files, nfiles, names, max_spans, max_bytes, flags);

	tr_clock_solve(c);
	return c;
}

tr_clock *
tr_clock_gather(char **files, int nfiles, char *const *names, size_t max_spans,
		size_t max_bytes, int flags)
{
	tr_clock *c = scan_inputs(files, nfiles, max_spans, max_bytes);

	if (c)
		return c;
	/* not the line format (exports), or not a file: read the traces */
	tr_reader *r = tr_reader_open(files, nfiles, names, max_spans, max_bytes,
				      (flags & ~TR_READ_VERBOSE) | TR_READ_QUIET);
	enum tr_next n;
	tr_trace *t;
	const char *line;
	size_t len;

	c = tr_clock_new();
	while ((n = tr_reader_next(r, &t, &line, &len)) != TR_EOF) {
		if (n == TR_BAD && !(flags & TR_READ_KEEP_GOING))
			break;
		if (n == TR_TRACE)
			tr_clock_add_trace(c, t);
	}
	tr_reader_free(r);
	return c;
}

/* The evidence as records (clock.h): the hosts in the order they were met,
 * then the pairs, each side's summary of its RPCs. */
static void
write_side(strbuf *b, const rpc_side *d)
{
	sb_addf(b, "\t%zu\t%lld\t%lld\t%lld\t%lld\t%lld", d->n, (long long)d->lo, (long long)d->hi,
		(long long)d->min_slack, (long long)d->mid2, (long long)d->min_req);
}

size_t
tr_clock_write_evidence(const tr_clock *c, strbuf *b)
{
	for (size_t i = 0; i < c->nhosts; i++) {
		sb_adds(b, "H\t");
		tr_escapes(b, c->hosts[i].name, 0);
		sb_addf(b, "\t%zu\n", c->hosts[i].calls);
	}
	for (size_t i = 0; i < c->npairs; i++) {
		const host_pair *p = &c->pairs[i];

		sb_adds(b, "P\t");
		tr_escapes(b, c->hosts[p->a].name, 0);
		sb_adds(b, "\t");
		tr_escapes(b, c->hosts[p->b].name, 0);
		write_side(b, &p->side[0]);
		write_side(b, &p->side[1]);
		sb_adds(b, "\n");
	}
	return c->nhosts + c->npairs;
}

/* Field f as a host of c (unescaped in place: the line is the caller's). */
static int32_t
field_host(tr_clock *c, tr_field *f)
{
	char *s = (char *)f->s;

	s[tr_unescape(s, f->s, f->len)] = '\0';
	return host_id(c, s);
}

static int
parse_side(const tr_field *f, rpc_side *d)
{
	int64_t v[6];

	for (int i = 0; i < 6; i++)
		if (parse_i64(f[i].s, f[i].len, &v[i]) < 0)
			return -1;
	if (v[0] < 0)
		return -1;
	*d = (rpc_side){.n = (size_t)v[0], .lo = v[1], .hi = v[2], .min_slack = v[3], .mid2 = v[4],
			.min_req = v[5]};
	return 0;
}

int
tr_clock_merge_evidence(tr_clock *c, char *line, size_t len, char *what, size_t whatlen)
{
	tr_field f[16];
	size_t n = tr_split(line, len, f, 16);
	int64_t calls;
	rpc_side side[2];

	if (n == 3 && f[0].len == 1 && f[0].s[0] == 'H' && f[1].len &&
	    parse_i64(f[2].s, f[2].len, &calls) == 0 && calls >= 0) {
		int32_t h = field_host(c, &f[1]);	/* may move c->hosts */

		c->hosts[h].calls += (size_t)calls;
		return 0;
	}
	if (n == 15 && f[0].len == 1 && f[0].s[0] == 'P' && f[1].len && f[2].len &&
	    parse_side(f + 3, &side[0]) == 0 && parse_side(f + 9, &side[1]) == 0) {
		int32_t a = field_host(c, &f[1]), b = field_host(c, &f[2]);

		if (strcmp(c->hosts[a].name, c->hosts[b].name) < 0) {
			host_pair *p = pair_of(c, a, b, 1);

			merge_side(&p->side[0], &side[0]);
			merge_side(&p->side[1], &side[1]);
			return 0;
		}
	}
	snprintf(what, whatlen, "not a clock record (H host calls, or P host host and two sides "
		 "of six numbers)");
	return -1;
}
