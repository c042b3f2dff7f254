/*
 * eh_elf_image.h - real eh_elfs for the loader's tests, and the means to
 * break them one property at a time: compile an ELF (the fixture zoo.so)
 * into an eh_elf image, find its headers, tables and symbols, insert
 * bytes anywhere with every offset after them fixed up (so that a
 * mutant can gain a dynamic tag or a note and stay otherwise valid),
 * write it to a file with a given mode, and step it at many pcs to
 * compare two loaders of the same bytes.
 *
 * The images are the writer's own (trusted here), so the helpers index
 * them directly.
 */
#ifndef EHELF_TESTS_EH_ELF_IMAGE_H
#define EHELF_TESTS_EH_ELF_IMAGE_H

#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../builder/codegen/compile.h"
#include "../../client-lib/include/ehelf.h"
#include "../../common/buildid.h"

typedef struct image {
	uint8_t *b;
	size_t len;
} image;

/* The eh_elf of the ELF at PATH, with section headers when SECTIONS,
 * and its build-ID in HEX (129 bytes).  Returns 0 or -1. */
static inline int image_compile_sections(const char *path, image *im,
					 char *hex, bool sections)
{
	ehelf_compile_opts opts = { .section_headers = sections };
	elf_file f;
	ehelf_err err = { 0 };
	if (elf_file_open(&f, path, &err) < 0)
		return -1;
	const uint8_t *id;
	int n = elf_file_build_id(&f, &id);
	int rc = n > 0 && buildid_to_hex(id, (size_t)n, hex, 129) > 0 &&
		 ehelf_compile_elf(&f, &opts, &im->b, &im->len, NULL, &err) == 0
		 ? 0 : -1;
	elf_file_close(&f);
	return rc;
}

/* The eh_elf as the writer emits it by default (no section headers). */
static inline int image_compile(const char *path, image *im, char *hex)
{
	return image_compile_sections(path, im, hex, false);
}

static inline image image_copy(const image *im)
{
	image c = { malloc(im->len), im->len };
	memcpy(c.b, im->b, im->len);
	return c;
}

static inline Elf64_Ehdr *im_ehdr(const image *im)
{
	return (Elf64_Ehdr *)im->b;
}

/* The first program header of TYPE (with FLAGS when FLAGS is not 0). */
static inline Elf64_Phdr *im_phdr(const image *im, uint32_t type, uint32_t flags)
{
	Elf64_Phdr *ph = (Elf64_Phdr *)(im->b + im_ehdr(im)->e_phoff);
	for (unsigned i = 0; i < im_ehdr(im)->e_phnum; i++)
		if (ph[i].p_type == type && (!flags || ph[i].p_flags == flags))
			return &ph[i];
	return NULL;
}

static inline Elf64_Dyn *im_dyn(const image *im)
{
	return (Elf64_Dyn *)(im->b + im_phdr(im, PT_DYNAMIC, 0)->p_offset);
}

static inline uint64_t im_dyn_val(const image *im, int64_t tag)
{
	for (Elf64_Dyn *d = im_dyn(im); d->d_tag != DT_NULL; d++)
		if (d->d_tag == tag)
			return d->d_un.d_val;
	return 0;
}

static inline Elf64_Sym *im_sym(const image *im, const char *name)
{
	Elf64_Sym *s = (Elf64_Sym *)(im->b + im_dyn_val(im, DT_SYMTAB));
	const char *str = (const char *)im->b + im_dyn_val(im, DT_STRTAB);
	for (unsigned i = 1; i < 5; i++)
		if (!strcmp(str + s[i].st_name, name))
			return &s[i];
	return NULL;
}

static inline Elf64_Nhdr *im_note(const image *im)
{
	return (Elf64_Nhdr *)(im->b + im_phdr(im, PT_NOTE, 0)->p_offset);
}

/* The ehelf note's descriptor. */
static inline struct ehelf_note *im_note_desc(const image *im)
{
	return (struct ehelf_note *)((uint8_t *)im_note(im) + sizeof(Elf64_Nhdr) + 8);
}

static inline struct ehelf_info *im_info(const image *im)
{
	return (struct ehelf_info *)(im->b + im_sym(im, "ehelf_info")->st_value);
}

/* First byte of code: the lowest entry point. */
static inline uint64_t im_code(const image *im)
{
	uint64_t a = im_sym(im, "ehelf_step_local")->st_value;
	uint64_t b = im_sym(im, "ehelf_step_remote")->st_value;
	return a < b ? a : b;
}

/* Insert D zero bytes at file offset AT, fixing every offset and address
 * that lies after it: segments move or grow, dynamic pointers, symbol
 * values and section offsets follow.  Inside the R+X segment, D must be
 * a multiple of 64 (the code's alignment). */
static inline void image_insert(image *im, uint64_t at, uint64_t d)
{
	im->b = realloc(im->b, im->len + d);
	memmove(im->b + at + d, im->b + at, im->len - at);
	memset(im->b + at, 0, d);
	im->len += d;
	Elf64_Ehdr *eh = im_ehdr(im);
	if (eh->e_shoff >= at)
		eh->e_shoff += d;
	Elf64_Phdr *ph = (Elf64_Phdr *)(im->b + eh->e_phoff);
	uint64_t rx_end = 0;
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_offset < at && at < ph[i].p_offset + ph[i].p_filesz) {
			ph[i].p_filesz += d;
			ph[i].p_memsz += d;
		} else if (ph[i].p_offset >= at && ph[i].p_filesz) {
			ph[i].p_offset += d;
			ph[i].p_vaddr += d;
			ph[i].p_paddr += d;
		}
		if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X))
			rx_end = ph[i].p_filesz;
	}
	/* .dynamic's pages stay after the code's */
	uint64_t first = (rx_end + 0xfff) & ~0xfffull;
	for (unsigned i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_DYNAMIC ||
		    (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_W)))
			while (ph[i].p_vaddr < first) {
				ph[i].p_vaddr += 0x1000;
				ph[i].p_paddr += 0x1000;
			}
	for (Elf64_Dyn *dy = im_dyn(im); dy->d_tag != DT_NULL; dy++)
		if ((dy->d_tag == DT_HASH || dy->d_tag == DT_STRTAB ||
		     dy->d_tag == DT_SYMTAB) && dy->d_un.d_ptr >= at)
			dy->d_un.d_ptr += d;
	Elf64_Sym *s = (Elf64_Sym *)(im->b + im_dyn_val(im, DT_SYMTAB));
	for (unsigned i = 1; i < 5; i++)
		if (s[i].st_value >= at)
			s[i].st_value += d;
	Elf64_Shdr *sh = (Elf64_Shdr *)(im->b + eh->e_shoff);
	for (unsigned i = 0; eh->e_shoff && i < eh->e_shnum; i++)
		if (sh[i].sh_offset >= at) {
			if (sh[i].sh_addr == sh[i].sh_offset)
				sh[i].sh_addr += d;
			sh[i].sh_offset += d;
		}
}

/* Add the entry TAG = VAL to .dynamic, before its DT_NULL. */
static inline void image_add_dyn(image *im, int64_t tag, uint64_t val)
{
	Elf64_Dyn *d = im_dyn(im);
	while (d->d_tag != DT_NULL)
		d++;
	uint64_t at = (uint64_t)((uint8_t *)d - im->b);
	image_insert(im, at, sizeof *d);
	memcpy(im->b + at, &(Elf64_Dyn){ tag, { val } }, sizeof *d);
}

/* Write LEN bytes to PATH with MODE (whatever the umask). */
static inline int write_mode(const char *path, const void *data, size_t len,
			     mode_t mode)
{
	unlink(path);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	int ok = write(fd, data, len) == (ssize_t)len && fchmod(fd, mode) == 0;
	return close(fd) == 0 && ok ? 0 : -1;
}

/* The entry points of an eh_elf loaded some other way (dlopen). */
typedef struct entry_points {
	ehelf_step_local_fn local;
	ehelf_step_remote_fn remote;
	ehelf_describe_fn describe;
} entry_points;

static uint64_t im_stack[256];

static inline int im_read_stack(void *arg, uint64_t addr, uint64_t *value)
{
	(void)arg;
	uint64_t lo = (uint64_t)(uintptr_t)im_stack;
	if (addr < lo || addr > lo + sizeof im_stack - 8)
		return -1;
	memcpy(value, (const uint8_t *)im_stack + (addr - lo), 8);
	return 0;
}

/* Step A and B (two loadings of the same eh_elf) through both entry points
 * and ehelf_describe at about 4000 pcs of [pc_lo, pc_hi), with the same
 * registers and stack.  Returns the number of differences; *STEPPED
 * receives how many local steps succeeded. */
static inline int compare_loaders(const ehelf_object *a, const entry_points *b,
				  int *stepped)
{
	uint64_t lo = (uint64_t)(uintptr_t)im_stack, hi = lo + sizeof im_stack;
	for (size_t i = 0; i < 256; i++)
		im_stack[i] = lo + 8 * ((i * 7 + 3) % 200);
	const struct ehelf_info *info = ehelf_object_info(a);
	uint64_t stride = (info->pc_hi - info->pc_lo) / 4000 + 1;
	int diffs = 0;
	*stepped = 0;
	for (uint64_t pc = info->pc_lo; pc < info->pc_hi; pc += stride) {
		ehelf_regs in, oa, ob;
		memset(&in, 0, sizeof in);
		for (int r = 0; r < EHELF_NREGS; r++)
			in.r[r] = lo + 64 + 8 * (uint64_t)r;
		in.r[EHELF_RIP] = pc;
		in.valid = EHELF_VALID_REGS;
		for (int remote = 0; remote < 2; remote++) {
			memset(&oa, 0, sizeof oa);
			memset(&ob, 0, sizeof ob);
			int sa = remote ? ehelf_object_step(a, pc, &in, &oa,
							    im_read_stack, NULL)
					: ehelf_object_step_local(a, pc, &in, &oa,
								  lo, hi);
			int sb = remote ? b->remote(pc, &in, &ob, im_read_stack, NULL)
					: b->local(pc, &in, &ob, lo, hi);
			diffs += sa != sb || memcmp(&oa, &ob, sizeof oa) != 0;
			*stepped += !remote && sa == EHELF_STEP;
		}
		diffs += ehelf_object_describe(a, pc) != b->describe(pc);
	}
	return diffs;
}

#endif
