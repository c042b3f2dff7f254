/*
 * forward.h - a libehelf-unwind function that is the side libunwind's
 * (side_api.h): FORWARD(ret, name, params, args) defines NAME, exported,
 * calling the side's NAME, looked up by FORWARD_LOOKUP(name) in the
 * file's constructor.  Without the side libunwind (side_error()) a
 * forwarded function returns 0 (FORWARD) or does nothing (FORWARD_VOID);
 * FORWARD_NORETURN aborts, having nowhere to return to.
 */
#ifndef EHELF_LIBUNWIND_FORWARD_H
#define EHELF_LIBUNWIND_FORWARD_H

#include <stdlib.h>

#include "side_api.h"

#define FORWARD_EXPORT __attribute__((visibility("default")))

#define FORWARD(ret, name, params, args)                                       \
	static ret(*side_##name) params;                                       \
	FORWARD_EXPORT ret name params;                                        \
	FORWARD_EXPORT ret name params                                         \
	{                                                                      \
		return side_##name ? side_##name args : (ret)0;                \
	}

#define FORWARD_VOID(name, params, args)                                       \
	static void(*side_##name) params;                                      \
	FORWARD_EXPORT void name params;                                       \
	FORWARD_EXPORT void name params                                        \
	{                                                                      \
		if (side_##name)                                               \
			side_##name args;                                      \
	}

#define FORWARD_NORETURN(name, params, args)                                   \
	static void(*side_##name) params;                                      \
	FORWARD_EXPORT void name params __attribute__((noreturn));             \
	FORWARD_EXPORT void name params                                        \
	{                                                                      \
		if (side_##name)                                               \
			side_##name args;                                      \
		abort();                                                       \
	}

#define FORWARD_LOOKUP(name) (side_##name = side_api_sym(#name))

#endif
