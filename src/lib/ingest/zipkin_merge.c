/* zipkin_merge.c - a batch of Zipkin spans cleaned up as Zipkin cleans
 * up a trace before it shows it (zipkin2.internal.Trace.merge, and the UI's
 * mergeV2ById): a 128-bit trace id whose high half is zero is the 64-bit id
 * it pads, "shared" on a client span means nothing, and a span reported in
 * parts is merged into one. It works on the batch's ispans, after the JSON is
 * read and before zipkin_pair_shared (at the end) splits the shared ids. */
#include "ingest/zipkin_merge.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NONE SIZE_MAX

/* ---- trace ids ---- */

/* Lower-case hex of 32 digits whose first 16 are zero, the rest not: a 64-bit
 * id padded to 128 bits. Tracers on one trace disagree on padding; Zipkin
 * keeps the 64-bit form (Span.normalizeTraceId). */
static int
padded_64(const char *id)
{
	int low = 0;

	for (size_t i = 0; i < 32; i++) {
		char c = id[i];

		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return 0;	/* also the NUL of a shorter id */
		if (c != '0') {
			if (i < 16)
				return 0;
			low = 1;
		}
	}
	return id[32] == '\0' && low;
}

static const char *
low_half(const char *id)
{
	return padded_64(id) ? id + 16 : id;
}

const char *
zipkin_trace_key(const char *lower_id)
{
	return low_half(lower_id);
}

void
zipkin_mark_parts(ingest *g, size_t first)
{
	for (size_t i = first; i < g->batch.n; i++)
		g->batch.spans[i].zipkin = 1;
}

void
zipkin_normalise_ids(ingest *g)
{
	ibatch *bt = &g->batch;
	strmap bad = {0};
	int mixed = 0, padded = 0, added;

	for (size_t i = 0; i < bt->n; i++) {
		ispan *s = &bt->spans[i];

		if (!s->zipkin) {
			mixed = 1;
			continue;
		}
		s->trace_id = low_half(s->trace_id);
		for (uint32_t k = 0; k < s->nrefs; k++)
			s->refs[k].trace_id = low_half(s->refs[k].trace_id);
	}
	/* A span that did not convert named its trace by the id as written:
	 * the trace it spoils is the 64-bit one. A Jaeger or OTLP span of the
	 * same file keeps its id, so then the 128-bit form stays bad too. */
	for (size_t i = 0; i < bt->bad_traces.cap; i++) {
		const strmap_slot *sl = &bt->bad_traces.slots[i];

		padded |= sl->used && sl->len == 32 && padded_64(sl->key);
	}
	if (!padded)
		return;
	for (size_t i = 0; i < bt->bad_traces.cap; i++) {
		const strmap_slot *sl = &bt->bad_traces.slots[i];

		if (!sl->used)
			continue;
		if (sl->len == 32 && padded_64(sl->key)) {
			strmap_put(&bad, sl->key + 16, 16, &added);
			if (!mixed)
				continue;
		}
		strmap_put(&bad, sl->key, sl->len, &added);
	}
	strmap_free(&bt->bad_traces);
	bt->bad_traces = bad;
}

/* ---- spans reported in parts ---- */

/* One span of a group with the same trace and span id. */
typedef struct part {
	ispan *s;
	size_t idx;		/* in the batch: input order */
	uint64_t hash;		/* of what is written, to find identical copies */
} part;

typedef struct merger {
	ingest *g;
	unsigned char *gone;	/* per batch index: merged into another span */
	part *p;
	size_t np, capp;
	itag *tags;		/* the merged span's tags, logs and refs as collected */
	size_t ntags, captags;
	ilog *logs;
	size_t nlogs, caplogs;
	iref *refs;
	size_t nrefs, caprefs;
	strmap keys;		/* tag key -> index in tags */
} merger;

static uint64_t
mix(uint64_t h, const void *p, size_t n)
{
	return (h ^ hash_bytes(p, n)) * 0x100000001b3ULL;
}

static uint64_t
mix_str(uint64_t h, const char *s)
{
	return mix(h, s, strlen(s) + 1);	/* the NUL too: "ab" "c" is not "a" "bc" */
}

static uint64_t
mix_tags(uint64_t h, const itag *t, uint32_t n)
{
	h = mix(h, &n, sizeof n);
	for (uint32_t i = 0; i < n; i++)
		h = mix_str(mix_str(h, t[i].key), t[i].val);
	return h;
}

static uint64_t
part_hash(const ispan *s)
{
	int64_t num[5] = {s->has_time, s->start, s->duration, s->kind, !!s->shared};
	uint64_t h = mix(0, num, sizeof num);

	h = mix_str(mix_str(mix_str(mix_str(h, s->parent_id), s->service), s->operation), s->host);
	h = mix_tags(h, s->tags, s->ntags);
	for (uint32_t i = 0; i < s->nlogs; i++)
		h = mix_tags(mix(h, &s->logs[i].time, sizeof s->logs[i].time), s->logs[i].tags,
			     s->logs[i].ntags);
	for (uint32_t i = 0; i < s->nrefs; i++) {
		const iref *r = &s->refs[i];

		h = mix_tags(mix_str(mix_str(mix_str(h, r->type), r->trace_id), r->span_id), r->tags, r->ntags);
	}
	return h;
}

static int
same_tags(const itag *a, uint32_t na, const itag *b, uint32_t nb)
{
	if (na != nb)
		return 0;
	for (uint32_t i = 0; i < na; i++)
		if (strcmp(a[i].key, b[i].key) != 0 || strcmp(a[i].val, b[i].val) != 0)
			return 0;
	return 1;
}

/* The same span sent twice (a retried report): left to be counted as an
 * identical duplicate, not merged. */
static int
same_part(const ispan *a, const ispan *b)
{
	if (a->has_time != b->has_time || a->start != b->start || a->duration != b->duration ||
	    a->kind != b->kind || !a->shared != !b->shared || strcmp(a->parent_id, b->parent_id) != 0 ||
	    strcmp(a->service, b->service) != 0 || strcmp(a->operation, b->operation) != 0 ||
	    strcmp(a->host, b->host) != 0 || !same_tags(a->tags, a->ntags, b->tags, b->ntags) ||
	    a->nlogs != b->nlogs || a->nrefs != b->nrefs)
		return 0;
	for (uint32_t i = 0; i < a->nlogs; i++)
		if (a->logs[i].time != b->logs[i].time ||
		    !same_tags(a->logs[i].tags, a->logs[i].ntags, b->logs[i].tags, b->logs[i].ntags))
			return 0;
	for (uint32_t i = 0; i < a->nrefs; i++) {
		const iref *x = &a->refs[i], *y = &b->refs[i];

		if (strcmp(x->type, y->type) != 0 || strcmp(x->trace_id, y->trace_id) != 0 ||
		    strcmp(x->span_id, y->span_id) != 0 || !same_tags(x->tags, x->ntags, y->tags, y->ntags))
			return 0;
	}
	return 1;
}

static int
by_hash(const void *pa, const void *pb)
{
	const part *a = pa, *b = pb;

	if (a->hash != b->hash)
		return a->hash < b->hash ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

/* The local endpoint's address: we keep ipv4, else ipv6, in host. */
static const char *
ipv4_of(const ispan *s)
{
	return strchr(s->host, ':') ? "" : s->host;
}

static const char *
ipv6_of(const ispan *s)
{
	return strchr(s->host, ':') ? s->host : "";
}

static int
has_endpoint(const ispan *s)
{
	return *s->service || *s->host;
}

/* An empty field sorts last, as in Zipkin's nullSafeCompareTo. Zipkin
 * lower-cases service names when it reads them, so case does not count. */
static int
field_cmp(const char *a, const char *b)
{
	if (!*a || !*b)
		return !*a - !*b;
	return strcasecmp(a, b);
}

/* Zipkin's order for merging (Trace's CLEANUP_COMPARATOR): the unshared side
 * first and client spans first in it, then parts without an endpoint, so that
 * their data joins the first part that has one, then by endpoint so that the
 * parts of one host are next to each other; input order last. */
static int
by_zipkin_order(const void *pa, const void *pb)
{
	const part *a = pa, *b = pb;
	const ispan *x = a->s, *y = b->s;
	int c;

	if ((c = !!x->shared - !!y->shared))
		return c;
	if (!x->shared && (c = (y->kind == TR_KIND_CLIENT) - (x->kind == TR_KIND_CLIENT)))
		return c;
	if ((c = has_endpoint(x) - has_endpoint(y)) || (c = field_cmp(x->service, y->service)) ||
	    (c = field_cmp(ipv4_of(x), ipv4_of(y))) || (c = field_cmp(ipv6_of(x), ipv6_of(y))))
		return c;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

/* What the parts merged so far have said about the span: Zipkin's
 * EndpointTracker, which takes a part whose local endpoint fields agree with
 * every field already known (an unknown field agrees with anything). */
typedef struct tracker {
	const char *service, *ipv4, *ipv6;
	int kind, shared;
} tracker;

static void
track_first(tracker *t, const ispan *s)
{
	t->service = s->service;
	t->ipv4 = ipv4_of(s);
	t->ipv6 = ipv6_of(s);
	t->kind = s->kind;
	t->shared = !!s->shared;
}

/* Whether s is one more part of the span: same shared flag and a compatible
 * local endpoint, as Zipkin asks. We also refuse a second kind once a local
 * endpoint is known: Zipkin would fold an unflagged SERVER into the CLIENT of
 * the same host and lose it, where tr-ingest's rule is that it is the server
 * half (zipkin_pair_shared). Before that, nothing tells a part of another
 * kind from a late part of this span, and we merge as Zipkin does. */
static int
track(tracker *t, const ispan *s)
{
	const char *v4 = ipv4_of(s), *v6 = ipv6_of(s);

	if (!!s->shared != t->shared ||
	    (t->kind != TR_KIND_NONE && s->kind != TR_KIND_NONE && s->kind != t->kind &&
	     (*t->service || *t->ipv4 || *t->ipv6)) ||
	    (*t->service && *s->service && strcasecmp(t->service, s->service) != 0) ||
	    (*t->ipv4 && *v4 && strcmp(t->ipv4, v4) != 0) ||
	    (*t->ipv6 && *v6 && strcasecmp(t->ipv6, v6) != 0))
		return 0;
	if (!*t->service)
		t->service = s->service;
	if (!*t->ipv4)
		t->ipv4 = v4;
	if (!*t->ipv6)
		t->ipv6 = v6;
	if (t->kind == TR_KIND_NONE)
		t->kind = s->kind;
	return 1;
}

static const char *
tag_value(const ispan *s, const char *key)
{
	for (uint32_t i = 0; i < s->ntags; i++)
		if (strcmp(s->tags[i].key, key) == 0)
			return s->tags[i].val;
	return NULL;
}

/* The times a part reported: both when it has them; else the timestamp the
 * converter kept in tr.start_us and the duration times_of kept alone. */
static void
part_times(const ispan *s, int64_t *ts, int *has_ts, int64_t *dur, int *has_dur)
{
	const char *v;

	*ts = *dur = 0;
	*has_ts = *has_dur = 0;
	if (s->has_time) {
		*ts = s->start;
		*dur = s->duration;
		*has_ts = *has_dur = 1;
		return;
	}
	if ((v = tag_value(s, "tr.start_us")) && parse_i64(v, strlen(v), ts) == 0)
		*has_ts = 1;
	if (s->duration) {
		*dur = s->duration;
		*has_dur = 1;
	}
}

/* Zipkin takes the first value in merge order, zero counting as absent; a
 * zero is kept only when no part has another value. */
static void
pick_time(int64_t v, int has, int64_t *out, int *have)
{
	if (has && (!*have || (*out == 0 && v != 0))) {
		*out = v;
		*have = 1;
	}
}

/* A name Zipkin would show: "unknown" is what tracers write for none. */
static int
named(const char *op)
{
	return *op && strcasecmp(op, "unknown") != 0;
}

/* Tags tr-ingest derives from fields: rebuilt for the merged span. */
static int
derived_tag(const char *key)
{
	return strcmp(key, "span.kind") == 0 || strcmp(key, "tr.no_time") == 0 ||
	       strcmp(key, "tr.start_us") == 0;
}

/* Tags are a union where a later part's value wins (Zipkin's tags.putAll);
 * the peer.* tags are the remote endpoint, whose fields Zipkin fills only
 * when still unknown, so there the first part wins. */
static void
union_tags(merger *m, const ispan *s)
{
	int added;

	for (uint32_t i = 0; i < s->ntags; i++) {
		const itag *t = &s->tags[i];
		strmap_slot *slot;

		if (derived_tag(t->key))
			continue;
		slot = strmap_put(&m->keys, t->key, strlen(t->key), &added);
		if (added) {
			slot->val = (int64_t)m->ntags;
			GROW(m->tags, m->captags, m->ntags + 1);
			m->tags[m->ntags++] = *t;
		} else if (strncmp(t->key, "peer.", 5) != 0)
			m->tags[slot->val].val = t->val;
	}
}

static int
tags_cmp(const itag *a, uint32_t na, const itag *b, uint32_t nb)
{
	int c;

	for (uint32_t i = 0; i < na && i < nb; i++)
		if ((c = strcmp(a[i].key, b[i].key)) || (c = strcmp(a[i].val, b[i].val)))
			return c;
	return (na > nb) - (na < nb);
}

/* Annotations by time, then value, as Zipkin sorts them. */
static int
log_cmp(const void *pa, const void *pb)
{
	const ilog *a = pa, *b = pb;

	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return tags_cmp(a->tags, a->ntags, b->tags, b->ntags);
}

/* The times a merged span takes from its parts: each Zipkin's pick. */
typedef struct merged_time {
	int64_t ts, dur;
	int has_ts, has_dur;
} merged_time;

/* One part, in merge order, into the merged span r: the first field that
 * is set, Zipkin's pick of the times, the union of tags, annotations and
 * references (gathered in m). */
static void
fold_part(merger *m, ispan *r, merged_time *t, const ispan *s)
{
	int64_t v, d;
	int hv, hd;

	if (!*r->parent_id)
		r->parent_id = s->parent_id;
	if (r->kind == TR_KIND_NONE)
		r->kind = s->kind;
	if (!named(r->operation) && (named(s->operation) || !*r->operation))
		r->operation = s->operation;
	if (!*r->service)
		r->service = s->service;
	if (!*r->host)
		r->host = s->host;
	if (!*r->ep_ipv4)	/* Zipkin's merged endpoint: the union */
		r->ep_ipv4 = s->ep_ipv4;
	if (!*r->ep_ipv6)
		r->ep_ipv6 = s->ep_ipv6;
	if (!*r->ep_port)
		r->ep_port = s->ep_port;
	r->shared |= !!s->shared;
	r->dups += s->dups;
	part_times(s, &v, &hv, &d, &hd);
	pick_time(v, hv, &t->ts, &t->has_ts);
	pick_time(d, hd, &t->dur, &t->has_dur);
	union_tags(m, s);
	if (s->nlogs) {
		GROW(m->logs, m->caplogs, m->nlogs + s->nlogs);
		memcpy(m->logs + m->nlogs, s->logs, s->nlogs * sizeof *s->logs);
		m->nlogs += s->nlogs;
	}
	if (s->nrefs) {
		GROW(m->refs, m->caprefs, m->nrefs + s->nrefs);
		memcpy(m->refs + m->nrefs, s->refs, s->nrefs * sizeof *s->refs);
		m->nrefs += s->nrefs;
	}
}

/* Tags in the order a converter writes them: times, kind, the rest. */
static void
merged_tags(merger *m, ispan *r, const merged_time *t)
{
	itag *tags = arena_alloc(&m->g->batch.mem, (m->ntags + 3) * sizeof *tags);
	size_t nt = 0;
	char buf[24];

	if (!r->has_time) {
		tags[nt++] = (itag){"tr.no_time", "true"};
		if (t->has_ts) {
			snprintf(buf, sizeof buf, "%lld", (long long)t->ts);
			tags[nt++] = (itag){"tr.start_us", ig_str(m->g, buf)};
		}
	}
	if (r->kind != TR_KIND_NONE)
		tags[nt++] = (itag){"span.kind", tr_kind_name(r->kind)};
	if (m->ntags)
		memcpy(tags + nt, m->tags, m->ntags * sizeof *tags);
	r->tags = tags;
	r->ntags = (uint32_t)(nt + m->ntags);
}

/* Annotations: the union, sorted, each once; references: all of them. */
static void
merged_logs_refs(merger *m, ispan *r)
{
	arena *mem = &m->g->batch.mem;
	size_t nl = 0;

	if (m->nlogs)
		qsort(m->logs, m->nlogs, sizeof *m->logs, log_cmp);
	r->logs = arena_alloc(mem, (m->nlogs ? m->nlogs : 1) * sizeof *r->logs);
	for (size_t k = 0; k < m->nlogs; k++)
		if (!nl || log_cmp(&r->logs[nl - 1], &m->logs[k]) != 0)
			r->logs[nl++] = m->logs[k];
	r->nlogs = (uint32_t)nl;
	r->refs = arena_alloc(mem, (m->nrefs ? m->nrefs : 1) * sizeof *r->refs);
	if (m->nrefs)
		memcpy(r->refs, m->refs, m->nrefs * sizeof *r->refs);
	r->nrefs = (uint32_t)m->nrefs;
}

/* Merge the parts p[0, n), in merge order, into one span, written where the
 * earliest of them was read so that it keeps that place in the output. */
static void
merge_run(merger *m, const part *p, size_t n)
{
	ispan r = *p[0].s, *dst;
	merged_time t = {0};
	size_t target = p[0].idx, k;

	r.parent_id = r.service = r.operation = r.host = "";
	r.ep_ipv4 = r.ep_ipv6 = r.ep_port = "";
	r.kind = TR_KIND_NONE;
	r.shared = 0;
	r.dups = 0;
	m->ntags = m->nlogs = m->nrefs = 0;
	strmap_clear(&m->keys);
	for (k = 0; k < n; k++) {
		fold_part(m, &r, &t, p[k].s);
		if (p[k].idx < target)
			target = p[k].idx;
	}
	if (r.kind == TR_KIND_CLIENT)
		r.shared = 0;	/* shared is the server's; Zipkin drops it on a client */
	r.has_time = t.has_ts && t.has_dur;
	r.start = r.has_time ? t.ts : 0;
	r.duration = t.has_dur ? t.dur : 0;
	merged_tags(m, &r, &t);
	merged_logs_refs(m, &r);
	for (k = 0; k < n; k++)
		m->gone[p[k].idx] = p[k].idx != target;
	dst = &m->g->batch.spans[target];
	r.seq = dst->seq;
	r.line = dst->line;
	r.col = dst->col;
	*dst = r;
}

/* The spans m->p of one trace and span id, in input order. */
static void
merge_group(merger *m)
{
	part *p = m->p;
	size_t n = m->np, i, j, k;
	tracker t;

	/* Identical copies first: they are counted as dropped duplicates
	 * (tr.dropped_duplicates), as when nothing is merged. */
	for (i = 0; i < n; i++)
		p[i].hash = part_hash(p[i].s);
	qsort(p, n, sizeof *p, by_hash);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && p[j].hash == p[i].hash; j++)
			;
		for (k = i + 1; k < j; k++)
			for (size_t q = i; q < k; q++)
				if (!m->gone[p[q].idx] && same_part(p[q].s, p[k].s)) {
					m->gone[p[k].idx] = 1;
					p[q].s->dups += 1 + p[k].s->dups;
					break;
				}
	}
	for (i = j = 0; i < n; i++)
		if (!m->gone[p[i].idx])
			p[j++] = p[i];
	if ((n = j) < 2)
		return;

	/* Then Zipkin's merge: each part joins the run before it when the
	 * tracker takes it; a part it does not take starts a run of its own. */
	qsort(p, n, sizeof *p, by_zipkin_order);
	for (i = 0; i < n; i = j) {
		track_first(&t, p[i].s);
		for (j = i + 1; j < n && track(&t, p[j].s); j++)
			;
		if (j - i > 1)
			merge_run(m, p + i, j - i);
	}
}

void
zipkin_merge(ingest *g)
{
	ibatch *bt = &g->batch;
	merger m = {.g = g};
	strmap ids = {0};
	strbuf key = {0};
	size_t n = bt->n, i, j, *next, *last;

	zipkin_normalise_ids(g);
	for (i = 0; i < n; i++)
		if (bt->spans[i].zipkin && bt->spans[i].kind == TR_KIND_CLIENT)
			bt->spans[i].shared = 0;	/* as Zipkin's Span.Builder.build() */
	if (n < 2)
		return;
	/* Chain the spans of each trace and span id, in input order. */
	next = xmalloc(n * sizeof *next);
	last = xmalloc(n * sizeof *last);
	m.gone = xcalloc(n, 1);
	for (i = 0; i < n; i++) {
		ispan *s = &bt->spans[i];
		strmap_slot *slot;
		int added;

		next[i] = last[i] = NONE;
		if (!s->zipkin)
			continue;
		sb_clear(&key);
		sb_adds(&key, s->trace_id);
		sb_addc(&key, '\t');
		sb_adds(&key, s->span_id);
		if ((slot = strmap_get(&ids, key.s, key.len))) {
			size_t first = (size_t)slot->val;

			next[last[first]] = i;
			last[first] = i;
			continue;
		}
		slot = strmap_put(&ids, ig_strn(g, key.s, key.len), key.len, &added);
		slot->val = (int64_t)i;
		last[i] = i;
	}
	for (i = 0; i < n; i++) {
		if (last[i] == NONE || last[i] == i)
			continue;	/* not the first of its id, or alone */
		m.np = 0;
		for (j = i; j != NONE; j = next[j]) {
			GROW(m.p, m.capp, m.np + 1);
			m.p[m.np++] = (part){&bt->spans[j], j, 0};
		}
		merge_group(&m);
	}
	for (i = j = 0; i < n; i++)
		if (!m.gone[i])
			bt->spans[j++] = bt->spans[i];
	bt->n = j;
	free(next);
	free(last);
	free(m.gone);
	free(m.p);
	free(m.tags);
	free(m.logs);
	free(m.refs);
	strmap_free(&m.keys);
	strmap_free(&ids);
	sb_free(&key);
}

/* ---- Zipkin's span tree ---- */

/* Zipkin's span tree (the UI's SpanNodeBuilder) keys a shared span by its id
 * and whole local endpoint, port included, and every other span by its id.
 * A span whose parent id is shared hangs under the shared span with its own
 * local endpoint, else under the span of that id (the client half); a shared
 * span hangs under the span of its own id, else under the root. tr-ingest
 * writes a simpler tree (children hang under the half in their own service,
 * and a shared span keeps its parent id), so where Zipkin's differs the span
 * gets tr.zipkin_parent: Zipkin's parent as written here, empty for the root.
 * A shared SERVER span without a client half keeps its parent on purpose and
 * gets none. Two spans of one key are one node in Zipkin's tree, the one it
 * places last: the other gets tr.zipkin_hidden, and a child that names the
 * key hangs under the one kept. tr-infer --links reads both tags. */

static void
key_endpoint(strbuf *b, const ispan *s)
{
	const char *f[4] = {s->service, s->ep_ipv4, s->ep_ipv6, s->ep_port};

	for (int i = 0; i < 4; i++) {
		sb_addc(b, '\t');
		sb_adds(b, f[i]);
	}
}

/* The id Zipkin knows s by: zipkin_pair_shared made a server half <id>:s,
 * a child of <id>. */
static size_t
zipkin_id_len(const ispan *s)
{
	size_t n = strlen(s->span_id), p = strlen(s->parent_id);

	if (n == p + 2 && memcmp(s->span_id, s->parent_id, p) == 0 &&
	    strcmp(s->span_id + p, ":s") == 0)
		return p;
	return n;
}

/* The parent id as Zipkin read it: without the ":s" zipkin_pair_shared added. */
static size_t
zipkin_parent_len(const ispan *s)
{
	size_t p = strlen(s->parent_id);

	return p > 2 && strcmp(s->parent_id + p - 2, ":s") == 0 ? p - 2 : p;
}

static void
key_id(strbuf *b, const ispan *s, const char *id, size_t n)
{
	sb_clear(b);
	sb_adds(b, s->trace_id);
	sb_addc(b, '\t');
	sb_add(b, id, n);
}

/* Whether Zipkin places a after b among spans of one key: by timestamp
 * (none first), then name (none first); then a client first, and a flagged
 * shared span after one whose flag Zipkin set itself, which sorted first when
 * it merged. */
static int
placed_after(const ispan *a, const ispan *b)
{
	int64_t ta, tb, d;
	int ha, hb, hd;
	int c;

	part_times(a, &ta, &ha, &d, &hd);
	part_times(b, &tb, &hb, &d, &hd);
	ta = ha ? ta : 0;
	tb = hb ? tb : 0;
	if (ta != tb)
		return ta > tb;
	c = strcmp(named(a->operation) ? a->operation : "", named(b->operation) ? b->operation : "");
	if (c)
		return c > 0;
	if ((a->kind == TR_KIND_CLIENT) != (b->kind == TR_KIND_CLIENT))
		return b->kind == TR_KIND_CLIENT;
	return a->zipkin_shared == ZIPKIN_FLAGGED && b->zipkin_shared != ZIPKIN_FLAGGED;
}

static void
add_tag(ingest *g, ispan *s, const char *key, const char *val)
{
	itag *t = arena_alloc(&g->batch.mem, (s->ntags + 1) * sizeof *t);

	memcpy(t, s->tags, s->ntags * sizeof *t);
	t[s->ntags++] = (itag){key, val};
	s->tags = t;
}

/* Zipkin's parent of s: a batch index, or NONE where it is the one written. */
static size_t
zipkin_parent_of(const ispan *s, strmap *shared, strmap *plain, strbuf *key, int *to_root)
{
	const strmap_slot *sl;

	*to_root = 0;
	if (s->zipkin_shared) {
		/* Split: the client half, as written. Else the root, but for a
		 * SERVER, which keeps its parent id on purpose. */
		if (zipkin_id_len(s) != strlen(s->span_id) || s->kind == TR_KIND_SERVER ||
		    !*s->parent_id)
			return NONE;
		*to_root = 1;
		return NONE;
	}
	if (!*s->parent_id)
		return NONE;
	key_id(key, s, s->parent_id, zipkin_parent_len(s));
	size_t idlen = key->len;
	key_endpoint(key, s);
	if ((sl = strmap_get(shared, key->s, key->len)))
		return (size_t)sl->val;
	if ((sl = strmap_get(plain, key->s, idlen)))
		return (size_t)sl->val;
	return NONE;	/* missing: the root, in both trees */
}

static void
zipkin_note_tree(ingest *g)
{
	ibatch *bt = &g->batch;
	strmap shared = {0}, plain = {0};
	strbuf key = {0};
	unsigned char *hidden = xcalloc(bt->n ? bt->n : 1, 1);
	size_t i;

	for (i = 0; i < bt->n; i++) {
		const ispan *s = &bt->spans[i];
		strmap_slot *sl;
		int added;

		if (!s->zipkin)
			continue;
		key_id(&key, s, s->span_id, zipkin_id_len(s));
		if (s->zipkin_shared)
			key_endpoint(&key, s);
		sl = strmap_put(s->zipkin_shared ? &shared : &plain, ig_strn(g, key.s, key.len),
				key.len, &added);
		if (added) {
			sl->val = (int64_t)i;
		} else {
			size_t other = (size_t)sl->val;

			if (placed_after(s, &bt->spans[other])) {
				hidden[other] = 1;
				sl->val = (int64_t)i;
			} else {
				hidden[i] = 1;
			}
		}
	}
	for (i = 0; i < bt->n; i++) {
		ispan *s = &bt->spans[i];
		size_t p;
		int to_root;

		if (!s->zipkin)
			continue;
		if (hidden[i]) {
			add_tag(g, s, "tr.zipkin_hidden", "true");
			continue;
		}
		p = zipkin_parent_of(s, &shared, &plain, &key, &to_root);
		/* A parent named by an id two spans have is the one Zipkin
		 * keeps, whichever the name ends up on: tr-infer looks. */
		if (to_root)
			add_tag(g, s, "tr.zipkin_parent", "");
		else if (p != NONE && strcmp(bt->spans[p].span_id, s->parent_id) != 0)
			add_tag(g, s, "tr.zipkin_parent", bt->spans[p].span_id);
	}
	free(hidden);
	strmap_free(&shared);
	strmap_free(&plain);
	sb_free(&key);
}

/* Zipkin instruments an RPC as a client span and a server span with the same
 * id. The server half becomes "<id>:s", a child of the client half; spans that
 * name the shared id as parent hang under the half in their own service. */
void
zipkin_pair_shared(ingest *g)
{
	ibatch *bt = &g->batch;
	strmap client = {0}, server = {0};
	strbuf key = {0};

	/* A server span sharing its id with a client span is the shared half,
	 * whether or not the instrumentation set "shared". */
	for (size_t i = 0; i < bt->n; i++) {
		ispan *s = &bt->spans[i];
		int added;

		s->zipkin_shared = s->zipkin && s->shared ? ZIPKIN_FLAGGED : 0;
		s->shared = s->shared || s->kind == TR_KIND_SERVER;
		sb_clear(&key);
		sb_adds(&key, s->trace_id);
		sb_addc(&key, '\t');
		sb_adds(&key, s->span_id);
		const char *k = ig_strn(g, key.s, key.len);
		strmap_put(s->shared ? &server : &client, k, key.len, &added)->val = (int64_t)i;
	}
	if (!server.count)
		goto done;
	for (size_t i = 0; i < bt->n; i++) {
		ispan *s = &bt->spans[i];
		strmap_slot *srv, *cli;

		sb_clear(&key);
		sb_adds(&key, s->trace_id);
		sb_addc(&key, '\t');
		if (s->shared) {
			sb_adds(&key, s->span_id);
			if (!strmap_get(&client, key.s, key.len)) {
				/* No client half: nothing to split, but as a
				 * child it hangs where the rule below says. */
				sb_clear(&key);
				sb_adds(&key, s->trace_id);
				sb_addc(&key, '\t');
				goto child;
			}
			/* Zipkin, too, takes a SERVER of a client's id for the
			 * server half, "shared" or not. */
			if (s->zipkin && !s->zipkin_shared &&
			    bt->spans[strmap_get(&client, key.s, key.len)->val].kind == TR_KIND_CLIENT)
				s->zipkin_shared = ZIPKIN_BACKFILLED;
			s->parent_id = s->span_id;
			size_t n = strlen(s->span_id);
			char *id = arena_alloc(&bt->mem, n + 3);
			memcpy(id, s->span_id, n);
			memcpy(id + n, ":s", 3);
			s->span_id = id;
			continue;
		}
child:
		if (!*s->parent_id)
			continue;
		sb_adds(&key, s->parent_id);
		srv = strmap_get(&server, key.s, key.len);
		cli = strmap_get(&client, key.s, key.len);
		if (!srv || !cli)
			continue;
		/* Children of the client's own service stay with the client half. */
		if (strcmp(bt->spans[cli->val].service, s->service) == 0 &&
		    strcmp(bt->spans[srv->val].service, s->service) != 0)
			continue;
		size_t n = strlen(s->parent_id);
		char *id = arena_alloc(&bt->mem, n + 3);
		memcpy(id, s->parent_id, n);
		memcpy(id + n, ":s", 3);
		s->parent_id = id;
	}
done:
	zipkin_note_tree(g);
	sb_free(&key);
	strmap_free(&client);
	strmap_free(&server);
}
