/*
 * frame_diff.h - comparing ehelf's frames with libunwind's, for the
 * unwinder's tests: libunwind's frames in the same shape, and the report
 * printed for a mismatch.
 */
#ifndef EHELF_TESTS_FRAME_DIFF_H
#define EHELF_TESTS_FRAME_DIFF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../../client-lib/include/ehelf.h"

typedef struct lframe {
	uint64_t ip, sp;
	int signal;       /* unw_is_signal_frame() > 0 */
} lframe;

/* Whether frames FROM.. agree: count, pc, stack pointer, signal mark. */
bool frames_agree(const ehelf_frame *e, int ne, const lframe *l, int nl,
		  int from);

/* Both lists side by side on OUT under a "MISMATCH WHAT" line. */
void frames_print_diff(FILE *out, const char *what, const ehelf_frame *e,
		       int ne, const lframe *l, int nl);

#endif
