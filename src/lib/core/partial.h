/* partial.h - the frame of a --partial file, the same for every tool that
 * merges partials: a header line naming the tool, the format version and
 * what the partial was made for (the query, the options), then the records,
 * then an end mark counting them. Partials one after the other (cat) are
 * read as one file. A partial cut short, empty, of another
 * format or made for something else is bad input, told at file:line. */
#ifndef TR_PARTIAL_H
#define TR_PARTIAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/util.h"
#include "core/io.h"

#define TR_PARTIAL_VERSION 2

/* "#tr-KIND-partial/2\tMADE_FOR\n"; made_for has no TAB, LF or CR (escape
 * it first). */
void tr_partial_header(strbuf *b, const char *kind, const char *made_for);
/* "#end\tRECORDS\n": the last line; records counts the lines that are not
 * the frame's. */
void tr_partial_end(strbuf *b, uint64_t records);

/* Checks one partial file line by line. */
typedef struct tr_partial_check {
	const char *kind, *made_for;
	uint64_t records, lines;
	int state;	/* 0: before the header, 1: in the records, 2: after the end */
} tr_partial_check;

void tr_partial_check_start(tr_partial_check *c, const char *kind, const char *made_for);
/* The next line (without its LF): 1 for a record to merge, 0 for a line of
 * the frame, -1 when the file is not a whole partial (what says why). */
int tr_partial_check_line(tr_partial_check *c, const char *line, size_t len, char *what,
			  size_t whatlen);
/* The file ended: 0 when it ended with its end mark, -1 (what) when it is
 * empty or was cut short. */
int tr_partial_check_end(const tr_partial_check *c, char *what, size_t whatlen);

#endif

/* Merges one record of a partial (NUL-terminated, its CRs dropped; the
 * reader's buffer, which merge may change): 0, or -1 with what set. */
typedef int (*tr_partial_merge_fn)(void *ctx, char *line, size_t len, char *what,
				   size_t whatlen);
/* Merge the records of the partial files (none: standard input), each
 * checked against kind and made_for, through merge; with kind NULL, every
 * line is a record (files that are not partials: tr-cp --merge's). Messages
 * read "file:line: what". Returns 0; TR_EXIT_INPUT when keep_going skipped
 * records merge refused (the rest is merged); -1 when the merge stopped
 * (nothing is to be written): at a file that is not a whole partial, or at
 * a refused record without keep_going. */
int tr_partial_merge_files(char **files, int nfiles, const char *kind, const char *made_for,
			   int keep_going, tr_partial_merge_fn merge, void *ctx);
/* The same over one input already open (the caller closes it), for a
 * caller that peeked at its start to tell a partial from another file: a
 * pipe cannot be opened twice. */
int tr_partial_merge_input(tr_input *in, const char *kind, const char *made_for, int keep_going,
			   tr_partial_merge_fn merge, void *ctx);
