/* test_query.c - the query parser (canonical form, error positions) and the
 * group table's percentiles: exact nearest-rank, and the sketch within its
 * 1% relative error on skewed data, also after merging partial states. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "query/query_impl.h"

#include "check.h"

static int
prints_as(const char *src, const char *want)
{
	char err[300];
	size_t pos;
	query *q = query_parse(src, err, sizeof err, &pos);
	strbuf b = {0};
	int ok;

	if (!q) {
		fprintf(stderr, "'%s': %s at %zu\n", src, err, pos);
		return 0;
	}
	query_print(q, &b);
	ok = strcmp(b.s, want) == 0;
	if (!ok)
		fprintf(stderr, "got:\n%swant:\n%s", b.s, want);
	/* the canonical form parses to itself */
	query *again = query_parse(b.s, err, sizeof err, &pos);
	strbuf b2 = {0};
	if (again)
		query_print(again, &b2);
	ok = ok && again && strcmp(b.s, b2.s) == 0;
	query_free(again);
	query_free(q);
	sb_free(&b);
	sb_free(&b2);
	return ok;
}

static int
fails_at(const char *src, size_t want, const char *msg)
{
	char err[300];
	size_t pos = 9999;
	query *q = query_parse(src, err, sizeof err, &pos);

	if (q) {
		query_free(q);
		return 0;
	}
	if (pos != want || !strstr(err, msg))
		fprintf(stderr, "'%s': at %zu: %s\n", src, pos, err);
	return pos == want && strstr(err, msg) != NULL;
}

static unsigned long long rng = 0x9E3779B97F4A7C15ULL;

static double
uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

/* Percentiles of skewed (log-normal) durations: exact vs the sketch, and
 * the sketch of two halves merged through partial files. */
static void
check_percentiles(void)
{
	const char *src = "From s In spans Select P50(s.duration), P90(s.duration), "
			  "P99(s.duration), PERCENTILE(s.duration, 12.5), MIN(s.duration)";
	char err[300], path[] = "/tmp/test_queryXXXXXX";
	size_t pos, n = 20000;
	query *q = query_parse(src, err, sizeof err, &pos);
	q_table *exact = q_table_new(q, 0), *sketch = q_table_new(q, 1);
	q_table *half[2] = {q_table_new(q, 0), q_table_new(q, 0)}, *merged = q_table_new(q, 1);
	double *vals = malloc(n * sizeof *vals);

	CHECK(q != NULL && q->slots.n == 1);
	for (size_t i = 0; i < n; i++) {
		/* Box-Muller: exp(N(9, 1.5)) rounded to whole µs */
		double z = sqrt(-2 * log(uniform() + 1e-300)) * cos(6.283185307179586 * uniform());
		expr_value v = expr_num(floor(exp(9 + 1.5 * z)));
		vals[i] = v.num;
		q_table_add(exact, &v);
		q_table_add(sketch, &v);
		q_table_add(half[i % 2], &v);
	}
	int fd = mkstemp(path);
	close(fd);
	for (int h = 0; h < 2; h++) {
		tr_output *out = tr_output_open(path, 0);
		q_table_write_partial(half[h], out);
		tr_output_close(out);
		FILE *f = fopen(path, "r");
		char line[1 << 16];
		while (fgets(line, sizeof line, f)) {
			line[strcspn(line, "\n")] = '\0';
			CHECK_EQ(q_table_merge_line(merged, line, strlen(line), err, sizeof err), 0);
		}
		fclose(f);
	}
	unlink(path);

	expr_value *re, *rs, *rm;
	CHECK_EQ(q_table_rows(exact, &re), 1);
	CHECK_EQ(q_table_rows(sketch, &rs), 1);
	CHECK_EQ(q_table_rows(merged, &rm), 1);
	/* exact: nearest rank over the sorted values */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && vals[j - 1] > vals[j]; j--) {
			double t = vals[j];
			vals[j] = vals[j - 1];
			vals[j - 1] = t;
		}
	CHECK_EQ(re[0].num, vals[n / 2 - 1]);		/* rank 10000 */
	CHECK_EQ(re[1].num, vals[18000 - 1]);
	CHECK_EQ(re[2].num, vals[19800 - 1]);
	CHECK_EQ(re[3].num, vals[2500 - 1]);
	CHECK_EQ(re[4].num, vals[0]);
	for (int c = 0; c < 4; c++) {
		double rel = fabs(rs[c].num - re[c].num) / re[c].num;
		double relm = fabs(rm[c].num - re[c].num) / re[c].num;
		if (rel > 0.01 || relm > 0.01)
			fprintf(stderr, "column %d: exact %g sketch %g merged %g\n", c, re[c].num,
				rs[c].num, rm[c].num);
		CHECK(rel <= 0.01);
		CHECK(relm <= 0.01);
	}
	CHECK_EQ(rm[4].num, re[4].num);	/* MIN merges exactly */
	free(vals);
	q_table_free(exact);
	q_table_free(sketch);
	q_table_free(half[0]);
	q_table_free(half[1]);
	q_table_free(merged);
	query_free(q);
}

/* A crosstab's totals: the groups' states merged (q_table_merged) give what
 * one group of all their rows gives, for every aggregate; a key read in an
 * aggregate's argument is the group's. */
static void
check_merged_groups(void)
{
	const char *src = "From s In spans GroupBy s.tag[\"g\"] As g Select g, COUNT, SUM(s.duration), "
			  "AVG(s.duration), MIN(s.duration), MAX(s.duration), P50(s.duration), "
			  "COUNT(DISTINCT s.span), SUM(s.tag[\"g\"] = g)";
	char err[300];
	size_t pos;
	query *q = query_parse(src, err, sizeof err, &pos);

	CHECK(q != NULL);
	if (!q) {
		fprintf(stderr, "%s\n", err);
		return;
	}
	q_table *parts = q_table_new(q, 0), *one = q_table_new(q, 0);
	int sg = -1, sd = -1, ss = -1;

	for (size_t i = 0; i < q->slots.n; i++) {
		const q_slot *sl = &q->slots.v[i];

		if (sl->field == F_TAG)
			sg = (int)i;
		else if (sl->field == F_DURATION)
			sd = (int)i;
		else if (sl->field == F_SPAN)
			ss = (int)i;
	}
	CHECK(sg >= 0 && sd >= 0 && ss >= 0 && q->slots.n == 4);
	expr_value *slots = calloc(q->slots.n, sizeof *slots);
	char span[8][4] = {"a", "b", "c", "d", "e", "f", "g", "h"};
	for (int i = 0; i < 5000; i++) {
		slots[sg] = expr_num((double)(int)(uniform() * 5));
		slots[sd] = expr_num(floor(uniform() * 1e6));
		slots[ss] = expr_str(span[(int)(uniform() * 8)], 1);
		q_table_add(parts, slots);
		slots[sg] = expr_num(0);	/* all in one group */
		q_table_add(one, slots);
	}
	expr_value *rp, *ro;
	size_t n = q_table_rows(parts, &rp);
	CHECK_EQ(n, 5);
	CHECK_EQ(q_table_rows(one, &ro), 1);
	uint32_t all[5] = {0, 1, 2, 3, 4};
	expr_value nokey[1] = {expr_null()};
	for (int c = 1; c < 8; c++) {
		expr_value m = q_table_merged(parts, all, n, c, nokey);

		if (m.num != ro[c].num)
			fprintf(stderr, "column %d: merged %.17g, one group %.17g\n", c, m.num, ro[c].num);
		CHECK_EQ(m.type, EV_NUM);
		CHECK_EQ(m.num, ro[c].num);
	}
	/* every row's g is its group's (a key the table did not fill would be
	 * null, and the comparison false): the last column counts them all */
	for (size_t g = 0; g < n; g++)
		CHECK(rp[g * (size_t)q->ncols + 8].num == rp[g * (size_t)q->ncols + 1].num &&
		      rp[g * (size_t)q->ncols + 1].num > 0);
	free(slots);
	q_table_free(parts);
	q_table_free(one);
	query_free(q);
}

int
main(void)
{
	CHECK(prints_as("from s in spans[service = \"mysql\"] join r in first(spans[parent = null]) on r -> s "
			"where s.duration > 100ms groupby r.operation "
			"select r.operation, count, avg(s.duration), p99(s.duration) as p",
			"From s In spans[service == \"mysql\"]\n"
			"Join r In First(spans[parent == null]) On r -> s\n"
			"Where s.duration > 100000\n"
			"GroupBy r.operation\n"
			"Select r.operation, count, AVG(s.duration), P99(s.duration) As p\n"));
	CHECK(prints_as("From a In spans, logs[event = 'x'] Join b In MostRecentN(3, spans) On a -> b "
			"Select a.span, b.tag[\"k\"]",
			"From a In spans, logs[event == \"x\"]\n"
			"Join b In MostRecentN(3, spans) On a -> b\n"
			"Select a.span, b.tag[\"k\"]\n"));
	CHECK(prints_as("From x In (From s In spans GroupBy s.trace Select s.trace As t, SUM(s.self) As busy) "
			"Group By bucket(x.busy, 1ms) As b Select b, COUNT(DISTINCT x.t)",
			"From x In (\n"
			"    From s In spans\n"
			"    GroupBy s.trace\n"
			"    Select s.trace As t, SUM(s.self) As busy\n"
			"  )\n"
			"GroupBy bucket(x.busy, 1000) As b\n"
			"Select b, COUNT(DISTINCT x.t)\n"));
	CHECK(fails_at("From s In spans Select s.nope", 23, "unknown field 'nope'"));
	CHECK(fails_at("From s In spans\nWhere s.duration >\nSelect s.span", 35, "expected an expression, not Select"));
	CHECK(fails_at("From s In spans Join r In First(spans On r -> s Select s.span", 38, "expected ')'"));
	CHECK(fails_at("From s In spans Join r In spans On r => s Select s.span", 37, "expected '->'"));
	CHECK(fails_at("From x In (From s In spans Select s.span As id) Select x.nope", 55, "no column 'nope'"));
	CHECK(fails_at("From s In spans Select AVG(COUNT)", 27, "COUNT is an aggregate"));
	CHECK(fails_at("From s In spans Select COUNT(DISTINCT s.span, s.trace)", 23, "count takes"));
	CHECK(fails_at("From s In spans Select SUM(DISTINCT s.duration)", 23, "DISTINCT only in COUNT"));
	CHECK(fails_at("", 0, "expected From"));
	{
		strbuf b = {0};
		/* columns count characters: the UTF-8 a-umlaut is one */
		query_error_text("From s\nIn  sp\xc3\xa4ns x", 15, "boom", &b);
		CHECK_STR(b.s, "query:2:8: boom\n    In  sp\xc3\xa4ns x\n           ^\n");
		sb_free(&b);
	}
	check_percentiles();
	check_merged_groups();
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
