/* drive.h - the drivers of ingest/, as the public layer (ingest.c) uses
 * them: worker threads for the Jaeger traces of a file (parallel.c), for
 * whole small files (files.c), and the first pass that lets a Zipkin or OTLP
 * trace out as soon as it is whole (prescan.c). */
#ifndef TR_INGEST_DRIVE_H
#define TR_INGEST_DRIVE_H

#include "ingest/context.h"

/* Worker threads for Jaeger traces: elements are converted in parallel and
 * written in input order, so the output is the same bytes as one thread's. */
ingest_pool *ig_pool_new(ingest *g, int threads);
/* Queue an element; returns 0, or the status (-1, -2) of an earlier element
 * that stops the file. */
int ig_pool_submit(ingest_pool *p, const char *bytes, size_t n, uint64_t line, uint64_t col);
/* Queue an element that failed before parsing (over --max-bytes or
 * --max-spans): what is the message after its place. */
int ig_pool_fail(ingest_pool *p, uint64_t line, uint64_t col, const char *what);
/* Write every queued element; returns 0 or the status that stopped the file. */
int ig_pool_drain(ingest_pool *p);
void ig_pool_free(ingest_pool *p);

/* Convert every file of l with one_file, in order (ingest_files); with
 * threads > 1, small files on worker threads, written in order. */
typedef int ig_file_fn(ingest *g, const char *path);
int ig_files_run(ingest *g, const ingest_list *l, ig_file_fn *one_file);

/* Writing Zipkin and OTLP traces as soon as they are whole (prescan.c):
 * at the start of each file, then after each Zipkin or OTLP element, whose
 * last byte is before offset end of the file's decoded bytes. */
enum prescan_kind { PRESCAN_JAEGER, PRESCAN_ZIPKIN, PRESCAN_OTLP };
void ig_prescan_reset(ingest *g, const char *path);
void ig_after_element(ingest *g, uint64_t end, enum prescan_kind kind);

#endif
