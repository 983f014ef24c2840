/* temporal_impl.h - the internals shared by temporal_*.c (not a public API). */
#ifndef TR_TEMPORAL_IMPL_H
#define TR_TEMPORAL_IMPL_H

#include "core/pick.h"
#include "core/table.h"
#include "temporal/temporal.h"

enum tv_kind { TV_SEG, TV_TRANSIT };
enum tt_kind { TT_REQUEST, TT_RESPONSE, TT_MESSAGE };
/* Roles of causes; the names are in tp_role_name. */
enum tp_role { ROLE_ONPATH, ROLE_OFFPATH, ROLE_SEQ, ROLE_TRANSIT, ROLE_UNEXPLAINED, ROLE_LINK };

typedef struct wtrace wtrace;

/* A span's label as a cause on its own trace's path: "service:operation on
 * resource" (or "(kind)" for a caller). Off the path the service is the one
 * of its trace's root: text[svclen..len) follows that one instead. Made
 * when the trace is built, so that naming a cause later, long after, reads
 * one text and not the span and its fields, out of the cache by then. */
typedef struct tp_label {
	uint32_t len, svclen;
	char text[];		/* the label, NUL, the span's id, NUL */
} tp_label;

static inline const char *
tp_label_span_id(const tp_label *l)
{
	return l->text + l->len + 1;
}

/* A vertex: a self segment of a span, or the transit of a request, response
 * or message. Vertices of one trace live in one array and name each other
 * by index; only sequencing edges and messages cross traces. */
typedef struct tp_vert {
	int64_t start, end;
	int32_t span;		/* owning span; for a transit, the receiving span */
	int32_t peer;		/* transit: the sending span (local), else -1 */
	int32_t res;		/* resource it occupies, -1 for none */
	int32_t ext;		/* transit from another trace: index in w->exts, else -1 */
	uint32_t pre, npre;	/* preconditions w->pre[pre .. pre+npre), by end time */
	uint8_t kind, tkind;
	/* Worker predecessor on res (seq_w NULL: none), valid once the resource
	 * is assigned up to this vertex; seq_serial tells if it is still buffered. */
	uint64_t seq_serial;
	wtrace *seq_w;
	int32_t seq_v;
	/* Annotation of the current query (stamp says which query). */
	uint32_t stamp;
	const tp_label *label;	/* its span's (NULL: the span has none) */
} tp_vert;

/* A message source named by a reference into (maybe) another trace. */
typedef struct tp_ext {
	const char *trace_id, *span_id;
} tp_ext;

/* A buffered trace: a private copy of the reader's trace plus its vertices. */
struct wtrace {
	tr_trace t;
	uint64_t serial;	/* order of arrival; the window holds a range */
	tp_vert *v;
	size_t nv, capv;
	int32_t *pre;
	size_t npre, cappre;
	tp_ext *exts;
	size_t next, capext;
	int32_t *final;		/* per span: its last vertex (-1: no time) */
	int32_t *done;		/* per span: the vertex its parent waits for */
	uint8_t *in_main;	/* per span: below the trace's root */
	int32_t root;		/* the request's root span (-1: none with time) */
	const tp_label *root_label;	/* root's, NULL when it has none */
	int32_t *seg0;		/* per span: its first vertex (-1: no time) */
	uint8_t *inferred;	/* per span: its queueing was inferred, not recorded */
	int64_t *arrival;	/* per span: its recorded arrival, else its start */
	size_t nwrappers;	/* wrapper spans left out: they wait, not work */
	int hb_used;		/* built over happens-before edges (infer/hb.h) */
	size_t hb_model, hb_guess;	/* local children they named, and not */
	arena *scratch;		/* while it is built */
};

/* One occupying segment on a resource's timeline. */
typedef struct tp_entry {
	int64_t start, end;
	wtrace *w;		/* dangling once serial < tp->oldest */
	uint64_t serial;
	int32_t v;
	int32_t worker;		/* the worker it was assigned to */
	int32_t nworkers;	/* workers in use after it */
	uint8_t overlap;	/* it found every worker busy */
} tp_entry;

typedef struct tp_resource {
	const char *name;
	int workers;		/* capacity; INT32_MAX when not given */
	int maxworkers;		/* workers its segments needed (overlaps beyond ε) */
	size_t dropped_overlaps;	/* overruns of entries compacted away */
	tp_entry *e;		/* sorted by (start, end); evicted ones stay as history
				   until the next compaction */
	size_t ne, cape, compact_at;
	size_t assigned;	/* e[0 .. assigned) have their workers */
	int64_t *free_at;	/* per worker, after e[assigned - 1] */
	int32_t *last;		/* per worker: its latest entry */
	size_t capfree, caplast;
} tp_resource;

/* One annotated vertex of a query (ANNOTATE call with a non-empty interval). */
typedef struct tp_task {
	wtrace *w;
	int32_t v;		/* -1 for an unexplained gap */
	int32_t res;		/* the gap's resource */
	int32_t parent;		/* task index, -1 for the root */
	int64_t ts, te, self;
	uint8_t role, base, seq_edge;
	uint8_t leaf;		/* taken as it is, not annotated further (a link's
				   share of linked work that outlived the waiter) */
} tp_task;

/* A cause: a span's self time in one role, a transit, or an unexplained gap. */
typedef struct tp_cause {
	wtrace *w;
	int32_t span, v, res;
	uint8_t role;
	int64_t self, delay;
	const tp_label *span_label;	/* the vertex's, taken when the cause is made */
	const char *label;
} tp_cause;

/* A reference into another trace, indexed by the trace it names, so that a
 * span can find the traces that link to it: the referring trace's serial,
 * its span and reference; next: the previous entry naming the same trace. */
typedef struct tp_xref {
	uint64_t serial;
	int32_t span, ref, next;
} tp_xref;

/* A link the current query met: followed into trace w (span, its share of
 * the delay), or pointing outside the window (w NULL, trace_id named). */
typedef struct tp_linknote {
	const wtrace *w;
	int32_t span;		/* the linked span in w */
	int32_t waiter;		/* the waiting span, in the trace it belongs to */
	const wtrace *ww;	/* that trace */
	const char *trace_id;
	int64_t delay;
} tp_linknote;

struct temporal {
	tp_opts o;
	tp_stats st;
	arena mem;		/* resource names: live as long as tp */
	arena build_mem;	/* scratch of tpg_build, reset per trace */
	strmap res_ids;
	tp_resource *res;
	size_t nres, capres;
	/* The window: a ring of traces by serial, and the lines and traces
	 * not yet written, in input order. */
	wtrace **ring;
	size_t ringcap;
	uint64_t next_serial, oldest;	/* serials: the ring holds [oldest, next) */
	wtrace **spare;
	size_t nspare, capspare;
	struct tp_pending *pend;
	size_t npend, cappend, pend_head;
	strmap ids;		/* trace id -> serial of its latest trace */
	/* A shard of tr-ingest --split-time: the halo traces met in a row (before
	 * its first own trace, or since its last), and whether one was own. */
	size_t halo_run;
	int own_seen;
	arena ids_mem;
	uint64_t ids_built;
	tr_keywatch rkey;	/* -r: did any occupying span have the tag? */
	/* The current query: the span explained, over [q_ts, q_te] (µs, in the
	 * reference clock); q_last: the span whose end closes it. */
	int32_t q_span, q_last;
	int64_t q_ts, q_te;
	uint32_t stamp;
	tp_task *tasks;
	size_t ntasks, captasks;
	tp_cause *causes;
	size_t ncauses, capcauses;
	strmap cause_ids;
	arena qmem;
	int64_t *span_delay, *span_self;
	size_t capspanq;
	size_t violations;	/* of the current query */
	strbuf text;		/* labels and resource names being built */
	table causes_table;	/* -f csv, json: across every trace */
	int causes_begun;
	/* References across traces (temporal_links.c): by named trace id ->
	 * index of its latest entry in xrefs; none read, nothing is followed. */
	strmap xref_ids;
	arena xref_mem;
	tp_xref *xrefs;
	size_t nxrefs, capxrefs;
	uint64_t xrefs_built;
	size_t xrefs_seen;
	tp_linknote *notes;	/* of the current query */
	size_t nnotes, capnotes;
	tp_task *linkq;		/* tasks tpl_follow found */
	size_t caplinkq;
	/* --from, --to (temporal_event.c), per event: a trace had its span,
	 * its log, several spans of its name; the closest span name met */
	int ev_span_seen[2], ev_log_seen[2];
	size_t ev_ambiguous[2], unrelated;
	char *ev_near[2];
	/* happens-before edges (infer/hb.h): bound to the trace being built
	 * when hb_bound; local children whose trigger the edges gave, and
	 * those they do not name (the timing guess stays) */
	struct hb_model *hb;
	int hb_bound;
	size_t nkids_model, nkids_guess;
};

typedef struct tp_pending {
	wtrace *w;		/* NULL: a line */
	char *line;
	size_t len;
} tp_pending;

/* temporal_graph.c */
void tpg_build(temporal *tp, wtrace *w);
int32_t tpg_resource(temporal *tp, const char *name);
void tpg_insert(temporal *tp, wtrace *w);
/* The worker predecessor of vertex v of w on its resource; 0 when none. */
int tpg_pred(temporal *tp, wtrace *w, int32_t v, wtrace **pw, int32_t *pv);
/* Segments that found every worker of resource r busy (all assigned now). */
size_t tpg_overlaps(temporal *tp, size_t r);
wtrace *tpg_lookup(temporal *tp, const char *trace_id);

/* temporal_query.c */
/* The span of w a query explains: --span's, else the request's root; -1
 * when w has none (not timed, or not this trace's). */
int32_t tpq_span(const temporal *tp, const wtrace *w);
/* Annotate the interval of span (with end_to_end: from its start to the
 * last end below it) into tp->tasks. 0, or -1 when it has no time. */
int tpq_annotate(temporal *tp, wtrace *w, int32_t span);

/* Annotate [ts, te] into tp->tasks from vertex v of w (te: its end, or
 * earlier when the question ends inside it), about span. */
void tpq_annotate_at(temporal *tp, wtrace *w, int32_t span, int32_t v, int64_t ts, int64_t te);
/* Where a question about span s begins: its arrival, recorded or inferred
 * (the queue before it), else its start. */
int64_t tpq_question_start(const wtrace *w, int32_t s);

/* temporal_event.c */
/* --from, --to: annotate the delay between the two events in w; -1 when w
 * has not both (tpe_missed remembers the closest span for the verdict) or
 * they are not causally related (said). */
int tpe_annotate(temporal *tp, wtrace *w);
void tpe_missed(temporal *tp, const wtrace *w);

/* temporal_report.c */
const char *tp_role_name(int role);
void tpr_write_line(temporal *tp, wtrace *w, int analysed, strbuf *out);
void tpr_write_explain(temporal *tp, wtrace *w, strbuf *out);
void tpr_write_dot(temporal *tp, wtrace *w, strbuf *out);
/* -f csv, json: one row per cause of each analysed trace, ranked. */
void tpr_write_causes(temporal *tp, wtrace *w, strbuf *out);
/* The end of the causes table, begun if no trace was analysed. */
void tpr_end_causes(temporal *tp, strbuf *out);
void tpr_label(temporal *tp, const tp_cause *c, strbuf *b);


/* temporal_links.c */
/* Index w's references into other traces (when it is buffered). */
void tpl_index(temporal *tp, wtrace *w);
/* Task ti, a segment with own time [T, te): the parts of it covered by a
 * linked span in another trace go to that span, as tasks under ti (calls,
 * or leaves) left in tp->linkq for the caller to push; returns how many,
 * the time they take in *linked. */
size_t tpl_follow(temporal *tp, int32_t ti, int64_t T, int64_t *linked);
/* --explain: the links followed and those pointing outside the input. */
void tpl_write_explain(temporal *tp, strbuf *b, int64_t total);
/* o.on_link for each linked trace the answer about w followed. */
void tpl_emit(temporal *tp, const wtrace *w);
void tpl_free(temporal *tp);

/* temporal_label.c */
/* A span's resource: service@host[/value of the -r tag] into b; returns
 * whether the span had that tag. */
int tp_resource_name(const temporal *tp, const tr_span *s, strbuf *b);
/* The label of span of w, which occupies resource res (-1: none), in w's
 * memory. */
const tp_label *tpr_span_label(temporal *tp, wtrace *w, int32_t span, int32_t res);
/* A duration for people in the units of --units (units < 0: explain's own,
 * 0.5 ms, 11.0 ms, 12 µs); a share in percent with one decimal. */
void tp_add_dur(strbuf *b, int64_t us, int units);
void tp_add_pct(strbuf *b, int64_t part, int64_t whole);

#endif
