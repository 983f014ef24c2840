/* infer_impl.h - the inside of the causal model, shared by infer.c and
 * infer_partial.c. Not for tools: they use infer.h. */
#ifndef TR_INFER_IMPL_H
#define TR_INFER_IMPL_H

#include "core/table.h"

#include "core/expr.h"
#include "core/hash.h"
#include "infer/infer.h"

typedef struct name_rec {
	const char *s;		/* arena copy, NUL-terminated */
	uint32_t len;
	uint8_t log;		/* a log event NAME@X (--events logs): one
				   event, 2 * name, written without _S */
} name_rec;

/* Counts of one unordered pair of events a < b (event = 2 * name + end). */
typedef struct pair_rec {
	uint64_t key;		/* a << 32 | b; UINT64_MAX when the slot is empty */
	uint64_t c;		/* traces where both occur */
	uint64_t s_ab, s_ba;	/* successes of a -> b and of b -> a */
	uint64_t q;		/* simultaneous (or, by trace, interleaved repeats) */
	uint64_t gen;		/* last trace that counted c (pairs mode) */
	uint8_t pass;		/* bit 0: a -> b passes the threshold; bit 1: b -> a */
} pair_rec;

/* An event in one trace: its first and last time. */
typedef struct event_occ {
	uint32_t e;
	int64_t first, last;
} event_occ;

typedef struct order_rec {
	const name_rec *n;
	int ev;
	int64_t first, last;
	uint32_t e;
} order_rec;

struct infer {
	infer_opts o;
	int opts_from_partial;	/* --merge: the options came from an IT record */
	expr *cond;
	const char *cond_text;
	int applied;		/* pass bits are up to date */
	uint64_t traces, skipped;

	arena mem;		/* name texts */
	strmap names;		/* nameID -> index */
	name_rec *name;
	size_t nnames, capname;

	pair_rec *pairs;
	size_t npairs, pcap;

	/* Per-trace scratch, reused: no allocation per span. */
	uint64_t gen;
	uint64_t *stamp;	/* per event: the last gen that saw it */
	uint32_t *slot_of;	/* per event: its index in ev this trace */
	size_t capstamp, capslot;
	event_occ *ev, *occ;
	size_t nev, capev, nocc, capocc;
	size_t *base_off, *base_len;
	size_t capbase, capbaselen;
	uint32_t *span_name;
	size_t capspanname;
	int32_t *log_name;	/* --events logs: per log, its name, -1: none */
	size_t caplogname;
	uint64_t *before, *ingroup;	/* pairs mode: per local event */
	uint32_t *seenlist, *group;
	size_t capbefore, capingroup, capseen, capgroup;
	order_rec *order;
	size_t caporder;
	uint64_t *bits;
	size_t capbits;
	strbuf namebuf, basebuf, tmp;
};

uint32_t infer_intern(infer *m, const char *s, size_t n);
pair_rec *infer_pair(infer *m, uint32_t a, uint32_t b);
void infer_apply_threshold(infer *m);
int infer_event_cmp(const name_rec *an, int aev, const name_rec *bn, int bev);
void infer_event_text(strbuf *b, const name_rec *n, int ev);

/* Links, for infer_partial.c. */
void infer_links_put(infer_links *l, int rule, const char *parent, size_t plen,
		     const char *child, size_t clen, uint64_t calls, uint64_t errors);
void infer_links_add_kinds(infer_links *l, uint64_t spans, uint64_t kinds);

#endif
