/*
 * test_cfi_reader.c - the CFI reader on hand-built .eh_frame/.debug_frame
 * images: every call-frame instruction, CIE version, augmentation, pointer
 * encoding and entry framing the reader claims, the exact rows it must give,
 * and the errors (with file and offset) it must report on malformed input.
 * Real-binary coverage is in tests/diff (readelf and libdw comparisons).
 */
#define _GNU_SOURCE
#include <dwarf.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../builder/cfi/cfi_reader.h"
#include "../../builder/cfi/uw_dump.h"
#include "cfi_build.h"
#include "unit.h"

enum { VADDR = 0x400000 };

/* Read a section; return its dump (malloc'd) or NULL with *rc < 0. */
static char *dump(const bbuf *b, bool is_eh, bool verbose, int *rc,
		  ehelf_err *err, cfi_reader_stats *stats)
{
	cfi_section s = { .file = "test.so",
			  .name = is_eh ? ".eh_frame" : ".debug_frame",
			  .is_eh = is_eh, .data = b->d, .size = b->n,
			  .vaddr = is_eh ? VADDR : 0 };
	cfi_reader *r = cfi_reader_new();
	cfi_reader_add_section(r, &s);
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	uw_fde fde;
	while ((*rc = cfi_reader_next(r, &fde, err)) > 0)
		uw_dump_fde(out, &fde, verbose);
	if (stats)
		*stats = *cfi_reader_get_stats(r);
	cfi_reader_free(r);
	fclose(out);
	if (*rc < 0) {
		free(text);
		return NULL;
	}
	return text;
}

static void expect_dump(const bbuf *b, bool is_eh, const char *want)
{
	int rc;
	ehelf_err err = { 0 };
	char *got = dump(b, is_eh, false, &rc, &err, NULL);
	CHECK(rc == 0);
	if (rc < 0)
		fprintf(stderr, "  reader error: %s\n", err.msg);
	CHECK_STR(got ? got : "", want);
	free(got);
}

static void expect_error(const bbuf *b, bool is_eh, int code,
			 const char *msg_part)
{
	int rc;
	ehelf_err err = { 0 };
	char *got = dump(b, is_eh, false, &rc, &err, NULL);
	CHECK(rc == code);
	CHECK_CONTAINS(err.msg, "test.so: ");
	CHECK_CONTAINS(err.msg, msg_part);
	if (rc != code || !strstr(err.msg, msg_part))
		fprintf(stderr, "  got rc %d: %s\n", rc, err.msg);
	free(got);
}

/* GCC's usual CIE: "zR", pcrel|sdata4 addresses, CFA rsp+8, ra at CFA-8. */
static size_t gcc_cie(bbuf *b, const char *aug, const uint8_t *augdata,
		      size_t augn)
{
	size_t at = b_begin32(b);
	b_u32(b, 0);      /* CIE id */
	b_u8(b, 1);       /* version */
	b_str(b, aug);
	b_uleb(b, 1);     /* code alignment */
	b_sleb(b, -8);    /* data alignment */
	b_u8(b, 16);      /* return address column */
	if (aug[0] == 'z') {
		b_uleb(b, augn);
		b_bytes(b, augdata, augn);
	}
	b_u8(b, DW_CFA_def_cfa); b_uleb(b, 7); b_uleb(b, 8);
	b_u8(b, DW_CFA_offset | 16); b_uleb(b, 1);
	b_pad(b, at);
	b_end32(b, at);
	return at;
}

static size_t std_cie(bbuf *b)
{
	static const uint8_t enc = DW_EH_PE_pcrel | DW_EH_PE_sdata4;
	return gcc_cie(b, "zR", &enc, 1);
}

/* Begin an FDE for CIE at CIE_AT with pcrel|sdata4 addresses; the caller
 * appends instructions and calls fde_end(). */
static size_t fde_begin(bbuf *b, size_t cie_at, uint64_t lo, uint64_t len,
			bool zaug)
{
	size_t at = b_begin32(b);
	b_u32(b, (uint32_t)(b->n - cie_at));
	b_u32(b, (uint32_t)(int32_t)(lo - (VADDR + b->n)));
	b_u32(b, (uint32_t)len);
	if (zaug)
		b_uleb(b, 0);
	return at;
}

static void fde_end(bbuf *b, size_t at)
{
	b_pad(b, at);
	b_end32(b, at);
}

static void test_basic(void)
{
	bbuf b = { .n = 0 };
	size_t cie = std_cie(&b);
	size_t f = fde_begin(&b, cie, 0x1000, 0x10, true);
	b_u8(&b, DW_CFA_advance_loc | 1);
	b_u8(&b, DW_CFA_def_cfa_offset); b_uleb(&b, 16);
	b_u8(&b, DW_CFA_offset | 6); b_uleb(&b, 2);
	b_u8(&b, DW_CFA_advance_loc | 3);
	b_u8(&b, DW_CFA_def_cfa_register); b_uleb(&b, 6);
	fde_end(&b, f);
	b_u32(&b, 0); /* terminator */
	expect_dump(&b, true,
		    "FDE pc=0000000000001000..0000000000001010\n"
		    "0000000000001000 cfa=rsp+8 ra=c-8\n"
		    "0000000000001001 cfa=rsp+16 rbp=c-16 ra=c-8\n"
		    "0000000000001004 cfa=rbp+16 rbp=c-16 ra=c-8\n");
}

/* Every register rule and CFA form, one per row. */
static void test_all_rules(void)
{
	bbuf b = { .n = 0 };
	size_t cie = std_cie(&b);
	size_t f = fde_begin(&b, cie, 0x2000, 0x100, true);
	b_u8(&b, DW_CFA_offset_extended); b_uleb(&b, 3); b_uleb(&b, 2);
	b_u8(&b, DW_CFA_offset_extended_sf); b_uleb(&b, 12); b_sleb(&b, -4);
	b_u8(&b, DW_CFA_GNU_negative_offset_extended); b_uleb(&b, 13); b_uleb(&b, 5);
	b_u8(&b, DW_CFA_val_offset); b_uleb(&b, 14); b_uleb(&b, 3);
	b_u8(&b, DW_CFA_val_offset_sf); b_uleb(&b, 15); b_sleb(&b, -1);
	b_u8(&b, DW_CFA_register); b_uleb(&b, 10); b_uleb(&b, 9);
	b_u8(&b, DW_CFA_same_value); b_uleb(&b, 8);
	b_u8(&b, DW_CFA_undefined); b_uleb(&b, 1);
	b_u8(&b, DW_CFA_GNU_args_size); b_uleb(&b, 32);
	b_u8(&b, DW_CFA_nop);
	b_u8(&b, DW_CFA_advance_loc1); b_u8(&b, 0x10);
	b_u8(&b, DW_CFA_expression); b_uleb(&b, 5); b_uleb(&b, 2);
	b_u8(&b, DW_OP_breg6); b_sleb(&b, -16);
	b_u8(&b, DW_CFA_val_expression); b_uleb(&b, 4); b_uleb(&b, 2);
	b_u8(&b, DW_OP_breg7); b_sleb(&b, 24);
	b_u8(&b, DW_CFA_def_cfa_expression); b_uleb(&b, 3);
	b_u8(&b, DW_OP_breg6); b_sleb(&b, -8); b_u8(&b, DW_OP_deref);
	b_u8(&b, DW_CFA_advance_loc2); b_u16(&b, 0x10);
	b_u8(&b, DW_CFA_def_cfa_sf); b_uleb(&b, 10); b_sleb(&b, -2);
	b_u8(&b, DW_CFA_restore | 3);
	b_u8(&b, DW_CFA_restore_extended); b_uleb(&b, 12);
	b_u8(&b, DW_CFA_advance_loc4); b_u32(&b, 0x10);
	b_u8(&b, DW_CFA_def_cfa_offset_sf); b_sleb(&b, -3);
	b_u8(&b, DW_CFA_restore_extended); b_uleb(&b, 16); /* CIE: c-8 */
	b_u8(&b, DW_CFA_undefined); b_uleb(&b, 16);
	b_u8(&b, DW_CFA_MIPS_advance_loc8); b_u64(&b, 0x10);
	b_u8(&b, DW_CFA_def_cfa); b_uleb(&b, 13); b_uleb(&b, 0);
	fde_end(&b, f);
	expect_dump(&b, true,
		    "FDE pc=0000000000002000..0000000000002100\n"
		    "0000000000002000 cfa=rsp+8 rdx=u rbx=c-16 r8=s r10=r9 "
		    "r12=c+32 r13=c+40 r14=v-24 r15=v+8 ra=c-8\n"
		    "0000000000002010 cfa=exp rdx=u rbx=c-16 rsi=vexp rdi=exp "
		    "r8=s r10=r9 r12=c+32 r13=c+40 r14=v-24 r15=v+8 ra=c-8\n"
		    "0000000000002020 cfa=r10+16 rdx=u rsi=vexp rdi=exp r8=s "
		    "r10=r9 r13=c+40 r14=v-24 r15=v+8 ra=c-8\n"
		    "0000000000002030 cfa=r10+24 rdx=u rsi=vexp rdi=exp r8=s "
		    "r10=r9 r13=c+40 r14=v-24 r15=v+8 ra=u\n"
		    "0000000000002040 cfa=r13+0 rdx=u rsi=vexp rdi=exp r8=s "
		    "r10=r9 r13=c+40 r14=v-24 r15=v+8 ra=u\n");
	/* the expressions are kept as bytes and printed as DW_OP text */
	int rc;
	ehelf_err err = { 0 };
	char *v = dump(&b, true, true, &rc, &err, NULL);
	CHECK(v != NULL);
	if (v) {
		CHECK_CONTAINS(v, "    cfa: DW_OP_breg6 (rbp): -8; DW_OP_deref\n");
		CHECK_CONTAINS(v, "    rsi: DW_OP_breg7 (rsp): 24\n");
		CHECK_CONTAINS(v, "    rdi: DW_OP_breg6 (rbp): -16\n");
		CHECK_CONTAINS(v, "  # .eh_frame+0x18 cie=0x0\n");
	}
	free(v);
}

/* remember/restore_state restore the whole row, the CFA included. */
static void test_remember_restore(void)
{
	bbuf b = { .n = 0 };
	size_t cie = std_cie(&b);
	size_t f = fde_begin(&b, cie, 0x3000, 0x20, true);
	b_u8(&b, DW_CFA_advance_loc | 1);
	b_u8(&b, DW_CFA_def_cfa_offset); b_uleb(&b, 16);
	b_u8(&b, DW_CFA_offset | 3); b_uleb(&b, 2);
	b_u8(&b, DW_CFA_advance_loc | 1);
	b_u8(&b, DW_CFA_remember_state);
	b_u8(&b, DW_CFA_remember_state);
	b_u8(&b, DW_CFA_def_cfa_offset); b_uleb(&b, 8);
	b_u8(&b, DW_CFA_restore | 3);
	b_u8(&b, DW_CFA_advance_loc | 1);
	b_u8(&b, DW_CFA_restore_state);
	b_u8(&b, DW_CFA_advance_loc | 1);
	b_u8(&b, DW_CFA_restore_state);
	fde_end(&b, f);
	expect_dump(&b, true,
		    "FDE pc=0000000000003000..0000000000003020\n"
		    "0000000000003000 cfa=rsp+8 ra=c-8\n"
		    "0000000000003001 cfa=rsp+16 rbx=c-16 ra=c-8\n"
		    "0000000000003002 cfa=rsp+8 ra=c-8\n"
		    "0000000000003003 cfa=rsp+16 rbx=c-16 ra=c-8\n");
}

/* Advances that change nothing merge; rows past the FDE end are dropped;
 * an FDE at address 0 is skipped. */
static void test_merge_clip_skip(void)
{
	bbuf b = { .n = 0 };
	size_t cie = std_cie(&b);
	size_t f = fde_begin(&b, cie, 0x4000, 0x8, true);
	b_u8(&b, DW_CFA_advance_loc | 2);
	b_u8(&b, DW_CFA_nop);
	b_u8(&b, DW_CFA_advance_loc | 2);
	b_u8(&b, DW_CFA_def_cfa_offset); b_uleb(&b, 16);
	b_u8(&b, DW_CFA_advance_loc | 0);  /* empty row */
	b_u8(&b, DW_CFA_def_cfa_offset); b_uleb(&b, 24);
	b_u8(&b, DW_CFA_advance_loc | 8);  /* past the end */
	b_u8(&b, DW_CFA_def_cfa_offset); b_uleb(&b, 32);
	fde_end(&b, f);
	f = fde_begin(&b, cie, 0, 0x10, true); /* discarded function */
	fde_end(&b, f);
	int rc;
	ehelf_err err = { 0 };
	cfi_reader_stats st;
	char *got = dump(&b, true, false, &rc, &err, &st);
	CHECK_STR(got ? got : "",
		  "FDE pc=0000000000004000..0000000000004008\n"
		  "0000000000004000 cfa=rsp+8 ra=c-8\n"
		  "0000000000004004 cfa=rsp+24 ra=c-8\n");
	CHECK_U64(st.fdes, 1);
	CHECK_U64(st.fdes_at_zero, 1);
	CHECK_U64(st.rows, 2);
	CHECK_U64(st.cies, 1);
	free(got);
}

/* Zero terminators in the middle, trailing padding, 64-bit lengths. */
static void test_framing(void)
{
	bbuf b = { .n = 0 };
	size_t cie = std_cie(&b);
	size_t f = fde_begin(&b, cie, 0x5000, 0x4, true);
	fde_end(&b, f);
	b_u32(&b, 0); /* a terminator left by a partial link */
	/* a 64-bit CIE and FDE */
	size_t cie64 = b_begin64(&b);
	b_u64(&b, 0);  /* CIE id */
	b_u8(&b, 1); b_str(&b, "zR"); b_uleb(&b, 1); b_sleb(&b, -8);
	b_u8(&b, 16); b_uleb(&b, 1); b_u8(&b, DW_EH_PE_udata8);
	b_u8(&b, DW_CFA_def_cfa); b_uleb(&b, 7); b_uleb(&b, 16);
	b_end64(&b, cie64);
	size_t f64 = b_begin64(&b);
	b_u64(&b, b.n - cie64); /* back from this field to the CIE */
	b_u64(&b, 0x6000); b_u64(&b, 0x10); b_uleb(&b, 0);
	b_end64(&b, f64);
	b_u32(&b, 0);
	b_u8(&b, 0); b_u8(&b, 0); /* alignment padding */
	int rc;
	ehelf_err err = { 0 };
	cfi_reader_stats st;
	char *got = dump(&b, true, false, &rc, &err, &st);
	CHECK(rc == 0);
	CHECK_STR(got ? got : err.msg,
		  "FDE pc=0000000000005000..0000000000005004\n"
		  "0000000000005000 cfa=rsp+8 ra=c-8\n"
		  "FDE pc=0000000000006000..0000000000006010\n"
		  "0000000000006000 cfa=rsp+16\n");
	CHECK_U64(st.zero_entries, 2);
	free(got);
}

/* .debug_frame: absolute CIE offsets, CIE versions 1, 3, 4, 64-bit DWARF. */
static void test_debug_frame(void)
{
	for (int version = 1; version <= 4; version++) {
		if (version == 2)
			continue;
		bbuf b = { .n = 0 };
		size_t cie = b_begin32(&b);
		b_u32(&b, DW_CIE_ID_32);
		b_u8(&b, (uint8_t)version);
		b_str(&b, "");
		if (version == 4) {
			b_u8(&b, 8); /* address size */
			b_u8(&b, 0); /* segment selector size */
		}
		b_uleb(&b, 4);  /* code alignment 4 */
		b_sleb(&b, -8);
		if (version == 1)
			b_u8(&b, 16);
		else
			b_uleb(&b, 16);
		b_u8(&b, DW_CFA_def_cfa); b_uleb(&b, 7); b_uleb(&b, 8);
		b_u8(&b, DW_CFA_offset | 16); b_uleb(&b, 1);
		b_end32(&b, cie);
		size_t f = b_begin32(&b);
		b_u32(&b, (uint32_t)cie);
		b_u64(&b, 0x7000); b_u64(&b, 0x40);
		b_u8(&b, DW_CFA_advance_loc | 2); /* 2 * 4 bytes */
		b_u8(&b, DW_CFA_def_cfa_offset); b_uleb(&b, 16);
		b_end32(&b, f);
		/* 64-bit DWARF entries */
		size_t cie64 = b_begin64(&b);
		b_u64(&b, DW_CIE_ID_64);
		b_u8(&b, (uint8_t)version); b_str(&b, "");
		if (version == 4) {
			b_u8(&b, 8);
			b_u8(&b, 0);
		}
		b_uleb(&b, 1); b_sleb(&b, -8);
		if (version == 1)
			b_u8(&b, 16);
		else
			b_uleb(&b, 16);
		b_u8(&b, DW_CFA_def_cfa); b_uleb(&b, 6); b_uleb(&b, 16);
		b_end64(&b, cie64);
		size_t f64 = b_begin64(&b);
		b_u64(&b, cie64);
		b_u64(&b, 0x8000); b_u64(&b, 0x4);
		b_end64(&b, f64);
		expect_dump(&b, false,
			    "FDE pc=0000000000007000..0000000000007040\n"
			    "0000000000007000 cfa=rsp+8 ra=c-8\n"
			    "0000000000007008 cfa=rsp+16 ra=c-8\n"
			    "FDE pc=0000000000008000..0000000000008004\n"
			    "0000000000008000 cfa=rbp+16\n");
		/* uw_fde.size: each whole entry, its length field included
		 * (4 bytes, or 12 for 64-bit DWARF) */
		cfi_section s = { .file = "test.so", .name = ".debug_frame",
				  .data = b.d, .size = b.n };
		cfi_reader *r = cfi_reader_new();
		cfi_reader_add_section(r, &s);
		uw_fde fde;
		ehelf_err err = { 0 };
		CHECK(cfi_reader_next(r, &fde, &err) == 1);
		CHECK_U64(fde.size, cie64 - f);
		CHECK_U64(fde.size, 4 + 4 + 16 + 3); /* length, CIE pointer, addresses, 3 bytes of instructions */
		CHECK(cfi_reader_next(r, &fde, &err) == 1);
		CHECK_U64(fde.size, b.n - f64);
		CHECK_U64(fde.size, 12 + 8 + 16);
		CHECK(cfi_reader_next(r, &fde, &err) == 0);
		cfi_reader_free(r);
	}
}

/* The old "eh" augmentation and 'S' both with and without 'z'. */
static void test_augmentations(void)
{
	bbuf b = { .n = 0 };
	size_t cie = b_begin32(&b);
	b_u32(&b, 0); b_u8(&b, 1); b_str(&b, "eh");
	b_u64(&b, 0x1234); /* exception table address */
	b_uleb(&b, 1); b_sleb(&b, -8); b_u8(&b, 16);
	b_u8(&b, DW_CFA_def_cfa); b_uleb(&b, 7); b_uleb(&b, 8);
	b_end32(&b, cie);
	size_t f = b_begin32(&b);
	b_u32(&b, (uint32_t)(b.n - cie));
	b_u64(&b, 0x9000); b_u64(&b, 0x10); /* absptr */
	b_end32(&b, f);
	size_t scie = gcc_cie(&b, "zRS", (const uint8_t[]){ 0x1b }, 1);
	f = fde_begin(&b, scie, 0x9100, 0x10, true);
	fde_end(&b, f);
	int rc;
	ehelf_err err = { 0 };
	cfi_section s = { .file = "test.so", .name = ".eh_frame", .is_eh = true,
			  .data = b.d, .size = b.n, .vaddr = VADDR };
	cfi_reader *r = cfi_reader_new();
	cfi_reader_add_section(r, &s);
	uw_fde fde;
	CHECK((rc = cfi_reader_next(r, &fde, &err)) == 1);
	CHECK_U64(fde.lo, 0x9000);
	CHECK(!fde.signal_frame);
	CHECK((rc = cfi_reader_next(r, &fde, &err)) == 1);
	CHECK_U64(fde.lo, 0x9100);
	CHECK(fde.signal_frame);
	CHECK(cfi_reader_next(r, &fde, &err) == 0);
	cfi_reader_free(r);

	/* gas writes "S" without 'z' in .debug_frame */
	bbuf d = { .n = 0 };
	cie = b_begin32(&d);
	b_u32(&d, DW_CIE_ID_32); b_u8(&d, 1); b_str(&d, "S");
	b_uleb(&d, 1); b_sleb(&d, -8); b_u8(&d, 16);
	b_u8(&d, DW_CFA_def_cfa); b_uleb(&d, 7); b_uleb(&d, 8);
	b_end32(&d, cie);
	f = b_begin32(&d);
	b_u32(&d, (uint32_t)cie); b_u64(&d, 0xa000); b_u64(&d, 4);
	b_end32(&d, f);
	s = (cfi_section){ .file = "test.so", .name = ".debug_frame",
			   .data = d.d, .size = d.n };
	r = cfi_reader_new();
	cfi_reader_add_section(r, &s);
	CHECK(cfi_reader_next(r, &fde, &err) == 1);
	CHECK(fde.signal_frame);
	cfi_reader_free(r);
}

static int read_u64_stub(void *arg, uint64_t addr, uint64_t *value)
{
	(void)arg;
	if (addr != 0x500000)
		return -1;
	*value = 0xb000;
	return 0;
}

/* FDE pointer encodings ('R') and personality/LSDA encodings ('P', 'L'). */
static void test_encodings(void)
{
	static const struct { uint8_t enc; uint64_t lo, want; } cases[] = {
		{ DW_EH_PE_absptr, 0xb000, 0xb000 },
		{ DW_EH_PE_udata2, 0xb000, 0xb000 },
		{ DW_EH_PE_udata4, 0xb000, 0xb000 },
		{ DW_EH_PE_udata8, 0xb000, 0xb000 },
		{ DW_EH_PE_uleb128, 0xb000, 0xb000 },
		{ DW_EH_PE_sdata2, 0x7000, 0x7000 },
		{ DW_EH_PE_sdata4, 0xb000, 0xb000 },
		{ DW_EH_PE_sdata8, 0xb000, 0xb000 },
		{ DW_EH_PE_sleb128, 0xb000, 0xb000 },
		{ DW_EH_PE_pcrel | DW_EH_PE_sdata4, 0xb000, 0xb000 },
		{ DW_EH_PE_pcrel | DW_EH_PE_sdata8, 0xb000, 0xb000 },
		{ DW_EH_PE_datarel | DW_EH_PE_sdata4, 0xb000, 0xb000 },
		{ DW_EH_PE_textrel | DW_EH_PE_udata4, 0xb000, 0xb000 },
		/* indirect: the field holds the address of the pointer */
		{ DW_EH_PE_indirect | DW_EH_PE_udata4, 0x500000, 0xb000 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint8_t enc = cases[i].enc;
		/* personality: aligned absptr; LSDA: funcrel udata4 */
		bbuf b = { .n = 0 };
		size_t cie = b_begin32(&b);
		b_u32(&b, 0); b_u8(&b, 1); b_str(&b, "zPLR");
		b_uleb(&b, 1); b_sleb(&b, -8); b_u8(&b, 16);
		/* augmentation data: P enc, aligned pointer, L enc, R enc */
		size_t lenpos = b.n;
		b_u8(&b, 0); /* length, patched below (< 128) */
		size_t start = b.n;
		b_u8(&b, DW_EH_PE_aligned);
		while ((VADDR + b.n) % 8)
			b_u8(&b, 0);
		b_u64(&b, 0xdead);
		b_u8(&b, DW_EH_PE_funcrel | DW_EH_PE_udata4);
		b_u8(&b, enc);
		b.d[lenpos] = (uint8_t)(b.n - start);
		b_u8(&b, DW_CFA_def_cfa); b_uleb(&b, 7); b_uleb(&b, 8);
		b_end32(&b, cie);
		size_t f = b_begin32(&b);
		b_u32(&b, (uint32_t)(b.n - cie));
		uint64_t field = VADDR + b.n;
		uint64_t v = cases[i].lo;
		if ((enc & 0x70) == DW_EH_PE_pcrel)
			v -= field;
		switch (enc & 0x0f) {
		case DW_EH_PE_absptr: case DW_EH_PE_udata8: case DW_EH_PE_sdata8:
			b_u64(&b, v); b_u64(&b, 0x10); break;
		case DW_EH_PE_udata2: case DW_EH_PE_sdata2:
			b_u16(&b, (uint16_t)v); b_u16(&b, 0x10); break;
		case DW_EH_PE_udata4: case DW_EH_PE_sdata4:
			b_u32(&b, (uint32_t)v); b_u32(&b, 0x10); break;
		case DW_EH_PE_uleb128:
			b_uleb(&b, v); b_uleb(&b, 0x10); break;
		case DW_EH_PE_sleb128:
			b_sleb(&b, (int64_t)v); b_sleb(&b, 0x10); break;
		}
		b_uleb(&b, 4);
		b_u32(&b, 0x20); /* LSDA, relative to the function */
		b_end32(&b, f);
		cfi_section s = { .file = "test.so", .name = ".eh_frame",
				  .is_eh = true, .data = b.d, .size = b.n,
				  .vaddr = VADDR, .read_u64 = read_u64_stub };
		cfi_reader *r = cfi_reader_new();
		cfi_reader_add_section(r, &s);
		uw_fde fde;
		ehelf_err err = { 0 };
		int rc = cfi_reader_next(r, &fde, &err);
		CHECK(rc == 1);
		if (rc != 1)
			fprintf(stderr, "  encoding 0x%02x: %s\n", enc, err.msg);
		else {
			CHECK_U64(fde.lo, cases[i].want);
			CHECK_U64(fde.hi, cases[i].want + 0x10);
		}
		cfi_reader_free(r);
	}
}

/* DW_CFA_set_loc uses the FDE encoding; code alignment scales advances. */
static void test_set_loc(void)
{
	bbuf b = { .n = 0 };
	size_t cie = std_cie(&b);
	size_t f = fde_begin(&b, cie, 0xc000, 0x40, true);
	b_u8(&b, DW_CFA_set_loc);
	b_u32(&b, (uint32_t)(0xc010 - (VADDR + b.n)));
	b_u8(&b, DW_CFA_def_cfa_offset); b_uleb(&b, 16);
	fde_end(&b, f);
	expect_dump(&b, true,
		    "FDE pc=000000000000c000..000000000000c040\n"
		    "000000000000c000 cfa=rsp+8 ra=c-8\n"
		    "000000000000c010 cfa=rsp+16 ra=c-8\n");
}

/* libgcc's reading of def_cfa_register/offset after an expression. */
static void test_lax_cfa(void)
{
	bbuf b = { .n = 0 };
	size_t cie = std_cie(&b);
	size_t f = fde_begin(&b, cie, 0xd000, 0x10, true);
	b_u8(&b, DW_CFA_def_cfa_offset); b_uleb(&b, 56);
	b_u8(&b, DW_CFA_advance_loc | 1);
	b_u8(&b, DW_CFA_def_cfa_expression); b_uleb(&b, 2);
	b_u8(&b, DW_OP_breg7); b_sleb(&b, 8);
	b_u8(&b, DW_CFA_advance_loc | 1);
	b_u8(&b, DW_CFA_def_cfa_offset); b_uleb(&b, 48); /* still exp */
	b_u8(&b, DW_CFA_advance_loc | 1);
	b_u8(&b, DW_CFA_def_cfa_register); b_uleb(&b, 6);
	fde_end(&b, f);
	expect_dump(&b, true,
		    "FDE pc=000000000000d000..000000000000d010\n"
		    "000000000000d000 cfa=rsp+56 ra=c-8\n"
		    "000000000000d001 cfa=exp ra=c-8\n"
		    "000000000000d003 cfa=rbp+48 ra=c-8\n");
	cfi_section s = { .file = "t", .name = ".eh_frame", .is_eh = true,
			  .data = b.d, .size = b.n, .vaddr = VADDR };
	cfi_reader *r = cfi_reader_new();
	cfi_reader_add_section(r, &s);
	uw_fde fde;
	ehelf_err err = { 0 };
	CHECK(cfi_reader_next(r, &fde, &err) == 1);
	CHECK(fde.nrows == 3 && !fde.rows[0].r.cfa.lax &&
	      !fde.rows[1].r.cfa.lax && fde.rows[2].r.cfa.lax);
	cfi_reader_free(r);
}

/* Rules for columns above 16 are counted, not kept. */
static void test_extra_columns(void)
{
	bbuf b = { .n = 0 };
	size_t cie = std_cie(&b);
	size_t f = fde_begin(&b, cie, 0xe000, 0x10, true);
	b_u8(&b, DW_CFA_undefined); b_uleb(&b, 17);
	b_u8(&b, DW_CFA_offset_extended); b_uleb(&b, 49); b_uleb(&b, 2);
	b_u8(&b, DW_CFA_GNU_args_size); b_uleb(&b, 0);
	fde_end(&b, f);
	cfi_section s = { .file = "t", .name = ".eh_frame", .is_eh = true,
			  .data = b.d, .size = b.n, .vaddr = VADDR };
	cfi_reader *r = cfi_reader_new();
	cfi_reader_add_section(r, &s);
	uw_fde fde;
	ehelf_err err = { 0 };
	CHECK(cfi_reader_next(r, &fde, &err) == 1);
	CHECK_U64(fde.extra_cols, 2);
	CHECK_U64(fde.args_size_ops, 1);
	CHECK_U64(fde.nrows, 1);
	cfi_reader_free(r);
}

/* Malformed input: an error naming the file, section and entry offset. */
static void test_errors(void)
{
	bbuf b;
	size_t cie, f;
#define ONE_FDE(insns)                                                   \
	do {                                                             \
		b.n = 0;                                                 \
		cie = std_cie(&b);                                       \
		f = fde_begin(&b, cie, 0xf000, 0x10, true);              \
		insns;                                                   \
		b_end32(&b, f);                                          \
	} while (0)
	ONE_FDE(b_u8(&b, 0x3e));
	expect_error(&b, true, ERR_FORMAT, ".eh_frame+0x18: instruction at +0x11: unknown opcode 0x3e");
	ONE_FDE(b_u8(&b, DW_CFA_restore_state));
	expect_error(&b, true, ERR_FORMAT, "without DW_CFA_remember_state");
	ONE_FDE(b_u8(&b, DW_CFA_def_cfa); b_u8(&b, 0x87));
	expect_error(&b, true, ERR_FORMAT, "runs past the entry");
	ONE_FDE(b_u8(&b, DW_CFA_expression); b_uleb(&b, 3); b_uleb(&b, 9));
	expect_error(&b, true, ERR_FORMAT, "expression runs past the entry");
	ONE_FDE(b_u8(&b, DW_CFA_GNU_window_save));
	expect_error(&b, true, ERR_UNSUPPORTED, "window_save");
	ONE_FDE(b_u8(&b, DW_CFA_advance_loc | 4); b_u8(&b, DW_CFA_set_loc);
		b_u32(&b, (uint32_t)(0xf000 - (VADDR + b.n))));
	expect_error(&b, true, ERR_FORMAT, "location moves backwards");
	ONE_FDE(b_u8(&b, DW_CFA_offset_extended); b_uleb(&b, 1);
		b_uleb(&b, 1ull << 62));
	expect_error(&b, true, ERR_FORMAT, "overflows");
	ONE_FDE(b_u8(&b, DW_CFA_register); b_uleb(&b, 1); b_uleb(&b, 1 << 20));
	expect_error(&b, true, ERR_FORMAT, "register number too large");

	/* entry length past the end of the section */
	b.n = 0;
	cie = std_cie(&b);
	b_u32(&b, 0x1000);
	b_u32(&b, 0);
	expect_error(&b, true, ERR_FORMAT, ".eh_frame+0x18: entry length 0x1000 runs past");
	/* reserved length */
	b.n = 0;
	b_u32(&b, 0xfffffff5);
	b_u32(&b, 0);
	expect_error(&b, true, ERR_FORMAT, "reserved entry length");
	/* CIE pointer to something that is not a CIE */
	b.n = 0;
	cie = std_cie(&b);
	f = fde_begin(&b, cie, 0xf000, 0x10, true);
	b_end32(&b, f);
	size_t f2 = b_begin32(&b);
	b_u32(&b, (uint32_t)(b.n - f)); /* points at the first FDE */
	b_u32(&b, 0); b_u32(&b, 0); b_uleb(&b, 0);
	b_end32(&b, f2);
	expect_error(&b, true, ERR_FORMAT, "which is not a CIE");
	/* CIE pointer before the section */
	b.n = 0;
	f = b_begin32(&b);
	b_u32(&b, 0x100);
	b_u32(&b, 0);
	b_end32(&b, f);
	expect_error(&b, true, ERR_FORMAT, "points before the section");
	/* CIE version 2, unknown augmentation without 'z', bad encoding */
	static const struct { uint8_t version; const char *aug; int code;
			      const char *msg; } bad_cie[] = {
		{ 2, "zR", ERR_UNSUPPORTED, "CIE version 2" },
		{ 1, "Q", ERR_UNSUPPORTED, "unknown augmentation 'Q'" },
		{ 1, "zR", ERR_FORMAT, "invalid pointer encoding" },
	};
	for (size_t i = 0; i < 3; i++) {
		b.n = 0;
		cie = b_begin32(&b);
		b_u32(&b, 0); b_u8(&b, bad_cie[i].version);
		b_str(&b, bad_cie[i].aug); b_uleb(&b, 1); b_sleb(&b, -8);
		b_u8(&b, 16);
		if (bad_cie[i].aug[0] == 'z') {
			b_uleb(&b, 1);
			b_u8(&b, i == 2 ? 0x0f : 0x1b);
		}
		b_end32(&b, cie);
		f = fde_begin(&b, cie, 0xf000, 0x10, true);
		b_end32(&b, f);
		expect_error(&b, true, bad_cie[i].code, bad_cie[i].msg);
	}
	/* unterminated augmentation string */
	b.n = 0;
	cie = b_begin32(&b);
	b_u32(&b, 0); b_u8(&b, 1); b_bytes(&b, "zR", 2);
	b_end32(&b, cie);
	f = fde_begin(&b, cie, 0xf000, 0x10, true);
	b_end32(&b, f);
	expect_error(&b, true, ERR_FORMAT, "unterminated augmentation");
	/* a return address column other than 16 */
	b.n = 0;
	cie = b_begin32(&b);
	b_u32(&b, 0); b_u8(&b, 1); b_str(&b, ""); b_uleb(&b, 1);
	b_sleb(&b, -8); b_u8(&b, 30);
	b_end32(&b, cie);
	f = b_begin32(&b);
	b_u32(&b, (uint32_t)(b.n - cie)); b_u64(&b, 0xf000); b_u64(&b, 8);
	b_end32(&b, f);
	expect_error(&b, true, ERR_UNSUPPORTED, "return address column 30");
#undef ONE_FDE
}

/* A section with a bit of everything, for the robustness tests. */
static void build_rich(bbuf *b)
{
	b->n = 0;
	size_t cie = std_cie(b);
	size_t f = fde_begin(b, cie, 0x1000, 0x80, true);
	b_u8(b, DW_CFA_advance_loc | 1);
	b_u8(b, DW_CFA_def_cfa_offset); b_uleb(b, 16);
	b_u8(b, DW_CFA_offset | 6); b_uleb(b, 2);
	b_u8(b, DW_CFA_remember_state);
	b_u8(b, DW_CFA_advance_loc1); b_u8(b, 3);
	b_u8(b, DW_CFA_def_cfa_expression); b_uleb(b, 3);
	b_u8(b, DW_OP_breg6); b_sleb(b, -8); b_u8(b, DW_OP_deref);
	b_u8(b, DW_CFA_val_expression); b_uleb(b, 3); b_uleb(b, 2);
	b_u8(b, DW_OP_breg7); b_sleb(b, 8);
	b_u8(b, DW_CFA_advance_loc2); b_u16(b, 4);
	b_u8(b, DW_CFA_restore_state);
	b_u8(b, DW_CFA_set_loc); b_u32(b, (uint32_t)(0x1040 - (VADDR + b->n)));
	b_u8(b, DW_CFA_restore | 6);
	fde_end(b, f);
	static const uint8_t plr[] = { 0x9b, 0, 0, 0, 0, 0x1b, 0x1b };
	size_t cie2 = gcc_cie(b, "zPLR", plr, sizeof plr);
	f = fde_begin(b, cie2, 0x2000, 0x20, false);
	b_uleb(b, 4); b_u32(b, 0);
	b_u8(b, DW_CFA_def_cfa_sf); b_uleb(b, 6); b_sleb(b, -2);
	fde_end(b, f);
	b_u32(b, 0);
}

/* Every truncation and every single-byte corruption of a valid section
 * gives rows or an error, never a crash or an out-of-bounds read (the
 * sanitizer build runs this too). */
static void test_robustness(void)
{
	bbuf rich;
	build_rich(&rich);
	int rc;
	ehelf_err err = { 0 };
	char *full = dump(&rich, true, true, &rc, &err, NULL);
	CHECK(rc == 0 && full != NULL);
	free(full);
	size_t errors = 0;
	for (size_t n = 0; n < rich.n; n++) {
		bbuf t = rich;
		t.n = n;
		/* copy into an exact-size allocation so ASan sees overruns */
		uint8_t *exact = malloc(n ? n : 1);
		memcpy(exact, t.d, n);
		cfi_section s = { .file = "t", .name = ".eh_frame",
				  .is_eh = true, .data = exact, .size = n,
				  .vaddr = VADDR };
		cfi_reader *r = cfi_reader_new();
		cfi_reader_add_section(r, &s);
		uw_fde fde;
		while ((rc = cfi_reader_next(r, &fde, &err)) > 0)
			;
		errors += rc < 0;
		cfi_reader_free(r);
		free(exact);
	}
	CHECK(errors > 0);
	for (size_t i = 0; i < rich.n; i++) {
		for (int v = 0; v < 256; v += 17) {
			uint8_t *exact = malloc(rich.n);
			memcpy(exact, rich.d, rich.n);
			exact[i] ^= (uint8_t)(v | 1);
			cfi_section s = { .file = "t", .name = ".eh_frame",
					  .is_eh = true, .data = exact,
					  .size = rich.n, .vaddr = VADDR,
					  .read_u64 = read_u64_stub };
			cfi_reader *r = cfi_reader_new();
			cfi_reader_add_section(r, &s);
			uw_fde fde;
			while (cfi_reader_next(r, &fde, &err) > 0)
				for (size_t k = 0; k < fde.nrows; k++)
					CHECK(fde.rows[k].lo < fde.rows[k].hi);
			cfi_reader_free(r);
			free(exact);
		}
	}
}

int main(void)
{
	test_basic();
	test_all_rules();
	test_remember_restore();
	test_merge_clip_skip();
	test_framing();
	test_debug_frame();
	test_augmentations();
	test_encodings();
	test_set_loc();
	test_lax_cfa();
	test_extra_columns();
	test_errors();
	test_robustness();
	UNIT_DONE("test_cfi_reader");
}
