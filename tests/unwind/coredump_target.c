/*
 * coredump_target.c - a process for run-coredump-tests.sh to take a core
 * of (gcore): main -> c1 -> c2 -> c3, which spins until killed, so that
 * every frame but the outermost ones is this program's.  Linked with
 * -z noseparate-code: libunwind 1.6.2's coredump accessors take a
 * module's text to start at file offset 0.  Prints "ready" once in c3.
 */
#include <stdio.h>

static volatile int forever = 1;

__attribute__((noinline)) static void c3(void)
{
	printf("ready\n");
	fflush(stdout);
	while (forever)
		__asm__ volatile("");
}

__attribute__((noinline)) static void c2(void)
{
	c3();
	__asm__ volatile("");
}

__attribute__((noinline)) static void c1(void)
{
	c2();
	__asm__ volatile("");
}

int main(void)
{
	c1();
	return 0;
}
