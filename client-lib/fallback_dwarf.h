/*
 * fallback_dwarf.h - stepping a frame with libdw's DWARF CFI, for modules
 * that have no eh_elf.  libdw finds the row (dwarf_cfi_addrframe) and
 * gives each rule as DWARF operations; libdw has no public evaluator for
 * them, so the operations are evaluated here.  Not async-signal-safe:
 * libdw allocates, and a module's CFI is used under a lock.
 */
#ifndef EHELF_CLIENT_FALLBACK_DWARF_H
#define EHELF_CLIENT_FALLBACK_DWARF_H

#include <stddef.h>
#include <stdint.h>

#include "../abi/ehelf_abi.h"

typedef struct dwarf_module dwarf_module;

/* Open the CFI of the ELF at PATH, or of the in-memory IMAGE.  NULL if
 * neither has usable CFI. */
dwarf_module *dwarf_module_open(const char *path, const void *image,
				size_t image_size);
void dwarf_module_close(dwarf_module *d);

/* One step at link-time address PC, with ehelf_step_remote's contract. */
int dwarf_module_step(dwarf_module *d, uint64_t pc, const ehelf_regs *in,
		      ehelf_regs *out, ehelf_read_fn read, void *arg);

#endif
