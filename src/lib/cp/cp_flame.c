/* cp_flame.c - critical-path flame graphs over many traces. Each trace's
 * critical spans become nodes of one calling-context tree (shared with the
 * baseline, so that the two compare node by node); what each trace put in
 * each node is kept, a few bytes per critical span, so that the traces
 * around a percentile can be summed once every latency is known. */
#include "cp/cp_flame.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "draw/flame.h"
#include "draw/svg.h"

typedef struct contrib {
	uint32_t node;
	int64_t us;
} contrib;

/* The traces of one side (incident or baseline). */
typedef struct side {
	int64_t *latency;	/* per trace: its analysed roots' durations */
	uint8_t *stream;	/* per trace: a long-lived stream, out of the bands */
	size_t capstream, nstreams;
	size_t *off;		/* per trace: its first contribution; off[n] the end */
	size_t ntraces, cap, capoff;
	contrib *c;
	size_t nc, capc;
} side;

struct cp_flames {
	flame *tree;
	side side[2];		/* 0: incident, 1: baseline */
	int keep_streams;	/* streams rank in the percentile bands too */
	uint32_t *node_of;	/* per span of the current trace */
	size_t capspans;
};

cp_flames *
cp_flames_new(void)
{
	cp_flames *f = xcalloc(1, sizeof *f);

	f->tree = flame_new();
	return f;
}

void
cp_flames_free(cp_flames *f)
{
	if (!f)
		return;
	for (int i = 0; i < 2; i++) {
		free(f->side[i].latency);
		free(f->side[i].stream);
		free(f->side[i].off);
		free(f->side[i].c);
	}
	flame_free(f->tree);
	free(f->node_of);
	free(f);
}

size_t
cp_flames_ntraces(const cp_flames *f, int baseline)
{
	return f->side[baseline != 0].ntraces;
}

void
cp_flames_keep_streams(cp_flames *f, int keep)
{
	f->keep_streams = keep;
}

size_t
cp_flames_streams(const cp_flames *f)
{
	return f->side[0].nstreams;
}

void
cp_flames_add(cp_flames *f, const tr_trace *t, const cp_trace *c, int baseline)
{
	side *s = &f->side[baseline != 0];

	if (c->root < 0)
		return;
	GROW(f->node_of, f->capspans, t->nspans);
	GROW(s->latency, s->cap, s->ntraces + 1);
	GROW(s->stream, s->capstream, s->ntraces + 1);
	GROW(s->off, s->capoff, s->ntraces + 2);
	s->off[s->ntraces] = s->nc;
	s->stream[s->ntraces] = !f->keep_streams && tr_span_is_stream(&t->spans[c->root]);
	s->nstreams += s->stream[s->ntraces];
	s->latency[s->ntraces++] = c->path_length;
	/* parents first on the path, and a critical span's parent is critical */
	for (size_t i = 0; i < c->npath; i++) {
		int32_t sp = c->path[i], p = t->spans[sp].parent;
		uint32_t n = flame_node(f->tree, p < 0 ? FLAME_TOP : f->node_of[p],
					t->spans[sp].service, t->spans[sp].operation);

		f->node_of[sp] = n;
		if (c->self[sp] <= 0)
			continue;
		GROW(s->c, s->capc, s->nc + 1);
		s->c[s->nc++] = (contrib){n, c->self[sp]};
	}
	s->off[s->ntraces] = s->nc;
}

void
cp_percentile_band(size_t n, int p, size_t *first, size_t *end)
{
	size_t lo = p > 1 ? (size_t)(p - 1) * n / 100 : 0;
	size_t hi = ((size_t)(p + 1) * n + 99) / 100;

	if (hi > n)
		hi = n;
	if (lo >= hi)	/* a few traces: the nearest-rank one */
		lo = hi ? hi - 1 : 0;
	*first = lo;
	*end = hi;
}

typedef struct by_latency {
	int64_t latency;
	size_t trace;
} by_latency;

static int
latency_cmp(const void *pa, const void *pb)
{
	const by_latency *a = pa, *b = pb;

	if (a->latency != b->latency)
		return a->latency < b->latency ? -1 : 1;
	return (a->trace > b->trace) - (a->trace < b->trace);
}

/* Sum into value[] (zeroed) what the traces of s around percentile p (0:
 * every trace) put in each node; returns how many traces that is. A band
 * ranks requests: long-lived streams are not among them. */
static size_t
sum_side(const side *s, int p, int64_t *value, size_t nnodes)
{
	size_t first = 0, end = s->ntraces, n = 0;
	by_latency *order = NULL;

	memset(value, 0, nnodes * sizeof *value);
	if (p > 0) {
		order = xmalloc((s->ntraces ? s->ntraces : 1) * sizeof *order);
		for (size_t i = 0; i < s->ntraces; i++)
			if (!s->stream[i])
				order[n++] = (by_latency){s->latency[i], i};
		qsort(order, n, sizeof *order, latency_cmp);
		cp_percentile_band(n, p, &first, &end);
	}
	for (size_t k = first; k < end; k++) {
		size_t tr = order ? order[k].trace : k;

		for (size_t j = s->off[tr]; j < s->off[tr + 1]; j++)
			value[s->c[j].node] = tr_dur_add(value[s->c[j].node], s->c[j].us, "--flame");
	}
	free(order);
	return end - first;
}

void
cp_flames_svg(cp_flames *f, strbuf *b, const int *pct, size_t npct, double width)
{
	size_t nn = flame_nnodes(f->tree), ngraphs = npct + 1;
	int have_base = f->side[1].ntraces > 0;
	int64_t *value = xmalloc((nn ? nn : 1) * ngraphs * sizeof *value);
	int64_t *base = xmalloc((nn ? nn : 1) * ngraphs * sizeof *base);
	flame_view *v = xcalloc(ngraphs, sizeof *v);
	char (*titles)[64] = xcalloc(ngraphs, sizeof *titles);
	double height = 0, y = 0;

	for (size_t g = 0; g < ngraphs; g++) {
		int p = g ? pct[g - 1] : 0;

		if (p)
			snprintf(titles[g], sizeof titles[g], "Critical path, traces around p%d", p);
		else
			snprintf(titles[g], sizeof titles[g], "Critical path, all traces");
		v[g].title = titles[g];
		v[g].value = value + g * nn;
		v[g].ntraces = sum_side(&f->side[0], p, value + g * nn, nn);
		if (have_base) {
			v[g].base = base + g * nn;
			v[g].nbase = sum_side(&f->side[1], p, base + g * nn, nn);
		}
		height += flame_height(f->tree, &v[g]);
	}
	svg_begin(b, width, height, have_base ? "Differential critical-path flame graph" :
		  "Critical-path flame graph");
	for (size_t g = 0; g < ngraphs; g++) {
		flame_draw(b, f->tree, &v[g], width, y);
		y += flame_height(f->tree, &v[g]);
	}
	svg_end(b);
	free(value);
	free(base);
	free(v);
	free(titles);
}

int
cp_percentiles_parse(const char *s, int *pct, size_t max)
{
	size_t n = 0;

	while (*s) {
		char *end;
		long v;

		errno = 0;
		v = strtol(s, &end, 10);
		if (errno || end == s || v < 1 || v > 100 || n == max || (*end && *end != ','))
			return -1;
		pct[n++] = (int)v;
		s = *end ? end + 1 : end;
		if (*end && !*s)
			return -1;	/* a trailing comma */
	}
	return n ? (int)n : -1;
}
