/* zipkin_merge.h - Zipkin's own clean-up of a batch (zipkin_merge.c), as
 * the batch (batch.c) runs it before writing. */
#ifndef TR_INGEST_ZIPKIN_MERGE_H
#define TR_INGEST_ZIPKIN_MERGE_H

#include "ingest/context.h"

enum { ZIPKIN_FLAGGED = 1, ZIPKIN_BACKFILLED = 2 };	/* ispan.zipkin_shared */
void zipkin_normalise_ids(ingest *g);	/* zero-high 128-bit trace ids to 64-bit */
void zipkin_merge(ingest *g);		/* normalise, then merge spans reported in parts */
/* Before writing: split shared ids, then note tr.zipkin_parent and
 * tr.zipkin_hidden where Zipkin's span tree differs from the one written. */
void zipkin_pair_shared(ingest *g);

#endif
