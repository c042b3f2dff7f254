/*
 * progress.h - the one-line progress display of ehelf-batch, on stderr
 * when it is a terminal (rewritten in place, at most 5 times a second);
 * nothing otherwise.
 */
#ifndef EHELF_BATCH_PROGRESS_H
#define EHELF_BATCH_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct progress_counts {
	uint64_t packages_done, packages_total;
	uint64_t input_done, input_total;  /* bytes of packages, for the ETA */
	uint64_t elfs, built, present, failed, no_cfi;
	uint64_t eh_frame_bytes;
} progress_counts;

typedef struct progress {
	bool tty;
	double start, last;
	int width;   /* of the last line, to blank it */
} progress;

void progress_init(progress *p);
/* Redraw if due (or FORCE). */
void progress_update(progress *p, const progress_counts *c, bool force);
/* Leave the last line on screen and end it. */
void progress_end(progress *p, const progress_counts *c);

/* Monotonic seconds. */
double progress_now(void);

#endif
