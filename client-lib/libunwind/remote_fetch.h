/*
 * remote_fetch.h - eh_elfs for the modules of remote spaces, fetched in
 * the background from the servers of $EHELF_URLS (fetch.h), never inside
 * an unwind: a module learned without an eh_elf is queued, one thread
 * ("ehelf-rfetch", every signal blocked, started by the first
 * unw_create_addr_space when $EHELF_URLS names a server) fetches the queue into
 * the cache, and the next unw_init_remote in a space attaches what
 * arrived (module_attach).  Until then those modules go to the side
 * libunwind.  EHELF_VERBOSE tells on stderr what each fetch gave.
 */
#ifndef EHELF_LIBUNWIND_REMOTE_FETCH_H
#define EHELF_LIBUNWIND_REMOTE_FETCH_H

#include <stddef.h>
#include <stdint.h>

/* Start the thread if $EHELF_URLS names a server (once; not from an
 * unwind). */
void remote_fetch_start(void);

/* Queue build-ID ID (LEN bytes) for the background fetch; nothing without
 * $EHELF_URLS, or when the queue is full. */
void remote_fetch_want(const uint8_t *id, size_t len);

/* The number of fetches completed so far (a space compares it with the
 * last it saw to know whether to attach). */
unsigned remote_fetch_generation(void);

#endif
