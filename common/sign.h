/*
 * sign.h - Ed25519 signatures of eh_elfs (format: docs/signatures.md).
 *
 * A signature binds three things: the build-ID the eh_elf is for, the
 * SHA-256 of the eh_elf's bytes, and the ID of the key that signed.  It is
 * one line of ASCII, stored beside the eh_elf as REST.so.sig and sent by
 * the server in the X-EHELF-SIGNATURE header:
 *
 *     ehelf-sig-1 KEYID SHA256 SIGNATURE\n
 *
 * KEYID: 16 hex digits, the first 8 bytes of the SHA-256 of the raw 32-byte
 * Ed25519 public key; SHA256: 64 hex digits; SIGNATURE: 128 hex digits, the
 * Ed25519 signature (RFC 8032, pure) of the message
 *
 *     "ehelf-sig-1\n" BUILDID "\n" SHA256 "\n" KEYID "\n"
 *
 * with BUILDID the lowercase hex build-ID.  Keys are PEM files as `openssl
 * genpkey -algorithm ed25519` writes them (private) and `openssl pkey
 * -pubout` (public).
 *
 * Errors: ERR_IO (unreadable key file), ERR_FORMAT (not an Ed25519 PEM key,
 * a malformed signature line), ERR_NOTFOUND (no trusted key with that ID),
 * ERR_UNSUPPORTED (the signature does not verify, or the SHA-256 or
 * build-ID differ), ERR_ARG, ERR_NOMEM; each with a message naming the file
 * or the key.
 */
#ifndef EHELF_COMMON_SIGN_H
#define EHELF_COMMON_SIGN_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

enum {
	SIG_KEYID_HEX = 16,    /* hex digits of a key ID */
	SIG_LINE_LEN = 223,    /* bytes of a signature line, with its '\n' */
	SIG_LINE_MAX = 256,    /* a buffer that holds one, NUL included */
};

#define SIG_MAGIC "ehelf-sig-1"

/* A private key, for signing. */
typedef struct sign_key sign_key;

/* Load the Ed25519 private key in PEM file PATH.  *K is freed with
 * sign_key_free().  Returns 0, ERR_IO or ERR_FORMAT. */
int sign_key_load(sign_key **k, const char *path, ehelf_err *err);
void sign_key_free(sign_key *k);

/* The key's ID: SIG_KEYID_HEX hex digits, NUL-terminated, owned by K. */
const char *sign_key_id(const sign_key *k);

/* The signature line (with its '\n', NUL-terminated) of the eh_elf DATA
 * (LEN bytes) for build-ID HEX into OUT (at least SIG_LINE_MAX bytes).
 * Thread-safe for one K.  Returns the line's length (SIG_LINE_LEN) or a
 * negative ERR_*. */
int sign_ehelf(const sign_key *k, const char *hex, const void *data,
	       size_t len, char *out, size_t outsz, ehelf_err *err);

/* The SHA-256 of DATA as 64 lowercase hex digits into OUT (65 bytes). */
void sign_sha256_hex(const void *data, size_t len, char out[65]);

/* Trusted public keys, for verifying. */
typedef struct sign_keyring sign_keyring;

/* An empty keyring.  Returns NULL when out of memory. */
sign_keyring *sign_keyring_new(void);
void sign_keyring_free(sign_keyring *kr);

/* Add the Ed25519 public key (or the public half of a private key) in PEM
 * file PATH.  Returns 0, ERR_IO or ERR_FORMAT. */
int sign_keyring_add_file(sign_keyring *kr, const char *path, ehelf_err *err);

/* Add every *.pem file of each directory in DIRS (colon-separated;
 * missing directories are skipped).  Returns the number of keys added, or
 * a negative ERR_* for a file that is not a key. */
int sign_keyring_add_dirs(sign_keyring *kr, const char *dirs, ehelf_err *err);

/* Number of keys in KR. */
size_t sign_keyring_count(const sign_keyring *kr);

/* Verify signature line LINE (LINELEN bytes, a trailing '\n' optional)
 * for the eh_elf DATA (LEN bytes) of build-ID HEX.  Returns 0 when a
 * trusted key signed exactly these bytes for exactly this build-ID, else
 * ERR_FORMAT, ERR_NOTFOUND or ERR_UNSUPPORTED with the reason. */
int sign_verify(const sign_keyring *kr, const char *hex, const void *data,
		size_t len, const char *line, size_t linelen, ehelf_err *err);

#endif
