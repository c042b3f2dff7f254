/*
 * ehelf-compile - read an ELF's unwind tables; print them (--dump).
 *
 * Exit status: 0 success, 1 the input could not be read, 2 bad usage.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/elf_file.h"
#include "cfi/cfi_reader.h"
#include "cfi/uw_dump.h"

static void usage(FILE *out)
{
	fputs("Usage: ehelf-compile --dump [--verbose] FILE\n"
	      "\n"
	      "Read the unwind tables (.eh_frame, .debug_frame) of an x86_64\n"
	      "ELF executable, shared object or separate debug file.\n"
	      "\n"
	      "  -d, --dump     print the unwind table: one 'FDE pc=LO..HI' line\n"
	      "                 per FDE, then one line per row with the CFA and\n"
	      "                 register rules in readelf's frames-interp notation\n"
	      "  -v, --verbose  with --dump: also print each FDE's section offset\n"
	      "                 and each DWARF expression as DW_OP text\n"
	      "  -h, --help     show this help\n"
	      "\n"
	      "Exit status: 0 success, 1 unreadable or malformed input, 2 usage.\n",
	      out);
}

static int dump_file(const char *path, bool verbose)
{
	ehelf_err err = { 0 };
	elf_file f;
	if (elf_file_open(&f, path, &err) < 0) {
		fprintf(stderr, "ehelf-compile: %s\n", err.msg);
		return 1;
	}
	int status = 0;
	cfi_reader *r = cfi_reader_new();
	if (!r) {
		fprintf(stderr, "ehelf-compile: out of memory\n");
		elf_file_close(&f);
		return 1;
	}
	int rc = cfi_reader_add_elf(r, &f, &err);
	if (rc == 0)
		fprintf(stderr, "ehelf-compile: %s: no .eh_frame or .debug_frame "
			"contents\n", path);
	uw_fde fde;
	while (rc >= 0 && (rc = cfi_reader_next(r, &fde, &err)) > 0) {
		if (uw_dump_fde(stdout, &fde, verbose) < 0) {
			fprintf(stderr, "ehelf-compile: write error\n");
			status = 1;
			break;
		}
	}
	if (rc < 0) {
		fflush(stdout);
		fprintf(stderr, "ehelf-compile: %s\n", err.msg);
		status = 1;
	}
	cfi_reader_free(r);
	elf_file_close(&f);
	return status;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dump", no_argument, NULL, 'd' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool dump = false, verbose = false;
	int c;
	while ((c = getopt_long(argc, argv, "dvh", opts, NULL)) != -1) {
		switch (c) {
		case 'd': dump = true; break;
		case 'v': verbose = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!dump || optind != argc - 1) {
		fprintf(stderr, "ehelf-compile: %s\n",
			!dump ? "--dump is required" : "expected one FILE");
		usage(stderr);
		return 2;
	}
	int status = dump_file(argv[optind], verbose);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "ehelf-compile: write error on standard output\n");
		status = 1;
	}
	return status;
}
