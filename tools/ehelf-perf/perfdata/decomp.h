/*
 * decomp.h - the records inside perf's COMPRESSED records (`perf record
 * -z`; COMPRESSED2 since perf 6.15, the same with its data's size given):
 * each one's payload is zstd data that, decompressed in file order as one
 * stream, gives ordinary records.  perf processes
 * them right after the COMPRESSED record that carries them, as if they
 * stood there in the file; a record may begin in one COMPRESSED record and
 * end in a later one.
 *
 * A decomp holds the decompressed bytes not yet taken: decomp_feed()
 * appends a payload's, decomp_next() hands out whole records in order.
 * Errors are ERR_FORMAT (not zstd data, a record smaller than its header)
 * or ERR_NOMEM, with a message that the caller prefixes with the file and
 * offset.
 */
#ifndef EHELF_PERFDATA_DECOMP_H
#define EHELF_PERFDATA_DECOMP_H

#include <stddef.h>
#include <stdint.h>

#include "../../../common/err.h"

typedef struct decomp decomp;

/* A new, empty stream, or NULL when out of memory. */
decomp *decomp_new(void);
void decomp_free(decomp *d);

/* Decompress LEN bytes of payload onto the bytes not yet taken.  At most
 * DECOMP_MAX_FEED bytes come out of one payload (perf writes at most one
 * ring buffer's worth, well under it): more is taken as corrupt data. */
#define DECOMP_MAX_FEED (64u << 20)
int decomp_feed(decomp *d, const uint8_t *payload, size_t len, ehelf_err *err);

/* The next whole record (valid until the next decomp_feed), or NULL when
 * none is complete.  Returns ERR_FORMAT in *RC for a record header whose
 * size is below 8 (else *RC is 0). */
const uint8_t *decomp_next(decomp *d, int *rc, ehelf_err *err);

/* Bytes decompressed and not yet taken (the start of a record still to
 * come). */
size_t decomp_pending(const decomp *d);

#endif
