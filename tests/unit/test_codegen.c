/*
 * test_codegen.c - every DWARF expression operation and every register rule
 * compiled into a real eh_elf (hand-built .eh_frame -> ehelf_compile_reader
 * -> file -> ehelf_object_open, checked and mapped) and run through both entry
 * points, compared with the reference semantics of tests/codegen/ir_eval.c;
 * plus the cases with a known answer: division by zero, reads out of
 * bounds, invalid registers, outermost and signal frames, "not covered",
 * and operations that must be reported unsupported (backward branches
 * among them: every step returns, checked in a child under an alarm).
 */
#define _GNU_SOURCE
#include <dwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../builder/cfi/cfi_reader.h"
#include "../../builder/codegen/compile.h"
#include "../../builder/codegen/entry_gen.h"
#include "../../client-lib/include/ehelf.h"
#include "../codegen/ir_eval.h"
#include "cfi_build.h"
#include "unit.h"

enum { VADDR = 0x400000, FN = 0x10000, FN_SIZE = 0x10, MEM = 1 << 20 };

static uint8_t *mem;

static int read_mem(void *arg, uint64_t addr, uint64_t *value)
{
	(void)arg;
	uint64_t base = (uint64_t)(uintptr_t)mem;
	if (addr < base || addr > base + MEM - 8)
		return -1;
	memcpy(value, (void *)(uintptr_t)addr, 8);
	return 0;
}

typedef struct tcase {
	const char *name;
	uint8_t insns[96];   /* DW_CFA program of the FDE */
	size_t len;
	int want;            /* expected status; 99: whatever ir_eval says */
	bool signal;
} tcase;

/* Build: one CIE (CFA rsp+8, ra at cfa-8), a signal-frame CIE, and one FDE
 * per case at FN + i * FN_SIZE. */
static void build(bbuf *b, const tcase *cases, size_t n)
{
	b->n = 0;
	size_t cies[2];
	for (int s = 0; s < 2; s++) {
		cies[s] = b_begin32(b);
		b_u32(b, 0); b_u8(b, 1); b_str(b, s ? "zRS" : "zR");
		b_uleb(b, 1); b_sleb(b, -8); b_u8(b, 16);
		b_uleb(b, 1); b_u8(b, DW_EH_PE_pcrel | DW_EH_PE_sdata4);
		b_u8(b, DW_CFA_def_cfa); b_uleb(b, 7); b_uleb(b, 8);
		b_u8(b, DW_CFA_offset | 16); b_uleb(b, 1);
		b_pad(b, cies[s]);
		b_end32(b, cies[s]);
	}
	for (size_t i = 0; i < n; i++) {
		size_t cie = cies[cases[i].signal];
		size_t at = b_begin32(b);
		b_u32(b, (uint32_t)(b->n - cie));
		b_u32(b, (uint32_t)(FN + i * FN_SIZE - (VADDR + b->n)));
		b_u32(b, FN_SIZE);
		b_uleb(b, 0);
		b_bytes(b, cases[i].insns, cases[i].len);
		b_pad(b, at);
		b_end32(b, at);
	}
	b_u32(b, 0);
}

#define INSNS(...) { __VA_ARGS__ }, sizeof((uint8_t[]){ __VA_ARGS__ })
/* DW_CFA_val_expression rax, <len>, expr... */
#define VEXP_RAX(...) INSNS(DW_CFA_val_expression, 0, \
	sizeof((uint8_t[]){ __VA_ARGS__ }), __VA_ARGS__)
#define CFA_EXP(...) INSNS(DW_CFA_def_cfa_expression, \
	sizeof((uint8_t[]){ __VA_ARGS__ }), __VA_ARGS__)

static const tcase cases[] = {
	{ "plain", INSNS(DW_CFA_nop), 0, false },
	{ "lit plus", VEXP_RAX(DW_OP_lit5, DW_OP_plus), 0, false },
	{ "consts", VEXP_RAX(DW_OP_const1u, 200, DW_OP_const1s, 0xfd,
			     DW_OP_mul, DW_OP_const2u, 0x34, 0x12, DW_OP_plus,
			     DW_OP_const2s, 0x00, 0x80, DW_OP_minus,
			     DW_OP_const4u, 1, 2, 3, 4, DW_OP_xor,
			     DW_OP_const4s, 0xff, 0xff, 0xff, 0xff, DW_OP_or,
			     DW_OP_plus), 0, false },
	{ "const8", VEXP_RAX(DW_OP_const8u, 1, 2, 3, 4, 5, 6, 7, 8,
			     DW_OP_const8s, 0xf0, 0xff, 0xff, 0xff, 0xff, 0xff,
			     0xff, 0xff, DW_OP_plus, DW_OP_constu, 0x80, 0x80,
			     0x04, DW_OP_plus, DW_OP_consts, 0x40, DW_OP_plus,
			     DW_OP_plus), 0, false },
	{ "bregs", VEXP_RAX(DW_OP_breg0, 1, DW_OP_breg3, 2, DW_OP_plus,
			    DW_OP_breg6, 0x7f, DW_OP_plus, DW_OP_breg10, 8,
			    DW_OP_plus, DW_OP_breg15, 0x40, DW_OP_plus,
			    DW_OP_breg16, 0, DW_OP_plus, DW_OP_bregx, 13, 0x78,
			    DW_OP_plus, DW_OP_plus), 0, false },
	{ "stack ops", VEXP_RAX(DW_OP_lit1, DW_OP_lit2, DW_OP_lit3,
				DW_OP_rot, DW_OP_lit4, DW_OP_shl, DW_OP_plus,
				DW_OP_lit8, DW_OP_shl, DW_OP_plus, DW_OP_dup,
				DW_OP_over, DW_OP_pick, 2, DW_OP_swap,
				DW_OP_minus, DW_OP_drop, DW_OP_plus,
				DW_OP_plus, DW_OP_nop), 0, false },
	{ "deref", VEXP_RAX(DW_OP_deref, DW_OP_breg7, 8, DW_OP_deref_size,
			    1, DW_OP_plus, DW_OP_breg7, 16, DW_OP_deref_size,
			    2, DW_OP_plus, DW_OP_breg7, 24, DW_OP_deref_size,
			    4, DW_OP_plus, DW_OP_breg7, 32, DW_OP_deref_size,
			    3, DW_OP_plus, DW_OP_breg7, 40, DW_OP_deref_size,
			    8, DW_OP_plus), 0, false },
	{ "unary", VEXP_RAX(DW_OP_lit7, DW_OP_neg, DW_OP_abs, DW_OP_lit3,
			    DW_OP_neg, DW_OP_not, DW_OP_plus, DW_OP_plus,
			    DW_OP_plus_uconst, 0x90, 0x4e), 0, false },
	{ "arith", VEXP_RAX(DW_OP_drop, DW_OP_const1s, 0x9c, DW_OP_lit7,
			    DW_OP_div, DW_OP_const1s, 0x9c, DW_OP_lit7,
			    DW_OP_mod, DW_OP_plus, DW_OP_const1s, 0x9c,
			    DW_OP_lit2, DW_OP_shra, DW_OP_plus,
			    DW_OP_const1s, 0x9c, DW_OP_lit2, DW_OP_shr,
			    DW_OP_plus, DW_OP_lit3, DW_OP_const1u, 66,
			    DW_OP_shl, DW_OP_plus, DW_OP_lit5, DW_OP_lit6,
			    DW_OP_and, DW_OP_plus), 0, false },
	{ "compare", VEXP_RAX(DW_OP_drop, DW_OP_const1s, 0xff, DW_OP_lit1,
			      DW_OP_lt, DW_OP_const1s, 0xff, DW_OP_lit1,
			      DW_OP_gt, DW_OP_lit1, DW_OP_shl, DW_OP_or,
			      DW_OP_lit2, DW_OP_lit2, DW_OP_le, DW_OP_lit2,
			      DW_OP_shl, DW_OP_or, DW_OP_lit2, DW_OP_lit3,
			      DW_OP_ge, DW_OP_lit3, DW_OP_shl, DW_OP_or,
			      DW_OP_lit4, DW_OP_lit4, DW_OP_eq, DW_OP_lit4,
			      DW_OP_shl, DW_OP_or, DW_OP_lit4, DW_OP_lit4,
			      DW_OP_ne, DW_OP_lit5, DW_OP_shl, DW_OP_or),
	  0, false },
	/* backward branches are refused (docs/eh_elf.md): a bounded loop
	 * (sum 5+4+3+2+1: [cfa acc n]) as much as endless ones */
	{ "loop", VEXP_RAX(DW_OP_lit0, DW_OP_lit5,
			   /* H: */ DW_OP_dup, DW_OP_bra, 4, 0, DW_OP_drop,
			   DW_OP_skip, 9, 0,
			   /* B: */ DW_OP_swap, DW_OP_over, DW_OP_plus,
			   DW_OP_swap, DW_OP_lit1, DW_OP_minus, DW_OP_skip,
			   0xef, 0xff,
			   /* END: */ DW_OP_plus), EHELF_E_UNSUPPORTED, false },
	{ "endless bra", CFA_EXP(DW_OP_breg7, 0, /* L: */ DW_OP_lit1,
				 DW_OP_bra, 0xfc, 0xff), EHELF_E_UNSUPPORTED,
	  false },
	{ "skip to itself", VEXP_RAX(DW_OP_skip, 0xfd, 0xff),
	  EHELF_E_UNSUPPORTED, false },
	{ "call_frame_cfa", VEXP_RAX(DW_OP_call_frame_cfa, DW_OP_minus,
				     DW_OP_lit9, DW_OP_plus), 0, false },
	{ "INT64_MIN/-1", VEXP_RAX(DW_OP_drop, DW_OP_const8s, 0, 0, 0, 0,
				   0, 0, 0, 0x80, DW_OP_const1s, 0xff,
				   DW_OP_div), 0, false },
	{ "div by zero", VEXP_RAX(DW_OP_lit0, DW_OP_div), EHELF_E_EXPR, false },
	{ "mod by zero", VEXP_RAX(DW_OP_lit0, DW_OP_mod), EHELF_E_EXPR, false },
	{ "deref out of bounds", VEXP_RAX(DW_OP_drop, DW_OP_lit16,
					  DW_OP_deref), 99, false },
	/* CFA forms */
	{ "drap", CFA_EXP(DW_OP_breg6, 0x78, DW_OP_deref), 0, false },
	{ "plt", CFA_EXP(DW_OP_breg7, 8, DW_OP_breg16, 0, DW_OP_lit15,
			 DW_OP_and, DW_OP_lit11, DW_OP_ge, DW_OP_lit3,
			 DW_OP_shl, DW_OP_plus), 0, false },
	{ "cfa r10", INSNS(DW_CFA_def_cfa, 10, 0), 0, false },
	/* rule sets without a summary sharing a shape (parameters in the
	 * compact form too), one alone (immediates), 32-bit offsets */
	{ "wide r10", INSNS(DW_CFA_def_cfa, 10, 0x80, 0x80, 0x04, DW_CFA_offset | 3, 2), 0, false },
	{ "wide r10b", INSNS(DW_CFA_def_cfa, 10, 0x88, 0x80, 0x04, DW_CFA_offset | 3, 4), 0, false },
	{ "single r13", INSNS(DW_CFA_def_cfa, 13, 24, DW_CFA_offset | 3, 2), 0, false },
	{ "cfa r10 8", INSNS(DW_CFA_def_cfa, 10, 8, DW_CFA_offset | 3, 2), 0, false },
	{ "cfa r10 40", INSNS(DW_CFA_def_cfa, 10, 40, DW_CFA_offset | 3, 4), 0, false },
	{ "cfa r10 72", INSNS(DW_CFA_def_cfa, 10, 72, DW_CFA_offset | 3, 6), 0, false },
	{ "cfa big", INSNS(DW_CFA_def_cfa, 7, 0x80, 0x80, 0x80, 0x80, 0x10,
			   DW_CFA_offset | 3, 0x80, 0x80, 0x80, 0x80, 0x02),
	  99, false },
	/* an offset beyond 32 bits with nothing read: the CFA is compared */
	{ "cfa 2^40", INSNS(DW_CFA_def_cfa, 7, 0x80, 0x80, 0x80, 0x80, 0x80,
			    0x20, DW_CFA_same_value, 16), 0, false },
	/* register rules */
	{ "far saves", INSNS(DW_CFA_def_cfa_offset, 96, DW_CFA_offset | 3, 11, DW_CFA_offset | 6, 10), 0, false },
	{ "saves", INSNS(DW_CFA_def_cfa_offset, 56, DW_CFA_offset | 3, 7,
			 DW_CFA_offset | 6, 6, DW_CFA_offset | 12, 5,
			 DW_CFA_offset | 13, 4, DW_CFA_offset | 14, 3,
			 DW_CFA_offset | 15, 2), 0, false },
	{ "rules", INSNS(DW_CFA_val_offset, 5, 2, DW_CFA_register, 4, 12,
			 DW_CFA_register, 9, 16, DW_CFA_undefined, 1,
			 DW_CFA_same_value, 2, DW_CFA_val_offset_sf, 7, 2),
	  0, false },
	{ "expression rule", INSNS(DW_CFA_expression, 3, 2, DW_OP_breg7, 16,
				   DW_CFA_expression, 16, 2, DW_OP_breg7, 24),
	  0, false },
	{ "outermost", INSNS(DW_CFA_undefined, 16), EHELF_OUTERMOST, false },
	{ "signal", INSNS(DW_CFA_def_cfa_expression, 3, DW_OP_breg7, 0xa0,
			  0x01, DW_CFA_expression, 16, 3, DW_OP_breg7, 0xa8,
			  0x01), 0, true },
	/* not compiled: reported, and answered "unsupported" */
	{ "DW_OP_addr", VEXP_RAX(DW_OP_addr, 1, 0, 0, 0, 0, 0, 0, 0),
	  EHELF_E_UNSUPPORTED, false },
	{ "DW_OP_reg5", VEXP_RAX(DW_OP_reg5), EHELF_E_UNSUPPORTED, false },
	{ "cfa in cfa", CFA_EXP(DW_OP_call_frame_cfa), EHELF_E_UNSUPPORTED, false },
	{ "underflow", VEXP_RAX(DW_OP_plus), EHELF_E_UNSUPPORTED, false },
	{ "mid-op branch", VEXP_RAX(DW_OP_skip, 1, 0, DW_OP_const1u, 1),
	  EHELF_E_UNSUPPORTED, false },
	{ "bregx 20", VEXP_RAX(DW_OP_bregx, 20, 0), EHELF_E_UNSUPPORTED, false },
	{ "depth mismatch", VEXP_RAX(DW_OP_lit1, DW_OP_bra, 1, 0,
				     DW_OP_lit2), EHELF_E_UNSUPPORTED, false },
	{ "cfa xmm0", INSNS(DW_CFA_def_cfa, 17, 8), EHELF_E_UNSUPPORTED, false },
};

enum { NCASES = sizeof cases / sizeof cases[0] };

static void make_regs(ehelf_regs *r, uint64_t pc, uint32_t valid)
{
	uint64_t base = (uint64_t)(uintptr_t)mem + MEM / 2;
	for (int i = 0; i < EHELF_NREGS; i++)
		r->r[i] = base + 64 * (uint64_t)i;
	r->r[EHELF_RIP] = pc;
	r->valid = valid;
}

/* Do both entry points return at every case's pcs?  Run in a child
 * process under an alarm, so that a step that loops fails the test
 * instead of hanging it. */
static bool every_step_returns(const ehelf_object *o)
{
	pid_t pid = fork();
	if (pid == 0) {
		alarm(20);
		ehelf_regs in, out;
		uint64_t lo = (uint64_t)(uintptr_t)mem, hi = lo + MEM;
		for (size_t i = 0; i < NCASES; i++) {
			uint64_t pc = FN + i * FN_SIZE;
			make_regs(&in, pc, EHELF_VALID_REGS);
			ehelf_object_step_local(o, pc, &in, &out, lo, hi);
			ehelf_object_step(o, pc, &in, &out, read_mem, NULL);
		}
		_exit(0);
	}
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return false;
	if (!WIFEXITED(status))
		fprintf(stderr, "  a step did not return (signal %d)\n",
			WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* The whole test, on the code of FORM (entry_gen.h: automatic, which is
 * compact here, or forced). */
static void run(int form)
{
	mem = mmap(NULL, MEM, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t *w = (uint64_t *)mem;
	for (size_t k = 0; k < MEM / 8; k++)  /* pointers into the middle */
		w[k] = (uint64_t)(uintptr_t)mem + MEM / 2 + (k * 8 % (MEM / 4));

	static bbuf b;
	build(&b, cases, NCASES);
	cfi_section s = { .file = "synthetic", .name = ".eh_frame",
			  .is_eh = true, .data = b.d, .size = b.n,
			  .vaddr = VADDR };
	cfi_reader *r = cfi_reader_new();
	cfi_reader_add_section(r, &s);
	static const uint8_t id[] = { 0xde, 0xad, 0xbe, 0xef };
	ehelf_compile_opts opts = { .build_id = id, .build_id_len = 4,
				    .code_form = form };
	uint8_t *image;
	size_t len;
	ehelf_compile_stats st;
	ehelf_err err = { 0 };
	int rc = ehelf_compile_reader(r, "synthetic", &opts, &image, &len, &st,
				      &err);
	cfi_reader_free(r);
	CHECK(rc == 0);
	if (rc) {
		fprintf(stderr, "compile: %s\n", err.msg);
		return;
	}
	/* the unsupported ones are listed with a reason */
	size_t want_unsup = 0;
	for (size_t i = 0; i < NCASES; i++)
		want_unsup += cases[i].want == EHELF_E_UNSUPPORTED;
	CHECK_U64(st.nunsupported, want_unsup);
	for (size_t i = 0; i < st.nunsupported; i++) {
		CHECK(st.unsupported[i].why[0] != '\0');
		if (getenv("EHELF_TEST_VERBOSE"))
			fprintf(stderr, "  unsupported rule set %u at 0x%llx: %s\n",
				st.unsupported[i].ruleset,
				(unsigned long long)st.unsupported[i].example_pc,
				st.unsupported[i].why);
	}

	if (getenv("EHELF_TEST_KEEP")) { /* for objdump when debugging */
		FILE *keep = fopen(getenv("EHELF_TEST_KEEP"), "wb");
		if (keep) {
			fwrite(image, 1, len, keep);
			fclose(keep);
		}
	}
	char path[] = "/tmp/ehelf-test-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0 && write(fd, image, len) == (ssize_t)len);
	close(fd);
	ehelf_object *o = ehelf_object_open(path);
	unlink(path);
	CHECK(o != NULL);
	if (!o) {
		fprintf(stderr, "open: %s\n", ehelf_last_error());
		return;
	}
	const struct ehelf_info *info = ehelf_object_info(o);
	CHECK(info->build_id_len == 4 && memcmp(info->build_id, id, 4) == 0);
	CHECK_U64(info->pc_lo, FN);
	CHECK_U64(info->pc_hi, FN + NCASES * FN_SIZE);
	bool returns = every_step_returns(o);
	CHECK(returns);
	if (!returns)
		return;

	/* re-read the rows to get each case's rules */
	s = (cfi_section){ .file = "synthetic", .name = ".eh_frame",
			   .is_eh = true, .data = b.d, .size = b.n,
			   .vaddr = VADDR };
	r = cfi_reader_new();
	cfi_reader_add_section(r, &s);
	uw_fde fde;
	for (size_t i = 0; i < NCASES; i++) {
		CHECK(cfi_reader_next(r, &fde, &err) == 1);
		const uw_row *row = &fde.rows[fde.nrows - 1];
		uint64_t pc = row->lo;
		static const uint32_t valids[] = {
			EHELF_VALID_REGS,
			EHELF_VALID_REGS & ~(1u << 6) & ~(1u << 12),
		};
		for (int v = 0; v < 2; v++) {
			ehelf_regs in, got, want;
			make_regs(&in, pc, valids[v]);
			for (int mode = 0; mode < 2; mode++) {
				ir_mem m = { .local = mode == 0,
					     .lo = (uint64_t)(uintptr_t)mem,
					     .hi = (uint64_t)(uintptr_t)mem + MEM,
					     .read = read_mem };
				int gs = mode == 0
					? ehelf_object_step_local(o, pc, &in, &got, m.lo, m.hi)
					: ehelf_object_step(o, pc, &in, &got, read_mem, NULL);
				int ws = ir_eval_row(&row->r, fde.signal_frame, &in,
						     &want, &m);
				if (cases[i].want == EHELF_E_UNSUPPORTED) {
					CHECK(gs == EHELF_E_UNSUPPORTED);
					continue;
				}
				if (v == 0 && cases[i].want != 99)
					CHECK(gs == cases[i].want);
				bool same = gs == ws && (gs < 0 ||
					(got.valid == want.valid &&
					 !memcmp(got.r, want.r, sizeof got.r)));
				CHECK(same);
				if (!same)
					fprintf(stderr, "  case '%s' %s valid %x: "
						"status %d want %d\n", cases[i].name,
						mode ? "remote" : "local", in.valid,
						gs, ws);
			}
		}
	}
	cfi_reader_free(r);

	/* specific answers */
	ehelf_regs in, out;
	make_regs(&in, FN, EHELF_VALID_REGS);
	uint64_t lo = (uint64_t)(uintptr_t)mem, hi = lo + MEM;
	for (size_t i = 0; i < NCASES; i++) {
		uint64_t pc = FN + i * FN_SIZE + 1;
		in.r[EHELF_RIP] = pc;
		int st1 = ehelf_object_step_local(o, pc, &in, &out, lo, hi);
		if (!strcmp(cases[i].name, "signal"))
			CHECK(st1 == 0 && (out.valid & EHELF_SIGNAL_FRAME));
		if (!strcmp(cases[i].name, "plain")) {
			CHECK(st1 == 0 && !(out.valid & EHELF_SIGNAL_FRAME));
			CHECK_U64(out.r[EHELF_RSP], in.r[EHELF_RSP] + 8);
			uint64_t ra;
			memcpy(&ra, (void *)(uintptr_t)in.r[EHELF_RSP], 8);
			CHECK_U64(out.r[EHELF_RIP], ra);
			/* registers without rules keep their value */
			CHECK_U64(out.r[EHELF_RBX], in.r[EHELF_RBX]);
			/* the stack is out of bounds: EHELF_E_BOUNDS */
			CHECK(ehelf_object_step_local(o, pc, &in, &out, lo,
						      in.r[EHELF_RSP]) ==
			      EHELF_E_BOUNDS);
			CHECK(ehelf_object_step_local(o, pc, &in, &out, 0, 4) ==
			      EHELF_E_BOUNDS);
			/* rsp invalid: EHELF_E_BADREG */
			ehelf_regs bad = in;
			bad.valid &= ~(1u << EHELF_RSP);
			CHECK(ehelf_object_step(o, pc, &bad, &out, read_mem,
						NULL) == EHELF_E_BADREG);
		}
		if (!strcmp(cases[i].name, "rules")) {
			CHECK_U64(out.r[EHELF_RSI], in.r[EHELF_R12]);
			CHECK(!(out.valid & (1u << EHELF_RDX)));
			CHECK_U64(out.r[EHELF_RSP], in.r[EHELF_RSP] + 8 - 16);
		}
	}
	/* a remote read that fails: EHELF_E_READ */
	in.r[EHELF_RSP] = 16;
	CHECK(ehelf_object_step(o, FN, &in, &out, read_mem, NULL) == EHELF_E_READ);
	/* outside every FDE */
	CHECK(ehelf_object_step(o, FN - 1, &in, &out, read_mem, NULL) ==
	      EHELF_E_NOT_COVERED);
	CHECK(ehelf_object_step(o, FN + NCASES * FN_SIZE, &in, &out, read_mem,
				NULL) == EHELF_E_NOT_COVERED);
	CHECK(ehelf_object_step_local(o, 0, &in, &out, 0, UINT64_MAX) ==
	      EHELF_E_NOT_COVERED);
	CHECK(ehelf_object_step_local(o, UINT64_MAX, &in, &out, 0, UINT64_MAX)
	      == EHELF_E_NOT_COVERED);
	ehelf_object_close(o);
	ehelf_compile_stats_free(&st);
	free(image);
	munmap(mem, MEM);
}

int main(void)
{
	/* each form of code: compact (these sections are small), the
	 * compiled bodies of larger files, the compact form of larger ones */
	run(GEN_FORM_AUTO);
	run(GEN_FORM_FULL);
	run(GEN_FORM_COMPACT_LARGE);
	UNIT_DONE("test_codegen");
}
