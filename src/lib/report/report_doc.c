/* report_doc.c - tr-report's document: the same sections as HTML (one
 * self-contained page: inline SVG and CSS, nothing fetched, no script) or
 * as Markdown with each picture in an SVG file beside it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/io.h"
#include "report_impl.h"
#include "draw/svg.h"
#include "core/table.h"

#define MAX_OPS 40		/* operations listed, most spans first */
#define MAX_CAUSES 5		/* causes listed per slow request */

typedef struct doc {
	strbuf *b;
	int md;
	const char *out_path;	/* Markdown: pictures go beside it */
	size_t ncols;
	report_pics *pics;	/* Markdown: the picture files, to commit */
} doc;

static void
text(doc *d, const char *s)
{
	if (!d->md) {
		svg_escape(d->b, s);
		return;
	}
	for (; *s; s++) {	/* a table cell and emphasis must stay intact */
		if (strchr("|*_`<>[]\\", *s))
			sb_addc(d->b, '\\');
		sb_addc(d->b, *s == '\n' ? ' ' : *s);
	}
}

static void
heading(doc *d, const char *id, const char *title)
{
	if (d->md)
		sb_adds(d->b, "\n## ");
	else
		sb_addf(d->b, "<h2 id=\"%s\">", id);
	text(d, title);
	sb_adds(d->b, d->md ? "\n\n" : "</h2>\n");
}

static void
para(doc *d, const char *s)
{
	if (!d->md)
		sb_adds(d->b, "<p>");
	text(d, s);
	sb_adds(d->b, d->md ? "\n\n" : "</p>\n");
}

static void
table_head(doc *d, const char *const *cols, size_t n)
{
	d->ncols = n;
	sb_adds(d->b, d->md ? "|" : "<table>\n<tr>");
	for (size_t i = 0; i < n; i++) {
		sb_adds(d->b, d->md ? " " : "<th>");
		text(d, cols[i]);
		sb_adds(d->b, d->md ? " |" : "</th>");
	}
	sb_adds(d->b, d->md ? "\n|" : "</tr>\n");
	for (size_t i = 0; d->md && i < n; i++)
		sb_adds(d->b, i ? "---:|" : "---|");
	if (d->md)
		sb_addc(d->b, '\n');
}

/* A cell; href: a link within the document (HTML) or NULL. */
static void
cell(doc *d, size_t col, const char *s, const char *href)
{
	if (d->md) {
		/* a Markdown link target cannot hold every character an id may */
		if (href && strspn(href, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789-_.") != strlen(href))
			href = NULL;
		sb_adds(d->b, col ? " " : "| ");
		if (href)
			sb_addc(d->b, '[');
		text(d, s);
		if (href) {
			sb_adds(d->b, "](#");
			sb_adds(d->b, href);
			sb_addc(d->b, ')');
		}
		sb_adds(d->b, col + 1 == d->ncols ? " |\n" : " |");
		return;
	}
	sb_adds(d->b, col ? "" : "<tr>");
	sb_adds(d->b, "<td>");
	if (href) {
		sb_adds(d->b, "<a href=\"#");
		svg_escape(d->b, href);
		sb_adds(d->b, "\">");
	}
	text(d, s);
	sb_adds(d->b, href ? "</a></td>" : "</td>");
	if (col + 1 == d->ncols)
		sb_adds(d->b, "</tr>\n");
}

static void
table_foot(doc *d)
{
	sb_adds(d->b, d->md ? "\n" : "</table>\n");
}

static void
cell_dur(doc *d, size_t col, int64_t us)
{
	char buf[40];

	table_duration(buf, sizeof buf, us, TABLE_AUTO);
	cell(d, col, buf, NULL);
}

/* A picture: inline in HTML (in a div with id), a file beside the
 * Markdown named NAME.svg after the output's stem. */
/* A Markdown link's destination "(...)": a file name with a space or a
 * parenthesis goes in <...> (CommonMark), any < or > in it %-encoded. */
static void
md_link_dest(strbuf *b, const char *p)
{
	int pointy = strpbrk(p, " ()<>") != NULL;

	sb_adds(b, pointy ? "(<" : "(");
	for (; *p; p++) {
		if (*p == '<' || *p == '>')
			sb_addf(b, "%%%02X", (unsigned char)*p);
		else
			sb_addc(b, *p);
	}
	sb_adds(b, pointy ? ">)" : ")");
}

/* The file of picture name beside the report: report.md -> report-name.svg. */
static void
pic_path(strbuf *path, const char *out_path, const char *name)
{
	const char *slash = strrchr(out_path, '/'), *dot;
	size_t dir = slash ? (size_t)(slash - out_path) + 1 : 0;

	dot = strrchr(out_path + dir, '.');
	sb_add(path, out_path, dot ? (size_t)(dot - out_path) : strlen(out_path));
	sb_addf(path, "-%s.svg", name);
}

void
report_pics_commit(report *r, report_pics *pics)
{
	strbuf path = {0};

	for (size_t i = 0; i < pics->n; i++)
		tr_output_close(pics->o[i]);
	free(pics->o);
	for (size_t i = r->nslow + 1; r->o->markdown && r->o->out_path; i++) {
		char name[32];

		snprintf(name, sizeof name, "timeline-%zu", i);
		sb_clear(&path);
		pic_path(&path, r->o->out_path, name);
		if (unlink(path.s) < 0)
			break;
	}
	sb_free(&path);
}

static void
picture(doc *d, const strbuf *svg, const char *name, const char *id, const char *alt)
{
	if (!d->md) {
		sb_adds(d->b, "<div class=\"pic\" id=\"");
		svg_escape(d->b, id);
		sb_adds(d->b, "\">\n");
		sb_add(d->b, svg->s, svg->len);
		sb_adds(d->b, "</div>\n");
		return;
	}
	const char *slash = strrchr(d->out_path, '/');
	size_t dir = slash ? (size_t)(slash - d->out_path) + 1 : 0;
	strbuf path = {0};

	pic_path(&path, d->out_path, name);
	tr_output *o = tr_output_open(path.s, 0);
	tr_output_sb(o, svg);
	tr_output_flush(o);	/* a full disk is told now, before anything is in place */
	GROW(d->pics->o, d->pics->cap, d->pics->n + 1);
	d->pics->o[d->pics->n++] = o;
	sb_adds(d->b, "<a id=\"");
	svg_escape(d->b, id);
	sb_adds(d->b, "\"></a>\n\n![");
	text(d, alt);
	sb_addc(d->b, ']');
	md_link_dest(d->b, path.s + dir);
	sb_adds(d->b, "\n\n");
	sb_free(&path);
}

static void
utc(char *buf, size_t size, int64_t us)
{
	time_t s = (time_t)(us / 1000000);
	struct tm tm;

	if (gmtime_r(&s, &tm))
		strftime(buf, size, "%Y-%m-%d %H:%M:%S UTC", &tm);
	else
		snprintf(buf, size, "%lld us", (long long)us);
}

/* A section the merge of partials does not build (built: the partials
 * held it): said, in its place. */
static int
not_from_partials(doc *d, const report *r, int built)
{
	if (r->from_partials && !built)
		para(d, "Not built from partials: this section needs a pass over all the traces "
			"(tr-report without --merge).");
	return r->from_partials && !built;
}

static void
section_inputs(doc *d, report *r)
{
	static const char *const cols[] = {"input", "value"};
	char a[64], b[64], dur[40];

	heading(d, "inputs", "Inputs");
	table_head(d, cols, 2);
	for (size_t i = 0; r->from_partials && i < r->ninputs; i++) {	/* the shards' */
		cell(d, 0, "file", NULL);
		cell(d, 1, r->inputs[i], NULL);
	}
	for (int i = 0; !r->from_partials && (i < r->o->nfiles || (i == 0 && !r->o->nfiles)); i++) {
		cell(d, 0, "file", NULL);
		cell(d, 1, r->o->nfiles ? r->o->files[i] : "-", NULL);	/* "-": stdin */
	}
	if (r->o->baseline) {
		cell(d, 0, "baseline", NULL);
		cell(d, 1, r->o->baseline, NULL);
	}
	snprintf(a, sizeof a, "%zu (%zu with a timed root)", r->ntraces, r->nanalysed);
	cell(d, 0, "traces", NULL);
	cell(d, 1, a, NULL);
	snprintf(a, sizeof a, "%zu", r->nspans);
	cell(d, 0, "spans", NULL);
	cell(d, 1, a, NULL);
	utc(a, sizeof a, r->first);
	utc(b, sizeof b, r->last);
	table_duration(dur, sizeof dur, r->last - r->first, TABLE_AUTO);
	cell(d, 0, "time range", NULL);
	{
		char range[200];

		if (r->nanalysed)
			snprintf(range, sizeof range, "%s to %s (%s)", a, b, dur);
		else	/* --allow-empty on no trace: no time to show */
			snprintf(range, sizeof range, "none: no trace in the input");
		cell(d, 1, range, NULL);
	}
	table_foot(d);
}

static void
section_slowest(doc *d, report *r)
{
	static const char *const cols[] = {"trace", "request", "latency", "failed spans"};
	strbuf id = {0};
	char buf[32];

	heading(d, "slowest", "Slowest requests");
	para(d, "Each links to its timeline at the end: spans in tree order, the critical path "
		"solid, each critical span's share of it written beside it.");
	if (r->streams) {
		snprintf(buf, sizeof buf, "%zu", r->streams);
		sb_clear(&id);
		sb_addf(&id, "%s long-lived streams (a root operation naming a Stream: a connection's "
			"lifetime, not a request's latency) are left out; --keep-streams ranks them.", buf);
		para(d, id.s);
	}
	table_head(d, cols, 4);
	for (size_t i = 0; i < r->nslow; i++) {
		sb_clear(&id);
		sb_addf(&id, "trace-%s", r->slow[i].trace_id);
		cell(d, 0, r->slow[i].trace_id, id.s);
		cell(d, 1, r->slow[i].root, NULL);
		cell_dur(d, 2, r->slow[i].latency);
		snprintf(buf, sizeof buf, "%zu", r->slow[i].failed);
		cell(d, 3, buf, NULL);
	}
	table_foot(d);
	sb_free(&id);
}

static int
fail_cmp(const void *pa, const void *pb)
{
	const fail_row *a = pa, *b = pb;
	int c;

	if (a->failed != b->failed)
		return a->failed > b->failed ? -1 : 1;
	if ((c = strcmp(a->service, b->service)))
		return c;
	if (a->operation && (c = strcmp(a->operation, b->operation)))
		return c;
	return a->message ? strcmp(a->message, b->message) : 0;
}

/* One table of x's rows that failed, most failures first: ncols of
 * service, operation, message, then spans and rate unless messages. */
static void
fail_table_rows(doc *d, fail_table *x, const char *const *cols, size_t ncols)
{
	char buf[48];
	size_t c, shown = 0;
	fail_row *v = xmalloc((x->n + 1) * sizeof *v);	/* x->map indexes x->v */

	if (x->n)
		memcpy(v, x->v, x->n * sizeof *v);
	qsort(v, x->n, sizeof *v, fail_cmp);
	table_head(d, cols, ncols);
	for (size_t i = 0; i < x->n && v[i].failed && shown++ < MAX_OPS; i++) {
		const fail_row *row = &v[i];

		c = 0;
		cell(d, c++, row->service, NULL);
		if (row->operation)
			cell(d, c++, row->operation, NULL);
		if (row->message)
			cell(d, c++, row->message, NULL);
		snprintf(buf, sizeof buf, "%zu", row->failed);
		cell(d, c++, buf, NULL);
		if (!row->message) {
			snprintf(buf, sizeof buf, "%zu", row->spans);
			cell(d, c++, buf, NULL);
			snprintf(buf, sizeof buf, "%.1f%%", 100.0 * (double)row->failed / (double)row->spans);
			cell(d, c++, buf, NULL);
		}
		cell(d, c, row->example, NULL);
	}
	table_foot(d);
	free(v);
}

static void
section_failures(doc *d, report *r)
{
	static const char *const svc_cols[] = {"service", "failed", "spans", "error rate", "e.g. trace"};
	static const char *const op_cols[] = {"service", "operation", "failed", "spans", "error rate",
					      "e.g. trace"};
	static const char *const msg_cols[] = {"service", "operation", "message", "failed", "e.g. trace"};
	strbuf b = {0};

	heading(d, "failures", "Failures");
	sb_addf(&b, "%zu failed spans of %zu (%.1f%%), by the rule of tr-format(5): OpenTelemetry "
		"status, an error tag, an HTTP or gRPC status, an exception event.", r->nfailed,
		r->nspans, r->nspans ? 100.0 * (double)r->nfailed / (double)r->nspans : 0.0);
	para(d, b.s);
	if (r->nfailed) {
		para(d, "Per service:");
		fail_table_rows(d, &r->fail_svc, svc_cols, 5);
		para(d, "Per operation:");
		fail_table_rows(d, &r->fail_op, op_cols, 6);
		para(d, "Messages, as recorded:");
		fail_table_rows(d, &r->fail_msg, msg_cols, 5);
	}
	sb_free(&b);
}

/* Last: the tables above link down to them. */
static void
section_timelines(doc *d, report *r)
{
	strbuf id = {0}, name = {0}, alt = {0};

	heading(d, "timelines", "Timelines of the slowest requests");
	if (not_from_partials(d, r, r->timelines_built))
		return;
	for (size_t i = 0; i < r->nslow; i++) {
		sb_clear(&id);
		sb_addf(&id, "trace-%s", r->slow[i].trace_id);
		sb_clear(&name);
		sb_addf(&name, "timeline-%zu", i + 1);
		sb_clear(&alt);
		sb_addf(&alt, "timeline of trace %s", r->slow[i].trace_id);
		picture(d, &r->slow[i].svg, name.s, id.s, alt.s);
	}
	sb_free(&id);
	sb_free(&name);
	sb_free(&alt);
}

static int
ops_cmp(const void *pa, const void *pb)
{
	const op_stats *a = pa, *b = pb;
	int c;

	if (a->n != b->n)
		return a->n > b->n ? -1 : 1;
	if ((c = strcmp(a->service, b->service)))
		return c;
	return strcmp(a->operation, b->operation);
}

static void
section_latency(doc *d, report *r)
{
	static const char *const cols[] = {"service", "operation", "spans", "p50", "p95", "p99", "max",
					   "failed"};
	char buf[80];

	heading(d, "latency", "Latency per operation");
	if (r->nops)	/* none: r->ops is NULL, which qsort must not get */
		qsort(r->ops, r->nops, sizeof *r->ops, ops_cmp);
	if (r->nops > MAX_OPS) {
		snprintf(buf, sizeof buf, "The %d operations with most spans of %zu.", MAX_OPS, r->nops);
		para(d, buf);
	}
	table_head(d, cols, 8);
	for (size_t i = 0; i < r->nops && i < MAX_OPS; i++) {
		op_stats *op = &r->ops[i];

		qsort(op->dur, op->n, sizeof *op->dur, cmp_i64);
		cell(d, 0, op->service, NULL);
		cell(d, 1, op->operation, NULL);
		snprintf(buf, sizeof buf, "%zu", op->n);
		cell(d, 2, buf, NULL);
		cell_dur(d, 3, cp_percentile(op->dur, op->n, 50));
		cell_dur(d, 4, cp_percentile(op->dur, op->n, 95));
		cell_dur(d, 5, cp_percentile(op->dur, op->n, 99));
		cell_dur(d, 6, op->dur[op->n - 1]);
		const fail_row *f = report_fail_op(r, op->service, op->operation);
		snprintf(buf, sizeof buf, "%zu", f ? f->failed : 0);
		cell(d, 7, buf, NULL);
	}
	table_foot(d);
}

static void
section_critical_path(doc *d, report *r)
{
	static const char *const cols[] = {"service", "per request", "share", "failed spans"};
	const cp_diff *rows;
	size_t n = cp_compare_rows(r->compare, &rows), k;
	double total = 0;
	strbuf svg = {0};
	char buf[40];
	static const int dflt[] = {50, 95, 99};

	heading(d, "critical-path", "Critical-path time per service");
	if (not_from_partials(d, r, r->cp_built))
		return;
	para(d, "Mean time per request on the critical path (Jaeger UI's and CRISP's), "
		"most first; the flame graphs below show where it goes, over every request and "
		"for the requests around each latency percentile.");
	for (size_t i = 0; i < n; i++)
		total += rows[i].after;
	table_head(d, cols, 4);
	/* with a baseline the rows come by difference: by time here */
	size_t *ord = xmalloc((n ? n : 1) * sizeof *ord);

	for (size_t i = 0; i < n; i++)	/* insertion: a few services */
		for (ord[i] = i, k = i; k > 0 && rows[ord[k]].after > rows[ord[k - 1]].after; k--) {
			size_t t = ord[k];

			ord[k] = ord[k - 1];
			ord[k - 1] = t;
		}
	for (size_t i = 0; i < n; i++) {
		const cp_diff *row = &rows[ord[i]];

		if (row->after <= 0)
			continue;
		cell(d, 0, row->service, NULL);
		cell_dur(d, 1, (int64_t)(row->after + 0.5));
		snprintf(buf, sizeof buf, "%.1f%%", total > 0 ? 100 * row->after / total : 0);
		cell(d, 2, buf, NULL);
		const fail_row *f = report_fail_service(r, row->service);
		snprintf(buf, sizeof buf, "%zu", f ? f->failed : 0);
		cell(d, 3, buf, NULL);
	}
	free(ord);
	table_foot(d);
	cp_flames_svg(r->flames, &svg, r->o->npct ? r->o->pct : dflt, r->o->npct ? r->o->npct : 3,
		      1000);
	picture(d, &svg, "flame", "flame", r->o->baseline ?
		"differential critical-path flame graphs" : "critical-path flame graphs");
	sb_free(&svg);
}

static const char *
slow_index(report *r, const char *trace_id)
{
	for (size_t i = 0; i < r->nslow; i++)
		if (strcmp(r->slow[i].trace_id, trace_id) == 0)
			return r->slow[i].trace_id;
	return NULL;
}

/* Below the causes, for each slow request whose answer followed a link:
 * "work in linked trace X (service:op), N ms", one line a linked trace. */
static void
causes_linked(doc *d, const report *r)
{
	strbuf line = {0};
	char dur[40];

	for (size_t s = 0; s < r->nslow; s++)
		for (size_t i = 0; i < r->nlinked; i++) {
			const linked_work *l = &r->linked[i];

			if (strcmp(l->trace_id, r->slow[s].trace_id) != 0)
				continue;
			table_duration(dur, sizeof dur, l->delay, TABLE_AUTO);
			sb_clear(&line);
			sb_addf(&line, "Slow request %s: work in linked trace %s", l->trace_id,
				l->linked_trace);
			if (*l->linked_root)
				sb_addf(&line, " (%s)", l->linked_root);
			sb_addf(&line, ", %s.", dur);
			para(d, line.s);
		}
	sb_free(&line);
}

static void
section_causes(doc *d, report *r)
{
	static const char *const cols[] = {"slow request", "cause", "role", "time", "in trace"};
	strbuf href = {0};

	heading(d, "causes", "Top causes of the slowest requests (tr-temporal)");
	if (not_from_partials(d, r, r->causes_built))
		return;
	para(d, "Zeno's temporal provenance: each slow request's latency split among what caused "
		"it, work of other traces that held a resource it waited for included (role "
		"sequencing); \"in trace\" names the trace the cause ran in.");
	if (!r->ncauses) {
		para(d, "tr-temporal found no causes for these requests.");
		return;
	}
	table_head(d, cols, 5);
	for (size_t s = 0; s < r->nslow; s++) {
		size_t shown = 0;

		for (size_t i = 0; i < r->ncauses && shown < MAX_CAUSES; i++) {
			const cause *c = &r->causes[i];
			int other = strcmp(c->cause_trace, c->trace_id) != 0;

			if (strcmp(c->trace_id, r->slow[s].trace_id) != 0)
				continue;
			shown++;
			sb_clear(&href);
			sb_addf(&href, "trace-%s", c->trace_id);
			cell(d, 0, c->trace_id, href.s);
			cell(d, 1, c->label, NULL);
			cell(d, 2, c->role, NULL);
			cell_dur(d, 3, c->self);
			sb_clear(&href);
			sb_addf(&href, "trace-%s", c->cause_trace);
			cell(d, 4, other ? c->cause_trace : "(its own)",
			     other && slow_index(r, c->cause_trace) ? href.s : NULL);
		}
	}
	table_foot(d);
	causes_linked(d, r);
	sb_free(&href);
}

static void
section_graph(doc *d, report *r)
{
	strbuf svg = {0};

	heading(d, "services", "Service graph");
	para(d, "Calls between services as tr-infer --links counts them (the same rules and "
		"counts), over every trace; callers above their callees, each call labelled with "
		"its count, and red and dashed with its errors when some failed.");
	report_service_graph(r, &svg);
	picture(d, &svg, "services", "service-graph", "service graph");
	sb_free(&svg);
}

/* "12.5%", or "-" for a side without the service. */
static void
rate_cell(doc *d, size_t col, double rate)
{
	char buf[32];

	snprintf(buf, sizeof buf, rate < 0 ? "-" : "%.1f%%", rate);
	cell(d, col, buf, NULL);
}

/* Error rates before and after, overall and per service, the largest
 * change first. */
static void
baseline_failures(doc *d, report *r)
{
	static const char *const cols[] = {"service", "error rate before", "error rate after", "change"};
	fail_change *rows;
	size_t n = report_failure_changes(r, &rows);
	char buf[200];

	snprintf(buf, sizeof buf, "Failed spans (tr-format(5), FAILURES): before %zu of %zu (%.1f%%), "
		 "after %zu of %zu (%.1f%%).", r->base_failed, r->base_spans,
		 r->base_spans ? 100.0 * (double)r->base_failed / (double)r->base_spans : 0.0,
		 r->nfailed, r->nspans, r->nspans ? 100.0 * (double)r->nfailed / (double)r->nspans : 0.0);
	para(d, buf);
	table_head(d, cols, 4);
	for (size_t i = 0; i < n && i < MAX_OPS; i++) {
		double b = rows[i].before < 0 ? 0 : rows[i].before, a = rows[i].after < 0 ? 0 : rows[i].after;

		cell(d, 0, rows[i].service, NULL);
		rate_cell(d, 1, rows[i].before);
		rate_cell(d, 2, rows[i].after);
		snprintf(buf, sizeof buf, "%+.1f points", a - b);
		cell(d, 3, buf, NULL);
	}
	table_foot(d);
	free(rows);
}

static void
section_baseline(doc *d, report *r)
{
	static const char *const cols[] = {"service", "before", "after", "difference", "z", "differs"};
	const cp_diff *rows;
	size_t n;
	strbuf v = {0};
	char buf[40];

	heading(d, "baseline", "Against the baseline");
	cp_compare_verdict(r->compare, &v);	/* before the rows: it makes them anew */
	n = cp_compare_rows(r->compare, &rows);
	para(d, v.s);
	para(d, "Critical-path time per request before (the baseline) and after (these inputs); "
		"z is the difference in standard errors of the baseline's spread, measured over "
		"batches of consecutive requests. The differential flame graph above is red where "
		"a frame's own time grew, blue where it shrank.");
	table_head(d, cols, 6);
	for (size_t i = 0; i < n; i++) {
		cell(d, 0, rows[i].service, NULL);
		cell_dur(d, 1, (int64_t)(rows[i].before + 0.5));
		cell_dur(d, 2, (int64_t)(rows[i].after + 0.5));
		table_duration(buf + 1, sizeof buf - 1,
			       (int64_t)(rows[i].after - rows[i].before + (rows[i].after >= rows[i].before ? 0.5 : -0.5)),
			       TABLE_AUTO);
		buf[0] = '+';
		cell(d, 3, rows[i].after >= rows[i].before ? buf : buf + 1, NULL);
		snprintf(buf, sizeof buf, "%.1f", rows[i].t);
		cell(d, 4, buf, NULL);
		cell(d, 5, rows[i].significant ? "yes" : "no", NULL);
	}
	table_foot(d);
	sb_free(&v);
	baseline_failures(d, r);
}

/* "Likely cause": tr-cp --suspects' ranking, what it rests on and what
 * may mislead it. */
static void
section_likely_cause(doc *d, report *r)
{
	static const char *const cols[] = {"rank", "service", "score", "evidence", "delay per request",
					   "failures per request", "confidence"};
	const cp_suspect *rows;
	size_t n = cp_suspects_rank(r->suspects, &rows);
	strbuf v = {0}, notes = {0};
	char buf[160];

	heading(d, "likely-cause", "Likely cause");
	if (!n)
		sb_adds(&v, "Nothing stands out: no service's latency or failures differ beyond the "
			"baseline's spread.");
	else {
		cp_suspects_evidence(rows[0].evidence, buf, sizeof buf);
		sb_addf(&v, "Most likely %s (%s; confidence %s).", rows[0].service, buf, rows[0].confidence);
	}
	para(d, v.s);
	cp_suspects_warnings(r->suspects, &notes);
	cp_suspects_assumptions(r->suspects, &notes);
	for (char *line = notes.s, *nl; line && (nl = strchr(line, '\n')); line = nl + 1) {
		*nl = 0;
		line[0] = (char)(line[0] >= 'a' && line[0] <= 'z' ? line[0] - 'a' + 'A' : line[0]);
		para(d, line);
	}
	if (n) {
		table_head(d, cols, 7);
		for (size_t i = 0; i < n; i++) {
			snprintf(buf, sizeof buf, "%zu", i + 1);
			cell(d, 0, buf, NULL);
			cell(d, 1, rows[i].service, NULL);
			snprintf(buf, sizeof buf, "%.3f", rows[i].score);
			cell(d, 2, buf, NULL);
			cp_suspects_evidence(rows[i].evidence, buf, sizeof buf);
			cell(d, 3, buf, NULL);
			cell_dur(d, 4, (int64_t)(rows[i].delay_us + 0.5));
			snprintf(buf, sizeof buf, "%.3f to %.3f", rows[i].err_before, rows[i].err_after);
			cell(d, 5, buf, NULL);
			cell(d, 6, rows[i].confidence, NULL);
		}
		table_foot(d);
	}
	sb_free(&v);
	sb_free(&notes);
}

static const char style[] =
	"body{font-family:DejaVu Sans,Verdana,Arial,sans-serif;margin:1.5em auto;max-width:1040px;"
	"color:#222;padding:0 1em}\n"
	"h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}\n"
	"table{border-collapse:collapse;font-size:0.9em}\n"
	"td,th{border:1px solid #ddd;padding:2px 8px;text-align:left}\n"
	"th{background:#f0f0f0}tr:nth-child(even) td{background:#fafafa}\n"
	".pic{margin:1em 0;overflow-x:auto}nav a{margin-right:1em}\n";

void
report_write(report *r, strbuf *out, report_pics *pics)
{
	doc d = {out, r->o->markdown, r->o->out_path, 0, pics};

	if (d.md)
		sb_adds(out, "# Trace report\n\n");
	else {
		sb_adds(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
			"<title>Trace report</title>\n<style>\n");
		sb_adds(out, style);
		sb_adds(out, "</style>\n</head>\n<body>\n<h1>Trace report</h1>\n<nav>");
		if (r->o->baseline)
			sb_adds(out, "<a href=\"#likely-cause\">Likely cause</a>");
		sb_adds(out, "<a href=\"#inputs\">Inputs</a><a href=\"#slowest\">Slowest requests</a>"
			"<a href=\"#failures\">Failures</a>"
			"<a href=\"#latency\">Latency</a><a href=\"#critical-path\">Critical path</a>"
			"<a href=\"#causes\">Causes</a><a href=\"#services\">Service graph</a>");
		if (r->o->baseline)
			sb_adds(out, "<a href=\"#baseline\">Baseline</a>");
		sb_adds(out, "<a href=\"#timelines\">Timelines</a></nav>\n");
	}
	if (r->o->baseline)
		section_likely_cause(&d, r);
	section_inputs(&d, r);
	section_slowest(&d, r);
	section_failures(&d, r);
	section_latency(&d, r);
	section_critical_path(&d, r);
	section_causes(&d, r);
	section_graph(&d, r);
	if (r->o->baseline)
		section_baseline(&d, r);
	section_timelines(&d, r);
	if (!d.md)
		sb_adds(out, "</body>\n</html>\n");
}
