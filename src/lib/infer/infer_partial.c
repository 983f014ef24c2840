/* infer_partial.c - raw counts out (--partial) and summed back in (--merge),
 * so that counting can run on shards (Hadoop Streaming mappers, GNU
 * parallel) and the threshold once on the sum. Every record is written in a
 * canonical order with names, not ids, so a merge of any split of the
 * traces gives the same bytes as one pass. */
#include "infer/infer.h"
#include "infer_impl.h"
#include "core/partial.h"

#include <stdlib.h>
#include <string.h>

#include "core/format.h"

static const char *const COUNT_NAMES[] = { "traces", "pairs" };

typedef struct canon_pair {
	const name_rec *an, *bn;
	int aev, bev;
	const pair_rec *r;
	int swapped;		/* the record's a is our b */
} canon_pair;

static int
canon_cmp(const void *x, const void *y)
{
	const canon_pair *a = x, *b = y;
	int c = infer_event_cmp(a->an, a->aev, b->an, b->aev);

	return c ? c : infer_event_cmp(a->bn, a->bev, b->bn, b->bev);
}

static void
write_pairs(infer *m, strbuf *b)
{
	canon_pair *p = xmalloc((m->npairs + 1) * sizeof *p);
	size_t n = 0;

	for (size_t i = 0; i < m->pcap; i++) {
		const pair_rec *r = &m->pairs[i];

		if (r->key == UINT64_MAX)
			continue;
		uint32_t a = (uint32_t)(r->key >> 32), e = (uint32_t)r->key;
		canon_pair c = { &m->name[a / 2], &m->name[e / 2], a & 1, e & 1, r, 0 };
		if (infer_event_cmp(c.an, c.aev, c.bn, c.bev) > 0)
			c = (canon_pair){ c.bn, c.an, c.bev, c.aev, r, 1 };
		p[n++] = c;
	}
	qsort(p, n, sizeof *p, canon_cmp);
	for (size_t i = 0; i < n; i++) {
		const pair_rec *r = p[i].r;

		sb_adds(b, "IP\t\t");
		sb_clear(&m->tmp);
		infer_event_text(&m->tmp, p[i].an, p[i].aev);
		tr_escape(b, m->tmp.s, m->tmp.len, 0);
		sb_addc(b, '\t');
		sb_clear(&m->tmp);
		infer_event_text(&m->tmp, p[i].bn, p[i].bev);
		tr_escape(b, m->tmp.s, m->tmp.len, 0);
		sb_addf(b, "\t%llu\t%llu\t%llu\t%llu\n", (unsigned long long)r->c,
			(unsigned long long)(p[i].swapped ? r->s_ba : r->s_ab),
			(unsigned long long)(p[i].swapped ? r->s_ab : r->s_ba),
			(unsigned long long)r->q);
	}
	free(p);
}

/* What a partial holds, as its header says: a merge wants the same. */
static const char *
made_for(const infer *m, const infer_links *l)
{
	return m && l ? "model+links" : m ? "model" : "links";
}

/* The records of a partial: its lines less the header and the end mark. */
static uint64_t
records_in(const strbuf *b)
{
	uint64_t n = 0;

	for (size_t i = 0; i < b->len; i++)
		n += b->s[i] == '\n';
	return n - 1;
}

void
infer_write_partial(infer *m, infer_links *l, tr_output *out)
{
	strbuf b = {0};

	tr_partial_header(&b, "infer", made_for(m, l));
	if (m) {
		sb_addf(&b, "IT\t\ttraces=%llu\tskipped=%llu\tname=",
			(unsigned long long)m->traces, (unsigned long long)m->skipped);
		infer_fields_text(&m->o, &b);
		sb_addf(&b, "\tdepth=%d\tcount=%s\n", m->o.depth, COUNT_NAMES[m->o.count]);
		write_pairs(m, &b);
	}
	if (l)
		infer_links_write_partial(l, &b);
	tr_partial_end(&b, records_in(&b));
	tr_output_sb(out, &b);
	sb_free(&b);
}

/* A field's text, unescaped when it has to be (*owned is then to be freed). */
static const char *
field_text(const tr_field *f, size_t *n, char **owned)
{
	*owned = NULL;
	if (tr_plain(f->s, f->len)) {
		*n = f->len;
		return f->s;
	}
	*owned = xmalloc(f->len + 1);
	*n = tr_unescape(*owned, f->s, f->len);
	return *owned;
}

static int
parse_count(const tr_field *f, uint64_t *out)
{
	return tr_field_count(f, INT64_MAX, out);
}

static int
tag_is(const tr_field *f, const char *key, const char **val, size_t *vlen)
{
	size_t k = strlen(key);

	if (f->len <= k || memcmp(f->s, key, k) != 0 || f->s[k] != '=')
		return 0;
	*val = f->s + k + 1;
	*vlen = f->len - k - 1;
	return 1;
}

static int
merge_totals(infer *m, const tr_field *f, size_t nf, char *what, size_t whatlen)
{
	infer_opts o = m->o;
	uint64_t traces = 0, skipped = 0;

	for (size_t i = 2; i < nf; i++) {
		const char *v;
		size_t n;
		char buf[64];
		tr_field num;

		if (tag_is(&f[i], "traces", &v, &n) || tag_is(&f[i], "skipped", &v, &n)) {
			num = (tr_field){ v, n };
			if (parse_count(&num, f[i].s[0] == 't' ? &traces : &skipped) < 0)
				goto bad;
		} else if (tag_is(&f[i], "name", &v, &n)) {
			if (n >= sizeof buf)
				goto bad;
			memcpy(buf, v, n);
			buf[n] = '\0';
			if (infer_parse_fields(buf, &o) < 0)
				goto bad;
		} else if (tag_is(&f[i], "depth", &v, &n)) {
			int64_t d;
			if (parse_i64(v, n, &d) < 0 || d < 0 || d > 1000)
				goto bad;
			o.depth = (int)d;
		} else if (tag_is(&f[i], "count", &v, &n)) {
			if (n == 6 && memcmp(v, "traces", 6) == 0)
				o.count = INFER_COUNT_TRACES;
			else if (n == 5 && memcmp(v, "pairs", 5) == 0)
				o.count = INFER_COUNT_PAIRS;
			else
				goto bad;
		}
	}
	if (m->opts_from_partial &&
	    (o.nfields != m->o.nfields || memcmp(o.fields, m->o.fields, sizeof o.fields) ||
	     o.depth != m->o.depth || o.count != m->o.count)) {
		snprintf(what, whatlen, "partial counts made with other --name, "
			 "--backtrace-depth or --count than the first");
		return -1;
	}
	m->o = o;
	m->opts_from_partial = 1;
	m->traces += traces;
	m->skipped += skipped;
	return 0;
bad:
	snprintf(what, whatlen, "bad IT record");
	return -1;
}

/* An event "name_S" or "name_E" from a field: its event id. */
static int
parse_event(infer *m, const tr_field *f, uint32_t *e)
{
	size_t n;
	char *owned;
	const char *s = field_text(f, &n, &owned);
	int ok = n >= 2 && s[n - 2] == '_' && (s[n - 1] == 'S' || s[n - 1] == 'E');

	if (ok)
		*e = 2 * infer_intern(m, s, n - 2) + (s[n - 1] == 'E');
	free(owned);
	return ok ? 0 : -1;
}

static int
merge_pair(infer *m, const tr_field *f, size_t nf, char *what, size_t whatlen)
{
	uint32_t a, b;
	uint64_t c, s_ab, s_ba, q;

	if (nf != 8 || parse_event(m, &f[2], &a) < 0 || parse_event(m, &f[3], &b) < 0 ||
	    a == b || parse_count(&f[4], &c) < 0 || parse_count(&f[5], &s_ab) < 0 ||
	    parse_count(&f[6], &s_ba) < 0 || parse_count(&f[7], &q) < 0) {
		snprintf(what, whatlen, "bad IP record");
		return -1;
	}
	if (a > b) {
		uint32_t x = a; a = b; b = x;
		uint64_t y = s_ab; s_ab = s_ba; s_ba = y;
	}
	pair_rec *r = infer_pair(m, a, b);
	r->c += c;
	r->s_ab += s_ab;
	r->s_ba += s_ba;
	r->q += q;
	return 0;
}

static int
merge_link(infer_links *l, int rule, const tr_field *f, size_t nf, char *what, size_t whatlen)
{
	uint64_t calls, errors;
	size_t pn, cn;
	char *po, *co;

	if (nf != 6 || parse_count(&f[4], &calls) < 0 || parse_count(&f[5], &errors) < 0) {
		if (rule == INFER_LINKS_JAEGER)
			snprintf(what, whatlen, "bad IJ record");
		else
			snprintf(what, whatlen, "bad IL record");
		return -1;
	}
	const char *p = field_text(&f[2], &pn, &po), *c = field_text(&f[3], &cn, &co);
	infer_links_put(l, rule, p, pn, c, cn, calls, errors);
	free(po);
	free(co);
	return 0;
}

/* IK: spans and those with a kind, for --links' choice of rule. */
static int
merge_kinds(infer_links *l, const tr_field *f, size_t nf, char *what, size_t whatlen)
{
	uint64_t spans, kinds;
	tr_field a, b;

	if (nf != 4 || !tag_is(&f[2], "spans", &a.s, &a.len) || !tag_is(&f[3], "kinds", &b.s, &b.len) ||
	    parse_count(&a, &spans) < 0 || parse_count(&b, &kinds) < 0 || kinds > spans) {
		snprintf(what, whatlen, "bad IK record");
		return -1;
	}
	infer_links_add_kinds(l, spans, kinds);
	return 0;
}

int
infer_merge_line(infer *m, infer_links *l, const char *line, size_t len,
		 char *what, size_t whatlen)
{
	tr_field f[10];

	while (len && line[len - 1] == '\r')
		len--;
	if (len == 0 || line[0] == '#')
		return 0;
	size_t nf = tr_split(line, len, f, 10);
	if (nf >= 2 && f[1].len == 0 && f[0].len == 2 && f[0].s[0] == 'I') {
		switch (f[0].s[1]) {
		case 'T': return m ? merge_totals(m, f, nf > 10 ? 10 : nf, what, whatlen) : 0;
		case 'P': return m ? merge_pair(m, f, nf, what, whatlen) : 0;
		case 'L': return l ? merge_link(l, INFER_LINKS_ZIPKIN, f, nf, what, whatlen) : 0;
		case 'J': return l ? merge_link(l, INFER_LINKS_JAEGER, f, nf, what, whatlen) : 0;
		case 'K': return l ? merge_kinds(l, f, nf, what, whatlen) : 0;
		}
	}
	snprintf(what, whatlen, "not a tr-infer --partial record");
	return -1;
}

typedef struct merge_ctx {
	infer *m;
	infer_links *l;
} merge_ctx;

static int
merge_record(void *ctx, char *line, size_t len, char *what, size_t whatlen)
{
	merge_ctx *c = ctx;

	return infer_merge_line(c->m, c->l, line, len, what, whatlen);
}

int
infer_merge_files(infer *m, infer_links *l, char **files, int nfiles, int keep_going)
{
	merge_ctx c = {m, l};

	return tr_partial_merge_files(files, nfiles, "infer", made_for(m, l), keep_going, merge_record, &c);
}

int
infer_check_counts(const infer *m)
{
	for (size_t i = 0; i < m->pcap; i++) {
		const pair_rec *r = &m->pairs[i];

		if (r->key != UINT64_MAX &&
		    (r->c > m->traces || (m->o.count == INFER_COUNT_TRACES &&
					  r->s_ab + r->s_ba + r->q != r->c)))
			return -1;
	}
	return 0;
}
