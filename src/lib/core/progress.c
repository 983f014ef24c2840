/* progress.c - a progress line on stderr when it is a terminal. */
#include "core/progress.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/io.h"
#include "core/util.h"

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
	p->total = 0;
}

void
tr_progress_set_inputs(tr_progress *p, char *const *paths, size_t n)
{
	uint64_t total = 0;

	p->total = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t size = tr_regular_file_size(paths[i]);

		if (size < 0)
			return;	/* a pipe or a directory: its size is not known */
		total += (uint64_t)size;
	}
	p->total = total;
}

/* " 42%, 1m05s left" when the total is known and some bytes were read. */
static void
eta(const tr_progress *p, uint64_t bytes, double elapsed, char *buf, size_t size)
{
	buf[0] = '\0';
	if (!p->total || !bytes || bytes > p->total)
		return;
	double left = elapsed * (double)(p->total - bytes) / (double)bytes;
	unsigned long s = (unsigned long)(left + 0.5);

	if (s >= 3600)
		snprintf(buf, size, ", %.0f%%, %luh%02lum left", 100.0 * (double)bytes / (double)p->total,
			 s / 3600, s / 60 % 60);
	else
		snprintf(buf, size, ", %.0f%%, %lum%02lus left", 100.0 * (double)bytes / (double)p->total,
			 s / 60, s % 60);
}

void
tr_progress_tick(tr_progress *p, uint64_t bytes, uint64_t traces)
{
	char left[64];
	double t;

	if (!p->on || (++p->calls & 255))
		return;
	t = now();
	if (t - p->last < 1)
		return;
	p->last = t;
	eta(p, bytes, t - p->start, left, sizeof left);
	fprintf(stderr, "\r%s: %.0f MB, %llu traces, %.1f MB/s, %.0f traces/s%s   ", tr_progname,
		bytes / 1e6, (unsigned long long)traces, bytes / 1e6 / (t - p->start),
		traces / (t - p->start), left);
}

void
tr_progress_done(tr_progress *p)
{
	if (p->on && p->last > p->start)
		fputs("\r\033[K", stderr);	/* clear the line: the summary, if any, follows */
}
