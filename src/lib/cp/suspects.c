/* suspects.c - which service caused an incident, from its traces and a
 * baseline's.
 *
 * Every span's time is split into what it did itself and what it waited
 * for (its self time: its duration less the union of its children's), and
 * each self time is read as evidence about one service or one call:
 * - a client span (recorded or inferred kind, kinds.h) with a server span
 *   under it: its self time is the call's request and reply gaps (client
 *   start to server start, server end to client end), which hold the
 *   network, the callee's queue and the caller's own sending and reading.
 *   Their sum is free of clock skew (a difference of two durations).
 * - a client span with no server span under it, to a peer it names
 *   (peer.service, db.system, ...): the call to an untraced callee.
 *   A childless span of no kind whose service, operation and named peer
 *   are a call seen elsewhere with its server span is that call's client
 *   side, and names its callee (unless the call went to several).
 * - any other span: the service's own work. A wrapper span (kinds.h) is
 *   waiting, not work: it counts for nothing.
 * Each is grouped with its like: the same service and operation, and the
 * same children by service and operation (a span that lost a child to
 * sampling or to a crash is not compared with one that did not; span loss
 * does not look like slowness). A group grew when the incident's mean
 * exceeds the baseline's by SUS_MIN_Z standard errors and by SUS_MIN_REL of
 * the baseline's mean, and its mean without its largest SUS_TRIM values
 * does too (a few outliers are no growth); its growth per incident request
 * is the difference of the means times the group's spans per request.
 *
 * Attribution:
 * - own work that grew is the service's ("callee slower");
 * - a call's gaps that grew belong to both ends: they go to the caller
 *   and the callee in proportion to the evidence each end's other traffic
 *   gives (the share of its other calls, in and out, that grew, plus one
 *   when its own work grew); with none on either side, to the callee (the
 *   network into it, or its queue: a starved caller shows in its own work
 *   or in its other calls). Gaps that grow on calls into
 *   B from several callers point at B (network or B's queue: "calls into
 *   it slower"); gaps that grow on calls from A to several callees,
 *   together with A's own work, point at A (a starved caller: "caller
 *   starved").
 * - an outage without status: most calls into a callee that had a server
 *   span in the baseline have none (SUS_GONE), far more than other calls
 *   lost ("unreachable");
 * - failures: a failed span none of whose children failed is where a
 *   failure started; for a failed client span that is its callee (with no
 *   server span under it: "unreachable"). The rate per request of
 *   failures starting in a service is compared with the baseline's
 *   (a two-sample Poisson test, SUS_MIN_Z, and at least SUS_MIN_ERR).
 * A service's score is its latency growth as a share of the baseline's
 * mean latency plus its failures' growth per request; services below
 * SUS_MIN_SCORE are not named, and no row means nothing stands out. */
#include "cp/suspects.h"
#include "cp/baseline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/kinds.h"
#include "core/table.h"

#define SUS_MIN_Z 3.0		/* standard errors a difference must exceed */
#define SUS_MIN_REL 0.1		/* ...and this share of the baseline's mean */
#define SUS_MIN_N 3		/* spans a group needs on each side */
#define SUS_GONE 0.8		/* calls into a callee that lost their server span: unreachable */
#define SUS_TRIM 0.02		/* the largest values a trimmed mean leaves out */
#define SUS_MIN_ERR 0.01	/* failures per request a rise must reach */
#define SUS_MIN_SCORE 0.01	/* a service named: 1% of the latency, or 0.01 failures per request */
#define SUS_FEW_TRACES 30	/* fewer traces on a side: a warning */

enum { INC = 0, BASE = 1 };
enum { G_OWN, G_GAP, G_LEAF };

typedef struct sus_group {
	uint8_t type;
	int32_t a, b;		/* own: the service, b -1; calls: caller a, callee b */
	int32_t edge;		/* calls: the (a, b) pair */
	double n[2], sum[2], sq[2];
	float *v[2];		/* the values, for the trimmed mean */
	size_t capv[2];
} sus_group;

typedef struct sus_service {
	const char *name;
	double spans[2], origin[2], unreach[2];
	double answered[2], unanswered[2];	/* calls into it learned with a server
						 * span: with one, and without */
	/* filled when ranking */
	double own, delay;
	int own_grew;
	uint32_t edges, grown;
	unsigned evidence;
} sus_service;

typedef struct sus_edge {
	int32_t a, b;
	double growth;		/* µs per incident request */
	int compared;
} sus_edge;

struct cp_suspects {
	arena mem;
	strbuf key;
	strmap groups, services, edges, callees;
	sus_group *g;
	size_t ng, capg;
	sus_service *svc;
	size_t nsvc, capsvc;
	sus_edge *e;
	size_t ne, cape;
	double ntraces[2], latency[2], nspans[2], norphans[2], nstatus[2];
	float *skew[2];		/* per call with one server span: |its middle - the client's| */
	size_t nskew[2], capskew[2];
	size_t inferred, wrappers;
	/* per span of the current trace */
	uint8_t *kind, *wrap, *failed;
	int64_t *self;
	uint64_t *name_hash;
	int32_t *sidx;		/* service index */
	size_t capspans;
	cp_suspect *rows;
	size_t nrows;
};

cp_suspects *
cp_suspects_new(void)
{
	return xcalloc(1, sizeof(cp_suspects));
}

void
cp_suspects_free(cp_suspects *k)
{
	if (!k)
		return;
	arena_free(&k->mem);
	sb_free(&k->key);
	strmap_free(&k->groups);
	strmap_free(&k->services);
	strmap_free(&k->edges);
	strmap_free(&k->callees);
	for (size_t i = 0; i < k->ng; i++)
		free(k->g[i].v[0]), free(k->g[i].v[1]);
	free(k->g);
	free(k->skew[0]);
	free(k->skew[1]);
	free(k->svc);
	free(k->e);
	free(k->kind);
	free(k->wrap);
	free(k->failed);
	free(k->self);
	free(k->name_hash);
	free(k->sidx);
	free(k->rows);
	free(k);
}

size_t
cp_suspects_ntraces(const cp_suspects *k, int baseline)
{
	return (size_t)k->ntraces[baseline != 0];
}

static int32_t
service_of(cp_suspects *k, const char *name)
{
	int added;
	strmap_slot *s = strmap_intern(&k->services, &k->mem, name, strlen(name), &added);

	if (added) {
		GROW(k->svc, k->capsvc, k->nsvc + 1);
		k->svc[k->nsvc++] = (sus_service){.name = s->key};
	}
	return (int32_t)s->val;
}

static int32_t
edge_of(cp_suspects *k, int32_t a, int32_t b)
{
	int32_t pair[2] = {a, b};
	int added;
	strmap_slot *s = strmap_intern(&k->edges, &k->mem, pair, sizeof pair, &added);

	if (added) {
		GROW(k->e, k->cape, k->ne + 1);
		k->e[k->ne++] = (sus_edge){a, b, 0, 0};
	}
	return (int32_t)s->val;
}

/* The group of a value: its type, service (or caller) a, operation, callee
 * b (-1: none) and the shape of the span's children. */
static sus_group *
group_of(cp_suspects *k, int type, int32_t a, const char *op, int32_t b, uint64_t shape)
{
	int32_t ids[2] = {a, b};
	strmap_slot *s;
	int added;

	sb_clear(&k->key);
	sb_addc(&k->key, (char)type);
	sb_add(&k->key, ids, sizeof ids);
	sb_add(&k->key, &shape, sizeof shape);
	sb_adds(&k->key, op);
	s = strmap_intern(&k->groups, &k->mem, k->key.s, k->key.len, &added);
	if (added) {
		GROW(k->g, k->capg, k->ng + 1);
		k->g[k->ng++] = (sus_group){.type = (uint8_t)type, .a = a, .b = b,
					    .edge = b >= 0 ? edge_of(k, a, b) : -1};
	}
	return &k->g[s->val];
}

static void
group_add(sus_group *g, int side, double v)
{
	size_t n = (size_t)g->n[side];

	GROW(g->v[side], g->capv[side], n + 1);
	g->v[side][n] = (float)v;
	g->n[side]++;
	g->sum[side] += v;
	g->sq[side] += v * v;
}

/* The callee a call names, or NULL: the first of these keys it has, in
 * this order, found in one pass over its tags (most keys are none of
 * them: their first letter tells). */
static const char *
peer_name(const tr_span *s)
{
	static const char *const keys[] = {"peer.service", "server.address", "net.peer.name",
					   "db.name", "db.system", "messaging.destination.name"};
	size_t nkeys = sizeof keys / sizeof keys[0], best = nkeys;
	const char *v = NULL;

	for (uint32_t j = 0; j < s->ntags && best > 0; j++) {
		const char *key = s->tags[j].key;

		if (!strchr("psndm", key[0]) || !*s->tags[j].val)
			continue;
		for (size_t i = 0; i < best; i++)
			if (strcmp(key, keys[i]) == 0) {
				best = i;
				v = s->tags[j].val;
				break;
			}
	}
	return v;
}

/* "caller\0operation\0peer": the key of calls learned from server spans.
 * The peer the client names (empty when none) tells apart the calls of
 * an operation named for its protocol alone ("HTTP GET"). */
static const char *
call_key(cp_suspects *k, const tr_span *s, size_t *len)
{
	const char *peer = peer_name(s);

	sb_set_pair(&k->key, s->service, s->operation);
	sb_addc(&k->key, '\0');
	if (peer)
		sb_adds(&k->key, peer);
	*len = k->key.len;
	return k->key.s;
}

/* The callee learned for a call: its service, or -1 when the call is not
 * known or went to more than one service (the key does not tell which). */
static int32_t
learned_callee(const strmap_slot *known)
{
	return known && known->val >= 0 ? (int32_t)known->val : -1;
}

/* The first child of s in another process, or -1; -2 when children in
 * other processes are of more than one service (s works between calls it
 * makes itself: its self time is not one call's gaps). */
static int32_t
remote_child(const tr_trace *t, int32_t s)
{
	int32_t first = -1;

	for (int32_t c = t->spans[s].first_child; c >= 0; c = t->spans[c].next_sibling) {
		if (tr_same_process(&t->spans[s], &t->spans[c]))
			continue;
		if (first < 0)
			first = c;
		else if (strcmp(t->spans[c].service, t->spans[first].service) != 0)
			return -2;
	}
	return first;
}

/* Self time of every timed span: its duration less the union of its timed,
 * blocking children's intervals within it (children come by start). */
static void
self_times(const tr_trace *t, int64_t *self)
{
	for (size_t i = 0; i < t->nspans; i++) {
		const tr_span *s = &t->spans[i];
		int64_t end = tr_span_end(s), at = s->start, covered = 0;

		self[i] = 0;
		if (!(s->flags & TR_SPAN_HAS_TIME))
			continue;
		for (int32_t c = s->first_child; c >= 0; c = t->spans[c].next_sibling) {
			const tr_span *cs = &t->spans[c];
			int64_t lo = cs->start > at ? cs->start : at;
			int64_t hi = tr_span_end(cs) < end ? tr_span_end(cs) : end;

			if (!(cs->flags & TR_SPAN_HAS_TIME) || (cs->flags & TR_SPAN_FOLLOWS) || hi <= lo)
				continue;
			covered += hi - lo;
			at = hi;
		}
		self[i] = s->duration - covered;
	}
}

static void
reserve_spans(cp_suspects *k, size_t n)
{
	if (n <= k->capspans)
		return;
	k->capspans = n;
	k->kind = xrealloc(k->kind, n);
	k->wrap = xrealloc(k->wrap, n);
	k->failed = xrealloc(k->failed, n);
	k->self = xrealloc(k->self, n * sizeof *k->self);
	k->name_hash = xrealloc(k->name_hash, n * sizeof *k->name_hash);
	k->sidx = xrealloc(k->sidx, n * sizeof *k->sidx);
}

/* The shape of span i: its children by service and operation, as a
 * multiset (a sum of their names' hashes). */
static uint64_t
shape_of(const cp_suspects *k, const tr_trace *t, int32_t i)
{
	uint64_t h = 0;

	for (int32_t c = t->spans[i].first_child; c >= 0; c = t->spans[c].next_sibling)
		h += k->name_hash[c];
	return h;
}

/* Does s record a status: an OpenTelemetry status, an error tag, an
 * HTTP or gRPC status code? One pass over its tags. */
static int
records_status(const tr_span *s)
{
	static const char *const keys[] = {"otel.status_code", "error", "http.status_code",
					   "http.response.status_code", "rpc.grpc.status_code"};

	for (uint32_t j = 0; j < s->ntags; j++) {
		const char *key = s->tags[j].key;

		if (key[0] != 'o' && key[0] != 'e' && key[0] != 'h' && key[0] != 'r')
			continue;
		for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
			if (strcmp(key, keys[i]) == 0)
				return 1;
	}
	return 0;
}

/* A client span (kind calls out) with no server span under it. */
static void
add_leaf_call(cp_suspects *k, const tr_trace *t, int32_t i, int side, uint64_t shape)
{
	const tr_span *s = &t->spans[i];
	size_t len;
	const char *key = call_key(k, s, &len);
	strmap_slot *known = strmap_get(&k->callees, key, len);
	const char *peer;

	if (learned_callee(known) >= 0) {	/* its server span is lost, or the callee never answered */
		k->svc[known->val].unanswered[side]++;
		return;
	}
	if (known)	/* a call with server spans elsewhere, to whom is not known */
		return;
	if ((peer = peer_name(s)))
		group_add(group_of(k, G_LEAF, k->sidx[i], s->operation, service_of(k, peer), shape),
			  side, (double)s->duration);
	else		/* waiting for something unnamed: the caller's own */
		group_add(group_of(k, G_OWN, k->sidx[i], s->operation, -1, shape), side,
			  (double)s->duration);
}

/* The gaps of client span i around its server span r: with r its only
 * child, the difference of their durations, which no clock skew between
 * the two hosts changes (clipping r to i's interval would); else i's self
 * time. */
static double
call_gaps(const tr_trace *t, int32_t i, int32_t r, int64_t self)
{
	const tr_span *c = &t->spans[i], *sv = &t->spans[r];

	if (c->first_child != r || sv->next_sibling >= 0 || !(sv->flags & TR_SPAN_HAS_TIME))
		return (double)self;
	return c->duration > sv->duration ? (double)(c->duration - sv->duration) : 0;
}

static void
add_span_time(cp_suspects *k, const tr_trace *t, int32_t i, int side)
{
	const tr_span *s = &t->spans[i];
	uint64_t shape = shape_of(k, t, i);
	int32_t r;

	if (k->wrap[i])
		return;
	if (!tr_kind_calls_out(k->kind[i])) {
		group_add(group_of(k, G_OWN, k->sidx[i], s->operation, -1, shape), side,
			  (double)k->self[i]);
		return;
	}
	if (k->kind[i] == TR_KIND_PRODUCER)	/* its consumers need not wait for it */
		return;
	if (s->first_child < 0) {
		add_leaf_call(k, t, i, side, shape);
		return;
	}
	if ((r = remote_child(t, i)) < 0) {	/* calls of its own process, or many: work */
		group_add(group_of(k, G_OWN, k->sidx[i], s->operation, -1, shape), side,
			  (double)k->self[i]);
		return;
	}
	k->svc[k->sidx[r]].answered[side]++;
	group_add(group_of(k, G_GAP, k->sidx[i], s->operation, k->sidx[r], shape), side,
		  call_gaps(t, i, r, k->self[i]));
}

/* The service a failure of span i started in, or -1 when a child failed
 * too (it started further down). *unreachable: a call that failed with no
 * server span under it. */
static int32_t
failure_origin(cp_suspects *k, const tr_trace *t, int32_t i, int *unreachable)
{
	const tr_span *s = &t->spans[i];
	int32_t r;

	*unreachable = 0;
	for (int32_t c = s->first_child; c >= 0; c = t->spans[c].next_sibling)
		if (k->failed[c])
			return -1;
	if (!tr_kind_calls_out(k->kind[i]))
		return k->sidx[i];
	if ((r = remote_child(t, i)) >= 0)	/* the server said nothing failed */
		return k->sidx[r];
	if (s->first_child < 0) {
		size_t len;
		const char *key = call_key(k, s, &len);
		strmap_slot *known = strmap_get(&k->callees, key, len);
		const char *peer = peer_name(s);

		if (learned_callee(known) >= 0) {	/* its callee has server spans, none here */
			*unreachable = 1;
			return (int32_t)known->val;
		}
		if (peer)
			return service_of(k, peer);
	}
	return k->sidx[i];
}

/* Learn which service serves each caller's operation (the calls that have
 * a server span), so that a call without one still names its callee. */
static void
learn_callees(cp_suspects *k, const tr_trace *t)
{
	for (size_t i = 0; i < t->nspans; i++) {
		int32_t r;
		size_t len;
		const char *key;
		int added;

		if (!tr_kind_calls_out(k->kind[i]) || (r = remote_child(t, (int32_t)i)) < 0)
			continue;	/* no server span, or several services' */
		key = call_key(k, &t->spans[i], &len);
		strmap_slot *s = strmap_put_copy(&k->callees, &k->mem, key, len, &added);
		if (added)
			s->val = k->sidx[r];
		else if (s->val != k->sidx[r])
			s->val = -2;	/* more than one callee: none can be named */
	}
}

/* A childless span of no kind whose service and operation are a call
 * learned elsewhere (with its server span) is that call's client side. */
static void
kinds_from_calls(cp_suspects *k, const tr_trace *t)
{
	for (size_t i = 0; i < t->nspans; i++) {
		size_t len;
		const char *key;

		if (k->kind[i] != TR_KIND_NONE || t->spans[i].first_child >= 0)
			continue;
		key = call_key(k, &t->spans[i], &len);
		if (strmap_get(&k->callees, key, len)) {
			k->kind[i] = TR_KIND_CLIENT;
			k->inferred++;
		}
	}
}

static void
count_window(cp_suspects *k, const tr_trace *t, int side)
{
	k->ntraces[side]++;
	k->nspans[side] += (double)t->nspans;
	k->norphans[side] += (double)t->norphans;
	if (t->nroots && (t->spans[t->roots[0]].flags & TR_SPAN_HAS_TIME))
		k->latency[side] += (double)t->spans[t->roots[0]].duration;
	for (size_t i = 0; i < t->nspans; i++) {
		const tr_span *s = &t->spans[i], *p;

		k->nstatus[side] += records_status(s) || k->failed[i];
		if (s->parent < 0 || tr_same_process(s, (p = &t->spans[s->parent])) ||
		    p->first_child != (int32_t)i || s->next_sibling >= 0 ||
		    !(s->flags & p->flags & TR_SPAN_HAS_TIME))
			continue;
		/* with symmetric transit the server's middle is the client's:
		 * what is left is skew between the hosts' clocks */
		GROW(k->skew[side], k->capskew[side], k->nskew[side] + 1);
		k->skew[side][k->nskew[side]++] = (float)fabs((double)(s->start - p->start) +
							    (double)(tr_span_end(s) - tr_span_end(p))) / 2;
	}
}

void
cp_suspects_add(cp_suspects *k, const tr_trace *t, int baseline)
{
	int side = baseline ? BASE : INC;

	reserve_spans(k, t->nspans ? t->nspans : 1);
	k->inferred += tr_trace_kinds(t, k->kind);
	k->wrappers += tr_trace_wrappers(t, k->kind, k->wrap);
	self_times(t, k->self);
	for (size_t i = 0; i < t->nspans; i++) {
		const tr_span *s = &t->spans[i];

		k->failed[i] = (uint8_t)tr_span_error(t, (int32_t)i, NULL);
		k->sidx[i] = service_of(k, s->service);
		k->name_hash[i] = hash_bytes(s->service, strlen(s->service)) * 0x9e3779b97f4a7c15ULL +
				  hash_bytes(s->operation, strlen(s->operation));
	}
	learn_callees(k, t);
	kinds_from_calls(k, t);
	count_window(k, t, side);
	for (size_t i = 0; i < t->nspans; i++) {
		const tr_span *s = &t->spans[i];
		int unreachable;
		int32_t o;

		k->svc[k->sidx[i]].spans[side]++;
		if (s->flags & TR_SPAN_HAS_TIME)
			add_span_time(k, t, (int32_t)i, side);
		if (k->failed[i] && (o = failure_origin(k, t, (int32_t)i, &unreachable)) >= 0) {
			k->svc[o].origin[side]++;
			k->svc[o].unreach[side] += unreachable;
		}
	}
}

size_t
cp_suspects_common(const cp_suspects *k)
{
	size_t n = 0;

	for (size_t i = 0; i < k->nsvc; i++)
		n += k->svc[i].spans[INC] > 0 && k->svc[i].spans[BASE] > 0;
	return n;
}

static int
float_cmp(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

/* The mean of one side's values without its largest SUS_TRIM share (at
 * least one value when there are SUS_MIN_N or more): a growth that a few
 * outliers make (a rare timeout more in one window) does not survive it,
 * one that a share of the spans make does. Sorts the values. */
static double
trimmed_mean(sus_group *g, int side)
{
	size_t n = (size_t)g->n[side], cut = (size_t)ceil(SUS_TRIM * (double)n), keep;
	double sum = 0;

	qsort(g->v[side], n, sizeof *g->v[side], float_cmp);
	keep = n > cut ? n - cut : n;
	for (size_t i = 0; i < keep; i++)
		sum += g->v[side][i];
	return keep ? sum / (double)keep : 0;
}

/* How much group g grew per incident request (µs), 0 unless it grew
 * beyond the baseline's spread: its mean by SUS_MIN_Z standard errors and
 * SUS_MIN_REL of the baseline's, and its trimmed mean by SUS_MIN_REL of the
 * baseline's too; *compared: both sides have enough spans to tell. */
static double
group_growth(sus_group *g, double nreq, int *compared)
{
	double mi, mb, vi, vb, se, d;

	*compared = g->n[INC] >= SUS_MIN_N && g->n[BASE] >= SUS_MIN_N;
	if (!*compared)
		return 0;
	mi = g->sum[INC] / g->n[INC];
	mb = g->sum[BASE] / g->n[BASE];
	vi = fmax(0, g->sq[INC] / g->n[INC] - mi * mi) * g->n[INC] / (g->n[INC] - 1);
	vb = fmax(0, g->sq[BASE] / g->n[BASE] - mb * mb) * g->n[BASE] / (g->n[BASE] - 1);
	se = sqrt(vi / g->n[INC] + vb / g->n[BASE]);
	d = mi - mb;
	if (d <= SUS_MIN_Z * se || d <= SUS_MIN_REL * fabs(mb) || d <= 0)
		return 0;
	mb = trimmed_mean(g, BASE);
	if (trimmed_mean(g, INC) - mb <= SUS_MIN_REL * fabs(mb))
		return 0;
	return d * g->n[INC] / nreq;
}

/* Own work and calls per service and per edge. */
static void
collect_growth(cp_suspects *k)
{
	double nreq = k->ntraces[INC];

	for (size_t i = 0; i < k->nsvc; i++) {
		sus_service *s = &k->svc[i];

		s->own = s->delay = 0;
		s->own_grew = 0;
		s->edges = s->grown = 0;
		s->evidence = 0;
	}
	for (size_t i = 0; i < k->ne; i++)
		k->e[i].growth = 0, k->e[i].compared = 0;
	for (size_t i = 0; i < k->ng; i++) {
		sus_group *g = &k->g[i];
		int compared;
		double d = group_growth(g, nreq, &compared);

		if (g->type == G_OWN) {
			if (k->svc[g->a].spans[BASE] == 0)	/* new: all its time is new */
				d = g->sum[INC] / nreq;
			k->svc[g->a].own += d;
			continue;
		}
		k->e[g->edge].growth += d;
		k->e[g->edge].compared |= compared;
	}
}

/* Each service's compared calls, in and out, and how many grew; and
 * whether its own work grew. */
static void
involvement(cp_suspects *k, double min_delay)
{
	for (size_t i = 0; i < k->ne; i++) {
		sus_edge *e = &k->e[i];

		if (!e->compared && e->growth <= 0)
			continue;
		k->svc[e->a].edges++;
		k->svc[e->b].edges++;
		if (e->growth > 0) {
			k->svc[e->a].grown++;
			k->svc[e->b].grown++;
		}
	}
	for (size_t i = 0; i < k->nsvc; i++) {
		sus_service *s = &k->svc[i];

		if (s->own >= min_delay)
			s->evidence |= k->svc[i].spans[BASE] > 0 ? SUS_OWN : SUS_NEW;
		s->own_grew = s->own >= min_delay;
		s->delay = s->own;
	}
}

/* How much the rest of s's traffic points at it, beside the grown call it
 * is an end of: the share of its other compared calls that grew (one half
 * when it has none: no evidence either way, which is not evidence of
 * health), plus one when its own work grew. */
static double
other_evidence(const sus_service *s)
{
	return (s->edges > 1 ? (double)(s->grown - 1) / (s->edges - 1) : 0.5) + s->own_grew;
}

/* Share every grown call's gaps between its caller and its callee, by the
 * evidence each end's other traffic gives; with none on either side, the
 * callee's (the network into it or its queue: a starved caller shows in
 * its own work or its other calls). */
static void
share_calls(cp_suspects *k)
{
	for (size_t i = 0; i < k->ne; i++) {
		sus_edge *e = &k->e[i];
		sus_service *a = &k->svc[e->a], *b = &k->svc[e->b];
		double wa, wb;

		if (e->growth <= 0)
			continue;
		wa = e->a != e->b ? other_evidence(a) : 0;
		wb = other_evidence(b);
		if (wa + wb <= 0)
			wb = 1;
		a->delay += e->growth * wa / (wa + wb);
		b->delay += e->growth * wb / (wa + wb);
		if (wa > 0)
			a->evidence |= SUS_CALLER;
		if (wb > 0)
			b->evidence |= k->svc[e->b].spans[BASE] > 0 || k->svc[e->b].spans[INC] == 0 ?
				       SUS_CALLS_IN : SUS_NEW;
	}
}

/* The rise of failures per request starting in s (0 unless significant). */
static double
error_rise(const cp_suspects *k, double before, double after)
{
	double ni = k->ntraces[INC], nb = k->ntraces[BASE];
	double ri = after / ni, rb = before / nb;

	if (ri - rb < SUS_MIN_ERR || cp_rate_z(after, ni, before, nb, 0) < SUS_MIN_Z)
		return 0;
	return ri - rb;
}

/* Calls into s that lost their server span, per request, beyond the
 * baseline's: the callee is unreachable when most calls into it that had
 * a server span in the baseline have none now (SUS_GONE), far more than
 * the calls into other services lost (span loss takes some of every
 * callee's, an outage all of one's). Needs no error status. */
static double
calls_unanswered(const cp_suspects *k, const sus_service *s, double all_answered, double all_unanswered)
{
	double ni = s->answered[INC] + s->unanswered[INC], nb = s->answered[BASE] + s->unanswered[BASE];
	double others = all_answered + all_unanswered - ni, lost_elsewhere;

	if (ni < SUS_MIN_N || nb < SUS_MIN_N)
		return 0;
	lost_elsewhere = others > 0 ? (all_unanswered - s->unanswered[INC]) / others : 0;
	if (s->unanswered[INC] / ni < SUS_GONE || s->unanswered[INC] / ni - s->unanswered[BASE] / nb < 0.5 ||
	    s->unanswered[INC] / ni - lost_elsewhere < 0.5)
		return 0;
	return s->unanswered[INC] / k->ntraces[INC] - s->unanswered[BASE] / k->ntraces[BASE];
}

static int
suspect_cmp(const void *pa, const void *pb)
{
	const cp_suspect *a = pa, *b = pb;

	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	return strcmp(a->service, b->service);
}

static const char *
confidence(double share, double next_ratio)
{
	if (share >= 0.6 && next_ratio >= 2)
		return "high";
	return share >= 0.3 ? "medium" : "low";
}

size_t
cp_suspects_rank(cp_suspects *k, const cp_suspect **rows)
{
	double base_latency = k->ntraces[BASE] > 0 ? k->latency[BASE] / k->ntraces[BASE] : 0;
	double min_delay = SUS_MIN_SCORE * base_latency, total = 0, answered = 0, unanswered = 0;

	k->nrows = 0;
	*rows = NULL;
	if (k->ntraces[INC] < 1 || k->ntraces[BASE] < 1)
		return 0;
	collect_growth(k);
	involvement(k, min_delay);
	share_calls(k);
	k->rows = xrealloc(k->rows, (k->nsvc ? k->nsvc : 1) * sizeof *k->rows);
	for (size_t i = 0; i < k->nsvc; i++) {
		answered += k->svc[i].answered[INC];
		unanswered += k->svc[i].unanswered[INC];
	}
	for (size_t i = 0; i < k->nsvc; i++) {
		sus_service *s = &k->svc[i];
		double lat = base_latency > 0 && s->delay >= min_delay ? s->delay / base_latency : 0;
		double err = error_rise(k, s->origin[BASE], s->origin[INC]);
		double unr = error_rise(k, s->unreach[BASE], s->unreach[INC]);
		double gone = calls_unanswered(k, s, answered, unanswered);
		cp_suspect *r;

		if (err > 0)
			s->evidence |= SUS_ERRORS;
		if (unr > 0 || gone > 0)
			s->evidence |= SUS_UNREACHABLE;
		err = fmax(err, gone);
		if (lat + err < SUS_MIN_SCORE)
			continue;
		r = &k->rows[k->nrows++];
		*r = (cp_suspect){s->name, lat + err, lat > 0 ? s->delay : 0, s->origin[BASE] / k->ntraces[BASE],
				  s->origin[INC] / k->ntraces[INC], s->evidence & (lat > 0 ? ~0u : SUS_ERRORS | SUS_UNREACHABLE),
				  NULL};
		total += r->score;
	}
	if (k->nrows)
		qsort(k->rows, k->nrows, sizeof *k->rows, suspect_cmp);
	for (size_t i = 0; i < k->nrows; i++)
		k->rows[i].confidence = confidence(k->rows[i].score / total,
						   i + 1 < k->nrows ? k->rows[i].score / k->rows[i + 1].score :
						   INFINITY);
	*rows = k->rows;
	return k->nrows;
}

void
cp_suspects_evidence(unsigned evidence, char *buf, size_t size)
{
	static const char *const words[] = {"callee slower", "calls into it slower", "caller starved",
					    "errors rose", "unreachable", "new service"};
	size_t at = 0;

	buf[0] = 0;
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (evidence & (1u << i) && at < size)
			at += (size_t)snprintf(buf + at, size - at, "%s%s", at ? ", " : "", words[i]);
}

void
cp_suspects_write(cp_suspects *k, strbuf *out, int format, int units)
{
	char delay[32];
	const char *cols[] = {"rank", "service", "score", "evidence", delay, "errors_before",
			      "errors_after", "confidence"};
	const cp_suspect *rows;
	size_t n = cp_suspects_rank(k, &rows);
	table t;

	table_dur_col(delay, sizeof delay, "delay_us", units);
	table_begin(&t, out, format, units, cols, sizeof cols / sizeof cols[0]);
	for (size_t i = 0; i < n; i++) {
		char buf[160];

		table_int(&t, (int64_t)i + 1);
		table_str(&t, rows[i].service);
		snprintf(buf, sizeof buf, "%.3f", rows[i].score);
		table_str(&t, buf);
		cp_suspects_evidence(rows[i].evidence, buf, sizeof buf);
		table_str(&t, buf);
		table_dur(&t, (int64_t)llround(rows[i].delay_us));
		snprintf(buf, sizeof buf, "%.3f", rows[i].err_before);
		table_str(&t, buf);
		snprintf(buf, sizeof buf, "%.3f", rows[i].err_after);
		table_str(&t, buf);
		table_str(&t, rows[i].confidence);
	}
	table_end(&t);
}

static double
median(float *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof *v, float_cmp);
	return n % 2 ? v[n / 2] : ((double)v[n / 2 - 1] + v[n / 2]) / 2;
}

static double
per(double a, double b)
{
	return b > 0 ? a / b : 0;
}

void
cp_suspects_warnings(cp_suspects *k, strbuf *out)
{
	double spi = per(k->nspans[INC], k->ntraces[INC]), spb = per(k->nspans[BASE], k->ntraces[BASE]);
	double oi = per(k->norphans[INC], k->nspans[INC]), ob = per(k->norphans[BASE], k->nspans[BASE]);
	double si = median(k->skew[INC], k->nskew[INC]), sb = median(k->skew[BASE], k->nskew[BASE]);

	if (fabs(spi - spb) > 0.1 * spb || fabs(oi - ob) > 0.02)
		sb_addf(out, "the windows differ in span completeness: %.1f spans a trace, %.1f%% orphans, "
			"against %.1f and %.1f%% in the baseline (span loss is not a latency regression: "
			"spans that lost a child are compared only with their like)\n",
			spi, 100 * oi, spb, 100 * ob);
	if (fabs(si - sb) > 1000 && fmax(si, sb) > 2 * fmin(si, sb))
		sb_addf(out, "the windows differ in clock skew: a server span's middle lies %.1f ms "
			"from its client's (median), against %.1f ms in the baseline (call gaps are "
			"differences of durations, which skew does not change)\n", si / 1000, sb / 1000);
	if (k->ntraces[INC] < SUS_FEW_TRACES || k->ntraces[BASE] < SUS_FEW_TRACES)
		sb_addf(out, "few traces: %.0f in the incident, %.0f in the baseline; differences "
			"smaller than the spread of so few are not named\n", k->ntraces[INC],
			k->ntraces[BASE]);
	if (k->nstatus[INC] == 0 && k->nstatus[BASE] == 0)
		sb_adds(out, "no span records a status or an error: failures cannot be seen, "
			"only latency\n");
}

void
cp_suspects_assumptions(const cp_suspects *k, strbuf *out)
{
	sb_addf(out, "%.0f incident against %.0f baseline traces; %zu span kinds inferred from "
		"process boundaries (service and host), %zu wrapper spans counted as waiting\n",
		k->ntraces[INC], k->ntraces[BASE], k->inferred, k->wrappers);
	sb_addf(out, "a group of like spans grew when its mean rose by %.0f standard errors and "
		"%.0f%% of the baseline's; a service is named at %.0f%% of the baseline's mean "
		"latency or %.2f more failures per request\n", SUS_MIN_Z, 100 * SUS_MIN_REL,
		100 * SUS_MIN_SCORE, SUS_MIN_SCORE);
}
