/* batch.c - spans under construction, the batch of spans waiting to
 * be written, and writing a trace: shared ids, duplicates, order. */
#include "ingest/context.h"
#include "ingest/zipkin_merge.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void
ig_tag(ingest *g, const char *key, const char *val)
{
	ibuild *b = &g->build;

	GROW(b->tags, b->captags, b->ntags + 1);
	b->tags[b->ntags].key = key;
	b->tags[b->ntags++].val = val;
}

void
ig_ptag(ingest *g, const char *prefix, const char *key, const char *val)
{
	ibuild *b = &g->build;
	size_t pl = strlen(prefix), kl = strlen(key);
	char *k = arena_alloc(&g->batch.mem, pl + kl + 1);

	memcpy(k, prefix, pl);
	memcpy(k + pl, key, kl + 1);
	GROW(b->ptags, b->capptags, b->nptags + 1);
	b->ptags[b->nptags].key = k;
	b->ptags[b->nptags++].val = val;
}

const char *
ig_json_text(ingest *g, const jtree *v)
{
	char buf[64];

	switch (v->type) {
	case JTREE_STRING:
		return ig_strn(g, v->u.s, v->len);
	case JTREE_INT:
		snprintf(buf, sizeof buf, "%" PRId64, v->u.i);
		return ig_str(g, buf);
	case JTREE_REAL:
		fmt_double(buf, sizeof buf, v->u.r);
		return ig_str(g, buf);
	case JTREE_TRUE:
		return "true";
	case JTREE_FALSE:
		return "false";
	case JTREE_NULL:
		return "";
	default:
		sb_clear(&g->scratch);
		jtree_dump(&g->scratch, v);
		return ig_strn(g, g->scratch.s, g->scratch.len);
	}
}

void
ig_log_begin(ingest *g, int64_t time)
{
	ibuild *b = &g->build;

	GROW(b->logs, b->caplogs, b->nlogs + 1);
	memset(&b->logs[b->nlogs], 0, sizeof *b->logs);
	b->logs[b->nlogs++].time = time;
}

/* Log and ref tags go straight to the arena: they are few per span. */
static void
push_tag(ingest *g, itag **tags, uint32_t *n, const char *key, const char *val)
{
	/* Grow by doubling inside the arena; the old copy is simply left behind. */
	if ((*n & (*n - 1)) == 0) {
		itag *nt = arena_alloc(&g->batch.mem, (*n ? *n * 2 : 1) * sizeof *nt);

		if (*n)
			memcpy(nt, *tags, *n * sizeof *nt);
		*tags = nt;
	}
	(*tags)[*n].key = key;
	(*tags)[(*n)++].val = val;
}

void
ig_log_tag(ingest *g, const char *key, const char *val)
{
	ilog *l = &g->build.logs[g->build.nlogs - 1];

	push_tag(g, &l->tags, &l->ntags, key, val);
}

void
ig_ref(ingest *g, const char *type, const char *trace_id, const char *span_id)
{
	ibuild *b = &g->build;

	GROW(b->refs, b->caprefs, b->nrefs + 1);
	memset(&b->refs[b->nrefs], 0, sizeof *b->refs);
	b->refs[b->nrefs].type = type;
	b->refs[b->nrefs].trace_id = trace_id;
	b->refs[b->nrefs++].span_id = span_id;
}

/* An attribute of the last reference of the span being built. */
static void
ig_ref_tag(ingest *g, const char *key, const char *val)
{
	iref *r = &g->build.refs[g->build.nrefs - 1];

	push_tag(g, &r->tags, &r->ntags, key, val);
}

void
ig_put_tag(ingest *g, const char *prefix, const char *key, const char *val)
{
	(void)prefix;
	ig_tag(g, key, val);
}

void
ig_put_log_tag(ingest *g, const char *prefix, const char *key, const char *val)
{
	(void)prefix;
	ig_log_tag(g, key, val);
}

void
ig_put_ref_tag(ingest *g, const char *prefix, const char *key, const char *val)
{
	(void)prefix;
	ig_ref_tag(g, key, val);
}

void
ig_build_reset(ingest *g)
{
	g->build.ntags = g->build.nrefs = g->build.nlogs = g->build.nptags = 0;
}

ispan *
ig_span_commit(ingest *g, const ispan *proto)
{
	ibatch *bt = &g->batch;
	ibuild *b = &g->build;
	ispan *s;
	size_t nt = b->ntags + b->nptags;

	GROW(bt->spans, bt->cap, bt->n + 1);
	s = &bt->spans[bt->n];
	*s = *proto;
	s->seq = (uint32_t)bt->n++;
	s->line = g->err_line;
	s->col = g->err_col;
	s->tags = arena_alloc(&bt->mem, (nt ? nt : 1) * sizeof *s->tags);
	if (b->ntags)
		memcpy(s->tags, b->tags, b->ntags * sizeof *s->tags);
	if (b->nptags)
		memcpy(s->tags + b->ntags, b->ptags, b->nptags * sizeof *s->tags);
	s->ntags = (uint32_t)nt;
	s->refs = arena_alloc(&bt->mem, (b->nrefs ? b->nrefs : 1) * sizeof *s->refs);
	if (b->nrefs)
		memcpy(s->refs, b->refs, b->nrefs * sizeof *s->refs);
	s->nrefs = (uint32_t)b->nrefs;
	s->logs = arena_alloc(&bt->mem, (b->nlogs ? b->nlogs : 1) * sizeof *s->logs);
	if (b->nlogs)
		memcpy(s->logs, b->logs, b->nlogs * sizeof *s->logs);
	s->nlogs = (uint32_t)b->nlogs;
	ig_build_reset(g);
	return s;
}

/* Nanoseconds in one of each unit, and the unit's names. */
static const int64_t unit_ns[] = {0, 1, 1000, 1000000, 1000000000};
static const char *const unit_name[] = {"", "nanoseconds", "microseconds", "milliseconds", "seconds"};
static const char *const unit_opt[] = {"", "ns", "us", "ms", "s"};

/* Times that can be right: 1990-01-01 to 2100-01-01, in microseconds. */
#define PLAUSIBLE_FROM 631152000000000.0
#define PLAUSIBLE_TO 4102444800000000.0

int
ingest_time_unit_parse(const char *name)
{
	for (int u = INGEST_TU_NS; u <= INGEST_TU_S; u++)
		if (strcmp(name, unit_opt[u]) == 0)
			return u;
	return strcmp(name, "µs") == 0 ? INGEST_TU_US : -1;
}

/* A time field's value v in microseconds, v read in the unit --time-unit
 * gives or else native; saturated beyond int64 (ig_check_time refuses it). */
static int64_t
ig_time_us(const ingest *g, int64_t v, enum ingest_time_unit native)
{
	int u = g->opts.time_unit ? g->opts.time_unit : (int)native;
	int64_t r;

	if (u == INGEST_TU_US)
		return v;
	if (u == INGEST_TU_NS)
		return v / 1000;
	if (__builtin_mul_overflow(v, unit_ns[u] / 1000, &r))
		return v < 0 ? INT64_MIN : INT64_MAX;
	return r;
}

int64_t
ig_time_us_u(const ingest *g, uint64_t v, enum ingest_time_unit native)
{
	int u = g->opts.time_unit ? g->opts.time_unit : (int)native;

	if (u == INGEST_TU_NS)
		return (int64_t)(v / 1000);
	return v > INT64_MAX ? INT64_MAX : ig_time_us(g, (int64_t)v, native);
}

/* The unit next to u (a thousand times finer or coarser) that a start
 * which cannot be right read in u looks like it is in, or 0 when none:
 * then it is taken as it is. Units further off are not guessed at: example
 * exports put small made-up numbers in nanosecond fields. */
static int
unit_looks_like(int64_t start, int u)
{
	double us = (double)start;

	if (us >= PLAUSIBLE_FROM && us < PLAUSIBLE_TO)
		return 0;
	for (int a = u - 1; a <= u + 1; a += 2) {
		double alt = a >= INGEST_TU_NS && a <= INGEST_TU_S ? us / (double)unit_ns[u] * (double)unit_ns[a] : 0;

		if (alt >= PLAUSIBLE_FROM && alt < PLAUSIBLE_TO)
			return a;
	}
	return 0;
}

int
ig_check_time(ingest *g, const ispan *s, enum ingest_time_unit native)
{
	int u = g->opts.time_unit ? g->opts.time_unit : (int)native, a;

	if (s->has_time && (s->start < -TR_TIME_MAX || s->start > TR_TIME_MAX ||
			    s->duration < 0 || s->duration > TR_TIME_MAX - s->start))
		return ig_fail(g, "span %s: time beyond 2^61 microseconds", s->span_id);
	/* --time-unit names the unit: the user's word is not second-guessed */
	if (s->has_time && !g->opts.time_unit && (a = unit_looks_like(s->start, u)))
		return ig_fail(g, "span %s: starts in the year %.0f read in %s: the times look like %s "
			       "(tr-ingest --time-unit %s converts them)", s->span_id,
			       floor(1970 + (double)s->start / 1e6 / 31556952.0), unit_name[u], unit_name[a],
			       unit_opt[a]);
	return 0;
}

int
ig_fail(ingest *g, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(g->err, sizeof g->err, fmt, ap);
	va_end(ap);
	return -1;
}

/* A Zipkin or OTLP element lost unread: its trace ids are unknown, so no
 * trace of the file is sure to be whole (counted as one broken trace more). */
void
ig_lost_element(ingest *g)
{
	g->batch_broken = 1;
	g->stats.broken++;
}

void
ig_bad_trace(ingest *g, const char *trace_id)
{
	int added;
	const char *id = ig_str(g, trace_id);

	strmap_put(&g->batch.bad_traces, id, strlen(id), &added);
}

void
ig_bad_span(ingest *g, const jtree *span)
{
	const char *tid = jtree_str(jtree_get(span, "traceId"));

	if (tid && *tid)
		ig_bad_trace(g, ig_lower(g, tid));
	else
		g->stats.broken++;	/* a trace we cannot name is still one lost */
}

int
ig_get_str(ingest *g, const jtree *o, const char *key, int required, const char **out)
{
	const jtree *v = jtree_get(o, key);

	if (!v || jtree_is_null(v)) {
		*out = "";
		return required ? ig_fail(g, "\"%s\" is missing", key) : 0;
	}
	if (!jtree_is_string(v))
		return ig_fail(g, "\"%s\" is not a string", key);
	*out = ig_strn(g, jtree_str(v), jtree_len(v));
	return 0;
}

/* An integer field: 0, or -1 via ig_fail with the field named. */
static int
ig_get_i64(ingest *g, const jtree *o, const char *key, int required, int64_t *out, int *present)
{
	const jtree *v = jtree_get(o, key);

	*out = 0;
	if (present)
		*present = 0;
	if (!v || jtree_is_null(v))
		return required ? ig_fail(g, "\"%s\" is missing", key) : 0;
	if (jtree_is_integer(v))
		*out = jtree_int(v);
	else if (jtree_is_real(v) && jtree_real(v) >= -9.2e18 && jtree_real(v) <= 9.2e18 &&
		 jtree_real(v) == (double)(int64_t)jtree_real(v))
		*out = (int64_t)jtree_real(v);	/* in range before converted: no UB */
	else if (!jtree_is_string(v) ||
		 parse_i64(jtree_str(v), jtree_len(v), out) < 0)
		return ig_fail(g, "\"%s\" is not an integer", key);
	if (present)
		*present = 1;
	return 0;
}

int
ig_get_time(ingest *g, const jtree *o, const char *key, int required, int64_t *out, int *present,
	    enum ingest_time_unit native)
{
	if (ig_get_i64(g, o, key, required, out, present) < 0)
		return -1;
	*out = ig_time_us(g, *out, native);
	return 0;
}

int
ig_get_array(ingest *g, const jtree *o, const char *key, const jtree **out)
{
	const jtree *v = jtree_get(o, key);

	*out = NULL;
	if (!v || jtree_is_null(v))
		return 0;
	if (!jtree_is_array(v))
		return ig_fail(g, "\"%s\" is not an array", key);
	*out = v;
	return 0;
}

/* ---- writing ---- */

static void
add_tags(strbuf *b, const itag *t, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		tr_add_tag(b, t[i].key, t[i].val);
}

static void
serialise(strbuf *b, const ispan *s)
{
	strbuf *o = b;

	sb_add(o, "S\t", 2);
	tr_escapes(o, s->trace_id, 0);
	sb_addc(o, '\t');
	tr_escapes(o, s->span_id, 0);
	sb_addc(o, '\t');
	tr_escapes(o, s->parent_id, 0);
	sb_addc(o, '\t');
	if (s->has_time) {
		sb_addi(o, s->start);
		sb_addc(o, '\t');
		sb_addi(o, s->duration);
	} else
		sb_addc(o, '\t');
	sb_addc(o, '\t');
	tr_escapes(o, s->service, 0);
	sb_addc(o, '\t');
	tr_escapes(o, s->operation, 0);
	sb_addc(o, '\t');
	sb_adds(o, tr_kind_name(s->kind));
	sb_addc(o, '\t');
	tr_escapes(o, s->host, 0);
	add_tags(o, s->tags, s->ntags);
	sb_addc(o, '\n');
	for (uint32_t i = 0; i < s->nrefs; i++) {
		const iref *r = &s->refs[i];

		sb_add(o, "R\t", 2);
		tr_escapes(o, s->trace_id, 0);
		sb_addc(o, '\t');
		tr_escapes(o, s->span_id, 0);
		sb_addc(o, '\t');
		sb_adds(o, r->type);
		sb_addc(o, '\t');
		tr_escapes(o, r->trace_id, 0);
		sb_addc(o, '\t');
		tr_escapes(o, r->span_id, 0);
		add_tags(o, r->tags, r->ntags);
		sb_addc(o, '\n');
	}
	for (uint32_t i = 0; i < s->nlogs; i++) {
		const ilog *l = &s->logs[i];

		sb_add(o, "L\t", 2);
		tr_escapes(o, s->trace_id, 0);
		sb_addc(o, '\t');
		tr_escapes(o, s->span_id, 0);
		sb_addc(o, '\t');
		sb_addi(o, l->time);
		add_tags(o, l->tags, l->ntags);
		sb_addc(o, '\n');
	}
}

static void
set_text(ingest *g, ispan *s)
{
	sb_clear(&g->scratch);
	serialise(&g->scratch, s);
	s->text = ig_strn(g, g->scratch.s, g->scratch.len);
	s->textlen = g->scratch.len;
}

static int
ispan_less(const ispan *a, const ispan *b)
{
	if (a->has_time != b->has_time)
		return a->has_time > b->has_time;
	if (a->has_time && a->start != b->start)
		return a->start < b->start;
	int c = strcmp(a->span_id, b->span_id);

	return c ? c < 0 : a->seq < b->seq;
}

static int
ispan_ptr_cmp(const void *pa, const void *pb)
{
	const ispan *a = *(ispan *const *)pa, *b = *(ispan *const *)pb;

	return ispan_less(a, b) ? -1 : ispan_less(b, a) ? 1 : 0;
}

/* A different span reusing an id becomes id~2, id~3, ... (first free). */
static void
rename_duplicate(ingest *g, ispan *s)
{
	char *id;
	size_t n = strlen(s->span_id) + 24;

	for (unsigned k = 2;; k++) {
		id = arena_alloc(&g->batch.mem, n);
		snprintf(id, n, "%s~%u", s->span_id, k);
		if (!strmap_get(&g->ids, id, strlen(id)))
			break;
	}
	ig_ptag(g, "", "tr.renamed_from", s->span_id);
	/* Put the new tag on this span: rebuild its tag array with one more. */
	itag *nt = arena_alloc(&g->batch.mem, (s->ntags + 1) * sizeof *nt);
	memcpy(nt, s->tags, s->ntags * sizeof *nt);
	nt[s->ntags++] = g->build.ptags[--g->build.nptags];
	s->tags = nt;
	s->span_id = id;
	g->stats.renamed++;
}

/* Drop identical duplicates, rename different spans sharing an id. */
static size_t
dedupe(ingest *g, ispan **v, size_t n)
{
	size_t dropped = 0;

	strmap_clear(&g->ids);
	for (size_t i = 0; i < n; i++) {
		int added;
		strmap_slot *slot;

		set_text(g, v[i]);
		slot = strmap_put(&g->ids, v[i]->span_id, strlen(v[i]->span_id), &added);
		if (added) {
			slot->val = (int64_t)i;
			continue;
		}
		const ispan *first = v[slot->val];
		if (first->textlen == v[i]->textlen && memcmp(first->text, v[i]->text, first->textlen) == 0) {
			v[i]->dropped = 1;
			dropped++;
			continue;
		}
		rename_duplicate(g, v[i]);
		set_text(g, v[i]);
		slot = strmap_put(&g->ids, v[i]->span_id, strlen(v[i]->span_id), &added);
		slot->val = (int64_t)i;
	}
	return dropped;
}

/* With -v: report what the span tree of the written trace looks like. */
static void
check_tree(ingest *g, const strbuf *text, const char *trace_id)
{
	const char *names[1] = {g->file};
	tr_trace t = {.files = names};
	char *p = text->s, *end = text->s + text->len;

	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));

		GROW(t.recs, t.caprecs, t.nrecs + 1);
		t.recs[t.nrecs++] = (tr_record){.line = p, .len = (uint32_t)(nl - p), .span = -1};
		*nl = '\0';
		p = nl + 1;
	}
	t.trace_id = trace_id;
	if (tr_trace_parse(&t) == 0) {
		size_t self = 0;

		for (size_t i = 0; i < t.nspans; i++)
			self += strcmp(t.spans[i].span_id, t.spans[i].parent_id) == 0;
		if (t.norphans || t.ncycles || self)
			tr_warn("%s: trace %s: %zu spans, %zu roots, %zu with a missing parent, "
				"%zu self-parents, %zu parent cycles cut", g->file, trace_id,
				t.nspans, t.nroots, t.norphans, self, t.ncycles);
		g->stats.orphans += t.norphans;
		g->stats.cycles += t.ncycles;
	}
	for (size_t i = 0; i < t.nrecs; i++)
		t.recs[i].line[t.recs[i].len] = '\n';
	tr_trace_free(&t);
}

/* A trace of more than --max-spans spans, v in input order: named by where
 * its first span is, counted, never cut short. */
static void
skip_over_max_spans(ingest *g, ispan **v, size_t n)
{
	tr_warn("%s:%llu:%llu: trace %s has %zu spans, more than --max-spans %zu: skipped", g->file,
		(unsigned long long)v[0]->line, (unsigned long long)v[0]->col, v[0]->trace_id, n,
		g->opts.max_spans);
	g->stats.broken++;
	g->file_failed = 1;
}

/* Write the trace of spans v[0, n), in input order. */
static void
write_trace(ingest *g, ispan **v, size_t n)
{
	const char *tid = v[0]->trace_id;
	size_t dropped, written = 0;
	strbuf *o = &g->text;

	if (strmap_get(&g->batch.bad_traces, tid, strlen(tid)))
		return;		/* counted in ig_flush */
	if (g->opts.max_spans && n > g->opts.max_spans) {
		skip_over_max_spans(g, v, n);
		return;
	}
	dropped = dedupe(g, v, n);
	for (size_t i = 0; i < n; i++)
		dropped += v[i]->dups;	/* identical copies zipkin_merge took out */
	qsort(v, n, sizeof *v, ispan_ptr_cmp);
	sb_clear(o);
	sb_add(o, "T\t", 2);
	tr_escapes(o, tid, 0);
	if (dropped)
		tr_add_tag_i64(o, "tr.dropped_duplicates", (int64_t)dropped);
	sb_addc(o, '\n');
	size_t body = o->len;
	for (size_t i = 0; i < n; i++) {
		if (v[i]->dropped)
			continue;
		sb_add(o, v[i]->text, v[i]->textlen);
		written++;
	}
	if (g->opts.verbose) {
		strbuf sub = {o->s + body, o->len - body, 0};

		check_tree(g, &sub, tid);
	}
	if (g->sink) {
		sb_add(g->sink, o->s, o->len);
		if (g->marks) {
			GROW(g->marks->v, g->marks->cap, g->marks->n + 1);
			g->marks->v[g->marks->n++] = (struct ig_mark){g->sink->len, g->sink_msg->len};
		}
	} else
		ig_emit(g, g->file, o->s, o->len);
	g->stats.traces++;
	g->stats.spans += written;
	g->stats.dropped_duplicates += dropped;
}

void
ig_flush(ingest *g)
{
	ibatch *bt = &g->batch;
	strmap rank = {0};
	ispan **v;

	if (g->zipkin_seen)
		zipkin_merge(g);	/* may rename bad traces: before they are counted */
	/* every bad trace once, also one whose only span was the bad one */
	g->stats.broken += bt->bad_traces.count;
	if (!bt->n)
		goto done;
	if (g->zipkin_seen)
		zipkin_pair_shared(g);
	g->zipkin_seen = 0;
	/* Group by trace in order of first appearance, input order within. */
	size_t *key = xmalloc(bt->n * sizeof *key), ntr = 0;
	for (size_t i = 0; i < bt->n; i++) {
		int added;
		strmap_slot *s = strmap_put(&rank, bt->spans[i].trace_id, strlen(bt->spans[i].trace_id), &added);

		if (added)
			s->val = (int64_t)ntr++;
		key[i] = (size_t)s->val;
	}
	size_t *start = xcalloc(ntr + 1, sizeof *start);
	for (size_t i = 0; i < bt->n; i++)
		start[key[i] + 1]++;
	for (size_t r = 0; r < ntr; r++)
		start[r + 1] += start[r];
	v = xmalloc(bt->n * sizeof *v);
	size_t *fill = xmalloc((ntr + 1) * sizeof *fill);
	memcpy(fill, start, (ntr + 1) * sizeof *fill);
	for (size_t i = 0; i < bt->n; i++)
		v[fill[key[i]]++] = &bt->spans[i];
	for (size_t r = 0; r < ntr; r++)
		write_trace(g, v + start[r], start[r + 1] - start[r]);
	free(fill);
	free(v);
	free(start);
	free(key);
	strmap_free(&rank);
done:
	ig_discard(g);
}

void
ig_count_batch_broken(ingest *g)
{
	strmap ids = {0};

	int added;

	if (g->zipkin_seen)
		zipkin_normalise_ids(g);	/* one trace, however its ids were padded */
	for (size_t i = 0; i < g->batch.n; i++) {
		const char *id = g->batch.spans[i].trace_id;

		strmap_put(&ids, id, strlen(id), &added);
	}
	for (size_t i = 0; i < g->batch.bad_traces.cap; i++) {
		const strmap_slot *s = &g->batch.bad_traces.slots[i];

		if (s->used)
			strmap_put(&ids, s->key, s->len, &added);
	}
	g->stats.broken += ids.count;
	strmap_free(&ids);
}

void
ig_stats_diff(ingest_stats *d, const ingest_stats *after, const ingest_stats *before)
{
	d->files = after->files - before->files;
	d->traces = after->traces - before->traces;
	d->spans = after->spans - before->spans;
	d->broken = after->broken - before->broken;
	d->dropped_duplicates = after->dropped_duplicates - before->dropped_duplicates;
	d->renamed = after->renamed - before->renamed;
	d->orphans = after->orphans - before->orphans;
	d->cycles = after->cycles - before->cycles;
	d->merged = after->merged - before->merged;
	d->split = after->split - before->split;
}

void
ig_stats_add(ingest_stats *s, const ingest_stats *d)
{
	s->files += d->files;
	s->traces += d->traces;
	s->spans += d->spans;
	s->broken += d->broken;
	s->dropped_duplicates += d->dropped_duplicates;
	s->renamed += d->renamed;
	s->orphans += d->orphans;
	s->cycles += d->cycles;
	s->merged += d->merged;
	s->split += d->split;
}

void
ig_discard(ingest *g)
{
	g->batch.n = 0;
	strmap_clear(&g->batch.bad_traces);
	strmap_clear(&g->ids);
	arena_reset(&g->batch.mem);
}
