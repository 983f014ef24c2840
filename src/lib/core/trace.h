/* trace.h - one trace in memory: its records, spans, references, logs and
 * span tree; and the reader that groups a line-format stream into traces. */
#ifndef TR_TRACE_H
#define TR_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "core/format.h"
#include "core/hash.h"
#include "core/io.h"
#include "core/util.h"

typedef struct tr_tag {
	const char *key, *val;	/* unescaped, NUL-terminated */
} tr_tag;

/* A raw record of the trace, kept in input order so that filters can pass
 * every record through unchanged. */
typedef struct tr_record {
	char *line;		/* without LF, NUL-terminated */
	uint32_t len;
	uint32_t file;		/* index into the reader's file names */
	uint64_t lineno;
	int32_t span;		/* index into spans for S records, else -1 */
} tr_record;

enum {
	TR_SPAN_HAS_TIME = 1,	/* start and duration are known */
	TR_SPAN_FOLLOWS = 2,	/* the parent link is FOLLOWS_FROM: it does not wait */
	TR_SPAN_ORPHAN = 4,	/* names a parent that is not in the trace */
	TR_SPAN_CYCLE = 8	/* its parent link was cut to break a cycle */
};

/* Times (µs since the epoch) and span ends lie within ±TR_TIME_MAX (2^61
 * µs, 73,000 years either side of 1970): any sum or difference of a few of
 * them fits in int64_t. A span beyond it is bad input. */
#define TR_TIME_MAX ((int64_t)1 << 61)

typedef struct tr_span {
	const char *span_id, *parent_id, *service, *operation, *host;
	int64_t start, duration;	/* µs; 0 when !(flags & TR_SPAN_HAS_TIME) */
	uint32_t flags;
	uint8_t kind;
	uint32_t ntags;
	tr_tag *tags;
	uint32_t rec;		/* its record */
	int32_t parent;		/* in-trace parent index, -1 for roots */
	int32_t first_child;	/* children in (start, span_id) order */
	int32_t next_sibling;
	uint32_t depth;		/* 0 for roots */
	int32_t first_log;	/* its first log (record order), -1 when none */
} tr_span;

typedef struct tr_ref {
	int32_t span;		/* index of the referring span */
	const char *type;	/* child_of, follows_from, link */
	const char *trace_id, *span_id;
	uint32_t ntags;
	tr_tag *tags;
} tr_ref;

typedef struct tr_log {
	int32_t span;
	int32_t next;		/* the span's next log, -1 after its last */
	int64_t time;
	uint32_t ntags;
	tr_tag *tags;
} tr_log;

typedef struct tr_trace {
	const char *trace_id;
	const char *trace_id_raw;	/* as the records spell it (escaped), or NULL */
	size_t trace_id_rawlen;
	arena mem;
	tr_record *recs;
	size_t nrecs, caprecs;
	tr_span *spans;		/* sorted by (start, span_id) */
	size_t nspans, capspans;
	tr_ref *refs;
	size_t nrefs, caprefs;
	tr_log *logs;
	size_t nlogs, caplogs;
	int32_t *roots;		/* parentless spans in span order; roots[0] is the root */
	size_t nroots, caproots;
	uint32_t ntags;		/* tags of the T record */
	tr_tag *tags;
	size_t norphans, ncycles;
	strmap ids;		/* span_id -> index */
	const char *const *files;	/* file names, for messages */
	/* Set before tr_trace_parse by a reader told TR_READ_NO_SPAN_TAGS:
	 * spans' tags are checked as always, not kept (every ntags is 0) */
	int span_tags_unread;
	/* Set before tr_trace_parse by a reader given tr_reader_set_shift:
	 * µs to subtract from the times of a host's spans and their logs
	 * (clock offsets), applied before the spans are put in order. */
	int64_t (*shift)(void *ctx, const char *host);
	void *shift_ctx;
} tr_trace;

/* Look up a span by id; -1 when absent. */
int32_t tr_trace_find(const tr_trace *t, const char *span_id);
/* Value of a span tag, NULL when absent. */
const char *tr_span_tag(const tr_span *s, const char *key);
static inline int64_t tr_span_end(const tr_span *s) { return s->start + s->duration; }
/* A span's failure as recorded (tr-format(5), FAILURES): which evidence
 * says so and the message, type, code and stack of the export, pointing
 * into the trace's tags; a field the export does not give is NULL. */
typedef struct tr_failure {
	const char *source;	/* the tag key read, or "event=exception" ... */
	const char *code;	/* HTTP or gRPC status, as written */
	const char *code_key;	/* its tag key */
	const char *status_text;	/* http.status_text */
	const char *type;	/* exception.type, error.kind */
	const char *message;
	const char *stack;	/* exception.stacktrace, stack */
} tr_failure;
/* Did span i of t fail? Reads its tags, then its logs (exception events);
 * fills *f (when not NULL) and returns 1, else returns 0. */
int tr_span_error(const tr_trace *t, int32_t i, tr_failure *f);
/* The failure of a span by its tags alone (no exception events). */
int tr_span_failed(const tr_span *s);
/* The failure in one line: "type: message", or the status ("HTTP 500
 * Internal Server Error", "gRPC status 14") when the export gives no
 * message; with where, " (first stack line)" after it. TAB, CR and LF
 * become spaces. */
void tr_failure_text(const tr_failure *f, int where, strbuf *b);
/* A long-lived stream, not a request: its operation's method (the text
 * after the last '/' or '.') names a stream ("EventStream", "StreamX"). */
int tr_span_is_stream(const tr_span *s);
/* A consumer that waits for its message (messaging.operation.type, or the
 * older messaging.operation, is "receive"): its time is waiting. */
int tr_span_is_blocking_receive(const tr_span *s);
/* wait[i]: how long span i's work waited in a queue before the span
 * started, as recorded: its queue.wait_us tag, else its start less the
 * earliest log with event=enqueue before it; 0 without evidence. */
void tr_trace_queue_waits(const tr_trace *t, int64_t *wait);

/* Write record i of t, dropping its tags whose key starts with drop_prefix
 * (when not NULL: a re-run replaces its own earlier results) and appending
 * extra, which holds "\tkey=value" fields already escaped. */
void tr_write_record(strbuf *out, const tr_trace *t, size_t i,
		     const char *drop_prefix, const char *extra, size_t extra_len);
/* Write the T record that opens t's group in the output. */
void tr_write_group(strbuf *out, const tr_trace *t);

/* Write a whole trace group: its T record, then every record but T records
 * and records of type drop_type; S records get the tags span_extra appends. */
typedef struct tr_write_opts {
	const char *drop_prefix;	/* tag namespace the tool owns, e.g. "cp." */
	const char *drop_type;		/* record type the tool owns, e.g. "C" */
	void (*span_extra)(void *ctx, const tr_trace *t, int32_t span, strbuf *extra);
	void *ctx;
} tr_write_opts;
void tr_write_trace(strbuf *out, const tr_trace *t, const tr_write_opts *o);

/* A message about the whole trace: "prog: file:line: trace ID: what", the
 * place being its first record's. */
void tr_trace_warn(const tr_trace *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parse t->recs into spans, refs, logs and the tree. Returns 0, or -1 after
 * printing "prog: file:line: what". Used by the reader and by unit tests. */
int tr_trace_parse(tr_trace *t);
void tr_trace_reset(tr_trace *t);
void tr_trace_free(tr_trace *t);
/* Exchange the contents of a and b, parsed spans and memory included, but
 * not their files: to keep a trace the reader handed out without copying
 * and parsing it again (the reader then reuses the other's memory; the
 * records' lines stay valid until the reader is freed). */
void tr_trace_swap(tr_trace *a, tr_trace *b);

/* The reader: files in order ("-" or none: stdin). */
typedef struct tr_reader tr_reader;

enum tr_next {
	TR_EOF,		/* no more input */
	TR_TRACE,	/* *trace holds a complete, parsed trace */
	TR_LINE,	/* a record with no trace (a comment, a future record type
			   with an empty trace field): pass it through; *line */
	TR_BAD		/* a trace could not be parsed: the message is printed,
			   its records are dropped; or a file was neither the
			   line format nor an export, or an export's traces
			   were broken (after its good traces) */
};

tr_reader *tr_reader_new(char **files, int nfiles);
/* Names for messages, one a file (a NULL entry keeps the file's own): a
 * tool that reads a copy of its input names the input it was given. */
void tr_reader_set_names(tr_reader *r, char *const *names);
/* A trace with more S records or bytes than this is bad input (TR_BAD, a
 * message), never cut short; 0 means no limit. */
#define TR_DEFAULT_MAX_SPANS ((size_t)10000000)
#define TR_DEFAULT_MAX_BYTES ((size_t)4 << 30)
void tr_reader_set_limits(tr_reader *r, size_t max_spans, size_t max_bytes);
/* A file is told by its start: the line format (#tr/1, a comment, a record,
 * or nothing); a Jaeger, Zipkin or OTLP JSON export, read as tr-ingest reads
 * it (through the export hook, with the reader's limits); anything else is bad
 * input with one message. The flags: */
enum {
	TR_READ_VERBOSE = 1,	/* name each export's shape on stderr */
	TR_READ_KEEP_GOING = 2,	/* an export's broken traces are skipped, its good ones read */
	TR_READ_LINES_ONLY = 4,	/* every file is the line format, whatever it starts with */
	TR_READ_QUIET = 8,	/* no message about the input (a first pass: the main
				   pass over the same input reports it); fatal
				   errors (tr_die) are still said. The caller's
				   messages are on stderr (no tr_warn_to sink) */
	TR_READ_NO_SPAN_TAGS = 16,	/* spans' tags are checked, not kept: for a
					   tool that reads none (tr-pag), less work
					   per span. Records are written as read */
	TR_READ_NO_NOTES = 32,	/* -q: no notes about the input (an export's
				   documents of other signals skipped); its
				   errors are still said */
	TR_READ_PIECES = 64	/* a trace met again after its group ended is
				   handed out as one more trace, not refused:
				   for a caller that regroups the pieces
				   (tr-ingest --shard) */
};
void tr_reader_set_flags(tr_reader *r, int flags);
/* Names (NULL: the files' own), the user's --max-spans and --max-bytes (0:
 * the default) and flags at once, as every pass of a tool sets them: passes
 * over the same input are set alike, so that they see the same traces
 * (tr_reader_open in exports.h). */
void tr_reader_configure(tr_reader *r, char *const *names, size_t max_spans, size_t max_bytes, int flags);
/* Converting an export into the line format. core/ knows no JSON: a reader
 * converts the exports it meets through these calls, which the layer above
 * installs (exports.h); a reader without them reads an export's lines as
 * they are. */
typedef struct tr_export_hook {
	/* A converter for the reader's flags (TR_READ_*) and limits. */
	void *(*open)(int flags, size_t max_spans, size_t max_bytes);
	/* The export in (opened from path, named name in messages) converted:
	 * its line format, open for reading; *bad: its broken traces. */
	tr_input *(*lines)(void *conv, tr_input *in, const char *path, const char *name, size_t *bad);
	size_t (*traces)(const void *conv);	/* converted so far */
	/* What the last input was read as ("Zipkin (JSON Lines), zstd"). */
	void (*shape)(const void *conv, const tr_input *in, strbuf *b);
	void (*close)(void *conv);
} tr_export_hook;
void tr_reader_set_exports(tr_reader *r, const tr_export_hook *h);
/* Every trace's spans (and logs) moved by shift(ctx, host) µs earlier as
 * they are parsed (tr_trace's shift); NULL: as recorded. */
void tr_reader_set_shift(tr_reader *r, int64_t (*shift)(void *ctx, const char *host), void *ctx);
/* Next trace or pass-through line. The trace and the line are valid until the next call. */
enum tr_next tr_reader_next(tr_reader *r, tr_trace **trace, const char **line, size_t *len);
size_t tr_reader_traces(const tr_reader *r);	/* traces returned so far */
size_t tr_reader_bad(const tr_reader *r);	/* TR_BAD returned so far */
/* Nothing was read: no trace, no bad input, no record but comments (an
 * empty file, or an export with no span). A run over nothing answers
 * nothing, so every tool fails on it unless told --allow-empty. */
int tr_reader_read_nothing(const tr_reader *r);
/* Say so in one line naming the inputs; returns TR_EXIT_INPUT. */
int tr_reader_empty_error(const tr_reader *r);
/* "file:line" of the line TR_LINE handed out last; valid until the next call. */
const char *tr_reader_where(tr_reader *r);
uint64_t tr_reader_bytes(const tr_reader *r);	/* input bytes read so far */
/* Those counts at once. */
typedef struct tr_read_counts {
	size_t traces, bad;
	uint64_t bytes;
	int nothing;
} tr_read_counts;
tr_read_counts tr_reader_counts(const tr_reader *r);
void tr_reader_free(tr_reader *r);

/* The reader on a thread of its own, a few traces ahead (ahead.c): for a
 * tool whose work per trace is as long as reading it. */
typedef struct tr_ahead tr_ahead;
tr_ahead *tr_ahead_start(tr_reader *rd);
/* tr_reader_next, with what the reader said about it written first. */
enum tr_next tr_ahead_next(tr_ahead *a, tr_trace **t, const char **line, size_t *len);
/* The reader's counts as of the last tr_ahead_next (zeros before it). */
tr_read_counts tr_ahead_counts(const tr_ahead *a);
/* The file:line of the line tr_ahead_next handed out last. */
const char *tr_ahead_where(const tr_ahead *a);
/* Stop reading; 1 when the thread is done with rd (it may be freed), 0 when
 * it still reads (stopped before the end of the input). */
int tr_ahead_finish(tr_ahead *a);

#endif
