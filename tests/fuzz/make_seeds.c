/*
 * make-seeds - seed corpus for fuzz_cfi from real ELF files: one input per
 * distinct FDE, holding its CIE and the FDE as a two-entry section, in
 * fuzz_cfi's input format.
 *
 * Usage: make-seeds OUTDIR MAX FILE...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/dwarf/cfi_entry.h"
#include "../../common/elf_file.h"

static unsigned long hash(const uint8_t *p, size_t n)
{
	unsigned long h = 5381;
	while (n--)
		h = h * 33 + *p++;
	return h;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: make-seeds OUTDIR MAX FILE...\n");
		return 2;
	}
	long max = atol(argv[2]), written = 0;
	static unsigned long seen[1 << 16];
	for (int a = 3; a < argc && written < max; a++) {
		elf_file f;
		ehelf_err err;
		if (elf_file_open(&f, argv[a], &err) < 0)
			continue;
		const char *names[] = { ".eh_frame", ".debug_frame" };
		for (int k = 0; k < 2; k++) {
			elf_section es;
			if (elf_file_section(&f, names[k], &es, &err) < 0 ||
			    es.nobits)
				continue;
			cfi_section s = { .file = argv[a], .name = names[k],
					  .is_eh = k == 0, .data = es.data,
					  .size = es.size, .vaddr = es.addr };
			cfi_entry e, c;
			for (uint64_t off = 0;
			     written < max && cfi_entry_read(&s, off, &e, &err) > 0;
			     off = e.next) {
				if (e.kind != CFI_ENTRY_FDE ||
				    cfi_entry_read(&s, e.cie_offset, &c, &err) <= 0)
					continue;
				size_t clen = c.next - c.offset;
				size_t flen = e.next - e.offset;
				unsigned long h = hash(s.data + e.offset, flen);
				if (seen[h & 0xffff] == h)
					continue;
				seen[h & 0xffff] = h;
				/* CIE then FDE; fix the FDE's CIE pointer */
				uint8_t *buf = malloc(9 + clen + flen);
				buf[0] = k == 0;
				uint64_t vaddr = s.vaddr + c.offset;
				memcpy(buf + 1, &vaddr, 8);
				memcpy(buf + 9, s.data + c.offset, clen);
				memcpy(buf + 9 + clen, s.data + e.offset, flen);
				if (flen >= 8 && buf[9 + clen] != 0xff) {
					uint32_t ptr = k == 0 ? (uint32_t)(clen + 4) : 0;
					memcpy(buf + 9 + clen + 4, &ptr, 4);
				}
				char path[4096];
				snprintf(path, sizeof path, "%s/seed-%06ld",
					 argv[1], written++);
				FILE *out = fopen(path, "wb");
				if (out) {
					fwrite(buf, 1, 9 + clen + flen, out);
					fclose(out);
				}
				free(buf);
			}
		}
		elf_file_close(&f);
	}
	printf("make-seeds: %ld seeds in %s\n", written, argv[1]);
	return 0;
}
