# ---- ehelf-perf inject ------------------------------------------------------
# its tests against perf 6.1 and hotspot's perfparser on real recordings
# (tests/perf/run-inject-tests.sh), and its bench (bench/inject-bench.sh)
$(B)/tests/perf/perf_filter: $(B)/obj/tests/perf/perf_filter.o $(PERFTOOL_LIB) \
                             $(PERF_LIB) $(CLIENT_A)
	$(call link,$(PERF_LINK_LIBS))

$(B)/tests/perf/read_floor: $(B)/obj/tests/perf/read_floor.o $(PERF_LIB) $(CLIENT_A)
	$(call link,$(PERF_LINK_LIBS))

INJECT_TEST_BINS := $(B)/bin/ehelf-perf $(B)/tests/perf/perf_filter \
                    $(B)/tests/perf/script_compare $(B)/tests/perf/unwind_crosscheck
inject-test: all $(INJECT_TEST_BINS)
	@tests/perf/run-inject-tests.sh $(B)
inject-bench: all $(INJECT_TEST_BINS) $(B)/tests/perf/read_floor
	@bench/inject-bench.sh $(B)
PHONY += inject-test inject-bench
CHECK_MORE += inject-test
BENCH_MORE += inject-bench
