/* merge.c - a trace met again is not written twice.
 *
 * The same trace comes twice when exports overlap (two searches exported
 * to two files, an export repeated) or when a file spreads a trace over far
 * apart parts. Within one read of a Zipkin or OTLP file the batch merges the
 * parts already; across inputs, every trace written is remembered by the hash
 * of its id and a 64-bit hash of each span's records (S and its R and L
 * lines): about 8 bytes a span and 64 a trace. A trace met again loses the
 * spans already written (counted as dropped duplicates); spans it adds, which
 * can no longer join the written group, are written as a group of their own,
 * with a warning, never silently.
 *
 * Everything written goes through here, on the main thread and in input
 * order, so -j N decides exactly as -j 1 does. */
#include "ingest/context.h"

#include <stdlib.h>
#include <string.h>

typedef struct seen_part {
	uint64_t *hashes;	/* of the spans written, in arena memory */
	uint32_t n;
	int32_t next;		/* the trace's next part, -1 */
} seen_part;

struct ingest_seen {
	strmap ids;		/* trace id hash (8 bytes, in mem) -> first part */
	seen_part *parts;
	size_t nparts, cap;
	arena mem;
	uint64_t *scratch;	/* the hashes of the group being written */
	size_t nscratch, capscratch;
	uint64_t *known;	/* a trace met again: what was written of it, sorted */
	size_t nknown, capknown;
	strbuf out;
};

static const char *
line_end(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return nl ? nl + 1 : end;
}

/* The second field of a record line (its trace id for T, span id for S). */
static size_t
field(const char *line, const char *end, int k, const char **out)
{
	const char *p = line;

	for (int i = 0; i < k; i++) {
		p = memchr(p, '\t', (size_t)(end - p));
		if (!p)
			return *out = end, 0;
		p++;
	}
	const char *q = p;

	while (q < end && *q != '\t' && *q != '\n')
		q++;
	*out = p;
	return (size_t)(q - p);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The hashes of every span written of a trace, sorted: a trace met again is
 * checked span by span in log time, however large it is. */
static void
known_sorted(ingest_seen *s, int32_t part)
{
	s->nknown = 0;
	for (; part >= 0; part = s->parts[part].next) {
		const seen_part *sp = &s->parts[part];

		if (!sp->n)
			continue;
		GROW(s->known, s->capknown, s->nknown + sp->n);
		memcpy(s->known + s->nknown, sp->hashes, sp->n * sizeof *sp->hashes);
		s->nknown += sp->n;
	}
	if (s->nknown)
		qsort(s->known, s->nknown, sizeof *s->known, cmp_u64);
}

static int
known(const ingest_seen *s, uint64_t h)
{
	return s->nknown && bsearch(&h, s->known, s->nknown, sizeof *s->known, cmp_u64) != NULL;
}

static int32_t
add_part(ingest_seen *s, int32_t after)
{
	GROW(s->parts, s->cap, s->nparts + 1);
	seen_part *sp = &s->parts[s->nparts];

	sp->n = (uint32_t)s->nscratch;
	sp->hashes = arena_alloc(&s->mem, s->nscratch * sizeof *sp->hashes + 1);
	if (s->nscratch)
		memcpy(sp->hashes, s->scratch, s->nscratch * sizeof *sp->hashes);
	sp->next = -1;
	if (after >= 0) {
		while (s->parts[after].next >= 0)
			after = s->parts[after].next;
		s->parts[after].next = (int32_t)s->nparts;
	}
	return (int32_t)s->nparts++;
}

/* One trace's group p[0,n): T line, then each span's S line with its R and
 * L lines. Writes what is new of it. */
static void
emit_group(ingest *g, const char *file, const char *p, size_t n)
{
	ingest_seen *s = g->seen;
	const char *end = p + n, *t_end = line_end(p, end), *id;
	size_t idlen = field(p, t_end, 1, &id);
	uint64_t idh = hash_bytes(id, idlen);
	int added = 0;
	strmap_slot *slot = strmap_get(&s->ids, (const char *)&idh, 8);

	if (!slot) {	/* the map keeps its keys: a copy of the hash of its own */
		char *key = arena_alloc(&s->mem, 8);

		memcpy(key, &idh, 8);
		slot = strmap_put(&s->ids, key, 8, &added);
	}
	s->nscratch = 0;
	if (added) {
		/* Unseen: written as it is, its spans remembered. */
		for (const char *q = t_end; q < end;) {
			const char *b = q;

			q = line_end(q, end);
			while (q < end && *q != 'S')
				q = line_end(q, end);	/* its R and L lines */
			GROW(s->scratch, s->capscratch, s->nscratch + 1);
			s->scratch[s->nscratch++] = hash_bytes(b, (size_t)(q - b));
		}
		slot->val = add_part(s, -1);
		tr_output_write(g->out, p, n);
		return;
	}
	/* Met again: only the spans not written before. */
	strbuf *o = &s->out;
	size_t dropped = 0, kept = 0;

	sb_clear(o);
	sb_add(o, p, (size_t)(t_end - p));
	known_sorted(s, (int32_t)slot->val);
	for (const char *q = t_end; q < end;) {
		const char *b = q;

		q = line_end(q, end);
		while (q < end && *q != 'S')
			q = line_end(q, end);
		uint64_t h = hash_bytes(b, (size_t)(q - b));

		if (known(s, h)) {
			dropped++;
			continue;
		}
		GROW(s->scratch, s->capscratch, s->nscratch + 1);
		s->scratch[s->nscratch++] = h;
		sb_add(o, b, (size_t)(q - b));
		kept++;
	}
	g->stats.dropped_duplicates += dropped;
	g->stats.spans -= dropped;
	if (!kept) {
		g->stats.traces--;	/* all of it was written before */
		g->stats.merged++;
		return;
	}
	add_part(s, (int32_t)slot->val);
	tr_warn("%s: trace %.*s: %zu spans more after the trace was written; written as a second "
		"group (its parts are in different inputs or too far apart)", file, (int)idlen, id, kept);
	g->stats.split++;
	tr_output_sb(g->out, o);
}

void
ig_emit(ingest *g, const char *file, const char *p, size_t n)
{
	if (!n)
		return;	/* p may be NULL then: an empty buffer */
	const char *end = p + n;

	if (g->opts.no_merge) {
		tr_output_write(g->out, p, n);
		return;
	}
	if (!g->seen)
		g->seen = xcalloc(1, sizeof *g->seen);
	/* p holds whole trace groups, each opened by its T line. */
	while (p < end) {
		const char *q = line_end(p, end);

		while (q < end && *q != 'T')
			q = line_end(q, end);
		emit_group(g, file, p, (size_t)(q - p));
		p = q;
	}
}

void
ig_seen_free(ingest_seen *s)
{
	if (!s)
		return;
	strmap_free(&s->ids);
	arena_free(&s->mem);
	free(s->parts);
	free(s->scratch);
	free(s->known);
	sb_free(&s->out);
	free(s);
}
