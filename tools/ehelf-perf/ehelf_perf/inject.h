/*
 * inject.h - a `perf record --call-graph dwarf` recording rewritten with
 * each sample's user stack unwound here (script.h's frames, the ones
 * `ehelf-perf script` prints) as its callchain, for tools that read
 * frame-pointer callchains (perf report/script/annotate of any version,
 * hotspot's perfparser, FlameGraph over perf script):
 *   - a sample's callchain becomes its recorded part before
 *     PERF_CONTEXT_USER (the kernel's frames), PERF_CONTEXT_USER, then the
 *     user frames: the sample's pc, then each caller at its return
 *     address - 1 (what perf shows for a DWARF-unwound caller, so that
 *     perf names the call, not the next line); a stack cut off by the end
 *     of its copy ends with a 0, where perf shows the return address it
 *     could not read as ~0 (0 - 1: in a callchain ~0 would be a context
 *     marker), so that perf report shows the cut as it does for the
 *     original, an [unknown] frame.  A sample with nothing to
 *     unwind keeps its recorded callchain.  Its REGS_USER and STACK_USER
 *     fields are left out, every other field kept as recorded;
 *   - every attribute (the header's, the EVENT_DESC feature's, pipe mode's
 *     HEADER_ATTR records) loses REGS_USER and STACK_USER from sample_type
 *     (gaining CALLCHAIN), its sample_regs_user and sample_stack_user
 *     cleared and exclude_callchain_user unset, so that perf reads the
 *     file in frame-pointer mode and unwinds nothing;
 *   - compressed records (perf record -z) are written decompressed, and
 *     the COMPRESSED feature left out: the output is plain;
 *   - every other record and feature is carried over (file offsets are
 *     the writer's); the build-ID table gains an entry for each file a
 *     written callchain reaches that it lacks (perf record lists only the
 *     files its samples' pcs hit), so that perf report finds those files
 *     as it finds the others.
 * Records are written in the order they are processed (perf's ordered
 * queue: time order, ties in file order, with the FINISHED_ROUND records
 * where they were processed), so a tool reading the output processes
 * them in the same order.
 */
#ifndef EHELF_PERF_TOOL_INJECT_H
#define EHELF_PERF_TOOL_INJECT_H

#include "../perfdata/perf_data.h"
#include "../perfdata/perf_write.h"
#include "script.h"

typedef struct injector injector;

/* A copy instead: the samples KEEP(ARG, sample) accepts written as
 * recorded (R must give whole records: no partial stacks), the others
 * left out, attributes unchanged, nothing unwound; the rest as above (a
 * recording filtered, for comparisons). */
typedef struct inject_copy {
	bool (*keep)(void *arg, const perf_event *sample);
	void *arg;
} inject_copy;

/* An injector reading R (its events applied to SC's processes by
 * inject_event) into W, a pipe-mode writer when PIPE_OUT, or a copier
 * (COPY not NULL); the attributes R knows now are given to W (pipe
 * output: and a file-mode input's features).  NULL with ERR set (out of
 * memory, what W refuses). */
injector *inject_new(perf_reader *r, script_ctx *sc, perf_writer *w,
		     bool pipe_out, const inject_copy *copy, ehelf_err *err);
void inject_free(injector *in);

/* Process event EV of R: apply it to the processes, write what it
 * becomes.  0, or a negative ERR_* with ERR set (ERR_UNSUPPORTED for a
 * record whose payload is not kept: HEADER_TRACING_DATA, AUXTRACE). */
int inject_event(injector *in, const perf_event *ev, ehelf_err *err);

/* After the last event: the features (file mode) and the completed
 * build-ID table; the writer finished.  0 or a negative ERR_*. */
int inject_finish(injector *in, ehelf_err *err);

/* Build-ID entries added to the table (inject_finish). */
size_t inject_added_build_ids(const injector *in);

#endif
