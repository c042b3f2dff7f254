/* query_packages.c - see query_packages.h. */
#include "query_packages.h"

#include <stdio.h>

#define OWN_FILES "A package's figures are sums over its own files of status " \
	"built or present (a build-ID shipped by two packages counts in both), " \
	"fdes, rows, ehelf_bytes and compile_ms from their eh_elfs rows."

typedef struct measure {
	const char *id, *title, *method;
	const char *cols;   /* after rank, package, version, elfs */
	const char *key;    /* SQL over pk: the measure, first of cols */
	const char *extra;  /* SQL over pk: the other cols ("" for none) */
	const char *where;
} measure;

static const measure measures[] = {
	{ "top_packages_eh_frame_bytes", "Top packages by .eh_frame size",
	  "eh_frame_bytes: .eh_frame bytes summed.",
	  "eh_frame_bytes:bytes", "eh_frame_bytes", "", "eh_frame_bytes > 0" },
	{ "top_packages_ehelf_bytes", "Top packages by eh_elf size",
	  "ehelf_bytes: eh_elf bytes summed.",
	  "ehelf_bytes:bytes", "ehelf_bytes", "", "ehelf_bytes > 0" },
	{ "top_packages_ratio", "Top packages by eh_elf / .eh_frame size ratio",
	  "ratio: ehelf_bytes / eh_tables_bytes, eh_tables_bytes being .eh_frame "
	  "+ .eh_frame_hdr bytes; only packages with at least 4 KiB (4096 bytes) "
	  "of them.",
	  "ratio:ratio ehelf_bytes:bytes eh_tables_bytes:bytes",
	  "1.0 * ehelf_bytes / (eh_frame_bytes + eh_frame_hdr_bytes)",
	  ", ehelf_bytes, eh_frame_bytes + eh_frame_hdr_bytes",
	  "eh_frame_bytes + eh_frame_hdr_bytes >= 4096" },
	{ "top_packages_rows", "Top packages by unwind table rows",
	  "rows: eh_elfs.rows summed.", "rows:count", "rows", "", "rows > 0" },
	{ "top_packages_rulesets", "Top packages by distinct rule sets",
	  "rulesets: distinct rule sets (fingerprints) of its eh_elfs with "
	  "statistics.", "rulesets:count", "rulesets", "", "rulesets > 0" },
	{ "top_packages_compile_ms", "Top packages by compile time",
	  "compile_ms: eh_elfs.compile_ms summed (as recorded when each was "
	  "compiled).", "compile_ms:ms", "compile_ms", "", "compile_ms > 0" },
};

int query_top_packages(stats_db *db, stats_report *r, ehelf_err *err)
{
	for (size_t i = 0; i < sizeof measures / sizeof *measures; i++) {
		const measure *m = &measures[i];
		char method[1024], cols[256], sql[1024];
		snprintf(method, sizeof method, "The --top packages with the largest "
			 "value (ties: by name and version).  %s  " OWN_FILES, m->method);
		snprintf(cols, sizeof cols, "rank:id package:text version:text "
			 "elfs:count %s", m->cols);
		stats_table *t;
		int rc = stats_table_new_cols(r, m->id, m->title, method, cols, &t);
		if (rc < 0)
			return err_set(err, rc, "out of memory");
		t->plot = (stats_plot){ STATS_PLOT_BARS, 1, 4, 0 };
		snprintf(sql, sizeof sql,
			 "SELECT row_number() OVER (ORDER BY v DESC, name, version,\n"
			 "  package_id), name, version, elfs, v%s\n"
			 "FROM (SELECT *, %s AS v FROM pk WHERE %s\n"
			 "  ORDER BY v DESC, name, version, package_id LIMIT ?1)\n"
			 "ORDER BY v DESC, name, version, package_id",
			 m->extra, m->key, m->where);
		int64_t arg = db->top_n;
		if ((rc = stats_db_fill(db, t, sql, &arg, 1, err)) < 0)
			return rc;
	}
	return 0;
}

int query_packages(stats_db *db, stats_report *r, ehelf_err *err)
{
	stats_table *t;
	int rc = stats_table_new_cols(r, "packages", "Packages",
		"One row per package of the packages table (all of them, whatever "
		"their status), by name and version.  " OWN_FILES "  elfs: those "
		"files; rulesets: distinct rule sets (fingerprints) of its eh_elfs "
		"with statistics (null when none has any).",
		"name:text version:text elfs:count elf_bytes:bytes text_bytes:bytes "
		"eh_frame_bytes:bytes eh_frame_hdr_bytes:bytes debug_frame_bytes:bytes "
		"ehelf_bytes:bytes fdes:count rows:count rulesets:count "
		"compile_ms:ms status:text", &t);
	if (rc < 0)
		return err_set(err, rc, "out of memory");
	rc = stats_db_fill(db, t,
		"SELECT name, version, elfs, size, text_bytes, eh_frame_bytes,\n"
		"  eh_frame_hdr_bytes, debug_frame_bytes, ehelf_bytes, fdes, rows,\n"
		"  rulesets, compile_ms, status FROM pk\n"
		"ORDER BY name, version, package_id", NULL, 0, err);
	return rc < 0 ? rc : 0;
}
