/* jtree.h - a JSON value tree in an arena, built by libyajl's event parser.
 *
 * tr-ingest reads one element of an export at a time (a Jaeger trace, a
 * Zipkin span, an OTLP resource): yajl lexes it and these nodes hold it until
 * the converter is done, then the arena is reset. No node is freed alone, no
 * hash table is built: objects are short, looked up by a linear scan. */
#ifndef TR_JTREE_H
#define TR_JTREE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/util.h"

typedef enum jtree_type {
	JTREE_NULL, JTREE_FALSE, JTREE_TRUE, JTREE_INT, JTREE_REAL, JTREE_STRING, JTREE_ARRAY, JTREE_OBJECT
} jtree_type;

typedef struct jtree jtree;
struct jtree {
	jtree *next;		/* the next element of its array or object */
	const char *key;	/* its name, when it is an object's member */
	union {
		const char *s;	/* JTREE_STRING, NUL-terminated (no NUL inside) */
		jtree *first;	/* JTREE_ARRAY, JTREE_OBJECT: the first element */
		int64_t i;
		double r;
	} u;
	uint32_t len;		/* string bytes; elements of an array or object */
	uint32_t keylen;
	uint8_t type;
};

/* A reusable parser: one yajl handle and the stack of open containers. */
typedef struct jtree_parser jtree_parser;

jtree_parser *jtree_parser_new(void);
void jtree_parser_free(jtree_parser *p);
/* Parse p[0,n), one JSON value, into nodes from mem. Returns the value, or
 * NULL with *err set to a one-line message and *errpos to the byte offset in
 * p where the problem was found. */
jtree *jtree_parse(jtree_parser *jp, const char *p, size_t n, arena *mem, const char **err, size_t *errpos);

/* The member key of object o (the last one, if the key repeats), or NULL. */
const jtree *jtree_getn(const jtree *o, const char *key, size_t n);
/* Inline so that a literal key's length is known when compiled. */
static inline const jtree *jtree_get(const jtree *o, const char *key) { return jtree_getn(o, key, strlen(key)); }

static inline int jtree_is_null(const jtree *v) { return v && v->type == JTREE_NULL; }
static inline int jtree_is_string(const jtree *v) { return v && v->type == JTREE_STRING; }
static inline int jtree_is_integer(const jtree *v) { return v && v->type == JTREE_INT; }
static inline int jtree_is_real(const jtree *v) { return v && v->type == JTREE_REAL; }
static inline int jtree_is_number(const jtree *v) { return v && (v->type == JTREE_INT || v->type == JTREE_REAL); }
static inline int jtree_is_bool(const jtree *v) { return v && (v->type == JTREE_TRUE || v->type == JTREE_FALSE); }
static inline int jtree_is_true(const jtree *v) { return v && v->type == JTREE_TRUE; }
static inline int jtree_is_array(const jtree *v) { return v && v->type == JTREE_ARRAY; }
static inline int jtree_is_object(const jtree *v) { return v && v->type == JTREE_OBJECT; }
/* The string's text, or NULL when v is not a string. */
static inline const char *jtree_str(const jtree *v) { return jtree_is_string(v) ? v->u.s : NULL; }
static inline size_t jtree_len(const jtree *v) { return v ? v->len : 0; }
static inline double jtree_number(const jtree *v) { return v->type == JTREE_INT ? (double)v->u.i : v->u.r; }
static inline int64_t jtree_int(const jtree *v) { return v->u.i; }
static inline double jtree_real(const jtree *v) { return v->u.r; }
/* The first element of an array or object, NULL for anything else. */
static inline const jtree *
jtree_first(const jtree *v)
{
	return v && (v->type == JTREE_ARRAY || v->type == JTREE_OBJECT) ? v->u.first : NULL;
}
/* Each element of array a in input order: i counts them, v is the element. */
#define jtree_array_foreach(a, i, v) for ((i) = 0, (v) = jtree_first(a); (v); (i)++, (v) = (v)->next)
/* Each member of object o in input order, with its name k. */
#define jtree_object_foreach(o, k, v) for ((v) = jtree_first(o); (v) && ((k) = (v)->key, 1); (v) = (v)->next)

/* Append v as compact JSON, written by jansson (JSON_COMPACT: members in
 * input order, reals as %.17g, non-ASCII as is). */
void jtree_dump(strbuf *b, const jtree *v);
/* Append s[0,n) as a JSON string, escaped by jansson. */
void jtree_dump_string(strbuf *b, const char *s, size_t n);

#endif
