/* infer.c - the causal model: nameIDs, events, sparse pair counts, the
 * threshold, the model's output and reformatted traces.
 *
 * Counting follows the Scooby paper's additive model (§4.3): for each
 * unordered pair of events {a, b} that occur together in at least one trace
 * we keep c (traces where both occur), s(a->b), s(b->a) and q (simultaneous).
 * Then v(a->b) = s(b->a) + q and u = T - c. Pairs that never co-occur are not
 * stored, so memory grows with the pairs seen, not with (2n)^2. */
#include "infer/infer.h"
#include "infer_impl.h"

#include <stdlib.h>
#include <string.h>

#include "draw/dot.h"
#include "core/expr.h"
#include "core/format.h"
#include "core/json.h"

static const char *const FIELD_NAMES[] = { "service", "operation", "kind", "host" };

int
infer_parse_fields(const char *spec, infer_opts *o)
{
	o->nfields = 0;
	memset(o->tags, 0, sizeof o->tags);
	while (*spec) {
		size_t n = strcspn(spec, ",");
		int f = -1;

		for (int i = 0; i < INFER_MAX_FIELDS; i++)
			if (strlen(FIELD_NAMES[i]) == n && memcmp(FIELD_NAMES[i], spec, n) == 0)
				f = i;
		if (f < 0 && n > 4 && n - 4 < INFER_TAG_MAX && memcmp(spec, "tag:", 4) == 0 &&
		    o->nfields < INFER_MAX_FIELDS) {
			f = INFER_TAG;
			memcpy(o->tags[o->nfields], spec + 4, n - 4);
		}
		if (f < 0 || o->nfields == INFER_MAX_FIELDS)
			return -1;
		o->fields[o->nfields++] = f;
		spec += n;
		if (*spec == ',' && *++spec == '\0')
			return -1;	/* a trailing comma */
	}
	return o->nfields ? 0 : -1;
}

void
infer_fields_text(const infer_opts *o, strbuf *b)
{
	for (int i = 0; i < o->nfields; i++) {
		if (i)
			sb_addc(b, ',');
		if (o->fields[i] == INFER_TAG) {
			sb_adds(b, "tag:");
			sb_adds(b, o->tags[i]);
		} else {
			sb_adds(b, FIELD_NAMES[o->fields[i]]);
		}
	}
}

void
infer_name_fields(strbuf *b, const tr_span *s, const infer_opts *o)
{
	for (int f = 0; f < o->nfields; f++) {
		const char *v = NULL;

		if (f)
			sb_addc(b, ':');
		switch (o->fields[f]) {
		case INFER_SERVICE: v = s->service; break;
		case INFER_OPERATION: v = s->operation; break;
		case INFER_KIND: v = tr_kind_name(s->kind); break;
		case INFER_HOST: v = s->host; break;
		default: v = tr_span_tag(s, o->tags[f]); break;
		}
		sb_adds(b, v ? v : "");
	}
}

const char *
infer_log_event(const tr_log *l)
{
	for (uint32_t i = 0; i < l->ntags; i++)
		if (strcmp(l->tags[i].key, "event") == 0)
			return l->tags[i].val;
	return NULL;
}

/* --- the pair table: open addressing on the packed event ids --- */

#define EMPTY_KEY UINT64_MAX

static uint64_t
mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static void
pairs_grow(infer *m)
{
	size_t ncap = m->pcap ? m->pcap * 2 : 1024;
	pair_rec *np = xmalloc(ncap * sizeof *np);

	for (size_t i = 0; i < ncap; i++)
		np[i].key = EMPTY_KEY;
	for (size_t i = 0; i < m->pcap; i++) {
		if (m->pairs[i].key == EMPTY_KEY)
			continue;
		size_t j = mix64(m->pairs[i].key) & (ncap - 1);
		while (np[j].key != EMPTY_KEY)
			j = (j + 1) & (ncap - 1);
		np[j] = m->pairs[i];
	}
	free(m->pairs);
	m->pairs = np;
	m->pcap = ncap;
}

/* The record of the pair {a, b} (a < b), added with zero counts when absent. */
pair_rec *
infer_pair(infer *m, uint32_t a, uint32_t b)
{
	uint64_t key = (uint64_t)a << 32 | b;

	if ((m->npairs + 1) * 2 > m->pcap)
		pairs_grow(m);
	size_t i = mix64(key) & (m->pcap - 1);
	while (m->pairs[i].key != key) {
		if (m->pairs[i].key == EMPTY_KEY) {
			m->pairs[i] = (pair_rec){ .key = key };
			m->npairs++;
			break;
		}
		i = (i + 1) & (m->pcap - 1);
	}
	return &m->pairs[i];
}

static const pair_rec *
pair_find(const infer *m, uint32_t a, uint32_t b)
{
	uint64_t key = (uint64_t)a << 32 | b;

	if (!m->pcap)
		return NULL;
	size_t i = mix64(key) & (m->pcap - 1);
	for (; m->pairs[i].key != EMPTY_KEY; i = (i + 1) & (m->pcap - 1))
		if (m->pairs[i].key == key)
			return &m->pairs[i];
	return NULL;
}

/* --- names --- */

uint32_t
infer_intern(infer *m, const char *s, size_t n)
{
	int added;
	strmap_slot *slot = strmap_intern(&m->names, &m->mem, s, n, &added);

	if (added) {
		GROW(m->name, m->capname, m->nnames + 1);
		m->name[m->nnames] = (name_rec){ slot->key, (uint32_t)n, 0 };
		m->nnames++;
		/* Two events per name: keep the per-event scratch in step. */
		GROW(m->stamp, m->capstamp, 2 * m->nnames);
		m->stamp[2 * m->nnames - 2] = m->stamp[2 * m->nnames - 1] = 0;
		GROW(m->slot_of, m->capslot, 2 * m->nnames);
	}
	return (uint32_t)slot->val;
}

infer *
infer_new(const infer_opts *o)
{
	infer *m = xcalloc(1, sizeof *m);

	m->o = *o;
	return m;
}

void
infer_free(infer *m)
{
	if (!m)
		return;
	if (m->cond)
		expr_free(m->cond);
	free(m->pairs);
	strmap_free(&m->names);
	free(m->name);
	free(m->stamp);
	free(m->slot_of);
	free(m->ev);
	free(m->occ);
	free(m->base_off);
	free(m->base_len);
	free(m->span_name);
	free(m->log_name);
	free(m->bits);
	free(m->order);
	free(m->before);
	free(m->ingroup);
	free(m->seenlist);
	free(m->group);
	sb_free(&m->namebuf);
	sb_free(&m->basebuf);
	sb_free(&m->tmp);
	arena_free(&m->mem);
	free(m);
}

uint64_t infer_traces(const infer *m) { return m->traces; }
uint64_t infer_skipped(const infer *m) { return m->skipped; }

/* --events logs: every log with event=X of a timed span gets the name
 * NAME@X, NAME its span's nameID; one event (2 * name) at the log's time. */
static void
name_logs(infer *m, const tr_trace *t)
{
	GROW(m->log_name, m->caplogname, t->nlogs + 1);
	for (size_t j = 0; j < t->nlogs; j++) {
		const tr_log *l = &t->logs[j];
		const char *ev = infer_log_event(l);
		const name_rec *sn = &m->name[m->span_name[l->span]];

		m->log_name[j] = -1;
		if (!ev || !(t->spans[l->span].flags & TR_SPAN_HAS_TIME))
			continue;
		sb_clear(&m->namebuf);
		sb_add(&m->namebuf, sn->s, sn->len);
		sb_addc(&m->namebuf, '@');
		sb_adds(&m->namebuf, ev);
		uint32_t id = infer_intern(m, m->namebuf.s, m->namebuf.len);

		m->name[id].log = 1;
		m->log_name[j] = (int32_t)id;
	}
}

/* Give every span of t its nameID (m->span_name[i]): its own fields, then
 * "<" and the fields of up to depth ancestors, nearest first. */
static void
name_spans(infer *m, const tr_trace *t)
{
	GROW(m->base_off, m->capbase, t->nspans);
	GROW(m->base_len, m->capbaselen, t->nspans);
	GROW(m->span_name, m->capspanname, t->nspans);
	sb_clear(&m->basebuf);
	for (size_t i = 0; i < t->nspans; i++) {
		m->base_off[i] = m->basebuf.len;
		infer_name_fields(&m->basebuf, &t->spans[i], &m->o);
		m->base_len[i] = m->basebuf.len - m->base_off[i];
	}
	for (size_t i = 0; i < t->nspans; i++) {
		sb_clear(&m->namebuf);
		sb_add(&m->namebuf, m->basebuf.s + m->base_off[i], m->base_len[i]);
		int32_t p = t->spans[i].parent;
		for (int d = 0; d < m->o.depth && p >= 0; d++, p = t->spans[p].parent) {
			sb_addc(&m->namebuf, '<');
			sb_add(&m->namebuf, m->basebuf.s + m->base_off[p], m->base_len[p]);
		}
		m->span_name[i] = infer_intern(m, m->namebuf.s, m->namebuf.len);
	}
	if (m->o.log_events)
		name_logs(m, t);
}

/* Event e at time at into m->ev; -1 when it is one more than max_events. */
static int
add_occurrence(infer *m, uint32_t e, int64_t at)
{
	if (m->stamp[e] != m->gen) {
		if (m->o.max_events && m->nev >= m->o.max_events)
			return -1;
		m->stamp[e] = m->gen;
		m->slot_of[e] = (uint32_t)m->nev;
		GROW(m->ev, m->capev, m->nev + 1);
		m->ev[m->nev++] = (event_occ){ e, at, at };
		return 0;
	}
	event_occ *o = &m->ev[m->slot_of[e]];
	if (at < o->first)
		o->first = at;
	if (at > o->last)
		o->last = at;
	return 0;
}

/* Collect the distinct events of t with their first and last time into
 * m->ev[0..m->nev). Returns -1 when there are more than max_events. */
static int
collect_events(infer *m, const tr_trace *t)
{
	m->gen++;
	m->nev = 0;
	for (size_t i = 0; i < t->nspans; i++) {
		const tr_span *s = &t->spans[i];

		if (!(s->flags & TR_SPAN_HAS_TIME))
			continue;	/* its events did not occur as far as we know */
		if (add_occurrence(m, 2 * m->span_name[i], s->start) < 0 ||
		    add_occurrence(m, 2 * m->span_name[i] + 1, tr_span_end(s)) < 0)
			return -1;
	}
	for (size_t j = 0; m->o.log_events && j < t->nlogs; j++)
		if (m->log_name[j] >= 0 && add_occurrence(m, 2 * (uint32_t)m->log_name[j], t->logs[j].time) < 0)
			return -1;
	return 0;
}

/* One count per trace and pair: a -> b succeeds when all of a is before all of b. */
static void
count_traces(infer *m)
{
	for (size_t i = 0; i < m->nev; i++) {
		for (size_t j = i + 1; j < m->nev; j++) {
			const event_occ *a = &m->ev[i], *b = &m->ev[j];

			if (a->e > b->e) {
				const event_occ *x = a; a = b; b = x;
			}
			pair_rec *r = infer_pair(m, a->e, b->e);
			r->c++;
			if (a->last < b->first)
				r->s_ab++;
			else if (b->last < a->first)
				r->s_ba++;
			else
				r->q++;
		}
	}
}

static int
occ_cmp(const void *x, const void *y)
{
	const event_occ *a = x, *b = y;

	return a->first < b->first ? -1 : a->first > b->first;
}

/* Add n comparisons "x before y" (or, when same, simultaneous) to the pair
 * of local events x, y; the first touch in a trace counts c. */
static void
add_pair_counts(infer *m, uint32_t x, uint32_t y, uint64_t n, int same)
{
	uint32_t ex = m->ev[x].e, ey = m->ev[y].e;
	pair_rec *r = infer_pair(m, ex < ey ? ex : ey, ex < ey ? ey : ex);

	if (r->gen != m->gen) {
		r->gen = m->gen;
		r->c++;
	}
	if (same)
		r->q += n;
	else if (ex < ey)
		r->s_ab += n;
	else
		r->s_ba += n;
}

/* The time-ordered occurrences of t's events, with e the local index. */
static void
sorted_occurrences(infer *m, const tr_trace *t)
{
	m->nocc = 0;
	for (size_t i = 0; i < t->nspans; i++) {
		const tr_span *s = &t->spans[i];

		if (!(s->flags & TR_SPAN_HAS_TIME))
			continue;
		GROW(m->occ, m->capocc, m->nocc + 2);
		m->occ[m->nocc++] = (event_occ){ m->slot_of[2 * m->span_name[i]], s->start, 0 };
		m->occ[m->nocc++] = (event_occ){ m->slot_of[2 * m->span_name[i] + 1], tr_span_end(s), 0 };
	}
	for (size_t j = 0; m->o.log_events && j < t->nlogs; j++)
		if (m->log_name[j] >= 0) {
			GROW(m->occ, m->capocc, m->nocc + 1);
			m->occ[m->nocc++] = (event_occ){ m->slot_of[2 * (uint32_t)m->log_name[j]],
							 t->logs[j].time, 0 };
		}
	qsort(m->occ, m->nocc, sizeof *m->occ, occ_cmp);
}

/* One group of occurrences at the same time, its distinct events in
 * m->group[0..ng) with their counts in m->ingroup: every event met before
 * precedes each of them, and they are simultaneous with each other. */
static void
count_group(infer *m, size_t ng, size_t seen)
{
	for (size_t i = 0; i < ng; i++) {
		uint32_t b = m->group[i];

		for (size_t j = 0; j < seen; j++) {
			uint32_t a = m->seenlist[j];
			if (a != b)
				add_pair_counts(m, a, b, m->before[a] * m->ingroup[b], 0);
		}
		for (size_t j = i + 1; j < ng; j++) {
			uint32_t a = m->group[j];
			add_pair_counts(m, a, b, m->ingroup[a] * m->ingroup[b], 1);
		}
	}
}

/* One count per pair of occurrences; c still counts traces. Occurrences are
 * swept in time order, keeping how many of each event came strictly
 * before: each group of equal times costs (its events) x (events so far),
 * so a trace costs O(k log k + k m) for k spans of m events, not O(k^2). */
static int
count_pairs(infer *m, const tr_trace *t)
{
	if (collect_events(m, t) < 0)
		return -1;
	sorted_occurrences(m, t);
	GROW(m->before, m->capbefore, m->nev);
	GROW(m->ingroup, m->capingroup, m->nev);
	GROW(m->seenlist, m->capseen, m->nev);
	GROW(m->group, m->capgroup, m->nev);
	memset(m->before, 0, m->nev * sizeof *m->before);
	memset(m->ingroup, 0, m->nev * sizeof *m->ingroup);
	size_t seen = 0;	/* events met so far, in m->seenlist */
	for (size_t g = 0, h; g < m->nocc; g = h) {
		size_t ng = 0;

		for (h = g; h < m->nocc && m->occ[h].first == m->occ[g].first; h++)
			if (m->ingroup[m->occ[h].e]++ == 0)
				m->group[ng++] = m->occ[h].e;
		count_group(m, ng, seen);
		for (size_t i = 0; i < ng; i++) {
			uint32_t b = m->group[i];
			if (m->before[b] == 0)
				m->seenlist[seen++] = b;
			m->before[b] += m->ingroup[b];
			m->ingroup[b] = 0;
		}
	}
	return 0;
}

void
infer_add_trace(infer *m, const tr_trace *t)
{
	name_spans(m, t);
	int ok;

	if (m->o.count == INFER_COUNT_PAIRS) {
		ok = count_pairs(m, t) == 0;
	} else {
		ok = collect_events(m, t) == 0;
		if (ok)
			count_traces(m);
	}
	/* A trace over the cap is left out of T as well, so s + v + u = T holds. */
	if (ok)
		m->traces++;
	else
		m->skipped++;
}

/* --- the threshold --- */

static const char SLOTS[] = "svuqT";

static int
resolve_slot(void *ctx, const char *name, size_t len)
{
	(void)ctx;
	if (len == 1)
		for (int i = 0; SLOTS[i]; i++)
			if (SLOTS[i] == name[0])
				return i;
	return -1;
}

int
infer_set_threshold(infer *m, const char *src, char *err, size_t errlen, size_t *errpos)
{
	expr *e = expr_parse(src, resolve_slot, NULL, err, errlen, errpos);

	if (!e)
		return -1;
	if (m->cond)
		expr_free(m->cond);
	m->cond = e;
	m->cond_text = src;
	return 0;
}

static int
passes(const infer *m, uint64_t s, uint64_t v, uint64_t u, uint64_t q)
{
	expr_value slot[5] = {
		expr_num((double)s), expr_num((double)v), expr_num((double)u),
		expr_num((double)q), expr_num((double)m->traces)
	};
	return expr_truthy(expr_eval(m->cond, slot));
}

/* Whether events a < b are one name's start and end: a span's own start
 * comes before its end whatever the times say (a zero duration makes them
 * simultaneous, a repeated name can interleave them). Scooby 4.6. */
static int
own_events(uint32_t a, uint32_t b)
{
	return (a & 1) == 0 && b == a + 1;
}

/* Derive both directed edges of every pair and mark those that pass; a
 * name's own start -> end always does. */
void
infer_apply_threshold(infer *m)
{
	for (size_t i = 0; i < m->pcap; i++) {
		pair_rec *r = &m->pairs[i];

		if (r->key == EMPTY_KEY)
			continue;
		uint64_t u = m->traces - r->c;
		r->pass = (uint8_t)(passes(m, r->s_ab, r->s_ba + r->q, u, r->q) |
				    passes(m, r->s_ba, r->s_ab + r->q, u, r->q) << 1);
		if (own_events((uint32_t)(r->key >> 32), (uint32_t)r->key))
			r->pass = 1;
	}
	m->applied = 1;
}

/* --- output of the model --- */

int
infer_event_cmp(const name_rec *an, int aev, const name_rec *bn, int bev)
{
	size_t n = an->len < bn->len ? an->len : bn->len;
	int c = memcmp(an->s, bn->s, n);

	if (c)
		return c;
	if (an->len != bn->len)
		return an->len < bn->len ? -1 : 1;
	return aev - bev;
}

typedef struct edge {
	const name_rec *fn, *tn;
	uint8_t fev, tev, pass;
	uint64_t s, v, u, q;
} edge;

static int
edge_cmp(const void *x, const void *y)
{
	const edge *a = x, *b = y;
	int c = infer_event_cmp(a->fn, a->fev, b->fn, b->fev);

	return c ? c : infer_event_cmp(a->tn, a->tev, b->tn, b->tev);
}

void
infer_event_text(strbuf *b, const name_rec *n, int ev)
{
	sb_add(b, n->s, n->len);
	if (!n->log)
		sb_adds(b, ev ? "_E" : "_S");
}

static edge *
collect_edges(infer *m, int all, size_t *nedges)
{
	edge *e = xmalloc((2 * m->npairs + 1) * sizeof *e);
	size_t n = 0;

	for (size_t i = 0; i < m->pcap; i++) {
		const pair_rec *r = &m->pairs[i];

		if (r->key == EMPTY_KEY)
			continue;
		uint32_t a = (uint32_t)(r->key >> 32), b = (uint32_t)r->key;
		const name_rec *an = &m->name[a / 2], *bn = &m->name[b / 2];
		uint64_t u = m->traces - r->c;

		if (all || (r->pass & 1))
			e[n++] = (edge){ an, bn, a & 1, b & 1, r->pass & 1,
					 r->s_ab, r->s_ba + r->q, u, r->q };
		if (all || (r->pass & 2))
			e[n++] = (edge){ bn, an, b & 1, a & 1, (r->pass >> 1) & 1,
					 r->s_ba, r->s_ab + r->q, u, r->q };
	}
	qsort(e, n, sizeof *e, edge_cmp);
	*nedges = n;
	return e;
}

/* Append an event as one field of the chosen format. */
static void
add_event_field(infer *m, strbuf *b, const name_rec *n, int ev, int format)
{
	sb_clear(&m->tmp);
	infer_event_text(&m->tmp, n, ev);
	if (format == INFER_CSV)
		table_csv_field(b, m->tmp.s, m->tmp.len);
	else
		tr_escape(b, m->tmp.s, m->tmp.len, 0);
}

static void
write_table(infer *m, const edge *e, size_t n, const infer_out *o, strbuf *b)
{
	char sep = o->format == INFER_CSV ? ',' : '\t';

	sb_addf(b, "from%cto%cs%cv%cu%cq%cT%s\n", sep, sep, sep, sep, sep, sep,
		o->all ? (sep == ',' ? ",pass" : "\tpass") : "");
	for (size_t i = 0; i < n; i++) {
		add_event_field(m, b, e[i].fn, e[i].fev, o->format);
		sb_addc(b, sep);
		add_event_field(m, b, e[i].tn, e[i].tev, o->format);
		sb_addf(b, "%c%llu%c%llu%c%llu%c%llu%c%llu", sep, (unsigned long long)e[i].s,
			sep, (unsigned long long)e[i].v, sep, (unsigned long long)e[i].u,
			sep, (unsigned long long)e[i].q, sep, (unsigned long long)m->traces);
		if (o->all)
			sb_addf(b, "%c%d", sep, e[i].pass);
		sb_addc(b, '\n');
	}
}

/* An event's text as a JSON string. */
static json_t *
event_json(infer *m, const name_rec *n, int ev)
{
	sb_clear(&m->tmp);
	infer_event_text(&m->tmp, n, ev);
	return tr_json_text(m->tmp.s, m->tmp.len);
}

/* One object a line in the array of edges: each edge is built and dumped
 * by jansson, the lines between them are this document's layout. */
static void
write_json(infer *m, const edge *e, size_t n, const infer_out *o, strbuf *b)
{
	sb_addf(b, "{\"traces\":%llu,\"threshold\":", (unsigned long long)m->traces);
	tr_json_string(b, m->cond_text, strlen(m->cond_text));
	sb_adds(b, ",\"edges\":[");
	for (size_t i = 0; i < n; i++) {
		json_t *j = json_object();

		tr_json_set(j, "from", event_json(m, e[i].fn, e[i].fev));
		tr_json_set(j, "to", event_json(m, e[i].tn, e[i].tev));
		tr_json_set(j, "s", json_integer((json_int_t)e[i].s));
		tr_json_set(j, "v", json_integer((json_int_t)e[i].v));
		tr_json_set(j, "u", json_integer((json_int_t)e[i].u));
		tr_json_set(j, "q", json_integer((json_int_t)e[i].q));
		if (o->all)
			tr_json_set(j, "pass", json_boolean(e[i].pass));
		sb_adds(b, i ? ",\n" : "\n");
		tr_json_put(b, j, JSON_COMPACT);
	}
	sb_adds(b, "\n]}\n");
}

/* A DOT node id for an event or a name, NUL-terminated in m->tmp. */
static const char *
node_text(infer *m, const name_rec *n, int ev, int spans)
{
	sb_clear(&m->tmp);
	if (spans)
		sb_add(&m->tmp, n->s, n->len);
	else
		infer_event_text(&m->tmp, n, ev);
	return m->tmp.s;
}

/* The edges the picture draws: with --spans, X -> Y for X_E -> Y_S only. */
static int
drawn(const edge *e, int spans)
{
	return !spans || (e->fev == 1 && e->tev == 0 && e->fn != e->tn && !e->tn->log);
}

/* A node of the picture: an event, or with --spans a name. */
static uint64_t
node_key(const infer *m, const name_rec *n, int ev, int spans)
{
	return (uint64_t)(n - m->name) * 2 + (spans ? 0 : (uint64_t)ev);
}

/* For each drawn passing edge a -> b, in order: is b reachable from a
 * through another successor, over the edges not dropped yet? Dropping one
 * at a time against what is left keeps every reachability (a cycle of a
 * loose threshold cannot drop two edges that imply each other). Adjacency
 * in one array (CSR), visits stamped by edge. */
static size_t
drop_implied(const edge *e, size_t n, unsigned char *keep, const uint32_t *from, const uint32_t *to,
	     size_t nv)
{
	size_t *off = xcalloc(nv + 1, sizeof *off), dropped = 0;
	uint32_t *adj = xcalloc(n + 1, sizeof *adj), *stack = xcalloc(nv + 1, sizeof *stack);
	size_t *seen = xcalloc(nv, sizeof *seen), *slot = xcalloc(n + 1, sizeof *slot);
	unsigned char *gone = xcalloc(n + 1, 1);

	for (size_t i = 0; i < n; i++)
		if (keep[i] && e[i].pass)
			off[from[i] + 1]++;
	for (size_t v = 0; v < nv; v++)
		off[v + 1] += off[v];
	size_t *fill = xmalloc((nv + 1) * sizeof *fill);
	memcpy(fill, off, (nv + 1) * sizeof *fill);
	for (size_t i = 0; i < n; i++)
		if (keep[i] && e[i].pass) {
			slot[i] = fill[from[i]]++;
			adj[slot[i]] = to[i];
		}
	for (size_t i = 0; i < n; i++) {
		if (!keep[i] || !e[i].pass)
			continue;
		size_t top = 0, stamp = i + 1;
		int implied = 0;

		for (size_t k = off[from[i]]; k < off[from[i] + 1]; k++)
			if (k != slot[i] && !gone[k] && seen[adj[k]] != stamp) {
				seen[adj[k]] = stamp;
				stack[top++] = adj[k];
			}
		while (top && !implied) {
			uint32_t v = stack[--top];

			for (size_t k = off[v]; k < off[v + 1] && !implied; k++) {
				if (gone[k])
					continue;
				implied = adj[k] == to[i];
				if (!implied && seen[adj[k]] != stamp) {
					seen[adj[k]] = stamp;
					stack[top++] = adj[k];
				}
			}
		}
		keep[i] = !implied;
		gone[slot[i]] = (unsigned char)implied;
		dropped += (size_t)implied;
	}
	free(off);
	free(adj);
	free(stack);
	free(seen);
	free(fill);
	free(slot);
	free(gone);
	return dropped;
}

/* A picture of more than DOT_MAX_EDGES edges is the model's transitive
 * reduction: an edge X -> Y that a path of two or more drawn edges already
 * implies says nothing a reader does not see, and with all of them a model
 * of a few dozen events is a graph nobody can read nor dot lay out (1,398
 * edges for 70 events on one export, 76 after). A smaller one is drawn
 * whole, as the table lists it. keep[i] = 0 for the implied ones; returns
 * how many. Edges under the threshold (-a) are all kept. One search per
 * edge, with an explicit stack; none when that would pass REDUCE_MAX_WORK
 * steps. */
#define DOT_MAX_EDGES 200
#define REDUCE_MAX_WORK 50000000ULL

static size_t
picture_edges(const infer *m, const edge *e, size_t n, int spans, unsigned char *keep)
{
	u64map ids = {0};
	size_t nv = 0, ne = 0, dropped = 0;
	uint32_t *from = xcalloc(n + 1, sizeof *from), *to = xcalloc(n + 1, sizeof *to);

	for (size_t i = 0; i < n; i++) {
		keep[i] = drawn(&e[i], spans);
		if (!keep[i] || !e[i].pass)
			continue;
		int added;
		int64_t *f = u64map_put(&ids, node_key(m, e[i].fn, e[i].fev, spans), &added);
		if (added)
			*f = (int64_t)nv++;
		from[i] = (uint32_t)*f;
		int64_t *t = u64map_put(&ids, node_key(m, e[i].tn, e[i].tev, spans), &added);
		if (added)
			*t = (int64_t)nv++;
		to[i] = (uint32_t)*t;
		ne++;
	}
	if (ne > DOT_MAX_EDGES && (unsigned long long)ne * (nv + ne) <= REDUCE_MAX_WORK)
		dropped = drop_implied(e, n, keep, from, to, nv);
	u64map_free(&ids);
	free(from);
	free(to);
	return dropped;
}

static void
write_dot(infer *m, const edge *e, size_t n, const infer_out *o, strbuf *b)
{
	strbuf from = {0};
	char label[64];
	unsigned char *keep = xmalloc(n + 1);
	size_t dropped = picture_edges(m, e, n, o->spans, keep);

	dot_begin(b, o->spans ? "causal model (spans)" : "causal model", "LR");
	for (size_t i = 0; i < n; i++) {
		if (!keep[i])
			continue;
		sb_clear(&from);
		sb_adds(&from, node_text(m, e[i].fn, e[i].fev, o->spans));
		snprintf(label, sizeof label, "%llu/%llu", (unsigned long long)e[i].s,
			 (unsigned long long)m->traces);
		dot_edge(b, from.s, node_text(m, e[i].tn, e[i].tev, o->spans), label,
			 e[i].pass ? NULL : "style=dashed, color=gray");
	}
	if (dropped)
		sb_addf(b, "  // %zu edges that longer paths imply are left out (the table lists every edge)\n",
			dropped);
	dot_end(b);
	sb_free(&from);
	free(keep);
}

void
infer_write_model(infer *m, const infer_out *o, tr_output *out)
{
	strbuf b = {0};
	size_t n;

	infer_apply_threshold(m);
	edge *e = collect_edges(m, o->all, &n);
	if (o->format == INFER_JSON)
		write_json(m, e, n, o, &b);
	else if (o->format == INFER_DOT)
		write_dot(m, e, n, o, &b);
	else
		write_table(m, e, n, o, &b);
	tr_output_sb(out, &b);
	sb_free(&b);
	free(e);
}

/* --- reformatted traces --- */

static int
occ_time_cmp(const void *x, const void *y)
{
	const order_rec *a = x, *b = y;

	if (a->first != b->first)
		return a->first < b->first ? -1 : 1;
	return infer_event_cmp(a->n, a->ev, b->n, b->ev);
}

#define WORDS(n) (((n) + 63) / 64)
#define BIT(v, i) ((v)[(i) / 64] >> ((i) % 64) & 1)
#define SETBIT(v, i) ((v)[(i) / 64] |= 1ULL << ((i) % 64))

/* m->order: the trace's events sorted by first time (a topological order of
 * every edge the trace agrees with, since those need a.last < b.first). */
static void
order_events(infer *m)
{
	GROW(m->order, m->caporder, m->nev);
	for (size_t i = 0; i < m->nev; i++)
		m->order[i] = (order_rec){ &m->name[m->ev[i].e / 2], m->ev[i].e & 1,
					   m->ev[i].first, m->ev[i].last, m->ev[i].e };
	if (m->nev)
		qsort(m->order, m->nev, sizeof *m->order, occ_time_cmp);
}

/* adj row i: the events j that the model puts after i and the trace agrees,
 * and a name's own start -> end, which every trace does. */
static void
trace_edges(infer *m, uint64_t *adj, size_t n, size_t w)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t j = i + 1; j < n; j++) {
			const order_rec *a = &m->order[i], *b = &m->order[j];
			if (own_events(a->e, b->e)) {
				SETBIT(adj + i * w, j);
				continue;
			}
			if (!(a->last < b->first))
				continue;	/* the trace does not have a before b */
			uint32_t lo = a->e < b->e ? a->e : b->e, hi = a->e ^ b->e ^ lo;
			const pair_rec *r = pair_find(m, lo, hi);
			if (r && (r->pass & (a->e == lo ? 1 : 2)))
				SETBIT(adj + i * w, j);
		}
	}
}

static void
write_ie(infer *m, const tr_trace *t, const order_rec *a, const order_rec *b, strbuf *out)
{
	sb_adds(out, "IE\t");
	tr_escapes(out, t->trace_id, 0);
	sb_addc(out, '\t');
	sb_clear(&m->tmp);
	infer_event_text(&m->tmp, a->n, a->ev);
	tr_escape(out, m->tmp.s, m->tmp.len, 0);
	sb_addc(out, '\t');
	sb_clear(&m->tmp);
	infer_event_text(&m->tmp, b->n, b->ev);
	tr_escape(out, m->tmp.s, m->tmp.len, 0);
	sb_addc(out, '\n');
}

/* Transitive reduction of adj, in place: every edge i -> j that another
 * path i -> c -> ... -> j implies is dropped, but a name's own start -> end.
 * The edges follow time (i < j), so the graph is acyclic and the reduction
 * unique: reach[i] is what i reaches; a successor j of i is kept unless a
 * kept earlier successor already reaches it. */
static void
reduce_edges(infer *m, uint64_t *adj, size_t n, size_t w)
{
	uint64_t *reach = adj + n * w, *covered = reach + n * w;

	for (size_t i = n; i-- > 0;)
		for (size_t j = i + 1; j < n; j++)
			if (BIT(adj + i * w, j)) {
				SETBIT(reach + i * w, j);
				for (size_t k = 0; k < w; k++)
					reach[i * w + k] |= reach[j * w + k];
			}
	for (size_t i = 0; i < n; i++) {
		memset(covered, 0, w * sizeof *covered);
		for (size_t j = i + 1; j < n; j++) {
			if (!BIT(adj + i * w, j))
				continue;
			if (BIT(covered, j) && !own_events(m->order[i].e, m->order[j].e)) {
				adj[i * w + j / 64] &= ~(1ULL << (j % 64));
				continue;
			}
			for (size_t k = 0; k < w; k++)
				covered[k] |= reach[j * w + k];
		}
	}
}

/* Reformatted trace: the edges of the model among the trace's events that
 * the trace agrees with (all of a before all of b), and every name's own
 * start -> end; transitively reduced when asked (The Mystery Machine does,
 * Scooby 4.8 does not: with a threshold, edges the reduction drops may be
 * ones the model lacks, and models that differ would read the same). */
void
infer_reformat_trace(infer *m, const tr_trace *t, int reduce, strbuf *out)
{
	if (!m->applied)
		infer_apply_threshold(m);
	name_spans(m, t);
	if (collect_events(m, t) < 0)
		return;		/* over the cap: not in the model either */
	order_events(m);
	size_t n = m->nev, w = WORDS(n);
	GROW(m->bits, m->capbits, 2 * n * w + w);
	uint64_t *adj = m->bits;
	memset(m->bits, 0, (2 * n * w + w) * sizeof *m->bits);
	trace_edges(m, adj, n, w);
	if (reduce)
		reduce_edges(m, adj, n, w);
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (BIT(adj + i * w, j))
				write_ie(m, t, &m->order[i], &m->order[j], out);
}
