/* detect.c - the trace formats tr-ingest does not read, told apart
 * from broken input: a user who hands it a Tempo search result or a Datadog
 * payload gets one line that says what the file looks like and what to do,
 * not "traceId is missing". */
#include "ingest_impl.h"

#include <string.h>

#define NOT_OURS "tr-ingest reads Jaeger, Zipkin and OTLP trace exports"

/* An X-Ray segment: {"trace_id":"1-5f2aebcc-…","start_time":1596648396.64,…} */
static int
is_xray_segment(const jv *o)
{
	const char *tid = jv_str(jv_get(o, "trace_id"));

	return tid && strncmp(tid, "1-", 2) == 0 && jv_is_number(jv_get(o, "start_time"));
}

/* A Datadog agent span: numeric trace_id and span_id, ns start and duration. */
static int
is_datadog_span(const jv *o)
{
	return jv_is_number(jv_get(o, "trace_id")) && jv_is_number(jv_get(o, "span_id"));
}

const char *
ig_foreign_document(const jv *doc)
{
	const jv *traces = jv_get(doc, "traces"), *first = jv_first(traces), *spans;

	if (jv_is_object(first) && (jv_get(first, "spanSet") || jv_get(first, "spanSets") ||
				    jv_get(first, "rootServiceName")))
		return "looks like a Tempo search result (spans without their parents); "
		       "export each trace with Tempo's /api/traces/<id> and read that";
	if (jv_str(jv_get(doc, "format")) && jv_get(doc, "version") && doc->len == 2)
		return "looks like an AWS X-Ray daemon header ({\"format\":\"json\",\"version\":1}); "
		       NOT_OURS;
	if (is_xray_segment(doc))
		return "looks like an AWS X-Ray segment document; " NOT_OURS;
	if (is_datadog_span(doc))
		return "looks like a Datadog agent span (numeric trace_id and span_id); " NOT_OURS;
	spans = jv_first(jv_get(doc, "spans"));
	if (jv_is_object(spans) && jv_get(spans, "spanId") && !jv_get(spans, "spanID") &&
	    jv_is_string(jv_get(spans, "startTime")))
		return "looks like Jaeger's api_v2 protobuf JSON (base64 ids, RFC 3339 times); "
		       "export the trace with Jaeger's query API (/api/traces/<id>) and read that";
	if (jv_get(doc, "resourceMetrics") || jv_get(doc, "resourceLogs"))
		return "holds OTLP metrics or logs, no traces";
	return NULL;
}

const char *
ig_foreign_element(const jv *elem)
{
	const jv *o = jv_is_array(elem) ? jv_first(elem) : elem;

	if (!jv_is_object(o))
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
ig_is_jaeger_span(const jv *elem)
{
	return jv_is_object(elem) && jv_get(elem, "spanID") && jv_get(elem, "operationName");
}

void
ig_set_format(ingest *g, const char *name)
{
	if (!g->format_name)
		g->format_name = name;
}
