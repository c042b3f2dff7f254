-- schema.sql - the database ehelf-batch writes (sqlite 3).
--
-- One row per package read, per file of a package that is an ELF, and per
-- eh_elf compiled (one per build-ID, however many packages ship it), plus
-- the coverage statistics of each compiled ELF.  Enough for the archive-wide
-- tables of corpus-stats: sizes (program, .text, .eh_frame, eh_elf), which
-- rules and DWARF operations the CFI uses, how many rows FDEs have, what
-- could not be compiled and why.
--
-- Crash safety: each ELF's rows are written in one transaction after its
-- eh_elf is durable in the store, and a package is marked done only after
-- all of its ELFs; a run killed at any moment is finished by running it
-- again (done packages are skipped, the rest redone; every write is an
-- upsert, so nothing is duplicated).
--
-- The eh_elfs table is also the index ehelf-server serves the store from
-- (size, SHA-256, versions, signing key; the packages shipping each one).
--
-- Versions (PRAGMA user_version), as builder/batch/db.c reads them:
--   0  the first schema, before versions were recorded: eh_elfs without
--      sha256, abi_version, generator_version and signed_by.  Opened for
--      writing, it is migrated silently (the columns added, NULL in old rows,
--      whose eh_elfs the next run rebuilds); read-only, it is refused.
--   1  never written.
--   2  eh_elfs with its versions, without the statistics of version 3.
--      Opened for writing, it is migrated like version 0 (the columns and
--      tables of version 3 added; stats_version NULL in old rows, whose
--      eh_elfs the next run rebuilds, which records their statistics);
--      read-only, it is refused.
--   3  this schema: ehelf-stats' statistics (eh_elfs.stats_version 1, the
--      columns marked "since version 3", rulesets, ruleset_texts, fde_sizes).
-- A database of a later version is refused (written by a newer ehelf-batch).

PRAGMA journal_mode = WAL;
PRAGMA foreign_keys = ON;
PRAGMA user_version = 3;

-- A package, or a plain directory tree, or an installed dpkg package.
CREATE TABLE IF NOT EXISTS packages (
	id           INTEGER PRIMARY KEY,
	name         TEXT NOT NULL,
	version      TEXT NOT NULL,      -- '' for directory trees
	architecture TEXT NOT NULL,      -- as the package says ('amd64', 'x86_64', ...)
	source       TEXT NOT NULL,      -- package file, directory, or 'dpkg:' + name
	format       TEXT NOT NULL,      -- deb, rpm, arch, dir, installed, file
	status       TEXT NOT NULL DEFAULT 'reading', -- reading, done, failed
	error        TEXT,               -- why the package could not be read
	seconds      REAL,               -- wall time spent on it
	UNIQUE (name, version, architecture, source)
);

-- An ELF file found in a package (recognised by content, not by name).
CREATE TABLE IF NOT EXISTS files (
	id                 INTEGER PRIMARY KEY,
	package_id         INTEGER NOT NULL REFERENCES packages(id),
	path               TEXT NOT NULL,   -- inside the package, '/usr/lib/...'
	build_id           TEXT,            -- lowercase hex; NULL if unreadable
	build_id_kind      TEXT,            -- 'gnu' (NT_GNU_BUILD_ID) or 'sha256' (content hash)
	size               INTEGER,         -- bytes of the ELF file (program size)
	text_bytes         INTEGER,         -- .text
	eh_frame_bytes     INTEGER,
	eh_frame_hdr_bytes INTEGER,
	debug_frame_bytes  INTEGER,
	ehelf_bytes        INTEGER,         -- size of its eh_elf, if any
	-- built: compiled in this run; present: its build-ID was already in the
	-- store; no-cfi: no unwind tables; ignored: not an x86_64 executable or
	-- shared object (32-bit, relocatable objects, kernel modules); failed:
	-- could not be read or compiled; conflict: another file has its build-ID
	-- and other unwind tables (table conflicts); error says why for the last
	-- four
	status             TEXT NOT NULL,
	error              TEXT,
	UNIQUE (package_id, path)
);
CREATE INDEX IF NOT EXISTS files_build_id ON files(build_id);

-- One eh_elf in the store: STORE/.build-id/XX/REST.so for build_id XXREST,
-- and its signature STORE/.build-id/XX/REST.so.sig when signed_by is set.
-- A row whose abi_version or generator_version is older than the running
-- ehelf-batch's (or NULL) is rebuilt by its next run.
CREATE TABLE IF NOT EXISTS eh_elfs (
	build_id         TEXT PRIMARY KEY,
	ehelf_bytes      INTEGER NOT NULL,
	code_bytes       INTEGER NOT NULL,   -- machine code in it
	table_bytes      INTEGER NOT NULL,   -- lookup tables and parameters
	fdes             INTEGER NOT NULL,
	rows             INTEGER NOT NULL,   -- rows of the unwind table (identical neighbours merged)
	unique_rows      INTEGER NOT NULL,   -- distinct rule sets
	entries          INTEGER NOT NULL,   -- lookup-table entries
	unsupported_rows INTEGER NOT NULL,   -- rows whose rules could not be compiled
	compile_ms       REAL NOT NULL,
	-- since version 2 (NULL in rows of version 0):
	sha256            TEXT,     -- lowercase hex SHA-256 of the eh_elf file's bytes
	abi_version       INTEGER,  -- EHELF_ABI_VERSION (abi/ehelf_abi.h)
	generator_version INTEGER,  -- EHELF_GENERATOR_VERSION (builder/codegen/compile.h)
	signed_by         TEXT,     -- key ID of its signature (docs/signatures.md), NULL: unsigned
	-- since version 3 (NULL in rows of older versions, and in rows written
	-- by ehelf-server's on-demand builds, which record no statistics):
	stats_version     INTEGER,  -- 1: the statistics below and the rulesets,
	                            -- fde_sizes rows of this eh_elf are recorded
	-- which section the table came from: FDEs and rows read from each
	-- (.debug_frame rows only fill addresses .eh_frame does not cover)
	eh_frame_fdes     INTEGER,
	eh_frame_rows     INTEGER,
	debug_frame_fdes  INTEGER,
	debug_frame_rows  INTEGER,
	summarised_rows   INTEGER,  -- rows whose rule set has an ehelf_describe
	                            -- summary (builder/codegen/summary.h)
	shapes            INTEGER,  -- distinct rule-set shapes (body_gen.h)
	-- the split of compile_ms: reading the CFI into rows, interning rule
	-- sets and building the lookup table, generating machine code, writing
	-- the ELF image; and store_ms, ehelf-batch writing it to the store
	-- (temporary file, fsync, rename, signature)
	read_ms           REAL,
	rules_ms          REAL,
	codegen_ms        REAL,
	image_ms          REAL,
	store_ms          REAL,
	-- SFrame (binutils' .sframe, version 2) estimate for the same rows, as
	-- docs/stats.md states the method (builder/codegen/sframe_est.h
	-- implements it): bytes of header, FDEs and FREs for
	-- the FDEs SFrame can represent; FDEs (and their rows) with a row it
	-- cannot represent are skipped, as GNU as skips such functions
	sframe_bytes        INTEGER,
	sframe_fdes         INTEGER,
	sframe_fres         INTEGER,
	sframe_skipped_fdes INTEGER,
	sframe_skipped_rows INTEGER
);

-- Rule kinds per register column, counted over the rows of one ELF.
-- column_no: DWARF register 0..16 (16: return address), or -1 for the CFA
-- (whose rules are counted as offset = register+offset and expression).
CREATE TABLE IF NOT EXISTS rule_kinds (
	build_id       TEXT NOT NULL REFERENCES eh_elfs(build_id),
	column_no      INTEGER NOT NULL,
	no_rule        INTEGER NOT NULL,
	undefined      INTEGER NOT NULL,
	same_value     INTEGER NOT NULL,
	offset         INTEGER NOT NULL,
	val_offset     INTEGER NOT NULL,
	register       INTEGER NOT NULL,
	expression     INTEGER NOT NULL,
	val_expression INTEGER NOT NULL,
	PRIMARY KEY (build_id, column_no)
);

-- DWARF operations in the expressions of one ELF's rows, by opcode.
CREATE TABLE IF NOT EXISTS dwarf_ops (
	build_id TEXT NOT NULL REFERENCES eh_elfs(build_id),
	opcode   INTEGER NOT NULL,     -- DW_OP_* value
	name     TEXT NOT NULL,        -- 'DW_OP_breg7'
	uses     INTEGER NOT NULL,
	PRIMARY KEY (build_id, opcode)
);

-- FDEs of one ELF by number of rows (rows_per_fde 64 means 64 or more).
CREATE TABLE IF NOT EXISTS fde_rows (
	build_id     TEXT NOT NULL REFERENCES eh_elfs(build_id),
	rows_per_fde INTEGER NOT NULL,
	fdes         INTEGER NOT NULL,
	PRIMARY KEY (build_id, rows_per_fde)
);

-- Since version 3: the distinct rule sets of one ELF (what a row says: the
-- CFA rule, the 17 register rules, signal frame or not), with the rows
-- using each.  fingerprint identifies the rule set across ELFs (the same
-- rules in two ELFs have the same fingerprint, whatever their addresses):
-- FNV-1a 64 of a canonical encoding (builder/codegen/ruleset_fp.h), stored
-- as a signed 64-bit integer; shape is the fingerprint of the rule set with
-- its parametric offsets set to 0 (rule sets of one shape share a body).
-- count(*) of an ELF's rows is its eh_elfs.unique_rows (were two of its
-- rule sets to share a 64-bit fingerprint, they would be one row with the
-- rows of both).
CREATE TABLE IF NOT EXISTS rulesets (
	build_id    TEXT NOT NULL REFERENCES eh_elfs(build_id),
	fingerprint INTEGER NOT NULL,
	shape       INTEGER NOT NULL,
	rows        INTEGER NOT NULL,   -- rows of this ELF using it
	summarised  INTEGER NOT NULL,   -- 1: it has a summary (summary.h)
	supported   INTEGER NOT NULL,   -- 0: it could not be compiled
	cfa_base    TEXT NOT NULL,      -- 'rsp', 'rbp', 'reg' (another register),
	                                -- 'expr', 'none' (no CFA rule)
	cfa_reg     INTEGER,            -- DWARF register of the CFA, NULL for expr/none
	cfa_offset  INTEGER,            -- CFA = register + cfa_offset, NULL for expr/none
	saved_regs  INTEGER NOT NULL,   -- columns 0..15 with a rule that recovers
	                                -- the caller's value (offset, val_offset,
	                                -- register, expression, val_expression)
	PRIMARY KEY (build_id, fingerprint)
) WITHOUT ROWID;

-- Since version 3: a rule set in readelf's frames-interp notation
-- ("cfa=rsp+16 rbx=c-16 ra=c-8", uw_dump.h), for the tables that name the
-- commonest rule sets and shapes.  Shared by every ELF using it.
CREATE TABLE IF NOT EXISTS ruleset_texts (
	fingerprint INTEGER PRIMARY KEY,
	text        TEXT NOT NULL
);

-- Since version 3: FDEs of one ELF by size in bytes (the whole entry, its
-- length field included), in powers of two: bucket b holds FDEs of
-- 2^b .. 2^(b+1)-1 bytes; bytes is their total size.
CREATE TABLE IF NOT EXISTS fde_sizes (
	build_id TEXT NOT NULL REFERENCES eh_elfs(build_id),
	log2     INTEGER NOT NULL,
	fdes     INTEGER NOT NULL,
	bytes    INTEGER NOT NULL,
	PRIMARY KEY (build_id, log2)
);

-- Rule sets that could not be compiled, with the reason.
CREATE TABLE IF NOT EXISTS unsupported (
	build_id   TEXT NOT NULL REFERENCES eh_elfs(build_id),
	ruleset    INTEGER NOT NULL,
	rows       INTEGER NOT NULL,
	example_pc INTEGER NOT NULL,
	reason     TEXT NOT NULL,
	PRIMARY KEY (build_id, ruleset)
);

-- Since version 3 (created by the ehelf-batch that checks for conflicts;
-- absent from databases older ones wrote): the unwind tables each eh_elf
-- was compiled from, as a digest: SHA-256 over its source ELF's .eh_frame
-- then .debug_frame, each with contents (a NUL-terminated name, sh_addr
-- and size as 8 bytes little-endian, the contents, decompressed).  A
-- later file of the same build-ID with another digest is a conflict,
-- unless one of the two is a separate debug file (no .text contents):
-- such a file never decides against an ELF with code (a later ELF with
-- code replaces the eh_elf a debug file gave), nor conflicts with one.
CREATE TABLE IF NOT EXISTS cfi_sources (
	build_id       TEXT PRIMARY KEY,
	cfi_sha256     TEXT NOT NULL,
	separate_debug INTEGER NOT NULL   -- 1: built from a separate debug file
);

-- Since version 3, likewise: files that share a build-ID but not their
-- unwind tables (a package carrying a changed copy of another's library),
-- every one of them (both packages: at least two rows per build-ID).
-- Their files rows have status 'conflict'; the build-ID has no eh_elfs
-- row and no eh_elf in the store, and none is built, shipped or served
-- while it has rows here.  Resolved by `ehelf-batch resolve` (which
-- deletes them and has the next run read their packages again).
CREATE TABLE IF NOT EXISTS conflicts (
	build_id   TEXT NOT NULL,
	package_id INTEGER NOT NULL REFERENCES packages(id),
	path       TEXT NOT NULL,
	cfi_sha256 TEXT NOT NULL,
	PRIMARY KEY (build_id, package_id, path)
);
