/* cp_bands.h - tr-cp --flame --percentile over shards, in two phases.
 * Phase 1: each shard's traces' latencies (L records); a merge of them
 * (--merge --ranks) ranks every trace as one pass would and writes the
 * bands: which traces lie around each percentile (B records). Phase 2:
 * each shard reads the bands (--bands FILE) and writes its stacks per band
 * (cp_flames_write_partial), which merge into the graphs of one pass. */
#ifndef TR_CP_BANDS_H
#define TR_CP_BANDS_H

#include "cp/cp.h"

/* Phase 1: one trace's L record (its side when side >= 0: 0 the
 * incident, 1 the baseline; latency, long-lived stream, id). */
void cp_ranks_record(strbuf *out, int side, int64_t latency, int stream, const char *id);

/* The merge of phase-1 partials; sides: the records name their side, and
 * each side is ranked among its own traces. */
typedef struct cp_ranks cp_ranks;
cp_ranks *cp_ranks_new(int sides);
/* One L record (line is modified); -1 with err when it is not one. */
int cp_ranks_line(cp_ranks *k, char *line, size_t len, char *err, size_t errlen);
/* One trace of side (0 without sides), read in this order; id escaped. */
void cp_ranks_add(cp_ranks *k, int side, int64_t latency, const char *id, size_t idlen);
/* The B records of cp_ranks_write_bands into b, without the frame (spilt
 * to out when out is not NULL); how many. */
size_t cp_ranks_write_records(cp_ranks *k, const int *pct, size_t npct, strbuf *b,
			      tr_output *out);
/* The bands of pct[0..npct) as a partial made for made_for: a B record per
 * trace in a band, with its side (with sides), its id and the bands (bit
 * i: pct[i]), in the order read, the baseline's first. */
void cp_ranks_write_bands(cp_ranks *k, const int *pct, size_t npct, const char *made_for,
			  tr_output *out);
void cp_ranks_free(cp_ranks *k);

/* Phase 2: the bands file made for made_for; NULL when it is bad (said). */
typedef struct cp_bands cp_bands;
cp_bands *cp_bands_read(const char *path, const char *made_for, int sides);
/* The bands trace id of side (0 without sides) lies in (bit i: the i-th
 * percentile); 0: none. */
uint32_t cp_bands_of(cp_bands *b, int side, const char *id);
void cp_bands_free(cp_bands *b);

#endif
