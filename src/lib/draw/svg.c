/* svg.c - the SVG writer, service colours, axis ticks and text widths the
 * timeline, flame graphs and the report share. */
#include "draw/svg.h"

#include <stdio.h>
#include <string.h>

#include "core/table.h"

void
svg_begin(strbuf *b, double width, double height, const char *title)
{
	sb_addf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" font-family=\"%s\" font-size=\"%.0f\">\n",
		width, height, width, height, SVG_FONT, SVG_FONT_PX);
	sb_adds(b, "<title>");
	svg_escape(b, title);
	sb_adds(b, "</title>\n<style>\n"
		".h{font-size:14px;font-weight:bold}\n"
		".sub{fill:#444}\n"
		".ax{stroke:#999;stroke-width:1}\n"
		".grid{stroke:#e4e4e4;stroke-width:1}\n"
		".tick{fill:#555;font-size:10px}\n"
		".off{fill-opacity:0.35}\n"
		".cp{stroke:#000;stroke-width:1}\n"
		".na{fill:#ccc;stroke:#999;stroke-dasharray:2,2}\n"
		".share{font-weight:bold}\n"
		".dim{fill:#777}\n"
		".fr{stroke:#fff;stroke-width:0.5}\n"
		"</style>\n");
	svg_rect(b, 0, 0, width, height, "#fff", NULL, NULL);
}

void
svg_end(strbuf *b)
{
	sb_adds(b, "</svg>\n");
}

void
svg_escape(strbuf *b, const char *s)
{
	for (; *s; s++) {
		if ((unsigned char)*s >= 0x80) {	/* XML is well-formed UTF-8 only */
			size_t k = utf8_char_len(s, strnlen(s, 4));

			if (k == 3 && memcmp(s, "\xef\xbf", 2) == 0 && (unsigned char)s[2] >= 0xbe)
				k = 0;	/* U+FFFE and U+FFFF: not XML characters either */
			if (k) {
				sb_add(b, s, k);
				s += k - 1;
			} else
				sb_adds(b, UTF8_REPLACEMENT);
			continue;
		}
		switch (*s) {
		case '&': sb_adds(b, "&amp;"); break;
		case '<': sb_adds(b, "&lt;"); break;
		case '>': sb_adds(b, "&gt;"); break;
		case '"': sb_adds(b, "&quot;"); break;
		case '\'': sb_adds(b, "&#39;"); break;
		case '\n': sb_adds(b, "&#10;"); break;	/* a tooltip's line break */
		default:
			if ((unsigned char)*s >= 0x20 && *s != 0x7f)	/* XML forbids most controls */
				sb_addc(b, *s);
		}
	}
}

void
svg_rect(strbuf *b, double x, double y, double w, double h, const char *fill,
	 const char *cls, const char *tip)
{
	sb_addf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\"", x, y, w, h);
	if (fill)
		sb_addf(b, " fill=\"%s\"", fill);
	if (cls)
		sb_addf(b, " class=\"%s\"", cls);
	if (!tip) {
		sb_adds(b, "/>\n");
		return;
	}
	sb_adds(b, "><title>");
	svg_escape(b, tip);
	sb_adds(b, "</title></rect>\n");
}

void
svg_failed_outline(strbuf *b, double x, double y, double w, double h)
{
	sb_addf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"none\" "
		"stroke=\"#b00000\" stroke-width=\"2\"/>\n", x - 1.5, y - 1.5, w + 3, h + 3);
}

void
svg_text(strbuf *b, double x, double y, const char *anchor, const char *cls, const char *text)
{
	sb_addf(b, "<text x=\"%.1f\" y=\"%.1f\"", x, y);
	if (anchor && strcmp(anchor, "start") != 0)
		sb_addf(b, " text-anchor=\"%s\"", anchor);
	if (cls)
		sb_addf(b, " class=\"%s\"", cls);
	sb_addc(b, '>');
	svg_escape(b, text);
	sb_adds(b, "</text>\n");
}

void
svg_line(strbuf *b, double x1, double y1, double x2, double y2, const char *cls)
{
	sb_addf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"%s\"/>\n",
		x1, y1, x2, y2, cls);
}

/* Light enough for black text, far enough apart to tell services apart. */
static const char *const palette[] = {
	"#8dd3c7", "#fdb462", "#bebada", "#fb8072", "#80b1d3", "#b3de69",
	"#fccde5", "#ffed6f", "#bc80bd", "#ccebc5", "#d9d9d9", "#e5c494",
	"#a6cee3", "#f4a582", "#c2a5cf", "#99d594"
};

void
svg_service_colour(const char *service, char out[8])
{
	uint64_t h = hash_bytes(service, strlen(service));

	memcpy(out, palette[h % (sizeof palette / sizeof palette[0])], 8);
}

/* Advance widths of DejaVu Sans in em, by character class. */
static double
char_em(unsigned char c)
{
	if (c >= 0x80)
		return 0.75;	/* a multibyte character, counted at its lead byte */
	if (strchr("il.,:;'|!jI`", c))
		return 0.32;
	if (strchr("ftr()[]{} -/\\\"", c))
		return 0.42;
	if (strchr("mwMW@%", c))
		return 0.98;
	if (c >= 'A' && c <= 'Z')
		return 0.72;
	return 0.64;
}

double
svg_text_width(const char *s, double px)
{
	double em = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)	/* not a continuation byte */
			em += char_em((unsigned char)*s);
	return em * px;
}

int
svg_fit(strbuf *b, const char *s, double width, double px)
{
	static const char ellipsis[] = "\xe2\x80\xa6";
	double used = 0, dots = 0.8 * px;
	size_t n = strlen(s), cut = 0;

	sb_clear(b);
	if (svg_text_width(s, px) <= width) {
		sb_add(b, s, n);
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c & 0xc0) == 0x80)
			continue;
		if (used + char_em(c) * px + dots > width)
			break;
		used += char_em(c) * px;
		cut = i + 1;
		while (cut < n && ((unsigned char)s[cut] & 0xc0) == 0x80)
			cut++;
	}
	if (!cut)
		return 0;
	sb_add(b, s, cut);
	sb_adds(b, ellipsis);
	return 1;
}

int64_t
svg_tick_step(int64_t span, double px, double min_gap)
{
	static const int mult[] = {1, 2, 5};
	int64_t p10 = 1;

	if (span <= 0 || px <= 0)
		return 1;
	for (;;) {
		for (size_t i = 0; i < 3; i++) {
			int64_t step = p10 * mult[i];

			if ((double)step / (double)span * px >= min_gap)
				return step;
		}
		if (p10 > INT64_MAX / 100)
			return p10;
		p10 *= 10;
	}
}

void
svg_tick_label(char *buf, size_t size, int64_t t, int64_t step)
{
	if (t == 0)
		snprintf(buf, size, "0");
	else if (step >= 1000000 || t >= 1000000)
		snprintf(buf, size, "%g s", (double)t / 1e6);
	else if (step >= 1000)
		snprintf(buf, size, "%g ms", (double)t / 1e3);
	else
		snprintf(buf, size, "%lld \xc2\xb5s", (long long)t);
}

void
svg_duration(char *buf, size_t size, int64_t us)
{
	table_duration(buf, size, us, TABLE_AUTO);
}
