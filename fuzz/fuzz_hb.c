/* fuzz_hb.c - the happens-before edges read back (infer/hb.c): a model
 * file (tr-infer's table), and a line-format stream whose IE records bind
 * to its traces, walked by tr-cp's critical path over them.
 *
 * The same bytes are read both ways. Oracle: over edges every analysed
 * span's slack is at least 0 (a span can always end when it did). */
#include "fuzz.h"

#include "cp/cp.h"
#include "filter.h"
#include "infer/hb.h"

static fuzz_file in;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	tr_setprogname("fuzz_hb");
	fuzz_file_init(&in, "input");
	return 0;
}

typedef struct walk {
	hb_model *hb;
	cp_trace cp;
} walk;

static void
check_trace(void *ctx, tr_trace *t)
{
	walk *w = ctx;
	int bound = hb_bind(w->hb, t);

	FUZZ_CHECK(bound >= -1 && bound <= 1, "hb_bind returned something else");
	if (bound < 0 || cp_trace_run_model(&w->cp, t, bound ? w->hb : NULL) < 0)
		return;
	for (size_t i = 0; bound && i < w->cp.norder; i++)
		FUZZ_CHECK(w->cp.slack[w->cp.order[i]] >= 0, "a negative slack");
}

static void
read_traces(hb_model *hb)
{
	walk w = {hb, {0}};
	char *files[] = {in.path};

	cp_trace_init(&w.cp, 0.01);
	tr_each_trace(files, NULL, 1, 1, 100000, 1 << 24, check_trace, &w);
	cp_trace_free(&w.cp);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_file_set(&in, data, size);
	hb_model *hb = hb_new(NULL);

	if (hb_load(hb, in.path) == 0)
		read_traces(hb);	/* a model that is a stream too: bound to it */
	hb_free(hb);
	hb = hb_new(NULL);
	read_traces(hb);		/* IE records in the stream */
	hb_free(hb);
	return 0;
}
