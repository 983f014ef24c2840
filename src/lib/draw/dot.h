/* dot.h - Graphviz DOT output, shared by every tool that draws a graph. */
#ifndef TR_DOT_H
#define TR_DOT_H

#include "core/util.h"

/* Append s as a quoted DOT string ("..." with ", \ and newlines escaped). */
void dot_quote(strbuf *b, const char *s);
/* digraph NAME { with the toolkit's default node and edge style. */
void dot_begin(strbuf *b, const char *name, const char *rankdir);
void dot_end(strbuf *b);
/* subgraph cluster_N { label="..." */
void dot_cluster_begin(strbuf *b, const char *id, const char *label);
void dot_cluster_end(strbuf *b);
/* id [label="..." attrs]; attrs is raw DOT (e.g. "color=red, penwidth=2") or NULL. */
void dot_node(strbuf *b, const char *id, const char *label, const char *attrs);
void dot_edge(strbuf *b, const char *from, const char *to, const char *label, const char *attrs);

/* A duration for people reading a picture, "412 ms", in units (enum
 * table_units; auto picks a readable unit per value, the others say theirs). */
void dot_duration(strbuf *b, int64_t us, int units);
/* " · 38 %": part's share of whole (one decimal under 10 %), or nothing
 * when whole is not positive. */
void dot_share(strbuf *b, int64_t part, int64_t whole);

struct tr_trace;
/* A failed span's mark (tr-format(5), FAILURES): "\n✗ ERROR message" (cut
 * at DOT_MESSAGE_MAX bytes, with an ellipsis) added to label, and a double
 * border with a pale red fill added to attrs (after ", " when it holds
 * some), legible in greyscale. Returns whether span failed. */
#define DOT_MESSAGE_MAX 100
int dot_mark_failure(strbuf *label, strbuf *attrs, const struct tr_trace *t, int32_t span);

#endif
