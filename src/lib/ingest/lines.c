/* lines.c - an export where the line format is expected.
 *
 * Every filter's reader hands a Jaeger, Zipkin or OTLP file here and reads
 * what tr-ingest writes for it. The conversion goes to a temporary file:
 * ingest needs the memory it needs as tr-ingest (a Jaeger trace at a time,
 * Zipkin and OTLP as the first pass allows), and the reader then streams the
 * line format trace by trace as from any other file, with no second copy
 * of the export in memory. */
#include "ingest/context.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A temporary file, open for writing (*fd) and for reading (*rfd) and
 * already removed: nothing is left behind however the run ends, SIGKILL
 * included. */
static char *
temp_path(int *fd, int *rfd)
{
	const char *dir = getenv("TMPDIR");
	size_t n = (dir && *dir ? strlen(dir) : 4) + 32;
	char *tmp = xmalloc(n);

	snprintf(tmp, n, "%s/tr-export.XXXXXX", dir && *dir ? dir : "/tmp");
	if ((*fd = mkstemp(tmp)) < 0)
		tr_die(TR_EXIT_SYSTEM, "%s: cannot create a temporary file: %s", tmp, strerror(errno));
	*rfd = open(tmp, O_RDONLY);
	int e = errno;
	unlink(tmp);
	if (*rfd < 0)
		tr_die(TR_EXIT_SYSTEM, "%s: %s", tmp, strerror(e));
	return tmp;
}

tr_input *
ingest_lines(ingest *g, tr_input *in, const char *path, const char *name, size_t *bad)
{
	int fd, rfd;
	char *tmp = temp_path(&fd, &rfd);
	tr_output *out = tr_output_fdopen(fd, tmp);
	size_t broken = g->stats.broken;

	/* The header first, as tr-ingest writes it: a line number in a message
	 * about a converted trace is that of `tr-ingest FILE`. */
	tr_output_puts(out, TR_FORMAT_HEADER "\n");
	ingest_set_output(g, out);
	int r = ingest_input(g, in, path, name);
	ingest_end(g);
	ingest_set_output(g, NULL);
	tr_output_close(out);
	broken = g->stats.broken - broken;
	*bad = r < 0 ? (broken ? broken : 1) : 0;

	tr_input *lines = tr_input_fdopen(rfd, tmp);

	free(tmp);
	return lines;
}
