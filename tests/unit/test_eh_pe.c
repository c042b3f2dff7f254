/* test_eh_pe.c - DW_EH_PE pointer decoding: formats, bases, indirect. */
#include <dwarf.h>

#include "../../common/dwarf/eh_pe.h"
#include "unit.h"

static int fake_mem(void *arg, uint64_t addr, uint64_t *value)
{
	(void)arg;
	if (addr != 0x2000)
		return -1;
	*value = 0x1122334455667788ull;
	return 0;
}

static int decode(const uint8_t *p, size_t n, uint8_t enc, size_t start,
		  uint64_t *out, size_t *used)
{
	eh_pe_ctx ctx = { .data = p, .vaddr = 0x1000, .has_func = true,
			  .func = 0x5000, .read_u64 = fake_mem };
	cursor c = cursor_make(p + start, n - start);
	int rc = eh_pe_read(&c, enc, &ctx, out);
	*used = (size_t)(c.p - p);
	return rc;
}

int main(void)
{
	uint64_t v;
	size_t used;
	const uint8_t s4[] = { 0xf0, 0xff, 0xff, 0xff };
	CHECK(decode(s4, 4, DW_EH_PE_sdata4, 0, &v, &used) == EH_PE_OK);
	CHECK_U64(v, (uint64_t)-16);
	CHECK(decode(s4, 4, DW_EH_PE_udata4, 0, &v, &used) == EH_PE_OK);
	CHECK_U64(v, 0xfffffff0);
	/* pcrel: relative to the field's own address (0x1000 + offset) */
	CHECK(decode(s4, 4, DW_EH_PE_pcrel | DW_EH_PE_sdata4, 0, &v, &used) == 0);
	CHECK_U64(v, 0x1000 - 16);
	/* funcrel: relative to the function start */
	const uint8_t u2[] = { 0x10, 0x00 };
	CHECK(decode(u2, 2, DW_EH_PE_funcrel | DW_EH_PE_udata2, 0, &v, &used) == 0);
	CHECK_U64(v, 0x5010);
	/* aligned: the next 8-byte boundary of the field's address */
	uint8_t al[24] = { 0 };
	al[8] = 0x42;
	CHECK(decode(al, sizeof al, DW_EH_PE_aligned, 3, &v, &used) == 0);
	CHECK_U64(v, 0x42);
	CHECK_U64(used, 16);
	/* indirect: dereferenced through the callback */
	const uint8_t ind[] = { 0x00, 0x20, 0, 0, 0, 0, 0, 0 };
	CHECK(decode(ind, 8, DW_EH_PE_indirect | DW_EH_PE_absptr, 0, &v,
		     &used) == 0);
	CHECK_U64(v, 0x1122334455667788ull);
	const uint8_t ind2[] = { 0x00, 0x30, 0, 0, 0, 0, 0, 0 };
	CHECK(decode(ind2, 8, DW_EH_PE_indirect | DW_EH_PE_absptr, 0, &v,
		     &used) == EH_PE_UNREADABLE);
	/* omit and unknown encodings are refused; truncation is reported */
	CHECK(decode(s4, 4, DW_EH_PE_omit, 0, &v, &used) == EH_PE_NO_BASE);
	CHECK(decode(s4, 4, 0x05, 0, &v, &used) == EH_PE_BAD_ENCODING);
	CHECK(decode(s4, 4, 0x60 | DW_EH_PE_udata4, 0, &v, &used) ==
	      EH_PE_BAD_ENCODING);
	CHECK(decode(s4, 4, DW_EH_PE_udata8, 0, &v, &used) == EH_PE_TRUNCATED);
	CHECK(!eh_pe_valid(0x70));
	CHECK(eh_pe_valid(DW_EH_PE_omit));
	/* raw reads apply no base: FDE address ranges */
	cursor c = cursor_make(s4, 4);
	CHECK(eh_pe_read_raw(&c, DW_EH_PE_pcrel | DW_EH_PE_udata4, &v) == 0);
	CHECK_U64(v, 0xfffffff0);
	UNIT_DONE("test_eh_pe");
}
