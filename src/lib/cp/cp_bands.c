/* cp_bands.c - the two phases of --flame --percentile over shards
 * (cp_bands.h). The ranks are those of one pass over the shards one after
 * the other: traces by latency, ties in the order of the partials, then
 * of the traces in each; long-lived streams are in no band. Against a
 * baseline, each side is ranked among its own traces, and every record
 * names its side after its type. */
#include "cp/cp_bands.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "core/partial.h"
#include "cp/cp_flame.h"

void
cp_ranks_record(strbuf *out, int side, int64_t latency, int stream, const char *id)
{
	sb_adds(out, "L\t");
	if (side >= 0)
		sb_addf(out, "%d\t", side != 0);
	sb_addf(out, "%lld\t%d\t", (long long)latency, stream != 0);
	tr_escapes(out, id, 0);
	sb_addc(out, '\n');
}

typedef struct ranked {
	int64_t latency;
	size_t seq;		/* the order read: ties keep it */
	const char *id;		/* escaped, as read */
} ranked;

struct cp_ranks {
	arena mem;
	int sides;		/* the records name their side */
	ranked *t[2];		/* per side: 0 the incident, 1 the baseline */
	size_t n[2], cap[2];
};

cp_ranks *
cp_ranks_new(int sides)
{
	cp_ranks *k = xcalloc(1, sizeof *k);

	k->sides = sides;
	return k;
}

/* "0" or "1" filling a field; -1 when it is neither. */
static int
bit_field(const tr_field *f)
{
	return f->len == 1 && (f->s[0] == '0' || f->s[0] == '1') ? f->s[0] - '0' : -1;
}

void
cp_ranks_free(cp_ranks *k)
{
	if (!k)
		return;
	arena_free(&k->mem);
	free(k->t[0]);
	free(k->t[1]);
	free(k);
}

int
cp_ranks_line(cp_ranks *k, char *line, size_t len, char *err, size_t errlen)
{
	tr_field all[6], *f = all;
	uint64_t lat;
	int side = 0;

	if (tr_split(line, len, all, 6) != 4 + (size_t)k->sides || all[0].len != 1 || line[0] != 'L' ||
	    (k->sides && (side = bit_field(&all[1])) < 0) || bit_field(&all[2 + k->sides]) < 0 ||
	    !all[3 + k->sides].len || all[1 + k->sides].s[0] < '0' || all[1 + k->sides].s[0] > '9') {
		snprintf(err, errlen, k->sides ? "not a tr-cp --flame --percentile --baseline phase-1 record "
			 "(want L, 0 or 1, a latency, 0 or 1 and a trace id)" : "not a tr-cp --flame "
			 "--percentile phase-1 record (want L, a latency, 0 or 1 and a trace id)");
		return -1;
	}
	f += k->sides;
	if (tr_field_count(&f[1], INT64_MAX, &lat) < 0) {
		snprintf(err, errlen, "bad latency (want a count of µs)");
		return -1;
	}
	if (f[2].s[0] == '0')	/* a long-lived stream is in no band */
		cp_ranks_add(k, side, (int64_t)lat, f[3].s, f[3].len);
	return 0;
}

void
cp_ranks_add(cp_ranks *k, int side, int64_t latency, const char *id, size_t idlen)
{
	GROW(k->t[side], k->cap[side], k->n[side] + 1);
	k->t[side][k->n[side]] = (ranked){latency, k->n[side], arena_strndup(&k->mem, id, idlen)};
	k->n[side]++;
}

static int
ranked_cmp(const void *pa, const void *pb)
{
	const ranked *a = pa, *b = pb;

	if (a->latency != b->latency)
		return a->latency < b->latency ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

static int
seq_cmp(const void *pa, const void *pb)
{
	const ranked *a = pa, *b = pb;

	return (a->seq > b->seq) - (a->seq < b->seq);
}

/* One side's B records into b; how many. */
static size_t
write_side(cp_ranks *k, int side, const int *pct, size_t npct, strbuf *b, tr_output *out)
{
	ranked *t = k->t[side];
	size_t n = k->n[side], nrec = 0;
	uint32_t *mask = xcalloc(n ? n : 1, sizeof *mask);

	qsort(t, n, sizeof *t, ranked_cmp);
	for (size_t i = 0; i < npct; i++) {
		size_t first, end;

		cp_percentile_band(n, pct[i], &first, &end);
		for (size_t r = first; r < end; r++)
			mask[t[r].seq] |= 1u << i;
	}
	qsort(t, n, sizeof *t, seq_cmp);
	for (size_t i = 0; i < n; i++) {
		if (!mask[i])
			continue;
		sb_adds(b, "B\t");
		if (k->sides)
			sb_addf(b, "%d\t", side);
		sb_addf(b, "%s\t%u\n", t[i].id, mask[i]);
		nrec++;
		if (out)
			tr_output_spill(out, b);
	}
	free(mask);
	return nrec;
}

size_t
cp_ranks_write_records(cp_ranks *k, const int *pct, size_t npct, strbuf *b, tr_output *out)
{
	size_t nrec = 0;

	for (int side = k->sides; side >= 0; side--)	/* the baseline's first, as it is read */
		nrec += write_side(k, side, pct, npct, b, out);
	return nrec;
}

void
cp_ranks_write_bands(cp_ranks *k, const int *pct, size_t npct, const char *made_for,
		     tr_output *out)
{
	strbuf b = {0};
	size_t nrec;

	tr_partial_header(&b, "cp", made_for);
	nrec = cp_ranks_write_records(k, pct, npct, &b, out);
	tr_partial_end(&b, nrec);
	tr_output_sb(out, &b);
	sb_free(&b);
}

struct cp_bands {
	arena mem;
	int sides;		/* the records name their side */
	strmap id;		/* side (with sides) and trace id -> its bands */
	strbuf key;
};

static int
band_line(void *ctx, char *line, size_t len, char *err, size_t errlen)
{
	cp_bands *b = ctx;
	tr_field all[5], *f = all;
	uint64_t m;
	int added, side = 0;

	if (tr_split(line, len, all, 5) != 3 + (size_t)b->sides || all[0].len != 1 || line[0] != 'B' ||
	    (b->sides && (side = bit_field(&all[1])) < 0) || !all[1 + b->sides].len ||
	    all[2 + b->sides].s[0] < '1' || all[2 + b->sides].s[0] > '9') {
		snprintf(err, errlen, b->sides ? "not a tr-cp --flame --baseline bands record (want B, 0 or "
			 "1, a trace id and its bands)" : "not a tr-cp --flame bands record (want B, a trace "
			 "id and its bands)");
		return -1;
	}
	f += b->sides;
	if (tr_field_count(&f[2], UINT32_MAX, &m) < 0) {
		snprintf(err, errlen, "bad bands (want a number of 1 to 32 bits)");
		return -1;
	}
	f[1].len = tr_unescape((char *)f[1].s, f[1].s, f[1].len);
	sb_clear(&b->key);
	sb_addc(&b->key, (char)('0' + side));
	sb_add(&b->key, f[1].s, f[1].len);
	strmap_slot *s = strmap_put_copy(&b->id, &b->mem, b->key.s, b->key.len, &added);

	s->val = (int64_t)m;
	return 0;
}

cp_bands *
cp_bands_read(const char *path, const char *made_for, int sides)
{
	cp_bands *b = xcalloc(1, sizeof *b);

	b->sides = sides;
	if (tr_partial_merge_files((char **)&path, 1, "cp", made_for, 0, band_line, b) < 0) {
		cp_bands_free(b);
		return NULL;
	}
	return b;
}

uint32_t
cp_bands_of(cp_bands *b, int side, const char *id)
{
	strmap_slot *s;

	sb_clear(&b->key);
	sb_addc(&b->key, (char)('0' + side));
	sb_adds(&b->key, id);
	s = strmap_get(&b->id, b->key.s, b->key.len);
	return s ? (uint32_t)s->val : 0;
}

void
cp_bands_free(cp_bands *b)
{
	if (!b)
		return;
	strmap_free(&b->id);
	arena_free(&b->mem);
	sb_free(&b->key);
	free(b);
}
