/* table.c - the tools' reports: fields quoted for CSV, durations in the
 * units asked for, and tables written row by row. A JSON table is streamed:
 * its layout (a row a line) is written here, each string encoded by
 * jansson (core/json.h), and each number keeps the text it has in TSV
 * (fixed decimals such as 12.50 are no form jansson writes). */
#include "core/table.h"
#include "core/format.h"
#include "core/json.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void
table_csv_field(strbuf *b, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n')
			break;
	if (i == n) {
		sb_add(b, s, n);
		return;
	}
	sb_addc(b, '"');
	for (i = 0; i < n; i++) {
		if (s[i] == '"')
			sb_addc(b, '"');
		sb_addc(b, s[i]);
	}
	sb_addc(b, '"');
}

int
table_units_parse(const char *s)
{
	static const char *const names[] = {"us", "ms", "s", "auto"};

	for (int i = 0; i < 4; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	if (strcmp(s, "µs") == 0)
		return TABLE_US;
	return -1;
}

/* v / scale with the digits that scale leaves, trailing zeros dropped:
 * exact, since v is whole µs. */
static void
scaled(char *buf, size_t size, int64_t v, int64_t scale, int digits)
{
	uint64_t a = v < 0 ? -(uint64_t)v : (uint64_t)v;
	int n = snprintf(buf, size, "%s%llu.%0*llu", v < 0 ? "-" : "",
			 (unsigned long long)(a / (uint64_t)scale), digits,
			 (unsigned long long)(a % (uint64_t)scale));

	while (n > 0 && buf[n - 1] == '0')
		buf[--n] = '\0';
	if (n > 0 && buf[n - 1] == '.')
		buf[--n] = '\0';
}

/* Three significant digits in the largest unit that keeps the value at
 * least 1: 1.18 s, 601 ms, 45 µs; minutes and hours stay seconds. */
static void
readable(char *buf, size_t size, int64_t us)
{
	double a = us < 0 ? -(double)us : (double)us;
	const char *unit = "µs";
	double v = (double)us;

	if (a >= 1e6) {
		v /= 1e6;
		unit = "s";
	} else if (a >= 1e3) {
		v /= 1e3;
		unit = "ms";
	}
	if (a < 1e3 || fabs(v) >= 1000)	/* whole µs, or many seconds */
		snprintf(buf, size, "%.0f %s", v, unit);
	else
		snprintf(buf, size, "%.3g %s", v, unit);
}

void
table_duration(char *buf, size_t size, int64_t us, int u)
{
	switch (u) {
	case TABLE_MS:
		scaled(buf, size, us, 1000, 3);
		break;
	case TABLE_S:
		scaled(buf, size, us, 1000000, 6);
		break;
	case TABLE_AUTO:
		readable(buf, size, us);
		break;
	default:
		snprintf(buf, size, "%lld", (long long)us);
	}
}

void
table_duration_num(char *buf, size_t size, double us, int u)
{
	if (fabs(us) < 9.2e18) {
		table_duration(buf, size, llround(us), u);
		return;
	}
	double scale = u == TABLE_MS ? 1e3 : u == TABLE_US ? 1 : 1e6;

	snprintf(buf, size, u == TABLE_AUTO ? "%.3g s" : "%.17g", us / scale);
}

void
table_dur_col(char *buf, size_t size, const char *name, int u)
{
	static const char *const suffix[] = {"_us", "_ms", "_s", ""};
	size_t n = strlen(name);

	if (n > 3 && strcmp(name + n - 3, "_us") == 0)
		snprintf(buf, size, "%.*s%s", (int)n - 3, name, suffix[u]);
	else
		snprintf(buf, size, "%s", name);
}

void
table_begin(table *t, strbuf *out, int format, int units, const char *const *cols, size_t ncols)
{
	*t = (table){.out = out, .format = format, .units = units, .cols = cols, .ncols = ncols};
	if (format == TABLE_JSON) {
		sb_addc(out, '[');
		return;
	}
	for (size_t i = 0; i < ncols; i++)
		table_str(t, cols[i]);
}

/* The separator or the JSON name before field t->col, as raw text next. */
static void
field_start(table *t)
{
	if (t->format == TABLE_JSON) {
		if (t->col == 0)
			sb_adds(t->out, t->rows ? ",\n  {" : "\n  {");
		else
			sb_adds(t->out, ", ");
		tr_json_string(t->out, t->cols[t->col], strlen(t->cols[t->col]));
		sb_adds(t->out, ": ");
	} else if (t->col)
		sb_addc(t->out, t->format == TABLE_CSV ? ',' : '\t');
}

static void
field_end(table *t)
{
	if (++t->col < t->ncols)
		return;
	sb_adds(t->out, t->format == TABLE_JSON ? "}" : "\n");
	t->col = 0;
	t->rows++;
}

static void
raw_field(table *t, const char *text)
{
	field_start(t);
	sb_adds(t->out, text);
	field_end(t);
}

void
table_str(table *t, const char *s)
{
	size_t n = strlen(s);

	field_start(t);
	if (t->format == TABLE_JSON)
		tr_json_string(t->out, s, n);
	else if (t->format == TABLE_CSV)
		table_csv_field(t->out, s, n);
	else
		tr_escapes(t->out, s, 0);
	field_end(t);
}

void
table_int(table *t, int64_t v)
{
	char buf[32];

	snprintf(buf, sizeof buf, "%lld", (long long)v);
	raw_field(t, buf);
}

void
table_dur(table *t, int64_t us)
{
	char buf[40];

	table_duration(buf, sizeof buf, us, t->units);
	if (t->format == TABLE_JSON && t->units == TABLE_AUTO)
		table_str(t, buf);	/* text with a unit: a string */
	else
		raw_field(t, buf);
}

void
table_pct(table *t, int64_t part, int64_t whole)
{
	char buf[40];

	snprintf(buf, sizeof buf, "%.2f", whole ? 100.0 * (double)part / (double)whole : 0.0);
	raw_field(t, buf);
}

void
table_end(table *t)
{
	if (t->format == TABLE_JSON)
		sb_adds(t->out, t->rows ? "\n]\n" : "]\n");
}
