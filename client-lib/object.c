/*
 * object.c - one eh_elf (ehelf_object_*), and the thread's last error.
 *
 * ehelf_object_open() is trust_open() of the path as given (both in
 * trust.c), under the rules of local files (trust.h): read once, checked
 * to be exactly what the eh_elf writer emits (eh_elf_check.h), those
 * bytes mapped by libehelf itself, then made an object here (object_new).
 * No dlopen: no code of the file runs at load, no library path is
 * searched.  An object is its mapping and four pointers into it.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../common/err.h"
#include "include/ehelf.h"
#include "object.h"

struct ehelf_object {
	void *base;             /* the R+X segment, mapped */
	size_t maplen;
	ehelf_step_local_fn local;
	ehelf_step_remote_fn remote;
	ehelf_describe_fn describe;
	const struct ehelf_info *info;
};

/* One error domain: libehelf's internal codes are its public ones. */
_Static_assert((int)ERR_IO == (int)EHELF_ERR_IO &&
	       (int)ERR_FORMAT == (int)EHELF_ERR_FORMAT &&
	       (int)ERR_UNSUPPORTED == (int)EHELF_ERR_UNSUPPORTED &&
	       (int)ERR_NOMEM == (int)EHELF_ERR_NOMEM &&
	       (int)ERR_ARG == (int)EHELF_ERR_ARG &&
	       (int)ERR_NOTFOUND == (int)EHELF_ERR_NOT_FOUND &&
	       (int)ERR_UNTRUSTED == (int)EHELF_ERR_UNTRUSTED &&
	       (int)ERR_CONFIG == (int)EHELF_ERR_CONFIG,
	       "ERR_* and EHELF_ERR_* differ");
_Static_assert(EHELF_ERR_IO < EHELF_E_BOUNDS - 128 &&
	       EHELF_ERR_CONFIG < EHELF_ERR_IO,
	       "EHELF_ERR_* must stay clear of the step statuses and -errno");

static __thread char last_error[512];

const char *ehelf_last_error(void)
{
	return last_error;
}

void ehelf_set_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_error, sizeof last_error, fmt, ap);
	va_end(ap);
}

/* ehelf_set_error(), then NULL: for `return fail(...)`. */
static void *fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void *fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_error, sizeof last_error, fmt, ap);
	va_end(ap);
	return NULL;
}

ehelf_object *object_new(void *base, size_t maplen, const eh_elf_layout *l)
{
	ehelf_object *o = calloc(1, sizeof *o);
	if (!o)
		return fail("out of memory");
	uintptr_t b = (uintptr_t)base;
	o->base = base;
	o->maplen = maplen;
	o->local = (ehelf_step_local_fn)(b + l->off_local);
	o->remote = (ehelf_step_remote_fn)(b + l->off_remote);
	o->describe = (ehelf_describe_fn)(b + l->off_describe);
	o->info = (const struct ehelf_info *)(b + l->off_info);
	return o;
}

void ehelf_object_close(ehelf_object *o)
{
	if (!o)
		return;
	munmap(o->base, o->maplen);
	free(o);
}

const struct ehelf_info *ehelf_object_info(const ehelf_object *o)
{
	return o->info;
}

int ehelf_object_step(const ehelf_object *o, uint64_t pc, const ehelf_regs *in,
		      ehelf_regs *out, ehelf_read_fn read, void *arg)
{
	return o->remote(pc, in, out, read, arg);
}

uint64_t ehelf_object_describe(const ehelf_object *o, uint64_t pc)
{
	return o->describe(pc);
}

int ehelf_object_step_local(const ehelf_object *o, uint64_t pc,
			    const ehelf_regs *in, ehelf_regs *out,
			    uint64_t stack_lo, uint64_t stack_hi)
{
	return o->local(pc, in, out, stack_lo, stack_hi);
}

const char *ehelf_status_str(int status)
{
	switch (status) {
	case EHELF_STEP: return "step";
	case EHELF_OUTERMOST: return "outermost frame";
	case EHELF_E_NOT_COVERED: return "no row covers this pc";
	case EHELF_E_READ: return "memory read failed";
	case EHELF_E_UNSUPPORTED: return "rules not compiled (unsupported)";
	case EHELF_E_BADREG: return "a register the rules need is not valid";
	case EHELF_E_EXPR: return "DWARF expression failed";
	case EHELF_E_BOUNDS: return "read outside the stack bounds";
	}
	return "unknown status";
}

const char *ehelf_err_str(int code)
{
	return err_code_name(code);
}
