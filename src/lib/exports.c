/* exports.c - the export hook of every reader: tr-ingest's converter. */
#include "exports.h"
#include "ingest/ingest.h"

#include <stdint.h>

/* The reader's limits are its own (SIZE_MAX: none); converting a JSON trace
 * takes more memory than reading its lines, so where the reader has its
 * defaults the converter has tr-ingest's. */
static size_t
ingest_limit(size_t reader_limit, size_t reader_default, size_t ingest_default)
{
	if (reader_limit == SIZE_MAX)
		return 0;
	return reader_limit == reader_default ? ingest_default : reader_limit;
}

static void *
export_open(int flags, size_t max_spans, size_t max_bytes)
{
	ingest_opts o = {
		.keep_going = (flags & TR_READ_KEEP_GOING) != 0,
		.max_spans = ingest_limit(max_spans, TR_DEFAULT_MAX_SPANS, INGEST_DEFAULT_MAX_SPANS),
		.max_bytes = ingest_limit(max_bytes, TR_DEFAULT_MAX_BYTES, INGEST_DEFAULT_MAX_BYTES),
		.threads = 1,
		.quiet = (flags & TR_READ_NO_NOTES) != 0,
	};

	return ingest_new(&o, NULL);
}

static tr_input *
export_lines(void *conv, tr_input *in, const char *path, const char *name, size_t *bad)
{
	return ingest_lines(conv, in, path, name, bad);
}

static size_t
export_traces(const void *conv)
{
	return ingest_stats_get(conv)->traces;
}

static void
export_shape(const void *conv, const tr_input *in, strbuf *b)
{
	ingest_shape(conv, in, b);
}

static void
export_close(void *conv)
{
	ingest_free(conv);
}

static const tr_export_hook ingest_exports = {
	export_open, export_lines, export_traces, export_shape, export_close,
};

const tr_export_hook *
tr_exports(void)
{
	return &ingest_exports;
}

tr_reader *
tr_reader_open(char **files, int nfiles, char *const *names, size_t max_spans, size_t max_bytes,
	       int flags)
{
	tr_reader *r = tr_reader_new(files, nfiles);

	tr_reader_configure(r, names, max_spans, max_bytes, flags);
	tr_reader_set_exports(r, &ingest_exports);
	return r;
}
