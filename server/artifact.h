/*
 * artifact.h - opening what the server sends: a build-ID's eh_elf
 * (ROOT/.build-id/XX/REST.so) or its signature (REST.so.sig), beneath the
 * store's root and never through a symlink, with the metadata its headers
 * need (size, modification time, SHA-256, the signature line).
 *
 * Every path is resolved from a descriptor of ROOT/.build-id opened once,
 * by open_beneath() (beneath.h), so neither a
 * symlink planted in the store nor a name from the request can lead out
 * of it.  SHA-256s and signature lines are cached by file identity
 * (device, inode, size, mtime): a file replaced by a rebuild is a new
 * identity.  Thread-safe.
 */
#ifndef EHELF_SERVER_ARTIFACT_H
#define EHELF_SERVER_ARTIFACT_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "../common/err.h"
#include "../common/sign.h"
#include "metrics.h"

typedef struct artifact_store artifact_store;

/* The store's SHA-256 of HEX's eh_elf if its index knows one for a file
 * of SIZE bytes: 0 and OUT filled, or -1. */
typedef int (*artifact_sha_fn)(void *arg, const char *hex, uint64_t size,
			       char out[65]);

/* Open the store at ROOT (ROOT/.build-id must exist and be a directory,
 * not a symlink).  SHA, if not NULL, is asked before hashing a file.
 * M counts cache hits.  Returns 0, ERR_NOTFOUND or ERR_IO. */
int artifact_store_open(artifact_store **s, const char *root,
			artifact_sha_fn sha, void *sha_arg, metrics *m,
			ehelf_err *err);
void artifact_store_close(artifact_store *s);

typedef struct artifact {
	int fd;              /* read-only, at offset 0; the caller closes it */
	uint64_t size;
	time_t mtime;
	char sha256[65];     /* of the file's bytes */
	char sig[SIG_LINE_MAX]; /* eh_elf: its signature line without the
				 * '\n', "" when unsigned; sig: unused */
	char rel[BUILDID_HEX_MAX + 24]; /* ".build-id/XX/REST.so[.sig]" */
} artifact;

/* Open HEX's eh_elf (SIG false) or signature file (SIG true).  Returns 0,
 * ERR_NOTFOUND (absent, a symlink, not a regular file), ERR_ARG (HEX
 * invalid) or ERR_IO. */
int artifact_open(artifact_store *s, const char *hex, bool sig, artifact *a,
		  ehelf_err *err);

/* Whether HEX's eh_elf is in the store now. */
bool artifact_exists(artifact_store *s, const char *hex);

#endif
