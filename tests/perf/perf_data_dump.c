/*
 * perf_data_dump.c - print what the perf.data reader sees, in reader order,
 * in perf script's number formats so that run-perf-data-tests.sh can
 * compare it with perf's own decoding line by line.
 *
 *   perf_data_dump [-e] [-p BYTES] FILE|-   one line per sample:
 *       S TID SEC.NSEC IP CALLCHAIN_NR REGS_ABI STACK_SIZE STACK_HASH
 *     (the hash: FNV-1a of the stack copy's bytes); with -p the reader
 *     cuts stack copies to BYTES (perf_reader_partial_stacks), and the
 *     lines are those of the whole
 *     copies (read with perf_reader_read_stack; the part given checked
 *     against them); with -s N also the part made 1 KiB after N events
 *     and none after 2N, the rest read through the mapping
 *     (perf_reader_set_partial);
 *     with -e also one line per MMAP/MMAP2, COMM, FORK and EXIT:
 *       M SEC.NSEC PID TID START LEN PGOFF BUILD_ID|- PROT FILENAME
 *       C SEC.NSEC PID TID EXEC COMM
 *       F|X SEC.NSEC PID TID PPID PTID
 *     then "count NAME N" per record type (perf's names, as in
 *     `perf report --stats`), "count TOTAL N" and per attribute
 *     "attr I NAME SAMPLE_TYPE SAMPLES".
 *   perf_data_dump -b FILE NAME...    the build-ID recorded for each file
 *     NAME (any process): "HEX NAME", or "- NAME" when there is none.
 *
 * Exit status 0, 1 when the reader fails (its message on stderr), 2 for
 * bad usage.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../../tools/ehelf-perf/perfdata/perf_data.h"

static const char *record_name(uint32_t type, char *buf, size_t size)
{
	static const char *const kernel[] = {
		[PERF_RECORD_MMAP] = "MMAP", [PERF_RECORD_LOST] = "LOST",
		[PERF_RECORD_COMM] = "COMM", [PERF_RECORD_EXIT] = "EXIT",
		[PERF_RECORD_THROTTLE] = "THROTTLE",
		[PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE",
		[PERF_RECORD_FORK] = "FORK", [PERF_RECORD_READ] = "READ",
		[PERF_RECORD_SAMPLE] = "SAMPLE", [PERF_RECORD_MMAP2] = "MMAP2",
		[PERF_RECORD_AUX] = "AUX",
		[PERF_RECORD_ITRACE_START] = "ITRACE_START",
		[PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES",
		[PERF_RECORD_SWITCH] = "SWITCH",
		[PERF_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
		[PERF_RECORD_NAMESPACES] = "NAMESPACES",
		[PERF_RECORD_KSYMBOL] = "KSYMBOL",
		[PERF_RECORD_BPF_EVENT] = "BPF_EVENT",
		[PERF_RECORD_CGROUP] = "CGROUP",
		[PERF_RECORD_TEXT_POKE] = "TEXT_POKE",
		[PERF_RECORD_AUX_OUTPUT_HW_ID] = "AUX_OUTPUT_HW_ID",
	};
	static const char *const user[] = {  /* perf's own, from 64 */
		"ATTR", "EVENT_TYPE", "TRACING_DATA", "BUILD_ID",
		"FINISHED_ROUND", "ID_INDEX", "AUXTRACE_INFO", "AUXTRACE",
		"AUXTRACE_ERROR", "THREAD_MAP", "CPU_MAP", "STAT_CONFIG",
		"STAT", "STAT_ROUND", "EVENT_UPDATE", "TIME_CONV", "FEATURE",
		"COMPRESSED", "FINISHED_INIT",
	};
	size_t nk = sizeof kernel / sizeof *kernel;
	size_t nu = sizeof user / sizeof *user;
	if (type < nk && kernel[type])
		return kernel[type];
	if (type >= 64 && type - 64 < nu)
		return user[type - 64];
	snprintf(buf, size, "TYPE_%" PRIu32, type);
	return buf;
}

static void print_time(uint64_t t)
{
	printf("%" PRIu64 ".%09" PRIu64, t / 1000000000, t % 1000000000);
}

static int build_ids(const char *path, char **names, int n)
{
	ehelf_err err = { 0 };
	perf_reader *r = perf_reader_open(path, &err);
	if (!r) {
		fprintf(stderr, "perf_data_dump: %s\n", err.msg);
		return 1;
	}
	/* pipe mode: the build-IDs come as records, read them all */
	perf_event ev;
	int rc;
	while ((rc = perf_reader_next(r, &ev, &err)) > 0)
		;
	if (rc < 0) {
		fprintf(stderr, "perf_data_dump: %s\n", err.msg);
		perf_reader_close(r);
		return 1;
	}
	for (int i = 0; i < n; i++) {
		const uint8_t *id;
		size_t len = perf_reader_build_id(r, 0, names[i], &id);
		if (!len)
			putchar('-');
		for (size_t k = 0; k < len; k++)
			printf("%02x", id[k]);
		printf(" %s\n", names[i]);
	}
	perf_reader_close(r);
	return 0;
}

int main(int argc, char **argv)
{
	bool events = false;
	int i = 1;
	if (argc >= 3 && strcmp(argv[1], "-b") == 0)
		return build_ids(argv[2], argv + 3, argc - 3);
	if (i < argc && strcmp(argv[i], "-e") == 0) {
		events = true;
		i++;
	}
	long partial = 0, switch_at = 0;
	if (i + 1 < argc && !strcmp(argv[i], "-p")) {
		partial = atol(argv[i + 1]);
		i += 2;
	}
	if (i + 1 < argc && !strcmp(argv[i], "-s")) {
		switch_at = atol(argv[i + 1]);
		i += 2;
	}
	if (i != argc - 1) {
		fprintf(stderr, "usage: perf_data_dump [-e] [-p BYTES [-s N]] FILE|-\n"
			"       perf_data_dump -b FILE NAME...\n");
		return 2;
	}

	ehelf_err err = { 0 };
	perf_reader *r = perf_reader_open(argv[i], &err);
	if (!r) {
		fprintf(stderr, "perf_data_dump: %s\n", err.msg);
		return 1;
	}
	if (partial > 0 && perf_reader_partial_stacks(r, (size_t)partial) < 0) {
		fprintf(stderr, "perf_data_dump: out of memory\n");
		return 1;
	}
	static uint64_t counts[65536];
	static uint8_t whole[65536];
	uint64_t total = 0, *per_attr = NULL;
	size_t nper = 0;
	perf_event ev;
	int rc;
	while ((rc = perf_reader_next(r, &ev, &err)) > 0) {
		counts[ev.type & 0xffff]++;
		total++;
		/* -s: the part made 1 KiB after N events, none (the mapping)
		 * after 2N */
		if (switch_at > 0 && total == (uint64_t)switch_at)
			perf_reader_set_partial(r, 1024);
		if (switch_at > 0 && total == 2 * (uint64_t)switch_at)
			perf_reader_set_partial(r, 0);
		switch (ev.kind) {
		case PERF_EV_SAMPLE:
			for (size_t k = 0; k < perf_reader_nattrs(r); k++) {
				if (perf_reader_attr(r, k) != ev.sample.attr)
					continue;
				if (k >= nper) {
					uint64_t *p = realloc(per_attr, (k + 1) *
							      sizeof *p);
					if (!p) {
						perror("perf_data_dump");
						return 1;
					}
					memset(p + nper, 0, (k + 1 - nper) *
					       sizeof *p);
					per_attr = p;
					nper = k + 1;
				}
				per_attr[k]++;
			}
		{
			const uint8_t *stack = ev.sample.stack;
			uint64_t size = ev.sample.stack_size;
			if (ev.sample.stack_full > size) {
				if (perf_reader_read_stack(r, &ev, whole, &err) < 0) {
					fprintf(stderr, "perf_data_dump: %s\n", err.msg);
					return 1;
				}
				if (memcmp(whole, stack, size) != 0) {
					fprintf(stderr, "perf_data_dump: the part of "
						"a cut stack copy differs\n");
					return 1;
				}
				stack = whole;
				size = ev.sample.stack_full;
			}
			uint64_t h = 1469598103934665603ull;
			for (uint64_t k = 0; k < size; k++)
				h = (h ^ stack[k]) * 1099511628211ull;
			printf("S %" PRId32 " ", (int32_t)ev.tid);
			print_time(ev.time);
			printf(" %" PRIx64 " %" PRIu64 " %" PRIu64 " %" PRIu64
			       " %016" PRIx64 "\n", ev.sample.ip, ev.sample.nr,
			       ev.sample.regs_abi, size, h);
			break;
		}
		case PERF_EV_MMAP:
			if (!events)
				break;
			printf("M ");
			print_time(ev.time);
			printf(" %" PRId32 " %" PRId32 " %" PRIx64 " %" PRIx64
			       " %#" PRIx64 " ", (int32_t)ev.pid,
			       (int32_t)ev.tid, ev.mmap.start, ev.mmap.len,
			       ev.mmap.pgoff);
			if (!ev.mmap.build_id_len)
				putchar('-');
			for (size_t k = 0; k < ev.mmap.build_id_len; k++)
				printf("%02x", ev.mmap.build_id[k]);
			putchar(' ');
			if (ev.type == PERF_RECORD_MMAP)
				printf("%c", ev.mmap.exec ? 'x' : 'r');
			else
				printf("%c%c%c%c",
				       ev.mmap.prot & PROT_READ ? 'r' : '-',
				       ev.mmap.prot & PROT_WRITE ? 'w' : '-',
				       ev.mmap.prot & PROT_EXEC ? 'x' : '-',
				       ev.mmap.flags & MAP_SHARED ? 's' : 'p');
			printf(" %s\n", ev.mmap.filename);
			break;
		case PERF_EV_COMM:
			if (!events)
				break;
			printf("C ");
			print_time(ev.time);
			printf(" %" PRId32 " %" PRId32 " %d %s\n",
			       (int32_t)ev.pid, (int32_t)ev.tid, ev.comm.exec,
			       ev.comm.comm);
			break;
		case PERF_EV_FORK:
		case PERF_EV_EXIT:
			if (!events)
				break;
			printf("%c ", ev.kind == PERF_EV_FORK ? 'F' : 'X');
			print_time(ev.time);
			printf(" %" PRId32 " %" PRId32 " %" PRId32 " %" PRId32
			       "\n", (int32_t)ev.pid, (int32_t)ev.tid,
			       (int32_t)ev.task.ppid, (int32_t)ev.task.ptid);
			break;
		case PERF_EV_OTHER:
			break;
		}
	}
	if (rc < 0) {
		fprintf(stderr, "perf_data_dump: %s\n", err.msg);
		perf_reader_close(r);
		return 1;
	}
	char buf[32];
	for (uint32_t t = 0; t < 65536; t++)
		if (counts[t])
			printf("count %s %" PRIu64 "\n",
			       record_name(t, buf, sizeof buf), counts[t]);
	printf("count TOTAL %" PRIu64 "\n", total);
	for (size_t k = 0; k < perf_reader_nattrs(r); k++) {
		const perf_attr_info *a = perf_reader_attr(r, k);
		printf("attr %zu %s %#" PRIx64 " %" PRIu64 "\n", k, a->name,
		       a->sample_type, k < nper ? per_attr[k] : 0);
	}
	free(per_attr);
	perf_reader_close(r);
	return 0;
}
