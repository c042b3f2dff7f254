# ---- tests/: unit tests, differential tests, make check ----------------------
# what several test programs share: the code generator's evaluator and
# table checker, the corpus runner
TESTSUPPORT_SRC := tests/codegen/ir_eval.c tests/codegen/table_check.c tests/common/corpus_run.c
TESTSUPPORT_LIB := $(B)/lib/libehelf-testsupport.a
$(TESTSUPPORT_LIB): $(TESTSUPPORT_SRC:%.c=$(B)/obj/%.o)
	$(call archive)

# ---- fixtures: ELF files built here whose CFI covers what gas can emit ----
# each fixture NAME from tests/fixtures/cfi_zoo.S and frames.c, compiled
# with gcc's own flags (FIX_CC, then FIX_FLAGS_NAME) into $(FIX)/obj/NAME/
# and linked by the link rule with gcc, without the project's link flags
FIX := $(B)/fixtures
FIX_CC := gcc -O2 -fPIC -w
NOUNWIND := -fno-asynchronous-unwind-tables -fno-unwind-tables
FIX_FLAGS_zoo-exec := -fno-pic -DFIXTURE_MAIN
FIX_FLAGS_zoo-both := -DZOO_BOTH_SECTIONS
FIX_FLAGS_zoo-cie3 := -DZOO_BOTH_SECTIONS -Wa,--gdwarf-cie-version=3
FIX_FLAGS_zoo-cie4 := -DZOO_BOTH_SECTIONS -Wa,--gdwarf-cie-version=4
FIX_FLAGS_zoo-debugframe := -g $(NOUNWIND) -DZOO_DEBUG_FRAME_ONLY
$(FIX)/obj/%/cfi_zoo.o: tests/fixtures/cfi_zoo.S
	@mkdir -p $(dir $@)
	$(FIX_CC) $(FIX_FLAGS_$*) -c $< -o $@
$(FIX)/obj/%/frames.o: tests/fixtures/frames.c
	@mkdir -p $(dir $@)
	$(FIX_CC) $(FIX_FLAGS_$*) -c $< -o $@
fix_obj = $(FIX)/obj/$(1)/cfi_zoo.o $(FIX)/obj/$(1)/frames.o
FIXTURES := $(FIX)/zoo.so $(FIX)/zoo-exec $(FIX)/zoo-both.so $(FIX)/zoo-cie3.so \
            $(FIX)/zoo-cie4.so $(FIX)/zoo-debugframe.so $(FIX)/zoo-debugframe.debug
$(FIXTURES): ALL_LDFLAGS :=
fixtures: $(FIXTURES)
$(FIX)/zoo.so: $(call fix_obj,zoo)
	$(call link_with,$(FIX_CC),-shared)
$(FIX)/zoo-exec: $(call fix_obj,zoo-exec)
	$(call link_with,$(FIX_CC),-no-pie)
$(FIX)/zoo-both.so: $(call fix_obj,zoo-both)
	$(call link_with,$(FIX_CC),-shared)
$(FIX)/zoo-cie%.so: $(call fix_obj,zoo-cie%)
	$(call link_with,$(FIX_CC),-shared)
$(FIX)/zoo-debugframe.so: $(call fix_obj,zoo-debugframe)
	$(call link_with,$(FIX_CC),-shared)
$(FIX)/zoo-debugframe.debug: $(FIX)/zoo-debugframe.so
	objcopy --only-keep-debug --compress-debug-sections=zlib $< $@
PHONY += fixtures

# unit tests: each tests/unit/test_NAME.c is one program (the code
# generator only for the tests of it, and of eh_elfs they compile)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
UNIT_CODEGEN := $(addprefix $(B)/tests/,test_codegen test_compile_cli test_x86_asm \
                  test_eh_elf_check test_trust test_ruleset_fp test_lookup_table)
$(UNIT_CODEGEN): $(CODEGEN_LIB)
$(B)/tests/test_%: $(B)/obj/tests/unit/test_%.o $(TESTSUPPORT_LIB) $(PERF_LINK) \
                    $(CFI_LIB) $(COMMON_LIB)
	$(call link_cxx,$(PERF_LINK_LIBS))
# the batch builder's package readers, used by several threads at once
$(B)/tests/test_package: $(B)/obj/tests/unit/test_package.o $(BATCH_OBJ) $(CORE_LIB)
	$(call link,$(LIBS) $(BATCH_LIBS))
unit: $(UNIT_BIN) $(ALL_TARGETS) $(FIXTURES)
	@scripts/run-unit-tests.sh $(B)
unit-san:
	@$(MAKE) --no-print-directory SANITIZE=1 unit
PHONY += unit unit-san

# ---- the CFI reader against readelf and libdw, the code generator on a
# corpus of this machine's ELFs (tests/diff/, tests/codegen/) -------------
DIFF_SRC := tests/diff/cfi_diff.c tests/diff/readelf_frames.c tests/diff/libdw_frames.c \
            tests/common/corpus_run.c
DIFF_BIN := $(B)/tests/cfi-diff
$(DIFF_BIN): $(DIFF_SRC:%.c=$(B)/obj/%.o) $(CFI_LIB) $(COMMON_LIB)
	$(call link,$(LIBS))
QUIRKS_BIN := $(B)/tests/tool-quirks
$(QUIRKS_BIN): $(B)/obj/tests/diff/test_tool_quirks.o $(B)/obj/tests/diff/readelf_frames.o \
               $(B)/obj/tests/diff/libdw_frames.o $(CFI_LIB) $(COMMON_LIB)
	$(call link,$(LIBS))
CHECK_BIN := $(B)/tests/codegen-check
$(CHECK_BIN): $(B)/obj/tests/codegen/codegen_check.o $(TESTSUPPORT_LIB) $(CLIENT_A) $(CORE_LIB)
	$(call link,$(LIBS) -ldl)
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
PHONY += corpus corpus-full corpus-san

# ---- ehelf-batch's store and database (tests/batch/), ehelf-batch as a
# Slurm job array on a one-node cluster on loopback (docs/scale-out.md) ---
STORE_CHECK := $(B)/tests/store-check
$(STORE_CHECK): $(B)/obj/tests/batch/store_check.o $(CLIENT_A)
	$(call link,$(LIBS) -ldl $(SQLITE_LIBS))
batch-test: all $(STORE_CHECK)
	@tests/batch/run-batch-tests.sh $(B)
slurm-test: all $(STORE_CHECK)
	@tests/slurm/run-slurm-test.sh $(B)
PHONY += batch-test slurm-test

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
# libgcc's _Unwind_* ahead of libunwind's (libunwind.so.8 exports both):
# throw goes through the runtime the relinked program uses
GCC_EH_FIRST := -Wl,--push-state,--no-as-needed -lgcc_s -Wl,--pop-state
$(UNW_DIR)/compare-libunwind: $(B)/obj/tests/unwind/compare_libunwind.o $(UNW_SCEN) $(UNW_DIFF) \
                              $(CLIENT_A)
	$(call link_cxx,-rdynamic -lunwind $(CLIENT_LIB_DEPS))
# the same built with -fcf-protection=full and IBT PLTs: its objects of
# their own (build/obj/ibt/)
IBT_FLAGS := -O2 -g -fcf-protection=full $(SANFLAGS) -Iabi
$(B)/obj/ibt/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(IBT_FLAGS) -c $< -o $@
$(B)/obj/ibt/%.o: %.cc
	@mkdir -p $(dir $@)
	$(CXX) $(IBT_FLAGS) -c $< -o $@
$(UNW_DIR)/compare-libunwind-ibt: $(B)/obj/ibt/tests/unwind/compare_libunwind.o \
                                  $(B)/obj/ibt/tests/unwind/scenarios.o \
                                  $(B)/obj/ibt/tests/unwind/scenarios_cxx.o \
                                  $(B)/obj/tests/unwind/scenario_cfa_rbx.o $(UNW_DIFF) $(CLIENT_A)
	$(call link_cxx,-rdynamic -fcf-protection=full -Wl$(comma)-z$(comma)ibtplt \
		-lunwind $(CLIENT_LIB_DEPS))
$(UNW_DIR)/compare-remote: $(B)/obj/tests/unwind/compare_remote.o $(UNW_SCEN) $(UNW_DIFF) \
                           $(CLIENT_A)
	$(call link_cxx,-lunwind-ptrace -lunwind-generic -lunwind $(CLIENT_LIB_DEPS))
$(UNW_DIR)/sample-compare: $(B)/obj/tests/unwind/sample_compare.o $(UNW_WORK) $(CLIENT_A)
	$(call link_cxx,$(GCC_EH_FIRST) -lunwind -lz -lsqlite3 $(CLIENT_LIB_DEPS))
$(UNW_DIR)/robustness: $(B)/obj/tests/unwind/robustness.o $(CLIENT_A)
	$(call link,$(CLIENT_LIB_DEPS))
$(UNW_DIR)/libunwtest-dso.so: $(B)/obj/tests/unwind/dso_callback.o
	$(call link,-shared)
$(UNW_DIR)/unw-api-libunwind: $(B)/obj/tests/unwind/unw_api.o $(UNW_SCEN)
	$(call link_cxx,-lunwind -ldl -lpthread)
$(UNW_DIR)/unw-api-libunwind-gcceh: $(B)/obj/tests/unwind/unw_api.o $(UNW_SCEN)
	$(call link_cxx,$(GCC_EH_FIRST) -lunwind -ldl -lpthread)
$(UNW_DIR)/backtrace-dlopen: $(B)/obj/tests/unwind/backtrace_dlopen.o $(B)/lib/libehelf-unwind.so
	$(call link,-rdynamic -L$(B)/lib -lehelf-unwind -ldl)
$(UNW_DIR)/unw-api-ehelf: $(B)/obj/tests/unwind/unw_api.o $(UNW_SCEN) $(B)/lib/libehelf-unwind.so
	$(call link_cxx,-L$(B)/lib -lehelf-unwind -ldl -lpthread)
unwind-test: all $(UNW_BINS)
	@tests/unwind/run-unwind-tests.sh $(B)
PHONY += unwind-test

# ---- fetching: ehelf-server to libehelf-unwind and ehelf-find -------------
# unw_api.c's libunwind program, waiting for the background fetch
$(B)/tests/fetch/fetch-unw-api: $(B)/obj/tests/unwind/unw_api.o $(UNW_SCEN) \
                                $(B)/obj/tests/fetch/wait_fetch.o
	$(call link_cxx,-lunwind -ldl -lpthread)
# ehelf_space_fetch while other threads unwind with the space
$(B)/tests/fetch/space-fetch: $(B)/obj/tests/fetch/space_fetch.o $(CLIENT_A)
	$(call link,$(CLIENT_LIB_DEPS))
fetch-test: all $(B)/tests/fetch/fetch-unw-api $(B)/tests/fetch/space-fetch \
            $(UNW_DIR)/libunwtest-dso.so
	@tests/fetch/run-fetch-tests.sh $(B)
PHONY += fetch-test

# ---- ehelf-perf against perf on real recordings: the perf.data reader, the
# symbols, then whole `perf script` outputs ---------------------------------
# each tests/perf/NAME.c is one program; the cross-check runs the
# benchmark's baselines too (testkit/)
$(B)/tests/perf/%: $(B)/obj/tests/perf/%.o $(PERF_LINK)
	$(call link_cxx,$(PERF_LINK_LIBS))
$(B)/tests/perf/unwind_crosscheck: $(B)/obj/tests/perf/unwind_crosscheck.o \
        $(B)/obj/testkit/libdw_unwind.o $(B)/obj/testkit/libunwind_remote.o $(PERF_LINK)
	$(call link_cxx,-lunwind-x86_64 -lunwind $(PERF_LINK_LIBS))
PERF_TEST_BINS := $(B)/tests/perf/perf_data_dump $(B)/tests/perf/symbols_check \
                  $(B)/tests/perf/script_compare $(B)/tests/perf/unwind_crosscheck
perf-test: all $(PERF_TEST_BINS)
	@tests/perf/run-perf-data-tests.sh $(B)
	@tests/perf/run-symbols-tests.sh $(B)
	@tests/perf/run-perf-tests.sh $(B)
	@tests/perf/run-perf-fetch-tests.sh $(B)
PHONY += perf-test

# ---- the include graph, reproducible builds, the fuzzers ------------------
# the include graph: no cycle in a folder, components layered, no link
# between tests/ and bench/; docs and comments without issue numbers,
# work-log words or commit hashes (and that check fed what it refuses); no
# source file over 1,000 lines but one concept (a second)
layering:
	@tests/layering/check-includes.sh
	@tests/layering/check-words.sh
	@tests/layering/check-words-test.sh
	@tests/layering/check-sizes.sh
repro: all $(FIXTURES)
	@tests/repro/check-repro.sh $(B)
fuzz: fixtures $(B)/bin/ehelf-compile
	@EHELF_COMPILE=$(B)/bin/ehelf-compile tests/fuzz/run-fuzz.sh $(or $(FUZZ_SECONDS),120)
PHONY += layering repro fuzz

# ---- make check, make check-full ---------------------------------------------
# each step in its own make (a failure names it); CHECK_MORE and
# CHECK_FULL_MORE: the fragments' tests, after these
CHECK_STEPS := layering "all unit" unit-san repro batch-test server-test fetch-test \
               unwind-test perf-test corpus corpus-san "pkg-test pkg-install-test" \
               "stats-test stats-figures-test"
CHECK_FULL_STEPS := layering "all unit" unit-san repro batch-test server-test fetch-test \
                    unwind-test perf-test corpus-full corpus-san nginx-test fuzz \
                    "pkg-test pkg-install-test" "stats-test stats-figures-test" slurm-test
run_steps = for t in $(1); do $(MAKE) --no-print-directory $$t || exit 1; done
check: deps
	@$(call run_steps,$(CHECK_STEPS) $(CHECK_MORE))
	@echo "make check: all passed"
check-full: deps
	@$(call run_steps,$(CHECK_FULL_STEPS) $(CHECK_MORE) $(CHECK_FULL_MORE))
	@echo "make check-full: all passed"
PHONY += check check-full
