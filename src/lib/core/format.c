/* format.c - the tr line format: escaping and fields. */
#include "core/format.h"

#include <string.h>

size_t
tr_split(const char *line, size_t len, tr_field *f, size_t max)
{
	const char *p = line, *end = line + len;
	size_t n = 0;
	tr_scan tabs;

	tr_scan_init(&tabs, line, end, '\t');
	for (;;) {
		const char *tab = tr_scan_next(&tabs);
		const char *e = tab ? tab : end;

		if (n < max) {
			f[n].s = p;
			f[n].len = (size_t)(e - p);
		}
		n++;
		if (!tab)
			return n;
		p = tab + 1;
	}
}

static const char hexdig[] = "0123456789ABCDEF";

void
tr_escape(strbuf *b, const char *s, size_t n, int is_key)
{
	/* bit 1: escaped everywhere; bit 2: in keys only */
	static const unsigned char special[256] = {
		['\t'] = 1, ['\n'] = 1, ['\r'] = 1, ['%'] = 1, ['='] = 2,
	};
	const unsigned char mask = is_key ? 3 : 1;
	size_t i, run = 0;

	sb_reserve(b, n);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!(special[c] & mask))
			continue;
		sb_add(b, s + run, i - run);
		char esc[3] = {'%', hexdig[c >> 4], hexdig[c & 15]};
		sb_add(b, esc, 3);
		run = i + 1;
	}
	sb_add(b, s + run, n - run);
}

void
tr_escapes(strbuf *b, const char *s, int is_key)
{
	tr_escape(b, s, strlen(s), is_key);
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

size_t
tr_unescape(char *dst, const char *s, size_t n)
{
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		int hi, lo;

		/* A '%' not followed by two hex digits is kept as written. */
		if (s[i] == '%' && i + 2 < n && (hi = hexval(s[i + 1])) >= 0 &&
		    (lo = hexval(s[i + 2])) >= 0) {
			dst[o++] = (char)(hi << 4 | lo);
			i += 2;
		} else
			dst[o++] = s[i];
	}
	dst[o] = '\0';
	return o;
}

void
tr_add_tag(strbuf *b, const char *key, const char *val)
{
	sb_addc(b, '\t');
	tr_escapes(b, key, 1);
	sb_addc(b, '=');
	tr_escapes(b, val, 0);
}

void
tr_add_tag_i64(strbuf *b, const char *key, int64_t val)
{
	sb_addc(b, '\t');
	tr_escapes(b, key, 1);
	sb_addc(b, '=');
	sb_addi(b, val);
}

static const char *const kind_names[] = {
	"", "server", "client", "producer", "consumer", "internal"
};

const char *
tr_kind_name(int kind)
{
	if (kind < 0 || kind > TR_KIND_INTERNAL)
		return "";
	return kind_names[kind];
}

int
tr_kind_parse(const char *s, size_t n)
{
	for (int k = 0; k <= TR_KIND_INTERNAL; k++)
		if (strlen(kind_names[k]) == n && memcmp(kind_names[k], s, n) == 0)
			return k;
	return -1;
}

int
tr_field_count(const tr_field *f, uint64_t max, uint64_t *v)
{
	int64_t n;

	if (!f->len || f->s[0] < '0' || f->s[0] > '9' || parse_i64(f->s, f->len, &n) < 0 ||
	    (uint64_t)n > max)
		return -1;
	*v = (uint64_t)n;
	return 0;
}
