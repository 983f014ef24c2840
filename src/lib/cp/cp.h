/* cp.h - the critical path of one trace (Jaeger UI's and CRISP's algorithm),
 * and the reports tr-cp builds over many traces: summaries, folded stacks,
 * DOT, what-if. See tr-cp(1) for the definitions. */
#ifndef TR_CP_H
#define TR_CP_H

#include <stddef.h>
#include <stdint.h>

#include "core/io.h"
#include "core/trace.h"
#include "core/util.h"

/* Where a span stands after the analysis. */
enum cp_state {
	CP_OFF,		/* not analysed: no time, a CONSUMER of a PRODUCER (or
			   under one) or outside its parent */
	CP_TREE,	/* in a root's sanitised tree, off the critical path */
	CP_PATH		/* on the critical path */
};

/* One stretch of the critical path: [start, end) spent in span itself. */
typedef struct cp_section {
	int32_t span;
	int64_t start, end;
} cp_section;

/* A child in its parent's list, sorted by (end desc, start, span index). */
typedef struct cp_kid {
	int64_t end, start;
	int32_t span;
} cp_kid;

/* The analysis of one trace. Arrays are indexed like t->spans and reused
 * from trace to trace (no allocation per span). */
typedef struct cp_trace {
	double overlap_allowance;	/* fraction of the parent's duration */
	int32_t root;			/* the first root analysed; -1: none */
	int64_t root_duration;		/* that root's duration */
	int64_t path_length;		/* all analysed roots' durations */
	size_t nanalysed;		/* roots analysed */
	size_t noutside;		/* children left out: wholly outside their parent */
	/* happens-before edges of tr-infer bound to the trace (infer/hb.h), or
	 * NULL: a child then waits for its model predecessors, not for the
	 * siblings that ended before it; counts of the children the model
	 * names, and of those it does not (the timing guess stays for them) */
	const struct hb_model *hb;
	size_t nkids_model, nkids_guess;
	/* with edges: The Mystery Machine's slack, how many µs a span of the
	 * sanitised tree could end later without its root ending later */
	int64_t *slack, *from;		/* from: scratch, a child's latest predecessor's end */
	size_t nspans;
	uint8_t *state;			/* enum cp_state */
	int64_t *start, *end;		/* clamped window (CP_TREE, CP_PATH) */
	int64_t *self;			/* cp.self */
	int32_t *order;			/* the sanitised tree, parents first */
	size_t norder;
	int32_t *path;			/* the critical spans, parents first */
	size_t npath;
	cp_section *sec;		/* in the order Jaeger UI emits them */
	size_t nsec;
	/* work space */
	cp_kid *kids;			/* children lists, one range per span */
	int64_t *kstart, *kend;		/* the same ranges' starts and ends, ascending */
	uint32_t *koff, *kn;
	int32_t *stack;
	int64_t *cut, *kcut;		/* overlap cut off a span's end; its children's */
	uint8_t *overfull;		/* critical children longer than the span */
	struct cp_frame *frames;
	size_t cap, capsec, capframes;
} cp_trace;

void cp_trace_init(cp_trace *c, double overlap_allowance);
/* Analyse every timed root of t, earliest first. Returns 0, or -1 when t
 * has no root with a time (nothing analysed). */
int cp_trace_run(cp_trace *c, const tr_trace *t);
/* The same over happens-before edges bound to t (hb_bind gave 1), or
 * with hb NULL, cp_trace_run. */
struct hb_model;
int cp_trace_run_model(cp_trace *c, const tr_trace *t, const struct hb_model *hb);
void cp_trace_free(cp_trace *c);

/* The conventional self time of span i: its duration less the time any of
 * its children (all of them, clipped to it) runs. 0 for a span with no time. */
int64_t cp_conventional_self(const tr_trace *t, int32_t i);

/* Nearest-rank percentile (p in 1..100) of v[0..n), sorted ascending. */
int64_t cp_percentile(const int64_t *v, size_t n, int p);

/* --- reports over many traces (cp_report.c) --- */

enum cp_format { CP_TSV, CP_CSV, CP_JSON };
int cp_format_parse(const char *s);	/* -1 when unknown */

/* --summary KEY: "service", "operation" (service and operation) or a tag. */
typedef struct cp_summary cp_summary;
cp_summary *cp_summary_new(const char *key, int format);
/* --units: the durations' unit (enum table_units; default µs). */
void cp_summary_set_units(cp_summary *s, int units);
void cp_summary_add(cp_summary *s, const tr_trace *t, const cp_trace *c);
void cp_summary_write(cp_summary *s, tr_output *out);
/* With a tag as key: when no span had it, warn (with the closest tag key
 * met, or service/operation) and return 1. */
int cp_summary_unmatched(const cp_summary *s);
void cp_summary_free(cp_summary *s);
/* --partial: the groups' states, which --merge adds up exactly (per-trace
 * values included: the percentiles are those of one pass). */
void cp_summary_write_partial(cp_summary *s, tr_output *out);
/* What its partials are made for (partial.h's frame): "summary key=KEY";
 * valid until the next call. */
const char *cp_summary_made_for(cp_summary *s);
/* --merge: one record of a partial (line is modified). Returns 0, or -1 with
 * what is wrong in err. */
int cp_summary_merge_line(cp_summary *s, char *line, size_t len, char *err, size_t errlen);

/* --folded: critical-path µs per call path, summed over traces. */
typedef struct cp_folded cp_folded;
cp_folded *cp_folded_new(void);
void cp_folded_add(cp_folded *f, const tr_trace *t, const cp_trace *c);
void cp_folded_write(cp_folded *f, tr_output *out);
void cp_folded_free(cp_folded *f);
/* --folded --merge: one line of folded output ("stack value"), added to the
 * stack's total (line is modified); -1 with what is wrong in err. The
 * merged stacks are written as cp_folded_write writes them. */
typedef struct cp_folded_sum cp_folded_sum;
cp_folded_sum *cp_folded_sum_new(void);
int cp_folded_sum_line(cp_folded_sum *f, char *line, size_t len, char *err, size_t errlen);
void cp_folded_sum_write(cp_folded_sum *f, tr_output *out);
void cp_folded_sum_free(cp_folded_sum *f);

/* --dot: the span tree of t with the critical path drawn in red, as a cluster. */
void cp_dot_trace(strbuf *b, const tr_trace *t, const cp_trace *c, int units);

/* --whatif 'service=X[,operation=Y]:scale=F' or ':minus=D' (cp_whatif.c). */
typedef struct cp_whatif cp_whatif;
cp_whatif *cp_whatif_new(int format);
/* --units: the durations' unit (enum table_units; default µs). */
void cp_whatif_set_units(cp_whatif *w, int units);
/* Add a rule; a span takes the first rule that matches it. Returns -1
 * after writing a message to err when the rule is malformed. */
int cp_whatif_add_rule(cp_whatif *w, const char *rule, char *err, size_t errsize);
/* Re-lay the analysed tree of t; appends the trace's row to out. */
void cp_whatif_add(cp_whatif *w, const tr_trace *t, const cp_trace *c, strbuf *out);
/* The predicted latency of c's root (for tests): */
int64_t cp_whatif_predict(cp_whatif *w, const tr_trace *t, const cp_trace *c);
void cp_whatif_finish(cp_whatif *w, strbuf *out);
/* Warn about every rule that matched no span (with the closest name met),
 * and with verbose the spans each rule matched; returns how many matched
 * none. */
size_t cp_whatif_unmatched(const cp_whatif *w, int verbose);
/* --partial: T records (a trace's latencies) and R records (a rule's
 * counts) in a partial's frame, made for the rules and the overlap
 * allowance, instead of the table. */
void cp_whatif_set_partial(cp_whatif *w, int partial, double allowance);
/* What a partial of these rules is made for (the header's text). */
const char *cp_whatif_made_for(cp_whatif *w, double allowance);
/* --merge: one record of a partial (line is modified): a T record's row
 * appended to out, an R record's counts added; -1 with err when it is not
 * one. */
int cp_whatif_merge_line(cp_whatif *w, char *line, size_t len, strbuf *out, char *err,
			 size_t errlen);
void cp_whatif_free(cp_whatif *w);
/* The counterfactual what-if (cp_counter.c): a rule removes work
 * (trace=ID:remove, service=X:remove) or replaces waits (wait=baseline).
 * Then every trace is kept (picked: reported) and predicted at
 * cp_whatif_finish, whose table ends with the assumptions made; the
 * baseline's traces, read first, give the waits. */
int cp_whatif_counterfactual(const cp_whatif *w);
int cp_whatif_wants_baseline(const cp_whatif *w);
void cp_whatif_keep(cp_whatif *w, tr_trace *t, int picked);
void cp_whatif_baseline_add(cp_whatif *w, const tr_trace *t, const cp_trace *c);
/* cp_whatif_finish for it: the rows, the quantiles, the assumptions. */
void cp_whatif_counter_finish(cp_whatif *w, strbuf *out);

/* Helpers the report writers share. */

#endif
