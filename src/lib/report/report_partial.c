/* report_partial.c - tr-report over shards (report.h).
 *
 * Phase 1's partial, made for "page top=N keep-streams=K", holds the
 * shard's part of every section that is a sum over traces:
 *   N <TAB> traces            the shard's count of traces read (first)
 *   F <TAB> file              an input it read ("-": stdin), in order
 *   A <TAB> spans <TAB> analysed <TAB> streams <TAB> failed
 *                             its spans, traces with a timed root, streams
 *                             left out of the slowest, failed spans
 *   T <TAB> first <TAB> last  the time range of its timed spans
 *   S <TAB> latency <TAB> place <TAB> id <TAB> failed <TAB> root
 *                             a candidate: one of the shard's --top slowest,
 *                             its place in the shard from 1, its id, its
 *                             failed spans, "service: operation" of its root
 *   V <TAB> service <TAB> spans <TAB> root   a service of the graph, in the
 *                             order met; root: 1 when a trace's root is in it
 *   D <TAB> service <TAB> operation <TAB> duration <TAB> count
 *                             the durations of an operation, as value counts
 *   X <TAB> kind <TAB> service <TAB> operation <TAB> message <TAB> spans
 *     <TAB> failed <TAB> example
 *                             a row of the failures (kind s, o or m), with
 *                             the first trace of the shard where one failed
 *   IK, IL, IJ                the calls, as tr-infer --links --partial's
 *   L <TAB> latency <TAB> stream <TAB> id
 *                             a trace with a timed root, for the ranks of
 *                             the percentile flame graphs (report_phase2.c)
 *   O <TAB> id                its first trace (after N), for phase 2 to
 *                             find its place
 * Every field is escaped as the line format escapes. Phase 2's partial
 * (--chosen) is made for the same page, holds no L records and, after N,
 * the critical-path section's sums (report_phase2.c); a merge takes the
 * partials of one phase.
 * The --top slowest of a pass over the shards one after the other are the
 * first --top traces by latency, ties in the order of that pass
 * (report_slow_last); a trace among them is among its shard's own, so the
 * merge picks them from the candidates, each placed after the traces of
 * the partials before its own. It writes them, slowest first as the page
 * lists them (ties by id), made for "chosen top=N keep-streams=K":
 *   C <TAB> latency <TAB> place <TAB> id   (place: in the whole pass)
 * then O <TAB> id <TAB> traces before it, for each shard's first trace,
 * and the bands of the L records (report_phase2.c). With --page it writes
 * the page instead: every sum added up in the order of the partials, as
 * that pass adds it up. */
#include "report_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "core/partial.h"
#include "core/util.h"

static int
ordinal_cmp(const void *pa, const void *pb)
{
	const slow_trace *a = pa, *b = pb;

	return (a->ordinal > b->ordinal) - (a->ordinal < b->ordinal);
}

/* Escaped strings, each after a TAB, then the counts and a LF. */
static void
add_fields(strbuf *b, const char *const *s, size_t ns)
{
	for (size_t i = 0; i < ns; i++) {
		sb_addc(b, '\t');
		tr_escapes(b, s[i] ? s[i] : "", 0);
	}
}

static int
i64_cmp(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;

	return (a > b) - (a < b);
}

/* The durations of each operation, as value counts. */
static void
write_durations(report *r, strbuf *b)
{
	for (size_t i = 0; i < r->nops; i++) {
		op_stats *op = &r->ops[i];
		const char *name[2] = {op->service, op->operation};

		qsort(op->dur, op->n, sizeof *op->dur, i64_cmp);
		for (size_t j = 0, k; j < op->n; j = k) {
			for (k = j + 1; k < op->n && op->dur[k] == op->dur[j]; k++)
				;
			sb_adds(b, "D");
			add_fields(b, name, 2);
			sb_addf(b, "\t%lld\t%zu\n", (long long)op->dur[j], k - j);
		}
	}
}

static void
write_failures(report *r, strbuf *b)
{
	static const char kinds[] = "som";

	for (const char *k = kinds; *k; k++) {
		const fail_table *x = report_fail_table(r, *k);

		for (size_t i = 0; i < x->n; i++) {
			const fail_row *row = &x->v[i];
			const char *part[3] = {row->service, row->operation, row->message};

			sb_addf(b, "X\t%c", *k);
			add_fields(b, part, 3);
			sb_addf(b, "\t%zu\t%zu", row->spans, row->failed);
			add_fields(b, &row->example, 1);
			sb_addc(b, '\n');
		}
	}
}

/* The records of phase 1 but the candidates. */
static void
write_sums(report *r, strbuf *b)
{
	const char *stdin_name = "-";

	for (int i = 0; i < r->o->nfiles || (i == 0 && !r->o->nfiles); i++) {
		sb_adds(b, "F");
		add_fields(b, r->o->nfiles ? (const char *const *)&r->o->files[i] : &stdin_name, 1);
		sb_addc(b, '\n');
	}
	sb_addf(b, "A\t%zu\t%zu\t%zu\t%zu\n", r->nspans, r->nanalysed, r->streams, r->nfailed);
	if (r->have_time)
		sb_addf(b, "T\t%lld\t%lld\n", (long long)r->first, (long long)r->last);
	for (size_t i = 0; i < r->nsvc; i++) {
		sb_adds(b, "V");
		add_fields(b, &r->svc[i].name, 1);
		sb_addf(b, "\t%zu\t%d\n", r->svc[i].spans, r->svc[i].root);
	}
	write_durations(r, b);
	write_failures(r, b);
	if (r->links)
		infer_links_write_partial(r->links, b);
}

static uint64_t
records_in(const strbuf *b)
{
	uint64_t n = 0;

	for (size_t i = 0; i < b->len; i++)
		n += b->s[i] == '\n';
	return n - 1;	/* the header */
}

void
report_write_partial(report *r)
{
	strbuf b = {0}, mf = {0};

	/* a shard whose first trace starts one of phase 1's but that holds
	 * other traces would be placed, and its neighbours sent, wrongly */
	if (r->o->chosen && r->ntraces && r->shard &&
	    (r->ntraces != r->shard->count || r->ids_digest != r->shard->digest))
		tr_die(TR_EXIT_INPUT, "%s: this shard holds other traces than phase 1's shard whose "
		       "first trace is %s (%zu here, %zu there): give phase 2 the shards of its own "
		       "phase 1", r->o->chosen, r->first_id, r->ntraces, r->shard->count);
	tr_output *out = tr_output_open(r->o->out_path, 0);

	report_made_for(&mf, r->o, "page");
	tr_partial_header(&b, "report", mf.s);
	sb_addf(&b, "N\t%zu\n", r->ntraces);
	if (r->o->chosen)
		report_write_phase2(r, &b);
	else if (r->first_id) {	/* for phase 2 to know its place, and its traces */
		sb_adds(&b, "O\t");
		tr_escapes(&b, r->first_id, 0);
		sb_addf(&b, "\t%016llx\n", (unsigned long long)r->ids_digest);
	}
	write_sums(r, &b);
	sb_add(&b, r->ranks.s, r->ranks.len);	/* phase 1's L records */
	if (r->nslow)
		qsort(r->slow, r->nslow, sizeof *r->slow, ordinal_cmp);
	for (size_t i = 0; i < r->nslow; i++) {
		const slow_trace *t = &r->slow[i];

		sb_addf(&b, "S\t%lld\t%zu", (long long)t->latency, t->ordinal);
		add_fields(&b, (const char *const *)&t->trace_id, 1);
		sb_addf(&b, "\t%zu", t->failed);
		add_fields(&b, (const char *const *)&t->root, 1);
		sb_addc(&b, '\n');
	}
	tr_partial_end(&b, records_in(&b));
	tr_output_sb(out, &b);
	tr_output_flush(out);
	tr_output_close(out);
	sb_free(&b);
	sb_free(&mf);
}

/* The merge: the traces before the current partial's, and the kept;
 * the sums of every section in r. */
typedef struct slow_merge {
	const report_opts *o;
	size_t before, traces;	/* the partials before this one; this one's */
	int counted;		/* this partial's N was read */
	slow_trace *slow;
	size_t n;
	report *r;
	cp_ranks *ranks;	/* phase 1's L records */
	strbuf shards;		/* phase 1's O records, with each shard's first place */
	size_t nshards;
	int phase, first;	/* the first partial's phase (1, 2; 0: none yet); first:
				 * the record after a partial's N is next */
	struct merge_run {
		uint64_t offset, count;
	} *runs;		/* phase 2: each partial's places among all the traces */
	size_t nruns, capruns;
} slow_merge;

/* Counts f[0..n) into v; -1 when one is not a count. */
static int
counts_of(const tr_field *f, size_t n, size_t *v)
{
	uint64_t c;

	for (size_t i = 0; i < n; i++) {
		if (tr_field_count(&f[i], SIZE_MAX / 2, &c) < 0)
			return -1;
		v[i] = (size_t)c;
	}
	return 0;
}

/* The field unescaped in place, NUL-terminated (the TAB after it goes). */
static const char *
text_of(tr_field *f)
{
	char *s = (char *)f->s;

	s[f->len = tr_unescape(s, f->s, f->len)] = '\0';
	return s;
}

/* An S record's trace kept when it is among the slowest so far. */
static int
merge_candidate(slow_merge *m, tr_field *f, char *err, size_t errlen)
{
	uint64_t lat, place;
	size_t k = m->n, failed;

	if (!m->counted) {
		snprintf(err, errlen, "a candidate before the partial's count of traces (N)");
		return -1;
	}
	if (tr_field_count(&f[1], INT64_MAX, &lat) < 0 || tr_field_count(&f[2], SIZE_MAX, &place) < 0 ||
	    !place || place > m->traces || !f[3].len || counts_of(&f[4], 1, &failed) < 0) {
		snprintf(err, errlen, "bad S record (want S, a latency, a place from 1 to the "
			 "partial's count of traces, a trace id, a count of failed spans, a root)");
		return -1;
	}
	slow_trace s = {.latency = (int64_t)lat, .ordinal = m->before + (size_t)place,
			.failed = failed};

	if (m->n == m->o->top) {
		k = report_slow_last(m->slow, m->n);
		if (s.latency <= m->slow[k].latency)
			return 0;
		free(m->slow[k].trace_id);
		free(m->slow[k].root);
	} else
		m->n++;
	s.trace_id = xstrdup(text_of(&f[3]));
	s.root = xstrdup(text_of(&f[5]));
	m->slow[k] = s;
	return 0;
}

/* N: a new partial's count of traces. */
static int
merge_count(slow_merge *m, const tr_field *f, char *err, size_t errlen)
{
	uint64_t n;

	if (tr_field_count(&f[1], SIZE_MAX / 2, &n) < 0) {
		snprintf(err, errlen, "bad count of traces");
		return -1;
	}
	m->before += m->traces;	/* the partial before this one */
	m->traces = (size_t)n;
	m->r->ntraces += (size_t)n;
	m->counted = 1;
	m->first = 1;
	return 0;
}

/* The record after a partial's N: Q in phase 2's partials only; every
 * partial of one phase. */
static int
merge_phase(slow_merge *m, const char *line, size_t len, char *err, size_t errlen)
{
	int phase = len > 2 && line[0] == 'Q' && line[1] == '\t' ? 2 : 1;
	strbuf pct = {0};
	int same = 1;

	m->first = 0;
	if (m->phase && phase != m->phase) {
		snprintf(err, errlen, "a partial of phase %d after one of phase %d: give the "
			 "partials of one phase", phase, m->phase);
		return -1;
	}
	m->phase = phase;
	if (phase == 2) {
		report_pct_text(m->o, &pct);
		same = pct.len == len - 2 && memcmp(pct.s, line + 2, pct.len) == 0;
		if (!same)
			snprintf(err, errlen, "a partial for other percentiles (%.*s, not %s): give the "
				 "--percentile its phase 2 was given", (int)(len - 2), line + 2, pct.s);
		sb_free(&pct);
	}
	return same ? 0 : -1;
}

/* Phase 2's P and G records, phase 1's L. */
static int
merge_cp(slow_merge *m, char *line, size_t len, tr_field *f, size_t nf, char *err,
	 size_t errlen)
{
	size_t n;
	int64_t us;

	if (line[0] == 'G') {
		if (m->phase == 2)	/* the chosen are not drawn */
			return m->o->page ? cp_flames_merge_line(m->r->flames, line + 1, len - 1, err,
								 errlen) : 0;
		snprintf(err, errlen, "a flame graph record in a partial of phase 1");
		return -1;
	}
	if (line[0] == 'L' && f[0].len == 1 && report_ranks_line(m->ranks, f, nf) == 0)
		return 0;
	if (line[0] == 'P' && f[0].len == 1 && nf == 2 && counts_of(&f[1], 1, &n) == 0) {
		cp_compare_add_count(m->r->compare, n);
		return 0;
	}
	if (line[0] == 'P' && f[0].len == 1 && nf == 4 && parse_i64(f[3].s, f[3].len, &us) == 0) {
		const char *svc = text_of(&f[1]);

		cp_compare_add_sum(m->r->compare, svc, text_of(&f[2]), us);
		return 0;
	}
	if (line[0] == 'L')
		snprintf(err, errlen, "bad L record (want L, a latency, 0 or 1 and a trace id)");
	else
		snprintf(err, errlen, "bad P record (want P and a count of traces, or P, a service, "
			 "an operation and µs)");
	return -1;
}

/* A, T and F: the inputs. */
static int
merge_inputs(report *r, int kind, tr_field *f, size_t nf)
{
	size_t v[4];
	int64_t t[2];

	if (kind == 'F' && nf == 2) {
		GROW(r->inputs, r->capinputs, r->ninputs + 1);
		r->inputs[r->ninputs++] = xstrdup(text_of(&f[1]));
		return 0;
	}
	if (kind == 'A' && nf == 5 && counts_of(&f[1], 4, v) == 0) {
		r->nspans += v[0];
		r->nanalysed += v[1];
		r->streams += v[2];
		r->nfailed += v[3];
		return 0;
	}
	if (kind != 'T' || nf != 3 || parse_i64(f[1].s, f[1].len, &t[0]) < 0 ||
	    parse_i64(f[2].s, f[2].len, &t[1]) < 0)
		return -1;
	if (!r->have_time || t[0] < r->first)
		r->first = t[0];
	if (!r->have_time || t[1] > r->last)
		r->last = t[1];
	r->have_time = 1;
	return 0;
}

/* V, D and X: the services, the durations, the failures. */
static int
merge_rows(report *r, int kind, tr_field *f, size_t nf)
{
	size_t v[2];
	int64_t dur;

	if (kind == 'V' && nf == 4 && counts_of(&f[2], 2, v) == 0 && v[1] <= 1) {
		uint32_t k = report_service_of(r, text_of(&f[1]));

		r->svc[k].spans += v[0];
		r->svc[k].root |= (int)v[1];
		return 0;
	}
	if (kind == 'D' && nf == 5 && parse_i64(f[3].s, f[3].len, &dur) == 0 &&
	    counts_of(&f[4], 1, v) == 0 && v[0]) {
		const char *svc = text_of(&f[1]);
		op_stats *op = report_op_of(r, svc, text_of(&f[2]));

		GROW(op->dur, op->cap, op->n + v[0]);
		for (size_t i = 0; i < v[0]; i++)
			op->dur[op->n++] = dur;
		return 0;
	}
	if (kind != 'X' || nf != 8 || f[1].len != 1 || !report_fail_table(r, f[1].s[0]) ||
	    counts_of(&f[5], 2, v) < 0)
		return -1;
	const char *part[3] = {text_of(&f[2]), text_of(&f[3]), text_of(&f[4])};

	report_fail_merge(r, f[1].s[0], part, v[0], v[1], text_of(&f[7]));
	return 0;
}

static int
merge_line(void *ctx, char *line, size_t len, char *err, size_t errlen)
{
	slow_merge *m = ctx;
	tr_field f[9];
	size_t nf = tr_split(line, len, f, 9);

	if (nf == 2 && f[0].len == 1 && line[0] == 'N')
		return merge_count(m, f, err, errlen);
	if (m->counted && m->first && merge_phase(m, line, len, err, errlen) < 0)
		return -1;
	if (nf == 2 && f[0].len == 1 && line[0] == 'Q' && m->phase == 2)
		return 0;	/* checked by merge_phase */
	if (nf == 3 && f[0].len == 1 && line[0] == 'R' && m->phase == 2) {
		struct merge_run run;

		if (tr_field_count(&f[1], SIZE_MAX / 2, &run.offset) < 0 ||
		    tr_field_count(&f[2], SIZE_MAX / 2, &run.count) < 0) {
			snprintf(err, errlen, "bad R record (want R, a place and a count of traces)");
			return -1;
		}
		GROW(m->runs, m->capruns, m->nruns + 1);
		m->runs[m->nruns++] = run;
		return 0;
	}
	if (nf == 3 && f[0].len == 1 && line[0] == 'W' && m->phase == 2) {
		if (report_timeline_line(m->r, f, nf) == 0)
			return 0;
		snprintf(err, errlen, "bad W record (want W, a trace id and its timeline)");
		return -1;
	}
	if (nf == 3 && f[0].len == 1 && line[0] == 'O' && m->phase == 1 && f[1].len &&
	    f[2].len == 16) {
		sb_addf(&m->shards, "O\t%.*s\t%zu\t%zu\t%.16s\n", (int)f[1].len, f[1].s, m->before,
			m->traces, f[2].s);
		m->nshards++;
		return 0;
	}
	if (((f[0].len == 1 && line[0] == 'Y') || (f[0].len == 2 && line[0] == 'K')) &&
	    m->phase == 2)	/* the neighbours of the slowest, the clocks' evidence */
		return report_causes_line(m->r, line, len, err, errlen);
	if (m->counted && line[0] && strchr("GLP", line[0]) && (f[0].len == 1 || line[0] == 'G'))
		return merge_cp(m, line, len, f, nf, err, errlen);
	if (nf == 6 && f[0].len == 1 && line[0] == 'S')
		return merge_candidate(m, f, err, errlen);
	if (f[0].len == 2 && line[0] == 'I' && strchr("KLJ", line[1])) {
		if (!m->r->links)
			m->r->links = infer_links_new(INFER_LINKS_AUTO);
		if (infer_merge_line(NULL, m->r->links, line, len, err, errlen) == 0)
			return 0;
		snprintf(err, errlen, "bad IK, IL or IJ record (as tr-infer --links --partial writes)");
		return -1;
	}
	if (f[0].len == 1 && m->counted && (strchr("FAT", line[0]) ?
					    merge_inputs(m->r, line[0], f, nf) :
					    merge_rows(m->r, line[0], f, nf)) == 0)
		return 0;
	snprintf(err, errlen, "not a tr-report --partial record (want N, O, Q, F, A, T, S, V, D, "
		 "X, L, P, G, W, K, Y or a tr-infer --links record, with its fields)");
	return -1;
}

/* The page's order: slowest first, ties by id. */
static int
page_cmp(const void *pa, const void *pb)
{
	const slow_trace *a = pa, *b = pb;

	if (a->latency != b->latency)
		return a->latency > b->latency ? -1 : 1;
	return strcmp(a->trace_id, b->trace_id);
}

static void
write_chosen(const report_opts *o, slow_merge *m)
{
	strbuf b = {0}, mf = {0};
	tr_output *out = tr_output_open(o->out_path, 0);

	report_made_for(&mf, o, "chosen");
	tr_partial_header(&b, "report", mf.s);
	for (size_t i = 0; i < m->n; i++) {
		sb_addf(&b, "C\t%lld\t%zu\t", (long long)m->slow[i].latency, m->slow[i].ordinal);
		tr_escapes(&b, m->slow[i].trace_id, 0);
		sb_addc(&b, '\n');
	}
	sb_add(&b, m->shards.s, m->shards.len);
	size_t nbands = report_ranks_write(m->ranks, o, &b);	/* for phase 2 */

	tr_partial_end(&b, m->n + m->nshards + nbands);
	tr_output_sb(out, &b);
	tr_output_flush(out);
	tr_output_close(out);
	sb_free(&b);
	sb_free(&mf);
}

/* --page: the page from the sums, as one pass over the shards writes it
 * but for the sections that are not sums (said on the page). */
static int
write_page(report *r, slow_merge *m)
{
	const report_opts *o = r->o;
	strbuf doc = {0};

	r->from_partials = 1;
	r->cp_built = m->phase == 2;
	if (report_page_notes(r) < 0)
		return TR_EXIT_INPUT;
	memcpy(r->slow, m->slow, m->n * sizeof *m->slow);
	r->nslow = m->n;
	m->n = 0;	/* r owns them */
	if (m->phase == 2 && report_timelines_take(r) < 0)
		return TR_EXIT_INPUT;
	if (m->phase == 2) {	/* the causes, over the neighbours the shards sent */
		if (!r->clock)
			r->clock = tr_clock_new();
		tr_clock_solve(r->clock);
		report_explain_merged(r, &r->neighbours, r->clock);
	}
	report_write(r, &doc, NULL);
	tr_output *out = tr_output_open(o->out_path, 0);

	tr_output_sb(out, &doc);
	tr_output_flush(out);
	tr_output_close(out);
	sb_free(&doc);
	return TR_EXIT_OK;
}

static int
run_cmp(const void *pa, const void *pb)
{
	const struct merge_run *a = pa, *b = pb;

	return (a->offset > b->offset) - (a->offset < b->offset);
}

/* Phase 2's partials hold each place among all the traces once: a shard
 * given twice would explain its neighbours twice, one missing not at all. */
static int
runs_tile(slow_merge *m)
{
	uint64_t next = 0;

	if (m->nruns)
		qsort(m->runs, m->nruns, sizeof *m->runs, run_cmp);
	for (size_t i = 0; i < m->nruns; i++) {
		if (m->runs[i].offset < next) {
			tr_warn("--merge --page: the traces from place %llu are in two partials: a "
				"shard was given twice", (unsigned long long)m->runs[i].offset);
			return -1;
		}
		if (m->runs[i].offset > next) {
			tr_warn("--merge --page: the traces from place %llu are in none: a shard is "
				"missing", (unsigned long long)next);
			return -1;
		}
		next += m->runs[i].count;
	}
	return 0;
}

int
report_merge(const report_opts *o)
{
	slow_merge m = {.o = o, .slow = xcalloc(o->top ? o->top : 1, sizeof *m.slow),
			.r = report_new(o), .ranks = cp_ranks_new(0)};
	strbuf mf = {0};
	int status;

	report_made_for(&mf, o, "page");
	/* each partial starts with its N: a new file's records count anew */
	status = tr_partial_merge_files(o->files, o->nfiles, "report", mf.s, 0, merge_line, &m);
	if (status == 0 && m.phase == 2 && runs_tile(&m) < 0)
		status = -1;
	if (status == 0) {
		if (m.n)
			qsort(m.slow, m.n, sizeof *m.slow, page_cmp);
		if (o->page)
			status = write_page(m.r, &m);
		else
			write_chosen(o, &m);
	}
	for (size_t i = 0; i < m.n; i++) {
		free(m.slow[i].trace_id);
		free(m.slow[i].root);
	}
	free(m.slow);
	cp_ranks_free(m.ranks);
	free(m.runs);
	sb_free(&m.shards);
	report_free(m.r);
	sb_free(&mf);
	return status < 0 ? TR_EXIT_INPUT : status;
}
