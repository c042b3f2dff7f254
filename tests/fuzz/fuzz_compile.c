/*
 * fuzz_compile.c - libFuzzer target for the compiler (ehelf_compile_reader)
 * on DWARF expressions and FDE layouts: every table it accepts must give
 * an eh_elf the loader accepts (ehelf_object_open) and that passes
 * codegen-check's comparison (tests/codegen/table_check.h: every row, both
 * entry points and the row summaries against ir_eval, overlapping FDEs by
 * the ownership rule, "not covered" past them); a refusal must say why.
 * Run with -timeout and -rss_limit_mb (tests/fuzz/run-fuzz-compile.sh):
 * a compile or a step that does not end, or a compile whose memory follows
 * the address span, is a failure.
 *
 * Input: records of an FDE each, until the input ends (at most 64):
 *   byte 0   flags: bit 0 in .debug_frame (else .eh_frame); bits 1-2 what
 *            the payload is: 0 CFA instructions, 1 a CFA expression
 *            (DW_CFA_def_cfa_expression), 2 a register's value expression,
 *            3 a register's location expression (DW_CFA_val_expression,
 *            DW_CFA_expression; the register is bits 3-5: 0..7, 16 for 7);
 *            bit 6 the length in 16 MiB units (.eh_frame) or 4 GiB units
 *            (.debug_frame), else in bytes; bit 7 a signal frame's CIE
 *   byte 1-2 start, from 0x10000 (little-endian)
 *   byte 3   length
 *   byte 4   payload size (then that many bytes)
 * Each section starts with CIEs of CFA rsp+8, return address at CFA-8.
 */
#include <dwarf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../builder/cfi/cfi_reader.h"
#include "../../builder/codegen/compile.h"
#include "../codegen/table_check.h"
#include "../unit/cfi_build.h"

enum { VADDR = 0x400000, BASE = 0x10000, MAX_FDES = 64 };

typedef struct sections {
	bbuf eh, dbg;
	size_t cie_eh[2], cie_dbg;
} sections;

/* The sections of DATA; false if they would not fit. */
static bool build(sections *s, const uint8_t *data, size_t size)
{
	s->eh.n = s->dbg.n = 0;
	s->cie_eh[0] = b_cie_rsp8(&s->eh, true, false);
	s->cie_eh[1] = b_cie_rsp8(&s->eh, true, true);
	s->cie_dbg = b_cie_rsp8(&s->dbg, false, false);
	size_t p = 0;
	for (int k = 0; k < MAX_FDES && size - p >= 5; k++) {
		uint8_t flags = data[p];
		uint64_t lo = BASE + (uint64_t)(data[p + 1] | data[p + 2] << 8);
		uint64_t len = data[p + 3];
		size_t m = data[p + 4];
		p += 5;
		if (m > size - p)
			m = size - p;
		bool debug = flags & 1;
		if (flags & 0x40)
			len <<= debug ? 32 : 24;
		bbuf *b = debug ? &s->dbg : &s->eh;
		if (b->n + 64 + m > sizeof b->d)
			return false;
		size_t at = b_begin32(b);
		if (debug) {
			b_u32(b, (uint32_t)s->cie_dbg);
			b_u64(b, lo);
			b_u64(b, len);
		} else {
			b_u32(b, (uint32_t)(b->n - s->cie_eh[flags >> 7]));
			b_u32(b, (uint32_t)(lo - (VADDR + b->n)));
			b_u32(b, (uint32_t)len);
			b_uleb(b, 0);
		}
		unsigned wrap = (flags >> 1) & 3, reg = (flags >> 3) & 7;
		if (wrap == 1)
			b_u8(b, DW_CFA_def_cfa_expression);
		else if (wrap)
			b_u8(b, wrap == 2 ? DW_CFA_val_expression : DW_CFA_expression);
		if (wrap >= 2)
			b_uleb(b, reg == 7 ? 16 : reg);
		if (wrap)
			b_uleb(b, m);
		b_bytes(b, data + p, m);
		p += m;
		b_pad(b, at);
		b_end32(b, at);
	}
	b_u32(&s->eh, 0);
	return true;
}

static sections secs;

static cfi_reader *open_sections(void *arg)
{
	(void)arg;
	cfi_section eh = { .file = "fuzz", .name = ".eh_frame", .is_eh = true,
			   .data = secs.eh.d, .size = secs.eh.n, .vaddr = VADDR };
	cfi_section dbg = { .file = "fuzz", .name = ".debug_frame",
			    .data = secs.dbg.d, .size = secs.dbg.n };
	cfi_reader *r = cfi_reader_new();
	if (r && (cfi_reader_add_section(r, &eh) < 0 ||
		  cfi_reader_add_section(r, &dbg) < 0)) {
		cfi_reader_free(r);
		return NULL;
	}
	return r;
}

static bool report(void *arg, const char *line)
{
	(void)arg;
	fputs(line, stderr);
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	if (!path[0]) {
		if (table_check_init() < 0)
			abort();
		snprintf(path, sizeof path, "/tmp/fuzz_compile.%d.so", (int)getpid());
	}
	if (!build(&secs, data, size))
		return 0;
	cfi_reader *r = open_sections(NULL);
	if (!r)
		return 0;
	uint8_t *image = NULL;
	size_t len = 0;
	ehelf_compile_stats st;
	ehelf_err err = { 0 };
	int rc = ehelf_compile_reader(r, "fuzz", NULL, &image, &len, &st, &err);
	cfi_reader_free(r);
	if (rc < 0) {
		if (!err.msg[0] || image)
			__builtin_trap(); /* a refusal says why, and returns nothing */
		return 0;
	}
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, image, len) != (ssize_t)len || close(fd) != 0)
		abort();
	free(image);
	ehelf_object *o = ehelf_object_open(path);
	if (!o) {
		fprintf(stderr, "the loader refuses the eh_elf: %s\n",
			ehelf_last_error());
		__builtin_trap();
	}
	table_counters c = { 0 };
	table_check_env env = { .random = 2, .report = report,
				.open = open_sections };
	table_check(o, "fuzz", &env, &c);
	ehelf_object_close(o);
	if (c.mismatches || c.errors || c.unsupported_rows > st.unsupported_rows) {
		fprintf(stderr, "codegen-check: %llu mismatches, %llu errors, "
			"%llu unsupported rows (compiler: %llu)\n",
			(unsigned long long)c.mismatches,
			(unsigned long long)c.errors,
			(unsigned long long)c.unsupported_rows,
			(unsigned long long)st.unsupported_rows);
		__builtin_trap();
	}
	ehelf_compile_stats_free(&st);
	return 0;
}
