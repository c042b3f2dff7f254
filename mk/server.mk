# ---- server/: ehelf-server ----------------------------------------------------
# the HTTP server of a store by GNU build-ID; its index creates a missing
# database with the store's schema (store/schema.sql)
SERVER_SRC := $(filter-out server/ehelf_server.c,$(wildcard server/*.c))
SERVER_LIB_DEPS := $(shell pkg-config --libs libmicrohttpd libdebuginfod sqlite3 \
                     libcrypto 2>/dev/null || \
                     echo -lmicrohttpd -ldebuginfod -lsqlite3 -lcrypto) -lpthread
$(B)/obj/server/index.o: $(B)/gen/schema_sql.h
$(B)/obj/server/index.o: ALL_CFLAGS += -I$(B)/gen
$(B)/bin/ehelf-server: $(B)/obj/server/ehelf_server.o $(SERVER_SRC:%.c=$(B)/obj/%.o) \
                       $(STORE_DB_OBJ) $(COMMON_LIB)
	$(call link,$(SERVER_LIB_DEPS))
ALL_TARGETS += $(B)/bin/ehelf-server

# its tests: real packages, curl, openssl, strace and elfutils' debuginfod
$(B)/tests/server/slowloris: $(B)/obj/tests/server/slowloris.o
	$(call link)
server-test: all $(B)/tests/server/slowloris
	@tests/server/run-server-tests.sh $(B)
# nginx serving a store with server/nginx/ehelf-store.conf; the systemd unit
nginx-test: all
	@tests/server/run-nginx-test.sh $(B)
# its pure parts, unit-tested (rules of their own: they are not in libehelf)
$(B)/tests/test_server_route: $(B)/obj/tests/unit/test_server_route.o \
                              $(B)/obj/server/route.o $(B)/obj/server/conditional.o \
                              $(COMMON_LIB)
	$(call link)
PHONY += server-test nginx-test

# ehelf-server checks each eh_elf it builds with the loader's own
# validator (common/eh_elf_check.c, in libehelf-common.a).
# the soak (make check-full, about 70 s): 60 s of good requests under slow
# headers, slow bodies, slow readers and a flood; memory, descriptors and
# the good requests' p99 (under 10 ms) measured throughout
$(B)/tests/server/soak: $(B)/obj/tests/server/soak.o
	$(call link,-lpthread)
PHONY += server-soak
server-soak: all $(B)/tests/server/soak
	@tests/server/run-soak.sh $(B) $(SOAK_SECONDS)
CHECK_FULL_MORE += server-soak

# the raw checks of request heads, unit-tested on socket pairs
$(B)/tests/test_server_wire: $(B)/obj/tests/unit/test_server_wire.o \
                             $(B)/obj/server/wire.o $(B)/obj/server/metrics.o \
                             $(B)/obj/server/route.o $(COMMON_LIB)
	$(call link)
