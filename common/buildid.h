/*
 * buildid.h - GNU build-IDs as docs/design.md fixes them: lowercase hex of the
 * NT_GNU_BUILD_ID note, validated whenever it comes from outside (where a
 * store keeps the eh_elf of one: store/layout.h).
 */
#ifndef EHELF_COMMON_BUILDID_H
#define EHELF_COMMON_BUILDID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { BUILDID_MAX_BYTES = 64, BUILDID_HEX_MAX = 2 * BUILDID_MAX_BYTES };

/* Lowercase hex of N raw bytes into OUT (at least 2*N+1 bytes).  Returns
 * the string length, or -1 if N is 0 or above BUILDID_MAX_BYTES. */
int buildid_to_hex(const uint8_t *id, size_t n, char *out, size_t outsz);

/* The bytes of HEX, a well-formed build-ID (see buildid_valid_hex), into
 * OUT (OUTSZ bytes).  Returns the number of bytes, or -1 if HEX is not
 * well-formed or OUT too small. */
int buildid_from_hex(const char *hex, uint8_t *out, size_t outsz);

/* Do raw build-IDs A (NA bytes) and B (NB bytes) name the same file?  The
 * shorter one may be padded with zero bytes (perf stores build-IDs in
 * 20-byte fields). */
bool buildid_same(const uint8_t *a, size_t na, const uint8_t *b, size_t nb);

/* True when S is a well-formed build-ID: even length, 2..128 characters,
 * [0-9a-f] only. */
bool buildid_valid_hex(const char *s);

#endif
