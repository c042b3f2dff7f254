/*
 * ehelf-compile - compile an ELF's unwind tables into an eh_elf, or print
 * them (--dump), or save the running kernel's vDSO as a file to compile
 * (--extract-vdso).
 *
 * Exit status: 0 success, 1 the input could not be read or compiled, 2 bad
 * usage.
 */
#include <elf.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <time.h>

#include "../common/atomic_file.h"
#include "../common/buildid.h"
#include "../common/elf_file.h"
#include "cfi/cfi_reader.h"
#include "cfi/uw_dump.h"
#include "codegen/compile.h"

static void usage(FILE *out)
{
	fputs("Usage: ehelf-compile FILE -o OUT.so [--stats]\n"
	      "       ehelf-compile --dump [--verbose] FILE\n"
	      "       ehelf-compile --extract-vdso FILE\n"
	      "\n"
	      "Compile the unwind tables (.eh_frame, .debug_frame) of an x86_64\n"
	      "ELF executable, shared object or separate debug file into an\n"
	      "eh_elf (see client-lib/include/ehelf_abi.h), or print them.\n"
	      "\n"
	      "  -o, --output OUT  write the eh_elf to OUT (atomically)\n"
	      "  -s, --stats       print sizes, counts, timing and every rule\n"
	      "                    set that could not be compiled\n"
	      "      --build-id HEX  record this build-ID instead of the file's\n"
	      "  -d, --dump        print the unwind table: one 'FDE pc=LO..HI'\n"
	      "                    line per FDE, then one line per row with the CFA\n"
	      "                    and register rules in readelf's frames-interp\n"
	      "                    notation\n"
	      "  -v, --verbose     with --dump: also print each FDE's section\n"
	      "                    offset and each DWARF expression as DW_OP text\n"
	      "      --extract-vdso FILE  write this kernel's vDSO (an ELF image\n"
	      "                    mapped into every process, with unwind tables\n"
	      "                    and a build-ID) to FILE, to compile it like\n"
	      "                    any other ELF\n"
	      "  -h, --help        show this help\n"
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

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void print_stats(const char *src, const ehelf_compile_stats *s,
			double seconds)
{
	uint64_t in = s->eh_frame_bytes + s->eh_frame_hdr_bytes;
	printf("source:            %s\n", src);
	printf(".eh_frame:         %" PRIu64 " bytes\n", s->eh_frame_bytes);
	printf(".eh_frame_hdr:     %" PRIu64 " bytes\n", s->eh_frame_hdr_bytes);
	printf(".debug_frame:      %" PRIu64 " bytes\n", s->debug_frame_bytes);
	printf("eh_elf:            %" PRIu64 " bytes (code %" PRIu64
	       ", tables %" PRIu64 ")\n", s->output_bytes, s->code_bytes,
	       s->table_bytes);
	if (in)
		printf("size ratio:        %.3f of .eh_frame + .eh_frame_hdr\n",
		       (double)s->output_bytes / (double)in);
	printf("FDEs:              %" PRIu64 "\n", s->fdes);
	printf("rows:              %" PRIu64 "\n", s->rows);
	printf("table entries:     %" PRIu64 "\n", s->entries);
	printf("rule sets:         %u\n", s->rulesets - 1);
	printf("overlapping rows:  %" PRIu64 "\n", s->overlaps);
	printf("unsupported:       %zu rule sets, %" PRIu64 " rows\n",
	       s->nunsupported, s->unsupported_rows);
	for (size_t i = 0; i < s->nunsupported; i++)
		printf("  rule set %u (%" PRIu64 " rows, e.g. pc 0x%" PRIx64
		       "): %s\n", s->unsupported[i].ruleset, s->unsupported[i].rows,
		       s->unsupported[i].example_pc, s->unsupported[i].why);
	printf("compile time:      %.3f ms\n", seconds * 1e3);
	if (seconds > 0 && s->eh_frame_bytes)
		printf("throughput:        %.1f MiB/s of .eh_frame\n",
		       (double)s->eh_frame_bytes / seconds / (1 << 20));
}

static int parse_build_id(const char *hex, uint8_t *id, size_t *len)
{
	if (!buildid_valid_hex(hex))
		return -1;
	*len = strlen(hex) / 2;
	for (size_t i = 0; i < *len; i++)
		sscanf(hex + 2 * i, "%2hhx", &id[i]);
	return 0;
}

static int compile_file(const char *src, const char *out, bool stats,
			const ehelf_compile_opts *opts)
{
	ehelf_err err = { 0 };
	ehelf_compile_stats st;
	double t0 = now();
	int rc = ehelf_compile_file(src, out, opts, &st, &err);
	double t1 = now();
	if (rc < 0) {
		fprintf(stderr, "ehelf-compile: %s\n", err.msg);
		return 1;
	}
	if (stats)
		print_stats(src, &st, t1 - t0);
	ehelf_compile_stats_free(&st);
	return 0;
}

/* The vDSO's image as mapped in this process: its ELF header says how far
 * it extends (the section headers come last). */
static int extract_vdso(const char *path)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shoff > (1u << 20) ||
	    eh->e_shnum > 1024) {
		fprintf(stderr, "ehelf-compile: this process has no usable vDSO\n");
		return 1;
	}
	size_t size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	ehelf_err err = { 0 };
	if (atomic_write(path, NULL, eh, size, &err) < 0) {
		fprintf(stderr, "ehelf-compile: %s\n", err.msg);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	enum { OPT_BUILD_ID = 256, OPT_VDSO };
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "stats", no_argument, NULL, 's' },
		{ "build-id", required_argument, NULL, OPT_BUILD_ID },
		{ "extract-vdso", required_argument, NULL, OPT_VDSO },
		{ "dump", no_argument, NULL, 'd' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool dump = false, verbose = false, stats = false;
	const char *out = NULL, *vdso = NULL;
	uint8_t id[64];
	ehelf_compile_opts copts = { 0 };
	int c;
	while ((c = getopt_long(argc, argv, "o:sdvh", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 's': stats = true; break;
		case 'd': dump = true; break;
		case 'v': verbose = true; break;
		case OPT_BUILD_ID:
			if (parse_build_id(optarg, id, &copts.build_id_len) < 0) {
				fprintf(stderr, "ehelf-compile: --build-id: '%s' is "
					"not 2..128 lowercase hex digits\n", optarg);
				return 2;
			}
			copts.build_id = id;
			break;
		case OPT_VDSO: vdso = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	const char *problem = NULL;
	if (vdso && (optind != argc || dump || out || stats))
		problem = "--extract-vdso takes no other argument";
	else if (vdso)
		return extract_vdso(vdso);
	else if (optind != argc - 1)
		problem = "expected one FILE";
	else if (dump && out)
		problem = "--dump and --output exclude each other";
	else if (!dump && !out)
		problem = "nothing to do: give -o OUT.so or --dump";
	if (problem) {
		fprintf(stderr, "ehelf-compile: %s\n", problem);
		usage(stderr);
		return 2;
	}
	int status = dump ? dump_file(argv[optind], verbose)
			  : compile_file(argv[optind], out, stats, &copts);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "ehelf-compile: write error on standard output\n");
		status = 1;
	}
	return status;
}
