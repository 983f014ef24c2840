/* pag.h - SnailTrail's program activity graph (PAG) built from spans, its
 * line-format records (PG, PW, PO, PV, PE, PM; man tr-format(5)), time windows
 * (snapshots), path counting and critical participation (CP). */
#ifndef TR_PAG_H
#define TR_PAG_H

#include <stddef.h>
#include <stdint.h>

#include "core/hash.h"
#include "core/io.h"
#include "core/trace.h"
#include "core/util.h"

/* Activity types. Worker activities come first, then communication. */
enum pag_type {
	PAG_PROCESSING,	/* a span's own time */
	PAG_IO,		/* a client span whose callee is not traced */
	PAG_UNKNOWN,	/* a gap between spans no incoming edge ends */
	PAG_WAITING,	/* blocked until a response, a joined child or (a gap)
			 * an incoming edge: never critical */
	PAG_REQUEST,	/* client start -> server start */
	PAG_RESPONSE,	/* server end -> client end */
	PAG_MESSAGE,	/* producer -> consumer, follows_from */
	PAG_SPAWN,	/* parent's lane -> a child on another lane */
	PAG_JOIN,	/* a child's end -> its parent's lane */
	PAG_NTYPES
};
const char *pag_type_name(int type);
int pag_type_parse(const char *s, size_t n);	/* -1 when unknown */
static inline int pag_type_is_comm(int type) { return type >= PAG_REQUEST; }

/* Path counts: m * 2^e with m in [0.5, 1) (or 0), so that counts far beyond
 * 2^64 (and beyond long double's range) stay exact to 53 bits. */
typedef struct pag_count {
	double m;
	int64_t e;
} pag_count;
pag_count pag_count_of(double v);
pag_count pag_count_add(pag_count a, pag_count b);
pag_count pag_count_mul(pag_count a, pag_count b);
double pag_count_ratio(pag_count a, pag_count b);	/* a / b as a double */
double pag_count_log2(pag_count a);			/* -inf for 0 */
void pag_count_format(char *buf, size_t size, pag_count a);	/* "6", "1.18059e+21" */

typedef struct pag_edge {
	uint32_t src, dst;	/* vertex ids */
	uint32_t src_lane, dst_lane;
	int64_t t0, t1;		/* times of src and dst; weight = t1 - t0 */
	uint32_t op;		/* index into ops: the span it belongs to */
	uint32_t span;		/* index into spans (trace id, span id), or NONE */
	uint8_t type;
} pag_edge;

#define PAG_NONE UINT32_MAX

typedef struct pag_lane {
	uint32_t worker;	/* index into workers */
	uint32_t index;		/* lane number within the worker */
} pag_lane;

typedef struct pag_op {
	const char *service, *operation;
} pag_op;

typedef struct pag_spanref {
	const char *trace_id, *span_id;
} pag_spanref;

typedef struct pag_work pag_work;

/* A whole PAG. Strings live in mem. Vertex times are kept so that records
 * read back can be checked (every edge must agree on its vertices' times). */
typedef struct pag_graph {
	arena mem;
	const char **workers;	/* display names: service@host[/key] */
	size_t nworkers, capworkers;
	strmap worker_ids;
	pag_lane *lanes;
	size_t nlanes, caplanes;
	pag_op *ops;
	size_t nops, capops;
	strmap op_ids;		/* "service\toperation" -> op */
	strmap op_raw;		/* reading: the two fields as written -> op */
	uint32_t *opnum;	/* reading: PO record number -> op (PAG_NONE: none) */
	size_t capopnum;
	int numbered;		/* reading: a PO record came: PE names its op by number */
	pag_spanref *spans;	/* one per span (trace id, span id) */
	size_t nspans, capspans;
	strmap span_ids;	/* "trace\tspan" -> spanref, for records read */
	arena span_mem;		/* their strings, compacted window by window */
	pag_edge *edges;
	size_t nedges, capedges;
	int64_t *vtime;		/* per vertex */
	uint32_t *vlane;
	uint8_t *vevent;	/* enum pag_event */
	uint32_t *vspan;
	size_t nvertices, capvertices;
	int64_t window, origin;	/* window 0: one window over [start, end] */
	int64_t start, end;	/* time range of the graph */
	int has_header;		/* a PG record was read */
	int end_open;		/* its end was left empty (written while the input
				 * was read): the end is the latest edge's */
	int has_own;		/* the PG record names the windows a shard owns */
	int64_t own[2];		/* from, to (tr-pag --own) */
	size_t nrecords;	/* reading: PAG records read so far */
	int skip_spanrefs;	/* reading: keep no trace and span ids (CP needs none) */
	strbuf scratch[3];	/* reading: unescaped fields before they are interned */
	size_t nspans_skipped;	/* spans without time */
	size_t nskew;		/* communication edges dropped: they go back in time */
	size_t nclamped;	/* requests and responses clock skew sent back in time:
				 * clamped to leave when they arrive */
	/* Reading window by window (pag_graph_stream): PM marks say that no
	 * edge after them starts before the mark, so the graph keeps only the
	 * edges later windows need, their vertices renumbered (vids: record
	 * vertex number -> vertex). */
	int stream;
	int has_mark;
	int64_t mark;		/* the last PM mark read */
	size_t nmarks;
	u64map *vids;
	u64map *vids_spare;	/* the next window's vids, kept with its table */
	pag_work *work;		/* scratch the window computations reuse: not
				 * part of the graph's value (pag_window.c). So
				 * one thread at a time computes a graph's
				 * windows, and a copy of a graph is not one */
} pag_graph;

/* FINISH: a lane's last time in graphs of earlier versions, read back only. */
enum pag_event { PAG_EV_START, PAG_EV_END, PAG_EV_POINT, PAG_EV_BEGIN, PAG_EV_FINISH };
const char *pag_event_name(int ev);

void pag_graph_init(pag_graph *g);
void pag_graph_free(pag_graph *g);
uint32_t pag_intern_worker(pag_graph *g, const char *name, size_t len);
uint32_t pag_intern_op(pag_graph *g, const char *service, const char *operation);
uint32_t pag_add_lane(pag_graph *g, uint32_t worker, uint32_t index);
uint32_t pag_add_vertex(pag_graph *g, uint32_t lane, int64_t t, int event, uint32_t span);
void pag_add_edge(pag_graph *g, uint32_t src, uint32_t dst, int type, uint32_t op, uint32_t span);

/* Records. True for PG, PW, PO, PV, PE and PM lines (with an empty trace field). */
int pag_is_record(const char *line, size_t len);
/* Read one record (a line pag_is_record accepts) into g; returns -1 after
 * printing "prog: where: PX record: what" (where is the caller's prefix,
 * e.g. "file:line", or NULL). A bad record changes nothing in g. */
int pag_read_record(pag_graph *g, const char *line, size_t len, const char *where);
/* After the last record: without a PG record, the time range is the edges'. */
void pag_read_finish(pag_graph *g);
/* PG, PW and PO, then the edges in order of start time, each PV (when
 * vertices; span ids too) before the first edge that needs it; with
 * windows, a PM mark before the first edge of each window: no edge after it
 * starts before the mark. */
void pag_write_records(const pag_graph *g, tr_output *o, int vertices);
/* Read window by window: vertex numbers of records are renumbered so that
 * pag_graph_drop_before can forget what no window from then on needs. */
void pag_graph_stream(pag_graph *g);
/* Keep only the edges of windows starting at t or later (and their vertices). */
void pag_graph_drop_before(pag_graph *g, int64_t t);

/* Record writers (tr-pag(1) RECORDS): a PG header (end NULL: left empty,
 * the graph is written while its input is read), PW lanes, PO operations,
 * PV vertices, PE edges (an operation by its PO number), PM marks. Span
 * ids come escaped, as the "\ttrace\tspan" of pag_put_ids ("": none). */
void pag_put_header(strbuf *out, int64_t window, int64_t origin, int64_t start, const int64_t *end);
/* The same with the windows a shard owns (tr-pag --own): own[0] to own[1]
 * as a seventh field "FROM,TO" (NULL: none, as pag_put_header). */
void pag_put_header_own(strbuf *out, int64_t window, int64_t origin, int64_t start,
			const int64_t *end, const int64_t *own);
void pag_put_lane(strbuf *out, size_t lane, const char *worker, uint32_t index);
void pag_put_op(strbuf *out, uint32_t op, const char *service, const char *operation);
void pag_put_vertex(strbuf *out, uint32_t id, uint32_t lane, int64_t t, int event,
		    const char *ids, size_t idslen);
void pag_put_ids(strbuf *out, const char *trace_id, const char *span_id);
void pag_put_edge(strbuf *out, uint32_t src, uint32_t dst, int type, int64_t t0, int64_t t1,
		  uint32_t src_lane, uint32_t dst_lane, uint32_t op, const char *ids, size_t idslen);
void pag_put_mark(strbuf *out, int64_t t);

/* Entries: where a root starts, a request whose sender is not traced; no
 * edge enters them and property 1 accepts them. In (t, lane) order once
 * sorted (pag_entries_sort). */
typedef struct pag_entry {
	int64_t t;
	uint32_t lane;
} pag_entry;
typedef struct pag_entries {
	pag_entry *e;
	size_t n, cap;
	int sorted;
} pag_entries;

/* Build a PAG from spans as they are read, writing its records (PG, PW,
 * PO, PV, PE, PM) window by window: pag_builder_add appends what each trace
 * completes to out, pag_builder_finish the rest. See pag_build.c. */
typedef struct pag_builder pag_builder;
typedef struct pag_build_opts {
	const char *worker_key;	/* "service,host" by default; other names are span tags */
	int64_t unknown_threshold;	/* gaps shorter than this take the preceding activity */
	int64_t window, origin;	/* window 0: one window */
	int64_t lateness;	/* traces may come this much out of start order (5 s) */
	int64_t max_gap;	/* longer idle stretches are not in the graph (10 s) */
	size_t hold;		/* spans read before any is placed (50000) */
	size_t max_windows;	/* more windows: stop (PAG_MAX_WINDOWS) */
	int vertices;		/* write PV records and span ids (0: what tr-cp reads) */
	const int64_t *own;	/* --own FROM,TO: into the PG record (NULL: none) */
} pag_build_opts;
typedef struct pag_build_stats {
	size_t nspans_skipped;	/* spans without time */
	size_t nwrappers;	/* wrapper spans (kinds.h) left out: they wait, not work */
	size_t nskew;		/* communication edges dropped: they go back in time */
	size_t nclamped;	/* requests and responses clamped to leave when they arrive */
	size_t nlate;		/* traces refused: they start before spans already placed */
	int64_t late_by;	/* the last one, by how much */
	size_t nrefs_missing;	/* references to spans not held: not in the input,
				 * or forgotten since their windows were written */
	size_t nlost;		/* edges before the frontier (a bug: said so) */
	size_t nworkers, nlanes, nvertices, nedges, nwindows;
	int too_many_windows;	/* stopped at max_windows */
	int64_t windows_needed;	/* known when the whole input was held: how many
				 * windows (-1: beyond counting), else 0 */
} pag_build_stats;
pag_builder *pag_builder_new(const pag_build_opts *o);
/* Returns -1 (nothing of t added) when t starts before spans already placed. */
int pag_builder_add(pag_builder *b, const tr_trace *t, strbuf *out);
void pag_builder_finish(pag_builder *b, strbuf *out);
/* pag_builder_finish a step at a time, so that out can be written and
 * cleared between steps: 1 while there is more, 0 once done. */
int pag_builder_finish_step(pag_builder *b, strbuf *out);
/* Does the worker key name a tag? Else the builder reads no span tag. */
int pag_builder_reads_tags(const pag_builder *b);
const pag_build_stats *pag_builder_stats(const pag_builder *b);
/* The entries placed so far (roots' starts), for pag_snap_check. */
pag_entries *pag_builder_entries(pag_builder *b);
/* How many tag parts of the worker key no span had (each named in a
 * warning, with the closest key met). */
size_t pag_builder_unmatched_keys(const pag_builder *b);
void pag_builder_free(pag_builder *b);

/* A window's snapshot: edges projected onto [ts, te] (Definitions 5 and 6). */
typedef struct pag_snap {
	int64_t ts, te;		/* the window */
	int64_t tmin, tmax;	/* first and last vertex time in the snapshot */
	size_t nedges;
	uint32_t *edge;		/* graph edge of each snapshot edge */
	int64_t *t0, *t1;	/* projected times */
	uint32_t *src, *dst;	/* snapshot vertex ids */
	size_t nvertices;
	int64_t *vtime;
	uint32_t *vlane;
	uint8_t *vcopy;		/* 1: a copy of a vertex outside the window */
} pag_snap;

/* Number of windows from the first edge's window to the last's (1 without
 * a window); callers refuse counts over --max-windows (by default
 * PAG_MAX_WINDOWS) before pag_windows, since time and output grow with it. */
#define PAG_MAX_WINDOWS 1000000
int64_t pag_window_count(const pag_graph *g);	/* -1: beyond counting */
/* The earliest start and the latest end of the graph's edges (0, 0: none). */
void pag_edge_range(const pag_graph *g, int64_t *lo, int64_t *hi);
/* Call fn for every window that holds at least one edge, in time order. */
typedef void pag_window_fn(void *ctx, const pag_graph *g, const pag_snap *s);
void pag_windows(const pag_graph *g, pag_window_fn *fn, void *ctx);
/* The same for the windows within [from, to) only. */
void pag_windows_between(const pag_graph *g, int64_t from, int64_t to, pag_window_fn *fn, void *ctx);
/* The scratch pag_graph_init gives a graph (a graph without one works, with
 * scratch made and freed per call). */
pag_work *pag_work_new(void);
void pag_work_free(pag_work *w);
/* Edge indices sorted by start time, then index (the order windows see them). */
uint32_t *pag_edges_by_start(const pag_graph *g);
/* An edge's start and number; sorted by start, ties in the order they come. */
typedef struct pag_start_key {
	int64_t t0;
	uint32_t edge;
} pag_start_key;
/* w: scratch to sort in, kept from call to call (a graph's work). */
void pag_sort_by_start(pag_start_key *k, size_t n, pag_work *w);
/* The start of the window that holds time t (g->window > 0). */
int64_t pag_window_start(const pag_graph *g, int64_t t);
/* The same for windows of length window from origin, without a graph. */
int64_t pag_window_start_at(int64_t origin, int64_t window, int64_t t);

/* Transient path centrality and CP of every snapshot edge (Algorithm 2):
 * cp[i] for snapshot edge i; *npaths the number of transient critical paths.
 * Returns the number of vertices left out because they lie on a cycle. */
size_t pag_snap_cp(const pag_graph *g, const pag_snap *s, double *cp, pag_count *npaths);

/* SnailTrail's instrumentation properties (Appendix A.2) on one snapshot,
 * with the first example of each: where, and the span (a spanref, or
 * PAG_NONE) whose instrumentation to look at. Callers zero it. */
typedef struct pag_example {
	int set;
	int64_t t;
	uint32_t lane, span;
} pag_example;
typedef struct pag_violations {
	size_t no_input;	/* property 1: vertices no usable edge enters */
	size_t all_waiting;	/* property 2: stretches where every lane waits, no message */
	int64_t all_waiting_us;
	pag_example no_input_at, all_waiting_at;
} pag_violations;
void pag_entries_sort(pag_entries *e);
/* Forget the entries before time t (sorted). */
void pag_entries_drop_before(pag_entries *e, int64_t t);
/* entries: those of the graph (sorted), or NULL when not known (records read). */
void pag_snap_check(const pag_graph *g, const pag_snap *s, const pag_entries *entries,
		    pag_violations *v);

/* Critical participation of every span (part[ref] for the graph's spanref
 * ref) over the windows its own activities appear in: the CP of its
 * activities in each window, weighted by the window's length. A span whose
 * activities are all waiting gets 0; one with none in the graph, -1. */
void pag_span_cp(const pag_graph *g, double *part);

/* Which activities a picture keeps: of one trace's spans, overlapping
 * [from, to], on or to or from one worker (NULL: any). */
typedef struct pag_filter {
	const char *trace;
	int64_t from, to;
	const char *worker;
} pag_filter;
int pag_edge_passes(const pag_graph *g, const pag_filter *f, const pag_edge *e);
/* Every vertex and edge the filter keeps (NULL: all), one cluster per worker. */
void pag_write_dot(const pag_graph *g, const pag_filter *f, tr_output *o, int units);

/* The four summaries of the activities a filter keeps: per window
 * (samples) and over the whole input (total: CP weighted by window length;
 * time: conventional profiling, summed). */
enum { PAG_SUM_ACTIVITY, PAG_SUM_WORKER, PAG_SUM_OPERATION, PAG_SUM_CHANNEL, PAG_NSUMMARIES };
typedef struct pag_window_range {
	int64_t ts, te;
} pag_window_range;
typedef struct pag_sample {
	uint32_t window;
	uint8_t summary;
	uint32_t key;	/* activity type, worker, op or channel */
	double cp;
} pag_sample;
typedef struct pag_summary {
	size_t nworkers, nops;
	double *total[PAG_NSUMMARIES];
	int64_t *time[PAG_NSUMMARIES];
	size_t cap[PAG_NSUMMARIES];
	uint32_t (*channels)[2];	/* channel -> (source worker, destination worker) */
	size_t nchannels, capchannels;
	strmap channel_ids;
	pag_window_range *windows;	/* windows with kept activities */
	size_t nwindows, capwindows;
	double len;
	pag_sample *samples;
	size_t nsamples, capsamples;
	arena mem;
} pag_summary;
void pag_summarise(const pag_graph *g, const pag_filter *f, pag_summary *s);
void pag_summary_free(pag_summary *s);
/* Workers (the top N by CP; 0: all) and the channels between them. */
void pag_write_summary_dot(const pag_graph *g, const pag_summary *s, size_t top, tr_output *o,
			   int units);
/* One panel per summary: the CP of its top N keys (at most 10) per window. */
void pag_write_summary_svg(const pag_graph *g, const pag_summary *s, size_t top, tr_output *o);

/* Does the builder take span s into the graph (it has a time)? */
int pag_span_usable(const tr_span *s);

#endif
