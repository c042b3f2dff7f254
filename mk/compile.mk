# ehelf-compile and the code generator: their tests beyond the main
# Makefile's (the unit tests that need libehelf-codegen.a; the fuzz target
# of the compiler, for check-full)
$(B)/tests/test_compile_bounds $(B)/tests/test_fde_overlap: $(CODEGEN_LIB)
