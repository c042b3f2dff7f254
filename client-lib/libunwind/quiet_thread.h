/*
 * quiet_thread.h - libehelf-unwind's own threads (the background
 * fetches): detached, and started with every signal blocked, so that a
 * profiler's SIGPROF or a program's handlers never run on them.
 */
#ifndef EHELF_LIBUNWIND_QUIET_THREAD_H
#define EHELF_LIBUNWIND_QUIET_THREAD_H

/* Start FN(ARG) on a new detached thread that blocks all signals; the
 * caller's signal mask is unchanged.  0, or -1 if none could be made. */
int quiet_thread_start(void *(*fn)(void *), void *arg);

#endif
