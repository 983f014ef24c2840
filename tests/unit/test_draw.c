/* test_draw.c - the drawing the pictures share (axis ticks, labels, text
 * fitting, escaping), the percentile bands of the flame graphs, and the
 * baseline comparison's batches: a steady run is not flagged however its
 * requests are ordered, a shifted one is. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp/baseline.h"
#include "cp/cp_flame.h"
#include "draw/svg.h"

#include "check.h"

static void
test_ticks(void)
{
	char buf[40];

	/* 1.18 s over 580 px, 70 px apart at least: 200 ms */
	CHECK_EQ(svg_tick_step(1183676, 580, 70), 200000);
	CHECK_EQ(svg_tick_step(100000, 580, 70), 20000);
	CHECK_EQ(svg_tick_step(1, 580, 70), 1);
	CHECK_EQ(svg_tick_step(0, 580, 70), 1);
	/* every step is 1, 2 or 5 times a power of ten, at least 70 px apart,
	 * and the least such: the next smaller one is closer than 70 px */
	for (int64_t span = 1; span < INT64_C(100000000000); span = span * 3 + 7) {
		int64_t s = svg_tick_step(span, 600, 70), m = s, smaller;

		while (m % 10 == 0)
			m /= 10;
		CHECK(m == 1 || m == 2 || m == 5);
		CHECK((double)s / (double)span * 600 >= 70);
		smaller = m == 5 ? s / 5 * 2 : s / 2;	/* 5 -> 2, 2 -> 1, 10 -> 5 */
		CHECK(s == 1 || (double)smaller / (double)span * 600 < 70);
	}
	svg_tick_label(buf, sizeof buf, 0, 200000);
	CHECK_STR(buf, "0");
	svg_tick_label(buf, sizeof buf, 400000, 200000);
	CHECK_STR(buf, "400 ms");
	svg_tick_label(buf, sizeof buf, 1000000, 200000);
	CHECK_STR(buf, "1 s");
	svg_tick_label(buf, sizeof buf, 1500000, 500000);
	CHECK_STR(buf, "1.5 s");
	svg_tick_label(buf, sizeof buf, 40, 20);
	CHECK_STR(buf, "40 \xc2\xb5s");
}

static void
test_text(void)
{
	strbuf b = {0};

	CHECK(svg_text_width("iii", 10) < svg_text_width("MMM", 10));
	CHECK(fabs(svg_text_width("\xc2\xb5", 10) - svg_text_width("x", 10)) < 2);	/* one character */
	CHECK(svg_fit(&b, "short", 200, 11) && strcmp(b.s, "short") == 0);
	CHECK(svg_fit(&b, "a rather long operation name", 60, 11));
	CHECK(strstr(b.s, "\xe2\x80\xa6") != NULL);
	CHECK(svg_text_width(b.s, 11) <= 60 + 11);
	CHECK(!svg_fit(&b, "word", 3, 11));
	/* a cut never splits a multibyte character */
	CHECK(svg_fit(&b, "\xc2\xb5\xc2\xb5\xc2\xb5\xc2\xb5\xc2\xb5\xc2\xb5", 30, 11));
	CHECK(b.len >= 3 && memcmp(b.s + b.len - 3, "\xe2\x80\xa6", 3) == 0);
	CHECK_EQ((b.len - 3) % 2, 0);
	sb_clear(&b);
	svg_escape(&b, "<a & \"b\">\x01\n");
	CHECK_STR(b.s, "&lt;a &amp; &quot;b&quot;&gt;&#10;");
	/* the two-part keys of the flame graphs' frames and the baseline's groups */
	CHECK_EQ(sb_set_pair(&b, "mysql", "SQL SELECT"), 6);
	CHECK(b.len == 16 && memcmp(b.s, "mysql\0SQL SELECT", 17) == 0);
	CHECK_EQ(sb_set_pair(&b, "", ""), 1);
	CHECK_EQ(b.len, 1);
	CHECK_EQ(b.s[0], '\0');
	CHECK_EQ(b.s[1], '\0');
	sb_free(&b);
	char c1[8], c2[8];
	svg_service_colour("mysql", c1);
	svg_service_colour("mysql", c2);
	CHECK_STR(c1, c2);
	CHECK_EQ(c1[0], '#');
	CHECK_EQ(strlen(c1), 7);
}

static void
test_bands(void)
{
	size_t a, b;
	int pct[16];

	cp_percentile_band(100, 50, &a, &b);
	CHECK_EQ(a, 49);
	CHECK_EQ(b, 51);
	cp_percentile_band(100, 99, &a, &b);
	CHECK_EQ(a, 98);
	CHECK_EQ(b, 100);
	cp_percentile_band(100, 100, &a, &b);
	CHECK_EQ(a, 99);
	CHECK_EQ(b, 100);
	cp_percentile_band(100, 1, &a, &b);
	CHECK_EQ(a, 0);
	CHECK_EQ(b, 2);
	cp_percentile_band(3, 50, &a, &b);	/* few traces: at least one */
	CHECK(b > a && b <= 3);
	cp_percentile_band(1, 99, &a, &b);
	CHECK_EQ(a, 0);
	CHECK_EQ(b, 1);
	for (size_t n = 1; n < 500; n += 7)
		for (int p = 1; p <= 100; p++) {
			cp_percentile_band(n, p, &a, &b);
			CHECK(a < b && b <= n);
		}
	CHECK_EQ(cp_percentiles_parse("50,95,99", pct, 16), 3);
	CHECK_EQ(pct[2], 99);
	CHECK(cp_percentiles_parse("", pct, 16) < 0);
	CHECK(cp_percentiles_parse("50,", pct, 16) < 0);
	CHECK(cp_percentiles_parse("0", pct, 16) < 0);
	CHECK(cp_percentiles_parse("50,,60", pct, 16) < 0);
	CHECK(cp_percentiles_parse("1,2,3", pct, 2) < 0);
}

/* A trace of one root in "front" and one child in svc of child µs. */
static tr_reader *
one_trace(const char *svc, int64_t child, tr_trace **t)
{
	static char path[] = "/tmp/test_draw.XXXXXX";
	char *files[1];
	const char *line;
	size_t len;

	strcpy(path, "/tmp/test_draw.XXXXXX");
	FILE *f = fdopen(mkstemp(path), "w");

	fprintf(f, "#tr/1\nT\tt\nS\tt\ta\t\t0\t%lld\tfront\tGET\tserver\th\n"
		"S\tt\tb\ta\t0\t%lld\t%s\tq\tclient\th\n", (long long)(child + 1000),
		(long long)child, svc);
	fclose(f);
	files[0] = path;
	tr_reader *r = tr_reader_new(files, 1);
	enum tr_next n = tr_reader_next(r, t, &line, &len);

	remove(path);
	if (n != TR_TRACE)
		exit(1);
	return r;
}

static void
add(cp_compare *k, cp_trace *c, int64_t child, int baseline)
{
	tr_trace *t;
	tr_reader *r = one_trace("db", child, &t);

	cp_trace_run(c, t);
	cp_compare_add(k, t, c, baseline);
	tr_reader_free(r);
}

/* db's time per request: a baseline with slow stretches (neighbours slow
 * together, as behind a queue), against the same run reordered, and
 * against a run 20 ms slower throughout (the slow stretches make the
 * spread wide: batch means see it). */
static void
test_compare(void)
{
	cp_trace c;
	const cp_diff *rows;
	size_t n;

	cp_trace_init(&c, 0.01);
	for (int shift = 0; shift <= 20000; shift += 20000) {
		cp_compare *k = cp_compare_new("service");

		for (int i = 0; i < 400; i++)	/* every 50th to 59th request is slow */
			add(k, &c, (i / 10) % 5 == 0 ? 50000 : 10000, 1);
		for (int i = 0; i < 400; i++)
			add(k, &c, ((i + 20) / 10) % 5 == 0 ? 50000 + shift : 10000 + shift, 0);
		n = cp_compare_rows(k, &rows);
		CHECK_EQ(n, 2);
		CHECK_STR(rows[0].service, "db");
		CHECK(fabs(rows[0].before - 18000) < 1);
		CHECK_EQ(rows[0].significant, (shift > 0));
		cp_compare_free(k);
	}
	cp_trace_free(&c);
}

int
main(void)
{
	test_ticks();
	test_text();
	test_bands();
	test_compare();
	printf("test_draw: %d passed, %d failed\n", passed, failed);
	return failed != 0;
}
