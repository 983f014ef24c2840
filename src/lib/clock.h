/* clock.h - one clock offset per host, estimated from the RPCs between hosts.
 *
 * Each RPC whose client and server ran on different hosts says how the
 * server's clock may differ from the client's: the server span must lie
 * within its client span, so  server_end - client_end <= offset <=
 * server_start - client_start  (offset: the server's clock less the
 * client's). With transit taken as the same both ways, the middle of that
 * interval is the offset, exact for an RPC that did not queue. Queueing only
 * widens the interval (the client waits longer than the server works), so
 * the RPC with the least slack (client time the server does not cover) is
 * the estimate, as NTP takes the least delayed sample, kept within
 * every RPC's interval when they agree. Pairs join hosts into sets, the
 * pairs with most RPCs first; a pair of one RPC only bounds the offset (one
 * queued RPC cannot tell queueing from skew), so its hosts' clocks move as
 * little as that bound allows: not at all when the server fits. When two
 * sets join, the one that made fewer calls moves (callers are nearer the
 * user's clock); offsets are given against a host of each set that never
 * moved, and every span of a host moves by the same amount: its timeline
 * stays in one clock.
 *
 * Use: tr_clock_add_trace for every trace (a first pass), tr_clock_solve,
 * then tr_clock_offset when reading the traces again. */
#ifndef TR_CLOCK_H
#define TR_CLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "core/trace.h"
#include "core/util.h"

typedef struct tr_clock tr_clock;

tr_clock *tr_clock_new(void);
/* Note the RPCs (a server span whose parent is a client span on another
 * host, both timed) of t. */
void tr_clock_add_trace(tr_clock *c, const tr_trace *t);
/* Estimate every host's offset from the RPCs noted so far. */
void tr_clock_solve(tr_clock *c);
/* µs to subtract from the times of spans of host to put them in the
 * reference clock; 0 for a host no RPC named. */
int64_t tr_clock_offset(const tr_clock *c, const char *host);
/* The least request transit seen from client_host to server_host, in the
 * reference clock (≥ 0), or -1 when no RPC went that way. */
int64_t tr_clock_min_transit(const tr_clock *c, const char *client_host, const char *server_host);

/* For reports: host i of tr_clock_nhosts(c), its offset, its reference host,
 * the RPCs behind the estimate, and how many RPCs between it and any other
 * host disagreed: their intervals did not meet (transit that varies, or a
 * clock that drifts), or their pair closed a cycle of hosts and did not fit
 * the offsets the stronger pairs had set. */
typedef struct tr_clock_host {
	const char *host, *reference;
	int64_t offset;
	size_t rpcs, disagreeing;
} tr_clock_host;
size_t tr_clock_nhosts(const tr_clock *c);
void tr_clock_host_get(const tr_clock *c, size_t i, tr_clock_host *h);

/* The first pass: read the inputs once, quietly (the main pass reports bad
 * input, with a reader opened alike: tr_reader_open with the same names,
 * limits and flags), note every trace's RPCs and solve. Stops at the first
 * bad trace unless TR_READ_KEEP_GOING is among the flags, as the main pass
 * does. */
tr_clock *tr_clock_from_inputs(char **files, int nfiles, char *const *names, size_t max_spans,
			       size_t max_bytes, int flags);

/* tr_clock_from_inputs without the solving: the evidence alone, for a
 * partial (tr-ingest --clock-offsets --partial). */
tr_clock *tr_clock_gather(char **files, int nfiles, char *const *names, size_t max_spans,
			  size_t max_bytes, int flags);
/* The evidence of c as records, what a merge needs to solve as one pass
 * would: "H host calls" for every host in the order c met them, then "P a
 * b" for every pair of hosts (a < b by name) with each direction's RPC
 * count, offset interval (lo, hi), least slack, that RPC's doubled middle
 * and least request time. Returns the number of records. */
size_t tr_clock_write_evidence(const tr_clock *c, strbuf *b);
/* One record of that evidence added to c's (line: NUL-terminated, changed);
 * hosts new to c come after its own, in the order the records name them:
 * evidence merged in the order of the inputs is that of one pass over them
 * one after the other. 0, or -1 with what set. */
int tr_clock_merge_evidence(tr_clock *c, char *line, size_t len, char *what, size_t whatlen);

/* An offset known already (read from O records, tr-format(5)): host's,
 * estimated from rpcs RPCs; a clock made of these alone is not solved. */
void tr_clock_set(tr_clock *c, const char *host, int64_t offset, size_t rpcs);

void tr_clock_free(tr_clock *c);

#endif
