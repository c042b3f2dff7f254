/*
 * unwind_abi.c - the C++ exception ABI libunwind.so.8 exports (_Unwind_*,
 * and the same functions as __libunwind_Unwind_*): the side libunwind's,
 * whole.  An exception is raised, searched and resumed by the side's own
 * cursors (its calls bind inside it, RTLD_DEEPBIND), and a personality
 * routine's calls back (_Unwind_GetGR on the context it was given, ...)
 * reach the side's through these: one library handles each exception
 * from end to end, as libunwind does.  Contexts are void * here: the
 * types of <unwind.h> differ between libgcc's and libunwind's headers.
 */
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
	FORWARD(ret, _##name, params, args)                                    \
	FORWARD(ret, __libunwind_##name, params, args)
#define DEF_VOID(name, params, args)                                           \
	FORWARD_VOID(_##name, params, args)                                    \
	FORWARD_VOID(__libunwind_##name, params, args)
#define DEF_NORETURN(name, params, args)                                       \
	FORWARD_NORETURN(_##name, params, args)                                \
	FORWARD_NORETURN(__libunwind_##name, params, args)
UNWIND_ABI(DEF, DEF_VOID, DEF_NORETURN)

#define LOOKUP(ret, name, params, args)                                        \
	FORWARD_LOOKUP(_##name);                                               \
	FORWARD_LOOKUP(__libunwind_##name);
#define LOOKUP_VOID(name, params, args) LOOKUP(void, name, params, args)

__attribute__((constructor)) static void unwind_abi_init(void)
{
	UNWIND_ABI(LOOKUP, LOOKUP_VOID, LOOKUP_VOID)
}
