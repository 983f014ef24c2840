/* temporal_diff.c - differential provenance (tr-temporal --baseline): what
 * delayed the incident's slow requests that did not delay the baseline's.
 *
 * One request is an anecdote; the slow band of each root operation (the
 * requests at or above a percentile of its latency, in each window alike)
 * is what an incident is about. A first pass finds each window's band per
 * root operation; a second explains the band's requests (the same
 * analysis as -f csv, windows of other traces included) and sums each
 * cause's delay; the table compares the sums per request. Only operations
 * both windows served are compared: a request the baseline never served
 * has nothing to be compared with. */
#include "temporal_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "core/pick.h"
#include "core/table.h"

enum { INC = 0, BASE = 1 };

typedef struct request {
	const char *id;
	int32_t op;
	int64_t duration;
} request;

typedef struct diff_cause {
	const char *cause, *role;
	double self[2];
	size_t requests[2];
	const char *examples[3];	/* incident traces it delayed */
	size_t nexamples;
} diff_cause;

typedef struct tp_diff {
	arena mem;
	strbuf key;
	strmap ops;
	size_t nops;
	request *req[2];
	size_t nreq[2], capreq[2];
	tr_pick *pick[2];
	size_t selected[2];
	strmap causes_map;
	diff_cause *c;
	size_t nc, capc;
	int side;
	const char *last_trace;	/* of the rows so far: one request each */
	size_t analysed[2];
	double latency[2];	/* the band's requests, summed */
} tp_diff;

static int32_t
op_of(tp_diff *d, const tr_span *root, int add)
{
	strmap_slot *s;
	int added;

	sb_set_pair(&d->key, root->service, root->operation);
	if (!add)
		return (s = strmap_get(&d->ops, d->key.s, d->key.len)) ? (int32_t)s->val : -1;
	s = strmap_intern(&d->ops, &d->mem, d->key.s, d->key.len, &added);
	if (added)
		d->nops++;
	return (int32_t)s->val;
}

static void
take_request(tp_diff *d, int side, const tr_trace *t)
{
	const tr_span *root;

	if (!t->nroots || !((root = &t->spans[t->roots[0]])->flags & TR_SPAN_HAS_TIME))
		return;
	GROW(d->req[side], d->capreq[side], d->nreq[side] + 1);
	d->req[side][d->nreq[side]++] = (request){arena_strndup(&d->mem, t->trace_id, strlen(t->trace_id)),
						  op_of(d, root, 1), root->duration};
}

static void
take_incident(void *ctx, tr_trace *t)
{
	take_request(ctx, INC, t);
}

static void
take_baseline(void *ctx, tr_trace *t)
{
	take_request(ctx, BASE, t);
}

/* Requests by operation, then latency: each operation's run is sorted. */
static int
request_cmp(const void *pa, const void *pb)
{
	const request *a = pa, *b = pb;

	if (a->op != b->op)
		return a->op < b->op ? -1 : 1;
	return (a->duration > b->duration) - (a->duration < b->duration);
}

/* Where each operation's run of requests begins on a side sorted by
 * request_cmp: from[op] .. from[op + 1]. */
static void
runs(const tp_diff *d, int side, size_t *from)
{
	size_t i = 0;

	for (size_t op = 0; op <= d->nops; op++) {
		while (i < d->nreq[side] && (size_t)d->req[side][i].op < op)
			i++;
		from[op] = i;
	}
}

/* Pick each side's requests at or above the band-th percentile (nearest
 * rank) of their operation's latencies on that side, for the operations
 * both sides served: one sort a side, then one walk. */
static void
select_bands(tp_diff *d, double band)
{
	size_t *from[2];

	for (int side = 0; side < 2; side++) {
		d->pick[side] = tr_pick_new();
		if (d->nreq[side])	/* qsort takes no NULL, even for nothing */
			qsort(d->req[side], d->nreq[side], sizeof *d->req[side], request_cmp);
		from[side] = xcalloc(d->nops + 1, sizeof *from[side]);
		runs(d, side, from[side]);
	}
	for (size_t op = 0; op < d->nops; op++) {
		size_t n[2] = {from[0][op + 1] - from[0][op], from[1][op + 1] - from[1][op]};

		if (!n[0] || !n[1])
			continue;
		for (int side = 0; side < 2; side++) {
			size_t rank = (size_t)ceil(band / 100 * (double)n[side]);
			const request *q = d->req[side] + from[side][op];
			int64_t cut = q[rank ? rank - 1 : 0].duration;

			for (size_t i = 0; i < n[side]; i++)
				if (q[i].duration >= cut) {
					tr_pick_add(d->pick[side], q[i].id);
					d->selected[side]++;
				}
		}
	}
	free(from[0]);
	free(from[1]);
}

static void
on_cause(void *ctx, const tp_cause_row *row)
{
	tp_diff *d = ctx;
	int side = d->side, added;
	strmap_slot *s;
	diff_cause *c;

	if (d->last_trace != row->trace_id) {	/* rows of one trace come together */
		d->last_trace = row->trace_id;
		d->analysed[side]++;
		d->latency[side] += (double)row->total;
	}
	sb_set_pair(&d->key, row->cause, row->role);
	s = strmap_intern(&d->causes_map, &d->mem, d->key.s, d->key.len, &added);
	if (added) {
		GROW(d->c, d->capc, d->nc + 1);
		d->c[d->nc++] = (diff_cause){.cause = s->key, .role = s->key + strlen(s->key) + 1};
	}
	c = &d->c[s->val];
	c->self[side] += (double)row->self;
	c->requests[side]++;
	if (side == INC && c->nexamples < 3)
		c->examples[c->nexamples++] = arena_strndup(&d->mem, row->trace_id, strlen(row->trace_id));
}

static double
per_request(const tp_diff *d, const diff_cause *c, int side)
{
	return d->analysed[side] ? c->self[side] / (double)d->analysed[side] : 0;
}

static int
cause_cmp_by(const tp_diff *d, const diff_cause *a, const diff_cause *b)
{
	double da = per_request(d, a, INC) - per_request(d, a, BASE);
	double db = per_request(d, b, INC) - per_request(d, b, BASE);
	int r;

	if (da != db)
		return da > db ? -1 : 1;
	if ((r = strcmp(a->cause, b->cause)))
		return r;
	return strcmp(a->role, b->role);
}

/* qsort has no context: the causes are sorted by insertion of indexes,
 * which stays short (a band's causes are few) and needs none. */
static void
sort_causes(const tp_diff *d, size_t *order)
{
	for (size_t i = 0; i < d->nc; i++) {
		size_t j = i;

		order[i] = i;
		while (j > 0 && cause_cmp_by(d, &d->c[order[j - 1]], &d->c[order[j]]) > 0) {
			size_t t = order[j - 1];

			order[j - 1] = order[j];
			order[j] = t;
			j--;
		}
	}
}

static const char *
change_of(const tp_diff *d, double before, double after)
{
	double noise = 0.01 * (d->analysed[INC] ? d->latency[INC] / (double)d->analysed[INC] : 0);

	if (before == 0 && after > 0)
		return "new";
	if (after == 0 && before > 0)
		return "gone";
	if (fabs(after - before) <= noise)
		return "same";
	return after > before ? "grew" : "shrank";
}

static void
write_table(const tp_diff *d, const tp_opts *o, strbuf *out)
{
	char cols_buf[3][32];
	const char *cols[9] = {"cause", "role", cols_buf[0], cols_buf[1], cols_buf[2], "change",
			       "requests_before", "requests_after", "traces"};
	int units = o->units < 0 ? TABLE_US : o->units;
	size_t *order = xcalloc(d->nc ? d->nc : 1, sizeof *order);
	table t;
	strbuf ex = {0};

	table_dur_col(cols_buf[0], sizeof cols_buf[0], "before_us", units);
	table_dur_col(cols_buf[1], sizeof cols_buf[1], "after_us", units);
	table_dur_col(cols_buf[2], sizeof cols_buf[2], "diff_us", units);
	table_begin(&t, out, o->format == TP_JSON ? TABLE_JSON : TABLE_CSV, units, cols, 9);
	sort_causes(d, order);
	for (size_t k = 0; k < d->nc; k++) {
		const diff_cause *c = &d->c[order[k]];
		double before = per_request(d, c, BASE), after = per_request(d, c, INC);

		table_str(&t, c->cause);
		table_str(&t, c->role);
		table_dur(&t, llround(before));
		table_dur(&t, llround(after));
		table_dur(&t, llround(after - before));
		table_str(&t, change_of(d, before, after));
		table_int(&t, (int64_t)c->requests[BASE]);
		table_int(&t, (int64_t)c->requests[INC]);
		sb_clear(&ex);
		for (size_t i = 0; i < c->nexamples; i++)
			sb_addf(&ex, "%s%s", i ? " " : "", c->examples[i]);
		table_str(&t, ex.len ? ex.s : "");
	}
	table_end(&t);
	sb_free(&ex);
	free(order);
}

/* A side's explanation answers: its input was good, it had requests to
 * explain, and -r and -c name what its spans have. */
typedef struct band_run {
	tp_job j;		/* first: the filter's ctx is both */
	int keep_going;
} band_run;

static int
band_verdict(void *ctx, const tr_filter_counts *c, int status)
{
	const band_run *b = ctx;
	const tp_job *j = &b->j;
	const tp_stats *st = tp_stats_get(j->tp);

	if (!c->bad && !status && !st->analysed && !j->o.allow_empty && st->queried) {
		tr_warn("%zu traces read, none analysed (no timed root): nothing to explain", st->traces);
		status = TR_EXIT_INPUT;
	}
	if (tp_resource_key_missing(j->tp) && status == TR_EXIT_OK)
		status = TR_EXIT_USAGE;
	if (tp_unknown_capacities(j->tp) && status == TR_EXIT_OK)
		status = TR_EXIT_USAGE;
	if (c->bad && b->keep_going)
		tr_warn("%zu traces read, %zu analysed, %zu without a timed root, %zu bad; %zu causes",
			st->traces + c->bad, st->analysed, st->skipped, c->bad, st->causes);
	return status;
}

/* The second pass over one side: its band's requests explained, the
 * causes to on_cause alone. */
static int
explain_band(tp_diff *d, int side, const tp_run_opts *r, const tp_opts *o, char **files, int nfiles)
{
	tr_filter f = {.files = files, .nfiles = nfiles, .keep_going = r->keep_going,
		       .max_spans = r->max_spans, .max_bytes = r->max_bytes};
	tp_opts oo = *o;
	band_run b = {.keep_going = r->keep_going};

	oo.format = TP_CSV;
	oo.pick = d->pick[side];
	oo.on_cause = on_cause;
	oo.cause_ctx = d;
	oo.quiet = 1;
	d->side = side;
	d->last_trace = NULL;
	tp_job_init(&b.j, &f, &oo, r->clock_offsets);
	f.verdict = band_verdict;
	int status = tr_filter_run(&f);

	tp_job_free(&b.j);
	return status;
}

static void
tp_diff_free(tp_diff *d)
{
	for (int side = 0; side < 2; side++) {
		free(d->req[side]);
		tr_pick_free(d->pick[side]);
	}
	free(d->c);
	strmap_free(&d->ops);
	strmap_free(&d->causes_map);
	sb_free(&d->key);
	arena_free(&d->mem);
}

/* One line for people: the bands compared, and the largest growth. */
static void
verdict(const tp_diff *d, const tp_opts *o, double band)
{
	const diff_cause *top = NULL;
	char a[40];

	for (size_t i = 0; i < d->nc; i++)
		if (!top || cause_cmp_by(d, &d->c[i], top) < 0)
			top = &d->c[i];
	if (o->quiet)
		return;
	if (!top || per_request(d, top, INC) <= per_request(d, top, BASE)) {
		tr_warn("--baseline: %zu slow requests (at or above p%g of their operation) against %zu "
			"of the baseline: no cause grew", d->analysed[INC], band, d->analysed[BASE]);
		return;
	}
	table_duration(a, sizeof a, llround(per_request(d, top, INC) - per_request(d, top, BASE)), TABLE_AUTO);
	tr_warn("--baseline: %zu slow requests (at or above p%g of their operation) against %zu of the "
		"baseline; the largest growth: %s (%s) +%s per request, e.g. in trace %s", d->analysed[INC],
		band, d->analysed[BASE], top->cause, top->role, a, top->nexamples ? top->examples[0] : "-");
}

static int
check_sides(const tp_diff *d, const char *baseline)
{
	if (!d->nreq[BASE]) {
		tr_warn("%s: --baseline: no trace with a timed root", baseline);
		return TR_EXIT_INPUT;
	}
	if (!d->nreq[INC]) {
		tr_warn("--baseline: no input trace with a timed root");
		return TR_EXIT_INPUT;
	}
	if (!d->selected[INC] || !d->selected[BASE]) {
		tr_warn("--baseline: the baseline and the inputs have no root operation in common");
		return TR_EXIT_INPUT;
	}
	return TR_EXIT_OK;
}

int
tp_diff_run(const tp_run_opts *r, const tp_opts *o, const char *baseline, double band)
{
	tp_diff d = {0};
	tr_inputs in = {0};
	char *base_files[1] = {(char *)baseline};
	int status;

	tr_inputs_twice(&in, r->files, r->nfiles);
	status = tr_each_trace(base_files, NULL, 1, r->keep_going, r->max_spans, r->max_bytes,
			       take_baseline, &d) < 0 ||
		 tr_each_trace(in.files, in.names, in.n, r->keep_going, r->max_spans, r->max_bytes,
			       take_incident, &d) < 0 ? TR_EXIT_INPUT : TR_EXIT_OK;
	if (status == TR_EXIT_OK) {
		select_bands(&d, band);
		status = check_sides(&d, baseline);
	}
	if (status == TR_EXIT_OK && (status = explain_band(&d, BASE, r, o, base_files, 1)) == TR_EXIT_OK)
		status = explain_band(&d, INC, r, o, in.files, in.n);
	if (status == TR_EXIT_OK) {
		strbuf b = {0};
		tr_output *out = tr_output_open(r->out_path, 0);

		write_table(&d, o, &b);
		tr_output_sb(out, &b);
		tr_output_close(out);
		sb_free(&b);
		verdict(&d, o, band);
	}
	tp_diff_free(&d);
	tr_inputs_free(&in);
	return status;
}
