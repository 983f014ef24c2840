/* cp_whatif.c - what if the matching spans' own work took F times as long,
 * or D less?
 *
 * Re-lays the sanitised tree bottom up (explicit order, no recursion). A
 * child starts after the latest new end of the siblings that had ended
 * before it started (it may have waited for any of them: a join waits for
 * all its inputs), plus the gap it left after the last of them; with none,
 * after its parent's start plus the gap to it. A parent ends after its last
 * child plus its original trailing self time. For a matching span every
 * stretch of its own time (the gaps before its children, its tail, or its
 * whole duration when it has no children) is scaled, rounded to the µs;
 * minus=D scales them by the factor that takes D off their sum.
 * Time a child waited in a queue before it started (queue.wait_us, an
 * enqueue log) and the time a blocking receive waits are not the span's
 * work: they are never scaled. With tr-infer's happens-before edges bound
 * to the trace (cp_trace_run_model), a child the model names waits for its
 * model predecessors only (the latest of their new ends), not for every
 * sibling that had ended before it started. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cp/cp.h"
#include "infer/hb.h"
#include "core/table.h"
#include "core/json.h"
#include "core/partial.h"

#include "cp/whatif_impl.h"

cp_whatif *
cp_whatif_new(int format)
{
	cp_whatif *w = xcalloc(1, sizeof *w);

	w->format = format;
	return w;
}

/* The last ":scale=", ":minus=", ":wait=" or final ":remove" of the rule:
 * names may hold colons. */
static const char *
find_action(const char *rule)
{
	const char *at = NULL;

	for (const char *p = strchr(rule, ':'); p; p = strchr(p + 1, ':'))
		if (strncmp(p, ":scale=", 7) == 0 || strncmp(p, ":minus=", 7) == 0 ||
		    strncmp(p, ":wait=", 6) == 0 || strcmp(p, ":remove") == 0)
			at = p;
	return at;
}

/* The counterfactual actions: remove, wait=baseline; 1 when act is one. */
static int
counter_action(whatif_rule *r, const char *act, char *err, size_t errsize)
{
	if (strcmp(act, ":remove") == 0)
		r->kind = WR_REMOVE;
	else if (strncmp(act, ":wait=", 6) != 0)
		return 0;
	else if (strcmp(act + 6, "baseline") == 0)
		r->kind = WR_WAIT;
	else {
		snprintf(err, errsize, "wait: only 'baseline' is known: '%s'", act + 6);
		return -1;
	}
	return 1;
}

/* trace=ID:remove */
static int
add_trace_rule(cp_whatif *w, const char *text, const char *act, char *err, size_t errsize)
{
	whatif_rule r = {0};

	if (!act || strcmp(act, ":remove") != 0 || act == text + 6) {
		snprintf(err, errsize, "expected 'trace=ID:remove', got '%s'", text);
		return -1;
	}
	r.text = xstrdup(text);
	r.kind = WR_REMOVE;
	r.minus = -1;
	r.trace_id = xstrdup(text + 6);
	r.trace_id[act - text - 6] = '\0';
	r.service = xstrdup("");
	GROW(w->rule, w->caprules, w->nrules + 1);
	w->rule[w->nrules++] = r;
	w->nunmatched++;
	w->counter = 1;
	return 0;
}

int
cp_whatif_add_rule(cp_whatif *w, const char *text, char *err, size_t errsize)
{
	const char *act = find_action(text);
	whatif_rule r = {0};
	char *end;
	int counter;

	if (strncmp(text, "trace=", 6) == 0)
		return add_trace_rule(w, text, act, err, errsize);
	if (strncmp(text, "service=", 8) != 0 || !act || act == text + 8) {
		snprintf(err, errsize, "expected 'service=X[,operation=Y]:scale=F' or ':minus=D', got '%s'",
			 text);
		return -1;
	}
	r.minus = -1;
	if ((counter = counter_action(&r, act, err, errsize)) < 0)
		return -1;
	w->counter |= counter;
	if (counter) {
		/* remove, wait=baseline: no number */
	} else if (act[1] == 's') {
		r.scale = strtod(act + 7, &end);
		if (end == act + 7 || *end || !isfinite(r.scale) || r.scale < 0 || r.scale > 1e6) {
			snprintf(err, errsize, "scale: not a number from 0 to 1e6: '%s'", act + 7);
			return -1;
		}
	} else if (parse_duration(act + 7, &r.minus) < 0) {
		snprintf(err, errsize, "minus: not a duration >= 0 (50ms, 1.5s, 200us): '%s'", act + 7);
		return -1;
	}
	r.text = xstrdup(text);
	r.service = xstrdup(text + 8);
	r.service[act - text - 8] = '\0';
	if ((end = strstr(r.service, ",operation="))) {
		*end = '\0';
		r.operation = xstrdup(end + 11);
	}
	GROW(w->rule, w->caprules, w->nrules + 1);
	w->rule[w->nrules++] = r;
	w->nunmatched++;
	return 0;
}

void
cp_whatif_free(cp_whatif *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->nrules; i++) {
		free(w->rule[i].text);
		free(w->rule[i].service);
		free(w->rule[i].operation);
		free(w->rule[i].trace_id);
	}
	for (size_t i = 0; i < w->nkept; i++) {
		tr_trace_free(w->kept[i].t);
		free(w->kept[i].t);
	}
	free(w->kept);
	free(w->base);
	strmap_free(&w->base_ids);
	sb_free(&w->base_key);
	free(w->rule);
	free(w->dur);
	free(w->rel_end);
	free(w->applied);
	free(w->qwait);
	free(w->byfirst);
	tr_heap_free(&w->heap);
	free(w->lat);
	free(w->sorted);
	sb_free(&w->made_for);
	strmap_free(&w->services);
	strmap_free(&w->operations);
	arena_free(&w->mem);
	free(w);
}

int
cpw_rule_matches(const whatif_rule *r, const tr_trace *t, const tr_span *s)
{
	if (r->trace_id)
		return strcmp(t->trace_id, r->trace_id) == 0;
	return strcmp(s->service, r->service) == 0 &&
	       (!r->operation || strcmp(s->operation, r->operation) == 0);
}

/* The first rule that matches s, or NULL. While a later rule has matched
 * nothing, it learns that an earlier one took s (for its message). */
whatif_rule *
cpw_rule_for(cp_whatif *w, const tr_trace *t, const tr_span *s)
{
	whatif_rule *first = NULL;

	for (size_t i = 0; i < w->nrules; i++) {
		whatif_rule *r = &w->rule[i];

		if (!cpw_rule_matches(r, t, s))
			continue;
		if (!first)
			first = r;
		else if (!r->matched)
			r->shadowed++;
		if (!w->nunmatched)
			break;
	}
	return first;
}

/* While a rule has matched nothing: the spans it matches that the analysis
 * left out (a consumer of a producer, no time, outside its parent). */
static void
note_outside(cp_whatif *w, const tr_trace *t, const cp_trace *c)
{
	for (size_t i = 0; i < t->nspans && w->nunmatched; i++)
		if (c->state[i] == CP_OFF)
			for (size_t k = 0; k < w->nrules; k++)
				if (!w->rule[k].matched && cpw_rule_matches(&w->rule[k], t, &t->spans[i]))
					w->rule[k].outside++;
}

static void
remember(cp_whatif *w, strmap *m, const char *name)
{
	int added;
	strmap_slot *slot = strmap_put(m, name, strlen(name), &added);

	if (added)
		slot->key = arena_strndup(&w->mem, name, strlen(name));
}

static int64_t
scaled(int64_t v, double f)
{
	return f == 1.0 ? v : (int64_t)llround((double)v * f);
}

/* A child with its keys, so that qsort needs no context; from is the
 * original end of the last sibling it followed (or its parent's start). */
typedef struct by_start {
	int64_t start, end, from;
	int32_t span;
} by_start;

static int
by_start_cmp(const void *pa, const void *pb)
{
	const by_start *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	return (a->span > b->span) - (a->span < b->span);
}

/* With a model that names kids[i]: the latest end of its model
 * predecessors among kids[0..i) (they started before it), the original
 * one or, with rel, the new one; none: the parent's start (0 with rel). */
static int64_t
model_from(const cp_whatif *w, const cp_trace *c, int32_t s, const by_start *kids, uint32_t i,
	   int rel)
{
	int64_t from = rel ? 0 : c->start[s];

	for (uint32_t j = 0; j < i; j++) {
		int32_t x = kids[j].span;
		int64_t e = rel ? w->rel_end[x] : c->end[x];

		if (e > from && hb_before(c->hb, x, kids[i].span))
			from = e;
	}
	return from;
}

/* s's children by start, each with the end of the last sibling that had
 * ended before it started (with a model that names it: of its model
 * predecessors). */
static void
order_kids(cp_whatif *w, const cp_trace *c, int32_t s, by_start *kids)
{
	uint32_t off = c->koff[s], n = c->kn[s];
	int64_t last_end = 0;
	int anchored = 0;

	for (uint32_t i = 0; i < n; i++) {
		int32_t k = c->kids[off + i].span;

		kids[i] = (by_start){c->start[k], c->end[k], 0, k};
	}
	qsort(kids, n, sizeof *kids, by_start_cmp);
	w->heap.n = 0;
	for (uint32_t i = 0; i < n; i++) {
		int32_t k = kids[i].span;

		while (w->heap.n && w->heap.h[0].key <= kids[i].start) {
			int32_t x = (int32_t)tr_heap_pop(&w->heap).val;

			if (!anchored || c->end[x] > last_end)
				last_end = c->end[x];
			anchored = 1;
		}
		kids[i].from = anchored ? last_end : c->start[s];
		if (c->hb && hb_known(c->hb, k))
			kids[i].from = model_from(w, c, s, kids, i, 0);
		tr_heap_push(&w->heap, c->end[k], k);
	}
}

/* The queue wait that lies in the gap before a child: not its parent's work. */
static int64_t
queued(const cp_whatif *w, const by_start *k)
{
	int64_t gap = k->start - k->from, q = w->qwait[k->span];

	return q < gap ? q : gap;
}

/* How much earlier the re-laid resources start child k (< 0: later): never
 * more than the queue wait it can lose, nor the gap before it. */
static int64_t
cut(const cp_whatif *w, const by_start *k)
{
	int64_t c = w->cut[k->span], gap = k->start - k->from;

	if (c <= 0)
		return c;
	gap = w->qcap[k->span] < gap ? w->qcap[k->span] : gap;
	return c < gap ? c : gap;
}

/* The factor of a span's own time (own µs of it, queue waits left out). */
static double
factor(const whatif_rule *r, int64_t own)
{
	if (!r || r->kind == WR_WAIT)
		return 1.0;
	if (r->kind == WR_REMOVE)
		return 0.0;
	if (r->minus < 0)
		return r->scale;
	if (own <= 0)
		return 1.0;
	return own > r->minus ? (double)(own - r->minus) / (double)own : 0.0;
}

/* New duration of span s, its children done already. */
static int64_t
relay(cp_whatif *w, const tr_trace *t, const cp_trace *c, int32_t s, const whatif_rule *r)
{
	uint32_t n = c->kn[s];
	int64_t dur = c->end[s] - c->start[s], own, base = 0, last = INT64_MIN;
	by_start *kids = w->byfirst;
	double f;

	if (tr_span_is_blocking_receive(&t->spans[s]))
		r = NULL;	/* its own time is waiting for the message */
	if (!n)
		return scaled(dur, factor(r, dur));
	order_kids(w, c, s, kids);
	/* own: the stretches scaled below (its tail, the gaps before its
	 * children less their queue waits), so that minus=D takes exactly D */
	own = c->end[s] - c->kids[c->koff[s]].end;
	for (uint32_t i = 0; i < n; i++)
		own += kids[i].start - kids[i].from - queued(w, &kids[i]);
	f = factor(r, own);
	w->heap.n = 0;
	for (uint32_t i = 0; i < n; i++) {
		int32_t k = kids[i].span;
		int64_t q = queued(w, &kids[i]);

		while (w->heap.n && w->heap.h[0].key <= kids[i].start) {
			int32_t x = (int32_t)tr_heap_pop(&w->heap).val;

			if (w->rel_end[x] > base)
				base = w->rel_end[x];	/* a join waits for all */
		}
		int64_t after = c->hb && hb_known(c->hb, k) ? model_from(w, c, s, kids, i, 1) : base;

		w->rel_end[k] = after + scaled(kids[i].start - kids[i].from - q, f) + q + w->dur[k];
		if (w->cut) {
			w->applied[k] = cut(w, &kids[i]);
			w->rel_end[k] -= w->applied[k];
		}
		if (w->rel_end[k] > last)
			last = w->rel_end[k];
		tr_heap_push(&w->heap, c->end[k], k);
	}
	/* kids come latest end first */
	return last + scaled(c->end[s] - c->kids[c->koff[s]].end, f);
}

void
cpw_reserve(cp_whatif *w, size_t n)
{
	if (n <= w->cap)
		return;
	w->cap = n;
	w->dur = xrealloc(w->dur, n * sizeof *w->dur);
	w->rel_end = xrealloc(w->rel_end, n * sizeof *w->rel_end);
	w->applied = xrealloc(w->applied, n * sizeof *w->applied);
	w->qwait = xrealloc(w->qwait, n * sizeof *w->qwait);
	w->byfirst = xrealloc(w->byfirst, n * sizeof *w->byfirst);
}

/* count: the rules' matches are counted (once per trace). */
size_t
cpw_relay_trace(cp_whatif *w, const tr_trace *t, const cp_trace *c, int count)
{
	size_t nmatched = 0;

	cpw_reserve(w, t->nspans ? t->nspans : 1);
	tr_trace_queue_waits(t, w->qwait);
	if (count)
		note_outside(w, t, c);
	for (size_t i = 0; i < c->norder && w->nunmatched && count; i++) {	/* the spans a rule can match */
		remember(w, &w->services, t->spans[c->order[i]].service);
		remember(w, &w->operations, t->spans[c->order[i]].operation);
	}
	for (size_t i = c->norder; i-- > 0;) {
		int32_t s = c->order[i];
		whatif_rule *r = cpw_rule_for(w, t, &t->spans[s]);

		if (r && count) {
			w->nunmatched -= !r->matched++;
			nmatched++;
		}
		w->dur[s] = relay(w, t, c, s, r);
	}
	return nmatched;
}

/* After cpw_relay_trace: how much later (< 0: earlier) each span of the
 * re-laid tree became ready than it started as analysed, its queue's cut
 * given back (0 outside the tree, and for its roots). Parents come first
 * in c->order, so one pass down takes each child from its parent's new
 * start; the cuts are added after, since a child starts from its
 * parent's start, not its ready time. */
void
cpw_ready_shifts(const cp_whatif *w, const cp_trace *c, int64_t *moved)
{
	for (size_t i = 0; i < c->nspans; i++)
		moved[i] = 0;
	for (size_t i = 0; i < c->norder; i++) {
		int32_t s = c->order[i];

		for (uint32_t j = 0; j < c->kn[s]; j++) {
			int32_t k = c->kids[c->koff[s] + j].span;

			moved[k] = moved[s] + (w->rel_end[k] - w->dur[k]) - (c->start[k] - c->start[s]);
		}
	}
	for (size_t i = 0; i < c->norder && w->cut; i++)
		for (uint32_t j = 0; j < c->kn[c->order[i]]; j++)
			moved[c->kids[c->koff[c->order[i]] + j].span] +=
				w->applied[c->kids[c->koff[c->order[i]] + j].span];
}

/* The trace's latency from its analysed roots: the earliest start to the
 * latest end, each root ending after its own (original or new) duration. */
int64_t
cpw_latency(const cp_whatif *w, const tr_trace *t, const cp_trace *c, int predicted)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;

	for (size_t i = 0; i < t->nroots; i++) {
		int32_t r = t->roots[i];
		int64_t end;

		if (c->state[r] == CP_OFF)
			continue;
		end = c->start[r] + (predicted ? w->dur[r] : c->end[r] - c->start[r]);
		lo = c->start[r] < lo ? c->start[r] : lo;
		hi = end > hi ? end : hi;
	}
	return lo == INT64_MAX ? 0 : hi - lo;
}

int64_t
cp_whatif_predict(cp_whatif *w, const tr_trace *t, const cp_trace *c)
{
	if (c->root < 0)
		return 0;
	cpw_relay_trace(w, t, c, 1);
	return cpw_latency(w, t, c, 1);
}

static void
report_unmatched(const cp_whatif *w, const whatif_rule *r)
{
	int known = r->operation && strmap_get(&w->services, r->service, strlen(r->service)) != NULL;
	const strmap *m = known ? &w->operations : &w->services;
	const char *name = known ? r->operation : r->service;
	const char *near = strmap_closest(m, name);

	if (r->trace_id && r->near)
		tr_warn("--whatif '%s': no trace has id \"%s\" (did you mean \"%s\"?)", r->text,
			r->trace_id, r->near);
	else if (r->trace_id)
		tr_warn("--whatif '%s': no trace has this id", r->text);
	else if (r->shadowed)
		tr_warn("--whatif '%s': an earlier rule takes every span it matches (%zu)", r->text,
			r->shadowed);
	else if (w->merged && !r->outside)
		tr_warn("--whatif '%s': no analysed span of the partials matches it", r->text);
	else if (r->outside)
		tr_warn("--whatif '%s': no analysed span has service \"%s\"%s%s: its %zu spans lie "
			"outside the analysed trees (consumers of a producer, spans without time, "
			"children wholly outside their parent)", r->text, r->service,
			r->operation ? " and operation " : "", r->operation ? r->operation : "",
			r->outside);
	else if (known)
		tr_warn("--whatif '%s': no analysed span of service \"%s\" has operation \"%s\"%s%s%s",
			r->text, r->service, r->operation, near ? " (did you mean \"" : "",
			near ? near : "", near ? "\"?)" : "");
	else
		tr_warn("--whatif '%s': no analysed span has service \"%s\"%s%s%s", r->text, r->service,
			near ? " (did you mean \"" : "", near ? near : "", near ? "\"?)" : "");
}

size_t
cp_whatif_unmatched(const cp_whatif *w, int verbose)
{
	size_t bad = 0;

	for (size_t i = 0; i < w->nrules; i++) {
		const whatif_rule *r = &w->rule[i];

		if (verbose)
			tr_warn("--whatif '%s': %zu spans", r->text, r->matched);
		if (!r->matched) {
			report_unmatched(w, r);
			bad++;
		}
	}
	return bad;
}

void
cp_whatif_set_units(cp_whatif *w, int units)
{
	w->units = units;
}

/* A column's name, in the units asked for when it holds durations. */
static const char *
col_name(const cp_whatif *w, const char *name, char *buf, size_t size)
{
	table_dur_col(buf, size, name, w->units);
	return buf;
}

/* A value of column name: durations (NAME_us) in the units asked for. */
static void
add_value(const cp_whatif *w, strbuf *b, const char *name, int64_t v)
{
	size_t n = strlen(name);
	char text[40];

	if (n < 3 || strcmp(name + n - 3, "_us") != 0) {
		sb_addi(b, v);
		return;
	}
	table_duration(text, sizeof text, v, w->units);
	sb_adds(b, text);
}

static void
row(cp_whatif *w, strbuf *b, const char *key, const int64_t v[], const char *const names[], size_t nv)
{
	char col[40];

	if (w->format == CP_JSON) {
		/* Strings encoded by jansson; the durations keep the text of
		 * the TSV table (1.5 ms, 2 s), which jansson's reals do not
		 * write, so the row is assembled here. */
		sb_adds(b, "{");
		tr_json_string(b, names[0], strlen(names[0]));
		sb_adds(b, ": ");
		tr_json_string(b, key, strlen(key));
		for (size_t i = 0; i < nv; i++) {
			const char *name = col_name(w, names[i + 1], col, sizeof col);

			sb_adds(b, ", ");
			tr_json_string(b, name, strlen(name));
			sb_adds(b, ": ");
			add_value(w, b, names[i + 1], v[i]);
		}
		sb_adds(b, "}");
		return;
	}
	char sep = w->format == CP_CSV ? ',' : '\t';

	if (w->format == CP_CSV)
		table_csv_field(b, key, strlen(key));
	else
		tr_escapes(b, key, 0);
	for (size_t i = 0; i < nv; i++) {
		sb_addc(b, sep);
		add_value(w, b, names[i + 1], v[i]);
	}
	sb_addc(b, '\n');
}

static const char *const trace_cols[] = {"trace_id", "original_us", "predicted_us", "change_us", "matched"};
static const char *const quant_cols[] = {"quantile", "original_us", "predicted_us"};

static void
header(cp_whatif *w, strbuf *b, const char *const names[], size_t n)
{
	char col[40];

	for (size_t i = 0; i < n; i++) {
		if (i)
			sb_addc(b, w->format == CP_CSV ? ',' : '\t');
		sb_adds(b, col_name(w, names[i], col, sizeof col));
	}
	sb_addc(b, '\n');
}

/* One trace's latencies: its row, or with --partial its T record. */
void
cpw_add_latency(cp_whatif *w, const char *id, int64_t orig, int64_t pred, int64_t nmatched,
	    strbuf *out)
{
	int64_t v[4] = {orig, pred, pred - orig, nmatched};

	if (w->partial) {
		if (!w->n)
			tr_partial_header(out, "cp", w->made_for.s);
		sb_adds(out, "T\t");
		tr_escapes(out, id, 0);
		sb_addf(out, "\t%lld\t%lld\t%lld\n", (long long)orig, (long long)pred, (long long)nmatched);
	} else {
		if (!w->n) {
			if (w->format == CP_JSON)
				sb_adds(out, "{\"traces\": [\n  ");
			else
				header(w, out, trace_cols, 5);
		} else if (w->format == CP_JSON)
			sb_adds(out, ",\n  ");
		row(w, out, id, v, trace_cols, 4);
	}
	GROW(w->lat, w->capn, w->n + 1);
	w->lat[w->n++] = (struct latency){orig, pred};
}

void
cp_whatif_add(cp_whatif *w, const tr_trace *t, const cp_trace *c, strbuf *out)
{
	size_t nmatched = cpw_relay_trace(w, t, c, 1);

	cpw_add_latency(w, t->trace_id, cpw_latency(w, t, c, 0), cpw_latency(w, t, c, 1), (int64_t)nmatched, out);
}

/* --partial: after the traces' T records, an R record per rule with what
 * it met (its messages at the merge need them), and the end mark. */
static void
write_partial_end(cp_whatif *w, strbuf *out)
{
	if (!w->n)
		tr_partial_header(out, "cp", w->made_for.s);
	for (size_t i = 0; i < w->nrules; i++)
		sb_addf(out, "R\t%zu\t%zu\t%zu\t%zu\n", i, w->rule[i].matched, w->rule[i].shadowed,
			w->rule[i].outside);
	tr_partial_end(out, w->n + w->nrules);
}

/* The quantiles after the rows; json's list of them left open. */
void
cpw_table_end(cp_whatif *w, strbuf *out)
{
	static const int ps[] = {50, 95, 99};
	static const char *const pname[] = {"p50", "p95", "p99"};

	if (w->format == CP_JSON)
		sb_adds(out, w->n ? "\n], \"quantiles\": [\n  " : "{\"traces\": [], \"quantiles\": [\n  ");
	else {
		if (!w->n)
			header(w, out, trace_cols, 5);
		sb_addc(out, '\n');
		header(w, out, quant_cols, 3);
	}
	int64_t *orig = w->sorted = xmalloc((w->n ? 2 * w->n : 1) * sizeof *w->sorted);
	int64_t *pred = orig + w->n;

	for (size_t i = 0; i < w->n; i++) {
		orig[i] = w->lat[i].orig;
		pred[i] = w->lat[i].pred;
	}
	qsort(orig, w->n, sizeof *orig, cmp_i64);
	qsort(pred, w->n, sizeof *pred, cmp_i64);
	for (int i = 0; i < 3; i++) {
		int64_t v[2] = {cp_percentile(orig, w->n, ps[i]), cp_percentile(pred, w->n, ps[i])};

		if (i && w->format == CP_JSON)
			sb_adds(out, ",\n  ");
		row(w, out, pname[i], v, quant_cols, 2);
	}
	if (w->format == CP_JSON)
		sb_adds(out, "\n]");
}

void
cp_whatif_finish(cp_whatif *w, strbuf *out)
{
	if (w->partial) {
		write_partial_end(w, out);
		return;
	}
	cpw_table_end(w, out);
	if (w->format == CP_JSON)
		sb_adds(out, "}\n");
}

/* --- --partial and --merge ---
 *
 * A partial holds each trace's original and predicted latency and the
 * spans the rules matched (T records, in the order read), then each rule's
 * counts (R records); a merge writes the rows in the order of its partials
 * and the quantiles of all of them: the output of one pass over the
 * shards one after the other. */

const char *
cp_whatif_made_for(cp_whatif *w, double allowance)
{
	strbuf rules = {0};

	for (size_t i = 0; i < w->nrules; i++) {
		if (i)
			sb_addc(&rules, '\t');
		sb_adds(&rules, w->rule[i].text);
	}
	sb_clear(&w->made_for);
	sb_addf(&w->made_for, "whatif overlap-allowance=%.17g rules=", allowance);
	tr_escapes(&w->made_for, rules.s ? rules.s : "", 0);
	sb_free(&rules);
	return w->made_for.s;
}

void
cp_whatif_set_partial(cp_whatif *w, int partial, double allowance)
{
	w->partial = partial;
	w->allowance = allowance;
	cp_whatif_made_for(w, allowance);
}

/* A decimal count filling a field; -1 when it is not one. */
static int
field_i64(const tr_field *f, int64_t min, int64_t *v)
{
	char num[24], *end;

	if (!f->len || f->len >= sizeof num)
		return -1;
	memcpy(num, f->s, f->len);
	num[f->len] = '\0';
	errno = 0;
	long long x = strtoll(num, &end, 10);
	if (*end || errno || x < min || (num[0] != '-' && (num[0] < '0' || num[0] > '9')))
		return -1;
	*v = x;
	return 0;
}

static int
merge_rule(cp_whatif *w, const tr_field *f, char *err, size_t errlen)
{
	int64_t i, m, sh, out;

	if (field_i64(&f[1], 0, &i) < 0 || (size_t)i >= w->nrules || field_i64(&f[2], 0, &m) < 0 ||
	    field_i64(&f[3], 0, &sh) < 0 || field_i64(&f[4], 0, &out) < 0) {
		snprintf(err, errlen, "bad R record (want R, a rule's index and three counts)");
		return -1;
	}
	whatif_rule *r = &w->rule[i];

	w->nunmatched -= !r->matched && m;
	r->matched += (size_t)m;
	r->shadowed += (size_t)sh;
	r->outside += (size_t)out;
	return 0;
}

int
cp_whatif_merge_line(cp_whatif *w, char *line, size_t len, strbuf *out, char *err, size_t errlen)
{
	tr_field f[6];
	size_t n = tr_split(line, len, f, 6);
	int64_t orig, pred, nmatched;

	w->merged = 1;
	if (n == 5 && f[0].len == 1 && line[0] == 'R')
		return merge_rule(w, f, err, errlen);
	if (n != 5 || f[0].len != 1 || line[0] != 'T' || field_i64(&f[2], 0, &orig) < 0 ||
	    field_i64(&f[3], 0, &pred) < 0 || field_i64(&f[4], 0, &nmatched) < 0) {
		snprintf(err, errlen, "not a tr-cp --whatif partial record (want T, a trace id and "
			 "three counts, or R)");
		return -1;
	}
	char *id = (char *)f[1].s;

	id[tr_unescape(id, f[1].s, f[1].len)] = '\0';
	cpw_add_latency(w, id, orig, pred, nmatched, out);
	return 0;
}
