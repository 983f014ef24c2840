/* where.c - --where EXPR: a trace kept whole when EXPR holds for one of
 * its spans. The fields are those of a query's span (tr-aggregate(1)) and
 * a few of its trace; each is read only when EXPR names it, and the trace
 * fields once a trace. */
#include "where.h"
#include "core/expr.h"
#include "core/format.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum w_field {
	W_TRACE, W_SPAN, W_PARENT, W_SERVICE, W_OPERATION, W_KIND, W_HOST, W_START, W_DURATION,
	W_END, W_DEPTH, W_ROOT, W_ERROR, W_ERROR_MESSAGE,
	W_TRACE_START, W_TRACE_DURATION, W_TRACE_SPANS, W_ROOT_DURATION, W_ROOT_SERVICE,
	W_ROOT_OPERATION, W_TAG, W_NFIELDS
};

static const char *const field_names[W_NFIELDS] = {
	[W_TRACE] = "trace", [W_SPAN] = "span", [W_PARENT] = "parent", [W_SERVICE] = "service",
	[W_OPERATION] = "operation", [W_KIND] = "kind", [W_HOST] = "host", [W_START] = "start",
	[W_DURATION] = "duration", [W_END] = "end", [W_DEPTH] = "depth", [W_ROOT] = "root",
	[W_ERROR] = "error", [W_ERROR_MESSAGE] = "error_message", [W_TRACE_START] = "trace_start",
	[W_TRACE_DURATION] = "trace_duration", [W_TRACE_SPANS] = "trace_spans",
	[W_ROOT_DURATION] = "root_duration", [W_ROOT_SERVICE] = "root_service",
	[W_ROOT_OPERATION] = "root_operation", [W_TAG] = "tag",
};

#define MAX_SLOTS 64
#define MAX_CHECKS 16

typedef struct w_slot {
	enum w_field field;
	char *key;		/* W_TAG */
} w_slot;

struct tr_where {
	char *src;
	expr *e;
	w_slot slot[MAX_SLOTS];
	size_t nslots;
	expr_value v[MAX_SLOTS];
	int span_fields;	/* a slot reads the span, not only its trace */
	/* = "name" on service or operation, for the hint when none is kept */
	int check_field[MAX_CHECKS];
	const char *check_name[MAX_CHECKS];
	size_t nchecks;
	int kept_one;		/* a trace was kept: no hint will be needed */
	strmap seen[2];		/* the services and operations met */
	arena mem;
	strbuf msg;		/* error_message's text */
};

static int
type_of(enum w_field f)
{
	switch (f) {
	case W_START: case W_DURATION: case W_END: case W_DEPTH: case W_TRACE_START:
	case W_TRACE_DURATION: case W_TRACE_SPANS: case W_ROOT_DURATION:
		return EV_NUM;
	case W_ROOT: case W_ERROR:
		return EV_BOOL;
	case W_TAG:
		return -1;
	default:
		return EV_STR;
	}
}

static int
field_slot(void *ctx, const char *name, size_t len, const char *key, size_t keylen, int *type,
	   char *why, size_t whylen)
{
	tr_where *w = ctx;
	int f = 0;

	while (f < W_NFIELDS && !(strlen(field_names[f]) == len && strncasecmp(field_names[f], name, len) == 0))
		f++;
	if (f == W_NFIELDS) {
		snprintf(why, whylen, "unknown field '%.*s' (tr(7), WHERE, lists them)", (int)len, name);
		return -1;
	}
	if ((f == W_TAG) != (key != NULL)) {
		snprintf(why, whylen, key ? "'%.*s' takes no [\"key\"]" : "tag needs a key: tag[\"name\"]",
			 (int)len, name);
		return -1;
	}
	/* a field named twice is one slot: error_message's text lives in
	 * one buffer, read once a span */
	for (size_t k = 0; k < w->nslots; k++)
		if ((int)w->slot[k].field == f && (!key || (strlen(w->slot[k].key) == keylen &&
							    memcmp(w->slot[k].key, key, keylen) == 0))) {
			*type = type_of((enum w_field)f);
			return (int)k;
		}
	if (w->nslots == MAX_SLOTS) {
		snprintf(why, whylen, "more than %d fields", MAX_SLOTS);
		return -1;
	}
	*type = type_of((enum w_field)f);
	w->slot[w->nslots].field = (enum w_field)f;
	w->slot[w->nslots].key = NULL;
	if (key) {
		w->slot[w->nslots].key = xmalloc(keylen + 1);
		memcpy(w->slot[w->nslots].key, key, keylen);
		w->slot[w->nslots].key[keylen] = '\0';
	}
	w->span_fields |= f < W_TRACE_START || f == W_TAG;
	return (int)w->nslots++;
}

/* The comparisons service = "x" and operation = "x", for the hint. */
static void
collect_checks(tr_where *w)
{
	int slot[MAX_CHECKS];
	const char *text[MAX_CHECKS];
	size_t n = expr_string_equalities(w->e, slot, text, MAX_CHECKS);

	for (size_t i = 0; i < n; i++) {
		enum w_field f = w->slot[slot[i]].field;

		if (f == W_SERVICE || f == W_ROOT_SERVICE || f == W_OPERATION || f == W_ROOT_OPERATION) {
			w->check_field[w->nchecks] = f == W_OPERATION || f == W_ROOT_OPERATION;
			w->check_name[w->nchecks++] = text[i];
		}
	}
}

tr_where *
tr_where_parse(const char *src, char *err, size_t errlen, size_t *errpos)
{
	tr_where *w = xcalloc(1, sizeof *w);
	expr_hooks h = {.field = field_slot, .ctx = w};
	expr_lexer lx;

	w->src = xstrdup(src);
	expr_lex_init(&lx, w->src, err, errlen);
	w->e = expr_parse_lx(&lx, &h);
	if (w->e && lx.tok != TK_EOF) {
		expr_free(w->e);
		w->e = expr_lex_error(&lx, lx.pos, "unexpected '%.*s' after the expression",
				      (int)(lx.end - lx.pos), w->src + lx.pos);
	}
	*errpos = lx.errpos;
	expr_lex_free(&lx);
	if (!w->e) {
		tr_where_free(w);
		return NULL;
	}
	collect_checks(w);
	return w;
}

/* The trace's own fields, read once a trace. */
typedef struct w_trace {
	int64_t start, duration, root_duration;	/* -1 duration: untimed */
} w_trace;

static void
trace_times(const tr_trace *t, w_trace *wt)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;

	for (size_t i = 0; i < t->nspans; i++) {
		const tr_span *s = &t->spans[i];

		if (s->flags & TR_SPAN_HAS_TIME) {
			lo = s->start < lo ? s->start : lo;
			hi = tr_span_end(s) > hi ? tr_span_end(s) : hi;
		}
	}
	wt->start = lo;
	wt->duration = -1;
	/* hand-written times may span more than int64 holds: saturate, as
	 * the queries do */
	if (lo != INT64_MAX && __builtin_sub_overflow(hi, lo, &wt->duration))
		wt->duration = INT64_MAX;
	wt->root_duration = t->nroots && (t->spans[t->roots[0]].flags & TR_SPAN_HAS_TIME)
		? t->spans[t->roots[0]].duration : -1;
}

static expr_value
text_or_null(const char *s)
{
	return s && *s ? expr_str(s, strlen(s)) : expr_null();
}

static expr_value
tag_value(const tr_span *s, const char *key)
{
	const char *v = tr_span_tag(s, key);

	return v ? expr_from_text(v, strlen(v)) : expr_null();
}

static expr_value
error_message(tr_where *w, const tr_trace *t, int32_t i)
{
	tr_failure f;

	if (!tr_span_error(t, i, &f))
		return expr_null();
	sb_clear(&w->msg);
	tr_failure_text(&f, 0, &w->msg);
	return expr_str(w->msg.s, w->msg.len);
}

static expr_value
root_text(const tr_trace *t, int operation)
{
	const tr_span *r;

	if (!t->nroots)
		return expr_null();
	r = &t->spans[t->roots[0]];
	return text_or_null(operation ? r->operation : r->service);
}

static expr_value
trace_value(const tr_trace *t, const w_trace *wt, enum w_field f)
{
	switch (f) {
	case W_TRACE_START: return wt->duration >= 0 ? expr_num((double)wt->start) : expr_null();
	case W_TRACE_DURATION: return wt->duration >= 0 ? expr_num((double)wt->duration) : expr_null();
	case W_TRACE_SPANS: return expr_num((double)t->nspans);
	case W_ROOT_DURATION:
		return wt->root_duration >= 0 ? expr_num((double)wt->root_duration) : expr_null();
	case W_ROOT_SERVICE: return root_text(t, 0);
	case W_ROOT_OPERATION: return root_text(t, 1);
	default: return expr_null();
	}
}

static expr_value
span_value(tr_where *w, const tr_trace *t, int32_t i, const w_slot *sl)
{
	const tr_span *s = &t->spans[i];
	int timed = (s->flags & TR_SPAN_HAS_TIME) != 0;

	switch (sl->field) {
	case W_TRACE: return text_or_null(t->trace_id);
	case W_SPAN: return text_or_null(s->span_id);
	case W_PARENT: return text_or_null(s->parent_id);
	case W_SERVICE: return expr_str(s->service, strlen(s->service));
	case W_OPERATION: return expr_str(s->operation, strlen(s->operation));
	case W_KIND: return text_or_null(tr_kind_name(s->kind));
	case W_HOST: return text_or_null(s->host);
	case W_START: return timed ? expr_num((double)s->start) : expr_null();
	case W_DURATION: return timed ? expr_num((double)s->duration) : expr_null();
	case W_END: return timed ? expr_num((double)tr_span_end(s)) : expr_null();
	case W_DEPTH: return expr_num(s->depth);
	case W_ROOT: return expr_bool(s->parent < 0);
	case W_ERROR: return expr_bool(tr_span_error(t, i, NULL));
	case W_ERROR_MESSAGE: return error_message(w, t, i);
	case W_TAG: return tag_value(s, sl->key);
	default: return expr_null();
	}
}

/* The services and operations of t, for the hint. */
static void
note_names(tr_where *w, const tr_trace *t)
{
	int added;

	for (size_t i = 0; i < t->nspans; i++) {
		const tr_span *s = &t->spans[i];

		strmap_put_copy(&w->seen[0], &w->mem, s->service, strlen(s->service), &added);
		strmap_put_copy(&w->seen[1], &w->mem, s->operation, strlen(s->operation), &added);
	}
}

/* Does t have a span where the expression holds? */
static int
holds(tr_where *w, tr_trace *t)
{
	w_trace wt;

	trace_times(t, &wt);
	for (size_t k = 0; k < w->nslots; k++)
		if (w->slot[k].field >= W_TRACE_START && w->slot[k].field != W_TAG)
			w->v[k] = trace_value(t, &wt, w->slot[k].field);
	if (!w->span_fields)	/* the trace's fields alone: one evaluation */
		return t->nspans && expr_truthy(expr_eval(w->e, w->v));
	for (size_t i = 0; i < t->nspans; i++) {
		for (size_t k = 0; k < w->nslots; k++)
			if (w->slot[k].field < W_TRACE_START || w->slot[k].field == W_TAG)
				w->v[k] = span_value(w, t, (int32_t)i, &w->slot[k]);
		if (expr_truthy(expr_eval(w->e, w->v)))
			return 1;
	}
	return 0;
}

int
tr_where_keep(tr_where *w, tr_trace *t)
{
	/* the names met serve the hint of a filter that kept nothing: once
	 * one trace is kept, none is noted */
	if (w->nchecks && !w->kept_one)
		note_names(w, t);
	int keep = holds(w, t);

	w->kept_one |= keep;
	return keep;
}

int
tr_where_reads_tags(const tr_where *w)
{
	for (size_t k = 0; k < w->nslots; k++)
		if (w->slot[k].field == W_TAG || w->slot[k].field == W_ERROR ||
		    w->slot[k].field == W_ERROR_MESSAGE)
			return 1;
	return 0;
}

/* The closest name met to check c, or NULL; "" when the name was met. */
static const char *
closest_met(const tr_where *w, size_t c)
{
	const strmap *m = &w->seen[w->check_field[c]];
	const char *name = w->check_name[c];

	if (strmap_get(m, name, strlen(name)))
		return "";
	return strmap_closest(m, name);
}

int
tr_where_none(const tr_where *w, size_t traces)
{
	tr_warn("--where %s: none of the %zu traces has a span where it holds", w->src, traces);
	for (size_t c = 0; c < w->nchecks; c++) {
		const char *near = closest_met(w, c), *what = w->check_field[c] ? "operation" : "service";

		if (near && *near)
			tr_warn("--where: no span has %s \"%s\" (did you mean \"%s\"?)", what,
				w->check_name[c], near);
		else if (!near)
			tr_warn("--where: no span has %s \"%s\"", what, w->check_name[c]);
	}
	return TR_EXIT_USAGE;
}

void
tr_where_summary(size_t kept, size_t traces)
{
	tr_warn("--where kept %zu of %zu traces", kept, traces);
}

void
tr_where_free(tr_where *w)
{
	if (!w)
		return;
	for (size_t k = 0; k < w->nslots; k++)
		free(w->slot[k].key);
	expr_free(w->e);
	strmap_free(&w->seen[0]);
	strmap_free(&w->seen[1]);
	arena_free(&w->mem);
	sb_free(&w->msg);
	free(w->src);
	free(w);
}
