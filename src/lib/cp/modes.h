/* modes.h - tr-cp's modes, one table of (begin, add, end): the line-format
 * filter (cp.self tags, sections), --summary, --folded, --dot, --whatif,
 * --svg, --flame and --suspects, each with its state, and SnailTrail's
 * critical participation over the PAG records any of them meets. The tool
 * parses options into cp_run_opts and hands the rest to these calls. */
#ifndef TR_CP_MODES_H
#define TR_CP_MODES_H

#include <stddef.h>

#include "core/pick.h"
#include "draw/timeline.h"
#include "filter.h"

enum cp_mode { CP_MODE_FILTER, CP_MODE_SUMMARY, CP_MODE_FOLDED, CP_MODE_DOT, CP_MODE_WHATIF,
	       CP_MODE_SVG, CP_MODE_FLAME, CP_MODE_SUSPECTS, CP_NMODES };

typedef struct cp_run_opts {
	enum cp_mode mode;
	double allowance;		/* --overlap-allowance */
	int sections;			/* --sections */
	const char *summary_key;	/* --summary KEY */
	const char *baseline;		/* --baseline FILE */
	const char **rules;		/* --whatif RULE... */
	size_t nrules;
	int partial;			/* --partial */
	int merge;			/* --merge */
	int ranks;			/* --merge --ranks: phase 1's partials into bands */
	const char *bands;		/* --bands FILE: phase 2 of --flame --percentile */
	int keep_streams;		/* --keep-streams */
	timeline_opts timeline;		/* --svg's --min-share; --width (0: none given) */
	int pct[16];			/* --percentile */
	size_t npct;
	int format;			/* enum cp_format */
	int units;			/* --units; -1: the mode's default */
	size_t max_windows;		/* PAG records; 0: pagcp's default */
	int quiet, verbose, keep_going;
	size_t max_spans;
	tr_pick *pick;			/* --trace, --trace-file (taken: freed with the run) */
	const char *model, *name;	/* --model FILE, --name FIELDS (infer/hb.h) */
} cp_run_opts;

typedef struct cp_run cp_run;

/* --percentile P,...: into o->pct (a bad list is a usage error). */
void cp_percentiles_option(cp_run_opts *o, const char *arg);

/* The mode's state made, its --whatif rules checked (a bad rule is a usage
 * error), and the --baseline read first: a baseline that cannot be read
 * stops the run before any output (*status TR_EXIT_INPUT, else 0). */
cp_run *cp_run_new(const cp_run_opts *o, int *status);
/* Sets f's callbacks for one pass over the input. */
void cp_run_filter(cp_run *r, tr_filter *f);
/* --merge: add up the partials of --summary, --folded, --whatif or --flame in files, write the
 * result to out_path; the exit status. */
int cp_run_merge(cp_run *r, char **files, int nfiles, const char *out_path);
/* The modes with --partial and --merge. */
int cp_mode_merges(enum cp_mode m);
/* What is wrong with o's --partial, --merge, --ranks and --bands (a usage
 * error), or NULL. */
const char *cp_merge_opts_error(const cp_run_opts *o);
/* What a run met that fails it; each was said on stderr when it was met
 * or by cp_run_notes, unless marked "not said": the tool's verdict says
 * those it decides by. */
typedef struct cp_outcome {
	size_t pag_bad;			/* PAG records that were bad input */
	size_t whatif_unmatched;	/* --whatif rules that matched no span */
	size_t trace_missing;		/* --trace ids no trace has */
	const char *nothing;		/* nothing to draw or compare: why (not said) */
	int bad_key;			/* --summary names a tag no span has */
	int units_idle;			/* --units, and no table was written (not said) */
	int model_unmatched;		/* --model: no span is named as its events */
} cp_outcome;

/* After tr_filter_run gave read_status: the notes on stderr (what the data
 * did not support, the --whatif rules that matched nothing, the baseline's
 * verdict and the suspects when the read was whole and clean, the --trace
 * ids no trace has), and into *w what the exit status turns on. */
void cp_run_notes(cp_run *r, int read_status, cp_outcome *w);
void cp_run_free(cp_run *r);

#endif
