/*
 * strerror.c - libunwind's tables: unw_strerror's strings (libunwind's
 * exact text), unw_regname's names, unw_is_fpreg; and the LEB128 readers
 * libunwind.so.8 exports (_ReadULEB, _ReadSLEB: the value at *P, P moved
 * past it).
 */
#include <stdint.h>

#include "cursor.h"

COMPAT const char *_Ux86_64_strerror(int err)
{
	switch ((unw_error_t)-err) {
	case UNW_ESUCCESS: return "no error";
	case UNW_EUNSPEC: return "unspecified (general) error";
	case UNW_ENOMEM: return "out of memory";
	case UNW_EBADREG: return "bad register number";
	case UNW_EREADONLYREG: return "attempt to write read-only register";
	case UNW_ESTOPUNWIND: return "stop unwinding";
	case UNW_EINVALIDIP: return "invalid IP";
	case UNW_EBADFRAME: return "bad frame";
	case UNW_EINVAL: return "unsupported operation or bad value";
	case UNW_EBADVERSION: return "unwind info has unsupported version";
	case UNW_ENOINFO: return "no unwind info found";
	}
	return "invalid error code";
}

COMPAT const char *_Ux86_64_regname(unw_regnum_t reg)
{
	static const char *const names[] = {
		"RAX", "RDX", "RCX", "RBX", "RSI", "RDI", "RBP", "RSP", "R8",
		"R9", "R10", "R11", "R12", "R13", "R14", "R15", "RIP",
	};
	if (reg >= 0 && reg <= UNW_X86_64_RIP)
		return names[reg];
	return "???"; /* UNW_X86_64_CFA too, as libunwind */
}

/* x86_64 libunwind numbers no floating-point register */
COMPAT int _Ux86_64_is_fpreg(int reg);
COMPAT int _Ux86_64_is_fpreg(int reg)
{
	(void)reg;
	return 0;
}

/* LEB128 at *P, unbounded as libunwind's ABI has it (no end pointer, so
 * common/cursor.h's bounded readers do not fit): its value's low 64 bits,
 * *SHIFT past its last byte, *LAST that byte; *P moved past it. */
static unsigned long read_leb(unsigned char **p, unsigned *shift,
			      unsigned char *last)
{
	unsigned long v = 0;
	unsigned char b;
	*shift = 0;
	do {
		b = *(*p)++;
		if (*shift < 64)
			v |= (unsigned long)(b & 0x7f) << *shift;
		*shift += 7;
	} while (b & 0x80);
	*last = b;
	return v;
}

COMPAT unsigned long _ReadULEB(unsigned char **p);
COMPAT unsigned long _ReadULEB(unsigned char **p)
{
	unsigned shift;
	unsigned char last;
	return read_leb(p, &shift, &last);
}

COMPAT long _ReadSLEB(unsigned char **p);
COMPAT long _ReadSLEB(unsigned char **p)
{
	unsigned shift;
	unsigned char last;
	unsigned long v = read_leb(p, &shift, &last);
	if (shift < 64 && (last & 0x40))
		v |= ~0ul << shift;
	return (long)v;
}
