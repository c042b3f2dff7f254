# ---- tools/: the programs on libehelf ----------------------------------------
# ehelf-find: libehelf's resolution chain for one build-ID, fetching included
$(B)/bin/ehelf-find: $(B)/obj/tools/ehelf-find/ehelf_find.o $(CLIENT_A)
	$(call link,$(CLIENT_LIB_DEPS))

# ehelf-perf (tools/ehelf-perf/): the perf.data reader and perf's symbols
# (perfdata/: libehelf-perfdata.a), the tool's modules (ehelf_perf/:
# libehelf-perftool.a, for the tests too) and its main (ehelf_perf.c).
# libzstd for perf record -z (decomp.c); libdebuginfod (debuginfod_file.c)
# is loaded with dlopen when $DEBUGINFOD_URLS asks for it
PERF_SRC := $(wildcard tools/ehelf-perf/perfdata/*.c)
PERF_LIB := $(B)/lib/libehelf-perfdata.a
PERF_LIB_DEPS := $(shell pkg-config --libs libzstd 2>/dev/null || echo -lzstd)
PERFTOOL_SRC := $(wildcard tools/ehelf-perf/ehelf_perf/*.c)
PERFTOOL_LIB := $(B)/lib/libehelf-perftool.a
# what a program on ehelf-perf's libraries links
PERF_LINK := $(PERFTOOL_LIB) $(PERF_LIB) $(CLIENT_A)
PERF_LINK_LIBS := $(LIBS) $(PERF_LIB_DEPS) -ldl -lpthread
$(PERF_LIB): $(PERF_SRC:%.c=$(B)/obj/%.o)
	$(call archive)
$(PERFTOOL_LIB): $(PERFTOOL_SRC:%.c=$(B)/obj/%.o)
	$(call archive)
$(B)/bin/ehelf-perf: $(B)/obj/tools/ehelf-perf/ehelf_perf.o $(PERF_LINK)
	$(call link,$(PERF_LINK_LIBS))
ALL_TARGETS += $(B)/bin/ehelf-find $(B)/bin/ehelf-perf
