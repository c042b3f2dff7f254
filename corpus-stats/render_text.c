/* render_text.c - see render_text.h. */
#include "render_text.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The text of a cell: formatted number (into BUF) or the text itself. */
static const char *cell_text(const stats_cell *c, char *buf, size_t n)
{
	const char *s = stats_cell_format(c, STATS_STYLE_TEXT, buf, n);
	return s ? s : c->v.s;
}

static void pad(FILE *out, size_t n)
{
	while (n--)
		putc(' ', out);
}

/* One line: the cells TEXTS of a row, aligned in WIDTHS; RIGHT[k] when
 * column k is numeric.  No trailing spaces. */
static void line(FILE *out, const stats_table *t, const char *const *texts,
		 const size_t *widths, const bool *right)
{
	size_t owed = 0;  /* spaces to write before the next visible text */
	for (int k = 0; k < t->n_cols; k++) {
		size_t w = stats_utf8_width(texts[k]);
		size_t gap = widths[k] > w ? widths[k] - w : 0;
		if (k > 0)
			owed += 2;
		if (right[k])
			owed += gap;
		if (*texts[k]) {
			pad(out, owed);
			fputs(texts[k], out);
			owed = 0;
		}
		if (!right[k])
			owed += gap;
	}
	putc('\n', out);
}

static int table(FILE *out, const stats_table *t)
{
	size_t nc = (size_t)t->n_cols;
	size_t *widths = calloc(nc ? nc : 1, sizeof *widths);
	bool *right = calloc(nc ? nc : 1, sizeof *right);
	const char **texts = calloc(nc ? nc : 1, sizeof *texts);
	char (*bufs)[40] = calloc(nc ? nc : 1, sizeof *bufs);
	char *dashes = NULL;
	if (!widths || !right || !texts || !bufs)
		goto nomem;
	for (size_t k = 0; k < nc; k++) {
		widths[k] = stats_utf8_width(t->cols[k].name);
		right[k] = t->cols[k].unit != STATS_UNIT_TEXT;
	}
	for (size_t i = 0; i < t->n_rows; i++)
		for (size_t k = 0; k < nc; k++) {
			size_t w = stats_utf8_width(cell_text(stats_at(t, i, (int)k),
							      bufs[k], sizeof bufs[k]));
			if (w > widths[k])
				widths[k] = w;
		}
	size_t maxw = 1;
	for (size_t k = 0; k < nc; k++)
		if (widths[k] > maxw)
			maxw = widths[k];
	if (!(dashes = malloc(maxw + 1)))
		goto nomem;

	fprintf(out, "== %s [%s] ==\nmethod: %s\n\n", t->title, t->id, t->method);
	for (size_t k = 0; k < nc; k++)
		texts[k] = t->cols[k].name;
	line(out, t, texts, widths, right);
	/* the dashes: always left-aligned, full width */
	for (size_t k = 0; k < nc; k++) {
		memset(dashes, '-', widths[k]);
		dashes[widths[k]] = '\0';
		fprintf(out, "%s%s", k ? "  " : "", dashes);
	}
	putc('\n', out);
	for (size_t i = 0; i < t->n_rows; i++) {
		for (size_t k = 0; k < nc; k++)
			texts[k] = cell_text(stats_at(t, i, (int)k), bufs[k],
					     sizeof bufs[k]);
		line(out, t, texts, widths, right);
	}
	if (t->n_rows == 0)
		fputs("(no rows)\n", out);
	putc('\n', out);
	free(widths);
	free(right);
	free(texts);
	free(bufs);
	free(dashes);
	return 0;
nomem:
	free(widths);
	free(right);
	free(texts);
	free(bufs);
	return ERR_NOMEM;
}

int render_text(FILE *out, const stats_report *r, ehelf_err *err)
{
	fprintf(out, "ehelf-stats: %s (schema version %d), %s\n\n", r->database,
		r->schema_version, r->generated);
	for (size_t i = 0; i < r->n; i++)
		if (table(out, r->tables[i]) < 0)
			return err_set(err, ERR_NOMEM, "out of memory");
	if (fflush(out) != 0 || ferror(out))
		return err_set(err, ERR_IO, "writing the text output: %s",
			       strerror(errno));
	return 0;
}
