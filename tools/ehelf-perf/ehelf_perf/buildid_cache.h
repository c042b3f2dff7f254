/*
 * buildid_cache.h - paths in perf's build-ID cache, where perf record keeps
 * copies of what a recording needs: the kernel's kallsyms, the vDSO, and
 * the mapped files its samples hit ("elf", with their debug file "debug"
 * when the system had one), for when they are gone or changed.  The cache
 * is $PERF_BUILDID_DIR (which perf sets for the commands it runs), else
 * perf's configuration (buildid.dir, in /etc/perfconfig or ~/.perfconfig,
 * the user's winning), else ~/.debug (perf's default).
 */
#ifndef EHELF_PERF_TOOL_BUILDID_CACHE_H
#define EHELF_PERF_TOOL_BUILDID_CACHE_H

#include <stddef.h>
#include <stdint.h>

/* "CACHE/NAME/BUILD-ID/FILE" for the object NAME ("[kernel.kallsyms]",
 * "[vdso]") with build-ID ID (LEN bytes) into BUF (CAP bytes), whether or
 * not it exists.  0, or -1 when LEN is 0, it does not fit or there is no
 * home directory. */
int buildid_cache_path(const char *name, const char *file, const uint8_t *id,
		       size_t len, char *buf, size_t cap);

/* "CACHE/.build-id/XX/REST/FILE" for the mapped file with build-ID ID (LEN
 * bytes): FILE "elf" is perf's copy of it, "debug" the copy of its debug
 * file, whether or not they exist.  0, or -1 as above. */
int buildid_cache_file(const uint8_t *id, size_t len, const char *file,
		       char *buf, size_t cap);

#endif
