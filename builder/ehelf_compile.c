/*
 * ehelf-compile - compile an ELF's unwind tables into an eh_elf (signed
 * with --sign-key, its statistics as JSON with --json, checked against the
 * build-ID a server asked for with --expect-build-id, completed from a
 * separate debug file with --debug-file), or print them (--dump), or save
 * the running kernel's vDSO as a file to compile (--extract-vdso).
 *
 * Exit status: 0 success, 1 the input could not be read or compiled, 2 bad
 * usage, 3 the input has no unwind tables (ehelf-server then asks its
 * upstream for the debuginfo).
 */
#include <elf.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <time.h>
#include <unistd.h>

#include "../common/atomic_file.h"
#include "../common/buildid.h"
#include "../common/eh_elf_check.h"
#include "../common/elf_file.h"
#include "../common/sign.h"
#include "../abi/ehelf_abi.h"
#include "cfi/cfi_reader.h"
#include "cfi/uw_dump.h"
#include "codegen/compile.h"

static void usage(FILE *out)
{
	fputs("Usage: ehelf-compile FILE -o OUT.so [--stats | --json] [--sign-key KEY]\n"
	      "                     [--expect-build-id HEX] [--debug-file DEBUG]\n"
	      "                     [--section-headers]\n"
	      "       ehelf-compile --dump [--verbose] FILE\n"
	      "       ehelf-compile --extract-vdso FILE\n"
	      "\n"
	      "Compile the unwind tables (.eh_frame, .debug_frame) of an x86_64\n"
	      "ELF executable, shared object or separate debug file into an\n"
	      "eh_elf (see abi/ehelf_abi.h), or print them.\n"
	      "\n"
	      "  -o, --output OUT  write the eh_elf to OUT (atomically)\n"
	      "  -s, --stats       print sizes, counts, timing and every rule\n"
	      "                    set that could not be compiled\n"
	      "      --json        print the statistics as one JSON object:\n"
	      "                    build_id, output_bytes, code_bytes, table_bytes,\n"
	      "                    fdes, rows, rulesets, entries, overlaps,\n"
	      "                    unsupported_rulesets, unsupported_rows,\n"
	      "                    eh_frame_bytes, eh_frame_hdr_bytes,\n"
	      "                    debug_frame_bytes, compile_ms, abi_version,\n"
	      "                    generator_version, sha256 (of OUT), signed_by\n"
	      "      --sign-key KEY  sign the eh_elf with the Ed25519 private key\n"
	      "                    in PEM file KEY (openssl genpkey -algorithm\n"
	      "                    ed25519): OUT.sig, written before OUT (see\n"
	      "                    docs/signatures.md); without it, a stale\n"
	      "                    OUT.sig is removed\n"
	      "      --build-id HEX  record this build-ID instead of the file's\n"
	      "      --expect-build-id HEX  refuse (status 1) unless FILE's own\n"
	      "                    build-ID is HEX\n"
	      "      --debug-file DEBUG  also read the .debug_frame of DEBUG, a\n"
	      "                    separate debug file of FILE (the same build-ID,\n"
	      "                    else refused), for the addresses FILE's own\n"
	      "                    tables do not cover\n"
	      "      --section-headers  add section headers (.text, .rodata, ...)\n"
	      "                    for readelf -S and objdump -d; the loader does\n"
	      "                    not need them\n"
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
	      "Exit status: 0 success, 1 unreadable or malformed input (or not\n"
	      "the expected build-ID), 2 usage (an unusable --sign-key too),\n"
	      "3 no unwind tables (no .eh_frame or .debug_frame contents).\n",
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

typedef struct compile_job {
	const char *src, *out;
	const char *expect;          /* --expect-build-id, or NULL */
	const char *debug;           /* --debug-file, or NULL */
	const sign_key *key;         /* --sign-key, or NULL */
	bool stats, json;
	ehelf_compile_opts opts;     /* build_id from --build-id */
} compile_job;

static void print_json(const ehelf_compile_stats *s, double seconds,
		       const char *build_id, const char *sha256,
		       const char *signed_by)
{
	printf("{\"build_id\": %s%s%s, \"output_bytes\": %" PRIu64
	       ", \"code_bytes\": %" PRIu64 ", \"table_bytes\": %" PRIu64
	       ", \"fdes\": %" PRIu64 ", \"rows\": %" PRIu64 ", \"rulesets\": %u"
	       ", \"entries\": %" PRIu64 ", \"overlaps\": %" PRIu64
	       ", \"unsupported_rulesets\": %zu, \"unsupported_rows\": %" PRIu64
	       ", \"eh_frame_bytes\": %" PRIu64 ", \"eh_frame_hdr_bytes\": %" PRIu64
	       ", \"debug_frame_bytes\": %" PRIu64 ", \"compile_ms\": %.3f"
	       ", \"abi_version\": %d, \"generator_version\": %d"
	       ", \"sha256\": \"%s\", \"signed_by\": %s%s%s}\n",
	       build_id ? "\"" : "", build_id ? build_id : "null",
	       build_id ? "\"" : "", s->output_bytes, s->code_bytes,
	       s->table_bytes, s->fdes, s->rows, s->rulesets - 1, s->entries,
	       s->overlaps, s->nunsupported, s->unsupported_rows,
	       s->eh_frame_bytes, s->eh_frame_hdr_bytes, s->debug_frame_bytes,
	       seconds * 1e3, EHELF_ABI_VERSION, EHELF_GENERATOR_VERSION, sha256,
	       signed_by ? "\"" : "", signed_by ? signed_by : "null",
	       signed_by ? "\"" : "");
}

/* The build-ID F's eh_elf records (--build-id, else its own) into HEX;
 * false when it has none. */
static bool recorded_build_id(elf_file *f, const ehelf_compile_opts *o,
			      char *hex, size_t n)
{
	const uint8_t *id = o->build_id;
	int len = (int)o->build_id_len;
	if (!id)
		len = elf_file_build_id(f, &id);
	return len > 0 && buildid_to_hex(id, (size_t)len, hex, n) > 0;
}

/* Write IMAGE to OUT, with its signature OUT.sig first when signed (LINE
 * not NULL), else with a stale OUT.sig removed first. */
static int write_output(const char *out, const uint8_t *image, size_t len,
			const char *line, ehelf_err *err)
{
	char sig[4200];
	if (snprintf(sig, sizeof sig, "%s.sig", out) >= (int)sizeof sig)
		return err_set(err, ERR_ARG, "%s: path too long", out);
	int rc = 0;
	if (line)
		rc = atomic_write(sig, NULL, line, strlen(line), err);
	else if (unlink(sig) < 0 && errno != ENOENT)
		rc = err_set(err, ERR_IO, "%s: cannot remove the stale "
			     "signature: %s", sig, strerror(errno));
	return rc < 0 ? rc : atomic_write(out, NULL, image, len, err);
}

/* Does the loader accept IMAGE?  The check the loader runs on every eh_elf
 * it opens (eh_elf_check): what the compiler writes is never what the
 * loader refuses.  Returns 0, or ERR_UNSUPPORTED with the reason. */
static int loader_accepts(const char *src, const uint8_t *image, size_t len,
			  ehelf_err *err)
{
	eh_elf_layout l;
	char why[256];
	if (eh_elf_check(image, len, &l, why, sizeof why) < 0)
		return err_set(err, ERR_UNSUPPORTED, "%s: its eh_elf would be "
			       "refused by the loader (%s): not written", src, why);
	return 0;
}

/* Open the input (and the debug file), check the expected build-ID,
 * compile, check with the loader, sign, write; print the statistics. */
static int compile_file(compile_job *j)
{
	ehelf_err err = { 0 };
	elf_file f, dbg;
	bool have_dbg = false;
	char hex[BUILDID_HEX_MAX + 1] = "", line[SIG_LINE_MAX], sha[65];
	uint8_t *image = NULL;
	size_t len = 0;
	ehelf_compile_stats st = { 0 };
	if (elf_file_open(&f, j->src, &err) < 0) {
		fprintf(stderr, "ehelf-compile: %s\n", err.msg);
		return 1;
	}
	int rc = 0;
	bool has_id = recorded_build_id(&f, &j->opts, hex, sizeof hex);
	if (j->expect && (!has_id || strcmp(hex, j->expect) != 0))
		rc = err_set(&err, ERR_NOTFOUND, "%s: build-ID %s, not the expected "
			     "%s", j->src, has_id ? hex : "(none)", j->expect);
	else if (j->key && !has_id)
		rc = err_set(&err, ERR_ARG, "%s has no build-ID: give --build-id "
			     "to sign its eh_elf", j->src);
	if (rc == 0 && j->debug) {
		rc = elf_file_open(&dbg, j->debug, &err);
		have_dbg = rc == 0;
		j->opts.debug_file = have_dbg ? &dbg : NULL;
	}
	double t0 = now();
	bool no_cfi = false;
	if (rc == 0) {
		rc = ehelf_compile_elf(&f, &j->opts, &image, &len, &st, &err);
		no_cfi = rc == ERR_NOTFOUND;
	}
	double t1 = now();
	if (have_dbg)
		elf_file_close(&dbg);
	elf_file_close(&f);
	if (rc == 0)
		rc = loader_accepts(j->src, image, len, &err);
	if (rc == 0 && j->key)
		rc = sign_ehelf(j->key, hex, image, len, line, sizeof line, &err);
	if (rc >= 0)
		rc = write_output(j->out, image, len, j->key ? line : NULL, &err);
	if (rc == 0 && j->stats)
		print_stats(j->src, &st, t1 - t0);
	if (rc == 0 && j->json) {
		sign_sha256_hex(image, len, sha);
		print_json(&st, t1 - t0, has_id ? hex : NULL, sha,
			   j->key ? sign_key_id(j->key) : NULL);
	}
	free(image);
	ehelf_compile_stats_free(&st);
	if (rc < 0) {
		fprintf(stderr, "ehelf-compile: %s\n", err.msg);
		return no_cfi ? 3 : 1;
	}
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
	enum { OPT_BUILD_ID = 256, OPT_VDSO, OPT_JSON, OPT_SIGN_KEY, OPT_EXPECT,
	       OPT_DEBUG_FILE, OPT_SECTIONS };
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "stats", no_argument, NULL, 's' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "sign-key", required_argument, NULL, OPT_SIGN_KEY },
		{ "build-id", required_argument, NULL, OPT_BUILD_ID },
		{ "expect-build-id", required_argument, NULL, OPT_EXPECT },
		{ "debug-file", required_argument, NULL, OPT_DEBUG_FILE },
		{ "section-headers", no_argument, NULL, OPT_SECTIONS },
		{ "extract-vdso", required_argument, NULL, OPT_VDSO },
		{ "dump", no_argument, NULL, 'd' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool dump = false, verbose = false;
	const char *vdso = NULL, *key_path = NULL;
	uint8_t id[BUILDID_MAX_BYTES];
	compile_job j = { 0 };
	int c, n;
	while ((c = getopt_long(argc, argv, "o:sdvh", opts, NULL)) != -1) {
		switch (c) {
		case 'o': j.out = optarg; break;
		case 's': j.stats = true; break;
		case 'd': dump = true; break;
		case 'v': verbose = true; break;
		case OPT_JSON: j.json = true; break;
		case OPT_SIGN_KEY: key_path = optarg; break;
		case OPT_DEBUG_FILE: j.debug = optarg; break;
		case OPT_SECTIONS: j.opts.section_headers = true; break;
		case OPT_BUILD_ID:
		case OPT_EXPECT:
			n = buildid_from_hex(optarg, id, sizeof id);
			if (n < 0) {
				fprintf(stderr, "ehelf-compile: --%s: '%s' is not "
					"2..128 lowercase hex digits\n",
					c == OPT_EXPECT ? "expect-build-id"
							: "build-id", optarg);
				return 2;
			}
			if (c == OPT_EXPECT) {
				j.expect = optarg;
			} else {
				j.opts.build_id = id;
				j.opts.build_id_len = (size_t)n;
			}
			break;
		case OPT_VDSO: vdso = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	bool compile_only = j.stats || j.json || key_path || j.expect || j.debug ||
			    j.opts.build_id || j.opts.section_headers;
	const char *problem = NULL;
	if (vdso && (optind != argc || dump || j.out || compile_only))
		problem = "--extract-vdso takes no other argument";
	else if (vdso)
		return extract_vdso(vdso);
	else if (optind != argc - 1)
		problem = "expected one FILE";
	else if (dump && (j.out || compile_only))
		problem = "--dump takes only --verbose";
	else if (!dump && !j.out)
		problem = "nothing to do: give -o OUT.so or --dump";
	else if (j.stats && j.json)
		problem = "--stats and --json exclude each other";
	else if (j.expect && j.opts.build_id)
		problem = "--build-id and --expect-build-id exclude each other";
	if (problem) {
		fprintf(stderr, "ehelf-compile: %s\n", problem);
		usage(stderr);
		return 2;
	}
	sign_key *key = NULL;
	ehelf_err err = { 0 };
	if (key_path && sign_key_load(&key, key_path, &err) < 0) {
		fprintf(stderr, "ehelf-compile: --sign-key: %s\n", err.msg);
		return 2;
	}
	j.src = argv[optind];
	j.key = key;
	int status = dump ? dump_file(j.src, verbose) : compile_file(&j);
	sign_key_free(key);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "ehelf-compile: write error on standard output\n");
		status = 1;
	}
	return status;
}
