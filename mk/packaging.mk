# ---- packaging/: -ehelf packages, the apt repository, dh_ehelf ------------
# (docs/packaging.md)  ehelf-pkg reads the database read-only through
# store/index_db.c, as ehelf-server does
PKG_SRC := $(wildcard packaging/*.c)
$(B)/bin/ehelf-pkg: $(PKG_SRC:%.c=$(B)/obj/%.o) $(STORE_DB_OBJ) $(COMMON_LIB)
	$(call link,$(LIBS) $(BATCH_LIBS))
ALL_TARGETS += $(B)/bin/ehelf-pkg

# its tests: real packages, lintian, apt, a Debian root with the -ehelf
# packages installed and a program unwinding there with libehelf
$(B)/obj/tests/packaging/unwind_report.o: ALL_CFLAGS += -Iclient-lib/include
$(B)/tests/packaging/unwind-report: $(B)/obj/tests/packaging/unwind_report.o \
                                    $(B)/lib/libehelf.so
	$(call link,-rdynamic -L$(B)/lib -lehelf -ldl)
pkg-test: all
	@tests/packaging/run-packaging-tests.sh $(B)
pkg-install-test: all $(B)/tests/packaging/unwind-report
	@tests/packaging/run-apt-install-test.sh $(B)
# the project's own packages, ehelf-compile and dh-ehelf, into build/debs
deb:
	@packaging/build-debs.sh build/debs
# packages and repository for the whole of this machine's store (make bench)
bench-pkg: all
	@tests/packaging/bench-pkg.sh $(B)
PHONY += pkg-test pkg-install-test deb bench-pkg
BENCH_MORE += bench-pkg

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
# Serve what `make run` built (read-only), on port 8003.
serve: all
	$(B)/bin/ehelf-server --store $(B)/store --upstream "" $(SERVE_ARGS)
PHONY += run serve
