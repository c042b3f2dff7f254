/* remote_module.c - see remote_module.h. */
#define _GNU_SOURCE
#include "remote_module.h"

#include <elf.h>
#include <stdbool.h>
#include <string.h>

/* how far below the start of the range its ELF header is looked for:
 * the file offset of the text segment (a few MiB for the largest
 * libraries of a Debian system) */
enum { PAGE = 4096, MAX_HEADER_PAGES = 65536 };

typedef struct mem {
	unw_addr_space_t as;
	const unw_accessors_t *acc;
	void *arg;
} mem;

/* LEN bytes at ADDR into OUT, a word at a time; 0 or -1. */
static int read_bytes(const mem *m, uint64_t addr, void *out, size_t len)
{
	uint8_t *o = out;
	for (size_t done = 0; done < len; done += 8) {
		unw_word_t w;
		if (m->acc->access_mem(m->as, addr + done, &w, 0, m->arg) < 0)
			return -1;
		memcpy(o + done, &w, len - done < 8 ? len - done : 8);
	}
	return 0;
}

/* The GNU build-ID in the notes of [ADDR, ADDR + SIZE) into OUT; its
 * length, or 0. */
static size_t note_build_id(const mem *m, uint64_t addr, uint64_t size,
			    uint8_t out[64])
{
	uint64_t end = addr + size;
	while (addr + sizeof(Elf64_Nhdr) <= end) {
		Elf64_Nhdr n;
		char name[4];
		if (read_bytes(m, addr, &n, sizeof n) < 0)
			return 0;
		uint64_t nm = addr + sizeof n;
		uint64_t desc = nm + ((n.n_namesz + 3) & ~3u);
		uint64_t next = desc + ((n.n_descsz + 3) & ~3u);
		if (next > end || next <= addr)
			return 0;
		if (n.n_type == NT_GNU_BUILD_ID && n.n_namesz == 4 &&
		    n.n_descsz > 0 && n.n_descsz <= 64 &&
		    read_bytes(m, nm, name, 4) == 0 && !memcmp(name, "GNU", 4) &&
		    read_bytes(m, desc, out, n.n_descsz) == 0)
			return n.n_descsz;
		addr = next;
	}
	return 0;
}

/* Whether BASE holds the ELF header of the module whose table's range
 * starts at START, K pages above it: an x86_64 ELF with a PT_LOAD at file
 * offset K pages (the executable one for perf, which gives the range of
 * its mapping; the first for libunwind-ptrace, which gives the image's);
 * fills OUT's bias and build-ID. */
static int header_at(const mem *m, uint64_t base, uint64_t start,
		     remote_module *out)
{
	Elf64_Ehdr eh;
	if (read_bytes(m, base, &eh, sizeof eh) < 0 ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 ||
	    eh.e_phnum > 128)
		return -1;
	bool found = false;
	Elf64_Phdr notes[8];
	int nnotes = 0;
	for (int i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		if (read_bytes(m, base + eh.e_phoff + (uint64_t)i * sizeof ph, &ph,
			       sizeof ph) < 0)
			return -1;
		if (ph.p_type == PT_LOAD && !found &&
		    (ph.p_offset & ~(uint64_t)(PAGE - 1)) == start - base) {
			out->bias = start - (ph.p_vaddr & ~(uint64_t)(PAGE - 1));
			found = true;
		}
		if (ph.p_type == PT_NOTE && nnotes < 8)
			notes[nnotes++] = ph;
	}
	if (!found)
		return -1;
	out->build_id_len = 0;
	for (int i = 0; i < nnotes && !out->build_id_len; i++)
		out->build_id_len = note_build_id(m, out->bias + notes[i].p_vaddr,
						  notes[i].p_filesz, out->build_id);
	return 0;
}

int remote_module_read(unw_addr_space_t as, const unw_accessors_t *acc,
		       void *arg, uint64_t start, uint64_t end,
		       remote_module *out)
{
	memset(out, 0, sizeof *out);
	out->start = start;
	out->end = end;
	mem m = { as, acc, arg };
	/* the header is at the mapping's start minus its file offset: page
	 * by page down, until memory is no longer readable */
	for (uint64_t k = 0; k < MAX_HEADER_PAGES && k * PAGE <= start; k++) {
		uint64_t base = start - k * PAGE;
		unw_word_t w;
		if (acc->access_mem(as, base, &w, 0, arg) < 0)
			return -1;
		if ((uint32_t)w == 0x464c457fu /* "\177ELF" */ &&
		    header_at(&m, base, start, out) == 0)
			return 0;
	}
	return -1;
}
