/* query_conflicts.c - see query_conflicts.h. */
#include "query_conflicts.h"

int query_conflicts(stats_db *db, stats_report *r, ehelf_err *err)
{
	stats_table *t;
	int rc = stats_table_new_cols(r, "conflicts", "Build-ID conflicts",
		"One row per file of the conflicts table: files sharing a "
		"build-ID whose unwind tables differ (the SHA-256 of their "
		".eh_frame and .debug_frame, cfi_sha256), by build-ID, package "
		"and path.  Such a build-ID has no eh_elf (it is not counted in "
		"the other tables) until ehelf-batch resolve forgets the conflict.",
		"build_id:id package:text version:text path:text cfi_sha256:id", &t);
	if (rc < 0)
		return err_set(err, rc, "out of memory");
	int64_t has = 0;
	rc = stats_db_int(db, "SELECT count(*) FROM main.sqlite_master WHERE"
			  " type = 'table' AND name = 'conflicts'", &has, err);
	if (rc == 0 && has)
		rc = stats_db_fill(db, t,
			"SELECT c.build_id, p.name, p.version, c.path, c.cfi_sha256\n"
			"FROM main.conflicts c JOIN main.packages p ON p.id = c.package_id\n"
			"ORDER BY c.build_id, p.name, p.version, c.path", NULL, 0, err);
	return rc < 0 ? rc : 0;
}
