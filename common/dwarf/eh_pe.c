/* eh_pe.c - see eh_pe.h. */
#include "eh_pe.h"

#include <dwarf.h>

bool eh_pe_valid(uint8_t enc)
{
	if (enc == DW_EH_PE_omit)
		return true;
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr: case DW_EH_PE_uleb128: case DW_EH_PE_udata2:
	case DW_EH_PE_udata4: case DW_EH_PE_udata8: case DW_EH_PE_sleb128:
	case DW_EH_PE_sdata2: case DW_EH_PE_sdata4: case DW_EH_PE_sdata8:
		break;
	default:
		return false;
	}
	switch (enc & 0x70) {
	case DW_EH_PE_absptr: case DW_EH_PE_pcrel: case DW_EH_PE_textrel:
	case DW_EH_PE_datarel: case DW_EH_PE_funcrel: case DW_EH_PE_aligned:
		return true;
	}
	return false;
}

int eh_pe_read_raw(cursor *c, uint8_t enc, uint64_t *out)
{
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:  *out = cur_u64(c); break;
	case DW_EH_PE_uleb128: *out = cur_uleb(c); break;
	case DW_EH_PE_udata2:  *out = cur_u16(c); break;
	case DW_EH_PE_udata4:  *out = cur_u32(c); break;
	case DW_EH_PE_udata8:  *out = cur_u64(c); break;
	case DW_EH_PE_sleb128: *out = (uint64_t)cur_sleb(c); break;
	case DW_EH_PE_sdata2:  *out = (uint64_t)(int64_t)cur_s16(c); break;
	case DW_EH_PE_sdata4:  *out = (uint64_t)(int64_t)cur_s32(c); break;
	case DW_EH_PE_sdata8:  *out = (uint64_t)cur_s64(c); break;
	default:
		return EH_PE_BAD_ENCODING;
	}
	return c->bad ? EH_PE_TRUNCATED : EH_PE_OK;
}

int eh_pe_read(cursor *c, uint8_t enc, const eh_pe_ctx *ctx, uint64_t *out)
{
	if (enc == DW_EH_PE_omit)
		return EH_PE_NO_BASE;
	if (!eh_pe_valid(enc))
		return EH_PE_BAD_ENCODING;
	uint64_t field = ctx->vaddr + (uint64_t)(c->p - ctx->data);
	uint64_t base = 0;
	switch (enc & 0x70) {
	case DW_EH_PE_pcrel:
		base = field;
		break;
	case DW_EH_PE_funcrel:
		if (!ctx->has_func)
			return EH_PE_NO_BASE;
		base = ctx->func;
		break;
	case DW_EH_PE_aligned: {
		/* the value is an absptr at the next 8-byte boundary */
		uint64_t pad = (8 - (field & 7)) & 7;
		cur_skip(c, pad);
		enc = DW_EH_PE_absptr | (enc & DW_EH_PE_indirect);
		break;
	}
	case DW_EH_PE_datarel:
		base = ctx->datarel;
		break;
	default: /* absptr, textrel: base 0, see eh_pe.h */
		break;
	}
	uint64_t v;
	int rc = eh_pe_read_raw(c, enc, &v);
	if (rc != EH_PE_OK)
		return rc;
	v += base;
	if (enc & DW_EH_PE_indirect) {
		if (!ctx->read_u64 || ctx->read_u64(ctx->arg, v, &v) != 0)
			return EH_PE_UNREADABLE;
	}
	*out = v;
	return EH_PE_OK;
}

const char *eh_pe_status_str(int status)
{
	switch (status) {
	case EH_PE_OK: return "ok";
	case EH_PE_TRUNCATED: return "encoded pointer runs past the end";
	case EH_PE_BAD_ENCODING: return "unknown DW_EH_PE pointer encoding";
	case EH_PE_NO_BASE: return "pointer encoding has no base here";
	case EH_PE_UNREADABLE: return "indirect pointer target not in the file";
	}
	return "unknown pointer error";
}
