/* fuzz_reader.c - the line-format reader and tr_trace_parse (every filter's
 * input path), then tr_write_trace (every filter's output path).
 *
 * Oracle: what a filter writes is a fixed point. Reading it again gives no
 * bad trace, the same traces byte for byte, and the same traceless lines in
 * the same order. (Traceless lines are passed "at once", so one inside an
 * open group moves ahead of it: their order relative to traces may change.)
 *
 * For one input in eight the text is also read as a zstd frame: whole, it
 * must give the same output as the plain text; cut short, every trace it
 * lets through must be one of those of the whole text, byte for byte (a cut
 * frame never yields a half-written trace). An input that is itself zstd is
 * read as such, so damaged frames are fuzzed too. */
#include "fuzz.h"

#include "filter.h"
#include "core/format.h"
#include "core/trace.h"

static fuzz_file input, again;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	tr_setprogname("fuzz_reader");
	fuzz_file_init(&input, "input");
	fuzz_file_init(&again, "again");
	return 0;
}

/* Read path as a filter does; append what a pass-through filter writes to
 * out, and its traces and its traceless lines apart to traces and lines.
 * Returns the number of bad traces. */
static size_t
pass_through(const char *path, strbuf *out, strbuf *traces, strbuf *lines)
{
	char *files[] = {(char *)path};
	tr_reader *r = tr_reader_new(files, 1);
	tr_write_opts wo = {0};

	/* The line-format reader itself: a file's start is not told apart here
	 * (a passed-through line may start the text read again). */
	tr_reader_set_flags(r, TR_READ_LINES_ONLY);
	enum tr_next n;
	tr_trace *t;
	const char *line;
	size_t len, bad;

	while ((n = tr_reader_next(r, &t, &line, &len)) != TR_EOF) {
		size_t at = out->len;

		if (n == TR_TRACE) {
			tr_write_trace(out, t, &wo);
			sb_add(traces, out->s + at, out->len - at);
		} else if (n == TR_LINE) {
			sb_add(out, line, len);
			sb_addc(out, '\n');
			sb_add(lines, out->s + at, out->len - at);
		}
	}
	bad = tr_reader_bad(r);
	tr_reader_free(r);
	return bad;
}

/* The text as a zstd frame: whole, it reads as the text did; cut at a place
 * chosen by the text, its traces are whole traces of the text. */
static void
check_zstd(const uint8_t *data, size_t size, const strbuf *out, const strbuf *traces)
{
	strbuf zout[2] = {{0}}, ztraces[2] = {{0}}, zlines[2] = {{0}};
	size_t zn;
	char *z = fuzz_zstd(data, size, 1 + data[0] % 64, &zn);

	fuzz_file_set(&again, z, zn);
	pass_through(again.path, &zout[0], &ztraces[0], &zlines[0]);
	FUZZ_CHECK(fuzz_same(&zout[0], out), "zstd input read differently from the plain text");
	fuzz_file_set(&again, z, fuzz_cut(size, zn));
	pass_through(again.path, &zout[1], &ztraces[1], &zlines[1]);
	FUZZ_CHECK(fuzz_traces_within(ztraces[1].s, ztraces[1].len, traces->s, traces->len),
		   "a cut zstd frame let through a trace the whole text does not have");
	for (int i = 0; i < 2; i++) {
		sb_free(&zout[i]);
		sb_free(&ztraces[i]);
		sb_free(&zlines[i]);
	}
	free(z);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	strbuf out[2] = {{0}}, traces[2] = {{0}}, lines[2] = {{0}};

	fuzz_file_set(&input, data, size);
	pass_through(input.path, &out[0], &traces[0], &lines[0]);
	if (size && size % 8 == 0 && !fuzz_is_zstd(data, size))
		check_zstd(data, size, &out[0], &traces[0]);
	/* A passed-through line that starts with a compressed stream's magic makes the
	 * output read as compressed: a known limit of the format, not checked here. */
	if (!fuzz_is_zstd(out[0].s, out[0].len)) {
		fuzz_file_set(&again, out[0].s, out[0].len);
		FUZZ_CHECK(pass_through(again.path, &out[1], &traces[1], &lines[1]) == 0,
			   "a trace a filter wrote does not read back");
		FUZZ_CHECK(fuzz_same(&traces[0], &traces[1]), "passing traces through twice changed them");
		FUZZ_CHECK(fuzz_same(&lines[0], &lines[1]), "passing lines through twice changed them");
	}
	for (int i = 0; i < 2; i++) {
		sb_free(&out[i]);
		sb_free(&traces[i]);
		sb_free(&lines[i]);
	}
	return 0;
}
