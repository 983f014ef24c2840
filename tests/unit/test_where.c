/* test_where.c - --where EXPR over one trace: kept when a span satisfies
 * it, span and trace fields, null, the same field named twice, bad text. */
#include "check.h"
#include "where.h"

#include <stdio.h>
#include <string.h>

/* A trace of a root "front GET /a" (0..900 ms) calling "db query"
 * (100..400 ms), which failed with a message. */
static void
make_trace(tr_trace *t, char line[][256])
{
	static const char *files[] = {"<where>"};

	memset(t, 0, sizeof *t);
	t->files = files;
	t->trace_id = "w";
	snprintf(line[0], 256, "T\tw");
	snprintf(line[1], 256, "S\tw\ta\t\t0\t900000\tfront\tGET /a\tserver\th1\thttp.status_code=200");
	snprintf(line[2], 256, "S\tw\tb\ta\t100000\t300000\tdb\tquery\tclient\th2\terror=true"
		 "\terror.message=timeout");
	GROW(t->recs, t->caprecs, 3);
	for (int i = 0; i < 3; i++)
		t->recs[i] = (tr_record){.line = line[i], .len = (uint32_t)strlen(line[i]),
					 .lineno = (uint64_t)i + 1, .span = -1};
	t->nrecs = 3;
	CHECK_EQ(tr_trace_parse(t), 0);
}

/* Is the trace kept by src? -1 when src does not parse. */
static int
keeps(tr_trace *t, const char *src)
{
	char err[256];
	size_t pos;
	tr_where *w = tr_where_parse(src, err, sizeof err, &pos);
	int k;

	if (!w)
		return -1;
	k = tr_where_keep(w, t);
	tr_where_free(w);
	return k;
}

int
main(void)
{
	char line[3][256];
	tr_trace t;

	make_trace(&t, line);
	/* span fields: one span enough */
	CHECK_EQ(keeps(&t, "service = \"db\""), 1);
	CHECK_EQ(keeps(&t, "service = \"cache\""), 0);
	CHECK_EQ(keeps(&t, "operation ~ \"GET *\""), 1);
	CHECK_EQ(keeps(&t, "service = \"db\" and operation = \"GET /a\""), 0);	/* not one span */
	CHECK_EQ(keeps(&t, "duration >= 300ms and duration < 1s and kind = \"client\""), 1);
	CHECK_EQ(keeps(&t, "error and error_message ~ \"*timeout*\""), 1);
	CHECK_EQ(keeps(&t, "error_message ~ \"*time*\" and error_message ~ \"*out\""), 1);
	CHECK_EQ(keeps(&t, "tag[\"http.status_code\"] = 200"), 1);
	CHECK_EQ(keeps(&t, "tag[\"http.status_code\"] >= 500"), 0);
	CHECK_EQ(keeps(&t, "tag[\"nope\"] != 1"), 0);	/* null compares false */
	/* trace fields */
	CHECK_EQ(keeps(&t, "root_duration = 900ms and trace_spans = 2"), 1);
	CHECK_EQ(keeps(&t, "root_service = \"front\" and root_operation = \"GET /a\""), 1);
	CHECK_EQ(keeps(&t, "trace_duration > 1s"), 0);
	CHECK_EQ(keeps(&t, "root and host = \"h1\""), 1);
	/* text that is no expression */
	CHECK_EQ(keeps(&t, "duration >"), -1);
	CHECK_EQ(keeps(&t, "sevice = \"db\""), -1);
	CHECK_EQ(keeps(&t, "tag = 1"), -1);
	CHECK_EQ(keeps(&t, "service = \"db\" x"), -1);
	tr_trace_free(&t);
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
