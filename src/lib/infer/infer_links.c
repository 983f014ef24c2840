/* infer_links.c - service dependency links, by the rules of Zipkin's
 * DependencyLinker (which Jaeger's spark-dependencies job also follows for
 * Zipkin data):
 *   - a client span with children is skipped: its server child links;
 *   - a span with no kind (or internal) is a client when it names both its
 *     own and a remote service, else skipped;
 *   - server/consumer: remote service (or nearest remote ancestor's
 *     service) -> own service; the root server without a remote is skipped;
 *   - client/producer: own service -> remote service (peer.service);
 *   - producer/consumer link only through the broker (both names known);
 *     the broker is peer.service, else OpenTelemetry's messaging.system;
 *   - error: the span has an error tag, whatever its value ("false"
 *     included: Zipkin tests only that the key is there), or its nearest
 *     ancestor with a kind is a client with one and its parent id is that
 *     client's. A shared span's server half carries its client half's
 *     parent id there (Zipkin's merge gives it that when it has none): it
 *     inherits across a client half of no kind, never from its own client.
 * Children and ancestors are those of Zipkin's tree: spans whose parent is
 * missing hang under the first parentless span (the root); tr-ingest marks
 * where else Zipkin's tree differs from tr's (tr.zipkin_parent, and
 * tr.zipkin_hidden for a span Zipkin's tree does not hold); without those
 * marks, a child of a shared span's server half whose service or host
 * differs hangs under the client half.
 *
 * Jaeger's rule (its in-memory and Badger stores; Jaeger's UI builds its
 * dependency graph from them): one call parent service -> child service for
 * every span whose parent span is in the trace and in another service; the
 * error column counts those whose own span failed (tr_span_error: tr-format(5), FAILURES).
 * Without --links=RULE, Zipkin's rule applies unless it has nothing to go
 * by, no span of the input having a kind or naming its remote service
 * (peer.service), and then Jaeger's: both are counted as the traces go by. */
#include "infer/infer.h"
#include "infer_impl.h"

#include <stdlib.h>
#include <string.h>

#include "draw/dot.h"
#include "core/format.h"
#include "core/json.h"

typedef struct link_rec {
	const char *parent, *child;	/* arena copies */
	uint32_t plen, clen;
	uint64_t calls, errors;
} link_rec;

/* The tags of a span the rules read, found in one pass over its tags. */
typedef struct span_tags {
	const char *peer, *broker, *error;	/* peer.service, messaging.system */
	const char *zparent, *renamed;	/* tr.zipkin_parent, tr.renamed_from */
	uint8_t hidden;			/* tr.zipkin_hidden */
} span_tags;

/* The links by one rule. */
typedef struct link_table {
	strmap index;		/* "parent\0child" -> link */
	link_rec *link;
	size_t nlinks, caplink;
} link_table;

struct infer_links {
	int rule;		/* enum infer_links_rule asked for */
	uint64_t spans, kinds;	/* spans seen, those with a kind or peer.service */
	arena mem;
	link_table table[2];	/* by INFER_LINKS_ZIPKIN, INFER_LINKS_JAEGER */
	strbuf key;
	/* Per-trace scratch, reused: the spans' tags and Zipkin's tree. */
	span_tags *tags;
	int32_t *zparent;	/* parent index, -1 for the root */
	uint32_t *zkids;	/* number of children */
	size_t captags, capzparent, capzkids;
	strmap kept;		/* id as read -> the span Zipkin keeps, when some are hidden */
};

infer_links *
infer_links_new(int rule)
{
	infer_links *l = xcalloc(1, sizeof(infer_links));

	l->rule = rule;
	return l;
}

void
infer_links_free(infer_links *l)
{
	if (!l)
		return;
	for (int r = 0; r < 2; r++) {
		strmap_free(&l->table[r].index);
		free(l->table[r].link);
	}
	free(l->tags);
	strmap_free(&l->kept);
	free(l->zparent);
	free(l->zkids);
	sb_free(&l->key);
	arena_free(&l->mem);
	free(l);
}

void
infer_links_put(infer_links *l, int rule, const char *parent, size_t plen,
		const char *child, size_t clen, uint64_t calls, uint64_t errors)
{
	link_table *t = &l->table[rule];
	int added;

	sb_clear(&l->key);
	sb_add(&l->key, parent, plen);
	sb_addc(&l->key, '\0');
	sb_add(&l->key, child, clen);
	strmap_slot *slot = strmap_intern(&t->index, &l->mem, l->key.s, l->key.len, &added);
	if (added) {
		const char *k = slot->key;
		GROW(t->link, t->caplink, t->nlinks + 1);
		t->link[t->nlinks++] = (link_rec){ k, k + plen + 1, (uint32_t)plen,
						   (uint32_t)clen, 0, 0 };
	}
	t->link[slot->val].calls += calls;
	t->link[slot->val].errors += errors;
}

void
infer_links_add_kinds(infer_links *l, uint64_t spans, uint64_t kinds)
{
	l->spans += spans;
	l->kinds += kinds;
}

int
infer_links_rule(const infer_links *l)
{
	if (l->rule != INFER_LINKS_AUTO)
		return l->rule;
	return l->spans && !l->kinds ? INFER_LINKS_JAEGER : INFER_LINKS_ZIPKIN;
}

static void
add_link(infer_links *l, const char *parent, const char *child, int error)
{
	infer_links_put(l, INFER_LINKS_ZIPKIN, parent, strlen(parent), child, strlen(child), 1,
			error != 0);
}

static int
is_remote_kind(int kind)
{
	return kind != TR_KIND_NONE && kind != TR_KIND_INTERNAL;
}

static const char *
nonempty(const char *s)
{
	return s && *s ? s : NULL;
}

static void
scan_tags(const tr_span *s, span_tags *g)
{
	*g = (span_tags){0};
	for (uint32_t k = 0; k < s->ntags; k++) {
		const char *key = s->tags[k].key, *val = s->tags[k].val;

		if (strcmp(key, "error") == 0)
			g->error = val;
		else if (strcmp(key, "peer.service") == 0)
			g->peer = val;
		else if (strcmp(key, "messaging.system") == 0)
			g->broker = val;
		else if (strncmp(key, "tr.", 3) != 0)
			continue;
		else if (strcmp(key, "tr.zipkin_parent") == 0)
			g->zparent = val;
		else if (strcmp(key, "tr.renamed_from") == 0)
			g->renamed = val;
		else if (strcmp(key, "tr.zipkin_hidden") == 0)
			g->hidden = 1;
	}
}

/* The id tr-ingest read span i by, before it renamed a second span of one id. */
static const char *
read_id(const infer_links *l, const tr_trace *t, int32_t i)
{
	return l->tags[i].renamed ? l->tags[i].renamed : t->spans[i].span_id;
}

/* A server half that tr-ingest split from a Zipkin shared span: id "X:s"
 * (renamed "X:s~2" when two servers answered), parent "X". */
static int
is_shared_server_half(const infer_links *l, const tr_trace *t, int32_t i)
{
	const tr_span *s = &t->spans[i];
	const char *id = read_id(l, t, i);
	size_t n = strlen(id), p = strlen(s->parent_id);

	return n == p + 2 && memcmp(id, s->parent_id, p) == 0 && strcmp(id + p, ":s") == 0;
}

/* Whether s names a as its parent, as Zipkin read it: tr-ingest makes a
 * child of a shared id name the server half, "<id>:s". */
static int
names_as_parent(const tr_span *s, const tr_span *a)
{
	size_t n = strlen(a->span_id);

	return strncmp(s->parent_id, a->span_id, n) == 0 &&
	       (!s->parent_id[n] || strcmp(s->parent_id + n, ":s") == 0);
}

/* Zipkin's tree holds one span of an id (and endpoint): a span tr-ingest
 * marked hidden stands for the one of its id that is not. */
static int32_t
kept_twin(const infer_links *l, const tr_trace *t, int32_t p)
{
	const char *id = read_id(l, t, p);
	const strmap_slot *sl = strmap_get(&l->kept, id, strlen(id));

	return sl ? (int32_t)sl->val : p;
}

/* l->kept for kept_twin: only a trace with hidden spans needs it. */
static void
index_kept(infer_links *l, const tr_trace *t)
{
	int any = 0, added;

	strmap_clear(&l->kept);
	for (size_t i = 0; i < t->nspans && !any; i++)
		any = l->tags[i].hidden;
	for (size_t i = 0; any && i < t->nspans; i++) {
		const char *id = read_id(l, t, (int32_t)i);

		if (!l->tags[i].hidden)
			strmap_put(&l->kept, id, strlen(id), &added)->val = (int64_t)i;
	}
}

static int
same_host(const tr_span *a, const tr_span *b)
{
	return strcmp(a->service, b->service) == 0 && strcmp(a->host, b->host) == 0;
}

/* When two servers answered one client, their halves are <id>:s and
 * <id>:s~2, and a child names the first: the half of s's own service and
 * host, or -1. */
static int32_t
server_half_of(const infer_links *l, const tr_trace *t, int32_t p, const tr_span *s)
{
	const char *id = read_id(l, t, p);

	for (size_t j = 0; j < t->nspans; j++)
		if ((int32_t)j != p && !l->tags[j].hidden && same_host(&t->spans[j], s) &&
		    strcmp(read_id(l, t, (int32_t)j), id) == 0)
			return (int32_t)j;
	return -1;
}

/* The parent of span i in Zipkin's tree: where tr-ingest marked it, that
 * one; else a root other than the first parentless span (headless spans)
 * hangs under that span, and a child of a shared span's server half hangs
 * under the half of its own service and host, else under the client half. */
static int32_t
zipkin_parent(const infer_links *l, const tr_trace *t, int32_t i, int32_t root)
{
	const tr_span *s = &t->spans[i];
	const char *mark = l->tags[i].zparent;
	int32_t p = s->parent;

	if (mark)
		p = *mark ? tr_trace_find(t, mark) : -1;
	if (p < 0)
		return i != root ? root : -1;
	const tr_span *ps = &t->spans[p];
	if (!mark && is_shared_server_half(l, t, p) && ps->parent >= 0 && !same_host(ps, s)) {
		int32_t twin = server_half_of(l, t, p, s);

		return twin >= 0 ? twin : ps->parent;
	}
	return p;
}

/* Zipkin's tree of t into l's scratch. */
static void
zipkin_tree(infer_links *l, const tr_trace *t, int32_t root)
{
	size_t n = t->nspans;

	GROW(l->zparent, l->capzparent, n);
	GROW(l->zkids, l->capzkids, n);
	memset(l->zkids, 0, n * sizeof *l->zkids);
	index_kept(l, t);
	for (size_t i = 0; i < n; i++) {
		int32_t p = zipkin_parent(l, t, (int32_t)i, root);

		l->zparent[i] = p >= 0 && l->tags[p].hidden ? kept_twin(l, t, p) : p;
		if (l->zparent[i] >= 0 && !l->tags[i].hidden)
			l->zkids[l->zparent[i]]++;
	}
}

/* The span whose parent id Zipkin reads as span i's: a shared span's server
 * half has its client half's. tr-ingest keeps no other parent id a server
 * half was written with; Zipkin's merge fills in the client's when it has
 * none. */
static const tr_span *
parent_id_of(const infer_links *l, const tr_trace *t, int32_t i)
{
	const tr_span *s = &t->spans[i];

	return s->parent >= 0 && is_shared_server_half(l, t, i) ? &t->spans[s->parent] : s;
}

static int32_t
first_remote_ancestor(const infer_links *l, const tr_trace *t, int32_t i)
{
	/* Marks can make a cycle: at most nspans steps. */
	size_t steps = 0;

	for (int32_t p = l->zparent[i]; p >= 0 && steps < t->nspans; p = l->zparent[p], steps++)
		if (is_remote_kind(t->spans[p].kind))
			return p;
	return -1;
}

static void
link_span(infer_links *l, const tr_trace *t, int32_t i, int32_t root)
{
	const tr_span *s = &t->spans[i];
	int kind = s->kind;
	const char *svc = nonempty(s->service);
	const span_tags *g = &l->tags[i];
	const char *remote = nonempty(g->peer);
	const char *parent, *child;

	/* OpenTelemetry names the broker of a messaging span messaging.system. */
	if (!remote && (kind == TR_KIND_PRODUCER || kind == TR_KIND_CONSUMER))
		remote = nonempty(g->broker);

	if (g->hidden)
		return;
	if (kind == TR_KIND_CLIENT && l->zkids[i])
		return;		/* the server below names the link */
	if (!is_remote_kind(kind)) {
		if (!svc || !remote)
			return;
		kind = TR_KIND_CLIENT;
	}
	if (kind == TR_KIND_SERVER || kind == TR_KIND_CONSUMER) {
		child = svc;
		parent = remote;
		if (i == root && !parent)
			return;	/* the root's caller is unknown */
	} else {
		parent = svc;
		child = remote;
	}
	int error = g->error != NULL;
	if (kind == TR_KIND_PRODUCER || kind == TR_KIND_CONSUMER) {
		if (parent && child)
			add_link(l, parent, child, error);
		return;
	}
	int32_t ra = first_remote_ancestor(l, t, i);
	const char *ran = ra >= 0 ? nonempty(t->spans[ra].service) : NULL;
	if (ran) {
		/* A client span named with its remote service only: backfill the
		 * hop from the nearest remote ancestor to the client's service. */
		if (kind == TR_KIND_CLIENT && svc && strcmp(ran, svc) != 0)
			add_link(l, ran, svc, 0);
		if (kind == TR_KIND_SERVER || !parent)
			parent = ran;
		const tr_span *a = &t->spans[ra];
		if (!error && a->kind == TR_KIND_CLIENT && names_as_parent(parent_id_of(l, t, i), a))
			error = l->tags[ra].error != NULL;
	}
	if (parent && child)
		add_link(l, parent, child, error);
}

static void
add_zipkin_links(infer_links *l, const tr_trace *t)
{
	int32_t root = -1;

	for (size_t r = 0; r < t->nroots && root < 0; r++)
		if (!*t->spans[t->roots[r]].parent_id)
			root = t->roots[r];
	zipkin_tree(l, t, root);
	for (size_t i = 0; i < t->nspans; i++)
		link_span(l, t, (int32_t)i, root);
}

/* Jaeger: parent service -> child service where the two differ. */
static void
add_jaeger_links(infer_links *l, const tr_trace *t)
{
	for (size_t i = 0; i < t->nspans; i++) {
		const tr_span *s = &t->spans[i];
		if (s->parent < 0 || !*s->service || !*t->spans[s->parent].service ||
		    strcmp(s->service, t->spans[s->parent].service) == 0)
			continue;
		const char *p = t->spans[s->parent].service;
		infer_links_put(l, INFER_LINKS_JAEGER, p, strlen(p), s->service, strlen(s->service), 1,
				tr_span_error(t, (int32_t)i, NULL));
	}
}

void
infer_links_add_trace(infer_links *l, const tr_trace *t)
{
	uint64_t kinds = 0;

	GROW(l->tags, l->captags, t->nspans);
	for (size_t i = 0; i < t->nspans; i++) {
		scan_tags(&t->spans[i], &l->tags[i]);
		kinds += t->spans[i].kind != TR_KIND_NONE || l->tags[i].peer;
	}
	infer_links_add_kinds(l, t->nspans, kinds);
	if (l->rule != INFER_LINKS_JAEGER)
		add_zipkin_links(l, t);
	if (l->rule != INFER_LINKS_ZIPKIN)
		add_jaeger_links(l, t);
}

static int
link_cmp(const void *x, const void *y)
{
	const link_rec *a = x, *b = y;
	name_rec ap = { a->parent, a->plen, 0 }, bp = { b->parent, b->plen, 0 };
	name_rec ac = { a->child, a->clen, 0 }, bc = { b->child, b->clen, 0 };
	int c = infer_event_cmp(&ap, 0, &bp, 0);

	return c ? c : infer_event_cmp(&ac, 0, &bc, 0);
}

/* Sort the links by (parent, child), keeping the index in step. */
static void
sort_links(link_table *l)
{
	if (!l->nlinks)
		return;
	qsort(l->link, l->nlinks, sizeof *l->link, link_cmp);
	for (size_t i = 0; i < l->nlinks; i++) {
		const link_rec *k = &l->link[i];

		strmap_get(&l->index, k->parent, k->plen + 1 + k->clen)->val = (int64_t)i;
	}
}

static void
add_field(strbuf *b, const char *s, size_t n, int format)
{
	if (format == INFER_CSV)
		table_csv_field(b, s, n);
	else
		tr_escape(b, s, n, 0);
}

/* A link as Zipkin's dependency object (json) or Jaeger's (jaeger-json:
 * no error count). */
static json_t *
link_json(const link_rec *k, int format)
{
	json_t *j = json_object();

	tr_json_set(j, "parent", tr_json_text(k->parent, k->plen));
	tr_json_set(j, "child", tr_json_text(k->child, k->clen));
	tr_json_set(j, "callCount", json_integer((json_int_t)k->calls));
	if (format == INFER_JSON)
		tr_json_set(j, "errorCount", json_integer((json_int_t)k->errors));
	return j;
}

static void
write_dot(const link_table *l, strbuf *b)
{
	char label[64];

	dot_begin(b, "service dependencies", "LR");
	for (size_t i = 0; i < l->nlinks; i++) {
		const link_rec *k = &l->link[i];

		if (k->errors)
			snprintf(label, sizeof label, "%llu (%llu errors)",
				 (unsigned long long)k->calls, (unsigned long long)k->errors);
		else
			snprintf(label, sizeof label, "%llu", (unsigned long long)k->calls);
		dot_edge(b, k->parent, k->child, label, k->errors ? "color=red" : NULL);
	}
	dot_end(b);
}

void
infer_links_write(infer_links *links, int format, tr_output *out)
{
	link_table *l = &links->table[infer_links_rule(links)];
	strbuf b = {0};

	sort_links(l);
	if (format == INFER_DOT) {
		write_dot(l, &b);
	} else if (format == INFER_JSON || format == INFER_JAEGER_JSON) {
		/* json: Zipkin's /api/v2/dependencies; jaeger-json: Jaeger's /api/dependencies data. */
		sb_addc(&b, '[');
		for (size_t i = 0; i < l->nlinks; i++) {
			const link_rec *k = &l->link[i];

			sb_adds(&b, i ? ",\n" : "\n");
			tr_json_put(&b, link_json(k, format), JSON_COMPACT);
		}
		sb_adds(&b, l->nlinks ? "\n]\n" : "]\n");
	} else {
		char sep = format == INFER_CSV ? ',' : '\t';

		sb_addf(&b, "parent%cchild%ccalls%cerrors\n", sep, sep, sep);
		for (size_t i = 0; i < l->nlinks; i++) {
			const link_rec *k = &l->link[i];

			add_field(&b, k->parent, k->plen, format);
			sb_addc(&b, sep);
			add_field(&b, k->child, k->clen, format);
			sb_addf(&b, "%c%llu%c%llu\n", sep, (unsigned long long)k->calls,
				sep, (unsigned long long)k->errors);
		}
	}
	tr_output_sb(out, &b);
	sb_free(&b);
}

size_t
infer_links_sort(infer_links *links)
{
	link_table *l = &links->table[infer_links_rule(links)];

	sort_links(l);
	return l->nlinks;
}

infer_link
infer_links_at(const infer_links *links, size_t i)
{
	const link_rec *k = &links->table[infer_links_rule(links)].link[i];

	return (infer_link){k->parent, k->child, k->calls, k->errors};
}

static void
write_partial_link(strbuf *b, int rule, const link_rec *k)
{
	sb_adds(b, rule == INFER_LINKS_JAEGER ? "IJ\t\t" : "IL\t\t");
	tr_escape(b, k->parent, k->plen, 0);
	sb_addc(b, '\t');
	tr_escape(b, k->child, k->clen, 0);
	sb_addf(b, "\t%llu\t%llu\n", (unsigned long long)k->calls, (unsigned long long)k->errors);
}

void
infer_links_write_partial(infer_links *links, strbuf *b)
{
	sb_addf(b, "IK\t\tspans=%llu\tkinds=%llu\n", (unsigned long long)links->spans,
		(unsigned long long)links->kinds);
	for (int r = 0; r < 2; r++) {
		link_table *l = &links->table[r];

		sort_links(l);
		for (size_t i = 0; i < l->nlinks; i++)
			write_partial_link(b, r, &l->link[i]);
	}
}
