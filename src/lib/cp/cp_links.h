/* cp_links.h - tr-cp's pictures of linked traces: a trace joined to a
 * drawn one by a reference across traces (an R record: an OTLP link,
 * FOLLOWS_FROM, child_of), either way round, is drawn beside it.
 *
 * tr-cp reads each trace once, so the traces are held by id, not read
 * again: --dot draws every trace it is asked for as it comes and adds a
 * dashed edge for each link between two drawn traces once both are drawn
 * (a trace not asked for with --trace is drawn too when it names one drawn
 * before it, or one drawn before it names it); --svg holds, beside the
 * slowest trace so far, the traces that come after it linked to it, and
 * lets them go when a slower one replaces it (the one replaced is held
 * when linked to the new one). Memory is what is drawn: the drawn traces'
 * ids and their links, the held traces. Any other trace read before the
 * one it is linked to was drawn (or became the slowest) is not drawn
 * beside it: reading the input again would cost every --svg a second
 * pass (and a copy of a pipe) that only links need. */
#ifndef TR_CP_LINKS_H
#define TR_CP_LINKS_H

#include "cp/cp.h"
#include "draw/timeline.h"

typedef struct cp_links cp_links;

cp_links *cp_links_new(void);
void cp_links_free(cp_links *l);

/* --dot: t was drawn into out; the edges between it and the traces drawn
 * before it go into out too, those to a trace not drawn yet wait for it. */
void cp_links_dot(cp_links *l, const tr_trace *t, strbuf *out);
/* --dot: whether t, not asked for, is linked to a trace drawn before it. */
int cp_links_dot_wanted(const cp_links *l, const tr_trace *t);

/* --svg: the kept trace changed: the traces held for the old one go. */
void cp_links_svg_reset(cp_links *l);
/* --svg: t, not kept, is held (its contents taken, as tr_trace_swap
 * takes them) when it is linked to kept. */
void cp_links_svg_offer(cp_links *l, const tr_trace *kept, tr_trace *t);
/* --svg: kept's timeline (analysed in c) with the held traces below it,
 * on one time axis; c is run again on each. Returns 0, writing nothing,
 * when no trace is held. */
int cp_links_svg(cp_links *l, strbuf *b, const tr_trace *kept, cp_trace *c, const timeline_opts *o);

#endif
