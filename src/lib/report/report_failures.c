/* report_failures.c - tr-report's count of failed spans (tr_span_error,
 * the one rule of tr-format(5)): per service, per (service, operation) and
 * per message there, each with a trace to look at. */
#include "report_impl.h"

#include <stdlib.h>
#include <string.h>

/* The row of key (its parts NUL-separated) in x, made on first sight. */
static fail_row *
row_of(report *r, fail_table *x, const strbuf *key, const tr_trace *t)
{
	int added;
	strmap_slot *slot = strmap_intern(&x->map, &r->mem, key->s, key->len, &added);

	if (added) {
		const char *k = slot->key, *end = slot->key + key->len;
		const char *op = k + strlen(k) + 1;

		GROW(x->v, x->cap, x->n + 1);
		x->v[x->n++] = (fail_row){k, op < end ? op : NULL,
					  op < end && op + strlen(op) + 1 < end ? op + strlen(op) + 1 : NULL,
					  NULL, 0, 0};
	}
	fail_row *row = &x->v[slot->val];
	if (t && !row->example)
		row->example = arena_strndup(&r->mem, t->trace_id, strlen(t->trace_id));
	return row;
}

/* key = service [NUL operation [NUL message]]. */
static void
set_key(strbuf *key, const tr_span *s, int parts, const strbuf *msg)
{
	sb_clear(key);
	sb_adds(key, s->service);
	if (parts > 1) {
		sb_addc(key, '\0');
		sb_adds(key, s->operation);
	}
	if (parts > 2) {
		sb_addc(key, '\0');
		sb_add(key, msg->s, msg->len);
	}
}

void
report_take_failures(report *r, const tr_trace *t)
{
	strbuf msg = {0};
	tr_failure f;

	r->trace_failed = 0;
	for (size_t i = 0; i < t->nspans; i++) {
		const tr_span *s = &t->spans[i];
		int failed = tr_span_error(t, (int32_t)i, &f);

		set_key(&r->key, s, 1, NULL);
		fail_row *svc = row_of(r, &r->fail_svc, &r->key, failed ? t : NULL);
		set_key(&r->key, s, 2, NULL);
		fail_row *op = row_of(r, &r->fail_op, &r->key, failed ? t : NULL);
		svc->spans++;
		op->spans++;
		if (!failed)
			continue;
		svc->failed++;
		op->failed++;
		r->trace_failed++;
		sb_clear(&msg);
		tr_failure_text(&f, 0, &msg);
		set_key(&r->key, s, 3, &msg);
		row_of(r, &r->fail_msg, &r->key, t)->failed++;
	}
	r->nfailed += r->trace_failed;
	sb_free(&msg);
}

fail_table *
report_fail_table(report *r, int kind)
{
	return kind == 's' ? &r->fail_svc : kind == 'o' ? &r->fail_op : kind == 'm' ? &r->fail_msg :
	       NULL;
}

void
report_fail_merge(report *r, int kind, const char *const part[3], size_t spans, size_t failed,
		  const char *example)
{
	int parts = kind == 's' ? 1 : kind == 'o' ? 2 : 3;
	fail_row *row;

	sb_clear(&r->key);
	for (int i = 0; i < parts; i++) {
		if (i)
			sb_addc(&r->key, '\0');
		sb_adds(&r->key, part[i]);
	}
	row = row_of(r, report_fail_table(r, kind), &r->key, NULL);
	row->spans += spans;
	row->failed += failed;
	if (!row->example && *example)
		row->example = arena_strndup(&r->mem, example, strlen(example));
}

void
report_take_baseline_failures(report *r, const tr_trace *t)
{
	for (size_t i = 0; i < t->nspans; i++) {
		int failed = tr_span_error(t, (int32_t)i, NULL);

		set_key(&r->key, &t->spans[i], 1, NULL);
		fail_row *svc = row_of(r, &r->base_svc, &r->key, failed ? t : NULL);
		svc->spans++;
		svc->failed += (size_t)failed;
		r->base_spans++;
		r->base_failed += (size_t)failed;
	}
}

static double
rate(const fail_row *row)
{
	return row && row->spans ? 100.0 * (double)row->failed / (double)row->spans : -1;
}

static double
change(const fail_change *c)
{
	double d = (c->after < 0 ? 0 : c->after) - (c->before < 0 ? 0 : c->before);

	return d < 0 ? -d : d;
}

static int
change_cmp(const void *pa, const void *pb)
{
	const fail_change *a = pa, *b = pb;

	if (change(a) != change(b))
		return change(a) > change(b) ? -1 : 1;
	return strcmp(a->service, b->service);
}

/* The row of service name in x, or NULL. */
static const fail_row *
find_row(const fail_table *x, const char *name)
{
	strmap_slot *slot = strmap_get(&x->map, name, strlen(name));

	return slot ? &x->v[slot->val] : NULL;
}

size_t
report_failure_changes(report *r, fail_change **rows)
{
	size_t n = 0;
	fail_change *v = xmalloc((r->fail_svc.n + r->base_svc.n + 1) * sizeof *v);

	for (size_t i = 0; i < r->fail_svc.n; i++) {
		const fail_row *a = &r->fail_svc.v[i];

		v[n++] = (fail_change){a->service, rate(find_row(&r->base_svc, a->service)), rate(a)};
	}
	for (size_t i = 0; i < r->base_svc.n; i++)
		if (!find_row(&r->fail_svc, r->base_svc.v[i].service))
			v[n++] = (fail_change){r->base_svc.v[i].service, rate(&r->base_svc.v[i]), -1};
	qsort(v, n, sizeof *v, change_cmp);
	*rows = v;
	return n;
}

const fail_row *
report_fail_service(const report *r, const char *service)
{
	return find_row(&r->fail_svc, service);
}

const fail_row *
report_fail_op(report *r, const char *service, const char *operation)
{
	sb_set_pair(&r->key, service, operation);
	strmap_slot *slot = strmap_get(&r->fail_op.map, r->key.s, r->key.len);

	return slot ? &r->fail_op.v[slot->val] : NULL;
}

void
report_failures_free(report *r)
{
	fail_table *x[] = {&r->fail_svc, &r->fail_op, &r->fail_msg, &r->base_svc};

	for (size_t i = 0; i < 4; i++) {
		strmap_free(&x[i]->map);
		free(x[i]->v);
	}
}
