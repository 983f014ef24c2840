/* pick.h - the traces a user names with --trace ID or --trace-file FILE.
 *
 * An id that matches no trace of the input is an error the tools report
 * at the end, with the closest id they met (a truncated or mistyped id
 * usually shares its start with the right one). */
#ifndef TR_PICK_H
#define TR_PICK_H

#include <stddef.h>

typedef struct tr_pick tr_pick;

tr_pick *tr_pick_new(void);
void tr_pick_free(tr_pick *p);
void tr_pick_add(tr_pick *p, const char *id);
/* Ids one per line; blank lines and lines starting with '#' are skipped,
 * surrounding blanks trimmed. Returns -1 with a message in err (the file's
 * name and line included) when it cannot be read or a line holds a TAB. */
int tr_pick_add_file(tr_pick *p, const char *path, char *err, size_t errsize);
/* No id given: every trace is picked. */
int tr_pick_all(const tr_pick *p);
/* Is the trace picked? Notes that the id was met. */
int tr_pick_match(tr_pick *p, const char *trace_id);
/* Warn, as opt ("--trace"), about every id no trace matched, with the
 * closest id met; returns how many. */
size_t tr_pick_missing(const tr_pick *p, const char *opt);

#endif
