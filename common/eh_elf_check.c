/*
 * eh_elf_check.c - see eh_elf_check.h.
 *
 * Every read is a memcpy from an offset first checked with within() (no
 * pointer into IMG is formed from a file's value before that), and every
 * sum of two file values is checked for overflow by within() itself.  The
 * order of the checks is the order of the reasons a user sees: the ELF
 * header, then the ehelf note (so that an eh_elf of another ABI version is
 * named as such before its structure is judged), then the program headers,
 * the dynamic section, the hash table, the symbols and ehelf_info; then
 * the whole is held to the writer's layout (common/eh_elf_format.h) byte
 * for byte outside the blob, the file's length to its end, and the entry
 * points to where ehelf_info records them.
 */
#include "eh_elf_check.h"

#include <elf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "eh_elf_format.h"
#include "../abi/ehelf_abi.h"

#ifndef DT_RELRSZ
#define DT_RELRSZ 35
#define DT_RELR 36
#define DT_RELRENT 37
#endif

enum { MAX_PHDRS = 32 };   /* more program headers are refused unread */

typedef struct ctx {
	const uint8_t *img;
	size_t len;
	char *why;
	size_t whylen;
} ctx;

static int refuse(ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int refuse(ctx *c, const char *fmt, ...)
{
	if (c->whylen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(c->why, c->whylen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* [OFF, OFF + SIZE) lies in [0, LIM): no overflow whatever the values. */
static bool within(uint64_t off, uint64_t size, uint64_t lim)
{
	return off <= lim && size <= lim - off;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* ---- the ELF header ------------------------------------------------------ */

static int check_ehdr(ctx *c, Elf64_Ehdr *eh)
{
	if (c->len < sizeof *eh)
		return refuse(c, "truncated: %zu bytes, shorter than an ELF header",
			      c->len);
	memcpy(eh, c->img, sizeof *eh);
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
		return refuse(c, "not an ELF file");
	static const uint8_t pad[EI_NIDENT - EI_PAD];
	if (eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh->e_ident[EI_VERSION] != EV_CURRENT ||
	    eh->e_ident[EI_OSABI] != ELFOSABI_NONE ||
	    eh->e_ident[EI_ABIVERSION] != 0 ||
	    memcmp(eh->e_ident + EI_PAD, pad, sizeof pad) != 0)
		return refuse(c, "ELF identification: not a 64-bit little-endian "
			      "System V ELF as the eh_elf writer emits");
	if (eh->e_type != ET_DYN)
		return refuse(c, "not a shared object (e_type %u)", eh->e_type);
	if (eh->e_machine != EM_X86_64)
		return refuse(c, "not x86_64 (e_machine %u)", eh->e_machine);
	if (eh->e_version != EV_CURRENT || eh->e_flags != 0 || eh->e_entry != 0 ||
	    eh->e_ehsize != sizeof(Elf64_Ehdr))
		return refuse(c, "ELF header: e_version, e_flags, e_entry or "
			      "e_ehsize is not what the eh_elf writer emits");
	if (eh->e_phoff != sizeof(Elf64_Ehdr) ||
	    eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phnum == 0)
		return refuse(c, "ELF header: the program headers are not right "
			      "after it as the eh_elf writer puts them");
	if (eh->e_phnum > MAX_PHDRS)
		return refuse(c, "%u program headers: an eh_elf has 5", eh->e_phnum);
	if (!within(eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr), c->len))
		return refuse(c, "truncated: the program headers end past the "
			      "file's %zu bytes", c->len);
	/* section headers: not needed, only bounds-checked */
	if (eh->e_shoff == 0) {
		if (eh->e_shnum != 0)
			return refuse(c, "ELF header: %u section headers but no "
				      "table", eh->e_shnum);
		/* as the writer leaves them: no table, no entry size, no
		 * name table */
		if (eh->e_shentsize != 0 || eh->e_shstrndx != SHN_UNDEF)
			return refuse(c, "ELF header: no section headers, but a "
				      "section header size (%u) or name table "
				      "index (%u)", eh->e_shentsize,
				      eh->e_shstrndx);
		return 0;
	}
	uint64_t nsh = eh->e_shnum ? eh->e_shnum : 1; /* 0: extended count */
	if (eh->e_shentsize != sizeof(Elf64_Shdr))
		return refuse(c, "ELF header: section header size %u, not %zu",
			      eh->e_shentsize, sizeof(Elf64_Shdr));
	if (!within(eh->e_shoff, nsh * sizeof(Elf64_Shdr), c->len))
		return refuse(c, "truncated: the section headers end past the "
			      "file's %zu bytes", c->len);
	if (eh->e_shstrndx != SHN_UNDEF && eh->e_shstrndx != SHN_XINDEX &&
	    eh->e_shstrndx >= nsh)
		return refuse(c, "ELF header: section name table index %u out of "
			      "range", eh->e_shstrndx);
	return 0;
}

/* ---- the ehelf note --------------------------------------------------------- */

typedef struct note_scan {
	unsigned ehelf, others;  /* notes seen */
	uint64_t desc, descsz;   /* the (last) ehelf note's descriptor */
} note_scan;

/* Scan the notes of the segment [OFF, OFF + SIZE) (in the file). */
static int scan_notes(ctx *c, uint64_t off, uint64_t size, note_scan *s)
{
	if (!within(off, size, c->len))
		return refuse(c, "truncated: PT_NOTE ends past the file's %zu bytes",
			      c->len);
	uint64_t p = off, end = off + size;
	while (p < end) {
		Elf64_Nhdr nh;
		if (!within(p, sizeof nh, end))
			return refuse(c, "PT_NOTE: a truncated note at offset %#llx",
				      (unsigned long long)p);
		memcpy(&nh, c->img + p, sizeof nh);
		uint64_t name = p + sizeof nh;
		uint64_t namesz = align_up(nh.n_namesz, 4);
		uint64_t desc = name + namesz;
		uint64_t descsz = align_up(nh.n_descsz, 4);
		if (!within(name, namesz, end) || !within(desc, descsz, end))
			return refuse(c, "PT_NOTE: a truncated note at offset %#llx",
				      (unsigned long long)p);
		if (nh.n_type == EHELF_NOTE_SOURCE &&
		    nh.n_namesz == sizeof EHELF_NOTE_NAME &&
		    memcmp(c->img + name, EHELF_NOTE_NAME, sizeof EHELF_NOTE_NAME) == 0) {
			s->ehelf++;
			s->desc = desc;
			s->descsz = nh.n_descsz;
		} else {
			s->others++;
		}
		p = desc + descsz;
	}
	return 0;
}

/* Find the ehelf note in the PT_NOTE segments; check it, and that its ABI
 * version is the one this library reads. */
static int check_note(ctx *c, const Elf64_Phdr *ph, unsigned nph,
		      struct ehelf_note *note, note_scan *s)
{
	for (unsigned i = 0; i < nph; i++)
		if (ph[i].p_type == PT_NOTE &&
		    scan_notes(c, ph[i].p_offset, ph[i].p_filesz, s) < 0)
			return -1;
	if (s->ehelf == 0)
		return refuse(c, "no ehelf note: not an eh_elf");
	if (s->ehelf > 1)
		return refuse(c, "%u ehelf notes: an eh_elf has one", s->ehelf);
	if (s->descsz < sizeof *note)
		return refuse(c, "ehelf note: descriptor of %llu bytes, shorter "
			      "than struct ehelf_note",
			      (unsigned long long)s->descsz);
	memcpy(note, c->img + s->desc, sizeof *note);
	if (note->magic != EHELF_INFO_MAGIC)
		return refuse(c, "ehelf note: bad magic %#x", note->magic);
	if (note->abi_version < EHELF_ABI_VERSION)
		return refuse(c, "eh_elf ABI version %u; this library reads %u: "
			      "rebuild it with ehelf-batch", note->abi_version,
			      EHELF_ABI_VERSION);
	if (note->abi_version > EHELF_ABI_VERSION)
		return refuse(c, "eh_elf ABI version %u; this library reads %u: "
			      "a newer libehelf is needed", note->abi_version,
			      EHELF_ABI_VERSION);
	if (note->build_id_len > sizeof ((eh_elf_layout *)0)->build_id ||
	    s->descsz != sizeof *note + align_up(note->build_id_len, 4))
		return refuse(c, "ehelf note: a build-ID of %u bytes does not fit "
			      "its %llu-byte descriptor", note->build_id_len,
			      (unsigned long long)s->descsz);
	if (note->flags != 0)
		return refuse(c, "ehelf note: unknown flags %#x", note->flags);
	return 0;
}

/* ---- program headers -------------------------------------------------------- */

typedef struct segments {
	const Elf64_Phdr *rx, *rw, *dyn, *note, *stack;
} segments;

static const char *phdr_name(uint32_t type)
{
	switch (type) {
	case PT_NULL: return "PT_NULL";
	case PT_LOAD: return "PT_LOAD";
	case PT_DYNAMIC: return "PT_DYNAMIC";
	case PT_NOTE: return "PT_NOTE";
	case PT_SHLIB: return "PT_SHLIB";
	case PT_PHDR: return "PT_PHDR";
	case PT_GNU_EH_FRAME: return "PT_GNU_EH_FRAME";
	case PT_GNU_STACK: return "PT_GNU_STACK";
	case PT_GNU_RELRO: return "PT_GNU_RELRO";
	case PT_GNU_PROPERTY: return "PT_GNU_PROPERTY";
	}
	return "a program header";
}

/* Sort the program headers out: refuse any the writer does not emit, and
 * a second one of a kind. */
static int classify(ctx *c, const Elf64_Phdr *ph, unsigned nph, segments *sg)
{
	for (unsigned i = 0; i < nph; i++) {
		const Elf64_Phdr *p = &ph[i];
		const Elf64_Phdr **slot = NULL;
		switch (p->p_type) {
		case PT_LOAD:
			if ((p->p_flags & PF_W) && (p->p_flags & PF_X))
				return refuse(c, "PT_LOAD %u: writable and executable", i);
			if (p->p_flags == (PF_R | PF_X))
				slot = &sg->rx;
			else if (p->p_flags == (PF_R | PF_W))
				slot = &sg->rw;
			else
				return refuse(c, "PT_LOAD %u: flags %#x; an eh_elf has "
					      "one R+X and one R+W PT_LOAD", i,
					      p->p_flags);
			break;
		case PT_DYNAMIC: slot = &sg->dyn; break;
		case PT_NOTE: slot = &sg->note; break;
		case PT_GNU_STACK:
			if (p->p_flags & PF_X)
				return refuse(c, "PT_GNU_STACK: executable stack");
			slot = &sg->stack;
			break;
		case PT_INTERP:
			return refuse(c, "PT_INTERP: asks for a program interpreter");
		case PT_TLS:
			return refuse(c, "PT_TLS: thread-local storage");
		default:
			return refuse(c, "program header %u: %s of type %#x, not in "
				      "an eh_elf", i, phdr_name(p->p_type),
				      p->p_type);
		}
		if (*slot)
			return refuse(c, "program header %u: a second %s%s", i,
				      phdr_name(p->p_type),
				      p->p_type == PT_LOAD ? " of its kind" : "");
		*slot = p;
	}
	if (!sg->rx)
		return refuse(c, "no R+X PT_LOAD: nothing to run");
	if (!sg->rw || !sg->dyn)
		return refuse(c, "no PT_DYNAMIC in its R+W PT_LOAD");
	if (!sg->note)
		return refuse(c, "no PT_NOTE");
	if (!sg->stack)
		return refuse(c, "no PT_GNU_STACK: the stack would be executable");
	return 0;
}

/* The segments are where the writer puts them. */
static int check_segments(ctx *c, const segments *sg, uint64_t phend)
{
	const Elf64_Phdr *rx = sg->rx, *rw = sg->rw, *dyn = sg->dyn, *nt = sg->note;
	if (rx->p_offset != 0 || rx->p_vaddr != 0 || rx->p_paddr != 0 ||
	    rx->p_filesz != rx->p_memsz || rx->p_align != EHF_PAGE)
		return refuse(c, "the R+X PT_LOAD is not the file's start, mapped "
			      "at 0, as the eh_elf writer emits it");
	if (!within(0, rx->p_filesz, c->len))
		return refuse(c, "truncated: the R+X segment ends at %llu, past "
			      "the file's %zu bytes",
			      (unsigned long long)rx->p_filesz, c->len);
	if (rx->p_filesz < phend)
		return refuse(c, "the R+X segment does not hold the program headers");
	if (rw->p_filesz != rw->p_memsz || rw->p_align != EHF_PAGE ||
	    rw->p_paddr != rw->p_vaddr || rw->p_offset < rx->p_filesz ||
	    rw->p_vaddr < align_up(rx->p_filesz, EHF_PAGE) ||
	    rw->p_vaddr % EHF_PAGE != rw->p_offset % EHF_PAGE ||
	    !within(rw->p_vaddr, rw->p_memsz, UINT64_MAX / 2))
		return refuse(c, "the R+W PT_LOAD is not the writer's: .dynamic "
			      "alone, after the R+X segment, without .bss");
	if (!within(rw->p_offset, rw->p_filesz, c->len))
		return refuse(c, "truncated: .dynamic ends past the file's %zu bytes",
			      c->len);
	if (dyn->p_offset != rw->p_offset || dyn->p_vaddr != rw->p_vaddr ||
	    dyn->p_paddr != rw->p_paddr || dyn->p_filesz != rw->p_filesz ||
	    dyn->p_memsz != rw->p_memsz || dyn->p_flags != (PF_R | PF_W) ||
	    dyn->p_align != 8)
		return refuse(c, "PT_DYNAMIC is not exactly the R+W PT_LOAD");
	if (nt->p_offset != nt->p_vaddr || nt->p_paddr != nt->p_vaddr ||
	    nt->p_filesz != nt->p_memsz || nt->p_flags != PF_R ||
	    nt->p_align != 4 || nt->p_offset < phend ||
	    !within(nt->p_offset, nt->p_filesz, rx->p_filesz))
		return refuse(c, "PT_NOTE is not the writer's: read-only, in the "
			      "R+X segment after the program headers");
	if (sg->stack->p_flags != (PF_R | PF_W))
		return refuse(c, "PT_GNU_STACK: flags %#x, not R+W",
			      sg->stack->p_flags);
	return 0;
}

/* ---- the dynamic section ------------------------------------------------------ */

typedef struct dyn_tags {
	uint64_t hash, strtab, symtab, strsz, syment;
	unsigned seen;           /* bit per tag of the five */
} dyn_tags;

static const char *dyn_name(int64_t tag)
{
	switch (tag) {
	case DT_PLTGOT: return "DT_PLTGOT";
	case DT_SONAME: return "DT_SONAME";
	case DT_RPATH: return "DT_RPATH";
	case DT_RUNPATH: return "DT_RUNPATH";
	case DT_SYMBOLIC: return "DT_SYMBOLIC";
	case DT_DEBUG: return "DT_DEBUG";
	case DT_BIND_NOW: return "DT_BIND_NOW";
	case DT_FLAGS: return "DT_FLAGS";
	case DT_FLAGS_1: return "DT_FLAGS_1";
	case DT_GNU_HASH: return "DT_GNU_HASH";
	case DT_VERSYM: return "DT_VERSYM";
	case DT_VERNEED: return "DT_VERNEED";
	case DT_VERDEF: return "DT_VERDEF";
	case DT_AUXILIARY: return "DT_AUXILIARY";
	case DT_FILTER: return "DT_FILTER";
	}
	return "a dynamic tag";
}

/* Why TAG is refused, or NULL for the five tags of the writer. */
static const char *forbidden_tag(int64_t tag)
{
	switch (tag) {
	case DT_HASH: case DT_STRTAB: case DT_SYMTAB: case DT_STRSZ:
	case DT_SYMENT: case DT_NULL:
		return NULL;
	case DT_NEEDED: return "DT_NEEDED: depends on another library";
	case DT_INIT: return "DT_INIT: a constructor";
	case DT_FINI: return "DT_FINI: a destructor";
	case DT_INIT_ARRAY: case DT_INIT_ARRAYSZ:
		return "DT_INIT_ARRAY: constructors";
	case DT_PREINIT_ARRAY: case DT_PREINIT_ARRAYSZ:
		return "DT_PREINIT_ARRAY: constructors";
	case DT_FINI_ARRAY: case DT_FINI_ARRAYSZ:
		return "DT_FINI_ARRAY: destructors";
	case DT_TEXTREL: return "DT_TEXTREL: relocations in code";
	case DT_RELA: return "DT_RELA: relocations";
	case DT_RELASZ: return "DT_RELASZ: relocations";
	case DT_RELAENT: return "DT_RELAENT: relocations";
	case DT_RELACOUNT: return "DT_RELACOUNT: relocations";
	case DT_REL: return "DT_REL: relocations";
	case DT_RELSZ: return "DT_RELSZ: relocations";
	case DT_RELENT: return "DT_RELENT: relocations";
	case DT_RELCOUNT: return "DT_RELCOUNT: relocations";
	case DT_RELR: case DT_RELRSZ: case DT_RELRENT:
		return "DT_RELR: relocations";
	case DT_JMPREL: case DT_PLTREL: case DT_PLTRELSZ:
		return "DT_JMPREL: PLT relocations";
	}
	return "";
}

static int check_dynamic(ctx *c, const Elf64_Phdr *dyn, dyn_tags *t)
{
	if (dyn->p_filesz % sizeof(Elf64_Dyn) != 0 || dyn->p_filesz == 0)
		return refuse(c, ".dynamic: %llu bytes, not whole entries",
			      (unsigned long long)dyn->p_filesz);
	uint64_t n = dyn->p_filesz / sizeof(Elf64_Dyn);
	for (uint64_t i = 0; i < n; i++) {
		Elf64_Dyn d;
		memcpy(&d, c->img + dyn->p_offset + i * sizeof d, sizeof d);
		const char *why = forbidden_tag(d.d_tag);
		if (why && *why)
			return refuse(c, "%s", why);
		if (why)
			return refuse(c, "%s (tag %#llx): not one the eh_elf writer "
				      "emits", dyn_name(d.d_tag),
				      (unsigned long long)d.d_tag);
		if (d.d_tag == DT_NULL) {
			if (i != n - 1)
				return refuse(c, ".dynamic: entries after DT_NULL");
			break;
		}
		static const int64_t tags[] = { DT_HASH, DT_STRTAB, DT_SYMTAB,
						DT_STRSZ, DT_SYMENT };
		static const char *const names[] = { "DT_HASH", "DT_STRTAB",
						     "DT_SYMTAB", "DT_STRSZ",
						     "DT_SYMENT" };
		uint64_t *vals[] = { &t->hash, &t->strtab, &t->symtab, &t->strsz,
				     &t->syment };
		for (unsigned k = 0; k < 5; k++)
			if (d.d_tag == tags[k]) {
				if (t->seen & (1u << k))
					return refuse(c, "%s twice", names[k]);
				t->seen |= 1u << k;
				*vals[k] = d.d_un.d_val;
			}
		if (i == n - 1)
			return refuse(c, ".dynamic: no DT_NULL at its end");
	}
	if (t->seen != 0x1f)
		return refuse(c, ".dynamic: DT_HASH, DT_STRTAB, DT_SYMTAB, DT_STRSZ "
			      "and DT_SYMENT are not all there");
	if (t->syment != sizeof(Elf64_Sym))
		return refuse(c, "DT_SYMENT %llu, not %zu",
			      (unsigned long long)t->syment, sizeof(Elf64_Sym));
	return 0;
}

/* ---- hash table, symbols ---------------------------------------------------- */

/* The tables DT_* name lie in the R+X segment, after the program headers;
 * *META_END receives the end of the last. */
static int check_tables(ctx *c, const dyn_tags *t, uint64_t rx_size,
			uint64_t phend, uint64_t *meta_end)
{
	if (t->hash % 4 || t->hash < phend || !within(t->hash, 8, rx_size))
		return refuse(c, "DT_HASH %#llx: not in the R+X segment",
			      (unsigned long long)t->hash);
	uint32_t nb[2];
	memcpy(nb, c->img + t->hash, sizeof nb);
	if (nb[1] != EHF_NSYMS)
		return refuse(c, "hash table: %u symbols; an eh_elf has %u", nb[1],
			      EHF_NSYMS);
	if (nb[0] == 0 || !within(t->hash, (2ull + nb[0] + nb[1]) * 4, rx_size))
		return refuse(c, "hash table: %u buckets, past the R+X segment",
			      nb[0]);
	for (uint64_t i = 0; i < (uint64_t)nb[0] + nb[1]; i++) {
		uint32_t v;
		memcpy(&v, c->img + t->hash + 8 + 4 * i, 4);
		if (v >= EHF_NSYMS)
			return refuse(c, "hash table: symbol index %u out of range", v);
	}
	if (t->symtab % 8 || t->symtab < phend ||
	    !within(t->symtab, EHF_NSYMS * sizeof(Elf64_Sym), rx_size))
		return refuse(c, "DT_SYMTAB %#llx: not in the R+X segment",
			      (unsigned long long)t->symtab);
	if (t->strtab < phend || t->strsz == 0 ||
	    !within(t->strtab, t->strsz, rx_size) || c->img[t->strtab] != 0)
		return refuse(c, "DT_STRTAB %#llx (DT_STRSZ %llu): not a string "
			      "table in the R+X segment",
			      (unsigned long long)t->strtab,
			      (unsigned long long)t->strsz);
	uint64_t end = phend;
	uint64_t ends[] = { t->hash + (2ull + nb[0] + nb[1]) * 4,
			    t->symtab + EHF_NSYMS * sizeof(Elf64_Sym),
			    t->strtab + t->strsz };
	for (unsigned i = 0; i < 3; i++)
		end = ends[i] > end ? ends[i] : end;
	*meta_end = end;
	return 0;
}

/* NAME, from the file, fit for a one-line message: at most 40 bytes,
 * anything but printable ASCII as '?'. */
static const char *printable(const char *name, char out[41])
{
	size_t i = 0;
	for (; name[i] && i < 40; i++)
		out[i] = name[i] >= 0x20 && name[i] < 0x7f ? name[i] : '?';
	out[i] = 0;
	return out;
}

static const char *const sym_names[4] = {
	"ehelf_step_local", "ehelf_step_remote", "ehelf_describe", "ehelf_info",
};

/* The four symbols: defined, global, of their kind, pointing into the code
 * and data after the tables ([LO, RX_SIZE)).  VALUE[k] receives each. */
static int check_symbols(ctx *c, const dyn_tags *t, uint64_t lo,
			 uint64_t rx_size, uint64_t value[4])
{
	Elf64_Sym s;
	static const Elf64_Sym null_sym;
	memcpy(&s, c->img + t->symtab, sizeof s);
	if (memcmp(&s, &null_sym, sizeof s) != 0)
		return refuse(c, "symbol 0 is not the null symbol");
	unsigned seen = 0;
	for (unsigned i = 1; i < EHF_NSYMS; i++) {
		memcpy(&s, c->img + t->symtab + i * sizeof s, sizeof s);
		if (s.st_name >= t->strsz ||
		    !memchr(c->img + t->strtab + s.st_name, 0, t->strsz - s.st_name))
			return refuse(c, "symbol %u: name outside .dynstr", i);
		const char *name = (const char *)c->img + t->strtab + s.st_name;
		unsigned k = 0;
		while (k < 4 && strcmp(name, sym_names[k]) != 0)
			k++;
		char shown[41];
		if (k == 4)
			return refuse(c, "symbol %u (%s): not one of the eh_elf's "
				      "four", i, printable(name, shown));
		name = sym_names[k]; /* messages name it from here, not the file */
		if (seen & (1u << k))
			return refuse(c, "symbol %s twice", name);
		seen |= 1u << k;
		unsigned type = ELF64_ST_TYPE(s.st_info);
		bool func = k < 3;
		if (s.st_shndx == SHN_UNDEF)
			return refuse(c, "%s: undefined symbol", name);
		if (s.st_shndx >= SHN_LORESERVE)
			return refuse(c, "%s: special section index %#x", name,
				      s.st_shndx);
		if (type == STT_GNU_IFUNC)
			return refuse(c, "%s: an IFUNC (STT_GNU_IFUNC)", name);
		if (type == STT_TLS)
			return refuse(c, "%s: a thread-local (STT_TLS) symbol", name);
		if (type != (func ? STT_FUNC : STT_OBJECT))
			return refuse(c, "%s: symbol type %u, not %s", name, type,
				      func ? "STT_FUNC" : "STT_OBJECT");
		if (ELF64_ST_BIND(s.st_info) != STB_GLOBAL || s.st_other != 0)
			return refuse(c, "%s: not a global symbol of default "
				      "visibility", name);
		uint64_t size = func ? 1 : sizeof(struct ehelf_info);
		if (!func && s.st_size != sizeof(struct ehelf_info))
			return refuse(c, "ehelf_info: %llu bytes, not %zu",
				      (unsigned long long)s.st_size,
				      sizeof(struct ehelf_info));
		if (s.st_value < lo || !within(s.st_value, size, rx_size))
			return refuse(c, "%s: points outside the code and data "
				      "(%#llx; they are [%#llx, %#llx))", name,
				      (unsigned long long)s.st_value,
				      (unsigned long long)lo,
				      (unsigned long long)rx_size);
		if (!func && s.st_value % 8 != 0)
			return refuse(c, "ehelf_info: misaligned (%#llx)",
				      (unsigned long long)s.st_value);
		value[k] = s.st_value;
	}
	return 0;
}

/* ---- exactly the writer's ---------------------------------------------------- */

/* Are IMG[OFF, OFF + N) in the file and all zero? */
static bool zeros(const ctx *c, uint64_t off, uint64_t n)
{
	if (!within(off, n, c->len))
		return false;
	for (uint64_t i = 0; i < n; i++)
		if (c->img[off + i])
			return false;
	return true;
}

/* Are IMG[OFF, OFF + N) in the file and WANT? */
static bool same(const ctx *c, uint64_t off, const void *want, size_t n)
{
	return within(off, n, c->len) && memcmp(c->img + off, want, n) == 0;
}

/* The first part of the file that is not what the writer emits with the
 * offsets O, a build-ID of BIDLEN bytes, the symbols VALUE (local,
 * remote, describe, info) and CODE_SIZE bytes of code, or NULL. */
static const char *differs(const ctx *c, const eh_elf_offsets *o,
			   size_t bidlen, const uint64_t value[4],
			   size_t code_size)
{
	Elf64_Ehdr eh;
	eh_elf_ehdr(o, &eh);
	if (!same(c, 0, &eh, sizeof eh))
		return "the ELF header";
	Elf64_Phdr ph[EHF_NPHDR];
	eh_elf_phdrs(o, ph);
	uint64_t phend = o->phdr + sizeof ph;
	if (!same(c, o->phdr, ph, sizeof ph))
		return "the program headers (their order, or a field it leaves 0)";
	if (!zeros(c, phend, o->note - phend))
		return "the padding after the program headers";
	uint8_t head[sizeof(Elf64_Nhdr) + EHF_NOTE_NAME_PAD];
	eh_elf_note_head(o, head);
	uint64_t note_end = o->note + o->note_size;
	uint64_t id_end = o->note + sizeof head + sizeof(struct ehelf_note) + bidlen;
	if (!same(c, o->note, head, sizeof head) ||
	    !zeros(c, id_end, note_end - id_end))
		return "the ehelf note's header or padding";
	if (!zeros(c, note_end, o->hash - note_end))
		return "the padding after the note";
	uint32_t hash[EHF_HASH_WORDS];
	eh_elf_hash(hash);
	if (!same(c, o->hash, hash, sizeof hash) ||
	    !zeros(c, o->hash + sizeof hash, o->dynsym - o->hash - sizeof hash))
		return "the hash table";
	Elf64_Sym sym[EHF_NSYMS];
	eh_elf_syms(o->blob, value[1], value[3], value[2],
		    sizeof(struct ehelf_info), sym);
	if (!same(c, o->dynsym, sym, sizeof sym))
		return "the symbol table (their order, sections, sizes)";
	uint64_t str_end = o->dynstr + sizeof EHF_DYNSTR;
	if (!same(c, o->dynstr, EHF_DYNSTR, sizeof EHF_DYNSTR))
		return ".dynstr";
	if (!zeros(c, str_end, o->blob - str_end))
		return "the padding before the code";
	/* the code never begins with 00 (no entry sequence of ehelf-compile
	 * does): a zero there is the padding's */
	if (!within(o->blob, 1, c->len) || c->img[o->blob] == 0)
		return "the start of the code";
	if (!zeros(c, o->end_rx, o->dyn - o->end_rx))
		return "the padding before .dynamic";
	Elf64_Dyn dyn[EHF_NDYN];
	eh_elf_dyns(o, dyn);
	if (!same(c, o->dyn, dyn, sizeof dyn))
		return ".dynamic (its order or values)";
	if (!o->sections)
		return NULL;
	if (!same(c, o->shstr, EHF_SHSTR, sizeof EHF_SHSTR) ||
	    !zeros(c, o->shstr + sizeof EHF_SHSTR,
		   o->shdr - o->shstr - sizeof EHF_SHSTR))
		return ".shstrtab";
	Elf64_Shdr sh[EHF_NSHDR];
	eh_elf_shdrs(o, code_size, sh);
	if (!same(c, o->shdr, sh, sizeof sh))
		return "the section headers";
	return NULL;
}

/* The entry points and ehelf_info are where the writer put them, as
 * ehelf_info (INFO) records: ehelf_step_remote and ehelf_describe at their
 * offsets from ehelf_step_local (VALUE[0]) in its order, inside the code,
 * and ehelf_info right after the code, inside the R+X segment. */
static int check_entries(ctx *c, const struct ehelf_info *info,
			 uint64_t rx_size, const uint64_t value[4])
{
	if (!(0 < info->off_remote && info->off_remote < info->off_describe &&
	      info->off_describe < info->code_size))
		return refuse(c, "ehelf_info: the entry points are not in the "
			      "code generator's order inside the code "
			      "(ehelf_step_local, ehelf_step_remote at %#x, "
			      "ehelf_describe at %#x, the code's end at %#x)",
			      info->off_remote, info->off_describe,
			      info->code_size);
	static const char *const names[2] = { "ehelf_step_remote",
					      "ehelf_describe" };
	uint64_t want[2] = { value[0] + info->off_remote,
			     value[0] + info->off_describe };
	for (unsigned k = 0; k < 2; k++)
		if (value[k + 1] != want[k])
			return refuse(c, "%s (%#llx) is not where the eh_elf writer "
				      "put it (%#llx, as ehelf_info records)",
				      names[k], (unsigned long long)value[k + 1],
				      (unsigned long long)want[k]);
	uint64_t at = value[0] + align_up(info->code_size, 8);
	if (value[3] != at || !within(at, sizeof *info, rx_size))
		return refuse(c, "ehelf_info (%#llx) is not right after the code "
			      "(%#llx), where the eh_elf writer puts it",
			      (unsigned long long)value[3],
			      (unsigned long long)at);
	return 0;
}

/* The file is what the writer emits, the blob aside: for one of the code
 * alignments it uses, with the blob at ehelf_step_local (VALUE[0]) and
 * ending with the R+X segment, its code of CODE_SIZE bytes, every byte of
 * the headers, tables and gaps, and the file's length. */
static int check_exact(ctx *c, const struct ehelf_note *note, uint64_t rx_size,
		       bool sections, const uint64_t value[4], size_t code_size)
{
	static const size_t aligns[] = { 64, 32, 16, 8 };
	const char *why = NULL;
	eh_elf_offsets o = { 0 };
	bool found = false, length = false;
	for (unsigned i = 0; i < 4 && !found; i++) {
		eh_elf_offsets t = eh_elf_offsets_of(note->build_id_len, aligns[i],
						     0, sections);
		if (t.blob != value[0] || t.blob >= rx_size)
			continue;
		t = eh_elf_offsets_of(note->build_id_len, aligns[i],
				      rx_size - t.blob, sections);
		const char *w = differs(c, &t, note->build_id_len, value,
					code_size);
		if (!w && t.total == c->len) {
			o = t;
			found = true;
		} else if (!w) {
			o = t;
			length = true;
		} else if (!why) {
			why = w;
		}
	}
	if (!found && length && c->len > o.total)
		return refuse(c, "%zu bytes after the end of the eh_elf (%zu "
			      "bytes): not the writer's", c->len - (size_t)o.total,
			      (size_t)o.total);
	if (!found && length)
		return refuse(c, "truncated: %zu bytes, the eh_elf's headers say "
			      "%zu", c->len, (size_t)o.total);
	if (!found && !why)
		return refuse(c, "ehelf_step_local (%#llx) is not at the start of "
			      "the code, where the eh_elf writer puts it",
			      (unsigned long long)value[0]);
	if (!found)
		return refuse(c, "not exactly the eh_elf writer's structure: %s "
			      "differs", why);
	return 0;
}

/* The fields of ehelf_info (at OFF, copied to *INFO) that can be checked:
 * those the note repeats, the build-ID's unused bytes (zeros), the counts'
 * order and the check word. */
static int check_info(ctx *c, uint64_t off, const struct ehelf_note *note,
		      uint64_t note_id, struct ehelf_info *info)
{
	memcpy(info, c->img + off, sizeof *info);
	if (info->magic != EHELF_INFO_MAGIC ||
	    info->abi_version != note->abi_version || info->flags != 0 ||
	    info->build_id_len != note->build_id_len ||
	    memcmp(info->build_id, c->img + note_id, note->build_id_len) != 0)
		return refuse(c, "ehelf_info disagrees with the ehelf note");
	for (size_t i = note->build_id_len; i < sizeof info->build_id; i++)
		if (info->build_id[i])
			return refuse(c, "ehelf_info: bytes after the build-ID are "
				      "not zero");
	if (info->pc_lo > info->pc_hi || info->rulesets == 0 ||
	    info->unsupported >= info->rulesets || info->page_bits >= 64)
		return refuse(c, "ehelf_info: its address range or counts are "
			      "inconsistent");
	if (info->check != eh_elf_info_check(info))
		return refuse(c, "ehelf_info: its check word (%#x) does not match "
			      "its contents (%#x): the file is damaged",
			      info->check, eh_elf_info_check(info));
	return 0;
}

/* ---- all of it ------------------------------------------------------------------ */

int eh_elf_check(const uint8_t *img, size_t len, eh_elf_layout *l, char *why,
		 size_t whylen)
{
	ctx c = { img, len, why, whylen };
	if (len > EH_ELF_MAX_BYTES)
		return refuse(&c, "%zu bytes, above the %d-byte bound", len,
			      EH_ELF_MAX_BYTES);
	Elf64_Ehdr eh;
	if (check_ehdr(&c, &eh) < 0)
		return -1;
	Elf64_Phdr ph[MAX_PHDRS];
	unsigned nph = eh.e_phnum;
	memcpy(ph, img + eh.e_phoff, nph * sizeof *ph);
	uint64_t phend = eh.e_phoff + nph * sizeof *ph;

	struct ehelf_note note;
	note_scan ns = { 0 };
	if (check_note(&c, ph, nph, &note, &ns) < 0)
		return -1;
	segments sg = { 0 };
	if (classify(&c, ph, nph, &sg) < 0 || check_segments(&c, &sg, phend) < 0)
		return -1;
	if (ns.others)
		return refuse(&c, "PT_NOTE: %u note%s besides the ehelf note",
			      ns.others, ns.others > 1 ? "s" : "");
	uint64_t rx_size = sg.rx->p_filesz;

	dyn_tags t = { 0 };
	uint64_t meta_end = 0, value[4] = { 0 };
	if (check_dynamic(&c, sg.dyn, &t) < 0 ||
	    check_tables(&c, &t, rx_size, phend, &meta_end) < 0)
		return -1;
	uint64_t note_end = sg.note->p_offset + sg.note->p_filesz;
	meta_end = note_end > meta_end ? note_end : meta_end;
	if (check_symbols(&c, &t, meta_end, rx_size, value) < 0)
		return -1;

	struct ehelf_info info;
	if (check_info(&c, value[3], &note, ns.desc + sizeof note, &info) < 0 ||
	    check_exact(&c, &note, rx_size, eh.e_shoff != 0, value,
			info.code_size) < 0 ||
	    check_entries(&c, &info, rx_size, value) < 0)
		return -1;

	*l = (eh_elf_layout){
		.rx_size = rx_size, .off_local = value[0], .off_remote = value[1],
		.off_describe = value[2], .off_info = value[3],
		.abi_version = note.abi_version, .build_id_len = note.build_id_len,
	};
	memcpy(l->build_id, img + ns.desc + sizeof note, note.build_id_len);
	return 0;
}
