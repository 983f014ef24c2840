/* pick.h - what a user names on the command line: traces (--trace ID,
 * --trace-file FILE) and span tag keys (--summary, --worker-key, -r).
 *
 * A name that matches nothing in the input is an error the tools report at
 * the end, with the closest name they met (a truncated or mistyped trace
 * id usually shares its start with the right one). */
#ifndef TR_PICK_H
#define TR_PICK_H

#include <stddef.h>

#include "core/hash.h"
#include "core/trace.h"
#include "core/util.h"

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
/* The traces offered went through a filter first (by: "--where"): an id
 * not met may be in the input, and the warning says so. */
void tr_pick_filtered(tr_pick *p, const char *by);

/* A tag key the user named: did any span have it? While none has, the
 * keys met are kept for the message. */
typedef struct tr_keywatch {
	const char *key;
	size_t hits;
	strmap seen;
	arena mem;
} tr_keywatch;

void tr_keywatch_init(tr_keywatch *w, const char *key);
void tr_keywatch_free(tr_keywatch *w);
/* Span s was asked for the key; had says whether it had it. */
void tr_keywatch_note(tr_keywatch *w, const tr_span *s, int had);
/* When no span had the key: warn, as opt, with the closest of the keys met
 * and the n builtin names ("service"), and return 1. */
int tr_keywatch_missing(const tr_keywatch *w, const char *opt,
			const char *const *builtin, size_t n);

#endif
