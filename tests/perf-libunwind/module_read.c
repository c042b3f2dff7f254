/*
 * module_read.c - remote_module_read (client-lib/libunwind/remote_module.h)
 * on real ELF files, laid out in a fake address space as the loader maps
 * them (each PT_LOAD's file pages at bias + its address), read through a
 * libunwind access_mem accessor as perf's and libunwind-ptrace's are:
 *  - the range of the executable segment (perf's) and of the whole image
 *    (libunwind-ptrace's) give the bias and the build-ID readelf gives;
 *  - refused: a range whose pages hold no ELF header below it (memory
 *    unreadable below the segment), a header whose PT_LOADs do not
 *    match the range's offset, memory that is not an ELF at all.
 * Usage: module_read FILE BUILD-ID-HEX   (exit 0 when every check passes)
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../client-lib/libunwind/remote_module.h"

/* the fake address space: [lo, lo + size) readable, holding DATA */
typedef struct fake {
	uint64_t lo, size;
	uint8_t *data;
} fake;

static int access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *v,
		      int write, void *arg)
{
	(void)as;
	const fake *f = arg;
	if (write || addr < f->lo || addr + 8 > f->lo + f->size)
		return -UNW_EINVAL;
	memcpy(v, f->data + (addr - f->lo), 8);
	return 0;
}

static int fails;

static void check(const char *what, int ok)
{
	printf("  %s: %s\n", ok ? "ok" : "FAIL", what);
	fails += !ok;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: module_read FILE BUILD-ID-HEX\n");
		return 2;
	}
	int fd = open(argv[1], O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		perror(argv[1]);
		return 2;
	}
	const uint8_t *file = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (file == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	const Elf64_Ehdr *eh = (const void *)file;
	const Elf64_Phdr *ph = (const void *)(file + eh->e_phoff);
	/* lay the image out at BIAS (none for an ET_EXEC): [LOW, TOP) */
	const uint64_t bias = eh->e_type == ET_EXEC ? 0 : 0x7f1234560000ull;
	uint64_t low = UINT64_MAX, top = 0, xlo = 0, xhi = 0;
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		if (ph[i].p_vaddr + ph[i].p_memsz > top)
			top = ph[i].p_vaddr + ph[i].p_memsz;
		if ((ph[i].p_vaddr & ~4095ull) < low)
			low = ph[i].p_vaddr & ~4095ull;
	}
	fake f = { bias + low, ((top + 4095) & ~4095ull) - low, NULL };
	f.data = calloc(1, f.size);
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		uint64_t v = ph[i].p_vaddr & ~4095ull, o = ph[i].p_offset & ~4095ull;
		uint64_t n = ph[i].p_filesz + (ph[i].p_offset - o);
		if (o + n > (uint64_t)st.st_size)
			n = (uint64_t)st.st_size - o;
		memcpy(f.data + (v - low), file + o, n);
		if (ph[i].p_flags & PF_X) {
			xlo = bias + v;
			xhi = bias + ph[i].p_vaddr + ph[i].p_memsz;
		}
	}
	unw_accessors_t acc = { .access_mem = access_mem };
	remote_module m;
	char hex[129] = "";

	int rc = remote_module_read(NULL, &acc, &f, xlo, xhi, &m);
	for (size_t i = 0; i < m.build_id_len; i++)
		sprintf(hex + 2 * i, "%02x", m.build_id[i]);
	check("the executable segment's range (perf's): found", rc == 0);
	check("its bias", m.bias == bias);
	check("its build-ID is readelf's", !strcmp(hex, argv[2]));

	rc = remote_module_read(NULL, &acc, &f, bias + low, bias + top, &m);
	check("the whole image's range (libunwind-ptrace's): the same",
	      rc == 0 && m.bias == bias && m.build_id_len * 2 == strlen(argv[2]));

	/* refused: the pages below the executable segment unreadable */
	fake cut = { xlo, f.size - (xlo - f.lo), f.data + (xlo - f.lo) };
	check("refused: no readable ELF header below the segment",
	      remote_module_read(NULL, &acc, &cut, xlo, xhi, &m) == -1 &&
		      m.build_id_len == 0);

	/* refused: the header's PT_LOADs moved, so that none is at the
	 * segment's offset */
	Elf64_Phdr *wph = (Elf64_Phdr *)(f.data + eh->e_phoff);
	for (int i = 0; i < eh->e_phnum; i++)
		if (wph[i].p_type == PT_LOAD)
			wph[i].p_offset += 0x40000000; /* beyond any header scan */
	check("refused: a header whose PT_LOADs do not match the range",
	      remote_module_read(NULL, &acc, &f, xlo, xhi, &m) == -1);

	/* refused: no ELF at all */
	memset(f.data, 0x5a, f.size);
	check("refused: memory that is not an ELF",
	      remote_module_read(NULL, &acc, &f, xlo, xhi, &m) == -1);
	free(f.data);
	return fails ? 1 : 0;
}
