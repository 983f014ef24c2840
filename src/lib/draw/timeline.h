/* timeline.h - the waterfall of one trace as SVG (tr-cp --svg, tr-report):
 * one row per span in tree order, bars on a time axis, the critical path
 * drawn solid with each critical span's share written beside it. */
#ifndef TR_TIMELINE_H
#define TR_TIMELINE_H

#include "cp/cp.h"

typedef struct timeline_opts {
	double width;		/* px; 0: 1000 */
	double min_share;	/* a span's descendants get rows only when they hold
				   more than this fraction of the critical path */
	int64_t lo, hi;		/* the time axis, when hi > lo (pictures stacked on
				   one axis); else the trace's own span of time */
} timeline_opts;

/* Append the picture of t, analysed in c, to b. Returns the number of
 * spans folded into their ancestors' rows. */
size_t timeline_svg(strbuf *b, const tr_trace *t, const cp_trace *c, const timeline_opts *o);
/* The time t's timed spans cover, [*lo, *hi] (µs; *hi > *lo). */
void timeline_time_range(const tr_trace *t, int64_t *lo, int64_t *hi);

#endif
