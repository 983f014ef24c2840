/* detect.c - the trace formats tr-ingest does not read, told apart
 * from broken input: a user who hands it a Tempo search result or a Datadog
 * payload gets one line that says what the file looks like and what to do,
 * not "traceId is missing". */
#include "ingest/convert.h"

#include <string.h>

#define NOT_OURS "tr-ingest reads Jaeger, Zipkin and OTLP trace exports"

/* An X-Ray segment: {"trace_id":"1-5f2aebcc-…","start_time":1596648396.64,…} */
static int
is_xray_segment(const jtree *o)
{
	const char *tid = jtree_str(jtree_get(o, "trace_id"));

	return tid && strncmp(tid, "1-", 2) == 0 && jtree_is_number(jtree_get(o, "start_time"));
}

/* A Datadog agent span: numeric trace_id and span_id, ns start and duration. */
static int
is_datadog_span(const jtree *o)
{
	return jtree_is_number(jtree_get(o, "trace_id")) && jtree_is_number(jtree_get(o, "span_id"));
}

const char *
ig_foreign_document(const jtree *doc)
{
	const jtree *traces = jtree_get(doc, "traces"), *first = jtree_first(traces), *spans;

	if (jtree_is_object(first) && (jtree_get(first, "spanSet") || jtree_get(first, "spanSets") ||
				    jtree_get(first, "rootServiceName")))
		return "looks like a Tempo search result (spans without their parents); "
		       "export each trace with Tempo's /api/traces/<id> and read that";
	if (jtree_str(jtree_get(doc, "format")) && jtree_get(doc, "version") && doc->len == 2)
		return "looks like an AWS X-Ray daemon header ({\"format\":\"json\",\"version\":1}); "
		       NOT_OURS;
	if (is_xray_segment(doc))
		return "looks like an AWS X-Ray segment document; " NOT_OURS;
	if (is_datadog_span(doc))
		return "looks like a Datadog agent span (numeric trace_id and span_id); " NOT_OURS;
	spans = jtree_first(jtree_get(doc, "spans"));
	if (jtree_is_object(spans) && jtree_get(spans, "spanId") && !jtree_get(spans, "spanID") &&
	    jtree_is_string(jtree_get(spans, "startTime")))
		return "looks like Jaeger's api_v2 protobuf JSON (base64 ids, RFC 3339 times); "
		       "export the trace with Jaeger's query API (/api/traces/<id>) and read that";
	if (jtree_get(doc, "resourceMetrics") || jtree_get(doc, "resourceLogs"))
		return "holds OTLP metrics or logs, no traces";
	return NULL;
}

const char *
ig_foreign_element(const jtree *elem)
{
	const jtree *o = jtree_is_array(elem) ? jtree_first(elem) : elem;

	if (!jtree_is_object(o))
		return NULL;
	if (is_datadog_span(o))
		return "looks like a Datadog agent payload (lists of spans with numeric trace_id "
		       "and span_id); " NOT_OURS;
	if (is_xray_segment(o))
		return "looks like AWS X-Ray segment documents; " NOT_OURS;
	return NULL;
}

/* A Jaeger UI span in a top-level array (jaeger-anonymizer's output). */
int
ig_is_jaeger_span(const jtree *elem)
{
	return jtree_is_object(elem) && jtree_get(elem, "spanID") && jtree_get(elem, "operationName");
}
