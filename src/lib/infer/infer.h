/* infer.h - threshold-based causal inference over many traces (The Mystery
 * Machine, OSDI'14; Scooby Systems, "Threshold-Based Inference of
 * Dependencies in Distributed Systems") and service dependency links
 * (Zipkin's DependencyLinker rules). tr-infer is a client of this library. */
#ifndef TR_INFER_H
#define TR_INFER_H

#include <stddef.h>
#include <stdint.h>

#include "core/io.h"
#include "core/trace.h"
#include "core/util.h"

/* Fields a nameID is made of, joined by ':' in the order given; a tag
 * field ("tag:KEY") gives the span's value of the tag (empty without). */
enum infer_field { INFER_SERVICE, INFER_OPERATION, INFER_KIND, INFER_HOST, INFER_TAG };
#define INFER_MAX_FIELDS 4
#define INFER_TAG_MAX 64	/* a tag field's key, NUL included */

/* How a trace in which a name occurs several times counts. */
enum infer_count {
	INFER_COUNT_TRACES,	/* one count per trace: A->B succeeds only when
				   every occurrence of A is before every one of B */
	INFER_COUNT_PAIRS	/* one count per pair of occurrences (the Scooby
				   authors' MapReduce code) */
};

enum infer_format { INFER_TSV, INFER_CSV, INFER_JSON, INFER_DOT, INFER_JAEGER_JSON };

typedef struct infer_opts {
	int fields[INFER_MAX_FIELDS];	/* enum infer_field */
	char tags[INFER_MAX_FIELDS][INFER_TAG_MAX];	/* INFER_TAG fields' keys */
	int nfields;
	int log_events;		/* --events logs: a span's logs with event=X are
				   events NAME@X of the model */
	int depth;		/* --backtrace-depth: ancestors appended to a name */
	int count;		/* enum infer_count */
	size_t max_events;	/* skip traces with more events than this (0: no cap) */
} infer_opts;

/* Parse "service,operation" into o->fields; -1 when a field is unknown. */
int infer_parse_fields(const char *spec, infer_opts *o);
/* The canonical text of o's fields ("service,operation"). */
void infer_fields_text(const infer_opts *o, strbuf *b);
/* Append span s's own nameID (o's fields joined by ':') to b. */
void infer_name_fields(strbuf *b, const tr_span *s, const infer_opts *o);
/* The event= value of log l, or NULL. */
const char *infer_log_event(const tr_log *l);

/* The causal model: sparse counts over pairs of events. */
typedef struct infer infer;

infer *infer_new(const infer_opts *o);
void infer_free(infer *m);
/* Count one trace. */
void infer_add_trace(infer *m, const tr_trace *t);
/* Parse and bind the threshold condition over s v u q T; returns -1 and fills
 * err (and *errpos, the offset in src) on a syntax error. */
int infer_set_threshold(infer *m, const char *src, char *err, size_t errlen, size_t *errpos);
uint64_t infer_traces(const infer *m);
uint64_t infer_skipped(const infer *m);	/* traces over max_events */

typedef struct infer_out {
	int format;	/* enum infer_format */
	int all;	/* every counted ordered pair, with a pass column */
	int spans;	/* DOT: nodes are nameIDs, X -> Y when X_E -> Y_S holds */
} infer_out;

/* Apply the threshold and write the global causal model, sorted by event. */
void infer_write_model(infer *m, const infer_out *o, tr_output *out);

/* Reformatted traces: after the model is complete, the model's edges among
 * one trace's events that this trace agrees with, and each name's own
 * start -> end; transitively reduced when reduce is set (a name's own edge
 * stays). Appends IE records for t to out. */
void infer_reformat_trace(infer *m, const tr_trace *t, int reduce, strbuf *out);

/* Service dependency links, by Zipkin's DependencyLinker or by Jaeger's
 * rule (parent service -> child service); AUTO takes Jaeger's when no span
 * of the input has a kind or a peer.service, Zipkin's else. */
enum infer_links_rule { INFER_LINKS_ZIPKIN, INFER_LINKS_JAEGER, INFER_LINKS_AUTO };
typedef struct infer_links infer_links;

infer_links *infer_links_new(int rule);
void infer_links_free(infer_links *l);
void infer_links_add_trace(infer_links *l, const tr_trace *t);
/* The rule the links are written by: the one asked for, or AUTO's choice
 * over what was counted so far. */
int infer_links_rule(const infer_links *l);
void infer_links_write(infer_links *l, int format, tr_output *out);
/* The links as infer_links_write writes them, for a caller that draws
 * them itself (tr-report): infer_links_sort sorts them by (parent, child)
 * and returns how many; infer_links_at reads the i-th (names stay valid
 * until infer_links_free). */
typedef struct infer_link {
	const char *parent, *child;
	uint64_t calls, errors;
} infer_link;
size_t infer_links_sort(infer_links *l);
infer_link infer_links_at(const infer_links *l, size_t i);

/* Partial counts (--partial) and merging them (--merge). A partial is a
 * line-format stream of traceless records:
 *   IT  <empty>  traces=N skipped=N name=FIELDS depth=K count=MODE
 *   IP  <empty>  event_a event_b c s_ab s_ba q     (a sorts before b)
 *   IK  <empty>  spans=N kinds=N                    (spans, those with a kind
 *                                                   or a peer.service)
 *   IL  <empty>  parent child calls errors          (Zipkin's rule)
 *   IJ  <empty>  parent child calls errors          (Jaeger's rule) */
void infer_write_partial(infer *m, infer_links *l, tr_output *out);
/* The IK, IL and IJ records of l alone, for a partial of another kind that
 * holds the calls (tr-report's); infer_merge_line reads them back. */
void infer_links_write_partial(infer_links *l, strbuf *b);
/* Feed one line of a partial; m and l may be NULL to ignore their records.
 * Returns -1 after writing a message (what) on a bad line. */
int infer_merge_line(infer *m, infer_links *l, const char *line, size_t len,
		     char *what, size_t whatlen);
/* --merge: every partial file (none: stdin), checked whole (partial.h);
 * as tr_partial_merge_files returns. */
int infer_merge_files(infer *m, infer_links *l, char **files, int nfiles, int keep_going);
/* After merging: -1 when the counts cannot come from real traces (a pair
 * seen in more traces than were counted: an IT record is missing). */
int infer_check_counts(const infer *m);

#endif
