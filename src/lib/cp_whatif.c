/* cp_whatif.c - what if the matching spans' own work took F times as long?
 *
 * Re-lays the sanitised tree bottom up (explicit order, no recursion). A
 * child is re-anchored after the sibling that ended last before it started
 * (ties: the one that now ends later), or after its parent's start; the
 * original gap to its anchor is kept. A parent ends after its last child
 * plus its original trailing self time. For a matching span every stretch
 * of its own time (the gaps before its children, its tail, or its whole
 * duration when it has no children) is scaled by F, rounded to the µs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cp.h"
#include "table.h"

struct cp_whatif {
	char *service, *operation;	/* operation NULL: any */
	double scale;
	int format;
	int64_t *dur, *rel_end;		/* per span: new duration, new end from the parent's start */
	struct by_start *byfirst;	/* scratch: one parent's children by start */
	int32_t *heap;			/* scratch: its children that finished */
	size_t cap;
	struct latency {
		int64_t orig, pred;
	} *lat;				/* per trace */
	size_t n, capn;
	int64_t *sorted;		/* scratch for the quantiles */
};

cp_whatif *
cp_whatif_new(const char *rule, int format, char *err, size_t errsize)
{
	const char *sc = NULL, *p;
	char *end;
	cp_whatif *w;

	for (p = strstr(rule, ":scale="); p; p = strstr(p + 1, ":scale="))
		sc = p;
	if (strncmp(rule, "service=", 8) != 0 || !sc) {
		snprintf(err, errsize, "expected 'service=X[,operation=Y]:scale=F', got '%s'", rule);
		return NULL;
	}
	w = xcalloc(1, sizeof *w);
	w->format = format;
	w->scale = strtod(sc + 7, &end);
	if (end == sc + 7 || *end || !isfinite(w->scale) || w->scale < 0) {
		snprintf(err, errsize, "scale: not a number >= 0: '%s'", sc + 7);
		free(w);
		return NULL;
	}
	w->service = xstrdup(rule + 8);
	w->service[sc - rule - 8] = '\0';
	if ((end = strstr(w->service, ",operation="))) {
		*end = '\0';
		w->operation = xstrdup(end + 11);
	}
	return w;
}

void
cp_whatif_free(cp_whatif *w)
{
	if (!w)
		return;
	free(w->service);
	free(w->operation);
	free(w->dur);
	free(w->rel_end);
	free(w->byfirst);
	free(w->heap);
	free(w->lat);
	free(w->sorted);
	free(w);
}

static int
matches(const cp_whatif *w, const tr_span *s)
{
	return strcmp(s->service, w->service) == 0 &&
	       (!w->operation || strcmp(s->operation, w->operation) == 0);
}

static int64_t
scaled(int64_t v, double f)
{
	return f == 1.0 ? v : (int64_t)llround((double)v * f);
}

/* A min-heap of span indexes keyed by their (clamped) end. */
static void
heap_push(int32_t *h, size_t *n, const int64_t *key, int32_t v)
{
	size_t i = (*n)++;

	while (i && key[h[(i - 1) / 2]] > key[v]) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = v;
}

static int32_t
heap_pop(int32_t *h, size_t *n, const int64_t *key)
{
	int32_t top = h[0], last = h[--(*n)];
	size_t i = 0;

	for (;;) {
		size_t l = 2 * i + 1, m = l;

		if (l >= *n)
			break;
		if (l + 1 < *n && key[h[l + 1]] < key[h[l]])
			m = l + 1;
		if (key[h[m]] >= key[last])
			break;
		h[i] = h[m];
		i = m;
	}
	if (*n)
		h[i] = last;
	return top;
}

/* A child with its keys, so that qsort needs no context. */
typedef struct by_start {
	int64_t start, end;
	int32_t span;
} by_start;

static int
by_start_cmp(const void *pa, const void *pb)
{
	const by_start *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	return (a->span > b->span) - (a->span < b->span);
}

/* New duration of span s, its children done already. */
static int64_t
relay(cp_whatif *w, const cp_trace *c, int32_t s, double f, by_start *kids)
{
	uint32_t off = c->koff[s], n = c->kn[s];
	int64_t best_end = 0, best_new = 0, last = INT64_MIN, tail = c->end[s];
	size_t nheap = 0;
	int anchored = 0;

	if (!n)
		return scaled(c->end[s] - c->start[s], f);
	for (uint32_t i = 0; i < n; i++) {
		int32_t k = c->kids[off + i].span;

		kids[i] = (by_start){c->start[k], c->end[k], k};
	}
	qsort(kids, n, sizeof *kids, by_start_cmp);
	for (uint32_t i = 0; i < n; i++) {
		int32_t k = kids[i].span;

		while (nheap && c->end[w->heap[0]] <= c->start[k]) {
			int32_t x = heap_pop(w->heap, &nheap, c->end);

			if (!anchored || c->end[x] > best_end ||
			    (c->end[x] == best_end && w->rel_end[x] > best_new)) {
				best_end = c->end[x];
				best_new = w->rel_end[x];
			}
			anchored = 1;
		}
		int64_t from = anchored ? best_end : c->start[s];
		int64_t at = (anchored ? best_new : 0) + scaled(c->start[k] - from, f);

		w->rel_end[k] = at + w->dur[k];
		if (w->rel_end[k] > last)
			last = w->rel_end[k];
		heap_push(w->heap, &nheap, c->end, k);
	}
	tail -= c->kids[off].end;	/* kids come latest end first */
	return last + scaled(tail, f);
}

static size_t
relay_trace(cp_whatif *w, const tr_trace *t, const cp_trace *c)
{
	size_t nmatched = 0;

	if (t->nspans > w->cap) {
		w->cap = t->nspans;
		w->dur = xrealloc(w->dur, w->cap * sizeof *w->dur);
		w->rel_end = xrealloc(w->rel_end, w->cap * sizeof *w->rel_end);
		w->heap = xrealloc(w->heap, w->cap * sizeof *w->heap);
		w->byfirst = xrealloc(w->byfirst, w->cap * sizeof *w->byfirst);
	}
	for (size_t i = c->norder; i-- > 0;) {
		int32_t s = c->order[i];
		int m = matches(w, &t->spans[s]);

		nmatched += (size_t)m;
		w->dur[s] = relay(w, c, s, m ? w->scale : 1.0, w->byfirst);
	}
	return nmatched;
}

int64_t
cp_whatif_predict(cp_whatif *w, const tr_trace *t, const cp_trace *c)
{
	if (c->root < 0)
		return 0;
	relay_trace(w, t, c);
	return w->dur[c->root];
}

static void
row(cp_whatif *w, strbuf *b, const char *key, const int64_t v[], const char *const names[], size_t nv)
{
	if (w->format == CP_JSON) {
		sb_adds(b, "{");
		table_json_string(b, names[0], strlen(names[0]));
		sb_adds(b, ": ");
		table_json_string(b, key, strlen(key));
		for (size_t i = 0; i < nv; i++) {
			sb_adds(b, ", ");
			table_json_string(b, names[i + 1], strlen(names[i + 1]));
			sb_addf(b, ": %lld", (long long)v[i]);
		}
		sb_adds(b, "}");
		return;
	}
	char sep = w->format == CP_CSV ? ',' : '\t';

	if (w->format == CP_CSV)
		table_csv_field(b, key, strlen(key));
	else
		tr_escapes(b, key, 0);
	for (size_t i = 0; i < nv; i++) {
		sb_addc(b, sep);
		sb_addi(b, v[i]);
	}
	sb_addc(b, '\n');
}

static const char *const trace_cols[] = {"trace_id", "original_us", "predicted_us", "change_us", "matched"};
static const char *const quant_cols[] = {"quantile", "original_us", "predicted_us"};

static void
header(cp_whatif *w, strbuf *b, const char *const names[], size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (i)
			sb_addc(b, w->format == CP_CSV ? ',' : '\t');
		sb_adds(b, names[i]);
	}
	sb_addc(b, '\n');
}

void
cp_whatif_add(cp_whatif *w, const tr_trace *t, const cp_trace *c, strbuf *out)
{
	size_t nmatched = relay_trace(w, t, c);
	int64_t pred = w->dur[c->root], v[4] = {c->root_duration, pred, pred - c->root_duration,
						(int64_t)nmatched};

	if (!w->n) {
		if (w->format == CP_JSON)
			sb_adds(out, "{\"traces\": [\n  ");
		else
			header(w, out, trace_cols, 5);
	} else if (w->format == CP_JSON)
		sb_adds(out, ",\n  ");
	row(w, out, t->trace_id, v, trace_cols, 4);
	GROW(w->lat, w->capn, w->n + 1);
	w->lat[w->n++] = (struct latency){c->root_duration, pred};
}

static int
i64_cmp(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;

	return (a > b) - (a < b);
}

void
cp_whatif_finish(cp_whatif *w, strbuf *out)
{
	static const int ps[] = {50, 95, 99};
	static const char *const pname[] = {"p50", "p95", "p99"};

	if (w->format == CP_JSON)
		sb_adds(out, w->n ? "\n], \"quantiles\": [\n  " : "{\"traces\": [], \"quantiles\": [\n  ");
	else {
		if (!w->n)
			header(w, out, trace_cols, 5);
		sb_addc(out, '\n');
		header(w, out, quant_cols, 3);
	}
	int64_t *orig = w->sorted = xmalloc((w->n ? 2 * w->n : 1) * sizeof *w->sorted);
	int64_t *pred = orig + w->n;

	for (size_t i = 0; i < w->n; i++) {
		orig[i] = w->lat[i].orig;
		pred[i] = w->lat[i].pred;
	}
	qsort(orig, w->n, sizeof *orig, i64_cmp);
	qsort(pred, w->n, sizeof *pred, i64_cmp);
	for (int i = 0; i < 3; i++) {
		int64_t v[2] = {cp_percentile(orig, w->n, ps[i]), cp_percentile(pred, w->n, ps[i])};

		if (i && w->format == CP_JSON)
			sb_adds(out, ",\n  ");
		row(w, out, pname[i], v, quant_cols, 2);
	}
	if (w->format == CP_JSON)
		sb_adds(out, "\n]}\n");
}
