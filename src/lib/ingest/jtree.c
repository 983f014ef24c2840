/* jtree.c - a JSON value tree in an arena, built from yajl's events. */
#include "jtree.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "core/json.h"

struct jtree_parser {
	yajl_handle h;
	arena *mem;
	char *cur, *end;	/* the piece of mem that nodes and strings are cut from */
	const char *text;	/* the element's bytes, p[0,n) of jtree_parse */
	size_t textlen;
	jtree **open;		/* containers not yet closed, innermost last */
	jtree **last;		/* the last element of each */
	size_t depth, cap;
	jtree *root;
	const char *key;	/* the member name read, for the next value */
	uint32_t keylen;
	const char *err;	/* a message of ours that stopped the parse */
	size_t base;		/* offset in the element of the chunk given to yajl */
	size_t errpos;		/* where the value we refused starts */
};

/* Refuse the value whose text of n bytes ends where yajl is now. */
static int
refuse(jtree_parser *jp, const char *msg, size_t n)
{
	size_t end = jp->base + yajl_get_bytes_consumed(jp->h);

	jp->err = msg;
	jp->errpos = end >= n ? end - n : 0;
	return 0;
}

/* n bytes for a node or a string: a bump in a piece taken from the arena
 * (arena_alloc is a call; this is the hot path of every value). */
static inline void *
take(jtree_parser *jp, size_t n)
{
	n = (n + 7) & ~(size_t)7;
	if ((size_t)(jp->end - jp->cur) < n) {
		size_t piece = n > 4096 ? n : 16384;

		jp->cur = arena_alloc(jp->mem, piece);
		jp->end = jp->cur + piece;
	}
	void *p = jp->cur;

	jp->cur += n;
	return p;
}

static const char *
copy(jtree_parser *jp, const char *s, size_t n)
{
	char *d = take(jp, n + 1);

	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

/* A new node, linked as the next element of the open container. */
static jtree *
node(jtree_parser *jp, jtree_type t)
{
	jtree *v = take(jp, sizeof *v);

	v->next = NULL;
	v->type = (uint8_t)t;
	v->len = 0;
	v->key = NULL;
	v->keylen = 0;
	if (!jp->depth) {
		jp->root = v;
		return v;
	}
	jtree *c = jp->open[jp->depth - 1];

	if (c->type == JTREE_OBJECT) {
		v->key = jp->key;
		v->keylen = jp->keylen;
	}
	if (jp->last[jp->depth - 1])
		jp->last[jp->depth - 1]->next = v;
	else
		c->u.first = v;
	jp->last[jp->depth - 1] = v;
	if (c->len == UINT32_MAX) {
		refuse(jp, "more than 4294967295 elements in an array or object", 0);
		return NULL;
	}
	c->len++;
	return v;
}

static int
on_null(void *ctx)
{
	return node(ctx, JTREE_NULL) != NULL;
}

static int
on_bool(void *ctx, int b)
{
	return node(ctx, b ? JTREE_TRUE : JTREE_FALSE) != NULL;
}

/* Numbers come as text: an integer that fits int64 is JTREE_INT, one that does
 * not is an error (as it would be for jansson), anything else a finite real. */
static int
on_number(void *ctx, const char *s, size_t n)
{
	jtree_parser *jp = ctx;
	int real = 0;
	char buf[64];

	for (size_t i = 0; i < n; i++)
		if (s[i] == '.' || s[i] == 'e' || s[i] == 'E')
			real = 1;
	jtree *v = node(jp, real ? JTREE_REAL : JTREE_INT);

	if (!v)
		return 0;
	if (!real) {
		if (parse_i64(s, n, &v->u.i) < 0)
			return refuse(jp, "too big integer", n);
		return 1;
	}
	char *text = n < sizeof buf ? buf : take(jp, n + 1);

	memcpy(text, s, n);
	text[n] = '\0';
	errno = 0;
	v->u.r = strtod(text, NULL);
	if (errno == ERANGE && (v->u.r > 1 || v->u.r < -1))
		return refuse(jp, "real number overflow", n);
	return 1;
}

static int
inside_text(const jtree_parser *jp, const unsigned char *s)
{
	const char *c = (const char *)s;

	return c >= jp->text && c < jp->text + jp->textlen;
}

static int
on_string(void *ctx, const unsigned char *s, size_t n)
{
	jtree_parser *jp = ctx;

	if (n > UINT32_MAX)
		return refuse(jp, "string longer than 4294967295 bytes", 0);
	/* Only an escape makes a NUL (yajl refuses raw control bytes), and a
	 * string with escapes is not a pointer into the text. */
	if (!inside_text(jp, s) && memchr(s, '\0', n))
		return refuse(jp, "\\u0000 is not allowed in a string", 0);
	jtree *v = node(jp, JTREE_STRING);

	if (!v)
		return 0;
	v->u.s = copy(jp, (const char *)s, n);
	v->len = (uint32_t)n;
	return 1;
}

static int
on_key(void *ctx, const unsigned char *s, size_t n)
{
	jtree_parser *jp = ctx;

	if (n > UINT32_MAX || (!inside_text(jp, s) && memchr(s, '\0', n)))
		return refuse(jp, n > UINT32_MAX ? "key longer than 4294967295 bytes"
						 : "\\u0000 is not allowed in a key", 0);
	jp->key = copy(jp, (const char *)s, n);
	jp->keylen = (uint32_t)n;
	return 1;
}

static int
open_container(jtree_parser *jp, jtree_type t)
{
	jtree *v = node(jp, t);

	if (!v)
		return 0;
	v->u.first = NULL;
	if (jp->depth == jp->cap) {
		size_t cap = jp->cap;

		GROW(jp->open, jp->cap, jp->depth + 1);
		GROW(jp->last, cap, jp->depth + 1);
	}
	jp->open[jp->depth] = v;
	jp->last[jp->depth++] = NULL;
	return 1;
}

static int
on_start_map(void *ctx)
{
	return open_container(ctx, JTREE_OBJECT);
}

static int
on_start_array(void *ctx)
{
	return open_container(ctx, JTREE_ARRAY);
}

static int
on_end(void *ctx)
{
	((jtree_parser *)ctx)->depth--;
	return 1;
}

static const yajl_callbacks callbacks = {
	on_null, on_bool, NULL, NULL, on_number, on_string,
	on_start_map, on_key, on_end, on_start_array, on_end
};

static yajl_handle
handle_new(jtree_parser *jp)
{
	yajl_handle h = yajl_alloc(&callbacks, NULL, jp);

	if (!h)
		tr_die(TR_EXIT_SYSTEM, "out of memory");
	/* One handle reads element after element; each is checked whole. */
	yajl_config(h, yajl_allow_multiple_values, 1);
	return h;
}

jtree_parser *
jtree_parser_new(void)
{
	jtree_parser *jp = xcalloc(1, sizeof *jp);

	jp->h = handle_new(jp);
	return jp;
}

void
jtree_parser_free(jtree_parser *jp)
{
	if (!jp)
		return;
	yajl_free(jp->h);
	free(jp->open);
	free(jp->last);
	free(jp);
}

/* yajl's short message is "parse error: what" or "lexical error: what";
 * keep the what, on one line, and the text where it was found. */
static const char *
yajl_message(jtree_parser *jp, const char *p, size_t n, size_t pos, arena *mem)
{
	unsigned char *m = yajl_get_error(jp->h, 0, (const unsigned char *)p, n);
	const char *s = (const char *)m, *colon = strstr(s, ": ");
	size_t len, tok = 0;
	strbuf b = {0};

	if (colon)
		s = colon + 2;
	len = strcspn(s, "\n");
	while (len && (s[len - 1] == '.' || s[len - 1] == ' '))
		len--;
	sb_add(&b, s, len);
	/* Name the token, when it is plain text. */
	while (pos + tok < n && tok < 20 && (unsigned char)p[pos + tok] > ' ' && (unsigned char)p[pos + tok] < 0x7f &&
	       p[pos + tok] != '\'' && !strchr(",:{}[]", p[pos + tok]))
		tok++;
	if (pos + tok < n && tok && (unsigned char)p[pos + tok] >= 0x7f)
		tok = 0;
	if (tok) {
		sb_adds(&b, " near '");
		sb_add(&b, p + pos, tok);
		sb_addc(&b, '\'');
	}
	const char *out = arena_strndup(mem, b.s, b.len);

	sb_free(&b);
	yajl_free_error(jp->h, m);
	return out;
}

jtree *
jtree_parse(jtree_parser *jp, const char *p, size_t n, arena *mem, const char **err, size_t *errpos)
{
	yajl_status st;

	jp->mem = mem;
	jp->cur = jp->end = NULL;
	jp->text = p;
	jp->textlen = n;
	jp->root = NULL;
	jp->depth = 0;
	jp->err = NULL;
	jp->base = 0;
	st = yajl_parse(jp->h, (const unsigned char *)p, n);
	if (st == yajl_status_ok) {
		/* A space ends a number at the very end; complete_parse would
		 * close the handle for good. */
		jp->base = n;
		st = yajl_parse(jp->h, (const unsigned char *)" ", 1);
		if (st == yajl_status_ok && (jp->depth || !jp->root)) {
			*err = "unexpected end of input inside a JSON value";
			*errpos = n;
			goto fail;
		}
		if (st == yajl_status_ok)
			return jp->root;
	}
	if (jp->err) {
		*err = jp->err;
		*errpos = jp->errpos;
	} else {
		/* yajl stops just past the byte it could not take. */
		*errpos = jp->base + yajl_get_bytes_consumed(jp->h);
		if (*errpos)
			--*errpos;
		while (*errpos < n && strchr(" \t\r\n", p[*errpos]))
			++*errpos;	/* point at the token, not the space before it */
		*err = yajl_message(jp, p, n, *errpos, mem);
	}
	if (*errpos > n)
		*errpos = n;
fail:
	/* After an error the handle cannot go on: start a new one. */
	yajl_free(jp->h);
	jp->h = handle_new(jp);
	return NULL;
}

const jtree *
jtree_getn(const jtree *o, const char *key, size_t n)
{
	const jtree *found = NULL;

	if (!o || o->type != JTREE_OBJECT)
		return NULL;
	for (const jtree *c = o->u.first; c; c = c->next)
		if (c->keylen == n && c->key[0] == key[0] && memcmp(c->key, key, n) == 0)
			found = c;
	return found;
}

void
jtree_dump_string(strbuf *b, const char *s, size_t n)
{
	tr_json_string(b, s, n);
}

/* A scalar of the tree as a jansson value. yajl refuses a number out of a
 * double's range, so a real is finite here. */
static json_t *
scalar_json(const jtree *v)
{
	switch (v->type) {
	case JTREE_NULL: return json_null();
	case JTREE_FALSE: return json_false();
	case JTREE_TRUE: return json_true();
	case JTREE_INT: return json_integer(v->u.i);
	case JTREE_REAL: return json_real(v->u.r);
	default: return tr_json_text(v->u.s, v->len);
	}
}

/* Puts x in the container c: under x's name in an object (a repeated name
 * keeps its first place and its last value, as jansson does). */
static void
add_member(json_t *c, const jtree *v, json_t *x)
{
	if (!x || (json_is_array(c) ? json_array_append_new(c, x)
				   : json_object_setn_new_nocheck(c, v->key, v->keylen, x)) < 0)
		tr_die(TR_EXIT_SYSTEM, "out of memory");
}

void
jtree_dump(strbuf *b, const jtree *v)
{
	/* The tree rebuilt as jansson's, then dumped: an explicit stack of the
	 * containers being filled, as values nest as deep as the input does. */
	const jtree **stack = NULL;
	json_t **built = NULL, *root = NULL;
	size_t depth = 0, cap = 0, bcap = 0;

	for (;;) {
		int box = v->type == JTREE_ARRAY || v->type == JTREE_OBJECT;
		json_t *x = box ? (v->type == JTREE_ARRAY ? json_array() : json_object()) : scalar_json(v);

		if (depth)
			add_member(built[depth - 1], v, x);
		else
			root = x;
		if (box && v->u.first) {
			GROW(stack, cap, depth + 1);
			GROW(built, bcap, depth + 1);
			stack[depth] = v;
			built[depth++] = x;
			v = v->u.first;
			continue;
		}
		/* Leave every container whose last element this was. */
		while (depth && !v->next)
			v = stack[--depth];
		if (!depth)
			break;
		v = v->next;
	}
	free(stack);
	free(built);
	tr_json_put(b, root, JSON_COMPACT);
}
