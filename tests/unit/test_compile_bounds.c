/*
 * test_compile_bounds - the compiler's cost follows the table's rows, not
 * the addresses they span (docs/eh_elf.md, "Bounds"):
 *  - a 17 KB-class ELF whose one .debug_frame FDE spans 128 GiB is refused
 *    early by ehelf-compile (status 1, the span and the widest FDE named,
 *    nothing written, the process's peak memory small) and by the library
 *    (ERR_UNSUPPORTED, the message the batch builder records);
 *  - an FDE of 64 MiB, within the bound, compiles to an eh_elf the loader
 *    accepts, no larger than the bound says, that steps right at both ends
 *    (and ehelf-compile writes nothing when it cannot have the loader
 *    check its output);
 *  - the compiler's size limit is the loader's.
 */
#define _GNU_SOURCE
#include <dwarf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../builder/cfi/cfi_reader.h"
#include "../../builder/codegen/compile.h"
#include "../../builder/codegen/lookup_table.h"
#include "../../common/eh_elf_check.h"
#include "../../client-lib/include/ehelf.h"
#include "cfi_build.h"
#include "unit.h"

static char dir[] = "/tmp/test_compile_bounds.XXXXXX";

enum { FN = 0x10000 };

/* A .debug_frame (CIE version 4, 8-byte addresses) with one FDE over
 * [FN, FN + SPAN): CFA rsp+8 at FN, rsp+16 from FN + 4. */
static void debug_frame(bbuf *b, uint64_t span)
{
	b->n = 0;
	size_t cie = b_begin32(b);
	b_u32(b, DW_CIE_ID_32);
	b_u8(b, 4); b_str(b, ""); b_u8(b, 8); b_u8(b, 0);
	b_uleb(b, 1); b_sleb(b, -8); b_uleb(b, 16);
	b_u8(b, DW_CFA_def_cfa); b_uleb(b, 7); b_uleb(b, 8);
	b_u8(b, DW_CFA_offset | 16); b_uleb(b, 1);
	b_pad(b, cie);
	b_end32(b, cie);
	size_t f = b_begin32(b);
	b_u32(b, (uint32_t)cie);
	b_u64(b, FN); b_u64(b, span);
	b_u8(b, DW_CFA_advance_loc | 4);
	b_u8(b, DW_CFA_def_cfa_offset); b_uleb(b, 16);
	b_pad(b, f);
	b_end32(b, f);
}

/* ehelf-compile IN -o OUT in a child (with $TMPDIR set to TMPDIR unless
 * NULL), stderr to DIR/err; its exit status (-1 if killed) and peak
 * resident memory in KiB. */
static int compile_cli(const char *build, const char *in, const char *out,
		       const char *tmpdir, long *maxrss_kib)
{
	char prog[600], err[600];
	snprintf(prog, sizeof prog, "%s/bin/ehelf-compile", build);
	snprintf(err, sizeof err, "%s/err", dir);
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd >= 0)
			dup2(fd, 2);
		alarm(60);
		if (tmpdir)
			setenv("TMPDIR", tmpdir, 1);
		execl(prog, prog, in, "-o", out, (char *)NULL);
		_exit(127);
	}
	int status = 0;
	struct rusage ru = { 0 };
	if (pid < 0 || wait4(pid, &status, 0, &ru) != pid)
		return -1;
	*maxrss_kib = ru.ru_maxrss;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static const char *slurp_err(void)
{
	static char text[4096];
	char p[600];
	snprintf(p, sizeof p, "%s/err", dir);
	FILE *f = fopen(p, "r");
	size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
	text[n] = '\0';
	if (f)
		fclose(f);
	return text;
}

/* An ELF: the fixture zoo.so with its own tables replaced by B as its
 * .debug_frame; its path into PATH. */
static void make_elf(const char *build, const bbuf *b, const char *name,
		     char *path, size_t n)
{
	char sec[600], cmd[2400];
	snprintf(sec, sizeof sec, "%s/%s.debug_frame", dir, name);
	FILE *f = fopen(sec, "wb");
	CHECK(f && fwrite(b->d, 1, b->n, f) == b->n);
	if (f)
		fclose(f);
	snprintf(path, n, "%s/%s.so", dir, name);
	snprintf(cmd, sizeof cmd, "objcopy --remove-section .eh_frame "
		 "--remove-section .eh_frame_hdr --remove-section .debug_frame "
		 "--add-section .debug_frame='%s' '%s/fixtures/zoo.so' '%s'",
		 sec, build, path);
	CHECK(system(cmd) == 0);
}

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* The library on section B alone: its return code, the message in ERR,
 * the image (freed by the caller) in *IMAGE, *LEN. */
static int compile_lib(const bbuf *b, uint8_t **image, size_t *len,
		       ehelf_compile_stats *st, ehelf_err *err)
{
	cfi_section s = { .file = "synthetic", .name = ".debug_frame",
			  .data = b->d, .size = b->n };
	cfi_reader *r = cfi_reader_new();
	cfi_reader_add_section(r, &s);
	int rc = ehelf_compile_reader(r, "synthetic", NULL, image, len, st, err);
	cfi_reader_free(r);
	return rc;
}

static void huge_span(const char *build)
{
	static bbuf b;
	debug_frame(&b, 128ull << 30);
	uint8_t *image = NULL;
	size_t len = 0;
	ehelf_compile_stats st;
	ehelf_err err = { 0 };
	CHECK(compile_lib(&b, &image, &len, &st, &err) == ERR_UNSUPPORTED);
	CHECK(image == NULL);
	CHECK_CONTAINS(err.msg, "span 128.0 GiB");
	CHECK_CONTAINS(err.msg, ".debug_frame+0x18");
	CHECK_CONTAINS(err.msg, "refused");

	char elf[600], out[600];
	make_elf(build, &b, "huge", elf, sizeof elf);
	struct stat sst;
	CHECK(stat(elf, &sst) == 0 && sst.st_size < 256 << 10);
	snprintf(out, sizeof out, "%s/huge.eh", dir);
	long rss = 0;
	CHECK(compile_cli(build, elf, out, NULL, &rss) == 1);
	CHECK_CONTAINS(slurp_err(), "span 128.0 GiB");
	CHECK_CONTAINS(slurp_err(), "refused");
	CHECK(!exists(out));
	/* refused before the span costs anything: far below the 3 GiB the
	 * span's page records would take (the sanitizer build included) */
	CHECK(rss > 0 && rss < 256 << 10);
	if (rss >= 256 << 10)
		fprintf(stderr, "  ehelf-compile peaked at %ld KiB\n", rss);
}

static void step_at(const ehelf_object *o, uint64_t pc, uint64_t cfa_off)
{
	static uint64_t stack[64];
	ehelf_regs in = { .valid = EHELF_VALID_REGS }, out;
	in.r[EHELF_RSP] = (uint64_t)(uintptr_t)stack;
	in.r[EHELF_RIP] = pc;
	for (int i = 0; i < 64; i++)
		stack[i] = 0x1000 + (uint64_t)i;
	uint64_t lo = (uint64_t)(uintptr_t)stack;
	CHECK(ehelf_object_step_local(o, pc, &in, &out, lo, lo + sizeof stack) == 0);
	CHECK_U64(out.r[EHELF_RSP], in.r[EHELF_RSP] + cfa_off);
	CHECK_U64(out.r[EHELF_RIP], stack[cfa_off / 8 - 1]);
}

static void span_within_bound(const char *build)
{
	static bbuf b;
	uint64_t span = 64ull << 20;
	debug_frame(&b, span);
	uint8_t *image = NULL;
	size_t len = 0;
	ehelf_compile_stats st;
	ehelf_err err = { 0 };
	CHECK(compile_lib(&b, &image, &len, &st, &err) == 0);
	if (!image) {
		fprintf(stderr, "  compile: %s\n", err.msg);
		return;
	}
	/* the documented bound: page records, 3 bytes an entry, and a
	 * fixed part (headers, code, rule sets) under 64 KiB here */
	CHECK(len <= LT_REC_FLOOR + (LT_REC_PER_ENTRY + 3) * st.entries + (64 << 10));
	free(image);
	ehelf_compile_stats_free(&st);

	char elf[600], out[600];
	make_elf(build, &b, "wide", elf, sizeof elf);
	snprintf(out, sizeof out, "%s/wide.eh", dir);
	long rss = 0;
	/* the output is checked in memory, as the loader checks it, before
	 * it is written: no temporary file, so a TMPDIR that does not exist
	 * is no obstacle */
	char nowhere[700];
	snprintf(nowhere, sizeof nowhere, "%s/no-such-dir", dir);
	CHECK(compile_cli(build, elf, out, nowhere, &rss) == 0);
	CHECK(unlink(out) == 0);
	CHECK(compile_cli(build, elf, out, NULL, &rss) == 0);
	ehelf_object *o = ehelf_object_open(out);
	CHECK(o != NULL);
	if (!o)
		return;
	step_at(o, FN, 8);
	step_at(o, FN + 4, 16);
	step_at(o, FN + span - 1, 16);
	ehelf_regs in = { .valid = EHELF_VALID_REGS }, outr;
	CHECK(ehelf_object_step_local(o, FN + span, &in, &outr, 0, UINT64_MAX) ==
	      EHELF_E_NOT_COVERED);
	ehelf_object_close(o);
}

int main(void)
{
	const char *build = unit_build_dir("test_compile_bounds");
	CHECK(mkdtemp(dir) != NULL);
	CHECK_U64(EHELF_COMPILE_MAX_BYTES, EH_ELF_MAX_BYTES);
	huge_span(build);
	span_within_bound(build);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
	UNIT_DONE("test_compile_bounds");
}
