# ---- bench/: make bench -------------------------------------------------------
# each benchmark against its baselines in the same run (bench/run-bench.sh),
# then the fragments' BENCH_MORE
BENCH_CODEGEN := $(B)/bench/bench-codegen
$(BENCH_CODEGEN): $(B)/obj/bench/bench_codegen.o $(CLIENT_A) $(CORE_LIB)
	$(call link,$(LIBS) -ldl)
GEN_C := $(B)/bench/gen-c
$(GEN_C): $(B)/obj/bench/gen_c.o $(CORE_LIB)
	$(call link,$(LIBS))
BENCH_UNWIND := $(B)/bench/bench-unwind
$(BENCH_UNWIND): $(B)/obj/bench/bench_unwind.o $(B)/obj/testkit/libdw_unwind.o \
                 $(B)/obj/bench/deep_stack_cxx.o $(UNW_WORK) $(CLIENT_A)
	$(call link_cxx,$(GCC_EH_FIRST) -lunwind -lz -lsqlite3 $(CLIENT_LIB_DEPS))
BENCH_PERF := $(B)/bench/bench-perf-unwind
PERF_BASELINES := $(B)/obj/testkit/libdw_unwind.o $(B)/obj/testkit/libunwind_remote.o
$(BENCH_PERF): $(B)/obj/bench/bench_perf_unwind.o $(PERF_BASELINES) $(PERF_LINK)
	$(call link_cxx,-lunwind-x86_64 -lunwind $(PERF_LINK_LIBS))

# cold sampling: programs that sample themselves with SIGPROF over
# cache-thrashing work and unwind in the handler: written against
# <libunwind.h> (run against libunwind and with libehelf-unwind preloaded;
# C, and C++ with deep templates), and the same against <ehelf.h>
# (bench/cold-sampling/cold_sampling.c)
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
	$(call link,-lunwind -lz -lsqlite3)
$(COLD_DIR)/cold-sampling-cxx: $(COLD_OBJ) $(COLD_CXX_OBJ)
	$(call link_cxx,-lunwind -lz -lsqlite3)
$(COLD_DIR)/cold-sampling-native: $(B)/obj/bench/cold-sampling/cold_sampling_native.o \
                                  $(COLD_CXX_OBJ) $(B)/lib/libehelf.so
	$(call link_cxx,-L$(B)/lib -lehelf -Wl$(comma)-rpath$(comma)$(abspath $(B)/lib) -lz -lsqlite3)
cold-bench: all $(COLD_BINS)
	@bench/cold-bench.sh $(B)

bench: deps all $(BENCH_CODEGEN) $(GEN_C) $(BENCH_UNWIND) $(BENCH_PERF) $(COLD_BINS) \
       $(B)/tests/perf/script_compare $(B)/tests/perf/unwind_crosscheck
	@bench/run-bench.sh $(B)
	@$(call run_steps,$(BENCH_MORE))
PHONY += cold-bench bench
