/* temporal.h - temporal provenance (Zeno, Wu et al.) over spans: why did a
 * request take as long as it did, causes in other traces included.
 *
 * A span becomes a chain of self segments; RPCs and messages become
 * send/receive pairs with transit vertices; segments that occupy a resource
 * (service@host) are ordered on its workers across every trace of a window,
 * which gives the sequencing edges. Each queried trace's root interval is
 * split among the vertices that caused it (ANNOTATE, Zeno Fig. 6). */
#ifndef TR_TEMPORAL_H
#define TR_TEMPORAL_H

#include <stddef.h>
#include <stdint.h>

#include "clock.h"
#include "core/trace.h"

/* Overlaps and overshoots up to this many µs are clock noise: a segment that
 * starts this close to the end of the one before it on a worker follows it
 * (no second worker is invented), and a child that ends this close after its
 * parent is clamped into it (not taken for work the parent did not wait for). */
#define TP_EPSILON_US 10

enum tp_format { TP_LINE, TP_EXPLAIN, TP_DOT, TP_CSV, TP_JSON };

typedef struct tp_capacity {
	const char *resource;	/* exact resource name, e.g. "mysql@db-1" */
	int workers;
} tp_capacity;

/* One cause of one queried trace, as the csv and json tables give it. */
typedef struct tp_cause_row {
	const char *trace_id, *root;	/* root: "service:operation" */
	int64_t total;			/* the delay explained */
	const char *cause, *role;
	size_t count;
	int64_t self;			/* its share of the delay */
	const char *cause_trace;	/* "" when unexplained */
} tp_cause_row;

/* A linked trace a queried trace's answer followed (see tr-temporal(1),
 * Links): the share of the delay its work took. */
typedef struct tp_link_row {
	const char *trace_id;		/* the queried trace */
	const char *linked_trace;
	const char *linked_root;	/* "service:operation" of its root, "" if none */
	int64_t delay, total;		/* its share, and the explained interval */
} tp_link_row;

/* An event of a span (Zeno's T-QUERY asks about the delay between two):
 * its start, its end, or its first log whose event= is log. The span is
 * named by id, or by service:operation when one span of the trace has it. */
enum tp_event_kind { TP_EV_START, TP_EV_LOG, TP_EV_END };	/* their order in a span */
typedef struct tp_event {
	const char *text;	/* as given */
	char span[256];
	const char *log;	/* TP_EV_LOG: the event's name, in text */
	int kind;
} tp_event;

/* "SPAN:start", "SPAN:end" or "SPAN:log=NAME" into e; a usage error
 * (exit 2) naming opt when arg is none. */
void tp_event_parse(tp_event *e, const char *opt, const char *arg);

typedef struct tp_opts {
	enum tp_format format;
	const char *resource_key;	/* span tag refining the resource, or NULL */
	const tp_capacity *caps;
	size_t ncaps;
	size_t window;			/* traces buffered around the queried one */
	struct tr_pick *pick;		/* --trace ids; NULL or none: every trace */
	int check;			/* report broken invariants as findings */
	int allow_empty;		/* --check passes when no trace was analysed */
	int quiet;
	int units;			/* enum table_units of the report's durations;
					 * < 0: explain's and dot's own (ms, 1 decimal) */
	int infer_queues;		/* a late server or consumer queued behind the
					 * work on its resource (Zeno §6) */
	const tr_clock *clock;		/* per-host offsets, or NULL: clocks as recorded */
	const char *span;		/* --span: explain this span, not the root */
	int end_to_end;			/* the root's start to the trace's last end */
	const tp_event *from, *to;	/* --from, --to: the delay between them */
	double min_share;		/* --dot: leave out nodes below this share */
	const char *model, *name;	/* --model FILE, --name FIELDS (infer/hb.h) */
	/* csv, json: each cause to this function instead of the table */
	void (*on_cause)(void *ctx, const tp_cause_row *row);
	void *cause_ctx;
	/* any format: each linked trace an analysed trace's answer followed */
	void (*on_link)(void *ctx, const tp_link_row *row);
	void *link_ctx;
} tp_opts;

typedef struct tp_stats {
	size_t traces, analysed, skipped, causes, violations;
	size_t queried;		/* traces asked about (-t, or every one) */
	size_t span_found;	/* --span: traces that have the span; --from,
				 * --to: traces that have both events */
	size_t halo_short;	/* a shard's halo before or after its own traces
				 * shorter than half the window (said) */
} tp_stats;

typedef struct temporal temporal;

temporal *tp_new(const tp_opts *o);
/* Buffer t, taking its contents (tr_trace_swap: t is left holding memory
 * to reuse, as a reader's trace may); writes to out every trace (and
 * earlier line) that now has enough traces after it in the window. */
void tp_add_trace(temporal *tp, tr_trace *t, strbuf *out);
/* A traceless line, written in its place in the stream (line format only). */
void tp_add_line(temporal *tp, const char *line, size_t len, strbuf *out);
/* End of input: analyse and write everything still buffered. */
void tp_finish(temporal *tp, strbuf *out);
const tp_stats *tp_stats_get(const temporal *tp);
void tp_free(temporal *tp);

/* The tool runs through tr_filter (filter.h): a job holds what its
 * callbacks share. */
struct tr_filter;
typedef struct tp_job {
	temporal *tp;
	tp_opts o;
	const tr_clock *clock;	/* the loop's offsets while it runs, or NULL */
	strbuf held;		/* -f dot: the graph, written whole at the end */
	int header;		/* the line format's header is written */
} tp_job;
/* Set f's callbacks (and its allow_empty, quiet and read_ahead) to run
 * the analysis o asks for, after a first pass over the clocks when
 * clock_offsets; f->ctx becomes j. What was read before a bad trace is
 * analysed and written (end_on_stop). */
void tp_job_init(tp_job *j, struct tr_filter *f, const tp_opts *o, const char *clock_offsets);
void tp_job_free(tp_job *j);

/* For the verdict, after the run (and tp_stats_get). */
/* --check over no analysed trace: says so, returns TR_EXIT_FINDING. */
int tp_check_empty(const tp_stats *st);
/* -c naming a resource no span uses: a warning each, with the closest
 * resource met; returns how many. */
size_t tp_unknown_capacities(const temporal *tp);
/* -r naming a tag no span has (said, with the closest key). */
int tp_resource_key_missing(const temporal *tp);
/* -v: the offsets applied, host by host; resources whose capacity every
 * worker exceeded. */
void tp_report_clocks(const tr_clock *c);
void tp_report_overlaps(temporal *tp);

/* -c RESOURCE=K (arg is cut at its '='), into caps[o->ncaps++]. */
void tp_capacity_option(tp_opts *o, tp_capacity *caps, char *arg);
/* --from and --to: a usage error when one comes alone, with --span,
 * --end-to-end or --baseline (baseline set), or backwards within a span. */
void tp_events_check(const tp_opts *o, int baseline);
/* After the run: an event no trace has, or two that are not causally
 * related, said (with the closest span met); returns the exit status. */
int tp_events_verdict(const temporal *tp, int status);
/* The happens-before edges the triggers followed (said with -v, or when
 * children kept the timing guess unless quiet), and --model's events that
 * no span matched (said: the status becomes a usage error's). */
int tp_model_verdict(const temporal *tp, int status, int verbose);

/* A what-if over the resources (temporal_whatif.c): one segment that
 * occupies resource res (a dense index), ready at ready, served over
 * [start, start + dur) as recorded; in the what-if ready at newready for
 * newdur (< 0: its work is gone), waiting exactly wait when wait >= 0
 * (a wait given by the rule, not by the queue). */
typedef struct tp_wseg {
	int32_t res;
	int64_t ready, start, dur, newdur;
	int64_t newready, wait;
	int64_t shift;		/* out: how much shorter its queue is (< 0: longer) */
} tp_wseg;
/* Re-lay each resource's segments first come, first served (by ready
 * time, then recorded start), on the workers their overlaps needed, under the
 * work-conserving assumption (a segment starts at max(ready, a worker
 * free)), as recorded and as changed; each segment's shift is the
 * difference of its two queues. Returns how many queues changed. */
size_t tp_whatif_relay(tp_wseg *seg, size_t n);

/* The options of the tool's run that are not the analysis's. */
typedef struct tp_run_opts {
	char **files;
	int nfiles;
	const char *out_path;
	int keep_going, verbose;
	const char *clock_offsets;	/* tr_filter's: NULL, estimated, a file */
	size_t max_spans, max_bytes;	/* per trace; 0: the reader's defaults */
	const char *where;		/* --where (not with --baseline) */
} tp_run_opts;

/* --baseline: the causes of the incident's slow requests (each at or above
 * the band-th percentile of its root operation's latency) against those of
 * the baseline's requests of the same operations in the same band: per
 * cause, its delay per request before and after, and where it appears.
 * r->files are the incident; the table goes to r->out_path. Returns the
 * exit status. */
int tp_diff_run(const tp_run_opts *r, const tp_opts *o, const char *baseline, double band);

#endif
