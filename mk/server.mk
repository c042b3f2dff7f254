# ehelf-server checks each eh_elf it builds with the loader's own
# validator (common/eh_elf_check.c, in libehelf-common.a).

# the soak (make check-full, about 70 s): 60 s of good requests under slow
# headers, slow bodies, slow readers and a flood; memory, descriptors and
# the good requests' p99 (under 10 ms) measured throughout
$(B)/tests/server/soak: $(B)/obj/tests/server/soak.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ -lpthread
.PHONY: server-soak
server-soak: all $(B)/tests/server/soak
	@tests/server/run-soak.sh $(B) $(SOAK_SECONDS)
CHECK_FULL_MORE += server-soak

# the raw checks of request heads, unit-tested on socket pairs
$(B)/tests/test_server_wire: $(B)/obj/tests/unit/test_server_wire.o \
                             $(B)/obj/server/wire.o $(B)/obj/server/metrics.o \
                             $(B)/obj/server/route.o $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^
