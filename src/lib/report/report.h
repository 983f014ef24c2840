/* report.h - tr-report: one pass over traces to an HTML page (or Markdown
 * with SVG files beside it) holding what a postmortem needs: the inputs,
 * the slowest requests with their timelines, latency per operation,
 * critical-path time per service with flame graphs, tr-temporal's top
 * causes, the service graph and, given one, the comparison with a
 * baseline. See tr-report(1). */
#ifndef TR_REPORT_H
#define TR_REPORT_H

#include <stddef.h>

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
} report_opts;

/* The whole tool; returns the exit status. */
int report_run(const report_opts *o);

#endif
