# ---- builder/: ehelf-compile and ehelf-batch ---------------------------------
# ehelf-compile: one ELF's unwind tables into an eh_elf
$(B)/bin/ehelf-compile: $(B)/obj/builder/ehelf_compile.o $(CORE_LIB)
	$(call link,$(LIBS))

# ehelf-batch: every ELF of a package set into a store (store/writer.c)
BATCH_SRC := store/writer.c builder/batch/package.c builder/batch/package_impl.c \
             builder/batch/package_archive.c builder/batch/package_tree.c \
             builder/batch/package_jobs.c builder/batch/db.c builder/batch/db_conflict.c \
             builder/batch/progress.c builder/batch/batch.c builder/batch/merge.c
BATCH_OBJ := $(BATCH_SRC:%.c=$(B)/obj/%.o) $(STORE_DB_OBJ)
BATCH_LIBS := $(shell pkg-config --libs libarchive sqlite3 libcrypto 2>/dev/null || \
                echo -larchive -lsqlite3 -lcrypto) -lpthread
$(B)/obj/builder/batch/db.o: $(B)/gen/schema_sql.h
$(B)/obj/builder/batch/db.o: ALL_CFLAGS += -I$(B)/gen
$(B)/bin/ehelf-batch: $(B)/obj/builder/ehelf_batch.o $(BATCH_OBJ) $(CORE_LIB)
	$(call link,$(LIBS) $(BATCH_LIBS))
ALL_TARGETS += $(B)/bin/ehelf-compile $(B)/bin/ehelf-batch
