# ehelf - top-level Makefile (non-recursive).
#
#   make               build programs into build/bin, libraries into build/lib
#   make check         install test dependencies, build with -Werror, run unit
#                      tests (also under ASan+UBSan) and the differential
#                      tests on a deterministic sample of this machine's ELFs
#                      and of the Debian packages listed in tests/diff/packages
#   make check-full    the same on every ELF, plus a 2-minute libFuzzer run
#   make bench         benchmarks, each against its baselines in the same run
#   make deps          install the Debian packages the build and tests need
#   SANITIZE=1 make    build everything with ASan+UBSan into build/san

SANITIZE ?= 0
ifeq ($(SANITIZE),1)
B := build/san
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
else
B := build
SANFLAGS :=
endif

CC ?= cc
PKGS := libdw libelf
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -ldw -lelf)
WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wno-missing-field-initializers -Wno-format-truncation  # messages are truncated on purpose
CFLAGS ?= -O2 -g
# every object can go into libehelf.so; only EHELF_API symbols are exported
ALL_CFLAGS := -std=gnu11 $(WARN) $(CFLAGS) $(SANFLAGS) $(PKG_CFLAGS) -fPIC \
              -fvisibility=hidden -MMD -MP
ALL_LDFLAGS := $(LDFLAGS) $(SANFLAGS)
LIBS := $(PKG_LIBS)

# ---- the core library: shared code and the CFI reader ----------------------
COMMON_SRC := common/err.c common/elf_file.c common/buildid.c common/atomic_file.c
CFI_SRC := builder/cfi/eh_pe.c builder/cfi/unwind_ir.c builder/cfi/cfi_entry.c \
           builder/cfi/cfi_program.c builder/cfi/cfi_reader.c \
           builder/cfi/dwarf_op.c builder/cfi/uw_dump.c
CODEGEN_SRC := builder/codegen/x86_asm.c builder/codegen/ruleset.c \
               builder/codegen/lookup_table.c builder/codegen/expr_compile.c \
               builder/codegen/body_gen.c builder/codegen/entry_gen.c \
               builder/codegen/eh_elf_writer.c builder/codegen/compile.c
CORE_SRC := $(COMMON_SRC) $(CFI_SRC) $(CODEGEN_SRC)
CORE_OBJ := $(CORE_SRC:%.c=$(B)/obj/%.o)
CORE_LIB := $(B)/lib/libehelf-core.a

BATCH_SRC := builder/batch/store.c builder/batch/package.c builder/batch/package_archive.c \
             builder/batch/package_tree.c builder/batch/package_jobs.c builder/batch/db.c \
             builder/batch/progress.c builder/batch/batch.c builder/batch/merge.c
BATCH_LIBS := $(shell pkg-config --libs libarchive sqlite3 libcrypto 2>/dev/null || \
                echo -larchive -lsqlite3 -lcrypto) -lpthread

PROGRAMS := $(B)/bin/ehelf-compile $(B)/bin/ehelf-batch

# ---- libehelf: the client library -------------------------------------------
CLIENT_SRC := client-lib/object.c
CLIENT_OBJ := $(CLIENT_SRC:%.c=$(B)/obj/%.o) $(COMMON_SRC:%.c=$(B)/obj/%.o)
CLIENT_LIBS := $(B)/lib/libehelf.a $(B)/lib/libehelf.so $(B)/lib/pkgconfig/libehelf.pc

UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
DIFF_SRC := tests/diff/cfi_diff.c tests/diff/readelf_frames.c tests/diff/libdw_frames.c \
            tests/common/corpus_run.c
DIFF_BIN := $(B)/tests/cfi-diff


.PHONY: fixtures all deps check check-full unit unit-san repro batch-test corpus corpus-full \
        corpus-san fuzz bench clean run help
all: $(CORE_LIB) $(CLIENT_LIBS) $(PROGRAMS)

help:
	@sed -n '2,13p' Makefile

# objects are rebuilt when the flags change (SANITIZE, CFLAGS, ...)
FLAGS_STAMP := $(B)/.cflags
$(shell mkdir -p $(B) && echo '$(CC) $(ALL_CFLAGS)' | cmp -s - $(FLAGS_STAMP) || \
	echo '$(CC) $(ALL_CFLAGS)' > $(FLAGS_STAMP))

$(B)/obj/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(CORE_LIB): $(CORE_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(B)/lib/libehelf.a: $(CLIENT_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(B)/lib/libehelf.so: $(CLIENT_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -shared -Wl,-soname,libehelf.so.0 -Wl,-z,defs -o $@ $^ $(LIBS) -ldl

$(B)/lib/pkgconfig/libehelf.pc: client-lib/libehelf.pc.in
	@mkdir -p $(dir $@)
	sed 's|@PREFIX@|$(abspath $(B))|; s|@INCLUDEDIR@|$(abspath client-lib/include)|' $< > $@

$(B)/bin/ehelf-compile: $(B)/obj/builder/ehelf_compile.o $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

TESTSUPPORT_SRC := tests/codegen/ir_eval.c tests/common/corpus_run.c
TESTSUPPORT_LIB := $(B)/lib/libehelf-testsupport.a
$(TESTSUPPORT_LIB): $(TESTSUPPORT_SRC:%.c=$(B)/obj/%.o)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(B)/gen/schema_sql.h: builder/schema.sql
	@mkdir -p $(dir $@)
	sed 's/\\/\\\\/g; s/"/\\"/g; s/^/"/; s/$$/\\n"/' $< > $@
$(B)/obj/builder/batch/db.o: $(B)/gen/schema_sql.h
$(B)/obj/builder/batch/db.o: ALL_CFLAGS += -I$(B)/gen

$(B)/bin/ehelf-batch: $(B)/obj/builder/ehelf_batch.o $(BATCH_SRC:%.c=$(B)/obj/%.o) $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS) $(BATCH_LIBS)

$(B)/tests/test_%: $(B)/obj/tests/unit/test_%.o $(TESTSUPPORT_LIB) $(B)/lib/libehelf.a $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS) -ldl

$(DIFF_BIN): $(DIFF_SRC:%.c=$(B)/obj/%.o) $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

CHECK_BIN := $(B)/tests/codegen-check
$(CHECK_BIN): $(B)/obj/tests/codegen/codegen_check.o $(TESTSUPPORT_LIB) $(B)/lib/libehelf.a $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS) -ldl

BENCH_CODEGEN := $(B)/bench/bench-codegen
$(BENCH_CODEGEN): $(B)/obj/bench/bench_codegen.o $(B)/lib/libehelf.a $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS) -ldl

GEN_C := $(B)/bench/gen-c
$(GEN_C): $(B)/obj/bench/gen_c.o $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

STORE_CHECK := $(B)/tests/store-check
$(STORE_CHECK): $(B)/obj/tests/batch/store_check.o $(B)/lib/libehelf.a $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS) -ldl -lsqlite3

QUIRKS_BIN := $(B)/tests/tool-quirks
$(QUIRKS_BIN): $(B)/obj/tests/diff/test_tool_quirks.o $(B)/obj/tests/diff/readelf_frames.o \
               $(B)/obj/tests/diff/libdw_frames.o $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

# ---- fixtures: ELF files built here whose CFI covers what gas can emit ----
FIX := $(B)/fixtures
FIX_SRC := tests/fixtures/cfi_zoo.S tests/fixtures/frames.c
FIX_CC := gcc -O2 -fPIC -w
NOUNWIND := -fno-asynchronous-unwind-tables -fno-unwind-tables
FIXTURES := $(FIX)/zoo.so $(FIX)/zoo-exec $(FIX)/zoo-both.so $(FIX)/zoo-cie3.so \
            $(FIX)/zoo-cie4.so $(FIX)/zoo-debugframe.so $(FIX)/zoo-debugframe.debug
fixtures: $(FIXTURES)
$(FIX)/zoo.so: $(FIX_SRC)
	@mkdir -p $(dir $@)
	$(FIX_CC) -shared -o $@ $^
$(FIX)/zoo-exec: $(FIX_SRC)
	@mkdir -p $(dir $@)
	$(FIX_CC) -no-pie -fno-pic -DFIXTURE_MAIN -o $@ $^
$(FIX)/zoo-both.so: $(FIX_SRC)
	@mkdir -p $(dir $@)
	$(FIX_CC) -shared -DZOO_BOTH_SECTIONS -o $@ $^
$(FIX)/zoo-cie%.so: $(FIX_SRC)
	@mkdir -p $(dir $@)
	$(FIX_CC) -shared -DZOO_BOTH_SECTIONS -Wa,--gdwarf-cie-version=$* -o $@ $^
$(FIX)/zoo-debugframe.so: $(FIX_SRC)
	@mkdir -p $(dir $@)
	$(FIX_CC) -shared -g $(NOUNWIND) -DZOO_DEBUG_FRAME_ONLY -o $@ $^
$(FIX)/zoo-debugframe.debug: $(FIX)/zoo-debugframe.so
	objcopy --only-keep-debug --compress-debug-sections=zlib $< $@

# ---- dependencies ---------------------------------------------------------
deps:
	@scripts/install-deps.sh

# ---- tests ----------------------------------------------------------------
unit: $(UNIT_BIN) $(PROGRAMS) $(FIXTURES)
	@scripts/run-unit-tests.sh $(B)

unit-san:
	@$(MAKE) --no-print-directory SANITIZE=1 unit

CORPUS_BINS := $(DIFF_BIN) $(QUIRKS_BIN) $(CHECK_BIN) $(FIXTURES)

corpus: all $(CORPUS_BINS)
	@$(QUIRKS_BIN) $(B)
	@tests/diff/run-corpus.sh --sample $(B)

corpus-full: all $(CORPUS_BINS)
	@$(QUIRKS_BIN) $(B)
	@tests/diff/run-corpus.sh --full $(B)

corpus-san:
	@$(MAKE) --no-print-directory SANITIZE=1 all build/san/tests/cfi-diff \
		build/san/tests/tool-quirks build/san/tests/codegen-check fixtures
	@build/san/tests/tool-quirks build/san
	@EHELF_SAMPLE_EVERY=8 tests/diff/run-corpus.sh --sample build/san

batch-test: all $(STORE_CHECK)
	@tests/batch/run-batch-tests.sh $(B)

repro: all $(FIXTURES)
	@tests/repro/check-repro.sh $(B)

fuzz: fixtures
	@tests/fuzz/run-fuzz.sh $(or $(FUZZ_SECONDS),120)

check: deps
	@$(MAKE) --no-print-directory all unit
	@$(MAKE) --no-print-directory unit-san
	@$(MAKE) --no-print-directory repro
	@$(MAKE) --no-print-directory batch-test
	@$(MAKE) --no-print-directory corpus
	@$(MAKE) --no-print-directory corpus-san
	@echo "make check: all passed"

check-full: deps
	@$(MAKE) --no-print-directory all unit
	@$(MAKE) --no-print-directory unit-san
	@$(MAKE) --no-print-directory repro
	@$(MAKE) --no-print-directory batch-test
	@$(MAKE) --no-print-directory corpus-full
	@$(MAKE) --no-print-directory corpus-san
	@$(MAKE) --no-print-directory fuzz
	@echo "make check-full: all passed"

bench: deps all $(BENCH_CODEGEN) $(GEN_C)
	@bench/run-bench.sh $(B)

# The main job: the eh_elfs of every package installed on this machine (or
# of SOURCES=...) into build/store, with its database build/store/ehelf.sqlite.
run: deps all
	$(B)/bin/ehelf-batch --store $(B)/store $(SOURCES)

clean:
	rm -rf build

# keep test objects between runs
.SECONDARY:

-include $(shell find build -name '*.d' 2>/dev/null)
