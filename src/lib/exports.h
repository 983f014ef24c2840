/* exports.h - readers that convert the exports they meet.
 *
 * core/'s reader knows no JSON: it converts a Jaeger, Zipkin or OTLP export
 * only through a tr_export_hook. This layer, above core/ and ingest/, hands
 * it tr-ingest's converter, so that every tool reads an export as tr-ingest
 * would convert it. */
#ifndef TR_EXPORTS_H
#define TR_EXPORTS_H

#include "core/trace.h"

/* The hook that converts exports with ingest/ (tr_reader_set_exports). */
const tr_export_hook *tr_exports(void);
/* A reader as every pass of a tool opens it (tr_reader_configure), which
 * converts exports: names (NULL: the files' own), the user's --max-spans
 * and --max-bytes (0: the default), flags. */
tr_reader *tr_reader_open(char **files, int nfiles, char *const *names, size_t max_spans,
			  size_t max_bytes, int flags);

#endif
