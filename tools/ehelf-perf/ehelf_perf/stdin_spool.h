/*
 * stdin_spool.h - standard input made seekable, so that a recording
 * streamed into ehelf-perf (perf record -o - | ehelf-perf script -i -)
 * can be read twice: once for the build-IDs it names (at its end, in pipe
 * mode), once to unwind its samples.
 */
#ifndef EHELF_PERF_TOOL_STDIN_SPOOL_H
#define EHELF_PERF_TOOL_STDIN_SPOOL_H

#include "../../../common/err.h"

/* When standard input is not seekable (a pipe), copy all of it into an
 * unnamed temporary file ($TMPDIR, else /tmp; gone when closed) and put
 * that in its place, at its start; a seekable one is left alone.  0, or
 * ERR_IO with ERR: then what was read is lost, and the caller must stop. */
int stdin_spool(ehelf_err *err);

#endif
