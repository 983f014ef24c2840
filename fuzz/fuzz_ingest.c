/* fuzz_ingest.c - JSON (Jaeger, Zipkin v1/v2, OTLP, auto-detected or forced
 * with -DFUZZ_FORMAT) through tr-ingest's converter, with -k.
 *
 * Oracle beyond "no crash, no sanitizer report": whatever tr-ingest writes
 * must read back through the line-format reader with no bad trace, since a
 * filter downstream would otherwise reject a trace ingest accepted. */
#include "fuzz.h"

#include "ingest.h"
#include "io.h"
#include "trace.h"

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

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A zstd frame that does not decode ends the tool (exit 3) by design;
	 * libzstd is fuzzed upstream and tests/reliability.bats covers the
	 * truncated frame. The fuzzer spends its time on JSON. */
	if (size >= 4 && data[0] == 0x28 && data[1] == 0xb5 && data[2] == 0x2f && data[3] == 0xfd)
		return 0;
	fuzz_file_set(&input, data, size);
	fuzz_capture_reset();

	/* Small caps, so that the limits' code paths are fuzzed too. */
	ingest_opts o = {.format = FUZZ_FORMAT, .keep_going = 1, .max_spans = 512,
			 .max_bytes = 1 << 20};
	tr_output *out = tr_output_open(NULL, 0);
	ingest *g = ingest_new(&o, out);

	ingest_file(g, input.path);
	ingest_free(g);
	tr_output_close(out);
	check_output();
	return 0;
}
