/* svg_plot.c - see svg_plot.h. */
#include "svg_plot.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "escape.h"
#include "humanize.h"

/* geometry, in viewBox units */
enum {
	WIDTH = 720, LABEL_W = 200, BAR_X = 210, BAR_W = 400, ROW_H = 18,
	BAR_H = 13, TOP = 8, AXIS_H = 40, LABEL_CHARS = 30
};

static double value_of(const stats_cell *c)
{
	if (c->kind == STATS_INT)
		return (double)c->v.i;
	if (c->kind == STATS_REAL)
		return c->v.d;
	return NAN;
}

/* bar length in [0, BAR_W] of V for maximum MAX */
static double scale(double v, double max, int log_scale)
{
	if (!(v > 0) || !(max > 0))
		return 0;
	double x = log_scale ? log10(1 + v) / log10(1 + max) : v / max;
	return x > 1 ? BAR_W : x * BAR_W;
}

/* A label: the first LABEL_CHARS code points of S, "…" when cut. */
static void short_label(FILE *out, const char *s)
{
	size_t cps = 0;
	const char *p = s;
	for (; *p; p++) {
		if ((*p & 0xc0) != 0x80 && cps++ == LABEL_CHARS)
			break;
	}
	char buf[LABEL_CHARS * 4 + 8];
	size_t n = (size_t)(p - s);
	if (n > sizeof buf - 4)
		n = sizeof buf - 4;
	memcpy(buf, s, n);
	strcpy(buf + n, *p ? "\xe2\x80\xa6" : "");
	escape_html(out, buf);
}

static void cell_label(FILE *out, const stats_cell *c, char *tmp, size_t n,
		       int shorten)
{
	if (c->kind == STATS_TEXT) {
		if (shorten)
			short_label(out, c->v.s);
		else
			escape_html(out, c->v.s);
	} else {
		escape_html(out, stats_cell_format(c, STATS_STYLE_DATA, tmp, n));
	}
}

/* Tick values for 0..MAX into TICKS (at most 8); returns their number. */
static int ticks(double max, int log_scale, double *t)
{
	int n = 0;
	if (!(max > 0))
		return 0;
	if (log_scale) {
		for (double p = 1; p <= max && n < 8; p *= 10)
			t[n++] = p;
		return n;
	}
	double raw = max / 4, mag = pow(10, floor(log10(raw)));
	double step = raw / mag >= 5 ? 5 * mag : raw / mag >= 2 ? 2 * mag : mag;
	for (double v = 0; v <= max * 1.0001 && n < 8; v += step)
		t[n++] = v;
	return n;
}

void svg_plot(FILE *out, const stats_table *t)
{
	if (t->plot.kind == STATS_PLOT_NONE || t->n_rows == 0)
		return;
	int lc = t->plot.label_col, vc = t->plot.value_col, lg = t->plot.log_scale;
	stats_unit unit = t->cols[vc].unit;
	size_t n = t->n_rows < SVG_PLOT_MAX_BARS ? t->n_rows : SVG_PLOT_MAX_BARS;
	double max = 0;
	for (size_t i = 0; i < n; i++) {
		double v = value_of(stats_at(t, i, vc));
		if (v > max)
			max = v;
	}
	int height = TOP + (int)n * ROW_H + AXIS_H;
	char tmp[64], tmp2[64];
	fprintf(out, "<svg class=\"plot\" viewBox=\"0 0 %d %d\" role=\"img\" "
		"aria-labelledby=\"plot-%s\" xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<title id=\"plot-%s\">", WIDTH, height, t->id, t->id);
	escape_html(out, t->title);
	fprintf(out, ": %s by %s%s</title>\n", t->cols[vc].name, t->cols[lc].name,
		lg ? " (log scale)" : "");
	for (size_t i = 0; i < n; i++) {
		const stats_cell *lcell = stats_at(t, i, lc);
		const stats_cell *vcell = stats_at(t, i, vc);
		double v = value_of(vcell);
		double len = scale(v, max, lg);
		int y = TOP + (int)i * ROW_H;
		fprintf(out, "<g><title>");
		cell_label(out, lcell, tmp, sizeof tmp, 0);
		fprintf(out, ": %s %s</title>",
			vcell->kind == STATS_NULL ? "null"
			: stats_cell_format(vcell, STATS_STYLE_DATA, tmp2, sizeof tmp2),
			stats_unit_name(unit));
		fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"lbl\" text-anchor=\"end\">", LABEL_W,
			y + BAR_H - 2);
		cell_label(out, lcell, tmp, sizeof tmp, 1);
		fputs("</text>", out);
		if (len > 0)
			fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
				"class=\"bar\"/>", BAR_X, y, len < 0.5 ? 0.5 : len, BAR_H);
		if (!isnan(v))
			fprintf(out, "<text x=\"%.1f\" y=\"%d\" class=\"val\">%s</text>",
				BAR_X + len + 4, y + BAR_H - 2,
				humanize_value(v, unit, tmp, sizeof tmp));
		fputs("</g>\n", out);
	}
	/* the axis: a line, ticks, their values, its name */
	int ay = TOP + (int)n * ROW_H + 2;
	fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>\n"
		"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>\n",
		BAR_X, TOP - 2, BAR_X, ay, BAR_X, ay, BAR_X + BAR_W, ay);
	double tv[8];
	int nt = ticks(max, lg, tv);
	for (int k = 0; k < nt; k++) {
		double x = BAR_X + scale(tv[k], max, lg);
		fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
			"class=\"axis\"/><text x=\"%.1f\" y=\"%d\" class=\"tick\" "
			"text-anchor=\"middle\">%s"
			"</text>\n", x, ay, x, ay + 4, x, ay + 15,
			humanize_value(tv[k], unit, tmp, sizeof tmp));
	}
	fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"axisname\" "
		"text-anchor=\"middle\">", BAR_X + BAR_W / 2,
		ay + 32);
	escape_html(out, t->cols[vc].name);
	fprintf(out, " (%s%s)</text>\n</svg>\n", stats_unit_name(unit),
		lg ? ", log scale" : "");
}
