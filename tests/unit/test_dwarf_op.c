/* test_dwarf_op.c - DW_OP decoding and text. */
#include <dwarf.h>

#include "../../builder/cfi/dwarf_op.h"
#include "unit.h"

static int decode_all(const uint8_t *e, size_t n, dwop *ops, int max)
{
	cursor c = cursor_make(e, n);
	int k = 0, rc;
	while (k < max && (rc = dwop_next(&c, e, &ops[k])) > 0)
		k++;
	return rc < 0 ? -1 : k;
}

int main(void)
{
	/* the lazy-PLT CFA expression that ld writes into every .plt FDE */
	static const uint8_t plt[] = { 0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a,
				       0x3b, 0x2a, 0x33, 0x24, 0x22 };
	dwop ops[16];
	CHECK(decode_all(plt, sizeof plt, ops, 16) == 9);
	CHECK(ops[0].op == DW_OP_breg7 && ops[0].n1 == 8);
	CHECK(ops[1].op == DW_OP_breg16 && ops[1].n1 == 0);
	CHECK(ops[2].op == DW_OP_lit15 && ops[4].op == DW_OP_lit11);
	CHECK(ops[8].op == DW_OP_plus && ops[8].offset == 10);
	char buf[96];
	dwop_format(&ops[0], buf, sizeof buf);
	CHECK_STR(buf, "DW_OP_breg7 (rsp): 8");
	dwop_format(&ops[1], buf, sizeof buf);
	CHECK_STR(buf, "DW_OP_breg16 (rip): 0");
	dwop_format(&ops[4], buf, sizeof buf);
	CHECK_STR(buf, "DW_OP_lit11");

	/* operand kinds */
	static const uint8_t mixed[] = {
		DW_OP_const1s, 0xff,
		DW_OP_const2u, 0x34, 0x12,
		DW_OP_const4s, 0xfe, 0xff, 0xff, 0xff,
		DW_OP_const8u, 1, 0, 0, 0, 0, 0, 0, 0,
		DW_OP_consts, 0x7f,
		DW_OP_bregx, 12, 0x78,
		DW_OP_bra, 0xfd, 0xff,
		DW_OP_deref_size, 4,
		DW_OP_call_frame_cfa,
		DW_OP_regx, 33,
		DW_OP_plus_uconst, 0x80, 0x01,
		DW_OP_implicit_value, 2, 0xaa, 0xbb,
	};
	CHECK(decode_all(mixed, sizeof mixed, ops, 16) == 12);
	CHECK_U64(ops[0].n1, (uint64_t)-1);
	CHECK_U64(ops[1].n1, 0x1234);
	CHECK_U64(ops[2].n1, (uint64_t)-2);
	CHECK_U64(ops[3].n1, 1);
	CHECK_U64(ops[4].n1, (uint64_t)-1);
	CHECK(ops[5].n1 == 12 && ops[5].n2 == (uint64_t)-8);
	CHECK_U64(ops[6].n1, (uint64_t)-3);
	CHECK_U64(ops[7].n1, 4);
	CHECK_U64(ops[9].n1, 33);
	CHECK_U64(ops[10].n1, 128);
	CHECK(ops[11].block_len == 2 && ops[11].block[1] == 0xbb);
	dwop_format(&ops[5], buf, sizeof buf);
	CHECK_STR(buf, "DW_OP_bregx: 12 (r12) -8");
	dwop_format(&ops[6], buf, sizeof buf);
	CHECK_STR(buf, "DW_OP_bra: -3 (to +24)");
	dwop_format(&ops[9], buf, sizeof buf);
	CHECK_STR(buf, "DW_OP_regx: 33 (st0)");

	/* unknown opcode and truncated operands */
	CHECK(decode_all((const uint8_t[]){ 0x01 }, 1, ops, 4) == -1);
	CHECK(decode_all((const uint8_t[]){ DW_OP_const4u, 1, 2 }, 3, ops, 4) == -1);
	CHECK(decode_all((const uint8_t[]){ DW_OP_implicit_value, 5, 1 }, 3,
			 ops, 4) == -1);
	CHECK(decode_all((const uint8_t[]){ DW_OP_bregx, 0x80 }, 2, ops, 4) == -1);
	CHECK(dwop_name(DW_OP_call_frame_cfa) != NULL);
	CHECK_STR(dwop_name(DW_OP_call_frame_cfa), "DW_OP_call_frame_cfa");
	CHECK(dwop_name(0x01) == NULL);
	UNIT_DONE("test_dwarf_op");
}
