/* query_alternatives.c - see query_alternatives.h. */
#include "query_alternatives.h"

int query_alternatives(stats_db *db, stats_report *r, ehelf_err *err)
{
	stats_table *t;
	int rc = stats_table_new_cols(r, "alternatives",
		"eh_elfs against .eh_frame, SFrame and frame pointers",
		"Over the eh_elfs with statistics, each distinct build-ID once (the "
		"same files for every line).  .eh_frame + .eh_frame_hdr: the files' "
		"section sizes; eh_elf: eh_elfs.ehelf_bytes, rows_not_represented "
		"its unsupported rows; SFrame: eh_elfs.sframe_bytes, the size of a "
		"version-2 .sframe section (header, FDEs and FREs) estimated from "
		"the same rows for the FDEs SFrame can represent (sframe_fdes, "
		"sframe_fres), the FDEs with a row it cannot represent skipped as "
		"GNU as skips them (sframe_skipped_fdes and _rows: those functions "
		"cannot be unwound from SFrame); frame pointers: no table (0 bytes), "
		"the cost being in code (rbp given up as a register, a push, mov and "
		"pop per function), which this database cannot measure.  "
		"ratio_to_eh_frame = bytes / (.eh_frame + .eh_frame_hdr bytes).",
		"representation:text bytes:bytes ratio_to_eh_frame:ratio fdes:count "
		"fdes_not_represented:count rows_not_represented:count note:text", &t);
	if (rc < 0)
		return err_set(err, rc, "out of memory");
	t->plot = (stats_plot){ STATS_PLOT_BARS, 0, 1, 0 };
	rc = stats_db_fill(db, t,
		"WITH s AS (SELECT coalesce(sum(u.eh_frame_bytes + u.eh_frame_hdr_bytes), 0)\n"
		"      AS eh, coalesce(sum(e.ehelf_bytes), 0) AS ehelf,\n"
		"    coalesce(sum(e.fdes), 0) AS fdes,\n"
		"    coalesce(sum(e.unsupported_rows), 0) AS uns,\n"
		"    sum(e.sframe_bytes) AS sf, sum(e.sframe_fdes) AS sfd,\n"
		"    sum(e.sframe_fres) AS sfr, sum(e.sframe_skipped_fdes) AS sks,\n"
		"    sum(e.sframe_skipped_rows) AS skr\n"
		"    FROM uf u JOIN main.eh_elfs e ON e.build_id = u.build_id\n"
		"    WHERE u.stats)\n"
		"SELECT '.eh_frame + .eh_frame_hdr', eh, CASE WHEN eh > 0 THEN 1.0 END,\n"
		"  fdes, 0, 0, 'the DWARF CFI as shipped, read by a DWARF interpreter'\n"
		"  FROM s\n"
		"UNION ALL SELECT 'eh_elf', ehelf, CASE WHEN eh > 0 THEN 1.0 * ehelf / eh END,\n"
		"  fdes, 0, uns, 'machine code and lookup tables compiled from them; "
		"rows_not_represented: rows whose rule set could not be compiled' FROM s\n"
		"UNION ALL SELECT 'SFrame (estimate)', sf,\n"
		"  CASE WHEN eh > 0 THEN 1.0 * sf / eh END, sfd, sks, skr,\n"
		"  printf('estimated from the same rows: %lld FREs; functions with a row "
		"SFrame cannot represent are skipped', coalesce(sfr, 0)) FROM s\n"
		"UNION ALL SELECT 'frame pointers', 0, CASE WHEN eh > 0 THEN 0.0 END,\n"
		"  NULL, NULL, NULL, 'no table: the cost is in code (a register and "
		"prologue/epilogue instructions), which this database cannot measure'\n"
		"  FROM s", NULL, 0, err);
	return rc < 0 ? rc : 0;
}
