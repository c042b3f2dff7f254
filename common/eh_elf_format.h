/*
 * eh_elf_format.h - the bytes of an eh_elf outside its code and tables,
 * as eh_elf_write (builder/codegen/eh_elf_writer.c) lays them out: the
 * offsets, and the ELF header, program headers, note header, hash table,
 * symbols, .dynstr, .dynamic and section headers for given offsets, and
 * the fields of ehelf_info the writer fills (where the code and entry
 * points are, the check word).
 * The validator (common/eh_elf_check.c) accepts a file only when
 * these describe it byte for byte; the writer and these must change
 * together (tests/unit/test_eh_elf_check.c holds the two to each other on
 * real eh_elfs, with and without section headers).
 *
 * A file is, in order: the ELF header; EHF_NPHDR program headers; the
 * ehelf note (8-aligned); the hash table, the symbols (8-aligned) and
 * .dynstr; the blob (code then read-only data) at a multiple of its
 * code alignment (8, 16, 32 or 64) -- the end of the R+X segment;
 * .dynamic (8- or 16-aligned, its own page in memory); with section
 * headers, .shstrtab and the EHF_NSHDR headers (8-aligned).  Every gap is
 * zeros.
 */
#ifndef EHELF_COMMON_EH_ELF_FORMAT_H
#define EHELF_COMMON_EH_ELF_FORMAT_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../abi/ehelf_abi.h"

enum {
	EHF_PAGE = 0x1000,
	EHF_NPHDR = 5,
	EHF_NSHDR = 9,
	EHF_NSYMS = 5,           /* the null symbol and the ABI's four */
	EHF_NDYN = 6,
	EHF_NOTE_NAME_PAD = 8,   /* "ehelf\0" padded to 4 */
	EHF_HASH_WORDS = 8,      /* one bucket chaining the four symbols */
	EHF_SHNDX_TEXT = 5,      /* the symbols' section indexes */
	EHF_SHNDX_RODATA = 6,
};

#define EHF_DYNSTR "\0ehelf_step_local\0ehelf_step_remote\0ehelf_info\0ehelf_describe"
enum { EHF_STR_LOCAL = 1, EHF_STR_REMOTE = 18, EHF_STR_INFO = 36,
       EHF_STR_DESCRIBE = 47 };
#define EHF_SHSTR \
	"\0.note.ehelf\0.hash\0.dynsym\0.dynstr\0.text\0.rodata\0.dynamic\0.shstrtab"
enum { EHF_SH_NOTE = 1, EHF_SH_HASH = 13, EHF_SH_DYNSYM = 19,
       EHF_SH_DYNSTR = 27, EHF_SH_TEXT = 35, EHF_SH_RODATA = 41,
       EHF_SH_DYNAMIC = 49, EHF_SH_SHSTRTAB = 58 };

/* Where everything is, in bytes from the file's start (v_dyn: .dynamic's
 * address). */
typedef struct eh_elf_offsets {
	size_t code_align;
	size_t phdr, note, note_size, hash, dynsym, dynstr, blob, end_rx;
	size_t dyn, v_dyn, shstr, shdr, total;
	bool sections;
} eh_elf_offsets;

static inline size_t ehf_align(size_t v, size_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* The offsets of an eh_elf of a BUILD_ID_LEN-byte build-ID, a blob of
 * BLOB_SIZE bytes aligned to CODE_ALIGN, with section headers or not. */
static inline eh_elf_offsets eh_elf_offsets_of(size_t build_id_len,
					       size_t code_align,
					       size_t blob_size, bool sections)
{
	eh_elf_offsets o = { .code_align = code_align, .sections = sections };
	o.phdr = sizeof(Elf64_Ehdr);
	o.note = ehf_align(o.phdr + EHF_NPHDR * sizeof(Elf64_Phdr), 8);
	o.note_size = sizeof(Elf64_Nhdr) + EHF_NOTE_NAME_PAD +
		      sizeof(struct ehelf_note) + ehf_align(build_id_len, 4);
	o.hash = ehf_align(o.note + o.note_size, 8);
	o.dynsym = ehf_align(o.hash + EHF_HASH_WORDS * 4, 8);
	o.dynstr = o.dynsym + EHF_NSYMS * sizeof(Elf64_Sym);
	o.blob = ehf_align(o.dynstr + sizeof EHF_DYNSTR, code_align);
	o.end_rx = o.blob + blob_size;
	o.dyn = ehf_align(o.end_rx, code_align < 16 ? 8 : 16);
	o.v_dyn = ehf_align(o.end_rx, EHF_PAGE) + o.dyn % EHF_PAGE;
	o.shstr = o.dyn + EHF_NDYN * sizeof(Elf64_Dyn);
	o.shdr = ehf_align(o.shstr + sizeof EHF_SHSTR, 8);
	o.total = sections ? o.shdr + EHF_NSHDR * sizeof(Elf64_Shdr) : o.shstr;
	return o;
}

/* The ELF header of O. */
static inline void eh_elf_ehdr(const eh_elf_offsets *o, Elf64_Ehdr *eh)
{
	memset(eh, 0, sizeof *eh);
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_ident[EI_OSABI] = ELFOSABI_NONE;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = o->phdr;
	eh->e_ehsize = sizeof(Elf64_Ehdr);
	eh->e_phentsize = sizeof(Elf64_Phdr);
	eh->e_phnum = EHF_NPHDR;
	if (o->sections) {
		eh->e_shoff = o->shdr;
		eh->e_shentsize = sizeof(Elf64_Shdr);
		eh->e_shnum = EHF_NSHDR;
		eh->e_shstrndx = EHF_NSHDR - 1;
	}
}

/* The program headers of O: R+X PT_LOAD, R+W PT_LOAD (.dynamic alone),
 * PT_DYNAMIC, PT_NOTE, PT_GNU_STACK. */
static inline void eh_elf_phdrs(const eh_elf_offsets *o,
				Elf64_Phdr ph[EHF_NPHDR])
{
	size_t dyn_size = EHF_NDYN * sizeof(Elf64_Dyn);
	ph[0] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X,
			      .p_filesz = o->end_rx, .p_memsz = o->end_rx,
			      .p_align = EHF_PAGE };
	ph[1] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_W,
			      .p_offset = o->dyn, .p_vaddr = o->v_dyn,
			      .p_paddr = o->v_dyn, .p_filesz = dyn_size,
			      .p_memsz = dyn_size, .p_align = EHF_PAGE };
	ph[2] = ph[1];
	ph[2].p_type = PT_DYNAMIC;
	ph[2].p_align = 8;
	ph[3] = (Elf64_Phdr){ .p_type = PT_NOTE, .p_flags = PF_R,
			      .p_offset = o->note, .p_vaddr = o->note,
			      .p_paddr = o->note, .p_filesz = o->note_size,
			      .p_memsz = o->note_size, .p_align = 4 };
	ph[4] = (Elf64_Phdr){ .p_type = PT_GNU_STACK, .p_flags = PF_R | PF_W,
			      .p_align = 16 };
}

/* The note's header and name (EHF_NOTE_NAME_PAD bytes) into OUT. */
static inline void eh_elf_note_head(const eh_elf_offsets *o,
				    uint8_t out[sizeof(Elf64_Nhdr) +
						EHF_NOTE_NAME_PAD])
{
	Elf64_Nhdr nh = { .n_namesz = sizeof EHELF_NOTE_NAME,
			  .n_descsz = (Elf64_Word)(o->note_size -
						   sizeof(Elf64_Nhdr) -
						   EHF_NOTE_NAME_PAD),
			  .n_type = EHELF_NOTE_SOURCE };
	memset(out, 0, sizeof(Elf64_Nhdr) + EHF_NOTE_NAME_PAD);
	memcpy(out, &nh, sizeof nh);
	memcpy(out + sizeof nh, EHELF_NOTE_NAME, sizeof EHELF_NOTE_NAME);
}

/* The hash table: one bucket (symbol 4), chain 4 -> 3 -> 2 -> 1. */
static inline void eh_elf_hash(uint32_t h[EHF_HASH_WORDS])
{
	const uint32_t v[EHF_HASH_WORDS] = { 1, EHF_NSYMS, 4, 0, 0, 1, 2, 3 };
	memcpy(h, v, sizeof v);
}

/* The symbols, their values LOCAL, REMOTE, INFO, DESCRIBE (file offsets)
 * and ehelf_info's size INFO_SIZE. */
static inline void eh_elf_syms(uint64_t local, uint64_t remote, uint64_t info,
			       uint64_t describe, uint64_t info_size,
			       Elf64_Sym s[EHF_NSYMS])
{
	uint8_t func = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
	s[0] = (Elf64_Sym){ 0 };
	s[1] = (Elf64_Sym){ .st_name = EHF_STR_LOCAL, .st_info = func,
			    .st_shndx = EHF_SHNDX_TEXT, .st_value = local };
	s[2] = (Elf64_Sym){ .st_name = EHF_STR_REMOTE, .st_info = func,
			    .st_shndx = EHF_SHNDX_TEXT, .st_value = remote };
	s[3] = (Elf64_Sym){ .st_name = EHF_STR_INFO,
			    .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT),
			    .st_shndx = EHF_SHNDX_RODATA, .st_value = info,
			    .st_size = info_size };
	s[4] = (Elf64_Sym){ .st_name = EHF_STR_DESCRIBE, .st_info = func,
			    .st_shndx = EHF_SHNDX_TEXT, .st_value = describe };
}

/* ehelf_info's check word (ehelf_abi.h): the XOR of its 32-bit
 * little-endian words before `check`, inverted.  Not a library's checksum:
 * the validator links nothing (it is fuzzed alone and runs in every
 * loader), and the word only has to catch damage, a forger being the
 * signature's business; any one changed word changes it. */
static inline uint32_t eh_elf_info_check(const struct ehelf_info *info)
{
	const uint8_t *p = (const uint8_t *)info;
	uint32_t x = 0;
	for (size_t i = 0; i < offsetof(struct ehelf_info, check); i += 4)
		x ^= (uint32_t)p[i] | (uint32_t)p[i + 1] << 8 |
		     (uint32_t)p[i + 2] << 16 | (uint32_t)p[i + 3] << 24;
	return ~x;
}

_Static_assert(offsetof(struct ehelf_info, check) % 4 == 0 &&
	       sizeof(struct ehelf_info) == offsetof(struct ehelf_info, check) + 4,
	       "ehelf_info: words before check, no padding after it");

/* The fields of ehelf_info *INFO the writer fills: the code's size and the
 * entry points' offsets from the code's start, then the check word. */
static inline void eh_elf_info_seal(struct ehelf_info *info, size_t code_size,
				    size_t off_remote, size_t off_describe)
{
	info->code_size = (uint32_t)code_size;
	info->off_remote = (uint32_t)off_remote;
	info->off_describe = (uint32_t)off_describe;
	info->check = eh_elf_info_check(info);
}

/* .dynamic of O. */
static inline void eh_elf_dyns(const eh_elf_offsets *o, Elf64_Dyn d[EHF_NDYN])
{
	d[0] = (Elf64_Dyn){ DT_HASH, { o->hash } };
	d[1] = (Elf64_Dyn){ DT_STRTAB, { o->dynstr } };
	d[2] = (Elf64_Dyn){ DT_SYMTAB, { o->dynsym } };
	d[3] = (Elf64_Dyn){ DT_STRSZ, { sizeof EHF_DYNSTR } };
	d[4] = (Elf64_Dyn){ DT_SYMENT, { sizeof(Elf64_Sym) } };
	d[5] = (Elf64_Dyn){ DT_NULL, { 0 } };
}

/* The section headers of O, its code being CODE_SIZE bytes of the blob. */
static inline void eh_elf_shdrs(const eh_elf_offsets *o, size_t code_size,
				Elf64_Shdr sh[EHF_NSHDR])
{
	size_t rodata = o->blob + code_size;
	sh[0] = (Elf64_Shdr){ 0 };
	sh[1] = (Elf64_Shdr){ EHF_SH_NOTE, SHT_NOTE, SHF_ALLOC, o->note, o->note,
			      o->note_size, 0, 0, 4, 0 };
	sh[2] = (Elf64_Shdr){ EHF_SH_HASH, SHT_HASH, SHF_ALLOC, o->hash, o->hash,
			      EHF_HASH_WORDS * 4, 3, 0, 8, 4 };
	sh[3] = (Elf64_Shdr){ EHF_SH_DYNSYM, SHT_DYNSYM, SHF_ALLOC, o->dynsym,
			      o->dynsym, EHF_NSYMS * sizeof(Elf64_Sym), 4, 1, 8,
			      sizeof(Elf64_Sym) };
	sh[4] = (Elf64_Shdr){ EHF_SH_DYNSTR, SHT_STRTAB, SHF_ALLOC, o->dynstr,
			      o->dynstr, sizeof EHF_DYNSTR, 0, 0, 1, 0 };
	sh[5] = (Elf64_Shdr){ EHF_SH_TEXT, SHT_PROGBITS,
			      SHF_ALLOC | SHF_EXECINSTR, o->blob, o->blob,
			      code_size, 0, 0, o->code_align, 0 };
	sh[6] = (Elf64_Shdr){ EHF_SH_RODATA, SHT_PROGBITS, SHF_ALLOC, rodata,
			      rodata, o->end_rx - rodata, 0, 0, 8, 0 };
	sh[7] = (Elf64_Shdr){ EHF_SH_DYNAMIC, SHT_DYNAMIC, SHF_ALLOC | SHF_WRITE,
			      o->v_dyn, o->dyn, EHF_NDYN * sizeof(Elf64_Dyn), 4,
			      0, 8, sizeof(Elf64_Dyn) };
	sh[8] = (Elf64_Shdr){ EHF_SH_SHSTRTAB, SHT_STRTAB, 0, 0, o->shstr,
			      sizeof EHF_SHSTR, 0, 0, 1, 0 };
}

#endif
