/* eh_elf_writer.c - see eh_elf_writer.h.  The layout and every byte
 * outside the blob are common/eh_elf_format.h's, which the validator
 * compares files with. */
#include "eh_elf_writer.h"

#include <stdlib.h>
#include <string.h>

#include "../../common/eh_elf_format.h"
#include "../../abi/ehelf_abi.h"
#include "../../common/err.h"

/* The parts are what the code generator emits: the entry points in its
 * order inside the code, ehelf_info right after the code (8-aligned),
 * the code under the 4 GiB ehelf_info's offsets can name. */
static bool parts_fit(const eh_elf_parts *p, size_t code_align)
{
	return p->build_id_len <= 64 && code_align % 8 == 0 && code_align <= 64 &&
	       p->code_size <= p->blob_size && p->code_size <= UINT32_MAX &&
	       p->off_local == 0 && p->off_local < p->off_remote &&
	       p->off_remote < p->off_describe && p->off_describe < p->code_size &&
	       p->info_size == sizeof(struct ehelf_info) &&
	       p->off_info == ehf_align(p->code_size, 8) &&
	       p->off_info + p->info_size <= p->blob_size;
}

int eh_elf_write(const eh_elf_parts *p, uint8_t **out, size_t *len)
{
	size_t code_align = p->code_align ? p->code_align : 64;
	if (!parts_fit(p, code_align))
		return ERR_ARG;
	_Static_assert(sizeof EHF_DYNSTR == 62, "dynstr offsets");
	_Static_assert(sizeof EHELF_NOTE_NAME > 4 &&
		       sizeof EHELF_NOTE_NAME <= EHF_NOTE_NAME_PAD,
		       "the note's name (ehelf_abi.h) takes 8 bytes padded");
	/* section headers only when asked for: only inspection tools read
	 * them (650 bytes, a quarter of a small eh_elf) */
	eh_elf_offsets o = eh_elf_offsets_of(p->build_id_len, code_align,
					     p->blob_size, p->section_headers);
	uint8_t *f = calloc(1, o.total);
	if (!f)
		return ERR_NOMEM;

	eh_elf_ehdr(&o, (Elf64_Ehdr *)f);
	Elf64_Phdr ph[EHF_NPHDR];
	eh_elf_phdrs(&o, ph);
	memcpy(f + o.phdr, ph, sizeof ph);

	eh_elf_note_head(&o, f + o.note);
	struct ehelf_note note = { .magic = EHELF_INFO_MAGIC,
				   .abi_version = EHELF_ABI_VERSION,
				   .build_id_len = (uint32_t)p->build_id_len };
	uint8_t *desc = f + o.note + sizeof(Elf64_Nhdr) + EHF_NOTE_NAME_PAD;
	memcpy(desc, &note, sizeof note);
	if (p->build_id_len)
		memcpy(desc + sizeof note, p->build_id, p->build_id_len);

	uint32_t hash[EHF_HASH_WORDS];
	eh_elf_hash(hash);
	memcpy(f + o.hash, hash, sizeof hash);
	Elf64_Sym sym[EHF_NSYMS];
	eh_elf_syms(o.blob + p->off_local, o.blob + p->off_remote,
		    o.blob + p->off_info, o.blob + p->off_describe, p->info_size,
		    sym);
	memcpy(f + o.dynsym, sym, sizeof sym);
	memcpy(f + o.dynstr, EHF_DYNSTR, sizeof EHF_DYNSTR);

	memcpy(f + o.blob, p->blob, p->blob_size);
	struct ehelf_info info;
	memcpy(&info, f + o.blob + p->off_info, sizeof info);
	eh_elf_info_seal(&info, p->code_size, p->off_remote, p->off_describe);
	memcpy(f + o.blob + p->off_info, &info, sizeof info);

	Elf64_Dyn dyn[EHF_NDYN];
	eh_elf_dyns(&o, dyn);
	memcpy(f + o.dyn, dyn, sizeof dyn);

	if (p->section_headers) {
		memcpy(f + o.shstr, EHF_SHSTR, sizeof EHF_SHSTR);
		Elf64_Shdr sh[EHF_NSHDR];
		eh_elf_shdrs(&o, p->code_size, sh);
		memcpy(f + o.shdr, sh, sizeof sh);
	}
	*out = f;
	*len = o.total;
	return 0;
}
