/* pag_build_impl.h - the PAG builder's state, shared by pag_build.c
 * (reading traces, placing spans on lanes, forgetting them) and
 * pag_sweep.c (sweeping lanes into edges, writing them window by window;
 * it calls nothing of pag_build.c), and pag_finish.c (the end of the input). */
#ifndef TR_PAG_BUILD_IMPL_H
#define TR_PAG_BUILD_IMPL_H

#include "pag/pag.h"
#include "core/heap.h"
#include "core/pick.h"

typedef struct btrace btrace;
typedef struct bspan bspan;

/* A vertex, made by the sweep: id is its record number (PAG_NONE: not yet). */
typedef struct bvert {
	uint32_t id, lane;
	int64_t t;
	const bspan *span;	/* whose vertex, for PV records; NULL */
	uint8_t ev;
} bvert;

struct bspan {
	int64_t start, end;
	btrace *trace;
	uint32_t ids, idslen;	/* in the trace's text: "\ttrace\tspan" as records
				 * write it (escaped) */
	uint32_t key, keylen;	/* "trace\tspan" as read: the reference map's key */
	uint64_t seq;		/* read order: ties in start order */
	uint32_t worker, op, depth;
	int32_t parent;		/* index in the trace, -1 */
	int32_t child, sibling;	/* first child, next sibling: indices, -1 */
	uint32_t lane;		/* PAG_NONE until placed */
	uint32_t waiting_for;	/* sweep: spawned children it waits for (not yet joined) */
	int64_t lane_child_end;	/* the end of its last child placed on its lane */
	bvert vs, ve;
	uint8_t kind, follows, type;
	uint8_t remote;		/* not on its parent's lane: a handed-over child */
	uint8_t remote_child;	/* has a child on another lane */
	uint8_t async;		/* a client whose callee cannot be waited for: it does not block */
	uint8_t incoming;	/* a communication edge enters its start: 1, from another
				 * lane; 2, none: a root, an entry */
	uint8_t placed;
};

/* A reference (R record) of span `span` to a span named by key. */
typedef struct bref {
	uint32_t span;
	uint32_t off, len;	/* key "trace\tspan" in the trace's text */
	uint32_t tlen;		/* its trace id's length */
} bref;

/* A trace's spans, held until the frontier has passed them. */
struct btrace {
	bspan *spans;
	size_t n;
	bref *refs;
	size_t nrefs;
	char *text;		/* trace id, span names, reference keys */
	const char *id;
	int64_t end;		/* its latest span end */
	int dead;		/* forgotten, kept until the reference map is rebuilt */
	btrace *next, *prev;	/* held, in read order (dead: next only) */
	btrace *same_id;	/* the next trace held with the same id (fragments) */
	strmap *by_key;		/* "trace\tspan" -> span, made when references
				 * look into a large trace often */
	unsigned lookups;	/* references searched for without it */
};

/* A communication edge waiting for its vertices: span vertices by pointer,
 * a point's vertex in place. */
typedef struct bcomm {
	const bvert *src, *dst;	/* NULL: src_v, dst_v */
	bvert src_v, dst_v;
	int64_t t0;		/* when it leaves: no earlier than the frontier */
	const bspan *about;
	uint8_t type;
} bcomm;

/* A vertex a communication edge needs in mid-activity: on a parent's lane
 * where a child is handed over (spawn) or taken back (join), or where a
 * request or response that clock skew would send back in time leaves
 * (clamped to the time it arrives). */
enum { POINT_JOIN, POINT_SPAWN, POINT_REQUEST, POINT_RESPONSE };
typedef struct point {
	int64_t t;
	bspan *child;		/* the span on the other lane */
	uint32_t comm;		/* its edge */
	uint8_t kind, waits;	/* spawn: the parent waits until the child joins */
} point;

typedef struct lane_ev {
	bspan *span;
	uint8_t end;		/* 0: the span starts, 1: it ends */
} lane_ev;

typedef struct blane {
	uint32_t worker;
	bspan **stack;		/* placing: open spans, innermost last */
	size_t n, cap;
	lane_ev *ev;		/* starts and ends in time order, from evdone unswept */
	size_t nev, capev, evdone;
	point *pts;		/* points in order (by_point_order), from ptsdone unswept */
	size_t npts, cappts, ptsdone;
	int64_t swept;		/* swept up to (not including) this time */
	/* the sweep */
	bspan **open;		/* open spans, innermost last */
	size_t nopen, capopen;
	bvert prev;		/* the last vertex of the run; id PAG_NONE: no run */
	int last_type;		/* type of the last edge, for absorbed gaps */
	uint32_t last_op;
	const bspan *last_ref;
} blane;

/* A binary min-heap of lanes by key: busy lanes by the time they fall idle
 * (the end of the span at the bottom of their stack), idle lanes by number. */

typedef struct bworker {
	tr_heap busy, idle;
	int64_t start;		/* its first activity */
	uint32_t nlanes;
} bworker;

/* An edge made, waiting for the frontier to pass its start. */
typedef struct pedge {
	bvert src, dst;
	const bspan *about;
	uint32_t op;
	uint8_t type;
} pedge;


enum { NAME_CACHE_SLOTS = 256 };

struct pag_builder {
	pag_build_opts o;
	pag_graph names;	/* workers and operations */
	pag_build_stats st;
	char **key;		/* worker key parts */
	uint8_t *part;		/* per part: KEY_SERVICE, KEY_HOST or KEY_TAG */
	tr_keywatch *watch;	/* per part: did any span have the tag? */
	size_t nkey;
	strbuf name;
	/* Workers and operations met, by a cheap hash of a span's service,
	 * host and operation (their lengths, the last bytes of the operation
	 * and host): an input has a few dozen of them, found here without
	 * building and hashing keys (the default key only). op PAG_NONE:
	 * empty */
	struct name_cache_slot {
		uint32_t worker, op;
		uint32_t service_len;
	} name_cache[NAME_CACHE_SLOTS];
	int default_key;	/* the worker key is service,host */
	uint8_t *op_written;	/* per op: its PO record is out */
	size_t capop_written;
	int32_t *local;		/* trace span index -> builder index */
	size_t caplocal;
	uint8_t *kind, *wrapper;	/* per span of the trace read (kinds.h): a
					 * wrapper is left out, as it only waits */
	size_t capkind;
	struct order_key *order;	/* scratch: a trace's spans in start order */
	size_t caporder;
	btrace *first, *last;	/* held traces, in read order */
	size_t live_spans;	/* their spans */
	btrace **by_end;	/* finishing: the traces held then, by end */
	size_t nby_end, retired;	/* ... and how many of them are forgotten */
	btrace *dead;		/* forgotten ones the reference map still names */
	struct todo_item *todo;	/* spans read, not placed, in read order */
	size_t ntodo, captodo;
	struct todo_item *placing;	/* scratch: those to place now, in order */
	size_t capplacing;
	int finishing;		/* pag_builder_finish_step has begun */
	size_t nfinish;		/* finishing: the spans placed at once, in placing */
	size_t swept_spans;	/* ... and how many of them the sweep has passed */
	pag_start_key *place_order;	/* scratch: sorting them */
	size_t capplace_order;
	size_t held;		/* spans read so far, while holding */
	int holding;
	uint64_t seq;
	int64_t latest;		/* the latest trace start read */
	int64_t placed_to;	/* spans before this are placed (INT64_MIN: none) */
	int64_t frontier;	/* edges before this are written */
	int has_start;
	int64_t start, end;	/* of all spans */
	blane *lanes;
	size_t nlanes, caplanes;
	bworker *workers;
	size_t capworkers;
	uint32_t unknown_op;
	bcomm *comm;
	size_t ncomm, capcomm;
	uint64_t *comm_used;	/* a bit per slot: taken */
	size_t ncomm_words, capcomm_words, comm_hint;	/* no free slot below word hint */
	uint32_t *livecomm;	/* the slots of those waiting: the first nsorted by
				 * when they leave (made before finishing), the
				 * rest in the order made */
	size_t nlive, caplive, nsorted;
	pedge *pend;		/* edges made, not written, in the order made */
	size_t npend, cappend;
	pag_start_key *due;	/* scratch: those the frontier has passed, by start */
	size_t capdue;
	uint32_t next_vertex;
	uint8_t *written;	/* per vertex id: its PV record is out */
	size_t capwritten;
	int header_done;
	int has_window;
	int64_t window_end, first_window;
	pag_entries entries;	/* roots' starts not yet checked */
	int keep_entries;	/* someone checks them (pag_builder_entries) */
	strmap ids;		/* trace id -> first trace held, once a reference needs it */
	int has_ids;
	size_t ids_dead;	/* spans of traces forgotten that it still names */
};

/* What a part of the worker key reads. */
enum { KEY_SERVICE, KEY_HOST, KEY_TAG };

#define DEFAULT_LATENESS 5000000	/* 5 s */
#define DEFAULT_MAX_GAP 1000000	/* 1 s */
#define DEFAULT_HOLD 50000

static const bvert no_vertex = {PAG_NONE, PAG_NONE, 0, NULL, 0};

/* A span to place, with its placing order's keys: start, then parents
 * first, then read order. */
typedef struct todo_item {
	int64_t start;
	uint64_t seq;
	uint32_t depth;
	bspan *span;
} todo_item;

static inline bvert
make_vertex(pag_builder *b, uint32_t lane, int64_t t, int ev, const bspan *span)
{
	return (bvert){b->next_vertex++, lane, t, span, (uint8_t)ev};
}

static inline void
lane_push_ev(blane *l, bspan *span, int end)
{
	GROW(l->ev, l->capev, l->nev + 1);
	l->ev[l->nev++] = (lane_ev){span, (uint8_t)end};
}

/* Close the spans of lane l that ended by time t (innermost first). */
static inline void
lane_pop_until(blane *l, int64_t t)
{
	while (l->n && l->stack[l->n - 1]->end <= t)
		lane_push_ev(l, l->stack[--l->n], 1);
}

/* pag_build.c */
size_t pag_build_take_due(pag_builder *b, int64_t upto);
void pag_build_place(pag_builder *b, bspan *s, strbuf *out);
void pag_build_header(pag_builder *b, strbuf *out, int final);
void pag_build_retire(pag_builder *b);
void pag_build_sort_held(pag_builder *b);
/* Sweep and write up to sweep_to (pag_sweep_write), then forget the traces
 * written. */
void pag_build_sweep(pag_builder *b, int64_t sweep_to, strbuf *out);
void pag_build_process(pag_builder *b, int64_t upto, strbuf *out);

/* The lowest free slot of the communication edges is taken, so that those
 * waiting (a few thousand) stay together at the front however many the
 * first spans held needed. */
static inline uint32_t
comm_take_slot(pag_builder *b)
{
	size_t w = b->comm_hint;
	unsigned bit;

	while (w < b->ncomm_words && b->comm_used[w] == UINT64_MAX)
		w++;
	if (w == b->ncomm_words) {
		GROW(b->comm_used, b->capcomm_words, b->ncomm_words + 1);
		b->comm_used[b->ncomm_words++] = 0;
	}
	bit = (unsigned)__builtin_ctzll(~b->comm_used[w]);
	b->comm_used[w] |= 1ULL << bit;
	b->comm_hint = w;
	return (uint32_t)(w * 64 + bit);
}

static inline void
comm_free_slot(pag_builder *b, uint32_t i)
{
	b->comm_used[i / 64] &= ~(1ULL << (i % 64));
	if (i / 64 < b->comm_hint)
		b->comm_hint = i / 64;
}

/* pag_sweep.c */
void pag_build_edge(pag_builder *b, const bvert *src, const bvert *dst, int type, uint32_t op,
		    const bspan *about);
void pag_sweep_write(pag_builder *b, int64_t sweep_to, strbuf *out);
/* Sort the communication edges waiting, for the finishing steps. */
void pag_sweep_sort_comm(pag_builder *b);

#endif
