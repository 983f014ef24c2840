/* prescan.c - when a Zipkin or OTLP trace is whole.
 *
 * Zipkin lists and OTLP resources hold spans of any traces in any order, so
 * a trace is known whole only at the end of the file: holding every span
 * until then costs memory like the file (1.3 GB for a million spans). For a
 * regular file, a first pass over it finds, without parsing, the trace ids
 * each element names ("traceId" or "traceID" and the string after it) and
 * remembers for each trace the last element that names it. The second pass
 * converts as always and writes the batch as soon as every trace in it has
 * had its last element: memory follows how far apart a trace's spans are, and
 * the bytes written are the same, in the same order.
 *
 * Ids are compared in the form the converters give them (lower case; OTLP's
 * base64 decoded; Zipkin's zero-padded 128-bit ids cut to 64 bits). An id the
 * first pass could not read (an escape inside it) turns the early writing
 * off for the file; an id it read but the converter wrote otherwise only
 * holds its trace to the end. Ids named elsewhere in an element (a link's, a
 * reference's) only make a trace wait longer. */
#include "ingest_impl.h"

#include <ctype.h>
#include <string.h>

static const char *
trace_key(ingest *g, const char *raw, size_t n, enum prescan_kind kind)
{
	const char *id;

	switch (kind) {
	case PRESCAN_OTLP:
		id = otlp_trace_id(g, ig_strn(g, raw, n));
		break;
	case PRESCAN_ZIPKIN:
		id = zipkin_trace_key(ig_lower(g, ig_strn(g, raw, n)));
		break;
	default:
		id = ig_strn(g, raw, n);
	}
	return id;
}

/* The string value after the key at p, or -1 when it is not a plain string. */
static int
string_after(const char *p, const char *end, const char **s, size_t *n)
{
	while (p < end && isspace((unsigned char)*p))
		p++;
	if (p >= end || *p++ != ':')
		return 1;	/* the word in a value, not a key: nothing to read */
	while (p < end && isspace((unsigned char)*p))
		p++;
	if (p >= end || *p++ != '"')
		return -1;
	const char *q = p;

	while (q < end && *q != '"' && *q != '\\')
		q++;
	if (q >= end || *q == '\\')
		return -1;
	*s = p;
	*n = (size_t)(q - p);
	return 0;
}

/* The next "traceId" or "traceID" in p[0,end): its quote, or NULL; *jaeger
 * says which. memchr looks for the 'I', rarer in JSON than quotes: this pass
 * reads every byte. */
static const char *
next_key(const char *p, const char *end, int *jaeger)
{
	const char *i = p + 6;

	while (i < end - 2 && (i = memchr(i, 'I', (size_t)(end - 2 - i)))) {
		const char *q = i - 6;

		if (memcmp(q, "\"trace", 6) == 0 && (i[1] == 'd' || i[1] == 'D') && i[2] == '"') {
			*jaeger = i[1] == 'D';
			return q;
		}
		i++;
	}
	return NULL;
}

int
ig_prescan_element(ingest *g, const char *p, size_t n, size_t index, enum prescan_kind kind)
{
	const char *end = p + n, *s;
	size_t len;
	int jaeger, added;

	for (const char *q = p; (q = next_key(q, end, &jaeger)); q += 9) {
		int r = string_after(q + 9, end, &s, &len);

		if (r < 0)
			return -1;
		if (r > 0)
			continue;
		/* "traceID" is Jaeger's, written as it is. */
		const char *id = trace_key(g, s, len, jaeger ? PRESCAN_JAEGER : kind);
		size_t idlen = strlen(id);
		strmap_slot *slot = strmap_get(&g->last_elem, id, idlen);

		if (!slot)	/* the batch arena is reset: keys get their own */
			slot = strmap_put(&g->last_elem, arena_strndup(&g->prescan_mem, id, idlen), idlen, &added);
		slot->val = (int64_t)index;
	}
	arena_reset(&g->batch.mem);	/* the ids' working copies; the batch is empty */
	return 0;
}

/* The last element that names trace id, or SIZE_MAX when none does. */
static size_t
last_element(const ingest *g, const char *id, int zipkin)
{
	if (zipkin)
		id = zipkin_trace_key(id);
	const strmap_slot *s = strmap_get(&g->last_elem, id, strlen(id));

	return s ? (size_t)s->val : SIZE_MAX;
}

void
ig_after_element(ingest *g, size_t index)
{
	ibatch *bt = &g->batch;

	if (!g->early_flush)
		return;
	if (g->batch_broken) {
		g->batch_need = SIZE_MAX;	/* the file's end decides */
		return;
	}
	const char *prev = NULL;

	for (size_t i = g->batch_mark; i < bt->n; i++) {
		/* A trace's spans come together: look its id up once. */
		if (prev && strcmp(prev, bt->spans[i].trace_id) == 0)
			continue;
		prev = bt->spans[i].trace_id;
		size_t need = last_element(g, prev, bt->spans[i].zipkin);

		if (need > g->batch_need)
			g->batch_need = need;
	}
	g->batch_mark = bt->n;
	/* A trace with a bad span has no span in the batch, but its later
	 * spans must still find it bad. */
	for (size_t i = 0; bt->bad_traces.count && i < bt->bad_traces.cap; i++) {
		const strmap_slot *s = &bt->bad_traces.slots[i];

		if (!s->used)
			continue;
		const strmap_slot *l = strmap_get(&g->last_elem, s->key, s->len);
		size_t need = l ? (size_t)l->val : SIZE_MAX;

		if (need > g->batch_need)
			g->batch_need = need;
	}
	if (g->batch_need <= index && (bt->n || bt->bad_traces.count)) {
		ig_flush(g);
		g->batch_mark = 0;
		g->batch_need = 0;
	}
}
