/*
 * test_tool_quirks - pins the behaviours of the reference tools that the
 * differential tests work around (docs/differential-testing.md), so that a
 * new libdw or binutils that changes them fails here and the workaround is
 * revisited instead of silently hiding a real difference.
 *
 * Usage: test_tool_quirks BUILD_DIR   (reads BUILD_DIR/fixtures/zoo.so)
 */
#include <dwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../builder/cfi/cfi_reader.h"
#include "../unit/unit.h"
#include "libdw_frames.h"
#include "readelf_frames.h"

typedef struct find_row {
	uint64_t loc;
	char cfa[RE_STR];
	bool found;
} find_row;

static int find_loc(void *arg, const re_fde *fde)
{
	find_row *f = arg;
	for (size_t i = 0; i < fde->nrows; i++)
		if (fde->rows[i].loc == f->loc) {
			memcpy(f->cfa, fde->rows[i].cfa, RE_STR);
			f->found = true;
		}
	return 0;
}

int main(int argc, char **argv)
{
	char path[512];
	snprintf(path, sizeof path, "%s/fixtures/zoo.so",
		 argc > 1 ? argv[1] : "build");
	ehelf_err err = { 0 };
	elf_file f;
	CHECK(elf_file_open(&f, path, &err) == 0);
	char why[512];
	libdw_cfi dw;
	CHECK(libdw_cfi_open(&dw, path, why, sizeof why) == 0);
	cfi_reader *r = cfi_reader_new();
	CHECK(cfi_reader_add_elf(r, &f, &err) == 1);
	uw_fde fde;
	int defaults_checked = 0, lax_checked = 0;
	while (cfi_reader_next(r, &fde, &err) > 0) {
		for (size_t i = 0; i < fde.nrows; i++) {
			const uw_row *row = &fde.rows[i];
			Dwarf_Frame *frame = NULL;
			if (dwarf_cfi_addrframe(dw.eh, row->lo, &frame) != 0)
				continue;
			Dwarf_Op mem[3], *ops;
			size_t nops;
			/* 1. libdw's x86_64 ABI defaults for registers without
			 *    a rule: rax is "same value", rbx "undefined" (its
			 *    backend encodes register 0 under a %rbx comment). */
			if (row->r.reg[0].kind == UW_UNSET &&
			    row->r.reg[3].kind == UW_UNSET) {
				CHECK(dwarf_frame_register(frame, 0, mem, &ops,
							   &nops) == 0);
				CHECK(nops == 0 && ops == NULL); /* same value */
				CHECK(dwarf_frame_register(frame, 3, mem, &ops,
							   &nops) == 0);
				CHECK(nops == 0 && ops != NULL); /* undefined */
				defaults_checked++;
			}
			/* 2. DW_CFA_def_cfa_register after an expression:
			 *    libdw calls the CFA invalid, readelf (like libgcc)
			 *    keeps the offset given before the expression. */
			if (row->r.cfa.lax && row->r.cfa.kind == UW_CFA_REG_OFF) {
				CHECK(dwarf_frame_cfa(frame, &ops, &nops) != 0);
				find_row fr = { .loc = row->lo };
				CHECK(readelf_frames(path, find_loc, &fr, why,
						     sizeof why) == 0);
				char want[32];
				snprintf(want, sizeof want, "%s+%lld",
					 row->r.cfa.reg == 7 ? "rsp" : "?",
					 (long long)row->r.cfa.off);
				CHECK(fr.found);
				CHECK_STR(fr.cfa, want);
				lax_checked++;
			}
			free(frame);
		}
	}
	CHECK(defaults_checked > 0);
	CHECK(lax_checked > 0);
	cfi_reader_free(r);
	libdw_cfi_close(&dw);
	elf_file_close(&f);
	UNIT_DONE("test_tool_quirks");
}
