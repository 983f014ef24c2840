/* report.c - tr-report's gathering: one pass over the traces feeds every
 * section (of the slowest requests only their places in the input are
 * kept, a slower one replacing the fastest kept), then a second pass draws
 * their timelines and runs tr-temporal over the traces again, asked about
 * the slowest requests only, for their causes. The first pass
 * copies the traces to a temporary file in the line format, so that the
 * second reads neither an export (parsing JSON again would double the
 * time) nor a pipe. */
#include "report_impl.h"
#include "exports.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "core/io.h"
#include "core/pick.h"
#include "temporal/temporal.h"
#include "draw/timeline.h"

/* --- the slowest requests ---
 *
 * The --top slowest are the first --top traces by latency, ties in the
 * order of the input: a trace replaces the kept one that comes last in
 * that order, and only when it is slower. The rule holds for any split of
 * the input, so that shards' candidates merge to the same traces
 * (report_partial.c). */

size_t
report_slow_last(const slow_trace *v, size_t n)
{
	size_t k = 0;

	for (size_t i = 1; i < n; i++)
		if (v[i].latency < v[k].latency ||
		    (v[i].latency == v[k].latency && v[i].ordinal > v[k].ordinal))
			k = i;
	return k;
}

static void
keep_if_slow(report *r, const tr_trace *t)
{
	size_t k = r->nslow;

	if (!r->o->keep_streams && tr_span_is_stream(&t->spans[r->cp.root])) {
		r->streams++;	/* a connection's lifetime, not a request's latency */
		return;
	}
	if (r->nslow == r->o->top) {	/* full: replace the fastest kept */
		k = report_slow_last(r->slow, r->nslow);
		if (r->cp.root_duration <= r->slow[k].latency)
			return;
		free(r->slow[k].trace_id);
		free(r->slow[k].root);
	} else
		r->nslow++;
	slow_trace *s = &r->slow[k];
	const tr_span *root = &t->spans[r->cp.root];

	s->latency = r->cp.root_duration;
	s->ordinal = r->ntraces;
	s->failed = r->trace_failed;
	s->trace_id = xstrdup(t->trace_id);
	s->root = xmalloc(strlen(root->service) + strlen(root->operation) + 3);
	sprintf(s->root, "%s: %s", root->service, root->operation);
}

/* In the second pass: the timeline of trace number ordinal, when it is one
 * of the slowest (drawn once, not each time a slower trace arrives). */
static void
draw_if_slow(report *r, const tr_trace *t, size_t ordinal)
{
	timeline_opts to = {.width = 0, .min_share = r->o->min_share};

	for (size_t i = 0; i < r->nslow; i++)
		if (r->slow[i].ordinal == ordinal) {
			if (cp_trace_run(&r->cp, t) < 0)	/* it ran in the first pass */
				tr_die(TR_EXIT_SYSTEM, "%s: internal error: trace %zu of the copy of the "
				       "input does not read back", r->copy, ordinal);
			sb_clear(&r->slow[i].svg);
			timeline_svg(&r->slow[i].svg, t, &r->cp, &to);
			return;
		}
}

/* --- latency per operation and the service graph --- */

uint32_t
report_service_of(report *r, const char *name)
{
	int added;
	strmap_slot *slot = strmap_intern(&r->svc_map, &r->mem, name, strlen(name), &added);

	if (added) {
		GROW(r->svc, r->capsvc, r->nsvc + 1);
		r->svc[r->nsvc++] = (svc_node){slot->key, 0, 0};
	}
	return (uint32_t)slot->val;
}

op_stats *
report_op_of(report *r, const char *service, const char *operation)
{
	size_t ls = sb_set_pair(&r->key, service, operation) - 1;
	int added;
	strmap_slot *slot = strmap_intern(&r->ops_map, &r->mem, r->key.s, r->key.len, &added);

	if (added) {
		GROW(r->ops, r->capops, r->nops + 1);
		r->ops[r->nops++] = (op_stats){slot->key, slot->key + ls + 1, NULL, 0, 0};
	}
	return &r->ops[slot->val];
}

static void
take_spans(report *r, const tr_trace *t)
{
	/* the calls between services as tr-infer --links counts them */
	if (!r->links)
		r->links = infer_links_new(INFER_LINKS_AUTO);
	infer_links_add_trace(r->links, t);
	for (size_t i = 0; i < t->nspans; i++) {
		const tr_span *s = &t->spans[i];
		uint32_t svc = report_service_of(r, s->service);

		r->svc[svc].spans++;
		if (s->parent < 0)
			r->svc[svc].root = 1;
		if (!(s->flags & TR_SPAN_HAS_TIME))
			continue;
		op_stats *op = report_op_of(r, s->service, s->operation);

		GROW(op->dur, op->cap, op->n + 1);
		op->dur[op->n++] = s->duration;
		if (!r->have_time || s->start < r->first)
			r->first = s->start;
		if (!r->have_time || tr_span_end(s) > r->last)
			r->last = tr_span_end(s);
		r->have_time = 1;
	}
}

static void
take_trace(report *r, const tr_trace *t)
{
	r->ntraces++;
	r->nspans += t->nspans;
	take_spans(r, t);
	if (r->suspects)
		cp_suspects_add(r->suspects, t, 0);
	report_take_failures(r, t);
	if (cp_trace_run(&r->cp, t) < 0)
		return;
	r->nanalysed++;
	keep_if_slow(r, t);
	cp_compare_add(r->compare, t, &r->cp, 0);
	cp_flames_add(r->flames, t, &r->cp, 0);
	if (r->o->partial)	/* over shards: the trace's rank or bands */
		report_rank_trace(r, t);
}

static void
take_baseline(void *ctx, const tr_trace *t, const cp_trace *c)
{
	report *r = ctx;

	cp_compare_add(r->compare, t, c, 1);
	cp_flames_add(r->flames, t, c, 1);
	cp_suspects_add(r->suspects, t, 1);
	report_take_baseline_failures(r, t);
}

/* --- reading --- */

/* The copy of the traces the second pass reads, removed however the run
 * ends. */
static FILE *
open_copy(report *r)
{
	const char *dir = getenv("TMPDIR");
	size_t n = (dir && *dir ? strlen(dir) : 4) + 32;
	int fd;
	FILE *f;

	r->copy = xmalloc(n);
	snprintf(r->copy, n, "%s/tr-report.XXXXXX", dir && *dir ? dir : "/tmp");
	if ((fd = mkstemp(r->copy)) < 0)
		tr_die(TR_EXIT_SYSTEM, "%s: cannot create a temporary file: %s", r->copy, strerror(errno));
	tr_tmpfile_hold(r->copy);
	if (!(f = fdopen(fd, "w")))
		tr_die(TR_EXIT_SYSTEM, "%s: %s", r->copy, strerror(errno));
	fputs(TR_FORMAT_HEADER "\n", f);
	return f;
}

static void
write_copy(report *r, FILE *f, strbuf *b, int last)
{
	if ((b->len >= TR_SPILL_BYTES || (last && b->len)) && fwrite(b->s, 1, b->len, f) != b->len)
		tr_die(TR_EXIT_SYSTEM, "%s: write error: %s", r->copy, strerror(errno));
	if (b->len >= TR_SPILL_BYTES || last)
		sb_clear(b);
	if (last && fclose(f) != 0)
		tr_die(TR_EXIT_SYSTEM, "%s: write error: %s", r->copy, strerror(errno));
}

/* --- the pass over the inputs (tr_filter's callbacks) --- */

int
report_trace(void *ctx, tr_trace *t, strbuf *out)
{
	report *r = ctx;

	(void)out;
	if (r->o->partial) {	/* no second pass: no copy */
		take_trace(r, t);
		report_near_trace(r, t);	/* the first; phase 2: the neighbours */
		return 0;
	}
	if (!r->copy_file)
		r->copy_file = open_copy(r);
	take_trace(r, t);
	tr_write_trace(&r->copy_buf, t, NULL);
	write_copy(r, r->copy_file, &r->copy_buf, 0);
	return 0;
}

void
report_end(void *ctx, tr_output *out)
{
	report *r = ctx;

	(void)out;
	if (r->o->partial)
		return;
	if (!r->copy_file)
		r->copy_file = open_copy(r);
	write_copy(r, r->copy_file, &r->copy_buf, 1);
	r->copy_file = NULL;
}

/* "D trace cause_trace cause_span role self_us delay_us label" */
static void
take_causes(report *r, strbuf *b)
{
	char *p = b->s, *end = b->s + b->len;

	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p)), *f[8];
		size_t nf = 0;

		if (!nl)
			nl = end;
		*nl = 0;
		if (p[0] == 'D' && p[1] == '\t') {
			for (char *q = p; q && nf < 8; nf++) {
				f[nf] = q;
				q = strchr(q, '\t');
				if (q)
					*q++ = 0;
			}
		}
		if (nf == 8) {
			int64_t self;

			if (parse_i64(f[5], strlen(f[5]), &self) == 0) {
				GROW(r->causes, r->capcauses, r->ncauses + 1);
				r->causes[r->ncauses++] = (cause){xstrdup(f[1]), xstrdup(f[2]),
								  xstrdup(f[4]), xstrdup(f[7]), self};
			}
		}
		p = nl + 1;
	}
	sb_clear(b);
}

/* tr-temporal's on_link: keep what the section of causes names. */
static void
keep_linked(void *ctx, const tp_link_row *row)
{
	report *r = ctx;

	GROW(r->linked, r->caplinked, r->nlinked + 1);
	r->linked[r->nlinked++] = (linked_work){xstrdup(row->trace_id), xstrdup(row->linked_trace),
						xstrdup(row->linked_root), row->delay};
}

/* Is trace number ordinal within a window of one of the slowest? Only
 * those are handed to tr-temporal: the others cannot change its answers
 * (it looks at TEMPORAL_WINDOW / 2 either side), and copying them into its
 * window would take most of the time. */
static int
near_slow(const report *r, size_t ordinal)
{
	for (size_t i = 0; i < r->nslow; i++) {
		size_t o = r->slow[i].ordinal;

		if (ordinal + TEMPORAL_WINDOW >= o && ordinal <= o + TEMPORAL_WINDOW)
			return 1;
	}
	return 0;
}

/* The second pass's trace: its timeline when it is one of the slowest,
 * to tr-temporal when it is near one. */
typedef struct explain_run {
	report *r;
	temporal *tp;
	strbuf b;
	size_t ordinal;
	int merged;	/* the merge's copy: the neighbours alone, no timeline */
} explain_run;

static void
explain_trace(void *ctx, tr_trace *t)
{
	explain_run *x = ctx;

	++x->ordinal;
	if (!x->merged)
		draw_if_slow(x->r, t, x->ordinal);
	if (x->merged || near_slow(x->r, x->ordinal))
		tp_add_trace(x->tp, t, &x->b);
	if (x->b.len >= TR_SPILL_BYTES)
		take_causes(x->r, &x->b);
}

/* tr-temporal over the traces again, asked about the slowest requests,
 * with tr-temporal's defaults: queues inferred, clock offsets from a pass
 * over the whole copy, so that the causes are those tr-temporal --explain
 * gives. The merge of phase 2's partials (merged_clock) runs it over a
 * copy of the traces near the slowest alone, with the shards' clocks. */
static void
explain_slowest(report *r, tr_clock *merged_clock)
{
	const report_opts *o = r->o;
	tr_pick *pick = tr_pick_new();
	tp_opts to = {.format = TP_LINE, .window = TEMPORAL_WINDOW, .quiet = 1, .units = -1,
		      .infer_queues = 1};
	char *files[1] = {r->copy};
	/* The user's --max-spans, as the first pass read; no byte limit: a
	 * trace's copy may be a few bytes longer than its input (a T record
	 * where the input had none, an export's process tags on each span),
	 * and every trace in it passed --max-bytes already. The merge's clock
	 * is that of the shards' evidence. */
	tr_clock *clk = merged_clock ? merged_clock :
			tr_clock_from_inputs(files, 1, NULL, o->max_spans, SIZE_MAX, TR_READ_LINES_ONLY);
	explain_run x = {.r = r, .merged = merged_clock != NULL};

	for (size_t i = 0; i < r->nslow; i++)
		tr_pick_add(pick, r->slow[i].trace_id);
	to.pick = pick;
	to.clock = clk;
	to.on_link = keep_linked;
	to.link_ctx = r;
	x.tp = tp_new(&to);
	if (tr_each_trace_flags(files, NULL, 1, TR_READ_LINES_ONLY | TR_READ_QUIET, o->max_spans, SIZE_MAX,
				explain_trace, &x) < 0)	/* the copy holds the good traces only */
		tr_die(TR_EXIT_SYSTEM, "%s: internal error: trace %zu of the copy of the input "
		       "does not read back", r->copy, x.ordinal + 1);
	tp_finish(x.tp, &x.b);
	take_causes(r, &x.b);
	r->temporal_ran = 1;
	tp_free(x.tp);
	if (!merged_clock)
		tr_clock_free(clk);
	tr_pick_free(pick);
	sb_free(&x.b);
}

static int
slow_cmp(const void *pa, const void *pb)
{
	const slow_trace *a = pa, *b = pb;

	if (a->latency != b->latency)
		return a->latency > b->latency ? -1 : 1;
	return strcmp(a->trace_id, b->trace_id);
}

static void
report_clear(report *r)
{
	sb_free(&r->copy_buf);
	for (size_t i = 0; i < r->o->top; i++) {
		free(r->slow[i].trace_id);
		free(r->slow[i].root);
		sb_free(&r->slow[i].svg);
	}
	free(r->slow);
	for (size_t i = 0; i < r->nops; i++)
		free(r->ops[i].dur);
	free(r->ops);
	for (size_t i = 0; i < r->ncauses; i++) {
		free(r->causes[i].trace_id);
		free(r->causes[i].cause_trace);
		free(r->causes[i].role);
		free(r->causes[i].label);
	}
	free(r->causes);
	for (size_t i = 0; i < r->nlinked; i++) {
		free(r->linked[i].trace_id);
		free(r->linked[i].linked_trace);
		free(r->linked[i].linked_root);
	}
	free(r->linked);
	free(r->svc);
	for (size_t i = 0; i < r->ninputs; i++)
		free(r->inputs[i]);
	free(r->inputs);
	infer_links_free(r->links);
	report_phase2_free(r);
	/* r->copy stays held: removed at exit */
	strmap_free(&r->ops_map);
	strmap_free(&r->svc_map);
	cp_compare_free(r->compare);
	cp_flames_free(r->flames);
	cp_suspects_free(r->suspects);
	cp_trace_free(&r->cp);
	arena_free(&r->mem);
	sb_free(&r->key);
	report_failures_free(r);
}

report *
report_new(const report_opts *o)
{
	report *r = xcalloc(1, sizeof *r);

	r->o = o;
	cp_trace_init(&r->cp, 0.01);
	r->slow = xcalloc(o->top ? o->top : 1, sizeof *r->slow);
	r->compare = cp_compare_new("service");
	r->flames = cp_flames_new();
	if (o->baseline)
		r->suspects = cp_suspects_new();
	cp_flames_keep_streams(r->flames, o->keep_streams);
	if (o->chosen || (o->merge && o->page))	/* phase 2's graphs: one per band too */
		cp_flames_set_graphs(r->flames, 1 + (o->npct ? o->npct : 3));
	return r;
}

int
report_read_baseline(report *r)
{
	const report_opts *o = r->o;
	long nbase;

	if (o->chosen)	/* over shards, phase 2: not a baseline, the chosen file */
		return report_read_chosen(r);
	if (!o->baseline)
		return TR_EXIT_OK;
	nbase = cp_read_traces_limited(o->baseline, &r->cp, o->keep_going, o->max_spans, o->max_bytes,
				       take_baseline, r);
	if (nbase < 0 || cp_baseline_check(o->baseline, nbase, cp_compare_ntraces(r->compare, 1)) < 0)
		return TR_EXIT_INPUT;
	return TR_EXIT_OK;
}

int
report_read(void *ctx, const tr_filter_counts *c, int status)
{
	report *r = ctx;

	r->read = *c;
	return status;
}

report_counts
report_counts_get(const report *r)
{
	return (report_counts){r->ntraces, r->nspans, r->nanalysed, r->read};
}

void
report_explain_merged(report *r, const strbuf *lines, tr_clock *clk)
{
	FILE *f = open_copy(r);
	strbuf b = {0};

	sb_add(&b, lines->s, lines->len);
	write_copy(r, f, &b, 1);
	sb_free(&b);
	explain_slowest(r, clk);
	r->causes_built = 1;
}

int
report_page_notes(const report *r)
{
	if (r->from_partials && !r->nanalysed && (r->ntraces || !r->o->allow_empty)) {
		tr_warn("%zu traces read, none with a timed root: nothing to report", r->ntraces);
		return -1;	/* a pass over the traces: the tool's verdict says it */
	}
	if (r->streams && !r->o->quiet)
		tr_warn("left %zu long-lived streams out of the slowest requests and the "
			"percentile flame graphs (--keep-streams keeps them)", r->streams);
	return 0;
}

void
report_write_out(report *r)
{
	const report_opts *o = r->o;
	strbuf doc = {0};
	report_pics pics = {0};

	report_page_notes(r);
	qsort(r->slow, r->nslow, sizeof *r->slow, slow_cmp);
	explain_slowest(r, NULL);
	report_write(r, &doc, &pics);
	tr_output *out = tr_output_open(o->out_path, 0);

	tr_output_sb(out, &doc);
	tr_output_flush(out);
	/* every byte is written: the pictures, then the report, go in place */
	report_pics_commit(r, &pics);
	tr_output_close(out);
	sb_free(&doc);
}

void
report_free(report *r)
{
	if (!r)
		return;
	report_clear(r);
	free(r);
}
