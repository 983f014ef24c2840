/* otlp.c - OTLP/JSON resourceSpans to spans, converted as Jaeger does.
 *
 * Two writers of OTLP in JSON: the OTLP/JSON spec (hex ids, enums as
 * numbers) and protobuf's canonical JSON mapping, which Tempo, Jaeger's
 * api_v3 gateway and Grafana write (base64 ids, enums as names). Both omit
 * fields that hold their zero value, so an absent field is read as its zero. */
#include "ingest/convert.h"

#include <stdlib.h>
#include <string.h>

enum { TRACE_ID_BYTES = 16, SPAN_ID_BYTES = 8 };

/* An id as lower-case hex. Hex and base64 are told apart by length and
 * padding, never by the characters alone (a short hex id may be valid
 * base64): base64 of an id's n bytes is 4 * ceil(n / 3) characters ending in
 * '=' (24 for a trace id, 12 for a span id), which hex never is. Anything
 * else is kept as text, lower-cased like hex: 32 or 16 hex digits, and the
 * odd ids some files hold ("sid1", 64-bit trace ids). */
static const char *
otlp_id(ingest *g, const char *s, size_t bytes)
{
	static const char digits[] = "0123456789abcdef";
	unsigned char raw[TRACE_ID_BYTES + 2];
	char hex[2 * TRACE_ID_BYTES];
	size_t n = strlen(s), got;

	if (n != (bytes + 2) / 3 * 4 || s[n - 1] != '=' || b64_decode(s, n, raw, &got) < 0 || got != bytes)
		return ig_lower(g, s);
	for (size_t i = 0; i < bytes; i++) {
		hex[2 * i] = digits[raw[i] >> 4];
		hex[2 * i + 1] = digits[raw[i] & 0xf];
	}
	return ig_strn(g, hex, 2 * bytes);
}

const char *
otlp_trace_id(ingest *g, const char *raw)
{
	return otlp_id(g, raw, TRACE_ID_BYTES);
}

/* proto3 JSON writes int64 as a string; numbers are accepted too. */
static int
int_value(ingest *g, const jtree *x, int64_t *out)
{
	if (jtree_is_integer(x))
		*out = jtree_int(x);
	else if (!jtree_is_string(x) || parse_i64(jtree_str(x), jtree_len(x), out) < 0)
		return ig_fail(g, "intValue is not an integer");
	return 0;
}

/* Array and key-value list values nest as deep as the input says; written
 * by recursion over the value, so the depth is bounded. */
#define MAX_VALUE_DEPTH 64

static int any_json(ingest *g, strbuf *b, const jtree *v, int depth);

typedef struct okv {
	const char *key;
	size_t keylen, seq;
	const jtree *value;
} okv;

static int
okv_cmp(const void *pa, const void *pb)
{
	const okv *a = pa, *b = pb;
	int c = memcmp(a->key, b->key, a->keylen < b->keylen ? a->keylen : b->keylen);

	if (c)
		return c;
	if (a->keylen != b->keylen)
		return a->keylen < b->keylen ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* A kvlistValue as a JSON object as Jaeger shows one (pdata's AsString):
 * keys sorted bytewise, a repeated key keeps its last value. */
static int
kvlist_json(ingest *g, strbuf *b, const jtree *kvl, int depth)
{
	const jtree *arr, *e, *k;
	size_t i, n = 0;
	int first = 1;
	okv *kv;

	if (ig_get_array(g, kvl, "values", &arr) < 0)
		return -1;
	jtree_array_foreach(arr, i, e)
		n++;
	kv = arena_alloc(&g->batch.mem, (n + 1) * sizeof *kv);
	jtree_array_foreach(arr, i, e) {
		if (!jtree_is_object(e))
			return ig_fail(g, "attribute %zu is not an object", i);
		k = jtree_get(e, "key");
		if (k && !jtree_is_null(k) && !jtree_is_string(k))
			return ig_fail(g, "\"key\" is not a string");
		kv[i].key = jtree_is_string(k) ? jtree_str(k) : "";
		kv[i].keylen = jtree_is_string(k) ? jtree_len(k) : 0;
		kv[i].seq = i;
		kv[i].value = jtree_get(e, "value");
	}
	qsort(kv, n, sizeof *kv, okv_cmp);
	sb_addc(b, '{');
	for (i = 0; i < n; i++) {
		if (i + 1 < n && kv[i].keylen == kv[i + 1].keylen &&
		    memcmp(kv[i].key, kv[i + 1].key, kv[i].keylen) == 0)
			continue;
		if (!first)
			sb_addc(b, ',');
		first = 0;
		jtree_dump_string(b, kv[i].key, kv[i].keylen);
		sb_addc(b, ':');
		if (any_json(g, b, kv[i].value, depth + 1) < 0)
			return -1;
	}
	sb_addc(b, '}');
	return 0;
}

/* An AnyValue inside an array or key-value list as JSON: strings quoted,
 * integers exactly, bytes as their base64 text, an empty value null.
 * Strings are encoded by jansson (jtree_dump_string); the numbers keep the
 * text a scalar tag has (0.1, 1e+21), which jansson's %.17g does not
 * write, so this text is assembled here rather than dumped from a tree. */
static int
any_json(ingest *g, strbuf *b, const jtree *v, int depth)
{
	const jtree *x, *arr, *e;
	size_t i;
	int64_t n;

	if (depth > MAX_VALUE_DEPTH)
		return ig_fail(g, "attribute value nested deeper than %d arrays and lists", MAX_VALUE_DEPTH);
	if (!v || jtree_is_null(v)) {
		sb_adds(b, "null");
		return 0;
	}
	if (!jtree_is_object(v))
		return ig_fail(g, "attribute value is not an object");
	if ((x = jtree_get(v, "stringValue")) || (x = jtree_get(v, "boolValue")) ||
	    (x = jtree_get(v, "doubleValue")) || (x = jtree_get(v, "bytesValue"))) {
		if (jtree_is_string(x))
			jtree_dump_string(b, jtree_str(x), jtree_len(x));
		else if (jtree_is_null(x))
			sb_adds(b, "null");
		else	/* numbers and booleans (and a stray object) are JSON already */
			sb_adds(b, ig_json_text(g, x));
		return 0;
	}
	if ((x = jtree_get(v, "intValue"))) {
		if (int_value(g, x, &n) < 0)
			return -1;
		sb_addi(b, n);
		return 0;
	}
	if ((x = jtree_get(v, "arrayValue"))) {
		if (!jtree_is_null(x) && !jtree_is_object(x))
			return ig_fail(g, "attribute value is not an object");
		if (ig_get_array(g, x, "values", &arr) < 0)
			return -1;
		sb_addc(b, '[');
		jtree_array_foreach(arr, i, e) {
			if (i)
				sb_addc(b, ',');
			if (any_json(g, b, e, depth + 1) < 0)
				return -1;
		}
		sb_addc(b, ']');
		return 0;
	}
	if ((x = jtree_get(v, "kvlistValue"))) {
		if (!jtree_is_null(x) && !jtree_is_object(x))
			return ig_fail(g, "attribute value is not an object");
		return kvlist_json(g, b, x, depth);
	}
	sb_adds(b, "null");
	return 0;
}

/* An AnyValue as tag text: scalars as text, arrays and key-value lists as
 * compact JSON of their plain values; no value at all is empty text. */
static int
any_value(ingest *g, const jtree *v, const char **out)
{
	const jtree *x;
	int64_t i;

	*out = "";
	if (!v || jtree_is_null(v))
		return 0;
	if (!jtree_is_object(v))
		return ig_fail(g, "attribute value is not an object");
	if ((x = jtree_get(v, "stringValue")) || (x = jtree_get(v, "boolValue")) ||
	    (x = jtree_get(v, "doubleValue")) || (x = jtree_get(v, "bytesValue"))) {
		*out = ig_json_text(g, x);
		return 0;
	}
	if ((x = jtree_get(v, "intValue"))) {
		char buf[24];

		if (int_value(g, x, &i) < 0)
			return -1;
		snprintf(buf, sizeof buf, "%lld", (long long)i);
		*out = ig_str(g, buf);
		return 0;
	}
	if (jtree_get(v, "arrayValue") || jtree_get(v, "kvlistValue")) {
		strbuf *b = &g->value;	/* not scratch: ig_json_text writes there */

		sb_clear(b);
		if (any_json(g, b, v, 0) < 0)
			return -1;
		*out = ig_strn(g, b->s, b->len);
	}
	return 0;
}

static int
attributes(ingest *g, const jtree *o, ig_put_fn put, const char *prefix, const char *skip)
{
	const jtree *arr, *a;
	size_t i;

	if (ig_get_array(g, o, "attributes", &arr) < 0)
		return -1;
	jtree_array_foreach(arr, i, a) {
		const char *key = "", *val = "";

		if (!jtree_is_object(a))
			return ig_fail(g, "attribute %zu is not an object", i);
		/* An empty key or value is left out of the JSON, as any zero value is. */
		if (ig_get_str(g, a, "key", 0, &key) < 0 || any_value(g, jtree_get(a, "value"), &val) < 0)
			return -1;
		if (skip && strcmp(key, skip) == 0)
			continue;
		put(g, prefix, key, val);
	}
	return 0;
}

/* Nanoseconds given as a string or a number; absent (or null) is 0, as
 * proto3 JSON leaves out a zero. */
static int
get_ns(ingest *g, const jtree *o, const char *key, uint64_t *out)
{
	const jtree *v = jtree_get(o, key);
	char *end;

	*out = 0;
	if (!v || jtree_is_null(v))
		return 0;
	if (jtree_is_integer(v) && jtree_int(v) >= 0) {
		*out = (uint64_t)jtree_int(v);
		return 0;
	}
	if (jtree_is_real(v) && jtree_real(v) >= 0 && jtree_real(v) < 1.8e19) {
		*out = (uint64_t)jtree_real(v);
		return 0;
	}
	if (jtree_is_string(v) && *jtree_str(v)) {
		*out = strtoull(jtree_str(v), &end, 10);
		if (!*end && *jtree_str(v) != '-')
			return 0;
	}
	return ig_fail(g, "\"%s\" is not a non-negative integer", key);
}

static int
kind_of(ingest *g, const jtree *span, int *kind)
{
	static const char *const names[] = {
		"SPAN_KIND_UNSPECIFIED", "SPAN_KIND_INTERNAL", "SPAN_KIND_SERVER",
		"SPAN_KIND_CLIENT", "SPAN_KIND_PRODUCER", "SPAN_KIND_CONSUMER"
	};
	static const int to_tr[] = {
		TR_KIND_NONE, TR_KIND_INTERNAL, TR_KIND_SERVER, TR_KIND_CLIENT,
		TR_KIND_PRODUCER, TR_KIND_CONSUMER
	};
	const jtree *v = jtree_get(span, "kind");
	long k = -1;

	if (!v || jtree_is_null(v))
		k = 0;
	else if (jtree_is_integer(v))
		k = (long)jtree_int(v);
	else if (jtree_is_string(v))
		for (int i = 0; i < 6; i++)
			if (strcmp(jtree_str(v), names[i]) == 0)
				k = i;
	if (k < 0 || k > 5)
		return ig_fail(g, "unknown span kind");
	*kind = to_tr[k];
	return 0;
}

/* Status ERROR (2 or "STATUS_CODE_ERROR") and OK, as Jaeger's translator
 * tags them; UNSET, absent, and codes it does not know tag nothing. */
static int
status_of(ingest *g, const jtree *span)
{
	const jtree *st = jtree_get(span, "status"), *c;
	const char *msg = "";
	long code = 0;

	if (!st || jtree_is_null(st))
		return 0;
	if (!jtree_is_object(st))
		return ig_fail(g, "\"status\" is not an object");
	c = jtree_get(st, "code");
	if (jtree_is_integer(c))
		code = (long)jtree_int(c);
	else if (jtree_is_string(c))
		code = strcmp(jtree_str(c), "STATUS_CODE_ERROR") == 0 ? 2 :
		       strcmp(jtree_str(c), "STATUS_CODE_OK") == 0 ? 1 : 0;	/* and _UNSET */
	if (ig_get_str(g, st, "message", 0, &msg) < 0)
		return -1;
	if (code == 1)
		ig_tag(g, "otel.status_code", "OK");
	if (code == 2) {
		ig_tag(g, "otel.status_code", "ERROR");
		ig_tag(g, "error", "true");
	}
	if (*msg)
		ig_tag(g, "otel.status_description", msg);
	return 0;
}

static int
events_of(ingest *g, const jtree *span)
{
	const jtree *arr, *e;
	size_t i;

	if (ig_get_array(g, span, "events", &arr) < 0)
		return -1;
	jtree_array_foreach(arr, i, e) {
		uint64_t ns;
		const char *name;

		if (!jtree_is_object(e))
			return ig_fail(g, "event %zu is not an object", i);
		if (get_ns(g, e, "timeUnixNano", &ns) < 0 || ig_get_str(g, e, "name", 0, &name) < 0)
			return -1;
		ig_log_begin(g, ig_time_us_u(g, ns, INGEST_TU_NS));
		if (*name)
			ig_log_tag(g, "event", name);
		if (attributes(g, e, ig_put_log_tag, NULL, NULL) < 0)
			return -1;
	}
	return 0;
}

static int
links_of(ingest *g, const jtree *span)
{
	const jtree *arr, *l;
	size_t i;

	if (ig_get_array(g, span, "links", &arr) < 0)
		return -1;
	jtree_array_foreach(arr, i, l) {
		const char *tid, *sid;

		if (!jtree_is_object(l))
			return ig_fail(g, "link %zu is not an object", i);
		if (ig_get_str(g, l, "traceId", 1, &tid) < 0 || ig_get_str(g, l, "spanId", 1, &sid) < 0)
			return -1;
		ig_ref(g, "link", otlp_id(g, tid, TRACE_ID_BYTES), otlp_id(g, sid, SPAN_ID_BYTES));
		if (attributes(g, l, ig_put_ref_tag, NULL, NULL) < 0)
			return -1;
	}
	return 0;
}

typedef struct oscope {
	const char *name, *version, *service, *host;
	const jtree *resource, *scope;
} oscope;

static int
one_span(ingest *g, const jtree *span, const oscope *sc, size_t idx)
{
	ispan s = {0};
	uint64_t t0, t1;
	const char *state;

	if (!jtree_is_object(span))
		return ig_fail(g, "span %zu is not an object", idx);
	if (ig_get_str(g, span, "traceId", 1, &s.trace_id) < 0 ||
	    ig_get_str(g, span, "spanId", 1, &s.span_id) < 0 ||
	    ig_get_str(g, span, "parentSpanId", 0, &s.parent_id) < 0 ||
	    ig_get_str(g, span, "name", 0, &s.operation) < 0 ||
	    get_ns(g, span, "startTimeUnixNano", &t0) < 0 ||
	    get_ns(g, span, "endTimeUnixNano", &t1) < 0 || kind_of(g, span, &s.kind) < 0)
		return -1;
	if (!*s.trace_id || !*s.span_id)
		return ig_fail(g, "span %zu: empty traceId or spanId", idx);
	s.trace_id = otlp_id(g, s.trace_id, TRACE_ID_BYTES);
	s.span_id = otlp_id(g, s.span_id, SPAN_ID_BYTES);
	s.parent_id = otlp_id(g, s.parent_id, SPAN_ID_BYTES);	/* "" is a root */
	s.start = ig_time_us_u(g, t0, INGEST_TU_NS);
	s.duration = t1 >= t0 ? ig_time_us_u(g, t1 - t0, INGEST_TU_NS) : -ig_time_us_u(g, t0 - t1, INGEST_TU_NS);
	if (s.duration < 0)
		return ig_fail(g, "span %s: ends before it starts", s.span_id);
	s.has_time = 1;
	s.service = sc->service;
	s.host = sc->host;
	if (*sc->name)
		ig_tag(g, "otel.scope.name", sc->name);
	if (*sc->version)
		ig_tag(g, "otel.scope.version", sc->version);
	if (attributes(g, span, ig_put_tag, NULL, NULL) < 0)
		return -1;
	if (s.kind != TR_KIND_NONE)
		ig_tag(g, "span.kind", tr_kind_name(s.kind));
	if (status_of(g, span) < 0 || ig_get_str(g, span, "traceState", 0, &state) < 0)
		return -1;
	if (*state)
		ig_tag(g, "w3c.tracestate", state);
	if (events_of(g, span) < 0 || links_of(g, span) < 0)
		return -1;
	if (sc->scope && attributes(g, sc->scope, ig_ptag, "otel.scope.", NULL) < 0)
		return -1;
	if (attributes(g, sc->resource, ig_ptag, "process.", "service.name") < 0)
		return -1;
	if (ig_check_time(g, &s, INGEST_TU_NS) < 0)
		return -1;
	ig_span_commit(g, &s);
	return 0;
}

static const char *
resource_attr(ingest *g, const jtree *resource, const char *key)
{
	const jtree *arr = jtree_get(resource, "attributes"), *a;
	size_t i;
	const char *val;

	jtree_array_foreach(arr, i, a) {
		const char *k = jtree_str(jtree_get(a, "key"));

		if (k && strcmp(k, key) == 0 && any_value(g, jtree_get(a, "value"), &val) == 0)
			return val;
	}
	return NULL;
}

/* A span that did not convert: its trace, named as its good spans are, is bad. */
static void
bad_span(ingest *g, const jtree *span)
{
	const char *tid = jtree_str(jtree_get(span, "traceId"));

	if (tid && *tid)
		ig_bad_trace(g, otlp_id(g, tid, TRACE_ID_BYTES));
	else
		ig_bad_span(g, span);	/* counts a trace it cannot name */
}

/* A scope or resource that does not convert loses its spans: the traces
 * they name are broken, or, when they cannot be named, every trace of the
 * file may be incomplete. */
static int
lose_spans(ingest *g, const jtree *spans)
{
	const jtree *span;
	size_t i;

	if (!jtree_is_array(spans))
		ig_lost_element(g);
	jtree_array_foreach(spans, i, span)
		bad_span(g, span);
	return -1;
}

static int
scope_spans(ingest *g, const jtree *ss, oscope *sc)
{
	const jtree *scope, *spans, *span;
	size_t i;

	if (!jtree_is_object(ss)) {
		ig_lost_element(g);
		return ig_fail(g, "scopeSpans element is not an object");
	}
	scope = jtree_get(ss, "scope");
	if (!scope)
		scope = jtree_get(ss, "instrumentationLibrary");
	sc->name = sc->version = "";
	sc->scope = NULL;
	if (scope && jtree_is_object(scope)) {
		if (ig_get_str(g, scope, "name", 0, &sc->name) < 0 ||
		    ig_get_str(g, scope, "version", 0, &sc->version) < 0)
			return lose_spans(g, jtree_get(ss, "spans"));
		sc->scope = scope;
	}
	if (ig_get_array(g, ss, "spans", &spans) < 0)
		return lose_spans(g, NULL);
	int failed = 0;
	jtree_array_foreach(spans, i, span) {
		ig_build_reset(g);
		if (one_span(g, span, sc, i) < 0) {
			bad_span(g, span);
			failed = 1;
			if (!g->opts.keep_going)
				break;	/* -k: the spans after it may be of good traces */
		}
	}
	return failed ? -1 : 0;
}

int
otlp_resource_spans(ingest *g, const jtree *rs)
{
	const jtree *resource, *sss, *ss;
	oscope sc = {0};
	size_t i;
	const char *v;

	if (!jtree_is_object(rs)) {
		ig_lost_element(g);
		return ig_fail(g, "resourceSpans element is not an object");
	}
	resource = jtree_get(rs, "resource");
	sc.resource = resource && jtree_is_object(resource) ? resource : NULL;
	sc.service = (v = resource_attr(g, sc.resource, "service.name")) ? v : "";
	sc.host = (v = resource_attr(g, sc.resource, "host.name")) ? v :
		  (v = resource_attr(g, sc.resource, "host.ip")) ? v : "";
	if (ig_get_array(g, rs, "scopeSpans", &sss) < 0 ||
	    (!sss && ig_get_array(g, rs, "instrumentationLibrarySpans", &sss) < 0))
		return lose_spans(g, NULL);
	int failed = 0;
	jtree_array_foreach(sss, i, ss)
		if (scope_spans(g, ss, &sc) < 0) {
			failed = 1;
			if (!g->opts.keep_going)
				break;
		}
	return failed ? -1 : 0;
}

int
otlp_document(ingest *g, const jtree *doc)
{
	const jtree *arr, *rs;
	size_t i;

	if (jtree_get(doc, "result"))
		doc = jtree_get(doc, "result");	/* Jaeger's api_v3 */
	else if (jtree_get(doc, "trace"))
		doc = jtree_get(doc, "trace");	/* Tempo's /api/v2/traces/<id> */
	if (!jtree_is_object(doc) || ig_get_array(g, doc, "resourceSpans", &arr) < 0)
		return ig_fail(g, "not an OTLP document");
	int failed = 0;
	jtree_array_foreach(arr, i, rs)
		if (otlp_resource_spans(g, rs) < 0) {
			failed = 1;
			if (!g->opts.keep_going)
				break;
		}
	return failed ? -1 : 0;
}
