# ehelf-stats' query runner (corpus-stats/query.h): its unit test, against
# an in-memory sqlite database
$(B)/tests/test_stats_query: $(B)/obj/tests/unit/test_stats_query.o \
                             $(addprefix $(B)/obj/corpus-stats/,query.o stats_db.o stats_table.o) \
                             $(B)/obj/store/index_db.o $(TESTSUPPORT_LIB) $(COMMON_LIB)
	$(call link,$(SQLITE_LIBS) -lm)
