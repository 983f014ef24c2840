/* reader.c - group a line-format stream into traces.
 *
 * tr-ingest and every filter open each trace's records with a T record.
 * Records that follow their T record with the same trace id form a group:
 * the trace is complete when the group ends, so it is handed out at once and
 * memory stays bounded by the largest trace. Records outside any group
 * (after sort, grep of T lines, hand-written input) are kept until the end of
 * the input and handed out then, so the result is right whatever the order.
 *
 * Each file is told by its start: a Jaeger, Zipkin or OTLP export is
 * converted first (through the export hook, tr_export_hook) and its line
 * format read; a file that is neither is one bad input, never passed through
 * as traceless lines. */
#include "core/trace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A trace being collected, as the limits and the messages see it. */
typedef struct trace_tally {
	size_t spans, bytes;	/* read so far */
	int over;		/* why it is dropped (OVER_*): its records are no longer kept */
	uint32_t file;		/* where its first record is */
	uint64_t lineno;
} trace_tally;

/* Why a trace is dropped: over a limit, cut by the end of its input, a
 * record of it broken (told when read), its id met again after an earlier
 * group of it ended (the records are split: cat a.tr b.tr). */
enum { OVER_LIMIT = 1, OVER_CUT = 2, OVER_BROKEN = 3, OVER_AGAIN = 4 };

typedef struct loose_trace {
	char *trace_id;		/* escaped, as in the input */
	tr_record *recs;
	size_t n, cap;
	trace_tally tally;
} loose_trace;

struct tr_reader {
	char **files;
	int nfiles, cur;
	const char **names;
	tr_input *in;
	tr_trace trace;
	int in_group;
	strbuf group_id;	/* escaped trace id of the open group */
	trace_tally group;	/* of the open group, from its T record on */
	size_t max_spans, max_bytes;
	strbuf held;		/* a line read ahead that ends the group */
	uint64_t held_lineno;
	int has_held;
	strmap loose_ids;	/* escaped trace id -> index in loose */
	loose_trace *loose;
	size_t nloose, caploose, loose_next;
	arena loose_mem;
	int at_eof;
	size_t ntraces, nbad;
	size_t nrecords;	/* traceless lines that are not comments */
	int line_cut;		/* the line next_line gave last had no LF */
	uint64_t bytes_done;	/* input bytes of the files already closed */
	int warned_version;
	uint64_t line_lineno;	/* of the last TR_LINE */
	strbuf where;		/* "file:line" of it, made on demand */
	size_t where_prefix;	/* the length of its "file:" */
	int where_file;		/* the file it names (-2: none yet) */
	uint64_t where_line;	/* the line it names (0: none yet) */
	int flags;		/* TR_READ_* */
	int64_t (*shift)(void *ctx, const char *host);	/* tr_reader_set_shift */
	void *shift_ctx;
	u64map groups;		/* hash of each group's trace id -> where it began */
	const tr_export_hook *hook;	/* how exports are converted (NULL: read as lines) */
	void *exports;		/* converts the exports among the files, made at the first */
	int in_export;		/* in is the conversion of an export */
	size_t file_bad;	/* bad input of the file just read, handed out after its traces */
	strbuf hush;		/* TR_READ_QUIET: the messages of the call, dropped */
};

tr_reader *
tr_reader_new(char **files, int nfiles)
{
	static char *dash[] = {"-"};
	tr_reader *r = xcalloc(1, sizeof *r);

	if (nfiles == 0) {
		files = dash;
		nfiles = 1;
	}
	r->files = files;
	r->nfiles = nfiles;
	r->names = xcalloc((size_t)nfiles, sizeof *r->names);
	for (int i = 0; i < nfiles; i++)
		r->names[i] = tr_path_name(files[i]);
	r->trace.files = r->names;
	r->cur = -1;
	r->where_file = -2;
	r->max_spans = TR_DEFAULT_MAX_SPANS;
	r->max_bytes = TR_DEFAULT_MAX_BYTES;
	return r;
}

void
tr_reader_set_names(tr_reader *r, char *const *names)
{
	for (int i = 0; i < r->nfiles; i++)
		if (names[i])
			r->names[i] = names[i];
}

void
tr_reader_set_limits(tr_reader *r, size_t max_spans, size_t max_bytes)
{
	r->max_spans = max_spans ? max_spans : SIZE_MAX;
	r->max_bytes = max_bytes ? max_bytes : SIZE_MAX;
}

void
tr_reader_set_flags(tr_reader *r, int flags)
{
	r->flags = flags;
}

void
tr_reader_set_shift(tr_reader *r, int64_t (*shift)(void *ctx, const char *host), void *ctx)
{
	r->shift = shift;
	r->shift_ctx = ctx;
}

void
tr_reader_set_exports(tr_reader *r, const tr_export_hook *h)
{
	r->hook = h;
}

static int
is_span(const char *line, size_t len)
{
	return len > 1 && line[0] == 'S' && line[1] == '\t';
}

/* Count a record of a trace against the limits; true when it is now over one. */
static int
over_limit(const tr_reader *r, trace_tally *t, const char *line, size_t len)
{
	t->spans += is_span(line, len);
	t->bytes += len + 1;
	return t->spans > r->max_spans || t->bytes > r->max_bytes;
}

/* Where a trace's group began, as the groups map keeps it. */
static int64_t
group_at(uint32_t file, uint64_t lineno)
{
	return (int64_t)((uint64_t)file << 40 | (lineno & ((1ull << 40) - 1)));
}

static uint64_t
group_key(const char *id, size_t len)
{
	uint64_t h = hash_bytes(id, len);

	return h == UINT64_MAX ? h - 1 : h;
}

static void
warn_again(const tr_reader *r, const char *id, size_t idlen, const trace_tally *t)
{
	const int64_t *first = u64map_get(&r->groups, group_key(id, idlen));
	uint64_t at = first ? (uint64_t)*first : 0;
	int shown = (int)(idlen > 80 ? 80 : idlen);

	tr_warn("%s:%llu: trace %.*s: met again after its group at %s:%llu ended "
		"(inputs concatenated? each trace's records go together): skipped",
		r->names[t->file], (unsigned long long)t->lineno, shown, id,
		r->names[at >> 40], (unsigned long long)(at & ((1ull << 40) - 1)));
}

/* A dropped trace, named by the place of its first record. */
static void
warn_over(const tr_reader *r, const char *id, size_t idlen, const trace_tally *t)
{
	const char *file = r->names[t->file];
	unsigned long long line = t->lineno;
	int shown = (int)(idlen > 80 ? 80 : idlen);

	if (t->over == OVER_CUT)
		tr_warn("%s:%llu: trace %.*s: the input broke off before its end, it may be incomplete: skipped",
			file, line, shown, id);
	else if (t->over == OVER_BROKEN)
		tr_warn("%s:%llu: trace %.*s: a record of it is broken (told above): skipped",
			file, line, shown, id);
	else if (t->over == OVER_AGAIN)
		warn_again(r, id, idlen, t);
	else if (t->spans > r->max_spans)
		tr_warn("%s:%llu: trace %.*s: more than --max-spans (%zu spans, %zu bytes read): skipped",
			file, line, shown, id, t->spans, t->bytes);
	else
		tr_warn("%s:%llu: trace %.*s: more than --max-bytes (%zu spans, %zu bytes read): skipped",
			file, line, shown, id, t->spans, t->bytes);
}

/* A file ended early (told already): the trace being read and every trace
 * still collected may miss records, so none of them is handed out. */
static void
input_failed(tr_reader *r)
{
	/* The cut traces are counted when handed out; with none, the file
	 * itself is the bad input, so that the run still fails. */
	if (!r->in_group && r->loose_next == r->nloose)
		r->nbad++;
	if (r->in_group)
		r->group.over = OVER_CUT;
	for (size_t i = r->loose_next; i < r->nloose; i++)
		r->loose[i].tally.over = OVER_CUT;
}

enum shape { SHAPE_UNKNOWN, SHAPE_LINES, SHAPE_EXPORT, SHAPE_OTHER };

/* Record types are upper-case names (tr-format(5)): digits after the first. */
static int
is_type_char(char c, int first)
{
	return (c >= 'A' && c <= 'Z') || (!first && c >= '0' && c <= '9');
}

/* A record's start: its type, then TAB or the end of the line (a record of
 * one field). */
static int
is_record_start(const char *p, size_t n)
{
	size_t i = 0;

	while (i < n && is_type_char(p[i], i == 0))
		i++;
	return i && i < n && (p[i] == '\t' || p[i] == '\n' || p[i] == '\r');
}

/* What the bytes p[0,n) a file starts with are, or SHAPE_UNKNOWN while more
 * are needed (eof: there are none). JSON may start after blank space; the
 * line format starts with #, a record, or is blank. *line and *start:
 * where the first line that is not blank is. */
static enum shape
shape_of(const char *p, size_t n, int eof, uint64_t *line, size_t *start)
{
	size_t i = 0, ls = 0;
	int bom = n >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0;

	*line = 1;
	if (n < 3 && !eof && memcmp(p, "\xef\xbb\xbf", n) == 0)
		return SHAPE_UNKNOWN;
	if (bom)
		i = ls = 3;	/* a UTF-8 byte-order mark: an export may follow (ingest skips it) */
	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n'))
		if (p[i++] == '\n') {
			++*line;
			ls = i;
		}
	*start = ls;
	if (i == n)
		return eof ? SHAPE_LINES : SHAPE_UNKNOWN;
	if (p[i] == '{' || p[i] == '[')
		return SHAPE_EXPORT;
	if (i > ls || bom)
		return SHAPE_OTHER;	/* space before the first field */
	if (p[i] == '#' || is_record_start(p + i, n - i))
		return SHAPE_LINES;
	/* A type cut short by the end of what was read yet may still become one;
	 * one that ends the file is a record of one field. */
	for (size_t k = i; k < n && is_type_char(p[k], k == i); k++)
		if (k + 1 == n)
			return eof ? SHAPE_LINES : SHAPE_UNKNOWN;
	return SHAPE_OTHER;
}

/* The start of a file that is neither, for the message: up to 40 bytes of
 * its first line, TAB shown as \t; -1 when they are not text. */
static int
glimpse(strbuf *b, const char *p, size_t n)
{
	size_t k;

	for (k = 0; k < n && k < 40 && p[k] != '\n' && p[k] != '\r'; k++)
		if ((unsigned char)p[k] < 0x20 && p[k] != '\t')
			return -1;
	for (size_t i = 0; i < k; i++)
		if (p[i] == '\t')
			sb_adds(b, "\\t");
		else
			sb_addc(b, p[i]);
	if (k < n && p[k] != '\n' && p[k] != '\r')
		sb_adds(b, "...");
	return 0;
}

/* Peek at the file's first bytes, reading only as far as it takes (a pipe
 * may be slow to write a whole line). */
static enum shape
file_shape(tr_reader *r, tr_input *in)
{
	size_t n = 0, prev, start;
	uint64_t line;
	enum shape sh;
	const char *p;

	do {
		prev = n;
		p = tr_input_peek(in, n + 1, &n);
		sh = shape_of(p, n, n == prev || n >= (1u << 20), &line, &start);
	} while (sh == SHAPE_UNKNOWN);
	if (sh == SHAPE_OTHER) {
		const char *file = r->names[r->cur];
		unsigned long long at = line;
		strbuf text = {0};

		if (glimpse(&text, p + start, n - start) < 0)
			tr_warn("%s:%llu: neither the tr line format nor a Jaeger, Zipkin or OTLP export: "
				"binary data", file, at);
		else
			tr_warn("%s:%llu: neither the tr line format nor a Jaeger, Zipkin or OTLP export: "
				"it starts \"%s\"", file, at, text.s);
		sb_free(&text);
	}
	return sh;
}

/* The export in in, converted: its line format is what is read. */
static tr_input *
export_lines(tr_reader *r, tr_input *in)
{
	if (!r->exports)
		r->exports = r->hook->open(r->flags, r->max_spans, r->max_bytes);
	size_t traces = r->hook->traces(r->exports);
	tr_input *lines = r->hook->lines(r->exports, in, r->files[r->cur], r->names[r->cur], &r->file_bad);

	if (r->flags & TR_READ_VERBOSE) {
		strbuf shape = {0};

		r->hook->shape(r->exports, in, &shape);
		tr_warn("%s: an export (%s), converted as tr-ingest converts it: %zu traces",
			r->names[r->cur], shape.s, r->hook->traces(r->exports) - traces);
		sb_free(&shape);
	}
	return lines;
}

/* Open the next file as the line format, converted if it is an export; a
 * file that is neither is bad input (r->in stays NULL). */
static void
open_next(tr_reader *r)
{
	const char *path = r->files[++r->cur];
	int dir = tr_path_is_dir(path);
	tr_input *in = dir ? NULL : tr_input_try_open(path);

	r->in_export = 0;
	if (!in) {
		/* missing, unreadable or a directory: bad input, as a broken file is */
		if (dir)
			tr_warn("%s: is a directory, not a file", r->names[r->cur]);
		else
			tr_warn("%s: %s", r->names[r->cur], strerror(errno));
		r->file_bad = 1;
		return;
	}
	if (r->flags & TR_READ_LINES_ONLY) {
		r->in = in;
		return;
	}
	switch (file_shape(r, in)) {
	case SHAPE_EXPORT:
		if (!r->hook) {
			r->in = in;
			return;
		}
		r->in = export_lines(r, in);
		r->in_export = 1;
		break;
	case SHAPE_OTHER:
		r->file_bad = 1;
		break;
	default:
		r->in = in;
		return;
	}
	r->bytes_done += tr_input_bytes(in);
	tr_input_close(in);
}

/* The next raw line of the whole input, or NULL at the end of the last file
 * or of one with bad input (r->file_bad, for the caller to hand out). */
static char *
next_line(tr_reader *r, size_t *len, uint64_t *lineno)
{
	for (;;) {
		char *line;

		if (!r->in) {
			if (r->file_bad || r->cur + 1 >= r->nfiles)
				return NULL;
			open_next(r);
			continue;
		}
		line = tr_input_line(r->in, len);
		if (line) {
			*lineno = tr_input_lineno(r->in);
			r->line_cut = tr_input_line_cut(r->in);
			while (*len && line[*len - 1] == '\r')	/* CRLF input; a bare CR is never data */
				line[--*len] = '\0';
			return line;
		}
		if (!r->in_export)
			r->bytes_done += tr_input_bytes(r->in);
		if (tr_input_report(r->in, r->names[r->cur]) < 0)
			input_failed(r);
		tr_input_close(r->in);
		r->in = NULL;
	}
}

static void
trace_add(tr_trace *t, const char *line, size_t len, uint32_t file, uint64_t lineno)
{
	tr_record *rec;

	GROW(t->recs, t->caprecs, t->nrecs + 1);
	rec = &t->recs[t->nrecs++];
	rec->line = arena_strndup(&t->mem, line, len);
	rec->len = (uint32_t)len;
	rec->file = file;
	rec->lineno = lineno;
	rec->span = -1;
}

static loose_trace *
loose_get(tr_reader *r, const char *id, size_t len)
{
	int added;
	strmap_slot *s;

	s = strmap_put(&r->loose_ids, id, len, &added);
	if (added) {
		GROW(r->loose, r->caploose, r->nloose + 1);
		memset(&r->loose[r->nloose], 0, sizeof *r->loose);
		r->loose[r->nloose].trace_id = arena_strndup(&r->loose_mem, id, len);
		s->key = r->loose[r->nloose].trace_id;	/* the map must not keep the line buffer */
		s->val = (int64_t)r->nloose++;
	}
	return &r->loose[s->val];
}

static void
loose_add(loose_trace *lt, tr_reader *r, const char *line, size_t len, uint32_t file, uint64_t lineno)
{
	tr_record *rec;
	trace_tally *t = &lt->tally;

	if (!t->lineno) {
		t->file = file;
		t->lineno = lineno;
	}
	if (t->over || (t->over = over_limit(r, t, line, len)))
		return;

	GROW(lt->recs, lt->cap, lt->n + 1);
	rec = &lt->recs[lt->n++];
	rec->line = arena_strndup(&r->loose_mem, line, len);
	rec->len = (uint32_t)len;
	rec->file = file;
	rec->lineno = lineno;
	rec->span = -1;
}

void
tr_trace_reset(tr_trace *t)
{
	arena_reset(&t->mem);
	t->nrecs = t->nspans = t->nrefs = t->nlogs = t->nroots = 0;
	t->ntags = 0;
	t->trace_id = "";
	t->trace_id_raw = NULL;
}

void
tr_trace_swap(tr_trace *a, tr_trace *b)
{
	tr_trace tmp = *a;
	const char *const *afiles = a->files, *const *bfiles = b->files;

	*a = *b;
	*b = tmp;
	a->files = afiles;
	b->files = bfiles;
}

static void
set_trace_id(tr_trace *t, const char *id, size_t len)
{
	char *s = arena_alloc(&t->mem, len + 1);

	tr_unescape(s, id, len);
	t->trace_id = s;
	/* The T record is written as the records spell the id, so that a reader
	 * downstream groups them together whatever escapes they use. */
	t->trace_id_raw = arena_strndup(&t->mem, id, len);
	t->trace_id_rawlen = len;
}

static enum tr_next
hand_out(tr_reader *r, tr_trace **trace)
{
	if (r->group.over) {
		warn_over(r, r->group_id.s, r->group_id.len, &r->group);
		r->group.over = 0;
		r->nbad++;
		tr_trace_reset(&r->trace);
		return TR_BAD;
	}
	r->trace.span_tags_unread = (r->flags & TR_READ_NO_SPAN_TAGS) != 0;
	r->trace.shift = r->shift;	/* traces are swapped with tr_ahead's */
	r->trace.shift_ctx = r->shift_ctx;
	if (tr_trace_parse(&r->trace) < 0) {
		r->nbad++;
		return TR_BAD;
	}
	r->ntraces++;
	*trace = &r->trace;
	return TR_TRACE;
}

static enum tr_next
next_loose(tr_reader *r, tr_trace **trace)
{
	loose_trace *lt;

	if (r->loose_next >= r->nloose)
		return TR_EOF;
	lt = &r->loose[r->loose_next++];
	if (lt->tally.over) {
		warn_over(r, lt->trace_id, strlen(lt->trace_id), &lt->tally);
		r->nbad++;
		return TR_BAD;
	}
	tr_trace_reset(&r->trace);
	set_trace_id(&r->trace, lt->trace_id, strlen(lt->trace_id));
	GROW(r->trace.recs, r->trace.caprecs, lt->n);
	memcpy(r->trace.recs, lt->recs, lt->n * sizeof *lt->recs);
	r->trace.nrecs = lt->n;
	free(lt->recs);
	lt->recs = NULL;
	return hand_out(r, trace);
}

/* The open group has ended: hand it out, or merge it into loose records of
 * the same trace seen earlier (the input was not grouped for that trace). */
static int
end_group(tr_reader *r)
{
	strmap_slot *s;

	r->in_group = 0;
	if (r->group.over) {
		/* The caller hands out a bad trace: its records were not kept. */
		return 1;
	}
	s = strmap_get(&r->loose_ids, r->group_id.s, r->group_id.len);
	if (!s)
		return 1;
	for (size_t i = 0; i < r->trace.nrecs; i++) {
		tr_record *rec = &r->trace.recs[i];

		loose_add(&r->loose[s->val], r, rec->line, rec->len, rec->file, rec->lineno);
	}
	tr_trace_reset(&r->trace);
	return 0;
}

static void
check_header(tr_reader *r, const char *line)
{
	long v = strtol(line + 4, NULL, 10);

	if (v > TR_FORMAT_VERSION && !r->warned_version) {
		tr_warn("%s: line format version %ld is newer than %d; records not understood pass through",
			r->names[r->cur], v, TR_FORMAT_VERSION);
		r->warned_version = 1;
	}
}

static int
owned_type(const char *line, size_t len)
{
	return len >= 1 && (len == 1 || line[1] == '\t') && strchr("SRLT", line[0]);
}

/* A record whose TABs became spaces ("S 4bf9 ..."): its type, then a
 * space. Told; the trace it names is dropped when it is the open group's
 * (returns 0), else the line is bad input of its own (returns 1). */
static int
near_miss(tr_reader *r, const char *line, size_t len, uint64_t lineno)
{
	const char *id = line + 2, *end = memchr(id, ' ', len - 2);
	size_t idlen = (size_t)((end ? end : line + len) - id);

	tr_warn("%s:%llu: a record with spaces for TABs (type %c): fields are separated by TAB",
		r->names[r->cur], (unsigned long long)lineno, line[0]);
	if (r->in_group && idlen == r->group_id.len && memcmp(id, r->group_id.s, idlen) == 0) {
		r->group.over = OVER_BROKEN;
		return 0;
	}
	r->nbad++;
	return 1;
}

static int
is_near_miss(const char *line, size_t len)
{
	return len > 2 && line[1] == ' ' && strchr("SRLT", line[0]);
}

/* A group begins: its id met in an earlier group makes it bad input. */
static void
group_begins(tr_reader *r, const char *tid, size_t tidlen, uint32_t file, uint64_t lineno)
{
	int added;
	int64_t *at = u64map_put(&r->groups, group_key(tid, tidlen), &added);

	if (added)
		*at = group_at(file, lineno);
	else if (!(r->flags & TR_READ_PIECES))
		r->group.over = OVER_AGAIN;
}

/* A line with no trace id: bad input when its type is one of the format's
 * records, else a traceless line passed on. */
static enum tr_next
no_trace_id(tr_reader *r, const char *line, size_t len, uint64_t lineno, int bad_id,
	    const char **out, size_t *outlen)
{
	if (owned_type(line, len)) {
		const char *name = r->names[r->cur];
		unsigned long long at = lineno;

		if (bad_id)
			tr_warn("%s:%llu: trace id holds a raw CR (write it as %%0D)", name, at);
		else
			tr_warn("%s:%llu: record has no trace id", name, at);
		r->nbad++;
		return TR_BAD;
	}
	r->nrecords++;
	*out = line;
	*outlen = len;
	r->line_lineno = lineno;
	return TR_LINE;
}

/* A record of trace tid: to the group it continues (same), a group it
 * begins (a T record), or the loose records of its id. A record on a last
 * line without LF may have lost its end (a tag value cut short still
 * parses): its trace is not whole. */
static void
add_record(tr_reader *r, const char *line, size_t len, const char *tid, size_t tidlen, int same,
	   uint64_t lineno)
{
	uint32_t file = (uint32_t)r->cur;

	if (same) {
		if (!r->group.over && !(r->group.over = over_limit(r, &r->group, line, len)))
			trace_add(&r->trace, line, len, file, lineno);
		if (r->line_cut)
			r->group.over = OVER_CUT;
	} else if (line[0] == 'T' && line[1] == '\t') {
		r->in_group = 1;
		r->group = (trace_tally){.file = file, .lineno = lineno};
		sb_clear(&r->group_id);
		sb_add(&r->group_id, tid, tidlen);
		set_trace_id(&r->trace, tid, tidlen);
		trace_add(&r->trace, line, len, file, lineno);
		group_begins(r, tid, tidlen, file, lineno);
		if (r->line_cut)
			r->group.over = OVER_CUT;
	} else {
		loose_trace *lt = loose_get(r, tid, tidlen);

		/* a record of no group whose id had a group that ended: met
		 * again, as a group of it would be (its writing back would
		 * make one) */
		if (!lt->tally.lineno && !(r->flags & TR_READ_PIECES) &&
		    u64map_get(&r->groups, group_key(tid, tidlen)))
			lt->tally.over = OVER_AGAIN;
		loose_add(lt, r, line, len, file, lineno);
		if (r->line_cut)
			lt->tally.over = OVER_CUT;
	}
}

static enum tr_next reader_next(tr_reader *r, tr_trace **trace, const char **out, size_t *outlen);

/* TR_READ_QUIET: the messages of this call go to a buffer that is dropped
 * (tr_die still speaks on stderr: it resets the sink). */
enum tr_next
tr_reader_next(tr_reader *r, tr_trace **trace, const char **out, size_t *outlen)
{
	enum tr_next n;

	if (!(r->flags & TR_READ_QUIET))
		return reader_next(r, trace, out, outlen);
	tr_warn_to(&r->hush);
	n = reader_next(r, trace, out, outlen);
	tr_warn_to(NULL);
	r->hush.len = 0;
	return n;
}

static enum tr_next
reader_next(tr_reader *r, tr_trace **trace, const char **out, size_t *outlen)
{
	if (r->at_eof)
		return next_loose(r, trace);
	if (!r->in_group)
		tr_trace_reset(&r->trace);
	for (;;) {
		char *line;
		size_t len;
		uint64_t lineno;

		if (r->has_held) {
			r->has_held = 0;
			line = r->held.s;
			len = r->held.len;
			lineno = r->held_lineno;
		} else if (!(line = next_line(r, &len, &lineno))) {
			if (r->in_group && end_group(r))
				return hand_out(r, trace);
			if (r->file_bad) {
				r->nbad += r->file_bad;
				r->file_bad = 0;
				return TR_BAD;
			}
			r->at_eof = 1;
			return next_loose(r, trace);
		}
		if (len == 0)
			continue;
		if (line[0] == '#') {
			if (strncmp(line, "#tr/", 4) == 0) {
				check_header(r, line);
				continue;
			}
			*out = line;
			*outlen = len;
			r->line_lineno = lineno;
			return TR_LINE;
		}
		if (is_near_miss(line, len)) {
			if (near_miss(r, line, len, lineno))
				return TR_BAD;
			continue;
		}
		const char *tab = memchr(line, '\t', len);
		const char *tid = tab ? tab + 1 : line + len;
		const char *tend = tab ? memchr(tid, '\t', len - (size_t)(tid - line)) : NULL;
		size_t tidlen = (size_t)((tend ? tend : line + len) - tid);

		/* A raw CR is line ending (tr-format(5)): an id holding one could
		 * not be written back at the end of a T record. */
		int bad_id = tidlen && memchr(tid, '\r', tidlen);

		if (!tab || tidlen == 0 || bad_id)
			return no_trace_id(r, line, len, lineno, bad_id, out, outlen);
		int same = r->in_group && tidlen == r->group_id.len &&
			   memcmp(tid, r->group_id.s, tidlen) == 0;
		if (r->in_group && (!same || (line[0] == 'T' && line[1] == '\t'))) {
			/* This line belongs to what comes next: keep it for the next call. */
			if (line != r->held.s) {
				sb_clear(&r->held);
				sb_add(&r->held, line, len);
			}
			r->has_held = 1;
			r->held_lineno = lineno;
			if (end_group(r))
				return hand_out(r, trace);
			continue;
		}
		add_record(r, line, len, tid, tidlen, same, lineno);
	}
}

const char *
tr_reader_where(tr_reader *r)
{
	/* called for every traceless line (millions, from tr-pag): no printf,
	 * and the file's part is kept while the file is the same */
	if (r->where_file != r->cur || !r->where.s) {
		sb_clear(&r->where);
		sb_adds(&r->where, r->names[r->cur]);
		sb_addc(&r->where, ':');
		r->where_prefix = r->where.len;
		r->where_file = r->cur;
		r->where_line = 0;
	}
	if (r->where_line && r->line_lineno == r->where_line + 1 &&
	    r->where.s[r->where.len - 1] != '9') {
		r->where.s[r->where.len - 1]++;	/* the next line: one digit changes */
	} else {
		r->where.len = r->where_prefix;
		sb_addu(&r->where, r->line_lineno);
	}
	r->where_line = r->line_lineno;
	return r->where.s;
}

size_t
tr_reader_traces(const tr_reader *r)
{
	return r->ntraces;
}

int
tr_reader_read_nothing(const tr_reader *r)
{
	return !r->ntraces && !r->nbad && !r->nrecords;
}

int
tr_reader_empty_error(const tr_reader *r)
{
	char name[512];

	tr_warn("%s: no trace in the input (--allow-empty accepts that)",
		tr_inputs_name(name, sizeof name, r->names[0], r->nfiles));
	return TR_EXIT_INPUT;
}

uint64_t
tr_reader_bytes(const tr_reader *r)
{
	return r->bytes_done + (r->in && !r->in_export ? tr_input_bytes(r->in) : 0);
}

tr_read_counts
tr_reader_counts(const tr_reader *r)
{
	return (tr_read_counts){tr_reader_traces(r), tr_reader_bad(r), tr_reader_bytes(r),
				tr_reader_read_nothing(r)};
}

size_t
tr_reader_bad(const tr_reader *r)
{
	return r->nbad;
}

void
tr_reader_free(tr_reader *r)
{
	if (!r)
		return;
	tr_input_close(r->in);
	if (r->exports)
		r->hook->close(r->exports);
	tr_trace_free(&r->trace);
	sb_free(&r->hush);
	for (size_t i = 0; i < r->nloose; i++)
		free(r->loose[i].recs);
	free(r->loose);
	strmap_free(&r->loose_ids);
	u64map_free(&r->groups);
	arena_free(&r->loose_mem);
	sb_free(&r->group_id);
	sb_free(&r->held);
	sb_free(&r->where);
	free(r->names);
	free(r);
}

void
tr_reader_configure(tr_reader *r, char *const *names, size_t max_spans, size_t max_bytes, int flags)
{
	if (names)
		tr_reader_set_names(r, names);
	if (max_spans || max_bytes)
		tr_reader_set_limits(r, max_spans ? max_spans : TR_DEFAULT_MAX_SPANS,
				     max_bytes ? max_bytes : TR_DEFAULT_MAX_BYTES);
	tr_reader_set_flags(r, flags);
}
