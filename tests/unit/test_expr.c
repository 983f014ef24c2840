/* test_expr.c - the expression evaluator shared by tr-aggregate and tr-infer. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/expr.h"

#include "check.h"

/* Slots: s v u q T as tr-infer names them, plus name and tag (a string). */
static const char *const names[] = {"s", "v", "u", "q", "T", "name", "missing", "a.b"};

static int
resolve(void *ctx, const char *name, size_t len)
{
	(void)ctx;
	for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
		if (strlen(names[i]) == len && memcmp(names[i], name, len) == 0)
			return i;
	return -1;
}

static expr_value slots[8];

static expr_value
eval(const char *src)
{
	char err[200];
	size_t pos;
	expr *e = expr_parse(src, resolve, NULL, err, sizeof err, &pos);
	if (!e) {
		fprintf(stderr, "parse error in '%s' at %zu: %s\n", src, pos, err);
		return (expr_value){EV_NULL, -12345, NULL, 0};
	}
	expr_value v = expr_eval(e, slots);
	expr_free(e);
	return v;
}

static int
is_num(const char *src, double want)
{
	expr_value v = eval(src);
	return v.type == EV_NUM && v.num == want;
}

static int
is_bool(const char *src, int want)
{
	expr_value v = eval(src);
	return v.type == EV_BOOL && (v.num != 0) == want;
}

static int
is_null(const char *src)
{
	expr_value v = eval(src);
	return v.type == EV_NULL && v.num != -12345;
}

/* Parsing fails, with the error at byte offset pos. */
static int
fails_at(const char *src, size_t want, const char *msg_part)
{
	char err[200];
	size_t pos = 999;
	expr *e = expr_parse(src, resolve, NULL, err, sizeof err, &pos);
	if (e) {
		expr_free(e);
		return 0;
	}
	if (pos != want || !strstr(err, msg_part))
		fprintf(stderr, "'%s': error at %zu '%s'\n", src, pos, err);
	return pos == want && strstr(err, msg_part) != NULL;
}

/* The canonical text of src, which must parse again to the same text. */
static int
prints_as(const char *src, const char *want)
{
	char err[200];
	size_t pos;
	strbuf text = {0}, again = {0};
	expr *e = expr_parse(src, resolve, NULL, err, sizeof err, &pos), *e2 = NULL;
	int ok = 0;

	if (e) {
		expr_print(e, &text);
		if ((e2 = expr_parse(text.s, resolve, NULL, err, sizeof err, &pos)))
			expr_print(e2, &again);
		ok = e2 && strcmp(text.s, again.s) == 0 && (!want || strcmp(text.s, want) == 0);
		if (!ok)
			fprintf(stderr, "'%.60s' prints as '%.60s'%s\n", src, text.s,
				e2 ? "" : ", which does not parse");
	}
	expr_free(e);
	expr_free(e2);
	sb_free(&text);
	sb_free(&again);
	return ok;
}

/* n copies of unit, then tail. */
static char *
repeated(const char *head, const char *unit, int n, const char *tail)
{
	strbuf b = {0};

	sb_adds(&b, head);
	for (int i = 0; i < n; i++)
		sb_adds(&b, unit);
	sb_adds(&b, tail);
	return b.s;
}

int
main(void)
{
	slots[0] = expr_num(10);
	slots[1] = expr_num(2.5);
	slots[2] = expr_num(0);
	slots[3] = expr_num(-4);
	slots[4] = expr_num(1000000);
	slots[5] = expr_str("frontend", 8);
	slots[6] = expr_null();
	slots[7] = expr_num(7);

	/* arithmetic and precedence */
	CHECK(is_num("1 + 2 * 3", 7));
	CHECK(is_num("(1 + 2) * 3", 9));
	CHECK(is_num("s - v * 2", 5));
	CHECK(is_num("-q", 4));
	CHECK(is_num("s / 4", 2.5));
	CHECK(is_num("7 % 4", 3));
	CHECK(is_num("a.b + 1", 8));
	CHECK(is_num("10 - 2 - 3", 5));	/* left associative */
	CHECK(is_num("2e3", 2000));
	/* division by zero gives null, and null spreads through arithmetic */
	CHECK(is_null("s / u"));
	CHECK(is_null("s / 0 + 1"));
	CHECK(is_null("missing * 2"));
	CHECK(is_null("7 % 0"));
	/* comparisons */
	CHECK(is_bool("s > v", 1));
	CHECK(is_bool("s >= 10", 1));
	CHECK(is_bool("s < 10", 0));
	CHECK(is_bool("s <= 10", 1));
	CHECK(is_bool("s == 10", 1));
	CHECK(is_bool("s = 10", 1));
	CHECK(is_bool("s != 10", 0));
	CHECK(is_bool("q < u", 1));
	/* null: comparisons are false, == null tests it */
	CHECK(is_bool("missing > 1", 0));
	CHECK(is_bool("missing < 1", 0));
	CHECK(is_bool("missing != 1", 0));
	CHECK(is_bool("missing == null", 1));
	CHECK(is_bool("s == null", 0));
	CHECK(is_bool("s != null", 1));
	CHECK(is_bool("s / u == null", 1));
	CHECK(is_bool("not (missing > 1)", 1));
	/* boolean logic, case-insensitive keywords */
	CHECK(is_bool("s > 1 and v > 1", 1));
	CHECK(is_bool("s > 1 AND v > 5", 0));
	CHECK(is_bool("s > 100 or v > 1", 1));
	CHECK(is_bool("not s > 100", 1));
	CHECK(is_bool("s > 100 or v > 1 and u > 1", 0));	/* and binds tighter */
	CHECK(is_bool("true and not false", 1));
	/* durations in µs */
	CHECK(is_num("300ms", 300000));
	CHECK(is_num("1.5s", 1500000));
	CHECK(is_num("2m", 120000000));
	CHECK(is_num("1h", 3600e6));
	CHECK(is_num("7us", 7));
	CHECK(is_num("7\xc2\xb5s", 7));	/* µs */
	CHECK(is_bool("T == 1s", 1));
	/* strings, glob, regex */
	CHECK(is_bool("name == \"frontend\"", 1));
	CHECK(is_bool("name != 'frontend'", 0));
	CHECK(is_bool("name < \"g\"", 1));
	CHECK(is_bool("name ~ \"front*\"", 1));
	CHECK(is_bool("name ~ \"back*\"", 0));
	CHECK(is_bool("name !~ \"back*\"", 1));
	CHECK(is_bool("name =~ \"^fr.*d$\"", 1));
	CHECK(is_bool("name =~ \"^end\"", 0));
	CHECK(is_bool("missing ~ \"*\"", 0));
	/* functions */
	CHECK(is_num("bucket(2500000, 1s)", 2000000));
	CHECK(is_num("bucket(T + 1, 1s)", 1000000));
	CHECK(is_num("abs(q)", 4));
	CHECK(is_num("floor(v)", 2));
	CHECK(is_num("ceil(v)", 3));
	CHECK(is_num("round(v)", 3));
	CHECK(is_num("coalesce(missing, s)", 10));
	/* text values as tags carry them */
	CHECK_EQ(expr_from_text("500", 3).type, EV_NUM);
	CHECK_EQ(expr_from_text("-1.5e3", 6).num, -1500);
	CHECK_EQ(expr_from_text("true", 4).type, EV_BOOL);
	CHECK_EQ(expr_from_text("0x10", 4).type, EV_STR);
	CHECK_EQ(expr_from_text("inf", 3).type, EV_STR);
	CHECK_EQ(expr_from_text("", 0).type, EV_STR);
	{
		expr_value big = expr_from_text("12345678901234567891", 20);
		char buf[32];
		size_t len;
		const char *s = expr_format(big, buf, sizeof buf, &len);
		CHECK(len == 20 && memcmp(s, "12345678901234567891", 20) == 0);
		s = expr_format(expr_num(1767225600000001.0), buf, sizeof buf, &len);
		CHECK_STR(s, "1767225600000001");
		s = expr_format(expr_num(0.1), buf, sizeof buf, &len);
		CHECK_STR(s, "0.1");
	}
	/* a string that reads as a number compares as one */
	slots[5] = expr_str("200", 3);
	CHECK(is_bool("name == 200", 1));
	CHECK(is_bool("name > 100", 1));
	slots[5] = expr_str("abc", 3);
	CHECK(is_bool("name == 200", 0));
	CHECK(is_bool("name != 200", 0));
	CHECK(expr_truthy(expr_num(1)) && !expr_truthy(expr_num(0)) && !expr_truthy(expr_null()));
	/* errors, with their byte offsets */
	CHECK(fails_at("s +", 3, "end of the expression"));
	CHECK(fails_at("nosuch > 1", 0, "unknown name 'nosuch'"));
	CHECK(fails_at("(s > 1", 6, "expected ')'"));
	CHECK(fails_at("s > 1 s", 6, "after the expression"));
	CHECK(fails_at("\"abc\" > 1", 6, "cannot compare a string with a number"));
	CHECK(fails_at("\"abc\" * 2", 6, "arithmetic needs numbers"));
	CHECK(fails_at("10kg", 2, "unknown unit"));
	CHECK(fails_at("s $ 1", 2, "unexpected character"));
	CHECK(fails_at("\"abc", 0, "unterminated string"));
	CHECK(fails_at("name =~ \"(\"", 5, "bad regular expression"));
	CHECK(fails_at("nofn(1)", 0, "unknown function"));
	CHECK(fails_at("bucket(1)", 0, "bucket takes 2 arguments"));
	CHECK(fails_at("abs(1,)", 6, "expected an argument"));
	CHECK(fails_at("-\"abc\"", 0, "cannot negate a string"));
	CHECK(fails_at("abs(1 2)", 6, "expected ')' after the arguments of abs"));
	{
		char deep[1000];
		memset(deep, '(', 500);
		strcpy(deep + 500, "1");
		char err[200];
		size_t pos;
		expr *e = expr_parse(deep, resolve, NULL, err, sizeof err, &pos);
		CHECK(e == NULL && strstr(err, "nested too deeply"));
	}
	/* canonical text: parentheses only where the grouping needs them */
	CHECK(prints_as("(1 - 2) - 3", "1 - 2 - 3"));
	CHECK(prints_as("1 - (2 - 3)", "1 - (2 - 3)"));
	CHECK(prints_as("(s * 2) + (v * 3)", "s * 2 + v * 3"));
	CHECK(prints_as("(s + 2) * -(v + 3)", "(s + 2) * -(v + 3)"));
	CHECK(prints_as("-(-s)", "- -s"));
	CHECK(prints_as("not (s > 1 or v < 2) and (u = 0)", "not (s > 1 or v < 2) and u == 0"));
	CHECK(prints_as("not not s > 1", "not not s > 1"));
	CHECK(prints_as("(s > 1) = (v > 2)", "(s > 1) == (v > 2)"));
	CHECK(prints_as("(s + 1 = null) or null != name", "s + 1 == null or name != null"));
	CHECK(prints_as("s > 1 or (v > 1 or u > 1)", "s > 1 or (v > 1 or u > 1)"));
	CHECK(prints_as("abs((s - 1)) * coalesce(missing, (2))", "abs(s - 1) * coalesce(missing, 2)"));
	/* A tree's height is bounded however it grows: nesting, prefix
	 * operators or a long left-associative chain. What parses prints as
	 * text that parses again. */
	{
		char *ok = repeated("1", " - 1", 199, "");
		char *high = repeated("1", " - 1", 200, "");
		char *prefix = repeated("1 -", " -", 190, " 4");
		char *nots = repeated("", "not ", 190, "s > 1");
		char *call = repeated("abs(1", " - 1", 199, ")");	/* the call is one too many */
		CHECK(prints_as(ok, NULL));
		CHECK(fails_at(high, strlen(high) - 3, "nested too deeply"));
		CHECK(prints_as(prefix, NULL));
		CHECK(prints_as(nots, NULL));
		CHECK(fails_at(call, 0, "nested too deeply"));
		free(ok);
		free(high);
		free(prefix);
		free(nots);
		free(call);
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
