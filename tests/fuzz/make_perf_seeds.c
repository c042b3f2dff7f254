/*
 * make_perf_seeds - seeds for fuzz_perf's saved-table mode: the symbol
 * table of each ELF given, saved (symtab_save) for fuzz_perf's key, as one
 * seed file each in DIR, prefixed by the mode byte (3).
 * Usage: make-perf-seeds DIR ELF...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tools/ehelf-perf/perfdata/symbols.h"

static const uint64_t FUZZ_KEY[SYMTAB_KEY_WORDS] = { 1, 2, 3, 4 };

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: make-perf-seeds DIR ELF...\n");
		return 2;
	}
	int made = 0;
	for (int i = 2; i < argc; i++) {
		ehelf_err err = { 0 };
		symtab *s = symtab_load_elf(argv[i], NULL, 0, &err);
		if (!s) {
			fprintf(stderr, "make-perf-seeds: %s\n", err.msg);
			continue;
		}
		char tab[4096], seed[4096];
		snprintf(tab, sizeof tab, "%s/table-%d.tab", argv[1], i);
		snprintf(seed, sizeof seed, "%s/table-%d", argv[1], i);
		if (symtab_save(s, FUZZ_KEY, tab, &err) == 0) {
			FILE *in = fopen(tab, "rb"), *out = fopen(seed, "wb");
			if (in && out) {
				fputc(3, out);
				char buf[65536];
				size_t k;
				while ((k = fread(buf, 1, sizeof buf, in)) > 0)
					fwrite(buf, 1, k, out);
				made++;
			}
			if (in)
				fclose(in);
			if (out)
				fclose(out);
			remove(tab);
		} else {
			fprintf(stderr, "make-perf-seeds: %s\n", err.msg);
		}
		symtab_free(s);
	}
	return made ? 0 : 1;
}
