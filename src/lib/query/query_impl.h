/* query_impl.h - the parsed query, shared by query_parse.c (building it),
 * query_eval.c (running it over a trace) and query_agg.c (the group table). */
#ifndef TR_QUERY_IMPL_H
#define TR_QUERY_IMPL_H

#include "query/query.h"

/* What a slot reads from the node (or subquery row) bound to a variable. */
enum q_field {
	F_TRACE, F_SPAN, F_PARENT, F_SERVICE, F_OPERATION, F_KIND, F_HOST,
	F_START, F_DURATION, F_END, F_SELF, F_DEPTH, F_ROOT, F_ERROR, F_ERROR_MESSAGE,
	F_TRACE_START, F_TRACE_DURATION, F_ROOT_DURATION, F_TIME, F_EVENT,
	F_TAG,		/* tag["key"] */
	F_COL,		/* a column of a subquery row */
	F_KEY,		/* a group key: by its index in select context; in an
			 * aggregate's argument, by its As name (col), its
			 * value in the group the row is added to */
	F_AGG		/* select context: an aggregate's result */
};

typedef struct q_slot {
	int var;		/* -1: the node a source filter is testing */
	enum q_field field;
	char *key;		/* F_TAG */
	int col;		/* F_COL, F_KEY, F_AGG: its index */
	int in_key;		/* a GroupBy key reads it */
} q_slot;

typedef struct q_slots {
	q_slot *v;
	size_t n, cap;
} q_slots;

enum q_rel { REL_SPANS, REL_LOGS, REL_QUERY };

typedef struct q_source {
	enum q_rel rel;
	expr *filter;		/* over bare field names; NULL: every node */
	q_slots fslots;
	query *sub;		/* REL_QUERY */
} q_source;

enum q_sel { SEL_ALL, SEL_FIRST, SEL_RECENT };

typedef struct q_var {
	char *name;
	q_source *src;		/* a union (bag) of sources */
	int nsrc;
	size_t capsrc;
	enum q_sel sel;
	int n;			/* how many First/MostRecent keep: 1, or N of FirstN */
	int other;		/* the variable of the On clause, -1 for From */
	int before;		/* On this -> other (1) or other -> this (0) */
} q_var;

enum q_agg_kind { A_COUNT, A_COUNT_DISTINCT, A_SUM, A_MIN, A_MAX, A_AVG, A_PCT };

typedef struct q_agg {
	enum q_agg_kind kind;
	expr *arg;		/* NULL for COUNT */
	double p;		/* A_PCT: 0..100 */
	char *text;		/* canonical, e.g. P99(s.duration) */
} q_agg;

typedef struct q_col {
	char *name;		/* As name, or the text as written */
	int named;		/* the name came from As */
	char *canon;		/* expr_print of e */
	expr *e;
	int key;		/* select: >= 0 when the column is group key i */
	int row;		/* select: parsed over rows (a key, or a raw column) */
	int each;		/* GroupBy each(e): a key per value of the list e */
	size_t pos;		/* where it starts in the query */
	int hidden;		/* an OrderBy or Per expression: computed, not written */
	int dur;		/* a duration: written in the --units asked for */
} q_col;

/* OrderBy: a column (shown or hidden), descending or not. */
typedef struct q_order {
	int col;
	int desc;
} q_order;

struct query {
	char *src;
	q_var *vars;
	int nvars;
	size_t capvars;
	expr *where;
	q_col *keys;		/* GroupBy, in row context */
	int nkeys;
	size_t capkeys;
	q_col *cols;		/* Select: select context, or row context when raw */
	int ncols;
	int nshown;		/* the Select columns; hidden ones follow */
	q_order *order;		/* OrderBy, in the output's order */
	int norder;
	size_t caporder;
	long limit;		/* Limit n; 0: none */
	int per;		/* Limit n Per x: x's column, -1: none */
	size_t capcols;
	q_agg *aggs;
	int naggs;
	size_t capaggs;
	q_slots slots;		/* row context: fields of the variables */
	int grouped;		/* GroupBy or an aggregate: else raw rows */
	int each;		/* a GroupBy key is each(...) */
	int uses_logs, uses_self, uses_trace_times;
	int parsing_keys;	/* while the GroupBy keys are parsed */
};

/* Static type of a field (expr_type), -1 for tags and subquery columns. */
int q_field_type(enum q_field f);
int q_field_lookup(const char *name, size_t len);
const char *q_field_name(enum q_field f);

/* The values of a list (query_list.c): a JSON array's elements, typed as
 * tags are (strings stay strings, nested arrays and objects are their
 * text, null is null); any other value is a list of itself; null has no
 * values. Valid until the next split. */
typedef struct q_list {
	expr_value *v;
	size_t n, cap;
	struct q_list_element *els;
	size_t capels;
	strbuf text;
} q_list;
void q_list_split(q_list *l, expr_value x);
void q_list_free(q_list *l);

/* query_names.c: the services and operations a Where or a source filter
 * compares with ("= \"name\""), checked against those the spans have. */
typedef struct q_names q_names;
q_names *q_names_new(const query *q);
void q_names_note(q_names *w, const tr_trace *t);
/* Warn about each name no span had, with the closest that one had;
 * returns how many. */
size_t q_names_missing(const q_names *w);
void q_names_free(q_names *w);

/* The group table (query_agg.c), used by the run and by subqueries. */
typedef struct q_table q_table;
q_table *q_table_new(const query *q, int sketch);
/* Add one row: slots hold the row context's values. With each() keys, one
 * row per combination of their values (none when a list is empty); the
 * slots of keys named in aggregates' arguments (F_KEY) get the row's keys. */
void q_table_add(q_table *t, expr_value *slots);
/* Final rows: ncols values each, sorted by key; valid until the next reset. */
size_t q_table_rows(q_table *t, expr_value **rows);
size_t q_table_groups(const q_table *t);
void q_table_reset(q_table *t);
void q_table_free(q_table *t);
void q_table_write_partial(q_table *t, tr_output *out);
/* --exact-percentiles: partials write a percentile's values as value counts,
 * not a sketch (a merge of such partials is exact). */
void q_table_exact_partials(q_table *t);
/* After q_table_rows: a shown column with a percentile taken from a sketch
 * (after --merge) gets " (approx)" after its name, and a message says so. */
void q_table_mark_approx(const q_table *t, query *q);
/* What a partial of q is made for: its text, escaped. */
void q_partial_for(const query *q, strbuf *b);
int q_table_merge_line(q_table *t, const char *line, size_t len, char *err, size_t errlen);

/* The Select column col of the groups groups[0..n) (indexes into the rows of
 * q_table_rows) taken as one group: their states merged, the keys as given
 * (null for a key they do not share). For a crosstab's totals. */
expr_value q_table_merged(q_table *t, const uint32_t *groups, size_t n, int col,
			  const expr_value *keys);
/* Write the rows of t as a crosstab (query_crosstab.c): see tr-aggregate(1).
 * window: the start of the window they are (--emit-every), first on each
 * line; NULL: none. */
void q_write_crosstab(strbuf *b, const query *q, q_table *t, int units,
		      const expr_value *window);

/* Value v of column col as text: in units when the column holds durations. */
const char *q_format_value(const query *q, int col, expr_value v, int units, char *buf,
			   size_t size, size_t *len);
/* Values out as text in each output format. */
void q_write_header(strbuf *b, const query *q, enum query_format f, int window);
/* units: a table_units; the columns marked dur are written in them, except
 * TABLE_US, which leaves every value as computed (an average keeps its
 * fraction of a µs). window: a window's start (--emit-every) as the first
 * column, "window"; NULL, 0: none. */
void q_write_row(strbuf *b, const query *q, const expr_value *vals, enum query_format f,
		 int units, int first_json_row, const expr_value *window);

#endif
