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

#include <zstd.h>

#include "core/util.h"

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

/* Append what was captured on stdout since the last reset to b. */
static inline void
fuzz_capture_read(strbuf *b)
{
	char chunk[65536];
	off_t off = 0;
	ssize_t r;

	fflush(stdout);
	while ((r = pread(1, chunk, sizeof chunk, off)) > 0) {
		sb_add(b, chunk, (size_t)r);
		off += r;
	}
	if (r < 0)
		abort();
}

/* [p, p+n) as one zstd frame in a malloc'd buffer of *outn bytes, flushed
 * every `piece` bytes: each flush ends a block, so that a cut frame decodes
 * up to the last whole block before the cut, as a real truncated file does. */
static inline char *
fuzz_zstd(const void *p, size_t n, size_t piece, size_t *outn)
{
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	size_t cap = ZSTD_compressBound(n) + (n / piece + 2) * 16;
	char *z = malloc(cap);
	ZSTD_outBuffer out = {z, cap, 0};

	if (!cc || !z)
		abort();
	for (size_t off = 0;;) {
		size_t take = n - off < piece ? n - off : piece;
		ZSTD_inBuffer in = {(const char *)p + off, take, 0};
		int last = off + take == n;
		size_t r;

		do
			r = ZSTD_compressStream2(cc, &out, &in, last ? ZSTD_e_end : ZSTD_e_flush);
		while (!ZSTD_isError(r) && r != 0);
		if (ZSTD_isError(r))
			abort();
		off += take;
		if (last)
			break;
	}
	ZSTD_freeCCtx(cc);
	*outn = out.pos;
	return z;
}

/* A place to cut n bytes, 1 to n - 1, chosen by seed (0 when n < 2). */
static inline size_t
fuzz_cut(size_t seed, size_t n)
{
	return n > 1 ? 1 + (seed * 2654435761u) % (n - 1) : 0;
}

static inline int
fuzz_same(const strbuf *a, const strbuf *b)
{
	return a->len == b->len && (a->len == 0 || memcmp(a->s, b->s, a->len) == 0);
}

/* Does [p, p+n) start as compressed input does (so it reads as such)? */
static inline int
fuzz_is_zstd(const void *p, size_t n)
{
	const unsigned char *b = p;

	/* what the readers take for compressed input (io.c): a zstd frame's
	 * magic, a skippable frame's (0x184D2A50 to 0x184D2A5F,
	 * little-endian), the Collector's length-prefixed frames, gzip's */
	return (n >= 4 && (memcmp(p, "\x28\xb5\x2f\xfd", 4) == 0 ||
			   ((b[0] & 0xf0) == 0x50 && b[1] == 0x2a && b[2] == 0x4d && b[3] == 0x18))) ||
	       (n >= 8 && b[0] == 0 && memcmp(b + 4, "\x28\xb5\x2f\xfd", 4) == 0) ||
	       (n >= 2 && b[0] == 0x1f && b[1] == 0x8b);
}

/* The next trace of line-format text s[0,n) at or after *off: from a line
 * "T<TAB>..." up to the next such line or the end. 0 when there is none. */
static inline int
fuzz_next_trace(const char *s, size_t n, size_t *off, const char **t, size_t *tn)
{
	size_t p = *off, q;

	while (p + 1 < n && !((p == 0 || s[p - 1] == '\n') && s[p] == 'T' && s[p + 1] == '\t'))
		p++;
	if (p + 1 >= n)
		return 0;
	for (q = p + 1; q + 1 < n; q++)
		if (s[q - 1] == '\n' && s[q] == 'T' && s[q + 1] == '\t')
			break;
	if (q + 1 >= n)
		q = n;
	*t = s + p;
	*tn = q - p;
	*off = q;
	return 1;
}

/* Is every trace of part[0,pn) also, byte for byte, a trace of whole[0,wn)?
 * What a damaged input (a cut zstd frame) lets through must be whole. */
static inline int
fuzz_traces_within(const char *part, size_t pn, const char *whole, size_t wn)
{
	size_t po = 0, wo;
	const char *t, *w;
	size_t tn, wl;

	while (fuzz_next_trace(part, pn, &po, &t, &tn)) {
		int found = 0;

		for (wo = 0; !found && fuzz_next_trace(whole, wn, &wo, &w, &wl);)
			found = wl == tn && memcmp(w, t, tn) == 0;
		if (!found)
			return 0;
	}
	return 1;
}

/* An oracle failed: say which and crash, so the fuzzer keeps the input. */
#define FUZZ_CHECK(cond, what) do { \
	if (!(cond)) { \
		fprintf(stderr, "fuzz oracle failed: %s (%s:%d)\n", what, __FILE__, __LINE__); \
		abort(); \
	} \
} while (0)

#endif
