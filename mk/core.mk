# ---- the bottom rooms and the builder's libraries ---------------------------
# libehelf-common.a: common/ (errors, ELF files, build-IDs, signatures, the
# eh_elf check, ...), common/dwarf/ (the DWARF CFI decoding builder and
# client both use) and store/layout.c (where a store keeps each eh_elf:
# the client reads stores too); libehelf-cfi.a: the CFI reader
# (builder/cfi/); libehelf-codegen.a: the code generator (builder/codegen/).
# Each uses only those after it (the link rule orders them so).
COMMON_SRC := common/err.c common/elf_file.c common/buildid.c common/atomic_file.c \
              common/u64_map.c common/sign.c common/dwarf/eh_pe.c \
              common/dwarf/cfi_entry.c common/dwarf/fde_lookup.c \
              common/eh_elf_check.c store/layout.c
CFI_SRC := builder/cfi/unwind_ir.c builder/cfi/cfi_program.c builder/cfi/cfi_reader.c \
           builder/cfi/dwarf_op.c builder/cfi/uw_dump.c
CODEGEN_SRC := builder/codegen/x86_asm.c builder/codegen/ruleset.c \
               builder/codegen/lookup_table.c builder/codegen/gen_ctx.c \
               builder/codegen/expr_compile.c \
               builder/codegen/body_gen.c builder/codegen/entry_gen.c \
               builder/codegen/entry_lookup.c builder/codegen/entry_summary.c \
               builder/codegen/entry_full.c builder/codegen/entry_compact.c \
               builder/codegen/entry_tables.c \
               builder/codegen/summary.c builder/codegen/eh_elf_writer.c \
               builder/codegen/ruleset_fp.c builder/codegen/sframe_est.c \
               builder/codegen/fde_owner.c builder/codegen/compile.c
COMMON_LIB := $(B)/lib/libehelf-common.a
CFI_LIB := $(B)/lib/libehelf-cfi.a
CODEGEN_LIB := $(B)/lib/libehelf-codegen.a
CORE_LIB := $(CODEGEN_LIB) $(CFI_LIB) $(COMMON_LIB)
$(COMMON_LIB): $(COMMON_SRC:%.c=$(B)/obj/%.o)
	$(call archive)
$(CFI_LIB): $(CFI_SRC:%.c=$(B)/obj/%.o)
	$(call archive)
$(CODEGEN_LIB): $(CODEGEN_SRC:%.c=$(B)/obj/%.o)
	$(call archive)
ALL_TARGETS += $(CORE_LIB)

# ---- store/: the database's schema and its read-only reader ----------------
# store/schema.sql, embedded by the programs that create a database
# (ehelf-batch, ehelf-server's index) through a generated header;
# store/index_db.c, linked by each program that opens one (it needs sqlite3)
STORE_DB_OBJ := $(B)/obj/store/index_db.o
SQLITE_LIBS := $(shell pkg-config --libs sqlite3 2>/dev/null || echo -lsqlite3)
$(B)/gen/schema_sql.h: store/schema.sql
	@mkdir -p $(dir $@)
	sed 's/\\/\\\\/g; s/"/\\"/g; s/^/"/; s/$$/\\n"/' $< > $@
