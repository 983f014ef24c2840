/* pagcp.h - critical participation (SnailTrail) over PAG records that tr-pag
 * writes. tr-cp feeds every PAG record of its input here; a window is
 * computed once the PM mark after it arrives, the rest at the end. */
#ifndef TR_PAGCP_H
#define TR_PAGCP_H

#include <stddef.h>
#include <stdint.h>

#include "core/io.h"

typedef struct pag_cp pag_cp;

typedef struct pag_cp_opts {
	const char *format;	/* "tsv" (default), "csv" or "json" */
	int header;		/* print a header line (tsv/csv) */
	size_t max_windows;	/* more is bad input; 0: PAG_MAX_WINDOWS */
	int units;		/* of the time column: enum table_units (0: µs) */
} pag_cp_opts;

/* True when the line is a PAG record (a type tr-pag writes). */
int pag_cp_is_record(const char *line, size_t len);
pag_cp *pag_cp_new(const pag_cp_opts *o);
/* Take one PAG record; returns -1 after printing a message (after where,
 * "file:line", unless NULL) when it is bad. */
int pag_cp_feed(pag_cp *p, const char *line, size_t len, const char *where);
/* Move the rows of the windows done so far (PM marks in the input) to out:
 * callers whose output holds nothing else yet can write them at once. */
void pag_cp_take(pag_cp *p, strbuf *out);
/* True once at least one PAG record was fed. */
int pag_cp_has_input(const pag_cp *p);
/* Compute CP per window and write the four summaries; -1 after a message
 * when the graph has more windows than allowed (nothing more written),
 * no edge, or windows that all last no time (their rows written). */
int pag_cp_report(pag_cp *p, tr_output *out);
void pag_cp_free(pag_cp *p);

/* tr-pag --merge: the partials tr-cp wrote for shards' graphs (tr-pag
 * --own; none: standard input) as the table one pass writes (TSV): the
 * owned windows in order, the totals over them. TR_EXIT_INPUT, nothing
 * written, when a partial is bad, two claim a window, one is missing
 * between two others, or two shards computed a window differently (said
 * "file:line: what"); else TR_EXIT_OK. */
int pag_cp_merge(char **files, int nfiles, tr_output *out);

#endif
