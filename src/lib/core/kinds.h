/* kinds.h - what a span is, when the export does not say: span kinds
 * inferred from process boundaries, and wrapper spans (a handler's span
 * that only waits for a sibling call). Shared by every analysis that reads
 * kinds (tr-cp --suspects and --baseline; see tr-format(5), "Inferred
 * kinds"). */
#ifndef TR_KINDS_H
#define TR_KINDS_H

#include <stdint.h>

#include "core/trace.h"

/* Do spans a and b run in the same process: the same service and host (an
 * empty host matches only an empty one)? */
int tr_same_process(const tr_span *a, const tr_span *b);

/* kind[i]: span i's recorded kind; where none is recorded, the kind its
 * neighbours imply. A span whose parent runs in another process is the
 * server side of a call (the consumer side when the parent is a producer
 * or the link is FOLLOWS_FROM); else a span with a child in another
 * process is the client side (the producer side when that child is a
 * consumer); else a childless span with a tag that only client
 * instrumentation writes (peer.service, db.system) is a client. Anything
 * else keeps TR_KIND_NONE. Returns how many kinds were inferred. */
size_t tr_trace_kinds(const tr_trace *t, uint8_t *kind);

/* wrapper[i] = 1 when span i is a wrapper: childless, not itself a client
 * or producer (kind[], as tr_trace_kinds gives), beside calls of its own
 * process (siblings that are clients or producers with a child: they carry
 * the downstream work) at least half within it, that cover at least 80%
 * of it, lie at least 80% within it, and the last of which ends no earlier than it (1%
 * of its duration allowed for late span ends). Such a span is a request
 * handler's record of waiting for those calls, not work of its own.
 * Parents of more than TR_WRAPPER_MAX_SIBLINGS children are not searched.
 * Returns how many. */
#define TR_WRAPPER_MAX_SIBLINGS 64
size_t tr_trace_wrappers(const tr_trace *t, const uint8_t *kind, uint8_t *wrapper);

/* Is the kind one that calls out (client or producer)? */
static inline int
tr_kind_calls_out(int kind)
{
	return kind == TR_KIND_CLIENT || kind == TR_KIND_PRODUCER;
}

#endif
