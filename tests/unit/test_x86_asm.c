/*
 * test_x86_asm.c - the code generator's x86-64 encoder against GNU as.
 *
 * Every instruction form the generator uses is emitted over a spread of
 * registers (including rsp, rbp, r12, r13, whose encodings are special),
 * displacements (0, disp8, disp32, negative), indexes, immediates and
 * labels, and at the same time written as Intel-syntax text.  The text is
 * assembled with `as`; both byte streams are disassembled with objdump and
 * must read the same (the same instruction may have several encodings, so
 * the disassembly is compared, not the bytes).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../builder/codegen/x86_asm.h"
#include "unit.h"

static const char *const R64[] = { "rax", "rcx", "rdx", "rbx", "rsp", "rbp",
	"rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15" };
static const char *const R32[] = { "eax", "ecx", "edx", "ebx", "esp", "ebp",
	"esi", "edi", "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d" };
static const char *const RB[] = { "al", "cl", "dl", "bl", "spl", "bpl", "sil",
	"dil", "r8b", "r9b", "r10b", "r11b", "r12b", "r13b", "r14b", "r15b" };
static const char *const CC[] = { "o", "no", "b", "ae", "e", "ne", "be", "a",
	"s", "ns", "p", "np", "l", "ge", "le", "g" };

static FILE *text;
static x86_asm a;

static void T(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void T(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfprintf(text, fmt, ap);
	va_end(ap);
	fputc('\n', text);
}

static const char *mem(x86_mem m)
{
	static char buf[8][64];
	static int k;
	char *b = buf[k++ % 8];
	if (m.base == XNONE) {
		snprintf(b, 64, "[rip+L%d]", m.label);
	} else if (m.index != XNONE) {
		snprintf(b, 64, "[%s+%s*%d%+d]", R64[m.base], R64[m.index],
			 m.scale, m.disp);
	} else {
		snprintf(b, 64, "[%s%+d]", R64[m.base], m.disp);
	}
	return b;
}

static const int regs[] = { RAX, RCX, RBX, RSP, RBP, RSI, R8, R11, R12, R13, R15 };
static const int32_t disps[] = { 0, 8, -8, 127, 128, -128, -129, 0x12345, -0x54321 };
static const int32_t imms[] = { 0, 1, -1, 127, 128, -128, -129, 0x12345678 };

enum { NREGS = sizeof regs / sizeof regs[0], NDISPS = sizeof disps / sizeof disps[0],
       NIMMS = sizeof imms / sizeof imms[0] };

static void emit_all(void)
{
	static const char *const alu[] = { "add", "or", "", "", "and", "sub", "xor", "cmp" };
	static const enum x86_alu alus[] = { ALU_ADD, ALU_OR, ALU_AND, ALU_SUB,
					     ALU_XOR, ALU_CMP };
	int lab_fwd = x86_label(&a), lab_back = x86_label(&a);
	x86_bind(&a, lab_back);
	T("L%d:", lab_back);
	for (int i = 0; i < NREGS; i++) {
		int r = regs[i];
		for (int j = 0; j < NREGS; j++) {
			int b = regs[j];
			x86_mov_rr(&a, r, b);
			if (r != b)
				T("mov %s, %s", R64[r], R64[b]);
			for (int d = 0; d < NDISPS; d++) {
				x86_mem m = M(b, disps[d]);
				x86_mov_load(&a, r, m); T("mov %s, QWORD PTR %s", R64[r], mem(m));
				x86_mov_store(&a, m, r); T("mov QWORD PTR %s, %s", mem(m), R64[r]);
				x86_lea(&a, r, m); T("lea %s, %s", R64[r], mem(m));
			}
			x86_mem m = M(b, disps[j % NDISPS]);
			x86_mov_load32(&a, r, m); T("mov %s, DWORD PTR %s", R32[r], mem(m));
			x86_mov_store32(&a, m, r); T("mov DWORD PTR %s, %s", mem(m), R32[r]);
			x86_movzx_load8(&a, r, m); T("movzx %s, BYTE PTR %s", R32[r], mem(m));
			x86_cmp8_rm(&a, r, m); T("cmp %s, BYTE PTR %s", RB[r], mem(m));
			x86_movzx_load16(&a, r, m); T("movzx %s, WORD PTR %s", R32[r], mem(m));
			x86_movsxd_load(&a, r, m); T("movsxd %s, DWORD PTR %s", R64[r], mem(m));
			x86_movsx_load16(&a, r, m); T("movsx %s, WORD PTR %s", R64[r], mem(m));
			x86_imul_rm(&a, r, m); T("imul %s, QWORD PTR %s", R64[r], mem(m));
			for (size_t k = 0; k < sizeof alus / sizeof alus[0]; k++) {
				x86_alu_rr(&a, alus[k], r, b); T("%s %s, %s", alu[alus[k]], R64[r], R64[b]);
				x86_alu32_rr(&a, alus[k], r, b); T("%s %s, %s", alu[alus[k]], R32[r], R32[b]);
				x86_alu_rm(&a, alus[k], r, m); T("%s %s, QWORD PTR %s", alu[alus[k]], R64[r], mem(m));
				x86_alu32_mr(&a, alus[k], m, r); T("%s DWORD PTR %s, %s", alu[alus[k]], mem(m), R32[r]);
			}
			if (b != RSP) {
				for (int sc = 1; sc <= 8; sc *= 2) {
					x86_mem mi = MI(r, b, sc, disps[(j + sc) % NDISPS]);
					x86_mov_load(&a, RDX, mi); T("mov rdx, QWORD PTR %s", mem(mi));
					x86_lea(&a, R10, mi); T("lea r10, %s", mem(mi));
					x86_movzx_load8(&a, RCX, mi); T("movzx ecx, BYTE PTR %s", mem(mi));
				}
			}
			x86_imul_rr(&a, r, b); T("imul %s, %s", R64[r], R64[b]);
			x86_test_rr(&a, r, b); T("test %s, %s", R64[r], R64[b]);
			x86_test_rr32(&a, r, b); T("test %s, %s", R32[r], R32[b]);
			x86_cmov(&a, (enum x86_cc)(j % 16), r, b);
			T("cmov%s %s, %s", CC[j % 16], R64[r], R64[b]);
			x86_movzx8_rr(&a, r, b); T("movzx %s, %s", R32[r], RB[b]);
		}
		for (int k = 0; k < NIMMS; k++) {
			int32_t imm = imms[k];
			for (size_t o = 0; o < sizeof alus / sizeof alus[0]; o++) {
				x86_alu_ri(&a, alus[o], r, imm); T("%s %s, %d", alu[alus[o]], R64[r], imm);
				x86_alu32_ri(&a, alus[o], r, imm); T("%s %s, %d", alu[alus[o]], R32[r], imm);
				x86_alu_mi32(&a, alus[o], M(r, imm), imm);
				T("%s DWORD PTR %s, %d", alu[alus[o]], mem(M(r, imm)), imm);
				x86_alu8_mi(&a, alus[o], M(r, imm), (uint8_t)imm);
				T("%s BYTE PTR %s, %d", alu[alus[o]], mem(M(r, imm)), (uint8_t)imm);
			}
			x86_imul_ri(&a, r, regs[(i + k) % NREGS], imm);
			T("imul %s, %s, %d", R64[r], R64[regs[(i + k) % NREGS]], imm);
			x86_store_imm32(&a, M(r, imm), imm); T("mov QWORD PTR %s, %d", mem(M(r, imm)), imm);
			x86_test32_ri(&a, r, (uint32_t)imm); T("test %s, %d", R32[r], imm);
		}
		static const uint64_t movs[] = { 0, 1, 0xffffffff, 0x100000000ull,
			(uint64_t)-1, (uint64_t)-0x80000000ll, 0x123456789abcdef0ull };
		for (size_t k = 0; k < sizeof movs / sizeof movs[0]; k++) {
			uint64_t v = movs[k];
			x86_mov_ri(&a, r, v);
			if (v == 0) /* the shortest forms, as x86_mov_ri picks them */
				T("xor %s, %s", R32[r], R32[r]);
			else if (v <= 0xffffffffu)
				T("mov %s, %llu", R32[r], (unsigned long long)v);
			else if ((int64_t)v >= INT32_MIN && (int64_t)v <= INT32_MAX)
				T("mov %s, %lld", R64[r], (long long)v);
			else
				T("movabs %s, %lld", R64[r], (long long)v);
		}
		x86_neg(&a, r); T("neg %s", R64[r]);
		x86_test8_ri(&a, r, 0x81); T("test %s, 0x81", RB[r]);
		x86_bt32_rr(&a, r, regs[(i + 3) % NREGS]); T("bt %s, %s", R32[r], R32[regs[(i + 3) % NREGS]]);
		x86_bts32_rr(&a, r, regs[(i + 5) % NREGS]); T("bts %s, %s", R32[r], R32[regs[(i + 5) % NREGS]]);
		x86_inc32(&a, r); T("inc %s", R32[r]);
		x86_dec32(&a, r); T("dec %s", R32[r]);
		x86_not(&a, r); T("not %s", R64[r]);
		x86_shift_cl(&a, SH_SHL, r); T("shl %s, cl", R64[r]);
		x86_shift_cl(&a, SH_SHR, r); T("shr %s, cl", R64[r]);
		x86_shift_cl(&a, SH_SAR, r); T("sar %s, cl", R64[r]);
		x86_shift_ri(&a, SH_SHR, r, 56); T("shr %s, 56", R64[r]);
		x86_shift32_ri(&a, SH_SHL, r, 3); T("shl %s, 3", R32[r]);
		x86_push_i8(&a, (int8_t)(i - 6)); T("push %d", i - 6);
		x86_idiv(&a, r); T("idiv %s", R64[r]);
		x86_div(&a, r); T("div %s", R64[r]);
		x86_setcc(&a, (enum x86_cc)(i % 16), r); T("set%s %s", CC[i % 16], RB[r]);
		x86_push(&a, r); T("push %s", R64[r]);
		x86_pop(&a, r); T("pop %s", R64[r]);
		x86_call_r(&a, r); T("call %s", R64[r]);
		x86_jmp_r(&a, r); T("jmp %s", R64[r]);
		x86_movdqu_load(&a, i % 16, M(r, disps[i % NDISPS]));
		T("movdqu xmm%d, XMMWORD PTR %s", i % 16, mem(M(r, disps[i % NDISPS])));
		for (int j = 0; j < NREGS; j++) {
			int x = i % 16, y = regs[j];
			x86_movd_xr(&a, x, y); T("movd xmm%d, %s", x, R32[y]);
			x86_pcmpgtb(&a, y, x); T("pcmpgtb xmm%d, xmm%d", y, x);
			x86_pmovmskb(&a, y, x); T("pmovmskb %s, xmm%d", R32[y], x);
			x86_pshufd(&a, x, y, (uint8_t)(j * 37)); T("pshufd xmm%d, xmm%d, %d", x, y, (j * 37) & 0xff);
			x86_bts_rr(&a, r, y); T("bts %s, %s", R64[r], R64[y]);
			x86_tzcnt_rr(&a, r, y); T("tzcnt %s, %s", R64[r], R64[y]);
		}
		x86_lea(&a, r, MRIP(lab_fwd)); T("lea %s, [rip+L%d]", R64[r], lab_fwd);
		x86_imul_rm(&a, r, MRIP(lab_back)); T("imul %s, QWORD PTR [rip+L%d]", R64[r], lab_back);
		x86_alu_mi32(&a, ALU_ADD, MRIP(lab_fwd), 1000);
		T("add DWORD PTR [rip+L%d], 1000", lab_fwd);
	}
	for (int c = 0; c < 16; c++) {
		x86_jcc(&a, (enum x86_cc)c, c % 2 ? lab_fwd : lab_back);
		T("j%s L%d", CC[c], c % 2 ? lab_fwd : lab_back);
	}
	x86_jmp(&a, lab_fwd); T("jmp L%d", lab_fwd);
	x86_call(&a, lab_back); T("call L%d", lab_back);
	x86_cqo(&a); T("cqo");
	x86_ret(&a); T("ret");
	x86_bind(&a, lab_fwd);
	T("L%d:", lab_fwd);
	x86_ret(&a); T("ret");
}

/* objdump's reading of a raw x86-64 byte file, without addresses/bytes. */
static char *disasm(const char *bin)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "objdump -D -b binary -m i386:x86-64 -M intel "
		 "--no-show-raw-insn %s | sed -n 's/^ *[0-9a-f]*:\\t//p' | "
		 "sed 's/ *#.*//; s/[[:space:]]*$//; s/ <[^>]*>//'", bin);
	FILE *p = popen(cmd, "r");
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);
	char line[512];
	while (p && fgets(line, sizeof line, p)) {
		/* jump targets differ only in addresses: keep the mnemonic */
		if (!strncmp(line, "j", 1) || !strncmp(line, "call ", 5) ||
		    strstr(line, "[rip+"))
			line[strcspn(line, " ")] = '\0', strcat(line, "\n");
		fputs(line, m);
	}
	if (p)
		pclose(p);
	fclose(m);
	return out;
}

int main(void)
{
	char dir[] = "/tmp/ehelf-x86-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char ours[256], src[256], obj[256], theirs[256], cmd[1024];
	snprintf(ours, sizeof ours, "%s/ours.bin", dir);
	snprintf(src, sizeof src, "%s/as.s", dir);
	snprintf(obj, sizeof obj, "%s/as.o", dir);
	snprintf(theirs, sizeof theirs, "%s/as.bin", dir);
	text = fopen(src, "w");
	fputs(".intel_syntax noprefix\n.text\n", text);
	x86_init(&a);
	emit_all();
	CHECK(x86_finish(&a));
	fclose(text);
	FILE *f = fopen(ours, "wb");
	fwrite(a.buf, 1, a.n, f);
	fclose(f);
	snprintf(cmd, sizeof cmd, "as -o %s %s && objcopy -O binary -j .text %s %s",
		 obj, src, obj, theirs);
	CHECK(system(cmd) == 0);
	char *d1 = disasm(ours), *d2 = disasm(theirs);
	size_t lines = 0;
	for (const char *p = d1; *p; p++)
		lines += *p == '\n';
	CHECK(lines > 2000);
	CHECK(strcmp(d1, d2) == 0);
	if (strcmp(d1, d2) != 0) {
		/* show the first difference */
		const char *p = d1, *q = d2;
		while (*p && *p == *q) {
			p++;
			q++;
		}
		while (p > d1 && p[-1] != '\n')
			p--, q--;
		fprintf(stderr, "  ours:  %.80s\n  as:    %.80s\n", p, q);
	}
	fprintf(stderr, "test_x86_asm: %zu instructions, %zu bytes\n", lines, a.n);
	free(d1);
	free(d2);
	x86_free(&a);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	UNIT_DONE("test_x86_asm");
}
