/*
 * forward.h - a libehelf-unwind function that is another library's:
 * FORWARD(lookup, ret, name, params, args) defines NAME, exported, calling
 * the function LOOKUP("NAME") gives (side_api_sym: the side libunwind's;
 * forward_next_or_side: the definition libehelf-unwind interposes, else
 * the side's).  The file's constructor looks it up with
 * FORWARD_LOOKUP(lookup, name); a call made before that constructor ran
 * (from another library's constructor, or a thread it started) looks it
 * up then.  Without a target a forwarded function returns 0 (FORWARD) or
 * does nothing (FORWARD_VOID); FORWARD_NORETURN aborts, having nowhere to
 * return to.
 */
#ifndef EHELF_LIBUNWIND_FORWARD_H
#define EHELF_LIBUNWIND_FORWARD_H

#include <stdlib.h>

#include "side_api.h"

#define FORWARD_EXPORT __attribute__((visibility("default")))

/* the target of NAME, in *SLOT (looked up with LOOKUP if still NULL) */
#define FORWARD_TARGET(lookup, name)                                           \
	(__atomic_load_n(&to_##name, __ATOMIC_ACQUIRE)                         \
		 ?: FORWARD_LOOKUP(lookup, name))
#define FORWARD_LOOKUP(lookup, name)                                           \
	({                                                                     \
		__typeof__(to_##name) t_ = (__typeof__(to_##name))lookup(#name); \
		__atomic_store_n(&to_##name, t_, __ATOMIC_RELEASE);            \
		t_;                                                            \
	})

#define FORWARD(lookup, ret, name, params, args)                               \
	static ret(*to_##name) params;                                         \
	FORWARD_EXPORT ret name params;                                        \
	FORWARD_EXPORT ret name params                                         \
	{                                                                      \
		ret(*f) params = FORWARD_TARGET(lookup, name);                 \
		return f ? f args : (ret)0;                                    \
	}

#define FORWARD_VOID(lookup, name, params, args)                               \
	static void(*to_##name) params;                                        \
	FORWARD_EXPORT void name params;                                       \
	FORWARD_EXPORT void name params                                        \
	{                                                                      \
		void(*f) params = FORWARD_TARGET(lookup, name);                \
		if (f)                                                         \
			f args;                                                \
	}

#define FORWARD_NORETURN(lookup, name, params, args)                           \
	static void(*to_##name) params;                                        \
	FORWARD_EXPORT void name params __attribute__((noreturn));             \
	FORWARD_EXPORT void name params                                        \
	{                                                                      \
		void(*f) params = FORWARD_TARGET(lookup, name);                \
		if (f)                                                         \
			f args;                                                \
		abort();                                                       \
	}

/* The definition NAME would have had without libehelf-unwind (the next
 * in the lookup order: a preloaded libehelf-unwind's libunwind.so.8, or
 * libgcc_s), else the side's. */
void *forward_next_or_side(const char *name);

#endif
