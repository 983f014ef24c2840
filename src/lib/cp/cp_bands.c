/* cp_bands.c - the two phases of --flame --percentile over shards
 * (cp_bands.h). The ranks are those of one pass over the shards one after
 * the other: traces by latency, ties in the order of the partials, then
 * of the traces in each; long-lived streams are in no band. */
#include "cp/cp_bands.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "core/partial.h"
#include "cp/cp_flame.h"

void
cp_ranks_record(strbuf *out, int64_t latency, int stream, const char *id)
{
	sb_addf(out, "L\t%lld\t%d\t", (long long)latency, stream != 0);
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
	ranked *t;
	size_t n, cap;
	size_t nstreams;
};

cp_ranks *
cp_ranks_new(void)
{
	return xcalloc(1, sizeof(cp_ranks));
}

void
cp_ranks_free(cp_ranks *k)
{
	if (!k)
		return;
	arena_free(&k->mem);
	free(k->t);
	free(k);
}

int
cp_ranks_line(cp_ranks *k, char *line, size_t len, char *err, size_t errlen)
{
	tr_field f[5];
	char *end;
	long long lat;

	if (tr_split(line, len, f, 5) != 4 || f[0].len != 1 || line[0] != 'L' || f[2].len != 1 ||
	    (f[2].s[0] != '0' && f[2].s[0] != '1') || !f[3].len || f[1].s[0] < '0' || f[1].s[0] > '9') {
		snprintf(err, errlen, "not a tr-cp --flame --percentile phase-1 record (want L, a "
			 "latency, 0 or 1 and a trace id)");
		return -1;
	}
	errno = 0;
	lat = strtoll(f[1].s, &end, 10);
	if (end != f[1].s + f[1].len || errno) {
		snprintf(err, errlen, "bad latency (want a count of µs)");
		return -1;
	}
	if (f[2].s[0] == '1') {
		k->nstreams++;
		return 0;
	}
	GROW(k->t, k->cap, k->n + 1);
	k->t[k->n] = (ranked){lat, k->n, arena_strndup(&k->mem, f[3].s, f[3].len)};
	k->n++;
	return 0;
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

void
cp_ranks_write_bands(cp_ranks *k, const int *pct, size_t npct, const char *made_for,
		     tr_output *out)
{
	uint32_t *mask = xcalloc(k->n ? k->n : 1, sizeof *mask);
	strbuf b = {0};
	size_t nrec = 0;

	qsort(k->t, k->n, sizeof *k->t, ranked_cmp);
	for (size_t i = 0; i < npct; i++) {
		size_t first, end;

		cp_percentile_band(k->n, pct[i], &first, &end);
		for (size_t r = first; r < end; r++)
			mask[k->t[r].seq] |= 1u << i;
	}
	qsort(k->t, k->n, sizeof *k->t, seq_cmp);
	tr_partial_header(&b, "cp", made_for);
	for (size_t i = 0; i < k->n; i++) {
		if (!mask[i])
			continue;
		sb_addf(&b, "B\t%s\t%u\n", k->t[i].id, mask[i]);
		nrec++;
		tr_output_spill(out, &b);
	}
	tr_partial_end(&b, nrec);
	tr_output_sb(out, &b);
	sb_free(&b);
	free(mask);
}

struct cp_bands {
	arena mem;
	strmap id;		/* trace id -> its bands */
};

static int
band_line(void *ctx, char *line, size_t len, char *err, size_t errlen)
{
	cp_bands *b = ctx;
	tr_field f[4];
	char *end;
	unsigned long m;
	int added;

	if (tr_split(line, len, f, 4) != 3 || f[0].len != 1 || line[0] != 'B' || !f[1].len ||
	    f[2].s[0] < '1' || f[2].s[0] > '9') {
		snprintf(err, errlen, "not a tr-cp --flame bands record (want B, a trace id and its bands)");
		return -1;
	}
	errno = 0;
	m = strtoul(f[2].s, &end, 10);
	if (end != f[2].s + f[2].len || errno || m > UINT32_MAX) {
		snprintf(err, errlen, "bad bands (want a number of 1 to 32 bits)");
		return -1;
	}
	((char *)f[1].s)[f[1].len = tr_unescape((char *)f[1].s, f[1].s, f[1].len)] = '\0';
	strmap_slot *s = strmap_put_copy(&b->id, &b->mem, f[1].s, f[1].len + 1, &added);

	s->val = (int64_t)m;
	return 0;
}

cp_bands *
cp_bands_read(const char *path, const char *made_for)
{
	cp_bands *b = xcalloc(1, sizeof *b);

	if (tr_partial_merge_files((char **)&path, 1, "cp", made_for, 0, band_line, b) < 0) {
		cp_bands_free(b);
		return NULL;
	}
	return b;
}

uint32_t
cp_bands_of(const cp_bands *b, const char *id)
{
	strmap_slot *s = strmap_get(&b->id, id, strlen(id) + 1);

	return s ? (uint32_t)s->val : 0;
}

void
cp_bands_free(cp_bands *b)
{
	if (!b)
		return;
	strmap_free(&b->id);
	arena_free(&b->mem);
	free(b);
}
