/*
 * trust.h - opening an eh_elf as docs/design.md's trust rules ask, whatever
 * its origin: read once through one descriptor, checked (eh_elf_check.h),
 * and those same bytes mapped by libehelf itself (no dlopen: no dynamic
 * loader lock, no code of the file run at load).
 *
 * Rules by origin:
 *   TRUST_LOCAL   ($EHELF_PATH, /usr/lib/ehelf, a path given by the
 *                 program): opened with O_NOFOLLOW; a regular file owned
 *                 by root or the effective user, not writable by group or
 *                 others, at most EH_ELF_MAX_BYTES.
 *   TRUST_SIGNED  (the fetch cache, anything from the network): the local
 *                 rules, and REST.so.sig beside it must be a signature by
 *                 a key of KEYS over these bytes and EXPECT_HEX
 *                 (common/sign.h), unless ALLOW_UNSIGNED (development
 *                 only: EHELF_ALLOW_UNSIGNED=1; a warning is printed by
 *                 the caller; the .sig is then not looked at).
 * In both, when EXPECT_HEX is not NULL the eh_elf must record that
 * build-ID.  The file is opened O_NOFOLLOW|O_NONBLOCK (a FIFO does not
 * block) and judged by fstat of that descriptor; the .sig likewise (at
 * most SIG_LINE_MAX - 1 bytes).  Mapping: the R+X segment only, from a
 * sealed memfd (PROT_READ|PROT_EXEC, MAP_PRIVATE: allowed under
 * MemoryDenyWriteExecute), or, where memfd_create is unavailable,
 * anonymous memory made executable with mprotect.  docs/trust.md.
 */
#ifndef EHELF_CLIENT_TRUST_H
#define EHELF_CLIENT_TRUST_H

#include <stdbool.h>

#include "../common/sign.h"
#include "include/ehelf.h"

typedef enum trust_origin { TRUST_LOCAL, TRUST_SIGNED } trust_origin;

typedef struct trust_policy {
	trust_origin origin;
	const sign_keyring *keys;   /* TRUST_SIGNED */
	bool allow_unsigned;        /* TRUST_SIGNED: accept without a .sig */
} trust_policy;

/* Open the eh_elf at PATH under POLICY (NULL: TRUST_LOCAL).  Returns the
 * object (close it with ehelf_object_close), or NULL with
 * the reason in ehelf_last_error() ("PATH: writable by others", "PATH:
 * DT_NEEDED: depends on another library", "PATH: signature by unknown key
 * 0123...", ...). */
ehelf_object *trust_open(const char *path, const char *expect_hex,
			 const trust_policy *policy);

/* trust_open of NAME relative to the directory DIR (AT_FDCWD: the
 * current one), named PATH in messages: the cache's files, opened beneath
 * its directories (fetch_cache.h). */
ehelf_object *trust_open_at(int dir, const char *name, const char *path,
			    const char *expect_hex, const trust_policy *policy);

/* Check the bytes IMG (LEN) of an eh_elf that is not a file yet (a
 * download) under POLICY (NULL: TRUST_LOCAL) with signature line SIG
 * (SIGLEN bytes; may be NULL when unsigned).  Returns 0, or -1 with the reason in WHY. */
int trust_check_bytes(const uint8_t *img, size_t len, const char *expect_hex,
		      const char *sig, size_t siglen, const trust_policy *policy,
		      char *why, size_t whylen);

#endif
