/* cppart.c - tr-pag --cp-part (cppart.h): hold the output, mark where each
 * cp.part value goes, patch the values in once the graph is done. */
#include "pag/cppart.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CP_PART_TAG "\tcp.part="

struct pag_cppart {
	strbuf held;		/* the output until the graph is done */
	strbuf keys;		/* "trace\tspan" of each cp.part tag held */
	size_t *order;		/* where each key starts in keys */
	size_t norder, caporder;
	size_t *mark_at;	/* where each tag's value goes in held */
	size_t nmarks, capmarks;
};

pag_cppart *
pag_cppart_new(void)
{
	return xcalloc(1, sizeof(pag_cppart));
}

/* A cp.part tag with its value left out, filled in once the graph is
 * done: the span is remembered by its "trace\tspan" key. */
static void
mark_span(void *ctx, const tr_trace *t, int32_t span, strbuf *extra)
{
	pag_cppart *h = ctx;

	if (span < 0 || !pag_span_usable(&t->spans[span]))
		return;
	sb_adds(extra, CP_PART_TAG);
	GROW(h->order, h->caporder, h->norder + 2);
	h->order[h->norder++] = h->keys.len;
	sb_adds(&h->keys, t->trace_id);
	sb_addc(&h->keys, '\t');
	sb_adds(&h->keys, t->spans[span].span_id);
	h->order[h->norder] = h->keys.len;	/* the end of the last key */
}

void
pag_cppart_hold_trace(pag_cppart *h, const tr_trace *t)
{
	tr_write_opts wo = {"cp.part", NULL, mark_span, h};
	size_t from = h->held.len, tl = strlen(CP_PART_TAG);

	tr_write_trace(&h->held, t, &wo);
	/* The marks are the ends of this trace's S records that end with an
	 * empty cp.part tag (an old one was dropped): found here, by place,
	 * so that no other line passed through can take a value. */
	for (size_t at = from; at < h->held.len;) {
		const char *line = h->held.s + at;
		const char *nl = memchr(line, '\n', h->held.len - at);
		size_t len = nl ? (size_t)(nl - line) : h->held.len - at;

		if (line[0] == 'S' && len >= tl && memcmp(line + len - tl, CP_PART_TAG, tl) == 0) {
			GROW(h->mark_at, h->capmarks, h->nmarks + 1);
			h->mark_at[h->nmarks++] = at + len;
		}
		at += len + 1;
	}
	if (h->nmarks != h->norder)	/* one mark per S record mark_span tagged */
		tr_die(TR_EXIT_SYSTEM, "trace %s: %zu cp.part marks for %zu spans", t->trace_id,
		       h->nmarks, h->norder);
}

void
pag_cppart_hold_line(pag_cppart *h, const char *line, size_t len)
{
	sb_add(&h->held, line, len);
	sb_addc(&h->held, '\n');
}

void
pag_cppart_write(const pag_cppart *h, const pag_graph *g, tr_output *out)
{
	double *part = xmalloc((g->nspans ? g->nspans : 1) * sizeof *part);
	size_t at = 0;
	strbuf buf = {0};

	pag_span_cp(g, part);
	for (size_t k = 0; k <= h->nmarks; k++) {
		size_t to = k < h->nmarks ? h->mark_at[k] : h->held.len;
		char num[32];

		sb_add(&buf, h->held.s + at, to - at);
		at = to;
		if (k == h->nmarks)
			break;
		size_t kend = k + 1 < h->norder ? h->order[k + 1] : h->keys.len;
		const strmap_slot *sl = strmap_get(&g->span_ids, h->keys.s + h->order[k],
						   kend - h->order[k]);
		double v = sl ? part[sl->val] : 0;	/* a span on no edge: none */

		snprintf(num, sizeof num, "%.6g", v < 1e-12 ? 0 : v);
		sb_adds(&buf, num);
		if (buf.len >= 256 * 1024) {
			tr_output_sb(out, &buf);
			sb_clear(&buf);
		}
	}
	tr_output_sb(out, &buf);
	sb_free(&buf);
	free(part);
}

void
pag_cppart_free(pag_cppart *h)
{
	if (!h)
		return;
	sb_free(&h->held);
	sb_free(&h->keys);
	free(h->order);
	free(h->mark_at);
	free(h);
}
