/*
 * side.h - the real libunwind, loaded on the side: a private instance of
 * Debian's libunwind.so.8 (the local _ULx86_64_* API) and
 * libunwind-x86_64.so.8 (the generic _Ux86_64_* API, remote spaces), for
 * what libehelf-unwind does not do itself.
 *
 * When libehelf-unwind is preloaded into a program linked with libunwind,
 * that program's libunwind calls libehelf-unwind's definitions of its own
 * public functions (they are interposed); so the real one is loaded a
 * second time, from a copy in a memfd (another inode, so the loader does
 * not reuse the instance already there) with RTLD_DEEPBIND (its own calls
 * to unw_step and the rest bind inside it).  Loaded once, by a
 * constructor (never in a signal handler: dlopen takes the loader's lock).
 */
#ifndef EHELF_LIBUNWIND_SIDE_H
#define EHELF_LIBUNWIND_SIDE_H

typedef enum side_lib {
	SIDE_LOCAL,   /* libunwind.so.8: _ULx86_64_*, unw_backtrace, _U_dyn_* */
	SIDE_GENERIC, /* libunwind-x86_64.so.8: _Ux86_64_* */
} side_lib;

/* Load both (idempotent; the constructor does it).  0, or -1 with the
 * reason in side_error(). */
int side_load(void);

/* The address of symbol NAME in the side instance of LIB, or NULL (not
 * loaded, or no such symbol).  dlsym takes the loader's lock: look
 * symbols up outside unwinds (a constructor) and keep the pointers. */
void *side_sym(side_lib lib, const char *name);

/* Why side_load() failed, or NULL. */
const char *side_error(void);

#endif
