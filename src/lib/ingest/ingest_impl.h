/* ingest_impl.h - what the format converters share: the span being built,
 * the batch of spans waiting to be written, and error reporting. */
#ifndef TR_INGEST_IMPL_H
#define TR_INGEST_IMPL_H

#include "jtree.h"
#include <pthread.h>
#include <stdint.h>

#include "core/format.h"
#include "core/hash.h"
#include "ingest/ingest.h"
#include "core/progress.h"
#include "core/trace.h"
#include "core/util.h"

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

typedef struct ingest_pool ingest_pool;

/* Worker threads converting jobs of a ring in order (crew.c); head, tail
 * and the filling of jobs belong to the main thread, which reads head and
 * tail without the lock. */
typedef void ig_crew_fn(ingest *w, void *pool, size_t job);
typedef struct ig_crew {
	int n;
	pthread_t *threads;
	ingest **ctx;		/* one converter context per worker */
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	unsigned char *state;	/* per job of the ring */
	size_t njobs, head, take, tail;	/* oldest, next to take, next to fill (mod njobs) */
	int quit;
	ig_crew_fn *run;
	void *pool;
} ig_crew;
void ig_crew_start(ig_crew *c, const ingest *g, int threads, size_t njobs, ig_crew_fn *run, void *pool);
void ig_crew_stop(ig_crew *c);
/* Job tail % njobs is filled: for a worker, or (ready 0) done already. */
void ig_crew_put(ig_crew *c, int ready);
int ig_crew_oldest_done(ig_crew *c);
/* Wait for the oldest job; its index. ig_crew_pop frees it once written. */
size_t ig_crew_oldest(ig_crew *c);
void ig_crew_pop(ig_crew *c);
/* Where each trace a worker wrote ends, in its output and its messages. */
typedef struct ig_marks {
	struct ig_mark {
		size_t out, msg;
	} *v;
	size_t n, cap;
} ig_marks;
typedef struct ingest_seen ingest_seen;
typedef int (*elem_fn)(ingest *g, const jtree *v);

struct ingest {
	ingest_opts opts;
	tr_output *out;
	strbuf *sink;		/* a worker's output goes here instead of out */
	strbuf *sink_msg;	/* and its messages here, */
	ig_marks *marks;	/* with a mark after each trace (files.c) */
	ingest_pool *pool;	/* worker threads for Jaeger traces (-j) */
	ingest_seen *seen;	/* the traces written, to merge a trace met again */
	int pool_status;	/* what stopped the pool in this file, 0 if nothing */
	strbuf msg;		/* the message of the element that failed */
	ingest_stats stats;
	ibatch batch;
	tr_progress progress;
	uint64_t bytes_before;	/* input bytes of the files already read */
	jtree_parser *parser;	/* reads one element at a time */
	arena json_mem;		/* the nodes of the element being converted */
	arena doc_mem;		/* a top-level object's members read whole */
	ibuild build;
	iproc *procs;		/* the processes of the Jaeger trace being read */
	size_t nprocs, capprocs;
	strbuf text, scratch;
	strbuf value;		/* an OTLP array or key-value attribute being written */
	const char *file;	/* name for messages */
	char err[512];		/* the converter's message for the current element */
	uint64_t err_line, err_col;	/* where the element being converted starts */
	int file_failed;
	int zipkin_seen;	/* the batch holds Zipkin spans: pair shared ids */
	const char *format_name;	/* what this file was read as, for -v */
	int foreign;		/* the file is another format: stop reading it */
	size_t documents;	/* top-level JSON values of this file */
	size_t trace_documents;	/* OTLP documents holding spans */
	size_t other_signals;	/* OTLP metrics, logs and profiles documents skipped */
	/* Writing Zipkin and OTLP traces before the file's end (prescan.c) */
	const char *path;	/* the file being read ("-": standard input) */
	int swept;		/* the first pass ran, or was found impossible */
	int early_flush;	/* it went through: write traces as they are whole */
	strmap last_key;	/* trace id -> offset of the last key naming it */
	arena prescan_mem;	/* its keys */
	arena sweep_mem;	/* the first pass's scratch copies of ids */
	uint64_t batch_need;	/* the last offset the batch's traces wait for */
	size_t batch_mark;	/* batch spans looked at by ig_after_element */
	int batch_broken;	/* a Zipkin/OTLP element of this file was lost whole */
	strbuf brackets;	/* scanner scratch: brackets not yet closed */
	strmap ids;		/* scratch: span ids while writing a trace */
	int32_t *order;
	size_t capord;
};

/* A converter context without worker threads, and freeing one (context.c);
 * ingest_new adds the threads when asked for. */
ingest *ig_context_new(const ingest_opts *o, tr_output *out);
void ig_context_free(ingest *g);

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
void ig_ref_tag(ingest *g, const char *key, const char *val);
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
int64_t ig_time_us(const ingest *g, int64_t v, enum ingest_time_unit native);
int64_t ig_time_us_u(const ingest *g, uint64_t v, enum ingest_time_unit native);
/* ig_get_i64 of a time field, in microseconds (ig_time_us). */
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
int ig_get_i64(ingest *g, const jtree *o, const char *key, int required, int64_t *out, int *present);
/* An array field: NULL, missing and [] are all empty; -1 when of another type. */
int ig_get_array(ingest *g, const jtree *o, const char *key, const jtree **out);

/* element.c: parse and convert one JSON element p[0,n) that starts at line:col of the
 * file. Returns 0, -1 (the element is broken) or -2 (malformed JSON); on
 * failure msg holds "file:line:col: what". A Jaeger trace is written at once. */
int ig_element(ingest *g, const char *p, size_t n, uint64_t line, uint64_t col, elem_fn fn, int jaeger,
	       strbuf *msg);
int ig_elem_jaeger(ingest *g, const jtree *v);
/* Where a parse error at byte pos of p is: lines and columns counted on from
 * *line:*col. */
void ig_error_place(const char *p, size_t pos, uint64_t *line, uint64_t *col);

/* Write trace groups p[0,n) (T line and records each), read from file, to
 * the output: the spans of a trace already written are dropped, new ones of
 * it written as a group of their own with a warning (merge.c). */
void ig_emit(ingest *g, const char *file, const char *p, size_t n);
void ig_seen_free(ingest_seen *s);

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

/* Writing Zipkin and OTLP traces as soon as they are whole (prescan.c):
 * at the start of each file, then after each Zipkin or OTLP element, whose
 * last byte is before offset end of the file's decoded bytes. */
enum prescan_kind { PRESCAN_JAEGER, PRESCAN_ZIPKIN, PRESCAN_OTLP };
void ig_prescan_reset(ingest *g, const char *path);
void ig_after_element(ingest *g, uint64_t end, enum prescan_kind kind);
int ig_regular_file(const char *path);
/* A trace id as the converters write it, for the first pass. */
const char *otlp_trace_id(ingest *g, const char *raw);
const char *zipkin_trace_key(const char *lower_id);

/* What the file is: the first shape read names it (-v). */
void ig_set_format(ingest *g, const char *name);
/* A message for a document or array element of a format tr-ingest does not
 * read ("looks like a Tempo search result; ..."), or NULL. */
const char *ig_foreign_document(const jtree *doc);
const char *ig_foreign_element(const jtree *elem);
int ig_is_jaeger_span(const jtree *elem);

/* The converters: one JSON element each. */
int jaeger_trace(ingest *g, const jtree *trace);
int jaeger_span(ingest *g, const jtree *span);	/* a span of a Jaeger span list */
int otlp_resource_spans(ingest *g, const jtree *rs);
int otlp_document(ingest *g, const jtree *doc);
int zipkin_span(ingest *g, const jtree *span, int version);	/* 1, 2, or 0: detect */
enum { ZIPKIN_FLAGGED = 1, ZIPKIN_BACKFILLED = 2 };	/* ispan.zipkin_shared */

/* zipkin_merge.c: Zipkin's own clean-up of a batch, before pairing. */
void zipkin_mark_parts(ingest *g, size_t first);	/* batch spans [first, n) are Zipkin's */
void zipkin_normalise_ids(ingest *g);	/* zero-high 128-bit trace ids to 64-bit */
void zipkin_merge(ingest *g);		/* normalise, then merge spans reported in parts */
void zipkin_pair_shared(ingest *g);	/* before writing: split shared ids */
/* After zipkin_pair_shared: tr.zipkin_parent and tr.zipkin_hidden where
 * Zipkin's span tree differs from the one written. */
void zipkin_note_tree(ingest *g);

#endif
