/* format.h - the tr line format (man tr-format(5)): escaping and fields. */
#ifndef TR_FORMAT_H
#define TR_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "util.h"

#define TR_FORMAT_HEADER "#tr/1"
#define TR_FORMAT_VERSION 1

/* Number of positional fields of an S record, the type included. */
#define TR_SPAN_FIELDS 10

typedef struct tr_field {
	const char *s;	/* escaped text, not NUL-terminated */
	size_t len;
} tr_field;

/* The first c in [p, end), or NULL: memchr for the short fields of a record
 * (most under 16 bytes), where a call to memchr costs more than the search. */
static inline const char *
tr_find(const char *p, const char *end, char c)
{
#ifdef __SSE2__
	const __m128i want = _mm_set1_epi8(c);

	for (; end - p >= 16; p += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, want));

		if (m)
			return p + __builtin_ctz(m);
	}
	for (; p < end; p++)
		if (*p == c)
			return p;
	return NULL;
#else
	return memchr(p, c, (size_t)(end - p));
#endif
}

/* Split a line at TABs into at most max fields; returns the number of fields
 * the line has (may exceed max: the extra ones are not stored). */
size_t tr_split(const char *line, size_t len, tr_field *f, size_t max);

/* Append s[0..n) escaped: TAB, LF, CR and % always; = too when is_key. */
void tr_escape(strbuf *b, const char *s, size_t n, int is_key);
void tr_escapes(strbuf *b, const char *s, int is_key);
/* Unescape into dst (room for n+1 bytes); returns the length written. */
size_t tr_unescape(char *dst, const char *s, size_t n);
/* True when the text needs no unescaping (the common case: no '%'). */
static inline int tr_plain(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] == '%')
			return 0;
	return 1;
}

/* Append "\tkey=value" with both parts escaped. */
void tr_add_tag(strbuf *b, const char *key, const char *val);
void tr_add_tag_i64(strbuf *b, const char *key, int64_t val);

/* Span kinds, in the order of the kind column's names. */
enum tr_kind {
	TR_KIND_NONE, TR_KIND_SERVER, TR_KIND_CLIENT, TR_KIND_PRODUCER,
	TR_KIND_CONSUMER, TR_KIND_INTERNAL
};
const char *tr_kind_name(int kind);	/* "" for TR_KIND_NONE */
int tr_kind_parse(const char *s, size_t n);	/* -1 when unknown */

#endif
