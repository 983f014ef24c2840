/* fuzz.h - what every fuzz target shares: the fuzzer's bytes as a file the
 * library can open by name, without touching the disk (a memfd), and the
 * library's output captured the same way.
 *
 * The library reads inputs by path and writes to stdout or a file, exactly as
 * the tools do; so the targets exercise the code the tools run, not a
 * special in-memory path. */
#ifndef TR_FUZZ_H
#define TR_FUZZ_H

#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util.h"

typedef struct fuzz_file {
	int fd;
	char path[48];
} fuzz_file;

static inline void
fuzz_file_init(fuzz_file *f, const char *name)
{
	f->fd = memfd_create(name, 0);
	if (f->fd < 0) {
		perror("memfd_create");
		abort();
	}
	snprintf(f->path, sizeof f->path, "/proc/self/fd/%d", f->fd);
}

/* Replace the file's contents with [p, p+n). */
static inline void
fuzz_file_set(fuzz_file *f, const void *p, size_t n)
{
	const char *c = p;

	if (ftruncate(f->fd, 0) < 0)
		abort();
	for (size_t off = 0; off < n;) {
		ssize_t w = pwrite(f->fd, c + off, n - off, (off_t)off);

		if (w <= 0)
			abort();
		off += (size_t)w;
	}
}

/* Point stdout at a memfd so that library output (tr_output_open(NULL))
 * can be read back; call once. The fuzzer's own messages go to stderr. */
static inline void
fuzz_capture_stdout(fuzz_file *f)
{
	fuzz_file_init(f, "stdout");
	fflush(stdout);
	if (dup2(f->fd, 1) < 0)
		abort();
	snprintf(f->path, sizeof f->path, "/proc/self/fd/1");
}

/* Start a new capture: empty the file and write from its start. */
static inline void
fuzz_capture_reset(void)
{
	if (ftruncate(1, 0) < 0 || lseek(1, 0, SEEK_SET) < 0)
		abort();
}

/* An oracle failed: say which and crash, so the fuzzer keeps the input. */
#define FUZZ_CHECK(cond, what) do { \
	if (!(cond)) { \
		fprintf(stderr, "fuzz oracle failed: %s (%s:%d)\n", what, __FILE__, __LINE__); \
		abort(); \
	} \
} while (0)

#endif
