/* fuzz_pag.c - the PAG reader: PG, PW, PV and PE records (as tr-pag writes
 * them) fed to critical participation the way tr-cp feeds them, then the
 * report in the three table formats. */
#include "fuzz.h"

#include "pag/pagcp.h"
#include "core/trace.h"

static fuzz_file input, output;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	tr_setprogname("fuzz_pag");
	fuzz_file_init(&input, "input");
	fuzz_capture_stdout(&output);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const formats[] = {"tsv", "csv", "json"};
	char *files[] = {input.path};
	enum tr_next n;
	tr_trace *t;
	const char *line;
	size_t len;

	fuzz_file_set(&input, data, size);
	fuzz_capture_reset();
	tr_reader *r = tr_reader_new(files, 1);
	tr_reader_set_flags(r, TR_READ_LINES_ONLY);	/* PAG records, not exports */
	/* Few windows: time and output grow with them (tr-cp --max-windows). */
	/* The units tr-cp allows with every format: us, ms, s. */
	pag_cp *p = pag_cp_new(&(pag_cp_opts){formats[size % 3], size & 4, 10000,
					      (int)(size / 8 % 3)});
	int bad = 0;

	/* tr-cp counts a bad PAG record and feeds on: so does this. */
	while ((n = tr_reader_next(r, &t, &line, &len)) != TR_EOF)
		if (n == TR_LINE && pag_cp_is_record(line, len))
			bad |= pag_cp_feed(p, line, len, tr_reader_where(r)) < 0;
	if (pag_cp_has_input(p)) {
		tr_output *out = tr_output_open(NULL, 0);

		pag_cp_report(p, out);
		tr_output_close(out);
	}
	(void)bad;
	pag_cp_free(p);
	tr_reader_free(r);
	return 0;
}
