/* clock.c - per-host clock offsets from RPC timings. See clock.h. */
#include "clock.h"

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
	strmap_slot *s = strmap_get(&c->host_ids, name, strlen(name));

	if (s)
		return (int32_t)s->val;
	char *copy = arena_strndup(&c->mem, name, strlen(name));
	s = strmap_put(&c->host_ids, copy, strlen(copy), &added);
	GROW(c->hosts, c->caphosts, c->nhosts + 1);
	c->hosts[c->nhosts] = (clock_host){.name = copy, .reference = -1, .via = -1};
	s->val = (int64_t)c->nhosts;
	return (int32_t)c->nhosts++;
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
	s = strmap_put_copy(&c->pair_ids, &c->mem, k, sizeof k, &added);
	GROW(c->pairs, c->cappairs, c->npairs + 1);
	host_pair *p = &c->pairs[c->npairs];
	memset(p, 0, sizeof *p);
	p->a = a;
	p->b = b;
	s->val = (int64_t)c->npairs++;
	return p;
}

static void
note_rpc(tr_clock *c, const tr_span *cl, const tr_span *sv)
{
	int32_t x = host_id(c, cl->host), y = host_id(c, sv->host);
	int flip = strcmp(cl->host, sv->host) > 0;
	host_pair *p = flip ? pair_of(c, y, x, 1) : pair_of(c, x, y, 1);
	rpc_side *d = &p->side[flip];
	int64_t lo = tr_span_end(sv) - tr_span_end(cl), hi = sv->start - cl->start;

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
	for (size_t i = 0; i < t->nspans; i++) {
		const tr_span *s = &t->spans[i];

		if (s->kind != TR_KIND_SERVER || s->parent < 0 || (s->flags & TR_SPAN_FOLLOWS))
			continue;
		const tr_span *p = &t->spans[s->parent];
		if (p->kind != TR_KIND_CLIENT || !*s->host || !*p->host || strcmp(s->host, p->host) == 0 ||
		    !(s->flags & TR_SPAN_HAS_TIME) || !(p->flags & TR_SPAN_HAS_TIME))
			continue;
		note_rpc(c, p, s);
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
	h->rpcs = p ? pair_rpcs(p) : 0;
	h->disagreeing = x->disagreeing;
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

tr_clock *
tr_clock_from_inputs(char **files, int nfiles, char *const *names, size_t max_spans,
		     size_t max_bytes, int flags)
{
	tr_clock *c = tr_clock_new();
	tr_reader *rd = tr_reader_open(files, nfiles, names, max_spans, max_bytes,
				       (flags & ~TR_READ_VERBOSE) | TR_READ_QUIET);

	for (;;) {
		tr_trace *t;
		const char *line;
		size_t len;
		enum tr_next n = tr_reader_next(rd, &t, &line, &len);

		if (n == TR_EOF || (n == TR_BAD && !(flags & TR_READ_KEEP_GOING)))
			break;
		if (n == TR_TRACE)
			tr_clock_add_trace(c, t);
	}
	tr_reader_free(rd);
	tr_clock_solve(c);
	return c;
}
