/* jv.h - a JSON value tree in an arena, built by libyajl's event parser.
 *
 * tr-ingest reads one element of an export at a time (a Jaeger trace, a
 * Zipkin span, an OTLP resource): yajl lexes it and these nodes hold it until
 * the converter is done, then the arena is reset. No node is freed alone, no
 * hash table is built: objects are short, looked up by a linear scan. */
#ifndef TR_JV_H
#define TR_JV_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/util.h"

typedef enum jv_type {
	JV_NULL, JV_FALSE, JV_TRUE, JV_INT, JV_REAL, JV_STRING, JV_ARRAY, JV_OBJECT
} jv_type;

typedef struct jv jv;
struct jv {
	jv *next;		/* the next element of its array or object */
	const char *key;	/* its name, when it is an object's member */
	union {
		const char *s;	/* JV_STRING, NUL-terminated (no NUL inside) */
		jv *first;	/* JV_ARRAY, JV_OBJECT: the first element */
		int64_t i;
		double r;
	} u;
	uint32_t len;		/* string bytes; elements of an array or object */
	uint32_t keylen;
	uint8_t type;
};

/* A reusable parser: one yajl handle and the stack of open containers. */
typedef struct jv_parser jv_parser;

jv_parser *jv_parser_new(void);
void jv_parser_free(jv_parser *p);
/* Parse p[0,n), one JSON value, into nodes from mem. Returns the value, or
 * NULL with *err set to a one-line message and *errpos to the byte offset in
 * p where the problem was found. */
jv *jv_parse(jv_parser *jp, const char *p, size_t n, arena *mem, const char **err, size_t *errpos);

/* The member key of object o (the last one, if the key repeats), or NULL. */
const jv *jv_getn(const jv *o, const char *key, size_t n);
/* Inline so that a literal key's length is known when compiled. */
static inline const jv *jv_get(const jv *o, const char *key) { return jv_getn(o, key, strlen(key)); }

static inline int jv_is_null(const jv *v) { return v && v->type == JV_NULL; }
static inline int jv_is_string(const jv *v) { return v && v->type == JV_STRING; }
static inline int jv_is_integer(const jv *v) { return v && v->type == JV_INT; }
static inline int jv_is_real(const jv *v) { return v && v->type == JV_REAL; }
static inline int jv_is_number(const jv *v) { return v && (v->type == JV_INT || v->type == JV_REAL); }
static inline int jv_is_bool(const jv *v) { return v && (v->type == JV_TRUE || v->type == JV_FALSE); }
static inline int jv_is_true(const jv *v) { return v && v->type == JV_TRUE; }
static inline int jv_is_array(const jv *v) { return v && v->type == JV_ARRAY; }
static inline int jv_is_object(const jv *v) { return v && v->type == JV_OBJECT; }
/* The string's text, or NULL when v is not a string. */
static inline const char *jv_str(const jv *v) { return jv_is_string(v) ? v->u.s : NULL; }
static inline size_t jv_len(const jv *v) { return v ? v->len : 0; }
static inline double jv_number(const jv *v) { return v->type == JV_INT ? (double)v->u.i : v->u.r; }
static inline int64_t jv_int(const jv *v) { return v->u.i; }
static inline double jv_real(const jv *v) { return v->u.r; }
/* The first element of an array or object, NULL for anything else. */
static inline const jv *
jv_first(const jv *v)
{
	return v && (v->type == JV_ARRAY || v->type == JV_OBJECT) ? v->u.first : NULL;
}
/* Each element of array a in input order: i counts them, v is the element. */
#define jv_array_foreach(a, i, v) for ((i) = 0, (v) = jv_first(a); (v); (i)++, (v) = (v)->next)
/* Each member of object o in input order, with its name k. */
#define jv_object_foreach(o, k, v) for ((v) = jv_first(o); (v) && ((k) = (v)->key, 1); (v) = (v)->next)

/* Append v as compact JSON, written by jansson (JSON_COMPACT: members in
 * input order, reals as %.17g, non-ASCII as is). */
void jv_dump(strbuf *b, const jv *v);
/* Append s[0,n) as a JSON string, escaped by jansson. */
void jv_dump_string(strbuf *b, const char *s, size_t n);

#endif
