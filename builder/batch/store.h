/*
 * store.h - the eh_elf store: ROOT/.build-id/XX/REST.so (DESIGN.md), the
 * layout shared by the builder's output, packages, the server and the
 * client's search path.  Files are written atomically through ROOT/.tmp,
 * which store_open() empties of whatever a killed run left there.
 */
#ifndef EHELF_BATCH_STORE_H
#define EHELF_BATCH_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include "../../common/err.h"

typedef struct store {
	char root[2048];
	char tmp[2100];
} store;

/* Create ROOT (and its .build-id and .tmp) if needed.  Returns 0 or
 * ERR_IO / ERR_ARG. */
int store_open(store *s, const char *root, ehelf_err *err);

/* Path of build-ID HEX's eh_elf.  Returns 0, or ERR_ARG for an invalid
 * build-ID or a path that does not fit. */
int store_path(const store *s, const char *hex, char *out, size_t n);

/* True when HEX's eh_elf is in the store (a regular file). */
bool store_has(const store *s, const char *hex);

/* Put HEX's eh_elf into the store, atomically.  Returns 0, ERR_ARG or
 * ERR_IO. */
int store_put(const store *s, const char *hex, const void *data, size_t len,
	      ehelf_err *err);

#endif
