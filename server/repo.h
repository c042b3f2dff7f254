/*
 * repo.h - the apt repository ehelf-pkg writes (dists/, pool/), served
 * under /debian/ by ehelf-server --repo, so one server hands out eh_elfs
 * and their packages.  Files are opened beneath the repository's root
 * (beneath.h); directories are not listed.
 */
#ifndef EHELF_SERVER_REPO_H
#define EHELF_SERVER_REPO_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "../common/err.h"

typedef struct repo repo;

/* Open the repository at ROOT (a directory).  Returns 0, ERR_NOTFOUND or
 * ERR_IO. */
int repo_open(repo **r, const char *root, ehelf_err *err);
void repo_close(repo *r);

typedef struct repo_file {
	int fd;               /* read-only; the caller closes it */
	uint64_t size;
	time_t mtime;
	char etag[48];        /* weak: W/"mtime-size", as static servers do */
	const char *type;     /* Content-Type */
	bool immutable;       /* under pool/: a package file of one version */
} repo_file;

/* Open REL (a path route.h accepted).  Returns 0, ERR_NOTFOUND (absent,
 * a directory, a symlink) or ERR_IO. */
int repo_file_open(repo *r, const char *rel, repo_file *f, ehelf_err *err);

#endif
