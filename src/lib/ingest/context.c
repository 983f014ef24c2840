/* context.c - a converter context made and freed: the whole of one for a
 * worker thread, everything but the worker threads for ingest_new. */
#include "ingest/context.h"

#include <stdlib.h>

ingest *
ig_context_new(const ingest_opts *o, tr_output *out)
{
	ingest *g = xcalloc(1, sizeof *g);

	g->opts = *o;
	g->out = out;
	g->parser = jtree_parser_new();
	tr_progress_init(&g->progress);
	return g;
}

void
ig_context_free(ingest *g)
{
	ig_seen_free(g->seen);
	sb_free(&g->msg);
	sb_free(&g->brackets);
	ig_discard(g);
	arena_free(&g->batch.mem);
	arena_free(&g->json_mem);
	arena_free(&g->doc_mem);
	arena_free(&g->prescan_mem);
	arena_free(&g->sweep_mem);
	strmap_free(&g->last_key);
	jtree_parser_free(g->parser);
	free(g->batch.spans);
	strmap_free(&g->batch.bad_traces);
	strmap_free(&g->ids);
	ibuild *b = &g->build;
	free(b->tags);
	free(b->refs);
	free(b->logs);
	free(b->ptags);
	free(g->procs);
	sb_free(&g->text);
	sb_free(&g->scratch);
	sb_free(&g->value);
	free(g->order);
	free(g);
}
