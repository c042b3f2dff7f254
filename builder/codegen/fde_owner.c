/* fde_owner.c - see fde_owner.h. */
#include "fde_owner.h"

#include <stdlib.h>

#include "../../common/err.h"

/* .eh_frame's FDEs first, then by start, then in input order. */
static int cmp_span(const void *pa, const void *pb)
{
	const fde_span *a = pa, *b = pb;
	if (a->debug_frame != b->debug_frame)
		return a->debug_frame ? 1 : -1;
	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Each FDE's owned window into [lo, hi) of its span (hi = lo: none);
 * F sorted by cmp_span.  FDEs of no length are skipped, not obstacles. */
static void windows(fde_span *f, size_t nf)
{
	const fde_span *prev = NULL; /* the last FDE with a window */
	for (size_t i = 0; i < nf; i++) {
		if (f[i].lo >= f[i].hi) {
			f[i].hi = f[i].lo;
			continue;
		}
		if (prev && prev->debug_frame == f[i].debug_frame &&
		    prev->lo == f[i].lo) { /* a tie, lost to the earlier */
			f[i].hi = f[i].lo;
			continue;
		}
		prev = &f[i];
		for (size_t k = i + 1; k < nf && f[k].debug_frame == f[i].debug_frame;
		     k++) {
			if (f[k].lo > f[i].lo && f[k].lo < f[k].hi) {
				if (f[k].lo < f[i].hi)
					f[i].hi = f[k].lo;
				break;
			}
		}
	}
}

/* X cut to [lo, hi), less the .eh_frame windows EH[0, NEH) (sorted, not
 * overlapping), from *AT on (X's pieces come in address order). */
static int put_outside(lt_intervals *o, lt_interval x, const fde_span *eh,
		       size_t neh, size_t *at)
{
	size_t k = *at;
	while (k < neh && eh[k].hi <= x.lo)
		k++;
	*at = k;
	for (; k < neh && eh[k].lo < x.hi && x.lo < x.hi; k++) {
		if (eh[k].lo >= eh[k].hi)
			continue;
		if (eh[k].lo > x.lo) {
			lt_interval piece = x;
			piece.hi = eh[k].lo;
			if (lt_intervals_push(o, piece) < 0)
				return ERR_NOMEM;
		}
		if (eh[k].hi > x.lo)
			x.lo = eh[k].hi;
	}
	return x.lo < x.hi ? lt_intervals_push(o, x) : 0;
}

int fde_owner_clip(fde_span *f, size_t nf, const lt_interval *iv,
		   lt_interval **out, size_t *nout, uint64_t *cut)
{
	qsort(f, nf, sizeof *f, cmp_span);
	windows(f, nf);
	size_t neh = 0;
	while (neh < nf && !f[neh].debug_frame)
		neh++;
	lt_intervals o = { 0 };
	size_t at = 0;
	*cut = 0;
	for (size_t i = 0; i < nf; i++) {
		for (size_t r = f[i].first; r < f[i].first + f[i].nrows; r++) {
			lt_interval x = iv[r];
			if (x.lo < f[i].lo)
				x.lo = f[i].lo;
			if (x.hi > f[i].hi)
				x.hi = f[i].hi;
			size_t before = o.n;
			int rc = 0;
			if (f[i].debug_frame)
				rc = put_outside(&o, x, f, neh, &at);
			else if (x.lo < x.hi)
				rc = lt_intervals_push(&o, x);
			if (rc < 0) {
				free(o.v);
				return ERR_NOMEM;
			}
			*cut += o.n != before + 1 || o.v[before].lo != iv[r].lo ||
				o.v[before].hi != iv[r].hi;
		}
		if (i + 1 < nf && f[i + 1].debug_frame && !f[i].debug_frame)
			at = 0;
	}
	*out = o.v;
	*nout = o.n;
	return 0;
}
