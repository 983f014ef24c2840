/* cp_links.c - linked traces drawn beside the ones tr-cp draws (see
 * cp_links.h for what is held and why). */
#include "cp/cp_links.h"

#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "draw/dot.h"
#include "draw/links.h"

/* A link from a drawn span to a trace not drawn yet. */
typedef struct pending {
	const char *from, *type, *to_span;	/* from: the DOT node "trace/span" */
	int32_t next;		/* the previous one to the same trace, -1 */
} pending;

struct cp_links {
	arena mem;
	strmap drawn;		/* --dot: ids of the traces drawn */
	strmap waiting;		/* --dot: trace id -> its latest pending link */
	pending *p;
	size_t np, capp;
	strbuf from, to;
	tr_trace *held;		/* --svg: traces linked to the kept one */
	size_t nheld, capheld;
};

cp_links *
cp_links_new(void)
{
	return xcalloc(1, sizeof(cp_links));
}

void
cp_links_free(cp_links *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->capheld; i++)
		tr_trace_free(&l->held[i]);
	free(l->held);
	free(l->p);
	strmap_free(&l->drawn);
	strmap_free(&l->waiting);
	arena_free(&l->mem);
	sb_free(&l->from);
	sb_free(&l->to);
	free(l);
}

static int
across(const tr_trace *t, const tr_ref *r)
{
	return strcmp(r->trace_id, t->trace_id) != 0;
}

static void
node(strbuf *b, const char *trace_id, const char *span_id)
{
	sb_clear(b);
	sb_adds(b, trace_id);
	sb_addc(b, '/');
	sb_adds(b, span_id);
}

static void
edge(strbuf *out, const char *from, const char *to, const char *type)
{
	dot_edge(out, from, to, type, "style=dashed, constraint=false");
}

/* t's links to traces drawn before it: drawn now; to the others: kept
 * until their trace comes. */
static void
links_out(cp_links *l, const tr_trace *t, strbuf *out)
{
	for (size_t i = 0; i < t->nrefs; i++) {
		const tr_ref *r = &t->refs[i];
		int added;

		if (!across(t, r))
			continue;
		node(&l->from, t->trace_id, t->spans[r->span].span_id);
		if (strmap_get(&l->drawn, r->trace_id, strlen(r->trace_id))) {
			node(&l->to, r->trace_id, r->span_id);
			edge(out, l->from.s, l->to.s, r->type);
			continue;
		}
		strmap_slot *s = strmap_put_copy(&l->waiting, &l->mem, r->trace_id, strlen(r->trace_id),
						 &added);
		GROW(l->p, l->capp, l->np + 1);
		l->p[l->np] = (pending){arena_strndup(&l->mem, l->from.s, l->from.len),
					arena_strndup(&l->mem, r->type, strlen(r->type)),
					arena_strndup(&l->mem, r->span_id, strlen(r->span_id)),
					added ? -1 : (int32_t)s->val};
		s->val = (int64_t)l->np++;
	}
}

/* The links to t from traces drawn before it. */
static void
links_in(cp_links *l, const tr_trace *t, strbuf *out)
{
	strmap_slot *s = strmap_get(&l->waiting, t->trace_id, strlen(t->trace_id));

	for (int32_t i = s ? (int32_t)s->val : -1; i >= 0; i = l->p[i].next) {
		if (tr_trace_find(t, l->p[i].to_span) < 0)
			continue;	/* no such span: no node to point at */
		node(&l->to, t->trace_id, l->p[i].to_span);
		edge(out, l->p[i].from, l->to.s, l->p[i].type);
	}
	if (s)
		s->val = -1;
}

void
cp_links_dot(cp_links *l, const tr_trace *t, strbuf *out)
{
	int added;

	strmap_put_copy(&l->drawn, &l->mem, t->trace_id, strlen(t->trace_id), &added);
	links_out(l, t, out);
	links_in(l, t, out);
}

int
cp_links_dot_wanted(const cp_links *l, const tr_trace *t)
{
	strmap_slot *s = strmap_get(&l->waiting, t->trace_id, strlen(t->trace_id));

	if (s && s->val >= 0)
		return 1;
	for (size_t i = 0; i < t->nrefs; i++)
		if (across(t, &t->refs[i]) &&
		    strmap_get(&l->drawn, t->refs[i].trace_id, strlen(t->refs[i].trace_id)))
			return 1;
	return 0;
}

/* Whether a names b's trace in a reference. */
static int
names(const tr_trace *a, const tr_trace *b)
{
	for (size_t i = 0; i < a->nrefs; i++)
		if (strcmp(a->refs[i].trace_id, b->trace_id) == 0 && across(a, &a->refs[i]))
			return 1;
	return 0;
}

void
cp_links_svg_reset(cp_links *l)
{
	for (size_t i = 0; i < l->nheld; i++)
		tr_trace_reset(&l->held[i]);
	l->nheld = 0;
}

void
cp_links_svg_offer(cp_links *l, const tr_trace *kept, tr_trace *t)
{
	if (!names(kept, t) && !names(t, kept))
		return;
	if (l->nheld == l->capheld) {	/* new slots zeroed: an empty trace */
		size_t old = l->capheld;

		GROW(l->held, l->capheld, l->nheld + 1);
		memset(l->held + old, 0, (l->capheld - old) * sizeof *l->held);
	}
	tr_trace *h = &l->held[l->nheld++];
	h->files = t->files;
	tr_trace_swap(h, t);
}

/* "another trace, joined by a link: ID · service: operation" */
static void
banner(strbuf *b, const tr_trace *t, const cp_trace *c)
{
	const tr_span *root = c->root >= 0 ? &t->spans[c->root] : t->nspans ? &t->spans[0] : NULL;

	sb_clear(b);
	sb_addf(b, "another trace, joined by a link: %s", t->trace_id);
	if (root)
		sb_addf(b, " \xc2\xb7 %s: %s", root->service, root->operation);
}

int
cp_links_svg(cp_links *l, strbuf *b, const tr_trace *kept, cp_trace *c, const timeline_opts *o)
{
	timeline_opts axis = *o;
	timeline_stack s = {0};
	strbuf text = {0};

	if (!l->nheld)
		return 0;
	timeline_time_range(kept, &axis.lo, &axis.hi);
	for (size_t i = 0; i < l->nheld; i++) {
		int64_t lo, hi;

		timeline_time_range(&l->held[i], &lo, &hi);
		axis.lo = lo < axis.lo ? lo : axis.lo;
		axis.hi = hi > axis.hi ? hi : axis.hi;
	}
	timeline_stack_add(&s, kept, c, &axis, NULL);
	for (size_t i = 0; i < l->nheld; i++) {
		if (cp_trace_run(c, &l->held[i]) != 0)
			continue;
		banner(&text, &l->held[i], c);
		timeline_stack_add(&s, &l->held[i], c, &axis, text.s);
	}
	timeline_stack_end(&s, b);
	sb_free(&text);
	return 1;
}
