/* err.c - see err.h. */
#include "err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int err_vset(ehelf_err *e, int code, const char *fmt, va_list ap)
{
	if (e) {
		vsnprintf(e->msg, sizeof e->msg, fmt, ap);
		e->code = code;
	}
	return code;
}

int err_set(ehelf_err *e, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	err_vset(e, code, fmt, ap);
	va_end(ap);
	return code;
}

int err_prefix(ehelf_err *e, const char *fmt, ...)
{
	if (!e)
		return ERR_ARG;
	char prefix[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof prefix, fmt, ap);
	va_end(ap);
	char old[sizeof e->msg];
	memcpy(old, e->msg, sizeof old);
	snprintf(e->msg, sizeof e->msg, "%s: %s", prefix, old);
	return e->code;
}

const char *err_code_name(int code)
{
	switch (code) {
	case ERR_OK: return "success";
	case ERR_IO: return "I/O error";
	case ERR_FORMAT: return "malformed input";
	case ERR_UNSUPPORTED: return "unsupported";
	case ERR_NOMEM: return "out of memory";
	case ERR_ARG: return "invalid argument";
	case ERR_NOTFOUND: return "not found";
	case ERR_UNTRUSTED: return "untrusted";
	case ERR_CONFIG: return "invalid configuration";
	}
	return "unknown error";
}

int err_from_errno(int e)
{
	switch (e) {
	case ENOMEM: return ERR_NOMEM;
	case ENOENT: case ESRCH: case ENOTDIR: return ERR_NOTFOUND;
	case EINVAL: return ERR_ARG;
	}
	return ERR_IO;
}
