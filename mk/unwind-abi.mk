# ---- libehelf-unwind: the C++ exception ABI and libunwind-coredump ----------
# unwind-abi-test (make check): tests/unwind/run-unwind-abi-tests.sh, a C++
# program throwing, rethrowing and calling _Unwind_Backtrace, linked with
# libunwind, with libgcc alone and with libehelf-unwind, run as built and
# with libehelf-unwind preloaded (no eh_elfs, and eh_elfs for every
# module); which runtime each reference binds to (LD_DEBUG=bindings);
# every symbol libunwind.so.8 and libunwind-x86_64.so.8 export is
# libehelf-unwind's.  About 10 s.
UNWIND_ABI_BINS := $(UNW_DIR)/unwind-abi-lu $(UNW_DIR)/unwind-abi-gcc $(UNW_DIR)/unwind-abi-ehelf
$(UNW_DIR)/unwind-abi-lu: $(B)/obj/tests/unwind/unwind_abi.o
	$(call link_cxx,-rdynamic -lunwind -ldl -lpthread)
$(UNW_DIR)/unwind-abi-gcc: $(B)/obj/tests/unwind/unwind_abi.o
	$(call link_cxx,-rdynamic -ldl -lpthread)
$(UNW_DIR)/unwind-abi-ehelf: $(B)/obj/tests/unwind/unwind_abi.o $(B)/lib/libehelf-unwind.so
	$(call link_cxx,-rdynamic -L$(B)/lib -lehelf-unwind -ldl -lpthread)

PHONY += unwind-abi-test
unwind-abi-test: all $(UNWIND_ABI_BINS)
	@tests/unwind/run-unwind-abi-tests.sh $(B)
CHECK_MORE += unwind-abi-test

# coredump-test (make check): tests/unwind/run-coredump-tests.sh, a core
# of coredump-target (gcore) unwound by libunwind-coredump alone and with
# libehelf-unwind preloaded, without and with eh_elfs.  About 5 s.
COREDUMP_BINS := $(UNW_DIR)/coredump-target $(UNW_DIR)/coredump-walk
$(UNW_DIR)/coredump-target: $(B)/obj/tests/unwind/coredump_target.o
	$(call link,-Wl$(comma)-z$(comma)noseparate-code)
$(UNW_DIR)/coredump-walk: $(B)/obj/tests/unwind/coredump_walk.o
	$(call link,-lunwind-coredump -lunwind-generic)

PHONY += coredump-test
coredump-test: all $(COREDUMP_BINS)
	@tests/unwind/run-coredump-tests.sh $(B)
CHECK_MORE += coredump-test
