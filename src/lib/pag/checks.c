/* checks.c - the instrumentation properties over tr-pag's graph (checks.h). */
#include "pag/checks.h"

#include <stdio.h>
#include <string.h>

/* "e.g. at T us on worker W, trace T span S": where to look first. */
static const char *
example_text(const pag_graph *g, const pag_example *x, char *buf, size_t size)
{
	const pag_spanref *r = x->span != PAG_NONE && x->span < g->nspans ? &g->spans[x->span] : NULL;
	const char *worker = x->lane != PAG_NONE && x->lane < g->nlanes ?
			     g->workers[g->lanes[x->lane].worker] : "?";

	if (r)
		snprintf(buf, size, "e.g. at %lld us on %s, trace %s span %s", (long long)x->t,
			 worker, r->trace_id, r->span_id);
	else
		snprintf(buf, size, "e.g. at %lld us on %s", (long long)x->t, worker);
	return buf;
}

static void
check_window(void *ctx, const pag_graph *g, const pag_snap *s)
{
	pag_checks *sum = ctx;
	pag_violations v = {0};

	if (sum->entries)
		pag_entries_sort(sum->entries);
	pag_snap_check(g, s, sum->entries, &v);
	sum->windows++;
	sum->p1_windows += v.no_input > 0;
	sum->p2_windows += v.all_waiting > 0;
	sum->v.no_input += v.no_input;
	sum->v.all_waiting += v.all_waiting;
	sum->v.all_waiting_us += v.all_waiting_us;
	if (!sum->v.no_input_at.set && v.no_input_at.set) {
		sum->v.no_input_at = v.no_input_at;
		example_text(g, &v.no_input_at, sum->eg1, sizeof sum->eg1);
	}
	if (!sum->v.all_waiting_at.set && v.all_waiting_at.set) {
		sum->v.all_waiting_at = v.all_waiting_at;
		example_text(g, &v.all_waiting_at, sum->eg2, sizeof sum->eg2);
	}
}

void
pag_read_back(pag_graph *g, const char *text, size_t len, pag_checks *k)
{
	size_t at = 0, marks = g->nmarks;

	while (at < len) {
		const char *line = text + at, *nl = memchr(line, '\n', len - at);
		size_t n = (size_t)(nl - line);

		if (pag_read_record(g, line, n, NULL) < 0)	/* ours: cannot be bad */
			tr_die(TR_EXIT_SYSTEM, "a record of the graph built does not read back");
		at += n + 1;
		if (k && k->stream && g->nmarks != marks) {
			marks = g->nmarks;
			pag_windows_between(g, k->checked, g->mark, check_window, k);
			pag_graph_drop_before(g, g->mark);
			if (k->entries)
				pag_entries_drop_before(k->entries, g->mark);
			k->checked = g->mark;
		}
	}
}

/* What the builder left out or changed, said once. */
static void
warn_build(const pag_build_stats *st)
{
	if (st->nclamped)
		tr_warn("%zu requests or responses clamped to take no time: clock skew would send "
			"them back in time", st->nclamped);
	if (st->nskew)
		tr_warn("%zu communication edges dropped: they arrive before they leave (clock skew)",
			st->nskew);
	if (st->nrefs_missing)
		tr_warn("%zu references to spans the graph does not hold (not in the input, or "
			"written and forgotten: --lateness): no message edge", st->nrefs_missing);
	if (st->nspans_skipped)
		tr_warn("%zu spans without time left out", st->nspans_skipped);
	if (st->nwrappers)
		tr_warn("%zu wrapper spans (childless, covering a sibling call of their process) "
			"left out: they wait for that call, they do not process", st->nwrappers);
	if (st->nlost)
		tr_warn("%zu edges lost: they start before edges already written (a bug in tr-pag: "
			"please report it)", st->nlost);
}

void
pag_checks_report(pag_checks *k, const pag_graph *g, const pag_build_stats *st)
{
	if (k->on && k->stream)
		pag_windows_between(g, k->checked, INT64_MAX, check_window, k);
	else if (k->on)
		pag_windows(g, check_window, k);
	if (k->verbose && st && k->stream)
		tr_warn("%zu workers, %zu lanes, %zu vertices, %zu edges, %zu windows",
			st->nworkers, st->nlanes, st->nvertices, st->nedges, k->windows);
	else if (k->verbose)
		tr_warn("%zu workers, %zu lanes, %zu vertices, %zu edges, %zu windows",
			g->nworkers, g->nlanes, g->nvertices, g->nedges, k->windows);
	if (k->quiet)
		return;
	if (k->v.no_input)
		tr_warn("property 1: %zu vertices in %zu of %zu windows have no incoming edge "
			"a critical path can use (missing instrumentation?); %s",
			k->v.no_input, k->p1_windows, k->windows, k->eg1);
	if (k->v.all_waiting)
		tr_warn("property 2: %zu times (%lld us) in %zu of %zu windows every worker waits "
			"and no message is in flight (missing instrumentation?); %s",
			k->v.all_waiting, (long long)k->v.all_waiting_us, k->p2_windows,
			k->windows, k->eg2);
	if (st)
		warn_build(st);
}
