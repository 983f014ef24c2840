/* baseline.c - an incident's critical-path time per request against a
 * baseline's. Every trace is one request; a request that never reached a
 * group spent 0 µs in it. Requests are not independent (a queue makes
 * neighbours slow together), so each mean's standard error comes from
 * batch means: the traces, in input order, are cut into 32 to 64 batches
 * of equal size (the batches double in size as traces come, merging
 * pairs), and the spread of the batches' means gives it. The test asks
 * whether the incident's mean lies beyond what the baseline's spread
 * allows: z = (after - before) / sqrt(v/n_before + v/n_after), v the
 * baseline's variance per trace from its batches (under "nothing changed"
 * both runs vary as the baseline does); a difference
 * counts when |z| >= BASELINE_MIN_Z (about p < 1e-4 two-sided, which keeps
 * a few dozen groups compared at once from naming one by chance) and it is
 * at least BASELINE_MIN_SHARE of the baseline's mean latency (with many
 * traces, tiny shifts are "significant" and not worth a postmortem).
 * A recorded queue wait (tr_trace_queue_waits) of a critical span whose
 * parent is critical is time the request waited for that span's service,
 * spent in the parent's gap before it: it moves from the parent's group
 * to the span's, as far as the parent's own critical time goes. And a
 * client span whose only child is its call's server span (is_rpc) spends
 * its critical time waiting for that server: the request's and the reply's
 * transit and queueing before the server started, recorded or not (real
 * instrumentation seldom records it), and whatever skew between the two
 * hosts' clocks cut off the server's span (the analysis clamps a child to
 * its parent, or leaves it off when skew puts it wholly outside); that
 * time counts for the server's group. Transit that does not change cancels
 * in the difference; queueing that grows (a connection held by other work)
 * shows in the service waited for; skew, which differs from run to run,
 * does not move time between services. */
#include "cp/baseline.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "core/format.h"
#include "core/kinds.h"
#include "core/partial.h"
#include "core/table.h"

#define MAX_BATCHES 64

long
cp_read_traces(const char *path, cp_trace *c, int keep_going, size_t max_spans,
	       void (*fn)(void *ctx, const tr_trace *t, const cp_trace *c), void *ctx)
{
	return cp_read_traces_limited(path, c, keep_going, max_spans, 0, fn, ctx);
}

typedef struct each_cp {
	cp_trace *c;
	void (*fn)(void *ctx, const tr_trace *t, const cp_trace *c);
	void *ctx;
} each_cp;

static void
run_cp(void *ctx, tr_trace *t)
{
	each_cp *e = ctx;

	if (cp_trace_run(e->c, t) == 0)
		e->fn(e->ctx, t, e->c);
}

long
cp_read_traces_limited(const char *path, cp_trace *c, int keep_going, size_t max_spans,
		       size_t max_bytes,
		       void (*fn)(void *ctx, const tr_trace *t, const cp_trace *c), void *ctx)
{
	each_cp e = {c, fn, ctx};

	return tr_each_trace((char **)&path, NULL, 1, keep_going, max_spans, max_bytes, run_cp, &e);
}

int
cp_baseline_check(const char *path, long nread, size_t ntimed)
{
	if (ntimed >= 2)
		return 0;
	tr_warn("%s: --baseline: %zu of %ld traces %s a timed root; a baseline needs at least 2 "
		"to have a spread", path, ntimed, nread, nread == 1 ? "has" : "have");
	return -1;
}

/* The spans of a group's key on each side and those that failed
 * (tr_span_error), over every span, on the critical path or not. */
typedef struct fail_count {
	size_t spans[2], failed[2];
	const char *key;	/* the map's: service, NUL, operation */
} fail_count;

typedef struct group {
	const char *service, *operation;
	double sum[2];			/* µs over every trace; [1]: the baseline */
	double batch[2][MAX_BATCHES];	/* µs over each batch's traces */
	int64_t cur;
	uint64_t seen;
} group;

struct cp_compare {
	int by_operation;
	arena mem;
	strmap map;
	group *g;
	size_t ng, capg;
	size_t *touched;
	size_t ntouched, captouched;
	uint64_t serial;
	size_t ntraces[2];
	size_t nbatches[2], batch_size[2], in_batch[2];	/* full batches; the current's fill */
	double latency[2];		/* summed over the traces */
	cp_diff *rows;
	strbuf buf;
	int64_t *wait, *self;	/* per span of the current trace */
	uint8_t *kind;
	size_t inferred;	/* span kinds inferred */
	size_t capspans;
	strmap fail_map;	/* a group's key -> its fail_count */
	fail_count *fc;
	size_t nfc, capfc;
	/* --partial over shards (the end of this file) */
	char *first[2];		/* each side's first trace counted, escaped */
	int placing;		/* phase 2: batches by place among all the traces */
	int64_t shard[2];	/* phase 2: the shard of each side in at[], -1: none */
	uint64_t pos[2], total[2];	/* phase 2: the next trace's place; all the traces */
	strmap shards;		/* phase 2: side and first trace id -> index in at[] */
	struct shard_at {
		uint64_t offset, count;
	} *at;
	size_t nat, capat;
	/* the merge: the places each partial's traces held (R records), so
	 * that a shard missing and another given twice are told apart even
	 * when their counts of traces are the same */
	struct shard_run {
		int side;
		uint64_t offset, count;
	} *runs;
	size_t nruns, capruns;
};

cp_compare *
cp_compare_new(const char *key)
{
	cp_compare *k = xcalloc(1, sizeof *k);

	k->by_operation = strcmp(key, "operation") == 0;
	return k;
}

void
cp_compare_free(cp_compare *k)
{
	if (!k)
		return;
	strmap_free(&k->map);
	arena_free(&k->mem);
	free(k->g);
	free(k->touched);
	free(k->rows);
	free(k->wait);
	free(k->self);
	free(k->kind);
	strmap_free(&k->fail_map);
	free(k->fc);
	sb_free(&k->buf);
	free(k->first[0]);
	free(k->first[1]);
	strmap_free(&k->shards);
	free(k->at);
	free(k->runs);
	free(k);
}

size_t
cp_compare_inferred(const cp_compare *k)
{
	return k->inferred;
}

size_t
cp_compare_ntraces(const cp_compare *k, int baseline)
{
	return k->ntraces[baseline != 0];
}

static group *
find_group_key(cp_compare *k, const char *service, const char *operation)
{
	size_t op = sb_set_pair(&k->buf, service, k->by_operation ? operation : "");
	int added;

	strmap_slot *slot = strmap_intern(&k->map, &k->mem, k->buf.s, k->buf.len, &added);
	if (added) {
		GROW(k->g, k->capg, k->ng + 1);
		k->g[k->ng++] = (group){.service = slot->key, .operation = slot->key + op};
	}
	return &k->g[slot->val];
}

static group *
find_group(cp_compare *k, const tr_span *s)
{
	return find_group_key(k, s->service, s->operation);
}

static void first_trace(cp_compare *k, const tr_trace *t, int side);

/* The batch the trace counts in: the current one, or in phase 2 over
 * shards the one its place among all the traces puts it in. */
static size_t
batch_of(const cp_compare *k, int side)
{
	uint64_t b;

	if (!k->placing)
		return k->nbatches[side];
	b = k->pos[side] / k->batch_size[side];
	return b < MAX_BATCHES ? (size_t)b : MAX_BATCHES - 1;	/* past the end: a wrong shard, said */
}

/* Count the trace in its batch; when 64 are full, pairs merge into 32. */
static void
next_batch(cp_compare *k, int side)
{
	if (!k->batch_size[side])
		k->batch_size[side] = 1;
	if (++k->in_batch[side] < k->batch_size[side])
		return;
	k->in_batch[side] = 0;
	if (++k->nbatches[side] < MAX_BATCHES)
		return;
	for (size_t i = 0; i < k->ng; i++) {
		double *b = k->g[i].batch[side];

		for (size_t j = 0; j < MAX_BATCHES / 2; j++)
			b[j] = b[2 * j] + b[2 * j + 1];
		memset(b + MAX_BATCHES / 2, 0, MAX_BATCHES / 2 * sizeof *b);
	}
	k->nbatches[side] = MAX_BATCHES / 2;
	k->batch_size[side] *= 2;
}

/* Is s the server side of client span p's call: p's only child, a server,
 * both timed? Kinds are the recorded ones or, where none is recorded,
 * those process boundaries imply (kinds.h). */
static int
is_rpc(const tr_trace *t, const uint8_t *kind, int32_t s, int32_t p)
{
	const tr_span *ss = &t->spans[s], *ps = &t->spans[p];

	if (kind[p] != TR_KIND_CLIENT || (ss->flags & TR_SPAN_FOLLOWS) || !(ss->flags & TR_SPAN_HAS_TIME) ||
	    !(ps->flags & TR_SPAN_HAS_TIME) || ps->first_child != s || ss->next_sibling >= 0)
		return 0;
	return kind[s] == TR_KIND_SERVER;
}

/* The failure counts of a group's key (sb_set_pair's in k->buf). */
static fail_count *
fail_count_of(cp_compare *k, int add)
{
	int added;
	strmap_slot *slot = add ? strmap_intern(&k->fail_map, &k->mem, k->buf.s, k->buf.len, &added)
				: strmap_get(&k->fail_map, k->buf.s, k->buf.len);

	if (!slot)
		return NULL;
	if (add && added) {
		GROW(k->fc, k->capfc, k->nfc + 1);
		k->fc[k->nfc++] = (fail_count){{0, 0}, {0, 0}, slot->key};
	}
	return &k->fc[slot->val];
}

/* Every span of t, failed or not, counted for its group's key: the error
 * rates are over spans, as tr-report's Failures section counts them. */
static void
count_failures(cp_compare *k, const tr_trace *t, int side)
{
	for (size_t i = 0; i < t->nspans; i++) {
		const tr_span *s = &t->spans[i];
		fail_count *f;

		sb_set_pair(&k->buf, s->service, k->by_operation ? s->operation : "");
		f = fail_count_of(k, 1);
		f->spans[side]++;
		f->failed[side] += (size_t)tr_span_error(t, (int32_t)i, NULL);
	}
}

void
cp_compare_add(cp_compare *k, const tr_trace *t, const cp_trace *c, int baseline)
{
	int side = baseline != 0;

	if (c->root < 0)
		return;
	k->serial++;
	k->ntouched = 0;
	if (!k->ntraces[side])
		first_trace(k, t, side);
	k->ntraces[side]++;
	k->latency[side] += (double)c->path_length;
	if (t->nspans > k->capspans) {
		k->capspans = t->nspans;
		k->wait = xrealloc(k->wait, k->capspans * sizeof *k->wait);
		k->self = xrealloc(k->self, k->capspans * sizeof *k->self);
		k->kind = xrealloc(k->kind, k->capspans);
	}
	k->inferred += tr_trace_kinds(t, k->kind);
	count_failures(k, t, side);
	tr_trace_queue_waits(t, k->wait);
	for (size_t i = 0; i < c->npath; i++)
		k->self[c->path[i]] = c->self[c->path[i]];
	for (size_t i = 0; i < c->npath; i++) {	/* parents first */
		int32_t s = c->path[i], p = t->spans[s].parent;
		int64_t w = k->wait[s];

		if (w > 0 && p >= 0 && c->state[p] == CP_PATH) {
			w = w < k->self[p] ? w : k->self[p];
			k->self[p] -= w;
			k->self[s] += w;
		}
	}
	for (size_t i = 0; i < c->npath; i++) {
		int32_t s = c->path[i], only = t->spans[s].first_child;
		group *g;

		/* a client's own time is waiting for its server */
		if (only >= 0 && is_rpc(t, k->kind, only, s))
			s = only;
		g = find_group(k, &t->spans[s]);

		if (g->seen != k->serial) {
			g->seen = k->serial;
			g->cur = 0;
			GROW(k->touched, k->captouched, k->ntouched + 1);
			k->touched[k->ntouched++] = (size_t)(g - k->g);
		}
		g->cur += k->self[c->path[i]];
	}
	size_t b = batch_of(k, side);

	for (size_t i = 0; i < k->ntouched; i++) {
		group *g = &k->g[k->touched[i]];

		g->sum[side] += (double)g->cur;
		g->batch[side][b] += (double)g->cur;
	}
	if (k->placing)
		k->pos[side]++;
	else
		next_batch(k, side);
}

/* Mean per request of one side of g, and its squared standard error from
 * the full batches' means (the traces of a last, partial batch count in
 * the mean only). */
static void
moments(const cp_compare *k, const group *g, int side, double *mean, double *se2)
{
	double n = (double)k->ntraces[side], nb = (double)k->nbatches[side];
	double size = (double)k->batch_size[side], m = 0, ss = 0;

	*mean = n > 0 ? g->sum[side] / n : 0;
	*se2 = 0;
	if (nb < 2)
		return;
	for (size_t j = 0; j < k->nbatches[side]; j++)
		m += g->batch[side][j] / size;
	m /= nb;
	for (size_t j = 0; j < k->nbatches[side]; j++) {
		double d = g->batch[side][j] / size - m;

		ss += d * d;
	}
	*se2 = ss / (nb - 1) / nb;
}

static int
diff_cmp(const void *pa, const void *pb)
{
	const cp_diff *a = pa, *b = pb;
	double da = fabs(a->after - a->before), db = fabs(b->after - b->before);
	int r;

	if (a->significant != b->significant)
		return a->significant ? -1 : 1;
	if (da != db)
		return da > db ? -1 : 1;
	if ((r = strcmp(a->service, b->service)))
		return r;
	return strcmp(a->operation, b->operation);
}

double
cp_rate_z(double after, double n_after, double before, double n_before, int binomial)
{
	double ra = after / n_after, rb = before / n_before, pooled = (after + before) / (n_after + n_before);
	double se = sqrt(pooled * (binomial ? 1 - pooled : 1) * (1 / n_after + 1 / n_before));

	if (se > 0)
		return (ra - rb) / se;
	return ra > rb ? INFINITY : ra < rb ? -INFINITY : 0;
}

/* d's error rates before and after, in percent of its group's spans, and
 * whether they differ: cp_rate_z's binomial test, by BASELINE_MIN_Z and by
 * at least BASELINE_MIN_SHARE (one point) as latency must. */
static void
error_rates(cp_compare *k, cp_diff *d)
{
	sb_set_pair(&k->buf, d->service, d->operation);
	const fail_count *f = fail_count_of(k, 0);

	if (!f)
		return;
	if (f->spans[1])
		d->err_before = 100.0 * (double)f->failed[1] / (double)f->spans[1];
	if (f->spans[0])
		d->err_after = 100.0 * (double)f->failed[0] / (double)f->spans[0];
	if (!f->spans[0] || !f->spans[1])
		return;
	d->err_z = cp_rate_z((double)f->failed[0], (double)f->spans[0], (double)f->failed[1],
			     (double)f->spans[1], 1);
	d->err_significant = fabs(d->err_z) >= BASELINE_MIN_Z &&
			     fabs(d->err_after - d->err_before) >= 100 * BASELINE_MIN_SHARE;
}

size_t
cp_compare_rows(cp_compare *k, const cp_diff **rows)
{
	double nb = (double)k->ntraces[1], na = (double)k->ntraces[0];
	double min_diff = BASELINE_MIN_SHARE * (nb > 0 ? k->latency[1] / nb : 0);

	k->rows = xrealloc(k->rows, (k->ng ? k->ng : 1) * sizeof *k->rows);
	for (size_t i = 0; i < k->ng; i++) {
		const group *g = &k->g[i];
		double mb, vb, ma, va, se, t;

		/* under "nothing changed" both runs vary as the baseline does:
		 * its per-trace variance (batch means' times their size) over
		 * either run's traces */
		moments(k, g, 1, &mb, &vb);
		moments(k, g, 0, &ma, &va);
		vb *= nb;	/* se² times n: the variance of one trace's share */
		se = na > 0 && nb > 0 ? sqrt(vb / nb + vb / na) : 0;
		t = se > 0 ? (ma - mb) / se : ma != mb ? (ma > mb ? INFINITY : -INFINITY) : 0;
		k->rows[i] = (cp_diff){g->service, g->operation, mb, ma, t,
				       na >= 2 && nb >= 2 && fabs(t) >= BASELINE_MIN_Z &&
				       fabs(ma - mb) >= min_diff, -1, -1, 0, 0};
		error_rates(k, &k->rows[i]);
	}
	if (k->ng)
		qsort(k->rows, k->ng, sizeof *k->rows, diff_cmp);
	*rows = k->rows;
	return k->ng;
}

/* A z as written: two decimals, or inf. */
static void
z_text(char *buf, size_t size, double z)
{
	if (isinf(z))
		snprintf(buf, size, z > 0 ? "inf" : "-inf");
	else
		snprintf(buf, size, "%.2f", z);
}

/* The error columns: each rate, "-" for a side without the group's spans,
 * and the test ("-" and no without both sides). */
static void
write_error_cells(table *t, const cp_diff *d)
{
	char buf[40];
	int both = d->err_before >= 0 && d->err_after >= 0;

	for (int side = 0; side < 2; side++) {
		double rate = side ? d->err_after : d->err_before;

		if (rate < 0)
			snprintf(buf, sizeof buf, "-");
		else
			snprintf(buf, sizeof buf, "%.2f", rate);
		table_str(t, buf);
	}
	if (both)
		z_text(buf, sizeof buf, d->err_z);
	table_str(t, both ? buf : "-");
	table_str(t, d->err_significant ? "yes" : "no");
}

void
cp_compare_write(cp_compare *k, strbuf *out, int format, int units)
{
	static const char *const dur_cols[] = {"before_us", "after_us", "diff_us"};
	char names[3][32];
	const char *cols[12];
	size_t nc = 0, n;
	const cp_diff *rows;
	table t;

	cols[nc++] = "service";
	if (k->by_operation)
		cols[nc++] = "operation";
	for (size_t i = 0; i < 3; i++) {
		table_dur_col(names[i], sizeof names[i], dur_cols[i], units);
		cols[nc++] = names[i];
	}
	cols[nc++] = "diff_pct";
	cols[nc++] = "z";
	cols[nc++] = "significant";
	cols[nc++] = "error_pct_before";
	cols[nc++] = "error_pct_after";
	cols[nc++] = "error_z";
	cols[nc++] = "error_significant";
	n = cp_compare_rows(k, &rows);
	table_begin(&t, out, format, units, cols, nc);
	for (size_t i = 0; i < n; i++) {
		const cp_diff *d = &rows[i];
		char tbuf[40];

		table_str(&t, d->service);
		if (k->by_operation)
			table_str(&t, d->operation);
		table_dur(&t, (int64_t)llround(d->before));
		table_dur(&t, (int64_t)llround(d->after));
		table_dur(&t, (int64_t)llround(d->after - d->before));
		if (d->before > 0)
			snprintf(tbuf, sizeof tbuf, "%.1f", 100 * (d->after - d->before) / d->before);
		else
			snprintf(tbuf, sizeof tbuf, d->after > 0 ? "new" : "0.0");
		table_str(&t, tbuf);
		z_text(tbuf, sizeof tbuf, d->t);
		table_str(&t, tbuf);
		table_str(&t, d->significant ? "yes" : "no");
		write_error_cells(&t, d);
	}
	table_end(&t);
}

void
cp_compare_verdict(cp_compare *k, strbuf *out)
{
	const cp_diff *rows;
	size_t n = cp_compare_rows(k, &rows), nsig = 0;
	char a[40], b[40];

	for (size_t i = 0; i < n; i++)
		nsig += rows[i].significant;
	sb_addf(out, "%zu incident against %zu baseline traces, critical-path time per request; "
		"a difference counts when it is %.0f standard errors of the baseline's spread "
		"(batch means) and at least %.0f%% of its mean latency: ", k->ntraces[0], k->ntraces[1], BASELINE_MIN_Z,
		100 * BASELINE_MIN_SHARE);
	if (!nsig) {
		sb_adds(out, "nothing differs beyond the baseline's spread");
		return;
	}
	table_duration(a, sizeof a, (int64_t)llround(rows[0].before), TABLE_AUTO);
	table_duration(b, sizeof b, (int64_t)llround(rows[0].after), TABLE_AUTO);
	sb_addf(out, "%zu differ; the largest: %s%s%s, %s -> %s per request", nsig, rows[0].service,
		*rows[0].operation ? " " : "", rows[0].operation, a, b);
}

/* --- Two phases over shards (baseline.h). A trace's batch is its place
 * among all the traces of its side, in the order of the shards; phase 1
 * counts each shard's traces, the merge of phase 1 gives each shard its
 * first place, phase 2 puts each trace in its batch and writes the sums,
 * and the last merge adds them up. Every sum is of whole µs (doubles that
 * hold integers exactly below 2^53), so the sums of the merge are those
 * of one pass, in any order. */

static const char *const side_name[2] = {"incident", "baseline"};

static void
first_trace(cp_compare *k, const tr_trace *t, int side)
{
	strmap_slot *s;

	sb_clear(&k->buf);
	sb_addc(&k->buf, (char)('0' + side));
	tr_escapes(&k->buf, t->trace_id, 0);
	k->first[side] = xstrdup(k->buf.s + 1);
	if (!k->placing)
		return;
	s = strmap_get(&k->shards, k->buf.s, k->buf.len);
	k->shard[side] = s ? s->val : -1;
	k->pos[side] = s ? k->at[s->val].offset : 0;
}

void
cp_compare_write_counts(const cp_compare *k, const char *made_for, tr_output *out)
{
	strbuf b = {0};
	uint64_t n = 0;

	tr_partial_header(&b, "cp", made_for);
	for (int side = 0; side < 2; side++)
		if (k->ntraces[side]) {
			sb_addf(&b, "T\t%d\t%zu\t%s\n", side, k->ntraces[side], k->first[side]);
			n++;
		}
	tr_partial_end(&b, n);
	tr_output_sb(out, &b);
	sb_free(&b);
}

/* A count of 0 to 2^53 (exact in a double) filling a field; -1 when it
 * is not one. */
static int
count_field(const tr_field *f, uint64_t *v)
{
	return tr_field_count(f, 1ULL << 53, v);
}

/* "0" or "1": the incident's or the baseline's. */
static int
side_field(const tr_field *f)
{
	return f->len == 1 && (f->s[0] == '0' || f->s[0] == '1') ? f->s[0] - '0' : -1;
}

struct cp_shards {
	arena mem;
	strmap seen;		/* side and first trace id */
	struct shard_count {
		int side;
		uint64_t count;
		const char *id;		/* escaped */
	} *s;
	size_t n, cap;
	uint64_t total[2];
	strbuf key;
};

cp_shards *
cp_shards_new(void)
{
	return xcalloc(1, sizeof(cp_shards));
}

void
cp_shards_free(cp_shards *s)
{
	if (!s)
		return;
	strmap_free(&s->seen);
	arena_free(&s->mem);
	sb_free(&s->key);
	free(s->s);
	free(s);
}

int
cp_shards_line(cp_shards *s, char *line, size_t len, char *err, size_t errlen)
{
	tr_field f[5];
	uint64_t count;
	int side, added;

	if (tr_split(line, len, f, 5) != 4 || f[0].len != 1 || line[0] != 'T' ||
	    (side = side_field(&f[1])) < 0 || count_field(&f[2], &count) < 0 || !count || !f[3].len) {
		snprintf(err, errlen, "not a tr-cp --baseline phase-1 record (want T, 0 or 1, a count "
			 "of traces and a trace id)");
		return -1;
	}
	sb_clear(&s->key);	/* the side, then the id */
	sb_addc(&s->key, f[1].s[0]);
	sb_add(&s->key, f[3].s, f[3].len);
	strmap_slot *slot = strmap_put_copy(&s->seen, &s->mem, s->key.s, s->key.len, &added);
	if (!added) {
		snprintf(err, errlen, "the %s shard whose first trace is %.*s was given before: give "
			 "each shard once", side_name[side], (int)f[3].len, f[3].s);
		return -1;
	}
	GROW(s->s, s->cap, s->n + 1);
	s->s[s->n++] = (struct shard_count){side, count, (const char *)slot->key + 1};
	s->total[side] += count;
	return 0;
}

void
cp_shards_write(const cp_shards *s, const char *made_for, tr_output *out)
{
	uint64_t offset[2] = {0, 0};
	strbuf b = {0};

	tr_partial_header(&b, "cp", made_for);
	sb_addf(&b, "N\t%llu\t%llu\n", (unsigned long long)s->total[0], (unsigned long long)s->total[1]);
	for (size_t i = 0; i < s->n; i++) {
		const struct shard_count *c = &s->s[i];

		sb_addf(&b, "O\t%d\t%llu\t%llu\t%s\n", c->side, (unsigned long long)offset[c->side],
			(unsigned long long)c->count, c->id);
		offset[c->side] += c->count;
		tr_output_spill(out, &b);
	}
	tr_partial_end(&b, 1 + s->n);
	tr_output_sb(out, &b);
	sb_free(&b);
}

/* Full batches of n traces, as one pass ends with them: 1 trace a batch
 * up to 64, then twice as many each time 64 batches are full. */
static void
set_batches(cp_compare *k, int side, uint64_t n)
{
	uint64_t size = 1;

	while (n >= MAX_BATCHES * size)
		size *= 2;
	k->total[side] = n;
	k->batch_size[side] = size;
	k->nbatches[side] = n / size;
}

static int
at_line(void *ctx, char *line, size_t len, char *err, size_t errlen)
{
	cp_compare *k = ctx;
	tr_field f[6];
	uint64_t a, b;
	int side, added;
	size_t nf = tr_split(line, len, f, 6);

	if (nf == 3 && f[0].len == 1 && line[0] == 'N' && count_field(&f[1], &a) == 0 &&
	    count_field(&f[2], &b) == 0) {
		set_batches(k, 0, a);
		set_batches(k, 1, b);
		return 0;
	}
	if (nf != 5 || f[0].len != 1 || line[0] != 'O' || (side = side_field(&f[1])) < 0 ||
	    count_field(&f[2], &a) < 0 || count_field(&f[3], &b) < 0 || !f[4].len) {
		snprintf(err, errlen, "not a tr-cp --baseline bands record (want N and two counts, or "
			 "O, 0 or 1, a place, a count and a trace id)");
		return -1;
	}
	sb_clear(&k->buf);
	sb_addc(&k->buf, f[1].s[0]);
	sb_add(&k->buf, f[4].s, f[4].len);
	strmap_slot *slot = strmap_put_copy(&k->shards, &k->mem, k->buf.s, k->buf.len, &added);
	if (!added) {
		snprintf(err, errlen, "a shard named twice (%s, first trace %.*s)", side_name[side],
			 (int)f[4].len, f[4].s);
		return -1;
	}
	slot->val = (int64_t)k->nat;
	GROW(k->at, k->capat, k->nat + 1);
	k->at[k->nat++] = (struct shard_at){a, b};
	return 0;
}

int
cp_compare_read_shards(cp_compare *k, const char *path, const char *made_for)
{
	k->shard[0] = k->shard[1] = -1;
	set_batches(k, 0, 0);	/* bands without their N record place nothing */
	set_batches(k, 1, 0);
	if (tr_partial_merge_files((char **)&path, 1, "cp", made_for, 0, at_line, k) < 0)
		return -1;
	k->placing = 1;
	return 0;
}

int
cp_compare_placed(const cp_compare *k, const char *path, char *what, size_t whatlen)
{
	for (int side = 0; side < 2; side++) {
		if (!k->ntraces[side])
			continue;
		if (k->shard[side] < 0) {
			snprintf(what, whatlen, "%s: trace %s, the first of this shard's %s traces, is the "
				 "first of no shard there (phase 1 ran over other shards)", path,
				 k->first[side], side_name[side]);
			return -1;
		}
		if (k->at[k->shard[side]].count != k->ntraces[side]) {
			snprintf(what, whatlen, "%s: this shard has %zu %s traces, phase 1 counted %llu "
				 "(it ran over another shard)", path, k->ntraces[side], side_name[side],
				 (unsigned long long)k->at[k->shard[side]].count);
			return -1;
		}
	}
	return 0;
}

/* "j:v,..." for a side's batches that are not 0, "-" for none. */
static void
write_batches(strbuf *b, const group *g, int side)
{
	int any = 0;

	for (size_t j = 0; j < MAX_BATCHES; j++)
		if (g->batch[side][j] != 0)
			sb_addf(b, "%s%zu:%lld", any++ ? "," : "", j, (long long)g->batch[side][j]);
	if (!any)
		sb_addc(b, '-');
}

static void
write_key(strbuf *b, char type, const char *service, const char *operation)
{
	sb_addc(b, type);
	sb_addc(b, '\t');
	tr_escapes(b, service, 0);
	sb_addc(b, '\t');
	tr_escapes(b, operation, 0);
}

/* The R records: this shard's places among all the traces, each side's
 * (phase 2), and those of the partials merged (a combiner); how many. */
static size_t
write_runs(const cp_compare *k, strbuf *b)
{
	size_t n = 0;

	for (int side = 0; side < 2; side++)
		if (k->nat && k->shard[side] >= 0 && k->ntraces[side]) {
			sb_addf(b, "R\t%d\t%llu\t%zu\n", side,
				(unsigned long long)k->at[k->shard[side]].offset, k->ntraces[side]);
			n++;
		}
	for (size_t i = 0; i < k->nruns; i++)
		sb_addf(b, "R\t%d\t%llu\t%llu\n", k->runs[i].side,
			(unsigned long long)k->runs[i].offset, (unsigned long long)k->runs[i].count);
	return n + k->nruns;
}

void
cp_compare_write_partial(const cp_compare *k, const char *made_for, tr_output *out)
{
	strbuf b = {0};

	tr_partial_header(&b, "cp", made_for);
	for (int side = 0; side < 2; side++)
		sb_addf(&b, "S\t%d\t%zu\t%lld\t%llu\n", side, k->ntraces[side], (long long)k->latency[side],
			(unsigned long long)k->total[side]);
	sb_addf(&b, "I\t%zu\n", k->inferred);
	for (size_t i = 0; i < k->ng; i++) {
		const group *g = &k->g[i];

		write_key(&b, 'G', g->service, g->operation);
		sb_addf(&b, "\t%lld\t%lld\t", (long long)g->sum[0], (long long)g->sum[1]);
		write_batches(&b, g, 0);
		sb_addc(&b, '\t');
		write_batches(&b, g, 1);
		sb_addc(&b, '\n');
		tr_output_spill(out, &b);
	}
	for (size_t i = 0; i < k->nfc; i++) {
		const fail_count *f = &k->fc[i];

		write_key(&b, 'F', f->key, f->key + strlen(f->key) + 1);
		sb_addf(&b, "\t%zu\t%zu\t%zu\t%zu\n", f->spans[0], f->failed[0], f->spans[1], f->failed[1]);
		tr_output_spill(out, &b);
	}
	size_t nruns = write_runs(k, &b);

	tr_partial_end(&b, 3 + k->ng + k->nfc + nruns);
	tr_output_sb(out, &b);
	sb_free(&b);
}

/* A key's two fields unescaped in place, NUL-terminated. */
static void
unescape_key(tr_field *f)
{
	for (int i = 0; i < 2; i++) {
		f[i].len = tr_unescape((char *)f[i].s, f[i].s, f[i].len);
		((char *)f[i].s)[f[i].len] = '\0';
	}
}

/* "j:v,..." or "-" into a side's batches. */
static int
merge_batches(group *g, int side, const tr_field *f)
{
	const char *p = f->s, *end = f->s + f->len;

	if (f->len == 1 && *p == '-')
		return 0;
	while (p < end) {
		char *stop;
		unsigned long long j, v;

		errno = 0;
		j = strtoull(p, &stop, 10);
		if (stop == p || *stop != ':' || j >= MAX_BATCHES || *p < '0' || *p > '9')
			return -1;
		p = stop + 1;
		v = strtoull(p, &stop, 10);
		if (stop == p || errno || *p < '0' || *p > '9' || v > (1ULL << 53) ||
		    (stop != end && *stop != ',') || (*stop == ',' && stop + 1 == end))
			return -1;
		g->batch[side][j] += (double)v;
		p = stop + (stop != end);
	}
	return 0;
}

static int
merge_sides(cp_compare *k, const tr_field *f, char *err, size_t errlen)
{
	uint64_t n, lat, total;
	int side = side_field(&f[1]);

	if (side < 0 || count_field(&f[2], &n) < 0 || count_field(&f[3], &lat) < 0 ||
	    count_field(&f[4], &total) < 0) {
		snprintf(err, errlen, "bad S record (want S, 0 or 1, and three counts)");
		return -1;
	}
	/* placing, in the merge: a bit for each side whose total was read */
	if (k->placing & (1 << side) && total != k->total[side]) {
		snprintf(err, errlen, "a partial of other bands (%llu %s traces, not %llu): give the "
			 "partials of one phase 2", (unsigned long long)total, side_name[side],
			 (unsigned long long)k->total[side]);
		return -1;
	}
	k->placing |= 1 << side;
	k->total[side] = total;
	k->ntraces[side] += n;
	k->latency[side] += (double)lat;
	return 0;
}

int
cp_compare_merge_line(cp_compare *k, char *line, size_t len, char *err, size_t errlen)
{
	tr_field f[8];
	uint64_t v[4];
	size_t nf = tr_split(line, len, f, 8);

	if (nf == 5 && f[0].len == 1 && line[0] == 'S')
		return merge_sides(k, f, err, errlen);
	if (nf == 4 && f[0].len == 1 && line[0] == 'R' && side_field(&f[1]) >= 0 &&
	    count_field(&f[2], &v[0]) == 0 && count_field(&f[3], &v[1]) == 0 && v[1]) {
		GROW(k->runs, k->capruns, k->nruns + 1);
		k->runs[k->nruns++] = (struct shard_run){side_field(&f[1]), v[0], v[1]};
		return 0;
	}
	if (nf == 2 && f[0].len == 1 && line[0] == 'I' && count_field(&f[1], &v[0]) == 0) {
		k->inferred += v[0];
		return 0;
	}
	if (nf == 7 && f[0].len == 1 && line[0] == 'G' && count_field(&f[3], &v[0]) == 0 &&
	    count_field(&f[4], &v[1]) == 0) {
		unescape_key(f + 1);
		group *g = find_group_key(k, f[1].s, f[2].s);

		g->sum[0] += (double)v[0];
		g->sum[1] += (double)v[1];
		if (merge_batches(g, 0, &f[5]) == 0 && merge_batches(g, 1, &f[6]) == 0)
			return 0;
	} else if (nf == 7 && f[0].len == 1 && line[0] == 'F' && count_field(&f[3], &v[0]) == 0 &&
		   count_field(&f[4], &v[1]) == 0 && count_field(&f[5], &v[2]) == 0 &&
		   count_field(&f[6], &v[3]) == 0 && v[1] <= v[0] && v[3] <= v[2]) {
		unescape_key(f + 1);
		sb_set_pair(&k->buf, f[1].s, f[2].s);
		fail_count *c = fail_count_of(k, 1);

		c->spans[0] += v[0];
		c->failed[0] += v[1];
		c->spans[1] += v[2];
		c->failed[1] += v[3];
		return 0;
	}
	snprintf(err, errlen, "not a tr-cp --summary --baseline partial record (want S, I, G, F or "
		 "R and its fields)");
	return -1;
}

static int
run_cmp(const void *pa, const void *pb)
{
	const struct shard_run *a = pa, *b = pb;

	if (a->side != b->side)
		return a->side - b->side;
	return (a->offset > b->offset) - (a->offset < b->offset);
}

/* The partials' places of side, in order, tile those phase 1 counted. */
static int
runs_tile(cp_compare *k, int side, char *what, size_t whatlen)
{
	uint64_t next = 0;

	for (size_t i = 0; i < k->nruns; i++) {
		const struct shard_run *r = &k->runs[i];

		if (r->side != side)
			continue;
		if (r->offset != next) {
			snprintf(what, whatlen, "--baseline --merge: the %s traces from place %llu %s: "
				 "%s", side_name[side], (unsigned long long)(r->offset < next ?
				 r->offset : next), r->offset < next ? "are in two partials" :
				 "are in none", r->offset < next ? "a shard was given twice" :
				 "a shard is missing");
			return -1;
		}
		next = r->offset + r->count;
	}
	if (next != k->total[side]) {
		snprintf(what, whatlen, "--baseline --merge: the %s traces from place %llu are in "
			 "none: a shard is missing", side_name[side], (unsigned long long)next);
		return -1;
	}
	return 0;
}

int
cp_compare_merged(cp_compare *k, char *what, size_t whatlen)
{
	if (k->nruns)
		qsort(k->runs, k->nruns, sizeof *k->runs, run_cmp);
	for (int side = 0; side < 2; side++) {
		if (k->ntraces[side] != k->total[side]) {
			snprintf(what, whatlen, "--baseline --merge: the partials hold %zu of the %llu %s "
				 "traces phase 1 counted: a shard is missing or was given twice",
				 k->ntraces[side], (unsigned long long)k->total[side], side_name[side]);
			return -1;
		}
		if (runs_tile(k, side, what, whatlen) < 0)
			return -1;
		set_batches(k, side, k->total[side]);
	}
	k->placing = 0;
	return 0;
}

/* --- tr-report over shards, without a baseline: the incident's sums
 * alone, whole µs, so that they add up to one pass's in any order. */

void
cp_compare_write_sums(const cp_compare *k, char type, strbuf *b)
{
	sb_addf(b, "%c\t%zu\n", type, k->ntraces[0]);
	for (size_t i = 0; i < k->ng; i++) {
		write_key(b, type, k->g[i].service, k->g[i].operation);
		sb_addf(b, "\t%lld\n", (long long)k->g[i].sum[0]);
	}
}

void
cp_compare_add_sum(cp_compare *k, const char *service, const char *operation, int64_t us)
{
	find_group_key(k, service, operation)->sum[0] += (double)us;
}

void
cp_compare_add_count(cp_compare *k, size_t ntraces)
{
	k->ntraces[0] += ntraces;
}
