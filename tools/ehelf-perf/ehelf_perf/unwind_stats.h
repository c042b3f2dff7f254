/*
 * unwind_stats.h - how the user stacks of a run's samples were unwound,
 * for the summary ehelf-perf script and inject print on standard error
 * (text, or one JSON object with --json): samples, frames, the method of
 * each step (eh_elf, DWARF CFI through libdw where a file has no eh_elf,
 * the PLT rule, the frame-pointer guess where no CFI covers a pc), why
 * each stack stopped, and the files stepped through DWARF (those whose
 * eh_elfs would make the run faster).
 */
#ifndef EHELF_PERF_TOOL_UNWIND_STATS_H
#define EHELF_PERF_TOOL_UNWIND_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../../../client-lib/include/ehelf.h"
#include "dso.h"
#include "procs.h"

/* Why a stack's unwinding stopped. */
enum unwind_stop {
	STOP_OUTERMOST,   /* at _start, clone, a thread's start: the end */
	STOP_COPY_END,    /* the sample's stack copy ended (perf's 8 KiB
			   * or 64 KiB) */
	STOP_NO_MAP,      /* a return address in no file mapping */
	STOP_NO_STEP,     /* no caller: no CFI covers the pc, its step
			   * failed, or the CFI ended the stack in a frame
			   * whose function has no symbol to tell it */
	STOP_LIMIT,       /* the frame limit */
	STOP_KINDS,
};

enum { STATS_DWARF_FILES = 64 };

typedef struct unwind_stats {
	uint64_t samples;         /* all samples */
	uint64_t unwound;         /* with user frames unwound here */
	uint64_t no_user_stack;   /* no user registers or no stack copy: no
				   * user frames, as in perf */
	uint64_t from_chain;      /* user frames from the recorded
				   * callchain (frame-pointer recordings) */
	uint64_t kernel_frames, user_frames;
	uint64_t by_path[5];      /* user frames by enum ehelf_frame_path */
	uint64_t stops[STOP_KINDS];
	struct {
		const dso *d;
		uint64_t steps;
	} dwarf[STATS_DWARF_FILES]; /* the first files stepped through
				     * DWARF, by steps */
	unsigned ndwarf;
	uint64_t dwarf_other;     /* steps in files beyond those */
} unwind_stats;

/* Account the N frames (N >= 1) unwound for one sample of process PR, MAX
 * the frame limit. */
void unwind_stats_stack(unwind_stats *s, const proc *pr,
			const ehelf_frame *f, int n, int max);

/* Print S on OUT for command COMMAND ("script", "inject"): lines of text,
 * or (JSON) one object on one line. */
void unwind_stats_print(const unwind_stats *s, const char *command, bool json,
			FILE *out);

#endif
