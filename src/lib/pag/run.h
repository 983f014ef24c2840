/* run.h - one run of tr-pag over the read loop: the graph built as the
 * traces stream (its records among them, window by window), or whole for
 * a picture or --cp-part; the instrumentation checked as it reads back. */
#ifndef TR_PAG_RUN_H
#define TR_PAG_RUN_H

#include "core/pick.h"
#include "filter.h"
#include "pag/pag.h"

enum pag_picture { PAG_PIC_NONE, PAG_PIC_DOT, PAG_PIC_PAG_DOT, PAG_PIC_SVG };

typedef struct pag_run_opts {
	pag_build_opts build;	/* --worker-key, --unknown-threshold, --lateness,
				 * --max-gap, --hold (window and origin below) */
	int64_t window, origin;
	int has_window, has_origin;	/* given: they also apply to a graph read back */
	int pag_only;		/* -P: the graph only, not the traces */
	int vertices;		/* PV records (-n: none) */
	int cp_part;		/* --cp-part */
	int picture;		/* enum pag_picture: -f dot, pag-dot, svg */
	pag_filter filter;	/* what a picture keeps */
	tr_pick *pick;		/* --trace (taken: freed with the run), or NULL */
	size_t top;		/* --top, when has_top */
	int has_top;
	size_t max_windows;
	int units;		/* of the DOT pictures' durations (--units; auto) */
	int quiet, verbose;
	int64_t own[2];		/* --own FROM,TO: the windows a shard owns */
	int has_own;
} pag_run_opts;

/* --own FROM,TO into o (times in µs or durations); a usage error when it
 * is not two times, FROM before TO. */
void pag_own_option(pag_run_opts *o, const char *arg);
/* The options --own needs (--window, -P, its times on window boundaries):
 * a usage error when one is missing. */
void pag_own_check(const pag_run_opts *o);
/* tr-pag --merge of the partials (none: standard input) to out_path
 * (NULL: standard output): the exit status (pag_cp_merge). */
int pag_merge_main(char **files, int nfiles, const char *out_path);

typedef struct pag_run pag_run;

pag_run *pag_run_new(const pag_run_opts *o);
/* Sets f's callbacks and reading for one pass over the input. */
void pag_run_filter(pag_run *r, tr_filter *f);
/* What a run met that fails it, each said on stderr when it was met. */
typedef struct pag_outcome {
	size_t bad_records;	/* PAG records read that were bad input */
	size_t late;		/* traces that came too late for the graph */
	size_t bad_keys;	/* --worker-key tags no span had */
} pag_outcome;

/* After tr_filter_run: what the exit status turns on. */
pag_outcome pag_run_outcome(const pag_run *r);
void pag_run_free(pag_run *r);

#endif
