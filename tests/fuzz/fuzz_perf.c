/*
 * fuzz_perf.c - libFuzzer target for what ehelf-perf reads from outside:
 * perf.data files and streams, symbol names, its saved symbol tables and
 * JIT perf maps.  Each must end in a result or a clean error, never a
 * crash, a leak or an out-of-bounds read (run under ASan and UBSan).
 *
 * Input: byte 0 picks what the rest is (its value modulo 5):
 *   0  a perf.data file: a regular file (a memfd), read to the end;
 *   1  the same as a stream (a pipe: pipe mode), when it fits the pipe;
 *   2  a symbol name (up to its first NUL), demangled as perf prints it;
 *   3  a saved symbol table (symtab_save's format) for the key
 *      FUZZ_KEY, mapped back, every symbol listed and looked up;
 *   4  a JIT's perf map ("START SIZE NAME" lines), loaded and looked up.
 * Every event's fields are touched (the sample's register and stack
 * bytes summed), and the BUILD_ID table is asked about each MMAP's file,
 * as ehelf-perf asks.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../tools/ehelf-perf/perfdata/perf_data.h"
#include "../../tools/ehelf-perf/perfdata/symbols.h"

static const uint64_t FUZZ_KEY[SYMTAB_KEY_WORDS] = { 1, 2, 3, 4 };

static volatile uint64_t sink; /* what was read, kept */

/* A memfd holding DATA; its path in PATH.  -1 on failure. */
static int memfd_with(const uint8_t *data, size_t size, char *path, size_t cap)
{
	int fd = memfd_create("fuzz", 0);
	if (fd < 0)
		return -1;
	size_t done = 0;
	while (done < size) {
		ssize_t k = write(fd, data + done, size - done);
		if (k <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)k;
	}
	snprintf(path, cap, "/proc/self/fd/%d", fd);
	return fd;
}

static void touch_event(perf_reader *r, const perf_event *ev)
{
	uint64_t sum = ev->kind + ev->pid + ev->tid + ev->time;
	switch (ev->kind) {
	case PERF_EV_SAMPLE:
		sum += ev->sample.ip + ev->sample.nr + ev->sample.regs_mask;
		for (uint64_t i = 0; i < ev->sample.nr; i++)
			sum += ev->sample.callchain[i];
		for (uint64_t m = ev->sample.regs_mask, i = 0; m; m &= m - 1, i++)
			sum += ev->sample.regs[i];
		for (uint64_t i = 0; i < ev->sample.stack_size; i += 64)
			sum += ev->sample.stack[i];
		break;
	case PERF_EV_MMAP: {
		sum += ev->mmap.start + ev->mmap.len + ev->mmap.pgoff;
		sum += strlen(ev->mmap.filename);
		const uint8_t *id;
		size_t n = perf_reader_build_id(r, ev->pid, ev->mmap.filename, &id);
		for (size_t i = 0; i < n; i++)
			sum += id[i];
		break;
	}
	case PERF_EV_COMM:
		sum += strlen(ev->comm.comm);
		break;
	default:
		break;
	}
	sink += sum;
}

static void read_perf_data(const char *path)
{
	ehelf_err err = { 0 };
	perf_reader *r = perf_reader_open(path, &err);
	if (!r)
		return;
	for (size_t i = 0; i < perf_reader_nattrs(r); i++)
		sink += perf_reader_attr(r, i)->type;
	perf_event ev;
	while (perf_reader_next(r, &ev, &err) > 0)
		touch_event(r, &ev);
	uint64_t done, total;
	perf_reader_progress(r, &done, &total);
	sink += done + total;
	perf_reader_close(r);
}

static void as_file(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = memfd_with(data, size, path, sizeof path);
	if (fd < 0)
		return;
	read_perf_data(path);
	close(fd);
}

static void as_stream(const uint8_t *data, size_t size)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return;
	/* all of it fits the pipe (64 KiB by default): no writer thread */
	if (size > 60000 || write(p[1], data, size) != (ssize_t)size) {
		close(p[0]);
		close(p[1]);
		return;
	}
	close(p[1]);
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", p[0]);
	read_perf_data(path);
	close(p[0]);
}

static void demangle(const uint8_t *data, size_t size)
{
	char *raw = malloc(size + 1);
	if (!raw)
		return;
	memcpy(raw, data, size);
	raw[size] = 0;
	char *d = symtab_demangle(raw);
	if (d)
		sink += strlen(d);
	free(d);
	free(raw);
}

static void list_table(const symtab *s)
{
	size_t n = symtab_size(s);
	for (size_t i = 0; i < n && i < 4096; i++) {
		uint64_t start, size, off;
		const char *name = symtab_symbol(s, i, &start, &size);
		if (!name) /* not in the table's tree (a duplicate dropped) */
			continue;
		sink += strlen(name) + start + size;
		if (symtab_find(s, start, &off))
			sink += off;
		if (size && symtab_find(s, start + size - 1, &off))
			sink += off;
	}
	uint64_t off;
	sink += symtab_find(s, 0, &off) != NULL;
	sink += symtab_find(s, UINT64_MAX, &off) != NULL;
}

static symtab *load_saved(const char *path, ehelf_err *err)
{
	return symtab_load_saved(path, FUZZ_KEY, err);
}

/* DATA as a file loaded by LOAD, listed and looked up. */
static void table(const uint8_t *data, size_t size,
		  symtab *(*load)(const char *, ehelf_err *))
{
	char path[64];
	int fd = memfd_with(data, size, path, sizeof path);
	if (fd < 0)
		return;
	ehelf_err err = { 0 };
	symtab *s = load(path, &err);
	if (s) {
		list_table(s);
		symtab_free(s);
	}
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	switch (data[0] % 5) {
	case 0: as_file(data + 1, size - 1); break;
	case 1: as_stream(data + 1, size - 1); break;
	case 2: demangle(data + 1, size - 1); break;
	case 3: table(data + 1, size - 1, load_saved); break;
	case 4: table(data + 1, size - 1, symtab_load_perf_map); break;
	}
	return 0;
}
