/* checks.h - SnailTrail's instrumentation properties, checked on the
 * graph tr-pag built as its records read back, window by window when they
 * stream, and the warnings about what the graph had to leave out. */
#ifndef TR_PAG_CHECKS_H
#define TR_PAG_CHECKS_H

#include "pag/pag.h"

typedef struct pag_checks {
	int on;			/* check the properties (else only count) */
	int stream;		/* the windows are checked as their PM marks come */
	int verbose, quiet;
	int64_t checked;	/* streaming: windows before this are checked */
	pag_violations v;
	pag_entries *entries;	/* the builder's roots' starts (NULL: records read) */
	size_t windows, p1_windows, p2_windows;
	char eg1[512], eg2[512];	/* the first examples, said while their spans are known */
} pag_checks;

/* Read the records the builder wrote (text) into g; with k streaming, check
 * the windows each PM mark completes and forget them. */
void pag_read_back(pag_graph *g, const char *text, size_t len, pag_checks *k);
/* The windows not checked yet, then the warnings: the properties broken,
 * and (st: the builder's, NULL for a graph read) what was left out. */
void pag_checks_report(pag_checks *k, const pag_graph *g, const pag_build_stats *st);

#endif
