/* elf_file.c - see elf_file.h. */
#include "elf_file.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

static void libelf_init(void)
{
	elf_version(EV_CURRENT);
}

/* libelf's one-time setup, from whichever thread opens a file first (the
 * batch builder's workers open them concurrently) */
static void libelf_init_once(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, libelf_init);
}

/* Common checks once f->elf exists.  Closes nothing on failure. */
static int check_header(elf_file *f, ehelf_err *err)
{
	if (elf_kind(f->elf) != ELF_K_ELF)
		return err_set(err, ERR_FORMAT, "%s: not an ELF file", f->name);
	GElf_Ehdr eh;
	if (!gelf_getehdr(f->elf, &eh))
		return err_set(err, ERR_FORMAT, "%s: bad ELF header: %s",
			       f->name, elf_errmsg(-1));
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_machine != EM_X86_64)
		return err_set(err, ERR_UNSUPPORTED,
			       "%s: not a 64-bit little-endian x86_64 ELF file",
			       f->name);
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
		return err_set(err, ERR_UNSUPPORTED,
			       "%s: ELF type %u is not an executable or shared "
			       "object (relocatable objects need relocation)",
			       f->name, eh.e_type);
	f->type = eh.e_type;
	size_t size = 0;
	elf_rawfile(f->elf, &size);
	if (eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize > size ||
	    eh.e_phoff + (uint64_t)eh.e_phnum * eh.e_phentsize > size)
		return err_set(err, ERR_FORMAT, "%s: truncated: its headers end "
			       "past the end of the file (%zu bytes)", f->name,
			       size);
	if (elf_getshdrstrndx(f->elf, &f->shstrndx) != 0)
		return err_set(err, ERR_FORMAT,
			       "%s: no section header string table: %s",
			       f->name, elf_errmsg(-1));
	return 0;
}

int elf_file_open(elf_file *f, const char *path, ehelf_err *err)
{
	libelf_init_once();
	memset(f, 0, sizeof *f);
	f->name = path;
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		return err_set(err, ERR_IO, "%s: cannot open: %s", path,
			       strerror(errno));
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!f->elf) {
		int rc = err_set(err, ERR_FORMAT, "%s: cannot read as ELF: %s",
				 path, elf_errmsg(-1));
		elf_file_close(f);
		return rc;
	}
	int rc = check_header(f, err);
	if (rc < 0)
		elf_file_close(f);
	return rc;
}

int elf_file_open_mem(elf_file *f, const void *image, size_t size,
		      const char *name, ehelf_err *err)
{
	libelf_init_once();
	memset(f, 0, sizeof *f);
	f->name = name;
	f->fd = -1;
	f->elf = elf_memory((char *)image, size);
	if (!f->elf)
		return err_set(err, ERR_FORMAT, "%s: cannot read as ELF: %s",
			       name, elf_errmsg(-1));
	int rc = check_header(f, err);
	if (rc < 0)
		elf_file_close(f);
	return rc;
}

void elf_file_close(elf_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	f->elf = NULL;
	f->fd = -1;
}

static int fill_section(elf_file *f, Elf_Scn *scn, const GElf_Shdr *sh,
			const char *name, elf_section *out, ehelf_err *err)
{
	memset(out, 0, sizeof *out);
	out->name = name;
	out->addr = sh->sh_addr;
	out->offset = sh->sh_offset;
	out->type = sh->sh_type;
	out->flags = sh->sh_flags;
	if (sh->sh_type == SHT_NOBITS) {
		out->nobits = true;
		out->size = sh->sh_size;
		return 0;
	}
	if ((sh->sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
		return err_set(err, ERR_FORMAT,
			       "%s: section %s: cannot decompress: %s",
			       f->name, name, elf_errmsg(-1));
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d)
		return err_set(err, ERR_FORMAT,
			       "%s: section %s: cannot read contents: %s",
			       f->name, name, elf_errmsg(-1));
	out->data = d->d_buf;
	out->size = d->d_size;
	if (!out->data && out->size)
		return err_set(err, ERR_FORMAT, "%s: section %s: no data",
			       f->name, name);
	return 0;
}

int elf_file_section(elf_file *f, const char *name, elf_section *out,
		     ehelf_err *err)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(f->elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			return err_set(err, ERR_FORMAT,
				       "%s: bad section header: %s", f->name,
				       elf_errmsg(-1));
		const char *n = elf_strptr(f->elf, f->shstrndx, sh.sh_name);
		if (n && strcmp(n, name) == 0)
			return fill_section(f, scn, &sh, n, out, err);
	}
	return err_set(err, ERR_NOTFOUND, "%s: no section %s", f->name, name);
}

int elf_file_build_id(elf_file *f, const uint8_t **id)
{
	const void *p = NULL;
	ssize_t n = dwelf_elf_gnu_build_id(f->elf, &p);
	if (n <= 0 || n > 64)
		return ERR_NOTFOUND;
	*id = p;
	return (int)n;
}

int elf_file_read_u64(elf_file *f, uint64_t addr, uint64_t *value)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(f->elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    sh.sh_type == SHT_NOBITS)
			continue;
		if (addr < sh.sh_addr || addr - sh.sh_addr > sh.sh_size ||
		    sh.sh_size - (addr - sh.sh_addr) < 8)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || d->d_size < addr - sh.sh_addr + 8)
			return ERR_NOTFOUND;
		memcpy(value, (const uint8_t *)d->d_buf + (addr - sh.sh_addr),
		       8);
		return 0;
	}
	return ERR_NOTFOUND;
}

int elf_file_load_bias(elf_file *f, uint64_t start, uint64_t pgoff, bool exec,
		       bool writable, uint64_t *bias)
{
	size_t n;
	if (elf_getphdrnum(f->elf, &n) != 0)
		return ERR_NOTFOUND;
	int best = -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(f->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		uint64_t page = ph.p_offset & ~0xfffull;
		if (pgoff < page || pgoff >= ph.p_offset + ph.p_filesz)
			continue;
		int score = (page == pgoff ? 4 : 0) +
			    (((ph.p_flags & PF_X) != 0) == exec ? 2 : 0) +
			    (((ph.p_flags & PF_W) != 0) == writable ? 1 : 0);
		if (score > best) {
			best = score;
			/* START maps file offset PGOFF: link-time address
			 * p_vaddr - (p_offset - PGOFF) */
			*bias = start - (ph.p_vaddr - (ph.p_offset - pgoff));
		}
	}
	return best < 0 ? ERR_NOTFOUND : 0;
}
