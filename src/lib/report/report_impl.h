/* report_impl.h - what tr-report gathers in its pass over the traces,
 * shared by report.c (gathering) and report_doc.c (writing). */
#ifndef TR_REPORT_IMPL_H
#define TR_REPORT_IMPL_H

#include <stdio.h>

#include "clock.h"
#include "cp/baseline.h"
#include "cp/cp.h"
#include "cp/cp_bands.h"
#include "cp/cp_flame.h"
#include "cp/suspects.h"
#include "core/hash.h"
#include "infer/infer.h"
#include "report/report.h"

/* tr-temporal's window around each queried trace: half of it either side. */
#define TEMPORAL_WINDOW 1000

/* One of the slowest requests, drawn when it came. */
typedef struct slow_trace {
	int64_t latency;
	size_t ordinal;			/* its place in the input, from 1 */
	size_t failed;			/* its spans that failed */
	char *trace_id, *root;		/* root: "service: operation" */
	strbuf svg;
} slow_trace;

/* report.c: which of v[0..n) a slower trace replaces (the last by latency,
 * ties in the order of the input). */
size_t report_slow_last(const slow_trace *v, size_t n);

/* Durations of one (service, operation). */
typedef struct op_stats {
	const char *service, *operation;
	int64_t *dur;
	size_t n, cap;
} op_stats;

/* A service of the graph. */
typedef struct svc_node {
	const char *name;
	size_t spans;
	int root;		/* some trace's root span is in it */
} svc_node;

/* A cause tr-temporal found for one of the slowest traces. */
typedef struct cause {
	char *trace_id, *cause_trace, *role, *label;
	int64_t self;
} cause;

/* Work in a linked trace tr-temporal followed for one of the slowest. */
typedef struct linked_work {
	char *trace_id, *linked_trace, *linked_root;
	int64_t delay;
} linked_work;

/* Failures (tr-format(5), FAILURES) of a service, of a (service,
 * operation), or of one message there: its spans, those that failed, and
 * a trace where one did. */
typedef struct fail_row {
	const char *service, *operation, *message;	/* operation, message: NULL */
	const char *example;
	size_t spans, failed;
} fail_row;
typedef struct fail_table {
	strmap map;
	fail_row *v;
	size_t n, cap;
} fail_table;

typedef struct report {
	const report_opts *o;
	char *copy;			/* the traces, for the second pass */
	cp_trace cp;
	arena mem;
	strbuf key;
	/* inputs */
	size_t ntraces, nspans, nanalysed;
	FILE *copy_file;		/* the copy being written (report_trace) */
	strbuf copy_buf;
	tr_filter_counts read;		/* the loop's counts */
	int64_t first, last;		/* time range of the timed spans */
	int have_time;
	/* the slowest requests, slowest first once sorted */
	slow_trace *slow;
	size_t nslow;
	/* latency per operation */
	strmap ops_map;
	op_stats *ops;
	size_t nops, capops;
	/* critical path */
	cp_compare *compare;		/* by service; the baseline's too */
	cp_flames *flames;
	cp_suspects *suspects;		/* with a baseline: the likely cause */
	/* the service graph */
	strmap svc_map;
	svc_node *svc;
	size_t nsvc, capsvc;
	infer_links *links;		/* the calls, by tr-infer --links's rules */
	/* tr-temporal */
	cause *causes;
	size_t ncauses, capcauses;
	linked_work *linked;
	size_t nlinked, caplinked;
	int temporal_ran;
	/* failures: per service, per operation, per message */
	fail_table fail_svc, fail_op, fail_msg;
	fail_table base_svc;		/* the baseline's, per service */
	size_t base_spans, base_failed;
	size_t nfailed, trace_failed;	/* spans that failed; of the last trace */
	size_t streams;			/* long-lived streams left out of the slowest */
	/* --merge --page: the page from partials; the inputs their shards read */
	int from_partials;
	char **inputs;
	size_t ninputs, capinputs;
	/* over shards: phase 1's latencies (L records); phase 2's bands of the
	 * chosen file (trace id -> bit i: --percentile i); the merge read the
	 * critical path's sums and flame graphs (phase 2's partials) */
	strbuf ranks;
	strmap bands;
	int cp_built;
	/* phase 2: the chosen trace ids (-> latency; -1 once drawn) and the W
	 * records of their timelines; the merge: the W records read (id and
	 * picture), and whether the timelines were built from them */
	strmap chosen;
	strbuf timelines;
	char **tl_id, **tl_svg;
	size_t ntl, captl, captl2;
	int timelines_built;
	/* the causes: phase 1's first trace; phase 2's shards (first trace ->
	 * place of it), its own place, the chosen places, the neighbours of
	 * the slowest as Y records; the clock evidence (phase 2) or its merge;
	 * the merge's neighbours, in the line format */
	char *first_id;
	strmap offsets;		/* first trace -> index in shard_at */
	struct report_shard_at {
		size_t offset, count;	/* its place; its traces, as phase 1 counted */
		uint64_t digest;	/* of its trace ids in order */
	} *shard_at;
	size_t nshard_at, capshard_at;
	size_t offset, *places, nplaces, capplaces;
	const struct report_shard_at *shard;	/* phase 2: this shard's, as phase 1 saw it */
	uint64_t ids_digest;	/* of the trace ids read, in order */
	strbuf near, neighbours;
	tr_clock *clock;
	int causes_built;
} report;

/* report_phase2.c: what a partial of phase ("page", "chosen") is made for;
 * the --percentile list as written ("50,95,99" by default). */
void report_made_for(strbuf *b, const report_opts *o, const char *phase);
void report_pct_text(const report_opts *o, strbuf *b);
/* Phase 1: the L record of the trace just analysed. Phase 2: its bands. */
void report_rank_trace(report *r, const tr_trace *t);
/* Phase 2: the chosen file read (--chosen): 0, or TR_EXIT_INPUT after the
 * message. */
int report_read_chosen(report *r);
/* Phase 2's records: Q (the percentiles), P (critical-path sums), G and
 * a flame partial's record (the flame graphs). */
void report_write_phase2(report *r, strbuf *b);
/* The merge: a W record (a chosen trace's timeline) kept; -1 when it is
 * not one. */
int report_timeline_line(report *r, tr_field *f, size_t nf);
/* The merge, the slowest known: each one's timeline from the W records;
 * -1 after a message when one has none. */
int report_timelines_take(report *r);
void report_phase2_free(report *r);
/* --partial: the first trace noted; phase 2: t's clock evidence, and t
 * written as Y records when it is within the temporal window of one of
 * the chosen. */
void report_near_trace(report *r, const tr_trace *t);
/* The merge: a K (clock evidence) or Y (a neighbour's line) record; -1
 * with err when it is not one. */
int report_causes_line(report *r, char *line, size_t len, char *err, size_t errlen);
/* report.c: tr-temporal over the neighbours (line-format records) with
 * the merged clock (solved), for the causes. */
void report_explain_merged(report *r, const strbuf *lines, tr_clock *clk);
/* The merge's ranks of phase 1's L records (tr-cp --flame --percentile's,
 * cp_bands.h, without sides), and the bands they give: one L record, -1
 * when it is not one; then Q and a B record per trace in a band, in the
 * order read; how many. */
int report_ranks_line(cp_ranks *k, tr_field *f, size_t nf);
size_t report_ranks_write(cp_ranks *k, const report_opts *o, strbuf *b);

/* report.c: the index of a service of the graph and the durations of a
 * (service, operation), made on first sight. */
uint32_t report_service_of(report *r, const char *name);
op_stats *report_op_of(report *r, const char *service, const char *operation);
/* Before a page: the note on the streams left out; a page from partials
 * with nothing to report is -1 after the message. */
int report_page_notes(const report *r);

/* report_failures.c: count the failures of t's spans (trace_failed: how
 * many); the row of (service, operation), NULL when none; free. */
void report_take_failures(report *r, const tr_trace *t);
const fail_row *report_fail_op(report *r, const char *service, const char *operation);
const fail_row *report_fail_service(const report *r, const char *service);
/* The same per service for a baseline trace. */
void report_take_baseline_failures(report *r, const tr_trace *t);
/* A row of a shard's table (kind 's', 'o' or 'm') added in, its example
 * kept unless the row has one (shards merged in the order of the pass). */
void report_fail_merge(report *r, int kind, const char *const part[3], size_t spans,
		       size_t failed, const char *example);
/* The table of kind, or NULL. */
fail_table *report_fail_table(report *r, int kind);
/* A service's error rate before (the baseline) and after, in percent; a
 * side without its spans has rate -1. */
typedef struct fail_change {
	const char *service;
	double before, after;
} fail_change;
/* The services of either side, the largest change first; returns how many
 * (*rows to be freed). */
size_t report_failure_changes(report *r, fail_change **rows);
void report_failures_free(report *r);

/* Markdown's pictures, written but not yet in place: they are committed
 * with the report, after every byte of all of them was written. */
typedef struct report_pics {
	tr_output **o;
	size_t n, cap;
} report_pics;

/* report_doc.c: the document, HTML or Markdown, to out; Markdown's
 * pictures to pics. */
void report_write(report *r, strbuf *out, report_pics *pics);
/* Commit the pictures, then remove the timeline pictures an earlier run
 * with more slow requests left beside the report (numbers past nslow). */
void report_pics_commit(report *r, report_pics *pics);
/* report_graph.c: the service graph as SVG. */
void report_service_graph(report *r, strbuf *out);

#endif
