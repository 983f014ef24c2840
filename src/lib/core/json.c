/* json.c - JSON text through libjansson, with bytes that are not UTF-8
 * replaced first (jansson would refuse the whole string). */
#include "core/json.h"

#include <string.h>

static json_t *
checked(json_t *v)
{
	if (!v)
		tr_die(TR_EXIT_SYSTEM, "out of memory");
	return v;
}

/* Index of the first byte of s[0,n) that starts no UTF-8 character, or n. */
static size_t
first_bad(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		if ((unsigned char)s[i] < 0x80) {
			i++;
			continue;
		}
		size_t k = utf8_char_len(s + i, n - i);

		if (!k)
			return i;
		i += k;
	}
	return n;
}

json_t *
tr_json_text(const char *s, size_t n)
{
	size_t i = first_bad(s, n);

	if (i == n)	/* the common case: valid already, no copy */
		return checked(json_stringn_nocheck(s, n));
	strbuf fixed = {0};

	sb_add(&fixed, s, i);
	while (i < n) {
		size_t k = utf8_char_len(s + i, n - i);

		if (k)
			sb_add(&fixed, s + i, k);
		else
			sb_adds(&fixed, UTF8_REPLACEMENT);
		i += k ? k : 1;
	}
	json_t *v = checked(json_stringn_nocheck(fixed.s, fixed.len));

	sb_free(&fixed);
	return v;
}

static int
append(const char *p, size_t n, void *data)
{
	sb_add(data, p, n);
	return 0;
}

void
tr_json_put(strbuf *b, json_t *v, size_t flags)
{
	/* JSON_ENCODE_ANY: a string or a number alone is a document too. */
	if (json_dump_callback(checked(v), append, b, flags | JSON_ENCODE_ANY) < 0)
		tr_die(TR_EXIT_SYSTEM, "out of memory");
	json_decref(v);
}

void
tr_json_string(strbuf *b, const char *s, size_t n)
{
	tr_json_put(b, tr_json_text(s, n), 0);
}

void
tr_json_set(json_t *o, const char *key, json_t *v)
{
	if (json_object_set_new_nocheck(o, key, checked(v)) < 0)
		tr_die(TR_EXIT_SYSTEM, "out of memory");
}
