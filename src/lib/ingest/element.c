/* element.c - one JSON element parsed and given to its converter: what the
 * scanner does with each element, and each worker thread with its jobs. */
#include "ingest/scan.h"

/* Where a parse error is: count lines up to byte pos of p[0,n). */
void
ig_error_place(const char *p, size_t pos, uint64_t *line, uint64_t *col)
{
	for (size_t i = 0; i < pos; i++) {
		if (p[i] == '\n') {
			++*line;
			*col = 1;
		} else
			++*col;
	}
}

int
ig_element(ingest *g, const char *p, size_t n, uint64_t line, uint64_t col, elem_fn fn, int jaeger,
	   strbuf *msg)
{
	const char *err;
	size_t pos;
	jtree *v;
	int r;

	g->err_line = line;
	g->err_col = col;
	v = jtree_parse(g->parser, p, n, &g->json_mem, &err, &pos);
	if (!v) {
		ig_error_place(p, pos, &line, &col);
		sb_addf(msg, "%s:%llu:%llu: %s", g->file, (unsigned long long)line, (unsigned long long)col, err);
		/* The scanner found the element's end, so the file goes on; a
		 * Zipkin or OTLP element takes the file's traces with it. */
		r = -1;
		if (!jaeger)
			ig_lost_element(g);
	} else {
		g->err[0] = '\0';
		r = fn(g, v);
		if (r < 0)
			sb_addf(msg, "%s:%llu:%llu: %s", g->file, (unsigned long long)line,
				(unsigned long long)col, g->err);
	}
	arena_reset(&g->json_mem);
	if (jaeger && r == 0)
		ig_flush(g);	/* a Jaeger trace object is a whole trace */
	if (jaeger && r == -1)
		g->stats.broken++;
	return r;
}
