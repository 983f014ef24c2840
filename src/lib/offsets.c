/* offsets.c - per-host clock offsets for the read loop. */
#include "offsets.h"
#include "core/format.h"
#include "core/hash.h"
#include "core/io.h"
#include "core/partial.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tr_offsets {
	tr_clock *clock;
	arena mem;
	strmap ids;		/* host -> index in hosts */
	struct host_offset {
		int64_t offset;
		size_t line;	/* its O record's line; 0: estimated */
		int seen;	/* a span read was on the host */
	} *hosts;
	size_t n, cap;
	const char *path;	/* the records' file, or NULL */
};

/* Host h as one of o's (a record given twice: the last one holds). */
static void
add_host(tr_offsets *o, const char *host, int64_t offset, size_t line)
{
	int added;
	strmap_slot *s = strmap_intern(&o->ids, &o->mem, host, strlen(host), &added);

	if (added) {
		GROW(o->hosts, o->cap, o->n + 1);
		s->val = o->n++;
	}
	o->hosts[s->val] = (struct host_offset){.offset = offset, .line = line};
}

tr_offsets *
tr_offsets_of_clock(tr_clock *c)
{
	tr_offsets *o = xcalloc(1, sizeof *o);

	o->clock = c;
	for (size_t i = 0; i < tr_clock_nhosts(c); i++) {
		tr_clock_host h;

		tr_clock_host_get(c, i, &h);
		add_host(o, h.host, h.offset, 0);
	}
	return o;
}

/* One O record: O, an empty trace field, host, offset µs, RPCs. */
static int
parse_record(tr_offsets *o, const char *line, size_t len, size_t lineno)
{
	tr_field f[6];
	int64_t off, rpcs;

	if (tr_split(line, len, f, 6) != 5 || f[0].len != 1 || f[0].s[0] != 'O' || f[1].len)
		return -1;
	if (!f[2].len || parse_i64(f[3].s, f[3].len, &off) < 0 ||
	    parse_i64(f[4].s, f[4].len, &rpcs) < 0 || rpcs < 0)
		return -1;
	char *host = arena_alloc(&o->mem, f[2].len + 1);

	host[tr_unescape(host, f[2].s, f[2].len)] = '\0';
	tr_clock_set(o->clock, host, off, (size_t)rpcs);
	add_host(o, host, off, lineno);
	return 0;
}

/* What a clock partial is made for: the evidence has no option to differ in. */
#define CLOCK_PARTIAL_KIND "ingest"
#define CLOCK_PARTIAL_FOR "clock-offsets"
#define CLOCK_PARTIAL_HEAD "#tr-" CLOCK_PARTIAL_KIND "-partial/"

static int
merge_evidence(void *ctx, char *line, size_t len, char *what, size_t whatlen)
{
	return tr_clock_merge_evidence(ctx, line, len, what, whatlen);
}

/* The evidence of clock partials (none: standard input), merged in their
 * order; NULL when one was bad (said). */
static tr_clock *
merge_partials(char **files, int nfiles)
{
	tr_clock *c = tr_clock_new();

	if (tr_partial_merge_files(files, nfiles, CLOCK_PARTIAL_KIND, CLOCK_PARTIAL_FOR, 0,
				   merge_evidence, c) == 0)
		return c;
	tr_clock_free(c);
	return NULL;
}

/* Does in start as clock partials (tr-ingest --clock-offsets --partial)?
 * Peeked, not read: the same input is read on either way, since a pipe
 * (--clock-offsets=<(...)) cannot be opened again. */
static int
holds_partials(tr_input *in)
{
	size_t len;
	const char *head = tr_input_peek(in, sizeof CLOCK_PARTIAL_HEAD - 1, &len);

	return len >= sizeof CLOCK_PARTIAL_HEAD - 1 &&
	       memcmp(head, CLOCK_PARTIAL_HEAD, sizeof CLOCK_PARTIAL_HEAD - 1) == 0;
}

tr_offsets *
tr_offsets_read(const char *path)
{
	tr_input *in = tr_input_open(path);

	if (holds_partials(in)) {	/* solved as the estimate over their inputs is */
		tr_clock *c = tr_clock_new();
		int bad = tr_partial_merge_input(in, CLOCK_PARTIAL_KIND, CLOCK_PARTIAL_FOR, 0,
						 merge_evidence, c) != 0;

		tr_input_close(in);
		if (bad)
			exit(TR_EXIT_INPUT);
		tr_clock_solve(c);
		return tr_offsets_of_clock(c);
	}
	tr_offsets *o = xcalloc(1, sizeof *o);
	size_t len, lineno = 0;
	char *line;

	o->clock = tr_clock_new();
	o->path = path;
	while ((line = tr_input_line(in, &len))) {
		lineno++;
		if (len && line[len - 1] == '\r')
			len--;
		if (!len || line[0] == '#')
			continue;
		if (parse_record(o, line, len, lineno) < 0)
			tr_die(TR_EXIT_INPUT, "%s:%zu: not an O record (O, empty trace id, host, "
			       "offset_us, rpcs)", path, lineno);
	}
	tr_input_close(in);
	return o;
}

const tr_clock *
tr_offsets_clock(const tr_offsets *o)
{
	return o->clock;
}

int64_t
tr_offsets_shift(void *ctx, const char *host)
{
	tr_offsets *o = ctx;
	strmap_slot *s = strmap_get(&o->ids, host, strlen(host));

	if (!s)
		return 0;
	o->hosts[s->val].seen = 1;
	return o->hosts[s->val].offset;
}

int64_t
tr_offsets_note(void *ctx, const char *host)
{
	tr_offsets_shift(ctx, host);
	return 0;
}

void
tr_offsets_report(const tr_offsets *o)
{
	for (size_t i = 0; i < tr_clock_nhosts(o->clock); i++) {
		tr_clock_host h;

		tr_clock_host_get(o->clock, i, &h);
		tr_warn("clock offset of %s: %+.3f ms, from %zu RPCs", h.host, (double)h.offset / 1000.0,
			h.rpcs);
	}
	if (!tr_clock_nhosts(o->clock))
		tr_warn("clock offsets: no RPC between hosts: every clock as recorded");
}

size_t
tr_offsets_unseen(const tr_offsets *o)
{
	size_t n = 0;

	for (size_t i = 0; i < tr_clock_nhosts(o->clock); i++) {
		tr_clock_host h;

		tr_clock_host_get(o->clock, i, &h);
		strmap_slot *s = strmap_get(&o->ids, h.host, strlen(h.host));

		if (s && !o->hosts[s->val].seen && o->hosts[s->val].line) {
			tr_warn("%s:%zu: no span of the input is on host %s", o->path, o->hosts[s->val].line,
				h.host);
			n++;
		}
	}
	return n;
}

void
tr_offsets_write(const tr_clock *c, strbuf *b)
{
	char num[64];

	for (size_t i = 0; i < tr_clock_nhosts(c); i++) {
		tr_clock_host h;

		tr_clock_host_get(c, i, &h);
		sb_adds(b, "O\t\t");
		tr_escapes(b, h.host, 0);
		snprintf(num, sizeof num, "\t%lld\t%zu\n", (long long)h.offset, h.rpcs);
		sb_adds(b, num);
	}
}

int
tr_offsets_produce(enum tr_offsets_mode m, char **files, int nfiles, size_t max_spans,
		   size_t max_bytes, int flags, strbuf *b, size_t *nhosts)
{
	tr_clock *c;

	if (m == TR_OFFSETS_MERGE) {
		if (!(c = merge_partials(files, nfiles)))
			return TR_EXIT_INPUT;
	} else
		c = tr_clock_gather(files, nfiles, NULL, max_spans, max_bytes, flags);
	*nhosts = tr_clock_nhosts(c);
	if (m == TR_OFFSETS_PARTIAL) {
		tr_partial_header(b, CLOCK_PARTIAL_KIND, CLOCK_PARTIAL_FOR);
		tr_partial_end(b, tr_clock_write_evidence(c, b));
	} else {
		tr_clock_solve(c);
		sb_adds(b, TR_FORMAT_HEADER "\n");
		tr_offsets_write(c, b);
	}
	tr_clock_free(c);
	return TR_EXIT_OK;
}

void
tr_offsets_free(tr_offsets *o)
{
	if (!o)
		return;
	tr_clock_free(o->clock);
	strmap_free(&o->ids);
	arena_free(&o->mem);
	free(o->hosts);
	free(o);
}
