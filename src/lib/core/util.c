/* util.c - error reporting, checked allocation, growable buffers, arenas. */
#include "core/util.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *tr_progname = "tr";

/* At exit: what went to stdout through stdio (--help, --version, reports
 * printed with printf) reached it, or the run fails (exit 4), as a write
 * error through tr_output does. */
static void
stdout_written(void)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return;
	if (errno != EPIPE)
		fprintf(stderr, "%s: standard output: write error: %s\n", tr_progname, strerror(errno));
	_exit(TR_EXIT_SYSTEM);
}

void
tr_setprogname(const char *argv0)
{
	const char *slash = strrchr(argv0, '/');
	tr_progname = slash ? slash + 1 : argv0;
	atexit(stdout_written);
}

/* Line buffer of vwarn: one write for a message of usual size, so that the
 * messages of the tools of one pipeline do not mix on the stderr they share.
 * Not a strbuf: growing one could fail and call tr_die, which calls vwarn. */
typedef struct msgline {
	char s[1024];
	size_t n;
} msgline;

/* A worker thread's messages go to its buffer, written in input order by the
 * main thread (tr-ingest -j over many files). */
static _Thread_local strbuf *warn_sink;

void
tr_warn_to(strbuf *b)
{
	warn_sink = b;
}

static _Thread_local void (*die_fn)(int status, void *arg);
static _Thread_local void *die_arg;

void
tr_die_to(void (*fn)(int status, void *arg), void *arg)
{
	die_fn = fn;
	die_arg = arg;
}

static void
msg_flush(msgline *m)
{
	if (warn_sink)
		sb_add(warn_sink, m->s, m->n);
	else
		fwrite(m->s, 1, m->n, stderr);
	m->n = 0;
}

static void
msg_put(msgline *m, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (m->n == sizeof m->s)
			msg_flush(m);
		m->s[m->n++] = s[i];
	}
}

/* "prog: what\n" on stderr. A message stays one line whatever the data in it
 * (a trace id, a span id or a file name may hold a newline): line breaks and
 * other control characters are written as %XX, as the line format does. */
static void
vwarn(const char *fmt, va_list ap)
{
	static const char hex[] = "0123456789ABCDEF";
	char small[512], *msg = small;
	msgline line = {.n = 0};
	va_list again;
	int n;

	va_copy(again, ap);
	n = vsnprintf(small, sizeof small, fmt, ap);
	if (n < 0)
		small[0] = '\0';
	else if (n >= (int)sizeof small) {
		msg = malloc((size_t)n + 1);
		if (msg)
			vsnprintf(msg, (size_t)n + 1, fmt, again);
		else
			msg = small;	/* out of memory: the message cut short */
	}
	va_end(again);
	msg_put(&line, tr_progname, strlen(tr_progname));
	msg_put(&line, ": ", 2);
	for (const unsigned char *p = (const unsigned char *)msg; *p; p++) {
		if ((*p < 0x20 && *p != '\t') || *p == 0x7f) {
			char esc[3] = {'%', hex[*p >> 4], hex[*p & 15]};
			msg_put(&line, esc, 3);
		} else
			msg_put(&line, (const char *)p, 1);
	}
	msg_put(&line, "\n", 1);
	msg_flush(&line);
	if (msg != small)
		free(msg);
}

void
tr_die(int status, const char *fmt, ...)
{
	va_list ap;

	if (die_fn) {	/* a worker's end, said in order by the thread it works for */
		void (*fn)(int, void *) = die_fn;

		die_fn = NULL;	/* saying it may fail too: then it exits */
		va_start(ap, fmt);
		vwarn(fmt, ap);
		va_end(ap);
		fn(status, die_arg);
	}
	fflush(stdout);
	warn_sink = NULL;	/* the last word is said on stderr, whichever thread */
	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
	exit(status);
}

void
tr_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		tr_die(TR_EXIT_SYSTEM, "out of memory (%zu bytes)", n);
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		tr_die(TR_EXIT_SYSTEM, "out of memory");
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		tr_die(TR_EXIT_SYSTEM, "out of memory (%zu bytes)", n);
	return p;
}

char *
xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}

void
grow_array(void **p, size_t *cap, size_t need, size_t sz)
{
	size_t c = *cap;

	/* Always allocate, even for 0: callers pass the array to memset/qsort. */
	if (need <= c && *p)
		return;
	if (c < 8)
		c = 8;
	while (c < need) {
		if (c > SIZE_MAX / 2 / sz)
			tr_die(TR_EXIT_SYSTEM, "out of memory");
		c *= 2;
	}
	*p = xrealloc(*p, c * sz);
	*cap = c;
}

void
sb_add(strbuf *b, const void *p, size_t n)
{
	if (!n) {
		sb_reserve(b, 0);	/* b->s is a string even when nothing was added */
		b->s[b->len] = '\0';
		return;
	}
	sb_reserve(b, n);
	memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void
sb_adds(strbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

size_t
sb_set_pair(strbuf *b, const char *first, const char *second)
{
	size_t lf = strlen(first);

	sb_clear(b);
	sb_add(b, first, lf + 1);	/* the NUL separates the parts */
	sb_adds(b, second);
	return lf + 1;
}

void
sb_addf(strbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	/* Formatting costs more than the copy: format once into the room
	 * left, again only when the text does not fit. */
	sb_reserve(b, 64);
	va_start(ap, fmt);
	n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->s[b->len] = '\0';
		return;
	}
	if ((size_t)n >= b->cap - b->len) {
		sb_reserve(b, (size_t)n);
		va_start(ap, fmt);
		vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

/* The 8 decimal digits of x < 10^8 as ASCII, the first in the lowest byte:
 * halves, then quarters, then digits, each lane at once (the multiplications
 * divide by 100 and by 10 exactly for numbers this small). */
static inline uint64_t
digits8(uint32_t x)
{
	uint64_t v = x / 10000 | (uint64_t)(x % 10000) << 32, t;

	t = (v * 10486 >> 20) & 0x0000007f0000007fULL;	/* / 100 in each half */
	v = t | (v - t * 100) << 16;
	t = (v * 103 >> 10) & 0x000f000f000f000fULL;	/* / 10 in each quarter */
	v = t | (v - t * 10) << 8;
	return v | 0x3030303030303030ULL;
}

/* The last n (1..8) digits of x < 10^8 at p; 8 bytes are written. */
static inline char *
put_digits(char *p, uint32_t x, unsigned n)
{
	uint64_t d = digits8(x) >> (8 * (8 - n));

	memcpy(p, &d, 8);
	return p + n;
}

char *
tr_put_digits8(char *p, uint32_t x)
{
	if (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__) {
		for (int i = 7; i >= 0; i--, x /= 10)
			p[i] = (char)('0' + x % 10);
		return p + 8;
	}
	return put_digits(p, x, 8);
}

char *
tr_put_u64(char *p, uint64_t v)
{
	static const uint64_t pow10[20] = {
		1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
		100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL,
		10000000000000ULL, 100000000000000ULL, 1000000000000000ULL,
		10000000000000000ULL, 100000000000000000ULL, 1000000000000000000ULL,
		10000000000000000000ULL};
	/* Writers spend much of their time here: lanes and operations have a
	 * digit or two, times 16, written 8 at a time. */
	if (v < 10) {
		*p = (char)('0' + v);
		return p + 1;
	}
	if (v < 100) {
		p[0] = (char)('0' + v / 10);
		p[1] = (char)('0' + v % 10);
		return p + 2;
	}
	/* the digits: log10 from the bit length (1233/4096 ~ log10 2), one compare */
	unsigned t = (unsigned)(64 - __builtin_clzll(v)) * 1233 >> 12;
	unsigned n = t + (v >= pow10[t]);

	if (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__) {
		char *end = p += n;

		do
			*--p = (char)('0' + v % 10);
		while (v /= 10);
		return end;
	}
	if (n <= 8)	/* 8 at a time */
		return put_digits(p, (uint32_t)v, n);
	if (n <= 16) {
		p = put_digits(p, (uint32_t)(v / 100000000), n - 8);
		return put_digits(p, (uint32_t)(v % 100000000), 8);
	}
	p = put_digits(p, (uint32_t)(v / 10000000000000000ULL), n - 16);
	v %= 10000000000000000ULL;
	p = put_digits(p, (uint32_t)(v / 100000000), 8);
	return put_digits(p, (uint32_t)(v % 100000000), 8);
}

void
sb_addu(strbuf *b, uint64_t v)
{
	sb_reserve(b, 20);
	b->len = (size_t)(tr_put_u64(b->s + b->len, v) - b->s);
	b->s[b->len] = '\0';
}

void
sb_addi(strbuf *b, int64_t v)
{
	if (v < 0) {
		sb_addc(b, '-');
		sb_addu(b, (uint64_t)0 - (uint64_t)v);
	} else
		sb_addu(b, (uint64_t)v);
}

void
sb_clear(strbuf *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = '\0';
}

void
sb_free(strbuf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

struct arena_chunk {
	arena_chunk *next;
	size_t size, off;
	_Alignas(16) char data[];
};

/* Chunks start small and double up to ARENA_CHUNK, so that a tool holding many
 * small traces (tr-temporal's window) does not pay 64 KB for each. */
#define ARENA_FIRST (2 * 1024)
#define ARENA_CHUNK (64 * 1024)

void *
arena_alloc(arena *a, size_t n)
{
	arena_chunk *c = a->head;

	n = (n + 15) & ~(size_t)15;
	if (!c || c->size - c->off < n) {
		arena_chunk **pp = &a->spare;

		/* Reuse a spare chunk big enough before asking malloc. */
		while (*pp && (*pp)->size < n)
			pp = &(*pp)->next;
		if (*pp) {
			c = *pp;
			*pp = c->next;
		} else {
			size_t size = a->head ? a->head->size * 2 : ARENA_FIRST;

			if (size > ARENA_CHUNK)
				size = ARENA_CHUNK;
			if (size < n)
				size = n;
			c = xmalloc(sizeof *c + size);
			c->size = size;
		}
		c->off = 0;
		c->next = a->head;
		a->head = c;
	}
	void *p = c->data + c->off;
	c->off += n;
	a->used += n;
	return p;
}

char *
arena_strndup(arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void
arena_reset(arena *a)
{
	arena_chunk *c = a->head, *next;

	for (; c; c = next) {
		next = c->next;
		/* Huge one-off chunks go back to malloc so one big trace does not pin memory. */
		if (c->size > 16 * ARENA_CHUNK) {
			free(c);
			continue;
		}
		c->next = a->spare;
		a->spare = c;
	}
	a->head = NULL;
	a->used = 0;
}

void
arena_free(arena *a)
{
	arena_chunk *c, *next;

	arena_reset(a);
	for (c = a->spare; c; c = next) {
		next = c->next;
		free(c);
	}
	a->spare = NULL;
}

int
parse_i64(const char *s, size_t n, int64_t *out)
{
	uint64_t v = 0, lim;
	int neg = 0;
	size_t i = 0;

	if (n && (s[0] == '-' || s[0] == '+')) {
		neg = s[0] == '-';
		i = 1;
	}
	if (i == n)
		return -1;
	lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	/* times have 16 digits: 8 at a time while no overflow is possible */
	while (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && n - i >= 8 && i + 8 <= 18) {
		uint64_t w, other;

		memcpy(&w, s + i, 8);
		other = tr_nondigit_bytes(w);
		if (other)
			return -1;
		v = v * 100000000 + tr_digits8_value(w);
		i += 8;
	}
	for (; i < n; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9)
			return -1;
		/* 18 digits cannot overflow: the division only for longer ones */
		if (i >= 18 && v > (lim - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

int
cmp_i64(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;

	return (a > b) - (a < b);
}

int
parse_duration(const char *s, int64_t *us)
{
	static const struct { const char *unit; int64_t us; } units[] = {
		{"us", 1}, {"\xc2\xb5s", 1}, {"ms", 1000}, {"s", 1000000},
		{"m", 60000000}, {"h", 3600000000LL}, {"", 1}
	};
	char *end;
	double v = strtod(s, &end);

	if (end == s || v < 0 || !isfinite(v))
		return -1;
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (strcmp(end, units[i].unit) == 0) {
			double r = v * (double)units[i].us;

			if (r > 9e18)
				return -1;
			*us = (int64_t)llround(r);
			return 0;
		}
	return -1;
}

/* Levenshtein distance, one row at a time; names past 255 bytes are far. */
static size_t
edit_distance(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b), row[256];

	if (na > 255 || nb > 255)
		return SIZE_MAX;
	for (size_t j = 0; j <= nb; j++)
		row[j] = j;
	for (size_t i = 1; i <= na; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= nb; j++) {
			size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[nb];
}

const char *
closest_name(const char *name, const char *const *names, size_t n)
{
	size_t limit = strlen(name) / 3;

	return closest_name_within(name, names, n, limit < 2 ? 2 : limit);
}

const char *
closest_name_within(const char *name, const char *const *names, size_t n, size_t limit)
{
	size_t best = SIZE_MAX;
	const char *pick = NULL;

	for (size_t i = 0; i < n; i++) {
		size_t d = edit_distance(name, names[i]);

		if (d <= limit && d < best) {
			best = d;
			pick = names[i];
		}
	}
	return pick;
}

int64_t
tr_dur_add(int64_t a, int64_t b, const char *what)
{
	int64_t sum;

	if (__builtin_add_overflow(a, b, &sum))
		tr_die(TR_EXIT_INPUT, "%s: durations add up past 2^63 us: absurd span durations", what);
	return sum;
}

void
fmt_double(char *buf, size_t size, double v)
{
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, size, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

static int
b64_digit(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+' || c == '-')
		return 62;
	if (c == '/' || c == '_')
		return 63;
	return -1;
}

int
b64_decode(const char *s, size_t n, unsigned char *out, size_t *outlen)
{
	size_t pad = 0, o = 0;
	uint32_t acc = 0;

	if (n % 4)
		return -1;
	while (pad < 2 && pad < n && s[n - 1 - pad] == '=')
		pad++;
	for (size_t i = 0; i < n - pad; i++) {
		int d = b64_digit((unsigned char)s[i]);

		if (d < 0)
			return -1;
		acc = acc << 6 | (uint32_t)d;
		if (i % 4 == 3) {
			out[o++] = (unsigned char)(acc >> 16);
			out[o++] = (unsigned char)(acc >> 8);
			out[o++] = (unsigned char)acc;
			acc = 0;
		}
	}
	/* The last group: 2 characters (12 bits) hold one byte, 3 (18 bits) two;
	 * the bits left over are zero in the one encoding of those bytes. */
	if (pad == 2) {
		if (acc & 0xf)
			return -1;
		out[o++] = (unsigned char)(acc >> 4);
	} else if (pad == 1) {
		if (acc & 0x3)
			return -1;
		out[o++] = (unsigned char)(acc >> 10);
		out[o++] = (unsigned char)(acc >> 2);
	}
	*outlen = o;
	return 0;
}

uint64_t
hash_bytes(const void *p, size_t n)
{
	/* Eight bytes a step, each multiplied in, and a final avalanche: ids
	 * of 16 to 32 bytes in two to four steps (FNV's byte loop took a tenth
	 * of tr-ingest's time on Zipkin input). */
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ULL ^ ((uint64_t)n * 0x9e3779b97f4a7c15ULL), w;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0x100000001b3ULL;
		h ^= h >> 29;
	}
	/* the last 0 to 7 bytes as a word, the first lowest, zeros above,
	 * without a call to memcpy for a length known only now: two words of
	 * 4 that overlap, or bytes (colours are picked by this hash: the same
	 * value as ever) */
	if (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__) {
		w = 0;
		memcpy(&w, s, n);
	} else if (n >= 4) {
		uint32_t lo, hi;

		memcpy(&lo, s, 4);
		memcpy(&hi, s + n - 4, 4);
		w = lo | ((uint64_t)hi >> (8 * (8 - n))) << 32;
	} else {
		w = n ? s[0] : 0;
		w |= n > 1 ? (uint64_t)s[1] << 8 : 0;
		w |= n > 2 ? (uint64_t)s[2] << 16 : 0;
	}
	h = (h ^ w) * 0x100000001b3ULL;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

const char *
tr_inputs_name(char *buf, size_t size, const char *first, int ninputs)
{
	if (ninputs <= 1)
		snprintf(buf, size, "%s", first);
	else
		snprintf(buf, size, "%s and %d more input%s", first, ninputs - 1,
			 ninputs > 2 ? "s" : "");
	return buf;
}

size_t
utf8_char_len(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len;
	unsigned lo = 0x80, hi = 0xbf;	/* the second byte's range */

	if (u[0] < 0x80)
		return 1;
	if (u[0] < 0xc2 || u[0] > 0xf4)
		return 0;	/* a continuation byte, an overlong lead, or beyond U+10FFFF */
	len = u[0] < 0xe0 ? 2 : u[0] < 0xf0 ? 3 : 4;
	if (u[0] == 0xe0)
		lo = 0xa0;	/* overlong */
	else if (u[0] == 0xed)
		hi = 0x9f;	/* surrogates */
	else if (u[0] == 0xf0)
		lo = 0x90;	/* overlong */
	else if (u[0] == 0xf4)
		hi = 0x8f;	/* beyond U+10FFFF */
	if (len > n || u[1] < lo || u[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if ((u[i] & 0xc0) != 0x80)
			return 0;
	return len;
}
