/* query_names.c - a Where clause or source filter that compares a service
 * or an operation with a name no span of the input has gets a hint: the
 * closest name the spans had ("did you mean"), as the options and tags do. */
#include "query_impl.h"

#include <string.h>

#define MAX_CHECKS 64

typedef struct name_check {
	int field;		/* F_SERVICE or F_OPERATION */
	const char *name;
} name_check;

struct q_names {
	name_check v[MAX_CHECKS];
	size_t n;
	strmap seen[2];		/* the services and the operations met */
	arena mem;
};

/* The comparisons of e whose slot (of slots) is a service or operation. */
static void
collect(q_names *w, const expr *e, const q_slots *slots)
{
	int slot[MAX_CHECKS];
	const char *text[MAX_CHECKS];
	size_t n = expr_string_equalities(e, slot, text, MAX_CHECKS - w->n);

	for (size_t i = 0; i < n; i++) {
		enum q_field f = slot[i] >= 0 && (size_t)slot[i] < slots->n ? slots->v[slot[i]].field : F_TAG;

		int again = 0;

		for (size_t j = 0; j < w->n; j++)
			again |= w->v[j].field == (int)f && strcmp(w->v[j].name, text[i]) == 0;
		if ((f == F_SERVICE || f == F_OPERATION) && !again)
			w->v[w->n++] = (name_check){f, text[i]};
	}
}

q_names *
q_names_new(const query *q)
{
	q_names *w = xcalloc(1, sizeof *w);

	collect(w, q->where, &q->slots);
	for (int v = 0; v < q->nvars; v++)
		for (int s = 0; s < q->vars[v].nsrc; s++)
			collect(w, q->vars[v].src[s].filter, &q->vars[v].src[s].fslots);
	return w;
}

void
q_names_note(q_names *w, const tr_trace *t)
{
	int added;

	for (size_t i = 0; w->n && i < t->nspans; i++) {
		const tr_span *s = &t->spans[i];

		strmap_put_copy(&w->seen[0], &w->mem, s->service, strlen(s->service), &added);
		strmap_put_copy(&w->seen[1], &w->mem, s->operation, strlen(s->operation), &added);
	}
}

/* Warn about check c when no span had its name. */
static size_t
check_one(const q_names *w, const name_check *c)
{
	const strmap *m = &w->seen[c->field == F_OPERATION];
	const char *near;

	if (strmap_get(m, c->name, strlen(c->name)))
		return 0;
	near = strmap_closest(m, c->name);
	if (near)
		tr_warn("no span has %s \"%s\" (did you mean \"%s\"?)", q_field_name(c->field), c->name,
			near);
	else
		tr_warn("no span has %s \"%s\"", q_field_name(c->field), c->name);
	return 1;
}

size_t
q_names_missing(const q_names *w)
{
	size_t bad = 0;

	for (size_t i = 0; i < w->n; i++)
		bad += check_one(w, &w->v[i]);
	return bad;
}

void
q_names_free(q_names *w)
{
	if (!w)
		return;
	strmap_free(&w->seen[0]);
	strmap_free(&w->seen[1]);
	arena_free(&w->mem);
	free(w);
}
