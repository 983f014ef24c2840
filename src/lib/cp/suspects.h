/* suspects.h - "which service caused this?": the services of an incident's
 * traces ranked by how much of the change against a baseline points at
 * them (tr-cp --suspects, tr-report --baseline). The rules are in
 * suspects.c and tr-cp(1). */
#ifndef TR_SUSPECTS_H
#define TR_SUSPECTS_H

#include <stddef.h>

#include "core/trace.h"
#include "core/util.h"

/* What points at a service (bits of cp_suspect.evidence). */
enum {
	SUS_OWN = 1,		/* "callee slower": its own work grew */
	SUS_CALLS_IN = 2,	/* "calls into it slower": the gaps around calls into it grew */
	SUS_CALLER = 4,		/* "caller starved": the gaps of its own calls grew */
	SUS_ERRORS = 8,		/* "errors rose": failures that start in it rose */
	SUS_UNREACHABLE = 16,	/* "unreachable": calls into it failed with no server span */
	SUS_NEW = 32		/* "new service": no span of it in the baseline */
};

typedef struct cp_suspect {
	const char *service;
	double score;		/* share of the baseline's latency, plus failures per request */
	double delay_us;	/* latency per incident request it accounts for */
	double err_before, err_after;	/* failures starting in it, per request */
	unsigned evidence;
	const char *confidence;	/* high, medium, low */
} cp_suspect;

typedef struct cp_suspects cp_suspects;

cp_suspects *cp_suspects_new(void);
void cp_suspects_free(cp_suspects *k);
/* Add one trace of the incident (baseline 0) or of the baseline (1). The
 * baseline goes first: calls learned from it name the callee of an
 * incident's call that has no server span. */
void cp_suspects_add(cp_suspects *k, const tr_trace *t, int baseline);
size_t cp_suspects_ntraces(const cp_suspects *k, int baseline);
/* Services with spans on both sides. */
size_t cp_suspects_common(const cp_suspects *k);
/* The ranking, most likely first; no rows when nothing stands out. Valid
 * until the next call or cp_suspects_free. */
size_t cp_suspects_rank(cp_suspects *k, const cp_suspect **rows);
/* The evidence as words, comma-separated, into buf. */
void cp_suspects_evidence(unsigned evidence, char *buf, size_t size);
/* The table: rank, service, score, evidence, delay, error rates,
 * confidence (enum table_format, enum table_units). */
void cp_suspects_write(cp_suspects *k, strbuf *out, int format, int units);
/* Warnings about the two windows (span completeness, orphans, clock skew,
 * sample size, no error status), lines ending in '\n'. */
void cp_suspects_warnings(cp_suspects *k, strbuf *out);
/* The assumptions and counts (-v): kinds inferred, wrapper spans, the
 * tests' thresholds; lines ending in '\n'. */
void cp_suspects_assumptions(const cp_suspects *k, strbuf *out);

#endif
