/* temporal.c - the window of traces around each queried one.
 *
 * Blockers live in other traces, so a trace is analysed only once `half`
 * traces after it are buffered, and a trace stays buffered until every trace
 * within `half` of it was analysed: at most window + 2 traces in memory.
 * Output keeps the input order: traceless lines wait behind the traces read
 * before them. */
#include "temporal_impl.h"
#include "exports.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "draw/dot.h"
#include "filter.h"
#include "core/pick.h"
#include "core/halo.h"
#include "infer/hb.h"

static size_t
half_window(const temporal *tp)
{
	return tp->o.window / 2;
}

temporal *
tp_new(const tp_opts *o)
{
	temporal *tp = xcalloc(1, sizeof *tp);

	tp->o = *o;
	tp->ringcap = 2 * half_window(tp) + 2;
	tp->ring = xcalloc(tp->ringcap, sizeof *tp->ring);
	tr_keywatch_init(&tp->rkey, o->resource_key);
	if (!(tp->hb = hb_new(o->name)))
		tr_usage_error("--name: not a list of service, operation, kind, host, tag:KEY: %s", o->name);
	if (o->model && hb_load(tp->hb, o->model) < 0)
		exit(TR_EXIT_INPUT);	/* said, file:line; nothing written yet */
	return tp;
}

static wtrace *
take_wtrace(temporal *tp)
{
	if (tp->nspare)
		return tp->spare[--tp->nspare];
	return xcalloc(1, sizeof(wtrace));
}

/* The id map names only buffered traces: rebuilt as the window moves on, so
 * that it never holds a key of an evicted trace for long. */
static void
index_id(temporal *tp, wtrace *w)
{
	int added;

	if (w->serial >= tp->ids_built + tp->ringcap) {
		strmap_clear(&tp->ids);
		arena_reset(&tp->ids_mem);
		tp->ids_built = w->serial;
		for (uint64_t s = tp->oldest; s < w->serial; s++) {
			wtrace *o = tp->ring[s % tp->ringcap];

			if (!o || o->serial != s)
				continue;
			const char *k = arena_strndup(&tp->ids_mem, o->t.trace_id, strlen(o->t.trace_id));
			strmap_put(&tp->ids, k, strlen(k), &added)->val = (int64_t)s;
		}
	}
	const char *k = arena_strndup(&tp->ids_mem, w->t.trace_id, strlen(w->t.trace_id));
	strmap_put(&tp->ids, k, strlen(k), &added)->val = (int64_t)w->serial;
}

static void
evict_before(temporal *tp, uint64_t serial)
{
	while (tp->oldest < serial && tp->oldest < tp->next_serial) {
		wtrace *w = tp->ring[tp->oldest % tp->ringcap];

		tp->ring[tp->oldest % tp->ringcap] = NULL;
		tp->oldest++;
		if (!w)
			continue;
		tr_trace_reset(&w->t);
		GROW(tp->spare, tp->capspare, tp->nspare + 1);
		tp->spare[tp->nspare++] = w;
	}
}

static int
queried(const temporal *tp, const wtrace *w)
{
	return !tp->o.pick || tr_pick_match(tp->o.pick, w->t.trace_id);
}

static void
emit(temporal *tp, wtrace *w, strbuf *out)
{
	if (tr_trace_is_halo(&w->t))	/* its shard's neighbour writes it */
		return;
	int analysed = queried(tp, w);

	tp->st.queried += analysed;

	if (analysed && tp->o.from) {
		if (!(analysed = tpe_annotate(tp, w) == 0))
			tpe_missed(tp, w);
	} else if (analysed && tp->o.span) {
		if (tpq_span(tp, w) >= 0)
			tp->st.span_found++;
		else
			analysed = 0;	/* --span: not this trace's */
	}
	if (analysed && !tp->o.from && tpq_annotate(tp, w, tpq_span(tp, w)) < 0) {
		analysed = 0;
		tp->st.skipped++;
		if (!tp->o.quiet && tp->o.span)
			tr_trace_warn(&w->t, "span %s has no time: not analysed", tp->o.span);
		else if (!tp->o.quiet && w->t.nspans)
			tr_trace_warn(&w->t, "its root span has no time: not analysed");
		else if (!tp->o.quiet)
			tr_trace_warn(&w->t, "it has no span: not analysed");
	}
	if (analysed) {
		tp->st.analysed++;
		tp->st.violations += tp->violations;
		if (tp->o.on_link)
			tpl_emit(tp, w);
	}
	switch (tp->o.format) {
	case TP_LINE:
		tpr_write_line(tp, w, analysed, out);
		break;
	case TP_EXPLAIN:
		if (analysed)
			tpr_write_explain(tp, w, out);
		break;
	case TP_DOT:
		if (analysed)
			tpr_write_dot(tp, w, out);
		break;
	case TP_CSV:
	case TP_JSON:
		if (analysed)
			tpr_write_causes(tp, w, out);
		break;
	}
}

/* Write what is ready: lines, and traces with `half` traces after them. */
static void
drain(temporal *tp, strbuf *out, int at_end)
{
	size_t half = half_window(tp);

	while (tp->pend_head < tp->npend) {
		tp_pending *p = &tp->pend[tp->pend_head];

		if (!p->w) {
			if (tp->o.format == TP_LINE) {
				sb_add(out, p->line, p->len);
				sb_addc(out, '\n');
			}
			free(p->line);
			tp->pend_head++;
			continue;
		}
		if (!at_end && p->w->serial + half >= tp->next_serial)
			break;
		uint64_t serial = p->w->serial;
		emit(tp, p->w, out);
		tp->pend_head++;
		if (serial + 1 > half)
			evict_before(tp, serial + 1 - half);
	}
	if (tp->pend_head == tp->npend)
		tp->pend_head = tp->npend = 0;
	else if (tp->pend_head > 1024 && tp->pend_head * 2 > tp->npend) {
		memmove(tp->pend, tp->pend + tp->pend_head,
			(tp->npend - tp->pend_head) * sizeof *tp->pend);
		tp->npend -= tp->pend_head;
		tp->pend_head = 0;
	}
}

static void
pend(temporal *tp, wtrace *w, const char *line, size_t len)
{
	GROW(tp->pend, tp->cappend, tp->npend + 1);
	tp_pending *p = &tp->pend[tp->npend++];
	p->w = w;
	p->line = NULL;
	p->len = len;
	if (!w) {
		p->line = xmalloc(len + 1);
		memcpy(p->line, line, len);
		p->line[len] = '\0';
	}
}

/* A shard's answers equal one pass's only when each own trace has the
 * traces one pass would have put in its window (half of it on each side):
 * a halo run shorter than that, before the first own trace or after the
 * last, is said. (A halo of none, or a first or last shard's missing side,
 * cannot be told from an input that starts or ends there.) */
static void
note_halo(temporal *tp, const tr_trace *t, int at_end)
{
	size_t half = tp->o.window / 2;

	if (!at_end && tr_trace_is_halo(t)) {
		tp->halo_run++;
		return;
	}
	if (tp->halo_run && tp->halo_run < half && (at_end ? tp->own_seen : !tp->own_seen)) {
		tp->st.halo_short++;
		if (at_end)
			tr_trace_warn(t, "a halo of %zu traces after the shard's own is less than "
				      "half the window (-w %zu): the traces near the cut may be "
				      "explained otherwise than in one pass", tp->halo_run, tp->o.window);
		else
			tr_trace_warn(t, "a halo of %zu traces before the shard's own is less than "
				      "half the window (-w %zu): the traces near the cut may be "
				      "explained otherwise than in one pass", tp->halo_run, tp->o.window);
	}
	if (!at_end) {
		tp->own_seen = 1;
		tp->halo_run = 0;
	}
}

void
tp_add_trace(temporal *tp, tr_trace *t, strbuf *out)
{
	wtrace *w = take_wtrace(tp);

	/* the reader's trace is only valid until its next call: take it whole
	 * (no copy, no second parse) and give it this slot's old memory */
	w->t.files = t->files;
	tr_trace_swap(&w->t, t);
	note_halo(tp, &w->t, 0);
	w->serial = tp->next_serial++;
	tp->ring[w->serial % tp->ringcap] = w;
	index_id(tp, w);
	tpg_build(tp, w);
	tpg_insert(tp, w);
	tpl_index(tp, w);
	tp->st.traces++;
	pend(tp, w, NULL, 0);
	drain(tp, out, 0);
}

void
tp_add_line(temporal *tp, const char *line, size_t len, strbuf *out)
{
	pend(tp, NULL, line, len);
	drain(tp, out, 0);
}

void
tp_finish(temporal *tp, strbuf *out)
{
	if (tp->next_serial > tp->oldest && tp->ring[(tp->next_serial - 1) % tp->ringcap])
		note_halo(tp, &tp->ring[(tp->next_serial - 1) % tp->ringcap]->t, 1);
	drain(tp, out, 1);
	if (tp->o.format == TP_CSV || tp->o.format == TP_JSON)
		tpr_end_causes(tp, out);
	if (tp->o.format == TP_DOT) {
		strbuf head = {0};

		dot_begin(&head, "temporal provenance", "TB");
		sb_add(&head, out->s ? out->s : "", out->len);
		dot_end(&head);
		sb_clear(out);
		sb_add(out, head.s, head.len);
		sb_free(&head);
	}
}

const tp_stats *
tp_stats_get(const temporal *tp)
{
	return &tp->st;
}

static void
free_wtrace(wtrace *w)
{
	tr_trace_free(&w->t);
	free(w->v);
	free(w->pre);
	free(w->exts);
	free(w);
}

void
tp_free(temporal *tp)
{
	if (!tp)
		return;
	hb_free(tp->hb);
	for (size_t i = 0; i < tp->ringcap; i++)
		if (tp->ring[i])
			free_wtrace(tp->ring[i]);
	for (size_t i = 0; i < tp->nspare; i++)
		free_wtrace(tp->spare[i]);
	for (size_t i = tp->pend_head; i < tp->npend; i++)
		free(tp->pend[i].line);
	for (size_t i = 0; i < tp->nres; i++) {
		free(tp->res[i].e);
		free(tp->res[i].free_at);
		free(tp->res[i].last);
	}
	free(tp->res);
	tr_keywatch_free(&tp->rkey);
	free(tp->ring);
	free(tp->spare);
	free(tp->pend);
	free(tp->tasks);
	free(tp->causes);
	free(tp->span_delay);
	free(tp->ev_near[0]);
	free(tp->ev_near[1]);
	sb_free(&tp->text);
	strmap_free(&tp->res_ids);
	strmap_free(&tp->ids);
	strmap_free(&tp->cause_ids);
	tpl_free(tp);
	arena_free(&tp->mem);
	arena_free(&tp->build_mem);
	arena_free(&tp->ids_mem);
	arena_free(&tp->qmem);
	free(tp);
}

void
tp_capacity_option(tp_opts *o, tp_capacity *caps, char *arg)
{
	char *eq = strrchr(arg, '=');

	if (!eq || eq == arg)
		tr_usage_error("--capacity: not RESOURCE=K: %s", arg);
	*eq = '\0';
	caps[o->ncaps].resource = arg;
	caps[o->ncaps++].workers = (int)tr_arg_count("--capacity", eq + 1, 1, INT_MAX);
}

/* --check with nothing checked fails: a verdict on no trace is no verdict. */
int
tp_check_empty(const tp_stats *st)
{
	if (!st->traces)
		tr_warn("--check: no trace was read: nothing checked (--allow-empty lets it pass)");
	else
		tr_warn("--check: none of the %zu traces read was analysed (no timed root, or none "
			"queried with -t): nothing checked (--allow-empty lets it pass)", st->traces);
	return TR_EXIT_FINDING;
}

void
tp_report_clocks(const tr_clock *c)
{
	size_t hosts = 0, moved = 0;

	for (size_t i = 0; c && i < tr_clock_nhosts(c); i++) {
		tr_clock_host h;

		tr_clock_host_get(c, i, &h);
		hosts++;
		if (h.offset)
			moved++;
		if (h.offset && strcmp(h.host, h.reference) == 0)	/* read, not estimated */
			tr_warn("clock of %s: %+.3f ms, from %zu RPCs", h.host, (double)h.offset / 1000.0,
				h.rpcs);
		else if (h.offset)
			tr_warn("clock of %s: %+.3f ms against %s, from %zu RPCs", h.host,
				(double)h.offset / 1000.0, h.reference, h.rpcs);
		if (h.disagreeing)
			tr_warn("clock of %s: %zu RPCs disagree (transit varies, or a clock drifts)",
				h.host, h.disagreeing);
	}
	if (hosts)
		tr_warn("clock offsets: %zu of the %zu hosts in RPCs moved", moved, hosts);
}

size_t
tp_unknown_capacities(const temporal *tp)
{
	size_t bad = 0;
	const char **names = xcalloc(tp->nres + 1, sizeof *names);

	for (size_t i = 0; i < tp->nres; i++)
		names[i] = tp->res[i].name;
	for (size_t c = 0; c < tp->o.ncaps; c++) {
		const char *name = tp->o.caps[c].resource, *near;

		if (strmap_get(&tp->res_ids, name, strlen(name)))
			continue;
		bad++;
		if ((near = closest_name(name, names, tp->nres)))
			tr_warn("-c %s: no span uses a resource %s (did you mean %s?)", name, name, near);
		else
			tr_warn("-c %s: no span uses a resource %s", name, name);
	}
	free(names);
	return bad;
}

int
tp_resource_key_missing(const temporal *tp)
{
	return tp->o.resource_key && tp->st.analysed && tr_keywatch_missing(&tp->rkey, "-r", NULL, 0);
}

void
tp_report_overlaps(temporal *tp)
{
	for (size_t i = 0; i < tp->nres; i++) {
		size_t n = tpg_overlaps(tp, i);

		if (n)
			tr_warn("capacity exceeded on %s: %zu segments found every worker busy",
				tp->res[i].name, n);
	}
}

/* ---------- the callbacks of tr_filter ---------- */

/* Where the analysis writes: the loop's buffer, or the job's own for a
 * DOT graph, which is written whole at the end inside its braces. */
static strbuf *
job_out(tp_job *j, strbuf *out)
{
	if (j->o.format == TP_LINE && !j->header) {
		sb_adds(out, TR_FORMAT_HEADER "\n");
		j->header = 1;
	}
	return j->o.format == TP_DOT ? &j->held : out;
}

static int
job_trace(void *ctx, tr_trace *t, strbuf *out)
{
	tp_job *j = ctx;

	if ((j->tp->hb_bound = hb_bind(j->tp->hb, t)) < 0) {
		j->tp->hb_bound = 0;
		return -1;	/* an IE record names no span of t: said */
	}
	tp_add_trace(j->tp, t, job_out(j, out));
	j->tp->hb_bound = 0;
	return 0;
}

static void
job_line(void *ctx, const char *line, size_t len, const char *where, strbuf *out)
{
	tp_job *j = ctx;

	(void)where;
	tp_add_line(j->tp, line, len, job_out(j, out));
}

static void
job_end(void *ctx, tr_output *out)
{
	tp_job *j = ctx;
	strbuf *b = job_out(j, &j->held);

	tp_finish(j->tp, b);
	tr_output_sb(out, b);
	sb_clear(b);
}

/* The first pass: every host's clock offset, the loop's (estimated, or
 * read), before the analysis. */
static void
job_clocks(void *ctx, const tr_filter *f, char **files, int nfiles, char *const *names)
{
	tp_job *j = ctx;

	(void)files, (void)nfiles, (void)names;
	j->clock = tr_filter_clock(f);
	j->tp->o.clock = j->clock;
}

void
tp_job_init(tp_job *j, tr_filter *f, const tp_opts *o, const char *clock_offsets)
{
	memset(j, 0, sizeof *j);
	j->o = *o;
	j->tp = tp_new(o);
	f->on_trace = job_trace;
	f->on_line = job_line;
	f->on_end = job_end;
	f->end_on_stop = 1;	/* what was read before is still analysed and written */
	f->read_ahead = 1;
	f->allow_empty = o->allow_empty;
	f->quiet = o->quiet;
	f->first_pass = clock_offsets ? job_clocks : NULL;
	f->clock_offsets = clock_offsets;
	f->clock_by_tool = 1;
	f->ctx = j;
	if (f->where && o->pick)	/* a --trace id may be in the input, not kept */
		tr_pick_filtered(o->pick, "--where");
}

int
tp_model_verdict(const temporal *tp, int status, int verbose)
{
	hb_counts k;
	const char *path = hb_model_path(tp->hb), *shown = path ? path : "(none)";

	hb_get_counts(tp->hb, &k);
	if (path && k.traces_model && !k.model_matched) {
		tr_warn("--model %s: no span of the input is named as the model's events (its first: "
			"\"%s\"; the closest span name: \"%s\"; --name gives the fields)",
			path, k.model_first ? k.model_first : "", k.closest ? k.closest : "");
		return status == TR_EXIT_OK || status == TR_EXIT_FINDING ? TR_EXIT_USAGE : status;
	}
	if ((k.traces_ie || k.traces_model) && (verbose || (tp->nkids_guess && !tp->o.quiet)))
		tr_warn("happens-before edges: %zu traces by their IE records, %zu by --model %s: "
			"%zu children waited for their model predecessors, %zu the edges do not name "
			"kept the timing guess", k.traces_ie, k.traces_model, shown,
			tp->nkids_model, tp->nkids_guess);
	return status;
}

void
tp_job_free(tp_job *j)
{
	tp_free(j->tp);
	sb_free(&j->held);
}
