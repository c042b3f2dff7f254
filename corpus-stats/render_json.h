/*
 * render_json.h - a report as one JSON object:
 *
 *   {"ehelf_stats": 1, "database": PATH, "schema_version": 3,
 *    "generated": "2026-11-27 14:03 UTC",
 *    "tables": [{"id": ..., "title": ..., "method": ...,
 *                "columns": [{"name": ..., "unit": ...}, ...],
 *                "rows": [[cell, ...], ...],
 *                "plot": {"kind": "bars"|"histogram", "label": COLUMN,
 *                         "value": COLUMN, "log": false}   (when it has one)
 *               }, ...]}
 *
 * Integers exact, reals %.6g, NULL null; strings escaped (escape.h).
 * Returns 0, or ERR_IO with the message.
 */
#ifndef EHELF_STATS_RENDER_JSON_H
#define EHELF_STATS_RENDER_JSON_H

#include <stdio.h>

#include "../common/err.h"
#include "stats_table.h"

int render_json(FILE *out, const stats_report *r, ehelf_err *err);

#endif
