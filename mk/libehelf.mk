# ---- client-lib/: libehelf, libehelf-unwind --------------------------------
# libehelf (libehelf.a, libehelf.so, libehelf.pc): find, fetch, verify, map
# eh_elfs and unwind with them; public API client-lib/include/ehelf.h
CLIENT_SRC := client-lib/object.c client-lib/space.c client-lib/unwind.c \
              client-lib/fallback_dwarf.c client-lib/local_read.c \
              client-lib/summary_step.c client-lib/step_cache.c \
              client-lib/lenient_step.c client-lib/process_space.c \
              client-lib/trust.c client-lib/fetch.c client-lib/fetch_config.c \
              client-lib/fetch_cache.c client-lib/resolve.c client-lib/space_fetch.c \
              client-lib/curl_api.c $(wildcard client-lib/cfi_fallback/*.c)
CLIENT_OBJ := $(CLIENT_SRC:%.c=$(B)/obj/%.o) $(B)/obj/client-lib/getcontext.o \
              $(COMMON_SRC:%.c=$(B)/obj/%.o)
CLIENT_A := $(B)/lib/libehelf.a
# no -lcurl: libcurl is loaded when a fetch needs it (client-lib/curl_api.h),
# not at the start of every program that preloads libehelf-unwind
CLIENT_LIB_DEPS := $(LIBS) -ldl -lpthread
# a shared library: its soname, and every symbol resolved
shared_lib = -shared -Wl,-soname,$(notdir $@).0 -Wl,-z,defs
$(CLIENT_A): $(CLIENT_OBJ)
	$(call archive)
$(B)/lib/libehelf.so: $(CLIENT_OBJ)
	$(call link,$(shared_lib) $(CLIENT_LIB_DEPS))
	ln -sf libehelf.so $@.0
$(B)/lib/pkgconfig/libehelf.pc: client-lib/libehelf.pc.in
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(abspath $(B))|; s|@INCLUDEDIR@|$(abspath client-lib/include)|' \
	    -e 's|@ABIINCLUDEDIR@|$(abspath abi)|' $< > $@

# libehelf-unwind: libunwind's API on ehelf (link instead of -lunwind, or
# LD_PRELOAD): every file of client-lib/libunwind/
UNWIND_API_SRC := $(wildcard client-lib/libunwind/*.c client-lib/libunwind/*.S)
UNWIND_API_OBJ := $(patsubst %.S,$(B)/obj/%.o,$(UNWIND_API_SRC:%.c=$(B)/obj/%.o))
# the C++ exception ABI's names under their own version node (unwind_abi.c)
UNWIND_API_MAP := client-lib/libunwind/libehelf-unwind.map
$(B)/lib/libehelf-unwind.so: $(UNWIND_API_OBJ) $(CLIENT_OBJ) $(UNWIND_API_MAP)
	$(call link,$(shared_lib) -Wl$(comma)--version-script=$(UNWIND_API_MAP) $(CLIENT_LIB_DEPS))
	ln -sf libehelf-unwind.so $@.0

CLIENT_LIBS := $(CLIENT_A) $(B)/lib/libehelf.so $(B)/lib/pkgconfig/libehelf.pc \
               $(B)/lib/libehelf-unwind.so
ALL_TARGETS += $(CLIENT_LIBS)
