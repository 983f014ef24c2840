/* test_json.c - the JSON text the tools write through libjansson: strings
 * with bytes that are not UTF-8, control characters, built values. */
#define CHECK_NO_RNG
#include "check.h"

#include <stdlib.h>

#include "core/json.h"

/* s[0,n) as a JSON string, NUL-terminated in a buffer the caller frees. */
static char *
string_text(const char *s, size_t n)
{
	strbuf b = {0};

	tr_json_string(&b, s, n);
	sb_addc(&b, '\0');
	return b.s;
}

static void
check_string(const char *s, size_t n, const char *expected)
{
	char *text = string_text(s, n);

	CHECK_STR(text, expected);
	free(text);
}

static void
test_valid_text_is_kept(void)
{
	check_string("plain", 5, "\"plain\"");
	check_string("d\xc3\xa9j\xc3\xa0 \xf0\x9f\x98\x80", 11, "\"d\xc3\xa9j\xc3\xa0 \xf0\x9f\x98\x80\"");
	check_string("q\"b\\/", 5, "\"q\\\"b\\\\/\"");
	check_string("", 0, "\"\"");
}

static void
test_control_characters(void)
{
	check_string("a\nb\tc\x01\x1f", 7, "\"a\\nb\\tc\\u0001\\u001F\"");
	check_string("n\0ul", 4, "\"n\\u0000ul\"");
}

/* Each byte that starts no UTF-8 character is one U+FFFD. */
static void
test_bad_bytes_become_replacements(void)
{
	check_string("w\xff" "eb", 4, "\"w" UTF8_REPLACEMENT "eb\"");
	check_string("cut \xe2\x82", 6, "\"cut " UTF8_REPLACEMENT UTF8_REPLACEMENT "\"");
	check_string("sur\xed\xa0\x80", 6,
		     "\"sur" UTF8_REPLACEMENT UTF8_REPLACEMENT UTF8_REPLACEMENT "\"");
	check_string("over\xc0\xaf", 6, "\"over" UTF8_REPLACEMENT UTF8_REPLACEMENT "\"");
	check_string("\xef\xbf\xbe", 3, "\"\xef\xbf\xbe\"");	/* U+FFFE is UTF-8 */
}

static void
test_objects_keep_member_order(void)
{
	json_t *o = json_object();
	strbuf b = {0};

	tr_json_set(o, "z", tr_json_text("x\xff", 2));
	tr_json_set(o, "a", json_integer(-9007199254740993LL));
	tr_json_set(o, "m", json_true());
	tr_json_put(&b, json_incref(o), JSON_COMPACT);
	sb_adds(&b, " | ");
	tr_json_put(&b, o, 0);
	sb_addc(&b, '\0');
	CHECK_STR(b.s, "{\"z\":\"x" UTF8_REPLACEMENT "\",\"a\":-9007199254740993,\"m\":true}"
		       " | {\"z\": \"x" UTF8_REPLACEMENT "\", \"a\": -9007199254740993, \"m\": true}");
	sb_free(&b);
}

int
main(void)
{
	test_valid_text_is_kept();
	test_control_characters();
	test_bad_bytes_become_replacements();
	test_objects_keep_member_order();
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
