/* A recursive program for run-perf-tests.sh, linked with lld.  Its PT_LOADs
 * share file pages (the executable one starts inside the first page), so
 * that a mapping's file offset alone does not tell which segment it maps.
 * And lld gives its PLT entries no CFI: with a second argument ("plt"), the
 * leaf calls strlen through the PLT, where the test sets an execute
 * breakpoint, so that every sample is taken on the first instruction of a
 * PLT entry (the return address at the stack pointer). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *volatile word = "eh_elf"; /* strlen cannot be folded */
static int plt_calls;

__attribute__((noinline)) static unsigned long leaf(unsigned long x)
{
	if (plt_calls)
		for (int i = 0; i < 100; i++)
			x = x * 31 + strlen(word);
	else
		for (int i = 0; i < 2000; i++)
			x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

__attribute__((noinline)) static unsigned long down(int depth, unsigned long x)
{
	if (depth == 0)
		return leaf(x);
	unsigned long r = down(depth - 1, x + (unsigned long)depth);
	return r ^ (r >> 7);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000;
	plt_calls = argc > 2 && !strcmp(argv[2], "plt");
	unsigned long s = 0;
	for (long i = 0; i < n; i++)
		s += down((int)(i % 24), (unsigned long)i);
	printf("%lu\n", s);
	return 0;
}
