/* ingest.c - tr-ingest's converter: its lifecycle, one file read, and the
 * format dispatch.
 *
 * The layers of ingest/, each calling only those below it (and files of its
 * own layer), each with a private header for the layer above:
 *   1. public (ingest.h): ingest.c, one file and the format dispatch;
 *      lines.c, an export where the line format is expected
 *   2. drivers (drive.h, crew.h): parallel.c, files.c, crew.c, prescan.c
 *   3. scanner (scan.h): walk.c, element.c; JSON, no format
 *   4. converters (convert.h): jaeger.c, otlp.c, zipkin.c, detect.c
 *   5. assembly (batch.h, context.h): batch.c, merge.c, zipkin_merge.c,
 *      copies.c, context.c
 *   6. jtree.c (jtree.h): the JSON value tree
 * tests/cycles.bats checks the order from the symbols each object uses.
 *
 * A file is told by its shape: the scanner walks the top-level values, and
 * the dispatcher here says which array holds the data (a Jaeger answer's
 * "data", OTLP's "resourceSpans", Tempo's "batches", a Zipkin list) and
 * which converter each element goes to; a top-level object that is no
 * envelope is read whole and told by its keys. */
#include "ingest/drive.h"
#include "ingest/scan.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Where the elements of an array go: their converter; a Jaeger element is
 * a whole trace (written at once, on the worker threads with -j, counted
 * against --max-spans); else which first pass lets its traces out early. */
typedef struct element_route {
	elem_fn fn;
	int jaeger;
	enum prescan_kind prescan;
} element_route;

static int elem_array(ingest *g, const jtree *v);

static const element_route jaeger_traces = {jaeger_trace, 1, PRESCAN_JAEGER};
static const element_route otlp_resources = {otlp_resource_spans, 0, PRESCAN_OTLP};
static const element_route array_elements = {elem_array, 0, PRESCAN_ZIPKIN};

/* What the file is: the first shape read names it (-v). */
static void
set_format(ingest *g, const char *name)
{
	if (!g->format_name)
		g->format_name = name;
}

/* Traces queued before a message of the scanner come first; if one of them
 * stopped the file, a single thread would never have got there. */
static int
settle_pool(ingest *g)
{
	if (g->pool && !g->pool_status)
		g->pool_status = ig_pool_drain(g->pool);
	return g->pool_status;
}

/* Give one element to its converter, or to the worker threads. */
static int
convert(ingest *g, jscan *j, const void *arg)
{
	const element_route *route = arg;
	elem_fn fn = route->fn;
	int jaeger = route->jaeger;
	uint64_t line = j->line, col = scan_col(j);
	size_t start = 0;
	int r;

	j->count_spans = jaeger;
	r = scan_value(g, j, &start);
	j->count_spans = 0;
	if (r < 0) {
		/* A Jaeger element is one trace: cut off or malformed, it is one
		 * broken trace, so that -v accounts for it. Not when a trace queued
		 * before it stopped the file: one thread would not have got here. */
		if (jaeger && !g->pool_status)
			g->stats.broken++;
		return -2;
	}
	if (r > 0) {
		/* Too big to keep: a broken element, and the file goes on. */
		char what[96];

		if (r == SCAN_OVER_SPANS)
			snprintf(what, sizeof what, "trace with more than --max-spans %zu spans: skipped",
				 g->opts.max_spans);
		else
			snprintf(what, sizeof what, "JSON value larger than --max-bytes %zu", g->opts.max_bytes);
		if (g->pool)
			r = ig_pool_fail(g->pool, line, col, what);
		else {
			scan_error_at(g, j, line, col, "%s", what);
			if (jaeger)
				g->stats.broken++;
			else
				ig_lost_element(g);
			r = -1;
		}
		j->keep = j->pos;
		return r;
	}
	if (g->pool && jaeger)
		r = ig_pool_submit(g->pool, j->buf + start, j->pos - start, line, col);
	else {
		sb_clear(&g->msg);
		r = ig_element(g, j->buf + start, j->pos - start, line, col, fn, jaeger, &g->msg);
		if (r < 0)
			tr_warn("%s", g->msg.s);
		if (!jaeger)	/* Jaeger traces are whole elements: written at once */
			ig_after_element(g, j->base + j->pos, route->prescan);
		tr_progress_tick(&g->progress, g->bytes_before + tr_input_bytes(j->in), g->stats.traces);
	}
	j->keep = j->pos;
	return r;
}

static int
allows(const ingest *g, enum ingest_format f)
{
	enum ingest_format o = g->opts.format;

	if (o == INGEST_ZIPKIN1 || o == INGEST_ZIPKIN2)
		o = INGEST_ZIPKIN;
	return o == INGEST_AUTO || o == f;
}

static int
zipkin_version(const ingest *g)
{
	return g->opts.format == INGEST_ZIPKIN1 ? 1 : g->opts.format == INGEST_ZIPKIN2 ? 2 : 0;
}

/* A top-level array element: a Zipkin span, a Zipkin trace given as an array
 * of spans, or a span of a Jaeger span list (jaeger-anonymizer). */
static int
elem_array(ingest *g, const jtree *v)
{
	size_t i;
	const jtree *span;
	int failed = 0;
	const char *foreign;

	if (!g->format_name && (foreign = ig_foreign_element(v))) {
		g->foreign = 1;
		return ig_fail(g, "%s", foreign);
	}
	if (ig_is_jaeger_span(v) && allows(g, INGEST_JAEGER)) {
		set_format(g, "Jaeger span list");
		return jaeger_span(g, v);
	}
	if (!allows(g, INGEST_ZIPKIN))
		return ig_fail(g, "not a Jaeger span: \"spanID\" or \"operationName\" is missing");
	set_format(g, "Zipkin");
	if (!jtree_is_array(v))
		return zipkin_span(g, v, zipkin_version(g));
	jtree_array_foreach(v, i, span)
		if (zipkin_span(g, span, zipkin_version(g)) < 0) {
			failed = 1;
			if (!g->opts.keep_going)
				break;
		}
	return failed ? -1 : 0;
}

/* The value of a top-level key that holds the data: walk it element by element. */
static int
data_value(ingest *g, jscan *j, const char *key, int *seen)
{
	int c = scan_ws(j);

	if (strcmp(key, "data") == 0 && allows(g, INGEST_JAEGER)) {
		*seen = INGEST_JAEGER;
		set_format(g, c == '[' ? "Jaeger query API" : "Jaeger UI trace");
		if (c == '[')
			return scan_array(g, j, convert, &jaeger_traces);
		if (c == 'n') {		/* "data": null */
			jtree *v = scan_read(g, j, &g->json_mem);

			arena_reset(&g->json_mem);
			return v ? 0 : -2;
		}
		return convert(g, j, &jaeger_traces);	/* the UI's data-as-object */
	}
	/* Tempo's /api/traces/<id> holds OTLP resources under "batches". */
	if ((strcmp(key, "resourceSpans") == 0 || strcmp(key, "batches") == 0) && allows(g, INGEST_OTLP) &&
	    c == '[') {
		*seen = INGEST_OTLP;
		g->trace_documents++;
		set_format(g, key[0] == 'b' ? "Tempo trace (batches)" : "OTLP JSON");
		return scan_array(g, j, convert, &otlp_resources);
	}
	/* The OpenTelemetry Collector's file exporter writes every signal to
	 * one file, a document a line: the others are counted and skipped. */
	if (strcmp(key, "resourceMetrics") == 0 || strcmp(key, "resourceLogs") == 0 ||
	    strcmp(key, "resourceProfiles") == 0) {
		size_t start;
		int r = scan_value(g, j, &start);

		if (r < 0)
			return -2;
		j->keep = j->pos;
		*seen = -1;
		g->other_signals++;
		return 0;
	}
	return 1;	/* not a data key */
}

static int
other_document(ingest *g, const jtree *rest)
{
	int r;


	const char *foreign = ig_foreign_document(rest);

	if (foreign) {
		g->foreign = 1;
		return ig_fail(g, "%s", foreign);
	}
	if ((jtree_get(rest, "result") || jtree_get(rest, "trace")) && allows(g, INGEST_OTLP)) {
		set_format(g, jtree_get(rest, "result") ? "Jaeger api_v3 (OTLP)" : "Tempo trace (v2)");
		g->trace_documents++;
		r = otlp_document(g, rest);
	} else if (jtree_get(rest, "spans") && allows(g, INGEST_JAEGER)) {
		set_format(g, "Jaeger trace");
		r = jaeger_trace(g, rest);
		if (r < 0)
			g->stats.broken++;
		else
			ig_flush(g);
	} else if (jtree_get(rest, "traceId") && allows(g, INGEST_ZIPKIN)) {
		set_format(g, "Zipkin span");
		r = zipkin_span(g, rest, zipkin_version(g));
	}
	else if (g->opts.format)
		return ig_fail(g, "not a Jaeger, Zipkin or OTLP document of the format given with -f");
	else
		return ig_fail(g, "not a Jaeger, Zipkin or OTLP document");
	return r;
}

/* The "errors" of a Jaeger query API answer (a service or trace it did not
 * find): each said with its message and code; bad input, whatever "data"
 * held besides. */
static int
api_errors(ingest *g, jscan *j, const jtree *rest, uint64_t line, uint64_t col)
{
	const jtree *errs = jtree_get(rest, "errors"), *e;
	size_t i, n = 0;

	if (!jtree_is_array(errs))
		return 0;
	jtree_array_foreach(errs, i, e) {
		const jtree *m = jtree_get(e, "msg"), *c = jtree_get(e, "code"), *id = jtree_get(e, "traceID");
		strbuf text = {0};

		sb_adds(&text, jtree_str(m) ? jtree_str(m) : "(no message)");
		if (jtree_is_integer(c))
			sb_addf(&text, " (code %lld)", (long long)jtree_int(c));
		if (jtree_str(id))
			sb_addf(&text, ", trace %s", jtree_str(id));
		scan_error_at(g, j, line, col, "the Jaeger query API answered with an error: %s", text.s);
		sb_free(&text);
		n++;
	}
	return n ? -1 : 0;
}

/* A top-level object: an envelope whose data is walked, or a document that is
 * read whole (a bare Jaeger trace, the OTLP api_v3 wrapper, one Zipkin span). */
static int
walk_object(ingest *g, jscan *j)
{
	jtree *rest = arena_alloc(&g->doc_mem, sizeof *rest), *last = NULL;
	uint64_t kept = 0;
	strbuf key = {0};
	int seen = 0, failed = 0, r, c;
	uint64_t line = j->line, col = scan_col(j);

	memset(rest, 0, sizeof *rest);
	rest->type = JTREE_OBJECT;
	scan_advance(j);	/* { */
	for (;;) {
		c = scan_ws(j);
		if (c == '}') {
			scan_advance(j);
			break;
		}
		if (scan_key(g, j, &key) < 0)
			goto malformed;
		r = data_value(g, j, key.s, &seen);
		if (r == -2)
			goto malformed;
		if (r < 0) {
			failed = 1;
			if (!g->opts.keep_going)
				goto out;
		}
		if (r == 1 && scan_member(g, j, rest, &last, &key, &kept, line, col) < 0)
			goto malformed;
		j->keep = j->pos;
		c = scan_ws(j);
		if (c == ',')
			scan_advance(j);
		else if (c != '}') {
			scan_error(g, j, c < 0 ? "unexpected end of input in an object" : "expected ',' or '}'");
			goto malformed;
		}
	}
	if (seen == INGEST_JAEGER && api_errors(g, j, rest, line, col) < 0)
		failed = 1;
	if (!seen) {
		g->err[0] = '\0';
		g->err_line = line;
		g->err_col = col;
		if (other_document(g, rest) < 0) {
			scan_error_at(g, j, line, col, "%s", g->err);
			failed = 1;
		}
	}
out:
	arena_reset(&g->doc_mem);
	sb_free(&key);
	return failed ? -1 : 0;
malformed:
	/* A document read whole (a bare Jaeger trace, an OTLP api_v3 document)
	 * is lost: one broken trace, unless a trace before it stopped the file. */
	if (!seen && !g->pool_status)
		g->stats.broken++;
	arena_reset(&g->doc_mem);
	sb_free(&key);
	return -2;
}

static int
walk_documents(ingest *g, jscan *j)
{
	int c, failed = 0, r;

	scan_skip_bom(j);
	while ((c = scan_ws(j)) >= 0) {
		g->documents++;
		if (c == '{')
			r = walk_object(g, j);
		else if (c == '[' && (allows(g, INGEST_ZIPKIN) || allows(g, INGEST_JAEGER)))
			r = scan_array(g, j, convert, &array_elements);
		else if (c == '#' && !g->format_name) {
			scan_error(g, j, "looks like the tr line format already: tr-ingest reads it from a "
					 "pipe with --shard 0/1; the other tools read it directly");
			return -2;
		} else {
			scan_error(g, j, c == '[' ? "a JSON array is Zipkin or a Jaeger span list, not the format given with -f"
						  : "not JSON: expected '{' or '['");
			return -2;
		}
		if (r == -2)
			return -2;
		if (r < 0) {
			failed = 1;
			if (!g->opts.keep_going)
				return -1;
		}
		j->keep = j->pos;
	}
	return failed ? -1 : 0;
}

int
ingest_format_parse(const char *name)
{
	static const char *const names[] = {"auto", "jaeger", "otlp", "zipkin", "zipkin1", "zipkin2"};

	for (int i = 0; i < 6; i++)
		if (strcmp(name, names[i]) == 0)
			return i;
	return -1;
}

ingest *
ingest_new(const ingest_opts *o, tr_output *out)
{
	ingest *g = ig_context_new(o, out);

	if (o->threads > 1)
		g->pool = ig_pool_new(g, o->threads);
	return g;
}

void
ingest_shape(const ingest *g, const tr_input *in, strbuf *b)
{
	const char *zip = tr_input_compression(in);

	if (g->format_name)
		sb_adds(b, g->format_name);
	else
		sb_adds(b, g->documents ? "no trace format recognised" : "empty");
	if (g->documents > 1)
		sb_adds(b, " (JSON Lines)");
	if (zip) {
		sb_adds(b, ", ");
		sb_adds(b, zip);
	}
}

/* -v: what a file was read as and how it went, one whole message. */
static void
warn_file_status(const ingest *g, const tr_input *in, int failed)
{
	strbuf shape = {0};

	ingest_shape(g, in, &shape);
	if (failed)
		tr_warn("%s: %s: had errors", g->file, shape.s);
	else
		tr_warn("%s: %s: ok", g->file, shape.s);
	sb_free(&shape);
}

/* The OpenTelemetry Collector's other signals: one note, or an error when
 * the file held nothing else. */
static int
report_other_signals(ingest *g)
{
	if (!g->other_signals)
		return 0;
	if (!g->trace_documents && !g->format_name) {
		tr_warn("%s: holds %zu OTLP metrics, logs or profiles documents and no traces", g->file,
			g->other_signals);
		return -1;
	}
	if (!g->opts.quiet)
		tr_warn("%s: skipped %zu OTLP metrics, logs or profiles documents (not traces)",
			g->file, g->other_signals);
	return 0;
}

int
ingest_file(ingest *g, const char *path)
{
	tr_input *in = tr_input_try_open(path);
	int r;

	if (!in) {
		/* Like any bad input: named, counted, and -k goes on. */
		tr_warn("%s: %s", path, strerror(errno));
		g->stats.files++;
		return -1;
	}
	r = ingest_input(g, in, path, tr_input_name(in));
	g->bytes_before += tr_input_bytes(in);
	tr_input_close(in);
	return r;
}

int
ingest_input(ingest *g, tr_input *in, const char *path, const char *name)
{
	jscan j = {.in = in, .settle = settle_pool};
	int r;

	ig_prescan_reset(g, path);
	/* Nothing of a gzip member or zstd frame that fails its check is
	 * converted: the input ends before it, and says why at the end. */
	tr_input_check(in);
	j.line = 1;
	g->file = name;
	g->file_failed = 0;
	g->stats.files++;
	size_t broken0 = g->stats.broken;
	g->batch_broken = 0;
	g->format_name = NULL;
	g->foreign = 0;
	g->documents = g->trace_documents = g->other_signals = 0;
	r = walk_documents(g, &j);
	if (r == 0 && report_other_signals(g) < 0)
		r = -2;
	if (g->pool) {
		/* Errors of queued traces show up as they are written, in order. */
		int s = g->pool_status ? g->pool_status : ig_pool_drain(g->pool);

		if (s < 0 && (r == 0 || s == -1))
			r = s;
		g->pool_status = 0;
	}
	/* A cut input is told unless a broken trace stopped the file before:
	 * how far the input was read by then depends on buffering and threads. */
	if (!(r == -1 && !g->opts.keep_going) && tr_input_report(j.in, g->file) < 0)
		r = -2;
	if (r == -2 || (r < 0 && !g->opts.keep_going) || g->batch_broken) {
		/* Spans waiting for the end of the file may belong to traces we did
		 * not read whole (an element lost with its trace id): none is written. */
		ig_count_batch_broken(g);
		ig_discard(g);
	} else
		ig_flush(g);
	if (g->stats.broken > broken0)
		r = -1;
	if (g->file_failed && r == 0)
		r = -1;
	if (g->opts.verbose)
		warn_file_status(g, j.in, r < 0);
	free(j.buf);
	return r < 0 ? -1 : 0;
}

int
ingest_files(ingest *g, const ingest_list *l)
{
	return ig_files_run(g, l, ingest_file);
}

void
ingest_set_output(ingest *g, tr_output *out)
{
	g->out = out;
}

const ingest_stats *
ingest_stats_get(const ingest *g)
{
	return &g->stats;
}

void
ingest_end(ingest *g)
{
	tr_progress_done(&g->progress);
}

void
ingest_free(ingest *g)
{
	ig_pool_free(g->pool);
	ig_context_free(g);
}
