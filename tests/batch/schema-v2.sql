-- schema-v2.sql - the store's schema (store/schema.sql, then
-- builder/schema.sql) as of version 2, frozen for the migration tests of
-- tests/batch/run-batch-tests.sh.

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
--   2  this schema.
-- A database of a later version is refused (written by a newer ehelf-batch).

PRAGMA journal_mode = WAL;
PRAGMA foreign_keys = ON;
PRAGMA user_version = 2;

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
	-- could not be read or compiled; error says why for the last three
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
	abi_version       INTEGER,  -- EHELF_ABI_VERSION (client-lib/include/ehelf_abi.h)
	generator_version INTEGER,  -- EHELF_GENERATOR_VERSION (builder/codegen/compile.h)
	signed_by         TEXT      -- key ID of its signature (docs/signatures.md), NULL: unsigned
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

-- Rule sets that could not be compiled, with the reason.
CREATE TABLE IF NOT EXISTS unsupported (
	build_id   TEXT NOT NULL REFERENCES eh_elfs(build_id),
	ruleset    INTEGER NOT NULL,
	rows       INTEGER NOT NULL,
	example_pc INTEGER NOT NULL,
	reason     TEXT NOT NULL,
	PRIMARY KEY (build_id, ruleset)
);
