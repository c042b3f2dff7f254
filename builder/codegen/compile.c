/* compile.c - see compile.h. */
#include "compile.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../common/buildid.h"
#include "../cfi/cfi_reader.h"
#include "../cfi/dwarf_op.h"
#include "eh_elf_writer.h"
#include "entry_gen.h"
#include "fde_owner.h"
#include "lookup_table.h"
#include "ruleset.h"
#include "ruleset_fp.h"
#include "summary.h"

typedef struct spanvec {
	fde_span *v;
	size_t n, cap;
	uw_fde widest;      /* the FDE of the largest span (no rows kept) */
} spanvec;

static int span_push(spanvec *s, fde_span x)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 1024;
		fde_span *v = realloc(s->v, cap * sizeof *v);
		if (!v)
			return ERR_NOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = x;
	return 0;
}

static uint64_t section_size(elf_file *f, const char *name)
{
	elf_section s;
	return elf_file_section(f, name, &s, NULL) == 0 && !s.nobits ? s.size : 0;
}

static void count_expr(ehelf_coverage *cov, const uint8_t *e, uint32_t len)
{
	cursor c = cursor_make(e, len);
	dwop op;
	while (dwop_next(&c, e, &op) > 0)
		cov->ops[op.op]++;
}

static void cover_row(ehelf_coverage *cov, const uw_row *row)
{
	const uw_rules *r = &row->r;
	int cfa = r->cfa.kind == UW_CFA_REG_OFF ? UW_OFFSET :
		  r->cfa.kind == UW_CFA_EXPR ? UW_EXPR : UW_UNSET;
	cov->kinds[UW_NCOLS][cfa]++;
	if (r->cfa.kind == UW_CFA_EXPR)
		count_expr(cov, r->cfa.expr, r->cfa.expr_len);
	for (int i = 0; i < UW_NCOLS; i++) {
		cov->kinds[i][r->reg[i].kind]++;
		if (r->reg[i].kind == UW_EXPR || r->reg[i].kind == UW_VAL_EXPR)
			count_expr(cov, r->reg[i].expr, r->reg[i].expr_len);
	}
}

static void cover_fde(ehelf_coverage *cov, const uw_fde *fde)
{
	size_t b = fde->nrows < EHELF_FDE_ROWS_BUCKETS - 1 ? fde->nrows
		   : EHELF_FDE_ROWS_BUCKETS - 1;
	cov->fde_rows[b]++;
	cov->signal_fdes += fde->signal_frame;
	cov->extra_cols += fde->extra_cols;
	cov->args_size_ops += fde->args_size_ops;
	for (size_t i = 0; i < fde->nrows; i++)
		cover_row(cov, &fde->rows[i]);
}

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static unsigned log2_floor(uint64_t v)
{
	unsigned b = 0;
	while (v >>= 1)
		b++;
	return b;
}

/* FDE's size, section and SFrame cost into D. */
static void detail_fde(ehelf_compile_detail *d, const uw_fde *fde)
{
	unsigned b = log2_floor(fde->size ? fde->size : 1);
	d->fde_size_fdes[b]++;
	d->fde_size_bytes[b] += fde->size;
	if (fde->section && strcmp(fde->section, ".debug_frame") == 0) {
		d->debug_frame_fdes++;
		d->debug_frame_rows += fde->nrows;
	} else {
		d->eh_frame_fdes++;
		d->eh_frame_rows += fde->nrows;
	}
	sframe_est_fde(&d->sframe, fde);
}

/* Read every row: intern its rule set, record its interval.  With DET,
 * the time inside the reader and the interning are measured apart. */
static int read_rows(cfi_reader *r, const char *name, ruleset_table *rs,
		     lt_intervals *iv, spanvec *fdes, ehelf_compile_stats *st,
		     ehelf_coverage *cov,
		     ehelf_compile_detail *det, uint64_t *pc_lo,
		     uint64_t *pc_hi, ehelf_err *err)
{
	int rc = 0;
	uw_fde fde;
	uint32_t seq = 0;
	*pc_lo = UINT64_MAX;
	*pc_hi = 0;
	double t0 = det ? now_ms() : 0, t1 = 0;
	while (rc >= 0 && (rc = cfi_reader_next(r, &fde, err)) > 0) {
		if (det) {
			t1 = now_ms();
			det->read_ms += t1 - t0;
		}
		st->fdes++;
		rc = span_push(fdes, (fde_span){
			.lo = fde.lo, .hi = fde.hi, .seq = (uint32_t)st->fdes,
			.debug_frame = fde.section &&
				       strcmp(fde.section, ".debug_frame") == 0,
			.first = iv->n, .nrows = fde.nrows });
		if (rc < 0)
			err_set(err, rc, "out of memory");
		if (fdes->n == 1 || fde.hi - fde.lo > fdes->widest.hi - fdes->widest.lo) {
			fdes->widest = fde;
			fdes->widest.rows = NULL;
		}
		for (size_t i = 0; i < fde.nrows && rc >= 0; i++) {
			const uw_row *row = &fde.rows[i];
			int64_t idx = ruleset_intern(rs, &row->r,
						     fde.signal_frame);
			if (idx < 0) {
				rc = err_set(err, ERR_NOMEM, "out of memory");
				break;
			}
			rs->v[idx].nrows++;
			rc = lt_intervals_push(iv, (lt_interval){ row->lo, row->hi,
							  (uint32_t)idx, seq++ });
			if (rc < 0)
				err_set(err, rc, "out of memory");
			st->rows++;
			*pc_lo = row->lo < *pc_lo ? row->lo : *pc_lo;
			*pc_hi = row->hi > *pc_hi ? row->hi : *pc_hi;
		}
		if (det)
			det->rules_ms += now_ms() - t1;
		if (cov)
			cover_fde(cov, &fde);
		if (det) {
			detail_fde(det, &fde);
			t0 = now_ms();
		}
	}
	if (det && rc == 0) /* the last call, which found the end */
		det->read_ms += now_ms() - t0;
	if (rc == 0 && st->rows == 0)
		rc = err_set(err, ERR_NOTFOUND, "%s: unwind tables have no rows",
			     name);
	return rc;
}

const char *ehelf_cfa_base_name(ehelf_cfa_base b)
{
	static const char *const names[] = {
		[EHELF_CFA_RSP] = "rsp", [EHELF_CFA_RBP] = "rbp",
		[EHELF_CFA_REG] = "reg", [EHELF_CFA_EXPR] = "expr",
		[EHELF_CFA_NONE] = "none",
	};
	return (unsigned)b < sizeof names / sizeof *names ? names[b] : "none";
}

static ehelf_cfa_base cfa_base(const uw_cfa *c)
{
	if (c->kind == UW_CFA_EXPR)
		return EHELF_CFA_EXPR;
	if (c->kind != UW_CFA_REG_OFF)
		return EHELF_CFA_NONE;
	return c->reg == UW_RSP ? EHELF_CFA_RSP : c->reg == UW_RBP ? EHELF_CFA_RBP
	       : EHELF_CFA_REG;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* RS's statistics into *O, but its text. */
static void ruleset_stat(const ruleset *rs, bool supported,
			 ehelf_ruleset_stat *o)
{
	const uw_rules *r = &rs->r;
	*o = (ehelf_ruleset_stat){
		.fingerprint = ruleset_fp(rs), .shape = ruleset_shape_fp(rs),
		.rows = rs->nrows, .summarised = ruleset_summary(rs) != 0,
		.supported = supported, .cfa_base = (uint8_t)cfa_base(&r->cfa),
	};
	if (r->cfa.kind == UW_CFA_REG_OFF) {
		o->cfa_reg = r->cfa.reg;
		o->cfa_offset = r->cfa.off;
	}
	for (int c = 0; c < 16; c++) {
		uint8_t k = r->reg[c].kind;
		o->saved_regs += k == UW_OFFSET || k == UW_VAL_OFFSET ||
				 k == UW_REGISTER || k == UW_EXPR ||
				 k == UW_VAL_EXPR;
	}
}

/* The per-rule-set part of D, from RS and the rule sets BLOB could not
 * compile.  Returns 0 or ERR_NOMEM. */
static int detail_rulesets(ehelf_compile_detail *d, const ruleset_table *rs,
			   const gen_blob *blob)
{
	size_t n = rs->n - 1, cap = 64 * (n + 1), used = 0;
	bool *unsup = calloc(rs->n, sizeof *unsup);
	uint64_t *shapes = malloc((n + 1) * sizeof *shapes);
	size_t *text_at = malloc((n + 1) * sizeof *text_at);
	d->rulesets = calloc(n + 1, sizeof *d->rulesets);
	d->texts = malloc(cap);
	int rc = unsup && shapes && text_at && d->rulesets && d->texts ? 0
		 : ERR_NOMEM;
	for (size_t i = 0; rc == 0 && i < blob->nunsupported; i++)
		if (blob->unsupported[i].ruleset < rs->n)
			unsup[blob->unsupported[i].ruleset] = true;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		const ruleset *x = &rs->v[i + 1];
		ehelf_ruleset_stat *o = &d->rulesets[i];
		ruleset_stat(x, !unsup[i + 1], o);
		d->summarised_rows += o->summarised ? o->rows : 0;
		shapes[i] = o->shape;
		if (cap - used < RULESET_TEXT_MAX) {
			char *t = realloc(d->texts, 2 * cap);
			if (!t) {
				rc = ERR_NOMEM;
				break;
			}
			d->texts = t;
			cap *= 2;
		}
		text_at[i] = used;
		used += ruleset_text(x, d->texts + used, cap - used) + 1;
	}
	if (rc == 0) {
		d->nrulesets = n;
		for (size_t i = 0; i < n; i++)
			d->rulesets[i].text = d->texts + text_at[i];
		qsort(shapes, n, sizeof *shapes, cmp_u64);
		for (size_t i = 0; i < n; i++)
			d->shapes += i == 0 || shapes[i] != shapes[i - 1];
	}
	free(unsup);
	free(shapes);
	free(text_at);
	return rc;
}

void ehelf_compile_detail_free(ehelf_compile_detail *d)
{
	free(d->rulesets);
	free(d->texts);
	d->rulesets = NULL;
	d->texts = NULL;
	d->nrulesets = 0;
}

/* Is DEBUG a debug file of F (the same build-ID)? */
static int check_debug_file(elf_file *f, elf_file *debug, ehelf_err *err)
{
	const uint8_t *id, *did;
	int n = elf_file_build_id(f, &id), dn = elf_file_build_id(debug, &did);
	if (n <= 0)
		return err_set(err, ERR_ARG, "%s has no build-ID: no debug file can "
			       "be matched to it", f->name);
	char hex[BUILDID_HEX_MAX + 1], dhex[BUILDID_HEX_MAX + 1] = "none";
	buildid_to_hex(id, (size_t)n, hex, sizeof hex);
	if (dn > 0)
		buildid_to_hex(did, (size_t)dn, dhex, sizeof dhex);
	if (dn != n || memcmp(id, did, (size_t)n) != 0)
		return err_set(err, ERR_ARG, "%s: build-ID %s, not %s of %s: not "
			       "its debug file", debug->name, dhex, hex, f->name);
	return 0;
}

/* Queue F's tables, then DEBUG's .debug_frame (DEBUG may be NULL).
 * Returns the number of sections queued or a negative ERR_*. */
static int queue_sections(cfi_reader *r, elf_file *f, elf_file *debug,
			  ehelf_err *err)
{
	int n = cfi_reader_add_elf(r, f, err);
	if (n < 0 || !debug)
		return n;
	int rc = cfi_reader_add_elf_section(r, debug, ".debug_frame", err);
	return rc < 0 ? rc : n + rc;
}

int ehelf_compile_elf(elf_file *f, const ehelf_compile_opts *opts,
		      uint8_t **image, size_t *len, ehelf_compile_stats *stats,
		      ehelf_err *err)
{
	ehelf_compile_opts o = opts ? *opts : (ehelf_compile_opts){ 0 };
	if (!o.build_id) {
		const uint8_t *id;
		int n = elf_file_build_id(f, &id);
		if (n > 0) {
			o.build_id = id;
			o.build_id_len = (size_t)n;
		}
	}
	if (o.debug_file) {
		int rc = check_debug_file(f, o.debug_file, err);
		if (rc < 0)
			return rc;
	}
	cfi_reader *r = cfi_reader_new();
	if (!r)
		return err_set(err, ERR_NOMEM, "out of memory");
	int rc = queue_sections(r, f, o.debug_file, err);
	if (rc == 0)
		rc = err_set(err, ERR_NOTFOUND, "%s: no .eh_frame or "
			     ".debug_frame contents%s", f->name,
			     o.debug_file ? ", nor in its debug file" : "");
	if (rc > 0)
		rc = ehelf_compile_reader(r, f->name, &o, image, len, stats, err);
	cfi_reader_free(r);
	if (rc == 0 && stats) {
		stats->eh_frame_bytes = section_size(f, ".eh_frame");
		stats->eh_frame_hdr_bytes = section_size(f, ".eh_frame_hdr");
		stats->debug_frame_bytes = section_size(f, ".debug_frame");
		if (o.debug_file)
			stats->debug_frame_bytes +=
				section_size(o.debug_file, ".debug_frame");
	}
	return rc;
}

/* BYTES as "128.0 GiB", "3.5 MiB" or "4096 bytes" into BUF. */
static const char *human_bytes(uint64_t bytes, char buf[32])
{
	if (bytes >= 1ull << 30)
		snprintf(buf, 32, "%.1f GiB", (double)bytes / (double)(1ull << 30));
	else if (bytes >= 1ull << 20)
		snprintf(buf, 32, "%.1f MiB", (double)bytes / (double)(1ull << 20));
	else
		snprintf(buf, 32, "%" PRIu64 " bytes", bytes);
	return buf;
}

/* The message of a table lt_build refused for its span (LT says why). */
static int span_refusal(const char *name, const lookup_table *lt,
			uint64_t rows, const uw_fde *widest, ehelf_err *err)
{
	char span[32], need[32], bound[32], wide[32];
	return err_set(err, ERR_UNSUPPORTED,
		       "%s: %" PRIu64 " rows span %s of addresses (0x%" PRIx64
		       "..0x%" PRIx64 "): the eh_elf's lookup pages would "
		       "take %s, over the bound of %s for this many rows (1 "
		       "MiB + %d bytes a table entry, docs/eh_elf.md); the "
		       "widest FDE, %s+0x%" PRIx64 ", spans %s (0x%" PRIx64
		       "..0x%" PRIx64 "): refused", name, rows,
		       human_bytes(lt->span_hi - lt->span_lo, span),
		       lt->span_lo, lt->span_hi, human_bytes(lt->rec_need, need),
		       human_bytes(lt->rec_bound, bound), LT_REC_PER_ENTRY,
		       widest->section ? widest->section : "?", widest->offset,
		       human_bytes(widest->hi - widest->lo, wide), widest->lo,
		       widest->hi);
}

int ehelf_compile_reader(cfi_reader *r, const char *name,
			 const ehelf_compile_opts *opts, uint8_t **image,
			 size_t *len, ehelf_compile_stats *stats,
			 ehelf_err *err)
{
	ehelf_compile_stats local;
	ehelf_compile_stats *st = stats ? stats : &local;
	memset(st, 0, sizeof *st);
	ehelf_coverage *cov = opts ? opts->coverage : NULL;
	if (cov)
		memset(cov, 0, sizeof *cov);
	ehelf_compile_detail *det = opts ? opts->detail : NULL;
	if (det)
		memset(det, 0, sizeof *det);
	struct ehelf_info info = { .magic = EHELF_INFO_MAGIC,
				   .abi_version = EHELF_ABI_VERSION };
	const uint8_t *id = opts ? opts->build_id : NULL;
	size_t idlen = id ? opts->build_id_len : 0;
	if (idlen > sizeof info.build_id)
		return err_set(err, ERR_ARG, "build-ID longer than 64 bytes");
	info.build_id_len = (uint32_t)idlen;
	if (idlen)
		memcpy(info.build_id, id, idlen);

	ruleset_table rs;
	lt_intervals iv = { 0 };
	lookup_table lt = { 0 };
	gen_blob blob = { 0 };
	if (ruleset_table_init(&rs) < 0)
		return err_set(err, ERR_NOMEM, "out of memory");
	spanvec fdes = { 0 };
	int rc = read_rows(r, name, &rs, &iv, &fdes, st, cov, det, &info.pc_lo,
			   &info.pc_hi, err);
	if (rc < 0)
		goto out;
	info.rows = st->rows;
	double t = det ? now_ms() : 0;
	lt_interval *owned;
	size_t nowned;
	uint64_t cut;
	rc = fde_owner_clip(fdes.v, fdes.n, iv.v, &owned, &nowned, &cut);
	if (rc < 0) {
		err_set(err, rc, "out of memory");
		goto out;
	}
	free(iv.v);
	iv = (lt_intervals){ owned, nowned, nowned };
	rc = lt_build(&lt, iv.v, iv.n);
	if (det) {
		det->rules_ms += now_ms() - t;
		t = now_ms();
	}
	if (rc == ERR_UNSUPPORTED) {
		span_refusal(name, &lt, st->rows, &fdes.widest, err);
		goto out;
	}
	if (rc < 0) {
		err_set(err, rc, "%s: cannot build the lookup table", name);
		goto out;
	}
	st->entries = lt.nentries;
	st->overlaps = cut + lt.overlaps;
	st->rulesets = (uint32_t)rs.n;
	rc = gen_blob_build_form(&blob, &lt, &rs, &info,
				 opts ? (gen_form)opts->code_form : GEN_FORM_AUTO);
	if (det)
		det->codegen_ms = now_ms() - t;
	if (rc < 0) {
		err_set(err, rc, "%s: code generation failed (%s)", name,
			err_code_name(rc));
		goto out;
	}
	if (det && (rc = detail_rulesets(det, &rs, &blob)) < 0) {
		err_set(err, rc, "out of memory");
		goto out;
	}
	if (blob.nunsupported) {
		st->unsupported = calloc(blob.nunsupported, sizeof *st->unsupported);
		if (!st->unsupported) {
			rc = err_set(err, ERR_NOMEM, "out of memory");
			goto out;
		}
		st->nunsupported = blob.nunsupported;
		for (size_t i = 0; i < blob.nunsupported; i++) {
			ehelf_unsupported *u = &st->unsupported[i];
			u->ruleset = blob.unsupported[i].ruleset;
			u->rows = rs.v[u->ruleset].nrows;
			memcpy(u->why, blob.unsupported[i].why, sizeof u->why);
			st->unsupported_rows += u->rows;
			for (size_t k = 0; k < iv.n; k++)
				if (iv.v[k].rule == u->ruleset) {
					u->example_pc = iv.v[k].lo;
					break;
				}
		}
	}
	st->code_bytes = blob.code_size;
	st->table_bytes = blob.a.n - blob.code_size;
	eh_elf_parts parts = {
		.blob = blob.a.buf, .blob_size = blob.a.n,
		.code_size = blob.code_size, .off_local = blob.off_local,
		.off_remote = blob.off_remote, .off_describe = blob.off_describe,
		.off_info = blob.off_info,
		.info_size = sizeof info, .build_id = info.build_id,
		.build_id_len = idlen, .code_align = blob.code_align,
		.section_headers = opts && opts->section_headers,
	};
	t = det ? now_ms() : 0;
	rc = eh_elf_write(&parts, image, len);
	if (det)
		det->image_ms = now_ms() - t;
	if (rc < 0) {
		err_set(err, rc, "%s: cannot write the eh_elf", name);
	} else if (*len > EHELF_COMPILE_MAX_BYTES) {
		char size[32];
		rc = err_set(err, ERR_UNSUPPORTED, "%s: the eh_elf would take %s, "
			     "more than the %u MiB the loader accepts: refused",
			     name, human_bytes(*len, size),
			     EHELF_COMPILE_MAX_BYTES >> 20);
		free(*image);
		*image = NULL;
		*len = 0;
	} else {
		st->output_bytes = *len;
	}
out:
	gen_blob_free(&blob);
	lt_free(&lt);
	free(iv.v);
	free(fdes.v);
	ruleset_table_free(&rs);
	if (!stats || rc < 0)
		ehelf_compile_stats_free(st);
	if (det && rc < 0)
		ehelf_compile_detail_free(det);
	return rc;
}

void ehelf_compile_stats_free(ehelf_compile_stats *s)
{
	free(s->unsupported);
	s->unsupported = NULL;
	s->nunsupported = 0;
}
