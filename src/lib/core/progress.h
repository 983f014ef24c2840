/* progress.h - a progress line on stderr for long runs, only when stderr is a
 * terminal (never in pipelines' logs or tests). */
#ifndef TR_PROGRESS_H
#define TR_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

typedef struct tr_progress {
	int on;
	double start, last;
	unsigned calls;
	uint64_t total;		/* bytes of all inputs; 0: not known */
} tr_progress;

void tr_progress_init(tr_progress *p);
/* The inputs' total size, known when each of the n paths is a regular file
 * (none is stdin): the line then shows the percentage done and an ETA. */
void tr_progress_set_inputs(tr_progress *p, char *const *paths, size_t n);
/* bytes counts what was read of the files as they are (compressed); cheap to call per trace: looks at the clock every 256 calls, prints at most once a second. */
void tr_progress_tick(tr_progress *p, uint64_t bytes, uint64_t traces);
void tr_progress_done(tr_progress *p);

#endif
