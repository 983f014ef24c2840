/* table.h - the tools' reports as TSV, CSV or JSON tables, fields quoted as
 * each format wants, and durations in the unit asked for (--units); shared
 * by every tool that writes a report (tr-cp, tr-infer, tr-temporal,
 * tr-aggregate). */
#ifndef TR_TABLE_H
#define TR_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "core/util.h"

/* RFC 4180: quoted only when it holds a comma, a quote, CR or LF. */
void table_csv_field(strbuf *b, const char *s, size_t n);

/* --units: us (the default, whole numbers for scripts), ms, s (decimals,
 * exact to the µs), or auto: a readable unit per value, written with it
 * ("1.18 s", "601 ms", "45 µs"), for people, so not in CSV or JSON. */
enum table_units { TABLE_US, TABLE_MS, TABLE_S, TABLE_AUTO };
/* The units named s, or -1. */
int table_units_parse(const char *s);
/* Text of a duration of us µs in units u, NUL-terminated in buf (32 bytes
 * are always enough). */
void table_duration(char *buf, size_t size, int64_t us, int u);
/* The same for a number that may be past an int64_t (a SUM beyond 2^63
 * µs, summed as a double): never converted to a wrapped integer. */
void table_duration_num(char *buf, size_t size, double us, int units);
/* The name of a column of durations, NAME_us, for the units: NAME_ms,
 * NAME_s, or NAME alone with auto (each value says its unit); any other
 * name as it is. */
void table_dur_col(char *buf, size_t size, const char *name, int u);
/* The --units line of a tool's --help (see filter.h for the layout). */
#define TABLE_UNITS_USAGE \
	"      --units U           durations in us (tables' default), ms, s, or auto:\n" \
	"                          a readable unit each\n"

/* A table written row by row: a header line for TSV and CSV, an array of
 * objects named by the columns for JSON. Fields go in column order; the
 * last of a row ends it. */
enum table_format { TABLE_TSV, TABLE_CSV, TABLE_JSON };
typedef struct table {
	strbuf *out;
	int format, units;
	const char *const *cols;
	size_t ncols, col, rows;
} table;

void table_begin(table *t, strbuf *out, int format, int units,
		 const char *const *cols, size_t ncols);
void table_str(table *t, const char *s);
void table_int(table *t, int64_t v);
/* A duration in µs, in the table's units. */
void table_dur(table *t, int64_t us);
/* A percentage of part in whole, two decimals (0 when whole is 0). */
void table_pct(table *t, int64_t part, int64_t whole);
/* Closes a JSON array; nothing for TSV and CSV. */
void table_end(table *t);

#endif
