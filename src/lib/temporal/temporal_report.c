/* temporal_report.c - causes, tags, D records, --explain and --dot.
 *
 * Zeno's post-processing (§5): only vertices with a non-empty annotation are
 * tasks, which prunes zero-delay branches; a span's segments fold into one
 * node; sequencing siblings (and unexplained gaps) with the same label (origin
 * service, operation, resource) fold into one node with a count. */
#include "temporal_impl.h"

#include <stdlib.h>
#include <string.h>

#include "draw/dot.h"
#include "core/format.h"

static const char *const role_names[] = {
	"onpath", "offpath", "sequencing", "transit", "unexplained", "linked"
};

const char *
tp_role_name(int role)
{
	return role_names[role];
}

/* "service:operation on resource"; off the path, the service is the one
 * that started the cause's trace: who sent the work that got in the way. */
static void
span_label(const wtrace *w, const tp_label *l, int role, strbuf *b)
{
	const tp_label *root = w->root_label;

	if (role == ROLE_ONPATH || role == ROLE_LINK || w->root < 0) {
		sb_add(b, l->text, l->len);
		return;
	}
	if (root)
		sb_add(b, root->text, root->svclen);
	else
		sb_adds(b, w->t.spans[w->root].service);
	sb_add(b, l->text + l->svclen, l->len - l->svclen);
}

/* "service:operation" of s into b. */
static void
add_service_op(strbuf *b, const tr_span *s)
{
	sb_adds(b, s->service);
	sb_addc(b, ':');
	sb_adds(b, s->operation);
}

/* Built piece by piece, not with printf: one for every transit cause. */
static void
transit_label(temporal *tp, wtrace *w, const tp_vert *x, strbuf *b)
{
	const tr_trace *t = &w->t;
	const tr_span *rcv = &t->spans[x->span];
	const tr_span *snd = x->peer >= 0 ? &t->spans[x->peer] : NULL;

	if (x->tkind == TT_REQUEST) {
		sb_adds(b, "request ");
		sb_adds(b, snd->service);
		sb_adds(b, " → ");
		add_service_op(b, rcv);
	} else if (x->tkind == TT_RESPONSE) {
		sb_adds(b, "response ");
		add_service_op(b, snd);
		sb_adds(b, " → ");
		sb_adds(b, rcv->service);
	} else {
		wtrace *o = x->ext >= 0 ? tpg_lookup(tp, w->exts[x->ext].trace_id) : w;
		int32_t j = x->ext >= 0 && o ? tr_trace_find(&o->t, w->exts[x->ext].span_id) : x->peer;

		sb_adds(b, "message ");
		if (o && j >= 0) {
			add_service_op(b, &o->t.spans[j]);
			sb_addc(b, ' ');
		}
		sb_adds(b, "→ ");
		add_service_op(b, rcv);
	}
}

void
tpr_label(temporal *tp, const tp_cause *c, strbuf *b)
{
	if (c->role == ROLE_UNEXPLAINED) {
		sb_adds(b, "unexplained@");
		sb_adds(b, tp->res[c->res].name);
	} else if (c->role == ROLE_TRANSIT)
		transit_label(tp, c->w, &c->w->v[c->v], b);
	else
		span_label(c->w, c->span_label ? c->span_label : c->w->v[c->v].label, c->role, b);
}

/* The label of c, in the query's memory. */
static const char *
cause_label(temporal *tp, const tp_cause *c)
{
	sb_clear(&tp->text);
	tpr_label(tp, c, &tp->text);
	return arena_strndup(&tp->qmem, tp->text.s, tp->text.len);
}

static const char *
task_label(temporal *tp, const tp_task *t)
{
	tp_cause c = {.w = t->w, .v = t->v, .res = t->res, .role = t->role,
		      .span = t->v >= 0 ? t->w->v[t->v].span : -1};

	return cause_label(tp, &c);
}

/* The key of a task's cause: a span in a role, a transit, or a resource gap. */
typedef struct cause_key {
	const wtrace *w;
	int32_t span, v, res;
	int32_t role;
} cause_key;

static void
build_causes(temporal *tp)
{
	tp->ncauses = 0;
	strmap_clear(&tp->cause_ids);
	for (size_t i = 0; i < tp->ntasks; i++) {
		const tp_task *t = &tp->tasks[i];
		cause_key *k = arena_alloc(&tp->qmem, sizeof *k);
		int added;

		memset(k, 0, sizeof *k);
		k->role = t->role;
		if (t->role == ROLE_UNEXPLAINED)
			k->res = t->res;
		else if (t->role == ROLE_TRANSIT) {
			k->w = t->w;
			k->v = t->v;
		} else {
			k->w = t->w;
			k->span = t->w->v[t->v].span;
		}
		strmap_slot *s = strmap_put(&tp->cause_ids, (const char *)k, sizeof *k, &added);
		if (added) {
			GROW(tp->causes, tp->capcauses, tp->ncauses + 1);
			tp_cause *c = &tp->causes[tp->ncauses];
			memset(c, 0, sizeof *c);
			c->w = t->w;
			c->v = t->v;
			c->res = t->res;
			c->role = t->role;
			c->span = t->v >= 0 ? t->w->v[t->v].span : -1;
			c->span_label = t->v >= 0 ? t->w->v[t->v].label : NULL;
			s->val = (int64_t)tp->ncauses++;
		}
		tp_cause *c = &tp->causes[s->val];
		c->self += t->self;
		if (t->te - t->ts > c->delay)
			c->delay = t->te - t->ts;
	}
}

static int
cause_cmp(const void *a, const void *b)
{
	const tp_cause *x = a, *y = b;

	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	return strcmp(x->label, y->label);
}

/* The labels of causes c[0, n) are in traces built long ago, out of the
 * cache: fetched all at once, not one miss after another. */
static void
prefetch_labels(const tp_cause *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (c[i].span_label) {
			__builtin_prefetch(c[i].span_label);
			__builtin_prefetch(c[i].w->t.trace_id);
			if (c[i].role != ROLE_ONPATH)
				__builtin_prefetch(c[i].w->root_label);
		}
}

/* Sorted causes with self time; returns how many. */
static size_t
ranked_causes(temporal *tp)
{
	size_t n = 0;

	arena_reset(&tp->qmem);
	build_causes(tp);
	for (size_t i = 0; i < tp->ncauses; i++)
		if (tp->causes[i].self > 0)
			tp->causes[n++] = tp->causes[i];
	/* labels only for what is shown: most tasks' causes have no self time */
	prefetch_labels(tp->causes, n);
	for (size_t i = 0; i < n; i++)
		tp->causes[i].label = cause_label(tp, &tp->causes[i]);
	qsort(tp->causes, n, sizeof *tp->causes, cause_cmp);
	tp->ncauses = n;
	tp->st.causes += n;
	return n;
}

/* A field of a D record, escaped: most text needs no escape, and is then
 * copied as it is (its length found by the same scan). */
static void
add_field(strbuf *out, const char *s)
{
	size_t n = strcspn(s, "\t\n\r%");

	if (!s[n])
		sb_add(out, s, n);
	else
		tr_escapes(out, s, 0);
}

static void
span_tags(void *ctx, const tr_trace *t, int32_t span, strbuf *extra)
{
	temporal *tp = ctx;

	(void)t;
	tr_add_tag_i64(extra, "tp.delay", tp->span_delay[span]);
	tr_add_tag_i64(extra, "tp.self", tp->span_self[span]);
}

void
tpr_write_line(temporal *tp, wtrace *w, int analysed, strbuf *out)
{
	size_t ns = w->t.nspans;

	if (!analysed) {
		tr_write_trace(out, &w->t, NULL);
		return;
	}
	GROW(tp->span_delay, tp->capspanq, 2 * (ns + 1));
	memset(tp->span_delay, 0, 2 * (ns + 1) * sizeof *tp->span_delay);
	tp->span_self = tp->span_delay + ns + 1;
	for (size_t i = 0; i < tp->ntasks; i++) {
		const tp_task *t = &tp->tasks[i];

		if (t->w != w || t->v < 0 || w->v[t->v].kind != TV_SEG)
			continue;
		int32_t s = w->v[t->v].span;
		if (t->te - t->ts > tp->span_delay[s])
			tp->span_delay[s] = t->te - t->ts;
		tp->span_self[s] += t->self;
	}
	tr_write_opts o = {.drop_prefix = "tp.", .drop_type = "D", .span_extra = span_tags, .ctx = tp};
	tr_write_trace(out, &w->t, &o);
	size_t n = ranked_causes(tp);
	for (size_t i = 0; i < n; i++) {
		const tp_cause *c = &tp->causes[i];
		const char *sid = c->span < 0 || c->role == ROLE_UNEXPLAINED ? "" :
				  c->span_label ? tp_label_span_id(c->span_label) :
				  c->w->t.spans[c->span].span_id;

		sb_adds(out, "D\t");
		add_field(out, w->t.trace_id);
		sb_addc(out, '\t');
		add_field(out, *sid ? c->w->t.trace_id : "");
		sb_addc(out, '\t');
		add_field(out, sid);
		sb_addc(out, '\t');
		sb_adds(out, tp_role_name(c->role));
		sb_addc(out, '\t');
		sb_addi(out, c->self);
		sb_addc(out, '\t');
		sb_addi(out, c->delay);
		sb_addc(out, '\t');
		add_field(out, c->label);
		sb_addc(out, '\n');
	}
}

static void
add_dur(strbuf *b, int64_t us, int units)
{
	tp_add_dur(b, us, units);
}

static void
add_pct(strbuf *b, int64_t part, int64_t whole)
{
	tp_add_pct(b, part, whole);
}

/* A node of the folded provenance tree. */
typedef struct dnode {
	const char *label;
	int role, seq_edge;
	int64_t delay, self, ts;	/* ts: its earliest interval's start */
	size_t count;
	const wtrace *w;
	int32_t span;
	int32_t parent, first, next;
} dnode;

typedef struct dtree {
	dnode *n;
	size_t len, cap;
} dtree;

/* The node under parent for (label, role): a hash from (parent, role,
 * label), so that a root with many distinct children folds in linear time.
 * The keys live in mem. */
typedef struct sibling_index {
	strmap map;
	arena mem;
	strbuf key;
} sibling_index;

static const char *
sibling_key(sibling_index *x, int32_t parent, int role, const char *label, size_t *len)
{
	int32_t head[2] = {parent, role};

	sb_clear(&x->key);
	sb_add(&x->key, (const char *)head, sizeof head);
	sb_adds(&x->key, label);
	*len = x->key.len;
	return x->key.s;
}

static int32_t
find_sibling(sibling_index *x, int32_t parent, const char *label, int role)
{
	size_t len;
	const char *k;
	strmap_slot *s;

	if (parent < 0)
		return -1;
	k = sibling_key(x, parent, role, label, &len);
	s = strmap_get(&x->map, k, len);
	return s ? (int32_t)s->val : -1;
}

static void
note_sibling(sibling_index *x, int32_t parent, const char *label, int role, int32_t node)
{
	size_t len;
	const char *k;
	char *copy;
	int added;

	if (parent < 0)
		return;
	k = sibling_key(x, parent, role, label, &len);
	copy = arena_alloc(&x->mem, len);
	memcpy(copy, k, len);
	strmap_put(&x->map, copy, len, &added)->val = node;
}

static int32_t
new_node(dtree *d, int32_t parent)
{
	GROW(d->n, d->cap, d->len + 1);
	dnode *x = &d->n[d->len];
	memset(x, 0, sizeof *x);
	x->parent = parent;
	x->first = x->next = -1;
	if (parent >= 0) {
		x->next = d->n[parent].first;
		d->n[parent].first = (int32_t)d->len;
	}
	return (int32_t)d->len++;
}

static void
fold_tree(temporal *tp, dtree *d)
{
	int32_t *node_of = xmalloc((tp->ntasks + 1) * sizeof *node_of);
	sibling_index sib = {0};

	d->len = 0;
	for (size_t i = 0; i < tp->ntasks; i++) {
		const tp_task *t = &tp->tasks[i];
		int32_t span = t->v >= 0 ? t->w->v[t->v].span : -1;
		int32_t pn = t->parent >= 0 ? node_of[t->parent] : -1;
		const tp_task *pt = t->parent >= 0 ? &tp->tasks[t->parent] : NULL;
		int64_t delay = t->te - t->ts;
		int32_t n = -1;

		if (pt && t->v >= 0 && pt->v >= 0 && t->w->v[t->v].kind == TV_SEG &&
		    pt->w->v[pt->v].kind == TV_SEG && pt->w == t->w &&
		    pt->w->v[pt->v].span == span && pt->role == t->role) {
			n = pn;	/* another segment of the same span */
			if (delay > d->n[n].delay)
				d->n[n].delay = delay;
			d->n[n].self += t->self;
			node_of[i] = n;
			continue;
		}
		const char *label = task_label(tp, t);
		/* repeated siblings (13 calls of one operation, a queue of
		 * similar work) fold into one node with a count (Zeno §5.2) */
		n = find_sibling(&sib, pn, label, t->role);
		if (n < 0) {
			n = new_node(d, pn);
			note_sibling(&sib, pn, label, t->role, n);
			d->n[n].label = label;
			d->n[n].role = t->role;
			d->n[n].seq_edge = t->seq_edge;
			d->n[n].span = -2;
			d->n[n].ts = t->ts;
		}
		dnode *x = &d->n[n];
		if (t->ts < x->ts)
			x->ts = t->ts;
		x->delay += delay;
		x->self += t->self;
		if (x->w != t->w || x->span != span)
			x->count++;
		x->w = t->w;
		x->span = span;
		node_of[i] = n;
	}
	free(node_of);
	strmap_free(&sib.map);
	arena_free(&sib.mem);
	sb_free(&sib.key);
}

/* Children of node p, largest delay first; equal delays in the order of
 * the list (qsort on the position: the same order as a stable sort). */
typedef struct child_rank {
	int64_t delay;
	size_t pos;
	int32_t node;
} child_rank;

static int
child_rank_cmp(const void *pa, const void *pb)
{
	const child_rank *a = pa, *b = pb;

	if (a->delay != b->delay)
		return a->delay > b->delay ? -1 : 1;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

static size_t
sorted_children(const dtree *d, int32_t p, int32_t **out, size_t *cap)
{
	size_t n = 0;
	child_rank *r;

	for (int32_t c = d->n[p].first; c >= 0; c = d->n[c].next) {
		GROW(*out, *cap, n + 1);
		(*out)[n++] = c;
	}
	if (n < 2)
		return n;
	r = xmalloc(n * sizeof *r);
	for (size_t i = 0; i < n; i++)
		r[i] = (child_rank){d->n[(*out)[i]].delay, i, (*out)[i]};
	qsort(r, n, sizeof *r, child_rank_cmp);
	for (size_t i = 0; i < n; i++)
		(*out)[i] = r[i].node;
	free(r);
	return n;
}

#define MAX_INDENT 40

/* " ERROR message" when the one span a line names failed (tr-format(5),
 * FAILURES); a transit or a gap names no span, a folded node many. */
static int
add_failure(strbuf *b, const wtrace *w, int32_t span, int role, size_t count)
{
	tr_failure f;

	if (span < 0 || count > 1 || role == ROLE_TRANSIT || role == ROLE_UNEXPLAINED ||
	    !tr_span_error(&w->t, span, &f))
		return 0;
	sb_adds(b, " ERROR ");
	tr_failure_text(&f, 0, b);
	return 1;
}

static void
explain_node(strbuf *b, const dnode *x, size_t depth, int64_t total, int64_t t0, int units)
{
	for (size_t i = 0; i < depth + 2 && i < MAX_INDENT; i++)
		sb_adds(b, "  ");
	if (depth + 2 > MAX_INDENT)	/* deep traces: keep the output linear */
		sb_addf(b, "[depth %zu] ", depth);
	if (x->count > 1)
		sb_addf(b, "%zu × ", x->count);
	sb_addf(b, "%s = ", x->label);
	add_dur(b, x->delay, units);
	sb_adds(b, " (");
	add_pct(b, x->delay, total);
	sb_adds(b, "), self ");
	add_dur(b, x->self, units);
	sb_adds(b, ", from +");
	add_dur(b, x->ts - t0, units);
	if (x->role != ROLE_ONPATH)
		sb_addf(b, " [%s]", tp_role_name(x->role));
	add_failure(b, x->w, x->span, x->role, x->count);
	sb_addc(b, '\n');
}

/* Ranked causes taken together by label and role, most time first. */
typedef struct cause_group {
	size_t first;		/* a cause of the group, in tp->causes */
	size_t count, traces;	/* causes, and the traces they are in */
	int64_t self;
} cause_group;

typedef struct cause_groups {
	size_t n;
	cause_group *g;
} cause_groups;

static int
cause_group_cmp(const void *pa, const void *pb)
{
	const cause_group *a = pa, *b = pb;

	if (a->self != b->self)
		return a->self > b->self ? -1 : 1;
	return a->first < b->first ? -1 : a->first > b->first;
}

static void
group_causes(temporal *tp, cause_groups *g)
{
	size_t n = tp->ncauses;
	strmap groups = {0}, seen = {0};

	g->n = 0;
	g->g = xcalloc(n + 1, sizeof *g->g);
	for (size_t i = 0; i < n; i++) {
		const tp_cause *c = &tp->causes[i];
		char *key = arena_alloc(&tp->qmem, strlen(c->label) + 2);
		int added;

		key[0] = (char)('0' + c->role);
		strcpy(key + 1, c->label);
		strmap_slot *s = strmap_put(&groups, key, strlen(key), &added);
		if (added) {
			s->val = (int64_t)g->n;
			g->g[g->n++] = (cause_group){.first = i};
		}
		cause_group *x = &g->g[s->val];
		x->count++;
		x->self += c->self;
		struct { int64_t group; const wtrace *w; } *tk = arena_alloc(&tp->qmem, sizeof *tk);
		memset(tk, 0, sizeof *tk);
		tk->group = s->val;
		tk->w = c->w;
		strmap_put(&seen, (const char *)tk, sizeof *tk, &added);
		x->traces += (size_t)added;
	}
	/* groups by time; equal times in the order they were met */
	qsort(g->g, g->n, sizeof *g->g, cause_group_cmp);
	strmap_free(&groups);
	strmap_free(&seen);
}

static void
cause_groups_free(cause_groups *g)
{
	free(g->g);
}

/* The span a trace's causes hang from, for naming it: its request root. */
static const tr_span *
trace_root(const wtrace *w)
{
	return w->root >= 0 ? &w->t.spans[w->root] : NULL;
}

/* " in trace ID (service:operation)", or " in N traces, e.g. ID (...)": a
 * cause in another trace names where to look. */
static void
other_trace(const temporal *tp, const wtrace *q, const tp_cause *c, const cause_group *g, strbuf *b)
{
	const tr_span *r = trace_root(c->w);

	(void)tp;
	if (c->w == q || c->role == ROLE_UNEXPLAINED)
		return;
	if (g->traces > 1)
		sb_addf(b, " in %zu traces, e.g. %s", g->traces, c->w->t.trace_id);
	else
		sb_addf(b, " in trace %s", c->w->t.trace_id);
	if (r)
		sb_addf(b, " (%s:%s)", r->service, r->operation);
}

/* "11 × label = 11 ms (78.6%) [sequencing] in 11 traces, e.g. ...", one
 * line a group. */
static void
explain_causes(temporal *tp, const wtrace *q, strbuf *b, int64_t total)
{
	cause_groups g;

	group_causes(tp, &g);
	sb_adds(b, "  causes:\n");
	for (size_t i = 0; i < g.n; i++) {
		const cause_group *x = &g.g[i];
		const tp_cause *c = &tp->causes[x->first];

		sb_adds(b, "    ");
		if (x->count > 1)
			sb_addf(b, "%zu × ", x->count);
		sb_addf(b, "%s = ", c->label);
		add_dur(b, x->self, tp->o.units);
		sb_adds(b, " (");
		add_pct(b, x->self, total);
		sb_addf(b, ") [%s]", tp_role_name(c->role));
		other_trace(tp, q, c, x, b);
		add_failure(b, c->w, c->span, c->role, x->count);
		sb_addc(b, '\n');
	}
	cause_groups_free(&g);
}

/* The answer in one line: other traces, own work, network, unexplained. */
static void
explain_summary(temporal *tp, const wtrace *q, strbuf *b, int64_t total)
{
	static const char *const what[] = {"other traces", "own work", "network", "unexplained"};
	int64_t part[4] = {0};

	for (size_t i = 0; i < tp->ncauses; i++) {
		const tp_cause *c = &tp->causes[i];
		int k = c->role == ROLE_UNEXPLAINED ? 3 : c->role == ROLE_TRANSIT ? 2 : c->w != q ? 0 : 1;

		part[k] += c->self;
	}
	sb_adds(b, "  summary:");
	for (int k = 0; k < 4; k++) {
		sb_addf(b, "%s %s ", k ? "," : "", what[k]);
		add_dur(b, part[k], tp->o.units);
		sb_adds(b, " (");
		add_pct(b, part[k], total);
		sb_addc(b, ')');
	}
	sb_addc(b, '\n');
}

/* Add name to the list in b unless it is there ("a, b"). */
static void
add_once(strbuf *b, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = b->s; p && (p = strstr(p, name)); p += n)
		if ((p == b->s || p[-1] == ' ') && (p[n] == ',' || p[n] == '\0' || p[n] == ' '))
			return;
	if (b->len)
		sb_adds(b, ", ");
	sb_adds(b, name);
}

static int
links_followed(const temporal *tp)
{
	for (size_t i = 0; i < tp->nnotes; i++)
		if (tp->notes[i].w)
			return 1;
	return 0;
}

/* What the answer rests on, for the postmortem: queues inferred rather than
 * recorded, clock offsets applied, resource capacities inferred. */
static void
explain_assumptions(temporal *tp, const wtrace *w, strbuf *b)
{
	strbuf queues = {0}, clocks = {0}, caps = {0}, one = {0};

	for (size_t i = 0; i < tp->ntasks; i++) {
		const tp_task *t = &tp->tasks[i];
		const tp_task *p = t->parent >= 0 ? &tp->tasks[t->parent] : NULL;

		if (t->v >= 0) {
			const tr_span *s = &t->w->t.spans[t->w->v[t->v].span];
			int64_t off = tr_clock_offset(tp->o.clock, s->host);

			if (off) {
				sb_clear(&one);
				sb_addf(&one, "%s %+.3f ms", s->host, (double)off / 1000.0);
				add_once(&clocks, one.s);
			}
		}
		if (!t->seq_edge || !p || p->v < 0)
			continue;
		int32_t res = t->v >= 0 ? t->w->v[t->v].res : t->res;
		if (res >= 0 && tp->res[res].workers == INT32_MAX) {
			sb_clear(&one);
			sb_addf(&one, "%s: %d", tp->res[res].name, tp->res[res].maxworkers);
			add_once(&caps, one.s);
		}
		if (p->w->inferred[p->w->v[p->v].span] && res >= 0)
			add_once(&queues, tp->res[res].name);
	}
	sb_adds(b, "  assumptions:\n");
	if (queues.len)
		sb_addf(b, "    queueing inferred on %s: no recorded wait, the request's transit taken "
			"as its response's, and a resource does not idle while work waits (Zeno §3.2)\n",
			queues.s);
	if (clocks.len)
		sb_addf(b, "    clock offsets applied: %s\n", clocks.s);
	if (caps.len)
		sb_addf(b, "    workers inferred from overlaps (no -c): %s\n", caps.s);
	sb_addf(b, "    overlaps up to %d µs are clock noise\n", TP_EPSILON_US);
	if (links_followed(tp))
		sb_adds(b, "    a link means the linking span waited for the linked work while they "
			"overlap (the span that started first waits)\n");
	if (w->nwrappers)
		sb_addf(b, "    %zu wrapper spans (childless, covering a sibling call of their process) "
			"taken as waiting for that call, not as work\n", w->nwrappers);
	if (w->hb_used)
		sb_addf(b, "    siblings ordered by tr-infer's happens-before edges: %zu children by "
			"the edges, %zu by timing (the edges do not name them)\n", w->hb_model, w->hb_guess);
	sb_free(&queues);
	sb_free(&clocks);
	sb_free(&caps);
	sb_free(&one);
}

static const char *const cause_cols[] = {
	"trace", "root", "duration", "cause", "role", "count", "self", "share",
	"cause_trace", "cause_root"
};

static void
begin_causes(temporal *tp, strbuf *out)
{
	if (tp->causes_begun)
		return;
	table_begin(&tp->causes_table, out, tp->o.format == TP_JSON ? TABLE_JSON : TABLE_CSV,
		    tp->o.units, cause_cols, sizeof cause_cols / sizeof *cause_cols);
	tp->causes_begun = 1;
}

void
tpr_write_causes(temporal *tp, wtrace *w, strbuf *out)
{
	const tr_span *root = &w->t.spans[tp->q_span];
	int64_t total = tp->q_te - tp->q_ts;
	cause_groups g;
	strbuf other = {0};

	if (!tp->o.on_cause) {
		begin_causes(tp, out);
		tp->causes_table.out = out;
	}
	ranked_causes(tp);
	group_causes(tp, &g);
	sb_clear(&tp->text);
	sb_addf(&tp->text, "%s:%s", root->service, root->operation);
	for (size_t i = 0; i < g.n; i++) {
		const tp_cause *c = &tp->causes[g.g[i].first];
		const tr_span *cr = c->role != ROLE_UNEXPLAINED ? trace_root(c->w) : NULL;
		table *t = &tp->causes_table;

		if (tp->o.on_cause) {
			tp_cause_row row = {w->t.trace_id, tp->text.s, total, c->label, tp_role_name(c->role),
					    g.g[i].count, g.g[i].self,
					    c->role != ROLE_UNEXPLAINED ? c->w->t.trace_id : ""};

			tp->o.on_cause(tp->o.cause_ctx, &row);
			continue;
		}

		table_str(t, w->t.trace_id);
		table_str(t, tp->text.s);
		table_dur(t, total);
		table_str(t, c->label);
		table_str(t, tp_role_name(c->role));
		table_int(t, (int64_t)g.g[i].count);
		table_dur(t, g.g[i].self);
		table_pct(t, g.g[i].self, total);
		table_str(t, c->role != ROLE_UNEXPLAINED ? c->w->t.trace_id : "");
		sb_clear(&other);
		if (cr)
			sb_addf(&other, "%s:%s", cr->service, cr->operation);
		table_str(t, other.len ? other.s : "");
	}
	sb_free(&other);
	cause_groups_free(&g);
}

void
tpr_end_causes(temporal *tp, strbuf *out)
{
	if (tp->o.on_cause)
		return;
	begin_causes(tp, out);
	tp->causes_table.out = out;
	table_end(&tp->causes_table);
}

void
tpr_write_explain(temporal *tp, wtrace *w, strbuf *b)
{
	const tr_span *root = &w->t.spans[tp->q_span];
	int64_t total = tp->q_te - tp->q_ts;
	dtree d = {0};
	int32_t *kids = NULL, *stack = NULL;
	size_t capk = 0, caps = 0, ns = 0;
	uint32_t *depth = NULL;
	size_t capd = 0;

	ranked_causes(tp);
	if (tp->o.from)	/* T-QUERY: the two events */
		sb_addf(b, "trace %s: %s to %s, ", w->t.trace_id, tp->o.from->text, tp->o.to->text);
	else
		sb_addf(b, "trace %s: %s:%s, ", w->t.trace_id, root->service, root->operation);
	add_dur(b, total, tp->o.units);
	sb_addc(b, '\n');
	explain_summary(tp, w, b, total);
	explain_causes(tp, w, b, total);
	tpl_write_explain(tp, b, total);
	fold_tree(tp, &d);
	sb_adds(b, "  provenance (delay, share, own time):\n");
	GROW(depth, capd, d.len + 1);
	if (d.len) {
		GROW(stack, caps, 1);
		stack[ns++] = 0;
		depth[0] = 0;
	}
	while (ns) {	/* depth first with an explicit stack */
		int32_t x = stack[--ns];

		explain_node(b, &d.n[x], depth[x], total, tp->q_ts, tp->o.units);
		size_t k = sorted_children(&d, x, &kids, &capk);
		GROW(stack, caps, ns + k + 1);
		for (size_t i = k; i-- > 0;) {
			depth[kids[i]] = depth[x] + 1;
			stack[ns++] = kids[i];
		}
	}
	explain_assumptions(tp, w, b);
	if (tp->violations)
		sb_addf(b, "  warning: %zu invariant violations\n", tp->violations);
	sb_addc(b, '\n');
	free(kids);
	free(stack);
	free(depth);
	free(d.n);
}

static const char *
role_attrs(int role)
{
	switch (role) {
	case ROLE_OFFPATH: return "color=red, fontcolor=red";
	case ROLE_SEQ: return "color=darkorange, fontcolor=darkorange";
	case ROLE_TRANSIT: return "shape=ellipse, color=gray40";
	case ROLE_UNEXPLAINED: return "style=dotted";
	case ROLE_LINK: return "color=blue, fontcolor=blue, style=dashed";
	}
	return NULL;
}

/* Which nodes are shown: its delay is at least --min-share of the whole,
 * and so is every node above it (a pruned node takes its subtree with it).
 * Parents come before their children in d (fold_tree), so one pass in
 * order decides. Returns the nodes left out. */
static size_t
dot_shown(const temporal *tp, const dtree *d, int64_t total, unsigned char *shown)
{
	size_t hidden = 0;

	for (size_t i = 0; i < d->len; i++) {
		const dnode *x = &d->n[i];

		shown[i] = !(total > 0 && 100.0 * (double)x->delay < tp->o.min_share * (double)total) &&
			   (x->parent < 0 || shown[x->parent]);
		hidden += !shown[i];
	}
	return hidden;
}

void
tpr_write_dot(temporal *tp, wtrace *w, strbuf *b)
{
	const tr_span *root = &w->t.spans[tp->q_span];
	int64_t total = tp->q_te - tp->q_ts;
	dtree d = {0};
	strbuf id = {0}, label = {0}, pid = {0}, attrs = {0};
	size_t hidden = 0;

	ranked_causes(tp);
	fold_tree(tp, &d);
	sb_addf(&id, "cluster_%llu", (unsigned long long)w->serial);
	if (tp->o.from)
		sb_addf(&label, "trace %s: %s to %s, ", w->t.trace_id, tp->o.from->text, tp->o.to->text);
	else
		sb_addf(&label, "trace %s: %s:%s, ", w->t.trace_id, root->service, root->operation);
	add_dur(&label, total, tp->o.units);
	cause_groups g;
	group_causes(tp, &g);
	if (g.n) {	/* the title names the top cause */
		sb_adds(&label, "\ntop cause: ");
		if (g.g[0].count > 1)
			sb_addf(&label, "%zu × ", g.g[0].count);
		sb_addf(&label, "%s, ", tp->causes[g.g[0].first].label);
		add_dur(&label, g.g[0].self, tp->o.units);
		sb_adds(&label, " (");
		add_pct(&label, g.g[0].self, total);
		sb_addc(&label, ')');
	}
	cause_groups_free(&g);
	unsigned char *shown = xmalloc(d.len + 1);
	hidden = dot_shown(tp, &d, total, shown);
	if (hidden)	/* in the title: a note node would widen the picture */
		sb_addf(&label, "\n%zu nodes under %g%% of the delay left out (--min-share)", hidden,
			tp->o.min_share);
	dot_cluster_begin(b, id.s, label.s);
	for (size_t i = 0; i < d.len; i++) {
		const dnode *x = &d.n[i];

		if (!shown[i])
			continue;
		sb_clear(&id);
		sb_addf(&id, "t%llu_%zu", (unsigned long long)w->serial, i);
		sb_clear(&label);
		if (x->count > 1)
			sb_addf(&label, "%zu × ", x->count);
		sb_addf(&label, "%s\ndelay ", x->label);
		add_dur(&label, x->delay, tp->o.units);
		dot_share(&label, x->delay, total);
		sb_adds(&label, ", self ");
		add_dur(&label, x->self, tp->o.units);
		sb_clear(&attrs);
		sb_adds(&attrs, role_attrs(x->role) ? role_attrs(x->role) : "");
		if (x->span >= 0 && x->count <= 1 && x->role != ROLE_TRANSIT &&
		    x->role != ROLE_UNEXPLAINED)	/* one span's node */
			dot_mark_failure(&label, &attrs, &x->w->t, x->span);
		dot_node(b, id.s, label.s, attrs.len ? attrs.s : NULL);
		if (x->parent >= 0) {	/* the wider, the more delay it carries */
			double share = total > 0 ? (double)x->delay / (double)total : 0;

			sb_clear(&pid);
			sb_addf(&pid, "t%llu_%d", (unsigned long long)w->serial, x->parent);
			sb_clear(&attrs);
			sb_addf(&attrs, "penwidth=%.1f%s", 1.0 + 5.0 * share, x->seq_edge ? ", style=dashed" : "");
			dot_edge(b, pid.s, id.s, NULL, attrs.s);
		}
	}
	dot_cluster_end(b);
	free(shown);
	sb_free(&id);
	sb_free(&label);
	sb_free(&pid);
	sb_free(&attrs);
	free(d.n);
}
