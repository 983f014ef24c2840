/* dot.c - Graphviz DOT output. */
#include "draw/dot.h"

#include <string.h>

#include "core/table.h"
#include "core/trace.h"

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
	/* nodes closer than graphviz's 0.25 in: a wide fan-out fits a page;
	 * network simplex cut short: a graph of a few hundred edges is laid
	 * out in a second, not many */
	sb_adds(b, "  nodesep=0.15;\n"
		   "  nslimit=0.5;\n"
		   "  nslimit1=0.5;\n"
		   "  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n"
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

void
dot_duration(strbuf *b, int64_t us, int units)
{
	static const char *const unit[] = {" \xc2\xb5s", " ms", " s", ""};
	char buf[40];

	table_duration(buf, sizeof buf, us, units);
	sb_adds(b, buf);
	sb_adds(b, unit[units >= TABLE_US && units <= TABLE_AUTO ? units : TABLE_US]);
}

void
dot_share(strbuf *b, int64_t part, int64_t whole)
{
	double pct;

	if (whole <= 0)
		return;
	pct = 100.0 * (double)part / (double)whole;
	if (part > 0 && pct < 0.05)	/* not "0.0 %" for time that was spent */
		sb_adds(b, " \xc2\xb7 <0.1 %");
	else
		sb_addf(b, pct < 10 ? " \xc2\xb7 %.1f %%" : " \xc2\xb7 %.0f %%", pct);
}

int
dot_mark_failure(strbuf *label, strbuf *attrs, const tr_trace *t, int32_t span)
{
	tr_failure f;
	strbuf m = {0};
	size_t n;

	if (!tr_span_error(t, span, &f))
		return 0;
	tr_failure_text(&f, 0, &m);
	n = m.len;
	if (n > DOT_MESSAGE_MAX) {	/* cut between UTF-8 characters */
		n = DOT_MESSAGE_MAX;
		while (n > 0 && ((unsigned char)m.s[n] & 0xc0) == 0x80)
			n--;
	}
	sb_adds(label, "\n\xe2\x9c\x97 ERROR ");
	sb_add(label, m.s, n);
	if (n < m.len)
		sb_adds(label, "\xe2\x80\xa6");
	/* a dashed node (not analysed) stays dashed */
	char *dashed = attrs->len ? strstr(attrs->s, "style=dashed") : NULL;
	if (dashed) {	/* cut it out ("style=dashed" and its ", "): one style below */
		size_t at = (size_t)(dashed - attrs->s), cut = 12 + (strncmp(dashed + 12, ", ", 2) ? 0 : 2);

		memmove(dashed, dashed + cut, attrs->len - at - cut + 1);
		attrs->len -= cut;
		if (attrs->len >= 2 && attrs->len == at && !strcmp(attrs->s + at - 2, ", "))
			attrs->s[attrs->len -= 2] = '\0';	/* it was the last: its ", " before it goes */
	}
	sb_adds(attrs, attrs->len ? ", " : "");
	sb_adds(attrs, dashed ? "peripheries=2, style=\"dashed,filled\", fillcolor=mistyrose"
			      : "peripheries=2, style=filled, fillcolor=mistyrose");
	sb_free(&m);
	return 1;
}
