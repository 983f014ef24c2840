/* util.h - error reporting, checked allocation, growable buffers, arenas. */
#ifndef TR_UTIL_H
#define TR_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Exit statuses shared by every tool (see tr.7). */
enum {
	TR_EXIT_OK = 0,
	TR_EXIT_FINDING = 1, /* a finding, a failed gate */
	TR_EXIT_USAGE = 2,   /* bad options or query syntax */
	TR_EXIT_INPUT = 3,   /* bad input (after every good trace was written) */
	TR_EXIT_SYSTEM = 4   /* I/O error, out of memory */
};

extern const char *tr_progname;	/* set once by main; an option flag in spirit */

void tr_setprogname(const char *argv0);
_Noreturn void tr_die(int status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void tr_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The inputs named for a message: first, or "first and N more inputs";
 * in buf. For the one line every tool writes when a run read nothing. */
const char *tr_inputs_name(char *buf, size_t size, const char *first, int ninputs);
/* This thread's messages are appended to b instead (NULL: stderr again). */
typedef struct strbuf strbuf;
void tr_warn_to(strbuf *b);
/* On this thread, tr_die says its message where tr_warn_to sends messages
 * and calls fn(status, arg) instead of exiting; fn must not return (a
 * worker thread hands its end to the thread that says messages in input
 * order). NULL: tr_die exits. */
void tr_die_to(void (*fn)(int status, void *arg), void *arg);

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* Grow *p (holding *cap elements of size sz) to hold at least need. */
void grow_array(void **p, size_t *cap, size_t need, size_t sz);
/* The capacity test inline: most calls (a push per record) need no growth. */
#define GROW(p, cap, need)                                                      \
	do {                                                                    \
		if ((size_t)(need) > (cap) || !(p))                             \
			grow_array((void **)&(p), &(cap), (need), sizeof *(p)); \
	} while (0)

/* A growable byte string, always NUL-terminated. */
typedef struct strbuf {
	char *s;
	size_t len, cap;
} strbuf;

/* Room for extra more bytes and the NUL: the test inline, as writers
 * reserve for every record. */
static inline void
sb_reserve(strbuf *b, size_t extra)
{
	GROW(b->s, b->cap, b->len + extra + 1);
}
void sb_add(strbuf *b, const void *p, size_t n);
/* One character: inline, as writers add separators between every field. */
static inline void
sb_addc(strbuf *b, char c)
{
	if (b->len + 2 > b->cap)
		sb_reserve(b, 1);
	b->s[b->len++] = c;
	b->s[b->len] = '\0';
}
void sb_adds(strbuf *b, const char *s);
/* b becomes the two-part key "first\0second" (NUL-terminated, b->len not
 * counting that last NUL), as group maps key (service, operation): returns
 * where second starts, strlen(first) + 1. */
size_t sb_set_pair(strbuf *b, const char *first, const char *second);

/* a + b, held at INT64_MAX or INT64_MIN instead of overflowing */
static inline int64_t
i64_add_sat(int64_t a, int64_t b)
{
	int64_t r;

	return __builtin_add_overflow(a, b, &r) ? (b > 0 ? INT64_MAX : INT64_MIN) : r;
}
void sb_addf(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_addi(strbuf *b, int64_t v);
void sb_addu(strbuf *b, uint64_t v);
/* The decimal digits of v at p; returns their end. It needs room for 20
 * bytes: it may write past the end, up to there. */
char *tr_put_u64(char *p, uint64_t v);
/* The 8 digits of x < 10^8 at p, zeros leading; returns their end. */
char *tr_put_digits8(char *p, uint32_t x);
void sb_clear(strbuf *b);
void sb_free(strbuf *b);

/* A bump allocator that frees everything at once; chunks are kept on reset. */
typedef struct arena_chunk arena_chunk;
typedef struct arena {
	arena_chunk *head;   /* current chunk */
	arena_chunk *spare;  /* chunks kept from earlier resets */
	size_t used;         /* bytes handed out since the last reset */
} arena;

void *arena_alloc(arena *a, size_t n);
char *arena_strndup(arena *a, const char *s, size_t n);
void arena_reset(arena *a);
void arena_free(arena *a);

/* qsort's comparison of int64_t values, ascending. */
int cmp_i64(const void *a, const void *b);
/* The value of 8 digit bytes (0x30..0x39, the first in the lowest byte),
 * in three multiplications instead of eight: pairs, fours, eights. */
static inline uint64_t
tr_digits8_value(uint64_t w)
{
	w &= 0x0f0f0f0f0f0f0f0fULL;
	w = (w * 10 + (w >> 8)) & 0x00ff00ff00ff00ffULL;
	w = (w * 100 + (w >> 16)) & 0x0000ffff0000ffffULL;
	return (w * 10000 + (w >> 32)) & 0xffffffffULL;
}

/* w with each byte nonzero exactly where w's is not a digit 0x30..0x39:
 * its high nibble is not 3, or its low one is over 9 (no carry crosses a
 * byte: a low nibble plus 6 stays under 0x20). */
static inline uint64_t
tr_nondigit_bytes(uint64_t w)
{
	return ((w & 0xf0f0f0f0f0f0f0f0ULL) ^ 0x3030303030303030ULL) |
	       (((w & 0x0f0f0f0f0f0f0f0fULL) + 0x0606060606060606ULL) & 0xf0f0f0f0f0f0f0f0ULL);
}

/* Scan the decimal digits from p (not past end) into *v; returns their
 * end (p: none). *v wraps past 19 digits, so a caller refuses numbers that
 * long by their length. A byte at a time: most numbers are short. */
static inline __attribute__((always_inline)) const char *
tr_scan_digits(const char *p, const char *end, uint64_t *v)
{
	uint64_t x = 0;
	unsigned d;

	while (p < end && (d = (unsigned)(unsigned char)*p - '0') <= 9) {
		x = x * 10 + d;
		p++;
	}
	*v = x;
	return p;
}

/* tr_scan_digits for a number of likely 3 to 7 digits (a vertex number):
 * its digits found and read in one word, when fewer than 8. */
static inline __attribute__((always_inline)) const char *
tr_scan_id_digits(const char *p, const char *end, uint64_t *v)
{
	uint64_t w, other;

	if (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && end - p >= 8) {
		memcpy(&w, p, 8);
		other = tr_nondigit_bytes(w);
		if (other) {
			unsigned n = (unsigned)__builtin_ctzll(other) >> 3;

			/* the n digits to the top of the word, zeros (digits 0) below */
			*v = n ? tr_digits8_value(w << (8 * (8 - n))) : 0;
			return p + n;
		}
	}
	return tr_scan_digits(p, end, v);
}

/* tr_scan_digits for a number that is likely a time in µs since 1970:
 * exactly 16 digits are read as two words of 8, three steps instead of
 * sixteen; anything else a byte at a time. */
static inline __attribute__((always_inline)) const char *
tr_scan_time_digits(const char *p, const char *end, uint64_t *v)
{
	uint64_t hi, lo;

	if (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && end - p >= 17 &&
	    (unsigned)(unsigned char)p[16] - '0' > 9) {
		memcpy(&hi, p, 8);
		memcpy(&lo, p + 8, 8);
		if (!(tr_nondigit_bytes(hi) | tr_nondigit_bytes(lo))) {
			*v = tr_digits8_value(hi) * 100000000 + tr_digits8_value(lo);
			return p + 16;
		}
	}
	return tr_scan_digits(p, end, v);
}

/* Parse a decimal int64 from [s, s+n); returns 0 on success. */
int parse_i64(const char *s, size_t n, int64_t *out);
/* A duration "50ms", "1.5s", "200us" (also µs, m, h; no unit: µs) in
 * whole µs; returns -1 unless s is exactly that and not negative. */
int parse_duration(const char *s, int64_t *us);
/* Of the n names, the one closest to name by edit distance, or NULL when
 * none is within a third of name's length (at least 2): for "did you mean". */
const char *closest_name(const char *name, const char *const *names, size_t n);
/* The same within limit edits. */
const char *closest_name_within(const char *name, const char *const *names, size_t n, size_t limit);
/* a + b for a sum of durations (µs): a sum past 2^63 µs (292,000 years:
 * absurd durations) is bad input, exit 3 naming what, never a wrapped,
 * negative number. */
int64_t tr_dur_add(int64_t a, int64_t b, const char *what);
/* Shortest "%.*g" text that reads back as the same double. */
void fmt_double(char *buf, size_t size, double v);
/* Decode base64 s[0,n), padded, in the standard or the URL-safe alphabet,
 * into out (room for n / 4 * 3 bytes); *outlen gets the byte count. Returns
 * -1 unless s is exactly the encoding of those bytes: a length not a multiple
 * of 4, a character outside the alphabet, '=' before the end, or bits set
 * that no byte uses. */
int b64_decode(const char *s, size_t n, unsigned char *out, size_t *outlen);

uint64_t hash_bytes(const void *p, size_t n);

/* The length (1 to 4) of the well-formed UTF-8 character s[0,n) starts
 * with, or 0 when its first byte starts none (a stray byte, an overlong
 * form, a surrogate, beyond U+10FFFF, or cut by n). Writers of JSON and XML
 * put U+FFFD (UTF8_REPLACEMENT) in place of each such byte. */
size_t utf8_char_len(const char *s, size_t n);
#define UTF8_REPLACEMENT "\xef\xbf\xbd"

#endif
