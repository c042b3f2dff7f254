/* stats_table.c - see stats_table.h. */
#include "stats_table.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/err.h"

const char *stats_unit_name(stats_unit u)
{
	switch (u) {
	case STATS_UNIT_COUNT: return "count";
	case STATS_UNIT_BYTES: return "bytes";
	case STATS_UNIT_RATIO: return "ratio";
	case STATS_UNIT_PERCENT: return "percent";
	case STATS_UNIT_MS: return "ms";
	case STATS_UNIT_TEXT: return "text";
	case STATS_UNIT_MIXED: return "mixed";
	case STATS_UNIT_ID: return "id";
	}
	return "text";
}

/* Length of the valid UTF-8 sequence at P (of at most N bytes), or 0. */
static size_t utf8_seq(const unsigned char *p, size_t n)
{
	if (p[0] < 0x80)
		return 1;
	size_t len;
	uint32_t cp;
	if ((p[0] & 0xe0) == 0xc0) { len = 2; cp = p[0] & 0x1f; }
	else if ((p[0] & 0xf0) == 0xe0) { len = 3; cp = p[0] & 0x0f; }
	else if ((p[0] & 0xf8) == 0xf0) { len = 4; cp = p[0] & 0x07; }
	else return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	static const uint32_t min[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	if (cp < min[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ||
	    (cp >= 0x80 && cp < 0xa0))  /* C1 controls */
		return 0;
	return len;
}

char *stats_text_sanitize(const char *s)
{
	size_t n = strlen(s);
	char *out = malloc(3 * n + 1);
	if (!out)
		return NULL;
	size_t o = 0;
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		size_t k = utf8_seq(p + i, n - i);
		if (k == 0 || (k == 1 && (p[i] < 0x20 || p[i] == 0x7f))) {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		} else {
			memcpy(out + o, p + i, k);
			o += k;
			i += k;
		}
	}
	out[o] = '\0';
	return out;
}

size_t stats_utf8_width(const char *s)
{
	size_t w = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		w += (*p & 0xc0) != 0x80;
	return w;
}

int stats_table_new(stats_report *r, const char *id, const char *title,
		    const char *method, stats_table **out)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 32;
		stats_table **t = realloc(r->tables, cap * sizeof *t);
		if (!t)
			return ERR_NOMEM;
		r->tables = t;
		r->cap = cap;
	}
	stats_table *t = calloc(1, sizeof *t);
	if (!t)
		return ERR_NOMEM;
	t->id = strdup(id);
	t->title = strdup(title);
	t->method = strdup(method);
	if (!t->id || !t->title || !t->method) {
		free(t->id);
		free(t->title);
		free(t->method);
		free(t);
		return ERR_NOMEM;
	}
	r->tables[r->n++] = t;
	*out = t;
	return 0;
}

int stats_table_col(stats_table *t, const char *name, stats_unit unit)
{
	if (t->n_rows)
		return ERR_ARG;
	stats_column *c = realloc(t->cols, (size_t)(t->n_cols + 1) * sizeof *c);
	if (!c)
		return ERR_NOMEM;
	t->cols = c;
	if (!(c[t->n_cols].name = strdup(name)))
		return ERR_NOMEM;
	c[t->n_cols++].unit = unit;
	return 0;
}

int stats_table_new_cols(stats_report *r, const char *id, const char *title,
			 const char *method, const char *spec, stats_table **out)
{
	stats_table *t;
	int rc = stats_table_new(r, id, title, method, &t);
	for (const char *p = spec; rc == 0 && *p;) {
		while (*p == ' ')
			p++;
		size_t n = strcspn(p, " ");
		if (n == 0)
			break;
		const char *colon = memchr(p, ':', n);
		if (!colon)
			return ERR_ARG;
		char name[64];
		size_t nl = (size_t)(colon - p), ul = n - nl - 1;
		if (nl >= sizeof name)
			return ERR_ARG;
		memcpy(name, p, nl);
		name[nl] = '\0';
		int unit = -1;
		for (int u = STATS_UNIT_COUNT; u <= STATS_UNIT_ID; u++)
			if (strlen(stats_unit_name(u)) == ul &&
			    memcmp(stats_unit_name(u), colon + 1, ul) == 0)
				unit = u;
		if (unit < 0)
			return ERR_ARG;
		rc = stats_table_col(t, name, (stats_unit)unit);
		p += n;
	}
	*out = t;
	return rc;
}

int stats_table_row(stats_table *t, stats_cell **row)
{
	size_t w = (size_t)t->n_cols;
	if (t->n_rows == t->cap_rows) {
		size_t cap = t->cap_rows ? 2 * t->cap_rows : 16;
		stats_cell *c = realloc(t->cells, cap * w * sizeof *c);
		if (!c && w)
			return ERR_NOMEM;
		t->cells = c;
		t->cap_rows = cap;
	}
	stats_cell *r = t->cells + t->n_rows * w;
	memset(r, 0, w * sizeof *r);  /* kind STATS_NULL */
	t->n_rows++;
	*row = r;
	return 0;
}

void stats_cell_null(stats_cell *c)
{
	if (c->kind == STATS_TEXT)
		free(c->v.s);
	c->kind = STATS_NULL;
}

void stats_cell_int(stats_cell *c, int64_t v)
{
	stats_cell_null(c);
	c->kind = STATS_INT;
	c->v.i = v;
}

void stats_cell_real(stats_cell *c, double v)
{
	stats_cell_null(c);
	if (isfinite(v)) {
		c->kind = STATS_REAL;
		c->v.d = v;
	}
}

int stats_cell_text(stats_cell *c, const char *s)
{
	stats_cell_null(c);
	if (!s)
		return 0;
	char *copy = stats_text_sanitize(s);
	if (!copy)
		return ERR_NOMEM;
	c->kind = STATS_TEXT;
	c->v.s = copy;
	return 0;
}

static void table_free(stats_table *t)
{
	for (size_t i = 0; i < t->n_rows * (size_t)t->n_cols; i++)
		stats_cell_null(&t->cells[i]);
	free(t->cells);
	for (int i = 0; i < t->n_cols; i++)
		free(t->cols[i].name);
	free(t->cols);
	free(t->id);
	free(t->title);
	free(t->method);
	free(t);
}

void stats_report_free(stats_report *r)
{
	for (size_t i = 0; i < r->n; i++)
		table_free(r->tables[i]);
	free(r->tables);
	r->tables = NULL;
	r->n = r->cap = 0;
}

const char *stats_cell_format(const stats_cell *c, stats_style style, char *out,
			      size_t n)
{
	switch (c->kind) {
	case STATS_NULL:
		snprintf(out, n, "%s", style == STATS_STYLE_TEXT ? "-" : "");
		return out;
	case STATS_INT:
		snprintf(out, n, "%" PRId64, c->v.i);
		return out;
	case STATS_REAL:
		snprintf(out, n, style == STATS_STYLE_TEXT ? "%.4g" : "%.6g", c->v.d);
		return out;
	case STATS_TEXT:
		break;
	}
	return NULL;
}
