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
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "draw/dot.h"
#include "core/pick.h"

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
	int analysed = queried(tp, w);

	tp->st.queried += analysed;

	if (analysed && tp->o.span) {
		if (tpq_span(tp, w) >= 0)
			tp->st.span_found++;
		else
			analysed = 0;	/* --span: not this trace's */
	}
	if (analysed && tpq_annotate(tp, w, tpq_span(tp, w)) < 0) {
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

void
tp_add_trace(temporal *tp, tr_trace *t, strbuf *out)
{
	wtrace *w = take_wtrace(tp);

	/* the reader's trace is only valid until its next call: take it whole
	 * (no copy, no second parse) and give it this slot's old memory */
	w->t.files = t->files;
	tr_trace_swap(&w->t, t);
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

/* --check with nothing checked fails: a verdict on no trace is no verdict. */
static int
check_empty(const tp_stats *st)
{
	if (!st->traces)
		tr_warn("--check: no trace was read: nothing checked (--allow-empty lets it pass)");
	else
		tr_warn("--check: none of the %zu traces read was analysed (no timed root, or none "
			"queried with -t): nothing checked (--allow-empty lets it pass)", st->traces);
	return TR_EXIT_FINDING;
}

/* The inputs: read twice when spool (the clock pass reads everything
 * before the analysis reads it again: tr_inputs_twice), else once as
 * given. */
static void
open_inputs(tr_inputs *in, const tp_run_opts *r, int spool)
{
	static char *dash[] = {"-"};

	if (spool) {
		tr_inputs_twice(in, r->files, r->nfiles);
		return;
	}
	in->n = r->nfiles ? r->nfiles : 1;
	in->files = xcalloc((size_t)in->n, sizeof *in->files);
	in->names = xcalloc((size_t)in->n, sizeof *in->names);
	in->spooled = xcalloc((size_t)in->n, sizeof *in->spooled);
	for (int i = 0; i < in->n; i++)
		in->files[i] = r->nfiles ? r->files[i] : dash[0];
}

static int
read_flags(const tp_run_opts *r, const tp_opts *o, int verbose)
{
	return (verbose ? TR_READ_VERBOSE : 0) | (r->keep_going ? TR_READ_KEEP_GOING : 0) |
	       (o->quiet ? TR_READ_NO_NOTES : 0);
}

/* -v: the offsets applied, host by host (hosts left as recorded are only
 * counted). */
static void
report_clocks(const tr_clock *c)
{
	size_t hosts = 0, moved = 0;

	for (size_t i = 0; i < tr_clock_nhosts(c); i++) {
		tr_clock_host h;

		tr_clock_host_get(c, i, &h);
		hosts++;
		if (h.offset) {
			moved++;
			tr_warn("clock of %s: %+.3f ms against %s, from %zu RPCs", h.host,
				(double)h.offset / 1000.0, h.reference, h.rpcs);
		}
		if (h.disagreeing)
			tr_warn("clock of %s: %zu RPCs disagree (transit varies, or a clock drifts)",
				h.host, h.disagreeing);
	}
	if (hosts)
		tr_warn("clock offsets: %zu of the %zu hosts in RPCs moved", moved, hosts);
}

/* -c naming a resource no span uses limits nothing: warn, with the
 * closest resource met; returns how many. */
static size_t
unknown_capacities(const temporal *tp)
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
tp_run(const tp_run_opts *r, const tp_opts *o)
{
	tr_inputs in = {0};
	tp_opts oc = *o;
	tr_clock *clk = NULL;

	open_inputs(&in, r, r->clock_offsets);
	if (r->clock_offsets) {
		clk = tr_clock_from_inputs(in.files, in.n, in.names, r->max_spans, r->max_bytes,
					   read_flags(r, o, 0));
		oc.clock = clk;
	}
	o = &oc;
	tr_reader *rd = tr_reader_open(in.files, in.n, in.names, r->max_spans, r->max_bytes,
				       read_flags(r, o, r->verbose));
	tr_output *out = r->no_output ? NULL : tr_output_open(r->out_path, 0);
	temporal *tp = tp_new(o);
	strbuf b = {0};
	int status = TR_EXIT_OK, stopped = 0;

	if (o->format == TP_LINE)
		sb_adds(&b, TR_FORMAT_HEADER "\n");
	tr_ahead *ahead = tr_ahead_start(rd);

	for (;;) {
		tr_trace *t = NULL;
		const char *line = NULL;
		size_t len = 0;
		enum tr_next n = tr_ahead_next(ahead, &t, &line, &len);

		if (n == TR_EOF)
			break;
		if (n == TR_LINE)
			tp_add_line(tp, line, len, &b);
		else if (n == TR_TRACE)
			tp_add_trace(tp, t, &b);
		else if (!r->keep_going) {
			stopped = 1;
			break;	/* what was read before is still analysed and written */
		}
		if (b.len >= 64 * 1024 && o->format != TP_DOT) {
			if (out)
				tr_output_sb(out, &b);
			sb_clear(&b);
		}
	}
	tr_read_counts counts = tr_ahead_counts(ahead);
	size_t bad = counts.bad;
	int nothing = counts.nothing;
	/* stopped before the end: the reader thread still holds rd */
	int rd_free = tr_ahead_finish(ahead);

	if (!bad && !o->allow_empty && nothing) {
		status = tr_reader_empty_error(rd);
		if (out)
			tr_output_discard(out);
		out = NULL;
	} else
		tp_finish(tp, &b);
	if (out)
		tr_output_sb(out, &b);
	sb_free(&b);
	const tp_stats *st = tp_stats_get(tp);
	if (bad)
		status = TR_EXIT_INPUT;
	else if (status)
		;	/* nothing was read */
	else if (o->check && st->violations)
		status = TR_EXIT_FINDING;
	else if (o->check && !st->analysed && !o->allow_empty)
		status = check_empty(st);
	else if (!st->analysed && !o->allow_empty && st->queried && !(o->span && !st->span_found) &&
		 (o->format == TP_EXPLAIN || o->format == TP_CSV || o->format == TP_JSON)) {
		/* an answer about no trace is no answer (a -t id no trace has,
		 * a --span no trace has: their own message, exit 2) */
		tr_warn("%zu traces read, none analysed (no timed root): nothing to explain",
			st->traces);
		status = TR_EXIT_INPUT;
	}
	/* --span naming a span no trace has answered nothing: say so, fail */
	if (o->span && !st->span_found) {
		tr_warn("--span %s: no trace has this span", o->span);
		if (status == TR_EXIT_OK || status == TR_EXIT_FINDING)
			status = TR_EXIT_USAGE;
	}
	/* -r naming a tag no span has would refine no resource: say so, fail */
	if (o->resource_key && st->analysed && tr_keywatch_missing(&tp->rkey, "-r", NULL, 0) &&
	    status == TR_EXIT_OK)
		status = TR_EXIT_USAGE;
	if (unknown_capacities(tp) && (status == TR_EXIT_OK || status == TR_EXIT_FINDING))
		status = TR_EXIT_USAGE;
	if (r->verbose && clk)
		report_clocks(clk);
	if (r->verbose || (bad && r->keep_going))
		tr_warn("%zu traces read, %zu analysed, %zu without a timed root, %zu bad; %zu causes",
			st->traces + bad, st->analysed, st->skipped, bad, st->causes);
	if (r->verbose && stopped)
		tr_warn("stopped at the first bad trace; -k goes on");
	if (o->check && st->violations)
		tr_warn("%zu invariant violations", st->violations);
	for (size_t i = 0; r->verbose && i < tp->nres; i++) {
		size_t n = tpg_overlaps(tp, i);

		if (n)
			tr_warn("capacity exceeded on %s: %zu segments found every worker busy",
				tp->res[i].name, n);
	}
	if (out)
		tr_output_end(out, !stopped);
	if (rd_free)
		tr_reader_free(rd);
	tp_free(tp);
	tr_clock_free(clk);
	tr_inputs_free(&in);
	return status;
}
