/* humanize.c - see humanize.h. */
#include "humanize.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

static const char *bytes(double v, char *out, size_t n)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	if (fabs(v) < 1024) {
		snprintf(out, n, "%.0f B", v);
		return out;
	}
	int u = -1;
	while (fabs(v) >= 1024 && u < 3) {
		v /= 1024;
		u++;
	}
	/* 1000-1023.99 of a unit would print as 1.02e+03: the next unit */
	if (fabs(v) >= 999.5 && u < 3) {
		v /= 1024;
		u++;
	}
	snprintf(out, n, fabs(v) >= 100 ? "%.0f %s" : "%.3g %s", v, units[u]);
	return out;
}

/* I with a comma every three digits. */
static const char *grouped(int64_t i, char *out, size_t n)
{
	char digits[32];
	int len = snprintf(digits, sizeof digits, "%" PRId64, i);
	int neg = digits[0] == '-';
	size_t o = 0;
	for (int k = 0; k < len && o + 2 < n; k++) {
		if (k > neg && (len - k) % 3 == 0)
			out[o++] = ',';
		out[o++] = digits[k];
	}
	out[o] = '\0';
	return out;
}

const char *humanize_value(double v, stats_unit u, char *out, size_t n)
{
	if (u == STATS_UNIT_BYTES)
		return bytes(v, out, n);
	if (v == floor(v) && fabs(v) < 1e15)
		return grouped((int64_t)v, out, n);
	snprintf(out, n, "%.4g", v);
	return out;
}

const char *humanize_cell(const stats_cell *c, stats_unit u, char *out, size_t n)
{
	switch (c->kind) {
	case STATS_NULL:
		snprintf(out, n, "-");
		return out;
	case STATS_INT:
		if (u == STATS_UNIT_BYTES)
			return bytes((double)c->v.i, out, n);
		if (u == STATS_UNIT_ID)
			return snprintf(out, n, "%" PRId64, c->v.i), out;
		return grouped(c->v.i, out, n);
	case STATS_REAL:
		if (u == STATS_UNIT_BYTES)
			return bytes(c->v.d, out, n);
		snprintf(out, n, u == STATS_UNIT_PERCENT ? "%.2f" : "%.4g", c->v.d);
		return out;
	case STATS_TEXT:
		break;
	}
	return NULL;
}
