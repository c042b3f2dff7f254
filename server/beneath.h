/*
 * beneath.h - opening a file beneath a directory, never through a
 * symlink and never out of it, whatever the relative name says: openat2
 * with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
 * RESOLVE_NO_XDEV, or on kernels before 5.6 component by component with
 * O_NOFOLLOW (".." and empty components refused there).
 */
#ifndef EHELF_SERVER_BENEATH_H
#define EHELF_SERVER_BENEATH_H

/* Open REL (relative, '/'-separated) beneath the directory DIRFD,
 * read-only, close-on-exec, non-blocking (so that a FIFO or a device
 * planted there never blocks the opening thread: the caller fstat()s
 * and refuses what is not a regular file).  Returns the descriptor, or -1 with errno
 * (ELOOP or EXDEV for a symlink or an escape, ENOENT, ...). */
int open_beneath(int dirfd, const char *rel);

#endif
