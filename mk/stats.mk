# ---- corpus-stats/: ehelf-stats ---------------------------------------------
# the statistics of a store's database (docs: ehelf-stats --help); it reads
# the database read-only through store/index_db.c, as ehelf-pkg does
STATS_SRC := $(wildcard corpus-stats/*.c)
$(B)/bin/ehelf-stats: $(STATS_SRC:%.c=$(B)/obj/%.o) $(STORE_DB_OBJ) $(COMMON_LIB)
	$(call link,$(SQLITE_LIBS) -lm)
ALL_TARGETS += $(B)/bin/ehelf-stats

# its tests: the four outputs agree, damaged and foreign databases refused;
# every figure readelf can check computed from readelf alone on real
# Debian packages, the HTML page rendered by headless chromium
stats-test: all fixtures
	@tests/stats/run-stats-tests.sh $(B)
stats-figures-test: all fixtures
	@tests/stats/run-stats-figures-test.sh $(B)
# the Debian 12 archive sample (docs/archive-sample.md): 2,280 packages
# downloaded into a cache outside build/, ehelf-batch, then ehelf-stats'
# report into build/archive-sample
archive-sample: deps all
	@corpus-stats/archive-sample.sh --build $(B) --out $(B)/archive-sample $(ARCHIVE_SAMPLE_ARGS)
PHONY += stats-test stats-figures-test archive-sample
