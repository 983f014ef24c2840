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
 * record go to shard 0. Returns the number of traces. */
size_t tr_split_halo(const char *path, unsigned n, size_t halo, const char *prefix, int zstd);

/* tr-ingest --split-time N [--halo K] -o PREFIX FILE: one line-format file
 * (usage error otherwise), K 0 when negative; the exit status. */
int tr_split_halo_main(char **files, int nfiles, unsigned n, long long halo, const char *prefix,
		       int zstd);

#endif
