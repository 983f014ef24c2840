/* convert.h - the converters of ingest/ (jaeger.c, otlp.c, zipkin.c) and
 * what tells a format apart (detect.c), as the dispatcher and the drivers
 * use them. A converter turns one parsed JSON element into spans of the
 * batch (batch.h) and calls nothing above it. */
#ifndef TR_INGEST_CONVERT_H
#define TR_INGEST_CONVERT_H

#include "ingest/context.h"

/* A converter of one JSON element: 0, or -1 with the error in g->err. */
typedef int (*elem_fn)(ingest *g, const jtree *v);

int jaeger_trace(ingest *g, const jtree *trace);
int jaeger_span(ingest *g, const jtree *span);	/* a span of a Jaeger span list */
int otlp_resource_spans(ingest *g, const jtree *rs);
int otlp_document(ingest *g, const jtree *doc);
int zipkin_span(ingest *g, const jtree *span, int version);	/* 1, 2, or 0: detect */

/* An OTLP trace id as otlp.c writes it, for prescan.c's first pass. */
const char *otlp_trace_id(ingest *g, const char *raw);

/* A message for a document or array element of a format tr-ingest does not
 * read ("looks like a Tempo search result; ..."), or NULL (detect.c). */
const char *ig_foreign_document(const jtree *doc);
const char *ig_foreign_element(const jtree *elem);
int ig_is_jaeger_span(const jtree *elem);

#endif
