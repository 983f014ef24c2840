/* progress.h - a progress line on stderr for long runs, only when stderr is a
 * terminal (never in pipelines' logs or tests). */
#ifndef TR_PROGRESS_H
#define TR_PROGRESS_H

#include <stdint.h>

typedef struct tr_progress {
	int on;
	double start, last;
	unsigned calls;
} tr_progress;

void tr_progress_init(tr_progress *p);
/* Cheap to call per trace: looks at the clock every 256 calls, prints at most once a second. */
void tr_progress_tick(tr_progress *p, uint64_t bytes, uint64_t traces);
void tr_progress_done(tr_progress *p);

#endif
