/* whatif_impl.h - what cp_whatif.c and cp_counter.c share (not a public API). */
#ifndef TR_CP_WHATIF_IMPL_H
#define TR_CP_WHATIF_IMPL_H

#include "cp/cp.h"
#include "core/hash.h"
#include "core/heap.h"

/* What a rule does to the spans it matches. */
enum whatif_kind { WR_SCALE, WR_REMOVE, WR_WAIT };

typedef struct whatif_rule {
	char *text;			/* as given, for messages */
	char *service, *operation;	/* operation NULL: any */
	char *trace_id;			/* trace=ID:remove: every span of it */
	int kind;			/* enum whatif_kind */
	double scale;			/* scale=F */
	int64_t minus;			/* minus=D (µs); -1: a scale rule */
	size_t matched;			/* spans, over all traces */
	size_t shadowed;		/* spans it matches that an earlier rule took */
	size_t outside;			/* spans it matches outside the analysed trees */
	const char *near;		/* trace=ID that no trace has: the closest id */
} whatif_rule;

/* A trace held for the counterfactual what-if: every trace of the input
 * may delay another through a resource. */
typedef struct whatif_kept {
	tr_trace *t;
	int picked;			/* --trace asked for it: reported */
} whatif_kept;

struct cp_whatif {
	whatif_rule *rule;
	size_t nrules, caprules;
	int format, units;
	int64_t *dur, *rel_end;		/* per span: new duration, new end from the parent's start */
	int64_t *qwait;			/* per span: its recorded queue wait */
	int64_t *applied;		/* per span: the cut the re-lay gave it */
	struct by_start *byfirst;	/* scratch: one parent's children by start */
	tr_heap heap;			/* scratch: its children by end, as span indexes */
	size_t cap;
	struct latency {
		int64_t orig, pred;
	} *lat;				/* per trace */
	size_t n, capn;
	int64_t *sorted;		/* scratch for the quantiles */
	arena mem;
	strmap services, operations;	/* names met, for "did you mean" */
	size_t nunmatched;		/* rules that matched nothing yet: until
					   none is left, the names are kept */
	int partial;			/* --partial: T records, not rows */
	int merged;			/* --merge: no span names were met */
	strbuf made_for;		/* the partial's header: the rules */
	/* The counterfactual what-if (cp_counter.c): on when a rule removes
	 * work or replaces waits; then scale and minus rules act on every
	 * trace's work too. */
	int counter;
	const int64_t *cut;		/* per span: how much earlier the re-laid
					   resources start it (NULL: not at all) */
	const int64_t *qcap;		/* per span: the queue wait it can lose */
	whatif_kept *kept;
	size_t nkept, capkept;
	strmap base_ids;		/* wait=baseline: "service\toperation" -> index */
	struct base_wait {
		int64_t sum;
		size_t n;
	} *base;
	size_t nbase, capbase;
	strbuf base_key;		/* "service\toperation" being made */
	size_t nbaseline;		/* baseline traces read */
	double allowance;		/* --overlap-allowance, for the traces kept */
	/* for the assumptions: spans that waited, segments and resources
	 * laid, segments moved, wait=baseline spans with and without
	 * baseline calls, requests removed */
	size_t nqueued, nsegs, nres, nmoved, nwaits, nwaits_unknown, nremoved;
	size_t nrounds;			/* resources and trees laid in turn */
	int round_capped;		/* stopped at the bound, not at a fixed point */
};

/* cp_whatif.c, for cp_counter.c */
size_t cpw_relay_trace(cp_whatif *w, const tr_trace *t, const cp_trace *c, int count);
void cpw_ready_shifts(const cp_whatif *w, const cp_trace *c, int64_t *moved);
int64_t cpw_latency(const cp_whatif *w, const tr_trace *t, const cp_trace *c, int predicted);
void cpw_add_latency(cp_whatif *w, const char *id, int64_t orig, int64_t pred, int64_t nmatched,
		     strbuf *out);
whatif_rule *cpw_rule_for(cp_whatif *w, const tr_trace *t, const tr_span *s);
int cpw_rule_matches(const whatif_rule *r, const tr_trace *t, const tr_span *s);
void cpw_reserve(cp_whatif *w, size_t n);
/* The quantiles after the rows; json's list of them left open. */
void cpw_table_end(cp_whatif *w, strbuf *out);

#endif
