/* format.h - the tr line format (man tr-format(5)): escaping and fields. */
#ifndef TR_FORMAT_H
#define TR_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "core/util.h"

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

/* The places of one byte in a line, in order, found 16 bytes at a time: a
 * record's TABs at the cost of a few instructions each. */
typedef struct tr_scan {
	const char *blk, *end;	/* the block the mask is of, the line's end */
	unsigned mask;		/* bytes of blk equal to c, not yet handed out */
	char c;
} tr_scan;

static inline unsigned
tr_scan_block(const tr_scan *sc)
{
	unsigned m = 0;

#ifdef __SSE2__
	if (sc->end - sc->blk >= 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)sc->blk);

		return (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8(sc->c)));
	}
#endif
	for (int i = 0; i < 16 && sc->blk + i < sc->end; i++)
		m |= (unsigned)(sc->blk[i] == sc->c) << i;
	return m;
}

static inline void
tr_scan_init(tr_scan *sc, const char *s, const char *end, char c)
{
	sc->blk = s;
	sc->end = end;
	sc->c = c;
	sc->mask = tr_scan_block(sc);
}

/* The next c, or NULL at the end. */
static inline const char *
tr_scan_next(tr_scan *sc)
{
	while (!sc->mask) {
		if (sc->end - sc->blk <= 16)
			return NULL;
		sc->blk += 16;
		sc->mask = tr_scan_block(sc);
	}
	const char *at = sc->blk + __builtin_ctz(sc->mask);

	sc->mask &= sc->mask - 1;
	return at;
}

/* Split a line at TABs into at most max fields; returns the number of fields
 * the line has (may exceed max: the extra ones are not stored). */
size_t tr_split(const char *line, size_t len, tr_field *f, size_t max);
/* A count of 0 to max filling f (decimal digits only, no sign): 0 and *v,
 * or -1 when f is not one. The partials' records carry their counts so. */
int tr_field_count(const tr_field *f, uint64_t max, uint64_t *v);

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
