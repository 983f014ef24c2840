/* scan.h - the scanner of ingest/ (walk.c, element.c), as the dispatcher
 * (ingest.c) and the drivers use it. It knows JSON, not the formats: it
 * finds where each value of a file begins and ends without holding the file
 * whole, enforces --max-bytes (and --max-spans on a value it is told is a
 * Jaeger trace), parses one element into a tree and hands it to the
 * converter it is given. */
#ifndef TR_INGEST_SCAN_H
#define TR_INGEST_SCAN_H

#include <stdint.h>

#include "ingest/context.h"
#include "ingest/convert.h"

typedef struct jscan jscan;
struct jscan {
	tr_input *in;
	char *buf;
	size_t len, cap, pos;
	size_t keep;		/* bytes before keep may be dropped */
	uint64_t base;		/* file offset of buf[0] */
	uint64_t line, line_start;	/* line of pos, file offset where it starts */
	int eof;
	int count_spans;	/* the value is a Jaeger trace: --max-spans counts its spans */
	/* Called before the scanner says anything: what was queued before
	 * this point is said first (the worker threads' traces); nonzero
	 * when that stopped the file, and the scanner says nothing. */
	int (*settle)(ingest *g);
};

enum { SCAN_OVER_BYTES = 1, SCAN_OVER_SPANS = 2 };

int scan_ws(jscan *j);		/* skip white space: the next byte, -1 at the end */
void scan_advance(jscan *j);	/* past the byte at pos */
uint64_t scan_col(const jscan *j);
/* Report a problem at the scanner's position, or with the value that starts
 * at line:col; both return -1. */
int scan_error(ingest *g, jscan *j, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int scan_error_at(ingest *g, jscan *j, uint64_t line, uint64_t col, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Move pos past the JSON value that starts there, kept in buf from *start.
 * Returns 0; SCAN_OVER_BYTES or SCAN_OVER_SPANS when over a limit (the
 * value skipped); -1 after a message when the file is malformed. */
int scan_value(ingest *g, jscan *j, size_t *start);
/* The value at pos parsed into nodes from mem, or NULL after a message. */
jtree *scan_read(ingest *g, jscan *j, arena *mem);
int scan_expect(ingest *g, jscan *j, char c);	/* the byte c, or -1 after a message */
/* An object's key at pos, and its ':'. */
int scan_key(ingest *g, jscan *j, strbuf *key);
/* The value at pos kept as member key of doc, after *last; *kept counts the
 * bytes the document keeps (--max-bytes is of them all, the limit told at
 * line:col, where the document starts). */
int scan_member(ingest *g, jscan *j, jtree *doc, jtree **last, const strbuf *key, uint64_t *kept,
		uint64_t line, uint64_t col);
/* What the caller does with each element of an array: move j past it.
 * Returns 0, -1 (the element failed) or -2 (stop reading the file). */
typedef int scan_each_fn(ingest *g, jscan *j, const void *arg);
/* Walk the array at pos, each element given to each. Returns 0, -1 (an
 * element failed), or -2 (malformed: stop reading the file). */
int scan_array(ingest *g, jscan *j, scan_each_fn *each, const void *arg);
/* Skip a UTF-8 byte-order mark at the start. */
void scan_skip_bom(jscan *j);

/* element.c: parse and convert one JSON element p[0,n) that starts at line:col of the
 * file. Returns 0, -1 (the element is broken) or -2 (malformed JSON); on
 * failure msg holds "file:line:col: what". A Jaeger trace is written at once. */
int ig_element(ingest *g, const char *p, size_t n, uint64_t line, uint64_t col, elem_fn fn, int jaeger,
	       strbuf *msg);
/* Where a parse error at byte pos of p is: lines and columns counted on from
 * *line:*col. */
void ig_error_place(const char *p, size_t pos, uint64_t *line, uint64_t *col);

#endif
