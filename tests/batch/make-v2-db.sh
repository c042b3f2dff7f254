#!/bin/sh
# make-v2-db.sh STORE DB: DB, a database of version 2 (schema-v2.sql, as
# ehelf-batch wrote it before the statistics) with the rows of STORE's
# database that version had (no signatures).  Used by the batch and the
# ehelf-stats tests to feed migration and refusal a real old database.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=${1:?usage: make-v2-db.sh STORE DB}/ehelf.sqlite
db=${2:?usage: make-v2-db.sh STORE DB}
sqlite3 "$db" <"$here/schema-v2.sql" >/dev/null
sqlite3 "$db" "ATTACH '$src' AS n;
	INSERT INTO packages SELECT id, name, version, architecture, source, format,
	       status, error, seconds FROM n.packages;
	INSERT INTO files SELECT id, package_id, path, build_id, build_id_kind, size,
	       text_bytes, eh_frame_bytes, eh_frame_hdr_bytes, debug_frame_bytes,
	       ehelf_bytes, status, error FROM n.files;
	INSERT INTO eh_elfs SELECT build_id, ehelf_bytes, code_bytes, table_bytes, fdes,
	       rows, unique_rows, entries, unsupported_rows, compile_ms, sha256,
	       abi_version, generator_version, NULL FROM n.eh_elfs;
	INSERT INTO rule_kinds SELECT * FROM n.rule_kinds;
	INSERT INTO fde_rows SELECT * FROM n.fde_rows"
