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
#   make help          this text
#
# This file holds the settings, the compile rules and the one link rule;
# each component's programs, libraries and tests are in its fragment of
# mk/ (mk/core.mk: common/, abi/, store/ and the builder's libraries;
# mk/builder.mk, mk/libehelf.mk, mk/tools.mk, mk/server.mk,
# mk/packaging.mk, mk/stats.mk, mk/tests.mk, mk/bench.mk), included bottom
# up; every other mk/*.mk (a topic's tests and benches) after them.
# A fragment adds its programs to ALL_TARGETS (make all), its phony targets
# to PHONY, and its test targets to CHECK_MORE (make check and check-full),
# CHECK_FULL_MORE (check-full only) or BENCH_MORE (make bench), and what
# `make deps` prepares beyond Debian's packages to DEPS_MORE.

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
CXX ?= g++
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

# ---- compiling: build/obj/PATH.o from PATH.c, PATH.cc or PATH.S ------------
# objects are rebuilt when the flags change (SANITIZE, CFLAGS, ...)
FLAGS_STAMP := $(B)/.cflags
$(shell mkdir -p $(B) && echo '$(CC) $(ALL_CFLAGS)' | cmp -s - $(FLAGS_STAMP) || \
	echo '$(CC) $(ALL_CFLAGS)' > $(FLAGS_STAMP))
$(B)/obj/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@
$(B)/obj/%.o: %.cc $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CXX) -O2 -g -fPIC -Wall -Wextra -Werror $(SANFLAGS) -Iabi -MMD -MP -c $< -o $@
$(B)/obj/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) -c $< -o $@

# ---- linking: the one rule every program and shared library uses ---------
# $(call link,EXTRA) links the target with $(CC), $(call link_cxx,EXTRA)
# with $(CXX) (a program with C++ objects), from its prerequisites: the
# objects first, then the project's archives in layer order (whatever
# order the rule lists them in), then EXTRA (flags, -l libraries).  A
# prerequisite .so is not linked by path: EXTRA names it (-L$(B)/lib -l...).
# $(call archive) makes the target archive of its objects.
LINK_ORDER := libehelf-testsupport.a libehelf-perftool.a libehelf-perfdata.a \
              libehelf.a libehelf-codegen.a libehelf-cfi.a libehelf-common.a
link_inputs = $(filter %.o,$^) $(foreach a,$(LINK_ORDER),$(filter %/$(a),$^)) \
              $(filter-out $(addprefix %/,$(LINK_ORDER)),$(filter %.a,$^))
comma := ,
define link_with
	@mkdir -p $(dir $@)
	$(1) $(ALL_LDFLAGS) -o $@ $(link_inputs) $(2)
endef
link = $(call link_with,$(CC),$(1))
link_cxx = $(call link_with,$(CXX),$(1))
define archive
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $(filter %.o,$^)
endef

# ---- the fragments -----------------------------------------------------------
ALL_TARGETS :=
PHONY := all help deps clean
CHECK_MORE :=
CHECK_FULL_MORE :=
BENCH_MORE :=
DEPS_MORE :=
COMPONENTS := mk/core.mk mk/builder.mk mk/libehelf.mk mk/tools.mk mk/server.mk \
              mk/packaging.mk mk/stats.mk mk/tests.mk mk/bench.mk
include $(COMPONENTS)
include $(filter-out $(COMPONENTS),$(sort $(wildcard mk/*.mk)))

all: $(ALL_TARGETS)

help:
	@awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' Makefile

deps:
	@scripts/install-deps.sh
	@$(call run_steps,$(DEPS_MORE))

clean:
	rm -rf build

.PHONY: $(PHONY)

# keep test objects between runs
.SECONDARY:

-include $(shell find build -name '*.d' -type f 2>/dev/null)
