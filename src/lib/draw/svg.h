/* svg.h - what the toolkit's pictures share: an SVG writer on a strbuf,
 * one colour per service, time-axis ticks and an estimate of text width
 * (no font metrics at hand: the pictures must lay out without a browser). */
#ifndef TR_SVG_H
#define TR_SVG_H

#include <stddef.h>
#include <stdint.h>

#include "core/util.h"

/* The font every picture uses, its sizes in px. */
#define SVG_FONT "DejaVu Sans, Verdana, Arial, sans-serif"
#define SVG_FONT_PX 11.0

/* <svg> with its size, a white background and the shared style; title
 * becomes the document's <title> (what a browser tab shows). */
void svg_begin(strbuf *b, double width, double height, const char *title);
void svg_end(strbuf *b);
/* Text with &, <, >, " and ' escaped; control characters dropped; a byte
 * that is not well-formed UTF-8 (or U+FFFE, U+FFFF) becomes U+FFFD. */
void svg_escape(strbuf *b, const char *s);
/* A rectangle; cls (a class of the shared style) and fill may be NULL.
 * tip, when not NULL, is the tooltip (<title>). */
void svg_rect(strbuf *b, double x, double y, double w, double h, const char *fill,
	      const char *cls, const char *tip);
/* Text at (x, y) (baseline), anchor "start", "middle" or "end". */
/* A failed span's mark: a dark red outline around its bar (the label's ✗
 * says it again without colour). */
void svg_failed_outline(strbuf *b, double x, double y, double w, double h);
void svg_text(strbuf *b, double x, double y, const char *anchor, const char *cls,
	      const char *text);
void svg_line(strbuf *b, double x1, double y1, double x2, double y2, const char *cls);

/* The colour of a service, "#rrggbb": the same name always gets the same
 * colour, from a palette whose colours are told apart and carry black text. */
void svg_service_colour(const char *service, char out[8]);

/* The width in px of s in the shared font at px size (an estimate from
 * character classes, on the wide side so that fitted text stays inside). */
double svg_text_width(const char *s, double px);
/* The longest prefix of s that fits in width (with "…" when cut), into b
 * (cleared); returns 0 when not even one character and the ellipsis fit. */
int svg_fit(strbuf *b, const char *s, double width, double px);

/* Ticks for an axis of span µs drawn over px pixels: a step of 1, 2 or 5
 * times a power of ten (µs) with at least min_gap px between ticks. */
int64_t svg_tick_step(int64_t span, double px, double min_gap);
/* A tick's label: t µs from the axis' origin, in the step's unit
 * ("0", "250 ms", "1.5 s", "40 µs"). */
void svg_tick_label(char *buf, size_t size, int64_t t, int64_t step);
/* A readable duration ("601 ms", "1.18 s", "45 µs"). */
void svg_duration(char *buf, size_t size, int64_t us);

#endif
