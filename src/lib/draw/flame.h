/* flame.h - flame graphs drawn as SVG by the toolkit: a calling-context
 * tree of frames (service and operation) with values per node, drawn root
 * at the bottom, width by inclusive value; or a differential one, width by
 * the incident's values and colour by the change from a baseline's. */
#ifndef TR_FLAME_H
#define TR_FLAME_H

#include <stddef.h>
#include <stdint.h>

#include "core/util.h"

#define FLAME_TOP UINT32_MAX	/* the parent of the top frames */

typedef struct flame flame;

flame *flame_new(void);
/* The node for (service, operation) under parent (FLAME_TOP: a root frame);
 * nodes are numbered from 0 in the order they are made, parents first. */
uint32_t flame_node(flame *f, uint32_t parent, const char *service, const char *operation);
size_t flame_nnodes(const flame *f);
/* Node n's parent (FLAME_TOP for a root frame), service and operation. */
uint32_t flame_node_frame(const flame *f, uint32_t n, const char **service, const char **operation);
void flame_free(flame *f);

/* One graph: value[n] is node n's self time summed over ntraces traces;
 * base (NULL: none) the same over nbase baseline traces, compared per trace. */
typedef struct flame_view {
	const char *title;
	const int64_t *value;
	size_t ntraces;
	const int64_t *base;
	size_t nbase;
} flame_view;

/* The graph's height in px at width px. */
double flame_height(const flame *f, const flame_view *v);
/* Draw it into b (SVG elements, no <svg>) with its top at y. */
void flame_draw(strbuf *b, const flame *f, const flame_view *v, double width, double y);

#endif
