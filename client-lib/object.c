/*
 * object.c - loading one eh_elf (ehelf_object_*).
 *
 * The file is checked with libelf before anything is mapped (the eh_elf
 * is native code the process will run): x86_64 ET_DYN, exactly one
 * "ehelf" note with the expected magic and a supported ABI version, no
 * DT_NEEDED.  It is then loaded with dlopen(RTLD_LOCAL) and its ehelf_info
 * must repeat the note's build-ID.
 */
#include <dlfcn.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/elf_file.h"
#include "include/ehelf.h"
#include "space.h"

struct ehelf_object {
	void *handle;
	ehelf_step_local_fn local;
	ehelf_step_remote_fn remote;
	ehelf_describe_fn describe;
	const struct ehelf_info *info;
};

static __thread char last_error[512];

const char *ehelf_last_error(void)
{
	return last_error;
}

void ehelf_set_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_error, sizeof last_error, fmt, ap);
	va_end(ap);
}

/* ehelf_set_error(), then NULL: for `return fail(...)`. */
static void *fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void *fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_error, sizeof last_error, fmt, ap);
	va_end(ap);
	return NULL;
}

/* Find the ehelf note; fill *NOTE and the build-ID.  Returns 0 or -1. */
static int read_note(elf_file *f, struct ehelf_note *note, uint8_t *id,
		     const char *path)
{
	size_t nph;
	if (elf_getphdrnum(f->elf, &nph) != 0) {
		fail("%s: no program headers", path);
		return -1;
	}
	int found = 0;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(f->elf, (int)i, &ph))
			continue;
		if (ph.p_type == PT_DYNAMIC) {
			Elf_Data *d = elf_getdata_rawchunk(f->elf, (int64_t)ph.p_offset,
							   ph.p_filesz, ELF_T_DYN);
			for (size_t k = 0; d && k < ph.p_filesz / sizeof(GElf_Dyn); k++) {
				GElf_Dyn dyn;
				if (gelf_getdyn(d, (int)k, &dyn) &&
				    dyn.d_tag == DT_NEEDED) {
					fail("%s: depends on other libraries "
					     "(DT_NEEDED): not an eh_elf", path);
					return -1;
				}
			}
		}
		if (ph.p_type != PT_NOTE)
			continue;
		Elf_Data *d = elf_getdata_rawchunk(f->elf, (int64_t)ph.p_offset,
						   ph.p_filesz, ELF_T_NHDR);
		if (!d)
			continue;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;
		while ((off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			const char *name = (const char *)d->d_buf + name_off;
			if (nh.n_type != EHELF_NOTE_SOURCE ||
			    nh.n_namesz != sizeof EHELF_NOTE_NAME ||
			    memcmp(name, EHELF_NOTE_NAME, sizeof EHELF_NOTE_NAME))
				continue;
			if (nh.n_descsz < sizeof *note) {
				fail("%s: truncated ehelf note", path);
				return -1;
			}
			memcpy(note, (const char *)d->d_buf + desc_off, sizeof *note);
			if (note->build_id_len > 64 ||
			    nh.n_descsz < sizeof *note + note->build_id_len) {
				fail("%s: bad build-ID in the ehelf note", path);
				return -1;
			}
			memcpy(id, (const char *)d->d_buf + desc_off + sizeof *note,
			       note->build_id_len);
			found++;
		}
	}
	if (found != 1) {
		fail("%s: %s", path, found ? "several ehelf notes"
					   : "no ehelf note: not an eh_elf");
		return -1;
	}
	return 0;
}

ehelf_object *ehelf_object_open(const char *path)
{
	elf_file f;
	ehelf_err err = { 0 };
	if (elf_file_open(&f, path, &err) < 0)
		return fail("%s", err.msg);
	struct ehelf_note note;
	uint8_t id[64];
	int rc = f.type == ET_DYN ? read_note(&f, &note, id, path)
				  : (fail("%s: not a shared object", path), -1);
	elf_file_close(&f);
	if (rc < 0)
		return NULL;
	if (note.magic != EHELF_INFO_MAGIC)
		return fail("%s: bad ehelf note magic", path);
	if (note.abi_version != EHELF_ABI_VERSION)
		return fail("%s: eh_elf ABI version %u, this library supports %u",
			    path, note.abi_version, EHELF_ABI_VERSION);
	ehelf_object *o = calloc(1, sizeof *o);
	if (!o)
		return fail("out of memory");
	o->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!o->handle) {
		fail("%s: dlopen: %s", path, dlerror());
		free(o);
		return NULL;
	}
	o->local = (ehelf_step_local_fn)dlsym(o->handle, "ehelf_step_local");
	o->remote = (ehelf_step_remote_fn)dlsym(o->handle, "ehelf_step_remote");
	o->describe = (ehelf_describe_fn)dlsym(o->handle, "ehelf_describe");
	o->info = dlsym(o->handle, "ehelf_info");
	if (!o->local || !o->remote || !o->describe || !o->info) {
		fail("%s: missing ehelf entry points", path);
	} else if (o->info->magic != EHELF_INFO_MAGIC ||
		   o->info->abi_version != note.abi_version ||
		   o->info->build_id_len != note.build_id_len ||
		   memcmp(o->info->build_id, id, note.build_id_len) != 0) {
		fail("%s: ehelf_info disagrees with the ehelf note", path);
	} else {
		return o;
	}
	dlclose(o->handle);
	free(o);
	return NULL;
}

void ehelf_object_close(ehelf_object *o)
{
	if (!o)
		return;
	dlclose(o->handle);
	free(o);
}

const struct ehelf_info *ehelf_object_info(const ehelf_object *o)
{
	return o->info;
}

int ehelf_object_step(const ehelf_object *o, uint64_t pc, const ehelf_regs *in,
		      ehelf_regs *out, ehelf_read_fn read, void *arg)
{
	return o->remote(pc, in, out, read, arg);
}

uint64_t ehelf_object_describe(const ehelf_object *o, uint64_t pc)
{
	return o->describe(pc);
}

int ehelf_object_step_local(const ehelf_object *o, uint64_t pc,
			    const ehelf_regs *in, ehelf_regs *out,
			    uint64_t stack_lo, uint64_t stack_hi)
{
	return o->local(pc, in, out, stack_lo, stack_hi);
}

const char *ehelf_status_str(int status)
{
	switch (status) {
	case EHELF_STEP: return "step";
	case EHELF_OUTERMOST: return "outermost frame";
	case EHELF_E_NOT_COVERED: return "no row covers this pc";
	case EHELF_E_READ: return "memory read failed";
	case EHELF_E_UNSUPPORTED: return "rules not compiled (unsupported)";
	case EHELF_E_BADREG: return "a register the rules need is not valid";
	case EHELF_E_EXPR: return "DWARF expression failed";
	case EHELF_E_BOUNDS: return "read outside the stack bounds";
	}
	return "unknown status";
}
