/* query_agg.c - the group table: group keys, aggregate states, the quantile
 * sketch, mergeable partial states (--partial/--merge) and the output
 * formats. Memory is the groups' (plus the values of exact percentiles). */
#include "query_impl.h"
#include "core/partial.h"
#include "core/table.h"
#include "core/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------- the quantile sketch ----------
 * Logarithmic buckets (as DDSketch): a value x > 0 goes to bucket
 * ceil(log_g(x)), g = (1+a)/(1-a), and is read back as 2 g^i / (g+1): within
 * a relative error a of x. Merging adds bucket counts, so it is exact. */
#define SK_ALPHA 0.01
#define SK_TINY 1e-9
#define SK_MAX_INDEX 40000	/* g^40000 is beyond every double */

typedef struct sk_store {
	int32_t off;		/* bucket index of c[0] */
	uint32_t len;
	uint64_t *c;
} sk_store;

typedef struct qsketch {
	uint64_t n, zero;
	double min, max;
	sk_store pos, neg;
} qsketch;

static double
sk_gamma(void)
{
	return (1 + SK_ALPHA) / (1 - SK_ALPHA);
}

static void
store_add(sk_store *s, int32_t i, uint64_t count)
{
	if (!s->len) {
		s->off = i;
		s->len = 1;
		s->c = xcalloc(1, sizeof *s->c);
	} else if (i < s->off) {
		uint32_t grow = (uint32_t)(s->off - i);
		uint64_t *c = xcalloc(s->len + grow, sizeof *c);
		memcpy(c + grow, s->c, s->len * sizeof *c);
		free(s->c);
		s->c = c;
		s->len += grow;
		s->off = i;
	} else if (i >= s->off + (int32_t)s->len) {
		uint32_t len = (uint32_t)(i - s->off + 1);
		s->c = xrealloc(s->c, len * sizeof *s->c);
		memset(s->c + s->len, 0, (len - s->len) * sizeof *s->c);
		s->len = len;
	}
	s->c[i - s->off] += count;
}

static void
sk_add(qsketch *k, double x)
{
	if (k->n == 0 || x < k->min)
		k->min = x;
	if (k->n == 0 || x > k->max)
		k->max = x;
	k->n++;
	if (fabs(x) < SK_TINY)
		k->zero++;
	else
		store_add(x > 0 ? &k->pos : &k->neg, (int32_t)ceil(log(fabs(x)) / log(sk_gamma())), 1);
}

static void
sk_merge(qsketch *k, const qsketch *o)
{
	if (!o->n)
		return;
	if (k->n == 0 || o->min < k->min)
		k->min = o->min;
	if (k->n == 0 || o->max > k->max)
		k->max = o->max;
	k->n += o->n;
	k->zero += o->zero;
	for (uint32_t i = 0; i < o->pos.len; i++)
		if (o->pos.c[i])
			store_add(&k->pos, o->pos.off + (int32_t)i, o->pos.c[i]);
	for (uint32_t i = 0; i < o->neg.len; i++)
		if (o->neg.c[i])
			store_add(&k->neg, o->neg.off + (int32_t)i, o->neg.c[i]);
}

static double
sk_value(int32_t i)
{
	double g = sk_gamma();
	return 2 * pow(g, i) / (g + 1);
}

/* The value of rank r (1-based) in sorted order. */
static double
sk_rank(const qsketch *k, uint64_t r)
{
	uint64_t seen = 0;
	double v = k->max;

	for (uint32_t i = k->neg.len; i-- > 0;)
		if ((seen += k->neg.c[i]) >= r) {
			v = -sk_value(k->neg.off + (int32_t)i);
			goto out;
		}
	if ((seen += k->zero) >= r) {
		v = 0;
		goto out;
	}
	for (uint32_t i = 0; i < k->pos.len; i++)
		if ((seen += k->pos.c[i]) >= r) {
			v = sk_value(k->pos.off + (int32_t)i);
			goto out;
		}
out:
	return v < k->min ? k->min : v > k->max ? k->max : v;
}

/* Values the buckets hold: n, when the sketch is sound. */
static uint64_t
sk_count(const qsketch *k)
{
	uint64_t n = k->zero;
	for (uint32_t i = 0; i < k->pos.len; i++)
		n += k->pos.c[i];
	for (uint32_t i = 0; i < k->neg.len; i++)
		n += k->neg.c[i];
	return n;
}

static void
sk_free(qsketch *k)
{
	if (!k)
		return;
	free(k->pos.c);
	free(k->neg.c);
	free(k);
}

/* ---------- aggregate states ---------- */

typedef struct agg_state {
	int64_t n;		/* values taken (rows for COUNT) */
	int64_t isum;		/* integral values, exactly */
	double fsum;		/* the others, and isum's overflow */
	int frac;		/* some value was not an integer */
	double min, max;
	double *vals;		/* exact percentiles */
	size_t nvals, cap;
	qsketch *sk;		/* percentiles after --merge */
	strmap *seen;		/* COUNT(DISTINCT) */
} agg_state;

typedef struct q_group {
	expr_value *keys;
	agg_state *st;
	int nkeys;
} q_group;

struct q_table {
	const query *q;
	int sketch;
	int exact;		/* --partial writes percentiles as value counts */
	arena mem;
	strmap index;		/* encoded key -> group */
	q_group *groups;
	size_t n, cap;
	expr_value *keyvals, *sel, *rows;
	size_t caprows;
	strbuf kb;
	q_list *lists;		/* per GroupBy key: the values of an each() key */
	size_t *at;		/* the value of each list in the current row */
	int *keyslots;		/* the F_KEY slots: keys named in aggregates' arguments */
	int nkeyslots;
};

q_table *
q_table_new(const query *q, int sketch)
{
	q_table *t = xcalloc(1, sizeof *t);
	t->q = q;
	t->sketch = sketch;
	t->keyvals = xcalloc((size_t)q->nkeys + 1, sizeof *t->keyvals);
	t->sel = xcalloc((size_t)(q->nkeys + q->naggs) + 1, sizeof *t->sel);
	t->lists = xcalloc((size_t)q->nkeys + 1, sizeof *t->lists);
	t->at = xcalloc((size_t)q->nkeys + 1, sizeof *t->at);
	t->keyslots = xcalloc(q->slots.n + 1, sizeof *t->keyslots);
	for (size_t s = 0; s < q->slots.n; s++)
		if (q->slots.v[s].field == F_KEY)
			t->keyslots[t->nkeyslots++] = (int)s;
	return t;
}

void
q_table_exact_partials(q_table *t)
{
	t->exact = 1;
}

/* Was aggregate a taken from a sketch in some group? */
static int
agg_sketched(const q_table *t, int a)
{
	for (size_t g = 0; g < t->n; g++)
		if (t->groups[g].st[a].sk)
			return 1;
	return 0;
}

void
q_table_mark_approx(const q_table *t, query *q)
{
	for (int a = 0; a < q->naggs; a++) {
		if (q->aggs[a].kind != A_PCT || !agg_sketched(t, a))
			continue;
		for (int c = 0; c < q->nshown; c++) {
			q_col *col = &q->cols[c];
			size_t n = strlen(col->name);

			if (!strstr(col->canon, q->aggs[a].text) && !strstr(col->name, q->aggs[a].text))
				continue;
			if (n >= 9 && !strcmp(col->name + n - 9, " (approx)"))
				continue;	/* marked for an aggregate before */
			col->name = xrealloc(col->name, n + 10);
			memcpy(col->name + n, " (approx)", 10);
			tr_warn("%s: from the sketches of the partials, within 1 percent of the exact value "
				"(--exact-percentiles in --partial makes it exact)", q->aggs[a].text);
		}
	}
}

size_t
q_table_groups(const q_table *t)
{
	return t->n;
}

void
q_table_reset(q_table *t)
{
	for (size_t g = 0; g < t->n; g++)
		for (int a = 0; a < t->q->naggs; a++) {
			agg_state *s = &t->groups[g].st[a];
			free(s->vals);
			sk_free(s->sk);
			if (s->seen) {
				strmap_free(s->seen);
				free(s->seen);
			}
		}
	t->n = 0;
	strmap_clear(&t->index);
	arena_reset(&t->mem);
}

void
q_table_free(q_table *t)
{
	q_table_reset(t);
	strmap_free(&t->index);
	arena_free(&t->mem);
	free(t->groups);
	free(t->keyvals);
	free(t->sel);
	free(t->rows);
	sb_free(&t->kb);
	for (int k = 0; k < t->q->nkeys; k++)
		q_list_free(&t->lists[k]);
	free(t->lists);
	free(t->at);
	free(t->keyslots);
	free(t);
}

/* A value as typed text: "-" null, "n123", "sabc", "b1". */
static void
encode_value(strbuf *b, expr_value v)
{
	char buf[32];
	size_t len;
	const char *s;

	switch (v.type) {
	case EV_NULL:
		sb_addc(b, '-');
		return;
	case EV_BOOL:
		sb_adds(b, v.num ? "b1" : "b0");
		return;
	case EV_NUM:
		sb_addc(b, 'n');
		if (v.str)
			sb_add(b, v.str, v.len);
		else if (v.num == floor(v.num) && fabs(v.num) < 9e15)
			sb_addi(b, (int64_t)v.num);
		else
			sb_addf(b, "%a", v.num);
		return;
	case EV_STR:
		sb_addc(b, 's');
		s = expr_format(v, buf, sizeof buf, &len);
		sb_add(b, s, len);
		return;
	}
}

static expr_value
copy_value(arena *mem, expr_value v)
{
	if (v.str) {
		char *s = arena_strndup(mem, v.str, v.len);
		v.str = s;
	}
	return v;
}

static q_group *
find_group(q_table *t, const expr_value *keys)
{
	int nk = t->q->nkeys, added;

	sb_clear(&t->kb);
	for (int k = 0; k < nk; k++) {
		encode_value(&t->kb, keys[k]);
		sb_addc(&t->kb, '\0');
	}
	strmap_slot *slot = strmap_intern(&t->index, &t->mem, t->kb.s ? t->kb.s : "", t->kb.len, &added);
	if (!added)
		return &t->groups[slot->val];
	GROW(t->groups, t->cap, t->n + 1);
	q_group *g = &t->groups[t->n++];
	g->nkeys = nk;
	g->keys = arena_alloc(&t->mem, ((size_t)nk + 1) * sizeof *g->keys);
	for (int k = 0; k < nk; k++)
		g->keys[k] = copy_value(&t->mem, keys[k]);
	g->st = arena_alloc(&t->mem, ((size_t)t->q->naggs + 1) * sizeof *g->st);
	memset(g->st, 0, ((size_t)t->q->naggs + 1) * sizeof *g->st);
	return g;
}

static void
add_number(agg_state *s, enum q_agg_kind kind, expr_value v, int sketch)
{
	double x = v.num;

	if (s->n == 0 || x < s->min)
		s->min = x;
	if (s->n == 0 || x > s->max)
		s->max = x;
	s->n++;
	if (kind == A_SUM || kind == A_AVG) {
		int64_t i = (int64_t)x, sum;
		/* an integer beyond a double's comes with its text: read it exactly */
		int exact = v.str ? parse_i64(v.str, v.len, &i) == 0
				  : x == floor(x) && fabs(x) <= 9007199254740992.0;
		if (exact && !__builtin_add_overflow(s->isum, i, &sum))
			s->isum = sum;
		else {
			s->fsum += x;
			s->frac = 1;
		}
	} else if (kind == A_PCT) {
		if (sketch) {
			if (!s->sk)
				s->sk = xcalloc(1, sizeof *s->sk);
			sk_add(s->sk, x);
			return;
		}
		if (s->nvals == s->cap) {
			s->cap = s->cap ? 2 * s->cap : 16;
			s->vals = xrealloc(s->vals, s->cap * sizeof *s->vals);
		}
		s->vals[s->nvals++] = x;
	}
}

static void
add_distinct(q_table *t, agg_state *s, expr_value v)
{
	int added;

	if (!s->seen)
		s->seen = xcalloc(1, sizeof *s->seen);
	sb_clear(&t->kb);
	encode_value(&t->kb, v);
	strmap_slot *slot = strmap_put(s->seen, t->kb.s, t->kb.len, &added);
	if (added) {
		slot->key = arena_strndup(&t->mem, t->kb.s, t->kb.len);
		s->n++;
	}
}

/* The row in slots into the group of the keys in t->keyvals. */
static void
add_to_group(q_table *t, const expr_value *slots)
{
	const query *q = t->q;
	q_group *g = find_group(t, t->keyvals);
	for (int a = 0; a < q->naggs; a++) {
		const q_agg *ag = &q->aggs[a];
		agg_state *s = &g->st[a];
		expr_value v = ag->arg ? expr_eval(ag->arg, slots) : expr_bool(1);
		if (v.type == EV_NULL)
			continue;	/* aggregates skip nulls */
		if (ag->kind == A_COUNT)
			s->n++;
		else if (ag->kind == A_COUNT_DISTINCT)
			add_distinct(t, s, v);
		else if (v.type == EV_NUM)
			add_number(s, ag->kind, v, t->sketch);
		else if (v.type == EV_BOOL && ag->kind != A_PCT)
			add_number(s, ag->kind, expr_num(v.num), t->sketch);	/* true is 1 */
	}
}

void
q_table_add(q_table *t, expr_value *slots)
{
	const query *q = t->q;
	int nk = q->nkeys;

	for (int k = 0; k < nk; k++) {
		expr_value v = expr_eval(q->keys[k].e, slots);
		if (!q->keys[k].each) {
			t->keyvals[k] = v;
			continue;
		}
		q_list_split(&t->lists[k], v);
		if (t->lists[k].n == 0)
			return;		/* no values, no rows */
		t->at[k] = 0;
	}
	for (;;) {
		for (int k = 0; k < nk; k++)
			if (q->keys[k].each)
				t->keyvals[k] = t->lists[k].v[t->at[k]];
		for (int i = 0; i < t->nkeyslots; i++)
			slots[t->keyslots[i]] = t->keyvals[q->slots.v[t->keyslots[i]].col];
		add_to_group(t, slots);
		/* the next combination: an odometer over the lists */
		int k = nk;
		while (k-- > 0 && (!q->keys[k].each || ++t->at[k] == t->lists[k].n))
			if (q->keys[k].each)
				t->at[k] = 0;
		if (k < 0)
			return;
	}
}

static int
cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;
	return (a > b) - (a < b);
}

/* Nearest rank: the value at rank ceil(p/100 n) of the sorted values. */
static uint64_t
pct_rank(double p, uint64_t n)
{
	double r = ceil(p / 100 * (double)n - 1e-9);
	return r < 1 ? 1 : r > (double)n ? n : (uint64_t)r;
}

static expr_value
agg_result(q_table *t, const q_agg *ag, agg_state *s)
{
	switch (ag->kind) {
	case A_COUNT:
	case A_COUNT_DISTINCT:
		return expr_num((double)s->n);
	case A_SUM:
		if (!s->n)
			return expr_null();
		if (!s->frac && (s->isum > (1LL << 53) || s->isum < -(1LL << 53))) {
			/* beyond a double's integers: the exact text */
			char buf[32];
			int len = snprintf(buf, sizeof buf, "%lld", (long long)s->isum);
			expr_value v = expr_num((double)s->isum);
			v.str = arena_strndup(&t->mem, buf, (size_t)len);
			v.len = (size_t)len;
			return v;
		}
		return expr_num((double)s->isum + s->fsum);
	case A_AVG:
		return s->n ? expr_num(((double)s->isum + s->fsum) / (double)s->n) : expr_null();
	case A_MIN:
		return s->n ? expr_num(s->min) : expr_null();
	case A_MAX:
		return s->n ? expr_num(s->max) : expr_null();
	case A_PCT:
		if (!s->n)
			return expr_null();
		if (s->sk)
			return expr_num(sk_rank(s->sk, pct_rank(ag->p, s->sk->n)));
		qsort(s->vals, s->nvals, sizeof *s->vals, cmp_double);
		return expr_num(s->vals[pct_rank(ag->p, s->nvals) - 1]);
	}
	return expr_null();
}

static int
cmp_group(const void *pa, const void *pb)
{
	const q_group *a = pa, *b = pb;
	for (int k = 0; k < a->nkeys; k++) {
		int c = expr_compare(a->keys[k], b->keys[k]);
		if (c)
			return c;
	}
	return 0;
}

size_t
q_table_rows(q_table *t, expr_value **rows)
{
	const query *q = t->q;
	size_t nc = (size_t)q->ncols;

	/* aggregates without GroupBy make one row, also over no rows (COUNT 0) */
	if (q->nkeys == 0 && t->n == 0)
		find_group(t, t->keyvals);
	/* the index holds group numbers: rebuild it after sorting */
	if (t->n > 1)
		qsort(t->groups, t->n, sizeof *t->groups, cmp_group);
	strmap_clear(&t->index);
	for (size_t g = 0; g < t->n; g++) {
		int added;
		sb_clear(&t->kb);
		for (int k = 0; k < q->nkeys; k++) {
			encode_value(&t->kb, t->groups[g].keys[k]);
			sb_addc(&t->kb, '\0');
		}
		strmap_slot *slot = strmap_put(&t->index, t->kb.s ? t->kb.s : "", t->kb.len, &added);
		slot->key = arena_strndup(&t->mem, t->kb.s ? t->kb.s : "", t->kb.len);
		slot->val = (int64_t)g;
	}
	if (t->n * nc > t->caprows) {
		t->caprows = t->n * nc;
		t->rows = xrealloc(t->rows, t->caprows * sizeof *t->rows);
	}
	for (size_t g = 0; g < t->n; g++) {
		q_group *gr = &t->groups[g];
		for (int k = 0; k < q->nkeys; k++)
			t->sel[k] = gr->keys[k];
		for (int a = 0; a < q->naggs; a++)
			t->sel[q->nkeys + a] = agg_result(t, &q->aggs[a], &gr->st[a]);
		for (size_t c = 0; c < nc; c++) {
			const q_col *col = &q->cols[c];
			t->rows[g * nc + c] = col->key >= 0 ? gr->keys[col->key]
							    : expr_eval(col->e, t->sel);
		}
	}
	*rows = t->rows;
	return t->n;
}

/* ---------- merged states: the margins of a crosstab ---------- */

/* Add the state s of one group into d, as if d had taken s's rows too. */
static void
agg_merge(q_table *t, const q_agg *ag, agg_state *d, const agg_state *s)
{
	int64_t sum;

	if (ag->kind == A_COUNT_DISTINCT) {
		for (size_t i = 0; s->seen && i < s->seen->cap; i++) {
			const strmap_slot *sl = &s->seen->slots[i];
			int added;

			if (!sl->used)
				continue;
			if (!d->seen)
				d->seen = xcalloc(1, sizeof *d->seen);
			strmap_slot *ds = strmap_put(d->seen, sl->key, sl->len, &added);
			if (added) {
				ds->key = arena_strndup(&t->mem, sl->key, sl->len);
				d->n++;
			}
		}
		return;
	}
	if (!s->n)
		return;
	if (!d->n || s->min < d->min)
		d->min = s->min;
	if (!d->n || s->max > d->max)
		d->max = s->max;
	d->n += s->n;
	if (__builtin_add_overflow(d->isum, s->isum, &sum)) {
		d->fsum += (double)s->isum;
		d->frac = 1;
	} else
		d->isum = sum;
	d->fsum += s->fsum;
	d->frac |= s->frac;
	if (ag->kind != A_PCT)
		return;
	if (s->sk || d->sk) {	/* a merged table's percentiles: one sketch */
		if (!d->sk) {
			d->sk = xcalloc(1, sizeof *d->sk);
			for (size_t i = 0; i < d->nvals; i++)
				sk_add(d->sk, d->vals[i]);
			d->nvals = 0;
		}
		for (size_t i = 0; i < s->nvals; i++)
			sk_add(d->sk, s->vals[i]);
		if (s->sk)
			sk_merge(d->sk, s->sk);
		return;
	}
	if (d->nvals + s->nvals > d->cap) {
		d->cap = d->nvals + s->nvals;
		d->vals = xrealloc(d->vals, d->cap * sizeof *d->vals);
	}
	memcpy(d->vals + d->nvals, s->vals, s->nvals * sizeof *s->vals);
	d->nvals += s->nvals;
}

expr_value
q_table_merged(q_table *t, const uint32_t *groups, size_t n, int col, const expr_value *keys)
{
	const query *q = t->q;
	agg_state *st = xcalloc((size_t)q->naggs + 1, sizeof *st);
	expr_value v;

	for (size_t i = 0; i < n; i++)
		for (int a = 0; a < q->naggs; a++)
			agg_merge(t, &q->aggs[a], &st[a], &t->groups[groups[i]].st[a]);
	for (int k = 0; k < q->nkeys; k++)
		t->sel[k] = keys[k];
	for (int a = 0; a < q->naggs; a++)
		t->sel[q->nkeys + a] = agg_result(t, &q->aggs[a], &st[a]);
	v = expr_eval(q->cols[col].e, t->sel);
	for (int a = 0; a < q->naggs; a++) {
		free(st[a].vals);
		sk_free(st[a].sk);
		if (st[a].seen) {
			strmap_free(st[a].seen);
			free(st[a].seen);
		}
	}
	free(st);
	return v;
}

/* ---------- partial states ---------- */


/* Escape so that a field holds no TAB/LF/CR and a list no ','. */
static void
add_item(strbuf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '%' || c == '\t' || c == '\n' || c == '\r' || c == ',')
			sb_addf(b, "%%%02X", c);
		else
			sb_addc(b, (char)c);
	}
}

static void
write_store(strbuf *b, const sk_store *s)
{
	sb_addf(b, ",%d,", s->off);
	for (uint32_t i = 0; i < s->len; i++)
		sb_addf(b, "%s%llu", i ? ":" : "", (unsigned long long)s->c[i]);
}

/* ",=,v:c,v:c...": the values an exact percentile ranks, each distinct
 * one with its count, in increasing order (17 digits: read back exactly). */
static void
write_values(strbuf *b, agg_state *s)
{
	qsort(s->vals, s->nvals, sizeof *s->vals, cmp_double);
	sb_adds(b, ",=");
	for (size_t i = 0, j; i < s->nvals; i = j) {
		for (j = i + 1; j < s->nvals && s->vals[j] == s->vals[i]; j++)
			;
		sb_addf(b, ",%.17g:%zu", s->vals[i], j - i);
	}
}

static void
write_state(strbuf *b, const q_agg *ag, agg_state *s, int exact)
{
	sb_addf(b, "\t%lld", (long long)s->n);
	switch (ag->kind) {
	case A_COUNT:
		break;
	case A_COUNT_DISTINCT:
		for (size_t i = 0; s->seen && i < s->seen->cap; i++)
			if (s->seen->slots[i].used) {
				sb_addc(b, ',');
				add_item(b, s->seen->slots[i].key, s->seen->slots[i].len);
			}
		break;
	case A_SUM:
	case A_AVG:
		sb_addf(b, ",%lld,%a,%d", (long long)s->isum, s->fsum, s->frac);
		break;
	case A_MIN:
	case A_MAX:
		sb_addf(b, ",%a,%a", s->min, s->max);
		break;
	case A_PCT: {
		qsketch k = {0};
		const qsketch *sk = s->sk;
		if (!sk && exact) {
			write_values(b, s);
			break;
		}
		if (!sk) {
			for (size_t i = 0; i < s->nvals; i++)
				sk_add(&k, s->vals[i]);
			sk = &k;
		}
		sb_addf(b, ",%llu,%a,%a", (unsigned long long)sk->zero, sk->min, sk->max);
		write_store(b, &sk->pos);
		write_store(b, &sk->neg);
		free(k.pos.c);
		free(k.neg.c);
		break;
	}
	}
}

void
q_table_write_partial(q_table *t, tr_output *out)
{
	const query *q = t->q;
	strbuf b = {0}, text = {0};

	q_partial_for(q, &text);
	tr_partial_header(&b, "aggregate", text.s);
	for (size_t g = 0; g < t->n; g++) {
		q_group *gr = &t->groups[g];
		sb_addc(&b, 'G');
		for (int k = 0; k < q->nkeys; k++) {
			strbuf v = {0};
			encode_value(&v, gr->keys[k]);
			sb_addc(&b, '\t');
			tr_escape(&b, v.s, v.len, 0);
			sb_free(&v);
		}
		for (int a = 0; a < q->naggs; a++)
			write_state(&b, &q->aggs[a], &gr->st[a], t->exact || t->sketch);
		sb_addc(&b, '\n');
		tr_output_spill(out, &b);
	}
	tr_partial_end(&b, t->n);
	tr_output_sb(out, &b);
	sb_free(&b);
	sb_free(&text);
}

void
q_partial_for(const query *q, strbuf *b)
{
	strbuf text = {0};

	query_print(q, &text);
	tr_escape(b, text.s, text.len, 0);
	sb_free(&text);
}

/* Decode a typed value (in place: s is writable and unescaped). */
static int
decode_value(arena *mem, char *s, size_t n, expr_value *v)
{
	if (n == 1 && s[0] == '-') {
		*v = expr_null();
		return 0;
	}
	if (n == 2 && s[0] == 'b' && (s[1] == '0' || s[1] == '1')) {
		*v = expr_bool(s[1] == '1');
		return 0;
	}
	if (n >= 1 && s[0] == 's') {
		*v = expr_str(arena_strndup(mem, s + 1, n - 1), n - 1);
		return 0;
	}
	if (n >= 2 && s[0] == 'n') {
		char *end;
		char *text = arena_strndup(mem, s + 1, n - 1);
		double d = strtod(text, &end);
		if (*end)
			return -1;
		*v = expr_num(d);
		if (fabs(d) >= 9007199254740992.0 && !strchr(text, 'p') && !strchr(text, '.')) {
			v->str = text;
			v->len = n - 1;
		}
		return 0;
	}
	return -1;
}

static int
read_store(char **p, sk_store *s)
{
	char *end;
	long off = strtol(*p, &end, 10);
	if (*end != ',' || off < -SK_MAX_INDEX || off > SK_MAX_INDEX)
		return -1;
	*p = end + 1;
	for (int32_t i = 0; **p && **p != ','; i++) {
		unsigned long long c = strtoull(*p, &end, 10);
		if (end == *p || **p == '-' || off + i > SK_MAX_INDEX)
			return -1;
		if (c)
			store_add(s, (int32_t)off + i, c);
		*p = *end == ':' ? end + 1 : end;
	}
	if (**p == ',')
		(*p)++;
	return 0;
}

/* ",item,item...": the distinct values, each typed and escaped. */
static int
merge_distinct(q_table *t, agg_state *s, char *p)
{
	while (*p == ',') {
		char *item = p + 1, *next = strchr(item, ',');
		size_t len = next ? (size_t)(next - item) : strlen(item);
		char *raw = arena_alloc(&t->mem, len + 1);
		size_t rl = tr_unescape(raw, item, len);
		expr_value v;
		if (decode_value(&t->mem, raw, rl, &v) < 0)
			return -1;
		add_distinct(t, s, v);
		p = item + len;
	}
	return *p ? -1 : 0;
}

/* ",=,v:c,...": n values exactly (write_values); they join the sketch
 * when one is held already. */
static int
merge_values(agg_state *s, long long n, char *p)
{
	long long seen = 0;

	while (*p == ',') {
		char *end;
		double v = strtod(p + 1, &end);
		long long c;

		if (end == p + 1 || *end != ':' || v != v)
			return -1;
		c = strtoll(end + 1, &p, 10);
		if (c <= 0 || c > n - seen || (*p && *p != ','))
			return -1;
		seen += c;
		if (s->n == 0 || v < s->min)
			s->min = v;
		if (s->n == 0 || v > s->max)
			s->max = v;
		for (; c > 0; c--, s->n++)
			if (s->sk)
				sk_add(s->sk, v);
			else {
				if (s->nvals == s->cap) {
					s->cap = s->cap ? 2 * s->cap : 16;
					s->vals = xrealloc(s->vals, s->cap * sizeof *s->vals);
				}
				s->vals[s->nvals++] = v;
			}
	}
	return *p || seen != n ? -1 : 0;
}

/* ",zero,min,max,off,c:c...,off,c:c...": a sketch of n values. */
static int
merge_sketch(agg_state *s, long long n, char *p)
{
	qsketch k = {0};
	unsigned long long zero;
	int used = 0, rc = -1;

	if (sscanf(p, ",%llu,%la,%la,%n", &zero, &k.min, &k.max, &used) != 3 || !used)
		return -1;
	p += used;
	k.zero = zero;
	k.n = (uint64_t)n;
	if (read_store(&p, &k.pos) == 0 && read_store(&p, &k.neg) == 0 && !*p &&
	    sk_count(&k) == k.n) {
		if (!s->sk) {	/* values taken exactly so far join the sketch */
			s->sk = xcalloc(1, sizeof *s->sk);
			for (size_t i = 0; i < s->nvals; i++)
				sk_add(s->sk, s->vals[i]);
			s->nvals = 0;
		}
		sk_merge(s->sk, &k);
		if (n && (!s->n || k.min < s->min))
			s->min = k.min;
		if (n && (!s->n || k.max > s->max))
			s->max = k.max;
		s->n += n;
		rc = 0;
	}
	free(k.pos.c);
	free(k.neg.c);
	return rc;
}

static int
merge_state(q_table *t, const q_agg *ag, agg_state *s, char *f)
{
	char *end;
	long long n = strtoll(f, &end, 10);
	agg_state o = {0};
	int64_t sum;

	if (end == f || n < 0)
		return -1;
	switch (ag->kind) {
	case A_COUNT:
		s->n += n;
		return *end ? -1 : 0;
	case A_COUNT_DISTINCT:
		return merge_distinct(t, s, end);
	case A_SUM:
	case A_AVG:
		if (sscanf(end, ",%lld,%la,%d", (long long *)&o.isum, &o.fsum, &o.frac) != 3)
			return -1;
		if (__builtin_add_overflow(s->isum, o.isum, &sum)) {
			s->fsum += (double)o.isum;	/* beyond int64: a double */
			s->frac = 1;
		} else
			s->isum = sum;
		s->fsum += o.fsum;
		s->frac |= o.frac;
		s->n += n;
		return 0;
	case A_MIN:
	case A_MAX:
		if (sscanf(end, ",%la,%la", &o.min, &o.max) != 2)
			return -1;
		if (n && (!s->n || o.min < s->min))
			s->min = o.min;
		if (n && (!s->n || o.max > s->max))
			s->max = o.max;
		s->n += n;
		return 0;
	case A_PCT:
		if (end[0] == ',' && end[1] == '=')
			return merge_values(s, n, end + 2);
		return merge_sketch(s, n, end);
	}
	return -1;
}

int
q_table_merge_line(q_table *t, const char *line, size_t len, char *err, size_t errlen)
{
	const query *q = t->q;
	size_t nf = (size_t)(q->nkeys + q->naggs) + 1;
	tr_field f[256];

	if (len == 0 || line[0] == '#')
		return 0;	/* the frame's lines (partial.h): checked by the caller */
	if (line[0] != 'G' || nf > 256 || tr_split(line, len, f, 256) != nf || f[0].len != 1) {
		snprintf(err, errlen, "not a partial record of this query (want G and %zu fields)", nf - 1);
		return -1;
	}
	for (int k = 0; k < q->nkeys; k++) {
		char *raw = arena_alloc(&t->mem, f[1 + k].len + 1);
		size_t rl = tr_unescape(raw, f[1 + k].s, f[1 + k].len);
		if (decode_value(&t->mem, raw, rl, &t->keyvals[k]) < 0) {
			snprintf(err, errlen, "bad key value in field %d", 2 + k);
			return -1;
		}
	}
	q_group *g = find_group(t, t->keyvals);
	for (int a = 0; a < q->naggs; a++) {
		const tr_field *fa = &f[1 + q->nkeys + a];
		char *s = arena_strndup(&t->mem, fa->s, fa->len);
		if (merge_state(t, &q->aggs[a], &g->st[a], s) < 0) {
			snprintf(err, errlen, "bad state of %s in field %d", q->aggs[a].text,
				 2 + q->nkeys + a);
			return -1;
		}
	}
	return 0;
}

/* ---------- output formats ---------- */

void
q_write_header(strbuf *b, const query *q, enum query_format f, int window)
{
	if (f == QUERY_JSON) {
		sb_adds(b, "[");
		return;
	}
	if (window)
		sb_adds(b, f == QUERY_CSV ? "window," : "window\t");
	for (int i = 0; i < q->nshown; i++) {
		if (i)
			sb_addc(b, f == QUERY_CSV ? ',' : '\t');
		if (f == QUERY_CSV)
			table_csv_field(b, q->cols[i].name, strlen(q->cols[i].name));
		else
			tr_escapes(b, q->cols[i].name, 0);
	}
	sb_addc(b, '\n');
}

const char *
q_format_value(const query *q, int col, expr_value v, int units, char *buf, size_t size,
	       size_t *len)
{
	if (units != TABLE_US && q->cols[col].dur && v.type == EV_NUM) {
		table_duration_num(buf, size, v.num, units);
		*len = strlen(buf);
		return buf;
	}
	return expr_format(v, buf, size, len);
}

void
q_write_row(strbuf *b, const query *q, const expr_value *vals, enum query_format f,
	    int units, int first_json_row, const expr_value *window)
{
	char buf[32];
	size_t len;

	/* JSON: a row a line, strings encoded by jansson, numbers as the
	 * TSV writes them (fmt_double's shortest text, which jansson's
	 * %.17g reals are not). */
	if (f == QUERY_JSON)
		sb_adds(b, first_json_row ? "\n{" : ",\n{");
	if (window) {
		const char *s = expr_format(*window, buf, sizeof buf, &len);

		if (f == QUERY_JSON)
			sb_adds(b, "\"window\":");
		sb_add(b, s, len);
		sb_adds(b, f == QUERY_JSON ? ", " : f == QUERY_CSV ? "," : "\t");
	}
	for (int i = 0; i < q->nshown; i++) {
		expr_value v = vals[i];
		const char *s = q_format_value(q, i, v, units, buf, sizeof buf, &len);
		if (f == QUERY_JSON) {
			if (i)
				sb_adds(b, ", ");
			tr_json_string(b, q->cols[i].name, strlen(q->cols[i].name));
			sb_addc(b, ':');
			if (v.type == EV_STR)
				tr_json_string(b, s, len);
			else if (v.type == EV_NULL || len == 0)
				sb_adds(b, "null");
			else
				sb_add(b, s, len);
			continue;
		}
		if (i)
			sb_addc(b, f == QUERY_CSV ? ',' : '\t');
		if (f == QUERY_CSV)
			table_csv_field(b, s, len);
		else
			tr_escape(b, s, len, 0);
	}
	sb_adds(b, f == QUERY_JSON ? "}" : "\n");
}
