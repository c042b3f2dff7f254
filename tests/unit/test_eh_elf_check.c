/*
 * test_eh_elf_check - the eh_elf validator (common/eh_elf_check.h) and
 * the loader built on it, on real eh_elfs compiled here from the fixture
 * zoo.so and from libc:
 *  - the real ones pass, load through ehelf_object_open and trust_open,
 *    and step exactly as the same file loaded by dlopen does (so mapping
 *    the R+X segment alone is enough); the writer emits no section
 *    headers unless asked for: one with them passes, and stripped of them
 *    again;
 *  - exactly the writer's structure: one relaid out (bytes inserted after
 *    the note, every offset fixed), odd section headers, bytes appended
 *    are refused; every byte of the headers, program headers, note, hash
 *    table, symbols, .dynstr, the gaps, .dynamic, the section headers and
 *    ehelf_info, of zoo's eh_elf (with and without section headers) and
 *    libc's, set to each of its 255 other values: refused, but for the
 *    bytes the code generator alone knows (where ehelf_step_remote and
 *    ehelf_describe lie in the code, ehelf_info's statistics), counted;
 *    every extension of the file refused;
 *  - each property of the writer's structure broken once is refused with
 *    its own reason, by eh_elf_check and by ehelf_object_open on a file:
 *    dynamic tags added (DT_NEEDED, DT_INIT, DT_INIT_ARRAY, DT_RELA, ...),
 *    program headers (PT_INTERP, PT_TLS, an executable stack, W+X or
 *    other segments), symbols (undefined, IFUNC, TLS, outside the code,
 *    ehelf_info of the wrong size), notes (two, none, another one, other
 *    ABI versions) and ehelf_info disagreeing with the note;
 *  - every truncation of the file is refused (every length, and the file
 *    cut at each header boundary);
 *  - a flipped byte in the code passes this check (the structure is
 *    intact): only a signature vouches for code (test_trust.c).
 * The file-level rules, signatures and the reported attack are in
 * test_trust.c.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../common/eh_elf_check.h"
#include "../../common/eh_elf_format.h"
#include "../../client-lib/trust.h"
#include "eh_elf_image.h"
#include "unit.h"

static char dir[] = "/tmp/test_eh_elf_check.XXXXXX";
static bool verbose;

/* ---- mutations: each breaks one property ---------------------------------- */

static void m_needed(image *im) { image_add_dyn(im, DT_NEEDED, 1); }
static void m_init(image *im) { image_add_dyn(im, DT_INIT, im_code(im)); }
static void m_init_array(image *im)
{
	image_add_dyn(im, DT_INIT_ARRAY, im_dyn_val(im, DT_HASH));
	image_add_dyn(im, DT_INIT_ARRAYSZ, 8);
}
static void m_fini_array(image *im) { image_add_dyn(im, DT_FINI_ARRAY, 64); }
static void m_rela(image *im)
{
	image_add_dyn(im, DT_RELA, im_dyn_val(im, DT_HASH));
	image_add_dyn(im, DT_RELASZ, 24);
	image_add_dyn(im, DT_RELAENT, 24);
}
static void m_textrel(image *im) { image_add_dyn(im, DT_TEXTREL, 0); }
static void m_soname(image *im) { image_add_dyn(im, DT_SONAME, 1); }
static void m_syment(image *im)
{
	for (Elf64_Dyn *d = im_dyn(im); d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_SYMENT)
			d->d_un.d_val = 16;
}
static void m_strtab(image *im)
{
	for (Elf64_Dyn *d = im_dyn(im); d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_STRTAB)
			d->d_un.d_ptr = im->len;
}
static void m_interp(image *im) { im_phdr(im, PT_GNU_STACK, 0)->p_type = PT_INTERP; }
static void m_tls(image *im) { im_phdr(im, PT_GNU_STACK, 0)->p_type = PT_TLS; }
static void m_relro(image *im) { im_phdr(im, PT_GNU_STACK, 0)->p_type = PT_GNU_RELRO; }
static void m_execstack(image *im) { im_phdr(im, PT_GNU_STACK, 0)->p_flags |= PF_X; }
static void m_nostack(image *im)
{
	Elf64_Phdr *last = (Elf64_Phdr *)(im->b + im_ehdr(im)->e_phoff) +
			   im_ehdr(im)->e_phnum - 1;
	*im_phdr(im, PT_GNU_STACK, 0) = *last; /* the last one moves there */
	im_ehdr(im)->e_phnum--;
}
static void m_wx_code(image *im) { im_phdr(im, PT_LOAD, PF_R | PF_X)->p_flags |= PF_W; }
static void m_wx_data(image *im) { im_phdr(im, PT_LOAD, PF_R | PF_W)->p_flags |= PF_X; }
static void m_ro_code(image *im) { im_phdr(im, PT_LOAD, PF_R | PF_X)->p_flags = PF_R; }
static void m_bss(image *im) { im_phdr(im, PT_LOAD, PF_R | PF_W)->p_memsz += 0x1000; }
static void m_dyn_moved(image *im) { im_phdr(im, PT_DYNAMIC, 0)->p_offset += 16; }
static void m_phnum(image *im) { im_ehdr(im)->e_phnum = 40; }
static void m_exec(image *im) { im_ehdr(im)->e_type = ET_EXEC; }
static void m_i386(image *im) { im_ehdr(im)->e_machine = EM_386; }
static void m_undef(image *im) { im_sym(im, "ehelf_step_remote")->st_shndx = SHN_UNDEF; }
static void m_abs(image *im) { im_sym(im, "ehelf_step_remote")->st_shndx = SHN_ABS; }
static void m_ifunc(image *im)
{
	im_sym(im, "ehelf_describe")->st_info = ELF64_ST_INFO(STB_GLOBAL, STT_GNU_IFUNC);
}
static void m_tls_sym(image *im)
{
	im_sym(im, "ehelf_info")->st_info = ELF64_ST_INFO(STB_GLOBAL, STT_TLS);
}
static void m_weak(image *im)
{
	im_sym(im, "ehelf_step_local")->st_info = ELF64_ST_INFO(STB_WEAK, STT_FUNC);
}
static void m_beyond(image *im)
{
	im_sym(im, "ehelf_step_local")->st_value =
		im_phdr(im, PT_LOAD, PF_R | PF_X)->p_filesz + 0x40;
}
static void m_into_header(image *im) { im_sym(im, "ehelf_step_remote")->st_value = 0x40; }
static void m_info_size(image *im) { im_sym(im, "ehelf_info")->st_size = 100; }
static void m_symname(image *im)
{
	char *s = (char *)im->b + im_dyn_val(im, DT_STRTAB) +
		  im_sym(im, "ehelf_info")->st_name;
	s[9] = '0'; /* ehelf_inf0 */
}
static void m_nchain(image *im) { ((uint32_t *)(im->b + im_dyn_val(im, DT_HASH)))[1] = 6; }
static void m_no_note(image *im) { ((char *)im_note(im))[sizeof(Elf64_Nhdr) + 4] = 'g'; }
static void m_two_notes(image *im)
{
	Elf64_Phdr *ph = im_phdr(im, PT_NOTE, 0);
	uint64_t at = ph->p_offset + ph->p_filesz, size = ph->p_filesz;
	image_insert(im, at, (size + 63) & ~63ull);
	ph = im_phdr(im, PT_NOTE, 0);
	memcpy(im->b + at, im->b + ph->p_offset, size);
	ph->p_filesz = ph->p_memsz = 2 * size;
}
static void m_gnu_note(image *im)
{
	Elf64_Phdr *ph = im_phdr(im, PT_NOTE, 0);
	uint64_t at = ph->p_offset + ph->p_filesz;
	image_insert(im, at, 64);
	ph = im_phdr(im, PT_NOTE, 0);
	Elf64_Nhdr nh = { 4, 20, NT_GNU_BUILD_ID };
	memcpy(im->b + at, &nh, sizeof nh);
	memcpy(im->b + at + sizeof nh, "GNU", 4);
	ph->p_filesz = ph->p_memsz = ph->p_filesz + sizeof nh + 4 + 20;
}
static void m_abi1(image *im) { im_note_desc(im)->abi_version = 1; }
static void m_abi2(image *im) { im_note_desc(im)->abi_version = 2; }
static void m_abi3(image *im) { im_note_desc(im)->abi_version = 3; }
_Static_assert(EHELF_ABI_VERSION == 5, "the versions before and after, named "
	       "in mutations[]");
static void m_abi_prev(image *im)
{
	im_note_desc(im)->abi_version = EHELF_ABI_VERSION - 1;
}
static void m_abi_next(image *im)
{
	im_note_desc(im)->abi_version = EHELF_ABI_VERSION + 1;
}
static void m_note_magic(image *im) { im_note_desc(im)->magic ^= 1; }
static void m_info_id(image *im) { im_info(im)->build_id[0] ^= 1; }
static void m_info_abi(image *im) { im_info(im)->abi_version = 1; }
static void m_remote_on(image *im) { im_sym(im, "ehelf_step_remote")->st_value++; }
static void m_local_at_info(image *im)
{
	im_sym(im, "ehelf_step_local")->st_value = im_sym(im, "ehelf_info")->st_value;
}
static void m_describe_at_remote(image *im)
{
	im_sym(im, "ehelf_describe")->st_value =
		im_sym(im, "ehelf_step_remote")->st_value;
}
static void m_info_rows(image *im) { im_info(im)->rows++; }
static void m_info_entries(image *im) { im_info(im)->entries ^= 0x100; }
static void m_info_check(image *im) { im_info(im)->check ^= 0x80000000u; }
/* ehelf_info changed and its check word recomputed: the entry points'
 * offsets, the code's size */
static void reseal(image *im)
{
	struct ehelf_info *info = im_info(im);
	info->check = eh_elf_info_check(info);
}
static void m_info_remote(image *im) { im_info(im)->off_remote += 16; reseal(im); }
static void m_info_describe(image *im) { im_info(im)->off_describe--; reseal(im); }
static void m_info_code(image *im) { im_info(im)->code_size += 8; reseal(im); }
static void m_info_order(image *im)
{
	im_info(im)->off_describe = im_info(im)->off_remote;
	reseal(im);
}

typedef struct mutation {
	const char *name;
	void (*apply)(image *);
	const char *want;      /* in the reason */
} mutation;

static const mutation mutations[] = {
	{ "DT_NEEDED added", m_needed, "DT_NEEDED: depends on another library" },
	{ "DT_INIT added", m_init, "DT_INIT: a constructor" },
	{ "DT_INIT_ARRAY added", m_init_array, "DT_INIT_ARRAY: constructors" },
	{ "DT_FINI_ARRAY added", m_fini_array, "DT_FINI_ARRAY: destructors" },
	{ "DT_RELA added", m_rela, "DT_RELA: relocations" },
	{ "DT_TEXTREL added", m_textrel, "DT_TEXTREL: relocations in code" },
	{ "DT_SONAME added", m_soname, "DT_SONAME (tag 0xe): not one the eh_elf writer emits" },
	{ "DT_SYMENT 16", m_syment, "DT_SYMENT 16, not 24" },
	{ "DT_STRTAB past the end", m_strtab, "DT_STRTAB" },
	{ "PT_INTERP", m_interp, "PT_INTERP: asks for a program interpreter" },
	{ "PT_TLS", m_tls, "PT_TLS: thread-local storage" },
	{ "PT_GNU_RELRO", m_relro, "PT_GNU_RELRO of type 0x6474e552, not in an eh_elf" },
	{ "PF_X on PT_GNU_STACK", m_execstack, "PT_GNU_STACK: executable stack" },
	{ "no PT_GNU_STACK", m_nostack, "no PT_GNU_STACK: the stack would be executable" },
	{ "W+X code segment", m_wx_code, "writable and executable" },
	{ "W+X data segment", m_wx_data, "writable and executable" },
	{ "read-only code segment", m_ro_code, "PT_LOAD 0: flags 0x4" },
	{ ".bss in the R+W segment", m_bss, "the R+W PT_LOAD is not the writer's" },
	{ "PT_DYNAMIC elsewhere", m_dyn_moved, "PT_DYNAMIC is not exactly the R+W PT_LOAD" },
	{ "40 program headers", m_phnum, "40 program headers: an eh_elf has 5" },
	{ "ET_EXEC", m_exec, "not a shared object" },
	{ "EM_386", m_i386, "not x86_64" },
	{ "undefined symbol", m_undef, "ehelf_step_remote: undefined symbol" },
	{ "absolute symbol", m_abs, "ehelf_step_remote: special section index 0xfff1" },
	{ "IFUNC symbol", m_ifunc, "ehelf_describe: an IFUNC (STT_GNU_IFUNC)" },
	{ "TLS symbol", m_tls_sym, "ehelf_info: a thread-local (STT_TLS) symbol" },
	{ "weak symbol", m_weak, "ehelf_step_local: not a global symbol" },
	{ "symbol past the code", m_beyond, "ehelf_step_local: points outside the code" },
	{ "symbol into the ELF header", m_into_header, "ehelf_step_remote: points outside the code" },
	{ "ehelf_info of 100 bytes", m_info_size, "ehelf_info: 100 bytes, not 136" },
	{ "unknown symbol name", m_symname, "(ehelf_inf0): not one of the eh_elf's four" },
	{ "hash table of 6 symbols", m_nchain, "hash table: 6 symbols" },
	{ "no ehelf note", m_no_note, "no ehelf note: not an eh_elf" },
	{ "two ehelf notes", m_two_notes, "2 ehelf notes: an eh_elf has one" },
	{ "a GNU note besides", m_gnu_note, "PT_NOTE: 1 note besides the ehelf note" },
#define STR(x) #x
#define XSTR(x) STR(x)
#define READS "; this library reads " XSTR(EHELF_ABI_VERSION) ": "
	{ "ABI version 1", m_abi1,
	  "eh_elf ABI version 1" READS "rebuild it with ehelf-batch" },
	{ "ABI version 2", m_abi2,
	  "eh_elf ABI version 2" READS "rebuild it with ehelf-batch" },
	{ "ABI version 3", m_abi3,
	  "eh_elf ABI version 3" READS "rebuild it with ehelf-batch" },
	{ "the ABI version before", m_abi_prev,
	  "eh_elf ABI version 4" READS "rebuild it with ehelf-batch" },
	{ "the ABI version after", m_abi_next,
	  "eh_elf ABI version 6" READS "a newer libehelf is needed" },
	{ "note magic", m_note_magic, "ehelf note: bad magic" },
	{ "ehelf_info's build-ID", m_info_id, "ehelf_info disagrees with the ehelf note" },
	{ "ehelf_info's ABI version", m_info_abi, "ehelf_info disagrees with the ehelf note" },
	{ "ehelf_step_remote one byte on", m_remote_on,
	  "ehelf_step_remote (0x" },
	{ "ehelf_step_local at ehelf_info", m_local_at_info,
	  "is not at the start of the code, where the eh_elf writer puts it" },
	{ "ehelf_describe at ehelf_step_remote", m_describe_at_remote,
	  "is not where the eh_elf writer put it" },
	{ "ehelf_info's rows", m_info_rows, "ehelf_info: its check word" },
	{ "ehelf_info's entries", m_info_entries, "ehelf_info: its check word" },
	{ "ehelf_info's check word", m_info_check, "ehelf_info: its check word" },
	{ "ehelf_info's off_remote, resealed", m_info_remote,
	  "ehelf_step_remote (0x" },
	{ "ehelf_info's off_describe, resealed", m_info_describe,
	  "ehelf_describe (0x" },
	{ "ehelf_info's code_size, resealed", m_info_code,
	  "is not right after the code" },
	{ "ehelf_info's entry order, resealed", m_info_order,
	  "ehelf_info: the entry points are not in the code generator's order" },
};

/* IM must be refused with WANT, as bytes and as a file. */
static void refused(const char *name, const image *im, const char *want)
{
	eh_elf_layout l;
	char why[512] = "", path[600];
	int rc = eh_elf_check(im->b, im->len, &l, why, sizeof why);
	if (verbose)
		fprintf(stderr, "  %-28s %s\n", name, why);
	CHECK(rc == -1);
	if (!strstr(why, want))
		fprintf(stderr, "%s: reason '%s', want '%s'\n", name, why, want);
	CHECK_CONTAINS(why, want);
	snprintf(path, sizeof path, "%s/mutant.so", dir);
	CHECK(write_mode(path, im->b, im->len, 0644) == 0);
	ehelf_object *o = ehelf_object_open(path);
	CHECK(o == NULL);
	ehelf_object_close(o);
	CHECK(strncmp(ehelf_last_error(), path, strlen(path)) == 0);
	CHECK_CONTAINS(ehelf_last_error(), want);
}

/* ---- the real ones -------------------------------------------------------- */

/* IM passes, loads both ways, and steps as dlopen's loading of it does. */
static void accepted(const char *name, const image *im, const char *hex)
{
	eh_elf_layout l;
	char why[512] = "", path[600];
	CHECK(eh_elf_check(im->b, im->len, &l, why, sizeof why) == 0);
	if (*why)
		fprintf(stderr, "%s: refused: %s\n", name, why);
	CHECK_U64(l.rx_size, im_phdr(im, PT_LOAD, PF_R | PF_X)->p_filesz);
	CHECK_U64(l.off_local, im_sym(im, "ehelf_step_local")->st_value);
	CHECK_U64(l.off_remote, im_sym(im, "ehelf_step_remote")->st_value);
	CHECK_U64(l.off_describe, im_sym(im, "ehelf_describe")->st_value);
	CHECK_U64(l.off_info, im_sym(im, "ehelf_info")->st_value);
	CHECK(l.abi_version == EHELF_ABI_VERSION);
	char got[BUILDID_HEX_MAX + 1] = "";
	buildid_to_hex(l.build_id, l.build_id_len, got, sizeof got);
	CHECK_STR(got, hex);

	snprintf(path, sizeof path, "%s/%s.so", dir, name);
	CHECK(write_mode(path, im->b, im->len, 0644) == 0);
	ehelf_object *o = ehelf_object_open(path);
	static const trust_policy local = { .origin = TRUST_LOCAL };
	ehelf_object *t = trust_open(path, hex, &local);
	CHECK(o != NULL && t != NULL);
	if (!o || !t) {
		fprintf(stderr, "%s: %s\n", name, ehelf_last_error());
		ehelf_object_close(o);
		ehelf_object_close(t);
		return;
	}
	CHECK(memcmp(ehelf_object_info(o), im->b + l.off_info,
		     sizeof(struct ehelf_info)) == 0);
	/* the same file through the dynamic loader (trusted: it is ours) */
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	CHECK(h != NULL);
	if (h) {
		entry_points ep = {
			(ehelf_step_local_fn)dlsym(h, "ehelf_step_local"),
			(ehelf_step_remote_fn)dlsym(h, "ehelf_step_remote"),
			(ehelf_describe_fn)dlsym(h, "ehelf_describe"),
		};
		int stepped = 0;
		CHECK(compare_loaders(o, &ep, &stepped) == 0);
		CHECK(compare_loaders(t, &ep, &stepped) == 0);
		CHECK(stepped > 0);
		if (verbose)
			fprintf(stderr, "  %s: %d pcs stepped as dlopen's\n", name,
				stepped);
		dlclose(h);
	}
	ehelf_object_close(o);
	ehelf_object_close(t);
	unlink(path);
}

/* Every length of IM short of whole is refused as truncated; cut at each
 * header boundary, the file too. */
static void truncations(const image *im)
{
	eh_elf_layout l;
	char why[512];
	int bad = 0;
	for (size_t n = 0; n < im->len; n++) {
		uint8_t *cut = malloc(n ? n : 1); /* exact: ASan sees overreads */
		memcpy(cut, im->b, n);
		why[0] = 0;
		bad += eh_elf_check(cut, n, &l, why, sizeof why) != -1 ||
		       !strstr(why, "truncated");
		free(cut);
	}
	CHECK(bad == 0);
	const Elf64_Ehdr *eh = im_ehdr(im);
	const Elf64_Phdr *rx = im_phdr(im, PT_LOAD, PF_R | PF_X);
	const Elf64_Phdr *dy = im_phdr(im, PT_DYNAMIC, 0);
	const Elf64_Phdr *nt = im_phdr(im, PT_NOTE, 0);
	uint64_t cuts[] = {
		0, 1, sizeof *eh - 1, sizeof *eh, eh->e_phoff + sizeof(Elf64_Phdr),
		eh->e_phoff + eh->e_phnum * sizeof(Elf64_Phdr) - 1,
		nt->p_offset, nt->p_offset + nt->p_filesz - 1,
		im_dyn_val(im, DT_HASH), im_dyn_val(im, DT_SYMTAB),
		im_dyn_val(im, DT_STRTAB), im_code(im), rx->p_filesz - 1,
		rx->p_filesz, dy->p_offset, dy->p_offset + dy->p_filesz - 1,
		dy->p_offset + dy->p_filesz, eh->e_shoff ? eh->e_shoff : im->len - 2,
		im->len - 1,
	};
	char path[600];
	snprintf(path, sizeof path, "%s/cut.so", dir);
	for (size_t i = 0; i < sizeof cuts / sizeof *cuts; i++) {
		if (cuts[i] >= im->len)
			continue;
		CHECK(write_mode(path, im->b, cuts[i], 0644) == 0);
		ehelf_object *o = ehelf_object_open(path);
		CHECK(o == NULL);
		ehelf_object_close(o);
		CHECK_CONTAINS(ehelf_last_error(), "truncated");
	}
	unlink(path);
}

/* ---- every byte the check can know ------------------------------------------ */

/* The byte classes of an eh_elf outside its code and tables, each of
 * whose mutants is counted on its own. */
enum byte_class { B_EHDR, B_PHDR, B_NOTE, B_HASH, B_SYM_VALUE, B_SYM, B_DYNSTR,
		  B_GAP, B_INFO_NOTE, B_INFO_STATS, B_INFO_LAYOUT, B_DYNAMIC,
		  B_SECTIONS, B_NCLASS };
static const char *const class_names[B_NCLASS] = {
	"ELF header", "program headers", "note", "hash table",
	"symbols' st_value", "symbols' other fields", ".dynstr", "gaps",
	"ehelf_info: the note's facts", "ehelf_info: statistics",
	"ehelf_info: code size, entry offsets, check word", ".dynamic",
	".shstrtab and section headers",
};

static bool in(uint64_t off, uint64_t lo, uint64_t n)
{
	return off >= lo && off < lo + n;
}

/* The class of byte OFF of IM (outside its code and tables). */
static enum byte_class class_of(const image *im, uint64_t off)
{
	const Elf64_Ehdr *eh = im_ehdr(im);
	const Elf64_Phdr *nt = im_phdr(im, PT_NOTE, 0);
	const Elf64_Phdr *dy = im_phdr(im, PT_DYNAMIC, 0);
	uint64_t info = im_sym(im, "ehelf_info")->st_value;
	uint64_t sym = im_dyn_val(im, DT_SYMTAB);
	if (in(off, 0, sizeof *eh))
		return B_EHDR;
	if (in(off, eh->e_phoff, eh->e_phnum * sizeof(Elf64_Phdr)))
		return B_PHDR;
	if (in(off, nt->p_offset, nt->p_filesz))
		return B_NOTE;
	if (in(off, im_dyn_val(im, DT_HASH), EHF_HASH_WORDS * 4))
		return B_HASH;
	if (in(off, sym, EHF_NSYMS * sizeof(Elf64_Sym)))
		return (off - sym) % sizeof(Elf64_Sym) >=
			       offsetof(Elf64_Sym, st_value) &&
		       (off - sym) % sizeof(Elf64_Sym) <
			       offsetof(Elf64_Sym, st_size) ? B_SYM_VALUE : B_SYM;
	if (in(off, im_dyn_val(im, DT_STRTAB), im_dyn_val(im, DT_STRSZ)))
		return B_DYNSTR;
	if (in(off, info, offsetof(struct ehelf_info, pc_lo)))
		return B_INFO_NOTE;
	if (in(off, info, offsetof(struct ehelf_info, code_size)))
		return B_INFO_STATS;
	if (in(off, info, sizeof(struct ehelf_info)))
		return B_INFO_LAYOUT;
	if (in(off, dy->p_offset, dy->p_filesz))
		return B_DYNAMIC;
	if (eh->e_shoff && off >= dy->p_offset + dy->p_filesz)
		return B_SECTIONS;
	return B_GAP;
}

/* Each byte of IM outside the code and tables, set to each of its other
 * 255 values: every one refused (counted by class). */
static void every_byte(const char *name, const image *base)
{
	image im = image_copy(base);
	uint64_t code = im_code(&im);
	uint64_t end_rx = im_phdr(&im, PT_LOAD, PF_R | PF_X)->p_filesz;
	uint64_t info = im_sym(&im, "ehelf_info")->st_value;
	uint64_t ranges[3][2] = { { 0, code }, { info, info + sizeof(struct ehelf_info) },
				  { end_rx, im.len } };
	eh_elf_layout l;
	char why[256];
	long mutants[B_NCLASS] = { 0 }, bad[B_NCLASS] = { 0 }, all = 0, shown = 0;
	for (int r = 0; r < 3; r++)
		for (uint64_t off = ranges[r][0]; off < ranges[r][1]; off++) {
			enum byte_class k = class_of(base, off);
			uint8_t keep = im.b[off];
			for (unsigned v = 0; v < 256; v++) {
				if (v == keep)
					continue;
				im.b[off] = (uint8_t)v;
				mutants[k]++;
				all++;
				if (eh_elf_check(im.b, im.len, &l, why, sizeof why) != 0)
					continue;
				bad[k]++;
				if (shown++ < 10)
					fprintf(stderr, "%s: byte %#llx (%s) set to %#x "
						"(from %#x) accepted\n", name,
						(unsigned long long)off,
						class_names[k], v, keep);
			}
			im.b[off] = keep;
		}
	CHECK(memcmp(im.b, base->b, im.len) == 0);
	for (int k = 0; k < B_NCLASS; k++) {
		if (verbose || bad[k])
			fprintf(stderr, "  %s: %s: %ld mutants, %ld accepted\n",
				name, class_names[k], mutants[k], bad[k]);
		CHECK(bad[k] == 0);
		/* every class is fed, but section headers only where present */
		CHECK(mutants[k] > 0 || (k == B_SECTIONS && !im_ehdr(base)->e_shoff));
	}
	CHECK(all > 100000 || (all > 40000 && !strcmp(name, "zoo")));
	free(im.b);
}

/* IM with 1 to 4096 bytes appended (zeros, or copies of its own) is
 * refused. */
static void extensions(const image *base)
{
	eh_elf_layout l;
	char why[256];
	size_t max = 4096;
	uint8_t *b = malloc(base->len + max);
	memcpy(b, base->b, base->len);
	int bad = 0;
	for (size_t n = 1; n <= max; n++) {
		b[base->len + n - 1] = (uint8_t)(n & 1 ? 0 : base->b[n % base->len]);
		why[0] = 0;
		bad += eh_elf_check(b, base->len + n, &l, why, sizeof why) != -1 ||
		       !strstr(why, "after the end of the eh_elf");
	}
	CHECK(bad == 0);
	free(b);
}

/* An image with section headers (--section-headers) stripped of them:
 * e_shoff 0, the file ending with .dynamic, as the writer's default. */
static image strip_sections(const image *im)
{
	image s = image_copy(im);
	const Elf64_Phdr *dy = im_phdr(&s, PT_DYNAMIC, 0);
	s.len = dy->p_offset + dy->p_filesz;
	Elf64_Ehdr *eh = im_ehdr(&s);
	eh->e_shoff = 0;
	eh->e_shnum = 0;
	eh->e_shstrndx = 0;
	eh->e_shentsize = 0;
	return s;
}

/* BASE, compiled with section headers: accepted; its section headers
 * are only bounds-checked; stripped of them it is the default image. */
static void check_sections(const image *base, const image *plain,
			   const char *hex)
{
	CHECK(im_ehdr(base)->e_shoff != 0 && im_ehdr(plain)->e_shoff == 0);
	accepted("with-sections", base, hex);
	image odd = image_copy(base);
	Elf64_Shdr *sh = (Elf64_Shdr *)(odd.b + im_ehdr(&odd)->e_shoff);
	sh[1].sh_offset = 0xfffffff0;
	sh[2].sh_size = ~0ull;
	refused("odd-sections", &odd, "the section headers differs");
	im_ehdr(&odd)->e_shnum = 0xff00;
	refused("section headers past the end", &odd,
		"truncated: the section headers end past");
	free(odd.b);
	image stripped = strip_sections(base);
	accepted("no-sections", &stripped, hex);
	/* no table, yet an entry size or a name table index */
	im_ehdr(&stripped)->e_shentsize = sizeof(Elf64_Shdr);
	refused("no table, an entry size", &stripped,
		"ELF header: no section headers, but a section header size");
	im_ehdr(&stripped)->e_shentsize = 0;
	im_ehdr(&stripped)->e_shstrndx = 3;
	refused("no table, a name table index", &stripped,
		"ELF header: no section headers, but a section header size");
	im_ehdr(&stripped)->e_shstrndx = SHN_UNDEF;
	CHECK(stripped.len == plain->len &&
	      memcmp(stripped.b, plain->b, plain->len) == 0);
	truncations(&stripped);
	truncations(base);
	every_byte("with-sections", base);
	extensions(base);
	free(stripped.b);
}

static void check_one(const char *name, const image *base, const char *hex)
{
	accepted(name, base, hex);

	/* relaid out: 64 bytes after the note, every offset after fixed: a
	 * valid ELF, not the writer's */
	image moved = image_copy(base);
	const Elf64_Phdr *nt = im_phdr(&moved, PT_NOTE, 0);
	image_insert(&moved, nt->p_offset + nt->p_filesz, 64);
	refused("relaid-out", &moved, "not at the start of the code");
	free(moved.b);
	every_byte(name, base);
	extensions(base);

	for (size_t i = 0; i < sizeof mutations / sizeof *mutations; i++) {
		image m = image_copy(base);
		mutations[i].apply(&m);
		refused(mutations[i].name, &m, mutations[i].want);
		free(m.b);
	}
	truncations(base);

	/* a flipped byte in the code: the structure is intact, so this check
	 * (and a local file, TRUST_LOCAL) passes; only a signature vouches
	 * for the code (test_trust.c refuses it under TRUST_SIGNED) */
	image flip = image_copy(base);
	flip.b[im_code(&flip) + 1] ^= 0x40;
	eh_elf_layout l;
	char why[512];
	CHECK(eh_elf_check(flip.b, flip.len, &l, why, sizeof why) == 0);
	free(flip.b);

	/* the wrong expected build-ID */
	char path[600];
	snprintf(path, sizeof path, "%s/real.so", dir);
	CHECK(write_mode(path, base->b, base->len, 0644) == 0);
	static const trust_policy local = { .origin = TRUST_LOCAL };
	ehelf_object *o = trust_open(path, "00112233445566778899aabbccddeeff00112233",
				     &local);
	CHECK(o == NULL);
	ehelf_object_close(o);
	char want[300];
	snprintf(want, sizeof want, "records build-ID %s, not 0011", hex);
	CHECK_CONTAINS(ehelf_last_error(), want);
	unlink(path);
}

int main(void)
{
	verbose = getenv("EHELF_TEST_VERBOSE") != NULL;
	const char *build = unit_build_dir("test_eh_elf_check");
	CHECK(mkdtemp(dir) != NULL);
	char zoo[600], hex[BUILDID_HEX_MAX + 1];
	snprintf(zoo, sizeof zoo, "%s/fixtures/zoo.so", build);
	image base;
	CHECK(image_compile(zoo, &base, hex) == 0);
	if (unit_failures)
		UNIT_DONE("test_eh_elf_check");
	check_one("zoo", &base, hex);
	image with;
	CHECK(image_compile_sections(zoo, &with, hex, true) == 0);
	if (!unit_failures)
		check_sections(&with, &base, hex);
	free(with.b);
	free(base.b);

	/* a large real one: the system's libc */
	image libc;
	if (image_compile("/lib/x86_64-linux-gnu/libc.so.6", &libc, hex) == 0) {
		accepted("libc", &libc, hex);
		every_byte("libc", &libc);
		extensions(&libc);
		truncations(&libc);
		free(libc.b);
	}
	/* nonsense the check must survive */
	eh_elf_layout l;
	char why[64];
	CHECK(eh_elf_check((const uint8_t *)"", 0, &l, why, sizeof why) == -1);
	CHECK(eh_elf_check((const uint8_t *)"\177ELF", 4, &l, why, sizeof why) == -1);
	char cmd[700];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
	UNIT_DONE("test_eh_elf_check");
}
