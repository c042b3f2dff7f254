# ehelf-server: what the main Makefile's rules do not say.
# It checks each eh_elf it builds with the loader's own validator.
$(B)/bin/ehelf-server: $(B)/obj/client-lib/eh_elf_check.o
