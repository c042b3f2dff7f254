/* libdw_unwind.c - see libdw_unwind.h. */
#define _GNU_SOURCE
#include "libdw_unwind.h"

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

struct libdw_unwinder {
	Dwfl *dwfl;
	pid_t pid;
	/* the unwind in progress */
	const ehelf_regs *regs;
	ehelf_read_fn read;
	void *arg;
	uint64_t *pcs;
	int n, max;
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl;
	libdw_unwinder *u = arg;
	if (*thread_argp) /* one thread: the registers we were given */
		return 0;
	*thread_argp = u;
	return u->pid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	libdw_unwinder *u = arg;
	*thread_argp = u;
	return tid == u->pid;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result,
			void *arg)
{
	(void)dwfl;
	libdw_unwinder *u = arg;
	uint64_t v;
	if (u->read(u->arg, addr, &v) != 0)
		return false;
	*result = v;
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
	libdw_unwinder *u = thread_arg;
	Dwarf_Word r[EHELF_NREGS]; /* DWARF 0..16: rax ... r15, rip */
	for (int i = 0; i < EHELF_NREGS; i++)
		r[i] = u->regs->r[i];
	return dwfl_thread_state_registers(thread, 0, EHELF_NREGS, r);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
};

/* for modules reported by file: no debuginfo search (perf finds none
 * either for CFI, which .eh_frame has) */
static const Dwfl_Callbacks file_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

libdw_unwinder *libdw_unwinder_new(pid_t pid)
{
	libdw_unwinder *u = calloc(1, sizeof *u);
	if (!u)
		return NULL;
	u->pid = pid;
	u->dwfl = dwfl_begin(&callbacks);
	if (!u->dwfl || dwfl_linux_proc_report(u->dwfl, pid) != 0 ||
	    dwfl_report_end(u->dwfl, NULL, NULL) != 0 ||
	    !dwfl_attach_state(u->dwfl, NULL, pid, &thread_callbacks, u)) {
		fprintf(stderr, "libdw unwinder: %s\n", dwfl_errmsg(-1));
		libdw_unwinder_free(u);
		return NULL;
	}
	return u;
}

libdw_unwinder *libdw_unwinder_new_modules(const libdw_module *mods, size_t n,
					   pid_t pid)
{
	libdw_unwinder *u = calloc(1, sizeof *u);
	if (!u)
		return NULL;
	u->pid = pid;
	u->dwfl = dwfl_begin(&file_callbacks);
	bool ok = u->dwfl != NULL;
	if (ok)
		dwfl_report_begin(u->dwfl);
	for (size_t i = 0; ok && i < n; i++)
		/* a file that cannot be reported is left out, as perf does */
		dwfl_report_elf(u->dwfl, mods[i].path, mods[i].path, -1,
				mods[i].bias, false);
	if (!ok || dwfl_report_end(u->dwfl, NULL, NULL) != 0 ||
	    !dwfl_attach_state(u->dwfl, NULL, pid, &thread_callbacks, u)) {
		fprintf(stderr, "libdw unwinder: %s\n", dwfl_errmsg(-1));
		libdw_unwinder_free(u);
		return NULL;
	}
	return u;
}

void libdw_unwinder_free(libdw_unwinder *u)
{
	if (!u)
		return;
	if (u->dwfl)
		dwfl_end(u->dwfl);
	free(u);
}

static int on_frame(Dwfl_Frame *state, void *arg)
{
	libdw_unwinder *u = arg;
	Dwarf_Addr pc;
	if (!dwfl_frame_pc(state, &pc, NULL))
		return DWARF_CB_ABORT;
	u->pcs[u->n++] = pc;
	return u->n < u->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

int libdw_unwind(libdw_unwinder *u, const ehelf_regs *regs, ehelf_read_fn read,
		 void *arg, uint64_t *pcs, int max)
{
	u->regs = regs;
	u->read = read;
	u->arg = arg;
	u->pcs = pcs;
	u->n = 0;
	u->max = max;
	if (max <= 0)
		return 0;
	/* ends with -1 at the outermost frame or an error: the frames so far
	 * are the answer either way */
	dwfl_getthread_frames(u->dwfl, u->pid, on_frame, u);
	return u->n ? u->n : -1;
}
