/* sframe_est.c - see sframe_est.h. */
#include "sframe_est.h"

#include <stdbool.h>

/* What SFrame keeps of a row: its FRE's content. */
typedef struct fre {
	uint16_t base;    /* UW_RSP or UW_RBP */
	bool has_fp;
	int64_t cfa_off, fp_off;
} fre;

static bool fits32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/* ROW's FRE into *F; false when SFrame cannot represent ROW. */
static bool row_fre(const uw_rules *r, fre *f)
{
	if (r->cfa.kind != UW_CFA_REG_OFF ||
	    (r->cfa.reg != UW_RSP && r->cfa.reg != UW_RBP) || !fits32(r->cfa.off))
		return false;
	const uw_rule *ra = &r->reg[UW_RA], *fp = &r->reg[UW_RBP];
	if (ra->kind != UW_OFFSET || ra->off != -8)
		return false;
	*f = (fre){ .base = r->cfa.reg, .cfa_off = r->cfa.off };
	if (fp->kind == UW_OFFSET) {
		if (!fits32(fp->off))
			return false;
		f->has_fp = true;
		f->fp_off = fp->off;
	} else if (fp->kind != UW_UNSET && fp->kind != UW_SAME_VALUE) {
		return false;
	}
	return true;
}

static bool fre_eq(const fre *a, const fre *b)
{
	return a->base == b->base && a->cfa_off == b->cfa_off &&
	       a->has_fp == b->has_fp && (!a->has_fp || a->fp_off == b->fp_off);
}

static unsigned width(int64_t v)
{
	return v >= INT8_MIN && v <= INT8_MAX ? 1 : v >= INT16_MIN && v <= INT16_MAX
	       ? 2 : 4;
}

static uint64_t fre_bytes(const fre *f, unsigned addr_bytes)
{
	unsigned w = width(f->cfa_off);
	if (f->has_fp && width(f->fp_off) > w)
		w = width(f->fp_off);
	return addr_bytes + 1 + (1 + (f->has_fp ? 1u : 0u)) * w;
}

void sframe_est_fde(sframe_est *e, const uw_fde *fde)
{
	uint64_t range = fde->hi - fde->lo;
	unsigned addr_bytes = range < 256 ? 1 : range < 65536 ? 2 : 4;
	uint64_t fres = 0, bytes = 0;
	fre f, prev = { 0 };
	for (size_t i = 0; i < fde->nrows; i++) {
		if (!row_fre(&fde->rows[i].r, &f)) {
			e->skipped_fdes++;
			e->skipped_rows += fde->nrows;
			return;
		}
		if (i > 0 && fre_eq(&f, &prev))
			continue;
		fres++;
		bytes += fre_bytes(&f, addr_bytes);
		prev = f;
	}
	e->fdes++;
	e->fres += fres;
	e->fre_bytes += bytes;
}

uint64_t sframe_est_bytes(const sframe_est *e)
{
	return SFRAME_HEADER_BYTES + SFRAME_FDE_BYTES * e->fdes + e->fre_bytes;
}
