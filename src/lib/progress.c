/* progress.c - a progress line on stderr when it is a terminal. */
#include "progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void
tr_progress_init(tr_progress *p)
{
	p->on = isatty(2);
	p->start = p->last = p->on ? now() : 0;
	p->calls = 0;
}

void
tr_progress_tick(tr_progress *p, uint64_t bytes, uint64_t traces)
{
	double t;

	if (!p->on || (++p->calls & 255))
		return;
	t = now();
	if (t - p->last < 1)
		return;
	p->last = t;
	fprintf(stderr, "\r%s: %.0f MB, %llu traces, %.1f MB/s, %.0f traces/s   ", tr_progname,
		bytes / 1e6, (unsigned long long)traces, bytes / 1e6 / (t - p->start),
		traces / (t - p->start));
}

void
tr_progress_done(tr_progress *p)
{
	if (p->on && p->last > p->start)
		fputs("\r\033[K", stderr);	/* clear the line: the summary, if any, follows */
}
