/* failure.c - one notion of a failed span, read from every format the
 * exports write (tr-format(5), FAILURES), with its message as recorded.
 *
 * Evidence, in the order read: OpenTelemetry's status (otel.status_code:
 * ERROR fails, OK is the application's word that it did not and ends the
 * search); an error tag that is not "false" (Jaeger and OpenTracing write
 * true, Zipkin the message itself); an HTTP status (a client's from 400, any
 * other span's from 500, as OpenTelemetry's conventions say); a gRPC status
 * other than 0 (OK); an exception event (OpenTelemetry's event=exception,
 * OpenTracing's event=error). The message is the first of: the status
 * description, an error tag's own text, the exception's, a recorded error
 * message tag; else the status code itself. */
#include <string.h>

#include "core/trace.h"

static const char *const http_keys[] = {"http.response.status_code", "http.status_code"};
static const char *const grpc_keys[] = {"rpc.grpc.status_code", "grpc.status_code"};
static const char *const message_keys[] = {"error.message", "exception.message", "grpc.error_message"};

/* The first of keys[0, n) the span has, its key in *key. */
static const char *
first_tag(const tr_span *s, const char *const *keys, size_t n, const char **key)
{
	for (size_t i = 0; i < n; i++) {
		const char *v = tr_span_tag(s, keys[i]);

		if (v) {
			*key = keys[i];
			return v;
		}
	}
	return NULL;
}

/* A status code tag at or above min (HTTP), or other than 0 (gRPC: min 0). */
static int
status_failed(const tr_span *s, const char *const *keys, size_t n, int64_t min, tr_failure *f)
{
	const char *key, *v = first_tag(s, keys, n, &key);
	int64_t c;

	if (!v || parse_i64(v, strlen(v), &c) < 0 || (min ? c < min : c == 0))
		return 0;
	f->source = f->source ? f->source : key;
	if (!f->code) {	/* HTTP's, when a span has both */
		f->code = v;
		f->code_key = key;
	}
	return 1;
}

/* The evidence of the span's tags; f is zeroed by the caller; details:
 * fill the message and the rest, not only the verdict. */
static int
tag_failure(const tr_span *s, tr_failure *f, int details)
{
	const char *o = tr_span_tag(s, "otel.status_code");
	const char *e = tr_span_tag(s, "error");
	const char *key;
	int failed = 0;

	if (o && strcmp(o, "OK") == 0)
		return 0;
	if (o && strcmp(o, "ERROR") == 0) {
		f->source = "otel.status_code";
		f->message = tr_span_tag(s, "otel.status_description");
		failed = 1;
	}
	if (e && strcmp(e, "false") != 0) {
		f->source = f->source ? f->source : "error";
		if (!f->message && *e && strcmp(e, "true") != 0)
			f->message = e;	/* Zipkin's error tag holds the message */
		failed = 1;
	}
	failed |= status_failed(s, http_keys, 2, s->kind == TR_KIND_CLIENT ? 400 : 500, f);
	failed |= status_failed(s, grpc_keys, 2, 0, f);
	if (!details)	/* the verdict alone: most spans did not fail */
		return failed;
	if (!f->message)
		f->message = first_tag(s, message_keys, 3, &key);
	f->status_text = tr_span_tag(s, "http.status_text");
	f->type = tr_span_tag(s, "exception.type");
	f->stack = tr_span_tag(s, "exception.stacktrace");
	return failed;
}

static const char *
log_tag(const tr_log *l, const char *key)
{
	for (uint32_t i = 0; i < l->ntags; i++)
		if (strcmp(l->tags[i].key, key) == 0)
			return l->tags[i].val;
	return NULL;
}

/* An exception event of the span (its first), read into f where the tags
 * left a field empty. */
static int
event_failure(const tr_trace *t, int32_t span, tr_failure *f)
{
	/* the span's own chain; next only grows, so a chain always ends */
	for (int32_t i = t->spans[span].first_log; i >= 0 && (size_t)i < t->nlogs &&
	     t->logs[i].span == span; i = t->logs[i].next > i ? t->logs[i].next : -1) {
		const tr_log *l = &t->logs[i];
		const char *ev = log_tag(l, "event");
		int otel = ev && strcmp(ev, "exception") == 0;

		if (!otel && !(ev && strcmp(ev, "error") == 0))
			continue;
		f->source = f->source ? f->source : otel ? "event=exception" : "event=error";
		f->type = f->type ? f->type : log_tag(l, otel ? "exception.type" : "error.kind");
		if (!f->message)
			f->message = log_tag(l, otel ? "exception.message" : "message");
		if (!f->message && !otel)
			f->message = log_tag(l, "error.object");
		f->stack = f->stack ? f->stack : log_tag(l, otel ? "exception.stacktrace" : "stack");
		return 1;
	}
	return 0;
}

/* The tags the verdict reads, each where it first occurs. */
typedef struct verdict_tags {
	const char *otel, *error, *http[2], *grpc[2];	/* in the order of http_keys, grpc_keys */
} verdict_tags;

static void
first_of(const char **slot, const tr_tag *g, const char *key)
{
	if (!*slot && strcmp(g->key, key) == 0)
		*slot = g->val;
}

/* "tatus_code", the rest of http.status_code, byte by byte: each test
 * stops at a NUL, and on most HTTP spans this costs less than strcmp. */
static int
is_status_code(const char *k)
{
	return k[0] == 't' && k[1] == 'a' && k[2] == 't' && k[3] == 'u' && k[4] == 's' &&
	       k[5] == '_' && k[6] == 'c' && k[7] == 'o' && k[8] == 'd' && k[9] == 'e' && !k[10];
}

/* The first bytes of the keys the verdict reads. */
static const unsigned char verdict_initial[256] = {['e'] = 1, ['g'] = 1, ['h'] = 1, ['o'] = 1, ['r'] = 1};

/* One pass over the span's tags, where looking each key up would take
 * seven: the verdict alone is asked of every span (tr-cp --summary's
 * errors column), and most tags are none of these keys, which their first
 * byte tells. */
static void
scan_verdict_tags(const tr_span *s, verdict_tags *v)
{
	*v = (verdict_tags){0};
	for (uint32_t k = 0; k < s->ntags; k++) {	/* tags is NULL when there are none */
		const tr_tag *g = &s->tags[k];
		const char *key = g->key;

		if (!verdict_initial[(unsigned char)key[0]])
			continue;
		switch (key[0]) {
		/* a second byte first, before a call: most keys of these initials
		 * (retry.*, route.*, event) are none of these */
		case 'o': if (key[1] == 't') first_of(&v->otel, g, "otel.status_code"); break;
		case 'e': if (key[1] == 'r') first_of(&v->error, g, "error"); break;
		case 'h':	/* "http." then r(esponse) or s(tatus); each test stops at a NUL */
			if (key[1] != 't' || key[2] != 't' || key[3] != 'p' || key[4] != '.')
				break;
			if (key[5] == 's' && !v->http[1] && is_status_code(key + 6))
				v->http[1] = g->val;	/* http_keys[1] */
			else if (key[5] == 'r')
				first_of(&v->http[0], g, http_keys[0]);
			break;
		case 'r': if (key[1] == 'p') first_of(&v->grpc[0], g, grpc_keys[0]); break;
		default: if (key[1] == 'r') first_of(&v->grpc[1], g, grpc_keys[1]); break;
		}
	}
}

/* A status code (the first of its keys the span has) at or above min, or
 * other than 0 when min is 0: as status_failed. Three digits from 1 to 3
 * are below any HTTP min (400, 500), the common case, told without
 * parsing. */
static int
code_failed(const char *const v[2], int64_t min)
{
	const char *c = v[0] ? v[0] : v[1];
	int64_t n;

	if (!c)
		return 0;
	if (min >= 400 && c[0] >= '1' && c[0] <= '3' && c[1] >= '0' && c[1] <= '9' &&
	    c[2] >= '0' && c[2] <= '9' && !c[3])
		return 0;
	return parse_i64(c, strlen(c), &n) == 0 && (min ? n >= min : n != 0);
}

/* tag_failure's verdict (details 0) from one pass over the tags. */
static int
tag_verdict(const tr_span *s, const verdict_tags *v)
{
	return (v->otel && strcmp(v->otel, "ERROR") == 0) ||
	       (v->error && strcmp(v->error, "false") != 0) ||
	       code_failed(v->http, s->kind == TR_KIND_CLIENT ? 400 : 500) ||
	       code_failed(v->grpc, 0);
}

/* The failure with its details. Kept out of line: its frame would cost
 * every verdict-only call, the common one, about as much as the verdict. */
static int __attribute__((noinline))
span_failure(const tr_trace *t, int32_t i, tr_failure *f)
{
	const char *o = tr_span_tag(&t->spans[i], "otel.status_code");

	memset(f, 0, sizeof *f);
	if (o && strcmp(o, "OK") == 0)
		return 0;
	return tag_failure(&t->spans[i], f, 1) | event_failure(t, i, f);
}

/* The verdict alone, as span_failure gives it. */
static int
span_verdict(const tr_trace *t, int32_t i)
{
	const tr_span *s = &t->spans[i];
	verdict_tags v;
	tr_failure f;

	scan_verdict_tags(s, &v);
	if (v.otel && strcmp(v.otel, "OK") == 0)
		return 0;
	if (tag_verdict(s, &v))
		return 1;
	return s->first_log >= 0 && span_failure(t, i, &f);	/* an exception event */
}

int
tr_span_error(const tr_trace *t, int32_t i, tr_failure *f)
{
	return f ? span_failure(t, i, f) : span_verdict(t, i);
}

int
tr_span_failed(const tr_span *s)
{
	tr_failure f = {0};

	return tag_failure(s, &f, 0);
}

/* Text of n bytes of p, TAB, CR and LF as spaces: the line stays one. */
static void
add_line(strbuf *b, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sb_addc(b, p[i] == '\t' || p[i] == '\r' || p[i] == '\n' ? ' ' : p[i]);
}

/* Does p[0, n) hold the text m? */
static int
holds(const char *p, size_t n, const char *m)
{
	size_t k = strlen(m);

	for (size_t i = 0; k && i + k <= n; i++)
		if (memcmp(p + i, m, k) == 0)
			return 1;
	return 0;
}

/* The first line of the stack that is not the message again: where. */
static void
add_stack_line(strbuf *b, const char *stack, const char *message)
{
	for (const char *p = stack; *p;) {
		size_t n = strcspn(p, "\r\n"), lead = strspn(p, " \t");

		if (n > lead && !(message && holds(p, n, message))) {
			sb_adds(b, " (");
			add_line(b, p + lead, n - lead);
			sb_addc(b, ')');
			return;
		}
		p += n;
		p += strspn(p, "\r\n");
	}
}

void
tr_failure_text(const tr_failure *f, int where, strbuf *b)
{
	int type = f->type && *f->type && !(f->message && strstr(f->message, f->type) == f->message);

	if (type) {
		add_line(b, f->type, strlen(f->type));
		if (f->message && *f->message)
			sb_adds(b, ": ");
	}
	if (f->message && *f->message)
		add_line(b, f->message, strlen(f->message));
	else if (f->code) {
		sb_addf(b, "%s %s", strstr(f->code_key, "http") ? "HTTP" : "gRPC status", f->code);
		if (f->status_text && *f->status_text) {
			sb_addc(b, ' ');
			add_line(b, f->status_text, strlen(f->status_text));
		}
	} else if (!type)	/* the evidence itself: "error tag", "otel.status_code=ERROR" */
		sb_adds(b, !f->source || strcmp(f->source, "error") == 0 ? "error tag" :
			   strcmp(f->source, "otel.status_code") == 0 ? "otel.status_code=ERROR" : f->source);
	if (where && f->stack)
		add_stack_line(b, f->stack, f->message);
}

int
tr_span_is_stream(const tr_span *s)
{
	const char *op = s->operation, *m = op;

	for (const char *p = op; *p; p++)
		if (*p == '/' || *p == '.')
			m = p + 1;
	return strstr(m, "Stream") != NULL;
}
