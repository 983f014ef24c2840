/* dot.c - Graphviz DOT output. */
#include "dot.h"

void
dot_quote(strbuf *b, const char *s)
{
	sb_addc(b, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			sb_addc(b, '\\');
		if (*s == '\n') {
			sb_adds(b, "\\n");
			continue;
		}
		sb_addc(b, *s);
	}
	sb_addc(b, '"');
}

void
dot_begin(strbuf *b, const char *name, const char *rankdir)
{
	sb_adds(b, "digraph ");
	dot_quote(b, name);
	sb_adds(b, " {\n");
	if (rankdir)
		sb_addf(b, "  rankdir=%s;\n", rankdir);
	sb_adds(b, "  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n"
		   "  edge [fontname=\"Helvetica\", fontsize=9];\n");
}

void
dot_end(strbuf *b)
{
	sb_adds(b, "}\n");
}

void
dot_cluster_begin(strbuf *b, const char *id, const char *label)
{
	sb_adds(b, "  subgraph ");
	dot_quote(b, id);
	sb_adds(b, " {\n    label=");
	dot_quote(b, label);
	sb_adds(b, ";\n");
}

void
dot_cluster_end(strbuf *b)
{
	sb_adds(b, "  }\n");
}

void
dot_node(strbuf *b, const char *id, const char *label, const char *attrs)
{
	sb_adds(b, "  ");
	dot_quote(b, id);
	sb_adds(b, " [label=");
	dot_quote(b, label);
	if (attrs && *attrs) {
		sb_adds(b, ", ");
		sb_adds(b, attrs);
	}
	sb_adds(b, "];\n");
}

void
dot_edge(strbuf *b, const char *from, const char *to, const char *label, const char *attrs)
{
	sb_adds(b, "  ");
	dot_quote(b, from);
	sb_adds(b, " -> ");
	dot_quote(b, to);
	sb_adds(b, " [");
	if (label) {
		sb_adds(b, "label=");
		dot_quote(b, label);
	}
	if (attrs && *attrs) {
		if (label)
			sb_adds(b, ", ");
		sb_adds(b, attrs);
	}
	sb_adds(b, "];\n");
}
