# ---- signal safety and speed without eh_elfs (client-lib/cfi_fallback/) ----
# sigsafe-test (make check): the nomalloc test (tests/unwind/nomalloc.cc)
# against Debian's libunwind and with libehelf-unwind preloaded without
# eh_elfs; gperftools' CPU profiler with eh_elfs for none, some and all
# modules; heaptrack with and without eh_elfs (run-sigsafe-tests.sh).
# sigsafe-bench (make bench): heaptrack, gperftools' heap profiler and the
# cold sampling programs, libunwind against libehelf-unwind without and
# with eh_elfs (bench/sigsafe-bench.sh).
SIGSAFE_BINS := $(UNW_DIR)/nomalloc $(UNW_DIR)/malloc-churn
$(UNW_DIR)/nomalloc: $(B)/obj/tests/unwind/nomalloc.o
	$(call link_cxx,-rdynamic -lunwind -ldl -lpthread)
$(UNW_DIR)/malloc-churn: $(B)/obj/tests/unwind/malloc_churn.o
	$(call link_cxx,-lpthread)

PHONY += sigsafe-test sigsafe-bench
sigsafe-test: all $(SIGSAFE_BINS)
	@tests/unwind/run-sigsafe-tests.sh $(B)
sigsafe-bench: all $(SIGSAFE_BINS) $(COLD_BINS) $(B)/bench/librusage-at-exit.so
	@bench/sigsafe-bench.sh $(B)
CHECK_MORE += sigsafe-test
BENCH_MORE += sigsafe-bench
$(B)/bench/librusage-at-exit.so: $(B)/obj/bench/rusage_at_exit.o
	$(call link,-shared)
