/* trace.c - parse a trace's records into spans and a span tree. */
#include "core/trace.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Split a writable copy of a record (len bytes, NUL after) at TABs in place;
 * f[i] is NUL-terminated and fl[i] its length. Returns the field count.
 * With rest, the split stops after max fields: *rest is where the fields
 * after them start (NULL: there are none). */
static size_t
split_inplace(char *s, size_t len, char **f, uint32_t *fl, size_t max, char **rest)
{
	char *end = s + len;
	size_t n = 0;
	tr_scan tabs;

	if (rest)
		*rest = NULL;
	tr_scan_init(&tabs, s, end, '\t');
	for (;;) {
		char *tab = (char *)tr_scan_next(&tabs);
		char *e = tab ? tab : end;

		if (n < max) {
			f[n] = s;
			fl[n] = (uint32_t)(e - s);
		}
		n++;
		if (!tab)
			return n;
		*tab = '\0';
		s = tab + 1;
		if (rest && n == max) {
			*rest = s;
			return n;
		}
	}
}

/* The TABs and '=' of the 32 bytes at blk, as bit masks; fewer when the
 * line ends first (p: where the part of the line looked at starts). */
static inline void
tag_masks(const char *p, const char *blk, const char *end, uint64_t *tabs, uint64_t *eqs)
{
	size_t left = (size_t)(end - blk);

#ifdef __SSE2__
	if (end - p >= 32) {
		/* the last block is loaded to end, its bytes before blk dropped */
		size_t drop = left >= 32 ? 0 : 32 - left;
		const char *q = blk - drop;
		__m128i lo = _mm_loadu_si128((const __m128i *)(const void *)q);
		__m128i hi = _mm_loadu_si128((const __m128i *)(const void *)(q + 16));
		__m128i tab = _mm_set1_epi8('\t'), eq = _mm_set1_epi8('=');

		*tabs = ((uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(lo, tab)) |
			 (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(hi, tab)) << 16) >> drop;
		*eqs = ((uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(lo, eq)) |
			(uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(hi, eq)) << 16) >> drop;
		return;
	}
#endif
	*tabs = *eqs = 0;
	for (size_t i = 0; i < 32 && i < left; i++) {
		*tabs |= (uint64_t)(blk[i] == '\t') << i;
		*eqs |= (uint64_t)(blk[i] == '=') << i;
	}
}

/* The tag fields in [p, end), checked as parse_tags reads them but not
 * kept: returns their number; *bad is the first without a '=' (NULL:
 * none). The TABs and '=' of 32 bytes are found at once, and a field is
 * looked at only at its TAB. */
static size_t
check_tag_fields(const char *p, const char *end, const char **bad)
{
	const char *field = p;
	size_t n = 1;
	int has_eq = 0;

	*bad = NULL;
	for (const char *blk = p; blk < end; blk += 32) {
		uint64_t tabs, eqs;
		unsigned from = 0;	/* where this block's part of the field starts */

		tag_masks(p, blk, end, &tabs, &eqs);
		for (; tabs; tabs &= tabs - 1) {
			unsigned at = (unsigned)__builtin_ctzll(tabs);

			if (!has_eq && !(eqs & ((1ULL << at) - 1) >> from << from) && !*bad)
				*bad = field;
			has_eq = 0;
			field = blk + at + 1;
			from = at + 1;
			n++;
		}
		has_eq |= (eqs >> from) != 0;
	}
	if (!has_eq && !*bad)
		*bad = field;
	return n;
}

/* esc: the record holds a '%' somewhere. Most hold none, and one scan of
 * the line then spares a scan of each of its fields. */
static char *
unescape_n(char *s, size_t n, int esc)
{
	if (esc && memchr(s, '%', n))
		tr_unescape(s, s, n);
	return s;
}

/* The fields of the record being parsed. */
typedef struct fields {
	char **f;
	uint32_t *len;
} fields;

typedef struct parse_ctx {
	tr_trace *t;
	const tr_record *rec;
	int esc;		/* the record holds a '%' */
	/* An S record's tags when only checked (span_tags_unread): from tags
	 * (NULL: none) to tags_end, and the first without '=' (NULL: none) */
	const char *tags, *tags_end, *bad_tag;
	char err[256];
} parse_ctx;

#define PARSE_FAIL(c, ...) (snprintf((c)->err, sizeof (c)->err, __VA_ARGS__), -1)

/* Parse key=value fields f[0..n) into an arena array. */
static int
parse_tags(parse_ctx *c, fields fs, size_t first, size_t nf, tr_tag **out, uint32_t *nout)
{
	size_t n = nf - first;
	tr_tag *tags = n ? arena_alloc(&c->t->mem, n * sizeof *tags) : NULL;

	for (size_t i = 0; i < n; i++) {
		char *f = fs.f[first + i];
		size_t len = fs.len[first + i];
		char *eq = (char *)tr_find(f, f + len, '=');

		if (!eq)	/* an empty key is allowed: some exporters write one */
			return PARSE_FAIL(c, "field %zu: expected key=value, got \"%.40s\"", first + i + 1, f);
		*eq = '\0';
		tags[i].key = unescape_n(f, (size_t)(eq - f), c->esc);
		tags[i].val = unescape_n(eq + 1, len - (size_t)(eq - f) - 1, c->esc);
	}
	*out = tags;
	*nout = (uint32_t)n;
	return 0;
}

static int
parse_time(parse_ctx *c, const char *what, const char *s, size_t n, int64_t *v)
{
	if (parse_i64(s, n, v) < 0)
		return PARSE_FAIL(c, "%s: not an integer: \"%.40s\"", what, s);
	return 0;
}

#define MAX_FIELDS 4096

/* An S record's tags when only checked (span_tags_unread): refused as
 * parse_tags refuses them, with the same message. c->bad_tag is the first
 * field without '=' (check_tag_fields). */
static int
bad_span_tag(parse_ctx *c)
{
	const char *bad = c->bad_tag, *end = tr_find(bad, c->tags_end, '\t');
	size_t field = TR_SPAN_FIELDS + 1, len = (size_t)((end ? end : c->tags_end) - bad);

	for (const char *p = c->tags; p < bad; p++)
		field += *p == '\t';
	return PARSE_FAIL(c, "field %zu: expected key=value, got \"%.*s\"", field,
			  (int)(len < 40 ? len : 40), bad);
}

static int
parse_span(parse_ctx *c, fields fs, size_t nf)
{
	char **f = fs.f;
	uint32_t *fl = fs.len;
	tr_trace *t = c->t;
	tr_span *s;
	int kind;

	if (nf < TR_SPAN_FIELDS)
		return PARSE_FAIL(c, "S record has %zu fields, needs %d", nf, TR_SPAN_FIELDS);
	if (!*f[2])
		return PARSE_FAIL(c, "empty span id");
	GROW(t->spans, t->capspans, t->nspans + 1);
	s = &t->spans[t->nspans];
	memset(s, 0, sizeof *s);
	s->span_id = unescape_n(f[2], fl[2], c->esc);
	s->parent_id = unescape_n(f[3], fl[3], c->esc);
	if (*f[4] || *f[5]) {
		if (parse_time(c, "start", f[4], fl[4], &s->start) < 0 ||
		    parse_time(c, "duration", f[5], fl[5], &s->duration) < 0)
			return -1;
		if (s->duration < 0)
			return PARSE_FAIL(c, "negative duration %lld", (long long)s->duration);
		if (s->start < -TR_TIME_MAX || s->start > TR_TIME_MAX ||
		    s->duration > TR_TIME_MAX - s->start)
			return PARSE_FAIL(c, "span time beyond 2^61 microseconds");
		s->flags |= TR_SPAN_HAS_TIME;
	}
	s->service = unescape_n(f[6], fl[6], c->esc);
	s->operation = unescape_n(f[7], fl[7], c->esc);
	kind = tr_kind_parse(f[8], fl[8]);
	if (kind < 0)
		return PARSE_FAIL(c, "unknown span kind \"%.40s\"", f[8]);
	s->kind = (uint8_t)kind;
	s->host = unescape_n(f[9], fl[9], c->esc);
	if (t->span_tags_unread) {
		if (c->bad_tag)
			return bad_span_tag(c);
	} else if (parse_tags(c, fs, TR_SPAN_FIELDS, nf, &s->tags, &s->ntags) < 0)
		return -1;
	s->rec = (uint32_t)(c->rec - t->recs);
	s->parent = s->first_child = s->next_sibling = s->first_log = -1;
	t->nspans++;
	return 0;
}

/* Refs and logs name their span by id; resolved once all spans are known. */
static int
parse_ref(parse_ctx *c, fields fs, size_t nf)
{
	char **f = fs.f;
	uint32_t *fl = fs.len;
	tr_trace *t = c->t;
	tr_ref *r;

	if (nf < 6)
		return PARSE_FAIL(c, "R record has %zu fields, needs 6", nf);
	GROW(t->refs, t->caprefs, t->nrefs + 1);
	r = &t->refs[t->nrefs++];
	r->span = (int32_t)(c->rec - t->recs);	/* record index for now */
	r->type = unescape_n(f[3], fl[3], c->esc);
	r->trace_id = unescape_n(f[4], fl[4], c->esc);
	r->span_id = unescape_n(f[5], fl[5], c->esc);
	r->trace_id = *r->trace_id ? r->trace_id : t->trace_id;
	return parse_tags(c, fs, 6, nf, &r->tags, &r->ntags);
}

static int
parse_log(parse_ctx *c, fields fs, size_t nf)
{
	char **f = fs.f;
	uint32_t *fl = fs.len;
	tr_trace *t = c->t;
	tr_log *l;

	if (nf < 4)
		return PARSE_FAIL(c, "L record has %zu fields, needs 4", nf);
	GROW(t->logs, t->caplogs, t->nlogs + 1);
	l = &t->logs[t->nlogs++];
	l->span = (int32_t)(c->rec - t->recs);
	if (parse_time(c, "time", f[3], fl[3], &l->time) < 0)
		return -1;
	return parse_tags(c, fs, 4, nf, &l->tags, &l->ntags);
}

static int
too_many_fields(parse_ctx *c, size_t nf)
{
	return PARSE_FAIL(c, "record has %zu fields, at most %d are allowed", nf, MAX_FIELDS);
}

/* An S record whose tags are only checked (span_tags_unread): split into
 * its ten positional fields, its tags looked at where they are. Refused as
 * parse_record refuses it, with the same messages in the same order. */
static int
parse_span_unread_tags(parse_ctx *c, fields fs)
{
	char *copy = arena_strndup(&c->t->mem, c->rec->line, c->rec->len), *tags;
	size_t nf = split_inplace(copy, c->rec->len, fs.f, fs.len, TR_SPAN_FIELDS, &tags);

	/* a '%' only in the tags unescapes nothing that is kept */
	c->esc = memchr(c->rec->line, '%', tags ? (size_t)(tags - copy) : c->rec->len) != NULL;
	c->tags = tags;
	c->tags_end = copy + c->rec->len;
	c->bad_tag = NULL;
	if (tags)
		nf += check_tag_fields(tags, c->tags_end, &c->bad_tag);
	if (nf > MAX_FIELDS)
		return too_many_fields(c, nf);
	return parse_span(c, fs, nf);
}

static int
parse_record(parse_ctx *c)
{
	char *f[MAX_FIELDS];
	uint32_t fl[MAX_FIELDS];
	fields fs = {f, fl};
	const char *line = c->rec->line;
	size_t nf;

	/* Every field is a C string once split: a NUL would cut it short. */
	if (memchr(line, '\0', c->rec->len))
		return PARSE_FAIL(c, "NUL byte in a record");
	/* Only the record types this library owns are split. */
	if (!(line[0] && line[1] == '\t' && strchr("SRLT", line[0])))
		return 0;
	if (line[0] == 'S' && c->t->span_tags_unread)
		return parse_span_unread_tags(c, fs);
	c->esc = memchr(line, '%', c->rec->len) != NULL;
	nf = split_inplace(arena_strndup(&c->t->mem, line, c->rec->len), c->rec->len, f, fl, MAX_FIELDS,
			   NULL);
	if (nf > MAX_FIELDS)
		return too_many_fields(c, nf);
	switch (line[0]) {
	case 'S': return parse_span(c, fs, nf);
	case 'R': return parse_ref(c, fs, nf);
	case 'L': return parse_log(c, fs, nf);
	default: return parse_tags(c, fs, 2, nf, &c->t->tags, &c->t->ntags);
	}
	return 0;	/* a record type this library does not own: kept as is */
}

void
tr_trace_warn(const tr_trace *t, const char *fmt, ...)
{
	char what[512];
	strbuf id = {0};
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	/* escaped, so that the message stays one line; long ids cut short */
	tr_escapes(&id, t->trace_id, 0);
	sb_addc(&id, '\0');
	if (t->nrecs && t->files)
		tr_warn("%s:%llu: trace %.80s: %s", t->files[t->recs[0].file],
			(unsigned long long)t->recs[0].lineno, id.s, what);
	else
		tr_warn("trace %.80s: %s", id.s, what);
	sb_free(&id);
}

static int
span_less(const tr_span *a, const tr_span *b)
{
	int at = a->flags & TR_SPAN_HAS_TIME, bt = b->flags & TR_SPAN_HAS_TIME;

	if (at != bt)
		return at > bt;	/* spans with no time go last */
	if (a->start != b->start)
		return a->start < b->start;
	return strcmp(a->span_id, b->span_id) < 0;
}

static int
span_cmp(const void *pa, const void *pb)
{
	const tr_span *a = pa, *b = pb;

	return span_less(a, b) ? -1 : span_less(b, a) ? 1 : 0;
}

static void
sort_spans(tr_trace *t)
{
	size_t i;

	for (i = 1; i < t->nspans; i++)
		if (span_less(&t->spans[i], &t->spans[i - 1]))
			break;
	if (i < t->nspans)	/* tr-ingest output is already in order */
		qsort(t->spans, t->nspans, sizeof *t->spans, span_cmp);
	for (i = 0; i < t->nspans; i++)
		t->recs[t->spans[i].rec].span = (int32_t)i;
}

static int
index_ids(parse_ctx *c)
{
	tr_trace *t = c->t;

	strmap_clear(&t->ids);
	for (size_t i = 0; i < t->nspans; i++) {
		const char *id = t->spans[i].span_id;
		int added;
		strmap_slot *slot = strmap_put(&t->ids, id, strlen(id), &added);

		if (!added) {
			c->rec = &t->recs[t->spans[i].rec];
			return PARSE_FAIL(c, "duplicate span id \"%.60s\"", id);
		}
		slot->val = (int64_t)i;
	}
	return 0;
}

int32_t
tr_trace_find(const tr_trace *t, const char *span_id)
{
	strmap_slot *s = strmap_get(&t->ids, span_id, strlen(span_id));

	return s ? (int32_t)s->val : -1;
}

/* Turn the record indexes stored in refs and logs into span indexes. */
static int
resolve_owners(parse_ctx *c)
{
	tr_trace *t = c->t;
	char *f[3];
	uint32_t fl[3];

	for (size_t i = 0; i < t->nrefs + t->nlogs; i++) {
		int32_t *owner = i < t->nrefs ? &t->refs[i].span : &t->logs[i - t->nrefs].span;
		const tr_record *rec = &t->recs[*owner];
		char *copy = arena_strndup(&t->mem, rec->line, rec->len);

		if (split_inplace(copy, rec->len, f, fl, 3, NULL) < 3)
			continue;	/* cannot happen: checked when parsed */
		*owner = tr_trace_find(t, unescape_n(f[2], fl[2], 1));
		if (*owner < 0) {
			c->rec = rec;
			return PARSE_FAIL(c, "%s record names span \"%.60s\" that is not in trace \"%.60s\"",
					  f[0], f[2], t->trace_id);
		}
	}
	return 0;
}

/* Each span's logs in a chain, in record order: first_log, then next. */
static void
link_logs(tr_trace *t)
{
	for (size_t i = t->nlogs; i-- > 0;) {
		tr_span *s = &t->spans[t->logs[i].span];

		t->logs[i].next = s->first_log;
		s->first_log = (int32_t)i;
	}
}

static void
link_parents(tr_trace *t)
{
	for (size_t i = 0; i < t->nspans; i++) {
		tr_span *s = &t->spans[i];

		if (!*s->parent_id)
			continue;
		s->parent = tr_trace_find(t, s->parent_id);
		if (s->parent < 0)
			s->flags |= TR_SPAN_ORPHAN;
		else if (s->parent == (int32_t)i) {
			s->parent = -1;	/* its own parent: a root */
			s->flags |= TR_SPAN_CYCLE;
		}
	}
	for (size_t i = 0; i < t->nrefs; i++) {
		tr_ref *r = &t->refs[i];
		tr_span *s = &t->spans[r->span];

		if (strcmp(r->type, "follows_from") == 0 && s->parent >= 0 &&
		    strcmp(r->trace_id, t->trace_id) == 0 && strcmp(r->span_id, s->parent_id) == 0)
			s->flags |= TR_SPAN_FOLLOWS;
	}
}

/* Cut parent cycles deterministically: in each cycle the span that sorts
 * first becomes a root. Walks up with an explicit path, no recursion. */
static void
break_cycles(tr_trace *t)
{
	uint8_t *state = xcalloc(t->nspans ? t->nspans : 1, 1);	/* 0 new, 1 on path, 2 done */
	int32_t *path = xmalloc((t->nspans ? t->nspans : 1) * sizeof *path);

	for (size_t i = 0; i < t->nspans; i++) {
		size_t n = 0;
		int32_t j = (int32_t)i;

		while (j >= 0 && state[j] == 0) {
			state[j] = 1;
			path[n++] = j;
			j = t->spans[j].parent;
		}
		if (j >= 0 && state[j] == 1) {
			int32_t min = j;

			for (int32_t k = t->spans[j].parent; k != j; k = t->spans[k].parent)
				if (k < min)
					min = k;
			t->spans[min].parent = -1;
			t->spans[min].flags |= TR_SPAN_CYCLE;
			t->ncycles++;
		}
		while (n)
			state[path[--n]] = 2;
	}
	free(path);
	free(state);
}

static void
build_tree(tr_trace *t)
{
	t->nroots = 0;
	t->norphans = 0;
	for (size_t i = t->nspans; i-- > 0;) {
		tr_span *s = &t->spans[i];

		if (s->parent >= 0) {
			s->next_sibling = t->spans[s->parent].first_child;
			t->spans[s->parent].first_child = (int32_t)i;
		}
	}
	for (size_t i = 0; i < t->nspans; i++) {
		if (t->spans[i].parent >= 0)
			continue;
		GROW(t->roots, t->caproots, t->nroots + 1);
		t->roots[t->nroots++] = (int32_t)i;
		if (t->spans[i].flags & TR_SPAN_ORPHAN)
			t->norphans++;
	}
	/* Depths, top-down with an explicit stack. */
	int32_t *stack = xmalloc((t->nspans ? t->nspans : 1) * sizeof *stack);
	size_t n = 0;

	for (size_t r = 0; r < t->nroots; r++) {
		t->spans[t->roots[r]].depth = 0;
		stack[n++] = t->roots[r];
		while (n) {
			int32_t p = stack[--n];

			for (int32_t c = t->spans[p].first_child; c >= 0; c = t->spans[c].next_sibling) {
				t->spans[c].depth = t->spans[p].depth + 1;
				stack[n++] = c;
			}
		}
	}
	free(stack);
}

/* Clock offsets (tr_reader_set_shift): a host's spans in the reference
 * clock, before they are put in order. */
static void
shift_spans(tr_trace *t)
{
	for (size_t i = 0; i < t->nspans; i++) {
		tr_span *s = &t->spans[i];

		if (s->flags & TR_SPAN_HAS_TIME)
			s->start -= t->shift(t->shift_ctx, s->host);
	}
}

/* A log moves with its span. */
static void
shift_logs(tr_trace *t)
{
	for (size_t i = 0; i < t->nlogs; i++)
		t->logs[i].time -= t->shift(t->shift_ctx, t->spans[t->logs[i].span].host);
}

int
tr_trace_parse(tr_trace *t)
{
	parse_ctx c = {.t = t};

	t->nspans = t->nrefs = t->nlogs = t->nroots = 0;
	t->ntags = 0;
	t->ncycles = t->norphans = 0;
	for (size_t i = 0; i < t->nrecs; i++) {
		c.rec = &t->recs[i];
		t->recs[i].span = -1;
		if (parse_record(&c) < 0)
			goto fail;
	}
	if (t->shift)
		shift_spans(t);
	sort_spans(t);
	if (index_ids(&c) < 0 || resolve_owners(&c) < 0)
		goto fail;
	if (t->shift)
		shift_logs(t);
	link_logs(t);
	link_parents(t);
	break_cycles(t);
	build_tree(t);
	return 0;
fail:
	tr_warn("%s:%llu: %s", t->files[c.rec->file], (unsigned long long)c.rec->lineno, c.err);
	return -1;
}

const char *
tr_span_tag(const tr_span *s, const char *key)
{
	for (uint32_t i = 0; i < s->ntags; i++)	/* the first byte tells most keys apart */
		if (s->tags[i].key[0] == key[0] && strcmp(s->tags[i].key, key) == 0)
			return s->tags[i].val;
	return NULL;
}

int
tr_span_is_blocking_receive(const tr_span *s)
{
	const char *op = tr_span_tag(s, "messaging.operation.type");

	if (!op)
		op = tr_span_tag(s, "messaging.operation");
	return s->kind == TR_KIND_CONSUMER && op && strcmp(op, "receive") == 0;
}

void
tr_trace_queue_waits(const tr_trace *t, int64_t *wait)
{
	for (size_t i = 0; i < t->nspans; i++) {
		const char *q = tr_span_tag(&t->spans[i], "queue.wait_us");
		int64_t v;

		wait[i] = q && parse_i64(q, strlen(q), &v) == 0 && v > 0 ? v : 0;
	}
	for (size_t l = 0; l < t->nlogs; l++) {
		const tr_log *g = &t->logs[l];
		const tr_span *s = &t->spans[g->span];

		if (tr_span_tag(s, "queue.wait_us"))
			continue;	/* the tag wins */
		for (uint32_t k = 0; k < g->ntags; k++)
			if (strcmp(g->tags[k].key, "event") == 0 && strcmp(g->tags[k].val, "enqueue") == 0 &&
			    g->time < s->start && s->start - g->time > wait[g->span])
				wait[g->span] = s->start - g->time;
	}
}

/* Index of the first tag field of a record type, or 0 for types we do not own. */
static size_t
first_tag_field(const char *line)
{
	switch (line[0] && line[1] == '\t' ? line[0] : 0) {
	case 'S': return TR_SPAN_FIELDS;
	case 'R': return 6;
	case 'L': return 4;
	case 'T': return 2;
	default: return 0;
	}
}

void
tr_write_record(strbuf *out, const tr_trace *t, size_t i,
		const char *drop_prefix, const char *extra, size_t extra_len)
{
	const tr_record *r = &t->recs[i];
	size_t first = first_tag_field(r->line), plen;
	char pat[64];

	plen = drop_prefix ? strlen(drop_prefix) : 0;
	if (plen && plen < sizeof pat - 1 && first) {
		pat[0] = '\t';
		memcpy(pat + 1, drop_prefix, plen + 1);
	} else
		plen = 0;
	if (!plen || !strstr(r->line, pat)) {
		sb_add(out, r->line, r->len);
	} else {
		const char *p = r->line, *end = r->line + r->len;
		size_t field = 0;

		while (p <= end) {
			const char *tab = memchr(p, '\t', (size_t)(end - p));
			const char *e = tab ? tab : end;

			if (!(field >= first && (size_t)(e - p) > plen && memcmp(p, drop_prefix, plen) == 0)) {
				if (field)
					sb_addc(out, '\t');
				sb_add(out, p, (size_t)(e - p));
			}
			field++;
			p = e + 1;
		}
	}
	if (extra_len)
		sb_add(out, extra, extra_len);
	sb_addc(out, '\n');
}

void
tr_write_group(strbuf *out, const tr_trace *t)
{
	sb_add(out, "T\t", 2);
	if (t->trace_id_raw)
		sb_add(out, t->trace_id_raw, t->trace_id_rawlen);
	else
		tr_escapes(out, t->trace_id, 0);
	for (uint32_t i = 0; i < t->ntags; i++)
		tr_add_tag(out, t->tags[i].key, t->tags[i].val);
	sb_addc(out, '\n');
}

void
tr_write_trace(strbuf *out, const tr_trace *t, const tr_write_opts *o)
{
	size_t tlen = o && o->drop_type ? strlen(o->drop_type) : 0;

	tr_write_group(out, t);
	for (size_t i = 0; i < t->nrecs; i++) {
		const tr_record *r = &t->recs[i];

		if (r->line[0] == 'T' && r->line[1] == '\t')
			continue;	/* replaced by the group record above */
		if (tlen && r->len > tlen && r->line[tlen] == '\t' &&
		    memcmp(r->line, o->drop_type, tlen) == 0)
			continue;	/* our own records from an earlier run */
		tr_write_record(out, t, i, o ? o->drop_prefix : NULL, NULL, 0);
		if (r->span >= 0 && o && o->span_extra) {
			out->len--;	/* append the tool's tags before the newline */
			o->span_extra(o->ctx, t, r->span, out);
			sb_addc(out, '\n');
		}
	}
}

void
tr_trace_free(tr_trace *t)
{
	arena_free(&t->mem);
	free(t->recs);
	free(t->spans);
	free(t->refs);
	free(t->logs);
	free(t->roots);
	strmap_free(&t->ids);
}
