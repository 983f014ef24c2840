/* cppart.h - tr-pag --cp-part: the output held until the graph is done,
 * each span's cp.part tag written with its value left out and filled in
 * from the whole graph's critical participation at the end. */
#ifndef TR_PAG_CPPART_H
#define TR_PAG_CPPART_H

#include "pag/pag.h"

typedef struct pag_cppart pag_cppart;

pag_cppart *pag_cppart_new(void);
/* t, as the line format with an empty cp.part tag on every usable span
 * (an old cp.part tag is dropped). */
void pag_cppart_hold_trace(pag_cppart *h, const tr_trace *t);
/* A line passed through, in input order. */
void pag_cppart_hold_line(pag_cppart *h, const char *line, size_t len);
/* Everything held, each tag with its span's critical participation in g. */
void pag_cppart_write(const pag_cppart *h, const pag_graph *g, tr_output *out);
void pag_cppart_free(pag_cppart *h);

#endif
