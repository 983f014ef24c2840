/* report_partial.c - tr-report over shards (report.h).
 *
 * Phase 1's partial, made for "slowest top=N keep-streams=K":
 *   N <TAB> traces            the shard's count of traces read
 *   S <TAB> latency <TAB> place <TAB> id
 *                             a candidate: one of the shard's --top slowest,
 *                             its place in the shard from 1, its id escaped
 * The --top slowest of a pass over the shards one after the other are the
 * first --top traces by latency, ties in the order of that pass
 * (report_slow_last); a trace among them is among its shard's own, so the
 * merge picks them from the candidates, each placed after the traces of
 * the partials before its own. It writes them, slowest first as the page
 * lists them (ties by id), made for "chosen top=N keep-streams=K":
 *   C <TAB> latency <TAB> place <TAB> id   (place: in the whole pass) */
#include "report_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "core/partial.h"

/* What a partial of phase is made for: the options that choose. */
static void
made_for(strbuf *b, const report_opts *o, const char *phase)
{
	sb_clear(b);
	sb_addf(b, "%s top=%zu keep-streams=%d", phase, o->top, o->keep_streams != 0);
}

static int
ordinal_cmp(const void *pa, const void *pb)
{
	const slow_trace *a = pa, *b = pb;

	return (a->ordinal > b->ordinal) - (a->ordinal < b->ordinal);
}

void
report_write_partial(report *r)
{
	strbuf b = {0}, mf = {0};
	tr_output *out = tr_output_open(r->o->out_path, 0);

	made_for(&mf, r->o, "slowest");
	tr_partial_header(&b, "report", mf.s);
	sb_addf(&b, "N\t%zu\n", r->ntraces);
	if (r->nslow)
		qsort(r->slow, r->nslow, sizeof *r->slow, ordinal_cmp);
	for (size_t i = 0; i < r->nslow; i++) {
		sb_addf(&b, "S\t%lld\t%zu\t", (long long)r->slow[i].latency, r->slow[i].ordinal);
		tr_escapes(&b, r->slow[i].trace_id, 0);
		sb_addc(&b, '\n');
	}
	tr_partial_end(&b, 1 + r->nslow);
	tr_output_sb(out, &b);
	tr_output_flush(out);
	tr_output_close(out);
	sb_free(&b);
	sb_free(&mf);
}

/* The merge: the traces before the current partial's, and the kept. */
typedef struct slow_merge {
	const report_opts *o;
	size_t before, traces;	/* the partials before this one; this one's */
	int counted;		/* this partial's N was read */
	slow_trace *slow;
	size_t n;
} slow_merge;

/* A decimal count >= 0 filling a field; -1 when it is not one. */
static int
count_of(const tr_field *f, unsigned long long *v)
{
	char num[24], *end;

	if (!f->len || f->len >= sizeof num || f->s[0] < '0' || f->s[0] > '9')
		return -1;
	memcpy(num, f->s, f->len);
	num[f->len] = '\0';
	errno = 0;
	*v = strtoull(num, &end, 10);
	return *end || errno ? -1 : 0;
}

/* An S record's trace kept when it is among the slowest so far. */
static int
merge_candidate(slow_merge *m, tr_field *f, char *err, size_t errlen)
{
	unsigned long long lat, place;
	size_t k = m->n;

	if (!m->counted) {
		snprintf(err, errlen, "a candidate before the partial's count of traces (N)");
		return -1;
	}
	if (count_of(&f[1], &lat) < 0 || lat > INT64_MAX || count_of(&f[2], &place) < 0 ||
	    !place || place > m->traces || !f[3].len) {
		snprintf(err, errlen, "bad S record (want S, a latency, a place from 1 to the "
			 "partial's count of traces and a trace id)");
		return -1;
	}
	slow_trace s = {.latency = (int64_t)lat, .ordinal = m->before + (size_t)place};

	if (m->n == m->o->top) {
		k = report_slow_last(m->slow, m->n);
		if (s.latency <= m->slow[k].latency)
			return 0;
		free(m->slow[k].trace_id);
	} else
		m->n++;
	((char *)f[3].s)[f[3].len = tr_unescape((char *)f[3].s, f[3].s, f[3].len)] = '\0';
	s.trace_id = xstrdup(f[3].s);
	m->slow[k] = s;
	return 0;
}

static int
merge_line(void *ctx, char *line, size_t len, char *err, size_t errlen)
{
	slow_merge *m = ctx;
	tr_field f[5];
	size_t nf = tr_split(line, len, f, 5);
	unsigned long long n;

	if (nf == 2 && f[0].len == 1 && line[0] == 'N') {
		if (count_of(&f[1], &n) < 0) {
			snprintf(err, errlen, "bad count of traces");
			return -1;
		}
		m->before += m->traces;	/* the partial before this one */
		m->traces = (size_t)n;
		m->counted = 1;
		return 0;
	}
	if (nf == 4 && f[0].len == 1 && line[0] == 'S')
		return merge_candidate(m, f, err, errlen);
	snprintf(err, errlen, "not a tr-report --partial record (want N and a count, or S and 3 "
		 "fields)");
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

	made_for(&mf, o, "chosen");
	tr_partial_header(&b, "report", mf.s);
	if (m->n)
		qsort(m->slow, m->n, sizeof *m->slow, page_cmp);
	for (size_t i = 0; i < m->n; i++) {
		sb_addf(&b, "C\t%lld\t%zu\t", (long long)m->slow[i].latency, m->slow[i].ordinal);
		tr_escapes(&b, m->slow[i].trace_id, 0);
		sb_addc(&b, '\n');
	}
	tr_partial_end(&b, m->n);
	tr_output_sb(out, &b);
	tr_output_flush(out);
	tr_output_close(out);
	sb_free(&b);
	sb_free(&mf);
}

int
report_merge(const report_opts *o)
{
	slow_merge m = {.o = o, .slow = xcalloc(o->top ? o->top : 1, sizeof *m.slow)};
	strbuf mf = {0};
	int status;

	made_for(&mf, o, "slowest");
	/* each partial starts with its N: a new file's records count anew */
	status = tr_partial_merge_files(o->files, o->nfiles, "report", mf.s, 0, merge_line, &m);
	if (status == 0)
		write_chosen(o, &m);
	for (size_t i = 0; i < m.n; i++)
		free(m.slow[i].trace_id);
	free(m.slow);
	sb_free(&mf);
	return status < 0 ? TR_EXIT_INPUT : status;
}
