/* fuzz_ingest.c - JSON (Jaeger, Zipkin v1/v2, OTLP, auto-detected or forced
 * with -DFUZZ_FORMAT) through tr-ingest's converter, with -k.
 *
 * Oracle beyond "no crash, no sanitizer report": whatever tr-ingest writes
 * must read back through the line-format reader with no bad trace, since a
 * filter downstream would otherwise reject a trace ingest accepted.
 * For one input in eight the JSON is also given as a zstd frame: whole, it
 * must give the same bytes; cut short, every trace written must be one the
 * whole JSON gives, byte for byte. An input that is itself zstd is read as
 * such, so damaged frames are fuzzed too. */
#include "fuzz.h"

#include "ingest/ingest.h"
#include "core/io.h"
#include "core/trace.h"

#ifndef FUZZ_FORMAT
#define FUZZ_FORMAT INGEST_AUTO
#endif

static fuzz_file input, output;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	tr_setprogname("fuzz_ingest");
	fuzz_file_init(&input, "input");
	fuzz_capture_stdout(&output);
	return 0;
}

/* Every trace ingest wrote parses. */
static void
check_output(void)
{
	char *files[] = {output.path};
	tr_reader *r = tr_reader_new(files, 1);
	enum tr_next n;
	tr_trace *t;
	const char *line;
	size_t len;

	while ((n = tr_reader_next(r, &t, &line, &len)) != TR_EOF)
		FUZZ_CHECK(n != TR_BAD, "tr-ingest wrote a trace the reader rejects");
	tr_reader_free(r);
}

/* Ingest [p, p+n) as a file; the output, read back and checked, to out. */
static void
ingest_bytes(const void *p, size_t n, strbuf *out)
{
	/* Small caps, so that the limits' code paths are fuzzed too. */
	ingest_opts o = {.format = FUZZ_FORMAT, .keep_going = 1, .max_spans = 512,
			 .max_bytes = 1 << 20};

	fuzz_file_set(&input, p, n);
	fuzz_capture_reset();
	tr_output *to = tr_output_open(NULL, 0);
	ingest *g = ingest_new(&o, to);

	ingest_file(g, input.path);
	ingest_free(g);
	tr_output_close(to);
	check_output();
	fuzz_capture_read(out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	strbuf plain = {0}, whole = {0}, cut = {0};

	ingest_bytes(data, size, &plain);
	if (size && size % 8 == 0 && !fuzz_is_zstd(data, size)) {
		size_t zn;
		char *z = fuzz_zstd(data, size, 1 + data[0] % 64, &zn);

		ingest_bytes(z, zn, &whole);
		FUZZ_CHECK(fuzz_same(&whole, &plain), "zstd input converted differently from the plain JSON");
		ingest_bytes(z, fuzz_cut(size, zn), &cut);
		FUZZ_CHECK(fuzz_traces_within(cut.s, cut.len, plain.s, plain.len),
			   "a cut zstd frame let through a trace the whole JSON does not give");
		free(z);
	}
	sb_free(&plain);
	sb_free(&whole);
	sb_free(&cut);
	return 0;
}
