/* query_parse.c - the query language's parser (grammar in tr-aggregate(1)).
 * Expressions are expr.c's; this file resolves their names in four
 * contexts: a source filter (bare fields of one node), a row (v.field of the
 * query's variables), a Select item (group keys and aggregates) and
 * --fail-if (result columns). */
#include "query_impl.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const field_names[] = {
	[F_TRACE] = "trace", [F_SPAN] = "span", [F_PARENT] = "parent",
	[F_SERVICE] = "service", [F_OPERATION] = "operation", [F_KIND] = "kind",
	[F_HOST] = "host", [F_START] = "start", [F_DURATION] = "duration", [F_END] = "end",
	[F_SELF] = "self", [F_DEPTH] = "depth", [F_ROOT] = "root", [F_ERROR] = "error",
	[F_ERROR_MESSAGE] = "error_message",
	[F_TRACE_START] = "trace_start", [F_TRACE_DURATION] = "trace_duration",
	[F_ROOT_DURATION] = "root_duration",
	[F_TIME] = "time", [F_EVENT] = "event", [F_TAG] = "tag",
};

int
q_field_lookup(const char *name, size_t len)
{
	for (int f = 0; f <= F_TAG; f++)
		if (strlen(field_names[f]) == len && strncasecmp(field_names[f], name, len) == 0)
			return f;
	return -1;
}

const char *
q_field_name(enum q_field f)
{
	return f <= F_TAG ? field_names[f] : "?";
}

int
q_field_type(enum q_field f)
{
	switch (f) {
	case F_START: case F_DURATION: case F_END: case F_SELF: case F_DEPTH:
	case F_TRACE_START: case F_TRACE_DURATION: case F_ROOT_DURATION: case F_TIME:
		return EV_NUM;
	case F_ROOT: case F_ERROR:
		return EV_BOOL;
	case F_TAG: case F_COL: case F_AGG: case F_KEY:
		return -1;
	default:
		return EV_STR;
	}
}

enum ctx_mode { CTX_FILTER, CTX_ROW, CTX_SELECT, CTX_FAILIF, CTX_ANY };

typedef struct pctx {
	query *q;
	enum ctx_mode mode;
	q_slots *slots;		/* where the fields of this context go */
	enum q_rel rel;		/* CTX_FILTER: the relation filtered */
	int saw_agg;		/* an aggregate name met in row context */
	const query *cq;	/* CTX_FAILIF */
	int keys_ok;		/* an aggregate's argument: GroupBy keys by As name */
} pctx;

static const char *const agg_names[] = {
	"count", "sum", "min", "max", "avg", "average", "percentile",
	"p50", "p75", "p90", "p95", "p99", "p999",
};

static int
is_agg_name(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof agg_names / sizeof agg_names[0]; i++)
		if (strlen(agg_names[i]) == len && strncasecmp(agg_names[i], name, len) == 0)
			return 1;
	return 0;
}

static int
add_slot(q_slots *s, int var, enum q_field f, const char *key, size_t keylen, int col)
{
	for (size_t i = 0; i < s->n; i++) {
		q_slot *o = &s->v[i];
		if (o->var == var && o->field == f && o->col == col &&
		    (!key || (o->key && strlen(o->key) == keylen && memcmp(o->key, key, keylen) == 0)))
			return (int)i;
	}
	GROW(s->v, s->cap, s->n + 1);
	q_slot *o = &s->v[s->n];
	o->var = var;
	o->field = f;
	o->col = col;
	o->in_key = 0;
	o->key = NULL;
	if (key) {
		o->key = xmalloc(keylen + 1);
		memcpy(o->key, key, keylen);
		o->key[keylen] = '\0';
	}
	return (int)s->n++;
}

/* A field of a node: name is "service", "tag" (with key), ... */
static int
node_field(pctx *c, int var, enum q_rel rel, const char *name, size_t len, const char *key,
	   size_t keylen, int *type, char *err, size_t errlen)
{
	int f = q_field_lookup(name, len);

	if (f < 0) {
		snprintf(err, errlen, "unknown field '%.*s' (fields: trace span parent service "
			 "operation kind host start duration end self depth root error error_message time "
			 "event trace_start trace_duration root_duration tag[\"key\"])", (int)len, name);
		return -1;
	}
	if ((f == F_TAG) != (key != NULL)) {
		snprintf(err, errlen, key ? "'%.*s' takes no [\"key\"]" : "tag needs a key: tag[\"name\"]",
			 (int)len, name);
		return -1;
	}
	if (rel == REL_LOGS && (f == F_PARENT || f == F_KIND || f == F_SELF || f == F_DEPTH ||
				f == F_ROOT || f == F_ERROR || f == F_ERROR_MESSAGE)) {
		snprintf(err, errlen, "logs have no field '%s'", field_names[f]);
		return -1;
	}
	if (rel == REL_SPANS && f == F_EVENT) {
		snprintf(err, errlen, "spans have no field 'event' (logs do)");
		return -1;
	}
	if (f == F_SELF)
		c->q->uses_self = 1;
	if (f == F_TRACE_START || f == F_TRACE_DURATION || f == F_ROOT_DURATION)
		c->q->uses_trace_times = 1;
	*type = q_field_type(f);
	int slot = add_slot(c->slots, var, f, key, keylen, -1);
	if (c->q->parsing_keys)
		c->slots->v[slot].in_key = 1;
	return slot;
}

static int
find_var(const query *q, const char *name, size_t len)
{
	for (int i = 0; i < q->nvars; i++)
		if (strlen(q->vars[i].name) == len && memcmp(q->vars[i].name, name, len) == 0)
			return i;
	return -1;
}

/* A column of a subquery by its name. */
static int
find_col(const query *q, const char *name, size_t len)
{
	for (int i = 0; i < q->ncols; i++)
		if (strlen(q->cols[i].name) == len && memcmp(q->cols[i].name, name, len) == 0)
			return i;
	return -1;
}

/* In an aggregate's argument, a GroupBy key named by its As name: an each()
 * key's value is the list element of the group the row goes to. -1: none. */
static int
key_ref(pctx *c, const char *name, size_t len, int *type)
{
	const query *q = c->q;

	for (int k = 0; c->keys_ok && k < q->nkeys; k++)
		if (q->keys[k].named && strlen(q->keys[k].name) == len &&
		    memcmp(q->keys[k].name, name, len) == 0) {
			*type = q->keys[k].each ? -1 : expr_static_type(q->keys[k].e);
			return add_slot(c->slots, 0, F_KEY, NULL, 0, k);
		}
	return -1;
}

static int
row_field(pctx *c, const char *name, size_t len, const char *key, size_t keylen, int *type,
	  char *err, size_t errlen)
{
	const char *dot = memchr(name, '.', len);
	int slot;

	if (is_agg_name(name, len)) {
		c->saw_agg = 1;
		snprintf(err, errlen, "%.*s is an aggregate: only in Select", (int)len, name);
		return -1;
	}
	if (!dot) {
		static const char *const keywords[] = {
			"from", "in", "join", "on", "where", "groupby", "group", "by", "select", "as",
		};
		for (size_t k = 0; k < sizeof keywords / sizeof keywords[0]; k++)
			if (strlen(keywords[k]) == len && strncasecmp(keywords[k], name, len) == 0) {
				snprintf(err, errlen, "expected an expression, not %.*s", (int)len, name);
				return -1;
			}
		if (!key && (slot = key_ref(c, name, len, type)) >= 0)
			return slot;
		snprintf(err, errlen, "'%.*s' needs a variable: v.%.*s", (int)len, name, (int)len,
			 name);
		return -1;
	}
	int v = find_var(c->q, name, (size_t)(dot - name));
	if (v < 0) {
		snprintf(err, errlen, "unknown variable '%.*s'", (int)(dot - name), name);
		return -1;
	}
	const char *f = dot + 1;
	size_t flen = len - (size_t)(f - name);
	q_var *var = &c->q->vars[v];
	if (var->src[0].rel == REL_QUERY) {
		int col = key ? -1 : find_col(var->src[0].sub, f, flen);
		if (col < 0) {
			snprintf(err, errlen, "the subquery of %s has no column '%.*s'", var->name,
				 (int)flen, f);
			return -1;
		}
		*type = -1;
		return add_slot(c->slots, v, F_COL, NULL, 0, col);
	}
	enum q_rel rel = var->src[0].rel;
	for (int i = 1; i < var->nsrc; i++)
		if (var->src[i].rel != rel)
			rel = REL_QUERY;	/* a union of spans and logs: any field */
	return node_field(c, v, rel == REL_QUERY ? REL_QUERY : rel, f, flen, key, keylen, type,
			  err, errlen);
}

/* Select context: a group key by its As name or text. */
static int
select_field(pctx *c, const char *name, size_t len, const char *key, size_t keylen, int *type,
	     char *err, size_t errlen)
{
	query *q = c->q;
	(void)keylen;
	if (len == 5 && strncasecmp(name, "count", 5) == 0 && !key) {
		GROW(q->aggs, q->capaggs, (size_t)q->naggs + 1);
		q->aggs[q->naggs] = (q_agg){A_COUNT, NULL, 0, xstrdup("COUNT")};
		*type = EV_NUM;
		return q->nkeys + q->naggs++;
	}
	for (int i = 0; i < q->nkeys && !key; i++)
		if ((strlen(q->keys[i].name) == len && memcmp(q->keys[i].name, name, len) == 0) ||
		    (strlen(q->keys[i].canon) == len && memcmp(q->keys[i].canon, name, len) == 0)) {
			*type = expr_static_type(q->keys[i].e);
			return i;
		}
	snprintf(err, errlen, "%.*s%s in Select is neither a GroupBy key nor inside an aggregate",
		 (int)len, name, key ? "[...]" : "");
	return -1;
}

/* each(e) in Select: the GroupBy key each(e). */
static int
each_key(query *q, expr *arg, char *err, size_t errlen)
{
	strbuf b = {0};
	int found = -1;

	sb_adds(&b, "each(");
	expr_print(arg, &b);
	sb_addc(&b, ')');
	for (int i = 0; i < q->nkeys && found < 0; i++)
		if (q->keys[i].each && strcmp(q->keys[i].canon, b.s) == 0)
			found = i;
	if (found < 0)
		snprintf(err, errlen, "%s in Select is not a GroupBy key", b.s);
	else
		expr_free(arg);
	sb_free(&b);
	return found;
}

static int
select_call(void *ctx, const char *name, size_t len, expr **args, int nargs, int distinct,
	    char *err, size_t errlen)
{
	pctx *c = ctx;
	query *q = c->q;
	q_agg a = {A_COUNT, NULL, 0, NULL};
	char lname[16] = "";
	expr_value p;

	if (len == 4 && strncasecmp(name, "each", 4) == 0 && nargs == 1 && !distinct)
		return each_key(q, args[0], err, errlen);
	if (!is_agg_name(name, len)) {
		snprintf(err, errlen, "unknown function %.*s", (int)len, name);
		return -1;
	}
	for (size_t i = 0; i < len && i < sizeof lname - 1; i++)
		lname[i] = (char)tolower((unsigned char)name[i]);
	if (distinct && strcmp(lname, "count") != 0) {
		snprintf(err, errlen, "DISTINCT only in COUNT(DISTINCT x)");
		return -1;
	}
	int want = strcmp(lname, "percentile") == 0 ? 2 : strcmp(lname, "count") == 0 && !distinct ? -1 : 1;
	if ((want == -1 && nargs > 1) || (want >= 1 && nargs != want)) {
		snprintf(err, errlen, "%s takes %s", lname,
			 want == 2 ? "(x, p)" : want == -1 ? "no argument or one" : "one argument");
		return -1;
	}
	if (strcmp(lname, "count") == 0)
		a.kind = distinct ? A_COUNT_DISTINCT : A_COUNT;
	else if (strcmp(lname, "sum") == 0)
		a.kind = A_SUM;
	else if (strcmp(lname, "min") == 0)
		a.kind = A_MIN;
	else if (strcmp(lname, "max") == 0)
		a.kind = A_MAX;
	else if (strcmp(lname, "avg") == 0 || strcmp(lname, "average") == 0)
		a.kind = A_AVG;
	else {
		a.kind = A_PCT;
		if (lname[0] == 'p' && lname[1] != 'e')
			a.p = strcmp(lname, "p999") == 0 ? 99.9 : atof(lname + 1);
		else if (!expr_constant(args[1], &p) || p.type != EV_NUM || p.num < 0 || p.num > 100) {
			snprintf(err, errlen, "PERCENTILE(x, p) needs p a number from 0 to 100");
			return -1;
		}
		else
			a.p = p.num;
	}
	if (nargs && a.kind != A_COUNT_DISTINCT && a.kind != A_COUNT) {
		int t = expr_static_type(args[0]);
		if (t != -1 && t != EV_NUM && !(t == EV_BOOL && a.kind != A_PCT)) {
			snprintf(err, errlen, "%s needs numbers, not a %s", lname,
				 t == EV_STR ? "string" : t == EV_BOOL ? "boolean" : "null");
			return -1;
		}
	}
	strbuf text = {0};
	expr_call_text(&text, name, len, args, nargs, distinct);
	a.text = text.s;
	a.arg = nargs ? args[0] : NULL;
	for (int i = 1; i < nargs; i++)
		expr_free(args[i]);
	GROW(q->aggs, q->capaggs, (size_t)q->naggs + 1);
	q->aggs[q->naggs] = a;
	return q->nkeys + q->naggs++;
}

static int
row_call(void *ctx, const char *name, size_t len, expr **args, int nargs, int distinct,
	 char *err, size_t errlen)
{
	pctx *c = ctx;
	(void)args, (void)nargs, (void)distinct;
	if (is_agg_name(name, len)) {
		c->saw_agg = 1;
		snprintf(err, errlen, "%.*s is an aggregate: only in Select", (int)len, name);
	} else if (len == 4 && strncasecmp(name, "each", 4) == 0)
		snprintf(err, errlen, "each(list) is a GroupBy key: GroupBy each(x) [As name]");
	else
		snprintf(err, errlen, "unknown function %.*s", (int)len, name);
	return -1;
}

static int
any_field(void *ctx, const char *name, size_t len, const char *key, size_t keylen, int *type,
	  char *err, size_t errlen)
{
	pctx *c = ctx;
	switch (c->mode) {
	case CTX_FILTER:
		if (memchr(name, '.', len)) {
			snprintf(err, errlen, "a source filter names bare fields: '%.*s'", (int)len, name);
			return -1;
		}
		return node_field(c, -1, c->rel, name, len, key, keylen, type, err, errlen);
	case CTX_ROW:
		return row_field(c, name, len, key, keylen, type, err, errlen);
	case CTX_SELECT:
		return select_field(c, name, len, key, keylen, type, err, errlen);
	case CTX_ANY:
		*type = -1;
		return 0;
	case CTX_FAILIF:
		for (int i = 0; i < c->cq->ncols && !key; i++)
			if (strlen(c->cq->cols[i].name) == len &&
			    strncasecmp(c->cq->cols[i].name, name, len) == 0) {
				*type = -1;
				return i;
			}
		snprintf(err, errlen, "no result column '%.*s' (name columns with As)", (int)len, name);
		return -1;
	}
	return -1;
}

static int
failif_call(void *ctx, const char *name, size_t len, expr **args, int nargs, int distinct,
	    char *err, size_t errlen)
{
	pctx *c = ctx;
	strbuf text = {0};
	expr_call_text(&text, name, len, args, nargs, distinct);
	for (int i = 0; i < c->cq->ncols; i++)
		if (strcmp(c->cq->cols[i].canon, text.s) == 0 ||
		    strcmp(c->cq->cols[i].name, text.s) == 0) {
			for (int a = 0; a < nargs; a++)
				expr_free(args[a]);
			sb_free(&text);
			return i;
		}
	snprintf(err, errlen, "no result column %s", text.s);
	sb_free(&text);
	return -1;
}

/* ---------- clauses ---------- */

static query *parse_query(expr_lexer *lx, int depth);

static void *
expect_word(expr_lexer *lx, const char *word, const char *what)
{
	if (!expr_lex_is(lx, word))
		return expr_lex_error(lx, lx->pos, "expected %s", what);
	expr_lex_next(lx);
	return lx;
}

static expr *
parse_in(expr_lexer *lx, query *q, enum ctx_mode mode, q_slots *slots, enum q_rel rel)
{
	pctx c = {q, mode, slots, rel, 0, NULL, 0};
	expr_hooks h = {any_field, mode == CTX_SELECT ? select_call : row_call, &c, NULL};
	pctx rc = {q, CTX_ROW, &q->slots, rel, 0, NULL, 1};
	expr_hooks rowh = {any_field, row_call, &rc, NULL};

	if (mode == CTX_SELECT)
		h.arg_hooks = &rowh;
	return expr_parse_lx(lx, &h);
}

/* A source, added to v first so that query_free frees it on any error. */
static int
parse_source(expr_lexer *lx, query *q, q_var *v, int depth)
{
	GROW(v->src, v->capsrc, (size_t)v->nsrc + 1);
	q_source *s = &v->src[v->nsrc++];

	memset(s, 0, sizeof *s);
	if (lx->tok == TK_LP) {
		expr_lex_next(lx);
		s->rel = REL_QUERY;
		if (!(s->sub = parse_query(lx, depth + 1)))
			return -1;
		if (lx->tok != TK_RP)
			return expr_lex_error(lx, lx->pos, "expected ')' after the subquery"), -1;
		expr_lex_next(lx);
	} else if (expr_lex_is(lx, "spans") || expr_lex_is(lx, "logs")) {
		s->rel = expr_lex_is(lx, "spans") ? REL_SPANS : REL_LOGS;
		if (s->rel == REL_LOGS)
			q->uses_logs = 1;
		expr_lex_next(lx);
		if (lx->tok == TK_LB) {
			expr_lex_next(lx);
			if (!(s->filter = parse_in(lx, q, CTX_FILTER, &s->fslots, s->rel)))
				return -1;
			if (lx->tok != TK_RB)
				return expr_lex_error(lx, lx->pos, "expected ']' after the filter"), -1;
			expr_lex_next(lx);
		}
	} else
		return expr_lex_error(lx, lx->pos,
				      "expected a source: spans, logs, spans[filter] or (query)"), -1;
	if (v->nsrc > 1 && (v->src[0].rel == REL_QUERY || s->rel == REL_QUERY))
		return expr_lex_error(lx, lx->pos, "a subquery cannot be in a union"), -1;
	return 0;
}

static int
parse_sources(expr_lexer *lx, query *q, q_var *v, int depth)
{
	for (;;) {
		if (parse_source(lx, q, v, depth) < 0)
			return -1;
		if (lx->tok != TK_COMMA)
			return 0;
		expr_lex_next(lx);
	}
}

static q_var *
new_var(expr_lexer *lx, query *q)
{
	if (lx->tok != TK_IDENT || memchr(lx->src + lx->pos, '.', lx->end - lx->pos))
		return expr_lex_error(lx, lx->pos, "expected a variable name");
	if (find_var(q, lx->src + lx->pos, lx->end - lx->pos) >= 0)
		return expr_lex_error(lx, lx->pos, "variable '%.*s' is already bound",
				      (int)(lx->end - lx->pos), lx->src + lx->pos);
	GROW(q->vars, q->capvars, (size_t)q->nvars + 1);
	q_var *v = &q->vars[q->nvars++];
	memset(v, 0, sizeof *v);
	v->name = xmalloc(lx->end - lx->pos + 1);
	memcpy(v->name, lx->src + lx->pos, lx->end - lx->pos);
	v->name[lx->end - lx->pos] = '\0';
	v->other = -1;
	v->n = 1;
	expr_lex_next(lx);
	if (!expect_word(lx, "in", "In"))
		return NULL;
	return v;
}

/* Do the rows of variable v have a place in the trace for ->? Spans and
 * logs do; a raw subquery's row is at the node its From variable was bound
 * to (Pivot Tracing emits a query's tuple at its From tracepoint); a
 * grouped one's rows stand for many nodes, so they have none. */
static int
has_place(const q_var *v)
{
	const query *sub = v->src[0].sub;
	return v->src[0].rel != REL_QUERY || (!sub->grouped && has_place(&sub->vars[0]));
}

/* On a -> b: one side is variable vi, the other one bound before it. */
static int
parse_on(expr_lexer *lx, query *q, int vi)
{
	q_var *v = &q->vars[vi];
	int ab[2];

	if (!expect_word(lx, "on", "On a -> b"))
		return -1;
	for (int k = 0; k < 2; k++) {
		size_t pos = lx->pos;
		if (lx->tok != TK_IDENT)
			return expr_lex_error(lx, pos, "expected a variable"), -1;
		ab[k] = find_var(q, lx->src + pos, lx->end - pos);
		if (ab[k] < 0)
			return expr_lex_error(lx, pos, "unknown variable '%.*s'", (int)(lx->end - pos),
					      lx->src + pos), -1;
		if (!has_place(&q->vars[ab[k]]))
			return expr_lex_error(lx, pos, "%s holds grouped subquery rows: they have no "
					      "place in the trace for ->", q->vars[ab[k]].name), -1;
		expr_lex_next(lx);
		if (k == 0) {
			if (lx->tok != TK_ARROW)
				return expr_lex_error(lx, lx->pos, "expected '->'"), -1;
			expr_lex_next(lx);
		}
	}
	if ((ab[0] == vi) == (ab[1] == vi))
		return expr_lex_error(lx, lx->pos, "On must relate %s to an earlier variable",
				      v->name), -1;
	v->before = ab[0] == vi;
	v->other = v->before ? ab[1] : ab[0];
	return 0;
}

/* Join v In [First|MostRecent|FirstN|MostRecentN](sources) On a -> b */
static int
parse_join(expr_lexer *lx, query *q, int depth)
{
	q_var *v = new_var(lx, q);
	int vi = q->nvars - 1;

	if (!v)
		return -1;
	int paren = 0;
	if (expr_lex_is(lx, "first") || expr_lex_is(lx, "mostrecent") || expr_lex_is(lx, "firstn") ||
	    expr_lex_is(lx, "mostrecentn")) {
		int first = expr_lex_is(lx, "first") || expr_lex_is(lx, "firstn");
		int withn = expr_lex_is(lx, "firstn") || expr_lex_is(lx, "mostrecentn");
		v->sel = first ? SEL_FIRST : SEL_RECENT;
		expr_lex_next(lx);
		if (lx->tok != TK_LP)
			return expr_lex_error(lx, lx->pos, "expected '('"), -1;
		expr_lex_next(lx);
		paren = 1;
		if (withn) {
			if (lx->tok != TK_NUM || lx->num < 1 || lx->num > 1e6 || lx->num != (int)lx->num)
				return expr_lex_error(lx, lx->pos, "expected a count from 1"), -1;
			v->n = (int)lx->num;
			expr_lex_next(lx);
			if (lx->tok != TK_COMMA)
				return expr_lex_error(lx, lx->pos, "expected ','"), -1;
			expr_lex_next(lx);
		}
	}
	if (parse_sources(lx, q, v, depth) < 0)
		return -1;
	if (!has_place(v))
		return expr_lex_error(lx, lx->pos, "a grouped subquery's rows have no place in "
				      "the trace: use it in From, not with ->"), -1;
	if (paren) {
		if (lx->tok != TK_RP)
			return expr_lex_error(lx, lx->pos, "expected ')'"), -1;
		expr_lex_next(lx);
	}
	return parse_on(lx, q, vi);
}

static void
collapse_text(const char *s, size_t n, strbuf *b)
{
	int space = 0;
	for (size_t i = 0; i < n; i++) {
		if (isspace((unsigned char)s[i])) {
			space = 1;
			continue;
		}
		if (space && b->len)
			sb_addc(b, ' ');
		space = 0;
		sb_addc(b, s[i]);
	}
	if (!b->s)
		sb_adds(b, "");
}

/* expr [As name]; the column's name is the As name or the text as written. */
static int
parse_as(expr_lexer *lx, q_col *c, size_t start, size_t stop)
{
	strbuf b = {0};

	if (expr_lex_is(lx, "as")) {
		expr_lex_next(lx);
		if (lx->tok != TK_IDENT || memchr(lx->src + lx->pos, '.', lx->end - lx->pos))
			return expr_lex_error(lx, lx->pos, "expected a name after As"), -1;
		sb_add(&b, lx->src + lx->pos, lx->end - lx->pos);
		c->named = 1;
		expr_lex_next(lx);
	} else
		collapse_text(lx->src + start, stop - start, &b);
	c->name = b.s;
	strbuf canon = {0};
	expr_print(c->e, &canon);
	c->canon = canon.s;
	return 0;
}

/* Is the lexer at "each(" (a GroupBy key per value of a list)? */
static int
at_each(const expr_lexer *lx)
{
	const char *p = lx->src + lx->end;
	if (!expr_lex_is(lx, "each"))
		return 0;
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return *p == '(';
}

/* The canonical text of an each() key: each(e). */
static void
each_canon(q_col *c)
{
	strbuf b = {0};
	sb_addf(&b, "each(%s)", c->canon);
	free(c->canon);
	c->canon = b.s;
}

static int
parse_groupby(expr_lexer *lx, query *q)
{
	for (;;) {
		size_t start = lx->pos;
		q_col c = {0};
		if ((c.each = at_each(lx))) {
			expr_lex_next(lx);
			expr_lex_next(lx);
			q->each = 1;
		}
		q->parsing_keys = 1;
		c.e = parse_in(lx, q, CTX_ROW, &q->slots, REL_SPANS);
		q->parsing_keys = 0;
		if (!c.e)
			return -1;
		c.key = q->nkeys;
		GROW(q->keys, q->capkeys, (size_t)q->nkeys + 1);
		q->keys[q->nkeys++] = c;
		if (c.each && lx->tok != TK_RP)
			return expr_lex_error(lx, lx->pos, "expected ')' after each(list"), -1;
		if (c.each)
			expr_lex_next(lx);
		if (parse_as(lx, &q->keys[q->nkeys - 1], start, lx->pos) < 0)
			return -1;
		if (c.each)
			each_canon(&q->keys[q->nkeys - 1]);
		if (lx->tok != TK_COMMA)
			return 0;
		expr_lex_next(lx);
	}
}

/* Parse an expression on a copy of the lexer; on success the lexer moves
 * past it, else it stays (and *saw_agg tells whether an aggregate was met). */
static expr *
try_parse(expr_lexer *lx, query *q, enum ctx_mode mode, int *saw_agg)
{
	pctx rc = {q, CTX_ROW, &q->slots, REL_SPANS, 0, NULL, 0};
	expr_hooks rowh = {any_field, row_call, &rc, NULL};
	expr_lexer try = *lx;
	expr *e;

	try.str = lx->str ? xstrdup(lx->str) : NULL;
	try.err = NULL;
	try.errlen = 0;
	e = mode == CTX_ROW ? expr_parse_lx(&try, &rowh)
			    : parse_in(&try, q, CTX_SELECT, &q->slots, REL_SPANS);
	if (saw_agg)
		*saw_agg = rc.saw_agg;
	if (!e) {
		expr_lex_free(&try);
		return NULL;
	}
	expr_lex_free(lx);
	try.err = lx->err;
	try.errlen = lx->errlen;
	*lx = try;
	return e;
}

/* One Select item: tried over rows first (a GroupBy key, or a column of
 * raw rows); one with an aggregate, or naming a key by its As name, is
 * parsed over groups. */
static int
parse_select_item(expr_lexer *lx, query *q, q_col *c)
{
	int saw_agg = 0;

	c->key = -1;
	c->pos = lx->pos;
	if ((c->e = try_parse(lx, q, CTX_ROW, &saw_agg))) {
		c->row = 1;
		return 0;
	}
	if (!saw_agg && q->nkeys && (c->e = try_parse(lx, q, CTX_SELECT, NULL)))
		return 0;
	if (!saw_agg) {
		pctx rc = {q, CTX_ROW, &q->slots, REL_SPANS, 0, NULL, 0};
		expr_hooks rowh = {any_field, row_call, &rc, NULL};
		expr_free(expr_parse_lx(lx, &rowh));	/* the row error, reported */
		return -1;
	}
	q->grouped = 1;
	c->e = parse_in(lx, q, CTX_SELECT, &q->slots, REL_SPANS);
	return c->e ? 0 : -1;
}

static int
parse_select(expr_lexer *lx, query *q)
{
	for (;;) {
		q_col c = {0};
		if (parse_select_item(lx, q, &c) < 0)
			return -1;
		GROW(q->cols, q->capcols, (size_t)q->ncols + 1);
		q->cols[q->ncols++] = c;
		if (parse_as(lx, &q->cols[q->ncols - 1], c.pos, lx->pos) < 0)
			return -1;
		if (lx->tok != TK_COMMA)
			break;
		expr_lex_next(lx);
	}
	q->nshown = q->ncols;
	return 0;
}

/* A column OrderBy or Per names: a Select column by its name (As, or as
 * written), else a hidden column parsed like a Select item. */
static int
order_col(expr_lexer *lx, query *q)
{
	if (lx->tok == TK_IDENT) {
		size_t n = lx->end - lx->pos;

		for (int i = 0; i < q->nshown; i++)
			if (strlen(q->cols[i].name) == n && memcmp(q->cols[i].name, lx->src + lx->pos, n) == 0) {
				expr_lexer peek = *lx;	/* a name alone, not the start of an expression */
				int alone;

				peek.str = NULL;
				peek.err = NULL;
				peek.errlen = 0;
				expr_lex_next(&peek);
				alone = peek.tok == TK_COMMA || peek.tok == TK_EOF || expr_lex_is(&peek, "asc") ||
					expr_lex_is(&peek, "desc") || expr_lex_is(&peek, "limit") ||
					expr_lex_is(&peek, "per");
				free(peek.str);
				if (alone) {
					expr_lex_next(lx);
					return i;
				}
			}
	}
	q_col c = {0};

	if (parse_select_item(lx, q, &c) < 0)
		return -1;
	c.hidden = 1;
	GROW(q->cols, q->capcols, (size_t)q->ncols + 1);
	q->cols[q->ncols++] = c;
	if (parse_as(lx, &q->cols[q->ncols - 1], c.pos, lx->pos) < 0)
		return -1;
	return q->ncols - 1;
}

/* [OrderBy x [Asc|Desc] {, ...}] [Limit n [Per x]] */
static int
parse_order_limit(expr_lexer *lx, query *q)
{
	q->per = -1;
	if (expr_lex_is(lx, "orderby") || expr_lex_is(lx, "order")) {
		if (expr_lex_is(lx, "order")) {
			expr_lex_next(lx);
			if (!expect_word(lx, "by", "By"))
				return -1;
		} else
			expr_lex_next(lx);
		for (;;) {
			q_order o = {order_col(lx, q), 0};

			if (o.col < 0)
				return -1;
			if (expr_lex_is(lx, "desc") || expr_lex_is(lx, "asc")) {
				o.desc = expr_lex_is(lx, "desc");
				expr_lex_next(lx);
			}
			GROW(q->order, q->caporder, (size_t)q->norder + 1);
			q->order[q->norder++] = o;
			if (lx->tok != TK_COMMA)
				break;
			expr_lex_next(lx);
		}
	}
	if (expr_lex_is(lx, "limit")) {
		expr_lex_next(lx);
		if (lx->tok != TK_NUM || lx->num < 1 || lx->num > 1e9 || lx->num != (long)lx->num)
			return expr_lex_error(lx, lx->pos, "Limit takes a whole number of rows, 1 or more"), -1;
		q->limit = (long)lx->num;
		expr_lex_next(lx);
		if (expr_lex_is(lx, "per")) {
			expr_lex_next(lx);
			if ((q->per = order_col(lx, q)) < 0)
				return -1;
		}
	}
	return 0;
}

/* After Select, OrderBy and Per: grouped or not, and in a grouped query
 * every column over rows must be a GroupBy key. */
static int
check_columns(expr_lexer *lx, query *q)
{
	if (q->nkeys)
		q->grouped = 1;
	for (int i = 0; q->grouped && i < q->ncols; i++) {
		q_col *c = &q->cols[i];
		for (int k = 0; c->row && k < q->nkeys && c->key < 0; k++)
			if (strcmp(c->canon, q->keys[k].canon) == 0 ||
			    strcmp(c->canon, q->keys[k].name) == 0)
				c->key = k;
		if (c->row && c->key < 0)
			return expr_lex_error(lx, c->pos, "%s in Select is neither a GroupBy key nor "
					      "inside an aggregate", c->name), -1;
	}
	return 0;
}

static query *
parse_query(expr_lexer *lx, int depth)
{
	query *q = xcalloc(1, sizeof *q);

	if (depth > 8) {
		expr_lex_error(lx, lx->pos, "subqueries nested too deeply");
		goto fail;
	}
	if (!expect_word(lx, "from", "From"))
		goto fail;
	q_var *v = new_var(lx, q);
	if (!v || parse_sources(lx, q, v, depth) < 0)
		goto fail;
	while (expr_lex_is(lx, "join")) {
		expr_lex_next(lx);
		if (parse_join(lx, q, depth) < 0)
			goto fail;
	}
	if (expr_lex_is(lx, "where")) {
		expr_lex_next(lx);
		if (!(q->where = parse_in(lx, q, CTX_ROW, &q->slots, REL_SPANS)))
			goto fail;
	}
	if (expr_lex_is(lx, "groupby") || expr_lex_is(lx, "group")) {
		if (expr_lex_is(lx, "group")) {
			expr_lex_next(lx);
			if (!expect_word(lx, "by", "By"))
				goto fail;
		} else
			expr_lex_next(lx);
		if (parse_groupby(lx, q) < 0)
			goto fail;
	}
	if (!expect_word(lx, "select", lx->tok == TK_EOF ? "Select" :
			 "Join, Where, GroupBy or Select"))
		goto fail;
	if (parse_select(lx, q) < 0 || parse_order_limit(lx, q) < 0 || check_columns(lx, q) < 0)
		goto fail;
	if (depth && (q->norder || q->limit)) {
		expr_lex_error(lx, lx->pos, "OrderBy and Limit belong to the outermost query");
		goto fail;
	}
	for (int i = 0; i < q->nvars; i++)
		for (int s = 0; s < q->vars[i].nsrc; s++)
			if (q->vars[i].src[s].sub && q->vars[i].src[s].sub->uses_logs)
				q->uses_logs = 1;
	return q;
fail:
	query_free(q);
	return NULL;
}

/* Tags the tools write in µs (cp.self; tr-temporal's tp.self and
 * tp.delay) and any key that says so (queue.wait_us). */
static int
is_duration_tag(const char *key)
{
	size_t n = strlen(key);

	return strcmp(key, "cp.self") == 0 || strcmp(key, "tp.self") == 0 ||
	       strcmp(key, "tp.delay") == 0 || (n > 3 && strcmp(key + n - 3, "_us") == 0);
}

static int
is_duration_field(const q_slots *s, const expr *e)
{
	int slot = expr_slot(e);

	if (slot < 0 || (size_t)slot >= s->n)
		return 0;
	switch (s->v[slot].field) {
	case F_DURATION: case F_SELF: case F_TRACE_DURATION: case F_ROOT_DURATION:
		return 1;
	case F_TAG:
		return is_duration_tag(s->v[slot].key);
	default:
		return 0;
	}
}

/* Which shown columns hold durations, for --units: a duration field, a
 * GroupBy key that is one, or a SUM, MIN, MAX, AVG or percentile of one.
 * Any other expression (s.end - s.start, a duration over a count) is
 * written as computed: its unit is the query's business. */
static void
mark_durations(query *q)
{
	for (int i = 0; i < q->nshown; i++) {
		q_col *c = &q->cols[i];
		int slot = expr_slot(c->e);

		if (!q->grouped || c->row)
			c->dur = is_duration_field(&q->slots, c->e);
		else if (slot >= 0 && slot < q->nkeys)
			c->dur = is_duration_field(&q->slots, q->keys[slot].e);
		else if (slot >= q->nkeys && slot < q->nkeys + q->naggs) {
			const q_agg *a = &q->aggs[slot - q->nkeys];

			c->dur = a->kind != A_COUNT && a->kind != A_COUNT_DISTINCT &&
				 is_duration_field(&q->slots, a->arg);
		}
	}
}

query *
query_parse(const char *src, char *err, size_t errlen, size_t *errpos)
{
	expr_lexer lx;

	expr_lex_init(&lx, src, err, errlen);
	query *q = parse_query(&lx, 0);
	if (q && lx.tok != TK_EOF) {
		query_free(q);
		q = expr_lex_error(&lx, lx.pos, "unexpected '%.*s' after the query",
				   (int)(lx.end - lx.pos), src + lx.pos);
	}
	if (q) {
		q->src = xstrdup(src);
		mark_durations(q);
	}
	*errpos = lx.errpos;
	expr_lex_free(&lx);
	return q;
}

expr *
query_fail_if_parse(const query *q, const char *src, char *err, size_t errlen, size_t *errpos)
{
	expr_lexer lx;
	pctx any = {(query *)q, CTX_ANY, NULL, REL_SPANS, 0, q, 0};
	expr_hooks anyh = {any_field, NULL, &any, NULL};
	pctx c = {(query *)q, CTX_FAILIF, NULL, REL_SPANS, 0, q, 0};
	expr_hooks h = {any_field, failif_call, &c, &anyh};

	expr_lex_init(&lx, src, err, errlen);
	expr *e = expr_parse_lx(&lx, &h);
	if (e && lx.tok != TK_EOF) {
		expr_free(e);
		e = expr_lex_error(&lx, lx.pos, "unexpected '%.*s'", (int)(lx.end - lx.pos),
				   src + lx.pos);
	}
	*errpos = lx.errpos;
	expr_lex_free(&lx);
	return e;
}

static void
free_slots(q_slots *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].key);
	free(s->v);
}

static void
free_cols(q_col *c, int n)
{
	for (int i = 0; i < n; i++) {
		free(c[i].name);
		free(c[i].canon);
		expr_free(c[i].e);
	}
	free(c);
}

void
query_free(query *q)
{
	if (!q)
		return;
	for (int i = 0; i < q->nvars; i++) {
		for (int s = 0; s < q->vars[i].nsrc; s++) {
			expr_free(q->vars[i].src[s].filter);
			free_slots(&q->vars[i].src[s].fslots);
			query_free(q->vars[i].src[s].sub);
		}
		free(q->vars[i].src);
		free(q->vars[i].name);
	}
	free(q->vars);
	expr_free(q->where);
	free_cols(q->keys, q->nkeys);
	free_cols(q->cols, q->ncols);
	free(q->order);
	for (int i = 0; i < q->naggs; i++) {
		expr_free(q->aggs[i].arg);
		free(q->aggs[i].text);
	}
	free(q->aggs);
	free_slots(&q->slots);
	free(q->src);
	free(q);
}

int query_is_grouped(const query *q) { return q->grouped; }
int query_ncols(const query *q) { return q->ncols; }
const char *query_col_name(const query *q, int i) { return q->cols[i].name; }

/* ---------- printing ---------- */

static void print_query(const query *q, strbuf *b, int indent);

static void
print_sources(const q_var *v, strbuf *b, int indent)
{
	for (int s = 0; s < v->nsrc; s++) {
		const q_source *src = &v->src[s];
		if (s)
			sb_adds(b, ", ");
		if (src->rel == REL_QUERY) {
			sb_adds(b, "(\n");
			print_query(src->sub, b, indent + 4);
			sb_addf(b, "%*s)", indent + 2, "");
			continue;
		}
		sb_adds(b, src->rel == REL_SPANS ? "spans" : "logs");
		if (src->filter) {
			sb_addc(b, '[');
			expr_print(src->filter, b);
			sb_addc(b, ']');
		}
	}
}

/* A column OrderBy or Per names: a Select column by its As name, else
 * the expression. */
static void
print_order_col(const query *q, int col, strbuf *b)
{
	const q_col *c = &q->cols[col];

	sb_adds(b, col < q->nshown && c->named ? c->name : c->canon);
}

static void
print_cols(const q_col *c, int n, strbuf *b)
{
	for (int i = 0; i < n; i++) {
		sb_adds(b, i ? ", " : " ");
		sb_adds(b, c[i].canon);
		if (c[i].named)
			sb_addf(b, " As %s", c[i].name);
	}
	sb_addc(b, '\n');
}

static void
print_query(const query *q, strbuf *b, int indent)
{
	for (int i = 0; i < q->nvars; i++) {
		const q_var *v = &q->vars[i];
		if (i == 0) {
			sb_addf(b, "%*sFrom %s In ", indent, "", v->name);
			print_sources(v, b, indent);
			sb_addc(b, '\n');
			continue;
		}
		static const char *const sel[] = {"", "First", "MostRecent"};
		sb_addf(b, "%*sJoin %s In %s", indent, "", v->name, sel[v->sel]);
		if (v->sel != SEL_ALL)
			sb_addf(b, v->n > 1 ? "N(%d, " : "(", v->n);
		print_sources(v, b, indent);
		if (v->sel != SEL_ALL)
			sb_addc(b, ')');
		sb_addf(b, " On %s -> %s\n", v->before ? v->name : q->vars[v->other].name,
			v->before ? q->vars[v->other].name : v->name);
	}
	if (q->where) {
		sb_addf(b, "%*sWhere ", indent, "");
		expr_print(q->where, b);
		sb_addc(b, '\n');
	}
	if (q->nkeys) {
		sb_addf(b, "%*sGroupBy", indent, "");
		print_cols(q->keys, q->nkeys, b);
	}
	sb_addf(b, "%*sSelect", indent, "");
	print_cols(q->cols, q->nshown, b);
	for (int i = 0; i < q->norder; i++) {
		sb_addf(b, i ? ", " : "%*sOrderBy ", indent, "");
		print_order_col(q, q->order[i].col, b);
		if (q->order[i].desc)
			sb_adds(b, " Desc");
	}
	if (q->norder)
		sb_addc(b, '\n');
	if (q->limit) {
		sb_addf(b, "%*sLimit %ld", indent, "", q->limit);
		if (q->per >= 0) {
			sb_adds(b, " Per ");
			print_order_col(q, q->per, b);
		}
		sb_addc(b, '\n');
	}
}

void
query_print(const query *q, strbuf *b)
{
	print_query(q, b, 0);
}

void
query_error_text(const char *src, size_t pos, const char *msg, strbuf *b)
{
	size_t line = 1, bol = 0;

	for (size_t i = 0; i < pos && src[i]; i++)
		if (src[i] == '\n') {
			line++;
			bol = i + 1;
		}
	size_t eol = bol;
	while (src[eol] && src[eol] != '\n')
		eol++;
	/* the column counts characters, not UTF-8 continuation bytes */
	size_t col = 1;
	for (size_t i = bol; i < pos; i++)
		if (((unsigned char)src[i] & 0xc0) != 0x80)
			col++;
	sb_addf(b, "query:%zu:%zu: %s\n", line, col, msg);
	sb_addf(b, "    %.*s\n    ", (int)(eol - bol), src + bol);
	for (size_t i = bol; i < pos; i++)
		if (((unsigned char)src[i] & 0xc0) != 0x80)
			sb_addc(b, src[i] == '\t' ? '\t' : ' ');
	sb_adds(b, "^\n");
}
