/* fuzz_query.c - tr-aggregate's query language (Pivot Tracing): parse the
 * fuzzer's text as a query, print it, and run it over a small fixed trace
 * (joins, happened-before, grouping, the table).
 *
 * Oracles: an error points inside the text; the printed (canonical) query
 * parses again and prints the same. */
#include "fuzz.h"

#include "query/query.h"
#include "core/trace.h"

/* Two services, a client/server pair, a log, a tag with a TAB in it, a span
 * without time and an orphan: enough for every join and field to find rows. */
static const char trace_text[] =
	"#tr/1\n"
	"T\tt1\n"
	"S\tt1\ta\t\t1000\t500\tfrontend\tHTTP GET /dispatch\tserver\th1\thttp.method=GET\n"
	"S\tt1\tb\ta\t1100\t200\tfrontend\tGET /customer\tclient\th1\n"
	"S\tt1\tc\tb\t1120\t150\tmysql\tSQL SELECT\tserver\tdb\tsql=SELECT%09*\terror=true\n"
	"L\tt1\tc\t1130\tevent=lock\n"
	"S\tt1\td\ta\t1350\t100\tredis\tGET\tclient\th2\tretry=2\n"
	"S\tt1\te\ta\t\t\tredis\tSET\t\t\ttr.no_time=true\n"
	"S\tt1\tf\tzz\t1400\t10\tdriver\tFind\tinternal\th3\n"
	"R\tt1\td\tfollows_from\tt1\tb\n";

static fuzz_file input, output;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	tr_setprogname("fuzz_query");
	fuzz_file_init(&input, "trace");
	fuzz_file_set(&input, trace_text, sizeof trace_text - 1);
	fuzz_capture_stdout(&output);
	return 0;
}

static query *
parse(const char *src, size_t len)
{
	char err[300];
	size_t pos = 0;
	query *q = query_parse(src, err, sizeof err, &pos);

	FUZZ_CHECK(q || pos <= len, "error position beyond the text");
	return q;
}

static void
check_canonical(const query *q)
{
	strbuf text = {0}, again = {0};

	query_print(q, &text);
	query *q2 = parse(text.s ? text.s : "", text.len);
	FUZZ_CHECK(q2 != NULL, "canonical query does not parse");
	query_print(q2, &again);
	FUZZ_CHECK(text.len == again.len && (!text.len || memcmp(text.s, again.s, text.len) == 0),
		   "canonical query is not canonical");
	query_free(q2);
	sb_free(&text);
	sb_free(&again);
}

static void
run(const query *q, enum query_hb hb)
{
	char *files[] = {input.path};
	tr_reader *r = tr_reader_new(files, 1);
	query_opts o = {.hb = hb, .max_rows_per_trace = 10000, .header = 1};
	query_run *qr = query_run_new(q, &o);
	strbuf rows = {0};
	tr_trace *t;
	const char *line;
	size_t len;

	fuzz_capture_reset();
	FUZZ_CHECK(tr_reader_next(r, &t, &line, &len) == TR_TRACE, "the fixed trace reads");
	query_run_trace(qr, t, &rows);
	tr_output *out = tr_output_open(NULL, 0);
	query_run_finish(qr, out);
	tr_output_close(out);
	query_run_free(qr);
	tr_reader_free(r);
	sb_free(&rows);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *src = malloc(size + 1);

	memcpy(src, data, size);
	src[size] = '\0';
	query *q = parse(src, strlen(src));
	if (q) {
		check_canonical(q);
		run(q, data[0] & 1 ? QUERY_HB_TREE : QUERY_HB_SEQ);
		query_free(q);
	}
	free(src);
	return 0;
}
