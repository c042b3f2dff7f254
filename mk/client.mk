# ---- the client's fetch path against hostile servers and planted caches --
# (tests/fetch/run-hostile-tests.sh: endless answers, planted links, FIFOs,
# foreign owners and modes; about a minute)
fetch-hostile-test: all $(B)/tests/fetch/fetch-unw-api $(UNW_DIR)/libunwtest-dso.so
	@tests/fetch/run-hostile-tests.sh $(B)
PHONY += fetch-hostile-test
CHECK_MORE += fetch-hostile-test
