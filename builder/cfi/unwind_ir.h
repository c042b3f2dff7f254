/*
 * unwind_ir.h - the unwind-table IR: what the CFI says for every address.
 *
 * One uw_fde per FDE, holding rows [lo, hi) of link-time virtual addresses.
 * Each row gives the CFA rule and a rule for each of the 17 DWARF x86_64
 * columns 0..16 (rax rdx rcx rbx rsi rdi rbp rsp r8..r15, and 16, the
 * return address).  Rules for higher columns (vector, x87, segment
 * registers) are outside ehelf's register model; they are counted in
 * uw_fde.extra_cols and otherwise ignored.
 *
 * Expressions are kept as the DWARF bytes: `expr` points into the section
 * data of the ELF file being read and is valid while that file is open.
 */
#ifndef EHELF_CFI_UNWIND_IR_H
#define EHELF_CFI_UNWIND_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { UW_NCOLS = 17, UW_RA = 16, UW_RSP = 7, UW_RBP = 6 };

/* Register rules, DWARF 5 section 6.4.1. */
typedef enum uw_rule_kind {
	UW_UNSET = 0,    /* no rule given: the ABI default applies */
	UW_UNDEFINED,    /* the caller's value cannot be recovered */
	UW_SAME_VALUE,   /* unchanged from this frame */
	UW_OFFSET,       /* saved at address CFA + off */
	UW_VAL_OFFSET,   /* value is CFA + off */
	UW_REGISTER,     /* value is in register `reg` of this frame */
	UW_EXPR,         /* saved at the address computed by expr (CFA pushed) */
	UW_VAL_EXPR,     /* value computed by expr (CFA pushed) */
	UW_RULE_KINDS
} uw_rule_kind;

typedef struct uw_rule {
	uint8_t kind;       /* uw_rule_kind */
	uint8_t pad_;
	uint16_t reg;       /* UW_REGISTER: DWARF register number */
	uint32_t expr_len;  /* UW_EXPR, UW_VAL_EXPR: length of expr */
	union {
		int64_t off;          /* UW_OFFSET, UW_VAL_OFFSET */
		const uint8_t *expr;  /* UW_EXPR, UW_VAL_EXPR */
	};
} uw_rule;

typedef enum uw_cfa_kind {
	UW_CFA_UNSET = 0,  /* no CFA rule yet (CIE without DW_CFA_def_cfa) */
	UW_CFA_REG_OFF,    /* CFA = reg + off */
	UW_CFA_EXPR,       /* CFA = value of expr */
} uw_cfa_kind;

typedef struct uw_cfa {
	uint8_t kind;       /* uw_cfa_kind */
	/* Set when DW_CFA_def_cfa_register or _offset changed a CFA that was
	 * not register+offset.  DWARF 5 calls that invalid (libdw rejects
	 * it); libgcc, libunwind and readelf keep the last register and
	 * offset, and hand-written assembly (libgcrypt) relies on it.  Not
	 * part of the rule: uw_cfa_eq() ignores it. */
	uint8_t lax;
	uint16_t reg;       /* UW_CFA_REG_OFF; kept while an expression rules */
	uint32_t expr_len;  /* UW_CFA_EXPR */
	int64_t off;        /* UW_CFA_REG_OFF; kept while an expression rules */
	const uint8_t *expr;/* UW_CFA_EXPR */
} uw_cfa;

/* The rules of one row, without its address range. */
typedef struct uw_rules {
	uw_cfa cfa;
	uw_rule reg[UW_NCOLS];
} uw_rules;

typedef struct uw_row {
	uint64_t lo, hi; /* [lo, hi) */
	uw_rules r;
} uw_row;

typedef struct uw_fde {
	uint64_t lo, hi;         /* pc range of the FDE, [lo, hi) */
	uint64_t offset;         /* of the FDE in its section */
	uint64_t size;           /* bytes of the whole entry, its initial
				  * length field (4, or 12 for 64-bit DWARF)
				  * included */
	uint64_t cie_offset;     /* of its CIE in the same section */
	const char *section;     /* ".eh_frame" or ".debug_frame" */
	bool signal_frame;       /* CIE augmentation 'S' */
	uint32_t extra_cols;     /* rules for columns > 16 seen and ignored */
	uint32_t args_size_ops;  /* DW_CFA_GNU_args_size instructions */
	size_t nrows;
	const uw_row *rows;      /* owned by the reader, see cfi_reader.h */
} uw_fde;

bool uw_rule_eq(const uw_rule *a, const uw_rule *b);
bool uw_cfa_eq(const uw_cfa *a, const uw_cfa *b);
bool uw_rules_eq(const uw_rules *a, const uw_rules *b);

/* readelf's x86_64 register name for DWARF register REG ("rax", "r8",
 * "rip", "xmm0", ...); for column 16 in a rule position it is "rip".
 * Unknown numbers give "r<N>" in BUF. */
const char *uw_reg_name(unsigned reg, char buf[16]);

#endif
