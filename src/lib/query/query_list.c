/* query_list.c - the values of a list field, for GroupBy each(x): one row
 * per value, as Pivot Tracing groups by a list (Q5: the replicas of a
 * block). A list is a tag whose text is a JSON array, as tr-format(5)
 * writes an OTLP arrayValue; anything else is a list of one value, and null
 * a list of none. */
#include "query_impl.h"

#include <stdlib.h>
#include <string.h>

static const char *
skip_space(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

static int
hex4(const char *p, const char *end, unsigned *u)
{
	*u = 0;
	if (end - p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
			   : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
			   : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16;
		if (d == 16)
			return -1;
		*u = *u << 4 | d;
	}
	return 0;
}

static void
add_utf8(strbuf *b, unsigned u)
{
	if (u < 0x80) {
		sb_addc(b, (char)u);
	} else if (u < 0x800) {
		sb_addc(b, (char)(0xc0 | u >> 6));
		sb_addc(b, (char)(0x80 | (u & 0x3f)));
	} else if (u < 0x10000) {
		sb_addc(b, (char)(0xe0 | u >> 12));
		sb_addc(b, (char)(0x80 | (u >> 6 & 0x3f)));
		sb_addc(b, (char)(0x80 | (u & 0x3f)));
	} else {
		sb_addc(b, (char)(0xf0 | u >> 18));
		sb_addc(b, (char)(0x80 | (u >> 12 & 0x3f)));
		sb_addc(b, (char)(0x80 | (u >> 6 & 0x3f)));
		sb_addc(b, (char)(0x80 | (u & 0x3f)));
	}
}

/* A JSON string from p (at its opening quote) into b; returns the position
 * after the closing quote, NULL when malformed. */
static const char *
json_string(const char *p, const char *end, strbuf *b)
{
	for (p++; p < end && *p != '"'; p++) {
		if (*p != '\\') {
			sb_addc(b, *p);
			continue;
		}
		if (++p == end)
			return NULL;
		switch (*p) {
		case '"': case '\\': case '/': sb_addc(b, *p); continue;
		case 'b': sb_addc(b, '\b'); continue;
		case 'f': sb_addc(b, '\f'); continue;
		case 'n': sb_addc(b, '\n'); continue;
		case 'r': sb_addc(b, '\r'); continue;
		case 't': sb_addc(b, '\t'); continue;
		}
		unsigned u, lo;
		if (*p != 'u' || hex4(p + 1, end, &u) < 0)
			return NULL;
		p += 4;
		if (u >= 0xd800 && u < 0xdc00 && end - p > 6 && p[1] == '\\' && p[2] == 'u' &&
		    hex4(p + 3, end, &lo) == 0 && lo >= 0xdc00 && lo < 0xe000) {
			u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
			p += 6;
		}
		add_utf8(b, u);
	}
	return p < end ? p + 1 : NULL;
}

/* Past a nested array or object (at its opening bracket); NULL when it
 * does not close. */
static const char *
json_skip_nested(const char *p, const char *end)
{
	int depth = 0, in_string = 0;

	for (; p < end; p++) {
		if (in_string) {
			if (*p == '\\')
				p++;
			else if (*p == '"')
				in_string = 0;
		} else if (*p == '"') {
			in_string = 1;
		} else if (*p == '[' || *p == '{') {
			depth++;
		} else if ((*p == ']' || *p == '}') && --depth == 0) {
			return p + 1;
		}
	}
	return NULL;
}

struct q_list_element {
	int kind;		/* 0: text to type (expr_from_text), 1: a string, 2: null */
	size_t off, len;	/* in the list's text */
};
typedef struct q_list_element element;

/* Split the text of a JSON array into elements (their text in l->text);
 * -1 when it is not one. */
static int
split_array(q_list *l, const char *s, size_t n, element **els, size_t *nels, size_t *cap)
{
	const char *p = skip_space(s, s + n), *end = s + n;

	*nels = 0;
	if (p == end || *p != '[')
		return -1;
	p = skip_space(p + 1, end);
	if (p < end && *p == ']')
		return skip_space(p + 1, end) == end ? 0 : -1;
	for (;;) {
		element e = {0, l->text.len, 0};
		if (p == end)
			return -1;
		if (*p == '"') {
			e.kind = 1;
			p = json_string(p, end, &l->text);
		} else if (*p == '[' || *p == '{') {
			const char *q = json_skip_nested(p, end);
			e.kind = 1;
			if (q)
				sb_add(&l->text, p, (size_t)(q - p));
			p = q;
		} else {
			const char *q = p;
			while (q < end && *q != ',' && *q != ']' && *q != ' ' && *q != '\t' &&
			       *q != '\n' && *q != '\r')
				q++;
			if (q == p)
				return -1;
			e.kind = (size_t)(q - p) == 4 && memcmp(p, "null", 4) == 0 ? 2 : 0;
			sb_add(&l->text, p, (size_t)(q - p));
			p = q;
		}
		if (!p)
			return -1;
		e.len = l->text.len - e.off;
		sb_addc(&l->text, '\0');
		GROW(*els, *cap, *nels + 1);
		(*els)[(*nels)++] = e;
		p = skip_space(p, end);
		if (p < end && *p == ',') {
			p = skip_space(p + 1, end);
			continue;
		}
		if (p < end && *p == ']')
			return skip_space(p + 1, end) == end ? 0 : -1;
		return -1;
	}
}

void
q_list_split(q_list *l, expr_value x)
{
	size_t nels = 0;

	l->n = 0;
	sb_clear(&l->text);
	if (x.type == EV_NULL)
		return;
	if (x.type != EV_STR ||
	    split_array(l, x.str, x.len, &l->els, &nels, &l->capels) < 0) {
		GROW(l->v, l->cap, 1);
		l->v[l->n++] = x;
		return;
	}
	GROW(l->v, l->cap, nels + 1);
	for (size_t i = 0; i < nels; i++) {
		const element *e = &l->els[i];
		const char *s = l->text.s + e->off;
		l->v[l->n++] = e->kind == 2 ? expr_null()
			     : e->kind == 1 ? expr_str(s, e->len) : expr_from_text(s, e->len);
	}
}

void
q_list_free(q_list *l)
{
	free(l->v);
	free(l->els);
	sb_free(&l->text);
}
