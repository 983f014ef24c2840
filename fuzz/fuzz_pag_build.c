/* fuzz_pag_build.c - the PAG builder as tr-pag streams it: the input's
 * traces are placed with a short lateness, swept and written window by
 * window, then every record written is read back window by window the way
 * tr-cp reads it. A record tr-pag writes that does not read back (a bad
 * field, an edge before a PM mark it follows, a vertex with two times) is
 * a bug: abort. */
#include "fuzz.h"

#include "pag/pag.h"
#include "core/trace.h"

static fuzz_file input;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	tr_setprogname("fuzz_pag_build");
	fuzz_file_init(&input, "input");
	return 0;
}

/* Read every line of out back into a graph read window by window. */
static void
read_back(const strbuf *out)
{
	pag_graph g;
	size_t marks = 0;

	pag_graph_init(&g);
	pag_graph_stream(&g);
	for (size_t at = 0; at < out->len;) {
		const char *line = out->s + at, *nl = memchr(line, '\n', out->len - at);
		size_t len = (size_t)(nl - line);

		if (!nl || !pag_is_record(line, len) || pag_read_record(&g, line, len, "built") < 0)
			abort();
		if (g.nmarks != marks) {	/* as tr-cp: forget what the mark completed */
			marks = g.nmarks;
			pag_graph_drop_before(&g, g.mark);
		}
		at += len + 1;
	}
	pag_graph_free(&g);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *files[] = {input.path};
	enum tr_next n;
	tr_trace *t;
	const char *line;
	size_t len;
	strbuf out = {0};

	fuzz_file_set(&input, data, size);
	tr_reader *r = tr_reader_new(files, 1);
	tr_reader_set_flags(r, TR_READ_LINES_ONLY);
	/* Short spans of time, so that a small input streams: placed, swept
	 * and written in steps, traces refused, lanes ended by max_gap. */
	pag_build_opts o = {.window = size & 1 ? 10 : 0, .origin = (int64_t)(size % 7),
			    .lateness = 1 + (int64_t)(size % 50), .max_gap = 1 + (int64_t)(size % 30),
			    .hold = size & 2 ? 1 : 4, .max_windows = 10000,
			    .vertices = (size & 4) != 0, .unknown_threshold = (int64_t)(size % 3)};
	pag_builder *b = pag_builder_new(&o);

	while ((n = tr_reader_next(r, &t, &line, &len)) != TR_EOF)
		if (n == TR_TRACE)
			pag_builder_add(b, t, &out);
	if (!pag_builder_stats(b)->too_many_windows)
		pag_builder_finish(b, &out);
	pag_builder_free(b);
	tr_reader_free(r);
	read_back(&out);
	sb_free(&out);
	return 0;
}
