/* Unit tests of the frame of --partial files (partial.h) and of the checked
 * sum of durations. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/partial.h"

#define CHECK_NO_RNG
#include "check.h"

/* Feed text, line by line, to a check for kind "aggregate" made for "Q";
 * returns the first failing line's number (what set), or 0 when every line
 * passed and the end is whole, or -1 when only the end failed. *records:
 * the lines given to merge. */
static long
feed(const char *text, char *what, size_t whatlen, int *records)
{
	tr_partial_check c;
	long lineno = 0;

	tr_partial_check_start(&c, "aggregate", "Q");
	*records = 0;
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		int k;

		lineno++;
		k = tr_partial_check_line(&c, p, len, what, whatlen);
		if (k < 0)
			return lineno;
		*records += k;
		p += len + (nl != NULL);
	}
	return tr_partial_check_end(&c, what, whatlen) < 0 ? -1 : 0;
}

static void
test_frame_written_reads_back(void)
{
	strbuf b = {0};
	char what[256];
	int records;

	tr_partial_header(&b, "aggregate", "Q");
	sb_adds(&b, "G\ta\t1\nG\tb\t2\n");
	tr_partial_end(&b, 2);
	CHECK_STR(b.s, "#tr-aggregate-partial/2\tQ\nG\ta\t1\nG\tb\t2\n#end\t2\n");
	CHECK(feed(b.s, what, sizeof what, &records) == 0, "whole partial refused: %s", what);
	CHECK_EQ(records, 2);
	sb_free(&b);
}

static void
test_frame_refusals(void)
{
	static const struct {
		const char *text;
		long line;	/* where it fails; -1: at the end */
		const char *what;
	} cases[] = {
		{"", -1, "an empty file, not a partial"},
		{"#tr-aggregate-partial/2\tQ\nG\ta\t1\n", -1, "the partial has no end mark: it was cut short"},
		{"#tr-aggregate-partial/2\tQ\n", -1, "the partial has no end mark: it was cut short"},
		{"#tr-aggregate-partial/2\tQ\nG\ta\t1\n#end\t2\n", 3, "the end mark counts 2 records, 1 were read"},
		{"#tr-aggregate-partial/2\tQ\n#end\t0\nG\ta\t1\n", 3, "a line after the end mark"},
		{"#tr-aggregate-partial/2\tR\n#end\t0\n", 1,
		 "a partial made for something else (another query, other options)"},
		{"#tr-aggregate-partial/1\tQ\n", 1, "a partial of format 1, this tr-aggregate merges format 2: make it again"},
		{"#tr-infer-partial/2\tQ\n#end\t0\n", 1,
		 "not a tr-aggregate --partial file (its first line is not #tr-aggregate-partial/2)"},
		{"G\ta\t1\n", 1, "not a tr-aggregate --partial file (its first line is not #tr-aggregate-partial/2)"},
		{"#tr-aggregate-partial/2\tQ\n#end\tx\n", 2, "the end mark counts x records, 0 were read"},
	};

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char what[256] = "";
		int records;
		long at = feed(cases[i].text, what, sizeof what, &records);

		CHECK(at == cases[i].line, "case %zu: failed at %ld, expected %ld", i, at, cases[i].line);
		CHECK(strcmp(what, cases[i].what) == 0, "case %zu: \"%s\", expected \"%s\"", i, what, cases[i].what);
	}
}

static void
test_frames_one_after_the_other(void)
{
	char what[256];
	int records;
	const char *two = "#tr-aggregate-partial/2\tQ\nG\ta\t1\n#end\t1\n"
			  "#tr-aggregate-partial/2\tQ\nG\tb\t1\nG\tc\t1\n#end\t2\n";

	CHECK(feed(two, what, sizeof what, &records) == 0, "cat of two partials refused: %s", what);
	CHECK_EQ(records, 3);
}

static void
test_dur_add(void)
{
	CHECK_EQ(tr_dur_add(INT64_MAX - 5, 5, "t"), INT64_MAX);
	CHECK_EQ(tr_dur_add(-3, 10, "t"), 7);
}

int
main(void)
{
	test_frame_written_reads_back();
	test_frame_refusals();
	test_frames_one_after_the_other();
	test_dur_add();
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
