/* render_json.c - see render_json.h. */
#include "render_json.h"

#include <errno.h>
#include <string.h>

#include "escape.h"

static void table(FILE *out, const stats_table *t)
{
	fputs("{\"id\": ", out);
	escape_json(out, t->id);
	fputs(", \"title\": ", out);
	escape_json(out, t->title);
	fputs(", \"method\": ", out);
	escape_json(out, t->method);
	fputs(",\n  \"columns\": [", out);
	for (int k = 0; k < t->n_cols; k++) {
		fputs(k ? ", {\"name\": " : "{\"name\": ", out);
		escape_json(out, t->cols[k].name);
		fputs(", \"unit\": ", out);
		escape_json(out, stats_unit_name(t->cols[k].unit));
		putc('}', out);
	}
	fputs("],\n  \"rows\": [", out);
	for (size_t i = 0; i < t->n_rows; i++) {
		fputs(i ? ",\n    [" : "\n    [", out);
		for (int k = 0; k < t->n_cols; k++) {
			const stats_cell *c = stats_at(t, i, k);
			char buf[40];
			if (k)
				fputs(", ", out);
			if (c->kind == STATS_TEXT)
				escape_json(out, c->v.s);
			else if (c->kind == STATS_NULL)
				fputs("null", out);
			else
				fputs(stats_cell_format(c, STATS_STYLE_DATA, buf,
							sizeof buf), out);
		}
		putc(']', out);
	}
	fputs("]", out);
	if (t->plot.kind != STATS_PLOT_NONE) {
		fprintf(out, ",\n  \"plot\": {\"kind\": \"%s\", \"label\": ",
			t->plot.kind == STATS_PLOT_HISTOGRAM ? "histogram" : "bars");
		escape_json(out, t->cols[t->plot.label_col].name);
		fputs(", \"value\": ", out);
		escape_json(out, t->cols[t->plot.value_col].name);
		fprintf(out, ", \"log\": %s}", t->plot.log_scale ? "true" : "false");
	}
	putc('}', out);
}

int render_json(FILE *out, const stats_report *r, ehelf_err *err)
{
	fputs("{\"ehelf_stats\": 1, \"database\": ", out);
	escape_json(out, r->database);
	fprintf(out, ", \"schema_version\": %d, \"generated\": ", r->schema_version);
	escape_json(out, r->generated);
	fputs(",\n\"tables\": [", out);
	for (size_t i = 0; i < r->n; i++) {
		fputs(i ? ",\n " : "\n ", out);
		table(out, r->tables[i]);
	}
	fputs("]}\n", out);
	if (fflush(out) != 0 || ferror(out))
		return err_set(err, ERR_IO, "writing the JSON output: %s",
			       strerror(errno));
	return 0;
}
