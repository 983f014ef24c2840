/* offsets.h - per-host clock offsets for the read loop (--clock-offsets,
 * tr(7) CLOCKS): estimated from the input's RPCs (clock.h) or read
 * from O records (tr-format(5)), moved into every span as it is read. */
#ifndef TR_OFFSETS_H
#define TR_OFFSETS_H

#include <stddef.h>
#include <stdint.h>

#include "core/util.h"
#include "clock.h"

typedef struct tr_offsets tr_offsets;

/* The O records of path (header, comments and empty lines aside); a line
 * that is not one is bad input: "file:line: what", exit 3. */
tr_offsets *tr_offsets_read(const char *path);
/* The offsets of an estimated clock, which the offsets then own. */
tr_offsets *tr_offsets_of_clock(tr_clock *c);
/* Every host's offset as a clock (tr-temporal's analysis takes one). */
const tr_clock *tr_offsets_clock(const tr_offsets *o);

/* For tr_reader_set_shift: the µs host's spans move (notes the host as
 * seen). tr_offsets_note: the host noted, nothing moved. */
int64_t tr_offsets_shift(void *o, const char *host);
int64_t tr_offsets_note(void *o, const char *host);

/* -v: a line per host (its offset and the RPCs behind it) on stderr. */
void tr_offsets_report(const tr_offsets *o);
/* The records' hosts no span read had, each named in a warning
 * ("file:line: no span of the input is on host H"); returns how many. */
size_t tr_offsets_unseen(const tr_offsets *o);

/* The O records of c (no header): one a host, in c's order. */
void tr_offsets_write(const tr_clock *c, strbuf *b);

/* tr-ingest --clock-offsets over the inputs, into b: the O records (header
 * first) estimated from the inputs' RPCs; with --partial, the evidence
 * behind them as a partial (tr-ingest(1)); with --merge, the O records
 * solved from the evidence of the partial files (none: standard input) as
 * one pass over their inputs would. *nhosts: the hosts written. 0, or
 * TR_EXIT_INPUT when a partial was bad ("file:line: what" said). */
enum tr_offsets_mode { TR_OFFSETS_ESTIMATE, TR_OFFSETS_PARTIAL, TR_OFFSETS_MERGE };
int tr_offsets_produce(enum tr_offsets_mode m, char **files, int nfiles, size_t max_spans,
		       size_t max_bytes, int flags, strbuf *b, size_t *nhosts);

void tr_offsets_free(tr_offsets *o);

#endif
