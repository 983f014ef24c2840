/* cp_report.c - what tr-cp reports over many traces: the summary table,
 * folded stacks and DOT. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cp/cp.h"
#include "core/partial.h"
#include "core/table.h"
#include "draw/dot.h"
#include "core/pick.h"

int
cp_format_parse(const char *s)
{
	if (strcmp(s, "tsv") == 0)
		return CP_TSV;
	if (strcmp(s, "csv") == 0)
		return CP_CSV;
	if (strcmp(s, "json") == 0)
		return CP_JSON;
	return -1;
}

/* --- the summary table --- */

enum { KEY_SERVICE, KEY_OPERATION, KEY_TAG };

typedef struct group {
	const char *service, *operation;	/* operation: KEY_OPERATION only */
	int64_t cp, self;			/* totals, µs */
	int64_t *per_trace;			/* critical-path µs in each trace it is in */
	size_t ntraces, cap;
	int64_t cur;
	uint64_t seen;				/* serial of the last trace it was in */
	int64_t spans, errors;			/* its spans, and those that failed */
} group;

struct cp_summary {
	int key, format, units;
	const char *tag;
	arena mem;
	strmap map;
	group *g;
	size_t ng, capg;
	size_t *touched;
	size_t ntouched, captouched;
	uint64_t serial;
	strbuf buf;
	tr_keywatch watch;		/* the tag key: did any span have it? */
	strbuf made_for;		/* what its partials are made for */
};

void
cp_summary_set_units(cp_summary *s, int units)
{
	s->units = units;
}

cp_summary *
cp_summary_new(const char *key, int format)
{
	cp_summary *s = xcalloc(1, sizeof *s);

	s->format = format;
	if (strcmp(key, "service") == 0)
		s->key = KEY_SERVICE;
	else if (strcmp(key, "operation") == 0)
		s->key = KEY_OPERATION;
	else {
		s->key = KEY_TAG;
		s->tag = key;
		tr_keywatch_init(&s->watch, key);
	}
	return s;
}

int
cp_summary_unmatched(const cp_summary *s)
{
	static const char *const builtin[] = {"service", "operation"};

	return s->key == KEY_TAG && tr_keywatch_missing(&s->watch, "--summary", builtin, 2);
}

static group *group_by_key(cp_summary *s, const char *a, const char *b);

static group *
find_group(cp_summary *s, const tr_span *sp)
{
	const char *a, *b = "";

	if (s->key == KEY_TAG) {
		a = tr_span_tag(sp, s->tag);
		tr_keywatch_note(&s->watch, sp, a != NULL);
		a = a ? a : "";
	} else {
		a = sp->service;
		b = s->key == KEY_OPERATION ? sp->operation : "";
	}
	return group_by_key(s, a, b);
}

/* The group of key (a, b) (b: "" unless KEY_OPERATION), made when new. */
static group *
group_by_key(cp_summary *s, const char *a, const char *b)
{
	size_t alen = strlen(a);
	int added;

	sb_clear(&s->buf);
	sb_add(&s->buf, a, alen + 1);	/* the NUL separates the two parts */
	sb_adds(&s->buf, b);
	strmap_slot *slot = strmap_intern(&s->map, &s->mem, s->buf.s, s->buf.len, &added);
	if (added) {
		const char *k = slot->key;
		group *g;

		GROW(s->g, s->capg, s->ng + 1);
		g = &s->g[s->ng++];
		memset(g, 0, sizeof *g);
		g->service = k;
		g->operation = k + alen + 1;
	}
	return &s->g[slot->val];
}

void
cp_summary_add(cp_summary *s, const tr_trace *t, const cp_trace *c)
{
	if (c->root < 0)
		return;	/* nothing analysed */
	s->serial++;
	s->ntouched = 0;
	for (size_t i = 0; i < t->nspans; i++) {
		group *g = find_group(s, &t->spans[i]);

		if (g->seen != s->serial) {
			g->seen = s->serial;
			g->cur = 0;
			GROW(s->touched, s->captouched, s->ntouched + 1);
			s->touched[s->ntouched++] = (size_t)(g - s->g);
		}
		g->cur = tr_dur_add(g->cur, c->self[i], "--summary");
		g->self = tr_dur_add(g->self, cp_conventional_self(t, (int32_t)i), "--summary");
		g->spans++;
		g->errors += tr_span_error(t, (int32_t)i, NULL);
	}
	for (size_t i = 0; i < s->ntouched; i++) {
		group *g = &s->g[s->touched[i]];

		GROW(g->per_trace, g->cap, g->ntraces + 1);
		g->per_trace[g->ntraces++] = g->cur;
		g->cp = tr_dur_add(g->cp, g->cur, "--summary");
	}
}

/* Most critical-path time first; then by key. */
static int
group_cmp(const void *pa, const void *pb)
{
	const group *a = pa, *b = pb;
	int r;

	if (a->cp != b->cp)
		return a->cp > b->cp ? -1 : 1;
	if ((r = strcmp(a->service, b->service)))
		return r;
	return strcmp(a->operation, b->operation);
}

static const char *const value_cols[] = {
	"traces", "cp_us", "cp_pct", "cp_p50_us", "cp_p95_us", "cp_p99_us", "self_us", "self_pct",
	"spans", "errors"
};
#define NVALUE_COLS (sizeof value_cols / sizeof value_cols[0])

/* The key columns' names. */
static size_t
key_cols(const cp_summary *s, const char **names)
{
	if (s->key == KEY_TAG) {
		names[0] = s->tag;
		return 1;
	}
	names[0] = "service";
	names[1] = "operation";
	return s->key == KEY_OPERATION ? 2 : 1;
}

/* The table's columns: the key's, then the values' in the units asked for. */
static size_t
summary_cols(const cp_summary *s, char names[][32], const char **cols)
{
	const char *keys[2];
	size_t n = key_cols(s, keys);

	for (size_t i = 0; i < n; i++)
		cols[i] = keys[i];
	for (size_t i = 0; i < NVALUE_COLS; i++) {
		table_dur_col(names[i], sizeof names[i], value_cols[i], s->units);
		cols[n + i] = names[i];
	}
	return n + NVALUE_COLS;
}

static void
write_row(table *t, const cp_summary *s, group *g, int64_t all_cp, int64_t all_self)
{
	const char *keys[2] = {g->service, g->operation};
	const char *names[2];
	size_t nkeys = key_cols(s, names);

	qsort(g->per_trace, g->ntraces, sizeof *g->per_trace, cmp_i64);
	for (size_t i = 0; i < nkeys; i++)
		table_str(t, keys[i]);
	table_int(t, (int64_t)g->ntraces);
	table_dur(t, g->cp);
	table_pct(t, g->cp, all_cp);
	table_dur(t, cp_percentile(g->per_trace, g->ntraces, 50));
	table_dur(t, cp_percentile(g->per_trace, g->ntraces, 95));
	table_dur(t, cp_percentile(g->per_trace, g->ntraces, 99));
	table_dur(t, g->self);
	table_pct(t, g->self, all_self);
	table_int(t, g->spans);
	table_int(t, g->errors);
}

void
cp_summary_write(cp_summary *s, tr_output *out)
{
	strbuf b = {0};
	char names[NVALUE_COLS][32];
	const char *cols[2 + NVALUE_COLS];
	size_t ncols = summary_cols(s, names, cols);
	int64_t all_cp = 0, all_self = 0;
	table t;

	for (size_t i = 0; i < s->ng; i++) {
		all_cp = tr_dur_add(all_cp, s->g[i].cp, "--summary");
		all_self = tr_dur_add(all_self, s->g[i].self, "--summary");
	}
	if (s->ng)	/* no group: g is NULL, which qsort may not be given */
		qsort(s->g, s->ng, sizeof *s->g, group_cmp);
	table_begin(&t, &b, s->format, s->units, cols, ncols);
	for (size_t i = 0; i < s->ng; i++) {
		write_row(&t, s, &s->g[i], all_cp, all_self);
		tr_output_spill(out, &b);
	}
	table_end(&t);
	tr_output_sb(out, &b);
	sb_free(&b);
}

void
cp_summary_free(cp_summary *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->ng; i++)
		free(s->g[i].per_trace);
	free(s->g);
	free(s->touched);
	strmap_free(&s->map);
	tr_keywatch_free(&s->watch);
	arena_free(&s->mem);
	sb_free(&s->buf);
	sb_free(&s->made_for);
	free(s);
}

/* --- the summary's partial state (--partial, --merge) ---
 *
 * In partial.h's frame, "#tr-cp-partial/2<TAB>summary key=KEY" (KEY
 * escaped) and "#end<TAB>N", around a G record per group:
 * G, its key's two parts (escaped), critical-path and self µs, its spans
 * and the failed ones among them, then the
 * critical-path µs of each trace it was in, as "v:count" items in
 * increasing order, separated by ','. A merge adds them: the table is
 * that of one pass over all the traces. */

static const char *
summary_key(const cp_summary *s)
{
	return s->key == KEY_TAG ? s->tag : s->key == KEY_OPERATION ? "operation" : "service";
}

const char *
cp_summary_made_for(cp_summary *s)
{
	sb_clear(&s->made_for);
	sb_adds(&s->made_for, "summary key=");
	tr_escapes(&s->made_for, summary_key(s), 0);
	return s->made_for.s;
}

void
cp_summary_write_partial(cp_summary *s, tr_output *out)
{
	strbuf b = {0};

	tr_partial_header(&b, "cp", cp_summary_made_for(s));
	for (size_t i = 0; i < s->ng; i++) {
		group *g = &s->g[i];

		qsort(g->per_trace, g->ntraces, sizeof *g->per_trace, cmp_i64);
		sb_add(&b, "G\t", 2);
		tr_escapes(&b, g->service, 0);
		sb_addc(&b, '\t');
		tr_escapes(&b, g->operation, 0);
		sb_addf(&b, "\t%lld\t%lld\t%lld\t%lld\t", (long long)g->cp, (long long)g->self,
			(long long)g->spans, (long long)g->errors);
		for (size_t j = 0, k; j < g->ntraces; j = k) {
			for (k = j + 1; k < g->ntraces && g->per_trace[k] == g->per_trace[j]; k++)
				;
			sb_addf(&b, "%s%lld:%zu", j ? "," : "", (long long)g->per_trace[j], k - j);
		}
		sb_addc(&b, '\n');
		tr_output_spill(out, &b);
	}
	tr_partial_end(&b, s->ng);
	tr_output_sb(out, &b);
	sb_free(&b);
}

/* A decimal int64 filling [p, end); -1 when it is not one. */
static int
parse_i64_field(const char *p, const char *end, long long *v)
{
	char *stop;

	if (p == end || (*p != '-' && (*p < '0' || *p > '9')))
		return -1;
	errno = 0;
	*v = strtoll(p, &stop, 10);
	return stop == end && !errno ? 0 : -1;
}

/* "v:c,v:c...": c more traces with v µs each. */
static int
merge_per_trace(group *g, const char *p, const char *end)
{
	while (p < end) {
		const char *colon = memchr(p, ':', (size_t)(end - p));
		const char *comma = memchr(p, ',', (size_t)(end - p));
		long long v, c;

		comma = comma ? comma : end;
		if (!colon || colon > comma || parse_i64_field(p, colon, &v) < 0 ||
		    parse_i64_field(colon + 1, comma, &c) < 0 || c <= 0 || c > (1LL << 40))
			return -1;
		GROW(g->per_trace, g->cap, g->ntraces + (size_t)c);
		for (; c > 0; c--)
			g->per_trace[g->ntraces++] = v;
		p = comma == end ? end : comma + 1;
		if (comma != end && p == end)
			return -1;	/* a trailing ',' */
	}
	return 0;
}

int
cp_summary_merge_line(cp_summary *s, char *line, size_t len, char *err, size_t errlen)
{
	tr_field f[10];
	long long cp, self, spans, errors;

	if (tr_split(line, len, f, 10) != 8 || f[0].len != 1 || line[0] != 'G') {
		snprintf(err, errlen, "not a tr-cp --summary partial record (want G and 7 fields)");
		return -1;
	}
	if (parse_i64_field(f[3].s, f[3].s + f[3].len, &cp) < 0 ||
	    parse_i64_field(f[4].s, f[4].s + f[4].len, &self) < 0) {
		snprintf(err, errlen, "bad critical-path or self time");
		return -1;
	}
	if (parse_i64_field(f[5].s, f[5].s + f[5].len, &spans) < 0 || spans < 0 ||
	    parse_i64_field(f[6].s, f[6].s + f[6].len, &errors) < 0 || errors < 0 || errors > spans) {
		snprintf(err, errlen, "bad count of spans or errors");
		return -1;
	}
	/* unescape the key in place: it is never longer than its text */
	f[1].len = tr_unescape((char *)f[1].s, f[1].s, f[1].len);
	((char *)f[1].s)[f[1].len] = '\0';
	f[2].len = tr_unescape((char *)f[2].s, f[2].s, f[2].len);
	((char *)f[2].s)[f[2].len] = '\0';
	group *g = group_by_key(s, f[1].s, s->key == KEY_OPERATION ? f[2].s : "");
	size_t before = g->ntraces;

	if (merge_per_trace(g, f[7].s, f[7].s + f[7].len) < 0 || g->ntraces == before) {
		snprintf(err, errlen, "bad list of per-trace critical-path times");
		return -1;
	}
	g->cp += cp;
	g->self += self;
	g->spans += spans;
	g->errors += errors;
	return 0;
}

/* --- folded stacks: a calling-context tree keyed by (parent node, frame) --- */

#define NO_NODE UINT32_MAX

struct cp_folded {
	arena mem;
	strmap frames;		/* "service:operation" -> frame number */
	const char **frame;
	size_t nframes, capframes;
	strmap nodes;		/* (parent node, frame) -> node number */
	struct cct_node {
		uint32_t parent, frame;
		int64_t value;
	} *node;
	size_t nnodes, capnodes;
	uint32_t *node_of;	/* per span of the current trace */
	size_t capspans;
	strbuf buf;
};

cp_folded *
cp_folded_new(void)
{
	return xcalloc(1, sizeof(cp_folded));
}

/* A frame's text: ';' and line breaks would break the format: '_' instead. */
static uint32_t
frame_of(cp_folded *f, const tr_span *s)
{
	int added;

	sb_clear(&f->buf);
	sb_adds(&f->buf, s->service);
	sb_addc(&f->buf, ':');
	sb_adds(&f->buf, s->operation);
	for (size_t i = 0; i < f->buf.len; i++)
		if (strchr(";\n\r\t", f->buf.s[i]))
			f->buf.s[i] = '_';
	strmap_slot *slot = strmap_intern(&f->frames, &f->mem, f->buf.s, f->buf.len, &added);
	if (added) {
		GROW(f->frame, f->capframes, f->nframes + 1);
		f->frame[f->nframes++] = slot->key;
	}
	return (uint32_t)slot->val;
}

static uint32_t
node_of(cp_folded *f, uint32_t parent, uint32_t frame)
{
	uint32_t key[2] = {parent, frame};
	int added;
	strmap_slot *slot = strmap_intern(&f->nodes, &f->mem, key, sizeof key, &added);

	if (added) {
		GROW(f->node, f->capnodes, f->nnodes + 1);
		f->node[f->nnodes++] = (struct cct_node){parent, frame, 0};
	}
	return (uint32_t)slot->val;
}

void
cp_folded_add(cp_folded *f, const tr_trace *t, const cp_trace *c)
{
	GROW(f->node_of, f->capspans, t->nspans);
	/* c->path has parents first, and the parent of a critical span is critical */
	for (size_t i = 0; i < c->npath; i++) {
		int32_t s = c->path[i];
		int32_t ps = t->spans[s].parent;	/* < 0: one of the roots */
		uint32_t parent = ps < 0 ? NO_NODE : f->node_of[ps];
		uint32_t n = node_of(f, parent, frame_of(f, &t->spans[s]));

		f->node_of[s] = n;
		f->node[n].value = tr_dur_add(f->node[n].value, c->self[s], "critical-path stacks");
	}
}

static int
str_cmp(const void *pa, const void *pb)
{
	return strcmp(*(char *const *)pa, *(char *const *)pb);
}

void
cp_folded_write(cp_folded *f, tr_output *out)
{
	char **lines = xcalloc(f->nnodes ? f->nnodes : 1, sizeof *lines);
	size_t nlines = 0;
	uint32_t *up = NULL;
	size_t capup = 0;
	strbuf b = {0};

	for (size_t i = 0; i < f->nnodes; i++) {
		size_t depth = 0;

		if (f->node[i].value <= 0)
			continue;
		for (uint32_t n = (uint32_t)i; n != NO_NODE; n = f->node[n].parent) {
			GROW(up, capup, depth + 1);
			up[depth++] = n;
		}
		sb_clear(&b);
		while (depth--) {
			sb_adds(&b, f->frame[f->node[up[depth]].frame]);
			if (depth)
				sb_addc(&b, ';');
		}
		sb_addf(&b, " %lld\n", (long long)f->node[i].value);
		lines[nlines++] = xstrdup(b.s);
	}
	qsort(lines, nlines, sizeof *lines, str_cmp);
	for (size_t i = 0; i < nlines; i++) {
		tr_output_puts(out, lines[i]);
		free(lines[i]);
	}
	free(lines);
	free(up);
	sb_free(&b);
}

void
cp_folded_free(cp_folded *f)
{
	if (!f)
		return;
	strmap_free(&f->frames);
	strmap_free(&f->nodes);
	free(f->frame);
	free(f->node);
	free(f->node_of);
	arena_free(&f->mem);
	sb_free(&f->buf);
	free(f);
}

/* --- DOT ---
 *
 * One node a span, except that consecutive siblings (or roots) with the
 * same service and operation fold into one node "×N" with their total, the
 * longest and the critical path's time in them; their children merge by
 * name the same way (as a flame graph's frames do). A fan-out of 13 like
 * calls, or 10 calls that each make one call, is one column rather than 13
 * or 10, so a 40-span trace stays within a page's width. Durations are for
 * people (--units, auto by default), with their share of the trace. */

/* The work space of one trace's picture, per span: allocated per trace
 * (a picture is drawn for a few traces, never on the analysis path). */
typedef struct dot_fold {
	int32_t *bfs;		/* spans, parents first */
	int32_t *rep;		/* the span whose node draws this one */
	int64_t *below;		/* cp.self of its subtree */
	size_t nroots;		/* the first of bfs */
	uint8_t *flag;		/* FOLD_* */
	struct dot_group {
		size_t count, on_path, off, failed;
		int mixed;	/* not all of one name (a fold of minor siblings) */
		int64_t total, max, self, below;
		int32_t first_failed;
	} *g;			/* per node (a span that is its own rep) */
} dot_fold;

typedef struct root_at {
	int64_t start;
	int32_t span;
} root_at;

static int
root_cmp(const void *pa, const void *pb)
{
	const root_at *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->span > b->span) - (a->span < b->span);
}

/* Parents first: the roots by start, then children in their (start, span
 * id) order. */
static size_t
fold_order(dot_fold *f, const tr_trace *t)
{
	size_t n = 0;
	root_at *r = (root_at *)f->g;	/* free until fold_groups */

	_Static_assert(sizeof(struct dot_group) >= sizeof(root_at), "the roots fit in the groups' space");
	for (size_t i = 0; i < t->nspans; i++)
		if (t->spans[i].parent < 0)
			r[n++] = (root_at){t->spans[i].start, (int32_t)i};
	qsort(r, n, sizeof *r, root_cmp);
	for (size_t k = 0; k < n; k++)
		f->bfs[k] = r[k].span;
	f->nroots = n;
	for (size_t k = 0; k < n; k++)
		for (int32_t c = t->spans[f->bfs[k]].first_child; c >= 0; c = t->spans[c].next_sibling)
			f->bfs[n++] = c;
	return n;
}

static int
same_name(const tr_trace *t, int32_t a, int32_t b)
{
	return strcmp(t->spans[a].service, t->spans[b].service) == 0 &&
	       strcmp(t->spans[a].operation, t->spans[b].operation) == 0;
}

/* The node that draws child ch of p when p is drawn by q != p: q's child
 * of the same name's, or ch's own when q has none. */
static int32_t
fold_child(const dot_fold *f, const tr_trace *t, int32_t q, int32_t ch)
{
	for (int32_t qc = t->spans[q].first_child; qc >= 0; qc = t->spans[qc].next_sibling)
		if (same_name(t, qc, ch))
			return f->rep[qc];
	return ch;
}

enum { FOLD_FAILED = 1, FOLD_FAILED_BELOW = 2, FOLD_MINOR = 4, FOLD_HIDDEN = 8 };

/* A sibling of no interest: under 1 % of the trace, nothing failed in it. */
static int
fold_minor(const dot_fold *f, const tr_trace *t, int32_t i, int64_t whole)
{
	return whole > 0 && 100 * t->spans[i].duration < whole && !(f->flag[i] & FOLD_FAILED_BELOW);
}

/* The run of siblings being folded: of one name, or minor ones. */
typedef struct fold_run {
	int32_t first;		/* -1: none yet */
	int named, minor;	/* all of first's name; all minor */
} fold_run;

/* How child ch of p is drawn: inside p's node when p is a fold of minor
 * siblings; when p is drawn by another span q, by q's child of its name;
 * else by the first of its run of siblings: of the same name (whether
 * minor or not), or all minor. */
static void
fold_child_rep(dot_fold *f, const tr_trace *t, int32_t p, int32_t ch, int64_t whole, fold_run *r)
{
	int32_t q = f->rep[p];
	int minor = fold_minor(f, t, ch, whole);

	if (f->flag[q] & FOLD_MINOR) {
		f->rep[ch] = q;
		f->flag[ch] |= FOLD_HIDDEN;
	} else if (q != p) {
		f->rep[ch] = fold_child(f, t, q, ch);
	} else if (r->first >= 0 && r->named && same_name(t, r->first, ch)) {
		f->rep[ch] = r->first;
		r->minor &= minor;
	} else if (r->first >= 0 && r->minor && minor) {
		f->rep[ch] = r->first;
		r->named = 0;
		f->flag[r->first] |= FOLD_MINOR;	/* several names: what they call is hidden */
	} else
		*r = (fold_run){ch, 1, minor};
}

/* cp.self and failures below each span (children before parents: the
 * order backwards), then the reps top-down. */
static void
fold_reps(dot_fold *f, const tr_trace *t, const cp_trace *c, size_t n)
{
	for (size_t i = 0; i < t->nspans; i++) {	/* any span no root reaches */
		f->rep[i] = (int32_t)i;
		f->below[i] = 0;
		f->flag[i] = tr_span_error(t, (int32_t)i, NULL) ? FOLD_FAILED | FOLD_FAILED_BELOW : 0;
	}
	for (size_t k = n; k-- > 0;) {
		int32_t i = f->bfs[k], p = t->spans[i].parent;

		if (c->state[i] == CP_PATH)
			f->below[i] += c->self[i];
		if (p >= 0) {
			f->below[p] += f->below[i];
			f->flag[p] |= f->flag[i] & FOLD_FAILED_BELOW;
		}
	}
	for (size_t k = 1; k < f->nroots; k++)
		if (same_name(t, f->bfs[k - 1], f->bfs[k]))
			f->rep[f->bfs[k]] = f->rep[f->bfs[k - 1]];
	for (size_t k = 0; k < n; k++) {
		int32_t p = f->bfs[k];
		fold_run run = {-1, 0, 0};

		for (int32_t ch = t->spans[p].first_child; ch >= 0; ch = t->spans[ch].next_sibling)
			fold_child_rep(f, t, p, ch, c->path_length, &run);
	}
}

/* Each node's totals; a span hidden in a fold of minor siblings counts
 * only through its cp.self, in the sibling's below. */
static void
fold_groups(dot_fold *f, const tr_trace *t, const cp_trace *c)
{
	memset(f->g, 0, t->nspans * sizeof *f->g);
	for (size_t i = 0; i < t->nspans; i++) {
		struct dot_group *g = &f->g[f->rep[i]];
		int64_t d = t->spans[i].duration;

		if (f->flag[i] & FOLD_HIDDEN)
			continue;
		if (!g->count++)
			g->first_failed = -1;
		g->mixed |= !same_name(t, (int32_t)i, f->rep[i]);
		g->total = tr_dur_add(g->total, d, "--dot");
		g->max = d > g->max ? d : g->max;
		g->below = tr_dur_add(g->below, f->below[i], "--dot");
		g->off += c->state[i] == CP_OFF;
		if (c->state[i] == CP_PATH) {
			g->on_path++;
			g->self = tr_dur_add(g->self, c->self[i], "--dot");
		}
		if ((f->flag[i] & FOLD_FAILED) && !g->failed++)
			g->first_failed = (int32_t)i;
	}
}

static void
node_id(strbuf *b, const tr_trace *t, int32_t s)
{
	sb_clear(b);
	sb_adds(b, t->trace_id);
	sb_addc(b, '/');
	sb_adds(b, t->spans[s].span_id);
}

/* "service\noperation\n412 ms · 38 %\ncp.self 3 ms · 0.3 %", or for a
 * fold "×13 service\noperation\ntotal 343 ms · 29 %\nmax 81 ms\n...", one
 * short line each (the widest line makes the node's width). */
static void
dot_span_label(strbuf *b, const tr_span *s, const struct dot_group *g, int minor, int64_t whole,
	       int units)
{
	sb_clear(b);
	if (g->count > 1)
		sb_addf(b, "\xc3\x97%zu ", g->count);
	if (g->mixed)	/* a fold of minor siblings of several names */
		sb_addf(b, "calls of %s and others\neach under 1 %%\n", s->service);
	else
		sb_addf(b, "%s\n%s\n", s->service, s->operation);
	if (g->count > 1)
		sb_adds(b, "total ");
	dot_duration(b, g->total, units);
	dot_share(b, g->total, whole);
	if (g->count > 1) {
		sb_adds(b, "\nmax ");
		dot_duration(b, g->max, units);
	}
	if (g->on_path) {	/* a minor fold hides what they called: its time too */
		sb_adds(b, "\ncp.self ");
		dot_duration(b, minor ? g->below : g->self, units);
		dot_share(b, minor ? g->below : g->self, whole);
		if (g->count > 1)
			sb_addf(b, "\n%zu of %zu on the path", g->on_path, g->count);
	}
}

static void
dot_span_node(strbuf *b, const tr_trace *t, const cp_trace *c, const dot_fold *f, int32_t i,
	      int units, strbuf *id, strbuf *label, strbuf *attrs)
{
	const struct dot_group *g = &f->g[i];

	dot_span_label(label, &t->spans[i], g, f->flag[i] & FOLD_MINOR, c->path_length, units);
	node_id(id, t, i);
	sb_clear(attrs);	/* dashed: none of them analysed */
	sb_adds(attrs, g->on_path ? "color=red, penwidth=2" :
		       g->off == g->count ? "style=dashed, color=gray" : "");
	if (g->failed) {
		dot_mark_failure(label, attrs, t, g->first_failed);
		if (g->count > 1)
			sb_addf(label, "\n%zu of %zu failed", g->failed, g->count);
	}
	dot_node(b, id->s, label->s, attrs->len ? attrs->s : NULL);
}

void
cp_dot_trace(strbuf *b, const tr_trace *t, const cp_trace *c, int units)
{
	strbuf id = {0}, pid = {0}, label = {0}, attrs = {0};
	size_t m = t->nspans ? t->nspans : 1, n;
	dot_fold f = {.bfs = xmalloc(m * sizeof *f.bfs), .rep = xmalloc(m * sizeof *f.rep),
		      .below = xmalloc(m * sizeof *f.below), .flag = xmalloc(m),
		      .g = xmalloc(m * sizeof *f.g)};

	n = fold_order(&f, t);
	fold_reps(&f, t, c, n);
	fold_groups(&f, t, c);
	sb_addf(&label, "cluster_%s", t->trace_id);
	sb_clear(&id);
	sb_addf(&id, "trace %s", t->trace_id);
	if (c->nanalysed > 1)	/* several roots: each has its path */
		sb_adds(&id, "\ncritical paths ");
	else if (c->root >= 0)
		sb_adds(&id, "\ncritical path ");
	if (c->root >= 0)
		dot_duration(&id, c->path_length, units);
	if (c->nanalysed > 1)
		sb_addf(&id, " (%zu roots)", c->nanalysed);
	dot_cluster_begin(b, label.s, id.s);
	for (int32_t i = 0; i < (int32_t)t->nspans; i++)
		if (f.rep[i] == i)
			dot_span_node(b, t, c, &f, i, units, &id, &label, &attrs);
	for (int32_t i = 0; i < (int32_t)t->nspans; i++) {	/* a drawn span's parent is drawn */
		int32_t p = t->spans[i].parent;
		int path = f.g[i].on_path && p >= 0 && f.g[f.rep[p]].on_path;

		if (p < 0 || f.rep[i] != i)
			continue;
		node_id(&pid, t, f.rep[p]);
		node_id(&id, t, i);
		sb_clear(&label);
		if (path) {	/* the critical path's time that goes down this call */
			dot_duration(&label, f.g[i].below, units);
			dot_share(&label, f.g[i].below, c->path_length);
		}
		dot_edge(b, pid.s, id.s, path ? label.s : NULL,
			 path ? "color=red, penwidth=2" :
			 t->spans[i].flags & TR_SPAN_FOLLOWS ? "style=dashed" : NULL);
	}
	dot_cluster_end(b);
	free(f.bfs);
	free(f.rep);
	free(f.below);
	free(f.flag);
	free(f.g);
	sb_free(&id);
	sb_free(&pid);
	sb_free(&label);
	sb_free(&attrs);
}
