# ehelf - top-level Makefile (non-recursive).
#
#   make               build programs into build/bin, libraries into build/lib
#   make run           the main job: eh_elfs of this machine's packages into
#                      build/store, -ehelf packages and apt repository: build/repo,
#                      statistics report: build/store/report.html
#   make check         install test dependencies, check the include graph's
#                      layering, build with -Werror, run unit tests (also
#                      under ASan+UBSan) and the differential tests
#                      (ehelf-batch, ehelf-server against curl, openssl and
#                      elfutils' debuginfod, fetching from it (libehelf-unwind,
#                      ehelf-find), unwinding against libunwind and libdw,
#                      ehelf-perf against perf on recorded workloads,
#                      ehelf-stats against readelf and in chromium,
#                      and the CFI reader on a deterministic sample of this
#                      machine's ELFs and of the packages in tests/diff/packages)
#   make check-full    the same on every ELF, plus a 2-minute libFuzzer run,
#                      nginx, and ehelf-batch as a Slurm job array
#   make archive-sample  eh_elfs and statistics of 2,280 Debian 12 packages
#   make bench         benchmarks, each against its baselines in the same run
#   make deps          install the Debian packages the build and tests need
#   SANITIZE=1 make    build everything with ASan+UBSan into build/san

# (rules come before `all` below: name the goal)
.DEFAULT_GOAL := all

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
WARN := -Wall -Wextra -Werror -Wformat-security -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wno-missing-field-initializers -Wno-format-truncation  # messages are truncated on purpose
CFLAGS ?= -O2 -g
# every object can go into libehelf.so; only EHELF_API symbols are exported;
# -Iabi: ehelf.h includes the eh_elf ABI header by name (installed beside it)
ALL_CFLAGS := -std=gnu11 $(WARN) $(CFLAGS) $(SANFLAGS) $(PKG_CFLAGS) -Iabi -fPIC \
              -fvisibility=hidden -MMD -MP
ALL_LDFLAGS := $(LDFLAGS) $(SANFLAGS)
LIBS := $(PKG_LIBS) $(shell pkg-config --libs libcrypto 2>/dev/null || echo -lcrypto)

# ---- the core libraries: shared code, the CFI reader, the code generator ---
# libehelf-common.a: common/ (errors, ELF files, build-IDs, ...) and
# common/dwarf/ (the DWARF CFI decoding builder and client both use: entry
# framing, pointer encodings, the FDE lookup); libehelf-cfi.a: the CFI reader
# (builder/cfi/); libehelf-codegen.a: the code generator (builder/codegen/).
# Each uses only those after it: a program links what it uses, in this order.
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
               builder/codegen/summary.c builder/codegen/eh_elf_writer.c \
               builder/codegen/ruleset_fp.c builder/codegen/sframe_est.c \
               builder/codegen/fde_owner.c builder/codegen/compile.c
CFI_LIB := $(B)/lib/libehelf-cfi.a
CODEGEN_LIB := $(B)/lib/libehelf-codegen.a
# the three (libehelf-common.a's rule is with ehelf-server's), in link order
CORE_LIB := $(CODEGEN_LIB) $(CFI_LIB) $(B)/lib/libehelf-common.a

BATCH_SRC := store/writer.c builder/batch/package.c builder/batch/package_impl.c \
             builder/batch/package_archive.c builder/batch/package_tree.c \
             builder/batch/package_jobs.c builder/batch/db.c builder/batch/db_conflict.c \
             builder/batch/progress.c builder/batch/batch.c builder/batch/merge.c \
             store/index_db.c
BATCH_LIBS := $(shell pkg-config --libs libarchive sqlite3 libcrypto 2>/dev/null || \
                echo -larchive -lsqlite3 -lcrypto) -lpthread

PROGRAMS := $(B)/bin/ehelf-compile $(B)/bin/ehelf-batch $(B)/bin/ehelf-perf \
            $(B)/bin/ehelf-server $(B)/bin/ehelf-find

# ---- ehelf-server: the HTTP server (server/) --------------------------------
# the shared code as an archive: a program links the objects it uses
COMMON_LIB := $(B)/lib/libehelf-common.a
$(COMMON_LIB): $(COMMON_SRC:%.c=$(B)/obj/%.o)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^
SERVER_SRC := $(filter-out server/ehelf_server.c,$(wildcard server/*.c))
SERVER_LIB_DEPS := $(shell pkg-config --libs libmicrohttpd libdebuginfod sqlite3 \
                     libcrypto 2>/dev/null || \
                     echo -lmicrohttpd -ldebuginfod -lsqlite3 -lcrypto) -lpthread
$(B)/bin/ehelf-server: $(B)/obj/server/ehelf_server.o $(SERVER_SRC:%.c=$(B)/obj/%.o) \
                       $(B)/obj/store/index_db.o \
                       $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(SERVER_LIB_DEPS)
# its tests: real packages, curl, openssl, strace and elfutils' debuginfod
$(B)/tests/server/slowloris: $(B)/obj/tests/server/slowloris.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^
server-test: all $(B)/tests/server/slowloris
	@tests/server/run-server-tests.sh $(B)
# its pure parts, unit-tested (a rule of their own: they are not in libehelf)
$(B)/tests/test_server_route: $(B)/obj/tests/unit/test_server_route.o \
                              $(B)/obj/server/route.o $(B)/obj/server/conditional.o \
                              $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^
# the index creates a missing database with the store's schema (store/schema.sql)
$(B)/obj/server/index.o: $(B)/gen/schema_sql.h
$(B)/obj/server/index.o: ALL_CFLAGS += -I$(B)/gen

# ---- libehelf: the client library -------------------------------------------
CLIENT_SRC := client-lib/object.c client-lib/space.c client-lib/unwind.c \
              client-lib/fallback_dwarf.c client-lib/local_read.c \
              client-lib/summary_step.c client-lib/step_cache.c \
              client-lib/lenient_step.c \
              client-lib/trust.c client-lib/fetch.c client-lib/fetch_config.c \
              client-lib/fetch_cache.c client-lib/resolve.c client-lib/space_fetch.c \
              client-lib/curl_api.c $(wildcard client-lib/cfi_fallback/*.c)
CLIENT_OBJ := $(CLIENT_SRC:%.c=$(B)/obj/%.o) $(B)/obj/client-lib/getcontext.o \
              $(COMMON_SRC:%.c=$(B)/obj/%.o)
CLIENT_LIBS := $(B)/lib/libehelf.a $(B)/lib/libehelf.so $(B)/lib/pkgconfig/libehelf.pc \
               $(B)/lib/libehelf-unwind.so

# ---- ehelf-perf: the perf.data reader and perf's symbols (tools/ehelf-perf/perfdata/)
PERF_SRC := $(wildcard tools/ehelf-perf/perfdata/*.c)
PERF_LIB := $(B)/lib/libehelf-perfdata.a
# what its users link too: libzstd, for perf record -z (decomp.c)
PERF_LIB_DEPS := $(shell pkg-config --libs libzstd 2>/dev/null || echo -lzstd)
$(PERF_LIB): $(PERF_SRC:%.c=$(B)/obj/%.o)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^
# the tool itself: tools/ehelf-perf/ehelf_perf.c, and tools/ehelf-perf/ehelf_perf/ (in a
# library of its own for the tests)
PERFTOOL_SRC := $(wildcard tools/ehelf-perf/ehelf_perf/*.c)
PERFTOOL_LIB := $(B)/lib/libehelf-perftool.a
# libdebuginfod (files missing here, debuginfod_file.c) is loaded with
# dlopen when $DEBUGINFOD_URLS asks for it
$(PERFTOOL_LIB): $(PERFTOOL_SRC:%.c=$(B)/obj/%.o)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^
$(B)/bin/ehelf-perf: $(B)/obj/tools/ehelf-perf/ehelf_perf.o $(PERFTOOL_LIB) \
                     $(PERF_LIB) $(B)/lib/libehelf.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS) $(PERF_LIB_DEPS) -ldl -lpthread
# the cross-check runs the benchmark's baselines too
$(B)/tests/perf/unwind_crosscheck: $(B)/obj/tests/perf/unwind_crosscheck.o \
        $(B)/obj/testkit/libdw_unwind.o $(B)/obj/testkit/libunwind_remote.o \
        $(PERFTOOL_LIB) $(PERF_LIB) $(B)/lib/libehelf.a
	@mkdir -p $(dir $@)
	$(CXX) $(ALL_LDFLAGS) -o $@ $^ -lunwind-x86_64 -lunwind $(LIBS) $(PERF_LIB_DEPS) \
		-ldl -lpthread
# test programs of tests/perf/: each NAME.c is one program
$(B)/tests/perf/%: $(B)/obj/tests/perf/%.o $(PERF_LIB) $(B)/lib/libehelf.a
	@mkdir -p $(dir $@)
	$(CXX) $(ALL_LDFLAGS) -o $@ $^ $(LIBS) $(PERF_LIB_DEPS) -ldl -lpthread

UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
DIFF_SRC := tests/diff/cfi_diff.c tests/diff/readelf_frames.c tests/diff/libdw_frames.c \
            tests/common/corpus_run.c
DIFF_BIN := $(B)/tests/cfi-diff


.PHONY: fixtures all deps check check-full unit unit-san repro batch-test server-test unwind-test perf-test corpus corpus-full \
        fetch-test \
        corpus-san fuzz bench clean run serve help
all: $(CORE_LIB) $(CLIENT_LIBS) $(PROGRAMS)

help:
	@sed -n '2,18p' Makefile

$(B)/obj/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) -c $< -o $@

# objects are rebuilt when the flags change (SANITIZE, CFLAGS, ...)
FLAGS_STAMP := $(B)/.cflags
$(shell mkdir -p $(B) && echo '$(CC) $(ALL_CFLAGS)' | cmp -s - $(FLAGS_STAMP) || \
	echo '$(CC) $(ALL_CFLAGS)' > $(FLAGS_STAMP))

$(B)/obj/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(CFI_LIB): $(CFI_SRC:%.c=$(B)/obj/%.o)
$(CODEGEN_LIB): $(CODEGEN_SRC:%.c=$(B)/obj/%.o)
$(CFI_LIB) $(CODEGEN_LIB):
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(B)/lib/libehelf.a: $(CLIENT_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# no -lcurl: libcurl is loaded when a fetch needs it (client-lib/curl_api.h),
# not at the start of every program that preloads libehelf-unwind
CLIENT_LIB_DEPS := $(LIBS)
$(B)/lib/libehelf.so: $(CLIENT_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -shared -Wl,-soname,libehelf.so.0 -Wl,-z,defs -o $@ $^ $(CLIENT_LIB_DEPS) \
		-ldl -lpthread
	ln -sf libehelf.so $@.0

# libunwind's local API on ehelf (link instead of -lunwind, or LD_PRELOAD)
# (client-lib/libunwind/: every file there; with its background fetch when
# $EHELF_URLS is set: background_fetch.c)
UNWIND_API_SRC := $(wildcard client-lib/libunwind/*.c client-lib/libunwind/*.S)
UNWIND_API_OBJ := $(patsubst %.S,$(B)/obj/%.o,$(UNWIND_API_SRC:%.c=$(B)/obj/%.o))
$(B)/lib/libehelf-unwind.so: $(UNWIND_API_OBJ) $(CLIENT_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -shared -Wl,-soname,libehelf-unwind.so.0 -Wl,-z,defs -o $@ $^ \
		$(CLIENT_LIB_DEPS) -ldl -lpthread
	ln -sf libehelf-unwind.so $@.0

$(B)/lib/pkgconfig/libehelf.pc: client-lib/libehelf.pc.in
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(abspath $(B))|; s|@INCLUDEDIR@|$(abspath client-lib/include)|' \
	    -e 's|@ABIINCLUDEDIR@|$(abspath abi)|' $< > $@

$(B)/bin/ehelf-compile: $(B)/obj/builder/ehelf_compile.o $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

# the resolution chain of libehelf for one build-ID, fetching included
$(B)/bin/ehelf-find: $(B)/obj/tools/ehelf-find/ehelf_find.o $(B)/lib/libehelf.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS) -ldl -lpthread

TESTSUPPORT_SRC := tests/codegen/ir_eval.c tests/codegen/table_check.c tests/common/corpus_run.c
TESTSUPPORT_LIB := $(B)/lib/libehelf-testsupport.a
$(TESTSUPPORT_LIB): $(TESTSUPPORT_SRC:%.c=$(B)/obj/%.o)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(B)/gen/schema_sql.h: store/schema.sql
	@mkdir -p $(dir $@)
	sed 's/\\/\\\\/g; s/"/\\"/g; s/^/"/; s/$$/\\n"/' $< > $@
$(B)/obj/builder/batch/db.o: $(B)/gen/schema_sql.h
$(B)/obj/builder/batch/db.o: ALL_CFLAGS += -I$(B)/gen

$(B)/bin/ehelf-batch: $(B)/obj/builder/ehelf_batch.o $(BATCH_SRC:%.c=$(B)/obj/%.o) $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS) $(BATCH_LIBS)

# the batch builder's package readers, used by several threads at once
$(B)/tests/test_package: $(B)/obj/tests/unit/test_package.o \
                         $(BATCH_SRC:%.c=$(B)/obj/%.o) $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS) $(BATCH_LIBS)

# (the code generator only for the tests of it, and of eh_elfs they compile:
# tests/unit/eh_elf_image.h; the CFI reader and common/ last, for all)
UNIT_CODEGEN := $(addprefix $(B)/tests/,test_codegen test_compile_cli test_x86_asm \
                  test_eh_elf_check test_trust test_ruleset_fp test_lookup_table)
$(UNIT_CODEGEN): $(CODEGEN_LIB)
$(B)/tests/test_%: $(B)/obj/tests/unit/test_%.o $(TESTSUPPORT_LIB) $(PERFTOOL_LIB) $(PERF_LIB) \
                    $(B)/lib/libehelf.a $(CFI_LIB) $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CXX) $(ALL_LDFLAGS) -o $@ $(filter %.o,$^) $(filter-out %.o $(CFI_LIB) $(COMMON_LIB),$^) \
		$(CFI_LIB) $(COMMON_LIB) $(LIBS) $(PERF_LIB_DEPS) -ldl -lpthread

$(DIFF_BIN): $(DIFF_SRC:%.c=$(B)/obj/%.o) $(CFI_LIB) $(COMMON_LIB)
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
$(STORE_CHECK): $(B)/obj/tests/batch/store_check.o $(B)/lib/libehelf.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS) -ldl -lsqlite3

# ---- unwinder tests: programs built against libehelf and libunwind ---------
UNW_DIR := $(B)/tests/unwind
UNW_SCEN := $(B)/obj/tests/unwind/scenarios.o $(B)/obj/tests/unwind/scenarios_cxx.o \
            $(B)/obj/tests/unwind/scenario_cfa_rbx.o
UNW_DIFF := $(B)/obj/tests/unwind/frame_diff.o
UNW_BINS := $(UNW_DIR)/compare-libunwind $(UNW_DIR)/compare-libunwind-ibt \
            $(UNW_DIR)/unw-api-libunwind $(UNW_DIR)/unw-api-libunwind-gcceh \
            $(UNW_DIR)/unw-api-ehelf $(UNW_DIR)/compare-remote $(UNW_DIR)/sample-compare \
            $(UNW_DIR)/robustness $(UNW_DIR)/libunwtest-dso.so \
            $(UNW_DIR)/backtrace-dlopen
UNW_WORK := $(B)/obj/testkit/workloads.o $(B)/obj/testkit/workloads_cxx.o
CXX ?= g++
$(B)/obj/%.o: %.cc $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CXX) -O2 -g -fPIC -Wall -Wextra -Werror $(SANFLAGS) -Iabi -MMD -MP -c $< -o $@
$(UNW_DIR)/compare-libunwind: $(B)/obj/tests/unwind/compare_libunwind.o $(UNW_SCEN) $(UNW_DIFF) \
                              $(B)/lib/libehelf.a
	@mkdir -p $(dir $@)
	$(CXX) $(ALL_LDFLAGS) -rdynamic -o $@ $^ -lunwind $(LIBS) -ldl -lpthread
$(UNW_DIR)/compare-libunwind-ibt: tests/unwind/compare_libunwind.c tests/unwind/scenarios.c \
                                  tests/unwind/scenarios_cxx.cc $(UNW_DIFF) \
                                  $(B)/obj/tests/unwind/scenario_cfa_rbx.o $(B)/lib/libehelf.a
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -fcf-protection=full $(SANFLAGS) -Iabi -c tests/unwind/compare_libunwind.c -o $@-1.o
	$(CC) -std=gnu11 -O2 -g -fcf-protection=full $(SANFLAGS) -Iabi -c tests/unwind/scenarios.c -o $@-2.o
	$(CXX) -O2 -g -fcf-protection=full $(SANFLAGS) -Iabi -c tests/unwind/scenarios_cxx.cc -o $@-3.o
	$(CXX) $(ALL_LDFLAGS) -rdynamic -fcf-protection=full -Wl,-z,ibtplt -o $@ $@-1.o $@-2.o \
		$@-3.o $(B)/obj/tests/unwind/scenario_cfa_rbx.o $(UNW_DIFF) $(B)/lib/libehelf.a \
		-lunwind $(LIBS) -ldl -lpthread
	rm -f $@-1.o $@-2.o $@-3.o
$(UNW_DIR)/compare-remote: $(B)/obj/tests/unwind/compare_remote.o $(UNW_SCEN) $(UNW_DIFF) \
                           $(B)/lib/libehelf.a
	@mkdir -p $(dir $@)
	$(CXX) $(ALL_LDFLAGS) -o $@ $^ -lunwind-ptrace -lunwind-generic -lunwind \
		$(LIBS) -ldl -lpthread
$(UNW_DIR)/sample-compare: $(B)/obj/tests/unwind/sample_compare.o $(UNW_WORK) \
                           $(B)/lib/libehelf.a
	@mkdir -p $(dir $@)
	$(CXX) $(ALL_LDFLAGS) -o $@ $^ -Wl,--push-state,--no-as-needed -lgcc_s \
		-Wl,--pop-state -lunwind -lz -lsqlite3 $(LIBS) -ldl -lpthread
$(UNW_DIR)/robustness: $(B)/obj/tests/unwind/robustness.o $(B)/lib/libehelf.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS) -ldl -lpthread
$(UNW_DIR)/libunwtest-dso.so: $(B)/obj/tests/unwind/dso_callback.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -shared -o $@ $^
$(UNW_DIR)/unw-api-libunwind: $(B)/obj/tests/unwind/unw_api.o $(UNW_SCEN)
	@mkdir -p $(dir $@)
	$(CXX) $(ALL_LDFLAGS) -o $@ $^ -lunwind -ldl -lpthread
# the same with libgcc's _Unwind_* ahead of libunwind's (libunwind.so.8
# exports both): throw goes through the runtime the relinked program uses
$(UNW_DIR)/unw-api-libunwind-gcceh: $(B)/obj/tests/unwind/unw_api.o $(UNW_SCEN)
	@mkdir -p $(dir $@)
	$(CXX) $(ALL_LDFLAGS) -o $@ $^ -Wl,--push-state,--no-as-needed -lgcc_s \
		-Wl,--pop-state -lunwind -ldl -lpthread
$(UNW_DIR)/backtrace-dlopen: $(B)/obj/tests/unwind/backtrace_dlopen.o $(B)/lib/libehelf-unwind.so
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -rdynamic -o $@ $(B)/obj/tests/unwind/backtrace_dlopen.o \
		-L$(B)/lib -lehelf-unwind -ldl
$(UNW_DIR)/unw-api-ehelf: $(B)/obj/tests/unwind/unw_api.o $(UNW_SCEN) $(B)/lib/libehelf-unwind.so
	@mkdir -p $(dir $@)
	$(CXX) $(ALL_LDFLAGS) -o $@ $(B)/obj/tests/unwind/unw_api.o $(UNW_SCEN) \
		-L$(B)/lib -lehelf-unwind -ldl -lpthread

unwind-test: all $(UNW_BINS)
	@tests/unwind/run-unwind-tests.sh $(B)

# ---- fetching: ehelf-server to libehelf-unwind and ehelf-find -------------
# unw_api.c's libunwind program, waiting for the background fetch
$(B)/tests/fetch/fetch-unw-api: $(B)/obj/tests/unwind/unw_api.o $(UNW_SCEN) \
                                $(B)/obj/tests/fetch/wait_fetch.o
	@mkdir -p $(dir $@)
	$(CXX) $(ALL_LDFLAGS) -o $@ $^ -lunwind -ldl -lpthread
# ehelf_space_fetch while other threads unwind with the space
$(B)/tests/fetch/space-fetch: $(B)/obj/tests/fetch/space_fetch.o $(B)/lib/libehelf.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS) -ldl -lpthread
fetch-test: all $(B)/tests/fetch/fetch-unw-api $(B)/tests/fetch/space-fetch \
            $(UNW_DIR)/libunwtest-dso.so
	@tests/fetch/run-fetch-tests.sh $(B)

# ehelf-perf against perf on real recordings: the perf.data reader, the
# symbols, then whole `perf script` outputs
PERF_TEST_BINS := $(B)/tests/perf/perf_data_dump $(B)/tests/perf/symbols_check \
                  $(B)/tests/perf/script_compare $(B)/tests/perf/unwind_crosscheck
perf-test: all $(PERF_TEST_BINS)
	@tests/perf/run-perf-data-tests.sh $(B)
	@tests/perf/run-symbols-tests.sh $(B)
	@tests/perf/run-perf-tests.sh $(B)
	@tests/perf/run-perf-fetch-tests.sh $(B)

QUIRKS_BIN := $(B)/tests/tool-quirks
$(QUIRKS_BIN): $(B)/obj/tests/diff/test_tool_quirks.o $(B)/obj/tests/diff/readelf_frames.o \
               $(B)/obj/tests/diff/libdw_frames.o $(CFI_LIB) $(COMMON_LIB)
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

# nginx serving a store with server/nginx/ehelf-store.conf; the systemd unit
.PHONY: nginx-test
nginx-test: all
	@tests/server/run-nginx-test.sh $(B)

# the include graph: no cycle in a folder, components layered (fast)
.PHONY: layering
layering:
	@tests/layering/check-includes.sh

repro: all $(FIXTURES)
	@tests/repro/check-repro.sh $(B)

fuzz: fixtures $(B)/bin/ehelf-compile
	@EHELF_COMPILE=$(B)/bin/ehelf-compile tests/fuzz/run-fuzz.sh $(or $(FUZZ_SECONDS),120)

check: deps
	@$(MAKE) --no-print-directory layering
	@$(MAKE) --no-print-directory all unit
	@$(MAKE) --no-print-directory unit-san
	@$(MAKE) --no-print-directory repro
	@$(MAKE) --no-print-directory batch-test
	@$(MAKE) --no-print-directory server-test
	@$(MAKE) --no-print-directory fetch-test
	@$(MAKE) --no-print-directory unwind-test
	@$(MAKE) --no-print-directory perf-test
	@$(MAKE) --no-print-directory corpus
	@$(MAKE) --no-print-directory corpus-san
	@$(MAKE) --no-print-directory pkg-test pkg-install-test
	@$(MAKE) --no-print-directory stats-test stats-figures-test
	@for t in $(CHECK_MORE); do $(MAKE) --no-print-directory $$t || exit 1; done
	@echo "make check: all passed"

check-full: deps
	@$(MAKE) --no-print-directory layering
	@$(MAKE) --no-print-directory all unit
	@$(MAKE) --no-print-directory unit-san
	@$(MAKE) --no-print-directory repro
	@$(MAKE) --no-print-directory batch-test
	@$(MAKE) --no-print-directory server-test
	@$(MAKE) --no-print-directory fetch-test
	@$(MAKE) --no-print-directory unwind-test
	@$(MAKE) --no-print-directory perf-test
	@$(MAKE) --no-print-directory corpus-full
	@$(MAKE) --no-print-directory corpus-san
	@$(MAKE) --no-print-directory nginx-test
	@$(MAKE) --no-print-directory fuzz
	@$(MAKE) --no-print-directory pkg-test pkg-install-test
	@$(MAKE) --no-print-directory stats-test stats-figures-test
	@$(MAKE) --no-print-directory slurm-test
	@for t in $(CHECK_MORE) $(CHECK_FULL_MORE); do $(MAKE) --no-print-directory $$t || exit 1; done
	@echo "make check-full: all passed"

BENCH_UNWIND := $(B)/bench/bench-unwind
$(BENCH_UNWIND): $(B)/obj/bench/bench_unwind.o $(B)/obj/testkit/libdw_unwind.o \
                 $(B)/obj/bench/deep_stack_cxx.o $(UNW_WORK) $(B)/lib/libehelf.a
	@mkdir -p $(dir $@)
	$(CXX) $(ALL_LDFLAGS) -o $@ $^ -Wl,--push-state,--no-as-needed -lgcc_s \
		-Wl,--pop-state -lunwind -lz -lsqlite3 $(LIBS) -ldl -lpthread
BENCH_PERF := $(B)/bench/bench-perf-unwind
PERF_BASELINES := $(B)/obj/testkit/libdw_unwind.o $(B)/obj/testkit/libunwind_remote.o
$(BENCH_PERF): $(B)/obj/bench/bench_perf_unwind.o $(PERF_BASELINES) \
               $(PERFTOOL_LIB) $(PERF_LIB) $(B)/lib/libehelf.a
	@mkdir -p $(dir $@)
	$(CXX) $(ALL_LDFLAGS) -o $@ $^ -lunwind-x86_64 -lunwind $(LIBS) $(PERF_LIB_DEPS) \
		-ldl -lpthread
# ---- bench: cold sampling (issue 21) ---------------------------------------
# programs that sample themselves with SIGPROF over cache-thrashing work and
# unwind in the handler: written against <libunwind.h> (run against libunwind
# and with libehelf-unwind preloaded; C, and C++ with deep templates), and
# the same against <ehelf.h> (bench/cold-sampling/cold_sampling.c)
COLD_DIR := $(B)/bench
COLD_BINS := $(COLD_DIR)/cold-sampling-c $(COLD_DIR)/cold-sampling-cxx \
             $(COLD_DIR)/cold-sampling-native
COLD_OBJ := $(B)/obj/bench/cold-sampling/cold_sampling.o
COLD_CXX_OBJ := $(B)/obj/bench/cold-sampling/cold_cxx.o
$(B)/obj/bench/cold-sampling/cold_sampling_native.o: bench/cold-sampling/cold_sampling.c \
                                                     $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DCOLD_NATIVE -Iclient-lib/include -c $< -o $@
$(COLD_DIR)/cold-sampling-c: $(COLD_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ -lunwind -lz -lsqlite3
$(COLD_DIR)/cold-sampling-cxx: $(COLD_OBJ) $(COLD_CXX_OBJ)
	@mkdir -p $(dir $@)
	$(CXX) $(ALL_LDFLAGS) -o $@ $^ -lunwind -lz -lsqlite3
$(COLD_DIR)/cold-sampling-native: $(B)/obj/bench/cold-sampling/cold_sampling_native.o \
                                  $(COLD_CXX_OBJ) $(B)/lib/libehelf.so
	@mkdir -p $(dir $@)
	$(CXX) $(ALL_LDFLAGS) -o $@ $(filter %.o,$^) -L$(B)/lib -lehelf \
		-Wl,-rpath,$(abspath $(B)/lib) -lz -lsqlite3
.PHONY: cold-bench
cold-bench: all $(COLD_BINS)
	@bench/cold-bench.sh $(B)

bench: deps all $(BENCH_CODEGEN) $(GEN_C) $(BENCH_UNWIND) $(BENCH_PERF) $(COLD_BINS) \
       $(B)/bin/ehelf-perf $(B)/tests/perf/script_compare \
       $(B)/tests/perf/unwind_crosscheck $(B)/bin/ehelf-server
	@bench/run-bench.sh $(B)
	@for t in $(BENCH_MORE); do $(MAKE) --no-print-directory $$t || exit 1; done

# The main job: the eh_elfs of every package installed on this machine (or
# of SOURCES=...) into build/store, with its database build/store/ehelf.sqlite;
# then their -ehelf packages and an apt repository in build/repo, signed by a
# key made once in REPO_GNUPG (outside build/: it outlives make clean, and
# the machines that trust it keep doing so; docs/packaging.md); ehelf-pkg
# prints how to serve it and add it to apt.
REPO_GNUPG ?= $(or $(XDG_DATA_HOME),$(HOME)/.local/share)/ehelf/repo-gnupg
run: deps all
	$(B)/bin/ehelf-batch --store $(B)/store $(SOURCES) || [ $$? = 3 ] # 3: ELFs not compiled, recorded
	GNUPGHOME=$(REPO_GNUPG) $(B)/bin/ehelf-pkg --store $(B)/store --out $(B)/repo \
		--gpg-key $$(packaging/repo-key.sh $(REPO_GNUPG))
	$(B)/bin/ehelf-stats --db $(B)/store/ehelf.sqlite --html $(B)/store/report.html
	@echo "statistics of this store (ehelf-stats): $(abspath $(B)/store/report.html)"

# ---- packaging/: -ehelf packages, the apt repository, dh_ehelf ----------
# (docs/packaging.md)  ehelf-pkg reads the database read-only through
# store/index_db.c, as ehelf-server does
PKG_SRC := $(wildcard packaging/*.c)
$(B)/bin/ehelf-pkg: $(PKG_SRC:%.c=$(B)/obj/%.o) $(B)/obj/store/index_db.o $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS) $(BATCH_LIBS)
all: $(B)/bin/ehelf-pkg
# its tests: real packages, lintian, apt, a Debian root with the -ehelf
# packages installed and a program unwinding there with libehelf
$(B)/obj/tests/packaging/unwind_report.o: ALL_CFLAGS += -Iclient-lib/include
$(B)/tests/packaging/unwind-report: $(B)/obj/tests/packaging/unwind_report.o $(B)/lib/libehelf.so
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -rdynamic -o $@ $< -L$(B)/lib -lehelf -ldl
.PHONY: pkg-test pkg-install-test deb
pkg-test: all
	@tests/packaging/run-packaging-tests.sh $(B)
pkg-install-test: all $(B)/tests/packaging/unwind-report
	@tests/packaging/run-apt-install-test.sh $(B)
# the project's own packages, ehelf-compile and dh-ehelf, into build/debs
deb:
	@packaging/build-debs.sh build/debs
# packages and repository for the whole of this machine's store
.PHONY: bench-pkg
bench-pkg: all
	@tests/packaging/bench-pkg.sh $(B)
bench: bench-pkg

# ---- corpus-stats/: ehelf-stats -------------------------------------------
# the statistics of a store's database (docs: ehelf-stats --help); it reads
# the database read-only through store/index_db.c, as ehelf-pkg does
STATS_SRC := $(wildcard corpus-stats/*.c)
$(B)/bin/ehelf-stats: $(STATS_SRC:%.c=$(B)/obj/%.o) $(B)/obj/store/index_db.o $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(shell pkg-config --libs sqlite3 2>/dev/null || \
		echo -lsqlite3) -lm
all: $(B)/bin/ehelf-stats
# its tests: the four outputs agree, damaged and foreign databases refused;
# every figure readelf can check computed from readelf alone on real
# Debian packages, the HTML page rendered by headless chromium
.PHONY: stats-test stats-figures-test archive-sample slurm-test
stats-test: all fixtures
	@tests/stats/run-stats-tests.sh $(B)
stats-figures-test: all fixtures
	@tests/stats/run-stats-figures-test.sh $(B)
# the Debian 12 archive sample (docs/archive-sample.md): 2,280 packages
# downloaded into a cache outside build/, ehelf-batch, then ehelf-stats'
# report into build/archive-sample
archive-sample: deps all
	@corpus-stats/archive-sample.sh --build $(B) --out $(B)/archive-sample $(ARCHIVE_SAMPLE_ARGS)
# ehelf-batch --shard as a Slurm job array on a one-node cluster on
# loopback, merged, against one unsharded run (docs/scale-out.md)
slurm-test: all $(STORE_CHECK)
	@tests/slurm/run-slurm-test.sh $(B)

# Serve what `make run` built (read-only), on port 8003.
serve: all
	$(B)/bin/ehelf-server --store $(B)/store --upstream "" $(SERVE_ARGS)

clean:
	rm -rf build

# one fragment a topic (mk/*.mk): each adds its rules, and its test targets to
# CHECK_MORE (make check and check-full), CHECK_FULL_MORE (check-full only)
# or BENCH_MORE (make bench, after bench/run-bench.sh)
CHECK_MORE :=
CHECK_FULL_MORE :=
BENCH_MORE :=
include $(sort $(wildcard mk/*.mk))

# keep test objects between runs
.SECONDARY:

-include $(shell find build -name '*.d' -type f 2>/dev/null)
