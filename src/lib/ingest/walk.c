/* walk.c - walk a JSON file without holding it whole, hand each trace (Jaeger)
 * or span (Zipkin) or resource (OTLP) to its converter.
 *
 * A small scanner finds where each element of the top-level array, or of a
 * top-level object's "data", "resourceSpans" or "batches" array, begins and
 * ends; yajl parses one element at a time into an arena tree (jtree.h). So a
 * Jaeger export of any size needs memory for its largest trace only, and an
 * error points at a line and column of the file. Files that are several JSON
 * documents (JSON Lines) are read the same way. */
#include "ingest_impl.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct jscan {
	tr_input *in;
	char *buf;
	size_t len, cap, pos;
	size_t keep;		/* bytes before keep may be dropped */
	uint64_t base;		/* file offset of buf[0] */
	uint64_t line, line_start;	/* line of pos, file offset where it starts */
	int eof;
	int count_spans;	/* the value is a Jaeger trace: --max-spans counts its spans */
} jscan;

enum { SCAN_OVER_BYTES = 1, SCAN_OVER_SPANS = 2 };

/* Does the array opened at b[p] belong to the key "spans"? b[0,p) holds
 * the value being scanned, key included. */
static int
spans_key_before(const char *b, size_t p)
{
	while (p && (b[p - 1] == ' ' || b[p - 1] == '\t' || b[p - 1] == '\n' || b[p - 1] == '\r'))
		p--;
	if (!p || b[--p] != ':')
		return 0;
	while (p && (b[p - 1] == ' ' || b[p - 1] == '\t' || b[p - 1] == '\n' || b[p - 1] == '\r'))
		p--;
	return p >= 7 && memcmp(b + p - 7, "\"spans\"", 7) == 0;
}


static size_t
scan_fill(jscan *j)
{
	size_t n;

	if (j->eof)
		return 0;
	if (j->keep) {
		memmove(j->buf, j->buf + j->keep, j->len - j->keep);
		j->base += j->keep;
		j->len -= j->keep;
		j->pos -= j->keep;
		j->keep = 0;
	}
	if (j->cap - j->len < 64 * 1024)
		GROW(j->buf, j->cap, j->len + 256 * 1024);
	n = tr_input_read(j->in, j->buf + j->len, j->cap - j->len);
	if (!n)
		j->eof = 1;
	j->len += n;
	return n;
}

static int
scan_peek(jscan *j)
{
	while (j->pos >= j->len)
		if (!scan_fill(j))
			return -1;
	return (unsigned char)j->buf[j->pos];
}

static void
scan_advance(jscan *j)
{
	if (j->buf[j->pos] == '\n') {
		j->line++;
		j->line_start = j->base + j->pos + 1;
	}
	j->pos++;
}

static int
scan_ws(jscan *j)
{
	int c;

	while ((c = scan_peek(j)) == ' ' || c == '\t' || c == '\n' || c == '\r')
		scan_advance(j);
	return c;
}

static uint64_t
scan_col(const jscan *j)
{
	return j->base + j->pos - j->line_start + 1;
}

/* Report a problem at line:col of the file. */
static int
scan_verror(ingest *g, uint64_t line, uint64_t col, const char *fmt, va_list ap)
{
	char msg[400];

	/* Traces queued before this point come first; if one of them stopped
	 * the file, a single thread would never have got here. */
	if (g->pool && !g->pool_status)
		g->pool_status = ig_pool_drain(g->pool);
	if (g->pool_status)
		return -1;
	vsnprintf(msg, sizeof msg, fmt, ap);
	tr_warn("%s:%llu:%llu: %s", g->file, (unsigned long long)line, (unsigned long long)col, msg);
	return -1;
}

/* Report a problem at the scanner's position. */
static int __attribute__((format(printf, 3, 4)))
scan_error(ingest *g, jscan *j, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = scan_verror(g, j->line, scan_col(j), fmt, ap);
	va_end(ap);
	return r;
}

/* Report a problem with the value that starts at line:col. */
static int __attribute__((format(printf, 4, 5)))
scan_error_at(ingest *g, uint64_t line, uint64_t col, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = scan_verror(g, line, col, fmt, ap);
	va_end(ap);
	return r;
}

/* The bytes that end a stretch the scanner skips outside strings. */
static const unsigned char nested_special[256] = {
	['"'] = 1, ['{'] = 1, ['['] = 1, ['}'] = 1, [']'] = 1, ['\n'] = 1,
};

/* Move pos past the JSON value that starts there; the value stays in buf from
 * *start on. Checks that brackets match and strings end, which is all it
 * takes to find the value's end: yajl checks the rest, and whatever it
 * finds wrong inside is that value's problem alone. Works on the buffer
 * directly: this loop sees every byte of the input.
 * Returns 0; SCAN_OVER_BYTES when the value is larger than --max-bytes, or
 * SCAN_OVER_SPANS when it is a Jaeger trace (j->count_spans) whose "spans"
 * array holds more than --max-spans objects (it is skipped, its bytes not
 * kept from there on: refusing it costs no more memory than the limit); -1
 * after a message when the file is malformed. */
static int
scan_value(ingest *g, jscan *j, size_t *start)
{
	int in_str = 0, done = 0, need_more = 0, skipping = 0, in_spans = 0;
	strbuf *open = &g->brackets;	/* the brackets not yet closed */
	size_t size = 0, spans = 0, max_spans = j->count_spans ? g->opts.max_spans : 0;

	sb_clear(open);
	j->keep = j->pos;	/* compaction keeps the value's first byte at buf[keep] */
	while (!done) {
		if (j->pos >= j->len || need_more) {
			need_more = 0;
			if (!scan_fill(j)) {
				if (!open->len && !in_str && (j->pos > j->keep || size))
					break;	/* a scalar at the very end of the input */
				return scan_error(g, j, "unexpected end of input inside a JSON value");
			}
		}
		const char *b = j->buf;
		size_t p = j->pos, n = j->len;

		for (; p < n; p++) {
			/* Skip what cannot end a string or change the nesting;
			 * strings are most of the bytes: memchr runs vectorised. */
			if (in_str) {
				const char *q = memchr(b + p, '"', n - p);
				size_t end = q ? (size_t)(q - b) : n;
				const char *e = memchr(b + p, '\\', end - p);

				p = e ? (size_t)(e - b) : end;
			} else if (open->len)
				while (p < n && !nested_special[(unsigned char)b[p]])
					p++;
			if (p >= n)
				break;
			char c = b[p];

			if (in_str) {
				if (c == '\\') {
					if (p + 1 >= n) {
						need_more = 1;	/* refill, then skip the escaped byte */
						break;
					}
					p++;
				} else if (c == '"') {
					in_str = 0;
					if (!open->len) {
						p++;
						done = 1;
						break;
					}
				}
				continue;
			}
			if (c == '"')
				in_str = 1;
			else if (c == '{' || c == '[') {
				/* the trace object's "spans" array, and each span in it */
				if (max_spans && c == '[' && open->len == 1 && !skipping)
					in_spans = spans_key_before(b, p);
				else if (in_spans && c == '{' && open->len == 2 && ++spans > max_spans)
					skipping = SCAN_OVER_SPANS;
				sb_addc(open, c);
			} else if (c == '}' || c == ']') {
				if (!open->len) {
					done = 1;	/* a scalar ends at its container's end */
					break;
				}
				if (open->s[open->len - 1] != (c == '}' ? '{' : '[')) {
					j->pos = p;
					return scan_error(g, j, "'%c' closes '%c'", c, open->s[open->len - 1]);
				}
				open->len--;
				if (open->len == 1)
					in_spans = 0;
				if (!open->len) {
					p++;
					done = 1;
					break;
				}
			} else if (c == '\n') {
				if (!open->len) {
					done = 1;
					break;
				}
				j->line++;
				j->line_start = j->base + p + 1;
			} else if (!open->len && (c == ',' || c == ' ' || c == '\t' || c == '\r')) {
				done = 1;
				break;
			}
		}
		size += p - j->pos;
		j->pos = p;
		if (g->opts.max_bytes && size > g->opts.max_bytes && !skipping)
			skipping = SCAN_OVER_BYTES;
		if (skipping)
			j->keep = j->pos;	/* drop what was read: only the end is wanted */
	}
	*start = j->keep;
	return skipping;
}

/* Parse buf[start, pos) into mem; errors point into the file. */
static jtree *
scan_parse(ingest *g, jscan *j, size_t start, uint64_t line, uint64_t col, arena *mem)
{
	const char *err;
	size_t pos;
	jtree *v = jtree_parse(g->parser, j->buf + start, j->pos - start, mem, &err, &pos);

	if (!v) {
		ig_error_place(j->buf + start, pos, &line, &col);
		scan_error_at(g, line, col, "%s", err);
	}
	return v;
}

/* Read the value at pos into nodes from mem. */
static jtree *
read_value(ingest *g, jscan *j, arena *mem)
{
	uint64_t line = j->line, col = scan_col(j);
	size_t start = 0;
	int r = scan_value(g, j, &start);

	if (r > 0)
		scan_error_at(g, line, col, "JSON value larger than --max-bytes %zu", g->opts.max_bytes);
	if (r)
		return NULL;
	return scan_parse(g, j, start, line, col, mem);
}

static int elem_otlp(ingest *g, const jtree *v);

/* Give one element to its converter, or to the worker threads. */
static int
convert(ingest *g, jscan *j, elem_fn fn, int jaeger)
{
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
			scan_error_at(g, line, col, "%s", what);
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
			ig_after_element(g, j->base + j->pos, fn == elem_otlp ? PRESCAN_OTLP : PRESCAN_ZIPKIN);
		tr_progress_tick(&g->progress, g->bytes_before + tr_input_bytes(j->in), g->stats.traces);
	}
	j->keep = j->pos;
	return r;
}

static int
expect(ingest *g, jscan *j, char c)
{
	if (scan_ws(j) != c)
		return scan_error(g, j, "expected '%c'", c);
	scan_advance(j);
	return 0;
}

/* Walk an array at pos, converting each element. Returns 0, -1 (an element
 * failed), or -2 (malformed: stop reading the file). */
static int
walk_array(ingest *g, jscan *j, elem_fn fn, int jaeger)
{
	int c, failed = 0;

	scan_advance(j);	/* [ */
	for (;;) {
		c = scan_ws(j);
		if (c == ']') {
			scan_advance(j);
			return failed ? -1 : 0;
		}
		if (c < 0)
			return scan_error(g, j, "unexpected end of input in an array"), -2;
		int r = convert(g, j, fn, jaeger);
		if (r == -2 || g->foreign)
			return -2;
		if (r < 0) {
			failed = 1;
			if (!g->opts.keep_going)
				return -1;
		}
		c = scan_ws(j);
		if (c == ',')
			scan_advance(j);
		else if (c != ']')
			return scan_error(g, j, c < 0 ? "unexpected end of input in an array"
						      : "expected ',' or ']'"), -2;
	}
}

static int
elem_otlp(ingest *g, const jtree *v)
{
	return otlp_resource_spans(g, v);
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
		ig_set_format(g, "Jaeger span list");
		return jaeger_span(g, v);
	}
	if (!allows(g, INGEST_ZIPKIN))
		return ig_fail(g, "not a Jaeger span: \"spanID\" or \"operationName\" is missing");
	ig_set_format(g, "Zipkin");
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

static int
read_key(ingest *g, jscan *j, strbuf *key)
{
	jtree *k;

	if (scan_ws(j) != '"')
		return scan_error(g, j, "expected a key string");
	if (!(k = read_value(g, j, &g->json_mem)))
		return -1;
	sb_clear(key);
	sb_add(key, k->u.s, k->len);
	arena_reset(&g->json_mem);
	return expect(g, j, ':');
}

/* The value of a top-level key that holds the data: walk it element by element. */
static int
data_value(ingest *g, jscan *j, const char *key, int *seen)
{
	int c = scan_ws(j);

	if (strcmp(key, "data") == 0 && allows(g, INGEST_JAEGER)) {
		*seen = INGEST_JAEGER;
		ig_set_format(g, c == '[' ? "Jaeger query API" : "Jaeger UI trace");
		if (c == '[')
			return walk_array(g, j, ig_elem_jaeger, 1);
		if (c == 'n') {		/* "data": null */
			jtree *v = read_value(g, j, &g->json_mem);

			arena_reset(&g->json_mem);
			return v ? 0 : -2;
		}
		return convert(g, j, ig_elem_jaeger, 1);	/* the UI's data-as-object */
	}
	/* Tempo's /api/traces/<id> holds OTLP resources under "batches". */
	if ((strcmp(key, "resourceSpans") == 0 || strcmp(key, "batches") == 0) && allows(g, INGEST_OTLP) &&
	    c == '[') {
		*seen = INGEST_OTLP;
		g->trace_documents++;
		ig_set_format(g, key[0] == 'b' ? "Tempo trace (batches)" : "OTLP JSON");
		return walk_array(g, j, elem_otlp, 0);
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
		ig_set_format(g, jtree_get(rest, "result") ? "Jaeger api_v3 (OTLP)" : "Tempo trace (v2)");
		g->trace_documents++;
		r = otlp_document(g, rest);
	} else if (jtree_get(rest, "spans") && allows(g, INGEST_JAEGER)) {
		ig_set_format(g, "Jaeger trace");
		r = jaeger_trace(g, rest);
		if (r < 0)
			g->stats.broken++;
		else
			ig_flush(g);
	} else if (jtree_get(rest, "traceId") && allows(g, INGEST_ZIPKIN)) {
		ig_set_format(g, "Zipkin span");
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
api_errors(ingest *g, const jtree *rest, uint64_t line, uint64_t col)
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
		scan_error_at(g, line, col, "the Jaeger query API answered with an error: %s", text.s);
		sb_free(&text);
		n++;
	}
	return n ? -1 : 0;
}

/* Keep a member of a top-level object that is not walked, for the document
 * read whole. */
static int
rest_member(ingest *g, jscan *j, jtree *rest, jtree **last, const strbuf *key, uint64_t *kept,
	    uint64_t line, uint64_t col)
{
	uint64_t at = j->base + j->pos;
	jtree *v = read_value(g, j, &g->doc_mem);

	if (!v)
		return -1;
	/* The document is read whole: --max-bytes is of all it keeps. */
	*kept += j->base + j->pos - at + key->len;
	if (g->opts.max_bytes && *kept > g->opts.max_bytes)
		return scan_error_at(g, line, col, "JSON value larger than --max-bytes %zu", g->opts.max_bytes);
	v->key = arena_strndup(&g->doc_mem, key->s, key->len);
	v->keylen = (uint32_t)key->len;
	if (*last)
		(*last)->next = v;
	else
		rest->u.first = v;
	*last = v;
	rest->len++;
	return 0;
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
		if (read_key(g, j, &key) < 0)
			goto malformed;
		r = data_value(g, j, key.s, &seen);
		if (r == -2)
			goto malformed;
		if (r < 0) {
			failed = 1;
			if (!g->opts.keep_going)
				goto out;
		}
		if (r == 1 && rest_member(g, j, rest, &last, &key, &kept, line, col) < 0)
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
	if (seen == INGEST_JAEGER && api_errors(g, rest, line, col) < 0)
		failed = 1;
	if (!seen) {
		g->err[0] = '\0';
		g->err_line = line;
		g->err_col = col;
		if (other_document(g, rest) < 0) {
			scan_error_at(g, line, col, "%s", g->err);
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

/* A UTF-8 byte-order mark that some Windows tools write first is no JSON:
 * skipped, the first line's columns counted after it. */
static void
skip_bom(jscan *j)
{
	while (j->len < 3 && scan_fill(j))
		;
	if (j->len >= 3 && memcmp(j->buf, "\xef\xbb\xbf", 3) == 0)
		j->pos = j->line_start = 3;
}

static int
walk_documents(ingest *g, jscan *j)
{
	int c, failed = 0, r;

	skip_bom(j);
	while ((c = scan_ws(j)) >= 0) {
		g->documents++;
		if (c == '{')
			r = walk_object(g, j);
		else if (c == '[' && (allows(g, INGEST_ZIPKIN) || allows(g, INGEST_JAEGER)))
			r = walk_array(g, j, elem_array, 0);
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
	jscan j = {.in = in};
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
