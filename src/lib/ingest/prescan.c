/* prescan.c - when a Zipkin or OTLP trace is whole.
 *
 * Zipkin lists and OTLP resources hold spans of any traces in any order, so
 * a trace is known whole only at the end of the file: holding every span
 * until then costs memory like the file (1.3 GB for a million spans). For a
 * regular file, a first pass sweeps its bytes, without parsing, for the keys
 * "traceId" and "traceID" and remembers, for each id after them, the offset
 * of the last key that names it. The converting pass then writes the batch
 * as soon as every trace in it has had its last key: memory follows how far
 * apart a trace's spans are, and the bytes written are the same, in the same
 * order. The sweep runs when the first Zipkin or OTLP element is converted,
 * so a Jaeger file is never swept.
 *
 * Ids are compared in the form the converters give them (lower case; OTLP's
 * base64 decoded; Zipkin's zero-padded 128-bit ids cut to 64 bits). A key
 * inside a JSON string cannot match (its quotes would be escaped). An id the
 * sweep cannot read (an escape inside it) turns the early writing off for
 * the file; an id it read but the converter wrote otherwise only holds its
 * trace to the end; ids named elsewhere (a link's, a reference's) only make a
 * trace wait longer; a key the sweep does not see (a key written with an
 * escape) may let a trace out early, and its late spans are then a second
 * group with a warning (merge.c), never silently lost. */
#include "ingest/convert.h"
#include "ingest/drive.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define SWEEP_CHUNK (1024 * 1024)
#define SWEEP_CARRY (64 * 1024)	/* a key and its id split by a chunk's end */

/* The next "traceId" or "traceID" in p[0,end): its quote, or NULL; *jaeger
 * says which. memchr looks for the 'I', rarer in JSON than quotes. */
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

enum { ID_READ, ID_NOT_A_KEY, ID_UNREADABLE, ID_CUT };

/* The string after the key whose end is p: ID_READ with it in *s, *n. */
static int
id_after(const char *p, const char *end, const char **s, size_t *n)
{
	while (p < end && isspace((unsigned char)*p))
		p++;
	if (p >= end)
		return ID_CUT;
	if (*p++ != ':')
		return ID_NOT_A_KEY;	/* the word as a value, not a key */
	while (p < end && isspace((unsigned char)*p))
		p++;
	if (p >= end)
		return ID_CUT;
	if (*p++ != '"')
		return ID_UNREADABLE;
	const char *q = p;

	while (q < end && *q != '"' && *q != '\\')
		q++;
	if (q >= end)
		return ID_CUT;
	if (*q == '\\')
		return ID_UNREADABLE;
	*s = p;
	*n = (size_t)(q - p);
	return ID_READ;
}

/* The id as the converter of this kind writes it (arena memory). */
static const char *
trace_key(ingest *g, const char *raw, size_t n, enum prescan_kind kind)
{
	switch (kind) {
	case PRESCAN_OTLP:
		return otlp_trace_id(g, ig_strn(g, raw, n));
	case PRESCAN_ZIPKIN:
		return zipkin_trace_key(ig_lower(g, ig_strn(g, raw, n)));
	default:
		return ig_strn(g, raw, n);
	}
}

static void
remember(ingest *g, const char *id, uint64_t offset)
{
	size_t n = strlen(id);
	strmap_slot *s = strmap_get(&g->last_key, id, n);
	int added;

	if (!s)	/* keys outlive the scratch copies: their own arena */
		s = strmap_put(&g->last_key, arena_strndup(&g->prescan_mem, id, n), n, &added);
	if ((uint64_t)s->val < offset || s->val < 0)
		s->val = (int64_t)offset;
}

/* Sweep buf[0,len), whose first byte is at offset base; returns how many
 * bytes were looked at for good (the rest is carried to the next chunk), or
 * -1 when an id cannot be read. */
static ptrdiff_t
sweep_chunk(ingest *g, const char *buf, size_t len, uint64_t base, int last, enum prescan_kind kind)
{
	const char *end = buf + len, *q, *s;
	size_t n;
	int jaeger;

	for (const char *p = buf; (q = next_key(p, end, &jaeger)); p = q + 9) {
		switch (id_after(q + 9, end, &s, &n)) {
		case ID_CUT:
			if (!last)
				return q - buf;
			return -1;
		case ID_UNREADABLE:
			return -1;
		case ID_NOT_A_KEY:
			continue;
		}
		/* "traceID" is Jaeger's (a span list), written as it is. */
		remember(g, trace_key(g, s, n, jaeger ? PRESCAN_JAEGER : kind), base + (uint64_t)(q - buf));
	}
	/* Keep a tail that may hold the start of a key cut by the chunk's end. */
	return len > 8 ? (ptrdiff_t)(len - 8) : 0;
}

/* The first pass over the file; 0, or -1 when it cannot tell (the early
 * writing stays off). The batch arena is lent to the id copies and reset
 * per chunk: swapped, since the batch being converted lives in it. */
static int
sweep(ingest *g, const char *path, enum prescan_kind kind)
{
	tr_input *in = tr_input_try_open(path);
	char *buf;
	size_t len = 0;
	uint64_t base = 0;
	arena batch_mem = g->batch.mem;
	int r = 0;

	if (!in)
		return -1;	/* gone since it was opened: held to its end */
	buf = xmalloc(SWEEP_CHUNK + SWEEP_CARRY);
	g->batch.mem = g->sweep_mem;
	for (;;) {
		size_t got = tr_input_read(in, buf + len, SWEEP_CHUNK);
		ptrdiff_t done;

		len += got;
		done = sweep_chunk(g, buf, len, base, got == 0, kind);
		arena_reset(&g->batch.mem);
		if (done < 0) {
			r = -1;
			break;
		}
		if (got == 0)
			break;
		if (len - (size_t)done > SWEEP_CARRY) {
			r = -1;		/* an id longer than any */
			break;
		}
		memmove(buf, buf + done, len - (size_t)done);
		base += (uint64_t)done;
		len -= (size_t)done;
	}
	if (tr_input_error(in))
		r = -1;
	g->sweep_mem = g->batch.mem;
	g->batch.mem = batch_mem;
	tr_input_close(in);
	free(buf);
	return r;
}

static int
regular_file(const char *path)
{
	return tr_regular_file_size(path) >= 0;
}

void
ig_prescan_reset(ingest *g, const char *path)
{
	g->path = path;
	g->swept = 0;
	g->early_flush = 0;
	g->batch_need = 0;
	g->batch_mark = 0;
	strmap_clear(&g->last_key);
	arena_reset(&g->prescan_mem);
}

/* The offset of the last key naming trace id, or UINT64_MAX when none does. */
static uint64_t
last_key(const ingest *g, const char *id, int zipkin)
{
	if (zipkin)
		id = zipkin_trace_key(id);
	const strmap_slot *s = strmap_get(&g->last_key, id, strlen(id));

	return s ? (uint64_t)s->val : UINT64_MAX;
}

static void
need(ingest *g, uint64_t offset)
{
	if (offset > g->batch_need)
		g->batch_need = offset;
}

void
ig_after_element(ingest *g, uint64_t end, enum prescan_kind kind)
{
	ibatch *bt = &g->batch;

	if (!g->swept) {
		g->swept = 1;
		g->early_flush = regular_file(g->path) && sweep(g, g->path, kind) == 0 && g->last_key.count;
	}
	if (!g->early_flush)
		return;
	if (g->batch_broken) {
		g->batch_need = UINT64_MAX;	/* the file's end decides */
		return;
	}
	const char *prev = NULL;

	for (size_t i = g->batch_mark; i < bt->n; i++) {
		/* A trace's spans come together: its id is looked up once. */
		if (prev && strcmp(prev, bt->spans[i].trace_id) == 0)
			continue;
		prev = bt->spans[i].trace_id;
		need(g, last_key(g, prev, bt->spans[i].zipkin));
	}
	g->batch_mark = bt->n;
	/* A trace with a bad span has no span in the batch, but its later
	 * spans must still find it bad. */
	for (size_t i = 0; bt->bad_traces.count && i < bt->bad_traces.cap; i++) {
		const strmap_slot *s = &bt->bad_traces.slots[i];

		if (s->used) {
			const strmap_slot *l = strmap_get(&g->last_key, s->key, s->len);

			need(g, l ? (uint64_t)l->val : UINT64_MAX);
		}
	}
	if (g->batch_need < end && (bt->n || bt->bad_traces.count)) {
		ig_flush(g);
		g->batch_mark = 0;
		g->batch_need = 0;
	}
}
