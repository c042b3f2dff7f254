/*
 * unwind_abi.c - the C++ exception ABI libunwind.so.8 exports (_Unwind_*,
 * and the same functions as __libunwind_Unwind_*), so that a program
 * relinked against libehelf-unwind finds them all.  Each is the runtime
 * the process would have used without libehelf-unwind: preloaded into a
 * program linked with libunwind, libunwind.so.8's (which runs on the
 * unw_* API, libehelf-unwind's cursors: the C++ exceptions are unwound by
 * ehelf), or libgcc_s's, whichever comes first; with neither loaded, the
 * side libunwind's, whose own cursors raise, search and resume (its calls
 * bind inside it, RTLD_DEEPBIND).  Every function of one name set comes
 * from one library, so a personality routine's calls back (_Unwind_GetGR
 * on the context it was given, ...) reach the runtime that made the
 * context.  Contexts are void * here: the types of <unwind.h> differ
 * between libgcc's and libunwind's headers.
 */
#define _GNU_SOURCE
#include <dlfcn.h>

#include "forward.h"

typedef unsigned long ul;

#define UNWIND_ABI(X, XV, XN)                                                  \
	X(int, Unwind_Backtrace, (void *fn, void *arg), (fn, arg))             \
	XV(Unwind_DeleteException, (void *e), (e))                             \
	X(void *, Unwind_FindEnclosingFunction, (void *pc), (pc))              \
	X(int, Unwind_ForcedUnwind, (void *e, void *stop, void *arg),          \
	  (e, stop, arg))                                                      \
	X(ul, Unwind_GetBSP, (void *c), (c))                                   \
	X(ul, Unwind_GetCFA, (void *c), (c))                                   \
	X(ul, Unwind_GetDataRelBase, (void *c), (c))                           \
	X(ul, Unwind_GetGR, (void *c, int i), (c, i))                          \
	X(ul, Unwind_GetIP, (void *c), (c))                                    \
	X(ul, Unwind_GetIPInfo, (void *c, int *before), (c, before))           \
	X(ul, Unwind_GetLanguageSpecificData, (void *c), (c))                  \
	X(ul, Unwind_GetRegionStart, (void *c), (c))                           \
	X(ul, Unwind_GetTextRelBase, (void *c), (c))                           \
	X(int, Unwind_RaiseException, (void *e), (e))                          \
	XN(Unwind_Resume, (void *e), (e))                                      \
	X(int, Unwind_Resume_or_Rethrow, (void *e), (e))                       \
	XV(Unwind_SetGR, (void *c, int i, ul v), (c, i, v))                    \
	XV(Unwind_SetIP, (void *c, ul v), (c, v))

/* each under both names */
#define DEF(ret, name, params, args)                                           \
	FORWARD(forward_next_or_side, ret, _##name, params, args)              \
	FORWARD(forward_next_or_side, ret, __libunwind_##name, params, args)
#define DEF_VOID(name, params, args)                                           \
	FORWARD_VOID(forward_next_or_side, _##name, params, args)              \
	FORWARD_VOID(forward_next_or_side, __libunwind_##name, params, args)
#define DEF_NORETURN(name, params, args)                                       \
	FORWARD_NORETURN(forward_next_or_side, _##name, params, args)          \
	FORWARD_NORETURN(forward_next_or_side, __libunwind_##name, params, args)
UNWIND_ABI(DEF, DEF_VOID, DEF_NORETURN)

#define LOOKUP(ret, name, params, args)                                        \
	FORWARD_LOOKUP(forward_next_or_side, _##name);                         \
	FORWARD_LOOKUP(forward_next_or_side, __libunwind_##name);
#define LOOKUP_VOID(name, params, args) LOOKUP(void, name, params, args)

__attribute__((constructor)) static void unwind_abi_init(void)
{
	UNWIND_ABI(LOOKUP, LOOKUP_VOID, LOOKUP_VOID)
}

void *forward_next_or_side(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);
	return f ? f : side_api_sym(name);
}
