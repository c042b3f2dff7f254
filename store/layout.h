/*
 * layout.h - where a store keeps each eh_elf: ROOT/.build-id/XX/REST.so
 * (XX the build-ID's first two hex digits, REST the others), its
 * signature, if any, beside it as REST.so.sig.  The one definition of the
 * layout: ehelf-batch writes it (writer.h), ehelf-server serves it,
 * ehelf-pkg packages it under /usr/lib/ehelf, and libehelf searches
 * stores and caches laid out the same way.
 */
#ifndef EHELF_STORE_LAYOUT_H
#define EHELF_STORE_LAYOUT_H

#include <stddef.h>

/* The directory under ROOT that holds the eh_elfs. */
#define STORE_LAYOUT_DIR ".build-id"

/* ".build-id/XX/REST.so" followed by SUFFIX ("" or ".sig") into OUT (N
 * bytes).  HEX must be a valid build-ID (buildid_valid_hex).  Returns the
 * length, or -1 if HEX is invalid or OUT too small. */
int store_layout_rel(const char *hex, const char *suffix, char *out, size_t n);

/* "ROOT/.build-id/XX/REST.so" into OUT (N bytes); as store_layout_rel. */
int store_layout_path(const char *root, const char *hex, char *out, size_t n);

#endif
