/* links.c - timelines of linked traces, stacked on one time axis. Each
 * trace is drawn by timeline_svg as it would be alone (on the shared axis),
 * and placed below the one before in a group: a picture of its own keeps
 * its rows, labels and legend as tr-cp --svg draws them, and the trace
 * below is set apart by a banner on a band. */
#include "draw/links.h"

#include <stdlib.h>
#include <string.h>

#include "draw/svg.h"

#define BANNER_H 24.0

/* The height an <svg> element declares (svg_begin writes it first). */
static double
picture_height(const strbuf *pic)
{
	const char *h = pic->s ? strstr(pic->s, " height=\"") : NULL;

	return h ? strtod(h + 9, NULL) : 0;
}

void
timeline_stack_add(timeline_stack *s, const tr_trace *t, const cp_trace *c, const timeline_opts *o,
		   const char *banner)
{
	strbuf pic = {0};
	double width = o->width > 0 ? o->width : 1000;

	timeline_svg(&pic, t, c, o);
	if (s->n++ == 0)
		sb_addf(&s->title, "trace %s", t->trace_id);
	else if (banner) {
		svg_rect(&s->body, 0, s->height, width, BANNER_H, "#e8eef7", NULL, NULL);
		svg_line(&s->body, 0, s->height, width, s->height, "ax");
		svg_text(&s->body, 6, s->height + 16, "start", "h", banner);
		s->height += BANNER_H;
	}
	sb_addf(&s->body, "<g transform=\"translate(0,%.0f)\">\n", s->height);
	sb_add(&s->body, pic.s, pic.len);
	sb_adds(&s->body, "</g>\n");
	s->height += picture_height(&pic);
	s->width = width;
	sb_free(&pic);
}

void
timeline_stack_end(timeline_stack *s, strbuf *out)
{
	sb_addf(&s->title, " and %zu linked trace%s", s->n - 1, s->n == 2 ? "" : "s");
	svg_begin(out, s->width, s->height, s->title.s);
	sb_add(out, s->body.s ? s->body.s : "", s->body.len);
	svg_end(out);
	sb_free(&s->body);
	sb_free(&s->title);
	s->n = 0;
	s->height = 0;
}
