/* jaeger.c - one Jaeger JSON trace (query API, UI export) to spans. */
#include "ingest/convert.h"

#include <string.h>

/* A Jaeger tag's value as text, by its declared type (or the JSON type). */
static int
tag_value(ingest *g, const jtree *tag, const char **out)
{
	const jtree *v = jtree_get(tag, "value");
	const char *type = jtree_str(jtree_get(tag, "type"));

	if (!v)
		return ig_fail(g, "tag without \"value\"");
	if (type && (strcmp(type, "int64") == 0 || strcmp(type, "INT64") == 0) && jtree_is_string(v)) {
		int64_t x;

		/* Beyond 2^53 Jaeger writes int64 as a string; keep it exact. */
		if (parse_i64(jtree_str(v), jtree_len(v), &x) < 0)
			return ig_fail(g, "int64 tag value \"%.40s\" is not an integer", jtree_str(v));
	} else if (type && (strcmp(type, "bool") == 0 || strcmp(type, "BOOL") == 0) &&
		   !jtree_is_bool(v) && !jtree_is_string(v))
		return ig_fail(g, "bool tag value is not a boolean");
	*out = ig_json_text(g, v);
	return 0;
}

static int
tags_of(ingest *g, const jtree *o, const char *field, const jtree **arr)
{
	if (ig_get_array(g, o, field, arr) < 0)
		return -1;
	return 0;
}

static int
each_tag(ingest *g, const jtree *arr, ig_put_fn put,
	 const char *prefix)
{
	size_t i;
	const jtree *tag;

	jtree_array_foreach(arr, i, tag) {
		const char *key = "", *val = "";

		if (!jtree_is_object(tag))
			return ig_fail(g, "tag %zu is not an object", i);
		if (ig_get_str(g, tag, "key", 1, &key) < 0 || tag_value(g, tag, &val) < 0)
			return -1;
		put(g, prefix, key, val);
	}
	return 0;
}

typedef struct jprocess {
	const char *service, *host;
	const jtree *tags;
} jprocess;

static int
process_of(ingest *g, const jtree *p, jprocess *out)
{
	static const char *const host_keys[] = {"hostname", "host.name", "ip"};
	const jtree *tags;

	memset(out, 0, sizeof *out);
	out->host = "";
	if (!jtree_is_object(p))
		return ig_fail(g, "process is not an object");
	if (ig_get_str(g, p, "serviceName", 0, &out->service) < 0 || tags_of(g, p, "tags", &tags) < 0)
		return -1;
	out->tags = tags;
	for (size_t k = 0; k < 3 && tags && !*out->host; k++) {
		size_t i;
		const jtree *tag;

		jtree_array_foreach(tags, i, tag) {
			const char *key = jtree_str(jtree_get(tag, "key"));
			const jtree *v = jtree_get(tag, "value");

			if (key && v && strcmp(key, host_keys[k]) == 0) {
				out->host = ig_json_text(g, v);
				break;
			}
		}
	}
	return 0;
}

/* A process as its spans see it: read once per trace, however many spans
 * name it (a trace of 1,000 spans has a handful of processes). Its tags are
 * made once, in the batch arena, and appended to each span's. */
static const iproc *
process_cached(ingest *g, const jtree *p)
{
	jprocess jp;
	ibuild *b = &g->build;
	size_t before = b->nptags;

	for (size_t i = 0; i < g->nprocs; i++)
		if (g->procs[i].key == p)
			return &g->procs[i];
	if (process_of(g, p, &jp) < 0 || (jp.tags && each_tag(g, jp.tags, ig_ptag, "process.") < 0)) {
		b->nptags = before;
		return NULL;
	}
	size_t n = b->nptags - before;
	itag *t = arena_alloc(&g->batch.mem, n * sizeof *t + 1);

	if (n)	/* no tags ever: ptags is still NULL */
		memcpy(t, b->ptags + before, n * sizeof *t);
	b->nptags = before;
	GROW(g->procs, g->capprocs, g->nprocs + 1);
	g->procs[g->nprocs] = (iproc){p, jp.service ? jp.service : "", jp.host, t, (uint32_t)n};
	return &g->procs[g->nprocs++];
}

/* Primary parent: the first CHILD_OF in the trace, else the first FOLLOWS_FROM
 * in the trace; every other reference becomes an R record. */
static int
references(ingest *g, const jtree *span, const char *trace_id, ispan *s)
{
	const jtree *refs, *ref;
	size_t i;
	int parent = -1, follows = 0;

	if (ig_get_array(g, span, "references", &refs) < 0)
		return -1;
	for (int pass = 0; pass < 2 && parent < 0; pass++) {
		jtree_array_foreach(refs, i, ref) {
			const char *type = jtree_str(jtree_get(ref, "refType"));
			const char *rt = jtree_str(jtree_get(ref, "traceID"));

			if (!type || (rt && *rt && strcmp(rt, trace_id) != 0))
				continue;
			if (strcmp(type, pass ? "FOLLOWS_FROM" : "CHILD_OF") == 0) {
				parent = (int)i;
				follows = pass;
				break;
			}
		}
	}
	const char *pid = "";
	jtree_array_foreach(refs, i, ref) {
		const char *type, *rtrace, *rspan;

		if (!jtree_is_object(ref))
			return ig_fail(g, "reference %zu is not an object", i);
		/* An old UI export nests a copy of the parent under "span": never followed. */
		if (ig_get_str(g, ref, "refType", 1, &type) < 0 ||
		    ig_get_str(g, ref, "traceID", 0, &rtrace) < 0 ||
		    ig_get_str(g, ref, "spanID", 1, &rspan) < 0)
			return -1;
		if (!*rtrace)
			rtrace = trace_id;
		int is_follows = strcmp(type, "FOLLOWS_FROM") == 0;
		if (!is_follows && strcmp(type, "CHILD_OF") != 0)
			return ig_fail(g, "reference %zu: unknown refType \"%.40s\"", i, type);
		if ((int)i == parent) {
			pid = rspan;
			if (follows)
				ig_ref(g, "follows_from", rtrace, rspan);
			continue;
		}
		/* A FOLLOWS_FROM to the CHILD_OF parent adds nothing to the tree. */
		if (is_follows && parent >= 0 && !follows && strcmp(rspan, pid) == 0 &&
		    strcmp(rtrace, trace_id) == 0)
			continue;
		ig_ref(g, is_follows ? "follows_from" : "child_of", rtrace, rspan);
	}
	s->parent_id = pid;
	return 0;
}

static int
logs_of(ingest *g, const jtree *span)
{
	const jtree *logs, *log, *fields;
	size_t i;

	if (ig_get_array(g, span, "logs", &logs) < 0)
		return -1;
	jtree_array_foreach(logs, i, log) {
		int64_t ts;

		if (!jtree_is_object(log))
			return ig_fail(g, "log %zu is not an object", i);
		if (ig_get_time(g, log, "timestamp", 1, &ts, NULL, INGEST_TU_US) < 0 ||
		    ig_get_array(g, log, "fields", &fields) < 0)
			return -1;
		ig_log_begin(g, ts);
		if (each_tag(g, fields, ig_put_log_tag, NULL) < 0)
			return -1;
	}
	return 0;
}

static int
kind_of_tags(const ispan *proto, ingest *g)
{
	(void)proto;
	for (size_t i = 0; i < g->build.ntags; i++)
		if (strcmp(g->build.tags[i].key, "span.kind") == 0) {
			int k = tr_kind_parse(g->build.tags[i].val, strlen(g->build.tags[i].val));

			return k < 0 ? TR_KIND_NONE : k;
		}
	return TR_KIND_NONE;
}

static int
one_span(ingest *g, const jtree *span, const char *trace_id, const jtree *processes, size_t idx)
{
	ispan s = {0};
	const iproc *proc = NULL;
	const jtree *tags, *p;
	int has_start, has_dur;
	const char *pid;

	if (!jtree_is_object(span))
		return ig_fail(g, "span %zu is not an object", idx);
	if (ig_get_str(g, span, "traceID", 0, &s.trace_id) < 0 ||
	    ig_get_str(g, span, "spanID", 1, &s.span_id) < 0 ||
	    ig_get_str(g, span, "operationName", 0, &s.operation) < 0 ||
	    ig_get_time(g, span, "startTime", 0, &s.start, &has_start, INGEST_TU_US) < 0 ||
	    ig_get_time(g, span, "duration", 0, &s.duration, &has_dur, INGEST_TU_US) < 0 ||
	    tags_of(g, span, "tags", &tags) < 0)
		return -1;
	if (!*s.trace_id)
		s.trace_id = trace_id;
	if (!*s.trace_id)
		return ig_fail(g, "span %zu: no traceID, in the span or its trace", idx);
	if (!*s.span_id)
		return ig_fail(g, "span %zu: empty spanID", idx);
	if (has_dur && s.duration < 0)
		return ig_fail(g, "span %s: negative duration", s.span_id);
	s.has_time = has_start && has_dur;
	if (!s.has_time)
		s.start = s.duration = 0;
	if ((p = jtree_get(span, "process")) && !jtree_is_null(p)) {
		if (!(proc = process_cached(g, p)))
			return -1;
	} else if (ig_get_str(g, span, "processID", 0, &pid) < 0) {
		return -1;
	} else if (*pid) {
		p = jtree_get(processes, pid);
		if (!p)
			return ig_fail(g, "span %s: processID \"%.40s\" is not in \"processes\"", s.span_id, pid);
		if (!(proc = process_cached(g, p)))
			return -1;
	}
	s.service = proc ? proc->service : "";
	s.host = proc ? proc->host : "";
	if (each_tag(g, tags, ig_put_tag, NULL) < 0 || references(g, span, s.trace_id, &s) < 0 ||
	    logs_of(g, span) < 0)
		return -1;
	if (!s.has_time)
		ig_tag(g, "tr.no_time", "true");
	s.kind = kind_of_tags(&s, g);
	if (proc && proc->ntags) {
		ibuild *b = &g->build;

		GROW(b->ptags, b->capptags, b->nptags + proc->ntags);
		memcpy(b->ptags + b->nptags, proc->tags, proc->ntags * sizeof *proc->tags);
		b->nptags += proc->ntags;
	}
	if (ig_check_time(g, &s, INGEST_TU_US) < 0)
		return -1;
	ig_span_commit(g, &s);
	return 0;
}

int
jaeger_trace(ingest *g, const jtree *trace)
{
	const jtree *spans, *span, *processes;
	const char *trace_id;
	size_t i, mark = g->batch.n;

	if (!jtree_is_object(trace))
		return ig_fail(g, "a Jaeger trace must be an object");
	if (ig_get_str(g, trace, "traceID", 0, &trace_id) < 0 ||
	    ig_get_array(g, trace, "spans", &spans) < 0)
		return -1;
	processes = jtree_get(trace, "processes");
	g->nprocs = 0;
	if (processes && !jtree_is_null(processes) && !jtree_is_object(processes))
		return ig_fail(g, "\"processes\" is not an object");
	jtree_array_foreach(spans, i, span) {
		ig_build_reset(g);
		if (one_span(g, span, trace_id, processes, i) < 0) {
			g->batch.n = mark;	/* nothing of a broken trace is kept */
			return -1;
		}
	}
	return 0;
}

/* A span of a top-level array of Jaeger UI spans, as jaeger-anonymizer
 * writes them: trace id and process inline; its trace is whole only at the
 * end of the file, like a Zipkin span's. */
int
jaeger_span(ingest *g, const jtree *span)
{
	ig_build_reset(g);
	g->nprocs = 0;
	if (one_span(g, span, "", NULL, 0) == 0)
		return 0;
	const char *tid = jtree_str(jtree_get(span, "traceID"));

	if (tid && *tid)
		ig_bad_trace(g, tid);
	else
		g->stats.broken++;	/* a trace we cannot name is still one lost */
	return -1;
}
