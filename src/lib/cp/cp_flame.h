/* cp_flame.h - flame graphs of critical-path time over many traces (tr-cp
 * --flame, tr-report): one for every trace and, as CRISP draws them, one
 * per latency percentile; against a baseline's traces, differential. */
#ifndef TR_CP_FLAME_H
#define TR_CP_FLAME_H

#include "cp/cp.h"

/* The traces "around" percentile p: those whose latency rank lies within
 * one percentile point of p (ranks from floor((p-1)n/100) to
 * ceil((p+1)n/100), 1 to n), so never fewer than one. */
void cp_percentile_band(size_t n, int p, size_t *first, size_t *end);

typedef struct cp_flames cp_flames;

cp_flames *cp_flames_new(void);
/* Take the critical path of t in; baseline: the trace is the baseline's. */
void cp_flames_add(cp_flames *f, const tr_trace *t, const cp_trace *c, int baseline);
size_t cp_flames_ntraces(const cp_flames *f, int baseline);
/* Long-lived streams (tr_span_is_stream roots) are left out of the
 * percentile bands unless kept (before the first add); how many were. */
void cp_flames_keep_streams(cp_flames *f, int keep);
size_t cp_flames_streams(const cp_flames *f);
/* The graphs as one SVG, stacked: every trace's, then one per percentile
 * of pct[0..npct); each against the baseline's same traces when it has any. */
void cp_flames_svg(cp_flames *f, strbuf *b, const int *pct, size_t npct, double width);
void cp_flames_free(cp_flames *f);
/* --partial and --merge draw ngraphs graphs (1, the default: every
 * trace's; with --percentile, one more per band). */
void cp_flames_set_graphs(cp_flames *f, size_t ngraphs);
/* --baseline with --partial or --merge (before the first trace): each
 * side's tree apart, so that a partial holds the baseline's and the
 * incident's in the order each met its frames; joined when drawn. */
void cp_flames_apart(cp_flames *f);
/* --bands: the bands (bit i: graph i + 1) of the trace of that side
 * (baseline or not) added last. */
void cp_flames_set_band(cp_flames *f, int baseline, uint32_t bands);
/* --flame --partial: the graphs as a mergeable state (the tree, each
 * node's µs summed per graph, the count of traces per graph) in a
 * partial's frame made for made_for. */
void cp_flames_write_partial(cp_flames *f, const char *made_for, tr_output *out);
/* Its records alone, each type after prefix, into b (spilled to out when
 * not NULL); how many. */
size_t cp_flames_write_records(cp_flames *f, strbuf *b, const char *prefix, tr_output *out);
/* --flame --merge: one record of a partial (line is modified) added in;
 * -1 with err when it is not one. The graph of every trace is then drawn
 * as from one pass. */
int cp_flames_merge_line(cp_flames *f, char *line, size_t len, char *err, size_t errlen);

/* After a merge with the sides apart: -1 when the last partial held the
 * baseline's section and not the incident's; else 0. */
int cp_flames_merged_whole(const cp_flames *f);

/* "50,95,99": percentiles from 1 to 100 into pct (at most max); returns
 * how many, or -1 when s is not such a list. */
int cp_percentiles_parse(const char *s, int *pct, size_t max);

#endif
