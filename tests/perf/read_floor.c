/*
 * read_floor - what reading a perf.data file costs ehelf-perf before any
 * unwinding or printing: every record read and decoded by the reader
 * ehelf-perf uses (file order, perf's ordering, the mapping read in
 * place), and of each sample the pages of its stack copy's used part
 * (dyn_size) touched, one byte a page, as a walk through the whole of it
 * would.  Prints the samples and the bytes of stack touched; its CPU time
 * is the bench's floor for `ehelf-perf script` and inject.
 * Usage: read_floor FILE
 */
#include <inttypes.h>
#include <stdio.h>

#include "../../tools/ehelf-perf/perfdata/perf_data.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: read_floor FILE\n");
		return 2;
	}
	ehelf_err err = { 0 };
	perf_reader *r = perf_reader_open(argv[1], &err);
	if (!r) {
		fprintf(stderr, "read_floor: %s\n", err.msg);
		return 1;
	}
	perf_event ev;
	int rc;
	uint64_t samples = 0, bytes = 0;
	volatile uint8_t sink = 0;
	while ((rc = perf_reader_next(r, &ev, &err)) > 0) {
		if (ev.kind != PERF_EV_SAMPLE)
			continue;
		samples++;
		if (!ev.sample.stack)
			continue;
		for (uint64_t at = 0; at < ev.sample.stack_size; at += 4096)
			sink += ev.sample.stack[at];
		sink += ev.sample.stack[ev.sample.stack_size - 1];
		bytes += ev.sample.stack_size;
	}
	perf_reader_close(r);
	if (rc < 0) {
		fprintf(stderr, "read_floor: %s\n", err.msg);
		return 1;
	}
	printf("%" PRIu64 " samples, %" PRIu64 " bytes of stack touched\n",
	       samples, bytes);
	return 0;
}
