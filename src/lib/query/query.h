/* query.h - Pivot Tracing queries over the spans of traces (tr-aggregate).
 *
 *   From s In spans[service = "mysql"]
 *   Join r In First(spans[parent = null]) On r -> s
 *   Where s.duration > 100ms
 *   GroupBy r.operation
 *   Select r.operation, COUNT, AVG(s.duration), P99(s.duration)
 *
 * A query is parsed once, then run over each trace in turn (happened-before
 * joins are within one trace); grouped results accumulate in a table whose
 * size is the number of groups. The grammar is in tr-aggregate(1). */
#ifndef TR_QUERY_H
#define TR_QUERY_H

#include <stddef.h>
#include <stdint.h>

#include "core/expr.h"
#include "core/io.h"
#include "core/trace.h"

typedef struct query query;

enum query_hb { QUERY_HB_SEQ, QUERY_HB_TREE };

/* Parse a query. NULL on error: *errpos is the byte offset of the error in
 * src and err holds the message. */
query *query_parse(const char *src, char *err, size_t errlen, size_t *errpos);
void query_free(query *q);
/* The query in canonical form (one clause a line). */
void query_print(const query *q, strbuf *b);
int query_is_grouped(const query *q);
int query_ncols(const query *q);
const char *query_col_name(const query *q, int i);

/* Format an error at byte pos of src as "LINE:COL: msg", the line, and a caret. */
void query_error_text(const char *src, size_t pos, const char *msg, strbuf *b);

/* ---- running ---- */

typedef struct query_run query_run;

enum query_format { QUERY_TSV, QUERY_CSV, QUERY_JSON, QUERY_CROSSTAB };

/* Can the query's table be written as a crosstab (two GroupBy keys; Select
 * row key, column key, value; no OrderBy or Limit)? 0, or -1 with err set. */
int query_crosstab_check(const query *q, char *err, size_t errlen);

typedef struct query_opts {
	enum query_hb hb;
	size_t max_rows_per_trace;	/* join rows of one trace; 0: no bound */
	enum query_format format;
	int header;
	int explain;			/* count candidates and join rows */
	int sketch;			/* percentiles from the sketch (after --merge) */
	int exact_pct;			/* --partial: percentiles as exact value counts */
	const expr *fail_if;		/* over the result columns (query_fail_if_parse) */
	const char *fail_if_text;
	int quiet;			/* no message per failing row */
	int units;			/* --units (table_units): duration columns */
	int64_t every;			/* --emit-every: the windows' length in µs; 0: none */
	int64_t lateness;		/* --lateness: how long a window waits, µs */
} query_opts;

query_run *query_run_new(const query *q, const query_opts *o);
/* Run the query over one trace. Raw (ungrouped) rows are appended to out at
 * once; grouped rows accumulate. Returns 0, or -1 when the trace's join rows
 * exceed max_rows_per_trace (the trace then counts for nothing). With
 * every set, the windows the trace closed are appended to out: returns 1
 * when it closed one. */
int query_run_trace(query_run *r, tr_trace *t, strbuf *out);
/* Write the table of grouped results (sorted by key) and the end of a JSON
 * array; returns how many rows matched --fail-if (their messages printed). */
size_t query_run_finish(query_run *r, tr_output *out);
/* Rows that matched --fail-if so far (raw rows are checked as written). */
size_t query_run_failed(const query_run *r);
/* --emit-every: rows left out of the windows (late, or without a time). */
size_t query_run_left_out(const query_run *r);
/* Traces the query ran over. */
size_t query_run_traces(const query_run *r);
/* Result rows made from input rows (after query_run_finish): an aggregate
 * without GroupBy over no row writes its one row (COUNT 0), counted none. */
size_t query_run_rows(const query_run *r);
/* Warn about every tag a GroupBy key reads (with --fail-if: every tag the
 * query reads) that no span of the rows had, with the closest tag key met;
 * returns how many. */
size_t query_run_unmatched_keys(const query_run *r);
/* Note every service or operation a Where or a source filter compares
 * with ("= \"name\"") that no span had, with the closest name one had;
 * returns how many. */
size_t query_run_unmatched_names(const query_run *r);
/* --explain: the query and the per-join row counts, on f. */
void query_run_explain(const query_run *r, FILE *f);
/* --partial: write the group table as mergeable states; --merge: read one. */
void query_run_write_partial(query_run *r, tr_output *out);
/* --merge: the partials files (none: stdin), each checked whole (its
 * header, this query, its end mark: partial.h); 0 or TR_EXIT_INPUT after
 * a message. */
int query_run_merge_files(query_run *r, char **files, int nfiles);
void query_run_free(query_run *r);

/* Parse a --fail-if expression over the query's result columns: names are
 * the columns' As names or their text (COUNT, P99(s.duration)). */
expr *query_fail_if_parse(const query *q, const char *src, char *err, size_t errlen,
			  size_t *errpos);

/* ---- happened-before over the span tree (also used by the unit test) ---- */

typedef struct query_hb_index query_hb_index;
/* Index the spans (and, with logs, log events as leaves of their spans). */
query_hb_index *query_hb_build(const tr_trace *t, int with_logs, arena *mem);
/* Is node a -> node b? Nodes: spans 0..nspans-1, then logs. */
int query_hb_before(const query_hb_index *h, int32_t a, int32_t b, enum query_hb mode);
/* Position of a node in the pre-order (a linear extension of ->). */
int32_t query_hb_order(const query_hb_index *h, int32_t node);
/* When node a entered the past (or future) of node b, for MostRecent: a's
 * start when a is a proper ancestor of b (it is still running at b), else
 * a's end; INT64_MIN without time. */
int64_t query_hb_reached(const query_hb_index *h, int32_t a, int32_t b);

/* Self time of every span: its duration not covered by its children,
 * FOLLOWS_FROM ones included (as the current Jaeger UI's trace statistics
 * compute it); into self[nspans]. */
void query_self_times(const tr_trace *t, int64_t *self);

#endif
