/* baseline.h - "what changed": critical-path time per request, per service
 * or operation, of an incident's traces against a baseline's (tr-cp
 * --baseline, tr-report --baseline). See tr-cp(1) for the test. */
#ifndef TR_BASELINE_H
#define TR_BASELINE_H

#include "cp/cp.h"

/* Read every trace of path (the line format or an export), run c over it
 * and hand each analysed trace to fn. Returns the traces read, or -1 after
 * a message when path could not be read or held a bad trace (keep_going:
 * bad traces are skipped, as -k does for the inputs). */
long cp_read_traces(const char *path, cp_trace *c, int keep_going, size_t max_spans,
		    void (*fn)(void *ctx, const tr_trace *t, const cp_trace *c), void *ctx);
/* The same with the user's --max-bytes as well (0: the default). */
long cp_read_traces_limited(const char *path, cp_trace *c, int keep_going, size_t max_spans,
			    size_t max_bytes,
			    void (*fn)(void *ctx, const tr_trace *t, const cp_trace *c), void *ctx);

/* A baseline needs a spread: at least 2 of the traces read from path
 * (nread) with a timed root (ntimed: cp_compare_ntraces or
 * cp_flames_ntraces of the baseline). Returns 0, or -1 after the one
 * message tr-cp and tr-report share: "path: --baseline: N of M traces
 * have a timed root; a baseline needs at least 2 to have a spread". */
int cp_baseline_check(const char *path, long nread, size_t ntimed);

/* A difference counts when it is at least this many standard errors of
 * the baseline's spread (z)... */
#define BASELINE_MIN_Z 4.0
/* ...and it is at least this fraction of the baseline's mean latency. */
#define BASELINE_MIN_SHARE 0.01

typedef struct cp_diff {
	const char *service, *operation;	/* operation "" when keyed by service */
	double before, after;			/* mean critical-path µs per request */
	double t;				/* z of after - before */
	int significant;
	/* Error rates in percent of the group's spans (every span, on the
	 * critical path or not; tr_span_error), -1 for a side without its
	 * spans; err_z from cp_rate_z's binomial test; significant as
	 * latency is: |z| >= BASELINE_MIN_Z and at least one point. */
	double err_before, err_after, err_z;
	int err_significant;
} cp_diff;

/* The two-sample test of a rate, after against before: z of the
 * difference of after/n_after and before/n_before under their pooled
 * rate p, with standard error sqrt(p (1 - p) (1/n_a + 1/n_b)) for a
 * proportion (binomial: failed spans of spans) or sqrt(p (1/n_a + 1/n_b))
 * for a count per unit (Poisson: failures per request); ±inf when that is
 * 0 and the rates differ. */
double cp_rate_z(double after, double n_after, double before, double n_before, int binomial);

typedef struct cp_compare cp_compare;

/* key: "service" or "operation" (service and operation). */
cp_compare *cp_compare_new(const char *key);
void cp_compare_add(cp_compare *k, const tr_trace *t, const cp_trace *c, int baseline);
size_t cp_compare_ntraces(const cp_compare *k, int baseline);
/* Span kinds inferred from process boundaries (kinds.h), both sides. */
size_t cp_compare_inferred(const cp_compare *k);
/* The groups, significant ones first, larger differences first; valid
 * until the next call or cp_compare_free. */
size_t cp_compare_rows(cp_compare *k, const cp_diff **rows);
/* The table (enum cp_format, enum table_units). */
void cp_compare_write(cp_compare *k, strbuf *out, int format, int units);
/* One line for people: what differs, or that nothing does, and the test. */
void cp_compare_verdict(cp_compare *k, strbuf *out);
void cp_compare_free(cp_compare *k);

/* tr-cp --summary KEY --baseline over shards, in two phases (tr-cp(1)).
 * The batches follow the order of the traces, so a trace's batch is its
 * place among all the traces of its side in the order of the shards:
 * phase 1 counts each shard's traces (cp_compare_write_counts), a merge of
 * those counts in the order of the shards gives each shard the place of
 * its first trace (cp_shards), phase 2 reads them
 * (cp_compare_read_shards) before its traces and writes its sums
 * (cp_compare_write_partial), and the last merge adds them up
 * (cp_compare_merge_line, cp_compare_merged). The partials are in
 * partial.h's frame, kind "cp", made for what the caller says. */
void cp_compare_write_counts(const cp_compare *k, const char *made_for, tr_output *out);
typedef struct cp_shards cp_shards;
cp_shards *cp_shards_new(void);
/* One record of a phase-1 partial (tr_partial_merge_fn). */
int cp_shards_line(cp_shards *s, char *line, size_t len, char *err, size_t errlen);
/* Each shard's first place, in the order the partials came. */
void cp_shards_write(const cp_shards *s, const char *made_for, tr_output *out);
void cp_shards_free(cp_shards *s);
/* Phase 2: -1 after a message when path is not cp_shards_write's. */
int cp_compare_read_shards(cp_compare *k, const char *path, const char *made_for);
/* Phase 2, after the traces: -1 (what) when a side's traces are not a
 * shard phase 1 counted (path: the file of places). */
int cp_compare_placed(const cp_compare *k, const char *path, char *what, size_t whatlen);
void cp_compare_write_partial(const cp_compare *k, const char *made_for, tr_output *out);
/* One record of a phase-2 partial (tr_partial_merge_fn). */
int cp_compare_merge_line(cp_compare *k, char *line, size_t len, char *err, size_t errlen);
/* After the last: -1 (what) when the partials do not hold every trace
 * phase 1 counted; else k is that of one pass over the shards. */
int cp_compare_merged(cp_compare *k, char *what, size_t whatlen);

/* tr-report over shards, without a baseline: the incident's count of
 * traces ("TYPE\tN") and each group's critical-path µs ("TYPE\tservice\t
 * operation\tµs", escaped) into b; a merge adds each in, in any order,
 * and its rows' "after" are then those of one pass. */
void cp_compare_write_sums(const cp_compare *k, char type, strbuf *b);
void cp_compare_add_sum(cp_compare *k, const char *service, const char *operation, int64_t us);
void cp_compare_add_count(cp_compare *k, size_t ntraces);

#endif
