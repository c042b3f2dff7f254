# libunwind 1.6.2's own test suite (Debian's source package) against
# libehelf-unwind, in four modes: libunwind alone, preloaded without and
# with eh_elfs, relinked (tests/libunwind-suite/run.sh).  The source tree,
# configured and built with its test programs once (a few minutes), stays
# in build/libunwind-suite/; a run takes about a minute.
LIBUNWIND_SUITE_DIR := build/libunwind-suite

PHONY += libunwind-suite-prepare libunwind-suite
libunwind-suite-prepare:
	@tests/libunwind-suite/prepare.sh $(LIBUNWIND_SUITE_DIR)

libunwind-suite: all libunwind-suite-prepare
	@tests/libunwind-suite/run.sh $(B) \
		"$$(ls -d $(LIBUNWIND_SUITE_DIR)/libunwind-*/ | head -n 1)"

DEPS_MORE += libunwind-suite-prepare
CHECK_MORE += libunwind-suite
