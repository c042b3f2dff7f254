/*
 * recorded_ids.h - the build-IDs of the files a perf.data file's processes
 * map executable (what their samples may be unwound through), for
 * fetching their eh_elfs before unwinding: each MMAP/MMAP2 record of a
 * process that maps a file (or the vDSO) executable, with the build-ID
 * the record carries (perf record --buildid-mmap), else the one the
 * BUILD_ID feature (pipe mode: the HEADER_BUILD_ID records, at the end of
 * the stream) gives its file, else (perf record lists only the files its
 * samples' pcs hit) that of the file at its path (the vDSO: ours), as
 * the unwinding takes it (dso.h, vdso_file.h).  Mappings without any are
 * left out.
 */
#ifndef EHELF_PERF_TOOL_RECORDED_IDS_H
#define EHELF_PERF_TOOL_RECORDED_IDS_H

#include <stddef.h>

#include "../../../common/buildid.h"
#include "../../../common/err.h"

typedef struct id_list {
	char (*hex)[BUILDID_HEX_MAX + 1]; /* distinct, lowercase */
	size_t n, cap;
} id_list;

/* Read INPUT (a path, or "-" for standard input, which must then be
 * seekable: it is read from where it is and put back there) through
 * once, and put the build-IDs into OUT (empty before).  0, or a negative
 * ERR_* with ERR set (unreadable or malformed input): OUT then holds
 * those found before the error. */
int recorded_ids(const char *input, id_list *out, ehelf_err *err);

void id_list_free(id_list *l);

#endif
