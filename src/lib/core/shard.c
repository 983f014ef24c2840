/* shard.c - the shuffle by trace: the shard hash, the regrouping of a
 * trace's pieces, and tr-ingest's --shard and --split over them. */
#include "core/shard.h"

#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "core/hash.h"
#include "core/util.h"

uint64_t
tr_shard_hash(const char *id, size_t len)
{
	uint64_t h = 14695981039346656037ull;

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)id[i];
		h *= 1099511628211ull;
	}
	return h;
}

static int
parse_count(const char *s, const char *end, unsigned *v)
{
	unsigned long x = 0;

	if (s == end || end - s > 6)
		return -1;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		x = x * 10 + (unsigned long)(*s - '0');
	}
	*v = (unsigned)x;
	return 0;
}

int
tr_shard_parse(const char *s, unsigned *k, unsigned *n)
{
	const char *slash = strchr(s, '/');

	if (!slash || parse_count(s, slash, k) < 0 || parse_count(slash + 1, slash + strlen(slash), n) < 0)
		return -1;
	return *n >= 1 && *n <= TR_SHARDS_MAX && *k < *n ? 0 : -1;
}

/* Records are entries in one buffer: the offset of the trace's next one
 * (NONE: the last), the line's length, the line without its LF. */
#define NONE UINT64_MAX
enum { ENTRY_HEAD = 12 };

typedef struct group {
	uint64_t head, tail;	/* entries: the head is the T record */
	uint32_t pieces;	/* times the trace was met */
} group;

struct tr_regroup {
	strbuf buf;
	group *groups;
	size_t n, cap;
	strmap ids;
	arena keys;
	strbuf scratch;
};

tr_regroup *
tr_regroup_new(void)
{
	return xcalloc(1, sizeof(tr_regroup));
}

static uint64_t
entry_add(tr_regroup *g, const char *line, size_t len)
{
	uint64_t at = g->buf.len, next = NONE;
	uint32_t n = (uint32_t)len;

	sb_reserve(&g->buf, ENTRY_HEAD + len);
	memcpy(g->buf.s + at, &next, 8);
	memcpy(g->buf.s + at + 8, &n, 4);
	memcpy(g->buf.s + at + ENTRY_HEAD, line, len);
	g->buf.len += ENTRY_HEAD + len;
	return at;
}

static void
group_append(tr_regroup *g, group *gr, const char *line, size_t len)
{
	uint64_t at = entry_add(g, line, len);

	memcpy(g->buf.s + gr->tail, &at, 8);
	gr->tail = at;
}

static group *
group_of(tr_regroup *g, const tr_trace *t)
{
	int added;
	strmap_slot *s = strmap_intern(&g->ids, &g->keys, t->trace_id, strlen(t->trace_id), &added);

	if (!added) {
		g->groups[s->val].pieces++;
		return &g->groups[s->val];
	}
	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 1024;
		g->groups = xrealloc(g->groups, g->cap * sizeof *g->groups);
	}
	sb_clear(&g->scratch);
	tr_write_group(&g->scratch, t);
	group *gr = &g->groups[g->n++];

	gr->head = gr->tail = entry_add(g, g->scratch.s, g->scratch.len - 1);
	gr->pieces = 1;
	return gr;
}

void
tr_regroup_add(tr_regroup *g, const tr_trace *t)
{
	group *gr = group_of(g, t);

	for (size_t i = 0; i < t->nrecs; i++) {
		const tr_record *r = &t->recs[i];

		if (!(r->line[0] == 'T' && r->line[1] == '\t'))
			group_append(g, gr, r->line, r->len);
	}
}

size_t
tr_regroup_traces(const tr_regroup *g)
{
	return g->n;
}

/* An S record already written for this trace (pieces met more than once). */
static int
repeated(strmap *seen, const char *line, uint32_t len)
{
	int added;

	if (!(line[0] == 'S' && line[1] == '\t'))
		return 0;
	strmap_put(seen, line, len, &added);
	return !added;
}

void
tr_regroup_write(tr_regroup *g, tr_output *out)
{
	strbuf b = {0};
	strmap seen = {0};

	for (size_t i = 0; i < g->n; i++) {
		const group *gr = &g->groups[i];

		strmap_clear(&seen);
		for (uint64_t at = gr->head; at != NONE;) {
			uint32_t len;
			const char *line = g->buf.s + at + ENTRY_HEAD;

			memcpy(&len, g->buf.s + at + 8, 4);
			if (gr->pieces == 1 || !repeated(&seen, line, len)) {
				sb_add(&b, line, len);
				sb_addc(&b, '\n');
			}
			memcpy(&at, g->buf.s + at, 8);
		}
		if (b.len >= (1u << 20)) {
			tr_output_sb(out, &b);
			sb_clear(&b);
		}
	}
	tr_output_sb(out, &b);
	sb_free(&b);
	strmap_free(&seen);
}

void
tr_regroup_free(tr_regroup *g)
{
	if (!g)
		return;
	sb_free(&g->buf);
	sb_free(&g->scratch);
	free(g->groups);
	strmap_free(&g->ids);
	arena_free(&g->keys);
	free(g);
}

/* Which regrouping a trace goes to: -1 when it is not in the shard kept. */
static int
target(const tr_shard_opts *o, const tr_trace *t)
{
	unsigned h = (unsigned)(tr_shard_hash(t->trace_id, strlen(t->trace_id)) % o->n);

	if (o->split)
		return (int)h;
	return h == o->k ? 0 : -1;
}

static int
read_all(const tr_shard_opts *o, tr_reader *rd, tr_regroup **rg, int nout)
{
	tr_trace *t;
	const char *line;
	size_t len;
	int status = TR_EXIT_OK;
	enum tr_next nx;

	while ((nx = tr_reader_next(rd, &t, &line, &len)) != TR_EOF) {
		if (nx == TR_TRACE) {
			int to = target(o, t);

			if (to >= 0)
				tr_regroup_add(rg[to], t);
		} else if (nx == TR_LINE) {
			for (int i = 0; i < nout; i++) {
				tr_output_write(o->outs[i], line, len);
				tr_output_write(o->outs[i], "\n", 1);
			}
		} else {
			status = TR_EXIT_INPUT;
			if (!o->keep_going)
				break;
		}
	}
	return status;
}

int
tr_shard_run(const tr_shard_opts *o)
{
	int nout = o->split ? (int)o->n : 1;
	int flags = TR_READ_PIECES | (o->keep_going ? TR_READ_KEEP_GOING : 0) |
		    (o->verbose ? TR_READ_VERBOSE : 0);
	tr_reader *rd = tr_reader_new(o->files, o->nfiles);
	tr_regroup **rg = xcalloc((size_t)nout, sizeof *rg);
	size_t written = 0;

	tr_reader_configure(rd, NULL, o->max_spans, o->max_bytes, flags);
	tr_reader_set_exports(rd, o->exports);
	for (int i = 0; i < nout; i++) {
		rg[i] = tr_regroup_new();
		tr_output_puts(o->outs[i], TR_FORMAT_HEADER "\n");
	}
	int status = read_all(o, rd, rg, nout);

	if (status == TR_EXIT_OK && tr_reader_read_nothing(rd) && !o->allow_empty)
		status = tr_reader_empty_error(rd);
	for (int i = 0; i < nout; i++) {
		if (status == TR_EXIT_OK || o->keep_going)
			tr_regroup_write(rg[i], o->outs[i]);
		written += tr_regroup_traces(rg[i]);
		tr_regroup_free(rg[i]);
	}
	if (o->verbose)
		tr_warn("%zu traces read, %zu bad, %zu written; outputs: %d", tr_reader_traces(rd),
			tr_reader_bad(rd), written, nout);
	free(rg);
	tr_reader_free(rd);
	return status;
}

void
tr_files_from(const char *path, char ***files, int *nfiles)
{
	tr_input *in = tr_input_open(path);
	const char *name = tr_path_name(path);
	char *line;
	size_t len;

	while ((line = tr_input_line(in, &len))) {
		if (len && line[len - 1] == '\r')
			len--;
		if (!len)
			continue;
		if (memchr(line, '\0', len))
			tr_die(TR_EXIT_INPUT, "%s:%llu: a NUL byte in a path", name,
			       (unsigned long long)tr_input_lineno(in));
		char *copy = xmalloc(len + 1);

		memcpy(copy, line, len);
		copy[len] = '\0';
		*files = xrealloc(*files, ((size_t)*nfiles + 1) * sizeof **files);
		(*files)[(*nfiles)++] = copy;
	}
	if (tr_input_report(in, name) < 0)
		exit(TR_EXIT_INPUT);
	tr_input_close(in);
}

int
tr_file_is_lines(const char *path)
{
	tr_input *in;
	size_t n = 0, prev, i = 0;
	const char *p;

	/* a pipe would lose what is peeked at: regular files only */
	if (tr_regular_file_size(path) < 0 || !(in = tr_input_try_open(path)))
		return 0;
	do {	/* the first byte that is not blank space */
		prev = n;
		p = tr_input_peek(in, n + 64, &n);
		while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n'))
			i++;
	} while (i == n && n > prev && n < (1u << 20));
	int lines = i < n && p[i] != '{' && p[i] != '[' && (p[i] == '#' || (p[i] >= 'A' && p[i] <= 'Z'));

	tr_input_close(in);
	return lines;
}
