/*
 * vdso_file.h - an ELF file for a recording's [vdso] mapping, found where
 * perf finds one:
 *
 *   1. perf's build-ID cache (buildid_cache.h), "[vdso]/BUILD-ID/vdso",
 *      where perf record copies the vDSO of the recorded processes;
 *   2. this process's own vDSO, when its build-ID is the recorded one or
 *      the recording names none (a pipe, whose build-IDs come at its end):
 *      perf uses its own vDSO so too.  It is copied (once) to
 *      ehelf-perf's cache directory, vdso/BUILD-ID (cache_dir.h), so that
 *      it is an ordinary file like any other mapped one.
 *
 * Otherwise there is none, and the vDSO's frames have no symbols (and no
 * CFI: the frame-pointer guess), as in perf.
 */
#ifndef EHELF_PERF_TOOL_VDSO_FILE_H
#define EHELF_PERF_TOOL_VDSO_FILE_H

#include <stddef.h>
#include <stdint.h>

/* The file for the vDSO with build-ID ID (LEN bytes, 0: unknown) into BUF
 * (CAP bytes): 0, or -1 when there is none. */
int vdso_file(const uint8_t *id, size_t len, char *buf, size_t cap);

#endif
