/* zipkin.c - Zipkin v2 and v1 JSON spans; shared client/server ids. */
#include "ingest/convert.h"

#include <string.h>

static int
kind_of(ingest *g, const jtree *span, int *kind)
{
	const char *k;

	if (ig_get_str(g, span, "kind", 0, &k) < 0)
		return -1;
	if (!*k) {
		*kind = TR_KIND_NONE;
		return 0;
	}
	char low[16];
	size_t n = strlen(k);
	if (n >= sizeof low)
		return ig_fail(g, "unknown span kind \"%.20s\"", k);
	for (size_t i = 0; i <= n; i++)
		low[i] = (char)(k[i] >= 'A' && k[i] <= 'Z' ? k[i] + 32 : k[i]);
	*kind = tr_kind_parse(low, n);
	if (*kind < 0 || *kind == TR_KIND_INTERNAL)
		return ig_fail(g, "unknown span kind \"%.20s\"", k);
	return 0;
}

/* localEndpoint: service and host, and the fields Zipkin keys a shared span
 * by; remoteEndpoint: peer.* tags. */
static int
endpoint(ingest *g, const jtree *ep, ispan *s)
{
	const jtree *port;

	s->service = s->host = s->ep_ipv4 = s->ep_ipv6 = s->ep_port = "";
	if (!ep || jtree_is_null(ep))
		return 0;
	if (!jtree_is_object(ep))
		return ig_fail(g, "endpoint is not an object");
	if (ig_get_str(g, ep, "serviceName", 0, &s->service) < 0 ||
	    ig_get_str(g, ep, "ipv4", 0, &s->ep_ipv4) < 0 || ig_get_str(g, ep, "ipv6", 0, &s->ep_ipv6) < 0)
		return -1;
	if ((port = jtree_get(ep, "port")) && !jtree_is_null(port))
		s->ep_port = ig_json_text(g, port);
	s->host = *s->ep_ipv4 ? s->ep_ipv4 : s->ep_ipv6;
	return 0;
}

static int
remote_tags(ingest *g, const jtree *ep)
{
	const char *svc, *ip4, *ip6;
	const jtree *port;

	if (!ep || jtree_is_null(ep))
		return 0;
	if (!jtree_is_object(ep))
		return ig_fail(g, "remoteEndpoint is not an object");
	if (ig_get_str(g, ep, "serviceName", 0, &svc) < 0 || ig_get_str(g, ep, "ipv4", 0, &ip4) < 0 ||
	    ig_get_str(g, ep, "ipv6", 0, &ip6) < 0)
		return -1;
	if (*svc)
		ig_tag(g, "peer.service", svc);
	if (*ip4)
		ig_tag(g, "peer.ipv4", ip4);
	if (*ip6)
		ig_tag(g, "peer.ipv6", ip6);
	if ((port = jtree_get(ep, "port")) && jtree_is_integer(port) && jtree_int(port))
		ig_tag(g, "peer.port", ig_json_text(g, port));
	return 0;
}

static int
ids_of(ingest *g, const jtree *span, ispan *s)
{
	if (ig_get_str(g, span, "traceId", 1, &s->trace_id) < 0 ||
	    ig_get_str(g, span, "id", 1, &s->span_id) < 0 ||
	    ig_get_str(g, span, "parentId", 0, &s->parent_id) < 0 ||
	    ig_get_str(g, span, "name", 0, &s->operation) < 0)
		return -1;
	if (!*s->trace_id || !*s->span_id)
		return ig_fail(g, "empty traceId or id");
	s->trace_id = ig_lower(g, s->trace_id);
	s->span_id = ig_lower(g, s->span_id);
	s->parent_id = ig_lower(g, s->parent_id);
	return 0;
}

/* timestamp and duration; a span without them is kept and flagged. */
static int
times_of(ingest *g, const jtree *span, ispan *s)
{
	int has_ts, has_dur;

	if (ig_get_time(g, span, "timestamp", 0, &s->start, &has_ts, INGEST_TU_US) < 0 ||
	    ig_get_time(g, span, "duration", 0, &s->duration, &has_dur, INGEST_TU_US) < 0)
		return -1;
	if (has_dur && s->duration < 0)
		return ig_fail(g, "negative duration");
	s->has_time = has_ts && has_dur;
	if (!s->has_time) {
		ig_tag(g, "tr.no_time", "true");
		if (has_ts)
			ig_tag(g, "tr.start_us", ig_json_text(g, jtree_get(span, "timestamp")));
		s->start = 0;	/* a duration alone stays: zipkin_merge may find its start */
	}
	return 0;
}

static int
v2_span(ingest *g, const jtree *span)
{
	ispan s = {0};
	const jtree *tags, *annots, *a, *v;
	const char *key;
	size_t i;

	if (ids_of(g, span, &s) < 0 || kind_of(g, span, &s.kind) < 0 ||
	    endpoint(g, jtree_get(span, "localEndpoint"), &s) < 0 ||
	    times_of(g, span, &s) < 0)
		return -1;
	tags = jtree_get(span, "tags");
	if (tags && !jtree_is_null(tags) && !jtree_is_object(tags))
		return ig_fail(g, "\"tags\" is not an object");
	if (s.kind != TR_KIND_NONE)
		ig_tag(g, "span.kind", tr_kind_name(s.kind));
	jtree_object_foreach(tags, key, v)
		ig_tag(g, ig_str(g, key), ig_json_text(g, v));
	if (remote_tags(g, jtree_get(span, "remoteEndpoint")) < 0 ||
	    ig_get_array(g, span, "annotations", &annots) < 0)
		return -1;
	jtree_array_foreach(annots, i, a) {
		int64_t ts;
		const char *val;

		if (!jtree_is_object(a))
			return ig_fail(g, "annotation %zu is not an object", i);
		if (ig_get_time(g, a, "timestamp", 1, &ts, NULL, INGEST_TU_US) < 0 ||
		    ig_get_str(g, a, "value", 0, &val) < 0)
			return -1;
		ig_log_begin(g, ts);
		ig_log_tag(g, "event", val);
	}
	s.shared = jtree_is_true(jtree_get(span, "shared"));
	if (ig_check_time(g, &s, INGEST_TU_US) < 0)
		return -1;
	ig_span_commit(g, &s);
	return 0;
}

/* ---- Zipkin v1: split by cs/sr/ss/cr (ms/mr) annotations, as Zipkin's V1SpanConverter does ---- */

typedef struct v1note {
	int64_t ts;
	const char *value;
	const jtree *ep;
} v1note;

typedef struct v1side {
	const v1note *begin, *end;	/* cs/cr, sr/ss, ms, mr */
} v1side;

static const v1note *
note(const v1note *n, size_t nn, const char *value)
{
	for (size_t i = 0; i < nn; i++)
		if (strcmp(n[i].value, value) == 0)
			return &n[i];
	return NULL;
}

static int
is_core_note(const char *v)
{
	static const char *const core[] = {"cs", "cr", "sr", "ss", "ms", "mr"};

	for (size_t i = 0; i < sizeof core / sizeof *core; i++)
		if (strcmp(v, core[i]) == 0)
			return 1;
	return 0;
}

static int
v1_emit(ingest *g, const ispan *base, int kind, const v1note *b, const v1note *e,
	const jtree *ep, const jtree *remote, const jtree *bin, const v1note *notes, size_t nn,
	int shared, int64_t span_ts, int64_t span_dur, int has_span_time)
{
	ispan s = *base;
	size_t i;
	const jtree *ba;

	s.kind = kind;
	s.shared = shared;
	if (endpoint(g, ep, &s) < 0)
		return -1;
	if (b && e) {
		s.start = b->ts;
		/* An end before the start, or too far after it, is no time. */
		s.has_time = !__builtin_sub_overflow(e->ts, b->ts, &s.duration) && s.duration >= 0;
	} else if (has_span_time && !shared) {
		s.start = span_ts;
		s.duration = span_dur;
		s.has_time = 1;
	} else
		s.has_time = 0;
	if (!s.has_time) {
		s.start = s.duration = 0;
		ig_tag(g, "tr.no_time", "true");
		if (b) {
			char buf[24];

			snprintf(buf, sizeof buf, "%lld", (long long)b->ts);
			ig_tag(g, "tr.start_us", ig_str(g, buf));
		}
	}
	if (kind != TR_KIND_NONE)
		ig_tag(g, "span.kind", tr_kind_name(kind));
	jtree_array_foreach(bin, i, ba) {
		const char *key = jtree_str(jtree_get(ba, "key"));
		const jtree *v = jtree_get(ba, "value");

		if (!key || !v || strcmp(key, "sa") == 0 || strcmp(key, "ca") == 0 || strcmp(key, "ma") == 0)
			continue;
		ig_tag(g, ig_str(g, key), ig_json_text(g, v));
	}
	if (remote && remote_tags(g, remote) < 0)
		return -1;
	/* Annotations other than the core ones go to the side whose endpoint logged them. */
	for (i = 0; i < nn; i++) {
		const v1note *n = &notes[i];
		const char *svc = jtree_str(jtree_get(n->ep, "serviceName"));

		if (n == b || n == e || (svc && *s.service && strcmp(svc, s.service) != 0))
			continue;
		if (is_core_note(n->value))
			continue;
		ig_log_begin(g, n->ts);
		ig_log_tag(g, "event", n->value);
	}
	if (ig_check_time(g, &s, INGEST_TU_US) < 0)
		return -1;
	ig_span_commit(g, &s);
	return 0;
}

static const jtree *
address(const jtree *bin, const char *key)
{
	size_t i;
	const jtree *ba;

	jtree_array_foreach(bin, i, ba) {
		const char *k = jtree_str(jtree_get(ba, "key"));

		if (k && strcmp(k, key) == 0)
			return jtree_get(ba, "endpoint");
	}
	return NULL;
}

static int
v1_span(ingest *g, const jtree *span)
{
	ispan base = {0};
	const jtree *annots, *bin, *a;
	v1note notes[64];
	size_t nn = 0, i;
	int64_t ts, dur;
	int has_ts, has_dur;

	if (ids_of(g, span, &base) < 0 || ig_get_array(g, span, "annotations", &annots) < 0 ||
	    ig_get_array(g, span, "binaryAnnotations", &bin) < 0 ||
	    ig_get_time(g, span, "timestamp", 0, &ts, &has_ts, INGEST_TU_US) < 0 ||
	    ig_get_time(g, span, "duration", 0, &dur, &has_dur, INGEST_TU_US) < 0)
		return -1;
	jtree_array_foreach(annots, i, a) {
		if (!jtree_is_object(a))
			return ig_fail(g, "annotation %zu is not an object", i);
		if (nn == sizeof notes / sizeof *notes)
			return ig_fail(g, "more than %zu annotations", nn);
		if (ig_get_time(g, a, "timestamp", 1, &notes[nn].ts, NULL, INGEST_TU_US) < 0 ||
		    ig_get_str(g, a, "value", 1, &notes[nn].value) < 0)
			return -1;
		notes[nn++].ep = jtree_get(a, "endpoint");
	}
	const v1note *cs = note(notes, nn, "cs"), *cr = note(notes, nn, "cr");
	const v1note *sr = note(notes, nn, "sr"), *ss = note(notes, nn, "ss");
	const v1note *ms = note(notes, nn, "ms"), *mr = note(notes, nn, "mr");
	int timed = has_ts && has_dur;
	int n = 0;

	if (cs || cr) {
		if (v1_emit(g, &base, TR_KIND_CLIENT, cs, cr, (cs ? cs : cr)->ep, address(bin, "sa"), bin,
			    notes, nn, 0, ts, dur, timed) < 0)
			return -1;
		n++;
	}
	if (sr || ss) {
		/* The server side of a span the client also reported shares its id. */
		int shared = n > 0 || !has_ts;
		if (v1_emit(g, &base, TR_KIND_SERVER, sr, ss, (sr ? sr : ss)->ep, address(bin, "ca"), bin,
			    notes, nn, shared, ts, dur, timed && !n) < 0)
			return -1;
		n++;
	}
	if (ms && !n) {
		if (v1_emit(g, &base, TR_KIND_PRODUCER, ms, NULL, ms->ep, address(bin, "ma"), bin, notes, nn,
			    0, ts, dur, timed) < 0)
			return -1;
		n++;
	}
	if (mr && !n) {
		if (v1_emit(g, &base, TR_KIND_CONSUMER, mr, NULL, mr->ep, address(bin, "ma"), bin, notes, nn,
			    0, ts, dur, timed) < 0)
			return -1;
		n++;
	}
	if (!n) {
		/* A local span: its endpoint from "lc" or the first annotation. */
		const jtree *ep = address(bin, "lc");

		if (!ep && nn)
			ep = notes[0].ep;
		if (v1_emit(g, &base, TR_KIND_NONE, NULL, NULL, ep, NULL, bin, notes, nn, 0, ts, dur, timed) < 0)
			return -1;
	}
	return 0;
}

static int
is_v1(const jtree *span)
{
	const jtree *annots = jtree_get(span, "annotations"), *a;
	size_t i;

	if (jtree_get(span, "binaryAnnotations"))
		return 1;
	if (jtree_get(span, "localEndpoint") || jtree_get(span, "kind") ||
	    jtree_get(span, "tags"))
		return 0;
	jtree_array_foreach(annots, i, a)
		if (jtree_get(a, "endpoint"))
			return 1;
	return 0;
}

int
zipkin_span(ingest *g, const jtree *span, int version)
{
	int r;
	size_t first = g->batch.n;

	if (!jtree_is_object(span))
		return ig_fail(g, "a Zipkin span must be an object");
	ig_build_reset(g);
	g->zipkin_seen = 1;
	if (!version)
		version = is_v1(span) ? 1 : 2;
	r = version == 1 ? v1_span(g, span) : v2_span(g, span);
	if (r < 0)
		ig_bad_span(g, span);
	zipkin_mark_parts(g, first);
	return r;
}
