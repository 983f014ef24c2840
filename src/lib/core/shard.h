/* shard.h - a shuffle by trace: which of N shards a trace belongs to, and
 * the regrouping of a trace whose records come in several pieces (several
 * inputs, several groups of one input) into one group. */
#ifndef TR_SHARD_H
#define TR_SHARD_H

#include <stddef.h>
#include <stdint.h>

#include "core/io.h"
#include "core/trace.h"

/* The shard hash: 64-bit FNV-1a (offset basis 14695981039346656037, prime
 * 1099511628211) over the bytes of the trace id as the line format holds it
 * once unescaped. It does not depend on the machine, the build or the
 * version: a trace is in shard tr_shard_hash(id) % N everywhere. */
uint64_t tr_shard_hash(const char *id, size_t len);
/* "K/N" with 0 <= K < N <= TR_SHARDS_MAX; -1 when s is not that. */
#define TR_SHARDS_MAX 65536u
#define TR_SPLIT_MAX 1000u	/* outputs open at once (file descriptors) */
int tr_shard_parse(const char *s, unsigned *k, unsigned *n);

/* Traces held until the end of the input, one group each whatever the
 * pieces they came in: records are stored in one buffer, in the order met. */
typedef struct tr_regroup tr_regroup;
tr_regroup *tr_regroup_new(void);
/* Add t's records: a trace met before gets them after its own. */
void tr_regroup_add(tr_regroup *g, const tr_trace *t);
/* Write every trace as one group, in the order first met: the first T
 * record met (its tags), then the records, a repeated S record (the same
 * line met again: an input given twice) written once. */
void tr_regroup_write(tr_regroup *g, tr_output *out);
size_t tr_regroup_traces(const tr_regroup *g);
void tr_regroup_free(tr_regroup *g);

/* tr-ingest --shard and --split: read files (the line format or exports,
 * as every filter does), keep the traces of shard k of n (split: every
 * shard, shard i to outs[i]), each regrouped, and write them. */
typedef struct tr_shard_opts {
	char **files;
	int nfiles;
	unsigned k, n;		/* shard k of n */
	int split;		/* every shard: outs holds n outputs */
	tr_output **outs;	/* 1, or n with split */
	int keep_going, verbose, allow_empty;
	size_t max_spans, max_bytes;	/* 0: the default */
	const tr_export_hook *exports;	/* how exports are converted (tr_reader_set_exports) */
} tr_shard_opts;
/* Returns the exit status: 0, or TR_EXIT_INPUT after bad input (the message
 * printed) or an input with no trace (unless allow_empty). */
int tr_shard_run(const tr_shard_opts *o);

/* --files-from FILE ("-": standard input): the paths it holds, one a line
 * (empty lines skipped, a CR before the LF dropped), appended to *files.
 * Dies with exit 3 (file:line) on a NUL byte, 4 when it cannot be read. */
void tr_files_from(const char *path, char ***files, int *nfiles);

/* Does the file at path start as the line format (#, a record; not JSON)?
 * 0 for standard input ("-") and anything but a regular file (a pipe
 * would lose what is peeked at), and for a file that cannot be opened (its
 * reading says why). */
int tr_file_is_lines(const char *path);

/* --merge: feed every line of files (none: standard input) to line(), the CRs
 * before the LF dropped. A line it refuses stops the run with
 * "prog: file:line: what"; returns 0, or TR_EXIT_INPUT then or when a file
 * ended early (a cut zstd frame). */
int tr_merge_files(char **files, int nfiles,
		   int (*line)(void *ctx, char *line, size_t len, char *err, size_t errlen), void *ctx);

/* The inputs of a filter: those --files-from named, then the command
 * line's. */
typedef struct tr_filelist {
	char **v;
	int n;
} tr_filelist;
/* --files-from path: add the paths it lists to l. */
void tr_filelist_from(tr_filelist *l, const char *path);
/* The inputs: l's, then argv[0..argc); argv itself when l is empty. */
char **tr_filelist_with(tr_filelist *l, char **argv, int argc, int *n);

#endif
