# ehelf-stats' query runner (corpus-stats/query.h): its unit test, against
# an in-memory sqlite database
$(B)/tests/test_stats_query: $(addprefix $(B)/obj/corpus-stats/,query.o stats_db.o \
                               stats_table.o) $(B)/obj/store/index_db.o
$(B)/tests/test_stats_query: LIBS += -lsqlite3 -lm
