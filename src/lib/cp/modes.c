/* modes.c - tr-cp's modes (modes.h). Every mode is a row of (begin, add,
 * end): begin makes its state, add takes one picked trace with its critical
 * path, end writes what it gathered. What all modes share is here once: the
 * trace selection, the critical path, the PAG records passed to pagcp, the
 * line format's header. */
#include "cp/modes.h"

#include <stdlib.h>
#include <string.h>

#include "core/partial.h"
#include "core/shard.h"
#include "core/table.h"
#include "cp/baseline.h"
#include "cp/cp.h"
#include "cp/cp_bands.h"
#include "cp/cp_flame.h"
#include "cp/cp_links.h"
#include "cp/suspects.h"
#include "draw/dot.h"
#include "infer/hb.h"
#include "pag/pagcp.h"

struct cp_run {
	cp_run_opts o;
	const struct cp_mode_ops *ops;
	cp_trace cp;
	cp_summary *summary;
	cp_folded *folded;
	cp_whatif *whatif;
	cp_flames *flames;	/* --flame */
	cp_compare *compare;	/* --summary with --baseline */
	cp_suspects *suspects;	/* --suspects */
	size_t drawn;		/* --dot: traces drawn */
	int bad_key;		/* --summary names a tag no span has */
	size_t noutside, ntr_outside;	/* children left out, and their traces */
	pag_cp *pag;
	size_t pag_bad;
	int pag_alone;		/* no trace so far, and the rows are the only output
				 * at the end: a window's rows can go out at once */
	int header_pending;	/* filter: #tr/1 goes before the first trace or line,
				 * not before a report of PAG records alone */
	tr_trace slow;		/* --svg: the slowest picked trace, taken whole */
	int has_slow;
	int64_t svg_latency;
	cp_links *links;	/* --dot, --svg: linked traces drawn beside */
	size_t streams;		/* --svg: long-lived streams passed over */
	const char *empty;	/* --flame, --baseline: nothing to draw or compare */
	strbuf merged;		/* --merge of --whatif: the rows so far */
	char placed[512];	/* --baseline --bands: why this shard is not one phase 1 counted */
	cp_bands *bands;	/* --bands: the traces of each percentile's band */
	strbuf base_ranks;	/* --flame --percentile --baseline, phase 1: the
				 * baseline's records, read before the output opens */
	size_t nbase_ranks;
	hb_model *hb;		/* happens-before edges: --model, IE records */
	size_t nkids_model, nkids_guess;	/* children the edges named, and not */
};

typedef struct cp_mode_ops {
	void (*begin)(cp_run *r);
	/* one picked trace; analysed: its critical path is in r->cp */
	void (*add)(cp_run *r, tr_trace *t, int analysed, strbuf *out);
	/* after the last trace: into b, or straight to out */
	void (*end)(cp_run *r, strbuf *b, tr_output *out);
	int needs_cp;		/* add reads r->cp (all but --suspects) */
} cp_mode_ops;

static int
units_or(const cp_run *r, int dflt)
{
	return r->o.units < 0 ? dflt : r->o.units;
}

/* The line-format filter: cp.self tags, and C records with --sections. */

static void
add_self(void *ctx, const tr_trace *t, int32_t span, strbuf *extra)
{
	const cp_trace *c = ctx;

	(void)t;
	sb_add(extra, "\tcp.self=", 9);
	sb_addi(extra, c->self[span]);
	if (c->hb && c->state[span] != CP_OFF) {	/* over edges: its slack too */
		sb_add(extra, "\tcp.slack=", 10);
		sb_addi(extra, c->slack[span]);
	}
}

static void
write_sections(strbuf *out, const tr_trace *t, const cp_trace *c)
{
	for (size_t i = 0; i < c->nsec; i++) {
		const cp_section *s = &c->sec[i];

		sb_add(out, "C\t", 2);
		tr_escapes(out, t->trace_id, 0);
		sb_addc(out, '\t');
		tr_escapes(out, t->spans[s->span].span_id, 0);
		sb_addc(out, '\t');
		sb_addi(out, s->start);
		sb_addc(out, '\t');
		sb_addi(out, s->end);
		sb_addc(out, '\n');
	}
}

static void
filter_add(cp_run *r, tr_trace *t, int analysed, strbuf *out)
{
	/* cp.part is tr-pag's; a re-run replaces cp.self, and over edges cp.slack */
	tr_write_opts wo = {analysed && r->cp.hb ? "cp.s" : "cp.self", "C", analysed ? add_self : NULL, &r->cp};

	tr_write_trace(out, t, &wo);
	if (analysed && r->o.sections)
		write_sections(out, t, &r->cp);
}

/* --summary, alone or against --baseline. */

static void
summary_begin(cp_run *r)
{
	if (r->o.baseline)
		r->compare = cp_compare_new(r->o.summary_key);
	r->summary = cp_summary_new(r->o.summary_key, r->o.format);
	cp_summary_set_units(r->summary, units_or(r, TABLE_US));
}

static void
summary_add(cp_run *r, tr_trace *t, int analysed, strbuf *out)
{
	(void)analysed;
	(void)out;
	if (r->compare)
		cp_compare_add(r->compare, t, &r->cp, 0);
	else
		cp_summary_add(r->summary, t, &r->cp);
}

/* What a --summary --baseline partial is made for: kind "baseline-ranks"
 * (phase 1), "baseline-bands" (the merge of phase 1) or "baseline" (phase 2). */
static const char *
baseline_made_for(const cp_run *r, const char *kind, char *buf, size_t size)
{
	snprintf(buf, size, "%s key=%s overlap-allowance=%.17g", kind, r->o.summary_key, r->o.allowance);
	return buf;
}

/* --summary --baseline --partial: phase 1 (each side's count of traces),
 * or phase 2 with --bands (the sums), when the shard is one phase 1 counted. */
static void
compare_partial(cp_run *r, tr_output *out)
{
	char made_for[160];

	if (!r->o.bands) {
		cp_compare_write_counts(r->compare, baseline_made_for(r, "baseline-ranks", made_for,
								      sizeof made_for), out);
	} else if (cp_compare_placed(r->compare, r->o.bands, r->placed, sizeof r->placed) < 0)
		r->empty = r->placed;
	else
		cp_compare_write_partial(r->compare, baseline_made_for(r, "baseline", made_for, sizeof made_for),
					 out);
}

static void
summary_end(cp_run *r, strbuf *b, tr_output *out)
{
	if (r->compare && r->o.partial) {	/* a shard may hold no trace: the merge says so */
		compare_partial(r, out);
		return;
	}
	if (r->compare) {
		if (!cp_compare_ntraces(r->compare, 0))
			r->empty = "--baseline: no trace with a timed root to compare";
		else
			cp_compare_write(r->compare, b, r->o.format, units_or(r, TABLE_US));
		return;
	}
	/* a key no span has would make one group with an empty name */
	if (!(r->bad_key = cp_summary_unmatched(r->summary)))
		(r->o.partial ? cp_summary_write_partial : cp_summary_write)(r->summary, out);
}

/* --folded */

static void
folded_begin(cp_run *r)
{
	r->folded = cp_folded_new();
}

static void
folded_add(cp_run *r, tr_trace *t, int analysed, strbuf *out)
{
	(void)out;
	if (analysed)
		cp_folded_add(r->folded, t, &r->cp);
}

static void
folded_end(cp_run *r, strbuf *b, tr_output *out)
{
	(void)b;
	cp_folded_write(r->folded, out);
}

/* --dot */

static void
drawing_add(cp_run *r, tr_trace *t, int analysed, strbuf *out)
{
	(void)analysed;
	if (!r->drawn++)
		dot_begin(out, "tr-cp", "TB");
	cp_dot_trace(out, t, &r->cp, units_or(r, TABLE_AUTO));	/* a picture is for people */
	cp_links_dot(r->links, t, out);	/* its links to the traces drawn before it */
}

static void
drawing_end(cp_run *r, strbuf *b, tr_output *out)
{
	(void)out;
	if (!r->drawn)
		dot_begin(b, "tr-cp", "TB");
	dot_end(b);
}

/* --whatif: the rules were checked in cp_run_new. */

static void
whatif_add(cp_run *r, tr_trace *t, int analysed, strbuf *out)
{
	if (cp_whatif_counterfactual(r->whatif))
		cp_whatif_keep(r->whatif, t, 1);	/* predicted at the end */
	else if (analysed)
		cp_whatif_add(r->whatif, t, &r->cp, out);
}

static void
whatif_end(cp_run *r, strbuf *b, tr_output *out)
{
	(void)out;
	if (cp_whatif_counterfactual(r->whatif))
		cp_whatif_counter_finish(r->whatif, b);
	else
		cp_whatif_finish(r->whatif, b);
}

/* --svg: the slowest picked trace, kept (no copy: the reader gets the older
 * one's memory) and drawn once at the end; a slower one replaces it. */

static void
svg_add(cp_run *r, tr_trace *t, int analysed, strbuf *out)
{
	(void)out;
	if (analysed && !r->o.keep_streams && tr_pick_all(r->o.pick) &&
	    tr_span_is_stream(&t->spans[r->cp.root])) {
		r->streams++;	/* a connection's lifetime, not a request's latency */
		return;
	}
	if (analysed && (!r->has_slow || r->cp.root_duration > r->svg_latency)) {
		int had = r->has_slow;

		r->slow.files = t->files;
		tr_trace_swap(&r->slow, t);
		r->svg_latency = r->cp.root_duration;
		r->has_slow = 1;
		cp_links_svg_reset(r->links);
		if (!had)
			return;
	}
	cp_links_svg_offer(r->links, &r->slow, t);	/* t: the one not kept */
}

static void
svg_end(cp_run *r, strbuf *b, tr_output *out)
{
	(void)out;
	if (r->has_slow && cp_trace_run(&r->cp, &r->slow) == 0) {
		if (!cp_links_svg(r->links, b, &r->slow, &r->cp, &r->o.timeline))
			timeline_svg(b, &r->slow, &r->cp, &r->o.timeline);
	} else
		r->has_slow = 0;
}

/* --flame, alone or differential against --baseline. With --percentile
 * and --partial: phase 1 (no --bands) writes each trace's latency, phase 2
 * its stacks per band (cp_bands.h). */

static int
flame_phase1(const cp_run *r)
{
	return r->o.partial && r->o.npct && !r->o.bands;
}

static void
flame_begin(cp_run *r)
{
	r->flames = cp_flames_new();
	cp_flames_keep_streams(r->flames, r->o.keep_streams);
	cp_flames_set_graphs(r->flames, 1 + r->o.npct);
	if (r->o.baseline && (r->o.partial || r->o.merge))
		cp_flames_apart(r->flames);
}

/* What a --flame partial (kind "flame"), a phase-1 one ("flame-ranks") or
 * a bands file ("flame-bands") is made for; against a baseline, "flame"
 * reads "flame-baseline". */
static const char *
flame_made_for(const cp_run *r, const char *kind, char *buf, size_t size)
{
	int n = snprintf(buf, size, "flame%s%s overlap-allowance=%.17g", r->o.baseline ? "-baseline" : "",
			 kind + strlen("flame"), r->o.allowance);

	if (r->o.npct)
		n += snprintf(buf + n, size - (size_t)n, " keep-streams=%d", r->o.keep_streams);
	if (r->o.npct && strcmp(kind, "flame-ranks") != 0)	/* phase 1 ranks for any */
		n += snprintf(buf + n, size - (size_t)n, " percentiles=");
	for (size_t i = 0; i < r->o.npct && strcmp(kind, "flame-ranks") != 0; i++)
		n += snprintf(buf + n, size - (size_t)n, "%s%d", i ? "," : "", r->o.pct[i]);
	return buf;
}

/* Phase 1's header, then the baseline's records read before. */
static void
ranks_begin(cp_run *r, strbuf *out)
{
	char made_for[160];

	tr_partial_header(out, "cp", flame_made_for(r, "flame-ranks", made_for, sizeof made_for));
	sb_add(out, r->base_ranks.s, r->base_ranks.len);
}

/* A trace of side baseline: its record of phase 1, or its critical path
 * taken in with its bands. */
static void
flame_trace(cp_run *r, const tr_trace *t, const cp_trace *c, int baseline, strbuf *out)
{
	size_t before = cp_flames_ntraces(r->flames, baseline);
	int side = r->o.baseline ? baseline : -1;

	if (flame_phase1(r)) {
		if (c->root < 0)
			return;
		if (baseline)
			r->nbase_ranks++;
		else if (!r->drawn++)
			ranks_begin(r, out);
		cp_ranks_record(baseline ? &r->base_ranks : out, side, c->path_length, !r->o.keep_streams &&
				tr_span_is_stream(&t->spans[c->root]), t->trace_id);
		return;
	}
	cp_flames_add(r->flames, t, c, baseline);
	if (r->bands && cp_flames_ntraces(r->flames, baseline) > before)
		cp_flames_set_band(r->flames, baseline, cp_bands_of(r->bands, side < 0 ? 0 : side, t->trace_id));
}

static void
flame_add(cp_run *r, tr_trace *t, int analysed, strbuf *out)
{
	(void)analysed;
	flame_trace(r, t, &r->cp, 0, out);
}

static void
flame_end(cp_run *r, strbuf *b, tr_output *out)
{
	char made_for[160];

	if (flame_phase1(r)) {
		if (!r->drawn)
			ranks_begin(r, b);
		tr_partial_end(b, r->drawn + r->nbase_ranks);
		return;
	}
	if (r->o.partial) {	/* a shard may hold no trace: the merge says so */
		cp_flames_write_partial(r->flames, flame_made_for(r, "flame", made_for, sizeof made_for), out);
		return;
	}
	if (!cp_flames_ntraces(r->flames, 0)) {
		r->empty = "--flame: no trace with a timed root to draw";
		return;
	}
	cp_flames_svg(r->flames, b, r->o.pct, r->o.npct,
		      r->o.timeline.width > 0 ? r->o.timeline.width : 1000);
}

/* --suspects: reads spans, not critical paths. */

static void
suspects_begin(cp_run *r)
{
	r->suspects = cp_suspects_new();
}

static void
suspects_add(cp_run *r, tr_trace *t, int analysed, strbuf *out)
{
	(void)analysed;
	(void)out;
	cp_suspects_add(r->suspects, t, 0);
}

static void
suspects_end(cp_run *r, strbuf *b, tr_output *out)
{
	(void)out;
	if (!cp_suspects_ntraces(r->suspects, 0))
		r->empty = "--suspects: no trace in the incident";
	else if (!cp_suspects_common(r->suspects))
		r->empty = "--suspects: the baseline and the incident have no service in common";
	else
		cp_suspects_write(r->suspects, b, r->o.format, units_or(r, TABLE_MS));
}

static const cp_mode_ops modes[CP_NMODES] = {
	[CP_MODE_FILTER] = {NULL, filter_add, NULL, 1},
	[CP_MODE_SUMMARY] = {summary_begin, summary_add, summary_end, 1},
	[CP_MODE_FOLDED] = {folded_begin, folded_add, folded_end, 1},
	[CP_MODE_DOT] = {NULL, drawing_add, drawing_end, 1},
	[CP_MODE_WHATIF] = {NULL, whatif_add, whatif_end, 1},
	[CP_MODE_SVG] = {NULL, svg_add, svg_end, 1},
	[CP_MODE_FLAME] = {flame_begin, flame_add, flame_end, 1},
	[CP_MODE_SUSPECTS] = {suspects_begin, suspects_add, suspects_end, 0},
};

/* The line format's header, before the first record the filter writes. */
static void
records_begin(cp_run *r, strbuf *out)
{
	if (r->header_pending) {
		sb_adds(out, TR_FORMAT_HEADER "\n");
		r->header_pending = 0;
	}
}

static int
on_trace(void *ctx, tr_trace *t, strbuf *out)
{
	cp_run *r = ctx;
	int analysed;

	r->pag_alone = 0;	/* what it writes at the end comes before the windows' rows */
	records_begin(r, out);	/* on_trace never fails: the header stays */
	if (!tr_pick_match(r->o.pick, t->trace_id)) {
		if (r->o.mode == CP_MODE_FILTER)
			tr_write_trace(out, t, NULL);	/* not asked for: unchanged */
		else if (r->o.mode == CP_MODE_SVG && r->has_slow)
			cp_links_svg_offer(r->links, &r->slow, t);
		else if (r->o.mode == CP_MODE_WHATIF && cp_whatif_counterfactual(r->whatif))
			cp_whatif_keep(r->whatif, t, 0);	/* may delay those asked for */
		else if (r->o.mode == CP_MODE_DOT && cp_links_dot_wanted(r->links, t)) {
			cp_trace_run(&r->cp, t);	/* linked to one drawn: drawn beside it */
			drawing_add(r, t, 1, out);
		}
		return 0;
	}
	if (!r->ops->needs_cp) {
		r->ops->add(r, t, 0, out);
		return 0;
	}
	int bound = hb_bind(r->hb, t);

	if (bound < 0)
		return -1;	/* an IE record names no span of t: said */
	analysed = cp_trace_run_model(&r->cp, t, bound ? r->hb : NULL) == 0;
	r->nkids_model += r->cp.nkids_model;
	r->nkids_guess += r->cp.nkids_guess;
	r->noutside += r->cp.noutside;
	r->ntr_outside += r->cp.noutside > 0;
	r->ops->add(r, t, analysed, out);
	return 0;
}

static void
on_line(void *ctx, const char *line, size_t len, const char *where, strbuf *out)
{
	cp_run *r = ctx;

	if (pag_cp_is_record(line, len)) {
		if (pag_cp_feed(r->pag, line, len, where) < 0)
			r->pag_bad++;
		if (r->pag_alone)	/* the first window's rows before the input ends */
			pag_cp_take(r->pag, out);
		return;
	}
	if (r->o.mode == CP_MODE_FILTER) {
		records_begin(r, out);
		sb_add(out, line, len);
		sb_addc(out, '\n');
	}
}

static void
on_end(void *ctx, tr_output *out)
{
	cp_run *r = ctx;
	strbuf b = {0};

	if (r->ops->end)
		r->ops->end(r, &b, out);
	tr_output_sb(out, &b);
	sb_free(&b);
	if (pag_cp_has_input(r->pag) && pag_cp_report(r->pag, out) < 0)
		r->pag_bad++;
}

static void
add_baseline(void *ctx, const tr_trace *t, const cp_trace *c)
{
	cp_run *r = ctx;

	if (r->flames)
		flame_trace(r, t, c, 1, NULL);
	if (r->compare)
		cp_compare_add(r->compare, t, c, 1);
}

static void
add_suspects_baseline(void *ctx, tr_trace *t)
{
	cp_suspects_add(ctx, t, 1);
}

static void
add_whatif_baseline(void *ctx, const tr_trace *t, const cp_trace *c)
{
	cp_whatif_baseline_add(ctx, t, c);
}

static int
read_baseline(cp_run *r, const char *path)
{
	long n;

	if (r->whatif) {
		n = cp_read_traces(path, &r->cp, r->o.keep_going, r->o.max_spans, add_whatif_baseline,
				   r->whatif);
		if (n == 0)
			tr_warn("%s: --baseline: no trace", path);
		return n > 0 ? 0 : -1;
	}
	if (r->suspects) {
		n = tr_each_trace((char **)&path, NULL, 1, r->o.keep_going, r->o.max_spans, 0,
				  add_suspects_baseline, r->suspects);
		if (n < 0)
			return -1;
		if (n > 0)
			return 0;
		tr_warn("%s: --baseline: no trace", path);
		return -1;
	}
	n = cp_read_traces(path, &r->cp, r->o.keep_going, r->o.max_spans, add_baseline, r);
	if (n < 0)
		return -1;
	if (r->o.partial)	/* a shard: the merge checks the spread */
		return 0;
	return cp_baseline_check(path, n, r->flames ? cp_flames_ntraces(r->flames, 1) :
			 cp_compare_ntraces(r->compare, 1));
}

void
cp_percentiles_option(cp_run_opts *o, const char *arg)
{
	int n = cp_percentiles_parse(arg, o->pct, sizeof o->pct / sizeof o->pct[0]);

	if (n < 0)
		tr_usage_error("--percentile: not a list of 1 to 16 percentiles from 1 to 100: %s", arg);
	o->npct = (size_t)n;
}

/* --whatif: the rules, checked (a usage error each) with the options they
 * need or exclude. */
static void
whatif_begin(cp_run *r, int units)
{
	const cp_run_opts *o = &r->o;
	char err[256];

	r->whatif = cp_whatif_new(o->format);
	cp_whatif_set_units(r->whatif, units);
	for (size_t i = 0; i < o->nrules; i++)
		if (cp_whatif_add_rule(r->whatif, o->rules[i], err, sizeof err) < 0)
			tr_usage_error("--whatif: %s", err);
	cp_whatif_set_partial(r->whatif, o->partial, o->allowance);
	if (cp_whatif_counterfactual(r->whatif) && (o->partial || o->merge))
		tr_usage_error("--whatif: a rule that removes work or replaces waits needs every trace "
			       "at once (work in one shard delays requests in another): not with "
			       "--partial or --merge");
	if (cp_whatif_wants_baseline(r->whatif) && !o->baseline)
		tr_usage_error("--whatif: wait=baseline needs --baseline FILE: the waits it is "
			       "compared with");
	if (o->baseline && !cp_whatif_wants_baseline(r->whatif))
		tr_usage_error("--baseline goes with --whatif only for wait=baseline rules");
}

cp_run *
cp_run_new(const cp_run_opts *o, int *status)
{
	cp_run *r = xcalloc(1, sizeof *r);
	char err[256];
	int units;

	r->o = *o;
	r->ops = &modes[o->mode];
	units = units_or(r, TABLE_US);
	cp_trace_init(&r->cp, o->allowance);
	*status = TR_EXIT_OK;
	if (!(r->hb = hb_new(o->name)))
		tr_usage_error("--name: not a list of service, operation, kind, host, tag:KEY: %s", o->name);

	if (r->ops->begin)
		r->ops->begin(r);
	if (o->mode == CP_MODE_DOT || o->mode == CP_MODE_SVG)
		r->links = cp_links_new();
	if (o->mode == CP_MODE_WHATIF)
		whatif_begin(r, units);
	if (o->model && hb_load(r->hb, o->model) < 0)
		*status = TR_EXIT_INPUT;	/* said, file:line */
	else if (r->compare && o->bands &&
	    cp_compare_read_shards(r->compare, o->bands, baseline_made_for(r, "baseline-bands", err, sizeof err)) < 0)
		*status = TR_EXIT_INPUT;
	else if (o->bands && !r->compare && !(r->bands = cp_bands_read(o->bands, flame_made_for(r, "flame-bands", err, sizeof err),
								       o->baseline != NULL)))
		*status = TR_EXIT_INPUT;	/* before the baseline: its traces are banded too */
	else if (o->baseline && !o->merge && read_baseline(r, o->baseline) < 0)
		*status = TR_EXIT_INPUT;
	r->pag = pag_cp_new(&(pag_cp_opts){o->format == CP_CSV ? "csv" : o->format == CP_JSON ? "json" : "tsv",
					  1, o->max_windows, units});
	return r;
}

void
cp_run_filter(cp_run *r, tr_filter *f)
{
	f->pass_through = 0;	/* on_line passes lines; records_begin writes the header */
	r->header_pending = r->pag_alone = r->o.mode == CP_MODE_FILTER;
	f->read_ahead = r->o.mode == CP_MODE_SUSPECTS;	/* the reading is most of its work */
	f->on_trace = on_trace;
	f->on_line = on_line;
	f->on_end = on_end;
	f->ctx = r;
	if (f->where)	/* a --trace id may be in the input, not kept */
		tr_pick_filtered(r->o.pick, "--where");
}

static int
summary_line(void *ctx, char *line, size_t len, char *err, size_t errlen)
{
	return cp_summary_merge_line(ctx, line, len, err, errlen);
}

static int
folded_line(void *ctx, char *line, size_t len, char *err, size_t errlen)
{
	return cp_folded_sum_line(ctx, line, len, err, errlen);
}

static int
whatif_line(void *ctx, char *line, size_t len, char *err, size_t errlen)
{
	cp_run *r = ctx;

	return cp_whatif_merge_line(r->whatif, line, len, &r->merged, err, errlen);
}

static int
flame_line(void *ctx, char *line, size_t len, char *err, size_t errlen)
{
	return cp_flames_merge_line(ctx, line, len, err, errlen);
}

static int
ranks_line(void *ctx, char *line, size_t len, char *err, size_t errlen)
{
	return cp_ranks_line(ctx, line, len, err, errlen);
}

/* --flame --percentile --merge --ranks: phase 1's partials into the bands. */
static int
merge_ranks(cp_run *r, char **files, int nfiles, tr_output **out, const char *out_path)
{
	char buf[160];
	cp_ranks *k = cp_ranks_new(r->o.baseline != NULL);
	int status = TR_EXIT_INPUT;

	if (tr_partial_merge_files(files, nfiles, "cp", flame_made_for(r, "flame-ranks", buf, sizeof buf),
				   0, ranks_line, k) == 0) {
		*out = tr_output_open(out_path, 0);
		cp_ranks_write_bands(k, r->o.pct, r->o.npct, flame_made_for(r, "flame-bands", buf, sizeof buf),
				     *out);
		status = TR_EXIT_OK;
	}
	cp_ranks_free(k);
	return status;
}

/* --whatif and --flame: partials in their frame, made for the same rules
 * and overlap allowance; what one pass would write then, into r->merged. */
static int
merge_framed(cp_run *r, char **files, int nfiles, tr_output **out, const char *out_path)
{
	char buf[160];
	int whatif = r->o.mode == CP_MODE_WHATIF;
	const char *made_for = whatif ? cp_whatif_made_for(r->whatif, r->o.allowance)
				      : flame_made_for(r, "flame", buf, sizeof buf);

	if (!whatif && r->o.ranks)
		return merge_ranks(r, files, nfiles, out, out_path);
	if (tr_partial_merge_files(files, nfiles, "cp", made_for, 0, whatif ? whatif_line : flame_line,
				   whatif ? (void *)r : (void *)r->flames) < 0)
		return TR_EXIT_INPUT;
	if (!whatif && cp_flames_merged_whole(r->flames) < 0) {
		tr_warn("--flame --baseline --merge: the last partial holds the baseline's tree and not "
			"the incident's: it is not a whole partial");
		return TR_EXIT_INPUT;
	}
	if (!whatif && !r->o.partial && !cp_flames_ntraces(r->flames, 0)) {
		tr_warn("--flame: no trace with a timed root to draw");
		return TR_EXIT_INPUT;
	}
	if (!whatif && !r->o.partial && r->o.baseline && cp_flames_ntraces(r->flames, 1) < 2) {
		tr_warn("--baseline --merge: %zu baseline traces have a timed root; "
			"a baseline needs at least 2 to have a spread", cp_flames_ntraces(r->flames, 1));
		return TR_EXIT_INPUT;
	}
	*out = tr_output_open(out_path, 0);
	r->ops->end(r, &r->merged, *out);
	tr_output_sb(*out, &r->merged);
	if (whatif && !r->o.partial && cp_whatif_unmatched(r->whatif, r->o.verbose))
		return TR_EXIT_USAGE;
	return TR_EXIT_OK;
}

static int
shards_line(void *ctx, char *line, size_t len, char *err, size_t errlen)
{
	return cp_shards_line(ctx, line, len, err, errlen);
}

static int
compare_line(void *ctx, char *line, size_t len, char *err, size_t errlen)
{
	return cp_compare_merge_line(ctx, line, len, err, errlen);
}

static void compare_notes(cp_run *r);

/* --summary --baseline - --merge --ranks: phase 1's counts into each
 * shard's place; without --ranks, phase 2's sums into the table (or, with
 * --partial, one partial of them). */
static int
merge_compare(cp_run *r, char **files, int nfiles, tr_output **out, const char *out_path)
{
	char buf[160], what[512] = "";
	cp_shards *s = r->o.ranks ? cp_shards_new() : NULL;
	cp_compare *k = r->compare;
	strbuf b = {0};

	if (s) {
		if (tr_partial_merge_files(files, nfiles, "cp", baseline_made_for(r, "baseline-ranks", buf, sizeof buf),
					   0, shards_line, s) == 0)
			cp_shards_write(s, baseline_made_for(r, "baseline-bands", buf, sizeof buf),
					*out = tr_output_open(out_path, 0));
		cp_shards_free(s);
		return *out ? TR_EXIT_OK : TR_EXIT_INPUT;
	}
	if (tr_partial_merge_files(files, nfiles, "cp", baseline_made_for(r, "baseline", buf, sizeof buf), 0,
				   compare_line, k) < 0)
		return TR_EXIT_INPUT;
	if (r->o.partial) {
		cp_compare_write_partial(k, buf, *out = tr_output_open(out_path, 0));
		return TR_EXIT_OK;
	}
	if (cp_compare_merged(k, what, sizeof what) < 0)
		;	/* said in what */
	else if (!cp_compare_ntraces(k, 0))
		snprintf(what, sizeof what, "--baseline: no trace with a timed root to compare");
	else if (cp_compare_ntraces(k, 1) < 2)
		snprintf(what, sizeof what, "--baseline --merge: %zu baseline traces have a timed root; "
			 "a baseline needs at least 2 to have a spread", cp_compare_ntraces(k, 1));
	if (*what) {
		tr_warn("%s", what);
		return TR_EXIT_INPUT;
	}
	cp_compare_write(k, &b, r->o.format, units_or(r, TABLE_US));
	tr_output_sb(*out = tr_output_open(out_path, 0), &b);
	sb_free(&b);
	if (!r->o.quiet)
		compare_notes(r);
	return TR_EXIT_OK;
}

int
cp_mode_merges(enum cp_mode m)
{
	return m == CP_MODE_SUMMARY || m == CP_MODE_FOLDED || m == CP_MODE_WHATIF || m == CP_MODE_FLAME;
}

const char *
cp_merge_opts_error(const cp_run_opts *o)
{
	int flame = o->baseline && o->mode == CP_MODE_FLAME;
	int compare = o->baseline && o->mode == CP_MODE_SUMMARY;
	int two = o->npct || compare;	/* the modes in two phases */

	if ((o->partial || o->merge) && (!cp_mode_merges(o->mode) || (o->baseline && !compare && !flame)))
		return "--partial and --merge go with --summary and --flame (with --baseline too), --folded "
		       "and --whatif";
	if ((o->ranks && (!o->merge || o->partial || !two)) || (o->bands && (!o->partial || o->merge || !two)))
		return "--ranks goes with --flame --percentile or --summary --baseline, and --merge; --bands "
		       "with them and --partial";
	if (o->merge && (compare || flame) && strcmp(o->baseline, "-") != 0)
		return "--merge: the baseline is in the partials (give --baseline -)";
	if (o->partial && !o->merge && (compare || flame) && !strcmp(o->baseline, "-"))
		return "--partial: --baseline names the baseline's shard (not -)";
	return NULL;
}

int
cp_run_merge(cp_run *r, char **files, int nfiles, const char *out_path)
{
	cp_folded_sum *sum = r->o.mode == CP_MODE_FOLDED ? cp_folded_sum_new() : NULL;
	tr_output *out = NULL;
	int status;

	if (r->compare)
		status = merge_compare(r, files, nfiles, &out, out_path);
	else if (r->o.mode == CP_MODE_WHATIF || r->o.mode == CP_MODE_FLAME)
		status = merge_framed(r, files, nfiles, &out, out_path);
	else if ((status = sum ? tr_merge_files(files, nfiles, folded_line, sum)
			       : tr_partial_merge_files(files, nfiles, "cp", cp_summary_made_for(r->summary), 0,
							summary_line, r->summary) < 0 ? TR_EXIT_INPUT
											: TR_EXIT_OK) == TR_EXIT_OK) {
		out = tr_output_open(out_path, 0);
		if (sum)
			cp_folded_sum_write(sum, out);
		else
			(r->o.partial ? cp_summary_write_partial : cp_summary_write)(r->summary, out);
	}
	if (out)
		tr_output_close(out);
	cp_folded_sum_free(sum);
	return status;
}

/* What the ranking rests on and what may mislead it, then the verdict. */
static void
suspects_notes(cp_run *r)
{
	strbuf b = {0};
	const cp_suspect *rows;
	size_t n = cp_suspects_rank(r->suspects, &rows);
	char ev[160];

	if (r->o.verbose)
		cp_suspects_assumptions(r->suspects, &b);
	if (!r->o.quiet)
		cp_suspects_warnings(r->suspects, &b);
	for (char *line = b.s, *nl; line && (nl = strchr(line, '\n')); line = nl + 1) {
		*nl = 0;
		tr_warn("--suspects: %s", line);
	}
	sb_free(&b);
	if (r->o.quiet)
		return;
	if (!n) {
		tr_warn("--suspects: nothing stands out: no service's latency or failures differ "
			"beyond the baseline's spread");
		return;
	}
	cp_suspects_evidence(rows[0].evidence, ev, sizeof ev);
	tr_warn("--suspects: likely cause: %s (%s; confidence %s)", rows[0].service, ev,
		rows[0].confidence);
}

static void
compare_notes(cp_run *r)
{
	strbuf v = {0};

	cp_compare_verdict(r->compare, &v);
	tr_warn("--baseline: %s", v.s);
	if (r->o.verbose)
		tr_warn("--baseline: %zu span kinds inferred from process boundaries "
			"(service and host), where the export records none",
			cp_compare_inferred(r->compare));
	sb_free(&v);
}

/* Where the data did not support the tree, and what a picture left out. */
static void
data_notes(cp_run *r)
{
	if (r->noutside && !r->o.quiet)
		tr_warn("%zu spans in %zu traces lie wholly outside their parent (skewed clocks, or "
			"work that outlives it): left off the critical path with their subtrees, as "
			"Jaeger UI leaves them", r->noutside, r->ntr_outside);
	if (r->flames && r->o.npct)
		r->streams = cp_flames_streams(r->flames);
	if (r->streams && !r->o.quiet)
		tr_warn("left %zu long-lived streams out of the %s (--keep-streams keeps them)",
			r->streams, r->o.mode == CP_MODE_SVG ? "slowest trace" : "percentile flame graphs");
}

/* Which happens-before edges the critical paths followed, and --model's
 * events that no span matched; 1 when none did. */
static int
model_notes(cp_run *r)
{
	hb_counts k;
	const char *shown = hb_model_path(r->hb) ? hb_model_path(r->hb) : "(none)";

	hb_get_counts(r->hb, &k);
	if (hb_model_path(r->hb) && k.traces_model && !k.model_matched) {
		tr_warn("--model %s: no span of the input is named as the model's events (its first: "
			"\"%s\"; the closest span name: \"%s\"; --name gives the fields)",
			hb_model_path(r->hb), k.model_first ? k.model_first : "", k.closest ? k.closest : "");
		return 1;
	}
	/* which edges: with -v; children they leave to the guess: always */
	if ((k.traces_ie || k.traces_model) && (r->o.verbose || (r->nkids_guess && !r->o.quiet)))
		tr_warn("happens-before edges: %zu traces by their IE records, %zu by --model %s: "
			"%zu children waited for their model predecessors, %zu the edges do not name "
			"kept the timing guess", k.traces_ie, k.traces_model,
			shown, r->nkids_model, r->nkids_guess);
	return 0;
}

void
cp_run_notes(cp_run *r, int read_status, cp_outcome *w)
{
	int clean;

	*w = (cp_outcome){.pag_bad = r->pag_bad, .nothing = r->empty, .bad_key = r->bad_key};
	data_notes(r);
	w->model_unmatched = model_notes(r);
	if (r->whatif && !r->o.partial)	/* a rule may match in another shard: the merge says */
		w->whatif_unmatched = cp_whatif_unmatched(r->whatif, r->o.verbose);
	/* the baseline's verdict and the suspects are over a whole, clean read */
	clean = read_status == TR_EXIT_OK && !w->pag_bad && !w->whatif_unmatched;
	if (r->compare && !r->empty && !r->o.quiet && !r->o.partial && clean)
		compare_notes(r);
	if (r->suspects && !r->empty && clean)
		suspects_notes(r);
	w->trace_missing = tr_pick_missing(r->o.pick, "--trace");
	if (!w->nothing && r->o.mode == CP_MODE_SVG && !r->has_slow)
		w->nothing = "--svg: no trace with a timed root to draw";
	/* the line format is µs: --units had no table to act on */
	w->units_idle = r->o.units >= 0 && r->o.mode == CP_MODE_FILTER && !pag_cp_has_input(r->pag);
}

void
cp_run_free(cp_run *r)
{
	pag_cp_free(r->pag);
	cp_summary_free(r->summary);
	cp_folded_free(r->folded);
	cp_whatif_free(r->whatif);
	cp_flames_free(r->flames);
	cp_compare_free(r->compare);
	cp_suspects_free(r->suspects);
	cp_trace_free(&r->cp);
	tr_trace_free(&r->slow);
	cp_links_free(r->links);
	tr_pick_free(r->o.pick);
	sb_free(&r->merged);
	cp_bands_free(r->bands);
	sb_free(&r->base_ranks);
	hb_free(r->hb);
	free(r);
}
