/* fuzz_expr.c - the expression parser and evaluator shared by tr-infer's
 * thresholds (-t) and tr-aggregate's queries.
 *
 * Oracles: an error points inside the text; the canonical text of a parsed
 * expression parses again to the same canonical text (--explain shows it and
 * tr-aggregate matches Select items against GroupBy items by it). */
#include "fuzz.h"

#include "core/expr.h"

/* Slots as tr-infer names them, plus a string, a null and a boolean. */
static const char *const names[] = {"s", "v", "u", "q", "T", "name", "missing", "ok"};
enum { NSLOTS = sizeof names / sizeof names[0] };
static expr_value slots[NSLOTS];

static int
resolve(void *ctx, const char *name, size_t len)
{
	(void)ctx;
	for (int i = 0; i < NSLOTS; i++)
		if (strlen(names[i]) == len && memcmp(names[i], name, len) == 0)
			return i;
	return -1;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	tr_setprogname("fuzz_expr");
	slots[0] = expr_num(12);
	slots[1] = expr_num(0);
	slots[2] = expr_num(-3.5);
	slots[3] = expr_num(1e300);
	slots[4] = expr_num(40);
	slots[5] = expr_str("mysql:SQL SELECT", 16);
	slots[6] = expr_null();
	slots[7] = expr_bool(1);
	return 0;
}

static expr *
parse(const char *src, size_t len)
{
	char err[256];
	size_t pos = 0;
	expr *e = expr_parse(src, resolve, NULL, err, sizeof err, &pos);

	FUZZ_CHECK(e || pos <= len, "error position beyond the text");
	return e;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *src = malloc(size + 1);
	strbuf text = {0}, again = {0};
	char buf[64];
	size_t n;

	memcpy(src, data, size);
	src[size] = '\0';
	expr *e = parse(src, strlen(src));
	if (e) {
		expr_value v = expr_eval(e, slots);

		(void)expr_truthy(v);
		(void)expr_format(v, buf, sizeof buf, &n);
		expr_print(e, &text);
		expr *e2 = parse(text.s ? text.s : "", text.len);

		FUZZ_CHECK(e2 != NULL, "canonical text does not parse");
		expr_print(e2, &again);
		FUZZ_CHECK(text.len == again.len && (!text.len || strcmp(text.s, again.s) == 0), "canonical text is not canonical");
		expr_free(e2);
		expr_free(e);
	}
	sb_free(&text);
	sb_free(&again);
	free(src);
	return 0;
}
