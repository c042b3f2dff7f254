/*
 * test_fde_overlap - where FDEs overlap, an address belongs to the FDE
 * docs/eh_elf.md names ("Overlapping FDEs"; builder/codegen/fde_owner.h):
 * in .eh_frame, the FDE with the greatest start at or before it (the
 * first in the section among equal starts), none if the address is past
 * that FDE's end; .debug_frame, by the same rule, fills only what
 * .eh_frame leaves.  Hand-built sections of nested, equal-start and
 * partly overlapping FDEs and one of no length, compiled (ehelf_compile_reader), loaded
 * (ehelf_object_open) and stepped in both modes at the addresses where
 * the rule decides.
 */
#define _GNU_SOURCE
#include <dwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../builder/cfi/cfi_reader.h"
#include "../../builder/codegen/compile.h"
#include "../../client-lib/include/ehelf.h"
#include "cfi_build.h"
#include "unit.h"

enum { VADDR = 0x400000 };

/* One FDE: [lo, lo + len), CFA rsp+off0, then rsp+off1 from lo + at (at
 * 0: no second row). */
typedef struct fde_spec {
	uint64_t lo, len;
	uint8_t off0, at, off1;
} fde_spec;

static void instructions(bbuf *b, const fde_spec *f)
{
	if (f->off0 != 8) {
		b_u8(b, DW_CFA_def_cfa_offset);
		b_uleb(b, f->off0);
	}
	if (f->at) {
		b_u8(b, DW_CFA_advance_loc1);
		b_u8(b, f->at);
		b_u8(b, DW_CFA_def_cfa_offset);
		b_uleb(b, f->off1);
	}
}

/* A CIE of CFA rsp+8, return address at CFA-8, then FDE... (.eh_frame:
 * pc-relative 4-byte addresses at VADDR; .debug_frame: 8-byte ones). */
static void section(bbuf *b, bool eh, const fde_spec *f, size_t n)
{
	b->n = 0;
	size_t cie = b_cie_rsp8(b, eh, false);
	for (size_t i = 0; i < n; i++) {
		size_t at = b_begin32(b);
		if (eh) {
			b_u32(b, (uint32_t)(b->n - cie));
			b_u32(b, (uint32_t)(f[i].lo - (VADDR + b->n)));
			b_u32(b, (uint32_t)f[i].len);
			b_uleb(b, 0);
		} else {
			b_u32(b, (uint32_t)cie);
			b_u64(b, f[i].lo);
			b_u64(b, f[i].len);
		}
		instructions(b, &f[i]);
		b_pad(b, at);
		b_end32(b, at);
	}
	if (eh)
		b_u32(b, 0);
}

static const fde_spec eh_fdes[] = {
	/* nested: B inside A */
	{ 0x1000, 0x100, 8, 0x80, 16 },   /* A */
	{ 0x1040, 0x20, 32, 0, 0 },       /* B */
	/* equal starts: the first wins */
	{ 0x2000, 0x10, 8, 0x08, 16 },    /* C */
	{ 0x2000, 0x10, 24, 0, 0 },       /* D */
	{ 0x2004, 0, 40, 0, 0 },          /* of no length: ignored */
	/* partly overlapping: F from its start */
	{ 0x3000, 0x40, 8, 0x20, 16 },    /* E */
	{ 0x3030, 0x30, 40, 0, 0 },       /* F */
	/* inside G of .debug_frame */
	{ 0x4040, 0x40, 8, 0, 0 },        /* H */
};

static const fde_spec debug_fdes[] = {
	{ 0x4000, 0x100, 48, 0, 0 },      /* G: around H */
	{ 0x3000, 0x60, 56, 0, 0 },       /* I: all of it in .eh_frame */
	{ 0x1000, 0x100, 64, 0, 0 },      /* J: fills A's end past B */
};

/* pc -> the CFA offset the rule gives, 0 for "not covered" */
static const struct { uint64_t pc, cfa; } want[] = {
	{ 0x1000, 8 }, { 0x103f, 8 }, { 0x1040, 32 }, { 0x105f, 32 },
	{ 0x1060, 64 }, { 0x1090, 64 }, { 0x10ff, 64 }, { 0x1100, 0 },
	{ 0x2000, 8 }, { 0x2007, 8 }, { 0x2008, 16 }, { 0x200f, 16 },
	{ 0x2010, 0 },
	{ 0x3000, 8 }, { 0x3020, 16 }, { 0x302f, 16 }, { 0x3030, 40 },
	{ 0x303f, 40 }, { 0x3050, 40 }, { 0x305f, 40 }, { 0x3060, 0 },
	{ 0x3fff, 0 }, { 0x4000, 48 }, { 0x403f, 48 }, { 0x4040, 8 },
	{ 0x407f, 8 }, { 0x4080, 48 }, { 0x40ff, 48 }, { 0x4100, 0 },
};

static uint64_t stack[16];

static int read_stack(void *arg, uint64_t addr, uint64_t *value)
{
	(void)arg;
	uint64_t lo = (uint64_t)(uintptr_t)stack;
	if (addr < lo || addr > lo + sizeof stack - 8)
		return -1;
	memcpy(value, (const void *)(uintptr_t)addr, 8);
	return 0;
}

int main(void)
{
	static bbuf eh, dbg;
	section(&eh, true, eh_fdes, sizeof eh_fdes / sizeof *eh_fdes);
	section(&dbg, false, debug_fdes, sizeof debug_fdes / sizeof *debug_fdes);
	cfi_section s[2] = {
		{ .file = "synthetic", .name = ".eh_frame", .is_eh = true,
		  .data = eh.d, .size = eh.n, .vaddr = VADDR },
		{ .file = "synthetic", .name = ".debug_frame", .data = dbg.d,
		  .size = dbg.n },
	};
	cfi_reader *r = cfi_reader_new();
	CHECK(cfi_reader_add_section(r, &s[0]) == 0);
	CHECK(cfi_reader_add_section(r, &s[1]) == 0);
	uint8_t *image = NULL;
	size_t len = 0;
	ehelf_compile_stats st;
	ehelf_err err = { 0 };
	int rc = ehelf_compile_reader(r, "synthetic", NULL, &image, &len, &st,
				      &err);
	cfi_reader_free(r);
	CHECK(rc == 0);
	if (rc) {
		fprintf(stderr, "compile: %s\n", err.msg);
		UNIT_DONE("test_fde_overlap");
	}
	CHECK(st.overlaps > 0);
	char path[] = "/tmp/test_fde_overlap-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0 && write(fd, image, len) == (ssize_t)len);
	close(fd);
	ehelf_object *o = ehelf_object_open(path);
	unlink(path);
	free(image);
	ehelf_compile_stats_free(&st);
	CHECK(o != NULL);
	if (!o)
		UNIT_DONE("test_fde_overlap");
	uint64_t lo = (uint64_t)(uintptr_t)stack, hi = lo + sizeof stack;
	for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
		ehelf_regs in = { .valid = EHELF_VALID_REGS }, out;
		in.r[EHELF_RSP] = lo;
		in.r[EHELF_RIP] = want[i].pc;
		for (int mode = 0; mode < 2; mode++) {
			int got = mode ? ehelf_object_step_local(o, want[i].pc, &in,
								 &out, lo, hi)
				       : ehelf_object_step(o, want[i].pc, &in, &out,
							   read_stack, NULL);
			bool ok = want[i].cfa ? got == 0 &&
				  out.r[EHELF_RSP] == lo + want[i].cfa
					      : got == EHELF_E_NOT_COVERED;
			CHECK(ok);
			if (!ok)
				fprintf(stderr, "  pc 0x%llx (%s): status %d, cfa "
					"rsp+%lld, want %s%llu\n",
					(unsigned long long)want[i].pc,
					mode ? "local" : "remote", got,
					(long long)(out.r[EHELF_RSP] - lo),
					want[i].cfa ? "rsp+" : "not covered ",
					(unsigned long long)want[i].cfa);
		}
	}
	ehelf_object_close(o);
	UNIT_DONE("test_fde_overlap");
}
