/* walk.c - the scanner: walk a JSON file without holding it whole.
 *
 * It finds where each value begins and ends, the elements of an array one
 * by one and the members of an object, and checks only that brackets match
 * and strings end; yajl parses one element at a time into an arena tree
 * (jtree.h). So an export of any size needs memory for its largest element
 * only, and an error points at a line and column of the file. Which arrays
 * hold the data and what each element is, the dispatcher (ingest.c) says:
 * the scanner knows JSON, not the formats. */
#include "ingest/scan.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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

void
scan_advance(jscan *j)
{
	if (j->buf[j->pos] == '\n') {
		j->line++;
		j->line_start = j->base + j->pos + 1;
	}
	j->pos++;
}

int
scan_ws(jscan *j)
{
	int c;

	while ((c = scan_peek(j)) == ' ' || c == '\t' || c == '\n' || c == '\r')
		scan_advance(j);
	return c;
}

uint64_t
scan_col(const jscan *j)
{
	return j->base + j->pos - j->line_start + 1;
}

/* Report a problem at line:col of the file. */
static int
scan_verror(ingest *g, jscan *j, uint64_t line, uint64_t col, const char *fmt, va_list ap)
{
	char msg[400];

	if (j->settle && j->settle(g))
		return -1;
	vsnprintf(msg, sizeof msg, fmt, ap);
	tr_warn("%s:%llu:%llu: %s", g->file, (unsigned long long)line, (unsigned long long)col, msg);
	return -1;
}

/* Report a problem at the scanner's position. */
int
scan_error(ingest *g, jscan *j, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = scan_verror(g, j, j->line, scan_col(j), fmt, ap);
	va_end(ap);
	return r;
}

/* Report a problem with the value that starts at line:col. */
int
scan_error_at(ingest *g, jscan *j, uint64_t line, uint64_t col, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = scan_verror(g, j, line, col, fmt, ap);
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
int
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
		scan_error_at(g, j, line, col, "%s", err);
	}
	return v;
}

/* Read the value at pos into nodes from mem. */
jtree *
scan_read(ingest *g, jscan *j, arena *mem)
{
	uint64_t line = j->line, col = scan_col(j);
	size_t start = 0;
	int r = scan_value(g, j, &start);

	if (r > 0)
		scan_error_at(g, j, line, col, "JSON value larger than --max-bytes %zu", g->opts.max_bytes);
	if (r)
		return NULL;
	return scan_parse(g, j, start, line, col, mem);
}

int
scan_expect(ingest *g, jscan *j, char c)
{
	if (scan_ws(j) != c)
		return scan_error(g, j, "expected '%c'", c);
	scan_advance(j);
	return 0;
}

int
scan_array(ingest *g, jscan *j, scan_each_fn *each, const void *arg)
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
		int r = each(g, j, arg);
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

int
scan_key(ingest *g, jscan *j, strbuf *key)
{
	jtree *k;

	if (scan_ws(j) != '"')
		return scan_error(g, j, "expected a key string");
	if (!(k = scan_read(g, j, &g->json_mem)))
		return -1;
	sb_clear(key);
	sb_add(key, k->u.s, k->len);
	arena_reset(&g->json_mem);
	return scan_expect(g, j, ':');
}

int
scan_member(ingest *g, jscan *j, jtree *doc, jtree **last, const strbuf *key, uint64_t *kept,
	    uint64_t line, uint64_t col)
{
	uint64_t at = j->base + j->pos;
	jtree *v = scan_read(g, j, &g->doc_mem);

	if (!v)
		return -1;
	/* The document is read whole: --max-bytes is of all it keeps. */
	*kept += j->base + j->pos - at + key->len;
	if (g->opts.max_bytes && *kept > g->opts.max_bytes)
		return scan_error_at(g, j, line, col, "JSON value larger than --max-bytes %zu", g->opts.max_bytes);
	v->key = arena_strndup(&g->doc_mem, key->s, key->len);
	v->keylen = (uint32_t)key->len;
	if (*last)
		(*last)->next = v;
	else
		doc->u.first = v;
	*last = v;
	doc->len++;
	return 0;
}

/* A UTF-8 byte-order mark that some Windows tools write first is no JSON:
 * skipped, the first line's columns counted after it. */
void
scan_skip_bom(jscan *j)
{
	while (j->len < 3 && scan_fill(j))
		;
	if (j->len >= 3 && memcmp(j->buf, "\xef\xbb\xbf", 3) == 0)
		j->pos = j->line_start = 3;
}
