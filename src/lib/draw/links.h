/* links.h - pictures of traces joined by links (R records across traces):
 * timelines stacked on one time axis, each trace below the first marked
 * as another trace. */
#ifndef TR_DRAW_LINKS_H
#define TR_DRAW_LINKS_H

#include "draw/timeline.h"

typedef struct timeline_stack {
	strbuf body;		/* the pictures, each in its own group */
	double width, height;
	strbuf title;		/* the first picture's */
	size_t n;
} timeline_stack;

/* Add t's timeline (analysed in c, o->lo and o->hi the shared axis) below
 * those added before; banner, for every trace but the first, says how it
 * is linked (drawn above its picture on a pale band). */
void timeline_stack_add(timeline_stack *s, const tr_trace *t, const cp_trace *c,
			const timeline_opts *o, const char *banner);
/* The whole picture into out; s is emptied. */
void timeline_stack_end(timeline_stack *s, strbuf *out);

#endif
