/* hb.c - happens-before edges read back: IE records and model files.
 *
 * Names (nameIDs) get dense ids in one map; an event is 2 * id (start) or
 * 2 * id + 1 (end), and an edge from -> to is the key from << 32 | to in a
 * u64map: the model file's in one map for the run, a trace's IE records in
 * another cleared for each trace. Per trace, every name's first start and
 * last end, so that a model file's edge A_E -> B_S is kept only where the
 * trace agrees, as tr-infer --reformat keeps it. */
#include "infer/hb.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "core/hash.h"
#include "infer/infer.h"

struct hb_model {
	infer_opts o;			/* the fields of a name */
	const char *path;		/* the model file, or NULL */
	arena mem;
	strmap names;			/* nameID -> dense id */
	size_t nnames, capnames;
	const char **text;		/* per name: its text (in the map's arena) */
	uint8_t *in_model;		/* per name: the model file names it */
	uint32_t *ie_stamp;		/* per name: gen of the trace whose IE records name it */
	uint32_t *seen;			/* per name: gen of the trace with a span of it */
	int64_t *first_start, *last_end;	/* per name, in the trace of seen */
	u64map model_edges, trace_edges;
	uint32_t gen;
	int use_ie;			/* the bound trace's edges are its IE records */
	int32_t *span_name;		/* per span of the bound trace */
	size_t capspans;
	int32_t *log_name;		/* per log of the bound trace: NAME@X, -1 */
	size_t caplogs;
	uint8_t *is_log;		/* per name: a log event NAME@X */
	int model_logs;			/* the model file names log events */
	int trace_logs;			/* the bound trace's IE records do */
	const tr_trace *t;		/* the bound trace */
	strbuf buf;
	hb_counts counts;
	strmap met;			/* span names met before a model name matched */
	char *model_first;		/* the model's first event, for messages */
	const char *first_met;		/* the first span name met */
};

hb_model *
hb_new(const char *fields)
{
	hb_model *m = xcalloc(1, sizeof *m);

	if (infer_parse_fields(fields ? fields : "service,operation", &m->o) < 0) {
		free(m);
		return NULL;
	}
	return m;
}

void
hb_free(hb_model *m)
{
	if (!m)
		return;
	strmap_free(&m->names);
	strmap_free(&m->met);
	u64map_free(&m->model_edges);
	u64map_free(&m->trace_edges);
	free(m->text);
	free(m->in_model);
	free(m->is_log);
	free(m->log_name);
	free(m->ie_stamp);
	free(m->seen);
	free(m->first_start);
	free(m->last_end);
	free(m->span_name);
	sb_free(&m->buf);
	arena_free(&m->mem);
	free(m);
}

int
hb_option(const char **model, const char **name, int opt, const char *arg)
{
	if (opt == HB_OPT_MODEL)
		*model = arg;
	else if (opt == HB_OPT_NAME)
		*name = arg;
	else
		return 0;
	return 1;
}

const char *
hb_model_path(const hb_model *m)
{
	return m->path;
}

void
hb_get_counts(const hb_model *m, hb_counts *c)
{
	*c = m->counts;
	c->model_first = m->model_first;
	c->closest = m->model_first ? strmap_closest(&m->met, m->model_first) : NULL;
	if (!c->closest)
		c->closest = m->first_met;	/* none is close: one met */
}

/* The dense id of name s[0..n), added when new. */
static uint32_t
intern(hb_model *m, const char *s, size_t n)
{
	int added;
	strmap_slot *slot = strmap_intern(&m->names, &m->mem, s, n, &added);

	if (added) {
		if (m->nnames == m->capnames) {
			size_t cap = m->capnames ? 2 * m->capnames : 64;

			m->text = xrealloc(m->text, cap * sizeof *m->text);
			m->in_model = xrealloc(m->in_model, cap);
			m->is_log = xrealloc(m->is_log, cap);
			m->ie_stamp = xrealloc(m->ie_stamp, cap * sizeof *m->ie_stamp);
			m->seen = xrealloc(m->seen, cap * sizeof *m->seen);
			m->first_start = xrealloc(m->first_start, cap * sizeof *m->first_start);
			m->last_end = xrealloc(m->last_end, cap * sizeof *m->last_end);
			m->capnames = cap;
		}
		m->text[m->nnames] = slot->key;
		m->in_model[m->nnames] = 0;
		m->is_log[m->nnames] = 0;
		m->ie_stamp[m->nnames] = 0;
		m->seen[m->nnames] = 0;
		m->nnames++;
	}
	return (uint32_t)slot->val;
}

/* An event's text (escaped) into its event id: "name_S" and "name_E" a
 * span's start and end, "name@X" its log with event=X (one event, 2 *
 * its name's id); -1 when it is none of them. */
static int64_t
event_id(hb_model *m, const char *s, size_t n)
{
	sb_clear(&m->buf);
	sb_reserve(&m->buf, n);
	n = tr_unescape(m->buf.s, s, n);
	m->buf.s[n] = '\0';
	m->buf.len = n;
	if (n >= 3 && m->buf.s[n - 2] == '_' && (m->buf.s[n - 1] == 'S' || m->buf.s[n - 1] == 'E'))
		return 2 * (int64_t)intern(m, m->buf.s, n - 2) + (m->buf.s[n - 1] == 'E');
	const char *at = memchr(m->buf.s, '@', n);

	if (!at || at == m->buf.s || at == m->buf.s + n - 1)
		return -1;
	uint32_t id = intern(m, m->buf.s, n);

	m->is_log[id] = 1;
	return 2 * (int64_t)id;
}

static uint64_t
edge_key(int64_t from, int64_t to)
{
	return (uint64_t)from << 32 | (uint64_t)to;
}

static int
read_edge(hb_model *m, const char *line, size_t len, int has_pass)
{
	tr_field f[9];
	size_t nf = tr_split(line, len, f, 9);

	if (nf != (size_t)(7 + has_pass))
		return -1;
	int64_t a = event_id(m, f[0].s, f[0].len);

	if (a < 0)
		return -1;
	if (!m->model_first)
		m->model_first = arena_strndup(&m->mem, m->buf.s, m->is_log[a / 2] ? m->buf.len : m->buf.len - 2);
	int64_t b = event_id(m, f[1].s, f[1].len);

	if (b < 0)
		return -1;
	m->in_model[a / 2] = m->in_model[b / 2] = 1;
	m->model_logs |= m->is_log[a / 2] | m->is_log[b / 2];
	if (has_pass && !(f[7].len == 1 && f[7].s[0] == '1'))
		return 0;	/* -a's failing pair: not an edge */
	int added;

	*u64map_put(&m->model_edges, edge_key(a, b), &added) = 1;
	return 0;
}

int
hb_load(hb_model *m, const char *path)
{
	static const char header[] = "from\tto\ts\tv\tu\tq\tT";
	FILE *fp = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t n;
	int has_pass = 0, bad = 0;

	if (!fp) {
		tr_warn("%s: %s", path, strerror(errno));
		return -1;
	}
	m->path = path;
	while (!bad && (n = getline(&line, &cap, fp)) >= 0) {
		lineno++;
		if (n && line[n - 1] == '\n')
			line[--n] = '\0';
		if (lineno == 1) {
			has_pass = strcmp(line, "from\tto\ts\tv\tu\tq\tT\tpass") == 0;
			if (!has_pass && strcmp(line, header) != 0) {
				tr_warn("%s:1: not a tr-infer model (its first line is not from, to, s, v, u, q, T)", path);
				bad = 1;
			}
		} else if (read_edge(m, line, (size_t)n, has_pass) < 0) {
			tr_warn("%s:%zu: not an edge of a tr-infer model (from_event to_event s v u q T)",
				path, lineno);
			bad = 1;
		}
	}
	if (!bad && ferror(fp)) {	/* getline's -1 is an error too, not only the end */
		tr_warn("%s: %s", path, strerror(errno));
		bad = 1;
	}
	if (!bad && lineno == 0) {
		tr_warn("%s:1: an empty file, not a tr-infer model", path);
		bad = 1;
	}
	free(line);
	fclose(fp);
	return bad ? -1 : 0;
}

/* Name id at time at in the bound trace: its first and last time. */
static void
note_time(hb_model *m, uint32_t id, int64_t from, int64_t to)
{
	if (m->seen[id] != m->gen) {
		m->seen[id] = m->gen;
		m->first_start[id] = INT64_MAX;
		m->last_end[id] = INT64_MIN;
	}
	if (from < m->first_start[id])
		m->first_start[id] = from;
	if (to > m->last_end[id])
		m->last_end[id] = to;
}

/* Every span's name id, and each name's first start and last end; with
 * logs: every log with event=X of a timed span named NAME@X, its time. */
static void
name_spans(hb_model *m, const tr_trace *t, int logs)
{
	GROW(m->span_name, m->capspans, t->nspans);
	for (size_t i = 0; i < t->nspans; i++) {
		const tr_span *s = &t->spans[i];

		sb_clear(&m->buf);
		infer_name_fields(&m->buf, s, &m->o);
		uint32_t id = intern(m, m->buf.s, m->buf.len);

		m->span_name[i] = (int32_t)id;
		if (s->flags & TR_SPAN_HAS_TIME)
			note_time(m, id, s->start, tr_span_end(s));
		else if (m->seen[id] != m->gen)
			note_time(m, id, INT64_MAX, INT64_MIN);	/* seen, no time */
	}
	GROW(m->log_name, m->caplogs, t->nlogs + 1);
	for (size_t j = 0; j < t->nlogs; j++) {
		const tr_log *l = &t->logs[j];
		const char *ev = logs ? infer_log_event(l) : NULL;

		m->log_name[j] = -1;
		if (!ev || !(t->spans[l->span].flags & TR_SPAN_HAS_TIME))
			continue;
		sb_clear(&m->buf);
		sb_adds(&m->buf, m->text[m->span_name[l->span]]);
		sb_addc(&m->buf, '@');
		sb_adds(&m->buf, ev);
		uint32_t id = intern(m, m->buf.s, m->buf.len);

		m->is_log[id] = 1;
		m->log_name[j] = (int32_t)id;
		note_time(m, id, l->time, l->time);
	}
}

/* Until a span is named as the model's events: the names met, for the
 * closest one when none ever is. */
static void
note_model_match(hb_model *m, const tr_trace *t)
{
	for (size_t i = 0; i < t->nspans && !m->counts.model_matched; i++)
		if (m->in_model[m->span_name[i]])
			m->counts.model_matched = 1;
	if (m->counts.model_matched) {
		strmap_free(&m->met);
		return;
	}
	for (size_t i = 0; i < t->nspans; i++) {
		int added;
		const char *name = m->text[m->span_name[i]];

		if (!m->first_met)
			m->first_met = name;
		strmap_put(&m->met, name, strlen(name), &added);
	}
}

static int
is_ie(const tr_record *r)
{
	return r->len > 3 && r->line[0] == 'I' && r->line[1] == 'E' && r->line[2] == '\t';
}

/* One IE record of t into the trace's edges; -1 after saying what is wrong. */
static int
read_ie(hb_model *m, const tr_trace *t, const tr_record *r)
{
	tr_field f[5];
	size_t nf = tr_split(r->line, r->len, f, 5);
	int64_t ev[2] = {-1, -1};

	for (int i = 0; i < 2 && nf == 4; i++) {
		ev[i] = event_id(m, f[2 + i].s, f[2 + i].len);
		if (ev[i] >= 0 && m->seen[ev[i] / 2] != m->gen) {
			tr_warn("%s:%llu: IE record names %s, which no span of trace %s has",
				t->files[r->file], (unsigned long long)r->lineno, m->buf.s, t->trace_id);
			return -1;
		}
	}
	if (ev[0] < 0 || ev[1] < 0) {
		tr_warn("%s:%llu: bad IE record (IE trace_id from_event to_event)",
			t->files[r->file], (unsigned long long)r->lineno);
		return -1;
	}
	int added;

	m->ie_stamp[ev[0] / 2] = m->ie_stamp[ev[1] / 2] = m->gen;
	m->trace_logs |= m->is_log[ev[0] / 2] | m->is_log[ev[1] / 2];
	*u64map_put(&m->trace_edges, edge_key(ev[0], ev[1]), &added) = 1;
	return 0;
}

int
hb_bind(hb_model *m, const tr_trace *t)
{
	size_t i = 0;

	while (i < t->nrecs && !is_ie(&t->recs[i]))
		i++;
	m->use_ie = i < t->nrecs;
	if (!m->use_ie && !m->path)
		return 0;
	m->gen++;
	m->t = t;
	m->trace_logs = 0;
	name_spans(m, t, m->use_ie || m->model_logs);
	if (!m->use_ie) {
		if (!m->counts.model_matched)
			note_model_match(m, t);
		m->counts.traces_model++;
		return 1;
	}
	u64map_clear(&m->trace_edges);
	for (; i < t->nrecs; i++)
		if (is_ie(&t->recs[i]) && read_ie(m, t, &t->recs[i]) < 0)
			return -1;
	m->counts.traces_ie++;
	return 1;
}

void
hb_moved(hb_model *m, const tr_trace *t)
{
	m->t = t;
}

int
hb_known(const hb_model *m, int32_t i)
{
	uint32_t id = (uint32_t)m->span_name[i];

	return m->use_ie ? m->ie_stamp[id] == m->gen : m->in_model[id];
}

/* Edge from event a (2 * name + end) to b's start, held by the trace. */
static int
edge_holds(const hb_model *m, int64_t a, uint32_t nb)
{
	if (!(m->last_end[a / 2] < m->first_start[nb]))
		return 0;	/* the trace contradicts it */
	return u64map_get(m->use_ie ? &m->trace_edges : &m->model_edges,
			  edge_key(a, 2 * (int64_t)nb)) != NULL;
}

int
hb_before(const hb_model *m, int32_t a, int32_t b)
{
	uint32_t nb = (uint32_t)m->span_name[b];

	if (edge_holds(m, 2 * (int64_t)m->span_name[a] + 1, nb))
		return 1;
	if (!hb_logs(m))
		return 0;
	for (int32_t l = m->t->spans[a].first_log; l >= 0; l = m->t->logs[l].next)
		if (m->log_name[l] >= 0 && edge_holds(m, 2 * (int64_t)m->log_name[l], nb))
			return 1;	/* b waits for a's log event */
	return 0;
}

int
hb_logs(const hb_model *m)
{
	return m->use_ie ? m->trace_logs : m->model_logs;
}
