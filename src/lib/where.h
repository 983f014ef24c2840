/* where.h - --where EXPR, one meaning in every tool (tr(7), WHERE): a
 * trace is kept whole when EXPR holds for at least one of its spans, else
 * dropped whole. EXPR is the expression language of the queries
 * (core/expr.h) over the fields of a query's span (service, operation,
 * duration, tag["k"], ...) and of its trace (root_duration, root_service,
 * root_operation, trace_spans, ...). */
#ifndef TR_WHERE_H
#define TR_WHERE_H

#include <stddef.h>

#include "core/trace.h"

typedef struct tr_where tr_where;

/* NULL on a syntax error or an unknown field, with the message in err and
 * its byte offset in *errpos. */
tr_where *tr_where_parse(const char *src, char *err, size_t errlen, size_t *errpos);
/* Does EXPR hold for a span of t? */
int tr_where_keep(tr_where *w, tr_trace *t);
/* Does EXPR read spans' tags (or their failures, which are in tags)? */
int tr_where_reads_tags(const tr_where *w);
/* None of the traces read was kept: say so, with the closest name read
 * for a service or operation compared with =; returns the exit status
 * (that of a selector matching nothing, TR_EXIT_USAGE). */
int tr_where_none(const tr_where *w, size_t traces);
/* -v: "--where kept N of M traces". */
void tr_where_summary(size_t kept, size_t traces);
void tr_where_free(tr_where *w);

#endif
