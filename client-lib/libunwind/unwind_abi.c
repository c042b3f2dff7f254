/*
 * unwind_abi.c - the C++ exception ABI (Itanium's _Unwind_*, and the same
 * functions as __libunwind_Unwind_*) that libunwind.so.8 exports, so that
 * a program linked against libunwind finds them all in libehelf-unwind,
 * relinked or preloaded.
 *
 * Each forwards to the runtime libstdc++ raises its exceptions with: the
 * first definition in the global scope (libunwind.so.8's when the
 * program loads it ahead of libgcc_s: a library without version
 * information matches any version; else libgcc_s's).  A personality routine calls back the runtime that
 * called it (_Unwind_GetLanguageSpecificData, _Unwind_SetIP ... on the
 * context it was given), and a landing pad's _Unwind_Resume must reach
 * the runtime that raised, so all of them are that one: not the side
 * libunwind's, whose contexts libstdc++'s personality, bound to libgcc_s,
 * would be handed.
 *
 * These definitions are of the version node EHELF_UNWIND_1
 * (libehelf-unwind.map): the loader binds a reference of another named
 * version (libstdc++'s _Unwind_RaiseException@GCC_3.0) to none of them,
 * so the process's exceptions never pass through here, while unversioned
 * references (programs and libraries linked against libunwind.so.8) do.
 * Without a runtime in the global scope (a C program relinked against
 * libehelf-unwind), libgcc_s.so.1 is loaded on the first call, as glibc
 * loads it for pthread_cancel.  Targets are looked up by the constructor,
 * else on first call (dlvsym takes the loader's lock); each forwarder
 * ends in a tail call, so that no frame of ours is between the runtime
 * and its caller (_Unwind_Backtrace's first frame).  Contexts are void *
 * here: the types of <unwind.h> differ between libgcc's and libunwind's
 * headers.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>

#include "forward.h"

typedef unsigned long ul;

#define UNWIND_ABI(X, XV, XN)                                                  \
	X(int, Unwind_Backtrace, (void *fn, void *arg), (fn, arg))             \
	XV(Unwind_DeleteException, (void *e), (e))                             \
	X(void *, Unwind_FindEnclosingFunction, (void *pc), (pc))              \
	X(int, Unwind_ForcedUnwind,                                            \
	  (void *e, void *stop, void *arg), (e, stop, arg))                    \
	X(ul, Unwind_GetCFA, (void *c), (c))                                   \
	X(ul, Unwind_GetDataRelBase, (void *c), (c))                           \
	X(ul, Unwind_GetGR, (void *c, int i), (c, i))                          \
	X(ul, Unwind_GetIP, (void *c), (c))                                    \
	X(ul, Unwind_GetIPInfo, (void *c, int *before),                        \
	  (c, before))                                                         \
	X(void *, Unwind_GetLanguageSpecificData, (void *c), (c))              \
	X(ul, Unwind_GetRegionStart, (void *c), (c))                           \
	X(ul, Unwind_GetTextRelBase, (void *c), (c))                           \
	X(int, Unwind_RaiseException, (void *e), (e))                          \
	XN(Unwind_Resume, (void *e), (e))                                      \
	X(int, Unwind_Resume_or_Rethrow, (void *e), (e))                       \
	XV(Unwind_SetGR, (void *c, int i, ul v), (c, i, v))                    \
	XV(Unwind_SetIP, (void *c, ul v), (c, v))

/* The runtime's definition of NAME (either spelling): the next one in
 * the global scope after libehelf-unwind, which is the one libstdc++'s
 * versioned references bind to (before libehelf-unwind there is only
 * the program); with LOAD, loading libgcc_s.so.1 when the scope has none.
 * (dlvsym(RTLD_DEFAULT, name, "GCC_3.0") would not do: it skips a
 * library without version information, libunwind.so.8, which the
 * loader takes for libstdc++'s references.)  NULL if none. */
static void *runtime_sym_in(const char *name, int load)
{
	static const char prefix[] = "__libunwind";
	if (strncmp(name, prefix, sizeof prefix - 1) == 0)
		name += sizeof prefix - 1;
	void *f = dlsym(RTLD_NEXT, name);
	if (!f && load) {
		void *h = dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_LOCAL);
		f = h ? dlsym(h, name) : NULL;
	}
	return f;
}

static void *runtime_sym(const char *name)
{
	return runtime_sym_in(name, 1);
}

static void *runtime_sym_loaded(const char *name)
{
	return runtime_sym_in(name, 0);
}

/* each under both names */
#define DEF(ret, name, params, args)                                        \
	FORWARD(runtime_sym, ret, _##name, params, args)                       \
	FORWARD(runtime_sym, ret, __libunwind_##name, params, args)
#define DEF_VOID(name, params, args)                                        \
	FORWARD_VOID(runtime_sym, _##name, params, args)                       \
	FORWARD_VOID(runtime_sym, __libunwind_##name, params, args)
#define DEF_NORETURN(name, params, args)                                    \
	FORWARD_NORETURN(runtime_sym, _##name, params, args)                   \
	FORWARD_NORETURN(runtime_sym, __libunwind_##name, params, args)
UNWIND_ABI(DEF, DEF_VOID, DEF_NORETURN)

/* ia64's backing store pointer: 0 elsewhere, as libunwind answers on
 * x86_64 (libgcc_s has no such function) */
FORWARD_EXPORT ul _Unwind_GetBSP(void *c);
FORWARD_EXPORT ul _Unwind_GetBSP(void *c)
{
	(void)c;
	return 0;
}
FORWARD_EXPORT ul __libunwind_Unwind_GetBSP(void *c)
	__attribute__((alias("_Unwind_GetBSP")));

#define LOOKUP(ret, name, params, args)                                     \
	FORWARD_LOOKUP(runtime_sym_loaded, _##name);                           \
	FORWARD_LOOKUP(runtime_sym_loaded, __libunwind_##name);
#define LOOKUP_VOID(name, params, args) LOOKUP(void, name, params, args)

__attribute__((constructor)) static void unwind_abi_init(void)
{
	UNWIND_ABI(LOOKUP, LOOKUP_VOID, LOOKUP_VOID)
}
