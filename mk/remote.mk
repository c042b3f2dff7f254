# ---- libehelf-unwind's remote API as perf, strace and libunwind-ptrace
# drive it (client-lib/libunwind/remote_*.c; tests/perf-libunwind/) -------
PLU_DIR := $(B)/tests/perf-libunwind
PLU_BINS := $(PLU_DIR)/workload $(PLU_DIR)/remote_walk $(PLU_DIR)/module_read
# remote_module_read on real ELF files in a fake address space
$(PLU_DIR)/module_read: $(B)/obj/tests/perf-libunwind/module_read.o \
                        $(B)/obj/client-lib/libunwind/remote_module.o
	$(call link)
# the recorded C program: no frame pointers, so that only CFI unwinds it
$(B)/obj/tests/perf-libunwind/workload.o: ALL_CFLAGS += -fomit-frame-pointer
$(PLU_DIR)/workload: $(B)/obj/tests/perf-libunwind/workload.o
	$(call link)
# linked with Debian's libunwind, as a libunwind-ptrace tool is
$(B)/obj/tests/perf-libunwind/remote_walk.o: ALL_CFLAGS += -O1
$(PLU_DIR)/remote_walk: $(B)/obj/tests/perf-libunwind/remote_walk.o
	$(call link,-lunwind-ptrace -lunwind-x86_64 -lunwind)

PHONY += perf-libunwind-test perf-libunwind-bench
# perf script / perf report with libehelf-unwind preloaded against perf
# alone (eh_elfs for all, some, no modules), strace -k, libunwind-ptrace
# and unw_init_remote(unw_local_addr_space)
perf-libunwind-test: $(B)/lib/libehelf-unwind.so $(B)/bin/ehelf-batch \
                     $(B)/bin/ehelf-compile $(B)/bin/ehelf-server $(PLU_BINS)
	@tests/perf-libunwind/run-tests.sh $(B)
# CPU time of perf report -g and perf script, perf alone against perf
# with libehelf-unwind preloaded, on recordings of 50,000+ samples
perf-libunwind-bench: $(B)/lib/libehelf-unwind.so $(B)/bin/ehelf-batch \
                      $(B)/bin/ehelf-compile $(PLU_BINS) \
                      $(B)/bench/perf_ideal_unwinder.so
	@bench/perf-libunwind-bench.sh $(B)
# the bench's unwinder of no cost, which replays recorded walks
$(B)/bench/perf_ideal_unwinder.so: bench/perf_ideal_unwinder.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -shared -fPIC -o $@ $< -ldl
CHECK_MORE += perf-libunwind-test
BENCH_MORE += perf-libunwind-bench
