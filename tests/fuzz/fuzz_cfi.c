/*
 * fuzz_cfi.c - libFuzzer target for the CFI reader.
 *
 * Input: byte 0 selects the section kind (bit 0: .eh_frame, else
 * .debug_frame), bytes 1..8 are the section's link-time address, the rest
 * is the section.  Every FDE is read and dumped verbosely (which decodes
 * every expression), and DW_EH_PE_indirect reads are served from the
 * section itself, so all of the reader's code runs on the input.
 */
#include <stdio.h>
#include <string.h>

#include "../../builder/cfi/cfi_reader.h"
#include "../../builder/cfi/uw_dump.h"

typedef struct image {
	const uint8_t *data;
	size_t size;
	uint64_t vaddr;
} image;

static int read_from_section(void *arg, uint64_t addr, uint64_t *value)
{
	const image *im = arg;
	if (addr < im->vaddr || addr - im->vaddr > im->size ||
	    im->size - (addr - im->vaddr) < 8)
		return -1;
	memcpy(value, im->data + (addr - im->vaddr), 8);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	if (!sink)
		sink = fopen("/dev/null", "w");
	if (size < 9)
		return 0;
	image im = { .data = data + 9, .size = size - 9 };
	memcpy(&im.vaddr, data + 1, 8);
	bool is_eh = data[0] & 1;
	cfi_section s = { .file = "fuzz", .name = is_eh ? ".eh_frame"
							 : ".debug_frame",
			  .is_eh = is_eh, .data = im.data, .size = im.size,
			  .vaddr = im.vaddr, .read_u64 = read_from_section,
			  .arg = &im };
	cfi_reader *r = cfi_reader_new();
	if (!r)
		return 0;
	cfi_reader_add_section(r, &s);
	uw_fde fde;
	ehelf_err err;
	while (cfi_reader_next(r, &fde, &err) > 0) {
		for (size_t i = 0; i < fde.nrows; i++)
			if (fde.rows[i].lo >= fde.rows[i].hi ||
			    fde.rows[i].lo < fde.lo || fde.rows[i].hi > fde.hi)
				__builtin_trap(); /* rows must tile the FDE */
		uw_dump_fde(sink, &fde, true);
	}
	cfi_reader_free(r);
	return 0;
}
