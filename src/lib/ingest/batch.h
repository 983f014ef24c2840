/* batch.h - the assembly layer of ingest/ (batch.c, copies.c, merge.c,
 * zipkin_merge.c, context.c), as the layers above use it: the span being
 * built, the batch of spans waiting to be written, writing whole traces
 * (merged with those written before), errors and counts. The converters
 * call nothing of ingest/ but this and jtree.h. */
#ifndef TR_INGEST_BATCH_H
#define TR_INGEST_BATCH_H

#include <stdint.h>

#include "core/hash.h"
#include "core/util.h"
#include "ingest/ingest.h"
#include "ingest/jtree.h"

typedef struct ingest_seen ingest_seen;

typedef struct itag {
	const char *key, *val;
} itag;

typedef struct iref {
	const char *type, *trace_id, *span_id;
	itag *tags;
	uint32_t ntags;
} iref;

typedef struct ilog {
	int64_t time;
	itag *tags;
	uint32_t ntags;
} ilog;

typedef struct ispan {
	const char *trace_id, *span_id, *parent_id, *service, *operation, *host;
	int64_t start, duration;
	int has_time;
	int kind;
	int shared;		/* Zipkin: the server half of a shared span id */
	uint8_t zipkin_shared;	/* Zipkin keys it by its local endpoint: "shared" on
				   a span that is no client, or a SERVER whose id a
				   client span has (zipkin_pair_shared sets it) */
	const char *ep_ipv4, *ep_ipv6, *ep_port;	/* Zipkin: its local endpoint as
				   written (service is service), which keys shared spans */
	itag *tags;
	uint32_t ntags;
	iref *refs;
	uint32_t nrefs;
	ilog *logs;
	uint32_t nlogs;
	uint32_t seq;		/* input order */
	uint64_t line, col;	/* where its JSON element starts, for messages */
	const char *text;	/* serialised records, set when the trace is written */
	size_t textlen;
	int dropped;
	uint8_t zipkin;		/* converted from Zipkin: zipkin_merge may merge it */
	uint32_t dups;		/* identical copies zipkin_merge dropped into it */
} ispan;

/* A Jaeger process as converted once for the spans of a trace (jaeger.c). */
typedef struct iproc {
	const void *key;	/* its JSON object */
	const char *service, *host;
	itag *tags;		/* "process."-prefixed, in the batch arena */
	uint32_t ntags;
} iproc;

/* Spans read but not yet written, in input order; all strings in mem. */
typedef struct ibatch {
	arena mem;
	ispan *spans;
	size_t n, cap;
	strmap bad_traces;	/* trace ids with an error: none of their spans is written */
} ibatch;

/* Vectors the converters fill for the span under construction. */
typedef struct ibuild {
	itag *tags;
	size_t ntags, captags;
	iref *refs;
	size_t nrefs, caprefs;
	ilog *logs;
	size_t nlogs, caplogs;
	itag *ptags;		/* process/resource tags, appended last */
	size_t nptags, capptags;
} ibuild;

/* Arena copies (copies.c). */
const char *ig_str(ingest *g, const char *s);
const char *ig_strn(ingest *g, const char *s, size_t n);
const char *ig_lower(ingest *g, const char *s);	/* hex ids in any case */

/* Where a converter puts a key/value it read: the span's tags, its last log's
 * fields, its last reference's attributes, or (ig_ptag) the process tags. */
typedef void (*ig_put_fn)(ingest *g, const char *prefix, const char *key, const char *val);
void ig_put_tag(ingest *g, const char *prefix, const char *key, const char *val);
void ig_put_log_tag(ingest *g, const char *prefix, const char *key, const char *val);
void ig_put_ref_tag(ingest *g, const char *prefix, const char *key, const char *val);

/* Tags of the span being built. */
void ig_tag(ingest *g, const char *key, const char *val);
void ig_ptag(ingest *g, const char *prefix, const char *key, const char *val);
/* A JSON scalar as tag text: strings as is, numbers exactly, bools true/false;
 * arrays and objects as compact JSON. */
const char *ig_json_text(ingest *g, const jtree *v);
void ig_log_begin(ingest *g, int64_t time);
void ig_log_tag(ingest *g, const char *key, const char *val);
void ig_ref(ingest *g, const char *type, const char *trace_id, const char *span_id);
/* Move the built vectors into a new batch span; returns it for the caller to fill. */
ispan *ig_span_commit(ingest *g, const ispan *proto);
/* 0 when s has no time, or its start and end lie within ±TR_TIME_MAX, as the
 * line format requires, and its start is not one that lies outside 1990 to
 * 2100 read in the unit its fields were read in (native: the format's own,
 * unless --time-unit) but inside it read in the unit next to it (times in
 * nanoseconds where microseconds are due): else -1 via ig_fail, naming the
 * unit the times look like. Small times (0, test data) are not refused. */
int ig_check_time(ingest *g, const ispan *s, enum ingest_time_unit native);
/* A time field's value v in microseconds, v read in the unit --time-unit
 * gives or else native; saturated beyond int64 (ig_check_time refuses it). */
int64_t ig_time_us_u(const ingest *g, uint64_t v, enum ingest_time_unit native);
/* A time field of o, in microseconds (ig_time_us_u); 0 or -1 via ig_fail. */
int ig_get_time(ingest *g, const jtree *o, const char *key, int required, int64_t *out, int *present,
		enum ingest_time_unit native);
void ig_build_reset(ingest *g);

/* Record an error for the current element: returns -1. */
int ig_fail(ingest *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A Zipkin or OTLP element lost unread: its trace ids are unknown, so no
 * trace of the file is sure to be whole (counted as one broken trace more). */
void ig_lost_element(ingest *g);
/* Mark a trace broken (its spans are never written). */
void ig_bad_trace(ingest *g, const char *trace_id);
/* A Zipkin or OTLP span that did not convert: its trace is bad, or, when its
 * trace id is unreadable, counted as one broken trace of its own. */
void ig_bad_span(ingest *g, const jtree *span);
/* Write every trace of the batch whose spans are complete, then empty it. */
void ig_flush(ingest *g);
/* Count the batch's traces as broken (before discarding it). */
void ig_count_batch_broken(ingest *g);
/* What a worker's converting added to its counts (after - before), and
 * adding that to the main context's. */
void ig_stats_diff(ingest_stats *d, const ingest_stats *after, const ingest_stats *before);
void ig_stats_add(ingest_stats *s, const ingest_stats *d);
/* Drop the batch unwritten (a file that could not be read to its end). */
void ig_discard(ingest *g);

/* JSON field helpers: each returns 0 or -1 via ig_fail with the field named. */
int ig_get_str(ingest *g, const jtree *o, const char *key, int required, const char **out);
/* An array field: NULL, missing and [] are all empty; -1 when of another type. */
int ig_get_array(ingest *g, const jtree *o, const char *key, const jtree **out);

/* Write trace groups p[0,n) (T line and records each), read from file, to
 * the output: the spans of a trace already written are dropped, new ones of
 * it written as a group of their own with a warning (merge.c). */
void ig_emit(ingest *g, const char *file, const char *p, size_t n);
void ig_seen_free(ingest_seen *s);

/* Batch spans [first, n) are Zipkin's: zipkin_merge.c may merge them. */
void zipkin_mark_parts(ingest *g, size_t first);

/* A Zipkin trace id as the batch keys it (zero-high 128-bit ids cut to
 * 64-bit), for prescan.c's first pass. */
const char *zipkin_trace_key(const char *lower_id);

#endif
