-- fake-v3.sql - turn a version-2 database (what ehelf-batch wrote before
-- the schema-3 writer) into a plausible version-3 one: the columns and
-- tables of version 3 added, filled with made-up statistics derived from
-- the real columns.  For run-stats-tests.sh while ehelf-batch cannot write
-- version 3; the figures mean nothing, the shapes of the tables do.
-- One eh_elf in 7 is left without statistics (stats_version NULL), as
-- ehelf-server's on-demand builds are.
ALTER TABLE eh_elfs ADD COLUMN stats_version INTEGER;
ALTER TABLE eh_elfs ADD COLUMN eh_frame_fdes INTEGER;
ALTER TABLE eh_elfs ADD COLUMN eh_frame_rows INTEGER;
ALTER TABLE eh_elfs ADD COLUMN debug_frame_fdes INTEGER;
ALTER TABLE eh_elfs ADD COLUMN debug_frame_rows INTEGER;
ALTER TABLE eh_elfs ADD COLUMN summarised_rows INTEGER;
ALTER TABLE eh_elfs ADD COLUMN shapes INTEGER;
ALTER TABLE eh_elfs ADD COLUMN read_ms REAL;
ALTER TABLE eh_elfs ADD COLUMN rules_ms REAL;
ALTER TABLE eh_elfs ADD COLUMN codegen_ms REAL;
ALTER TABLE eh_elfs ADD COLUMN image_ms REAL;
ALTER TABLE eh_elfs ADD COLUMN store_ms REAL;
ALTER TABLE eh_elfs ADD COLUMN sframe_bytes INTEGER;
ALTER TABLE eh_elfs ADD COLUMN sframe_fdes INTEGER;
ALTER TABLE eh_elfs ADD COLUMN sframe_fres INTEGER;
ALTER TABLE eh_elfs ADD COLUMN sframe_skipped_fdes INTEGER;
ALTER TABLE eh_elfs ADD COLUMN sframe_skipped_rows INTEGER;
CREATE TABLE rulesets (
	build_id TEXT NOT NULL REFERENCES eh_elfs(build_id),
	fingerprint INTEGER NOT NULL, shape INTEGER NOT NULL,
	rows INTEGER NOT NULL, summarised INTEGER NOT NULL,
	supported INTEGER NOT NULL, cfa_base TEXT NOT NULL, cfa_reg INTEGER,
	cfa_offset INTEGER, saved_regs INTEGER NOT NULL,
	PRIMARY KEY (build_id, fingerprint)) WITHOUT ROWID;
CREATE TABLE ruleset_texts (fingerprint INTEGER PRIMARY KEY, text TEXT NOT NULL);
CREATE TABLE fde_sizes (
	build_id TEXT NOT NULL REFERENCES eh_elfs(build_id),
	log2 INTEGER NOT NULL, fdes INTEGER NOT NULL, bytes INTEGER NOT NULL,
	PRIMARY KEY (build_id, log2));

UPDATE eh_elfs SET stats_version = 1,
	eh_frame_fdes = fdes - fdes / 10, eh_frame_rows = rows - rows / 10,
	debug_frame_fdes = fdes / 10, debug_frame_rows = rows / 10,
	summarised_rows = rows * 7 / 10, shapes = max(1, unique_rows / 3),
	read_ms = compile_ms * 0.3, rules_ms = compile_ms * 0.2,
	codegen_ms = compile_ms * 0.4, image_ms = compile_ms * 0.1,
	store_ms = compile_ms * 0.05,
	sframe_bytes = 28 + fdes * 20 + rows * 3, sframe_fdes = fdes - fdes / 50,
	sframe_fres = rows - rows / 40, sframe_skipped_fdes = fdes / 50,
	sframe_skipped_rows = rows / 40
WHERE rowid % 7 != 3;

-- rule set k of each ELF: the first 40 shared by every ELF, the others its own
WITH RECURSIVE seq(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM seq
	WHERE k < (SELECT max(unique_rows) FROM eh_elfs))
INSERT OR IGNORE INTO rulesets
SELECT e.build_id,
	CASE WHEN k <= 40 THEN k * 1000003 - 9000000000000000000
	     ELSE abs(random() % 4000000000000000000) + 1000 END,
	k % 29, max(1, e.rows * 2 / (k * (k + 1))), k % 10 != 0,
	k != 37, CASE k % 9 WHEN 0 THEN 'rbp' WHEN 5 THEN 'reg'
	              WHEN 7 THEN 'expr' ELSE 'rsp' END,
	CASE k % 9 WHEN 0 THEN 6 WHEN 5 THEN 10 WHEN 7 THEN NULL ELSE 7 END,
	CASE WHEN k % 9 = 7 THEN NULL ELSE 8 + 8 * (k % 6) END, k % 7
FROM eh_elfs e JOIN seq ON seq.k <= e.unique_rows
WHERE e.stats_version IS NOT NULL;

INSERT OR IGNORE INTO ruleset_texts
SELECT fingerprint, printf('cfa=%s%+d %sra=c-8',
	CASE cfa_base WHEN 'rbp' THEN 'rbp' WHEN 'reg' THEN 'r10' ELSE 'rsp' END,
	coalesce(cfa_offset, 0),
	CASE WHEN saved_regs > 2 THEN 'rbx=c-16 rbp=c-24 ' ELSE '' END)
FROM rulesets;
UPDATE ruleset_texts SET text = 'cfa=exp rbp=c-16 ra=c-8'
	WHERE fingerprint IN (SELECT fingerprint FROM rulesets WHERE cfa_base = 'expr');
-- text an output must escape
UPDATE ruleset_texts SET text = 'cfa=rsp+8 <script>alert("x")</script> & ''q'', ra=c-8'
	WHERE fingerprint = 2 * 1000003 - 9000000000000000000;

INSERT INTO fde_sizes
SELECT e.build_id, b.b, e.fdes / 5 + (b.b = 5) * (e.fdes % 5),
	(e.fdes / 5 + (b.b = 5) * (e.fdes % 5)) * (3 << b.b) / 2
FROM eh_elfs e, (SELECT 4 AS b UNION ALL SELECT 5 UNION ALL SELECT 6
	UNION ALL SELECT 7 UNION ALL SELECT 8) b
WHERE e.stats_version IS NOT NULL;

INSERT OR IGNORE INTO unsupported
SELECT build_id, 37, 3, 4096 + 16, 'DW_OP_addr (needs the load bias) "quoted", <b>'
FROM eh_elfs WHERE stats_version IS NOT NULL AND unique_rows >= 37;

PRAGMA user_version = 3;
