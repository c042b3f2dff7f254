# ehelf-compile and the code generator: their tests beyond the main
# Makefile's (the unit tests that need libehelf-codegen.a; the fuzz target
# of the compiler, for check-full)
$(B)/tests/test_compile_bounds $(B)/tests/test_fde_overlap: $(CODEGEN_LIB)

# the compiler's fuzz target (make check-full): DWARF expressions and FDE
# layouts, every accepted table loaded and compared as codegen-check does;
# FUZZ_COMPILE_SECONDS long (60 by default), plus about 40 s of building
FUZZ_COMPILE_SRC := $(COMMON_SRC) $(CFI_SRC) $(CODEGEN_SRC) $(CLIENT_SRC) \
                    client-lib/getcontext.S tests/codegen/ir_eval.c \
                    tests/codegen/table_check.c
fuzz-compile:
	@tests/fuzz/run-fuzz-compile.sh $(or $(FUZZ_COMPILE_SECONDS),60) '$(FUZZ_COMPILE_SRC)'
CHECK_FULL_MORE += fuzz-compile
PHONY += fuzz-compile
