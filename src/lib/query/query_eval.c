/* query_eval.c - running a parsed query over one trace at a time: the
 * candidates of each variable, the happened-before joins, Where, and rows
 * to the group table or, for raw queries, straight to the output. */
#include "query_impl.h"
#include "core/partial.h"
#include "core/pick.h"

#include <stdlib.h>
#include <string.h>

/* One trace's facts that fields read. */
typedef struct tctx {
	tr_trace *t;
	int64_t *self;			/* per span; INT64_MIN when unknown */
	int64_t tstart, tdur;
	int has_ttime;
	int64_t rootdur;		/* the trace's root span's duration; -1: none timed */
	query_hb_index *hb;
	expr_value **subrows;		/* per variable with a subquery: its rows */
	int32_t **subnodes;		/* and where each raw row is: its From node */
} tctx;

typedef struct cand {
	int32_t *v;
	size_t n, cap;			/* cap in the arena */
} cand;

/* --emit-every: a window [start, start + every) of the table. */
typedef struct q_window {
	int64_t start;
	q_table *t;
} q_window;

struct query_run {
	const query *q;
	query_opts o;
	q_table *table;
	arena mem;			/* one trace's scratch */
	expr_value *slots, *vals, *fslots;
	size_t nfslots;
	query_run **sub;		/* per variable: its subquery's run */
	expr_value *subrows;		/* raw rows of this run as a subquery */
	int32_t *subnodes;		/* the node each raw row was made at */
	size_t nsubrows, capsubrows;
	int collect;			/* a subquery: keep raw rows in subrows */
	/* --explain */
	size_t *ncand, *njoined;
	size_t nwhere, ntraces, nskipped;
	size_t failed;
	size_t rows;			/* result rows made from input rows (query_run_rows) */
	int started, json_rows;
	tr_keywatch *keywatch;		/* per slot: a GroupBy tag key, did any span have it? */
	q_names *names;			/* compared services and operations: seen? */
	/* OrderBy and Limit over raw rows */
	expr_value *held;		/* rows held for OrderBy, ncols values each */
	size_t nheld, capheld;
	arena heldmem;			/* their strings */
	strmap written_per;		/* Limit n Per x, rows as found: rows written per x */
	arena permem;
	size_t written;			/* rows written */
	/* --emit-every: the open windows, oldest first */
	q_window *win;
	size_t nwin, capwin;
	int64_t now;			/* the input's time: the latest trace start */
	int64_t closed;			/* windows starting before it are closed */
	int has_now, wrote_window;
	expr_value window;		/* the start of the window being written */
	size_t late, untimed;		/* rows left out of the windows */
};

/* ---------- fields ---------- */

static expr_value
str_or_null(const char *s)
{
	return s && *s ? expr_str(s, strlen(s)) : expr_null();
}

static const char *
tag_text(const tr_tag *tags, uint32_t n, const char *key)
{
	for (uint32_t i = 0; i < n; i++)
		if (strcmp(tags[i].key, key) == 0)
			return tags[i].val;
	return NULL;
}

/* A tag typed by its text (expr_from_text); null when missing. */
static expr_value
tag_value(const tr_tag *tags, uint32_t n, const char *key)
{
	const char *v = tag_text(tags, n, key);
	return v ? expr_from_text(v, strlen(v)) : expr_null();
}

/* The failure of span i in one line (tr_failure_text), null when it did
 * not fail; kept in the trace's memory. */
static expr_value
error_message(tr_trace *t, int32_t i)
{
	tr_failure f;
	strbuf b = {0};

	if (!tr_span_error(t, i, &f))
		return expr_null();
	tr_failure_text(&f, 0, &b);
	const char *m = arena_strndup(&t->mem, b.s, b.len);
	expr_value v = expr_str(m, b.len);

	sb_free(&b);
	return v;
}

static expr_value
span_value(const tctx *c, int32_t i, const q_slot *sl)
{
	const tr_span *s = &c->t->spans[i];
	int timed = (s->flags & TR_SPAN_HAS_TIME) != 0;

	switch (sl->field) {
	case F_TRACE: return str_or_null(c->t->trace_id);
	case F_SPAN: return str_or_null(s->span_id);
	case F_PARENT: return str_or_null(s->parent_id);
	case F_SERVICE: return expr_str(s->service, strlen(s->service));
	case F_OPERATION: return expr_str(s->operation, strlen(s->operation));
	case F_KIND: return str_or_null(tr_kind_name(s->kind));
	case F_HOST: return str_or_null(s->host);
	case F_START: case F_TIME: return timed ? expr_num((double)s->start) : expr_null();
	case F_DURATION: return timed ? expr_num((double)s->duration) : expr_null();
	case F_END: return timed ? expr_num((double)(s->start + s->duration)) : expr_null();
	case F_SELF:
		return c->self[i] == INT64_MIN ? expr_null() : expr_num((double)c->self[i]);
	case F_DEPTH: return expr_num(s->depth);
	case F_ROOT: return expr_bool(s->parent < 0);
	case F_ERROR: return expr_bool(tr_span_error(c->t, i, NULL));
	case F_ERROR_MESSAGE: return error_message(c->t, i);
	case F_TRACE_START: return c->has_ttime ? expr_num((double)c->tstart) : expr_null();
	case F_TRACE_DURATION: return c->has_ttime ? expr_num((double)c->tdur) : expr_null();
	case F_ROOT_DURATION: return c->rootdur >= 0 ? expr_num((double)c->rootdur) : expr_null();
	case F_TAG: return tag_value(s->tags, s->ntags, sl->key);
	default: return expr_null();
	}
}

static expr_value
log_value(const tctx *c, int32_t i, const q_slot *sl)
{
	const tr_log *l = &c->t->logs[i];
	const tr_span *s = &c->t->spans[l->span];

	switch (sl->field) {
	case F_TRACE: return str_or_null(c->t->trace_id);
	case F_SPAN: return str_or_null(s->span_id);
	case F_SERVICE: return expr_str(s->service, strlen(s->service));
	case F_OPERATION: return expr_str(s->operation, strlen(s->operation));
	case F_HOST: return str_or_null(s->host);
	case F_START: case F_END: case F_TIME: return expr_num((double)l->time);
	case F_DURATION: return expr_num(0);
	case F_EVENT: return str_or_null(tag_text(l->tags, l->ntags, "event"));
	case F_TRACE_START: return c->has_ttime ? expr_num((double)c->tstart) : expr_null();
	case F_TRACE_DURATION: return c->has_ttime ? expr_num((double)c->tdur) : expr_null();
	case F_ROOT_DURATION: return c->rootdur >= 0 ? expr_num((double)c->rootdur) : expr_null();
	case F_TAG: return tag_value(l->tags, l->ntags, sl->key);
	default: return expr_null();
	}
}

/* The value of slot sl for the node (or subquery row) bound to its variable. */
static expr_value
slot_value(const query *q, const tctx *c, const q_slot *sl, int var, int32_t node)
{
	if (sl->field == F_KEY)
		return expr_null();	/* set per group by q_table_add */
	if (sl->field == F_COL)
		return c->subrows[var][(size_t)node * q->vars[var].src[0].sub->ncols + sl->col];
	if (node < (int32_t)c->t->nspans)
		return span_value(c, node, sl);
	return log_value(c, node - (int32_t)c->t->nspans, sl);
}

/* ---------- the run ---------- */

query_run *
query_run_new(const query *q, const query_opts *o)
{
	query_run *r = xcalloc(1, sizeof *r);
	size_t nf = 1;

	r->q = q;
	r->o = *o;
	if (q->grouped)
		r->table = q_table_new(q, o->sketch);
	if (r->table && o->exact_pct)
		q_table_exact_partials(r->table);
	r->slots = xcalloc(q->slots.n + 1, sizeof *r->slots);
	r->keywatch = xcalloc(q->slots.n + 1, sizeof *r->keywatch);
	for (size_t s = 0; s < q->slots.n; s++)
		tr_keywatch_init(&r->keywatch[s], q->slots.v[s].key);
	r->vals = xcalloc((size_t)q->ncols + 1, sizeof *r->vals);
	r->names = q_names_new(q);
	r->sub = xcalloc((size_t)q->nvars, sizeof *r->sub);
	r->ncand = xcalloc((size_t)q->nvars, sizeof *r->ncand);
	r->njoined = xcalloc((size_t)q->nvars, sizeof *r->njoined);
	for (int v = 0; v < q->nvars; v++)
		for (int s = 0; s < q->vars[v].nsrc; s++) {
			const q_source *src = &q->vars[v].src[s];
			if (src->fslots.n > nf)
				nf = src->fslots.n;
			if (src->sub) {
				query_opts so = *o;
				so.fail_if = NULL;
				so.explain = 0;
				so.every = 0;
				r->sub[v] = query_run_new(src->sub, &so);
				r->sub[v]->collect = 1;
			}
		}
	r->fslots = xcalloc(nf, sizeof *r->fslots);
	return r;
}

void
query_run_free(query_run *r)
{
	if (!r)
		return;
	for (int v = 0; v < r->q->nvars; v++)
		query_run_free(r->sub[v]);
	if (r->table)
		q_table_free(r->table);
	for (size_t w = 0; w < r->nwin; w++)
		q_table_free(r->win[w].t);
	free(r->win);
	arena_free(&r->mem);
	for (size_t s = 0; s < r->q->slots.n; s++)
		tr_keywatch_free(&r->keywatch[s]);
	free(r->keywatch);
	q_names_free(r->names);
	free(r->held);
	arena_free(&r->heldmem);
	strmap_free(&r->written_per);
	arena_free(&r->permem);
	free(r->slots);
	free(r->vals);
	free(r->fslots);
	free(r->sub);
	free(r->subrows);
	free(r->subnodes);
	free(r->ncand);
	free(r->njoined);
	free(r);
}

static void
push(arena *mem, cand *c, int32_t v)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		int32_t *nv = arena_alloc(mem, cap * sizeof *nv);
		if (c->n)
			memcpy(nv, c->v, c->n * sizeof *nv);
		c->v = nv;
		c->cap = cap;
	}
	c->v[c->n++] = v;
}

static int
passes(query_run *r, const tctx *c, const q_source *src, int32_t node)
{
	if (!src->filter)
		return 1;
	for (size_t i = 0; i < src->fslots.n; i++)
		r->fslots[i] = slot_value(r->q, c, &src->fslots.v[i], -1, node);
	return expr_truthy(expr_eval(src->filter, r->fslots));
}

static void run_rows(query_run *r, tctx *c, strbuf *out);

/* The candidates of variable v: the union (a bag) of its sources' nodes. */
static void
candidates(query_run *r, tctx *c, int v, cand *out)
{
	const q_var *var = &r->q->vars[v];
	tr_trace *t = c->t;

	memset(out, 0, sizeof *out);
	for (int s = 0; s < var->nsrc; s++) {
		const q_source *src = &var->src[s];
		if (src->rel == REL_QUERY) {
			query_run *sub = r->sub[v];
			expr_value *rows;
			size_t n;
			tctx sc = *c;	/* the subquery's variables are its own */
			arena_reset(&sub->mem);
			sc.subrows = arena_alloc(&sub->mem, (size_t)sub->q->nvars * sizeof *sc.subrows);
			memset(sc.subrows, 0, (size_t)sub->q->nvars * sizeof *sc.subrows);
			sc.subnodes = arena_alloc(&sub->mem, (size_t)sub->q->nvars * sizeof *sc.subnodes);
			memset(sc.subnodes, 0, (size_t)sub->q->nvars * sizeof *sc.subnodes);
			sub->nsubrows = 0;
			run_rows(sub, &sc, NULL);
			c->subnodes[v] = NULL;
			if (sub->table) {
				n = q_table_rows(sub->table, &rows);
			} else {
				rows = sub->subrows;
				n = sub->nsubrows;
				c->subnodes[v] = sub->subnodes;
			}
			c->subrows[v] = rows;
			for (size_t i = 0; i < n; i++)
				push(&r->mem, out, (int32_t)i);
		} else if (src->rel == REL_SPANS) {
			for (size_t i = 0; i < t->nspans; i++)
				if (passes(r, c, src, (int32_t)i))
					push(&r->mem, out, (int32_t)i);
		} else {
			for (size_t i = 0; i < t->nlogs; i++)
				if (passes(r, c, src, (int32_t)(t->nspans + i)))
					push(&r->mem, out, (int32_t)(t->nspans + i));
		}
	}
	r->ncand[v] += out->n;
}

/* The node variable v's value x stands for: a raw subquery row is at the
 * node its From variable was bound to. */
static int32_t
node_of(const tctx *c, int v, int32_t x)
{
	return c->subnodes[v] ? c->subnodes[v][x] : x;
}

/* ---------- OrderBy and Limit ---------- */

static void check_fail_if(query_run *r);
static int close_windows(query_run *r, int64_t tstart, strbuf *b);

/* Write one result row (ncols values; the shown ones are written). */
static void
write_row(query_run *r, strbuf *out, const expr_value *vals)
{
	const query *q = r->q;

	if (!r->started) {
		r->started = 1;
		if (r->o.header || r->o.format == QUERY_JSON)
			q_write_header(out, q, r->o.format, r->o.every != 0);
	}
	if (vals != r->vals)
		memcpy(r->vals, vals, (size_t)q->ncols * sizeof *r->vals);
	q_write_row(out, q, r->vals, r->o.format, r->o.units, r->json_rows++ == 0,
		    r->o.every ? &r->window : NULL);
	r->written++;
	check_fail_if(r);
}

/* Does the row fit under Limit n [Per x], in the order rows come? Counts
 * it when it does. */
static int
under_limit(query_run *r, const expr_value *vals)
{
	const query *q = r->q;
	char buf[32];
	size_t len;
	const char *k;
	int added;
	strmap_slot *slot;

	if (q->per < 0)
		return r->written < (size_t)q->limit;
	k = expr_format(vals[q->per], buf, sizeof buf, &len);
	slot = strmap_put(&r->written_per, k, len, &added);
	if (added) {
		slot->key = arena_strndup(&r->permem, k, len);
		slot->val = 0;
	}
	if (slot->val >= q->limit)
		return 0;
	slot->val++;
	return 1;
}

/* Row a before row b in OrderBy's order? Nulls last either way. */
static int
order_cmp(const query *q, const expr_value *a, const expr_value *b)
{
	for (int i = 0; i < q->norder; i++) {
		expr_value x = a[q->order[i].col], y = b[q->order[i].col];
		int c;

		if ((x.type == EV_NULL) != (y.type == EV_NULL))
			return x.type == EV_NULL ? 1 : -1;
		c = expr_compare(x, y);
		if (c)
			return q->order[i].desc ? -c : c;
	}
	return 0;
}

/* Sort idx[0..n) of rows by OrderBy, stably (ties keep the rows' order):
 * a bottom-up merge sort, as qsort has no context and is not stable. */
static void
sort_rows(const query *q, const expr_value *rows, uint32_t *idx, size_t n)
{
	size_t nc = (size_t)q->ncols;
	uint32_t *tmp = xmalloc((n ? n : 1) * sizeof *tmp), *a = idx, *b = tmp;

	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;

			while (i < mid && j < hi)
				b[k++] = order_cmp(q, rows + a[j] * nc, rows + a[i] * nc) < 0 ? a[j++] : a[i++];
			while (i < mid)
				b[k++] = a[i++];
			while (j < hi)
				b[k++] = a[j++];
		}
		uint32_t *t = a;
		a = b;
		b = t;
	}
	if (a != idx)
		memcpy(idx, a, n * sizeof *idx);
	free(tmp);
}

/* The rows in OrderBy's order; with a plain Limit n only the first n. */
static uint32_t *
ordered(const query *q, const expr_value *rows, size_t n, size_t *nout)
{
	uint32_t *idx = xmalloc((n ? n : 1) * sizeof *idx);

	for (size_t i = 0; i < n; i++)
		idx[i] = (uint32_t)i;
	if (q->norder)
		sort_rows(q, rows, idx, n);
	*nout = q->limit && q->per < 0 && (size_t)q->limit < n ? (size_t)q->limit : n;
	return idx;
}

/* Copy a row's strings into mem: held rows outlive their trace. */
static void
keep_strings(arena *mem, expr_value *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].type == EV_STR)
			v[i].str = arena_strndup(mem, v[i].str, v[i].len);
}

/* With a plain Limit n, keep only the best n of the rows held (in a fresh
 * arena), so that memory stays bounded by n. */
static void
trim_held(query_run *r)
{
	const query *q = r->q;
	size_t nc = (size_t)q->ncols, keep;
	uint32_t *idx = ordered(q, r->held, r->nheld, &keep);
	expr_value *rows = xmalloc((keep ? keep : 1) * nc * sizeof *rows);
	arena mem = {0};

	for (size_t i = 0; i < keep; i++) {
		memcpy(rows + i * nc, r->held + idx[i] * nc, nc * sizeof *rows);
		keep_strings(&mem, rows + i * nc, nc);
	}
	free(idx);
	free(r->held);
	arena_free(&r->heldmem);
	r->held = rows;
	r->heldmem = mem;
	r->nheld = keep;
	r->capheld = keep;
}

static void
hold_row(query_run *r)
{
	size_t nc = (size_t)r->q->ncols;

	if (r->q->limit && r->q->per < 0 && r->nheld >= 2 * (size_t)r->q->limit + 64)
		trim_held(r);
	if (r->nheld == r->capheld) {
		r->capheld = r->capheld ? 2 * r->capheld : 64;
		r->held = xrealloc(r->held, r->capheld * nc * sizeof *r->held);
	}
	memcpy(r->held + r->nheld * nc, r->vals, nc * sizeof *r->held);
	keep_strings(&r->heldmem, r->held + r->nheld * nc, nc);
	r->nheld++;
}

/* Write rows (n of them, ncols values each) in OrderBy's order, under
 * Limit n [Per x]; into b, written out to out as it grows (out NULL: kept). */
static void
write_rows(query_run *r, tr_output *out, strbuf *b, const expr_value *rows, size_t n)
{
	const query *q = r->q;
	size_t nc = (size_t)q->ncols, m;
	uint32_t *idx = ordered(q, rows, n, &m);

	for (size_t i = 0; i < m; i++) {
		const expr_value *row = rows + idx[i] * nc;

		if (q->per >= 0 && !under_limit(r, row))
			continue;
		write_row(r, b, row);
		if (out)
			tr_output_spill(out, b);
	}
	free(idx);
}

/* Is slot s a tag to watch: a GroupBy key's, or under --fail-if any (a
 * gate must not pass on a misspelt tag that makes every value null)? */
static int
watched(const query_run *r, const q_slot *sl)
{
	return sl->field == F_TAG && (sl->in_key || r->o.fail_if);
}

/* A watched tag: note whether the row's span had it. */
static void
watch_keys(query_run *r, const tctx *c, const int32_t *tuple)
{
	const query *q = r->q;

	for (size_t s = 0; s < q->slots.n; s++) {
		const q_slot *sl = &q->slots.v[s];
		int32_t node;

		if (!watched(r, sl))
			continue;
		node = node_of(c, sl->var, tuple[sl->var]);
		if (node >= 0 && node < (int32_t)c->t->nspans)
			tr_keywatch_note(&r->keywatch[s], &c->t->spans[node], r->slots[s].type != EV_NULL);
	}
}

/* Does candidate x rank before y? First: earlier in pre-order. MostRecent:
 * reached the other node later (query_hb_reached), a tie to the later in
 * pre-order. */
static int
ranks_before(const query_hb_index *h, int first, int32_t x, int32_t y, int32_t other)
{
	if (!first) {
		int64_t tx = query_hb_reached(h, x, other), ty = query_hb_reached(h, y, other);
		if (tx != ty)
			return tx > ty;
	}
	return first ? query_hb_order(h, x) < query_hb_order(h, y)
		     : query_hb_order(h, x) > query_hb_order(h, y);
}

/* Keep x among the best k of out[0..*n), best first: one insertion step,
 * O(k). out holds values of variable v; node_of says where they are. */
static void
keep_best(const tctx *c, int v, int32_t *out, size_t *n, size_t k, int first, int32_t x,
	  int32_t other)
{
	const query_hb_index *h = c->hb;
	int32_t nx = node_of(c, v, x);
	size_t i = *n;

	if (i == k) {
		if (!ranks_before(h, first, nx, node_of(c, v, out[k - 1]), other))
			return;
		i--;
	} else
		(*n)++;
	for (; i > 0 && ranks_before(h, first, nx, node_of(c, v, out[i - 1]), other); i--)
		out[i] = out[i - 1];
	out[i] = x;
}

/* The join rows of the trace as tuples (one node per variable), in the
 * arena; -1 when there are more than the bound. Levels are walked with an
 * explicit cursor per variable (no recursion). */
typedef struct joiner {
	query_run *r;
	tctx *c;
	cand *cands;
	int32_t *tuple;
	int32_t **picked;	/* per level: the nodes chosen for the current prefix */
	size_t *npicked, *at;
	cand rows;
} joiner;

static void
pick(joiner *j, int level)
{
	const q_var *v = &j->r->q->vars[level];
	const cand *cs = &j->cands[level];
	int32_t other = node_of(j->c, v->other, j->tuple[v->other]);
	size_t n = 0;
	int32_t *out = j->picked[level];
	enum query_hb mode = j->r->o.hb;

	for (size_t i = 0; i < cs->n; i++) {
		int32_t x = cs->v[i], nx = node_of(j->c, level, x);
		int ok = v->before ? query_hb_before(j->c->hb, nx, other, mode)
				   : query_hb_before(j->c->hb, other, nx, mode);
		if (!ok)
			continue;
		if (v->sel == SEL_ALL)
			out[n++] = x;
		else
			keep_best(j->c, level, out, &n, (size_t)v->n, v->sel == SEL_FIRST, x, other);
	}
	if (v->sel == SEL_RECENT)	/* rows oldest first, as they happened */
		for (size_t a = 0, b = n; a + 1 < b; a++, b--) {
			int32_t t = out[a];
			out[a] = out[b - 1];
			out[b - 1] = t;
		}
	j->npicked[level] = n;
	j->at[level] = 0;
	j->r->njoined[level] += n;
}

static int
join_rows(joiner *j)
{
	int nv = j->r->q->nvars;
	size_t limit = j->r->o.max_rows_per_trace;
	arena *mem = &j->r->mem;
	int level = 0;

	j->picked[0] = j->cands[0].v;
	j->npicked[0] = j->cands[0].n;
	j->at[0] = 0;
	j->r->njoined[0] += j->cands[0].n;
	while (level >= 0) {
		if (j->at[level] == j->npicked[level]) {
			level--;
			continue;
		}
		j->tuple[level] = j->picked[level][j->at[level]++];
		if (level + 1 == nv) {
			if (limit && j->rows.n / (size_t)nv >= limit)
				return -1;
			for (int k = 0; k < nv; k++)
				push(mem, &j->rows, j->tuple[k]);
			continue;
		}
		level++;
		pick(j, level);
	}
	return 0;
}

/* --fail-if over the row in r->vals: a one-line message when it holds. */
static void
check_fail_if(query_run *r)
{
	const query *q = r->q;
	strbuf m = {0};

	if (!r->o.fail_if || !expr_truthy(expr_eval(r->o.fail_if, r->vals)))
		return;
	r->failed++;
	if (r->o.quiet)
		return;
	for (int i = 0; i < q->nshown; i++) {
		char buf[32];
		size_t len;
		const char *s = q_format_value(q, i, r->vals[i], r->o.units, buf, sizeof buf, &len);
		sb_addf(&m, "%s%s=%.*s", i ? ", " : "", q->cols[i].name, (int)len, s);
	}
	tr_warn("fail-if %s: %s", r->o.fail_if_text, m.s ? m.s : "");
	sb_free(&m);
}

/* ---------- --emit-every ---------- */

static int64_t
floor_to(int64_t t, int64_t every)
{
	int64_t w = t / every * every;

	return w > t ? w - every : w;
}

/* The time of a row: the start of its From node (a log's time), else its
 * trace's start; 0 when it has none. */
static int
row_time(const query_run *r, const tctx *c, const int32_t *tuple, int64_t *t)
{
	const tr_trace *tr = c->t;
	int grouped_sub = r->q->vars[0].src[0].rel == REL_QUERY && !c->subnodes[0];
	int32_t node = grouped_sub ? -1 : node_of(c, 0, tuple[0]);

	if (node >= 0 && node < (int32_t)tr->nspans && (tr->spans[node].flags & TR_SPAN_HAS_TIME)) {
		*t = tr->spans[node].start;
		return 1;
	}
	if (node >= (int32_t)tr->nspans) {
		*t = tr->logs[node - (int32_t)tr->nspans].time;
		return 1;
	}
	*t = c->tstart;
	return c->has_ttime;
}

/* The table of the window of time t, opened when new; NULL when that
 * window is closed. */
static q_table *
window_table(query_run *r, int64_t t)
{
	int64_t w = floor_to(t, r->o.every);
	size_t i = r->nwin;

	if (r->has_now && w < r->closed) {
		r->late++;
		return NULL;
	}
	while (i > 0 && r->win[i - 1].start > w)
		i--;
	if (i > 0 && r->win[i - 1].start == w)
		return r->win[i - 1].t;
	GROW(r->win, r->capwin, r->nwin + 1);
	memmove(r->win + i + 1, r->win + i, (r->nwin - i) * sizeof *r->win);
	r->win[i] = (q_window){w, q_table_new(r->q, r->o.sketch)};
	r->nwin++;
	return r->win[i].t;
}

static void
emit(query_run *r, strbuf *out, int32_t node)
{
	const query *q = r->q;

	if (r->table) {
		q_table_add(r->table, r->slots);
		return;
	}
	for (int i = 0; i < q->ncols; i++)
		r->vals[i] = expr_eval(q->cols[i].e, r->slots);
	if (r->collect) {
		/* a subquery's raw rows: strings point into the trace, alive as long */
		size_t need = (r->nsubrows + 1) * (size_t)q->ncols;
		if (need > r->capsubrows) {
			r->capsubrows = 2 * need;
			r->subrows = xrealloc(r->subrows, r->capsubrows * sizeof *r->subrows);
			r->subnodes = xrealloc(r->subnodes, r->capsubrows * sizeof *r->subnodes);
		}
		r->subnodes[r->nsubrows] = node;
		memcpy(r->subrows + r->nsubrows * (size_t)q->ncols, r->vals,
		       (size_t)q->ncols * sizeof *r->vals);
		r->nsubrows++;
		return;
	}
	r->rows++;
	if (q->norder) {
		hold_row(r);
		return;
	}
	if (q->limit && !under_limit(r, r->vals))
		return;
	write_row(r, out, r->vals);
}

/* Every row of the trace through Where to emit. */
static void
run_rows(query_run *r, tctx *c, strbuf *out)
{
	const query *q = r->q;
	int nv = q->nvars;
	cand *cands = arena_alloc(&r->mem, (size_t)nv * sizeof *cands);
	joiner j = {r, c, cands, NULL, NULL, NULL, NULL, {0}};

	if (r->table && r->collect)
		q_table_reset(r->table);
	for (int v = 0; v < nv; v++)
		candidates(r, c, v, &cands[v]);
	const int32_t *rows = cands[0].v;
	size_t nrows = cands[0].n;
	if (nv > 1) {
		j.tuple = arena_alloc(&r->mem, (size_t)nv * sizeof *j.tuple);
		j.picked = arena_alloc(&r->mem, (size_t)nv * sizeof *j.picked);
		j.npicked = arena_alloc(&r->mem, (size_t)nv * sizeof *j.npicked);
		j.at = arena_alloc(&r->mem, (size_t)nv * sizeof *j.at);
		for (int v = 1; v < nv; v++)
			j.picked[v] = arena_alloc(&r->mem, (cands[v].n + 1) * sizeof **j.picked);
		if (join_rows(&j) < 0) {
			r->nskipped++;
			tr_trace_warn(c->t, "more than %zu join rows (--max-rows-per-trace): skipped",
				      r->o.max_rows_per_trace);
			return;
		}
		rows = j.rows.v;
		nrows = j.rows.n / (size_t)nv;
	}
	for (size_t i = 0; i < nrows; i++) {
		const int32_t *tuple = rows + i * (size_t)nv;
		for (size_t s = 0; s < q->slots.n; s++) {
			const q_slot *sl = &q->slots.v[s];
			r->slots[s] = slot_value(q, c, sl, sl->var, tuple[sl->var]);
		}
		if (q->where && !expr_truthy(expr_eval(q->where, r->slots)))
			continue;
		r->nwhere++;
		watch_keys(r, c, tuple);
		if (r->o.every) {
			int64_t tm;
			q_table *wt;

			if (!row_time(r, c, tuple, &tm))
				r->untimed++;
			else if ((wt = window_table(r, tm)))
				q_table_add(wt, r->slots);
			continue;
		}
		emit(r, out, node_of(c, 0, tuple[0]));
	}
}

size_t
query_run_unmatched_names(const query_run *r)
{
	return r->ntraces ? q_names_missing(r->names) : 0;
}

size_t
query_run_unmatched_keys(const query_run *r)
{
	size_t bad = 0;

	for (size_t s = 0; r->nwhere && s < r->q->slots.n; s++)
		if (watched(r, &r->q->slots.v[s]))
			bad += (size_t)tr_keywatch_missing(&r->keywatch[s],
							   r->q->slots.v[s].in_key ? "GroupBy" : "fail-if: tag",
							   NULL, 0);
	return bad;
}

static int
needs_hb(const query *q)
{
	if (q->nvars > 1)
		return 1;
	for (int s = 0; s < q->vars[0].nsrc; s++)
		if (q->vars[0].src[s].sub && needs_hb(q->vars[0].src[s].sub))
			return 1;
	return 0;
}

static int
needs_self(const query *q)
{
	if (q->uses_self)
		return 1;
	for (int v = 0; v < q->nvars; v++)
		for (int s = 0; s < q->vars[v].nsrc; s++)
			if (q->vars[v].src[s].sub && needs_self(q->vars[v].src[s].sub))
				return 1;
	return 0;
}

int
query_run_trace(query_run *r, tr_trace *t, strbuf *out)
{
	const query *q = r->q;
	tctx c = {.t = t};
	size_t skipped = r->nskipped;

	arena_reset(&r->mem);
	r->ntraces++;
	q_names_note(r->names, t);
	c.subrows = arena_alloc(&r->mem, (size_t)q->nvars * sizeof *c.subrows);
	memset(c.subrows, 0, (size_t)q->nvars * sizeof *c.subrows);
	c.subnodes = arena_alloc(&r->mem, (size_t)q->nvars * sizeof *c.subnodes);
	memset(c.subnodes, 0, (size_t)q->nvars * sizeof *c.subnodes);
	if (needs_self(q)) {
		c.self = arena_alloc(&r->mem, (t->nspans + 1) * sizeof *c.self);
		query_self_times(t, c.self);
	}
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (size_t i = 0; i < t->nspans; i++)
		if (t->spans[i].flags & TR_SPAN_HAS_TIME) {
			const tr_span *s = &t->spans[i];
			lo = s->start < lo ? s->start : lo;
			hi = s->start + s->duration > hi ? s->start + s->duration : hi;
		}
	c.has_ttime = lo != INT64_MAX;
	c.tstart = lo;
	/* Hand-written times may span more than int64 holds: saturate. */
	if (c.has_ttime && __builtin_sub_overflow(hi, lo, &c.tdur))
		c.tdur = INT64_MAX;
	else if (!c.has_ttime)
		c.tdur = 0;
	/* the root: the first of the roots (start, then span id) */
	c.rootdur = t->nroots && (t->spans[t->roots[0]].flags & TR_SPAN_HAS_TIME) ?
		    t->spans[t->roots[0]].duration : -1;
	if (needs_hb(q))
		c.hb = query_hb_build(t, q->uses_logs, &r->mem);
	run_rows(r, &c, out);
	if (r->nskipped > skipped)
		return -1;
	return r->o.every && c.has_ttime ? close_windows(r, c.tstart, out) : 0;
}

size_t
query_run_failed(const query_run *r)
{
	return r->failed;
}

size_t
query_run_left_out(const query_run *r)
{
	return r->late + r->untimed;
}

size_t
query_run_traces(const query_run *r)
{
	return r->ntraces;
}

size_t
query_run_rows(const query_run *r)
{
	return r->rows;
}

/* Write the grouped table t (the whole one, or a window's with
 * r->o.every) into b; out as for write_rows. */
static void
write_table(query_run *r, q_table *t, tr_output *out, strbuf *b)
{
	const query *q = r->q;
	const expr_value *window = r->o.every ? &r->window : NULL;
	expr_value *rows;

	/* before q_table_rows: it makes the row of an aggregate over none */
	r->rows += q_table_groups(t);
	size_t n = q_table_rows(t, &rows);
	/* the query is the caller's to mark: its names are the header's */
	q_table_mark_approx(t, (query *)q);
	if (r->o.format == QUERY_CROSSTAB) {
		for (size_t i = 0; i < n; i++) {	/* the gate judges the cells */
			memcpy(r->vals, rows + i * (size_t)q->ncols, (size_t)q->ncols * sizeof *r->vals);
			check_fail_if(r);
		}
		q_write_crosstab(b, q, t, r->o.units, window);
		r->started = 1;
		return;
	}
	if ((!r->started || (window && r->o.format == QUERY_JSON)) &&
	    (r->o.header || r->o.format == QUERY_JSON))
		q_write_header(b, q, r->o.format, window != NULL);
	r->started = 1;
	r->json_rows = 0;
	r->written = 0;
	strmap_clear(&r->written_per);
	write_rows(r, out, b, rows, n);
	if (window && r->o.format == QUERY_JSON)	/* an array a window */
		sb_adds(b, r->json_rows ? "\n]\n" : "]\n");
}

/* Write and free the oldest window. */
static void
write_window(query_run *r, strbuf *b)
{
	q_window w = r->win[0];

	r->window = expr_num((double)w.start);
	write_table(r, w.t, NULL, b);
	q_table_free(w.t);
	memmove(r->win, r->win + 1, (r->nwin - 1) * sizeof *r->win);
	r->nwin--;
	r->wrote_window = 1;
}

/* After a trace that started at tstart: the input's time moves on, and the
 * windows that ended --lateness or more before it are written into b.
 * Returns 1 when it wrote one. */
static int
close_windows(query_run *r, int64_t tstart, strbuf *b)
{
	int64_t edge;
	int wrote = 0;

	if (r->has_now && tstart <= r->now)
		return 0;
	r->now = tstart;
	r->has_now = 1;
	/* window w is closed when w + every + lateness <= now */
	if (__builtin_sub_overflow(r->now, r->o.lateness, &edge))
		edge = INT64_MIN;
	r->closed = floor_to(edge, r->o.every);
	while (r->nwin && r->win[0].start < r->closed) {
		write_window(r, b);
		wrote = 1;
	}
	return wrote;
}

size_t
query_run_finish(query_run *r, tr_output *out)
{
	const query *q = r->q;
	strbuf b = {0};

	if (r->o.every) {
		while (r->nwin)
			write_window(r, &b);
		if (r->late || r->untimed)
			tr_warn("rows left out of the windows: %zu after their window closed "
				"(--lateness), %zu without a time", r->late, r->untimed);
	} else if (r->table) {
		r->rows = 0;
		write_table(r, r->table, out, &b);
	} else if (q->norder) {
		write_rows(r, out, &b, r->held, r->nheld);
	}
	if (!r->started && (r->o.header || r->o.format == QUERY_JSON) &&
	    r->o.format != QUERY_CROSSTAB) {
		q_write_header(&b, q, r->o.format, r->o.every != 0);
	}
	if (r->o.format == QUERY_JSON && !r->wrote_window)
		sb_adds(&b, r->json_rows ? "\n]\n" : "]\n");
	if (b.len)
		tr_output_sb(out, &b);
	sb_free(&b);
	return r->failed;
}

void
query_run_explain(const query_run *r, FILE *f)
{
	const query *q = r->q;
	strbuf b = {0};

	query_print(q, &b);
	fprintf(f, "query:\n%s", b.s);
	fprintf(f, "traces: %zu", r->ntraces);
	if (r->nskipped)
		fprintf(f, " (%zu skipped: too many join rows)", r->nskipped);
	fprintf(f, "\n");
	for (int v = 0; v < q->nvars; v++) {
		fprintf(f, "%s %s: %zu candidates", v ? "join" : "from", q->vars[v].name, r->ncand[v]);
		if (v)
			fprintf(f, ", %zu rows after the join", r->njoined[v]);
		fprintf(f, "\n");
	}
	fprintf(f, "rows through Where: %zu\n", r->nwhere);
	if (r->table)
		fprintf(f, "groups: %zu\n", q_table_groups(r->table));
	sb_free(&b);
}

void
query_run_write_partial(query_run *r, tr_output *out)
{
	q_table_write_partial(r->table, out);
}

static int
merge_record(void *ctx, char *line, size_t len, char *what, size_t whatlen)
{
	query_run *r = ctx;

	return q_table_merge_line(r->table, line, len, what, whatlen);
}

int
query_run_merge_files(query_run *r, char **files, int nfiles)
{
	strbuf made_for = {0};

	q_partial_for(r->q, &made_for);
	int status = tr_partial_merge_files(files, nfiles, "aggregate", made_for.s, 0, merge_record, r);
	sb_free(&made_for);
	return status ? TR_EXIT_INPUT : TR_EXIT_OK;
}
