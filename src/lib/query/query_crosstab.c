/* query_crosstab.c - a grouped table as a crosstab (Pivot Tracing's Fig. 1c):
 * the first Select column's values down, the second's across, the third in
 * the cells; a last column and a last row of totals, each the value over
 * the rows of its row, its column or the whole table (the groups' states
 * merged, so a total of AVG or P99 is the average or p99 of those rows). */
#include "query_impl.h"

#include <stdlib.h>
#include <string.h>

/* The GroupBy key Select column col is, or -1: one over rows that is a key,
 * or a key named by its As name (read over groups). */
static int
col_key(const query *q, int col)
{
	const q_col *c = &q->cols[col];
	int slot = expr_slot(c->e);

	if (c->key >= 0)
		return c->key;
	return !c->row && slot >= 0 && slot < q->nkeys ? slot : -1;
}

/* A group at its place: row and column numbers, and its index. */
typedef struct xcell {
	uint32_t r, c, g;
} xcell;

static int
by_row(const void *pa, const void *pb)
{
	const xcell *a = pa, *b = pb;

	if (a->r != b->r)
		return a->r < b->r ? -1 : 1;
	return a->c < b->c ? -1 : a->c > b->c;
}

static int
by_col(const void *pa, const void *pb)
{
	const xcell *a = pa, *b = pb;

	if (a->c != b->c)
		return a->c < b->c ? -1 : 1;
	return a->r < b->r ? -1 : a->r > b->r;
}

static int
cmp_value(const void *pa, const void *pb)
{
	return expr_compare(*(const expr_value *)pa, *(const expr_value *)pb);
}

/* The distinct values of column col over the n rows, sorted, into *out. */
static size_t
distinct(const expr_value *rows, size_t n, size_t nc, int col, expr_value **out)
{
	expr_value *v = xmalloc((n ? n : 1) * sizeof *v);
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		v[i] = rows[i * nc + (size_t)col];
	qsort(v, n, sizeof *v, cmp_value);
	for (size_t i = 0; i < n; i++)
		if (!m || expr_compare(v[m - 1], v[i]) != 0)
			v[m++] = v[i];
	*out = v;
	return m;
}

static uint32_t
place(const expr_value *vals, size_t n, expr_value x)
{
	const expr_value *p = bsearch(&x, vals, n, sizeof *vals, cmp_value);

	return (uint32_t)(p - vals);
}

static void
add_cell(strbuf *b, const query *q, int col, expr_value v, int units)
{
	char buf[32];
	size_t len;
	const char *s = q_format_value(q, col, v, units, buf, sizeof buf, &len);

	sb_addc(b, '\t');
	tr_escape(b, s, len, 0);
}

/* The total of the groups of cells[0..n): their states merged. */
static expr_value
total(q_table *t, const xcell *cells, size_t n, uint32_t *scratch, const expr_value *keys)
{
	for (size_t i = 0; i < n; i++)
		scratch[i] = cells[i].g;
	return q_table_merged(t, scratch, n, 2, keys);
}

/* One line per row value: its cells, then its total. */
/* The window's start and a TAB, when there is one. */
static void
add_window(strbuf *b, const expr_value *window)
{
	char buf[32];
	size_t len;

	const char *s;

	if (!window)
		return;
	s = expr_format(*window, buf, sizeof buf, &len);
	sb_add(b, s, len);
	sb_addc(b, '\t');
}

static void
write_body(strbuf *b, const query *q, q_table *t, const xcell *cells, size_t n, const expr_value *rowv,
	   size_t ncolv, const expr_value *rows, uint32_t *scratch, int units, const expr_value *window)
{
	size_t nc = (size_t)q->ncols;
	expr_value *keys = xcalloc((size_t)q->nkeys + 1, sizeof *keys);
	char buf[32];
	size_t len;

	for (size_t i = 0; i < n;) {
		size_t j = i;
		const char *s = q_format_value(q, 0, rowv[cells[i].r], units, buf, sizeof buf, &len);

		add_window(b, window);
		tr_escape(b, s, len, 0);
		for (uint32_t c = 0; c < ncolv; c++) {
			if (j < n && cells[j].r == cells[i].r && cells[j].c == c)
				add_cell(b, q, 2, rows[cells[j++].g * nc + 2], units);
			else
				sb_addc(b, '\t');
		}
		keys[col_key(q, 0)] = rowv[cells[i].r];
		add_cell(b, q, 2, total(t, cells + i, j - i, scratch, keys), units);
		sb_addc(b, '\n');
		i = j;
	}
	free(keys);
}

/* The last line: each column's total, then the whole table's. */
static void
write_totals(strbuf *b, const query *q, q_table *t, xcell *cells, size_t n, const expr_value *colv,
	     uint32_t *scratch, int units, const expr_value *window)
{
	expr_value *keys = xcalloc((size_t)q->nkeys + 1, sizeof *keys);

	add_window(b, window);
	sb_adds(b, "total");
	qsort(cells, n, sizeof *cells, by_col);
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && cells[j].c == cells[i].c)
			j++;
		keys[col_key(q, 1)] = colv[cells[i].c];
		add_cell(b, q, 2, total(t, cells + i, j - i, scratch, keys), units);
		i = j;
	}
	keys[col_key(q, 1)] = expr_null();
	add_cell(b, q, 2, total(t, cells, n, scratch, keys), units);
	sb_addc(b, '\n');
	free(keys);
}

void
q_write_crosstab(strbuf *b, const query *q, q_table *t, int units, const expr_value *window)
{
	size_t nc = (size_t)q->ncols;
	expr_value *rows, *rowv, *colv;
	size_t n = q_table_rows(t, &rows);
	size_t nrowv = distinct(rows, n, nc, 0, &rowv), ncolv = distinct(rows, n, nc, 1, &colv);
	xcell *cells = xmalloc((n ? n : 1) * sizeof *cells);
	uint32_t *scratch = xmalloc((n ? n : 1) * sizeof *scratch);

	for (size_t i = 0; i < n; i++)
		cells[i] = (xcell){place(rowv, nrowv, rows[i * nc]), place(colv, ncolv, rows[i * nc + 1]),
				   (uint32_t)i};
	qsort(cells, n, sizeof *cells, by_row);
	if (window)
		sb_adds(b, "window\t");
	tr_escapes(b, q->cols[0].name, 0);
	for (size_t c = 0; c < ncolv; c++)
		add_cell(b, q, 1, colv[c], units);
	sb_adds(b, "\ttotal\n");
	write_body(b, q, t, cells, n, rowv, ncolv, rows, scratch, units, window);
	write_totals(b, q, t, cells, n, colv, scratch, units, window);
	free(cells);
	free(scratch);
	free(rowv);
	free(colv);
}

int
query_crosstab_check(const query *q, char *err, size_t errlen)
{
	if (q->nkeys != 2 || q->nshown != 3 || col_key(q, 0) < 0 || col_key(q, 1) < 0 ||
	    col_key(q, 0) == col_key(q, 1) || col_key(q, 2) >= 0) {
		snprintf(err, errlen, "-f crosstab needs two GroupBy keys and Select row key, "
			 "column key, value");
		return -1;
	}
	if (q->norder || q->limit) {
		snprintf(err, errlen, "-f crosstab sorts its rows and columns by their keys: "
			 "no OrderBy or Limit");
		return -1;
	}
	return 0;
}
