/*
 * err.h - error codes and the error record every ehelf module fills.
 *
 * Contract: a function that can fail returns 0 (or a non-negative count) on
 * success and one of the negative ERR_* codes on failure; when it is given an
 * `ehelf_err *` it also writes a message a user can act on, naming the file
 * and, for format errors, the section and offset.  Library code never prints
 * and never exits: the program decides what to do with the message.
 */
#ifndef EHELF_COMMON_ERR_H
#define EHELF_COMMON_ERR_H

#include <stdarg.h>

#include <stddef.h>

/*
 * One error domain, shared with libehelf's public calls: these are the
 * values of EHELF_ERR_* in client-lib/include/ehelf.h (tied there by
 * _Static_assert), all below -1000, so that they collide neither with the
 * eh_elf step statuses (EHELF_STEP, EHELF_OUTERMOST, EHELF_E_*: -6..1) nor
 * with any -errno (Linux's end at -133) nor with each other.
 */
enum ehelf_errcode {
	ERR_OK = 0,
	ERR_IO = -1001,          /* open/read/mmap failed (errno in message) */
	ERR_FORMAT = -1002,      /* malformed input: truncated, bad field value */
	ERR_UNSUPPORTED = -1003, /* well-formed, but outside what ehelf handles */
	ERR_NOMEM = -1004,       /* allocation failed */
	ERR_ARG = -1005,         /* invalid argument from the caller */
	ERR_NOTFOUND = -1006,    /* requested thing is absent (section, build-ID) */
	ERR_UNTRUSTED = -1007,   /* refused by the trust rules (owner, signature) */
	ERR_CONFIG = -1008,      /* invalid configuration (environment, key files) */
};

/* The ERR_* code for errno value E (ENOMEM, ENOENT, EINVAL, ...; ERR_IO
 * for the others). */
int err_from_errno(int e);

typedef struct ehelf_err {
	int code;        /* last ERR_* code set, 0 if none */
	char msg[512];   /* NUL-terminated human-readable message */
} ehelf_err;

/* Record CODE and a printf-style message in E (E may be NULL).  Returns CODE
 * so that callers can write `return err_set(e, ERR_FORMAT, ...)`. */
int err_set(ehelf_err *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* err_set() with the arguments in AP. */
int err_vset(ehelf_err *e, int code, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/* Prepend "PREFIX: " to the message already in E (E may be NULL).  Returns
 * E->code, or ERR_ARG when E is NULL. */
int err_prefix(ehelf_err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Short name of an ERR_* code ("format error", ...), never NULL. */
const char *err_code_name(int code);

#endif
