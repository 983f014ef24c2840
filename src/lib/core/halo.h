/* halo.h - a stream of traces cut into contiguous shards, each with a halo
 * of its neighbours' traces, for the analyses that look at the traces
 * around each one (tr-temporal's window): a shard holds its own traces and
 * the `halo` traces before and after them, the halo's T records tagged
 * tr.halo=true. A tool reads a halo trace as one of its input (it blocks and
 * is blocked) but writes nothing of it and counts none of its evidence
 * (clock offsets): every trace is written by the one shard that owns it. */
#ifndef TR_HALO_H
#define TR_HALO_H

#include <stddef.h>
#include <stdint.h>

#include "core/trace.h"

#define TR_HALO_TAG "tr.halo"

/* Was t a halo trace of its shard (its T record tagged tr.halo=true)? */
int tr_trace_is_halo(const tr_trace *t);
/* The same for a T record's line. */
int tr_line_is_halo(const char *line, size_t len);

/* Cut the line-format file path, in its order, into n runs of traces as
 * even as can be (the first ones one longer), prefix0.tr ... written with
 * halo traces before and after their own (.tr.zst with zstd). A trace is
 * a T record and the lines up to the next one; lines before the first T
 * record go to shard 0. Without allow_empty, a file of no trace is said
 * and nothing written: -1; else 0. */
int tr_split_halo(const char *path, unsigned n, size_t halo, const char *prefix, int zstd,
		  int allow_empty);

/* tr-ingest's options of the splits by position and by time: long-only
 * codes of their own, past the common ones (filter.h). */
enum { TR_OPT_SPLIT_TIME = 0x1100, TR_OPT_HALO, TR_OPT_WINDOW };
#define TR_SPLIT_LONGOPTS \
	{"split-time", required_argument, NULL, TR_OPT_SPLIT_TIME}, \
	{"halo", required_argument, NULL, TR_OPT_HALO}, \
	{"window", required_argument, NULL, TR_OPT_WINDOW}

/* What --split-time, --halo and --window said (zero: none of them). A
 * halo with a unit (6s) is a duration, and with --window makes time
 * shards; a plain number is a count of traces. */
typedef struct tr_split_opts {
	unsigned n;		/* --split-time */
	int has_halo, halo_is_time;
	int64_t halo;		/* traces, or µs */
	int64_t window;		/* µs; 0: none */
} tr_split_opts;

/* One of those options into o; 0 when opt is none of them. */
int tr_split_option(tr_split_opts *o, int opt, const char *arg);
/* Was any of them given? */
int tr_split_given(const tr_split_opts *o);

/* Cut the line-format file path by trace start into n shards for tr-pag
 * --own, as windows of `window` µs from 0: shard k owns the whole windows
 * from FROM to TO (n even runs over the first start to the last span's),
 * written to prefixk.own as "FROM,TO", and holds in prefixk.tr every line
 * of the traces that start from FROM - halo to TO + halo, in the file's
 * order (a trace's start is its earliest span's; traces with no timed
 * span and lines of no trace are left out). Two passes; a trace's start
 * is remembered by its id. Bad input (an S record's start not a time)
 * dies, exit 3, before anything is written; so does (-1, said) a file of
 * no timed span, without allow_empty. */
int tr_split_time(const char *path, unsigned n, int64_t window, int64_t halo, const char *prefix,
		  int zstd, int allow_empty);

/* tr-ingest --split-time N [--halo K | --window D --halo DURATION] -o
 * PREFIX FILE: one line-format file (usage error otherwise); the exit
 * status. */
int tr_split_halo_main(const tr_split_opts *o, char **files, int nfiles, const char *prefix,
		       int zstd, int allow_empty);

#endif
