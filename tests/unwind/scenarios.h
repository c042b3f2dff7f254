/*
 * scenarios.h - stacks worth unwinding, shared by the unwinder's test
 * programs: each builds a stack through some kind of frame and calls the
 * program's probe() at the deepest point.
 */
#ifndef EHELF_TESTS_SCENARIOS_H
#define EHELF_TESTS_SCENARIOS_H

#ifdef __cplusplus
extern "C" {
#endif

/* Called at the deepest point of each scenario; NAME says which. */
void probe(const char *name);

void scen_qsort(void);      /* through libc: a qsort comparator */
void scen_signal(void);     /* a signal handler: frames across __restore_rt */
void scen_drap(void);       /* a function realigning its stack (DRAP) */
void scen_recursive(void);  /* 40 frames of recursion */
void scen_cxx(void);        /* libstdc++: std::sort; an exception in flight
			     * (probes from the personality routine, with
			     * libgcc's unwinder and __cxa_throw on the
			     * stack, and from a destructor it runs) */
void scen_threads(void);    /* four threads running qsort at once */
void scen_thread_signal(void); /* a new thread's first unwinds in a signal
				* handler (its known stack range starts
				* there: local_read.c) */
void scen_cfa_rbx(void);    /* a CFA kept in rbx, below a frame that saves
			     * rbx and clobbers it, probed twice (the
			     * second time with the step cache warm); then
			     * twice from a signal handler, the rbx it needs
			     * in the signal's ucontext (scenario_cfa_rbx.S) */

/* All of them, in the order above. */
void scen_all(void);

#ifdef __cplusplus
}
#endif

#endif
