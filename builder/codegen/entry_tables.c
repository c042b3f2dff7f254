/*
 * entry_tables.c - the data of an eh_elf's blob after its code: ehelf_info,
 * the escape routine's constants, the page records, one word per rule set
 * (its summary, or where its body is), the 4-byte form's body references,
 * the full form's rule records, the parameters, the entries' offsets and
 * rule bytes, and the escape tables (layout: entry_layout.h).
 */
#include "entry_tables.h"
#include "entry_summary.h"

#include "summary.h"

/* The rule-set words, and with 4-byte words the body references and
 * describe's table. */
static void emit_words(x86_asm *a, const ruleset_table *rs, const tables *tb,
		       const blob_plan *plan)
{
	/* one word per rule set (in the new numbering): its summary, or its
	 * rule index * 2; compact: its body and parameters (emit_compact),
	 * and no rule records */
	/* word32: index 0 ("not covered", never read) is not stored */
	x86_bind_at(a, tb->summaries, a->n - (tb->word32 ? 4 : 0));
	uint32_t nbody = 0;
	for (size_t k = 0; k < plan->nslots; k++) {
		uint32_t i = plan->order[k];
		bool sum = i && i != NO_RULESET && plan->code[i].summarised;
		uint64_t w = sum ? ruleset_summary(&rs->v[i]) : (uint64_t)k << 1;
		if (tb->compact && !sum)
			w = !i ? 0 : (uint64_t)(x86_label_offset(a, plan->sh[plan->code[i].shape].label[1]) -
						x86_label_offset(a, tb->bodies)) << 1 |
				     (uint64_t)plan->code[i].params_off << 32;
		if (!tb->word32)
			x86_bytes(a, &w, 8);
		else if (sum)
			x86_u32(a, sum32(w));
		else if (i) /* the j-th body word: 2j */
			x86_u32(a, nbody++ * 2);
	}
	if (tb->word32) {
		x86_bind(a, tb->bodyrefs);
		int64_t base = (int64_t)a->n;
		for (size_t k = 0; k < plan->nslots; k++) {
			uint32_t i = plan->order[k];
			if (!i || plan->code[i].summarised)
				continue;
			int64_t rel = x86_label_offset(a, plan->sh[plan->code[i].shape].label[1]) - base;
			x86_u32(a, (uint32_t)(int32_t)rel);
			if (!tb->no_params)
				x86_u32(a, plan->code[i].params_off);
		}
		/* describe: a field (0..7) -> the slot's 7-bit value */
		x86_bind(a, tb->expand);
		x86_u8(a, EHELF_SUM_KEEP);
		for (unsigned f = 1; f < 1u << SUM32_BITS; f++)
			x86_u8(a, (uint8_t)((1u << EHELF_SUM_SLOT_BITS) - f));
	}
}

/* The full form's rule records (none in compact files). */
static void emit_records(x86_asm *a, const tables *tb, const blob_plan *plan)
{
	x86_bind(a, tb->records);
	for (size_t k = 0; k < plan->nslots && !tb->compact; k++) {
		uint32_t i = plan->order[k];
		int64_t here = (int64_t)a->n;
		bool sum = i && i != NO_RULESET && plan->code[i].summarised;
		if (i == 0) { /* "not covered" is never dispatched */
			x86_bytes(a, (uint8_t[RECORD_SIZE]){ 0 }, RECORD_SIZE);
			continue;
		}
		if (i == NO_RULESET) { /* the escape: its stubs */
			x86_u32(a, (uint32_t)(int32_t)(x86_label_offset(a, tb->stub[0]) - here));
			x86_u32(a, (uint32_t)(int32_t)(x86_label_offset(a, tb->stub[1]) - here));
			x86_u32(a, 0);
			continue;
		}
		const shape *s = &plan->sh[plan->code[i].shape];
		x86_u32(a, (uint32_t)(int32_t)(x86_label_offset(a, s->label[0]) - here));
		/* summarised: no remote body (the entry applies the summary) */
		x86_u32(a, sum ? 0 :
			(uint32_t)(int32_t)(x86_label_offset(a, s->label[1]) - here));
		x86_u32(a, plan->code[i].params_off);
	}
}

/* Every rule set's parameters, int16 or int32 by its shape. */
static void emit_params(x86_asm *a, const ruleset_table *rs, const tables *tb,
			const blob_plan *plan)
{
	x86_bind(a, tb->params);
	for (size_t i = 1; i < rs->n; i++) {
		const int32_t *p = plan->params + plan->code[i].params_at;
		for (uint32_t k = 0; k < plan->code[i].nparams; k++) {
			if (plan->sh[plan->code[i].shape].wide)
				x86_bytes(a, &p[k], 4);
			else
				x86_bytes(a, &(int16_t){ (int16_t)p[k] }, 2);
		}
	}
}

/* The entries' offsets and rule bytes, then the escaped entries'
 * ranks and indexes. */
static void emit_entries(x86_asm *a, const lookup_table *t, const tables *tb,
			 const blob_plan *plan)
{
	x86_bind(a, tb->entry_offsets);
	/* LT_VEC read at a time, but one by emit_lookup_small */
	size_t noff = t->nentries + (tb->compact && !tb->vec_lookup ? 0 : LT_VEC);
	for (size_t i = 0; i < noff; i++)
		x86_u8(a, t->off[i] ^ 0x80);
	x86_bind(a, tb->entry_rules);
	for (size_t i = 0; i < t->nentries; i++) {
		uint32_t k = plan->renum[t->rule[i]];
		x86_u8(a, (uint8_t)(k < LT_ESCAPE ? k : LT_ESCAPE));
	}
	if (tb->escapes) {
		/* escaped entries: ranks per block, then their indexes; the
		 * rule bytes are read eight at a time: padded */
		x86_bytes(a, (uint8_t[8]){ 0 }, 8);
		x86_align(a, 4, 0);
		x86_bind(a, tb->esc_rank);
		uint32_t before = 0;
		for (size_t i = 0; i < t->nentries; i++) {
			if (i % LT_ESC_BLOCK == 0)
				x86_u32(a, before);
			before += plan->renum[t->rule[i]] >= LT_ESCAPE;
		}
		x86_bind(a, tb->esc_rules);
		for (size_t i = 0; i < t->nentries; i++) {
			uint32_t k = plan->renum[t->rule[i]];
			if (k >= LT_ESCAPE)
				x86_bytes(a, &(uint16_t){ (uint16_t)k }, 2);
		}
	}
}

void emit_tables(x86_asm *a, const lookup_table *t, const ruleset_table *rs,
		 const tables *tb, const blob_plan *plan, struct ehelf_info *info,
		 size_t nunsupported, size_t *off_info)
{
	x86_align(a, 8, 0);
	*off_info = a->n;
	info->entries = (uint32_t)t->nentries;
	info->rulesets = (uint32_t)rs->n;
	info->unsupported = (uint32_t)nunsupported;
	info->page_bits = t->page_bits;
	x86_bytes(a, info, sizeof *info);
	x86_align(a, 8, 0);
	if (tb->escapes) { /* the escape routine's byte counts */
		x86_bind(a, tb->byte_ones);
		x86_bytes(a, &(uint64_t){ 0x0101010101010101ull }, 8);
		x86_bind(a, tb->byte_top_bits);
		x86_bytes(a, &(uint64_t){ 0x8080808080808080ull }, 8);
		x86_bind(a, tb->byte_low_bits);
		x86_bytes(a, &(uint64_t){ 0x7f7f7f7f7f7f7f7full }, 8);
	}
	x86_bind(a, tb->pages);
	x86_bytes(a, t->rec, (size_t)t->npages * t->stride);
	x86_align(a, 8, 0);
	emit_words(a, rs, tb, plan);
	emit_records(a, tb, plan);
	emit_params(a, rs, tb, plan);
	emit_entries(a, t, tb, plan);
	x86_align(a, 8, 0);
}
