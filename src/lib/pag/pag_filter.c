/* pag_filter.c - whether an edge passes a filter (time range, trace,
 * worker): the DOT output and the summaries keep only those that do. */
#include "pag/pag.h"

#include <string.h>

int
pag_edge_passes(const pag_graph *g, const pag_filter *f, const pag_edge *e)
{
	if (!f)
		return 1;
	if (e->t1 > e->t0 ? e->t0 >= f->to || e->t1 <= f->from : e->t0 < f->from || e->t0 > f->to)
		return 0;	/* it must overlap [from, to] by some time, or lie in it */
	if (f->trace && (e->span == PAG_NONE || strcmp(g->spans[e->span].trace_id, f->trace) != 0))
		return 0;
	if (f->worker && strcmp(g->workers[g->lanes[e->src_lane].worker], f->worker) != 0 &&
	    strcmp(g->workers[g->lanes[e->dst_lane].worker], f->worker) != 0)
		return 0;
	return 1;
}
