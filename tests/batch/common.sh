# Helpers of the ehelf-batch tests (sourced; T, the temporary directory,
# set by the caller): a store's database, its rows and files as texts to
# compare between runs.
json() { # json FILE KEY: a number from a summary object
	sed -n "s/.*\"$2\": \([0-9.]*\).*/\1/p" "$1"
}
q() { sqlite3 "$1/ehelf.sqlite" "$2"; }
# "build-ID sha256" of every eh_elf file of STORE, and as its database says
store_sums() {
	find "$1/.build-id" -name '*.so' -exec sha256sum {} + |
		sed 's|^\([0-9a-f]*\)  .*/\([0-9a-f][0-9a-f]\)/\([0-9a-f]*\)\.so$|\2\3 \1|' | sort
}
db_sums() { sqlite3 "${2:-$1/ehelf.sqlite}" "SELECT build_id || ' ' || sha256 FROM eh_elfs ORDER BY 1"; }
# files rows as (format, package, version, arch, path, build-ID, outcome)
# of STORE's database (or of DB)
dump() {
	sqlite3 "${2:-$1/ehelf.sqlite}" "SELECT p.format, p.name, p.version,
	        p.architecture, f.path, coalesce(f.build_id, ''), CASE WHEN
	        f.status IN ('built', 'present') THEN 'ok' ELSE f.status END
	        FROM files f JOIN packages p ON p.id = f.package_id
	        ORDER BY 1, 2, 3, 4, 5"
}
