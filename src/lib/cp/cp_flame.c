/* cp_flame.c - critical-path flame graphs over many traces. Each trace's
 * critical spans become nodes of one calling-context tree (shared with the
 * baseline, so that the two compare node by node); what each trace put in
 * each node is kept, a few bytes per critical span, so that the traces
 * around a percentile can be summed once every latency is known. */
#include "cp/cp_flame.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "core/partial.h"
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
	flame *itree;		/* --baseline's --partial and --merge: the incident's
				 * own tree until drawn (cp_flames_apart) */
	side side[2];		/* 0: incident, 1: baseline */
	int keep_streams;	/* streams rank in the percentile bands too */
	uint32_t *node_of;	/* per span of the current trace */
	size_t capspans;
	size_t ngraphs;		/* --partial, --merge: every trace's, then one per band */
	uint32_t *band[2];	/* per side, per trace: its bands (--bands) */
	size_t capband[2];
	int64_t *merged[2];	/* --merge, per side: per node and graph, the partials' sums */
	size_t capmerged[2];	/* nodes */
	size_t merged_traces[2][17];	/* per side and graph */
	uint32_t *local;	/* --merge: the current partial's nodes */
	size_t nlocal, caplocal;
	int cur;		/* --merge, sides apart: the side of the current section;
				 * -1 before a partial's baseline section */
};

cp_flames *
cp_flames_new(void)
{
	cp_flames *f = xcalloc(1, sizeof *f);

	f->tree = flame_new();
	f->ngraphs = 1;
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
	flame_free(f->itree);
	free(f->node_of);
	free(f->merged[0]);
	free(f->merged[1]);
	free(f->local);
	free(f->band[0]);
	free(f->band[1]);
	free(f);
}

size_t
cp_flames_ntraces(const cp_flames *f, int baseline)
{
	return f->side[baseline != 0].ntraces + f->merged_traces[baseline != 0][0];
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
	flame *tree = baseline || !f->itree ? f->tree : f->itree;

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
		uint32_t n = flame_node(tree, p < 0 ? FLAME_TOP : f->node_of[p],
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

/* The partials' sums of side sd's graph g (--merge) into value[]; how
 * many traces they hold. */
static size_t
add_merged(const cp_flames *f, int sd, size_t g, int64_t *value, size_t nnodes)
{
	for (size_t i = 0; i < nnodes && i < f->capmerged[sd]; i++)
		value[i] = tr_dur_add(value[i], f->merged[sd][i * f->ngraphs + g], "--flame");
	return f->merged_traces[sd][g];
}

/* The incident's own tree (cp_flames_apart) into the baseline's: its
 * frames the baseline has not are made after the baseline's, in the order
 * the incident met them, as one pass over the baseline and then the
 * incident makes them; the incident's sums follow its frames. */
static void
join_sides(cp_flames *f)
{
	size_t n = flame_nnodes(f->itree), ng = f->ngraphs, nn;
	uint32_t *to = xmalloc((n ? n : 1) * sizeof *to);
	side *s = &f->side[0];

	for (uint32_t i = 0; i < n; i++) {
		const char *svc, *op;
		uint32_t p = flame_node_frame(f->itree, i, &svc, &op);

		to[i] = flame_node(f->tree, p == FLAME_TOP ? FLAME_TOP : to[p], svc, op);
	}
	for (size_t j = 0; j < s->nc; j++)
		s->c[j].node = to[s->c[j].node];
	nn = flame_nnodes(f->tree);
	if (f->merged[0]) {
		int64_t *m = xcalloc((nn ? nn : 1) * ng, sizeof *m);

		for (size_t i = 0; i < n && i < f->capmerged[0]; i++)
			memcpy(m + (size_t)to[i] * ng, f->merged[0] + i * ng, ng * sizeof *m);
		free(f->merged[0]);
		f->merged[0] = m;
		f->capmerged[0] = nn;
	}
	flame_free(f->itree);
	f->itree = NULL;
	free(to);
}

void
cp_flames_svg(cp_flames *f, strbuf *b, const int *pct, size_t npct, double width)
{
	size_t nn, ngraphs = npct + 1;
	int have_base = cp_flames_ntraces(f, 1) > 0;
	int64_t *value, *base;
	flame_view *v = xcalloc(ngraphs, sizeof *v);
	char (*titles)[64] = xcalloc(ngraphs, sizeof *titles);
	double height = 0, y = 0;

	if (f->itree)
		join_sides(f);
	nn = flame_nnodes(f->tree);
	value = xmalloc((nn ? nn : 1) * ngraphs * sizeof *value);
	base = xmalloc((nn ? nn : 1) * ngraphs * sizeof *base);
	for (size_t g = 0; g < ngraphs; g++) {
		int p = g ? pct[g - 1] : 0;

		if (p)
			snprintf(titles[g], sizeof titles[g], "Critical path, traces around p%d", p);
		else
			snprintf(titles[g], sizeof titles[g], "Critical path, all traces");
		v[g].title = titles[g];
		v[g].value = value + g * nn;
		v[g].ntraces = sum_side(&f->side[0], p, value + g * nn, nn);
		if (g < f->ngraphs)
			v[g].ntraces += add_merged(f, 0, g, value + g * nn, nn);
		if (have_base) {
			v[g].base = base + g * nn;
			v[g].nbase = sum_side(&f->side[1], p, base + g * nn, nn);
			if (g < f->ngraphs)
				v[g].nbase += add_merged(f, 1, g, base + g * nn, nn);
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

/* --- --partial and --merge (the graph of every trace) ---
 *
 * A partial is the calling-context tree with each node's critical-path µs
 * summed over its traces: a T record with the count of traces, then an N
 * record per node in the order they were made (parents first): its
 * parent's index in the partial ("-" for a root frame), service,
 * operation (escaped) and µs. A merge makes the nodes in the order of its
 * partials, so the graph is that of one pass over the shards one after
 * the other. Against a baseline (cp_flames_apart), a partial holds two
 * such sections, each T record naming its side: the baseline's tree (T 1)
 * then the incident's (T 0); a merge builds each side's tree apart, and
 * draws the baseline's frames first, then the incident's others, as one
 * pass over the baseline's shards and then the incident's makes them. */

void
cp_flames_set_graphs(cp_flames *f, size_t ngraphs)
{
	f->ngraphs = ngraphs;
}

void
cp_flames_apart(cp_flames *f)
{
	if (!f->itree)
		f->itree = flame_new();
	f->cur = -1;
}

void
cp_flames_set_band(cp_flames *f, int baseline, uint32_t bands)
{
	int sd = baseline != 0;
	side *s = &f->side[sd];

	if (!s->ntraces)
		return;
	GROW(f->band[sd], f->capband[sd], s->ntraces);
	f->band[sd][s->ntraces - 1] = bands;
}

/* Sum into value[] (zeroed) what the traces of side sd in band bit put in
 * each node (bit < 0: every trace); how many traces that is. */
static size_t
sum_band(const cp_flames *f, int sd, int bit, int64_t *value, size_t nnodes)
{
	const side *s = &f->side[sd];
	size_t n = 0;

	if (bit < 0)
		return sum_side(s, 0, value, nnodes);
	memset(value, 0, nnodes * sizeof *value);
	for (size_t tr = 0; tr < s->ntraces && tr < f->capband[sd]; tr++) {
		if (!(f->band[sd][tr] >> bit & 1))
			continue;
		n++;
		for (size_t j = s->off[tr]; j < s->off[tr + 1]; j++)
			value[s->c[j].node] = tr_dur_add(value[s->c[j].node], s->c[j].us, "--flame");
	}
	return n;
}

/* One side's section of a partial: its T record, an N record per node of
 * tree, each record's letter after prefix; how many records. */
static size_t
write_section(cp_flames *f, int sd, const flame *tree, strbuf *b, const char *prefix,
	      tr_output *out)
{
	size_t nn = flame_nnodes(tree), ng = f->ngraphs;
	int64_t *value = xmalloc((nn ? nn : 1) * ng * sizeof *value);

	sb_addf(b, "%sT", prefix);
	if (f->itree)
		sb_addf(b, "\t%d", sd);
	for (size_t g = 0; g < ng; g++)
		sb_addf(b, "\t%zu", sum_band(f, sd, (int)g - 1, value + g * nn, nn) +
				    add_merged(f, sd, g, value + g * nn, nn));
	sb_addc(b, '\n');
	for (uint32_t i = 0; i < nn; i++) {
		const char *svc, *op;
		uint32_t p = flame_node_frame(tree, i, &svc, &op);

		if (p == FLAME_TOP)
			sb_addf(b, "%sN\t-\t", prefix);
		else
			sb_addf(b, "%sN\t%u\t", prefix, p);
		tr_escapes(b, svc, 0);
		sb_addc(b, '\t');
		tr_escapes(b, op, 0);
		for (size_t g = 0; g < ng; g++)
			sb_addf(b, "\t%lld", (long long)value[g * nn + i]);
		sb_addc(b, '\n');
		if (out)
			tr_output_spill(out, b);
	}
	free(value);
	return 1 + nn;
}

size_t
cp_flames_write_records(cp_flames *f, strbuf *b, const char *prefix, tr_output *out)
{
	if (f->itree)
		return write_section(f, 1, f->tree, b, prefix, out) +
		       write_section(f, 0, f->itree, b, prefix, out);
	return write_section(f, 0, f->tree, b, prefix, out);
}

void
cp_flames_write_partial(cp_flames *f, const char *made_for, tr_output *out)
{
	strbuf b = {0};
	size_t n;

	tr_partial_header(&b, "cp", made_for);
	n = cp_flames_write_records(f, &b, "", out);
	tr_partial_end(&b, n);
	tr_output_sb(out, &b);
	sb_free(&b);
}

/* A decimal count >= 0 filling a field; -1 when it is not one. */
static int
count_field(const tr_field *fl, long long *v)
{
	uint64_t n;

	if (tr_field_count(fl, INT64_MAX, &n) < 0)
		return -1;
	*v = (long long)n;
	return 0;
}

/* An N record: the node under its parent in its side's tree, its µs per
 * graph added. */
static int
merge_node(cp_flames *f, tr_field *fl, char *err, size_t errlen)
{
	long long parent = -1, us[17];
	size_t ng = f->ngraphs;
	int sd = f->itree ? f->cur : 0;
	uint32_t n;

	if (sd < 0) {
		snprintf(err, errlen, "a node before its side's T record");
		return -1;
	}
	if ((fl[1].len != 1 || fl[1].s[0] != '-') &&
	    (count_field(&fl[1], &parent) < 0 || (size_t)parent >= f->nlocal)) {
		snprintf(err, errlen, "bad parent (want - or the index of an earlier node)");
		return -1;
	}
	for (size_t g = 0; g < ng; g++)
		if (count_field(&fl[4 + g], &us[g]) < 0) {
			snprintf(err, errlen, "bad critical-path time (want a count of µs)");
			return -1;
		}
	for (int k = 2; k <= 3; k++)
		((char *)fl[k].s)[tr_unescape((char *)fl[k].s, fl[k].s, fl[k].len)] = '\0';
	n = flame_node(sd == 0 && f->itree ? f->itree : f->tree, parent < 0 ? FLAME_TOP : f->local[parent],
		       fl[2].s, fl[3].s);
	GROW(f->local, f->caplocal, f->nlocal + 1);
	f->local[f->nlocal++] = n;
	if (n >= f->capmerged[sd]) {
		size_t was = f->capmerged[sd], cap = 2 * ((size_t)n + 1);

		f->merged[sd] = xrealloc(f->merged[sd], cap * ng * sizeof *f->merged[sd]);
		memset(f->merged[sd] + was * ng, 0, (cap - was) * ng * sizeof *f->merged[sd]);
		f->capmerged[sd] = cap;
	}
	for (size_t g = 0; g < ng; g++)
		if (__builtin_add_overflow(f->merged[sd][n * ng + g], (int64_t)us[g], &f->merged[sd][n * ng + g])) {
			snprintf(err, errlen, "the node's total overflows 64 bits");
			return -1;
		}
	return 0;
}

/* A T record, its side first when the sides are apart: each partial holds
 * the baseline's section, then the incident's. */
static int
merge_counts(cp_flames *f, tr_field *fl, char *err, size_t errlen)
{
	size_t ng = f->ngraphs;
	int sd = 0;
	long long ntraces;

	if (f->itree) {
		sd = fl[1].len == 1 && (fl[1].s[0] == '0' || fl[1].s[0] == '1') ? fl[1].s[0] - '0' : -1;
		if (sd < 0 || (sd == 0) != (f->cur == 1)) {
			snprintf(err, errlen, "the sides mixed up (want T 1, the baseline's tree, then "
				 "T 0, the incident's, in each partial)");
			return -1;
		}
		f->cur = sd;
		fl++;
	}
	for (size_t g = 0; g < ng; g++) {
		if (count_field(&fl[1 + g], &ntraces) < 0) {
			snprintf(err, errlen, "bad count of traces");
			return -1;
		}
		f->merged_traces[sd][g] += (size_t)ntraces;
	}
	f->nlocal = 0;	/* a section's first record: its nodes are numbered from 0 */
	return 0;
}

int
cp_flames_merge_line(cp_flames *f, char *line, size_t len, char *err, size_t errlen)
{
	tr_field fl[23];
	size_t n = tr_split(line, len, fl, 23), ng = f->ngraphs, apart = f->itree != NULL;

	if (n == 1 + apart + ng && fl[0].len == 1 && line[0] == 'T')
		return merge_counts(f, fl, err, errlen);
	if (n == 4 + ng && fl[0].len == 1 && line[0] == 'N')
		return merge_node(f, fl, err, errlen);
	if (apart)
		snprintf(err, errlen, "not a tr-cp --flame --baseline partial record (want T, 0 or 1 "
			 "and a count per graph, or N, 3 fields and a time per graph)");
	else
		snprintf(err, errlen, "not a tr-cp --flame partial record (want T and a count per graph, "
			 "or N, 3 fields and a time per graph)");
	return -1;
}

int
cp_flames_merged_whole(const cp_flames *f)
{
	return f->itree && f->cur == 1 ? -1 : 0;
}
