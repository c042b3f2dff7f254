/* sample_unwind.c - see sample_unwind.h. */
#include "sample_unwind.h"

#include <asm/perf_regs.h>
#include <string.h>

int sample_regs(const perf_event *ev, ehelf_regs *out)
{
	/* DWARF number of each PERF_REG_X86_* (-1: not a DWARF column) */
	static const int dwarf_of[PERF_REG_X86_64_MAX] = {
		[PERF_REG_X86_AX] = EHELF_RAX, [PERF_REG_X86_BX] = EHELF_RBX,
		[PERF_REG_X86_CX] = EHELF_RCX, [PERF_REG_X86_DX] = EHELF_RDX,
		[PERF_REG_X86_SI] = EHELF_RSI, [PERF_REG_X86_DI] = EHELF_RDI,
		[PERF_REG_X86_BP] = EHELF_RBP, [PERF_REG_X86_SP] = EHELF_RSP,
		[PERF_REG_X86_IP] = EHELF_RIP, [PERF_REG_X86_FLAGS] = -1,
		[PERF_REG_X86_CS] = -1, [PERF_REG_X86_SS] = -1,
		[PERF_REG_X86_DS] = -1, [PERF_REG_X86_ES] = -1,
		[PERF_REG_X86_FS] = -1, [PERF_REG_X86_GS] = -1,
		[PERF_REG_X86_R8] = EHELF_R8, [PERF_REG_X86_R9] = EHELF_R9,
		[PERF_REG_X86_R10] = EHELF_R10, [PERF_REG_X86_R11] = EHELF_R11,
		[PERF_REG_X86_R12] = EHELF_R12, [PERF_REG_X86_R13] = EHELF_R13,
		[PERF_REG_X86_R14] = EHELF_R14, [PERF_REG_X86_R15] = EHELF_R15,
	};
	memset(out, 0, sizeof *out);
	if (!ev->sample.regs_abi || !ev->sample.regs)
		return -1;
	uint64_t mask = ev->sample.regs_mask;
	int k = 0;
	for (uint64_t left = mask; left; left &= left - 1) {
		int bit = __builtin_ctzll(left);
		uint64_t v = ev->sample.regs[k++];
		if (bit < PERF_REG_X86_64_MAX && dwarf_of[bit] >= 0) {
			out->r[dwarf_of[bit]] = v;
			out->valid |= 1u << dwarf_of[bit];
		}
	}
	uint32_t need = (1u << EHELF_RIP) | (1u << EHELF_RSP);
	return (out->valid & need) == need ? 0 : -1;
}

int sample_read(void *arg, uint64_t addr, uint64_t *value)
{
	sample_mem *m = arg;
	if (addr >= m->sp && m->size >= 8 && addr - m->sp <= m->size - 8) {
		memcpy(value, m->stack + (addr - m->sp), 8);
		return 0;
	}
	if (m->full > m->size && addr >= m->sp && addr - m->sp < m->full &&
	    addr - m->sp + 8 > m->size) {
		m->cut_read = true;
		return -1;
	}
	const pmap *map = m->pr ? proc_find(m->pr, addr) : NULL;
	if (!map || !map->d || !map->has_bias)
		return -1;
	return dso_read(map->d, addr - map->bias, value) == 0 ? 0 : -1;
}

int sample_unwind(proc *pr, const perf_reader *r, const perf_event *ev,
		  ehelf_frame *frames, int max)
{
	static uint8_t whole[65536];
	ehelf_regs regs;
	/* as perf: no stack copy, no user frames (the kernel could not read
	 * the user stack: a sample inside execve, whose user registers are
	 * still the old program's while the memory is the new one's) */
	if (!ev->sample.stack_size || sample_regs(ev, &regs) < 0)
		return 0;
	const ehelf_space *s = proc_space(pr);
	if (!s)
		return 0;
	/* outside the stack copy, memory comes from the files (sample_read
	 * finds nothing else there, but notes reads in the part of a cut
	 * copy that was left out); inside, ehelf loads it directly.  Never
	 * EHELF_UNWIND_COLD_SNAPSHOT: a copy the reader has just copied out
	 * of the file (its partial stacks, a pipe, compressed records) is
	 * in the caches, and one read in place through the file's mapping
	 * is cold, but prefetching its first 8 KiB costs more than the
	 * frames' own misses: most samples' frames span a fraction of it,
	 * and every sample pays for the rest in memory bandwidth
	 * (inject-bench, in place: CPU time 10-20% lower on sqlite3 and
	 * hackbench's threads with 8 KiB copies without the flag, the
	 * same on clang's 64 KiB). */
	const uint8_t *stack = ev->sample.stack;
	uint64_t size = stack ? ev->sample.stack_size : 0;
	bool cut = ev->sample.stack_full > size;
	sample_mem files = { .stack = stack, .sp = regs.r[EHELF_RSP],
			     .size = size, .full = cut ? ev->sample.stack_full : 0,
			     .pr = pr };
	unsigned flags = EHELF_UNWIND_FRAME_POINTER;
	int n = ehelf_unwind_snapshot(s, &regs, stack, files.sp, size,
				      sample_read, &files, frames, max, flags);
	if (files.cut_read) {
		/* the frames went beyond the part given: again, whole (the
		 * same unwinding otherwise: every read it made was in that
		 * part or outside the copy) */
		ehelf_err err;
		if (!r || ev->sample.stack_full > sizeof whole ||
		    perf_reader_read_stack(r, ev, whole, &err) < 0)
			return 0;
		files = (sample_mem){ .pr = pr };
		n = ehelf_unwind_snapshot(s, &regs, whole, regs.r[EHELF_RSP],
					  ev->sample.stack_full, sample_read,
					  &files, frames, max,
					  EHELF_UNWIND_FRAME_POINTER);
	}
	return n > 0 ? n : 0;
}
