/* io.h - byte input with transparent zstd, line reading, and safe output. */
#ifndef TR_IO_H
#define TR_IO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/util.h"

/* An input file ("-" is stdin); zstd frames, gzip members and the OpenTelemetry
 * Collector's length-prefixed zstd frames are detected by magic number and decoded. */
typedef struct tr_input tr_input;

tr_input *tr_input_open(const char *path);	/* dies with exit 3 (no such file) */
/* The same, but NULL with errno set when the file cannot be opened. */
tr_input *tr_input_try_open(const char *path);
/* Read a descriptor the caller opened (closed by tr_input_close; 0 is
 * standard input, left open); name is for messages. */
tr_input *tr_input_fdopen(int fd, const char *name);
/* Is path (not "-") a directory? Such an input is bad input, not a read error. */
int tr_path_is_dir(const char *path);
/* What messages call an input path: "<stdin>" for "-". */
const char *tr_path_name(const char *path);
/* The size of the regular file at path; -1 for "-" (standard input), a pipe,
 * a device, a directory or a path that cannot be read: an input of unknown
 * size, which can be read only once, from its start. */
int64_t tr_regular_file_size(const char *path);
/* Bytes [off, off + len) of the file at path, as they are (nothing is
 * decompressed); dies as tr_input_open does. */
tr_input *tr_input_open_range(const char *path, uint64_t off, uint64_t len);
const char *tr_input_name(const tr_input *in);
int tr_input_is_zstd(const tr_input *in);
/* How the input is compressed ("zstd", "gzip", ...), or NULL. */
const char *tr_input_compression(const tr_input *in);
/* Why the input ended early (a truncated or corrupt zstd stream), or NULL.
 * Reading then returns end of input; what was read before is whole. */
const char *tr_input_error(const tr_input *in);
/* Check a compressed input whole (every gzip member's CRC and length, every
 * zstd frame's checksum where it has one) before any of it is used: a
 * regular file is decoded once on its own, a pipe is copied to an unlinked
 * temporary file first. Reading then stops at the end of the last member
 * that passed, and the input reports the failure there (tr_input_error):
 * "why: byte N, in the member from byte M: nothing from there on is read".
 * Returns 0 when all passed (or the input is not compressed), else -1.
 * Only bytes peeked at may have been read before. */
int tr_input_check(tr_input *in);
/* When the input ended early, say why ("name: why", name NULL for the
 * input's own) and return -1; else 0. */
int tr_input_report(const tr_input *in, const char *name);
/* Copy the input at path, bytes as they come (zstd stays zstd, a cut frame
 * stays cut), to a new temporary file in $TMPDIR that is removed however the
 * run ends; returns its path (where the system allows, a /proc path to the
 * open copy, removed at once: not even SIGKILL leaves it). For a second
 * pass over a pipe. */
char *tr_input_spool(const char *path);
/* A path that reads standard input again from its start each time it is
 * opened, when standard input is a regular file read from its start (a
 * shell's < file): no copy is needed for a second pass. Standard input is
 * then left at its end, as copying it would leave it. NULL otherwise. */
const char *tr_input_stdin_again(void);
/* Inputs read twice (a silent first pass, then the one that reports). */
typedef struct tr_inputs {
	char **files;	/* what each pass opens */
	char **names;	/* for messages: the input, not its copy (NULL: the file's) */
	char **spooled;	/* the copies, removed by tr_inputs_free */
	int n;
} tr_inputs;
/* files (none: standard input) made readable twice: standard input
 * redirected from a file is opened again, a pipe or a device is copied, and
 * a missing, unreadable or directory input is left for the reader to tell
 * (bad input, in input order). */
void tr_inputs_twice(tr_inputs *in, char **files, int nfiles);
void tr_inputs_free(tr_inputs *in);
/* Read up to n bytes; returns the count, 0 at end. Dies on a read error. */
size_t tr_input_read(tr_input *in, void *buf, size_t n);
/* The next decoded bytes, at least want of them unless the input ends
 * first, without consuming them: reading goes on from the same place.
 * For telling a file's format by its start. */
const char *tr_input_peek(tr_input *in, size_t want, size_t *len);
/* Read the whole remaining input into b (used where a format needs the whole file). */
void tr_input_slurp(tr_input *in, strbuf *b);
/* Next line without its LF (a trailing CR is kept: callers decide). Returns NULL at end.
 * The pointer is valid until the next call. *lineno counts from 1. */
char *tr_input_line(tr_input *in, size_t *len);
uint64_t tr_input_lineno(const tr_input *in);
/* Did the line tr_input_line returned last end at the end of the input,
 * with no LF? A line format file whose last record has none was cut (a
 * copy or a download that stopped): the record may have lost its end. */
int tr_input_line_cut(const tr_input *in);
uint64_t tr_input_bytes(const tr_input *in);	/* compressed bytes consumed */
void tr_input_close(tr_input *in);

/* Output to stdout or, with a path, to a temporary file renamed into place by
 * tr_output_close; optional zstd compression. Write errors die with exit 4. */
typedef struct tr_output tr_output;

tr_output *tr_output_open(const char *path, int zstd_level);
/* Finish: a complete result is committed (tr_output_close); an incomplete
 * one (an error stopped the run) leaves an existing FILE as it was, while
 * standard output keeps what was written (whole traces). */
void tr_output_end(tr_output *o, int complete);
/* Output to a file descriptor the caller opened (name for messages); closed
 * by tr_output_close, nothing renamed. */
tr_output *tr_output_fdopen(int fd, const char *name);
void tr_output_write(tr_output *o, const void *p, size_t n);
void tr_output_puts(tr_output *o, const char *s);
void tr_output_sb(tr_output *o, const strbuf *b);
/* What a buffer of output holds before it is written: enough that writes
 * are few, little enough that output streams as the input is read. */
#define TR_SPILL_BYTES (64 * 1024)
/* Write b and empty it once it holds TR_SPILL_BYTES; else keep it. */
void tr_output_spill(tr_output *o, strbuf *b);
void tr_output_flush(tr_output *o);
/* Commit: flush, finish the zstd frame, rename the temporary file. */
void tr_output_close(tr_output *o);
/* A temporary file the program made: removed at exit or on SIGINT, SIGTERM
 * or SIGHUP until released (the caller keeps path alive until then). */
void tr_tmpfile_hold(char *path);
void tr_tmpfile_release(const char *path);
/* Give up: remove the temporary file (nothing half-written is left). */
void tr_output_abort(tr_output *o);
/* Give up and free: nothing more is written, a temporary file is removed. */
void tr_output_discard(tr_output *o);

#endif
