/* render_csv.c - see render_csv.h. */
#include "render_csv.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "escape.h"

static void table(FILE *out, const stats_table *t)
{
	for (int k = 0; k < t->n_cols; k++) {
		if (k)
			putc(',', out);
		escape_csv_text(out, t->cols[k].name);
	}
	fputs("\r\n", out);
	for (size_t i = 0; i < t->n_rows; i++) {
		for (int k = 0; k < t->n_cols; k++) {
			const stats_cell *c = stats_at(t, i, k);
			char buf[40];
			const char *s = stats_cell_format(c, STATS_STYLE_DATA, buf,
							  sizeof buf);
			if (k)
				putc(',', out);
			if (s) /* a number */
				escape_csv(out, s);
			else
				escape_csv_text(out, c->v.s);
		}
		fputs("\r\n", out);
	}
}

int render_csv(const char *dir, const stats_report *r, ehelf_err *err)
{
	struct stat st;
	if (mkdir(dir, 0777) != 0 && errno != EEXIST)
		return err_set(err, ERR_IO, "%s: cannot create the CSV directory: %s",
			       dir, strerror(errno));
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return err_set(err, ERR_IO, "%s: exists and is not a directory: "
			       "--csv names a directory for one file per table", dir);
	for (size_t i = 0; i < r->n; i++) {
		const stats_table *t = r->tables[i];
		char path[4096];
		if (snprintf(path, sizeof path, "%s/%s.csv", dir, t->id) >=
		    (int)sizeof path)
			return err_set(err, ERR_IO, "%s: path too long", dir);
		FILE *out = fopen(path, "w");
		if (!out)
			return err_set(err, ERR_IO, "%s: cannot write: %s", path,
				       strerror(errno));
		table(out, t);
		int bad = ferror(out);
		if (fclose(out) != 0 || bad)
			return err_set(err, ERR_IO, "%s: cannot write: %s", path,
				       strerror(errno ? errno : EIO));
	}
	return 0;
}
