/* render_html.c - see render_html.h. */
#include "render_html.h"

#include <errno.h>
#include <string.h>

#include "escape.h"
#include "humanize.h"
#include "svg_plot.h"

static const char style[] =
	":root{color-scheme:light}\n"
	"body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;"
	"color:#1d1d1f;background:#fff;margin:0 auto;max-width:72rem;"
	"padding:1rem 1.25rem}\n"
	"h1{font-size:1.6rem;margin:.5rem 0}\n"
	"h2{font-size:1.2rem;margin:2rem 0 .4rem;border-bottom:1px solid #ccd}\n"
	"header p{margin:.2rem 0}\n"
	"code{font-size:.9em;overflow-wrap:anywhere}\n"
	"nav ol{columns:2 18rem;padding-left:1.5rem;margin:.4rem 0}\n"
	"nav a{color:#1a4f9c}\n"
	"p.method{color:#444;font-size:.9rem;margin:.2rem 0 .6rem;max-width:60rem}\n"
	"p.id{color:#777;font-size:.8rem;margin:0}\n"
	"figure{margin:.5rem 0 .8rem;max-width:48rem}\n"
	"svg.plot{display:block;width:100%;height:auto;max-width:100%}\n"
	"svg.plot text{font:11px system-ui,sans-serif;fill:#222}\n"
	"svg.plot text.val,svg.plot text.tick{fill:#555;font-size:10px}\n"
	"svg.plot rect.bar{fill:#4a78b5}\n"
	"svg.plot line.axis{stroke:#888;stroke-width:1}\n"
	"figcaption{font-size:.8rem;color:#666}\n"
	"div.scroll{max-width:100%}\n"
	"table.stats{border-collapse:collapse;font-size:.85rem;margin:.2rem 0 1rem}\n"
	"table.stats th,table.stats td{padding:.18rem .55rem;border-bottom:1px solid "
	"#e2e2e8;vertical-align:top}\n"
	"table.stats th{background:#f3f4f8;text-align:left;font-weight:600}\n"
	"table.stats th .unit{display:block;font-weight:400;color:#777;"
	"font-size:.75rem}\n"
	"table.stats th.num,table.stats td.num,table.stats td.null{text-align:right;"
	"font-variant-numeric:tabular-nums;white-space:nowrap}\n"
	"table.stats td.text{overflow-wrap:anywhere;word-break:break-word;"
	"min-width:4rem}\n"
	"table.stats td.null{color:#999}\n"
	"table.stats tbody tr:nth-child(even){background:#fafafc}\n"
	"@media screen{div.scroll{overflow-x:auto}}\n"
	"@media print{\n"
	" @page{size:A4;margin:14mm 12mm}\n"
	" body{max-width:none;padding:0;font-size:9pt;color:#000}\n"
	" nav{break-after:page}\n"
	" nav a,a{color:#000;text-decoration:none}\n"
	" h2{break-after:avoid;margin-top:1.2rem}\n"
	" figure{break-inside:avoid;max-width:100%}\n"
	" div.scroll{overflow:visible}\n"
	" table.stats{width:100%;font-size:7pt}\n"
	" table.stats th,table.stats td{padding:.1rem .25rem}\n"
	/* numbers wrap at their space only ("56.1 KiB"), text anywhere */
	" table.stats th.num,table.stats td.num,table.stats td.null{white-space:normal}\n"
	" table.stats th{overflow-wrap:normal}\n"
	" table.stats thead{display:table-header-group}\n"
	" table.stats tr{break-inside:avoid}\n"
	" table.stats tbody tr:nth-child(even){background:none}\n"
	"}\n";

/* The value of the figure NAME of the summary table, or NULL. */
static const stats_cell *summary_figure(const stats_report *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++) {
		const stats_table *t = r->tables[i];
		if (strcmp(t->id, "summary") != 0 || t->n_cols < 2)
			continue;
		for (size_t k = 0; k < t->n_rows; k++) {
			const stats_cell *f = stats_at(t, k, 0);
			if (f->kind == STATS_TEXT && strcmp(f->v.s, name) == 0)
				return stats_at(t, k, 1);
		}
	}
	return NULL;
}

static void header(FILE *out, const stats_report *r)
{
	fputs("<header>\n<h1>ehelf corpus statistics</h1>\n<p>Database <code>", out);
	escape_html(out, r->database);
	fprintf(out, "</code>, schema version %d; generated ", r->schema_version);
	escape_html(out, r->generated);
	fputs(" by ehelf-stats.</p>\n", out);
	static const struct { const char *name, *label; stats_unit unit; } totals[] = {
		{ "packages", "packages", STATS_UNIT_COUNT },
		{ "elf_files", "ELF files", STATS_UNIT_COUNT },
		{ "eh_elfs_of_files", "distinct eh_elfs", STATS_UNIT_COUNT },
		{ "rows", "unwind table rows", STATS_UNIT_COUNT },
		{ "eh_frame_bytes", "of .eh_frame", STATS_UNIT_BYTES },
		{ "ehelf_bytes", "of eh_elfs", STATS_UNIT_BYTES },
	};
	fputs("<p class=\"totals\">", out);
	int first = 1;
	for (size_t i = 0; i < sizeof totals / sizeof *totals; i++) {
		const stats_cell *c = summary_figure(r, totals[i].name);
		char buf[64], exact[64];
		if (!c || c->kind == STATS_NULL || c->kind == STATS_TEXT)
			continue;
		fprintf(out, "%s<span data-figure=\"%s\" data-value=\"%s\">%s</span> %s",
			first ? "" : ", ", totals[i].name,
			stats_cell_format(c, STATS_STYLE_DATA, exact, sizeof exact),
			humanize_cell(c, totals[i].unit, buf, sizeof buf), totals[i].label);
		first = 0;
	}
	const stats_cell *ratio = summary_figure(r, "ehelf_per_eh_frame");
	if (ratio && ratio->kind == STATS_REAL)
		fprintf(out, "; eh_elf / (.eh_frame + .eh_frame_hdr) = %.3f", ratio->v.d);
	fputs(".</p>\n</header>\n", out);
}

static void contents(FILE *out, const stats_report *r)
{
	fputs("<nav>\n<h2 id=\"contents\">Contents</h2>\n<ol>\n", out);
	for (size_t i = 0; i < r->n; i++) {
		fputs("<li><a href=\"#t-", out);
		escape_html(out, r->tables[i]->id);
		fputs("\">", out);
		escape_html(out, r->tables[i]->title);
		fputs("</a></li>\n", out);
	}
	fputs("</ol>\n</nav>\n", out);
}

/* NAME, escaped, with a line break allowed after each '_' (long column
 * names wrap instead of widening the table). */
static void column_name(FILE *out, const char *name)
{
	char part[128];
	while (*name) {
		size_t n = strcspn(name, "_");
		n += name[n] == '_';
		if (n >= sizeof part)
			n = sizeof part - 1;
		memcpy(part, name, n);
		part[n] = '\0';
		escape_html(out, part);
		name += n;
		if (part[n - 1] == '_' && *name)
			fputs("<wbr>", out);
	}
}

static void cell(FILE *out, const stats_cell *c, stats_unit unit)
{
	char shown[64], exact[64];
	switch (c->kind) {
	case STATS_NULL:
		fputs("<td class=\"null\">-</td>", out);
		return;
	case STATS_TEXT:
		fputs("<td class=\"text\">", out);
		escape_html(out, c->v.s);
		fputs("</td>", out);
		return;
	default:
		stats_cell_format(c, STATS_STYLE_DATA, exact, sizeof exact);
		fprintf(out, "<td class=\"num\" data-value=\"%s\" title=\"%s %s\">%s</td>",
			exact, exact, stats_unit_name(unit),
			humanize_cell(c, unit, shown, sizeof shown));
	}
}

static void table(FILE *out, const stats_table *t)
{
	fputs("<section id=\"t-", out);
	escape_html(out, t->id);
	fputs("\" data-table=\"", out);
	escape_html(out, t->id);
	fputs("\">\n<h2>", out);
	escape_html(out, t->title);
	fputs("</h2>\n<p class=\"id\">id <code>", out);
	escape_html(out, t->id);
	fputs("</code></p>\n<p class=\"method\">", out);
	escape_html(out, t->method);
	fputs("</p>\n", out);
	if (t->plot.kind != STATS_PLOT_NONE && t->n_rows > 0) {
		fputs("<figure>\n", out);
		svg_plot(out, t);
		if (t->n_rows > SVG_PLOT_MAX_BARS)
			fprintf(out, "<figcaption>The first %d of %zu rows.</figcaption>\n",
				SVG_PLOT_MAX_BARS, t->n_rows);
		fputs("</figure>\n", out);
	}
	fputs("<div class=\"scroll\">\n<table class=\"stats\" data-table=\"", out);
	escape_html(out, t->id);
	fputs("\">\n<thead><tr>", out);
	for (int k = 0; k < t->n_cols; k++) {
		const char *unit = stats_unit_name(t->cols[k].unit);
		fprintf(out, "<th scope=\"col\" class=\"%s\" data-unit=\"%s\">",
			t->cols[k].unit == STATS_UNIT_TEXT ? "text" : "num", unit);
		column_name(out, t->cols[k].name);
		if (t->cols[k].unit != STATS_UNIT_TEXT)
			fprintf(out, "<span class=\"unit\">%s</span>", unit);
		fputs("</th>", out);
	}
	fputs("</tr></thead>\n<tbody>\n", out);
	for (size_t i = 0; i < t->n_rows; i++) {
		fputs("<tr>", out);
		for (int k = 0; k < t->n_cols; k++)
			cell(out, stats_at(t, i, k), t->cols[k].unit);
		fputs("</tr>\n", out);
	}
	if (t->n_rows == 0)
		fprintf(out, "<tr><td colspan=\"%d\">(no rows)</td></tr>\n", t->n_cols);
	fputs("</tbody>\n</table>\n</div>\n</section>\n", out);
}

int render_html(FILE *out, const stats_report *r, ehelf_err *err)
{
	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
		"<meta charset=\"utf-8\">\n<meta name=\"viewport\" "
		"content=\"width=device-width, initial-scale=1\">\n"
		"<title>ehelf corpus statistics</title>\n<style>\n%s</style>\n"
		"</head>\n<body>\n", style);
	header(out, r);
	contents(out, r);
	fputs("<main>\n", out);
	for (size_t i = 0; i < r->n; i++)
		table(out, r->tables[i]);
	fputs("</main>\n</body>\n</html>\n", out);
	if (fflush(out) != 0 || ferror(out))
		return err_set(err, ERR_IO, "writing the HTML page: %s", strerror(errno));
	return 0;
}
