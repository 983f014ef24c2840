/* report_impl.h - what tr-report gathers in its pass over the traces,
 * shared by report.c (gathering) and report_doc.c (writing). */
#ifndef TR_REPORT_IMPL_H
#define TR_REPORT_IMPL_H

#include "baseline.h"
#include "cp.h"
#include "cp_flame.h"
#include "cp/suspects.h"
#include "hash.h"
#include "report.h"

/* One of the slowest requests, drawn when it came. */
typedef struct slow_trace {
	int64_t latency;
	size_t ordinal;			/* its place in the input, from 1 */
	char *trace_id, *root;		/* root: "service: operation" */
	strbuf svg;
} slow_trace;

/* Durations of one (service, operation). */
typedef struct op_stats {
	const char *service, *operation;
	int64_t *dur;
	size_t n, cap;
} op_stats;

/* A service of the graph and a call between two services. */
typedef struct svc_node {
	const char *name;
	size_t spans;
	int root;		/* some trace's root span is in it */
	int layer, row;
} svc_node;
typedef struct svc_edge {
	uint32_t from, to;
	size_t calls;
} svc_edge;

/* A cause tr-temporal found for one of the slowest traces. */
typedef struct cause {
	char *trace_id, *cause_trace, *role, *label;
	int64_t self;
} cause;

typedef struct report {
	const report_opts *o;
	char *copy;			/* the traces, for the second pass */
	cp_trace cp;
	arena mem;
	strbuf key;
	/* inputs */
	size_t ntraces, nspans, nanalysed;
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
	strmap svc_map, edge_map;
	svc_node *svc;
	size_t nsvc, capsvc;
	svc_edge *edge;
	size_t nedge, capedge;
	/* tr-temporal */
	cause *causes;
	size_t ncauses, capcauses;
	int temporal_ran;
} report;

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
