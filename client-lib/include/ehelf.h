/*
 * ehelf.h - libehelf's public API.
 *
 * Object level (this header today): load one eh_elf and unwind one frame
 * with it.  The eh_elf binary interface, the register set and the status
 * codes are in ehelf_abi.h.
 *
 * Thread safety: an ehelf_object may be used by several threads at once;
 * open and close are not async-signal-safe, the step functions are.
 */
#ifndef EHELF_H
#define EHELF_H

#include <stdint.h>

#include "ehelf_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define EHELF_API __attribute__((visibility("default")))
#else
#define EHELF_API
#endif

typedef struct ehelf_object ehelf_object;

/*
 * Load the eh_elf at PATH: check that it is an x86_64 shared object with
 * the ehelf note, that its ABI version is one this library supports and
 * that its ehelf_info agrees with the note, then map it (dlopen) and find
 * its entry points.  Returns NULL on any failure; ehelf_last_error() then
 * says why.  The object owns the mapping until ehelf_object_close().
 */
EHELF_API ehelf_object *ehelf_object_open(const char *eh_elf_path);
EHELF_API void ehelf_object_close(ehelf_object *o);

/* The reason of the last failure of ehelf_object_open() in this thread
 * (never NULL). */
EHELF_API const char *ehelf_last_error(void);

/* The eh_elf's ehelf_info (source build-ID, covered range, statistics). */
EHELF_API const struct ehelf_info *ehelf_object_info(const ehelf_object *o);

/*
 * One frame through the eh_elf's remote entry point: PC is a link-time
 * address of the source ELF, used as given (the caller applies pc-1 to
 * return addresses); memory is read through READ(ARG, addr, &value).
 * Returns EHELF_STEP (0), EHELF_OUTERMOST (1), or a negative
 * EHELF_E_* code: EHELF_E_NOT_COVERED, EHELF_E_READ, EHELF_E_UNSUPPORTED,
 * EHELF_E_BADREG, EHELF_E_EXPR.  IN and OUT must not overlap.
 */
EHELF_API int ehelf_object_step(const ehelf_object *o, uint64_t pc,
				const ehelf_regs *in, ehelf_regs *out,
				ehelf_read_fn read, void *arg);

/* The same through the local entry point: memory is read directly, and
 * only inside [stack_lo, stack_hi) (EHELF_E_BOUNDS otherwise). */
EHELF_API int ehelf_object_step_local(const ehelf_object *o, uint64_t pc,
				      const ehelf_regs *in, ehelf_regs *out,
				      uint64_t stack_lo, uint64_t stack_hi);

/* "not covered", "read failed", ... for a status code. */
EHELF_API const char *ehelf_status_str(int status);

#ifdef __cplusplus
}
#endif

#endif
