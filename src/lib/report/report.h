/* report.h - tr-report: one pass over traces to an HTML page (or Markdown
 * with SVG files beside it) holding what a postmortem needs: the inputs,
 * the slowest requests with their timelines, latency per operation,
 * critical-path time per service with flame graphs, tr-temporal's top
 * causes, the service graph and, given one, the comparison with a
 * baseline. See tr-report(1). */
#ifndef TR_REPORT_H
#define TR_REPORT_H

#include <stddef.h>

#include "filter.h"

typedef struct report_opts {
	char **files;		/* inputs; none: stdin */
	int nfiles;
	const char *out_path;	/* NULL: stdout (HTML only) */
	int markdown;		/* -f md: the pictures go beside out_path */
	const char *baseline;	/* --baseline FILE, or NULL */
	int pct[16];		/* --percentile: flame graphs per latency band */
	size_t npct;
	size_t top;		/* slowest requests drawn */
	double min_share;	/* timelines' --min-share */
	int keep_going, quiet, verbose;
	int keep_streams;	/* --keep-streams: long-lived streams rank too */
	int allow_empty;	/* --allow-empty: no trace gives a report that says so */
	size_t max_spans, max_bytes;
	const char *where;	/* --where: the traces reported on */
	int partial;		/* --partial: the shard's candidates, not a page */
	int merge;		/* --merge: files are partials */
	int page;		/* --merge --page: the page, not the chosen */
	const char *chosen;	/* --partial --chosen FILE: phase 2 */
} report_opts;

/* The tool reads its input through tr_filter (filter.h): report_trace
 * is its on_trace and report_end its on_end, with the report as ctx;
 * every trace is also copied to a temporary file, which the report's
 * second pass (the timelines, tr-temporal) reads. */
typedef struct report report;
report *report_new(const report_opts *o);
/* --baseline FILE (phase 2 over shards: --chosen FILE) read first: 0, or
 * TR_EXIT_INPUT after the message. */
int report_read_baseline(report *r);
int report_trace(void *ctx, tr_trace *t, strbuf *out);
void report_end(void *ctx, tr_output *out);
/* Its verdict hook: keeps the loop's counts (and says nothing). */
int report_read(void *ctx, const tr_filter_counts *c, int status);
/* What was read, for the tool's verdict. */
typedef struct report_counts {
	size_t traces, spans, analysed;	/* analysed: with a timed root */
	tr_filter_counts read;		/* the loop's */
} report_counts;
report_counts report_counts_get(const report *r);
/* The second pass, the page and its pictures written to out_path. */
void report_write_out(report *r);
void report_free(report *r);

/* Over shards (report_partial.c). Phase 1: --partial writes, in place of
 * the page, a shard's count of traces and its candidates for the slowest
 * requests (its own --top slowest, with their places in it); --merge reads
 * such partials in the order of a pass over the shards one after the
 * other and writes the slowest of that pass: the chosen traces, as a
 * partial of their own. */
void report_write_partial(report *r);
/* --merge (--page: the page from the partials, its sections that are not
 * sums over traces said to be missing): 0, or TR_EXIT_INPUT after the
 * message (nothing written). */
int report_merge(const report_opts *o);

#endif
