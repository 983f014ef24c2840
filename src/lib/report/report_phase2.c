/* report_phase2.c - tr-report's second phase over shards: the
 * critical-path section and the timelines of the slowest requests.
 * Its table is a sum over traces; its flame graphs of the traces around
 * each --percentile need every trace's latency first. So phase 1's
 * partial (report_partial.c) holds an L record per trace with a timed
 * root (latency, 1 for a long-lived stream, id: as tr-cp --flame
 * --percentile's phase 1); the merge ranks them as one pass over the
 * shards would and writes, after the chosen traces:
 *   Q <TAB> percentiles        the --percentile list ("50,95,99")
 *   B <TAB> id <TAB> bands     a trace in a band (bit i: the i-th)
 * Phase 2 (--partial --chosen FILE) reads those, and its partial, made
 * for the same page as phase 1's, holds phase 1's sums (no L records)
 * and, after N:
 *   Q <TAB> percentiles        as the chosen file's: the phase-2 mark
 *   P <TAB> traces             traces in the critical-path table
 *   P <TAB> service <TAB> operation <TAB> µs   critical-path time
 *   GT, GN                     tr-cp --flame --partial's T and N records,
 *                              one graph per percentile after every trace's
 *   W <TAB> id <TAB> timeline  a chosen trace of the shard, its timeline
 *                              (SVG) drawn as one pass draws it
 *   KH, KP                     its clock evidence (tr-ingest --clock-offsets
 *                              --partial's H and P records)
 *   Y <TAB> line               a line of a trace within tr-temporal's window
 *                              of one of the chosen (its place in the whole
 *                              pass from the chosen file's O records), in
 *                              the line format, escaped
 * which --merge --page adds up into the sections of one pass: for the
 * causes, tr-temporal over the neighbours with the merged clock, as one
 * pass runs it over the traces near the slowest with the clock of all. */
#include "report_impl.h"

#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "core/partial.h"
#include "cp/cp_bands.h"
#include "draw/timeline.h"

/* What a partial of phase is made for: the options that choose (the
 * percentiles are in a record of their own, Q). */
void
report_made_for(strbuf *b, const report_opts *o, const char *phase)
{
	sb_clear(b);
	sb_addf(b, "%s top=%zu keep-streams=%d", phase, o->top, o->keep_streams != 0);
}

void
report_pct_text(const report_opts *o, strbuf *b)
{
	static const int dflt[] = {50, 95, 99};
	const int *pct = o->npct ? o->pct : dflt;
	size_t n = o->npct ? o->npct : 3;

	for (size_t i = 0; i < n; i++)
		sb_addf(b, "%s%d", i ? "," : "", pct[i]);
}

/* The W record of a chosen trace: its id and its timeline, drawn as one
 * pass draws it (once: the id's latency is then -1). */
static void
draw_timeline(report *r, const tr_trace *t, strmap_slot *s)
{
	timeline_opts to = {.width = 0, .min_share = r->o->min_share};
	strbuf svg = {0};

	s->val = -1;
	timeline_svg(&svg, t, &r->cp, &to);
	sb_adds(&r->timelines, "W\t");
	tr_escapes(&r->timelines, t->trace_id, 0);
	sb_addc(&r->timelines, '\t');
	tr_escape(&r->timelines, svg.s, svg.len, 0);
	sb_addc(&r->timelines, '\n');
	sb_free(&svg);
}

void
report_rank_trace(report *r, const tr_trace *t)
{
	strmap_slot *s;

	if (r->cp.root < 0)	/* in neither the flame graphs nor the ranks */
		return;
	if (!r->o->chosen) {
		cp_ranks_record(&r->ranks, -1, r->cp.path_length, !r->o->keep_streams &&
				tr_span_is_stream(&t->spans[r->cp.root]), t->trace_id);
		return;
	}
	s = strmap_get(&r->bands, t->trace_id, strlen(t->trace_id));
	cp_flames_set_band(r->flames, 0, s ? (uint32_t)s->val : 0);
	s = strmap_get(&r->chosen, t->trace_id, strlen(t->trace_id));
	if (s && s->val == r->cp.root_duration)	/* one of the slowest: its timeline */
		draw_timeline(r, t, s);
}

/* A record of the chosen file: C (phase 2 reads its trace ids no more),
 * Q (the same percentiles as this run's), B (a trace's bands). */
static int
chosen_line(void *ctx, char *line, size_t len, char *err, size_t errlen)
{
	report *r = ctx;
	tr_field f[5];
	size_t nf = tr_split(line, len, f, 5);
	strbuf pct = {0};
	unsigned long long bands;
	int64_t lat, place;
	char *end;
	int added, same;

	if (nf == 5 && f[0].len == 1 && line[0] == 'O' && f[1].len &&
	    parse_i64(f[2].s, f[2].len, &lat) == 0 && lat >= 0 &&
	    parse_i64(f[3].s, f[3].len, &place) == 0 && place > 0 && f[4].len == 16) {
		uint64_t digest = strtoull(f[4].s, &end, 16);

		if (end != f[4].s + 16)
			goto bad;
		f[1].len = tr_unescape((char *)f[1].s, f[1].s, f[1].len);
		strmap_put_copy(&r->offsets, &r->mem, f[1].s, f[1].len, &added)->val =
			(int64_t)r->nshard_at;
		GROW(r->shard_at, r->capshard_at, r->nshard_at + 1);
		r->shard_at[r->nshard_at++] = (struct report_shard_at){(size_t)lat, (size_t)place, digest};
		return 0;
	}
	if (nf == 4 && f[0].len == 1 && line[0] == 'C' && parse_i64(f[1].s, f[1].len, &lat) == 0 &&
	    lat >= 0 && f[3].len && parse_i64(f[2].s, f[2].len, &place) == 0 && place > 0) {
		GROW(r->places, r->capplaces, r->nplaces + 1);
		r->places[r->nplaces++] = (size_t)place;
		f[3].len = tr_unescape((char *)f[3].s, f[3].s, f[3].len);
		strmap_put_copy(&r->chosen, &r->mem, f[3].s, f[3].len, &added)->val = lat;
		return 0;
	}
	if (nf == 2 && f[0].len == 1 && line[0] == 'Q') {
		report_pct_text(r->o, &pct);
		same = pct.len == f[1].len && memcmp(pct.s, f[1].s, f[1].len) == 0;
		if (!same)
			snprintf(err, errlen, "chosen for other percentiles (%.*s, not %s): give the "
				 "--percentile the merge was given", (int)f[1].len, f[1].s, pct.s);
		sb_free(&pct);
		return same ? 0 : -1;
	}
	if (nf == 3 && f[0].len == 1 && line[0] == 'B' && f[1].len && f[2].s[0] >= '1' &&
	    f[2].s[0] <= '9' && (bands = strtoull(f[2].s, &end, 10)) <= UINT32_MAX &&
	    end == f[2].s + f[2].len) {
		f[1].len = tr_unescape((char *)f[1].s, f[1].s, f[1].len);
		strmap_put_copy(&r->bands, &r->mem, f[1].s, f[1].len, &added)->val = (int64_t)bands;
		return 0;
	}
bad:
	snprintf(err, errlen, "not a tr-report --merge record (want C, O, Q or B, with its "
		 "fields)");
	return -1;
}

int
report_read_chosen(report *r)
{
	strbuf mf = {0};
	int status;

	report_made_for(&mf, r->o, "chosen");
	status = tr_partial_merge_files((char **)&r->o->chosen, 1, "report", mf.s, 0, chosen_line, r);
	sb_free(&mf);
	return status == 0 ? TR_EXIT_OK : TR_EXIT_INPUT;
}

void
report_write_phase2(report *r, strbuf *b)
{
	sb_adds(b, "Q\t");	/* first: it tells the merge the phase */
	report_pct_text(r->o, b);
	sb_addc(b, '\n');
	if (r->shard)	/* its places among all the traces: the merge checks they tile */
		sb_addf(b, "R\t%zu\t%zu\n", r->offset, r->ntraces);
	cp_compare_write_sums(r->compare, 'P', b);
	cp_flames_write_records(r->flames, b, "G", NULL);
	sb_add(b, r->timelines.s, r->timelines.len);
	if (r->clock) {	/* its evidence, each record after K */
		strbuf ev = {0};

		tr_clock_write_evidence(r->clock, &ev);
		for (size_t i = 0, start = 0; i < ev.len; i++)
			if (ev.s[i] == '\n') {
				sb_addc(b, 'K');
				sb_add(b, ev.s + start, i + 1 - start);
				start = i + 1;
			}
		sb_free(&ev);
	}
	sb_add(b, r->near.s, r->near.len);
}

/* --- the causes: the neighbours of the slowest and the clocks --- */

void
report_near_trace(report *r, const tr_trace *t)
{
	size_t g = r->offset + r->ntraces;	/* the place of t in the whole pass */
	strbuf lines = {0};
	strmap_slot *s = NULL;

	/* phase 2 checks it holds the traces phase 1 read in this shard */
	r->ids_digest = (r->ids_digest ^ hash_bytes(t->trace_id, strlen(t->trace_id))) *
			0x100000001b3ULL;

	if (r->ntraces == 1) {
		r->first_id = xstrdup(t->trace_id);
		if (r->o->chosen && !(s = strmap_get(&r->offsets, t->trace_id, strlen(t->trace_id))))
			tr_die(TR_EXIT_INPUT, "%s: trace %s, the first of this shard, is the first of no "
			       "shard there: give phase 2 the chosen file of its own phase 1", r->o->chosen,
			       t->trace_id);
		if (r->o->chosen) {
			r->shard = &r->shard_at[s->val];
			r->offset = r->shard->offset;
		}
		g = r->offset + 1;
	}
	if (!r->o->chosen)
		return;
	if (!r->clock)
		r->clock = tr_clock_new();
	tr_clock_add_trace(r->clock, t);
	for (size_t i = 0; i < r->nplaces; i++) {
		if (g + TEMPORAL_WINDOW < r->places[i] || g > r->places[i] + TEMPORAL_WINDOW)
			continue;
		tr_write_trace(&lines, t, NULL);
		for (size_t k = 0, start = 0; k < lines.len; k++)
			if (lines.s[k] == '\n') {
				sb_adds(&r->near, "Y\t");
				tr_escape(&r->near, lines.s + start, k - start, 0);
				sb_addc(&r->near, '\n');
				start = k + 1;
			}
		break;
	}
	sb_free(&lines);
}

int
report_causes_line(report *r, char *line, size_t len, char *err, size_t errlen)
{
	if (line[0] == 'K') {
		if (!r->clock)
			r->clock = tr_clock_new();
		return tr_clock_merge_evidence(r->clock, line + 1, len - 1, err, errlen);
	}
	if (line[0] == 'Y' && len > 2 && line[1] == '\t' && !memchr(line + 2, '\t', len - 2)) {
		sb_add(&r->neighbours, line + 2, tr_unescape(line + 2, line + 2, len - 2));
		sb_addc(&r->neighbours, '\n');
		return 0;
	}
	snprintf(err, errlen, "bad Y record (want Y and a line of a trace, escaped)");
	return -1;
}

/* --- the merge's timelines --- */

int
report_timeline_line(report *r, tr_field *f, size_t nf)
{
	if (nf != 3 || !f[1].len || !f[2].len)
		return -1;
	GROW(r->tl_id, r->captl, r->ntl + 1);
	GROW(r->tl_svg, r->captl2, r->ntl + 1);
	for (int k = 1; k <= 2; k++)
		((char *)f[k].s)[f[k].len = tr_unescape((char *)f[k].s, f[k].s, f[k].len)] = '\0';
	r->tl_id[r->ntl] = xstrdup(f[1].s);
	r->tl_svg[r->ntl++] = xstrdup(f[2].s);
	return 0;
}

int
report_timelines_take(report *r)
{
	for (size_t i = 0; i < r->nslow; i++) {
		size_t k = 0;

		while (k < r->ntl && strcmp(r->tl_id[k], r->slow[i].trace_id) != 0)
			k++;
		if (k == r->ntl) {
			tr_warn("the partials hold no timeline of trace %s, one of the slowest: give "
				"phase 2 the chosen file of these partials' shards", r->slow[i].trace_id);
			return -1;
		}
		sb_clear(&r->slow[i].svg);
		sb_adds(&r->slow[i].svg, r->tl_svg[k]);
	}
	r->timelines_built = 1;
	return 0;
}

void
report_phase2_free(report *r)
{
	sb_free(&r->ranks);
	strmap_free(&r->bands);
	strmap_free(&r->chosen);
	sb_free(&r->timelines);
	for (size_t i = 0; i < r->ntl; i++) {
		free(r->tl_id[i]);
		free(r->tl_svg[i]);
	}
	free(r->tl_id);
	free(r->tl_svg);
	free(r->first_id);
	strmap_free(&r->offsets);
	free(r->shard_at);
	free(r->places);
	sb_free(&r->near);
	sb_free(&r->neighbours);
	tr_clock_free(r->clock);
}

/* --- the merge's ranks: tr-cp --flame --percentile's (cp_bands.h) --- */

int
report_ranks_line(cp_ranks *k, tr_field *f, size_t nf)
{
	int64_t lat;

	if (nf != 4 || f[2].len != 1 || (f[2].s[0] != '0' && f[2].s[0] != '1') || !f[3].len ||
	    parse_i64(f[1].s, f[1].len, &lat) < 0)
		return -1;
	if (f[2].s[0] == '0')	/* a long-lived stream is in no band */
		cp_ranks_add(k, 0, lat, f[3].s, f[3].len);
	return 0;
}

size_t
report_ranks_write(cp_ranks *k, const report_opts *o, strbuf *b)
{
	static const int dflt[] = {50, 95, 99};
	const int *pct = o->npct ? o->pct : dflt;
	size_t npct = o->npct ? o->npct : 3;

	sb_adds(b, "Q\t");
	report_pct_text(o, b);
	sb_addc(b, '\n');
	return 1 + cp_ranks_write_records(k, pct, npct, b, NULL);
}
