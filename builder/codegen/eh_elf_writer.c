/* eh_elf_writer.c - see eh_elf_writer.h. */
#include "eh_elf_writer.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "../../abi/ehelf_abi.h"
#include "../../common/err.h"

enum { PAGE = 0x1000, NPHDR = 5, NSHDR = 9 };

static const char dynstr[] =
	"\0ehelf_step_local\0ehelf_step_remote\0ehelf_info\0ehelf_describe";
enum { STR_LOCAL = 1, STR_REMOTE = 18, STR_INFO = 36, STR_DESCRIBE = 47 };
static const char shstr[] =
	"\0.note.ehelf\0.hash\0.dynsym\0.dynstr\0.text\0.rodata\0.dynamic\0.shstrtab";
enum { SH_NOTE = 1, SH_HASH = 13, SH_DYNSYM = 19, SH_DYNSTR = 27,
       SH_TEXT = 35, SH_RODATA = 41, SH_DYNAMIC = 49, SH_SHSTRTAB = 58 };

static size_t align(size_t v, size_t a)
{
	return (v + a - 1) & ~(a - 1);
}

int eh_elf_write(const eh_elf_parts *p, uint8_t **out, size_t *len)
{
	size_t code_align = p->code_align ? p->code_align : 64;
	if (p->build_id_len > 64 || code_align % 8 || code_align > 64)
		return ERR_ARG;
	_Static_assert(sizeof dynstr == 62, "dynstr offsets");
	_Static_assert(sizeof EHELF_NOTE_NAME > 4 && sizeof EHELF_NOTE_NAME <= 8,
		       "the note's name (ehelf_abi.h) takes 8 bytes padded");
	/* file layout (offsets == addresses inside the R+X segment) */
	size_t o_phdr = sizeof(Elf64_Ehdr);
	size_t o_note = align(o_phdr + NPHDR * sizeof(Elf64_Phdr), 8);
	size_t note_desc = sizeof(struct ehelf_note) + align(p->build_id_len, 4);
	size_t note_size = sizeof(Elf64_Nhdr) + 8 /* "ehelf\0" padded */ + note_desc;
	size_t o_hash = align(o_note + note_size, 8);
	size_t hash_size = (2 + 1 + 5) * 4;
	size_t o_dynsym = align(o_hash + hash_size, 8);
	size_t dynsym_size = 5 * sizeof(Elf64_Sym);
	size_t o_dynstr = o_dynsym + dynsym_size;
	size_t o_blob = align(o_dynstr + sizeof dynstr, code_align);
	size_t end_rx = o_blob + p->blob_size;
	size_t o_dyn = align(end_rx, code_align < 16 ? 8 : 16);
	size_t dyn_size = 6 * sizeof(Elf64_Dyn);
	size_t v_dyn = align(end_rx, PAGE) + (o_dyn % PAGE);
	/* section headers only when asked for: only inspection tools read
	 * them (650 bytes, a quarter of a small eh_elf) */
	size_t o_shstr = o_dyn + dyn_size;
	size_t o_shdr = align(o_shstr + sizeof shstr, 8);
	size_t total = p->section_headers ? o_shdr + NSHDR * sizeof(Elf64_Shdr)
		       : o_dyn + dyn_size;

	uint8_t *f = calloc(1, total);
	if (!f)
		return ERR_NOMEM;

	Elf64_Ehdr *eh = (Elf64_Ehdr *)f;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_ident[EI_OSABI] = ELFOSABI_NONE;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = o_phdr;
	eh->e_ehsize = sizeof(Elf64_Ehdr);
	eh->e_phentsize = sizeof(Elf64_Phdr);
	eh->e_phnum = NPHDR;
	if (p->section_headers) {
		eh->e_shoff = o_shdr;
		eh->e_shentsize = sizeof(Elf64_Shdr);
		eh->e_shnum = NSHDR;
		eh->e_shstrndx = NSHDR - 1;
	}

	Elf64_Phdr *ph = (Elf64_Phdr *)(f + o_phdr);
	ph[0] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X,
			      .p_offset = 0, .p_vaddr = 0, .p_paddr = 0,
			      .p_filesz = end_rx, .p_memsz = end_rx,
			      .p_align = PAGE };
	ph[1] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_W,
			      .p_offset = o_dyn, .p_vaddr = v_dyn,
			      .p_paddr = v_dyn, .p_filesz = dyn_size,
			      .p_memsz = dyn_size, .p_align = PAGE };
	ph[2] = (Elf64_Phdr){ .p_type = PT_DYNAMIC, .p_flags = PF_R | PF_W,
			      .p_offset = o_dyn, .p_vaddr = v_dyn,
			      .p_paddr = v_dyn, .p_filesz = dyn_size,
			      .p_memsz = dyn_size, .p_align = 8 };
	ph[3] = (Elf64_Phdr){ .p_type = PT_NOTE, .p_flags = PF_R,
			      .p_offset = o_note, .p_vaddr = o_note,
			      .p_paddr = o_note, .p_filesz = note_size,
			      .p_memsz = note_size, .p_align = 4 };
	ph[4] = (Elf64_Phdr){ .p_type = PT_GNU_STACK, .p_flags = PF_R | PF_W,
			      .p_align = 16 };

	/* the note */
	Elf64_Nhdr *nh = (Elf64_Nhdr *)(f + o_note);
	nh->n_namesz = sizeof EHELF_NOTE_NAME;
	nh->n_descsz = (Elf64_Word)note_desc;
	nh->n_type = EHELF_NOTE_SOURCE;
	memcpy(f + o_note + sizeof *nh, EHELF_NOTE_NAME, sizeof EHELF_NOTE_NAME);
	struct ehelf_note note = { .magic = EHELF_INFO_MAGIC,
				   .abi_version = EHELF_ABI_VERSION,
				   .build_id_len = (uint32_t)p->build_id_len };
	uint8_t *desc = f + o_note + sizeof *nh + 8;
	memcpy(desc, &note, sizeof note);
	if (p->build_id_len)
		memcpy(desc + sizeof note, p->build_id, p->build_id_len);

	/* DT_HASH with one bucket chaining the four symbols */
	uint32_t hash[] = { 1, 5, 4, 0, 0, 1, 2, 3 };
	memcpy(f + o_hash, hash, sizeof hash);

	Elf64_Sym *sym = (Elf64_Sym *)(f + o_dynsym);
	uint8_t func = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
	sym[1] = (Elf64_Sym){ .st_name = STR_LOCAL, .st_info = func,
			      .st_shndx = 5, .st_value = o_blob + p->off_local };
	sym[2] = (Elf64_Sym){ .st_name = STR_REMOTE, .st_info = func,
			      .st_shndx = 5, .st_value = o_blob + p->off_remote };
	sym[3] = (Elf64_Sym){ .st_name = STR_INFO,
			      .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT),
			      .st_shndx = 6, .st_value = o_blob + p->off_info,
			      .st_size = p->info_size };
	sym[4] = (Elf64_Sym){ .st_name = STR_DESCRIBE, .st_info = func,
			      .st_shndx = 5, .st_value = o_blob + p->off_describe };
	memcpy(f + o_dynstr, dynstr, sizeof dynstr);
	memcpy(f + o_blob, p->blob, p->blob_size);

	Elf64_Dyn *dyn = (Elf64_Dyn *)(f + o_dyn);
	dyn[0] = (Elf64_Dyn){ DT_HASH, { o_hash } };
	dyn[1] = (Elf64_Dyn){ DT_STRTAB, { o_dynstr } };
	dyn[2] = (Elf64_Dyn){ DT_SYMTAB, { o_dynsym } };
	dyn[3] = (Elf64_Dyn){ DT_STRSZ, { sizeof dynstr } };
	dyn[4] = (Elf64_Dyn){ DT_SYMENT, { sizeof(Elf64_Sym) } };
	dyn[5] = (Elf64_Dyn){ DT_NULL, { 0 } };

	if (!p->section_headers) {
		*out = f;
		*len = total;
		return 0;
	}
	memcpy(f + o_shstr, shstr, sizeof shstr);
	Elf64_Shdr *sh = (Elf64_Shdr *)(f + o_shdr);
	sh[1] = (Elf64_Shdr){ SH_NOTE, SHT_NOTE, SHF_ALLOC, o_note, o_note,
			      note_size, 0, 0, 4, 0 };
	sh[2] = (Elf64_Shdr){ SH_HASH, SHT_HASH, SHF_ALLOC, o_hash, o_hash,
			      hash_size, 3, 0, 8, 4 };
	sh[3] = (Elf64_Shdr){ SH_DYNSYM, SHT_DYNSYM, SHF_ALLOC, o_dynsym,
			      o_dynsym, dynsym_size, 4, 1, 8, sizeof(Elf64_Sym) };
	sh[4] = (Elf64_Shdr){ SH_DYNSTR, SHT_STRTAB, SHF_ALLOC, o_dynstr,
			      o_dynstr, sizeof dynstr, 0, 0, 1, 0 };
	sh[5] = (Elf64_Shdr){ SH_TEXT, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR,
			      o_blob, o_blob, p->code_size, 0, 0, code_align, 0 };
	sh[6] = (Elf64_Shdr){ SH_RODATA, SHT_PROGBITS, SHF_ALLOC,
			      o_blob + p->code_size, o_blob + p->code_size,
			      p->blob_size - p->code_size, 0, 0, 8, 0 };
	sh[7] = (Elf64_Shdr){ SH_DYNAMIC, SHT_DYNAMIC, SHF_ALLOC | SHF_WRITE,
			      v_dyn, o_dyn, dyn_size, 4, 0, 8, sizeof(Elf64_Dyn) };
	sh[8] = (Elf64_Shdr){ SH_SHSTRTAB, SHT_STRTAB, 0, 0, o_shstr,
			      sizeof shstr, 0, 0, 1, 0 };
	*out = f;
	*len = total;
	return 0;
}
